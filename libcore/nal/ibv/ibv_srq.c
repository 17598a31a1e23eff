/*
 * The shared receive queue: one per process, on the HCA of port 0, behind
 * QP 0 of every peer (the only QP that carries messages), so the receive
 * buffers a process pins do not grow with the job (doc/wire-ibv.md, "Flow
 * control").
 *
 * GASNET_RBUF_COUNT buffers at most, split three ways:
 *   answers   a node-wide cap on this process's answered operations in
 *             flight; one buffer is posted on demand before each such
 *             request goes out (seed 003) and not reposted once the
 *             answer is in,
 *   slack     CREDIT messages,
 *   requests  what the peers may send unasked: each peer is granted
 *             min(GASNET_AM_CREDITS_PP, share / peers) credits (at least
 *             IBV_SRQ_MIN_GRANT), told to it at set-up.
 * While share / peers >= the grant, the SRQ covers every credit the node
 * has handed out; past that (thousands of peers) the HCA's RNR flow
 * control holds a sender the SRQ cannot take yet (rnr_retry is infinite).
 *
 * The receive path hands handled buffers back to a free stack and tops the
 * SRQ up to its target in batches (one ibv_post_srq_recv per
 * IBV_SRQ_BATCH buffers) at the end of each poll.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nal/ibv/ibv.h"
#include "util/log.h"

void ibv_srq_size(struct ibv_state *st)
{
    const struct ibv_settings *set = &st->set;
    unsigned depth = set->rbuf_count > 0 ? (unsigned)set->rbuf_count : 1024;
    unsigned peers = st->reached ? (unsigned)st->reached : 1;
    unsigned credits_pp = set->am_credits_pp > 0 ? (unsigned)set->am_credits_pp : 1;
    /* answered ops in flight: GASNET_AM_CREDITS_TOTAL and the node's op budget, half the SRQ */
    unsigned answers = set->am_credits_total > 0 ? (unsigned)set->am_credits_total : credits_pp;
    if (st->budget.cap > 0 && answers > st->budget.cap)
        answers = st->budget.cap;
    if (answers > depth / 2)
        answers = depth / 2;
    if (answers < 1)
        answers = 1;
    unsigned slack = depth / 4 < IBV_SRQ_CREDIT_SLACK ? depth / 4 : IBV_SRQ_CREDIT_SLACK;
    if (slack < 1)
        slack = 1;
    unsigned share = depth > answers + slack ? depth - answers - slack : 1;
    unsigned grant = share / peers;
    if (grant > credits_pp)
        grant = credits_pp;
    if (grant < IBV_SRQ_MIN_GRANT)
        grant = credits_pp < IBV_SRQ_MIN_GRANT ? credits_pp : IBV_SRQ_MIN_GRANT;
    /* no more buffers for requests than the credits handed out can fill */
    uint64_t granted = (uint64_t)grant * peers;
    st->srq_requests = granted < share ? (unsigned)granted : share;
    st->srq_slack = slack;
    st->answers_cap = answers;
    st->request_credits = (int)grant;
    st->rbuf_count = st->nports ? (size_t)st->srq_requests + slack + answers : 0;
}

int ibv_srq_create(struct ibv_state *st)
{
    struct ibv_hca *hca = &st->hca[st->port[0].hca];
    if (hca->attr.max_srq <= 0) {
        gp_error("ibv", "%s has no shared receive queues (max_srq 0); gp's ibv transport needs "
                 "one per process: use GP_TRANSPORT=tcp with this device", hca->name);
        return PTL_FAIL;
    }
    struct ibv_srq_init_attr attr = {
        .attr = { .max_wr = (uint32_t)st->rbuf_count, .max_sge = 1 },
    };
    hca->srq = ibv_create_srq(hca->pd, &attr);
    if (hca->srq == NULL) {
        gp_error("ibv", "cannot create a shared receive queue of %zu buffers on %s (its "
                 "max_srq_wr is %d): %m; lower GASNET_RBUF_COUNT", st->rbuf_count, hca->name,
                 hca->attr.max_srq_wr);
        return PTL_FAIL;
    }
    return PTL_OK;
}

int ibv_srq_refill(struct ibv_state *st)
{
    unsigned target = ibv_srq_target(st);
    if (st->srq_posted >= target || st->rbuf_free_count == 0)
        return PTL_OK;
    struct ibv_srq *srq = st->hca[st->port[0].hca].srq;
    uint32_t lkey = st->hca[st->port[0].hca].rbuf_mr->lkey;
    if (st->srq_low_water && st->srq_posted < st->srq_low_water)
        st->srq_low_water = st->srq_posted; /* 0: the SRQ ran dry (senders met RNR) */
    while (st->srq_posted < target && st->rbuf_free_count > 0) {
        struct ibv_recv_wr wr[IBV_SRQ_BATCH], *bad = NULL;
        struct ibv_sge sge[IBV_SRQ_BATCH];
        unsigned n = 0;
        while (n < IBV_SRQ_BATCH && st->srq_posted + n < target && st->rbuf_free_count > 0) {
            uint32_t index = st->rbuf_free[--st->rbuf_free_count];
            sge[n] = (struct ibv_sge){ (uint64_t)(uintptr_t)ibv_rbuf_addr(st, index),
                                       IBV_BUF_BYTES, lkey };
            wr[n] = (struct ibv_recv_wr){ .wr_id = index, .sg_list = &sge[n], .num_sge = 1,
                                          .next = n + 1 < IBV_SRQ_BATCH ? &wr[n + 1] : NULL };
            n++;
        }
        wr[n - 1].next = NULL;
        int rc = ibv_post_srq_recv(srq, wr, &bad);
        if (rc != 0) {
            /* the ones not taken go back; nothing more can be received safely */
            for (struct ibv_recv_wr *w = bad; w != NULL; w = w->next)
                ibv_srq_release(st, (uint32_t)w->wr_id);
            msg_fail(&st->proto, -1, "cannot post receive buffers to the shared receive queue: %s",
                     strerror(rc));
            return PTL_FAIL;
        }
        st->srq_posted += n;
        st->srq_refills++;
    }
    return PTL_OK;
}

static int by_qpn(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ibv_srq_map_qps(struct ibv_state *st)
{
    free(st->qpn_rank);
    st->qpn_count = 0;
    st->qpn_rank = calloc(st->reached + 1, sizeof *st->qpn_rank);
    if (st->qpn_rank == NULL)
        return PTL_NO_SPACE;
    for (int rank = 0; rank < st->ni->size; rank++)
        if (st->peers[rank].reached && st->peers[rank].qp[0] != NULL)
            st->qpn_rank[st->qpn_count++] =
                (uint64_t)st->peers[rank].qp[0]->qp_num << 32 | (uint32_t)rank;
    qsort(st->qpn_rank, st->qpn_count, sizeof *st->qpn_rank, by_qpn);
    return PTL_OK;
}

int ibv_srq_rank_of(const struct ibv_state *st, uint32_t qp_num)
{
    size_t lo = 0, hi = st->qpn_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t key = (uint32_t)(st->qpn_rank[mid] >> 32);
        if (key == qp_num)
            return (int)(uint32_t)st->qpn_rank[mid];
        if (key < qp_num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
