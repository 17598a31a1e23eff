/*
 * Locality for gasnet_getNodeInfo (spec 5.4.5): gathered at init, since
 * GASNet allows the call any time after gasnet_init (its test harness
 * sizes its thread count from it before attach), and made exact at attach.
 *
 * host: the bootstrap's numbering of the job's hosts (boot/hosts.c: nodes
 * with the same host identity, GP_HOST_ID or else host name and boot id,
 * numbered 0, 1, ... in the order of each host's lowest node) -- the one
 * the hybrid transport uses to choose shm or a network.
 *
 * supernode: the nodes whose segments a process can load and store
 * directly.  Before attach no segment is mapped yet, so init reports what
 * the transport will map (hybrid, shm and loop map the peers of a host;
 * tcp and ibv map none); attach replaces it with what is mapped.  On shm, and between the processes of one host on the default
 * hybrid transport, every process maps its peers' regions, so a host is a
 * supernode; on tcp a process maps only itself, so every node is its own.  Each node reports the
 * lowest node whose segment it maps (itself at worst) and the supernodes
 * are numbered, like hosts, in the order of their lowest node -- so every
 * node computes the same table.
 *
 * offset: where this process maps a peer's segment, less the peer's own
 * address of it (ptl_direct_address of its RAR, as rma.c uses for direct
 * copies, whether or not GP_DIRECT_RMA lets rma.c use it); 0 where unmapped.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "conduit/am/am_wire.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/state.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/log.h"

/* What each node says at attach: the lowest node whose segment it maps. */
struct locality {
    uint32_t lowest_mapped;
};

static gasnet_nodeinfo_t *table;

/* The peer's segment as mapped here, NULL where it is not. */
static void *mapped_segment(gasnet_node_t node)
{
    if (node == gpc.rank)
        return gpc.seginfo[node].addr;
    if (gpc.seginfo[node].size == 0)
        return NULL;
    return ptl_direct_address(gpc.ni, node, PT_RAR, PTL_ACCESS_PUT, 0, 0, gpc.seginfo[node].size);
}

/* Numbers the distinct lowest mapped nodes 0, 1, ... by first appearance (the lowest node). */
static void number_by_first(const struct locality *all, gasnet_node_t *out)
{
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        gasnet_node_t next_id = 0, id = (gasnet_node_t)-1;
        for (gasnet_node_t earlier = 0; earlier < node && id == (gasnet_node_t)-1; earlier++) {
            if (all[earlier].lowest_mapped == all[node].lowest_mapped)
                id = out[earlier];
            else if (out[earlier] >= next_id)
                next_id = out[earlier] + 1;
        }
        out[node] = id != (gasnet_node_t)-1 ? id : next_id;
    }
}

/* Does the transport map the segments of every peer on this host? */
static int maps_host_peers(void)
{
    return ptl_transport_maps_peers(gp_cfg.gp_transport) != PTL_MAPS_NONE;
}

int gpc_nodeinfo_init(void)
{
    table = calloc(gpc.nodes, sizeof *table);
    /* Collective: every node numbers the hosts, even one whose table failed. */
    if (gp_boot_hosts_init() != GP_BOOT_OK || table == NULL)
        return GASNET_ERR_RESOURCE;
    int by_host = maps_host_peers();
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        table[node].host = (gasnet_node_t)gp_boot_host_of((int)node);
        table[node].supernode = by_host ? table[node].host : node;
    }
    return GASNET_OK;
}

int gpc_nodeinfo_setup(void)
{
    struct locality mine;
    memset(&mine, 0, sizeof mine); /* hosts are known since init */
    mine.lowest_mapped = gpc.rank;
    for (gasnet_node_t node = 0; node < gpc.rank; node++)
        if (mapped_segment(node) != NULL) {
            mine.lowest_mapped = node;
            break;
        }
    struct locality *all = calloc(gpc.nodes, sizeof *all);
    gasnet_node_t *ids = calloc(gpc.nodes, sizeof *ids);
    if (all == NULL || ids == NULL || gp_boot_allgather(&mine, all, sizeof mine) != 0) {
        free(all);
        free(ids);
        return GASNET_ERR_RESOURCE;
    }
    number_by_first(all, ids);
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        table[node].supernode = ids[node];
        char *here = mapped_segment(node);
        table[node].offset = here == NULL ? 0 : (uintptr_t)here - (uintptr_t)gpc.seginfo[node].addr;
    }
    free(all);
    free(ids);
    return GASNET_OK;
}

const gasnet_nodeinfo_t *gpc_nodeinfo(void)
{
    return table;
}
