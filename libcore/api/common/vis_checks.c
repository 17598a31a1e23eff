/*
 * The VIS argument rules of both faces (vis_checks.h) and the run of a
 * checked transfer.  Completion follows the RMA calls: blocking forms wait
 * on a temporary record, _nb forms hand the record out (none when the
 * transfer was empty or a direct copy), _nbi forms count into the thread's
 * implicit set or access region.
 */
#include <gasnet.h>

#include "api/common/vis_checks.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "conduit/rma/rma_ops.h"
#include "util/log.h"

void gp_api_vis_check_remote(const char *call, const char *what, size_t index, gasnet_node_t node,
                         const void *addr, size_t len)
{
    uintptr_t base = (uintptr_t)gpc.seginfo[node].addr, size = gpc.seginfo[node].size;
    if (!gpc_segment_holds(gpc.seginfo[node].addr, size, addr, len))
        gp_fatal("%s: %s[%zu] (%zu bytes at %p) lies outside node %u's segment [%p, %p)", call,
                 what, index, len, addr, node, (void *)base, (void *)(base + size));
}

static size_t add_bytes(const char *call, size_t total, size_t more)
{
    if (total + more < total)
        gp_fatal("%s: the pieces add up to more than SIZE_MAX bytes", call);
    return total + more;
}

size_t gp_api_vis_vector_bytes(const char *call, const char *list_name, size_t count,
                           const gasnet_memvec_t *list, gasnet_node_t remote_node, int remote)
{
    size_t total = 0;
    if (count > 0 && list == NULL)
        gp_fatal("%s: %s is NULL with %zu entries", call, list_name, count);
    for (size_t i = 0; i < count; i++) {
        if (list[i].len == 0)
            continue; /* an empty entry: its addr is never read */
        if (remote)
            gp_api_vis_check_remote(call, list_name, i, remote_node, list[i].addr, list[i].len);
        total = add_bytes(call, total, list[i].len);
    }
    return total;
}

size_t gp_api_vis_indexed_bytes(const char *call, const char *list_name, size_t count,
                            void *const *list, size_t len, gasnet_node_t remote_node, int remote)
{
    if (len == 0)
        gp_fatal("%s: %s's piece length is 0 (indexed lengths must be positive, even with no "
                 "pieces)", call, list_name);
    if (count > 0 && list == NULL)
        gp_fatal("%s: %s is NULL with %zu entries", call, list_name, count);
    size_t total;
    if (__builtin_mul_overflow(count, len, &total))
        gp_fatal("%s: %zu pieces of %zu bytes in %s exceed SIZE_MAX bytes", call, count, len,
                 list_name);
    for (size_t i = 0; remote && i < count; i++)
        gp_api_vis_check_remote(call, list_name, i, remote_node, list[i], len);
    return total;
}

/* GASNet's conservative check: more bytes than the list spans means two
 * destination entries overlap (no false alarm; not every overlap is seen). */
void gp_api_vis_check_dst_overlap(const char *call, size_t count, const gasnet_memvec_t *list,
                              size_t total)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (size_t i = 0; i < count; i++) {
        if (list[i].len == 0)
            continue;
        uintptr_t at = (uintptr_t)list[i].addr;
        lo = at < lo ? at : lo;
        hi = at + list[i].len > hi ? at + list[i].len : hi;
    }
    if (total > 0 && total > hi - lo)
        gp_fatal("%s: dstlist has overlapping elements (%zu bytes in a span of %zu); "
                 "destination pieces must be disjoint", call, total, (size_t)(hi - lo));
}

void gp_api_vis_check_sizes(const char *call, size_t dst_bytes, size_t src_bytes)
{
    if (dst_bytes != src_bytes)
        gp_fatal("%s: the destination pieces hold %zu bytes and the source pieces %zu; the "
                 "totals must agree", call, dst_bytes, src_bytes);
}

/* Runs the transfer with the completion the form asks for. */
size_t gp_api_vis_indexed_sides(const char *call, int is_put, gasnet_node_t node, size_t dstcount,
                                void *const dstlist[], size_t dstlen, size_t srccount,
                                void *const srclist[], size_t srclen, struct gpc_vis_side *dst,
                                struct gpc_vis_side *src)
{
    size_t dst_bytes =
        gp_api_vis_indexed_bytes(call, "dstlist", dstcount, dstlist, dstlen, node, is_put);
    size_t src_bytes =
        gp_api_vis_indexed_bytes(call, "srclist", srccount, srclist, srclen, node, !is_put);
    gp_api_vis_check_sizes(call, dst_bytes, src_bytes);
    *dst = (struct gpc_vis_side){ .form = GPC_VIS_INDEXED, .count = dstcount, .addrs = dstlist,
                                  .len = dstlen };
    *src = (struct gpc_vis_side){ .form = GPC_VIS_INDEXED, .count = srccount, .addrs = srclist,
                                  .len = srclen };
    return dst_bytes;
}

gasnet_handle_t gp_api_vis_run(int is_put, gasnet_node_t node, const struct gpc_vis_side *dst,
                               const struct gpc_vis_side *src, size_t nbytes,
                               enum gp_vis_sync sync)
{
    if (nbytes == 0)
        return GASNET_INVALID_HANDLE;
    if (gpc_vis_direct(node)) { /* a copy, complete on return whatever the form */
        if (is_put)
            gpc_vis_put(node, dst, src, nbytes, NULL);
        else
            gpc_vis_get(dst, node, src, nbytes, NULL);
        return GASNET_INVALID_HANDLE;
    }
    struct gpc_op *op = sync == GP_VIS_NBI ? gpc_op_implicit() : gpc_op_new(OP_EXPLICIT);
    if (is_put)
        gpc_vis_put(node, dst, src, nbytes, op);
    else
        gpc_vis_get(dst, node, src, nbytes, op);
    if (sync == GP_VIS_NBI)
        return GASNET_INVALID_HANDLE;
    if (sync == GP_VIS_BLOCKING) {
        gpc_op_wait(op);
        gpc_op_free(op);
        return GASNET_INVALID_HANDLE;
    }
    if (gpc_op_done(op)) {
        gpc_op_free(op);
        return GASNET_INVALID_HANDLE;
    }
    return (gasnet_handle_t)op;
}
