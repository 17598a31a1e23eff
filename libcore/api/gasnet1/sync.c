/*
 * Synchronization (spec 4.5, 4.7, 4.8) and barriers (4.10): explicit
 * handles, the thread's implicit set, access regions.  An explicit handle is
 * the operation record itself; syncing it frees the record.  A sync that
 * finds its operations done enters no wait, and a client may loop on it:
 * each such sync still makes a call turn (gpc_call_progress, doc/progress.md).
 */
#include <gasnet.h>

#include "api/common/export.h"
#include "conduit/am/am.h"
#include "conduit/coll/barrier.h"
#include "conduit/core/progress.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/core/state.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"

static struct gpc_op *handle_op(gasnet_handle_t handle, const char *call)
{
    struct gpc_op *op = (struct gpc_op *)handle;
    if (op->kind != OP_EXPLICIT && op->kind != OP_REGION)
        gp_fatal("%s: handle %p is not a live explicit handle (synchronized twice?)", call,
                 (void *)handle);
    return op;
}

GP_EXPORT void gasnet_wait_syncnb(gasnet_handle_t handle)
{
    if (handle == GASNET_INVALID_HANDLE) {
        gpc_call_progress();
        return;
    }
    struct gpc_op *op = handle_op(handle, "gasnet_wait_syncnb");
    gpc_op_wait(op);
    gpc_op_free(op);
}

GP_EXPORT int gasnet_try_syncnb(gasnet_handle_t handle)
{
    if (handle == GASNET_INVALID_HANDLE) {
        gpc_call_progress();
        return GASNET_OK;
    }
    struct gpc_op *op = handle_op(handle, "gasnet_try_syncnb");
    if (gpc_op_done(op)) {
        gpc_call_progress();
    } else {
        gpc_poll();
        if (!gpc_op_done(op))
            return GASNET_ERR_NOT_READY;
    }
    gpc_op_free(op);
    return GASNET_OK;
}

/* Retires every complete handle of the array; returns how many remain live. */
static size_t retire_done(gasnet_handle_t *handles, size_t numhandles, const char *call,
                          size_t *retired)
{
    size_t live = 0;
    *retired = 0;
    for (size_t i = 0; i < numhandles; i++) {
        if (handles[i] == GASNET_INVALID_HANDLE)
            continue;
        struct gpc_op *op = handle_op(handles[i], call);
        if (gpc_op_done(op)) {
            gpc_op_free(op);
            handles[i] = GASNET_INVALID_HANDLE;
            (*retired)++;
        } else {
            live++;
        }
    }
    return live;
}

GP_EXPORT int gasnet_try_syncnb_all(gasnet_handle_t *handles, size_t numhandles)
{
    size_t retired;
    gpc_poll();
    return retire_done(handles, numhandles, "gasnet_try_syncnb_all", &retired) == 0
               ? GASNET_OK : GASNET_ERR_NOT_READY;
}

GP_EXPORT void gasnet_wait_syncnb_all(gasnet_handle_t *handles, size_t numhandles)
{
    size_t retired;
    gpc_call_progress();
    while (retire_done(handles, numhandles, "gasnet_wait_syncnb_all", &retired) > 0)
        gpc_wait_turn();
}

