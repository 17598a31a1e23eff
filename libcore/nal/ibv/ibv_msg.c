/*
 * Messages over send/recv on each peer's QP 0: the operations that need
 * the target's matching (deposits into ReqRB, AM Long payloads whose MD
 * has events, SYS messages, and the first operation on a window).
 *
 * Small puts travel with their data in one send (inline when it fits);
 * larger ones are a rendezvous: the target matches, then reads the data
 * straight from the initiator's buffer into the MD with an RDMA READ, and
 * answers.  Small gets come back in the REPLY; larger ones are written by
 * the target straight into the initiator's buffer, followed by the REPLY
 * (RC keeps the two in order).
 *
 * Flow control: a request costs a credit, one of the buffers of the
 * target's shared receive queue (ibv_srq.c) that the target granted this
 * peer; an answer is covered by a buffer the initiator posts on demand
 * just before the request goes out (seed 003), CREDIT messages by a small
 * slack.  A handled request's credit goes back only once a replacement
 * buffer is on the SRQ: in the header of the next message to the peer (the
 * seed's credit byte), or in a CREDIT message when half of them are owed.
 * RNR retry is infinite as well, so a miscount delays, never drops.
 *
 * Per-peer order: while a rendezvous read from a peer is in progress, the
 * peer's later messages wait in arrival order -- an AM Long's header must
 * not run its handler before its payload is in.
 *
 * The requests and what a received message does are nal/msg/'s
 * (msg_request.c, msg_received.c), and so are the credits' counts and the
 * CREDIT messages of the peers owed (msg_credit.c), run over the primitives
 * here (ibv_msg_nic); what stays here is ibv's: the header's layout, sends on
 * QP 0 (inline or bounced), records and their answer buffers, the target's
 * RDMA, when a credit is owed (its buffer replaced on the SRQ) and the
 * per-peer order.
 */
#include <stdlib.h>
#include <string.h>

#include "nal/ibv/ibv.h"
#include "util/log.h"

/* ---- operation records ------------------------------------------------------------------ */

static int record_available(struct ibv_state *st, void *arg)
{
    (void)st;
    const struct ibv_peer *peer = arg;
    return nal_inflight_room(&peer->inflight) || peer->failed;
}

/* A message-path op also needs a receive buffer for its answer, out of the node's share. */
static int answer_room(struct ibv_state *st, void *arg)
{
    const struct ibv_peer *peer = arg;
    return st->answers_total < st->answers_cap || peer->failed;
}

static int answered(unsigned kind)
{
    return kind == IBV_OP_PUT || kind == IBV_OP_GET;
}

/* Progress until cond holds, saying so once it has lasted: records, or answer buffers. */
static void wait_saying(struct ibv_state *st, struct ibv_peer *peer,
                        int (*cond)(struct ibv_state *, void *), int records)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (!cond(st, peer) && !st->fatal.pending) {
        if (records)
            nal_inflight_wait_note(&wait, "ibv", &peer->inflight, peer->rank);
        else
            gp_slow_wait_check(&wait, "ibv", "a receive buffer for an answer from rank %d (all "
                               "%u in use)", peer->rank, st->answers_cap);
        ibv_cq_poll(st);
    }
}

struct ibv_inflight *ibv_inflight_take(struct ibv_state *st, struct ibv_peer *peer, unsigned kind,
                                       const struct nal_op *op)
{
    wait_saying(st, peer, record_available, 1);
    if (answered(kind))
        wait_saying(st, peer, answer_room, 0);
    if (peer->failed || st->fatal.pending)
        return NULL;
    struct nal_inflight_rec *rec = nal_inflight_take(&peer->inflight, kind, op);
    if (rec == NULL)
        return NULL;
    if (answered(kind)) { /* its answer's buffer goes on the SRQ before the request leaves */
        st->answers_total++;
        ibv_srq_refill(st);
    }
    return (struct ibv_inflight *)rec;
}

