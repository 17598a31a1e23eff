/*
 * The receiving half of a tcp connection: the target side of puts and gets,
 * run by this process's progress engine on its own region, and the
 * initiator side of their answers.
 *
 * A frame is read in two states.  HEADER: the 48 header bytes (and a small
 * put's whole body, below), then the frame is decoded and, for a put,
 * matched (ptl_target_match claims the room in the MD, exactly as a shm
 * initiator would).  BODY: the data is read with readv straight into the
 * matched place, the part that does not fit (truncation, or no match at
 * all) into a scratch sink, and the next frame's header into the stage in
 * the same call.  When the body is complete the events are posted and the
 * answer, if any, is queued (never written from here: tcp_flush writes it).
 *
 * Both states live in the connection (conn->rx), and nothing here looks at
 * another connection: a peer that stops in the middle of a frame leaves
 * its connection in HEADER or BODY until its bytes come, while the pass
 * goes on reading the others (doc/wire-tcp.md, "Reading").
 *
 * Anything a peer sends is checked before use: the header by
 * tcp_frame_decode, offsets and lengths by ptl_target_match against the MD,
 * op ids against the in-flight table, a reply's length against its get.
 * A peer that breaks the protocol has its connection closed, with an error
 * naming it and what it did.
 */
#include "nal/tcp/tcp.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "util/log.h"

/* Frames handled per connection per pass, so one busy peer can't starve the rest. */
#define RECV_FRAME_BUDGET 256

/* n > 0 bytes read; 0 would block; -1 the connection is down (handled here). */
static ssize_t read_some(struct tcp_state *st, struct tcp_conn *conn, struct iovec *iov, int count)
{
    size_t wanted = 0;
    for (int i = 0; i < count; i++)
        wanted += iov[i].iov_len;
    for (;;) {
        ssize_t n = readv(conn->fd, iov, count);
        if (n > 0) {
            /* Fewer bytes than asked for: the socket is (almost surely) empty now. */
            conn->rx.drained = (size_t)n < wanted;
            return n;
        }
        if (n == 0) {
            int torn = conn->rx.in_body || conn->rx.stage_end > conn->rx.stage_pos;
            tcp_conn_gone(st, conn, torn ? "closed in the middle of a frame" : "closed by the peer");
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno == ECONNRESET)
            tcp_conn_gone(st, conn, "reset by the peer");
        else
            tcp_conn_fail(st, conn, "receive failed: %s", strerror(errno));
        return -1;
    }
}

/* ---- completing a frame ------------------------------------------------------ */

static int finish_put(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    const struct tcp_frame *in = &rx->frame;
    if (rx->matched)
        ptl_target_event(st->ni->region, &rx->match, PTL_EVENT_PUT_END, (unsigned)conn->rank,
                         in->match_bits, in->hdr_data, in->length, in->pt_index);
    if (!(in->flags & TCP_FLAG_ACK_REQ))
        return 1;
    /* Always answered, so the initiator's slot comes back; the event only when Portals has one. */
    int event = rx->matched && !(rx->match.options & PTL_MD_ACK_DISABLE);
    struct tcp_frame ack = {
        .type = TCP_FRAME_ACK, .flags = event ? TCP_FLAG_EVENT : 0, .pt_index = in->pt_index,
        .op_id = in->op_id, .match_bits = in->match_bits,
        .offset = rx->matched ? rx->match.md_offset : 0,
        .length = rx->matched ? rx->match.mlength : 0,
    };
    /* Runnable: the initiator can rebuild this ACK's event from its own record. */
    int runnable = !event || (rx->match.mlength == in->length && rx->match.md_offset == in->offset);
    if (tcp_queue_ack(conn, &ack, runnable) != 0) {
        tcp_conn_fail(st, conn, "asked for more than %d answers at once", TCP_INFLIGHT_PER_PEER);
        return -1;
    }
    return 1;
}

static int finish_reply(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    struct nal_op *op = &rx->op->op;
    if (ptl_md_still_valid(st->ni, op))
        ptl_initiator_event(st->ni, op, PTL_EVENT_REPLY_END, rx->frame.length, rx->frame.offset);
    tcp_record_release(st, conn, rx->op);
    rx->op = NULL;
    return 1;
}

static int finish_frame(struct tcp_state *st, struct tcp_conn *conn)
{
    conn->rx.in_body = 0;
    return conn->rx.frame.type == TCP_FRAME_PUT ? finish_put(st, conn) : finish_reply(st, conn);
}

/* The body's destination is set: read it, or finish at once if it is empty. */
static int begin_body(struct tcp_state *st, struct tcp_conn *conn)
{
    if (conn->rx.dest_left == 0 && conn->rx.discard_left == 0)
        return finish_frame(st, conn);
    conn->rx.in_body = 1;
    return 1;
}

