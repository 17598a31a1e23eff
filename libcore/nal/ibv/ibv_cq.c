/*
 * Completions: reaping the send and receive CQs of every HCA, the pools a
 * completion gives back (send contexts, bounce buffers, send-queue room),
 * and what a failed completion starts: one error naming the operation, the
 * peer and the verbs status (seed 003's "aborting on reap of failed send"),
 * then the graceful exit once the transport's lock is dropped.
 */
#include <stdarg.h>
#include <string.h>

#include "boot/boot.h"
#include "nal/ibv/ibv.h"
#include "util/log.h"

#define IBV_POLL_BATCH 32

struct ibv_send_ctx *ibv_sctx_get(struct ibv_state *st)
{
    if (st->sctx_free == 0)
        return NULL;
    struct ibv_send_ctx *ctx = &st->sctx[st->sctx_free - 1];
    st->sctx_free = ctx->next_free;
    memset(ctx, 0, sizeof *ctx);
    ctx->bbuf = -1;
    return ctx;
}

static int sctx_available(struct ibv_state *st, void *arg)
{
    (void)arg;
    return st->sctx_free != 0;
}

struct ibv_send_ctx *ibv_sctx_take(struct ibv_state *st)
{
    ibv_wait_locked(st, sctx_available, NULL);
    return ibv_sctx_get(st);
}

static int bbuf_available(struct ibv_state *st, void *arg)
{
    (void)arg;
    return st->bbufs.free_count != 0;
}

int ibv_bbuf_take(struct ibv_state *st)
{
    ibv_wait_locked(st, bbuf_available, NULL);
    return ibv_bbuf_get(st);
}

void ibv_sctx_put(struct ibv_state *st, struct ibv_send_ctx *ctx)
{
    ctx->kind = 0;
    ctx->next_free = st->sctx_free;
    st->sctx_free = (uint32_t)(ctx - st->sctx) + 1;
}

int ibv_bbuf_get(struct ibv_state *st)
{
    return msg_pool_get(&st->bbufs);
}

void ibv_bbuf_put(struct ibv_state *st, int index)
{
    msg_pool_put(&st->bbufs, index);
}

static const char *send_kind_str(const struct ibv_send_ctx *ctx)
{
    switch (ctx->kind) {
    case IBV_SEND_MSG: return "message send";
    case IBV_SEND_RDMA: return "RDMA operation";
    case IBV_SEND_RNDV_READ: return "RDMA READ of a rendezvous put";
    case IBV_SEND_GET_WRITE: return "RDMA WRITE of a get's data";
    case IBV_SEND_PART: return "RDMA transfer";
    case IBV_SEND_GET_REPLY: return "get reply";
    default: return "operation";
    }
}

/* QP q of every peer is on port q % nports (ibv_qp.c), and its completions on that HCA's CQ. */
static struct ibv_hca *qp_hca(struct ibv_state *st, unsigned qp_index)
{
    return &st->hca[st->port[qp_index % st->nports].hca];
}

static void send_done(struct ibv_state *st, const struct ibv_wc *wc)
{
    struct ibv_send_ctx *ctx = &st->sctx[wc->wr_id];
    struct ibv_peer *peer = &st->peers[ctx->peer];
    if (peer->sq_used[ctx->qp_index] > 0)
        peer->sq_used[ctx->qp_index]--;
    struct ibv_hca *hca = qp_hca(st, ctx->qp_index);
    if (hca->send_cq_used > 0)
        hca->send_cq_used--;
    if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
        msg_fail_op(&st->proto, ctx->peer, "aborting on reap of failed %s to node %d (host %s): %s (verbs "
                 "status %d, vendor error 0x%x)", send_kind_str(ctx), ctx->peer,
                 gp_boot_host_name(ctx->peer), ibv_wc_status_str(wc->status), (int)wc->status,
                 wc->vendor_err);
    else if (wc->status == IBV_WC_WR_FLUSH_ERR)
        peer->failed = 1;
    switch (ctx->kind) {
    case IBV_SEND_RDMA:
        ibv_rdma_part_done(st, ctx);
        break;
    case IBV_SEND_RNDV_READ:
    case IBV_SEND_GET_REPLY:
        ibv_msg_served(st, ctx);
        break;
    default:
        break;
    }
    if (ctx->bbuf >= 0)
        ibv_bbuf_put(st, ctx->bbuf);
    ibv_sctx_put(st, ctx);
}

