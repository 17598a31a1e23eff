/*
 * The sending half of a tcp connection.
 *
 * Every frame, whatever its origin, goes through the connection's output
 * ring and is written by tcp_flush in ring order, so frames never
 * interleave on the byte stream and one writer keeps the partial-write
 * cursor.  An entry holds the encoded header and a pointer to its data:
 * the caller's source buffer for a large put, the registered region for a
 * get reply.  sendmsg gathers header and data, many frames per call.
 *
 * Small puts (up to TCP_COPY_MAX bytes: every AM, every small RMA) are
 * copied, header and data, into the connection's send arena, so the put
 * returns at once with its SEND_END posted, and puts queued back to back
 * lie side by side there: one iovec, one sendmsg for all of them.  Whether
 * a request is written at once or held back: the first one of a progress
 * pass goes at once (a lone message waits for nothing: ping-pong latency
 * is that of a write per message), later ones of the same pass wait for
 * the next pass (the caller's next poll or wait) or until TCP_DEFER_FRAMES
 * or TCP_DEFER_BYTES are held, whichever comes first.  A client that
 * issues a burst of non-blocking puts and then computes without polling
 * has all but the first of them sent at its next call into the library.
 * A PTL_NOACK_DEFER put (the conduit's implicit replies) or PTL_ACK_DEFER
 * put (its implicit-handle RMA puts, gasnet_put_nbi: a caller waits for
 * a whole batch with a sync, which makes a progress pass) is always held:
 * it leaves with the next request written, at the next pass, or once
 * TCP_DEFER_FRAMES or TCP_DEFER_BYTES are held.  A blocking put or an AM
 * request is still written at once when it is the first of its pass.
 *
 * A large put waits until its entry has been written (the GASNet layer
 * above reuses the buffer when the call returns), running the progress
 * engine meanwhile, so two processes putting large messages to each other
 * both keep reading and never deadlock.  The read path never waits: it
 * queues its ACKs and replies, and the ring always has room for them
 * because a peer may have at most TCP_INFLIGHT_PER_PEER operations
 * awaiting one.  ACKs queued back to back merge into one ACK_RUN frame
 * (doc/wire-tcp.md).
 *
 * Operations awaiting an ACK or a REPLY hold a record of the connection's
 * operation table (nal/inflight.h), whose id travels in the request; a
 * sender waits for a free record, or for the node's budget
 * (GASNET_NETWORKDEPTH_TOTAL), as it waits for room in the ring.  The ids
 * of ACK_REQ puts also go into the connection's ACK FIFO, in the order
 * they are queued, which is the order their ACKs come back in.
 */
#include "nal/tcp/tcp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "util/log.h"

_Static_assert(TCP_INFLIGHT_PER_PEER <= NAL_INFLIGHT_MAX_DEPTH, "op ids carry the index in 16 bits");

int tcp_conn_alloc_queues(struct tcp_conn *conn, struct nal_inflight_budget *budget)
{
    conn->out = calloc(TCP_OUT_SLOTS, sizeof *conn->out);
    conn->arena = malloc(TCP_ARENA_BYTES);
    if (conn->out == NULL || conn->arena == NULL)
        return PTL_NO_SPACE;
    return nal_inflight_init(&conn->inflight, TCP_INFLIGHT_PER_PEER, sizeof(struct nal_inflight_rec),
                             budget);
}

void tcp_conn_free_queues(struct tcp_conn *conn)
{
    free(conn->out);
    conn->out = NULL;
    free(conn->arena);
    conn->arena = NULL;
    nal_inflight_fini(&conn->inflight);
}

/* ---- operation records ---------------------------------------------------------- */

/* The tables share the node's budget (GASNET_NETWORKDEPTH_TOTAL): its counts
 * change under small_lock, whichever connection's lock the caller holds. */
