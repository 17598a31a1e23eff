/*
 * libFuzzer target: bytes from a hostile peer into the tcp transport's
 * receive path (tcp_recv), after the key proof -- the point where a peer
 * holding the key, or a bug, can send anything.
 *
 * Each input is what one connection delivers: frame headers (decoded and
 * checked by tcp_frame_decode), PUT bodies matched against real MDs (a
 * remotely managed segment with a threshold-free MD, a locally managed
 * ReqRB-like MD that truncates), GET requests answered from the region,
 * ACKs, ACK_RUNs and REPLYs naming in-flight ops that don't exist, and
 * four puts that are in flight (ids 0x10000..0x10003, in the ACK FIFO),
 * so that ACKs and ACK_RUNs also meet live records, in and out of order.  What must hold:
 * no access outside the region (AddressSanitizer watches), no undefined
 * behaviour, and bytes matched into the segment only within it.  The
 * connection either stays up or is failed with a message; both are fine.
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
    st->conns = calloc(1, sizeof *st->conns);
    st->scratch = malloc(TCP_SCRATCH_BYTES);
    if (st == NULL || st->conns == NULL || st->scratch == NULL)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fds[2];
    if (size > 200000 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
        return 0;
    struct tcp_conn *conn = &st->conns[0];
    memset(conn, 0, sizeof *conn);
    conn->rank = 0;
    snprintf(conn->addr_text, sizeof conn->addr_text, "fuzz");
    if (tcp_conn_alloc_queues(conn, NULL) != PTL_OK)
        abort();
    conn->fd = fds[0];
    conn->status = TCP_CONN_UP;
    /* Puts awaiting their ACKs, as tcp_send_put leaves them (ids 0x10000 + i). */
    for (int i = 0; i < LIVE_PUTS; i++) {
        struct nal_op op = { .length = 8, .remote_offset = 8u * (unsigned)i, .md = source_md,
                             .md_local = ptl_md_lookup(ni, source_md), .ack_req = PTL_ACK_REQ };
        struct nal_inflight_rec *rec = nal_inflight_take(&conn->inflight, 1, &op);
        if (rec == NULL)
            abort();
        conn->ack_fifo[conn->ack_fifo_head++] = nal_inflight_id(&conn->inflight, rec);
    }
    st->put_body_rank = -1;
    /* Feed in pieces, as a socket would deliver them, reading between. */
    size_t done = 0;
    while (done < size && conn->status == TCP_CONN_UP) {
        ssize_t n = write(fds[1], data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
        tcp_recv(st, conn);
    }
    close(fds[1]);
    if (conn->status == TCP_CONN_UP)
        tcp_recv(st, conn); /* the end of the stream */
    if (conn->fd >= 0)
        close(conn->fd);
    conn->fd = -1;
    tcp_conn_free_queues(conn);
    struct ptl_event event;
    while (ptl_eq_get(ni, eq, &event) != PTL_EQ_EMPTY)
        if (event.type == PTL_EVENT_PUT_END && event.offset + event.mlength > SEGMENT_BYTES &&
            event.md_start == segment)
            abort(); /* a put reported past the end of the segment */
    return 0;
}