/* ---- starting a frame ------------------------------------------------------------ */

static int start_put(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    const struct tcp_frame *in = &rx->frame;
    rx->matched = ptl_target_match(st->ni->region, in->pt_index, PTL_OP_PUT, in->match_bits,
                                   in->offset, in->length, &rx->match) == PTL_OK;
    rx->dest_left = rx->matched ? rx->match.mlength : 0;
    rx->dest = rx->matched ? (char *)st->ni->region + rx->match.data_offset : NULL;
    rx->discard_left = in->length - rx->dest_left;
    if (!rx->matched)
        gp_debug("tcp", "put of %llu bytes from rank %d pt %u match 0x%llx matched no MD: dropped",
                 (unsigned long long)in->length, conn->rank, in->pt_index,
                 (unsigned long long)in->match_bits);
    return begin_body(st, conn);
}

static int serve_get(struct tcp_state *st, struct tcp_conn *conn)
{
    const struct tcp_frame *in = &conn->rx.frame;
    struct ptl_match match;
    int matched = ptl_target_match(st->ni->region, in->pt_index, PTL_OP_GET, in->match_bits,
                                   in->offset, in->length, &match) == PTL_OK;
    if (!matched)
        gp_debug("tcp", "get of %llu bytes from rank %d pt %u match 0x%llx matched no MD: dropped",
                 (unsigned long long)in->length, conn->rank, in->pt_index,
                 (unsigned long long)in->match_bits);
    struct tcp_frame reply = {
        .type = TCP_FRAME_REPLY, .flags = matched ? TCP_FLAG_EVENT : 0, .pt_index = in->pt_index,
        .op_id = in->op_id, .match_bits = in->match_bits, .offset = matched ? match.md_offset : 0,
        .length = matched ? match.mlength : 0,
    };
    struct tcp_out_entry *entry =
        tcp_queue_reply(conn, &reply, matched ? TCP_OUT_REPLY : TCP_OUT_CONTROL);
    if (entry == NULL) {
        tcp_conn_fail(st, conn, "asked for more than %d answers at once", TCP_INFLIGHT_PER_PEER);
        return -1;
    }
    if (matched) {
        /* Sent from the region itself when the writer gets to it; GET_END then. */
        entry->data = (char *)st->ni->region + match.data_offset;
        entry->data_len = match.mlength;
        entry->u.get = (struct tcp_get_served){ match, in->match_bits, in->length, in->pt_index };
    }
    return 1;
}

/* The oldest put awaiting an ACK, which the next ACK must name; 0 if none (no id is 0). */
static uint32_t ack_fifo_peek(const struct tcp_conn *conn, uint32_t nth)
{
    if (conn->ack_fifo_head - conn->ack_fifo_tail <= nth)
        return 0;
    return conn->ack_fifo[(conn->ack_fifo_tail + nth) % TCP_INFLIGHT_PER_PEER];
}

/*
 * Counted puts acknowledged back to back, mostly of one operation (a window
 * of gasnet_put_nbi): one subtraction for the run, not one per put.
 */
struct count_run {
    struct nal_ni *ni;
    gp_count_t *count;
    int64_t acked;
};

static void count_run_flush(struct count_run *run)
{
    if (run->acked > 0)
        ptl_count_done(run->ni, run->count, run->acked);
    run->acked = 0;
}

static void count_run_add(struct count_run *run, gp_count_t *count)
{
    if (run->count != count)
        count_run_flush(run);
    run->count = count;
    run->acked++;
}

/* One put acknowledged: its count or its ACK event (if asked for and its MD still stands),
 * its record back. */
static int ack_one(struct tcp_state *st, struct tcp_conn *conn, uint32_t op_id, int event,
                   int whole, uint64_t mlength, uint64_t offset, struct count_run *run)
{
    const char *why = NULL;
    struct nal_inflight_rec *rec = nal_inflight_find(&conn->inflight, op_id, TCP_INFLIGHT_PUT,
                                                     &why);
    if (rec == NULL) {
        tcp_conn_fail(st, conn, "sent an ACK for op id 0x%x, which names no put awaiting one: %s",
                      op_id, why);
        return -1;
    }
    conn->ack_fifo_tail++;
    /* Counted whether or not the target asked for an event: the put is done either way. */
    if (rec->op.count_down != NULL)
        count_run_add(run, rec->op.count_down);
    else if (event && ptl_md_still_valid(st->ni, &rec->op))
        ptl_initiator_event(st->ni, &rec->op, PTL_EVENT_ACK, whole ? rec->op.length : mlength,
                            whole ? rec->op.remote_offset : offset);
    tcp_record_release(st, conn, rec);
    return 1;
}

