/*
 * Messages over fi_send / fi_recv (doc/wire-ofi.md): requests (PUT,
 * PUT_RNDV, GET), answers (ACK, REPLY) and CREDIT, each one header and, for
 * a small put or a small get's reply, its data, in one 8 KiB buffer.
 *
 * Credit flow: a process may have credits_pp requests to a peer that the
 * peer has not said it handled; every message carries back the count of
 * the receiver's requests handled here since the last one said so, and a
 * CREDIT message carries it when half the grant is owed and nothing else
 * went that way.  The receive buffers each process posts cover it all: per
 * peer credits_pp requests, depth_pp answers (one per operation record,
 * which is what an answer needs) and the two CREDIT messages that can be
 * in flight at once.  A buffer is re-posted as soon as its message is
 * handled, whatever the message was (the conduit's recycling rule for
 * ReqRB / RplSB is on top of this, in ptl's MDs).
 *
 * Large puts go by rendezvous: the target reads the source (PUT_RNDV names
 * its RMA address and key), and the put returns at the ACK, since the
 * conduit reuses the source once a put returns.  Large gets name the
 * destination; the target writes it and then replies.
 */
#include <stdlib.h>
#include <string.h>

#include "nal/ofi/ofi.h"
#include "nal/ofi/ofi_config.h"
#include "util/log.h"
#include "util/slowwait.h"

/* ---- sending ----------------------------------------------------------------------------- */

struct send_args {
    int tx;
    size_t len;
    struct ofi_ctx *ctx;
    fi_addr_t dest;
};

static ssize_t post_send(struct ofi_state *st, void *arg)
{
    struct send_args *a = arg;
    return fi_send(st->ep, ofi_buf_addr(st, ofi_tx_index(st, a->tx)), a->len, st->buf_desc,
                   a->dest, a->ctx);
}

/* Any message: the credits owed to the peer go with it. */
static int send_msg(struct ofi_state *st, int rank, struct ofi_msg_hdr *hdr, const void *data,
                    uint64_t len)
{
    struct ofi_peer *peer = &st->peers[rank];
    if (peer->failed || st->fatal_pending)
        return PTL_FAIL;
    int tx = ofi_tx_take(st);
    if (tx < 0)
        return PTL_FAIL;
    struct ofi_ctx *ctx = ofi_ctx_take(st);
    if (ctx == NULL) { /* as many contexts as buffers plus parts: only a bug gets here */
        ofi_tx_put(st, tx);
        ofi_fail(st, rank, "aborting: no send context left for a message to node %d", rank);
        return PTL_FAIL;
    }
    ctx->kind = OFI_CTX_SEND;
    ctx->peer = rank;
    ctx->buf = tx;
    hdr->src = (uint32_t)st->ni->rank;
    hdr->credits = (uint16_t)peer->owed_credits;
    peer->owed_credits = 0;
    uint8_t *buf = ofi_buf_addr(st, ofi_tx_index(st, tx));
    memcpy(buf, hdr, sizeof *hdr);
    if (len > 0)
        memcpy(buf + sizeof *hdr, data, len);
    struct send_args args = { tx, sizeof *hdr + len, ctx, peer->addr };
    if (ofi_post_retry(st, rank, "message", post_send, &args) != PTL_OK) {
        ofi_tx_put(st, tx);
        ofi_ctx_put(st, ctx);
        return PTL_FAIL;
    }
    st->messages_sent++;
    return PTL_OK;
}

/* A request: waits (with progress) for a credit first. */
static int send_request(struct ofi_state *st, int rank, struct ofi_msg_hdr *hdr, const void *data,
                        uint64_t len)
{
    struct ofi_peer *peer = &st->peers[rank];
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    if (peer->send_credits == 0)
        st->credit_waits++;
    while (peer->send_credits == 0) {
        if (peer->failed || st->fatal_pending)
            return PTL_FAIL;
        ofi_progress_locked(st);
        ofi_wait_yield(st);
        gp_slow_wait_check(&wait, "ofi", "a credit of node %d (all %d are spent: it has not "
                           "handled this process's requests yet)", rank, st->credits_pp);
    }
    peer->send_credits--;
    int rc = send_msg(st, rank, hdr, data, len);
    if (rc != PTL_OK)
        peer->send_credits++;
    return rc;
}

