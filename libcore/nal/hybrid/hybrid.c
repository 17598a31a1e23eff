/*
 * hybrid: the default transport, a router.  Peers on this host are reached
 * the shm way (their regions mapped here, operations are copies by the
 * initiator); each peer on another host through the first transport of a
 * preference order that both hosts can use (nal_ops.peers: the registry's
 * order, fastest first, or GP_HYBRID_ORDER's): with the transports built
 * in, InfiniBand verbs when both hosts have an active port, else libfabric
 * when its provider is a hardware one (or GP_HYBRID_ORDER names ofi), else
 * tcp sockets.  The conduit above sees one ptl layer: which path an operation
 * takes is decided per target, by whether its region is mapped here
 * (ni->peer_region), else by the route chosen at connect.
 *
 * This process's region is a shared-memory object, as on shm, so that the
 * local peers can map it; the routed transports' progress engines run the
 * target side of remote operations on the same region.  Every kind of
 * initiator reserves MD space with the same atomic claims (ptl/target.c),
 * so they may act on one region at once.
 *
 * Hosts are the bootstrap's numbering (boot/hosts.c, by gp_boot_host_identity).
 * When every process is on one host no transport is opened at all, and the
 * job runs exactly as on shm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "config/config.h"
#include "nal/nal.h"
#include "nal/shm/shm.h"
#include "nal/upcalls.h"
#include "util/log.h"

/* What each process publishes at connect time. */
struct hybrid_address {
    uint64_t region_bytes;
    uint8_t may_serve;          /* bit i: route i's host_may_serve() said yes here */
};

/* One transport of the preference order, as this rank uses it. */
struct hybrid_route {
    const struct nal_ops *nal;
    const struct nal_peer_ops *ops;
    void *state;                /* NULL until opened; kept only when the job needs it */
    uint8_t *wanted;            /* wanted[rank]: rank is reached this way */
    int connected;              /* its connect ran: it has a progress engine and a close */
};

struct hybrid_state {
    struct shm_object object;
    struct hybrid_route route[NAL_ROUTES_MAX];
    int routes;
    /* The routes whose connect ran, for the progress pass: none in a job of one host, whose
     * every poll would otherwise walk the whole preference order for nothing. */
    struct hybrid_route *connected[NAL_ROUTES_MAX];
    int nconnected;
    uint8_t *route_of;          /* route_of[rank]: for a rank on another host, its route */
    int *host_index;            /* host_index[rank]: which host (the bootstrap's numbering) */
    int hosts;
};

static struct hybrid_state *hybrid_of(struct nal_ni *ni)
{
    return ni->nal_state;
}

static int hybrid_region_create(struct nal_ni *ni, uint64_t bytes)
{
    struct hybrid_state *state = calloc(1, sizeof *state);
    if (state == NULL)
        return PTL_NO_SPACE;
    ni->nal_state = state;
    ni->region_bytes = bytes;
    return shm_object_create(ni, &state->object);
}

/* A transport GP_HYBRID_ORDER names is asked for; one the registry's order lists may decline
 * where another serves better (ofi on a provider that runs over tcp). */
static enum nal_serving serving_how(void)
{
    return gp_cfg.gp_hybrid_order != NULL ? NAL_SERVE_ASKED : NAL_SERVE;
}

/* The preference order, or PTL_FAIL after naming the variable, its value and the choices. */
static int take_order(struct hybrid_state *state)
{
    const struct nal_ops *order[NAL_ROUTES_MAX];
    char why[512];
    state->routes = nal_route_order("GP_HYBRID_ORDER", gp_cfg.gp_hybrid_order, order, why,
                                    sizeof why);
    if (state->routes < 0) {
        gp_error("hybrid", "%s", why);
        state->routes = 0;
        return PTL_FAIL;
    }
    for (int i = 0; i < state->routes; i++) {
        state->route[i].nal = order[i];
        state->route[i].ops = order[i]->peers;
    }
    return PTL_OK;
}

/*
 * Maps the local peers.  Returns the number of hosts.  Hosts are the
 * bootstrap's (boot/hosts.c), numbered once per job.
 */
static int sort_peers(struct nal_ni *ni, struct hybrid_state *state,
                      const struct hybrid_address *all, int *rc)
{
    for (int rank = 0; rank < ni->size; rank++)
        state->host_index[rank] = gp_boot_host_of(rank);
    int mine = state->host_index[ni->rank];
    for (int rank = 0; rank < ni->size; rank++) {
        if (rank == ni->rank) {
            ni->peer_region[rank] = ni->region;
        } else if (state->host_index[rank] == mine && *rc == PTL_OK) {
            ni->peer_region[rank] = shm_map_peer(rank, all[rank].region_bytes);
            if (ni->peer_region[rank] == NULL)
                *rc = PTL_FAIL;
        }
    }
    return gp_boot_host_count();
}

