/*
 * EX RMA (§10) and its completion (§9): each form is the conduit operation
 * its GASNet-1 twin runs (api/gasnet1/extended.c), with the same direct
 * copy to a mapped peer first for the blocking forms, and events are the
 * conduit's operation records, synced by conduit/rma/sync.c as GASNet-1
 * handles are.  A put's source is handed back when the conduit returns
 * (nal.h), so local completion is reached before return: an lc_opt
 * pointer receives GEX_EVENT_INVALID, and no leaf event is ever live.
 * gp never declines an IMMEDIATE operation.
 */
/* The exported functions are defined here, not the header's inline versions of them. */
#define GP_NO_INLINE_RMA
#include <gasnetex.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/am/am.h"
#include "conduit/core/state.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/rma/sync.h"
#include "util/log.h"

_Noreturn void gpx_offset_addressing_refused(const char *call, gex_Flags_t flags)
{
    gp_fatal("%s: flags 0x%x hold GEX_FLAG_SELF_SEG_OFFSET/PEER_SEG_OFFSET, which are not "
             "supported (addresses are addresses)", call, (unsigned)flags);
}

/* The target's jobrank. */
static gex_Rank_t check_rma(const char *call, gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags)
{
    gpx_check_callable(call);
    gpx_check_addressing(call, flags);
    return gpx_tm_jobrank(call, tm, rank);
}

static void check_value_size(const char *call, size_t nbytes)
{
    if (nbytes == 0 || nbytes > SIZEOF_GEX_RMA_VALUE_T)
        gp_fatal("%s: nbytes is %zu; value operations take 1 to %d bytes", call, nbytes,
                 SIZEOF_GEX_RMA_VALUE_T);
}

/* NB puts: NOW, DEFER or a pointer; NBI puts: NOW, DEFER or GROUP. */
static void put_lc(const char *call, gex_Event_t *lc_opt, int implicit)
{
    if (lc_opt == GEX_EVENT_NOW || lc_opt == GEX_EVENT_DEFER)
        return;
    if (implicit && lc_opt == GEX_EVENT_GROUP)
        return;
    if (implicit || lc_opt == NULL || lc_opt == GEX_EVENT_GROUP)
        gp_fatal("%s: lc_opt %p; accepted are GEX_EVENT_NOW, GEX_EVENT_DEFER and %s", call,
                 (void *)lc_opt, implicit ? "GEX_EVENT_GROUP" : "a gex_Event_t pointer");
    *lc_opt = GEX_EVENT_INVALID;
}

/* An event, or GEX_EVENT_INVALID when the operation is already complete. */
static gex_Event_t as_event(struct gpc_op *op)
{
    return (gex_Event_t)gpc_op_in_flight(op);
}

GP_EXPORT int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                  size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_PutBlocking", tm, rank, flags);
    gpc_put_blocking(rank, dest, src, nbytes);
    return 0;
}

GP_EXPORT gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                    size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_PutNB", tm, rank, flags);
    put_lc("gex_RMA_PutNB", lc_opt, 0);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put(rank, dest, src, nbytes, op);
    return as_event(op);
}

GP_EXPORT int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                             size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_PutNBI", tm, rank, flags);
    put_lc("gex_RMA_PutNBI", lc_opt, 1);
    gpc_put(rank, dest, src, nbytes, gpc_op_implicit());
    return 0;
}

GP_EXPORT int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                  size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_GetBlocking", tm, rank, flags);
    gpc_get_blocking(dest, rank, src, nbytes);
    return 0;
}

GP_EXPORT gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                    size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_GetNB", tm, rank, flags);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_get(dest, rank, src, nbytes, op);
    return as_event(op);
}

GP_EXPORT int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                             gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_GetNBI", tm, rank, flags);
    gpc_get(dest, rank, src, nbytes, gpc_op_implicit());
    return 0;
}

GP_EXPORT int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                     gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_PutBlockingVal", tm, rank, flags);
    check_value_size("gex_RMA_PutBlockingVal", nbytes);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put_value(rank, dest, value, nbytes, op);
    gpc_op_finish(op);
    return 0;
}

GP_EXPORT gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                       gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_PutNBVal", tm, rank, flags);
    check_value_size("gex_RMA_PutNBVal", nbytes);
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put_value(rank, dest, value, nbytes, op);
    return as_event(op);
}

GP_EXPORT int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                                size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_PutNBIVal", tm, rank, flags);
    check_value_size("gex_RMA_PutNBIVal", nbytes);
    gpc_put_value(rank, dest, value, nbytes, gpc_op_implicit());
    return 0;
}