struct slot_ref {
    struct ibv_peer *peer;
    uint32_t id;
};

static int slot_gone(struct ibv_state *st, void *arg)
{
    (void)st;
    const struct slot_ref *ref = arg;
    return !nal_inflight_live(&ref->peer->inflight, ref->id) || ref->peer->failed;
}

void ibv_inflight_wait(struct ibv_state *st, struct ibv_peer *peer, uint32_t id)
{
    struct slot_ref ref = { peer, id };
    ibv_wait_locked(st, slot_gone, &ref);
}

void ibv_inflight_release(struct ibv_state *st, struct ibv_peer *peer, struct ibv_inflight *slot)
{
    if (slot->pinned)
        firehose_release(st->hca[slot->pinned_hca].firehose, slot->pinned);
    slot->pinned = NULL;
    if (slot->transient_mr)
        ibv_dereg_mr(slot->transient_mr);
    slot->transient_mr = NULL;
    if (answered(slot->m.rec.kind) && st->answers_total > 0)
        st->answers_total--; /* the buffer that took the answer is not reposted for it */
    nal_inflight_release(&peer->inflight, &slot->m.rec);
}

/* ---- sending ------------------------------------------------------------------------------ */

static int has_credit(struct ibv_state *st, void *arg)
{
    (void)st;
    const struct ibv_peer *peer = arg;
    return peer->credits.send > 0 || peer->failed;
}

/*
 * Sends header + data (data may be NULL) on the peer's QP 0.  Requests wait
 * for a credit.  Inline when it fits, else through a bounce buffer; either
 * way the caller's data may be reused on return.
 */
static int send_message(struct ibv_state *st, struct ibv_peer *peer, struct ibv_msg_hdr *hdr,
                        const void *data, uint64_t len, int is_request,
                        const struct msg_served *served)
{
    if (is_request) {
        ibv_wait_locked(st, has_credit, peer);
        if (peer->failed)
            return PTL_FAIL;
        peer->credits.send--;
    }
    struct ibv_send_ctx *ctx = ibv_sctx_take(st);
    if (ctx == NULL)
        return PTL_FAIL;
    ctx->kind = served ? IBV_SEND_GET_REPLY : IBV_SEND_MSG;
    if (served)
        ctx->served = *served;
    hdr->credits = msg_credits_told(&peer->credits);
    struct ibv_sge sge[2];
    struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = sge };
    uint64_t total = sizeof *hdr + len;
    if ((int64_t)total <= st->inline_limit) {
        sge[0] = (struct ibv_sge){ (uint64_t)(uintptr_t)hdr, sizeof *hdr, 0 };
        sge[1] = (struct ibv_sge){ (uint64_t)(uintptr_t)data, (uint32_t)len, 0 };
        wr.num_sge = len ? 2 : 1;
        wr.send_flags = IBV_SEND_INLINE;
    } else {
        ctx->bbuf = ibv_bbuf_take(st);
        if (ctx->bbuf < 0) {
            ibv_sctx_put(st, ctx);
            return PTL_FAIL;
        }
        uint8_t *buf = ibv_bbuf_addr(st, ctx->bbuf);
        memcpy(buf, hdr, sizeof *hdr);
        if (len)
            memcpy(buf + sizeof *hdr, data, len);
        sge[0] = (struct ibv_sge){ (uint64_t)(uintptr_t)buf, (uint32_t)total,
                                   st->hca[st->port[0].hca].bbuf_mr->lkey };
        wr.num_sge = 1;
    }
    st->messages_sent++;
    return ibv_post_send_wr(st, peer, 0, &wr, ctx);
}

static int send_answer(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *answer,
                       const struct msg_served *served)
{
    struct ibv_msg_hdr hdr = MSG_HDR_OF(struct ibv_msg_hdr, answer);
    return send_message(st, peer, &hdr, NULL, 0, 0, served);
}

