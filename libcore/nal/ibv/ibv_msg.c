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

/* The record an answer's op id names, or NULL after failing the peer (it broke the protocol). */
static struct ibv_inflight *answered_record(struct ibv_state *st, struct ibv_peer *peer,
                                            const struct msg_fields *in, unsigned kind,
                                            const char *answer)
{
    const char *why = NULL;
    struct nal_inflight_rec *rec = nal_inflight_find(&peer->inflight, in->op_id, kind, &why);
    if (rec == NULL)
        ibv_fail(st, peer->rank, "node %d sent %s for op id 0x%x, which names no %s awaiting "
                 "one: %s", peer->rank, answer, in->op_id, kind == IBV_OP_PUT ? "put" : "get",
                 why);
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
    if (answered(slot->rec.kind) && st->answers_total > 0)
        st->answers_total--; /* the buffer that took the answer is not reposted for it */
    nal_inflight_release(&peer->inflight, &slot->rec);
}

/* ---- sending ------------------------------------------------------------------------------ */

static int has_credit(struct ibv_state *st, void *arg)
{
    (void)st;
    const struct ibv_peer *peer = arg;
    return peer->send_credits > 0 || peer->failed;
}

static uint16_t take_owed(struct ibv_peer *peer)
{
    int owed = peer->owed_credits > 0xffff ? 0xffff : peer->owed_credits;
    peer->owed_credits -= owed;
    return (uint16_t)owed;
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
        peer->send_credits--;
    }
    struct ibv_send_ctx *ctx = ibv_sctx_take(st);
    if (ctx == NULL)
        return PTL_FAIL;
    ctx->kind = served ? IBV_SEND_GET_REPLY : IBV_SEND_MSG;
    if (served)
        ctx->served = *served;
    hdr->credits = take_owed(peer);
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
                       const void *data, uint64_t len, const struct msg_served *served)
{
    struct ibv_msg_hdr hdr = MSG_HDR_OF(struct ibv_msg_hdr, answer);
    return send_message(st, peer, &hdr, data, len, 0, served);
}

/* The local buffer of a rendezvous put or a large get, reachable by the peer. */
static int remote_key(struct ibv_state *st, struct ibv_inflight *slot, uint32_t *rkey)
{
    const struct nal_op *op = &slot->rec.op;
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
    struct ibv_peer *peer = &st->peers[op->target];
    if (peer->failed)
        return PTL_FAIL;
    int eager = op->length <= IBV_EAGER_BYTES;
    struct ibv_msg_hdr hdr = {
        .type = eager ? MSG_PUT : MSG_PUT_RNDV,
        .flags = op->ack_req == PTL_ACK_REQ ? MSG_FLAG_ACK_REQ : 0,
        .pt_index = op->pt_index, .match_bits = op->match_bits, .offset = op->remote_offset,
        .hdr_data = op->hdr_data, .length = op->length,
    };
    struct ibv_inflight *slot = NULL;
    /* Eager puts that want no ACK need no slot; RAR puts ask for one (the window comes back in it). */
    if (!eager || op->ack_req == PTL_ACK_REQ) {
        slot = ibv_inflight_take(st, peer, IBV_OP_PUT, op);
        if (slot == NULL)
            return PTL_FAIL;
        hdr.flags |= MSG_FLAG_ANSWER;
        hdr.op_id = ibv_inflight_id(peer, slot);
    }
    if (!eager) {
        slot->rndv = 1;
        hdr.addr = (uint64_t)(uintptr_t)op->local_addr;
        if (remote_key(st, slot, &hdr.rkey) != 0) {
            ibv_inflight_release(st, peer, slot);
            return PTL_FAIL;
        }
    }
    uint32_t slot_id = slot ? ibv_inflight_id(peer, slot) : 0;
    int rc = send_message(st, peer, &hdr, eager ? op->local_addr : NULL, eager ? op->length : 0, 1,
                          NULL);
    if (rc != PTL_OK) {
        if (slot)
            ibv_inflight_release(st, peer, slot);
        return rc;
    }
    if (eager) /* the data was copied or sent inline: the source may be reused */
        ptl_initiator_event(st->ni, op, PTL_EVENT_SEND_END, op->length, 0);
    else /* the conduit reuses the source when the put returns: wait for the target's read */
        ibv_inflight_wait(st, peer, slot_id);
    return PTL_OK;
}

