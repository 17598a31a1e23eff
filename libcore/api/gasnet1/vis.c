/*
 * The VIS entry points of gasnet_vis.h (extensions spec section 1): phase
 * checks, the family's argument rules, every remote piece checked against
 * the node's segment, the two totals compared; then the conduit (vis.c)
 * moves the bytes.  Misuse is a fatal error naming the call, the list and
 * piece, the address and the node: GASNet's debug builds check the same
 * things, and a stray remote write is worse than a stop.
 *
 * The checks the EX face shares, and the run with the completion each form
 * asks for, are api/common/vis_checks.c's.
 */
#include <gasnet.h>
#include <gasnet_vis.h>

#include "api/common/export.h"
#include "api/common/vis_checks.h"
#include "conduit/am/am.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "conduit/vis/vis.h"
#include "util/log.h"

static void check_callable(const char *call, gasnet_node_t node)
{
    if (!gpc.attached)
        gp_fatal("%s called before gasnet_attach", call);
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler (the extended API is for main-line code)", call);
    if (node >= gpc.nodes)
        gp_fatal("%s: node %u does not exist (the job has %u nodes)", call, node, gpc.nodes);
}

/* The strided volume; checks both sides' strides and the remote extent. */
static size_t strided_bytes(const char *call, const size_t dststrides[], const size_t srcstrides[],
                            const size_t count[], size_t levels, const void *remote_addr,
                            const char *remote_name, gasnet_node_t node)
{
    if (count == NULL)
        gp_fatal("%s: count is NULL", call);
    size_t volume = count[0];
    for (size_t k = 1; k <= levels; k++)
        if (__builtin_mul_overflow(volume, count[k], &volume))
            gp_fatal("%s: the counts' product exceeds SIZE_MAX bytes", call);
    if (volume == 0)
        return 0;
    if (levels > 0 && (dststrides == NULL || srcstrides == NULL))
        gp_fatal("%s: %s is NULL with stridelevels %zu", call,
                 dststrides == NULL ? "dststrides" : "srcstrides", levels);
    const size_t *sides[2] = { dststrides, srcstrides };
    const char *names[2] = { "dststrides", "srcstrides" };
    for (int s = 0; s < 2; s++) {
        for (size_t k = 0; k < levels; k++) {
            size_t need = k == 0 ? count[0] : count[k] * sides[s][k - 1];
            if (k > 0 && sides[s][k - 1] != 0 && need / sides[s][k - 1] != count[k])
                need = SIZE_MAX;
            if (sides[s][k] < need)
                gp_fatal("%s: %s[%zu] (%zu) < %s (%zu): runs would overlap", call, names[s], k,
                         sides[s][k], k == 0 ? "count[0]" : "count[k] * strides[k-1]", need);
        }
    }
    const size_t *rstrides = remote_name[0] == 'd' ? dststrides : srcstrides;
    size_t extent = count[0];
    for (size_t k = 1; k <= levels; k++)
        extent += (count[k] - 1) * rstrides[k - 1]; /* bounded by the strides' own rule */
    gp_api_vis_check_remote(call, remote_name, 0, node, remote_addr, extent);
    return volume;
}

/* ---- vector ---------------------------------------------------------------- */

static gasnet_handle_t putv(const char *call, enum gp_vis_sync sync, gasnet_node_t dstnode,
                           size_t dstcount, gasnet_memvec_t const dstlist[], size_t srccount,
                           gasnet_memvec_t const srclist[])
{
    check_callable(call, dstnode);
    size_t dst_bytes = gp_api_vis_vector_bytes(call, "dstlist", dstcount, dstlist, dstnode, 1);
    size_t src_bytes = gp_api_vis_vector_bytes(call, "srclist", srccount, srclist, 0, 0);
    gp_api_vis_check_dst_overlap(call, dstcount, dstlist, dst_bytes);
    gp_api_vis_check_sizes(call, dst_bytes, src_bytes);
    struct gpc_vis_side dst = { .form = GPC_VIS_VECTOR, .count = dstcount, .vec = dstlist };
    struct gpc_vis_side src = { .form = GPC_VIS_VECTOR, .count = srccount, .vec = srclist };
    return gp_api_vis_run(1, dstnode, &dst, &src, dst_bytes, sync);
}