/* The local buffer of a rendezvous put or a large get, reachable by the peer. */
static int remote_key(struct ibv_state *st, struct ibv_inflight *slot, uint32_t *rkey)
{
    const struct nal_op *op = &slot->m.rec.op;
    uint32_t lkey;
    unsigned hca = st->port[0].hca;
    struct firehose_region *pinned = NULL;
    uint64_t covered = ibv_local_key(st, hca, op->local_addr, op->length, &lkey, rkey, &pinned);
    if (covered >= op->length) { /* held until the answer: the peer reads or writes it till then */
        slot->pinned = pinned;
        slot->pinned_hca = hca;
        return 0;
    }
    if (pinned != NULL)
        firehose_release(st->hca[hca].firehose, pinned);
    /* Not in one registration: this operation gets its own. */
    slot->transient_mr = ibv_reg_mr(st->hca[st->port[0].hca].pd, op->local_addr, op->length,
                                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                        IBV_ACCESS_REMOTE_READ);
    if (slot->transient_mr == NULL) {
        gp_error("ibv", "cannot register %llu bytes at %p for a transfer with node %u: %m "
                 "(ulimit -l may be too small)", (unsigned long long)op->length, op->local_addr,
                 op->target);
        return -1;
    }
    *rkey = slot->transient_mr->rkey;
    return 0;
}

int ibv_msg_put(struct ibv_state *st, const struct nal_op *op)
{
    if (st->peers[op->target].failed)
        return PTL_FAIL;
    return msg_put(&st->proto, op);
}

int ibv_msg_get(struct ibv_state *st, const struct nal_op *op)
{
    if (st->peers[op->target].failed)
        return PTL_FAIL;
    return msg_get(&st->proto, op);
}

/* ---- the target's RDMA -------------------------------------------------------------------- */

/* Posts the reads (or writes) moving mlength bytes between the region and the peer's buffer. */
static int post_region_transfer(struct ibv_state *st, struct ibv_peer *peer, enum ibv_wr_opcode opcode,
                                const struct ptl_match *match, uint64_t remote_addr, uint32_t rkey,
                                unsigned kind, const struct msg_served *served, unsigned *parts)
{
    unsigned hca = st->port[0].hca;
    char *local = (char *)st->ni->region + match->data_offset;
    uint64_t left = match->mlength, done = 0;
    *parts = 0;
    while (left > 0) {
        uint32_t lkey;
        uint32_t rkey_unused;
        uint64_t chunk = ibv_region_keys(st, hca, local + done, left, &lkey, &rkey_unused);
        if (chunk > (1u << 30))
            chunk = 1u << 30;
        struct ibv_send_ctx *ctx = ibv_sctx_take(st);
        if (ctx == NULL)
            return PTL_FAIL;
        ctx->kind = (uint8_t)kind;
        ctx->served = *served;
        struct ibv_sge sge = { (uint64_t)(uintptr_t)(local + done), (uint32_t)chunk, lkey };
        struct ibv_send_wr wr = { .opcode = opcode, .sg_list = &sge, .num_sge = 1 };
        wr.wr.rdma.remote_addr = remote_addr + done;
        wr.wr.rdma.rkey = rkey;
        left -= chunk;
        done += chunk;
        /* Only the last part of a read completes the put. */
        if (left > 0 && kind == IBV_SEND_RNDV_READ)
            ctx->kind = IBV_SEND_PART;
        if (ibv_post_send_wr(st, peer, 0, &wr, ctx) != PTL_OK)
            return PTL_FAIL;
        (*parts)++;
    }
    return PTL_OK;
}

/* ---- the NIC primitives nal/msg/ runs the protocol through ------------------------------- */