int ibv_msg_get(struct ibv_state *st, const struct nal_op *op)
{
    struct ibv_peer *peer = &st->peers[op->target];
    if (peer->failed)
        return PTL_FAIL;
    struct ibv_inflight *slot = ibv_inflight_take(st, peer, IBV_OP_GET, op);
    if (slot == NULL)
        return PTL_FAIL;
    struct ibv_msg_hdr hdr = {
        .type = MSG_GET, .op_id = ibv_inflight_id(peer, slot), .pt_index = op->pt_index,
        .match_bits = op->match_bits, .offset = op->remote_offset, .length = op->length,
    };
    if (op->length > IBV_EAGER_BYTES) {
        hdr.addr = (uint64_t)(uintptr_t)op->local_addr;
        if (remote_key(st, slot, &hdr.rkey) != 0) {
            ibv_inflight_release(st, peer, slot);
            return PTL_FAIL;
        }
    }
    int rc = send_message(st, peer, &hdr, NULL, 0, 1, NULL);
    if (rc != PTL_OK)
        ibv_inflight_release(st, peer, slot);
    return rc;
}

/* ---- the target side ---------------------------------------------------------------------- */

static void answer_put(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *in,
                       int matched, const struct ptl_match *match)
{
    struct msg_fields ack;
    if (msg_ack(&st->proto, in, matched, match, &ack))
        send_answer(st, peer, &ack, NULL, 0, NULL);
}

static void take_put(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *in,
                     const uint8_t *data, uint64_t bytes)
{
    struct ptl_match match;
    int matched = msg_take_put(&st->proto, peer->rank, in, data, bytes, &match);
    answer_put(st, peer, in, matched, &match);
}

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

static void take_put_rndv(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *in,
                          uint64_t addr, uint32_t rkey)
{
    struct ptl_match match;
    int matched;
    if (!msg_match_rndv(&st->proto, peer->rank, in, &match, &matched)) {
        answer_put(st, peer, in, matched, &match);
        return;
    }
    struct msg_served served;
    msg_served_init(&served, in, &match);
    unsigned parts;
    gp_log(GP_LOG_TRACE, "ibv", "rendezvous put from %d: pt %u, reading %llu bytes at 0x%llx",
           peer->rank, in->pt_index, (unsigned long long)match.mlength, (unsigned long long)addr);
    peer->reads_pending++;
    if (post_region_transfer(st, peer, IBV_WR_RDMA_READ, &match, addr, rkey,
                             IBV_SEND_RNDV_READ, &served, &parts) != PTL_OK && parts == 0)
        peer->reads_pending--;
}

static void serve_get(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *in,
                      uint64_t addr, uint32_t rkey)
{
    struct ptl_match match;
    struct msg_fields reply;
    if (!msg_match_get(&st->proto, peer->rank, in, &match, &reply)) {
        send_answer(st, peer, &reply, NULL, 0, NULL);
        return;
    }
    struct msg_served served;
    msg_served_init(&served, in, &match);
    if (match.mlength <= IBV_EAGER_BYTES) {
        reply.flags |= MSG_FLAG_DATA;
        send_answer(st, peer, &reply, (char *)st->ni->region + match.data_offset, match.mlength,
                    NULL);
        msg_get_done(&st->proto, peer->rank, &served);
        return;
    }
    unsigned parts;
    if (post_region_transfer(st, peer, IBV_WR_RDMA_WRITE, &match, addr, rkey,
                             IBV_SEND_GET_WRITE, &served, &parts) == PTL_OK)
        send_answer(st, peer, &reply, NULL, 0, &served); /* GET_END at its completion */
}

static void take_ack(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *in)
{
    struct ibv_inflight *slot = answered_record(st, peer, in, IBV_OP_PUT, "an ACK");
    if (slot == NULL)
        return;
    msg_record_window(peer->window, in);
    msg_take_ack(st->ni, &slot->rec.op, slot->rndv, in);
    ibv_inflight_release(st, peer, slot);
}