static gasnet_handle_t getv(const char *call, enum gp_vis_sync sync, size_t dstcount,
                            gasnet_memvec_t const dstlist[], gasnet_node_t srcnode,
                            size_t srccount, gasnet_memvec_t const srclist[])
{
    check_callable(call, srcnode);
    size_t dst_bytes = gp_api_vis_vector_bytes(call, "dstlist", dstcount, dstlist, 0, 0);
    size_t src_bytes = gp_api_vis_vector_bytes(call, "srclist", srccount, srclist, srcnode, 1);
    gp_api_vis_check_dst_overlap(call, dstcount, dstlist, dst_bytes);
    gp_api_vis_check_sizes(call, dst_bytes, src_bytes);
    struct gpc_vis_side dst = { .form = GPC_VIS_VECTOR, .count = dstcount, .vec = dstlist };
    struct gpc_vis_side src = { .form = GPC_VIS_VECTOR, .count = srccount, .vec = srclist };
    return gp_api_vis_run(0, srcnode, &dst, &src, dst_bytes, sync);
}

GP_EXPORT void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                                gasnet_memvec_t const dstlist[], size_t srccount,
                                gasnet_memvec_t const srclist[])
{
    putv("gasnet_putv_bulk", GP_VIS_BLOCKING, dstnode, dstcount, dstlist, srccount, srclist);
}

GP_EXPORT gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                              gasnet_memvec_t const dstlist[], size_t srccount,
                                              gasnet_memvec_t const srclist[])
{
    return putv("gasnet_putv_nb_bulk", GP_VIS_NB, dstnode, dstcount, dstlist, srccount, srclist);
}

GP_EXPORT void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                    gasnet_memvec_t const dstlist[], size_t srccount,
                                    gasnet_memvec_t const srclist[])
{
    putv("gasnet_putv_nbi_bulk", GP_VIS_NBI, dstnode, dstcount, dstlist, srccount, srclist);
}

GP_EXPORT void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                gasnet_node_t srcnode, size_t srccount,
                                gasnet_memvec_t const srclist[])
{
    getv("gasnet_getv_bulk", GP_VIS_BLOCKING, dstcount, dstlist, srcnode, srccount, srclist);
}

GP_EXPORT gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                              gasnet_node_t srcnode, size_t srccount,
                                              gasnet_memvec_t const srclist[])
{
    return getv("gasnet_getv_nb_bulk", GP_VIS_NB, dstcount, dstlist, srcnode, srccount, srclist);
}

GP_EXPORT void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                    gasnet_node_t srcnode, size_t srccount,
                                    gasnet_memvec_t const srclist[])
{
    getv("gasnet_getv_nbi_bulk", GP_VIS_NBI, dstcount, dstlist, srcnode, srccount, srclist);
}

/* ---- indexed --------------------------------------------------------------- */

static gasnet_handle_t puti(const char *call, enum gp_vis_sync sync, gasnet_node_t dstnode,
                            size_t dstcount, void *const dstlist[], size_t dstlen,
                            size_t srccount, void *const srclist[], size_t srclen)
{
    check_callable(call, dstnode);
    struct gpc_vis_side dst, src;
    size_t bytes = gp_api_vis_indexed_sides(call, 1, dstnode, dstcount, dstlist, dstlen, srccount,
                                            srclist, srclen, &dst, &src);
    return gp_api_vis_run(1, dstnode, &dst, &src, bytes, sync);
}

static gasnet_handle_t geti(const char *call, enum gp_vis_sync sync, size_t dstcount,
                            void *const dstlist[], size_t dstlen, gasnet_node_t srcnode,
                            size_t srccount, void *const srclist[], size_t srclen)
{
    check_callable(call, srcnode);
    struct gpc_vis_side dst, src;
    size_t bytes = gp_api_vis_indexed_sides(call, 0, srcnode, dstcount, dstlist, dstlen, srccount,
                                            srclist, srclen, &dst, &src);
    return gp_api_vis_run(0, srcnode, &dst, &src, bytes, sync);
}

GP_EXPORT void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                size_t dstlen, size_t srccount, void *const srclist[],
                                size_t srclen)
{
    puti("gasnet_puti_bulk", GP_VIS_BLOCKING, dstnode, dstcount, dstlist, dstlen, srccount, srclist,
         srclen);
}

GP_EXPORT gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                              void *const dstlist[], size_t dstlen,
                                              size_t srccount, void *const srclist[],
                                              size_t srclen)
{
    return puti("gasnet_puti_nb_bulk", GP_VIS_NB, dstnode, dstcount, dstlist, dstlen, srccount,
                srclist, srclen);
}

GP_EXPORT void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                    size_t dstlen, size_t srccount, void *const srclist[],
                                    size_t srclen)
{
    puti("gasnet_puti_nbi_bulk", GP_VIS_NBI, dstnode, dstcount, dstlist, dstlen, srccount, srclist,
         srclen);
}

