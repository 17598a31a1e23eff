/*
 * The GASNet-1 extended API entry points (spec section 4): phase checks,
 * then the conduit.  Extended-API errors are fatal (spec 1.9), so misuse
 * ends the job with a message naming the call and what was wrong.
 *
 * Every form is one conduit operation plus a way to complete it: blocking
 * forms wait on a temporary record, explicit forms hand the record out as
 * the handle (or GASNET_INVALID_HANDLE when it completed at once), implicit
 * forms count into the thread's implicit set or its access region.
 */
/* The exported functions are defined here, not the header's inline versions of them. */
#define GP_NO_INLINE_RMA
#include <gasnet.h>

#include "api/common/export.h"
#include "conduit/am/am.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/core/state.h"
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

static void check_value_size(const char *call, size_t nbytes)
{
    if (nbytes == 0 || nbytes > SIZEOF_GASNET_REGISTER_VALUE_T)
        gp_fatal("%s: nbytes is %zu; value operations take 1 to %d bytes", call, nbytes,
                 SIZEOF_GASNET_REGISTER_VALUE_T);
}

/* An explicit handle, or none (GASNET_INVALID_HANDLE) when the operation is already complete. */
static gasnet_handle_t as_handle(struct gpc_op *op)
{
    return (gasnet_handle_t)gpc_op_in_flight(op);
}

GP_EXPORT void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    check_callable("gasnet_put", node);
    gpc_put_blocking(node, dest, src, nbytes);
}

GP_EXPORT void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    check_callable("gasnet_put_bulk", node);
    gpc_put_blocking(node, dest, src, nbytes);
}

GP_EXPORT void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get", node);
    gpc_get_blocking(dest, node, src, nbytes);
}

GP_EXPORT void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get_bulk", node);
    gpc_get_blocking(dest, node, src, nbytes);
}

GP_EXPORT void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    check_callable("gasnet_memset", node);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_memset(node, dest, val, nbytes, op);
    gpc_op_finish(op);
}

/* Transports hand the source back when put returns (nal.h), so the non-bulk
 * rule "source reusable on return" holds for _nb and _nb_bulk alike. */
GP_EXPORT gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    check_callable("gasnet_put_nb", node);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put(node, dest, src, nbytes, op);
    return as_handle(op);
}

GP_EXPORT gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src,
                                             size_t nbytes)
{
    check_callable("gasnet_put_nb_bulk", node);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put(node, dest, src, nbytes, op);
    return as_handle(op);
}

GP_EXPORT gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get_nb", node);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_get(dest, node, src, nbytes, op);
    return as_handle(op);
}

GP_EXPORT gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src,
                                             size_t nbytes)
{
    check_callable("gasnet_get_nb_bulk", node);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_get(dest, node, src, nbytes, op);
    return as_handle(op);
}

GP_EXPORT gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    check_callable("gasnet_memset_nb", node);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_memset(node, dest, val, nbytes, op);
    return as_handle(op);
}

GP_EXPORT void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    check_callable("gasnet_put_nbi", node);
    gpc_put(node, dest, src, nbytes, gpc_op_implicit());
}

GP_EXPORT void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    check_callable("gasnet_put_nbi_bulk", node);
    gpc_put(node, dest, src, nbytes, gpc_op_implicit());
}

GP_EXPORT void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get_nbi", node);
    gpc_get(dest, node, src, nbytes, gpc_op_implicit());
}

GP_EXPORT void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get_nbi_bulk", node);
    gpc_get(dest, node, src, nbytes, gpc_op_implicit());
}

GP_EXPORT void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    check_callable("gasnet_memset_nbi", node);
    gpc_memset(node, dest, val, nbytes, gpc_op_implicit());
}

GP_EXPORT void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                              size_t nbytes)
{
    check_callable("gasnet_put_val", node);
    check_value_size("gasnet_put_val", nbytes);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put_value(node, dest, value, nbytes, op);
    gpc_op_finish(op);
}

GP_EXPORT gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                            gasnet_register_value_t value, size_t nbytes)
{
    check_callable("gasnet_put_nb_val", node);
    check_value_size("gasnet_put_nb_val", nbytes);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put_value(node, dest, value, nbytes, op);
    return as_handle(op);
}

GP_EXPORT void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                  size_t nbytes)
{
    check_callable("gasnet_put_nbi_val", node);
    check_value_size("gasnet_put_nbi_val", nbytes);
    gpc_put_value(node, dest, value, nbytes, gpc_op_implicit());
}

GP_EXPORT gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get_val", node);
    check_value_size("gasnet_get_val", nbytes);
    return gasnet_wait_syncnb_valget(gasnet_get_nb_val(node, src, nbytes));
}

GP_EXPORT gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes)
{
    check_callable("gasnet_get_nb_val", node);
    check_value_size("gasnet_get_nb_val", nbytes);
    return (gasnet_valget_handle_t)gpc_get_value_start(node, src, nbytes);
}

GP_EXPORT gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle)
{
    struct gpc_op *op = (struct gpc_op *)handle;
    if (op == NULL || op->kind != OP_VALGET)
        gp_fatal("gasnet_wait_syncnb_valget: %p is not a value-get handle", (void *)handle);
    return (gasnet_register_value_t)gpc_get_value_finish(op);
}

GP_EXPORT int gasnet_set_waitmode(int wait_mode)
{
    if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
        wait_mode != GASNET_WAIT_SPINBLOCK)
        return BAD_ARG("gasnet_set_waitmode: %d is not GASNET_WAIT_SPIN, _BLOCK or _SPINBLOCK",
                       wait_mode);
    gpc.wait_mode = wait_mode;
    return GASNET_OK;
}

GP_EXPORT gasnet_threadinfo_t _gasnet_threadinfo(void)
{
    static _Thread_local char thread_marker;
    return &thread_marker;
}