static int nic_send(void *nic, int rank, const struct msg_fields *f,
                    const struct msg_remote *remote, const void *data, uint64_t len,
                    int is_request)
{
    struct ibv_state *st = nic;
    struct ibv_msg_hdr hdr = MSG_HDR_OF(struct ibv_msg_hdr, f);
    if (remote != NULL) {
        hdr.addr = remote->addr;
        hdr.rkey = (uint32_t)remote->key;
    }
    return send_message(st, &st->peers[rank], &hdr, data, len, is_request, NULL);
}

/* A failed peer is the op's failure only through the events it no longer gets. */
int ibv_record_wait(void *nic, int rank, uint32_t id)
{
    struct ibv_state *st = nic;
    ibv_inflight_wait(st, &st->peers[rank], id);
    return PTL_OK;
}

/* One registration, read and write, serves either way. */
static int nic_remote_key(void *nic, int rank, struct nal_inflight_rec *rec, int peer_writes,
                          struct msg_remote *remote)
{
    (void)rank;
    (void)peer_writes;
    uint32_t rkey;
    if (remote_key(nic, (struct ibv_inflight *)rec, &rkey) != 0)
        return PTL_FAIL;
    *remote = (struct msg_remote){ (uint64_t)(uintptr_t)rec->op.local_addr, rkey };
    return PTL_OK;
}

static void nic_read_source(void *nic, int rank, const struct msg_served *s,
                            const struct msg_remote *source)
{
    struct ibv_state *st = nic;
    struct ibv_peer *peer = &st->peers[rank];
    unsigned parts;
    gp_log(GP_LOG_TRACE, "ibv", "rendezvous put from %d: pt %u, reading %llu bytes at 0x%llx",
           rank, s->pt_index, (unsigned long long)s->match.mlength,
           (unsigned long long)source->addr);
    peer->reads_pending++;
    if (post_region_transfer(st, peer, IBV_WR_RDMA_READ, &s->match, source->addr,
                             (uint32_t)source->key, IBV_SEND_RNDV_READ, s, &parts) != PTL_OK &&
        parts == 0)
        peer->reads_pending--;
}

/* RC keeps the writes and the REPLY behind them in order: the REPLY goes at once, and its
 * completion posts GET_END (ibv_msg_served). */
static void nic_write_get(void *nic, int rank, const struct msg_served *s,
                          const struct msg_fields *reply, const struct msg_remote *dest)
{
    struct ibv_state *st = nic;
    struct ibv_peer *peer = &st->peers[rank];
    unsigned parts;
    if (post_region_transfer(st, peer, IBV_WR_RDMA_WRITE, &s->match, dest->addr,
                             (uint32_t)dest->key, IBV_SEND_GET_WRITE, s, &parts) == PTL_OK)
        send_answer(st, peer, reply, s);
}

static void nic_peer_failed(void *nic, int peer)
{
    ((struct ibv_state *)nic)->peers[peer].failed = 1;
}

static struct msg_credits *nic_credits(void *nic, int rank, int *live)
{
    struct ibv_peer *peer = &((struct ibv_state *)nic)->peers[rank];
    *live = !peer->failed;
    return &peer->credits;
}

const struct msg_nic ibv_msg_nic = {
    .send = nic_send,
    .record_take = ibv_record_take,
    .record_release = ibv_record_release,
    .record_wait = ibv_record_wait,
    .remote_key = nic_remote_key,
    .read_source = nic_read_source,
    .write_get = nic_write_get,
    .peer_failed = nic_peer_failed,
    .credits = nic_credits,
};

/* ---- receiving and credits ----------------------------------------------------------------- */

static void send_credits_back(struct ibv_state *st, struct ibv_peer *peer)
{
    struct ibv_msg_hdr credit = { .type = MSG_CREDIT };
    send_message(st, peer, &credit, NULL, 0, 0, NULL);
}

