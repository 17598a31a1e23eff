/*
 * The tcp transport's frame header (doc/wire-tcp.md, "Frames"): its byte
 * layout; ACK_RUN ("Flow of a put"): the frame's encoding and its checks, and how the read path merges ACKs
 * queued back to back (tcp_queue_ack): only runnable ones with the same
 * EVENT flag, never into an entry whose first byte is written, the first
 * of a run a plain ACK; and the receive state ("Reading"): a connection in
 * the middle of a put's body does not keep another's puts from being read,
 * and a small put claims its room in an MD only once it is whole.
 */
#include "../harness/test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nal/tcp/tcp.h"
#include "ptl/ni.h"
#include "ptl/ptl.h"

static struct tcp_frame ack_run(uint32_t op_id, uint64_t count)
{
    return (struct tcp_frame){ .type = TCP_FRAME_ACK_RUN, .flags = TCP_FLAG_EVENT, .op_id = op_id,
                               .length = count };
}

static int decodes(const struct tcp_frame *frame, struct tcp_frame *out, const char **why)
{
    uint8_t hdr[TCP_FRAME_HDR_LEN];
    tcp_frame_encode(frame, hdr);
    *why = NULL;
    return tcp_frame_decode(hdr, out, why);
}

static void test_ack_run_round_trip(void)
{
    struct tcp_frame in = ack_run(0x30007, 5), out;
    const char *why;
    CHECK_EQ(decodes(&in, &out, &why), 0);
    CHECK_EQ(out.type, TCP_FRAME_ACK_RUN);
    CHECK_EQ(out.flags, TCP_FLAG_EVENT);
    CHECK_EQ(out.op_id, 0x30007u);
    CHECK_EQ(out.length, 5u);
    CHECK_STR_CONTAINS(tcp_frame_type_str(TCP_FRAME_ACK_RUN), "ACK_RUN");
}

static void test_ack_run_refused(void)
{
    struct tcp_frame bad[6], out;
    for (int i = 0; i < 6; i++)
        bad[i] = ack_run(0x10001, 4);
    bad[0].length = 1;                       /* a run of one is a plain ACK */
    bad[1].length = TCP_INFLIGHT_PER_PEER + 1;
    bad[2].pt_index = 1;
    bad[3].match_bits = 1;
    bad[4].offset = 8;
    bad[5].hdr_data = 1;
    for (int i = 0; i < 6; i++) {
        const char *why;
        CHECK_EQ(decodes(&bad[i], &out, &why), -1);
        CHECK_STR_CONTAINS(why, "ACK_RUN");
    }
    struct tcp_frame put_flag = ack_run(0x10001, 4);
    put_flag.flags = TCP_FLAG_ACK_REQ; /* a PUT's flag */
    const char *why;
    CHECK_EQ(decodes(&put_flag, &out, &why), -1);
}

/* The wire layout of doc/wire-tcp.md, byte by byte: six little-endian words. */
static void test_header_layout(void)
{
    struct tcp_frame put = { .type = TCP_FRAME_PUT, .flags = TCP_FLAG_ACK_REQ, .pt_index = 0x0a0b0c0d,
                             .op_id = 0x10203, .match_bits = 0x1122334455667788ull,
                             .offset = 0x99, .hdr_data = 0xabcdef, .length = 8 };
    uint8_t hdr[TCP_FRAME_HDR_LEN];
    CHECK_EQ(TCP_FRAME_HDR_LEN, 48);
    tcp_frame_encode(&put, hdr);
    CHECK_EQ(memcmp(hdr, "gpt2", 4), 0);
    CHECK_EQ(hdr[4], TCP_FRAME_PUT);
    CHECK_EQ(hdr[5], TCP_FLAG_ACK_REQ);
    CHECK_EQ(hdr[6] | hdr[7], 0);
    CHECK_EQ(hdr[8], 0x0d);   /* pt_index, low byte first */
    CHECK_EQ(hdr[12], 0x03);  /* op_id */
    CHECK_EQ(hdr[16], 0x88);  /* match_bits */
    CHECK_EQ(hdr[23], 0x11);
    CHECK_EQ(hdr[24], 0x99);  /* offset */
    CHECK_EQ(hdr[32], 0xef);  /* hdr_data */
    CHECK_EQ(hdr[40], 8);     /* length */
    struct tcp_frame out;
    const char *why = NULL;
    CHECK_EQ(tcp_frame_decode(hdr, &out, &why), 0);
    CHECK_EQ(out.pt_index, put.pt_index);
    CHECK_EQ(out.op_id, put.op_id);
    CHECK_EQ(out.match_bits, put.match_bits);
    CHECK_EQ(out.hdr_data, put.hdr_data);
    hdr[7] = 1; /* reserved */
    CHECK_EQ(tcp_frame_decode(hdr, &out, &why), -1);
    CHECK_STR_CONTAINS(why, "reserved");
    hdr[7] = 0;
    hdr[3] = '1'; /* the 56-byte header's magic: an older peer */
    CHECK_EQ(tcp_frame_decode(hdr, &out, &why), -1);
    CHECK_STR_CONTAINS(why, "magic");
}

