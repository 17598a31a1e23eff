/*
 * ibv: the InfiniBand verbs transport (seed 003 over the Portals-style
 * ptl layer).  As on tcp, the target side of a message runs in the
 * target's progress engine on its own region, with the same matching code
 * shm runs in the initiator; unlike tcp, operations on a permanent plain MD
 * (the RAR segment) go by RDMA with no target CPU at all once the target
 * has described it (ibv_rdma.c).  doc/wire-ibv.md has the protocol.
 *
 * GP_TRANSPORT=ibv reaches every peer this way, even on one host (that is
 * how the tests run on one Soft-RoCE device); the hybrid transport uses
 * the same state for the peers on other hosts when every host has a port.
 *
 * Progress is made whenever the application enters the library, and
 * inside an operation that waits for credits, slots or queue room.
 */
#include "nal/ibv/ibv.h"
#include "nal/ibv/ibv_config.h"
#include "nal/ibv/ibv_verbs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nal/private_region.h"
#include "util/log.h"

/* ---- the state ------------------------------------------------------------------------ */

struct ibv_state *ibv_state_participant(struct nal_ni *ni)
{
    struct ibv_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->ni = ni;
    st->proto = (struct msg_proto){ ni, "ibv", 1, IBV_EAGER_BYTES, &ibv_msg_nic, st, &st->fatal };
    gp_mutex_init(&st->lock);
    ibv_settings_load(&st->set);
    return st;
}

struct ibv_state *ibv_state_new(struct nal_ni *ni, int quiet)
{
    struct ibv_state *st = ibv_state_participant(ni);
    if (st == NULL)
        return NULL;
    if (ibv_dev_open(st, quiet) != PTL_OK || ibv_settings_apply_caps(st, quiet) != PTL_OK) {
        ibv_state_free(st);
        return NULL;
    }
    const struct ibv_settings *set = &st->set;
    st->inflight_per_peer = (unsigned)set->networkdepth_pp;
    if (st->inflight_per_peer > NAL_INFLIGHT_MAX_DEPTH)
        st->inflight_per_peer = NAL_INFLIGHT_MAX_DEPTH;
    /* Seed 003: TOTAL caps the node's operations in flight (ibv_limits.c has made it
     * min(TOTAL or the HCA's max_cqe, PP * (N - 1))). */
    st->budget.cap = (unsigned)set->networkdepth_total;
    /* the grant to each peer and the SRQ's size wait for the reached peers (ibv_srq_size) */
    st->request_credits = set->am_credits_pp;
    st->sq_depth = (unsigned)set->networkdepth_pp + 2u * (unsigned)st->request_credits +
                   IBV_SRQ_CREDIT_SLACK;
    for (unsigned h = 0; h < st->nhcas; h++) /* the HCAs' own limit on a queue's depth */
        if (st->hca[h].attr.max_qp_wr > 0 && st->sq_depth > (unsigned)st->hca[h].attr.max_qp_wr)
            st->sq_depth = (unsigned)st->hca[h].attr.max_qp_wr;
    st->rd_atom = set->qp_rd_atom;
    st->inline_limit = set->inline_limit < 0 ? 1024 : set->inline_limit;
    st->bbuf_count = (unsigned)st->set.bbuf_count;
    return st;
}

void ibv_state_free(struct ibv_state *st)
{
    if (st == NULL)
        return;
    ibv_rcv_stop(st);
    ibv_qp_destroy_all(st);
    ibv_dev_close(st);
    ibv_state_free_peers(st);
    gp_mutex_destroy(&st->lock);
    free(st);
}

void ibv_state_free_peers(struct ibv_state *st)
{
    for (int rank = 0; st->peers && rank < st->ni->size; rank++) {
        nal_inflight_fini(&st->peers[rank].inflight);
        free(st->peers[rank].port);
    }
    free(st->peers);
    free(st->rbuf_owner);
    free(st->rbuf_bytes);
    free(st->rbuf_next);
    free(st->rbuf_free);
    free(st->credit_due);
    free(st->qpn_rank);
    st->qpn_rank = NULL;
    st->qpn_count = 0;
    msg_pool_fini(&st->bbufs);
    free(st->owing.ranks);
    free(st->sctx);
    st->peers = NULL;
}