static int take_ack(struct tcp_state *st, struct tcp_conn *conn)
{
    const struct tcp_frame *in = &conn->rx.frame;
    if (ack_fifo_peek(conn, 0) != in->op_id) {
        tcp_conn_fail(st, conn, "sent an ACK for op id 0x%x, which is not the oldest put "
                      "awaiting one (ACKs come back in the order of the puts)", in->op_id);
        return -1;
    }
    struct count_run run = { st->ni, NULL, 0 };
    int rc = ack_one(st, conn, in->op_id, (in->flags & TCP_FLAG_EVENT) != 0, 0, in->length,
                     in->offset, &run);
    count_run_flush(&run);
    return rc;
}

/* ACK_RUN: the oldest `length` puts awaiting an ACK, the last of them op_id, taken whole. */
static int take_ack_run(struct tcp_state *st, struct tcp_conn *conn)
{
    const struct tcp_frame *in = &conn->rx.frame;
    uint32_t count = (uint32_t)in->length; /* 2..TCP_INFLIGHT_PER_PEER: tcp_frame_decode */
    if (ack_fifo_peek(conn, count - 1) != in->op_id) {
        tcp_conn_fail(st, conn, "sent an ACK_RUN of %u ending with op id 0x%x, which does not "
                      "name the %u oldest puts awaiting an ACK", count, in->op_id, count);
        return -1;
    }
    int event = (in->flags & TCP_FLAG_EVENT) != 0;
    struct count_run run = { st->ni, NULL, 0 };
    int rc = 1;
    for (uint32_t i = 0; i < count && rc > 0; i++)
        rc = ack_one(st, conn, ack_fifo_peek(conn, 0), event, 1, 0, 0, &run);
    count_run_flush(&run); /* what was acknowledged before a bad id still counts */
    return rc;
}

static int start_reply(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    const struct tcp_frame *in = &rx->frame;
    const char *why = "it is longer than the get";
    struct nal_inflight_rec *rec = nal_inflight_find(&conn->inflight, in->op_id, TCP_INFLIGHT_GET,
                                                     &why);
    if (rec == NULL || in->length > rec->op.length) {
        tcp_conn_fail(st, conn, "sent a REPLY (op id 0x%x, %llu bytes) that answers no get "
                      "awaiting that much: %s", in->op_id, (unsigned long long)in->length, why);
        return -1;
    }
    if (!(in->flags & TCP_FLAG_EVENT)) {
        tcp_record_release(st, conn, rec); /* matched nothing: no event, as on shm */
        return 1;
    }
    rx->op = rec;
    int valid = ptl_md_still_valid(st->ni, &rec->op);
    rx->dest = valid ? rec->op.local_addr : NULL;
    rx->dest_left = valid ? in->length : 0;
    rx->discard_left = valid ? 0 : in->length;
    return begin_body(st, conn);
}

static int start_frame(struct tcp_state *st, struct tcp_conn *conn,
                       const uint8_t hdr[TCP_FRAME_HDR_LEN])
{
    const char *why = NULL;
    if (tcp_frame_decode(hdr, &conn->rx.frame, &why) != 0) {
        tcp_conn_fail(st, conn, "sent a malformed frame header: %s", why);
        return -1;
    }
    switch (conn->rx.frame.type) {
    case TCP_FRAME_PUT: return start_put(st, conn);
    case TCP_FRAME_GET: return serve_get(st, conn);
    case TCP_FRAME_ACK: return take_ack(st, conn);
    case TCP_FRAME_ACK_RUN: return take_ack_run(st, conn);
    default: return start_reply(st, conn);
    }
}

/* ---- reading ------------------------------------------------------------------ */

/*
 * Stage bytes the next frame needs before it is started: its header, and a
 * small put's whole body.  Such a put is then matched, copied into place
 * and reported in one step, so its claim on a locally managed MD (an AM
 * request's room in a ReqRB buffer) is never held while its sender stops
 * mid-frame, and the small puts of every peer are reported in the order
 * they claimed their room, as on shm.  A larger body is matched at its
 * header and read straight into place: through the stage it would cost a
 * copy.
 */
static unsigned stage_wants(const struct tcp_rx *rx)
{
    if (rx->stage_end - rx->stage_pos < TCP_FRAME_HDR_LEN)
        return TCP_FRAME_HDR_LEN;
    uint64_t body = tcp_frame_put_length(rx->stage + rx->stage_pos);
    return TCP_FRAME_HDR_LEN + (body <= TCP_WHOLE_PUT_MAX ? (unsigned)body : 0);
}

