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
#include "conduit/rma/sync.h"
#include "conduit/core/state.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"

GP_EXPORT void gasnet_wait_syncnb(gasnet_handle_t handle)
{
    gpc_sync_wait(handle, "gasnet_wait_syncnb");
}

GP_EXPORT int gasnet_try_syncnb(gasnet_handle_t handle)
{
    return gpc_sync_try(handle, "gasnet_try_syncnb");
}

GP_EXPORT int gasnet_try_syncnb_all(gasnet_handle_t *handles, size_t numhandles)
{
    return gpc_sync_try_array(handles, numhandles, 1, "gasnet_try_syncnb_all");
}

GP_EXPORT void gasnet_wait_syncnb_all(gasnet_handle_t *handles, size_t numhandles)
{
    gpc_sync_wait_array(handles, numhandles, 1, "gasnet_wait_syncnb_all");
}

GP_EXPORT int gasnet_try_syncnb_some(gasnet_handle_t *handles, size_t numhandles)
{
    return gpc_sync_try_array(handles, numhandles, 0, "gasnet_try_syncnb_some");
}

GP_EXPORT void gasnet_wait_syncnb_some(gasnet_handle_t *handles, size_t numhandles)
{
    gpc_sync_wait_array(handles, numhandles, 0, "gasnet_wait_syncnb_some");
}

GP_EXPORT void gasnet_wait_syncnbi_gets(void) { gpc_sync_wait_implicit(0, 1, "gasnet_wait_syncnbi_gets"); }
GP_EXPORT void gasnet_wait_syncnbi_puts(void) { gpc_sync_wait_implicit(1, 0, "gasnet_wait_syncnbi_puts"); }
GP_EXPORT void gasnet_wait_syncnbi_all(void) { gpc_sync_wait_implicit(1, 1, "gasnet_wait_syncnbi_all"); }
GP_EXPORT int gasnet_try_syncnbi_gets(void) { return gpc_sync_try_implicit(0, 1, "gasnet_try_syncnbi_gets"); }
GP_EXPORT int gasnet_try_syncnbi_puts(void) { return gpc_sync_try_implicit(1, 0, "gasnet_try_syncnbi_puts"); }
GP_EXPORT int gasnet_try_syncnbi_all(void) { return gpc_sync_try_implicit(1, 1, "gasnet_try_syncnbi_all"); }

GP_EXPORT void gasnet_begin_nbi_accessregion(void)
{
    gpc_region_begin("gasnet_begin_nbi_accessregion");
}

GP_EXPORT gasnet_handle_t gasnet_end_nbi_accessregion(void)
{
    return gpc_region_end("gasnet_end_nbi_accessregion");
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