/* The RMA address and key a peer uses for [addr, addr+len) of this process (access FI_REMOTE_*). */
static int remote_key(struct ofi_state *st, struct ofi_inflight *rec, void *addr, uint64_t len,
                      uint64_t access, uint64_t *rma_addr, uint64_t *key)
{
    int in_region;
    ofi_region_desc(st, addr, len, &in_region);
    if (in_region) {
        *rma_addr = ofi_rma_addr(st, addr, st->ni->region);
        *key = st->region_key;
        return PTL_OK;
    }
    void *base;
    struct fid_mr *mr = ofi_mr_pin(st, rec, addr, len, access, &base);
    if (mr == NULL)
        return PTL_FAIL;
    *rma_addr = ofi_rma_addr(st, addr, base);
    *key = fi_mr_key(mr);
    return PTL_OK;
}

int ofi_msg_put(struct ofi_state *st, const struct nal_op *op)
{
    int rank = (int)op->target;
    struct ofi_msg_hdr hdr = {
        .type = OFI_MSG_PUT, .pt_index = op->pt_index, .match_bits = op->match_bits,
        .offset = op->remote_offset, .hdr_data = op->hdr_data, .length = op->length,
    };
    int ack = op->ack_req == PTL_ACK_REQ;
    if (op->length <= OFI_EAGER_BYTES) {
        struct ofi_inflight *rec = NULL;
        if (ack) {
            rec = ofi_inflight_take(st, rank, OFI_OP_PUT, op);
            if (rec == NULL)
                return PTL_FAIL;
            hdr.flags = OFI_FLAG_ANSWER | OFI_FLAG_ACK_REQ;
            hdr.op_id = ofi_inflight_id(&st->peers[rank], rec);
        }
        int rc = send_request(st, rank, &hdr, op->local_addr, op->length);
        if (rc != PTL_OK) {
            if (rec != NULL)
                ofi_inflight_release(st, rank, rec);
            return rc;
        }
        /* The data is in the tx buffer: the source may be reused. */
        ptl_initiator_event(st->ni, op, PTL_EVENT_SEND_END, op->length, 0);
        return PTL_OK;
    }
    struct ofi_inflight *rec = ofi_inflight_take(st, rank, OFI_OP_PUT, op);
    if (rec == NULL)
        return PTL_FAIL;
    rec->rndv = 1;
    hdr.type = OFI_MSG_PUT_RNDV;
    hdr.flags = OFI_FLAG_ANSWER | (ack ? OFI_FLAG_ACK_REQ : 0);
    hdr.op_id = ofi_inflight_id(&st->peers[rank], rec);
    if (remote_key(st, rec, op->local_addr, op->length, FI_REMOTE_READ, &hdr.addr, &hdr.key) !=
            PTL_OK ||
        send_request(st, rank, &hdr, NULL, 0) != PTL_OK) {
        ofi_inflight_release(st, rank, rec);
        return PTL_FAIL;
    }
    ofi_inflight_wait(st, rank, hdr.op_id);
    return st->peers[rank].failed ? PTL_FAIL : PTL_OK;
}

int ofi_msg_get(struct ofi_state *st, const struct nal_op *op)
{
    int rank = (int)op->target;
    struct ofi_inflight *rec = ofi_inflight_take(st, rank, OFI_OP_GET, op);
    if (rec == NULL)
        return PTL_FAIL;
    struct ofi_msg_hdr hdr = {
        .type = OFI_MSG_GET, .op_id = ofi_inflight_id(&st->peers[rank], rec),
        .pt_index = op->pt_index, .match_bits = op->match_bits, .offset = op->remote_offset,
        .length = op->length,
    };
    if (op->length > OFI_EAGER_BYTES &&
        remote_key(st, rec, op->local_addr, op->length, FI_REMOTE_WRITE, &hdr.addr, &hdr.key) !=
            PTL_OK) {
        ofi_inflight_release(st, rank, rec);
        return PTL_FAIL;
    }
    int rc = send_request(st, rank, &hdr, NULL, 0);
    if (rc != PTL_OK)
        ofi_inflight_release(st, rank, rec);
    return rc;
}

