/*
 * hybrid: the default transport.  Peers on this host are reached the shm
 * way (their regions mapped here, operations are copies by the initiator);
 * peers on other hosts through the tcp transport's sockets.  The conduit
 * above sees one ptl layer: which path an operation takes is decided per
 * target by whether its region is mapped here (ni->peer_region).
 *
 * This process's region is a shared-memory object, as on shm, so that the
 * local peers can map it; the tcp progress engine runs the target side of
 * remote operations on the same region.  Both kinds of initiator reserve
 * MD space with the same atomic claims (ptl/target.c), so they may act on
 * one region at once.
 *
 * Hosts are told apart by gp_boot_host_identity.  When every process is on
 * one host no socket is opened at all, and the job runs exactly as on shm.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "nal/shm.h"
#include "nal/tcp.h"
#include "util/log.h"

/* What each process publishes at connect time. */
struct hybrid_address {
    char host[GP_BOOT_HOST_ID_LEN];
    uint64_t region_bytes;
};

struct hybrid_state {
    struct shm_object object;
    struct tcp_state *tcp;      /* NULL when every peer shares this host */
    uint8_t *remote;            /* remote[rank]: on another host, reached by tcp */
    int hosts;
};

static struct hybrid_state *hybrid_of(struct ptl_ni *ni)
{
    return ni->nal_state;
}

static int hybrid_region_create(struct ptl_ni *ni, uint64_t bytes)
{
    struct hybrid_state *state = calloc(1, sizeof *state);
    if (state == NULL)
        return PTL_NO_SPACE;
    ni->nal_state = state;
    ni->region_bytes = bytes;
    return shm_object_create(ni, &state->object);
}

/* Maps the local peers; marks the others remote.  Returns the number of hosts. */
static int sort_peers(struct ptl_ni *ni, struct hybrid_state *state,
                      const struct hybrid_address *all, int *rc)
{
    const char *mine = all[ni->rank].host;
    int hosts = 0;
    for (int rank = 0; rank < ni->size; rank++) {
        int first_of_host = 1;
        for (int other = 0; other < rank && first_of_host; other++)
            first_of_host = strcmp(all[other].host, all[rank].host) != 0;
        hosts += first_of_host;
        if (rank == ni->rank) {
            ni->peer_region[rank] = ni->region;
        } else if (strcmp(all[rank].host, mine) != 0) {
            state->remote[rank] = 1;
        } else if (*rc == PTL_OK) {
            ni->peer_region[rank] = shm_map_peer(rank, all[rank].region_bytes);
            if (ni->peer_region[rank] == NULL)
                *rc = PTL_FAIL;
        }
    }
    return hosts;
}

static int hybrid_connect(struct ptl_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    struct hybrid_address mine;
    memset(&mine, 0, sizeof mine);
    gp_boot_host_identity(mine.host, sizeof mine.host);
    mine.region_bytes = ni->region_bytes;
    struct hybrid_address *all = calloc((size_t)ni->size, sizeof *all);
    ni->peer_region = calloc((size_t)ni->size, sizeof *ni->peer_region);
    state->remote = calloc((size_t)ni->size, 1);
    int rc = (all == NULL || ni->peer_region == NULL || state->remote == NULL) ? PTL_NO_SPACE
                                                                               : PTL_OK;
    /* Every rank takes part in every collective below, even after a local failure. */
    if (gp_boot_allgather(&mine, all, sizeof mine) != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    if (rc == PTL_OK)
        state->hosts = sort_peers(ni, state, all, &rc);
    free(all);
    /* Every local peer has mapped this region (or failed): the name can go. */
    if (gp_boot_barrier() != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    shm_object_unlink(&state->object);
    if (rc != PTL_OK || state->hosts <= 1) {
        gp_debug("hybrid", "%d process%s on one host: shm only", ni->size,
                 ni->size == 1 ? "" : "es");
        return rc;
    }
    state->tcp = tcp_state_new(ni);
    if (state->tcp == NULL)
        return PTL_NO_SPACE;
    gp_debug("hybrid", "%d hosts: shm to this host's peers, tcp to the others", state->hosts);
    return tcp_state_connect(state->tcp, state->remote);
}

static int hybrid_put(struct ptl_ni *ni, const struct nal_op *op)
{
    void *region = ni->peer_region[op->target];
    if (region != NULL)
        return ptl_direct_put(ni, region, op);
    return tcp_state_put(hybrid_of(ni)->tcp, op);
}

static int hybrid_get(struct ptl_ni *ni, const struct nal_op *op)
{
    void *region = ni->peer_region[op->target];
    if (region != NULL)
        return ptl_direct_get(ni, region, op);
    return tcp_state_get(hybrid_of(ni)->tcp, op);
}

static int hybrid_progress(struct ptl_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    if (state->tcp != NULL)
        tcp_state_progress(state->tcp);
    return PTL_OK;
}

static void hybrid_fini(struct ptl_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    if (state == NULL)
        return;
    if (state->tcp != NULL) {
        tcp_state_close(state->tcp);
        tcp_state_free(state->tcp);
    }
    shm_unmap_all(ni, &state->object);
    free(state->remote);
    free(state);
    ni->nal_state = NULL;
}

const struct nal_ops nal_hybrid_ops = {
    .name = "hybrid",
    .region_create = hybrid_region_create,
    .connect = hybrid_connect,
    .put = hybrid_put,
    .get = hybrid_get,
    .progress = hybrid_progress,
    .fini = hybrid_fini,
};
