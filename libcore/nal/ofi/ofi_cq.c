/*
 * Completions: the transmit CQ (messages sent, RMA parts, the target's
 * reads and writes) and the receive CQ (posted buffers filled).  A failed
 * completion ends the job with the provider's error string, the operation
 * and the node (msg_fail, raised once the lock is dropped).
 *
 * Receives are read into st->received and handled there, oldest first, by
 * the progress pass alone (ofi_progress_locked).  A wait for a tx buffer, a
 * bounce buffer or room in the provider's queue (-FI_EAGAIN) reads both CQs
 * but handles nothing: handling sends (answers, credits) and would re-enter
 * a send or a put that is half built.  It reads the receive CQ all the same
 * because that may be what moves the endpoint: under libfabric's manual
 * progress a provider need move an operation only when the CQ it completes
 * to is read, and the incoming side -- a peer's messages, the target side of
 * its writes, the acknowledgements a delivery-complete write waits for --
 * may move only with the receive CQ.  A wait that read the transmit CQ alone
 * could then spin forever, and two processes each short of buffers, each
 * needing the other's incoming side to move, would both (
 * GP_OFI_TEST_RX_PROGRESS behaves as such a provider, for the test).  A
 * completion on the transmit CQ never sends, so reaping it re-enters
 * nothing; a served op whose last part completes there is answered at the
 * end of the pass (done_served).
 *
 * PAR builds: a wait inside a put or a get (not inside the progress pass,
 * whose callers keep state across it) lets the lock go between its passes,
 * so that the receive thread and other threads still progress and handle
 * what arrives; the op's own state (its record, its contexts, the window it
 * writes to) is its own meanwhile.
 */
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "nal/ofi/ofi.h"
#include "nal/ofi/ofi_config.h"
#include "util/log.h"
#include "util/slowwait.h"

#define OFI_CQ_BATCH 32

struct ofi_ctx *ofi_ctx_take(struct ofi_state *st)
{
    if (st->ctx_free == 0)
        return NULL;
    struct ofi_ctx *ctx = &st->ctx[st->ctx_free - 1];
    st->ctx_free = ctx->next_free;
    st->ctx_in_use++;
    memset(ctx, 0, sizeof *ctx);
    ctx->buf = -1;
    ctx->bounce = -1;
    return ctx;
}

void ofi_ctx_put(struct ofi_state *st, struct ofi_ctx *ctx)
{
    ctx->kind = 0;
    st->ctx_in_use--;
    ctx->next_free = st->ctx_free;
    st->ctx_free = (uint32_t)(ctx - st->ctx) + 1;
}

void ofi_tx_put(struct ofi_state *st, int tx)
{
    msg_pool_put(&st->tx, tx);
}

static const char *ctx_kind_str(unsigned kind)
{
    switch (kind) {
    case OFI_CTX_RECV: return "receive";
    case OFI_CTX_SEND: return "message send";
    case OFI_CTX_RMA: return "RMA operation into a window";
    case OFI_CTX_RNDV_READ: return "RMA read of a rendezvous put";
    case OFI_CTX_GET_WRITE: return "RMA write of a get's data";
    case OFI_CTX_LATE_WRITE: return "late RMA write into a window (GP_OFI_TEST_LATE_WRITES)";
    default: return "operation";
    }
}

static void tx_done(struct ofi_state *st, struct ofi_ctx *ctx, int failed)
{
    switch (ctx->kind) {
    case OFI_CTX_RMA:
        ofi_rma_part_done(st, ctx, failed);
        break;
    case OFI_CTX_RNDV_READ:
    case OFI_CTX_GET_WRITE:
        if (failed)
            ctx->served->failed = 1;
        /* done_cap covers every served op at once: each holds a context until here. */
        if (--ctx->served->parts_left == 0)
            st->done_served[st->done_count++] = ctx->served;
        break;
    default:
        break;
    }
    if (ctx->buf >= 0)
        ofi_tx_put(st, ctx->buf);
    if (ctx->bounce >= 0)
        msg_pool_put(&st->bounce, ctx->bounce);
    ofi_ctx_put(st, ctx);
}