void ofi_msg_flush_credits(struct ofi_state *st)
{
    unsigned count = st->owing_count;
    st->owing_count = 0;
    for (unsigned i = 0; i < count; i++) {
        int rank = st->owing[i];
        st->peers[rank].owing_listed = 0;
        if (st->peers[rank].owed_credits > 0) {
            struct ofi_msg_hdr hdr = { .type = OFI_MSG_CREDIT };
            if (send_msg(st, rank, &hdr, NULL, 0) == PTL_OK)
                st->credit_messages++;
        }
    }
}

/* ---- the target side ------------------------------------------------------------------------ */

static void owe_credit(struct ofi_state *st, int rank)
{
    struct ofi_peer *peer = &st->peers[rank];
    if (++peer->owed_credits >= (st->credits_pp + 1) / 2 && !peer->owing_listed) {
        peer->owing_listed = 1;
        st->owing[st->owing_count++] = rank;
    }
}

static void grant_window(struct ofi_state *st, uint32_t pt_index, uint64_t match_bits,
                         struct ofi_msg_hdr *out)
{
    uint64_t offset, length;
    if (ofi_cfg.ofi_windows && pt_index < OFI_WINDOW_PTS &&
        ptl_target_window(st->ni->region, pt_index, match_bits, &offset, &length)) {
        out->flags |= OFI_FLAG_WINDOW;
        out->win_offset = offset;
        out->win_length = length;
    }
}

static void answer_put(struct ofi_state *st, int rank, uint8_t in_flags, uint32_t op_id,
                       uint32_t pt_index, uint64_t match_bits, int matched,
                       const struct ptl_match *match)
{
    if (!(in_flags & OFI_FLAG_ANSWER))
        return;
    int event = matched && (in_flags & OFI_FLAG_ACK_REQ) && !(match->options & PTL_MD_ACK_DISABLE);
    struct ofi_msg_hdr ack = {
        .type = OFI_MSG_ACK, .flags = event ? OFI_FLAG_EVENT : 0, .op_id = op_id,
        .pt_index = pt_index, .match_bits = match_bits,
        .offset = matched ? match->md_offset : 0, .length = matched ? match->mlength : 0,
    };
    grant_window(st, pt_index, match_bits, &ack);
    send_msg(st, rank, &ack, NULL, 0);
}

static void dropped(int rank, const char *what, const struct ofi_msg_hdr *in)
{
    gp_debug("ofi", "%s of %llu bytes from rank %d pt %u match 0x%llx matched no MD: dropped",
             what, (unsigned long long)in->length, rank, in->pt_index,
             (unsigned long long)in->match_bits);
}

static void take_put(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in,
                     const uint8_t *data, uint64_t bytes)
{
    struct ptl_match match;
    int matched = bytes >= in->length &&
                  ptl_target_match(st->ni->region, in->pt_index, PTL_OP_PUT, in->match_bits,
                                   in->offset, in->length, &match) == PTL_OK;
    if (matched) {
        if (match.mlength)
            memcpy((char *)st->ni->region + match.data_offset, data, match.mlength);
        ptl_target_event(st->ni->region, &match, PTL_EVENT_PUT_END, (unsigned)rank,
                         in->match_bits, in->hdr_data, in->length, in->pt_index);
    } else {
        dropped(rank, "put", in);
    }
    answer_put(st, rank, in->flags, in->op_id, in->pt_index, in->match_bits, matched, &match);
}