GP_EXPORT int gasnet_try_syncnb_some(gasnet_handle_t *handles, size_t numhandles)
{
    size_t retired;
    gpc_poll();
    size_t live = retire_done(handles, numhandles, "gasnet_try_syncnb_some", &retired);
    return (retired > 0 || live == 0) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

GP_EXPORT void gasnet_wait_syncnb_some(gasnet_handle_t *handles, size_t numhandles)
{
    size_t retired;
    gpc_call_progress();
    while (retire_done(handles, numhandles, "gasnet_wait_syncnb_some", &retired) > 0 &&
           retired == 0)
        gpc_wait_turn();
}

static struct gpc_op *implicit_set(const char *call)
{
    if (gpc_thread_region != NULL)
        gp_fatal("%s called inside an access region (spec 4.8)", call);
    return gpc_thread_implicit;
}

static int implicit_done(struct gpc_op *set, int puts, int gets)
{
    if (set != NULL && ((puts && gp_count_get(&set->puts_pending) != 0) ||
                        (gets && gp_count_get(&set->gets_pending) != 0)))
        return 0;
    /* As in gpc_op_done: pairs with the release half of the decrement that retired the last
     * operation, so the data of the gets synced here -- by a wait or a successful try -- are
     * visible to the caller. */
    gp_fence_load();
    return 1;
}

static void wait_implicit(const char *call, int puts, int gets)
{
    struct gpc_op *set = implicit_set(call);
    gpc_call_progress();
    while (!implicit_done(set, puts, gets))
        gpc_wait_turn();
}

static int try_implicit(const char *call, int puts, int gets)
{
    struct gpc_op *set = implicit_set(call);
    if (implicit_done(set, puts, gets)) {
        gpc_call_progress();
        return GASNET_OK;
    }
    gpc_poll();
    return implicit_done(set, puts, gets) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

GP_EXPORT void gasnet_wait_syncnbi_gets(void) { wait_implicit("gasnet_wait_syncnbi_gets", 0, 1); }
GP_EXPORT void gasnet_wait_syncnbi_puts(void) { wait_implicit("gasnet_wait_syncnbi_puts", 1, 0); }
GP_EXPORT void gasnet_wait_syncnbi_all(void) { wait_implicit("gasnet_wait_syncnbi_all", 1, 1); }
GP_EXPORT int gasnet_try_syncnbi_gets(void) { return try_implicit("gasnet_try_syncnbi_gets", 0, 1); }
GP_EXPORT int gasnet_try_syncnbi_puts(void) { return try_implicit("gasnet_try_syncnbi_puts", 1, 0); }
GP_EXPORT int gasnet_try_syncnbi_all(void) { return try_implicit("gasnet_try_syncnbi_all", 1, 1); }

GP_EXPORT void gasnet_begin_nbi_accessregion(void)
{
    if (!gpc.attached)
        gp_fatal("gasnet_begin_nbi_accessregion called before gasnet_attach");
    if (gpc_thread_region != NULL)
        gp_fatal("gasnet_begin_nbi_accessregion: access regions do not nest (spec 4.8)");
    gpc_thread_region = gpc_op_new(OP_REGION);
}

GP_EXPORT gasnet_handle_t gasnet_end_nbi_accessregion(void)
{
    struct gpc_op *region = gpc_thread_region;
    if (region == NULL)
        gp_fatal("gasnet_end_nbi_accessregion without gasnet_begin_nbi_accessregion");
    gpc_thread_region = NULL;
    return (gasnet_handle_t)region; /* a real handle even for an empty region */
}

static void check_barrier_call(const char *call)
{
    if (!gpc.attached)
        gp_fatal("%s called before gasnet_attach", call);
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler", call);
}

GP_EXPORT void gasnet_barrier_notify(int id, int flags)
{
    check_barrier_call("gasnet_barrier_notify");
    gpc_barrier_notify(id, flags);
}

GP_EXPORT int gasnet_barrier_wait(int id, int flags)
{
    check_barrier_call("gasnet_barrier_wait");
    return gpc_barrier_wait(id, flags);
}

GP_EXPORT int gasnet_barrier_try(int id, int flags)
{
    check_barrier_call("gasnet_barrier_try");
    return gpc_barrier_try(id, flags);
}

GP_EXPORT int gasnet_barrier(int id, int flags)
{
    check_barrier_call("gasnet_barrier");
    if (gpc_barrier_between_notify_and_wait())
        gp_fatal("gasnet_barrier called between gasnet_barrier_notify and its wait/try");
    gpc_barrier_notify(id, flags);
    return gpc_barrier_wait(id, flags);
}

GP_EXPORT int gasnet_barrier_result(int *id)
{
    check_barrier_call("gasnet_barrier_result");
    if (id == NULL)
        gp_fatal("gasnet_barrier_result: id is NULL (it receives the phase's name)");
    return gpc_barrier_result(id);
}