/* A failed completion: the provider's words, the operation, the node. */
static void reap_error(struct ofi_state *st, struct fid_cq *cq)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(cq, &err, 0) != 1)
        return;
    struct ofi_ctx *ctx = err.op_context;
    char prov[256];
    const char *text = fi_cq_strerror(cq, err.prov_errno, err.err_data, prov, sizeof prov);
    int peer = ctx != NULL ? ctx->peer : -1;
    if (err.err != FI_ECANCELED)
        msg_fail_op(&st->proto, peer, "aborting on a failed %s %s node %d (host %s) on provider %s: %s "
                 "(%s, provider error %d)", ctx != NULL ? ctx_kind_str(ctx->kind) : "operation",
                 ctx != NULL && ctx->kind == OFI_CTX_RECV ? "from" : "to", peer,
                 gp_boot_host_name(peer), st->info->fabric_attr->prov_name, fi_strerror(err.err),
                 text != NULL ? text : "no provider text", err.prov_errno);
    if (ctx == NULL)
        return;
    if (ctx->kind == OFI_CTX_RECV)
        return; /* the buffer stays out: the job is ending */
    tx_done(st, ctx, 1);
}

static int poll_tx(struct ofi_state *st)
{
    /* GP_OFI_TEST_RX_PROGRESS: as if only a receive CQ read moved the provider, this read
     * finds nothing new unless the receive CQ was read since the last one. */
    if (ofi_cfg.ofi_test_rx_progress) {
        if (!st->rx_read_since_tx)
            return 0;
        st->rx_read_since_tx = 0;
    }
    struct fi_cq_msg_entry entries[OFI_CQ_BATCH];
    ssize_t n = fi_cq_read(st->tx_cq, entries, OFI_CQ_BATCH);
    if (n == -FI_EAVAIL) {
        reap_error(st, st->tx_cq);
        return 1;
    }
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i++)
        tx_done(st, entries[i].op_context, 0);
    return (int)n;
}

/* Reads receive completions into st->received, behind those not handled yet. */
static int poll_rx(struct ofi_state *st)
{
    struct fi_cq_msg_entry entries[OFI_CQ_BATCH];
    st->rx_read_since_tx = 1;
    ssize_t n = fi_cq_read(st->rx_cq, entries, OFI_CQ_BATCH);
    if (n == -FI_EAVAIL) {
        reap_error(st, st->rx_cq);
        return 1;
    }
    if (n <= 0)
        return 0;
    /* Room for all: each entry is a posted buffer, re-posted only once handled. */
    for (ssize_t i = 0; i < n; i++) {
        struct ofi_ctx *ctx = entries[i].op_context;
        unsigned at = st->received_head + st->received_count;
        if (at >= st->rx_count)
            at -= st->rx_count;
        st->received[at] = (struct ofi_received){ (unsigned)ctx->buf, entries[i].len };
        st->received_count++;
    }
    return (int)n;
}

/* Handles what poll_rx read, oldest first (a sender's messages in the order it sent them);
 * what a handler's own waits read meanwhile joins the queue and is handled here too. */
static void handle_received(struct ofi_state *st)
{
    while (st->received_count > 0) {
        struct ofi_received got = st->received[st->received_head];
        if (++st->received_head == st->rx_count)
            st->received_head = 0;
        st->received_count--;
        if (ofi_cfg.ofi_test_late_writes && got.bytes >= sizeof(struct ofi_msg_hdr)) {
            uint32_t src;
            memcpy(&src, ofi_buf_addr(st, got.index) + offsetof(struct ofi_msg_hdr, src),
                   sizeof src);
            if (src < (uint32_t)st->ni->size)
                st->peers[src].messages_in++;
        }
        ofi_msg_received(st, got.index, got.bytes);
    }
}

int ofi_cq_alloc(struct ofi_state *st)
{
    st->received = calloc(st->rx_count ? st->rx_count : 1, sizeof *st->received);
    return st->received != NULL ? PTL_OK : PTL_NO_SPACE;
}

/*
 * Each fi_cq_read drives the provider's progress on the endpoint (rxm's, then tcp's: about
 * 850 instructions on tcp;ofi_rxm even when nothing came), so the transmit CQ is read only
 * while a context is out: every transmit (message, RMA part, served read or write) holds one
 * until its completion.  The receive CQ's read moves the endpoint meanwhile.
 */
void ofi_progress_locked(struct ofi_state *st)
{
    if (st->ep == NULL)
        return;
    if (st->progressing) { /* never nested today; if it were, it would only read */
        poll_rx(st);
        poll_tx(st);
        return;
    }
    st->progressing = 1;
    if (st->ctx_in_use > 0)
        poll_tx(st);
    poll_rx(st);
    handle_received(st);
    while (st->done_count > 0) {
        struct ofi_served *served = st->done_served[--st->done_count];
        ofi_msg_served(st, served);
    }
    if (st->owing.count > 0)
        msg_credits_flush(&st->proto, &st->owing, 0);
    if (st->late_writes != NULL)
        ofi_rma_late_writes(st);
    st->progressing = 0;
}