struct rma_args {
    int is_read;
    void *local;
    size_t len;
    fi_addr_t peer;
    uint64_t addr, key;
    struct ofi_ctx *ctx;
};

static ssize_t post_region_rma(struct ofi_state *st, void *arg)
{
    struct rma_args *a = arg;
    if (a->is_read)
        return fi_read(st->ep, a->local, a->len, st->region_desc, a->peer, a->addr, a->key, a->ctx);
    return fi_write(st->ep, a->local, a->len, st->region_desc, a->peer, a->addr, a->key, a->ctx);
}

/*
 * Moves a served op's bytes between the region and the initiator's buffer, in parts of
 * at most max_msg; served is answered when the last part completes.
 */
static void region_transfer(struct ofi_state *st, int rank, struct ofi_served *served,
                            uint64_t remote_addr, uint64_t key)
{
    char *local = (char *)st->ni->region + served->match.data_offset;
    uint64_t left = served->match.mlength, done = 0;
    served->parts_left = 1; /* the posting's own count: parts may complete meanwhile */
    while (left > 0) {
        uint64_t chunk = left < st->max_msg ? left : st->max_msg;
        struct ofi_ctx *ctx = ofi_ctx_take(st);
        if (ctx == NULL) {
            ofi_fail(st, rank, "aborting: no context left for an RMA part to node %d", rank);
            served->failed = 1;
            break;
        }
        ctx->kind = served->is_read ? OFI_CTX_RNDV_READ : OFI_CTX_GET_WRITE;
        ctx->peer = rank;
        ctx->served = served;
        struct rma_args args = { served->is_read, local + done, chunk, st->peers[rank].addr,
                                 remote_addr + done, ofi_fault_key(st, key), ctx };
        served->parts_left++;
        if (ofi_post_retry(st, rank, served->is_read ? "rendezvous read" : "get's write",
                           post_region_rma, &args) != PTL_OK) {
            served->parts_left--;
            served->failed = 1;
            ofi_ctx_put(st, ctx);
            break;
        }
        left -= chunk;
        done += chunk;
    }
    if (--served->parts_left == 0)
        ofi_msg_served(st, served);
}

void ofi_msg_served(struct ofi_state *st, struct ofi_served *s)
{
    int rank = s->peer;
    if (!s->failed && !st->peers[rank].failed) {
        if (s->is_read) {
            ptl_target_event(st->ni->region, &s->match, PTL_EVENT_PUT_END, (unsigned)rank,
                             s->match_bits, s->hdr_data, s->rlength, s->pt_index);
            answer_put(st, rank, s->flags, s->op_id, s->pt_index, s->match_bits, 1, &s->match);
        } else {
            struct ofi_msg_hdr reply = {
                .type = OFI_MSG_REPLY, .flags = OFI_FLAG_EVENT, .op_id = s->op_id,
                .pt_index = s->pt_index, .match_bits = s->match_bits,
                .offset = s->match.md_offset, .length = s->match.mlength,
            };
            grant_window(st, s->pt_index, s->match_bits, &reply);
            ptl_target_event(st->ni->region, &s->match, PTL_EVENT_GET_END, (unsigned)rank,
                             s->match_bits, 0, s->rlength, s->pt_index);
            send_msg(st, rank, &reply, NULL, 0);
        }
    }
    free(s);
}

static struct ofi_served *served_new(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in,
                                     const struct ptl_match *match, int is_read)
{
    struct ofi_served *s = calloc(1, sizeof *s);
    if (s == NULL) {
        ofi_fail(st, rank, "aborting: out of memory serving a %s from node %d",
                 is_read ? "rendezvous put" : "get", rank);
        return NULL;
    }
    *s = (struct ofi_served){ .match = *match, .match_bits = in->match_bits,
                              .hdr_data = in->hdr_data, .rlength = in->length,
                              .pt_index = in->pt_index, .op_id = in->op_id, .flags = in->flags,
                              .is_read = (uint8_t)is_read, .peer = rank };
    return s;
}