/* Decodes the header of the queued entry seq. */
static struct tcp_frame queued(const struct tcp_conn *conn, uint64_t seq)
{
    struct tcp_frame frame;
    const char *why = NULL;
    memset(&frame, 0, sizeof frame);
    CHECK_EQ(tcp_frame_decode(conn->out[seq % TCP_OUT_SLOTS].hdr, &frame, &why), 0);
    return frame;
}

static int queue_ack(struct tcp_conn *conn, uint32_t op_id, int event, int runnable)
{
    struct tcp_frame ack = { .type = TCP_FRAME_ACK, .flags = event ? TCP_FLAG_EVENT : 0,
                             .op_id = op_id, .length = 8 };
    return tcp_queue_ack(conn, &ack, runnable);
}

static void test_acks_merge(void)
{
    struct tcp_conn conn;
    memset(&conn, 0, sizeof conn);
    CHECK_EQ(tcp_conn_alloc_queues(&conn, NULL), PTL_OK);
    CHECK_EQ(queue_ack(&conn, 0x10000, 1, 1), 0);
    CHECK_EQ(conn.out_head, 1u);
    CHECK_EQ(queued(&conn, 0).type, TCP_FRAME_ACK);   /* alone: a plain ACK */
    CHECK_EQ(queue_ack(&conn, 0x10001, 1, 1), 0);
    CHECK_EQ(queue_ack(&conn, 0x10002, 1, 1), 0);
    CHECK_EQ(conn.out_head, 1u);                       /* merged into the first entry */
    struct tcp_frame run = queued(&conn, 0);
    CHECK_EQ(run.type, TCP_FRAME_ACK_RUN);
    CHECK_EQ(run.length, 3u);
    CHECK_EQ(run.op_id, 0x10002u);                     /* named by the newest */
    CHECK_EQ(queue_ack(&conn, 0x10003, 0, 1), 0);      /* another EVENT flag: a new entry */
    CHECK_EQ(conn.out_head, 2u);
    CHECK_EQ(queue_ack(&conn, 0x10004, 0, 0), 0);      /* not runnable: its own entry */
    CHECK_EQ(conn.out_head, 3u);
    CHECK_EQ(queued(&conn, 2).type, TCP_FRAME_ACK);
    CHECK_EQ(queued(&conn, 2).length, 8u);
    CHECK_EQ(queue_ack(&conn, 0x10005, 0, 1), 0);      /* after a non-runnable one: new */
    CHECK_EQ(conn.out_head, 4u);
    tcp_conn_free_queues(&conn);
}