/* Do the ranks whose mask has this bit span two hosts or more? */
static int spans_hosts(const struct nal_ni *ni, const struct hybrid_state *state,
                       const uint8_t *mask, uint8_t bit)
{
    int first_host = -1;
    for (int rank = 0; rank < ni->size; rank++) {
        if (!(mask[rank] & bit))
            continue;
        if (first_host < 0)
            first_host = state->host_index[rank];
        else if (state->host_index[rank] != first_host)
            return 1;
    }
    return 0;
}

/*
 * Collective, in a job on more than one host: the first exchange said only
 * which hosts might serve each way (mask[rank], cheaply: no library
 * loaded).  A way that two hosts might serve is opened there, and every
 * rank publishes what came of it, so that mask says who really can; a way
 * that no two hosts might serve is opened nowhere (a job on one host never
 * gets here, and never maps a library).
 */
static int confirm_routes(struct nal_ni *ni, struct hybrid_state *state, uint8_t *mask)
{
    uint8_t opened = 0, worth = 0;
    for (int i = 0; i < state->routes; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        if (!spans_hosts(ni, state, mask, bit))
            continue;
        worth |= bit;
        struct hybrid_route *route = &state->route[i];
        if (mask[ni->rank] & bit)
            route->state = route->ops->open(ni, serving_how());
        if (route->state != NULL)
            opened |= bit;
    }
    if (worth == 0) {
        memset(mask, 0, (size_t)ni->size);
        return PTL_OK;
    }
    return gp_boot_allgather(&opened, mask, 1) == 0 ? PTL_OK : PTL_FAIL;
}

/* The first route both ranks can take; -1 when none. */
static int pair_route(const uint8_t *mask, int a, int b)
{
    uint8_t both = mask[a] & mask[b];
    return both == 0 ? -1 : __builtin_ctz(both);
}

/*
 * Which routes some pair of ranks on different hosts takes (bit i: route i),
 * the same answer on every rank (all know every mask); a pair that none
 * reaches is reported (by a rank of the pair) and makes *unreached 1.
 */
static unsigned routes_taken(const struct nal_ni *ni, const struct hybrid_state *state,
                             const uint8_t *mask, int *unreached)
{
    unsigned taken = 0;
    *unreached = 0;
    for (int a = 0; a < ni->size; a++)
        for (int b = a + 1; b < ni->size; b++) {
            if (state->host_index[a] == state->host_index[b])
                continue;
            int route = pair_route(mask, a, b);
            if (route >= 0) {
                taken |= 1u << route;
                continue;
            }
            if (!*unreached && (a == ni->rank || b == ni->rank))
                gp_error("hybrid", "no transport of GP_HYBRID_ORDER='%s' reaches rank %d on host "
                         "%d from rank %d on host %d (both ends must be able to use one: %s "
                         "are built in, tcp reaches every host)",
                         gp_cfg.gp_hybrid_order ? gp_cfg.gp_hybrid_order : nal_routable_names(),
                         a == ni->rank ? b : a, state->host_index[a == ni->rank ? b : a],
                         ni->rank, state->host_index[ni->rank], nal_routable_names());
            *unreached = 1;
        }
    return taken;
}

/* " or "-joined names of the routes taken, for the debug line. */
static void taken_names(const struct hybrid_state *state, unsigned taken, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < state->routes; i++) {
        if (!(taken & (1u << i)))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? " or " : "", state->route[i].nal->name);
    }
}

/*
 * Collective: each route that some pair takes is set up by every rank (so
 * each is a collective every rank takes part in), each rank wanting only
 * its own peers; a route nobody takes is released.
 */
static int connect_routes(struct nal_ni *ni, struct hybrid_state *state, const uint8_t *mask)
{
    int unreached;
    unsigned taken = routes_taken(ni, state, mask, &unreached);
    if (unreached)
        return PTL_FAIL;
    int mine = state->host_index[ni->rank];
    for (int rank = 0; rank < ni->size; rank++)
        if (state->host_index[rank] != mine)
            state->route_of[rank] = (uint8_t)pair_route(mask, ni->rank, rank);
    int rc = PTL_OK;
    for (int i = 0; i < state->routes; i++) {
        struct hybrid_route *route = &state->route[i];
        if (!(taken & (1u << i))) {
            if (route->state != NULL)
                route->ops->free(route->state);
            route->state = NULL;
            continue;
        }
        route->wanted = calloc((size_t)ni->size, 1);
        if (route->state == NULL)
            route->state = route->ops->open(ni, NAL_TAKE_PART);
        if (route->state == NULL || route->wanted == NULL)
            return PTL_NO_SPACE;
        for (int rank = 0; rank < ni->size; rank++)
            route->wanted[rank] = state->host_index[rank] != mine && state->route_of[rank] == i;
        int route_rc = route->ops->connect(route->state, route->wanted);
        route->connected = 1;
        state->connected[state->nconnected++] = route;
        if (rc == PTL_OK)
            rc = route_rc;
    }
    char names[128];
    taken_names(state, taken, names, sizeof names);
    gp_debug("hybrid", "%d hosts: shm to this host's peers, %s to the others", state->hosts, names);
    return rc;
}

