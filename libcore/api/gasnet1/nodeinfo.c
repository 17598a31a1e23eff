/*
 * gasnet_getNodeInfo (spec 5.4.5) and the library's configuration string
 * (spec 2.6: clients compare GASNET_CONFIG_STRING with it, and strings(1)
 * finds it in a static executable).
 */
#include <gasnet.h>

#include "api/common/export.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/state.h"
#include "util/log.h"

GP_EXPORT const char _gasnet_config_string[] = GASNET_CONFIG_STRING;

/* Same table conventions as gasnet_getSegmentInfo: entries past the job's
 * last node are left alone.  Any time after gasnet_init, as in GASNet
 * (offsets are 0 until attach maps the segments). */
GP_EXPORT int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries)
{
    if (!gpc.initialized) {
        gp_error("api", "gasnet_getNodeInfo before gasnet_init");
        return GASNET_ERR_NOT_INIT;
    }
    if (numentries < 0 || (numentries > 0 && nodeinfo_table == NULL))
        return BAD_ARG("gasnet_getNodeInfo: table=%p with numentries=%d", (void *)nodeinfo_table,
                       numentries);
    const gasnet_nodeinfo_t *info = gpc_nodeinfo();
    for (int node = 0; node < numentries && (gasnet_node_t)node < gpc.nodes; node++)
        nodeinfo_table[node] = info[node];
    return GASNET_OK;
}