struct nal_inflight_rec *tcp_record_take(struct tcp_state *st, struct tcp_conn *conn,
                                         unsigned kind, const struct nal_op *op)
{
    gp_mutex_lock(&st->small_lock);
    struct nal_inflight_rec *rec = nal_inflight_take(&conn->inflight, kind, op);
    gp_mutex_unlock(&st->small_lock);
    return rec;
}

void tcp_record_release(struct tcp_state *st, struct tcp_conn *conn, struct nal_inflight_rec *rec)
{
    gp_mutex_lock(&st->small_lock);
    nal_inflight_release(&conn->inflight, rec);
    gp_mutex_unlock(&st->small_lock);
}

/* ---- the output ring --------------------------------------------------------- */

/* An entry at the head of the ring; its header is the caller's to fill. */
static struct tcp_out_entry *out_claim(struct tcp_conn *conn, enum tcp_out_kind kind,
                                       const void *data, uint64_t len)
{
    struct tcp_out_entry *entry = &conn->out[conn->out_head % TCP_OUT_SLOTS];
    entry->kind = (uint8_t)kind;
    entry->ack_run = 0;
    entry->ack_count = 0;
    entry->data = data;
    entry->data_len = len;
    conn->out_head++;
    conn->out_bytes += TCP_FRAME_HDR_LEN + len;
    return entry;
}

static struct tcp_out_entry *out_push(struct tcp_conn *conn, const struct tcp_frame *frame,
                                      enum tcp_out_kind kind, const void *data, uint64_t len)
{
    struct tcp_out_entry *entry = out_claim(conn, kind, data, len);
    tcp_frame_encode(frame, entry->hdr);
    return entry;
}

/* ---- the send arena ------------------------------------------------------------ */

/* Where need contiguous arena bytes would go, or NULL (nothing reserved yet). */
static uint8_t *arena_place(struct tcp_conn *conn, uint64_t need, uint64_t *end)
{
    if (conn->arena_head == conn->arena_tail)
        conn->arena_head = conn->arena_tail = 0; /* empty: start over, no wrap */
    uint64_t pos = conn->arena_head % TCP_ARENA_BYTES;
    uint64_t pad = pos + need > TCP_ARENA_BYTES ? TCP_ARENA_BYTES - pos : 0;
    if (conn->arena_head + pad + need - conn->arena_tail > TCP_ARENA_BYTES)
        return NULL;
    *end = conn->arena_head + pad + need;
    return conn->arena + (pad ? 0 : pos);
}

static int arena_fits(struct tcp_conn *conn, uint64_t len)
{
    uint64_t end;
    return arena_place(conn, TCP_FRAME_HDR_LEN + len, &end) != NULL;
}

/* A put copied into the arena (arena_fits said it fits): header, then data. */
static struct tcp_out_entry *out_push_copy(struct tcp_conn *conn, const struct tcp_frame *frame,
                                           const void *data, uint64_t len)
{
    uint64_t end = 0;
    uint8_t *at = arena_place(conn, TCP_FRAME_HDR_LEN + len, &end);
    tcp_frame_encode(frame, at);
    if (len > 0)
        memcpy(at + TCP_FRAME_HDR_LEN, data, len);
    conn->arena_head = end;
    /* The header lies in the arena, before the data: gather sends it from there. */
    struct tcp_out_entry *entry = out_claim(conn, TCP_OUT_COPY, at, len);
    entry->arena_end = end;
    return entry;
}

struct tcp_out_entry *tcp_queue_reply(struct tcp_conn *conn, const struct tcp_frame *frame,
                                      enum tcp_out_kind kind)
{
    unsigned replies = (unsigned)(conn->out_head - conn->out_tail) - conn->out_requests;
    if (replies >= TCP_INFLIGHT_PER_PEER)
        return NULL;
    return out_push(conn, frame, kind, NULL, 0);
}