static void take_put_rndv(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in)
{
    struct ptl_match match;
    int matched = ptl_target_match(st->ni->region, in->pt_index, PTL_OP_PUT, in->match_bits,
                                   in->offset, in->length, &match) == PTL_OK;
    if (!matched || match.mlength == 0) {
        if (matched)
            ptl_target_event(st->ni->region, &match, PTL_EVENT_PUT_END, (unsigned)rank,
                             in->match_bits, in->hdr_data, in->length, in->pt_index);
        else
            dropped(rank, "rendezvous put", in);
        answer_put(st, rank, in->flags, in->op_id, in->pt_index, in->match_bits, matched, &match);
        return;
    }
    struct ofi_served *s = served_new(st, rank, in, &match, 1);
    if (s != NULL)
        region_transfer(st, rank, s, in->addr, in->key);
}

static void serve_get(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in)
{
    struct ptl_match match;
    int matched = ptl_target_match(st->ni->region, in->pt_index, PTL_OP_GET, in->match_bits,
                                   in->offset, in->length, &match) == PTL_OK;
    struct ofi_msg_hdr reply = {
        .type = OFI_MSG_REPLY, .flags = matched ? OFI_FLAG_EVENT : 0, .op_id = in->op_id,
        .pt_index = in->pt_index, .match_bits = in->match_bits,
        .offset = matched ? match.md_offset : 0, .length = matched ? match.mlength : 0,
    };
    grant_window(st, in->pt_index, in->match_bits, &reply);
    if (!matched) {
        dropped(rank, "get", in);
        send_msg(st, rank, &reply, NULL, 0);
        return;
    }
    if (match.mlength <= OFI_EAGER_BYTES) {
        reply.flags |= OFI_FLAG_DATA;
        send_msg(st, rank, &reply, (char *)st->ni->region + match.data_offset, match.mlength);
        ptl_target_event(st->ni->region, &match, PTL_EVENT_GET_END, (unsigned)rank,
                         in->match_bits, 0, in->length, in->pt_index);
        return;
    }
    struct ofi_served *s = served_new(st, rank, in, &match, 0);
    if (s != NULL)
        region_transfer(st, rank, s, in->addr, in->key);
}

/* ---- answers at the initiator --------------------------------------------------------------- */

static struct ofi_inflight *answered(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in,
                                     unsigned kind, const char *answer)
{
    const char *why = NULL;
    struct nal_inflight_rec *rec = nal_inflight_find(&st->peers[rank].inflight, in->op_id, kind,
                                                     &why);
    if (rec == NULL)
        ofi_fail(st, rank, "node %d sent %s for op id 0x%x, which names no %s awaiting one: %s",
                 rank, answer, in->op_id, kind == OFI_OP_PUT ? "put" : "get", why);
    return (struct ofi_inflight *)rec;
}

static void record_window(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in)
{
    if ((in->flags & OFI_FLAG_WINDOW) && in->pt_index < OFI_WINDOW_PTS)
        st->peers[rank].window[in->pt_index] = (struct ofi_window){ in->win_offset, in->win_length };
}

static void take_ack(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in)
{
    struct ofi_inflight *rec = answered(st, rank, in, OFI_OP_PUT, "an ACK");
    if (rec == NULL)
        return;
    record_window(st, rank, in);
    const struct nal_op *op = &rec->rec.op;
    if (ptl_md_still_valid(st->ni, op)) {
        if (rec->rndv) /* the target has read the source: it may be reused */
            ptl_initiator_event(st->ni, op, PTL_EVENT_SEND_END, op->length, 0);
        if (in->flags & OFI_FLAG_EVENT)
            ptl_initiator_event(st->ni, op, PTL_EVENT_ACK, in->length, in->offset);
    }
    ofi_inflight_release(st, rank, rec);
}