static void handle(struct ibv_state *st, uint32_t index, uint32_t bytes)
{
    struct ibv_peer *peer = &st->peers[st->rbuf_owner[index]];
    struct ibv_msg_hdr hdr;
    const uint8_t *buf = ibv_rbuf_addr(st, index);
    if (bytes < sizeof hdr) {
        msg_fail(&st->proto, peer->rank, "node %d sent a %u-byte message, shorter than a header",
                 peer->rank, bytes);
        ibv_srq_release(st, index);
        return;
    }
    memcpy(&hdr, buf, sizeof hdr);
    struct msg_in in = { MSG_FIELDS_OF(&hdr), { hdr.addr, hdr.rkey }, buf + sizeof hdr,
                         bytes - sizeof hdr };
    peer->credits.send += hdr.credits;
    int request = msg_is_request(hdr.type);
    if (hdr.type == 0 || hdr.type >= MSG_TYPE_END)
        msg_fail(&st->proto, peer->rank, "node %d sent a message of unknown type %u", peer->rank, hdr.type);
    else
        msg_received(&st->proto, peer->rank, &peer->inflight, peer->window, &in);
    /* The buffer is free again; the credit waits until the SRQ holds a replacement. */
    ibv_srq_release(st, index);
    if (!request || peer->failed)
        return;
    if (st->credit_due_count >= (unsigned)st->request_credits * st->reached) {
        /* more requests in hand than every peer's credits: this one sent without any */
        msg_fail(&st->proto, peer->rank, "node %d sent more requests than the %d credits it was granted",
                 peer->rank, st->request_credits);
        return;
    }
    st->credit_due[st->credit_due_count++] = (uint32_t)peer->rank;
}

/* Half the grant owed goes back at once; less waits, listed, for a message or the slack. */
static void owe_credit(struct ibv_state *st, struct ibv_peer *peer)
{
    if (msg_credit_owe(&peer->credits, st->request_credits))
        send_credits_back(st, peer);
    else
        msg_owing_add(&st->owing, &peer->credits, peer->rank);
}

void ibv_msg_settle_credits(struct ibv_state *st)
{
    /* Sending a CREDIT message polls, which may land here again: once on the stack is enough. */
    if (st->settling)
        return;
    st->settling = 1;
    while (st->credit_due_count > 0 && st->srq_posted >= ibv_srq_target(st) && !st->fatal.pending) {
        struct ibv_peer *peer = &st->peers[st->credit_due[--st->credit_due_count]];
        if (!peer->failed)
            owe_credit(st, peer);
    }
    st->settling = 0;
}

static void drain_deferred(struct ibv_state *st, struct ibv_peer *peer)
{
    while (peer->reads_pending == 0 && peer->deferred_count > 0) {
        uint32_t index = peer->deferred_head - 1;
        peer->deferred_head = st->rbuf_next[index];
        if (peer->deferred_head == 0)
            peer->deferred_tail = 0;
        peer->deferred_count--;
        handle(st, index, st->rbuf_bytes[index]);
    }
}

void ibv_msg_received(struct ibv_state *st, uint32_t index, uint32_t bytes)
{
    struct ibv_peer *peer = &st->peers[st->rbuf_owner[index]];
    if (peer->reads_pending == 0 && peer->deferred_count == 0) {
        handle(st, index, bytes);
        return;
    }
    /* Behind a rendezvous read from the same peer: wait, in arrival order. */
    st->rbuf_next[index] = 0;
    if (peer->deferred_tail)
        st->rbuf_next[peer->deferred_tail - 1] = index + 1;
    else
        peer->deferred_head = index + 1;
    peer->deferred_tail = index + 1;
    peer->deferred_count++;
    st->rbuf_bytes[index] = bytes;
}

void ibv_msg_served(struct ibv_state *st, struct ibv_send_ctx *ctx)
{
    struct ibv_peer *peer = &st->peers[ctx->peer];
    int is_read = ctx->kind != IBV_SEND_GET_REPLY;
    msg_served_done(&st->proto, peer->rank, &ctx->served, is_read, 1);
    if (!is_read)
        return;
    if (peer->reads_pending > 0)
        peer->reads_pending--;
    drain_deferred(st, peer);
}