/*
 * An ACK.  A runnable one (the put was taken whole where it asked, or
 * carries no event) joins the runnable ACK queued last, if that one is not
 * being written yet: the entry becomes an ACK_RUN counting both, named by
 * the newer op id.  The first of a run stays a plain ACK, so one put's
 * answer is the same on the wire as ever.
 */
int tcp_queue_ack(struct tcp_conn *conn, const struct tcp_frame *ack, int runnable)
{
    int event = (ack->flags & TCP_FLAG_EVENT) != 0;
    uint8_t run = runnable ? (uint8_t)(1 + event) : 0;
    if (run && conn->out_head != conn->out_tail) {
        uint64_t seq = conn->out_head - 1;
        struct tcp_out_entry *last = &conn->out[seq % TCP_OUT_SLOTS];
        if (last->ack_run == run && !(seq == conn->out_tail && conn->out_partial > 0) &&
            last->ack_count < TCP_INFLIGHT_PER_PEER) {
            last->ack_count++;
            struct tcp_frame merged = {
                .type = TCP_FRAME_ACK_RUN, .flags = event ? TCP_FLAG_EVENT : 0,
                .op_id = ack->op_id, .length = last->ack_count,
            };
            tcp_frame_encode(&merged, last->hdr);
            return 0;
        }
    }
    struct tcp_out_entry *entry = tcp_queue_reply(conn, ack, TCP_OUT_CONTROL);
    if (entry == NULL)
        return -1;
    entry->ack_run = run;
    entry->ack_count = 1;
    return 0;
}

/* A written (or discarded) entry: its completion event, then it leaves the ring. */
static void out_complete(struct tcp_state *st, struct tcp_conn *conn, struct tcp_out_entry *entry)
{
    if (entry->kind == TCP_OUT_PUT) {
        /* The data is with the kernel: the source buffer may be reused (a counted put's
         * caller knows that already: put returns only now). */
        if (entry->u.op.count_down == NULL)
            ptl_initiator_event(st->ni, &entry->u.op, PTL_EVENT_SEND_END, entry->u.op.length, 0);
        conn->out_requests--;
    } else if (entry->kind == TCP_OUT_COPY) {
        conn->arena_tail = entry->arena_end;
        conn->out_requests--;
    } else if (entry->kind == TCP_OUT_REPLY) {
        const struct tcp_get_served *get = &entry->u.get;
        ptl_target_event(st->ni->region, &get->match, PTL_EVENT_GET_END, (unsigned)conn->rank,
                         get->match_bits, 0, get->rlength, get->pt_index);
    } else if (entry->kind == TCP_OUT_GET) {
        conn->out_requests--;
    }
    conn->out_bytes -= TCP_FRAME_HDR_LEN + entry->data_len;
    conn->out_tail++;
    conn->out_partial = 0;
}

static void add_iov(struct iovec *iov, int *count, const void *base, uint64_t len)
{
    /* Copied frames lie side by side in the arena: one iovec covers them all. */
    if (*count > 0 && (const char *)iov[*count - 1].iov_base + iov[*count - 1].iov_len == base) {
        iov[*count - 1].iov_len += len;
        return;
    }
    iov[(*count)++] = (struct iovec){ (void *)base, len };
}

/* Gathers the queued frames, the first one from where the last write stopped. */
static int gather(struct tcp_conn *conn, struct iovec *iov)
{
    int count = 0;
    uint64_t skip = conn->out_partial;
    uint64_t seq = conn->out_tail;
    for (int frames = 0; seq != conn->out_head && count + 2 <= TCP_WRITE_IOV &&
                         frames < TCP_WRITE_BATCH; seq++, frames++) {
        struct tcp_out_entry *entry = &conn->out[seq % TCP_OUT_SLOTS];
        uint64_t data_len = entry->data_len;
        if (entry->kind == TCP_OUT_COPY) {
            add_iov(iov, &count, (const char *)entry->data + skip,
                    TCP_FRAME_HDR_LEN + data_len - skip);
            skip = 0;
            continue;
        }
        if (skip < TCP_FRAME_HDR_LEN)
            add_iov(iov, &count, entry->hdr + skip, TCP_FRAME_HDR_LEN - skip);
        uint64_t data_skip = skip > TCP_FRAME_HDR_LEN ? skip - TCP_FRAME_HDR_LEN : 0;
        if (data_len > data_skip)
            add_iov(iov, &count, (const char *)entry->data + data_skip, data_len - data_skip);
        skip = 0;
    }
    return count;
}

