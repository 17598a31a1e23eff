/*
 * libFuzzer target: bytes from a hostile peer into the tcp transport's
 * receive path (tcp_recv), after the key proof -- the point where a peer
 * holding the key, or a bug, can send anything.
 *
 * Each input is what a connection delivers: frame headers (decoded and
 * checked by tcp_frame_decode), PUT bodies matched against real MDs (a
 * remotely managed segment with a threshold-free MD, a locally managed
 * ReqRB-like MD that truncates), GET requests answered from the region,
 * ACKs, ACK_RUNs and REPLYs naming in-flight ops that don't exist, and
 * four puts that are in flight (ids 0x10000..0x10003, in the ACK FIFO),
 * so that ACKs and ACK_RUNs also meet live records, in and out of order.  What must hold:
 * no access outside the region (AddressSanitizer watches), no undefined
 * behaviour, bytes matched into the segment only within it, and each
 * connection's receive state its own: two connections carry the stream in
 * turns, each stopped in the middle of a frame while the other is read, and
 * at the end of the stream each is served to its close.  A connection is
 * either gone at the end or failed with a message; both are fine.
 *
 *   make fuzz && build-fuzz/fuzz_tcp_recv -max_total_time=60 tests/fuzz/corpus/fuzz_tcp_recv
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nal/tcp/tcp.h"
#include "ptl/ni.h"
#include "ptl/ptl.h"
#include "util/log.h"

#define SEGMENT_BYTES 65536
#define REQRB_BYTES 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct ptl_ni *ni;
static struct tcp_state *st;
static ptl_handle_eq_t eq;
static uint8_t *segment;
static ptl_handle_md_t source_md;

#define LIVE_PUTS 4

static void attach(unsigned pt, void *start, uint64_t length, uint64_t max_size, unsigned options)
{
    struct ptl_md_desc desc = { .start = start, .length = length, .threshold = PTL_MD_THRESH_INF,
                                .max_size = max_size, .options = options, .eq = eq };
    ptl_handle_md_t md;
    if (ptl_md_attach(ni, pt, 0, 0, &desc, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE,
                      &md) != PTL_OK)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    gp_log_threshold = -1; /* failed connections are expected here, by the million */
    struct ptl_ni_params params = {
        .transport = "loop", .max_pt = 2, .max_me_per_pt = 4, .max_eq = 1, .max_md = 16,
        .region_bytes = SEGMENT_BYTES + REQRB_BYTES + ptl_eq_bytes(1024) + 4096,
    };
    if (ptl_ni_init(&params, &ni) != PTL_OK || ptl_eq_alloc(ni, 1024, &eq) != PTL_OK)
        abort();
    segment = ptl_region_alloc(ni, SEGMENT_BYTES, 64);
    uint8_t *reqrb = ptl_region_alloc(ni, REQRB_BYTES, 64);
    if (segment == NULL || reqrb == NULL)
        abort();
    attach(0, segment, SEGMENT_BYTES, 0, PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE);
    attach(1, reqrb, REQRB_BYTES, 1024, PTL_MD_OP_PUT | PTL_MD_TRUNCATE);
    struct ptl_md_desc source = { .start = segment, .length = 64, .threshold = PTL_MD_THRESH_INF,
                                  .options = 0, .eq = eq };
    if (ptl_md_bind(ni, &source, &source_md) != PTL_OK)
        abort();
    st = tcp_state_new(&ni->base);
    st->conns = calloc(2, sizeof *st->conns);
    st->scratch = malloc(TCP_SCRATCH_BYTES);
    if (st == NULL || st->conns == NULL || st->scratch == NULL)
        abort();
    return 0;
}

/* A connection to rank, up, with LIVE_PUTS puts awaiting their ACKs, as tcp_send_put
 * leaves them (ids 0x10000 + i); *writer is the peer's end. */
static struct tcp_conn *open_conn(int rank, int *writer)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
        abort();
    struct tcp_conn *conn = &st->conns[rank];
    memset(conn, 0, sizeof *conn);
    conn->rank = rank;
    snprintf(conn->addr_text, sizeof conn->addr_text, "fuzz%d", rank);
    if (tcp_conn_alloc_queues(conn, NULL) != PTL_OK)
        abort();
    conn->fd = fds[0];
    conn->status = TCP_CONN_UP;
    for (int i = 0; i < LIVE_PUTS; i++) {
        struct nal_op op = { .length = 8, .remote_offset = 8u * (unsigned)i, .md = source_md,
                             .md_local = ptl_md_lookup(ni, source_md), .ack_req = PTL_ACK_REQ };
        struct nal_inflight_rec *rec = nal_inflight_take(&conn->inflight, 1, &op);
        if (rec == NULL)
            abort();
        conn->ack_fifo[conn->ack_fifo_head++] = nal_inflight_id(&conn->inflight, rec);
    }
    *writer = fds[1];
    return conn;
}

/* Delivers up to len more bytes of the stream to conn and reads them; returns how
 * many were delivered (0 once the connection is down or its socket is full). */
static size_t feed(struct tcp_conn *conn, int writer, const uint8_t *data, size_t len)
{
    if (conn->status != TCP_CONN_UP || len == 0)
        return 0;
    ssize_t n = write(writer, data, len);
    if (n <= 0)
        return 0;
    tcp_recv(st, conn);
    return (size_t)n;
}

/* The end of the stream: what is staged is served, then the close is seen.  A
 * connection still up after that many passes is stuck in some state. */
static void finish(struct tcp_conn *conn, int writer)
{
    close(writer);
    for (int pass = 0; conn->status == TCP_CONN_UP; pass++) {
        if (pass > 100000)
            abort();
        tcp_recv(st, conn);
    }
    if (conn->fd >= 0)
        close(conn->fd);
    conn->fd = -1;
    tcp_conn_free_queues(conn);
}

/*
 * Two connections carry the same stream, delivered in turns in pieces of a
 * size the last byte chooses (the seeds stay whole streams), the second
 * half a piece behind the first: each is read while the other is in the
 * middle of a frame -- a header, a put's body, a reply's -- and neither may
 * wait for the other.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 200000)
        return 0;
    uint8_t choice = data[size - 1];
    size_t piece = choice < 16 ? 1u + choice : 64u * choice;
    int writer[2];
    struct tcp_conn *conn[2] = { open_conn(0, &writer[0]), open_conn(1, &writer[1]) };
    size_t done[2] = { 0, 0 };
    size_t lag = piece / 2;
    done[1] += feed(conn[1], writer[1], data, lag < size ? lag : size);
    for (int moved = 1; moved;) {
        moved = 0;
        for (int c = 0; c < 2; c++) {
            size_t left = size - done[c];
            size_t n = feed(conn[c], writer[c], data + done[c], left < piece ? left : piece);
            done[c] += n;
            moved |= n > 0;
        }
    }
    finish(conn[0], writer[0]);
    finish(conn[1], writer[1]);
    struct ptl_event event;
    while (ptl_eq_get(ni, eq, &event) != PTL_EQ_EMPTY)
        if (event.type == PTL_EVENT_PUT_END && event.offset + event.mlength > SEGMENT_BYTES &&
            event.md_start == segment)
            abort(); /* a put reported past the end of the segment */
    return 0;
}