int ibv_state_alloc_peers(struct ibv_state *st)
{
    int size = st->ni->size;
    st->peers = calloc((size_t)size, sizeof *st->peers);
    if (st->peers == NULL)
        return PTL_NO_SPACE;
    size_t reached = 0;
    for (int rank = 0; rank < size; rank++) {
        struct ibv_peer *peer = &st->peers[rank];
        peer->rank = rank;
        if (!ibv_wanted(st, rank))
            continue;
        peer->reached = 1;
        if (nal_inflight_init(&peer->inflight, st->inflight_per_peer, sizeof(struct ibv_inflight),
                              &st->budget) != PTL_OK)
            return PTL_NO_SPACE;
        reached++;
    }
    st->reached = reached;
    ibv_srq_size(st);
    for (int rank = 0; rank < size; rank++) /* until the peer says what it grants (ibv_qp.c) */
        st->peers[rank].credits.send = st->request_credits;
    size_t slots = st->rbuf_count + 1;
    st->rbuf_owner = calloc(slots, sizeof *st->rbuf_owner);
    st->rbuf_bytes = calloc(slots, sizeof *st->rbuf_bytes);
    st->rbuf_next = calloc(slots, sizeof *st->rbuf_next);
    st->rbuf_free = calloc(slots, sizeof *st->rbuf_free);
    /* a credit is due per request handled and not yet credited: at most what was granted */
    st->credit_due = calloc((size_t)st->request_credits * reached + 1, sizeof *st->credit_due);
    /* A send context per work request that can be posted: every QP's queue, but no more
     * than the send CQs take (GASNET_NETWORKDEPTH_TOTAL each), so not O(peers). */
    uint64_t contexts = (uint64_t)reached * st->sq_depth * (st->nqps ? st->nqps : 1);
    uint64_t cq_room = (uint64_t)(st->set.networkdepth_total > 0 ? st->set.networkdepth_total : 0) *
                       (st->nhcas ? st->nhcas : 1);
    if (cq_room > 0 && contexts > cq_room)
        contexts = cq_room;
    st->sctx_count = (unsigned)contexts + 64;
    st->sctx = calloc(st->sctx_count, sizeof *st->sctx);
    st->owing.ranks = calloc((size_t)size, sizeof *st->owing.ranks);
    if (st->rbuf_owner == NULL || st->rbuf_bytes == NULL || st->rbuf_next == NULL ||
        st->rbuf_free == NULL || st->credit_due == NULL || st->sctx == NULL ||
        st->owing.ranks == NULL || msg_pool_init(&st->bbufs, st->bbuf_count) != PTL_OK)
        return PTL_NO_SPACE;
    for (size_t i = 0; i < st->rbuf_count; i++) /* the lowest index on top */
        st->rbuf_free[i] = (uint32_t)(st->rbuf_count - 1 - i);
    st->rbuf_free_count = (unsigned)st->rbuf_count;
    for (unsigned i = 0; i < st->sctx_count; i++)
        st->sctx[i].next_free = i + 2 <= st->sctx_count ? i + 2 : 0;
    st->sctx_free = 1;
    return PTL_OK;
}