GP_EXPORT gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                                 size_t nbytes, gex_Flags_t flags)
{
    rank = check_rma("gex_RMA_GetBlockingVal", tm, rank, flags);
    check_value_size("gex_RMA_GetBlockingVal", nbytes);
    return (gex_RMA_Value_t)gpc_get_value_finish(gpc_get_value_start(rank, src, nbytes));
}

static void check_event(const char *call, gex_Event_t event)
{
    if (event == GEX_EVENT_NO_OP)
        gp_fatal("%s: GEX_EVENT_NO_OP is not an event (an IMMEDIATE call that did not start)",
                 call);
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler", call);
}

static void check_events(const char *call, gex_Event_t *pevent, size_t numevents,
                         gex_Flags_t flags)
{
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (numevents > 0 && pevent == NULL)
        gp_fatal("%s: pevent is NULL with numevents=%zu", call, numevents);
    for (size_t i = 0; i < numevents; i++)
        check_event(call, pevent[i]);
}

GP_EXPORT int gex_Event_Test(gex_Event_t event)
{
    check_event("gex_Event_Test", event);
    return gpc_sync_try(event, "gex_Event_Test");
}

GP_EXPORT void gex_Event_Wait(gex_Event_t event)
{
    check_event("gex_Event_Wait", event);
    gpc_sync_wait(event, "gex_Event_Wait");
}

GP_EXPORT int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    check_events("gex_Event_TestSome", pevent, numevents, flags);
    return gpc_sync_try_array(pevent, numevents, 0, "gex_Event_TestSome");
}

GP_EXPORT void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    check_events("gex_Event_WaitSome", pevent, numevents, flags);
    gpc_sync_wait_array(pevent, numevents, 0, "gex_Event_WaitSome");
}

GP_EXPORT int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    check_events("gex_Event_TestAll", pevent, numevents, flags);
    return gpc_sync_try_array(pevent, numevents, 1, "gex_Event_TestAll");
}

GP_EXPORT void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    check_events("gex_Event_WaitAll", pevent, numevents, flags);
    gpc_sync_wait_array(pevent, numevents, 1, "gex_Event_WaitAll");
}

/* Local completion is always reached before an operation returns: no leaf is ever pending. */
GP_EXPORT gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_id)
{
    (void)root;
    if (event_id != GEX_EC_LC)
        gp_fatal("gex_Event_QueryLeaf: event_id %u; the only leaf kind is GEX_EC_LC", event_id);
    return GEX_EVENT_INVALID;
}

/* The categories the implicit set tracks: puts (remote completion: GEX_EC_PUT less its local
 * completion bit) and gets, which also count the atomics but SET (GEX_EC_RMW, atomic.c).  AM
 * and put local completion (GEX_EC_LC) are complete at return. */
#define EC_PUT_BIT ((gex_EC_t)GEX_EC_PUT & ~(gex_EC_t)GEX_EC_LC)
#define EC_GET_BIT ((gex_EC_t)GEX_EC_GET | (gex_EC_t)GEX_EC_RMW)

static void check_nbi(const char *call, gex_EC_t mask, gex_Flags_t flags)
{
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (mask == 0)
        gp_fatal("%s: mask is 0; give GEX_EC_PUT, _GET, _AM, _LC, _RMW or _ALL", call);
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler", call);
}

GP_EXPORT int gex_NBI_Test(gex_EC_t mask, gex_Flags_t flags)
{
    check_nbi("gex_NBI_Test", mask, flags);
    return gpc_sync_try_implicit(!!(mask & EC_PUT_BIT), !!(mask & EC_GET_BIT), "gex_NBI_Test");
}

GP_EXPORT void gex_NBI_Wait(gex_EC_t mask, gex_Flags_t flags)
{
    check_nbi("gex_NBI_Wait", mask, flags);
    gpc_sync_wait_implicit(!!(mask & EC_PUT_BIT), !!(mask & EC_GET_BIT), "gex_NBI_Wait");
}

GP_EXPORT void gex_NBI_BeginAccessRegion(gex_Flags_t flags)
{
    if (flags != 0)
        gp_fatal("gex_NBI_BeginAccessRegion: flags 0x%x; it takes 0", (unsigned)flags);
    gpc_region_begin("gex_NBI_BeginAccessRegion");
}

GP_EXPORT gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags)
{
    if (flags != 0)
        gp_fatal("gex_NBI_EndAccessRegion: flags 0x%x; it takes 0", (unsigned)flags);
    return gpc_region_end("gex_NBI_EndAccessRegion");
}