/* Moves the cursor over n written bytes, completing the entries they finish. */
static void advance(struct tcp_state *st, struct tcp_conn *conn, uint64_t n)
{
    while (n > 0 && conn->out_tail != conn->out_head) {
        struct tcp_out_entry *entry = &conn->out[conn->out_tail % TCP_OUT_SLOTS];
        uint64_t data_len = entry->data_len;
        uint64_t left = TCP_FRAME_HDR_LEN + data_len - conn->out_partial;
        if (n < left) {
            conn->out_partial += n;
            return;
        }
        n -= left;
        conn->frames_written++;
        if (entry->ack_count > 0) {
            conn->acks_written += entry->ack_count;
            conn->ack_frames_written++;
        }
        out_complete(st, conn, entry);
    }
}

int tcp_flush(struct tcp_state *st, struct tcp_conn *conn)
{
    struct iovec iov[TCP_WRITE_IOV];
    while (conn->status == TCP_CONN_UP && conn->out_tail != conn->out_head) {
        struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)gather(conn, iov) };
        ssize_t n = sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            conn->writes++;
            advance(st, conn, (uint64_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
            tcp_want_out(st, conn, 1);
            return 0;
        }
        if (errno == EPIPE || errno == ECONNRESET)
            tcp_conn_gone(st, conn, "the connection was closed or reset while sending");
        else
            tcp_conn_fail(st, conn, "send failed: %s", strerror(errno));
        return -1;
    }
    if (conn->status != TCP_CONN_UP)
        return -1;
    tcp_want_out(st, conn, 0);
    return 0;
}

void tcp_conn_drain(struct tcp_state *st, struct tcp_conn *conn)
{
    /* A peer that left takes what was sent to it, as its memory would on
     * shm: puts still complete (SEND_END) so their resources come back.
     * After a failure the waiting puts return PTL_FAIL instead. */
    while (conn->out_tail != conn->out_head) {
        struct tcp_out_entry *entry = &conn->out[conn->out_tail % TCP_OUT_SLOTS];
        if (entry->kind == TCP_OUT_REPLY)
            entry->kind = TCP_OUT_CONTROL; /* no GET_END: the data never left */
        if (entry->kind == TCP_OUT_PUT && conn->status != TCP_CONN_GONE)
            entry->kind = TCP_OUT_GET;     /* counted as a request, no SEND_END */
        out_complete(st, conn, entry);
    }
    conn->out_partial = 0;
}

/* ---- the initiator side ---------------------------------------------------------- */

/*
 * Waits (with progress) until conn can take a request (and copy_len bytes
 * into its arena, when copy_len > 0) and, for kind != 0, takes the
 * request's operation record (*rec); the connection's status otherwise.
 * What is held back is written first: the room may be there once it is.
 * Caller holds conn->lock (dropped while waiting).
 */
