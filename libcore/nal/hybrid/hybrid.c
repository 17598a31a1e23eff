/*
 * hybrid: the default transport.  Peers on this host are reached the shm
 * way (their regions mapped here, operations are copies by the initiator);
 * peers on other hosts through InfiniBand verbs when both hosts have an
 * active port (ibv.c), else through the tcp transport's sockets.  The conduit
 * above sees one ptl layer: which path an operation takes is decided per
 * target by whether its region is mapped here (ni->peer_region).
 *
 * This process's region is a shared-memory object, as on shm, so that the
 * local peers can map it; the tcp progress engine runs the target side of
 * remote operations on the same region.  Both kinds of initiator reserve
 * MD space with the same atomic claims (ptl/target.c), so they may act on
 * one region at once.
 *
 * Hosts are the bootstrap's numbering (boot/hosts.c, by gp_boot_host_identity).
 * When every process is on one host no socket is opened at all, and the job
 * runs exactly as on shm.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "config/config.h"
#include "nal/ibv/ibv.h"
#include "nal/shm/shm.h"
#include "nal/tcp/tcp.h"
#include "util/log.h"

/* What each process publishes at connect time. */
struct hybrid_address {
    uint64_t region_bytes;
    uint8_t has_ibv;            /* verbs devices on this host, and GP_TRANSPORT does not say otherwise */
};

