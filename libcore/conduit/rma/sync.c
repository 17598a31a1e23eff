/*
 * Completing operations for both API faces (sync.h): explicit handles or
 * events, arrays of them, the thread's implicit set and access regions.
 */
#include "conduit/rma/sync.h"
#include "conduit/coll/coll.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "conduit/rma/rma_ops.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"

static struct gpc_op *handle_op(gasnet_handle_t handle, const char *call)
{
    struct gpc_op *op = (struct gpc_op *)handle;
    if (op->kind != OP_EXPLICIT && op->kind != OP_REGION && op->kind != OP_COLL)
        gp_fatal("%s: handle %p is not a live explicit handle (synchronized twice?)", call,
                 (void *)handle);
    return op;
}

/* A collective's event completes with the collective, which advances only when asked
 * (gpc_coll_done); every other record completes by its counts. */
static int event_done(struct gpc_op *op)
{
    return op->kind == OP_COLL ? gpc_coll_done(gpc_coll_of_event(op)) : gpc_op_done(op);
}

static void event_free(struct gpc_op *op)
{
    if (op->kind == OP_COLL)
        gpc_coll_release(gpc_coll_of_event(op));
    gpc_op_free(op);
}

void gpc_sync_wait(gasnet_handle_t handle, const char *call)
{
    if (handle == GASNET_INVALID_HANDLE) {
        gpc_call_progress();
        return;
    }
    struct gpc_op *op = handle_op(handle, call);
    if (op->kind == OP_COLL) {
        gpc_call_progress();
        while (!event_done(op))
            gpc_wait_turn();
    } else {
        gpc_op_wait(op);
    }
    event_free(op);
}

int gpc_sync_try(gasnet_handle_t handle, const char *call)
{
    if (handle == GASNET_INVALID_HANDLE) {
        gpc_call_progress();
        return GASNET_OK;
    }
    struct gpc_op *op = handle_op(handle, call);
    if (event_done(op)) {
        gpc_call_progress();
    } else {
        gpc_poll();
        if (!event_done(op))
            return GASNET_ERR_NOT_READY;
    }
    event_free(op);
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
        if (event_done(op)) {
            event_free(op);
            handles[i] = GASNET_INVALID_HANDLE;
            (*retired)++;
        } else {
            live++;
        }
    }
    return live;
}

int gpc_sync_try_array(gasnet_handle_t *handles, size_t numhandles, int all, const char *call)
{
    size_t retired;
    gpc_poll();
    size_t live = retire_done(handles, numhandles, call, &retired);
    if (all)
        return live == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
    return (retired > 0 || live == 0) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gpc_sync_wait_array(gasnet_handle_t *handles, size_t numhandles, int all, const char *call)
{
    size_t retired;
    gpc_call_progress();
    if (all) {
        while (retire_done(handles, numhandles, call, &retired) > 0)
            gpc_wait_turn();
    } else {
        while (retire_done(handles, numhandles, call, &retired) > 0 && retired == 0)
            gpc_wait_turn();
    }
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

void gpc_sync_wait_implicit(int puts, int gets, const char *call)
{
    struct gpc_op *set = implicit_set(call);
    gpc_call_progress();
    while (!implicit_done(set, puts, gets))
        gpc_wait_turn();
}

int gpc_sync_try_implicit(int puts, int gets, const char *call)
{
    struct gpc_op *set = implicit_set(call);
    if (implicit_done(set, puts, gets)) {
        gpc_call_progress();
        return GASNET_OK;
    }
    gpc_poll();
    return implicit_done(set, puts, gets) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gpc_region_begin(const char *call)
{
    if (!gpc.attached)
        gp_fatal("%s called before the segment is attached", call);
    if (gpc_thread_region != NULL)
        gp_fatal("%s: access regions do not nest (spec 4.8)", call);
    gpc_thread_region = gpc_op_new(OP_REGION);
}

gasnet_handle_t gpc_region_end(const char *call)
{
    struct gpc_op *region = gpc_thread_region;
    if (region == NULL)
        gp_fatal("%s without a matching begin of an access region", call);
    gpc_thread_region = NULL;
    return (gasnet_handle_t)region; /* a real handle even for an empty region */
}