static int hybrid_connect(struct nal_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    struct hybrid_address mine;
    memset(&mine, 0, sizeof mine);
    mine.region_bytes = ni->region_bytes;
    int rc = take_order(state);
    /* For now only whether this host might serve each way: confirm_routes opens them if
     * the job crosses hosts. */
    for (int i = 0; i < state->routes; i++)
        if (state->route[i].ops->host_may_serve(serving_how()))
            mine.may_serve |= (uint8_t)(1u << i);
    struct hybrid_address *all = calloc((size_t)ni->size, sizeof *all);
    ni->peer_region = calloc((size_t)ni->size, sizeof *ni->peer_region);
    state->route_of = calloc((size_t)ni->size, 1);
    state->host_index = calloc((size_t)ni->size, sizeof *state->host_index);
    if ((all == NULL || ni->peer_region == NULL || state->route_of == NULL ||
         state->host_index == NULL) && rc == PTL_OK)
        rc = PTL_NO_SPACE;
    /* Every rank takes part in every collective below, even after a local failure.  The
     * hosts are numbered by now when gasnet_init ran; a ptl-level program numbers them here. */
    if (gp_boot_hosts_init() != GP_BOOT_OK && rc == PTL_OK)
        rc = PTL_FAIL;
    if (gp_boot_allgather(&mine, all, sizeof mine) != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    if (all != NULL && state->host_index != NULL && ni->peer_region != NULL)
        state->hosts = sort_peers(ni, state, all, &rc);
    uint8_t *mask = calloc((size_t)(unsigned)ni->size, 1);
    for (int rank = 0; mask && all && rank < ni->size; rank++)
        mask[rank] = all[rank].may_serve;
    free(all);
    /* Every local peer has mapped this region (or failed): the name can go. */
    if (gp_boot_barrier() != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    shm_object_unlink(&state->object);
    if (rc == PTL_OK && mask == NULL)
        rc = PTL_NO_SPACE;
    if (rc != PTL_OK || state->hosts <= 1) {
        gp_debug("hybrid", "%d process%s on one host: shm only", ni->size,
                 ni->size == 1 ? "" : "es");
        free(mask);
        return rc;
    }
    rc = confirm_routes(ni, state, mask);
    if (rc == PTL_OK)
        rc = connect_routes(ni, state, mask);
    free(mask);
    return rc;
}

static int hybrid_put(struct nal_ni *ni, const struct nal_op *op)
{
    void *region = ni->peer_region[op->target];
    if (region != NULL)
        return ptl_direct_put(ni, region, op);
    struct hybrid_state *state = hybrid_of(ni);
    struct hybrid_route *route = &state->route[state->route_of[op->target]];
    return route->ops->put(route->state, op);
}

static int hybrid_get(struct nal_ni *ni, const struct nal_op *op)
{
    void *region = ni->peer_region[op->target];
    if (region != NULL)
        return ptl_direct_get(ni, region, op);
    struct hybrid_state *state = hybrid_of(ni);
    struct hybrid_route *route = &state->route[state->route_of[op->target]];
    return route->ops->get(route->state, op);
}

/* A peer on this host is a copy (ptl_direct_put counts); one elsewhere, as its route says. */
static int hybrid_counts_puts(struct nal_ni *ni, unsigned target)
{
    if (ni->peer_region[target] != NULL)
        return 1;
    struct hybrid_state *state = hybrid_of(ni);
    if (state->routes == 0)
        return 0;
    const struct hybrid_route *route = &state->route[state->route_of[target]];
    return route->state != NULL && route->ops->counts_puts;
}

static int hybrid_progress(struct nal_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    for (int i = 0; i < state->nconnected; i++)
        state->connected[i]->ops->progress(state->connected[i]->state);
    return PTL_OK;
}

static void hybrid_fini(struct nal_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    if (state == NULL)
        return;
    for (int i = 0; i < state->routes; i++) {
        struct hybrid_route *route = &state->route[i];
        if (route->connected)
            route->ops->close(route->state);
        if (route->state != NULL)
            route->ops->free(route->state);
        free(route->wanted);
    }
    free(state->route_of);
    free(state->host_index);
    shm_unmap_all(ni, &state->object);
    free(state);
    ni->nal_state = NULL;
}

static void hybrid_report(struct nal_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    for (int i = 0; state != NULL && i < state->routes; i++)
        if (state->route[i].connected)
            state->route[i].ops->report(state->route[i].state);
}

const struct nal_ops nal_hybrid_ops = {
    .name = "hybrid",
    .region_in_dev_shm = 1,
    .maps_peer_regions = NAL_MAPS_HOST_PEERS,
    .region_create = hybrid_region_create,
    .connect = hybrid_connect,
    .put = hybrid_put,
    .get = hybrid_get,
    .counts_puts = hybrid_counts_puts,
    .progress = hybrid_progress,
    .fini = hybrid_fini,
    .report = hybrid_report,
};
