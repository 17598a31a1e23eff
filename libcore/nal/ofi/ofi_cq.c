/*
 * Completions: the transmit CQ (messages sent, RMA parts, the target's
 * reads and writes) and the receive CQ (posted buffers filled).  A failed
 * completion ends the job with the provider's error string, the operation
 * and the node (ofi_fail, raised once the lock is dropped).
 *
 * Waiting for a tx buffer or for room in the provider's queue (-FI_EAGAIN)
 * reaps the transmit CQ only: a completion there never sends, so nothing
 * re-enters message handling.  A served op whose last part completes there
 * is answered at the end of the pass (done_served).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nal/ofi/ofi.h"
#include "util/log.h"
#include "util/slowwait.h"

#define OFI_CQ_BATCH 32

void ofi_fail(struct ofi_state *st, int peer, const char *fmt, ...)
{
    if (peer >= 0 && peer < st->ni->size)
        st->peers[peer].failed = 1;
    if (st->fatal_pending)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->fatal_text, sizeof st->fatal_text, fmt, ap);
    va_end(ap);
    __atomic_store_n(&st->fatal_pending, 1, __ATOMIC_RELEASE);
}

void ofi_raise_if_failed(struct ofi_state *st)
{
    if (!__atomic_load_n(&st->fatal_pending, __ATOMIC_ACQUIRE) ||
        __atomic_exchange_n(&st->fatal_raised, 1, __ATOMIC_ACQ_REL))
        return;
    gp_fatal("%s", st->fatal_text);
}

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
    st->tx_free[st->tx_free_count++] = tx;
}

static const char *ctx_kind_str(unsigned kind)
{
    switch (kind) {
    case OFI_CTX_RECV: return "receive";
    case OFI_CTX_SEND: return "message send";
    case OFI_CTX_RMA: return "RMA operation into a window";
    case OFI_CTX_RNDV_READ: return "RMA read of a rendezvous put";
    case OFI_CTX_GET_WRITE: return "RMA write of a get's data";
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
        st->bounce_free[st->bounce_free_count++] = ctx->bounce;
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
        ofi_fail(st, peer, "aborting on a failed %s %s node %d on provider %s: %s (%s, "
                 "provider error %d)", ctx != NULL ? ctx_kind_str(ctx->kind) : "operation",
                 ctx != NULL && ctx->kind == OFI_CTX_RECV ? "from" : "to", peer,
                 st->info->fabric_attr->prov_name, fi_strerror(err.err),
                 text != NULL ? text : "no provider text", err.prov_errno);
    if (ctx == NULL)
        return;
    if (ctx->kind == OFI_CTX_RECV)
        return; /* the buffer stays out: the job is ending */
    tx_done(st, ctx, 1);
}

static int poll_tx(struct ofi_state *st)
{
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

static int poll_rx(struct ofi_state *st)
{
    struct fi_cq_msg_entry entries[OFI_CQ_BATCH];
    ssize_t n = fi_cq_read(st->rx_cq, entries, OFI_CQ_BATCH);
    if (n == -FI_EAVAIL) {
        reap_error(st, st->rx_cq);
        return 1;
    }
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i++) {
        struct ofi_ctx *ctx = entries[i].op_context;
        ofi_msg_received(st, (unsigned)ctx->buf, entries[i].len);
    }
    return (int)n;
}

/*
 * Each fi_cq_read drives the provider's progress on the endpoint (rxm's, then tcp's: about
 * 850 instructions on tcp;ofi_rxm even when nothing came), so the transmit CQ is read only
 * while a context is out: every transmit (message, RMA part, served read or write) holds one
 * until its completion.  The receive CQ's read moves the endpoint meanwhile.
 */
int ofi_cq_poll(struct ofi_state *st, int rx)
{
    int n = st->ctx_in_use > 0 || !rx ? poll_tx(st) : 0;
    if (rx)
        n += poll_rx(st);
    return n;
}

void ofi_progress_locked(struct ofi_state *st)
{
    if (st->ep == NULL)
        return;
    ofi_cq_poll(st, 1);
    while (st->done_count > 0) {
        struct ofi_served *served = st->done_served[--st->done_count];
        ofi_msg_served(st, served);
    }
    if (st->owing_count > 0)
        ofi_msg_flush_credits(st);
}

int ofi_tx_take(struct ofi_state *st)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (st->tx_free_count == 0) {
        if (st->fatal_pending)
            return -1;
        poll_tx(st);
        gp_slow_wait_check(&wait, "ofi", "a tx buffer (all %d are in flight)", OFI_TX_BUFS);
    }
    return st->tx_free[--st->tx_free_count];
}

int ofi_bounce_take(struct ofi_state *st)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (st->bounce_free_count == 0) {
        if (st->fatal_pending)
            return -1;
        poll_tx(st);
        gp_slow_wait_check(&wait, "ofi", "a bounce buffer (all %d are in flight)",
                           OFI_BOUNCE_COUNT);
    }
    return st->bounce_free[--st->bounce_free_count];
}

int ofi_post_retry(struct ofi_state *st, int peer, const char *what,
                   ssize_t (*post)(struct ofi_state *st, void *arg), void *arg)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    for (;;) {
        ssize_t rc = post(st, arg);
        if (rc == 0)
            return PTL_OK;
        if (rc != -FI_EAGAIN) {
            ofi_fail(st, peer, "aborting: posting a %s to node %d failed on provider %s: %s",
                     what, peer, st->info->fabric_attr->prov_name, fi_strerror((int)-rc));
            return PTL_FAIL;
        }
        if (st->fatal_pending)
            return PTL_FAIL;
        poll_tx(st);
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
        if (peer->failed || st->fatal_pending)
            return NULL;
        struct nal_inflight_rec *rec = nal_inflight_take(&peer->inflight, kind, op);
        if (rec != NULL)
            return (struct ofi_inflight *)rec;
        ofi_progress_locked(st);
        nal_inflight_wait_note(&wait, "ofi", &peer->inflight, peer_rank);
    }
}

void ofi_inflight_release(struct ofi_state *st, int peer, struct ofi_inflight *rec)
{
    ofi_mr_unpin(st, rec);
    nal_inflight_release(&st->peers[peer].inflight, &rec->rec);
}

void ofi_inflight_wait(struct ofi_state *st, int peer, uint32_t id)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (nal_inflight_live(&st->peers[peer].inflight, id) && !st->fatal_pending) {
        ofi_progress_locked(st);
        gp_slow_wait_check(&wait, "ofi", "the completion of an operation to node %d", peer);
    }
}