/* Moves what the stage holds to its start and reads behind it (read_some's result). */
static ssize_t fill_stage(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    unsigned staged = rx->stage_end - rx->stage_pos;
    memmove(rx->stage, rx->stage + rx->stage_pos, staged);
    rx->stage_pos = 0;
    rx->stage_end = staged;
    struct iovec iov = { rx->stage + staged, TCP_STAGE_BYTES - staged };
    ssize_t n = read_some(st, conn, &iov, 1);
    if (n > 0)
        rx->stage_end += (unsigned)n;
    return n;
}

/*
 * Headers are read through the stage, a small buffer that takes whatever
 * the socket holds (up to TCP_STAGE_BYTES): several small frames, or a
 * header and the start of its body, cost one system call, and the call
 * that finds the socket empty is not made (a short read says so).  Bodies
 * beyond what the stage caught are read straight into their destination.
 */
static int read_header(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    if (rx->stage_end - rx->stage_pos < stage_wants(rx)) {
        if (rx->drained)
            return 0; /* the last read found the socket empty: the next pass polls first */
        ssize_t n = fill_stage(st, conn);
        if (n <= 0)
            return (int)n;
        /* Asked again: the read may have brought the header that says how much more. */
        if (rx->stage_end - rx->stage_pos < stage_wants(rx))
            return 1;
    }
    const uint8_t *hdr = rx->stage + rx->stage_pos;
    rx->stage_pos += TCP_FRAME_HDR_LEN;
    return start_frame(st, conn, hdr);
}

/* Body bytes the stage caught already: copied to their place (or dropped). */
static int body_from_stage(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    uint64_t staged = rx->stage_end - rx->stage_pos;
    uint64_t into_dest = staged < rx->dest_left ? staged : rx->dest_left;
    if (into_dest > 0) {
        memcpy(rx->dest, rx->stage + rx->stage_pos, into_dest);
        rx->dest += into_dest;
        rx->dest_left -= into_dest;
        rx->stage_pos += (unsigned)into_dest;
        staged -= into_dest;
    }
    uint64_t dropped = staged < rx->discard_left ? staged : rx->discard_left;
    rx->discard_left -= dropped;
    rx->stage_pos += (unsigned)dropped;
    if (rx->dest_left == 0 && rx->discard_left == 0)
        return finish_frame(st, conn);
    return 1;
}

static int read_body(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_rx *rx = &conn->rx;
    if (rx->stage_end > rx->stage_pos)
        return body_from_stage(st, conn);
    if (rx->drained)
        return 0; /* as in read_header */
    struct iovec iov[3];
    int count = 0;
    if (rx->dest_left > 0)
        iov[count++] = (struct iovec){ rx->dest, rx->dest_left };
    uint64_t sink = rx->discard_left < TCP_SCRATCH_BYTES ? rx->discard_left : TCP_SCRATCH_BYTES;
    if (sink > 0)
        iov[count++] = (struct iovec){ st->scratch, sink };
    /* What follows the body comes in the same call once the rest of it fits. */
    rx->stage_pos = rx->stage_end = 0;
    if (rx->discard_left == sink)
        iov[count++] = (struct iovec){ rx->stage, TCP_STAGE_BYTES };
    ssize_t n = read_some(st, conn, iov, count);
    if (n <= 0)
        return (int)n;
    uint64_t got = (uint64_t)n;
    uint64_t into_dest = got < rx->dest_left ? got : rx->dest_left;
    if (into_dest > 0) /* dest is NULL when everything is discarded */
        rx->dest += into_dest;
    rx->dest_left -= into_dest;
    got -= into_dest;
    uint64_t into_sink = got < rx->discard_left ? got : rx->discard_left;
    rx->discard_left -= into_sink;
    rx->stage_end = (unsigned)(got - into_sink);
    if (rx->dest_left == 0 && rx->discard_left == 0)
        return finish_frame(st, conn);
    return 1;
}

/* Whether the stage holds enough to go on without reading the socket. */
static int stage_can_continue(const struct tcp_rx *rx)
{
    unsigned staged = rx->stage_end - rx->stage_pos;
    return rx->in_body ? staged > 0 : staged >= stage_wants(rx);
}

int tcp_recv_staged(const struct tcp_conn *conn)
{
    return conn->status == TCP_CONN_UP && stage_can_continue(&conn->rx);
}

/* After a short read the next readv would find nothing: read_header and
 * read_body then go on only with what the stage holds, and return 0 once
 * it is used up; the next progress pass polls the socket first. */
int tcp_recv(struct tcp_state *st, struct tcp_conn *conn)
{
    conn->rx.drained = 0;
    int steps;
    for (steps = 0; conn->status == TCP_CONN_UP && steps < RECV_FRAME_BUDGET; steps++) {
        int rc = conn->rx.in_body ? read_body(st, conn) : read_header(st, conn);
        if (rc <= 0)
            break;
    }
    return steps > 0;
}