GP_EXPORT void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                size_t srclen)
{
    geti("gasnet_geti_bulk", GP_VIS_BLOCKING, dstcount, dstlist, dstlen, srcnode, srccount, srclist,
         srclen);
}

GP_EXPORT gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[],
                                              size_t dstlen, gasnet_node_t srcnode,
                                              size_t srccount, void *const srclist[],
                                              size_t srclen)
{
    return geti("gasnet_geti_nb_bulk", GP_VIS_NB, dstcount, dstlist, dstlen, srcnode, srccount,
                srclist, srclen);
}

GP_EXPORT void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                    gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                    size_t srclen)
{
    geti("gasnet_geti_nbi_bulk", GP_VIS_NBI, dstcount, dstlist, dstlen, srcnode, srccount, srclist,
         srclen);
}

/* ---- strided --------------------------------------------------------------- */

static gasnet_handle_t vis_puts(const char *call, enum gp_vis_sync sync, gasnet_node_t dstnode,
                            void *dstaddr, const size_t dststrides[], void *srcaddr,
                            const size_t srcstrides[], const size_t count[], size_t levels)
{
    check_callable(call, dstnode);
    size_t nbytes = strided_bytes(call, dststrides, srcstrides, count, levels, dstaddr, "dstaddr",
                                  dstnode);
    struct gpc_vis_side dst = { .form = GPC_VIS_STRIDED, .base = dstaddr, .strides = dststrides,
                                .counts = count, .levels = levels };
    struct gpc_vis_side src = { .form = GPC_VIS_STRIDED, .base = srcaddr, .strides = srcstrides,
                                .counts = count, .levels = levels };
    return gp_api_vis_run(1, dstnode, &dst, &src, nbytes, sync);
}

static gasnet_handle_t vis_gets(const char *call, enum gp_vis_sync sync, void *dstaddr,
                            const size_t dststrides[], gasnet_node_t srcnode, void *srcaddr,
                            const size_t srcstrides[], const size_t count[], size_t levels)
{
    check_callable(call, srcnode);
    size_t nbytes = strided_bytes(call, dststrides, srcstrides, count, levels, srcaddr, "srcaddr",
                                  srcnode);
    struct gpc_vis_side dst = { .form = GPC_VIS_STRIDED, .base = dstaddr, .strides = dststrides,
                                .counts = count, .levels = levels };
    struct gpc_vis_side src = { .form = GPC_VIS_STRIDED, .base = srcaddr, .strides = srcstrides,
                                .counts = count, .levels = levels };
    return gp_api_vis_run(0, srcnode, &dst, &src, nbytes, sync);
}

GP_EXPORT void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                                void *srcaddr, const size_t srcstrides[], const size_t count[],
                                size_t stridelevels)
{
    vis_puts("gasnet_puts_bulk", GP_VIS_BLOCKING, dstnode, dstaddr, dststrides, srcaddr, srcstrides,
         count, stridelevels);
}

GP_EXPORT gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                              const size_t dststrides[], void *srcaddr,
                                              const size_t srcstrides[], const size_t count[],
                                              size_t stridelevels)
{
    return vis_puts("gasnet_puts_nb_bulk", GP_VIS_NB, dstnode, dstaddr, dststrides, srcaddr, srcstrides,
                count, stridelevels);
}

GP_EXPORT void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr,
                                    const size_t dststrides[], void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels)
{
    vis_puts("gasnet_puts_nbi_bulk", GP_VIS_NBI, dstnode, dstaddr, dststrides, srcaddr, srcstrides,
         count, stridelevels);
}

GP_EXPORT void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                                void *srcaddr, const size_t srcstrides[], const size_t count[],
                                size_t stridelevels)
{
    vis_gets("gasnet_gets_bulk", GP_VIS_BLOCKING, dstaddr, dststrides, srcnode, srcaddr, srcstrides,
         count, stridelevels);
}

GP_EXPORT gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                              gasnet_node_t srcnode, void *srcaddr,
                                              const size_t srcstrides[], const size_t count[],
                                              size_t stridelevels)
{
    return vis_gets("gasnet_gets_nb_bulk", GP_VIS_NB, dstaddr, dststrides, srcnode, srcaddr, srcstrides,
                count, stridelevels);
}

GP_EXPORT void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[],
                                    gasnet_node_t srcnode, void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels)
{
    vis_gets("gasnet_gets_nbi_bulk", GP_VIS_NBI, dstaddr, dststrides, srcnode, srcaddr, srcstrides,
         count, stridelevels);
}
