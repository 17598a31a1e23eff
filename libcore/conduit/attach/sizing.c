/*
 * Per-host sizing at init: how many of the job's processes share this host,
 * and from that the largest segment a process may attach and whether its
 * waits must yield the CPU.
 *
 * Physical memory, /dev/shm and cores belong to a host, so they are shared
 * among the processes on this host -- never among the whole job's, which
 * on a job of thousands of hosts would cap every segment far below what a
 * host can give and make every wait yield.  The host of each node is the
 * identity the transports use (gpc_nodeinfo_init, boot/locality.c: GP_HOST_ID,
 * else host name and boot id).  The shm transport maps every peer, so its
 * whole job is on this host whatever the identities say.
 *
 * /dev/shm's free space bounds only a segment that lives there (shm, and the
 * default hybrid transport, whose region is a /dev/shm object): tcp and ibv
 * keep the region in private memory.  The bound is a share of what is free
 * at init, not a reservation: pages are committed as they are touched
 * (nal/shm/shm.c).
 */
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "boot/boot.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/state.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/log.h"

#define PAGE_DOWN(x) ((uint64_t)(x) & ~((uint64_t)GASNET_PAGESIZE - 1))

/* Room left in the same /dev/shm object for the conduit's own buffers. */
#define CONDUIT_BUFFER_ALLOWANCE ((uint64_t)8 << 20)

int gpc_shares_host(gasnet_node_t node)
{
    /* Every peer mapped: all share this host's memory, whatever hosts they name. */
    if (ptl_transport_maps_peers(gp_cfg.gp_transport) == PTL_MAPS_EVERY_PEER)
        return 1;
    const gasnet_nodeinfo_t *info = gpc_nodeinfo();
    return info[node].host == info[gpc.rank].host;
}

/* The nodes that share this host (this one included). */
static gasnet_node_t local_node_count(void)
{
    gasnet_node_t count = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++)
        count += (gasnet_node_t)gpc_shares_host(node);
    return count;
}

/* GASNET_PHYSMEM_PINNABLE_RATIO of physical memory, shared by the local nodes. */
static uint64_t pinnable_share(gasnet_node_t local)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    if (pages <= 0)
        return UINT64_MAX;
    double bytes = (double)pages * (double)sysconf(_SC_PAGESIZE) * gp_cfg.physmem_pinnable_ratio;
    return (uint64_t)(bytes / local);
}

/* /dev/shm's free space shared by the local nodes, less the buffers' allowance;
 * UINT64_MAX when the region does not live there or /dev/shm can't be examined. */
static uint64_t dev_shm_share(gasnet_node_t local)
{
    struct statvfs shm;
    if (!ptl_transport_region_in_dev_shm(gp_cfg.gp_transport) || statvfs("/dev/shm", &shm) != 0)
        return UINT64_MAX;
    uint64_t share = (uint64_t)shm.f_bavail * shm.f_frsize / local;
    return share > CONDUIT_BUFFER_ALLOWANCE ? share - CONDUIT_BUFFER_ALLOWANCE : 0;
}

static uint64_t smallest(uint64_t a, uint64_t b) { return a < b ? a : b; }

void gpc_sizing_init(void)
{
    gasnet_node_t local = local_node_count();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t pinnable = pinnable_share(local), shm = dev_shm_share(local);
    uint64_t limit = PAGE_DOWN(smallest(gp_cfg.max_segsize, smallest(pinnable, shm)));
    /* A client may bound the segment before gasnet_init (GASNet's gasnet_max_segsize). */
    if (gasnet_max_segsize != 0 && PAGE_DOWN(gasnet_max_segsize) < limit)
        limit = PAGE_DOWN(gasnet_max_segsize);
    gpc.local_nodes = local;
    gpc.max_local_segsize = (uintptr_t)limit;
    /* Spinning waiters on a host with fewer cores than processes starve the
     * process they wait for: yield instead (GASNet's tests do the same).  The
     * processes counted are those on this kernel: hosts pretended with
     * GP_HOST_ID, or containers of one node, share its cores. */
    long sharing = gp_boot_machine_ranks() > (int)local ? gp_boot_machine_ranks() : (long)local;
    gpc.oversubscribed = cores > 0 && sharing > cores;
    char shm_text[48] = "not used: the region is private memory";
    if (shm != UINT64_MAX)
        snprintf(shm_text, sizeof shm_text, "%llu", (unsigned long long)shm);
    gp_debug("attach", "%u of %u processes on this host (%ld on its kernel), %ld cores online: "
             "%s; segment limit %llu bytes (GASNET_MAX_SEGSIZE %llu, pinnable share %llu, "
             "/dev/shm share %s)", local, gpc.nodes, sharing, cores,
             gpc.oversubscribed ? "oversubscribed, waits yield the CPU" : "not oversubscribed",
             (unsigned long long)limit, (unsigned long long)gp_cfg.max_segsize,
             (unsigned long long)pinnable, shm_text);
}