static void test_no_merge_into_a_written_entry(void)
{
    struct tcp_conn conn;
    memset(&conn, 0, sizeof conn);
    CHECK_EQ(tcp_conn_alloc_queues(&conn, NULL), PTL_OK);
    CHECK_EQ(queue_ack(&conn, 0x10000, 1, 1), 0);
    conn.out_partial = 10; /* its first bytes are with the kernel */
    CHECK_EQ(queue_ack(&conn, 0x10001, 1, 1), 0);
    CHECK_EQ(conn.out_head, 2u);
    CHECK_EQ(queued(&conn, 0).type, TCP_FRAME_ACK);
    tcp_conn_free_queues(&conn);
}

/* ---- the receive state: one per connection ---------------------------------------- */

#define RX_SEGMENT 8192

static ptl_handle_eq_t rx_eq;

/* A tcp state over a one-process NI whose segment (pt 0) takes puts: anywhere
 * (remotely managed), or one after the other (locally managed, like the ReqRB);
 * its events go to rx_eq. */
static struct tcp_state *rx_state(struct ptl_ni **ni_out, uint8_t **segment_out, int local)
{
    struct ptl_ni_params params = { .transport = "loop", .max_pt = 1, .max_me_per_pt = 1,
                                    .max_eq = 1, .max_md = 4,
                                    .region_bytes = RX_SEGMENT + ptl_eq_bytes(64) + 4096 };
    struct ptl_ni *ni;
    CHECK_EQ(ptl_ni_init(&params, &ni), PTL_OK);
    CHECK_EQ(ptl_eq_alloc(ni, 64, &rx_eq), PTL_OK);
    uint8_t *segment = ptl_region_alloc(ni, RX_SEGMENT, 64);
    CHECK(segment != NULL);
    struct ptl_md_desc desc = { .start = segment, .length = RX_SEGMENT,
                                .threshold = PTL_MD_THRESH_INF, .max_size = local ? 1024 : 0,
                                .options = PTL_MD_OP_PUT | (local ? 0 : PTL_MD_MANAGE_REMOTE),
                                .eq = rx_eq };
    ptl_handle_md_t md;
    CHECK_EQ(ptl_md_attach(ni, 0, 0, 0, &desc, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE,
                           &md), PTL_OK);
    struct tcp_state *st = tcp_state_new(&ni->base);
    CHECK(st != NULL);
    st->conns = calloc(2, sizeof *st->conns);
    st->scratch = malloc(TCP_SCRATCH_BYTES);
    CHECK(st->conns != NULL && st->scratch != NULL);
    *ni_out = ni;
    *segment_out = segment;
    return st;
}

