/*
 * Segments (§4.4-4.6): gex_Segment_Attach, the disaggregated calls
 * (gex_Segment_Create/Destroy, gex_EP_BindSegment, gex_EP_PublishBoundSegment)
 * and the segment queries.
 *
 * gp's network serves one segment per process: the one the conduit allocates
 * in its registered region (on-host peers map it, NICs register it) when the
 * network opens, which gasnet_attach and gex_Segment_Attach do.  So:
 *   - gex_Segment_Create with address NULL before the network opens makes a
 *     segment the conduit is to allocate; binding it to the endpoint and
 *     publishing that over the primordial team opens the network with it,
 *     which is gex_Segment_Attach taken in three steps.  Its address is
 *     known from then on (QueryAddr is NULL before).  Every rank takes part
 *     in that first publish, with or without a segment: one without opens
 *     with none.
 *   - Once open, a Create with address NULL gets private memory, and one
 *     with a client address is exactly that memory: both answer the
 *     queries and may be destroyed, but binding either is fatal, since no
 *     transport could serve it.
 *   - Later publishes, over any team, have nothing to open: they check that
 *     what they name is served already.
 */
#include <gasnetex.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/attach/attach.h"
#include "conduit/core/state.h"
#include "util/log.h"

static uintptr_t page_round(uintptr_t length)
{
    return (length + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
}

/* 0 when length fits under gasnet_getMaxLocalSegmentSize(); else the error line and
 * GASNET_ERR_RESOURCE. */
static int check_length(const char *call, uintptr_t length)
{
    if (length <= gpc.max_local_segsize && page_round(length) <= gpc.max_local_segsize &&
        page_round(length) >= length)
        return 0;
    gp_error("api", "%s: length %lu exceeds gasnet_getMaxLocalSegmentSize() = %lu (hint: "
             "GASNET_MAX_SEGSIZE, GASNET_PHYSMEM_PINNABLE_RATIO, /dev/shm size)", call,
             (unsigned long)length, (unsigned long)gpc.max_local_segsize);
    return GASNET_ERR_RESOURCE;
}

static struct _gex_segment *live_segment(const char *call, gex_Segment_t seg)
{
    if (seg == GEX_SEGMENT_INVALID || seg->live != GPX_SEG_LIVE)
        gp_fatal("%s: %p is not a segment (destroyed, or never made)", call, (void *)seg);
    return seg;
}

/* The network opens with the bound segment's size (0: none) and the conduit allocates it. */
static int open_network(const char *call, struct _gex_segment *seg)
{
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler (handlers may only reply)", call);
    int rc = gpc_attach(NULL, 0, seg != NULL ? seg->size : 0);
    if (rc == GASNET_OK && seg != NULL)
        seg->published = 1;
    return rc;
}

GP_EXPORT int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t length)
{
    const char *call = "gex_Segment_Attach";
    if (!gpc.initialized)
        gp_fatal("%s called before gex_Client_Init", call);
    if (gpc.attached)
        gp_fatal("%s: the segment is already attached (by gex_Segment_Attach, gasnet_attach or "
                 "gex_EP_PublishBoundSegment); a process attaches once", call);
    if (gpx_ep.bound != NULL)
        gp_fatal("%s: the endpoint has a segment bound (gex_EP_BindSegment); publish it with "
                 "gex_EP_PublishBoundSegment instead", call);
    if (segment_p == NULL)
        return BAD_ARG("%s: segment_p is NULL; it receives the segment", call);
    if (tm != &_gex_tm0)
        return BAD_ARG("%s: team %p is not the primordial team", call, (void *)tm);
    int rc = check_length(call, length);
    if (rc != 0)
        return rc;
    gpx_segment.size = page_round(length);
    gpx_ep.bound = &gpx_segment;
    rc = open_network(call, &gpx_segment);
    if (rc != GASNET_OK) {
        gpx_ep.bound = NULL;
        return rc;
    }
    *segment_p = &gpx_segment;
    return GASNET_OK;
}

GP_EXPORT int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client,
                                 gex_Addr_t address, uintptr_t length, gex_MK_t kind,
                                 gex_Flags_t flags)
{
    const char *call = "gex_Segment_Create";
    if (!gpc.initialized)
        gp_fatal("%s called before gex_Client_Init", call);
    if (segment_p == NULL)
        return BAD_ARG("%s: segment_p is NULL; it receives the segment", call);
    if (client != &gpx_client)
        return BAD_ARG("%s: client %p is not this process's client (gex_Client_Init's, %p)", call,
                       (void *)client, (void *)&gpx_client);
    if (kind != GEX_MK_HOST)
        return BAD_ARG("%s: memory kind %p; gp takes GEX_MK_HOST only", call, (void *)kind);
    if (flags != 0)
        return BAD_ARG("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (address == NULL) {
        int rc = check_length(call, length);
        if (rc != 0)
            return rc;
    }
    struct _gex_segment *seg = calloc(1, sizeof *seg);
    if (seg == NULL)
        gp_fatal("%s: out of memory for a segment object", call);
    seg->live = GPX_SEG_LIVE;
    seg->size = address != NULL ? length : page_round(length);
    seg->addr = address;
    seg->conduit = address == NULL && !gpc.attached;
    if (address == NULL && gpc.attached && seg->size > 0) {
        seg->addr = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
        if (seg->addr == MAP_FAILED) {
            gp_error("api", "%s: mmap of %lu bytes: %m", call, (unsigned long)seg->size);
            free(seg);
            return GASNET_ERR_RESOURCE;
        }
        seg->owned = 1;
    }
    *segment_p = seg;
    return GASNET_OK;
}