static void *firehose_reg(void *ctx, void *addr, size_t len)
{
    struct ibv_hca *hca = ctx;
    return ibv_reg_mr(hca->pd, addr, len,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

static int firehose_dereg(void *ctx, void *handle)
{
    (void)ctx;
    return ibv_dereg_mr(handle);
}

static int start_firehose(struct ibv_state *st)
{
    if (!st->set.use_firehose)
        return PTL_OK;
    for (unsigned h = 0; h < st->nhcas; h++) {
        struct firehose_ops ops = { firehose_reg, firehose_dereg, &st->hca[h] };
        st->hca[h].firehose = firehose_new(&st->set.firehose, &ops);
        if (st->hca[h].firehose == NULL)
            return PTL_NO_SPACE;
    }
    return PTL_OK;
}

int ibv_state_connect(struct ibv_state *st, const uint8_t *wanted)
{
    st->wanted = wanted;
    int rc = ibv_state_alloc_peers(st);
    if (rc == PTL_OK && st->nports)
        rc = ibv_rcv_prepare(st);
    if (rc == PTL_OK && st->nports)
        rc = ibv_dev_register(st);
    if (rc == PTL_OK && st->nports)
        rc = start_firehose(st);
    /* Collective: every rank exchanges, even one that failed above (it offers no QPs). */
    if (rc != PTL_OK)
        st->nports = 0;
    int qp_rc = ibv_qp_setup(st);
    if (rc == PTL_OK)
        rc = qp_rc;
    if (rc == PTL_OK && st->nports)
        rc = ibv_srq_map_qps(st);
    if (rc == PTL_OK && st->nports)
        rc = ibv_srq_refill(st);
    st->srq_low_water = st->srq_posted;
    if (rc == PTL_OK && st->nports)
        rc = ibv_rcv_start(st);
    if (rc == PTL_OK) {
        gp_debug("ibv", "%u port%s, %u QP%s per peer, inline %d, %u-deep queues, %u bounce buffers",
                 st->nports, st->nports == 1 ? "" : "s", st->nqps, st->nqps == 1 ? "" : "s",
                 st->inline_limit, st->sq_depth, st->bbuf_count);
        gp_debug("ibv", "shared receive queue: %zu buffers, %zu KiB registered, for %zu peers "
                 "(%d credits granted to each, %u buffers for their requests, %u for answers, "
                 "%u for credit messages)", st->rbuf_count, st->rbuf_count * IBV_BUF_BYTES / 1024,
                 st->reached, st->request_credits, st->srq_requests, st->answers_cap,
                 st->srq_slack);
    }
    return rc;
}

void ibv_state_progress(struct ibv_state *st)
{
    if (gp_mutex_trylock(&st->lock) != 0)
        return;
    ibv_msg_flush_credits(st);
    ibv_cq_poll(st);
    gp_mutex_unlock(&st->lock);
    msg_fatal_raise(&st->fatal);
}

/*
 * One operation: to this process itself a copy on its own region; else by
 * RDMA when the target described a window for it, else by messages.
 */
static int start_op(struct ibv_state *st, const struct nal_op *op, int is_put)
{
    if (op->target == (unsigned)st->ni->rank)
        return is_put ? ptl_direct_put(st->ni, st->ni->region, op)
                      : ptl_direct_get(st->ni, st->ni->region, op);
    gp_mutex_lock(&st->lock);
    int rc = is_put ? ibv_rdma_put(st, op) : ibv_rdma_get(st, op);
    if (rc == MSG_NO_WINDOW)
        rc = is_put ? ibv_msg_put(st, op) : ibv_msg_get(st, op);
    gp_mutex_unlock(&st->lock);
    msg_fatal_raise(&st->fatal);
    return rc;
}

int ibv_state_put(struct ibv_state *st, const struct nal_op *op)
{
    return start_op(st, op, 1);
}

int ibv_state_get(struct ibv_state *st, const struct nal_op *op)
{
    return start_op(st, op, 0);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ibv_state_report(struct ibv_state *st)
{
    /* The exit may come from a signal while this thread holds the lock: then no report. */
    if (gp_mutex_trylock(&st->lock) != 0)
        return;
    for (unsigned h = 0; h < st->nhcas; h++)
        firehose_report(st->hca[h].firehose);
    gp_debug("ibv", "%llu operations by RDMA into windows, %llu messages sent",
             (unsigned long long)st->window_ops, (unsigned long long)st->messages_sent);
    gp_debug("ibv", "at most %u operations in flight at once (GASNET_NETWORKDEPTH_TOTAL=%u, "
             "send CQ depth %u)", st->budget.peak, st->budget.cap, st->send_cq_depth);
    gp_debug("ibv", "shared receive queue: %llu refills, at least %llu of %zu buffers posted "
             "at each", (unsigned long long)st->srq_refills,
             (unsigned long long)st->srq_low_water, st->rbuf_count);
    gp_mutex_unlock(&st->lock);
}

static int sends_outstanding(const struct ibv_state *st)
{
    for (int rank = 0; st->peers && rank < st->ni->size; rank++)
        for (unsigned q = 0; q < st->peers[rank].nqps; q++)
            if (st->peers[rank].sq_used[q] && !st->peers[rank].failed)
                return 1;
    return 0;
}

void ibv_state_close(struct ibv_state *st)
{
    ibv_rcv_stop(st);
    gp_mutex_lock(&st->lock);
    /* Best effort, bounded: what was posted (answers, the exit's messages) leaves first. */
    int64_t deadline = now_ms() + 2000;
    while (st->nports && sends_outstanding(st) && now_ms() < deadline)
        ibv_cq_poll(st);
    st->fatal.pending = 1; /* from here on a failure is the job ending, not news */
    st->fatal.raised = 1;
    ibv_qp_destroy_all(st);
    gp_mutex_unlock(&st->lock);
}

/* ---- the ops ------------------------------------------------------------------------------ */

static int ibv_region_create(struct nal_ni *ni, uint64_t bytes)
{
    struct ibv_state *st = ibv_state_new(ni, 0);
    if (st == NULL)
        return PTL_FAIL;
    ni->nal_state = st;
    /* Populated: the whole region is registered at connect. */
    if (nal_private_region(ni, bytes, 1, "ibv") != PTL_OK) {
        ibv_state_free(st);
        ni->nal_state = NULL;
        return PTL_NO_SPACE;
    }
    return PTL_OK;
}

static int ibv_connect(struct nal_ni *ni)
{
    if (nal_own_region_only(ni) != PTL_OK)
        return PTL_NO_SPACE;
    if (ni->size == 1)
        return PTL_OK;
    return ibv_state_connect(ibv_state_of(ni), NULL);
}

static int ibv_put(struct nal_ni *ni, const struct nal_op *op)
{
    return ibv_state_put(ibv_state_of(ni), op);
}

static int ibv_get(struct nal_ni *ni, const struct nal_op *op)
{
    return ibv_state_get(ibv_state_of(ni), op);
}

static int ibv_progress(struct nal_ni *ni)
{
    ibv_state_progress(ibv_state_of(ni));
    return PTL_OK;
}

static void ibv_fini(struct nal_ni *ni)
{
    struct ibv_state *st = ibv_state_of(ni);
    if (st != NULL) {
        ibv_state_close(st);
        ibv_state_free(st);
    }
    ni->nal_state = NULL;
    nal_private_region_free(ni);
}

static void ibv_report(struct nal_ni *ni)
{
    if (ibv_state_of(ni) != NULL)
        ibv_state_report(ibv_state_of(ni));
}

/* ---- serving the peers the hybrid routes here (nal_peer_ops) ------------------------------ */

/* Reads /sys only: a job on one host never loads libibverbs. */
static int ibv_host_may_serve(enum nal_serving how)
{
    (void)how;
    return ibv_verbs_devices_present();
}

/* Serving: the devices and an active port, or NULL (quietly: tcp serves instead). */
static void *ibv_peers_open(struct nal_ni *ni, enum nal_serving how)
{
    return how != NAL_TAKE_PART ? ibv_state_new(ni, 1) : ibv_state_participant(ni);
}

static int ibv_peers_connect(void *st, const uint8_t *wanted) { return ibv_state_connect(st, wanted); }
static int ibv_peers_put(void *st, const struct nal_op *op) { return ibv_state_put(st, op); }
static int ibv_peers_get(void *st, const struct nal_op *op) { return ibv_state_get(st, op); }
static void ibv_peers_progress(void *st) { ibv_state_progress(st); }
static void ibv_peers_close(void *st) { ibv_state_close(st); }
static void ibv_peers_free(void *st) { ibv_state_free(st); }
static void ibv_peers_report(void *st) { ibv_state_report(st); }

static const struct nal_peer_ops ibv_peer_ops = {
    .host_may_serve = ibv_host_may_serve,
    .open = ibv_peers_open,
    .connect = ibv_peers_connect,
    .put = ibv_peers_put,
    .get = ibv_peers_get,
    .progress = ibv_peers_progress,
    .close = ibv_peers_close,
    .free = ibv_peers_free,
    .report = ibv_peers_report,
};

const struct nal_ops nal_ibv_ops = {
    .name = "ibv",
    .title = "InfiniBand verbs",
    .rows_intro = "Read by the ibv transport; accepted and checked on every transport.  Some are "
                  "trimmed, once the HCA is open, to what it supports (seed 003 says which); a "
                  "value you set that is trimmed draws a warning.",
    .config_group = &ibv_cfg_group,
    .user_selectable = 1,
    .peers = &ibv_peer_ops,
    .region_create = ibv_region_create,
    .connect = ibv_connect,
    .put = ibv_put,
    .get = ibv_get,
    .counts_puts = nal_counts_no_puts,
    .progress = ibv_progress,
    .fini = ibv_fini,
    .report = ibv_report,
    .host_report = ibv_host_report,
};