void ofi_wait_yield(struct ofi_state *st)
{
#if GP_PAR
    if (!st->op_may_yield || st->progressing)
        return;
    st->op_may_yield = 0; /* whoever takes the lock meanwhile is not this op */
    gp_mutex_unlock(&st->lock);
    sched_yield();
    gp_mutex_lock(&st->lock);
    st->op_may_yield = 1;
#else
    (void)st;
#endif
}

/* One pass of a wait for a buffer or for room: both CQs read (the receive CQ first, as the
 * one that may move the incoming side), nothing handled. */
static void wait_pass(struct ofi_state *st)
{
    poll_rx(st);
    poll_tx(st);
    ofi_wait_yield(st);
}

int ofi_tx_take(struct ofi_state *st)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (st->tx.free_count == 0) {
        if (st->fatal.pending)
            return -1;
        wait_pass(st);
        gp_slow_wait_check(&wait, "ofi", "a tx buffer (all %u are in flight)", st->tx.size);
    }
    return msg_pool_get(&st->tx);
}

int ofi_bounce_take(struct ofi_state *st)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (st->bounce.free_count == 0) {
        if (st->fatal.pending)
            return -1;
        wait_pass(st);
        gp_slow_wait_check(&wait, "ofi", "a bounce buffer (all %u are in flight)",
                           st->bounce.size);
    }
    return msg_pool_get(&st->bounce);
}

/*
 * For a wait on one peer: whether it has failed, looking every 1024th turn whether its
 * process has ended, which a provider may never report (a send to it is refused with
 * FI_EAGAIN for ever, nothing in flight fails).  In the job's exit that is the peer
 * leaving in it (msg_fail_op); before, the job's end.
 */
static int peer_gone(struct ofi_state *st, int peer, unsigned *turns)
{
    if (peer < 0 || peer >= st->ni->size)
        return 0;
    if (!st->peers[peer].failed && ++*turns % 1024 == 0 && gp_boot_rank_ended(peer))
        msg_fail_op(&st->proto, peer, "aborting: node %d (host %s)'s process has ended with an "
                    "operation to it unfinished", peer, gp_boot_host_name(peer));
    return st->peers[peer].failed;
}

int ofi_post_retry(struct ofi_state *st, int peer, const char *what,
                   ssize_t (*post)(struct ofi_state *st, void *arg), void *arg)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    unsigned turns = 0;
    for (;;) {
        ssize_t rc = post(st, arg);
        if (rc == 0)
            return PTL_OK;
        if (rc != -FI_EAGAIN) {
            msg_fail_op(&st->proto, peer, "aborting: posting a %s to node %d failed on provider %s: %s",
                     what, peer, st->info->fabric_attr->prov_name, fi_strerror((int)-rc));
            return PTL_FAIL;
        }
        if (st->fatal.pending || peer_gone(st, peer, &turns))
            return PTL_FAIL;
        wait_pass(st);
        gp_slow_wait_check(&wait, "ofi", "room in the provider's queue for a %s to node %d",
                           what, peer);
    }
}

struct ofi_inflight *ofi_inflight_take(struct ofi_state *st, int peer_rank, unsigned kind,
                                       const struct nal_op *op)
{
    struct ofi_peer *peer = &st->peers[peer_rank];
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    for (;;) {
        if (peer->failed || st->fatal.pending)
            return NULL;
        struct nal_inflight_rec *rec = nal_inflight_take(&peer->inflight, kind, op);
        if (rec != NULL)
            return (struct ofi_inflight *)rec;
        ofi_progress_locked(st);
        ofi_wait_yield(st);
        nal_inflight_wait_note(&wait, "ofi", &peer->inflight, peer_rank);
    }
}

void ofi_inflight_release(struct ofi_state *st, int peer, struct ofi_inflight *rec)
{
    ofi_mr_unpin(st, rec);
    nal_inflight_release(&st->peers[peer].inflight, &rec->m.rec);
}

void ofi_inflight_wait(struct ofi_state *st, int peer, uint32_t id)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    /* A failed peer answers nothing more: in the job's exit that is no fatal error
     * (msg_fail_op), and the wait must end all the same. */
    unsigned turns = 0;
    while (nal_inflight_live(&st->peers[peer].inflight, id) && !st->fatal.pending &&
           !peer_gone(st, peer, &turns)) {
        ofi_progress_locked(st);
        ofi_wait_yield(st);
        gp_slow_wait_check(&wait, "ofi", "the completion of an operation to node %d", peer);
    }
}