static int wait_for_room(struct tcp_state *st, struct tcp_conn *conn, unsigned kind,
                         const struct nal_op *op, uint64_t copy_len,
                         struct nal_inflight_rec **rec)
{
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (conn->status == TCP_CONN_UP) {
        int no_slot = conn->out_requests >= TCP_OUT_REQUESTS;
        int no_arena = copy_len > 0 && !arena_fits(conn, copy_len);
        /* The record last: it is taken (from the node's budget too) when all else is there. */
        int no_record = 0;
        if (!no_slot && !no_arena && kind != 0) {
            *rec = tcp_record_take(st, conn, kind, op);
            no_record = *rec == NULL;
        }
        if (!no_record && !no_slot && !no_arena)
            break;
        if ((no_slot || no_arena) && conn->out_tail != conn->out_head) {
            uint64_t before = conn->out_tail;
            tcp_flush(st, conn);
            if (conn->out_tail != before)
                continue;
        }
        if (no_record) {
            gp_mutex_lock(&st->small_lock);
            nal_inflight_wait_note(&wait, "tcp", &conn->inflight, conn->rank);
            gp_mutex_unlock(&st->small_lock);
        } else if (no_slot) {
            gp_slow_wait_check(&wait, "tcp", "room to queue requests to rank %d (%d queued)",
                               conn->rank, TCP_OUT_REQUESTS);
        } else {
            gp_slow_wait_check(&wait, "tcp", "room in the send arena to rank %d (%u bytes)",
                               conn->rank, TCP_ARENA_BYTES);
        }
        tcp_wait(st, conn);
    }
    return conn->status;
}

/* The request's record (taken by wait_for_room): its id goes in the request. */
static uint32_t record_op(struct tcp_conn *conn, const struct nal_inflight_rec *rec, unsigned kind)
{
    uint32_t id = nal_inflight_id(&conn->inflight, rec);
    if (kind == TCP_INFLIGHT_PUT) /* ACKs come back in this order (a record bounds the FIFO) */
        conn->ack_fifo[conn->ack_fifo_head++ % TCP_INFLIGHT_PER_PEER] = id;
    return id;
}

static void put_frame(const struct nal_op *op, uint32_t op_id, struct tcp_frame *frame)
{
    *frame = (struct tcp_frame){
        .type = TCP_FRAME_PUT, .flags = op->ack_req == PTL_ACK_REQ ? TCP_FLAG_ACK_REQ : 0,
        .pt_index = op->pt_index, .op_id = op_id, .match_bits = op->match_bits,
        .offset = op->remote_offset, .hdr_data = op->hdr_data, .length = op->length,
    };
}

/* A put to a peer that has left in the job's exit: dropped, as shm would let it
 * land in dead memory.  To one that vanished mid-job, the job ends (tcp_departed). */
static int put_to_departed(struct tcp_state *st, const struct tcp_conn *conn,
                           const struct nal_op *op)
{
    char what[64];
    snprintf(what, sizeof what, "put of %llu bytes to", (unsigned long long)op->length);
    tcp_departed(conn, what);
    if (op->count_down != NULL)
        ptl_count_done(st->ni, op->count_down, 1); /* no ACK will come: as done as it gets */
    else
        ptl_initiator_event(st->ni, op, PTL_EVENT_SEND_END, op->length, 0);
    return PTL_OK;
}

/*
 * A request was just queued: written now if it is the connection's first
 * of this progress pass, or if enough is held back; else it waits for the
 * next pass (the file's comment says why).
 */
static void write_or_hold(struct tcp_state *st, struct tcp_conn *conn, int deferrable)
{
    if (deferrable) {
        /* PTL_*_DEFER: it waits for the next pass, or for the next request written. */
        if (conn->out_bytes >= TCP_DEFER_BYTES || conn->out_head - conn->out_tail >= TCP_DEFER_FRAMES)
            tcp_flush(st, conn);
        else
            tcp_note_dirty(st, conn);
        return;
    }
    uint64_t pass = __atomic_load_n(&st->pass, __ATOMIC_RELAXED);
    if (conn->direct_pass != pass || conn->out_bytes >= TCP_DEFER_BYTES ||
        conn->out_head - conn->out_tail >= TCP_DEFER_FRAMES) {
        conn->direct_pass = pass;
        tcp_flush(st, conn);
    } else {
        tcp_note_dirty(st, conn);
    }
}