GP_EXPORT void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags)
{
    const char *call = "gex_Segment_Destroy";
    struct _gex_segment *seg = live_segment(call, segment);
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (seg == gpx_ep.bound || seg == &gpx_segment)
        gp_fatal("%s: segment %p is bound to the endpoint; only an unbound one may be destroyed",
                 call, (void *)seg);
    if (seg->owned)
        munmap(seg->addr, seg->size);
    seg->live = 0;
    free(seg);
}

/* The four refusals the spec makes errors rather than fatal come back as GASNET_ERR_BAD_ARG
 * with nothing changed (a client probes them with verbose errors off). */
GP_EXPORT int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags)
{
    const char *call = "gex_EP_BindSegment";
    if (ep == GEX_EP_INVALID || ep != &gpx_ep)
        return BAD_ARG("%s: endpoint %p is not this process's endpoint (%p)", call, (void *)ep,
                       (void *)&gpx_ep);
    if (segment == GEX_SEGMENT_INVALID)
        return BAD_ARG("%s: segment is GEX_SEGMENT_INVALID", call);
    if (flags != 0)
        return BAD_ARG("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (gpx_ep.bound != NULL || (gpc.attached && gpc.segsize > 0))
        return BAD_ARG("%s: the endpoint has a segment bound already (%p)", call,
                       (void *)gpx_ep_segment());
    struct _gex_segment *seg = live_segment(call, segment);
    if (!seg->conduit)
        gp_fatal("%s: segment %p (%lu bytes at %p) is %s, which gp's transports cannot serve "
                 "(on-host peers map, and NICs register, only the memory the conduit allocates "
                 "as its network opens); accepted is a segment gex_Segment_Create made with "
                 "address NULL before the first gex_EP_PublishBoundSegment or "
                 "gex_Segment_Attach", call, (void *)seg, (unsigned long)seg->size, seg->addr,
                 seg->owned ? "memory allocated after the network opened" : "client memory");
    if (gpc.attached)
        gp_fatal("%s: the network opened (by gasnet_attach, gex_Segment_Attach or "
                 "gex_EP_PublishBoundSegment) without a segment for this endpoint; gp binds one "
                 "only before it opens", call);
    gpx_ep.bound = seg;
    return GASNET_OK;
}

GP_EXPORT int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps,
                                         gex_Flags_t flags)
{
    const char *call = "gex_EP_PublishBoundSegment";
    if (!gpc.initialized)
        gp_fatal("%s called before gex_Client_Init", call);
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (num_eps > 0 && eps == NULL)
        gp_fatal("%s: eps is NULL with num_eps %zu", call, num_eps);
    int mine = 0;
    for (size_t i = 0; i < num_eps; i++) {
        if (eps[i] != &gpx_ep)
            gp_fatal("%s: eps[%zu] = %p is not this process's endpoint (%p); a caller publishes "
                     "its own", call, i, (void *)eps[i], (void *)&gpx_ep);
        mine = 1;
    }
    struct _gex_segment *seg = mine ? gpx_ep.bound : NULL;
    if (!gpc.attached) {
        if (tm != &_gex_tm0)
            gp_fatal("%s: team %p before the network is open; the first publish (which opens "
                     "it) is over the primordial team", call, (void *)tm);
        return open_network(call, seg);
    }
    gpx_tm_check_team(call, tm);
    if (seg != NULL && !seg->published && seg != &gpx_segment)
        gp_fatal("%s: the endpoint's segment %p was bound but left out of the publish that "
                 "opened the network; gp publishes a segment only as its network opens",
                 call, (void *)seg);
    return GASNET_OK;
}

GP_EXPORT void gex_Segment_SetCData(gex_Segment_t seg, const void *val) { seg->cdata = (void *)val; }
GP_EXPORT void *gex_Segment_QueryCData(gex_Segment_t seg) { return seg->cdata; }
GP_EXPORT gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg) { (void)seg; return &gpx_client; }
GP_EXPORT gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg) { (void)seg; return 0; }

/* The conduit's segment is gasnet_attach's too, which leaves gpx_segment unmarked. */
static int serves(const struct _gex_segment *seg)
{
    return seg->conduit && gpc.attached && (seg == &gpx_segment || seg->published);
}

GP_EXPORT void *gex_Segment_QueryAddr(gex_Segment_t seg)
{
    if (seg->conduit)
        return serves(seg) ? gpc.segment : NULL;
    return seg->addr;
}

GP_EXPORT uintptr_t gex_Segment_QuerySize(gex_Segment_t seg)
{
    return serves(seg) ? gpc.segsize : seg->size;
}