struct hybrid_state {
    struct shm_object object;
    struct tcp_state *tcp;      /* NULL when no peer is reached by tcp */
    struct ibv_state *ibv;      /* NULL when no peer is reached by ibv */
    uint8_t *remote;            /* remote[rank]: on another host, reached by tcp */
    uint8_t *remote_ibv;        /* remote_ibv[rank]: on another host, reached by ibv */
    int *host_index;            /* host_index[rank]: which host (the bootstrap's numbering) */
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

/*
 * Maps the local peers; marks the others remote.  Returns the number of
 * hosts.  Hosts are the bootstrap's (boot/hosts.c), numbered once per job.
 */
static int sort_peers(struct ptl_ni *ni, struct hybrid_state *state,
                      const struct hybrid_address *all, int *rc)
{
    for (int rank = 0; rank < ni->size; rank++)
        state->host_index[rank] = gp_boot_host_of(rank);
    int mine = state->host_index[ni->rank];
    for (int rank = 0; rank < ni->size; rank++) {
        if (rank == ni->rank) {
            ni->peer_region[rank] = ni->region;
        } else if (state->host_index[rank] != mine) {
            state->remote[rank] = 1;
        } else if (*rc == PTL_OK) {
            ni->peer_region[rank] = shm_map_peer(rank, all[rank].region_bytes);
            if (ni->peer_region[rank] == NULL)
                *rc = PTL_FAIL;
        }
    }
    return gp_boot_host_count();
}

/* Is some pair of processes on different hosts reached by ibv (both=1) / by tcp (both=0)? */
static int some_pair(struct ptl_ni *ni, const uint8_t *all_ibv, const int *host_of, int both)
{
    for (int a = 0; a < ni->size; a++)
        for (int b = a + 1; b < ni->size; b++)
            if (host_of[a] != host_of[b] && (all_ibv[a] && all_ibv[b]) == both)
                return 1;
    return 0;
}

/*
 * Collective: the verbs and socket set-ups, each run by every rank when any
 * pair needs it (so each is a collective every rank takes part in), each
 * rank wanting only its own peers.
 */
static int connect_remote(struct ptl_ni *ni, struct hybrid_state *state, uint8_t *all_ibv,
                          int mine_ibv)
{
    state->remote_ibv = calloc((size_t)ni->size, 1);
    if (state->remote_ibv == NULL) {
        free(all_ibv);
        return PTL_NO_SPACE;
    }
    for (int rank = 0; rank < ni->size; rank++) {
        if (!state->remote[rank] || !mine_ibv || !all_ibv[rank])
            continue;
        state->remote_ibv[rank] = 1;
        state->remote[rank] = 0;
    }
    /* Two ranks are on one host exactly when one maps the other: our own view of hosts
     * (sort_peers, as wide as the job: a job may span as many hosts as it has ranks). */
    int need_ibv = some_pair(ni, all_ibv, state->host_index, 1);
    int need_tcp = some_pair(ni, all_ibv, state->host_index, 0);
    free(all_ibv);
    int rc = PTL_OK;
    if (need_ibv) {
        if (state->ibv == NULL)
            state->ibv = ibv_state_participant(ni);
        if (state->ibv == NULL)
            return PTL_NO_SPACE;
        rc = ibv_state_connect(state->ibv, state->remote_ibv);
    } else if (state->ibv != NULL) {
        ibv_state_free(state->ibv);
        state->ibv = NULL;
    }
    if (need_tcp) {
        state->tcp = tcp_state_new(ni);
        if (state->tcp == NULL)
            return PTL_NO_SPACE;
        int tcp_rc = tcp_state_connect(state->tcp, state->remote);
        if (rc == PTL_OK)
            rc = tcp_rc;
    }
    gp_debug("hybrid", "%d hosts: shm to this host's peers, %s to the others", state->hosts,
             need_ibv && need_tcp ? "ibv or tcp" : need_ibv ? "ibv" : "tcp");
    return rc;
}

/*
 * Collective, in a job on more than one host: the first exchange said only
 * which hosts show verbs devices.  When two of them are different hosts,
 * the ranks there open their devices (loading libibverbs: ibv_verbs.h) and
 * every rank publishes what came of it, so that all_ibv and *mine say who
 * really has an active port; otherwise nobody loads anything and all say
 * no.  A job on one host never gets here, and never maps the library.
 */
static int confirm_ibv(struct ptl_ni *ni, struct hybrid_state *state, uint8_t *all_ibv,
                       uint8_t *mine)
{
    int first_host = -1, hosts_with_devices = 0;
    for (int rank = 0; rank < ni->size && hosts_with_devices < 2; rank++) {
        if (!all_ibv[rank])
            continue;
        if (first_host < 0)
            first_host = state->host_index[rank];
        hosts_with_devices = state->host_index[rank] != first_host ? 2 : 1;
    }
    uint8_t opened = 0;
    if (hosts_with_devices < 2) {
        memset(all_ibv, 0, (size_t)ni->size);
        *mine = 0;
        return PTL_OK;
    }
    if (*mine) {
        state->ibv = ibv_state_new(ni, 1);
        opened = state->ibv != NULL;
    }
    *mine = opened;
    return gp_boot_allgather(&opened, all_ibv, 1) == 0 ? PTL_OK : PTL_FAIL;
}

static int hybrid_connect(struct ptl_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    struct hybrid_address mine;
    memset(&mine, 0, sizeof mine);
    mine.region_bytes = ni->region_bytes;
    /* Verbs across hosts unless GP_TRANSPORT chose otherwise (hybrid is its default); for
     * now only whether this host has devices: confirm_ibv opens them if the job crosses hosts. */
    if (gp_cfg.gp_transport == NULL || strcmp(gp_cfg.gp_transport, "hybrid") == 0)
        mine.has_ibv = (uint8_t)ibv_verbs_devices_present();
    struct hybrid_address *all = calloc((size_t)ni->size, sizeof *all);
    ni->peer_region = calloc((size_t)ni->size, sizeof *ni->peer_region);
    state->remote = calloc((size_t)ni->size, 1);
    state->host_index = calloc((size_t)ni->size, sizeof *state->host_index);
    int rc = (all == NULL || ni->peer_region == NULL || state->remote == NULL ||
              state->host_index == NULL) ? PTL_NO_SPACE : PTL_OK;
    /* Every rank takes part in every collective below, even after a local failure.  The
     * hosts are numbered by now when gasnet_init ran; a ptl-level program numbers them here. */
    if (gp_boot_hosts_init() != GP_BOOT_OK && rc == PTL_OK)
        rc = PTL_FAIL;
    if (gp_boot_allgather(&mine, all, sizeof mine) != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    if (rc == PTL_OK)
        state->hosts = sort_peers(ni, state, all, &rc);
    uint8_t *all_ibv = calloc((size_t)(unsigned)ni->size, 1);
    for (int rank = 0; all_ibv && rc == PTL_OK && rank < ni->size; rank++)
        all_ibv[rank] = all[rank].has_ibv;
    free(all);
    /* Every local peer has mapped this region (or failed): the name can go. */
    if (gp_boot_barrier() != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    shm_object_unlink(&state->object);
    if (rc == PTL_OK && all_ibv == NULL)
        rc = PTL_NO_SPACE;
    if (rc != PTL_OK || state->hosts <= 1) {
        gp_debug("hybrid", "%d process%s on one host: shm only", ni->size,
                 ni->size == 1 ? "" : "es");
        free(all_ibv);
        return rc;
    }
    rc = confirm_ibv(ni, state, all_ibv, &mine.has_ibv);
    if (rc != PTL_OK) {
        free(all_ibv);
        return rc;
    }
    return connect_remote(ni, state, all_ibv, mine.has_ibv);
}

static int hybrid_put(struct ptl_ni *ni, const struct nal_op *op)
{
    void *region = ni->peer_region[op->target];
    if (region != NULL)
        return ptl_direct_put(ni, region, op);
    struct hybrid_state *state = hybrid_of(ni);
    if (state->remote_ibv != NULL && state->remote_ibv[op->target])
        return ibv_state_put(state->ibv, op);
    return tcp_state_put(state->tcp, op);
}

static int hybrid_get(struct ptl_ni *ni, const struct nal_op *op)
{
    void *region = ni->peer_region[op->target];
    if (region != NULL)
        return ptl_direct_get(ni, region, op);
    struct hybrid_state *state = hybrid_of(ni);
    if (state->remote_ibv != NULL && state->remote_ibv[op->target])
        return ibv_state_get(state->ibv, op);
    return tcp_state_get(state->tcp, op);
}

static int hybrid_progress(struct ptl_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    if (state->tcp != NULL)
        tcp_state_progress(state->tcp);
    if (state->ibv != NULL && state->remote_ibv != NULL)
        ibv_state_progress(state->ibv);
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
    if (state->ibv != NULL) {
        if (state->remote_ibv != NULL)
            ibv_state_close(state->ibv);
        ibv_state_free(state->ibv);
    }
    free(state->remote_ibv);
    free(state->host_index);
    shm_unmap_all(ni, &state->object);
    free(state->remote);
    free(state);
    ni->nal_state = NULL;
}

static void hybrid_report(struct ptl_ni *ni)
{
    struct hybrid_state *state = hybrid_of(ni);
    if (state != NULL && state->ibv != NULL && state->remote_ibv != NULL)
        ibv_state_report(state->ibv);
}

const struct nal_ops nal_hybrid_ops = {
    .name = "hybrid",
    .region_in_dev_shm = 1,
    .region_create = hybrid_region_create,
    .connect = hybrid_connect,
    .put = hybrid_put,
    .get = hybrid_get,
    .progress = hybrid_progress,
    .fini = hybrid_fini,
    .report = hybrid_report,
};
