/*
 * gex_Client_Init (checks, then the conduit's init, as gasnet_init takes it), the client and
 * endpoint queries, and the bound-segment queries.  Segments themselves are in segment.c.
 */
#include <gasnetex.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/am/am.h"
#include "conduit/attach/attach.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/state.h"
#include "util/log.h"

static int ex_initialized; /* gex_Client_Init ran (not only gasnet_init) */

#define CLIENT_FLAGS (GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS)

_Noreturn void gpx_not_callable(const char *call)
{
    if (!gpc.attached)
        gp_fatal("%s called before gex_Segment_Attach", call);
    gp_fatal("%s called inside an AM handler (handlers may only reply)", call);
}

GP_EXPORT int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                              const char *clientName, int *argc, char ***argv, gex_Flags_t flags)
{
    (void)argc; /* gp-run hands the job over in the environment */
    (void)argv;
    if (gpc.initialized)
        gp_fatal("gex_Client_Init: %s (one client per process)",
                 ex_initialized ? "called twice" : "called after gasnet_init");
    if (client_p == NULL || ep_p == NULL || tm_p == NULL)
        return BAD_ARG("gex_Client_Init: client_p=%p ep_p=%p tm_p=%p; all three receive objects",
                       (void *)client_p, (void *)ep_p, (void *)tm_p);
    if (flags & ~(gex_Flags_t)CLIENT_FLAGS)
        return BAD_ARG("gex_Client_Init: flags 0x%x; accepted are GEX_FLAG_USES_GASNET1 and "
                       "GEX_FLAG_DEFER_THREADS", (unsigned)flags);
    int rc = gpc_init();
    if (rc != GASNET_OK)
        return rc;
    ex_initialized = 1;
    gpx_client.ex_first = 1;
    gpx_client.name = clientName ? clientName : "";
    gpx_client.flags = flags;
    *client_p = &gpx_client;
    *ep_p = &gpx_ep;
    *tm_p = &_gex_tm0;
    return GASNET_OK;
}

GP_EXPORT void gex_Client_SetCData(gex_Client_t client, const void *val) { client->cdata = (void *)val; }
GP_EXPORT void *gex_Client_QueryCData(gex_Client_t client) { return client->cdata; }
GP_EXPORT gex_Flags_t gex_Client_QueryFlags(gex_Client_t client) { return client->flags; }
GP_EXPORT const char *gex_Client_QueryName(gex_Client_t client) { return client->name; }

GP_EXPORT void gex_EP_SetCData(gex_EP_t ep, const void *val) { ep->cdata = (void *)val; }
GP_EXPORT void *gex_EP_QueryCData(gex_EP_t ep) { return ep->cdata; }
GP_EXPORT gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { (void)ep; return &gpx_client; }
GP_EXPORT gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { (void)ep; return 0; }
GP_EXPORT gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { (void)ep; return 0; }

GP_EXPORT gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep)
{
    (void)ep;
    return gpx_ep_segment();
}

/* One endpoint per process (GASNET_MAXEPS): a second one is a resource gp does not have. */
GP_EXPORT int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client,
                            gex_EP_Capabilities_t capabilities, gex_Flags_t flags)
{
    (void)ep_p;
    (void)client;
    (void)capabilities;
    (void)flags;
    return GASNET_ERR_RESOURCE;
}

GP_EXPORT int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries)
{
    if (!gpc.initialized)
        gp_fatal("gex_EP_RegisterHandlers called before gex_Client_Init");
    if (ep != &gpx_ep)
        return BAD_ARG("gex_EP_RegisterHandlers: endpoint %p is not the primordial endpoint",
                       (void *)ep);
    if (numentries > 0 && table == NULL)
        return BAD_ARG("gex_EP_RegisterHandlers: table is NULL with numentries=%zu", numentries);
    return gpc_register_entries(table, numentries);
}

/* Where rank's segment is reachable here: this process's own, or a peer's
 * the shm transport maps (gasnet_getNodeInfo's offset); else NULL. */
static void *local_view(gex_Rank_t rank)
{
    char *owner = gpc.seginfo[rank].addr;
    if (rank == gpc.rank)
        return owner;
    const gasnet_nodeinfo_t *info = gpc_nodeinfo();
    if (owner == NULL || info[rank].supernode != info[gpc.rank].supernode || info[rank].offset == 0)
        return NULL;
    return owner + info[rank].offset;
}

/* gp knows every segment from attach on, so every query completes at once. */
GP_EXPORT gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                                 void **localaddr_p, uintptr_t *size_p,
                                                 gex_Flags_t flags)
{
    (void)flags;
    rank = gpx_tm_jobrank("gex_EP_QueryBoundSegmentNB", tm, rank);
    int bound = gpc.attached && gpc.seginfo[rank].size > 0;
    if (owneraddr_p)
        *owneraddr_p = bound ? gpc.seginfo[rank].addr : NULL;
    if (localaddr_p)
        *localaddr_p = bound ? local_view(rank) : NULL;
    if (size_p)
        *size_p = bound ? gpc.seginfo[rank].size : 0;
    return GEX_EVENT_INVALID;
}

GP_EXPORT int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                     void **localaddr_p, uintptr_t *size_p)
{
    gex_Rank_t jobrank = gpx_tm_jobrank("gex_Segment_QueryBound", tm, rank);
    if (!gpc.attached || gpc.seginfo[jobrank].size == 0)
        return 1; /* nothing bound: nothing written */
    gex_EP_QueryBoundSegmentNB(tm, rank, owneraddr_p, localaddr_p, size_p, 0);
    return 0;
}