int tcp_send_put(struct tcp_state *st, const struct nal_op *op)
{
    struct tcp_conn *conn = &st->conns[op->target];
    unsigned kind = op->ack_req == PTL_ACK_REQ ? TCP_INFLIGHT_PUT : 0;
    int copy = op->length <= TCP_COPY_MAX;
    struct nal_inflight_rec *rec = NULL;
    gp_mutex_lock(&conn->lock);
    if (conn->status == TCP_CONN_NONE && st->lazy)
        tcp_lazy_connect(st, conn);
    int status = wait_for_room(st, conn, kind, op, copy ? op->length : 0, &rec);
    if (status != TCP_CONN_UP) {
        gp_mutex_unlock(&conn->lock);
        tcp_raise_if_failed(st);
        return status == TCP_CONN_GONE ? put_to_departed(st, conn, op) : PTL_FAIL;
    }
    uint32_t op_id = kind != 0 ? record_op(conn, rec, kind) : 0;
    struct tcp_frame frame;
    put_frame(op, op_id, &frame);
    conn->out_requests++;
    if (copy) {
        /* The bytes are in the arena: the source buffer may be reused now. */
        out_push_copy(conn, &frame, op->local_addr, op->length);
        if (op->count_down == NULL)
            ptl_initiator_event(st->ni, op, PTL_EVENT_SEND_END, op->length, 0);
        write_or_hold(st, conn, op->hold);
        gp_mutex_unlock(&conn->lock);
        return PTL_OK;
    }
    uint64_t seq = conn->out_head;
    struct tcp_out_entry *entry = out_push(conn, &frame, TCP_OUT_PUT, op->local_addr, op->length);
    entry->u.op = *op;
    conn->direct_pass = __atomic_load_n(&st->pass, __ATOMIC_RELAXED);
    tcp_flush(st, conn);
    /* Not before the data has left the source buffer. */
    while (conn->out_tail <= seq && conn->status == TCP_CONN_UP)
        tcp_wait(st, conn);
    status = conn->status;
    gp_mutex_unlock(&conn->lock);
    tcp_raise_if_failed(st);
    if (status == TCP_CONN_GONE) { /* under the put: its data may never have left */
        char what[64];
        snprintf(what, sizeof what, "put of %llu bytes to", (unsigned long long)op->length);
        tcp_departed(conn, what);
    }
    return status == TCP_CONN_FAILED ? PTL_FAIL : PTL_OK;
}

int tcp_send_get(struct tcp_state *st, const struct nal_op *op)
{
    struct tcp_conn *conn = &st->conns[op->target];
    struct nal_inflight_rec *rec = NULL;
    gp_mutex_lock(&conn->lock);
    if (conn->status == TCP_CONN_NONE && st->lazy)
        tcp_lazy_connect(st, conn);
    int status = wait_for_room(st, conn, TCP_INFLIGHT_GET, op, 0, &rec);
    if (status == TCP_CONN_UP) {
        uint32_t op_id = record_op(conn, rec, TCP_INFLIGHT_GET);
        struct tcp_frame frame = {
            .type = TCP_FRAME_GET, .pt_index = op->pt_index, .op_id = op_id,
            .match_bits = op->match_bits, .offset = op->remote_offset, .length = op->length,
        };
        out_push(conn, &frame, TCP_OUT_GET, NULL, 0);
        conn->out_requests++;
        write_or_hold(st, conn, 0);
    }
    gp_mutex_unlock(&conn->lock);
    tcp_raise_if_failed(st);
    /* Unlike a put, a get from a peer that left could only wait for ever. */
    if (status == TCP_CONN_GONE) {
        char what[64];
        snprintf(what, sizeof what, "get of %llu bytes from", (unsigned long long)op->length);
        tcp_departed(conn, what);
        gp_error("tcp", "get of %llu bytes from rank %u at %s: it has left the job",
                 (unsigned long long)op->length, op->target, conn->addr_text);
    }
    return status == TCP_CONN_UP ? PTL_OK : PTL_FAIL;
}