static void take_reply(struct ofi_state *st, int rank, const struct ofi_msg_hdr *in,
                       const uint8_t *data, uint64_t bytes)
{
    struct ofi_inflight *rec = answered(st, rank, in, OFI_OP_GET, "a REPLY");
    if (rec == NULL)
        return;
    record_window(st, rank, in);
    const struct nal_op *op = &rec->rec.op;
    int valid = ptl_md_still_valid(st->ni, op);
    if (in->flags & OFI_FLAG_DATA) {
        uint64_t len = in->length;
        if (len > bytes || len > op->length) {
            ofi_fail(st, rank, "node %d replied with %llu bytes to a get of %llu (%llu arrived)",
                     rank, (unsigned long long)len, (unsigned long long)op->length,
                     (unsigned long long)bytes);
            ofi_inflight_release(st, rank, rec);
            return;
        }
        if (valid && len > 0)
            memcpy(op->local_addr, data, len);
    }
    if (valid && (in->flags & OFI_FLAG_EVENT))
        ptl_initiator_event(st->ni, op, PTL_EVENT_REPLY_END, in->length, in->offset);
    ofi_inflight_release(st, rank, rec);
}

/* ---- receiving ------------------------------------------------------------------------------ */

struct recv_args {
    unsigned index;
};

static ssize_t post_recv(struct ofi_state *st, void *arg)
{
    unsigned index = ((struct recv_args *)arg)->index;
    return fi_recv(st->ep, ofi_buf_addr(st, index), OFI_BUF_BYTES, st->buf_desc, FI_ADDR_UNSPEC,
                   &st->rx_ctx[index]);
}

int ofi_msg_repost(struct ofi_state *st, unsigned index)
{
    struct recv_args args = { index };
    st->rx_ctx[index].kind = OFI_CTX_RECV;
    st->rx_ctx[index].buf = (int)index;
    st->rx_ctx[index].peer = -1;
    return ofi_post_retry(st, -1, "receive buffer", post_recv, &args);
}

int ofi_msg_post_receives(struct ofi_state *st)
{
    for (unsigned i = 0; i < st->rx_count; i++)
        if (ofi_msg_repost(st, i) != PTL_OK)
            return PTL_FAIL;
    return PTL_OK;
}

void ofi_msg_received(struct ofi_state *st, unsigned index, uint64_t bytes)
{
    const uint8_t *buf = ofi_buf_addr(st, index);
    struct ofi_msg_hdr in;
    if (bytes < sizeof in) {
        ofi_fail(st, -1, "aborting: a message of %llu bytes arrived, shorter than a header (%zu)",
                 (unsigned long long)bytes, sizeof in);
        return;
    }
    memcpy(&in, buf, sizeof in);
    int rank = (int)in.src;
    if (in.src >= (uint32_t)st->ni->size || !ofi_wants(st, rank) || in.type == 0 ||
        in.type >= OFI_MSG_TYPE_END) {
        ofi_fail(st, -1, "aborting: a message with type %u from rank %u arrived (a job of %d "
                 "nodes, of which this process reaches %u through ofi; types 1 to %d)",
                 in.type, in.src, st->ni->size, st->peers_reached, OFI_MSG_TYPE_END - 1);
        return;
    }
    struct ofi_peer *peer = &st->peers[rank];
    peer->send_credits += in.credits;
    const uint8_t *data = buf + sizeof in;
    uint64_t data_bytes = bytes - sizeof in;
    switch (in.type) {
    case OFI_MSG_PUT:
        owe_credit(st, rank); /* the answer, if any, carries it back */
        take_put(st, rank, &in, data, data_bytes);
        break;
    case OFI_MSG_PUT_RNDV:
        owe_credit(st, rank); /* the answer, if any, carries it back */
        take_put_rndv(st, rank, &in);
        break;
    case OFI_MSG_GET:
        owe_credit(st, rank); /* the answer, if any, carries it back */
        serve_get(st, rank, &in);
        break;
    case OFI_MSG_ACK:
        take_ack(st, rank, &in);
        break;
    case OFI_MSG_REPLY:
        take_reply(st, rank, &in, data, data_bytes);
        break;
    default:
        break;
    }
    ofi_msg_repost(st, index);
}
