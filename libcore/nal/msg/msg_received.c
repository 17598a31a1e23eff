/*
 * A received message's protocol steps, at either end: the target matches a
 * request and answers it (the data of a PUT deposited, a PUT_RNDV's source
 * read, a GET's data sent in the REPLY or written to the initiator), and the
 * initiator takes an ACK or a REPLY for the record its op id names.  The
 * transport has read its header (and checked the type is one of ours) and
 * keeps what concerns its receive queue: credits, the buffer, per-peer order.
 */
#include "nal/msg/msg.h"

static void send_answer(const struct msg_proto *p, int rank, const struct msg_fields *answer,
                        const void *data, uint64_t len)
{
    p->nic->send(p->nic_state, rank, answer, NULL, data, len, 0);
}

/* ---- the target side --------------------------------------------------------------------- */

static void answer_put(const struct msg_proto *p, int rank, const struct msg_fields *in,
                       int matched, const struct ptl_match *match)
{
    struct msg_fields ack;
    if (msg_ack(p, in, matched, match, &ack))
        send_answer(p, rank, &ack, NULL, 0);
}

static void take_put(const struct msg_proto *p, int rank, const struct msg_in *in)
{
    struct ptl_match match;
    int matched = msg_take_put(p, rank, &in->f, in->data, in->bytes, &match);
    answer_put(p, rank, &in->f, matched, &match);
}

static void take_put_rndv(const struct msg_proto *p, int rank, const struct msg_in *in)
{
    struct ptl_match match;
    int matched;
    if (!msg_match_rndv(p, rank, &in->f, &match, &matched)) {
        answer_put(p, rank, &in->f, matched, &match);
        return;
    }
    struct msg_served served;
    msg_served_init(&served, &in->f, &match);
    p->nic->read_source(p->nic_state, rank, &served, &in->remote);
}

static void serve_get(const struct msg_proto *p, int rank, const struct msg_in *in)
{
    struct ptl_match match;
    struct msg_fields reply;
    if (!msg_match_get(p, rank, &in->f, &match, &reply)) {
        send_answer(p, rank, &reply, NULL, 0);
        return;
    }
    struct msg_served served;
    msg_served_init(&served, &in->f, &match);
    if (match.mlength <= p->eager_bytes) {
        reply.flags |= MSG_FLAG_DATA;
        send_answer(p, rank, &reply, (char *)p->ni->region + match.data_offset, match.mlength);
        msg_get_done(p, rank, &served);
        return;
    }
    p->nic->write_get(p->nic_state, rank, &served, &reply, &in->remote);
}

/* ---- answers at the initiator -------------------------------------------------------------- */

/* The record an answer's op id names, or NULL after failing the peer (it broke the protocol). */
static struct nal_inflight_rec *answered(const struct msg_proto *p, int rank,
                                         struct nal_inflight *records, const struct msg_fields *in,
                                         unsigned kind, const char *answer)
{
    const char *why = NULL;
    struct nal_inflight_rec *rec = nal_inflight_find(records, in->op_id, kind, &why);
    if (rec == NULL)
        msg_fail(p, rank, "node %d sent %s for op id 0x%x, which names no %s awaiting one: %s", rank,
             answer, in->op_id, kind == MSG_OP_PUT ? "put" : "get", why);
    return rec;
}

static void take_ack(const struct msg_proto *p, int rank, struct nal_inflight *records,
                     struct msg_window *windows, const struct msg_fields *in)
{
    struct nal_inflight_rec *rec = answered(p, rank, records, in, MSG_OP_PUT, "an ACK");
    if (rec == NULL)
        return;
    msg_record_window(windows, in);
    /* A put larger than the eager size went by rendezvous (msg_put). */
    msg_take_ack(p->ni, &rec->op, rec->op.length > p->eager_bytes, in);
    p->nic->record_release(p->nic_state, rank, rec);
}

static void take_reply(const struct msg_proto *p, int rank, struct nal_inflight *records,
                       struct msg_window *windows, const struct msg_in *in)
{
    struct nal_inflight_rec *rec = answered(p, rank, records, &in->f, MSG_OP_GET, "a REPLY");
    if (rec == NULL)
        return;
    const struct nal_op *op = &rec->op;
    int short_data = (in->f.flags & MSG_FLAG_DATA) && in->bytes < in->f.length;
    if (in->f.length > op->length || short_data) {
        msg_fail(p, rank, "node %d sent a REPLY (op id 0x%x) of %llu bytes%s for a get of %llu",
             rank, in->f.op_id, (unsigned long long)in->f.length,
             short_data ? ", not all of them there" : "", (unsigned long long)op->length);
        p->nic->record_release(p->nic_state, rank, rec);
        return;
    }
    msg_record_window(windows, &in->f);
    msg_take_reply(p->ni, op, &in->f, in->data);
    p->nic->record_release(p->nic_state, rank, rec);
}

void msg_received(const struct msg_proto *p, int rank, struct nal_inflight *records,
                  struct msg_window *windows, const struct msg_in *in)
{
    switch (in->f.type) {
    case MSG_PUT: take_put(p, rank, in); break;
    case MSG_PUT_RNDV: take_put_rndv(p, rank, in); break;
    case MSG_GET: serve_get(p, rank, in); break;
    case MSG_ACK: take_ack(p, rank, records, windows, &in->f); break;
    case MSG_REPLY: take_reply(p, rank, records, windows, in); break;
    default: break; /* CREDIT: only the credits in its header, the transport's */
    }
}

/* ---- a served request's read or write completed ------------------------------------------- */

void msg_served_done(const struct msg_proto *p, int rank, const struct msg_served *s, int is_read,
                     int reply_sent)
{
    struct msg_fields answer;
    if (is_read) { /* the last part of a rendezvous read: the put is in */
        if (msg_rndv_done(p, rank, s, &answer))
            send_answer(p, rank, &answer, NULL, 0);
        return;
    }
    if (!reply_sent)
        msg_reply_written(p, s, &answer);
    msg_get_done(p, rank, s);
    if (!reply_sent)
        send_answer(p, rank, &answer, NULL, 0);
}