static void take_reply(struct ibv_state *st, struct ibv_peer *peer, const struct msg_fields *in,
                       const uint8_t *data, uint64_t bytes)
{
    struct ibv_inflight *slot = answered_record(st, peer, in, IBV_OP_GET, "a REPLY");
    if (slot == NULL)
        return;
    const struct nal_op *op = &slot->rec.op;
    if (in->length > op->length || ((in->flags & MSG_FLAG_DATA) && bytes < in->length)) {
        ibv_fail(st, peer->rank, "node %d sent a REPLY (op id 0x%x) of %llu bytes%s for a get of "
                 "%llu", peer->rank, in->op_id, (unsigned long long)in->length,
                 (in->flags & MSG_FLAG_DATA) && bytes < in->length ? ", not all of them there" : "",
                 (unsigned long long)op->length);
        return;
    }
    msg_record_window(peer->window, in);
    msg_take_reply(st->ni, op, in, data);
    ibv_inflight_release(st, peer, slot);
}

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
        ibv_fail(st, peer->rank, "node %d sent a %u-byte message, shorter than a header",
                 peer->rank, bytes);
        ibv_srq_release(st, index);
        return;
    }
    memcpy(&hdr, buf, sizeof hdr);
    struct msg_fields in = MSG_FIELDS_OF(&hdr);
    const uint8_t *data = buf + sizeof hdr;
    uint64_t data_bytes = bytes - sizeof hdr;
    peer->send_credits += hdr.credits;
    int request = in.type == MSG_PUT || in.type == MSG_PUT_RNDV || in.type == MSG_GET;
    switch (in.type) {
    case MSG_PUT: take_put(st, peer, &in, data, data_bytes); break;
    case MSG_PUT_RNDV: take_put_rndv(st, peer, &in, hdr.addr, hdr.rkey); break;
    case MSG_GET: serve_get(st, peer, &in, hdr.addr, hdr.rkey); break;
    case MSG_ACK: take_ack(st, peer, &in); break;
    case MSG_REPLY: take_reply(st, peer, &in, data, data_bytes); break;
    case MSG_CREDIT: break;
    default:
        ibv_fail(st, peer->rank, "node %d sent a message of unknown type %u", peer->rank, in.type);
        break;
    }
    /* The buffer is free again; the credit waits until the SRQ holds a replacement. */
    ibv_srq_release(st, index);
    if (!request || peer->failed)
        return;
    if (st->credit_due_count >= (unsigned)st->request_credits * st->reached) {
        /* more requests in hand than every peer's credits: this one sent without any */
        ibv_fail(st, peer->rank, "node %d sent more requests than the %d credits it was granted",
                 peer->rank, st->request_credits);
        return;
    }
    st->credit_due[st->credit_due_count++] = (uint32_t)peer->rank;
}

static void owe_credit(struct ibv_state *st, struct ibv_peer *peer)
{
    ++peer->owed_credits;
    if (peer->owed_credits >= (st->request_credits + 1) / 2) {
        send_credits_back(st, peer); /* a sender must never wait long for half its credits */
    } else if (!peer->owing_listed) {
        peer->owing_listed = 1;
        st->owing[st->owing_count++] = peer->rank;
    }
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

void ibv_msg_flush_credits(struct ibv_state *st)
{
    /* Sending may reap receives that list more peers: they are kept after the ones seen. */
    unsigned kept = 0, seen = st->owing_count;
    for (unsigned i = 0; i < seen; i++) {
        struct ibv_peer *peer = &st->peers[st->owing[i]];
        if (peer->owed_credits > st->set.am_credits_slack && !peer->failed)
            send_credits_back(st, peer);
        if (peer->owed_credits > 0 && !peer->failed)
            st->owing[kept++] = peer->rank;
        else
            peer->owing_listed = 0;
    }
    for (unsigned i = seen; i < st->owing_count; i++)
        st->owing[kept++] = st->owing[i];
    st->owing_count = kept;
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
    const struct msg_served *s = &ctx->served;
    if (ctx->kind == IBV_SEND_GET_REPLY) {
        msg_get_done(&st->proto, peer->rank, s);
        return;
    }
    /* the last part of a rendezvous read: the put is in */
    struct msg_fields ack;
    if (msg_rndv_done(&st->proto, peer->rank, s, &ack))
        send_answer(st, peer, &ack, NULL, 0, NULL);
    if (peer->reads_pending > 0)
        peer->reads_pending--;
    drain_deferred(st, peer);
}