/* Connection rank, up, over a socket pair; returns the peer's end. */
static int rx_conn(struct tcp_state *st, int rank)
{
    int fds[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    struct tcp_conn *conn = &st->conns[rank];
    conn->rank = rank;
    CHECK_EQ(tcp_conn_alloc_queues(conn, NULL), PTL_OK);
    conn->fd = fds[0];
    conn->status = TCP_CONN_UP;
    return fds[1];
}

/* A put of length bytes to offset in the segment: its header, then body[from, to). */
static void rx_send_put(int fd, uint64_t offset, const uint8_t *body, uint64_t length,
                        uint64_t from, uint64_t to)
{
    if (from == 0) {
        struct tcp_frame put = { .type = TCP_FRAME_PUT, .offset = offset, .length = length };
        uint8_t hdr[TCP_FRAME_HDR_LEN];
        tcp_frame_encode(&put, hdr);
        CHECK_EQ(write(fd, hdr, sizeof hdr), (ssize_t)sizeof hdr);
    }
    CHECK_EQ(write(fd, body + from, to - from), (ssize_t)(to - from));
}

static void test_recv_mid_body_stalls_no_other(void)
{
    struct ptl_ni *ni;
    uint8_t *segment;
    struct tcp_state *st = rx_state(&ni, &segment, 0);
    int stalled = rx_conn(st, 0), other = rx_conn(st, 1);
    uint8_t big[4096], small[64];
    for (unsigned i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7 + 3);
    memset(small, 0xa5, sizeof small);
    /* Rank 0's put stops half way through its body. */
    rx_send_put(stalled, 0, big, sizeof big, 0, sizeof big / 2);
    tcp_recv(st, &st->conns[0]);
    CHECK(st->conns[0].rx.in_body);
    CHECK_EQ(memcmp(segment, big, sizeof big / 2), 0);
    CHECK_EQ(segment[sizeof big / 2], 0);
    /* Rank 1's puts are read and in place meanwhile, whole. */
    for (unsigned k = 0; k < 3; k++) {
        rx_send_put(other, 6000 + 64 * k, small, sizeof small, 0, sizeof small);
        tcp_recv(st, &st->conns[1]);
        CHECK_EQ(st->conns[1].status, TCP_CONN_UP);
        CHECK(!st->conns[1].rx.in_body);
        CHECK_EQ(memcmp(segment + 6000 + 64 * k, small, sizeof small), 0);
    }
    /* Rank 0 goes on where it stopped. */
    rx_send_put(stalled, 0, big, sizeof big, sizeof big / 2, sizeof big);
    tcp_recv(st, &st->conns[0]);
    CHECK(!st->conns[0].rx.in_body);
    CHECK_EQ(memcmp(segment, big, sizeof big), 0);
    CHECK_EQ(st->conns[0].status, TCP_CONN_UP);
    close(stalled);
    close(other);
}

/* The next PUT_END on rx_eq: who sent it and where in the MD it went. */
static void rx_expect_put_end(struct ptl_ni *ni, unsigned initiator, uint64_t offset)
{
    struct ptl_event event;
    CHECK_EQ(ptl_eq_get(ni, rx_eq, &event), PTL_OK);
    CHECK_EQ(event.type, PTL_EVENT_PUT_END);
    CHECK_EQ(event.initiator, initiator);
    CHECK_EQ(event.offset, offset);
}

/*
 * A small put half in claims nothing yet: a locally managed MD gives its
 * room to the put that is whole first, and the events come in the order
 * of the claims.
 */
static void test_recv_small_put_claims_when_whole(void)
{
    struct ptl_ni *ni;
    uint8_t *segment;
    struct tcp_state *st = rx_state(&ni, &segment, 1);
    int stalled = rx_conn(st, 0), other = rx_conn(st, 1);
    uint8_t first[512], second[512];
    memset(first, 0x11, sizeof first);
    memset(second, 0x22, sizeof second);
    rx_send_put(stalled, 0, first, sizeof first, 0, sizeof first / 2);
    tcp_recv(st, &st->conns[0]);
    CHECK(!st->conns[0].rx.in_body); /* still waiting for its whole body */
    struct ptl_event none;
    CHECK_EQ(ptl_eq_get(ni, rx_eq, &none), PTL_EQ_EMPTY);
    rx_send_put(other, 0, second, sizeof second, 0, sizeof second);
    tcp_recv(st, &st->conns[1]);
    rx_expect_put_end(ni, 1, 0);
    CHECK_EQ(memcmp(segment, second, sizeof second), 0);
    rx_send_put(stalled, 0, first, sizeof first, sizeof first / 2, sizeof first);
    tcp_recv(st, &st->conns[0]);
    rx_expect_put_end(ni, 0, sizeof second);
    CHECK_EQ(memcmp(segment + sizeof second, first, sizeof first), 0);
    CHECK_EQ(st->conns[0].status, TCP_CONN_UP);
    CHECK_EQ(st->conns[1].status, TCP_CONN_UP);
    close(stalled);
    close(other);
}

static const struct gp_test tests[] = {
    { "header_layout", test_header_layout, 0 },
    { "ack_run_round_trip", test_ack_run_round_trip, 0 },
    { "ack_run_refused", test_ack_run_refused, 0 },
    { "acks_merge", test_acks_merge, 0 },
    { "no_merge_into_a_written_entry", test_no_merge_into_a_written_entry, 0 },
    { "recv_mid_body_stalls_no_other", test_recv_mid_body_stalls_no_other, 0 },
    { "recv_small_put_claims_when_whole", test_recv_small_put_claims_when_whole, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "tcp_frame", tests);
}