/* A buffer of the shared receive queue came back: the QP it arrived on names the peer. */
static void recv_done(struct ibv_state *st, const struct ibv_wc *wc)
{
    uint32_t index = (uint32_t)wc->wr_id;
    if (st->srq_posted > 0)
        st->srq_posted--;
    int rank = ibv_srq_rank_of(st, wc->qp_num);
    if (wc->status != IBV_WC_SUCCESS || rank < 0) {
        if (wc->status == IBV_WC_SUCCESS)
            msg_fail(&st->proto, -1, "aborting on a receive on queue pair %u, which is no peer's",
                     wc->qp_num);
        else if (wc->status != IBV_WC_WR_FLUSH_ERR)
            msg_fail_op(&st->proto, rank, "aborting on reap of failed receive from node %d (host %s): %s "
                     "(verbs status %d)", rank, gp_boot_host_name(rank),
                     ibv_wc_status_str(wc->status), (int)wc->status);
        if (rank >= 0)
            st->peers[rank].failed = 1;
        ibv_srq_release(st, index);
        return;
    }
    st->rbuf_owner[index] = (uint32_t)rank;
    ibv_msg_received(st, index, wc->byte_len);
}

int ibv_cq_poll(struct ibv_state *st)
{
    struct ibv_wc wc[IBV_POLL_BATCH];
    int total = 0;
    for (unsigned h = 0; h < st->nhcas; h++) {
        int n = ibv_poll_cq(st->hca[h].send_cq, IBV_POLL_BATCH, wc);
        for (int i = 0; i < n; i++)
            send_done(st, &wc[i]);
        total += n > 0 ? n : 0;
        n = ibv_poll_cq(st->hca[h].recv_cq, IBV_POLL_BATCH, wc);
        for (int i = 0; i < n; i++)
            recv_done(st, &wc[i]);
        total += n > 0 ? n : 0;
    }
    /* The handled buffers go back to the SRQ in batches; then the credits they stand for. */
    if (st->rbuf_count && !st->fatal.pending) {
        ibv_srq_refill(st);
        ibv_msg_settle_credits(st);
    }
    return total;
}

void ibv_wait_locked(struct ibv_state *st, int (*cond)(struct ibv_state *, void *), void *arg)
{
    while (!cond(st, arg) && !st->fatal.pending)
        ibv_cq_poll(st);
}

struct sq_ref {
    const unsigned *sq_used;      /* the peer's QP */
    const struct ibv_hca *hca;    /* its send CQ */
};

/* Room in the QP's send queue, and in the send CQ that its completion will take. */
static int sq_has_room(struct ibv_state *st, void *arg)
{
    const struct sq_ref *ref = arg;
    return *ref->sq_used < st->sq_depth && ref->hca->send_cq_used < st->send_cq_depth;
}

int ibv_post_send_wr(struct ibv_state *st, struct ibv_peer *peer, unsigned qp_index,
                     struct ibv_send_wr *wr, struct ibv_send_ctx *ctx)
{
    if (peer->failed) {
        if (ctx->bbuf >= 0)
            ibv_bbuf_put(st, ctx->bbuf);
        ibv_sctx_put(st, ctx);
        return PTL_FAIL;
    }
    struct ibv_hca *hca = qp_hca(st, qp_index);
    struct sq_ref ref = { &peer->sq_used[qp_index], hca };
    ibv_wait_locked(st, sq_has_room, &ref);
    ctx->qp_index = (uint8_t)qp_index;
    ctx->peer = peer->rank;
    wr->wr_id = (uint64_t)(ctx - st->sctx);
    wr->next = NULL;
    wr->send_flags |= IBV_SEND_SIGNALED;
    struct ibv_send_wr *bad = NULL;
    int rc = peer->failed ? -1 : ibv_post_send(peer->qp[qp_index], wr, &bad);
    if (rc != 0) {
        if (!peer->failed)
            msg_fail_op(&st->proto, peer->rank, "cannot post a %s to node %d: %s", send_kind_str(ctx),
                     peer->rank, strerror(rc));
        if (ctx->bbuf >= 0)
            ibv_bbuf_put(st, ctx->bbuf);
        ibv_sctx_put(st, ctx);
        return PTL_FAIL;
    }
    peer->sq_used[qp_index]++;
    hca->send_cq_used++;
    return PTL_OK;
}
