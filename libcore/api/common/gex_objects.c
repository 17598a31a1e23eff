/*
 * The one client, endpoint, primordial team and segment of a process, made
 * by gex_Client_Init or gasnet_init alike, and the GASNet-1 way to them.
 */
#include <gasnetex.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/coll/team.h"
#include "conduit/core/state.h"
#include "util/log.h"

struct _gex_client gpx_client = { .name = "" };
struct _gex_ep gpx_ep;
struct _gex_segment gpx_segment = { .live = GPX_SEG_LIVE, .conduit = 1 };
GP_EXPORT struct _gex_tm _gex_tm0 = { .live = GPX_TM_LIVE, .team = &gpc_team_all_storage };

GP_EXPORT void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                                      gex_Segment_t *segment_p)
{
    if (!gpc.initialized)
        gp_fatal("gasnet_QueryGexObjects called before gasnet_init or gex_Client_Init");
    if (client_p)
        *client_p = &gpx_client;
    if (ep_p)
        *ep_p = &gpx_ep;
    if (tm_p)
        *tm_p = &_gex_tm0;
    if (segment_p)
        *segment_p = gpx_ep_segment();
}

gex_Segment_t gpx_ep_segment(void)
{
    if (gpx_ep.bound != NULL)
        return gpx_ep.bound;
    return gpc.attached ? &gpx_segment : GEX_SEGMENT_INVALID;
}
