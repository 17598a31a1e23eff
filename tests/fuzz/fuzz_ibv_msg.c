/*
 * libFuzzer target: messages from a hostile (or buggy) peer into the ibv
 * transport's message decoder -- request headers matched against real MDs,
 * ACKs and REPLYs naming operation records, credits -- with no device.
 *
 * The verbs calls the decoder makes go through the QP's, SRQ's and CQ's
 * context ops (ibv_post_send, ibv_post_srq_recv, ibv_poll_cq are inline
 * dispatches), so a fake context stands in for the HCA: a posted send
 * completes at the next poll (no bytes move: a rendezvous read or a get's
 * write "succeeds"), a buffer posted to the shared receive queue waits for
 * the next message of the input, and the receive CQ hands the input's
 * messages over as completions into those buffers, naming the sender's QP
 * as rxe does, exactly as ibv_cq_poll would see them.  The SRQ is small
 * (GASNET_RBUF_COUNT=16), so credits, answers posted on demand and a dry
 * SRQ (the message is dropped here: RNR) all happen.
 *
 * Each input is a job of 3 where this process is rank 0 and has, before the
 * first message, a put with an ACK wanted and a get in flight to rank 1, and
 * a get in flight to rank 2 (op ids 0x00010000, 0x00010001 to rank 1 and
 * 0x00010000 to rank 2), so answers can name live records as well as stale
 * and out-of-range ones.  Then records, each: one byte (the sending peer, 1
 * or 2 by its low bit), two bytes of length (little-endian, at most 4096),
 * the message.  What must hold: no access outside what was allocated
 * (AddressSanitizer), no undefined behaviour, an answer only ever takes a
 * record of its own peer, and PUT_END never reports past the segment.  A
 * peer that breaks the protocol fails the job with a message: fine.
 *
 *   make fuzz && build-fuzz/fuzz_ibv_msg -max_total_time=60 tests/fuzz/corpus/fuzz_ibv_msg
 *   (FUZZ_IBV_VERBOSE=1 prints the error each failing input provokes)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nal/ibv/ibv.h"
#include "ptl/ni.h"
#include "ptl/ptl.h"
#include "util/log.h"

#define SEGMENT_BYTES 65536
#define REQRB_BYTES 8192
#define LOCAL_BYTES 8192
#define JOB_SIZE 3
#define MAX_POSTED 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct ptl_ni *ni;
static ptl_handle_eq_t eq;
static uint8_t *segment;
static uint8_t local_buf[LOCAL_BYTES];
static ptl_handle_md_t local_md;

/* ---- the fake HCA ------------------------------------------------------------------ */

static struct {
    uint64_t send_wr_id[MAX_POSTED];     /* posted sends, completed at the next poll */
    unsigned sends;
    uint8_t *recv_posted;                /* [rbuf_count]: the buffer is on the SRQ */
    unsigned recv_count;                 /* how many are */
    const uint8_t *in;                   /* the input's messages not delivered yet */
    size_t in_left;
    struct ibv_state *st;
} hca_fake;

static struct ibv_qp qp_fake[JOB_SIZE];

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    (void)qp;
    for (; wr != NULL; wr = wr->next) {
        if (hca_fake.sends == MAX_POSTED) {
            *bad = wr;
            return 12; /* ENOMEM: the caller reports it */
        }
        hca_fake.send_wr_id[hca_fake.sends++] = wr->wr_id;
    }
    return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    (void)srq;
    for (; wr != NULL; wr = wr->next) {
        if (wr->wr_id >= hca_fake.st->rbuf_count || hca_fake.recv_posted[wr->wr_id]) {
            *bad = wr; /* a buffer posted twice, or none of ours: the transport lost count */
            abort();
        }
        hca_fake.recv_posted[wr->wr_id] = 1;
        hca_fake.recv_count++;
    }
    return 0;
}

/* The lowest buffer on the SRQ, or -1: the SRQ is dry, the message must wait (dropped here). */
static long posted_buffer(const struct ibv_state *st)
{
    for (size_t i = 0; i < st->rbuf_count; i++)
        if (hca_fake.recv_posted[i])
            return (long)i;
    return -1;
}

static int poll_recv(struct ibv_wc *wc)
{
    struct ibv_state *st = hca_fake.st;
    while (hca_fake.in_left >= 3) {
        int rank = 1 + (hca_fake.in[0] & 1);
        size_t len = (size_t)hca_fake.in[1] | (size_t)hca_fake.in[2] << 8;
        if (len > IBV_BUF_BYTES)
            len = IBV_BUF_BYTES;
        if (len > hca_fake.in_left - 3)
            len = hca_fake.in_left - 3;
        const uint8_t *msg = hca_fake.in + 3;
        hca_fake.in += 3 + len;
        hca_fake.in_left -= 3 + len;
        long index = posted_buffer(st);
        if (index < 0)
            continue; /* every buffer is in use: RNR, the message never came */
        hca_fake.recv_posted[index] = 0;
        hca_fake.recv_count--;
        memcpy(ibv_rbuf_addr(st, (uint32_t)index), msg, len);
        *wc = (struct ibv_wc){ .wr_id = (uint64_t)index, .status = IBV_WC_SUCCESS,
                               .opcode = IBV_WC_RECV, .byte_len = (uint32_t)len,
                               .qp_num = qp_fake[rank].qp_num };
        return 1;
    }
    return 0;
}

static struct ibv_cq send_cq_fake, recv_cq_fake;

static int fake_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
    if (cq == &recv_cq_fake)
        return num > 0 ? poll_recv(wc) : 0;
    int n = 0;
    while (n < num && hca_fake.sends > 0) {
        /* In posting order: RC completes a QP's sends in order. */
        wc[n] = (struct ibv_wc){ .wr_id = hca_fake.send_wr_id[0], .status = IBV_WC_SUCCESS };
        memmove(hca_fake.send_wr_id, hca_fake.send_wr_id + 1,
                --hca_fake.sends * sizeof hca_fake.send_wr_id[0]);
        n++;
    }
    return n;
}

static struct ibv_context context_fake;
static struct ibv_srq srq_fake;
static struct ibv_mr mr_fake;

/* ---- a state with no device ------------------------------------------------------- */

static struct ibv_state *state_new(void)
{
    struct ibv_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        abort();
    st->ni = &ni->base;
    /* as ibv_state_participant: the shared protocol reaches the transport through its table */
    st->proto = (struct msg_proto){ &ni->base, "ibv", 1, IBV_EAGER_BYTES, &ibv_msg_nic, st,
                                    &st->fatal };
    gp_mutex_init(&st->lock);
    st->nhcas = 1;
    st->nports = 1;
    st->nqps = 1;
    st->inline_limit = 64;
    st->inflight_per_peer = 4;
    st->budget.cap = 6;
    st->set.am_credits_pp = 4;
    st->set.am_credits_total = 8;
    st->set.rbuf_count = 16;   /* ibv_srq_size: 6 for answers, 4 for credits, 3 credits a peer */
    st->sq_depth = 16;
    st->send_cq_depth = 24;
    st->bbuf_count = 16;
    st->set.am_credits_slack = 1;
    st->set.nonbulkput_bounce_limit = 65536;
    st->hca[0].send_cq = &send_cq_fake;
    st->hca[0].recv_cq = &recv_cq_fake;
    st->hca[0].srq = &srq_fake;
    st->hca[0].bbuf_mr = &mr_fake;
    st->hca[0].rbuf_mr = &mr_fake;
    st->hca[0].region_mr[0] = &mr_fake;
    st->hca[0].region_mrs = 1;
    if (ibv_state_alloc_peers(st) != PTL_OK)
        abort();
    st->rbuf = calloc(st->rbuf_count, IBV_BUF_BYTES);
    st->bbuf = calloc(st->bbuf_count, IBV_BUF_BYTES);
    hca_fake.recv_posted = calloc(st->rbuf_count, 1);
    if (st->rbuf == NULL || st->bbuf == NULL || hca_fake.recv_posted == NULL)
        abort();
    for (int rank = 1; rank < JOB_SIZE; rank++) {
        st->peers[rank].nqps = 1;
        st->peers[rank].qp[0] = &qp_fake[rank];
    }
    hca_fake.st = st;
    hca_fake.sends = 0;
    hca_fake.recv_count = 0;
    if (ibv_srq_map_qps(st) != PTL_OK || ibv_srq_refill(st) != PTL_OK)
        abort();
    return st;
}

static void state_free(struct ibv_state *st)
{
    for (int rank = 0; rank < JOB_SIZE; rank++) {
        struct ibv_peer *peer = &st->peers[rank];
        /* What is still in flight goes with the table; every record of a peer is its own. */
        for (unsigned i = 0; peer->inflight.records != NULL && i < peer->inflight.depth; i++) {
            struct ibv_inflight *slot = (struct ibv_inflight *)nal_inflight_at(&peer->inflight, i);
            if (slot->m.rec.kind != NAL_INFLIGHT_FREE && slot->m.rec.op.target != (unsigned)rank)
                abort(); /* a record reached through another peer's table */
        }
    }
    ibv_state_free_peers(st); /* what was still in flight goes back to the budget */
    if (st->budget.in_use != 0)
        abort(); /* the tables' count and the node's budget disagree */
    free(st->rbuf);
    free(st->bbuf);
    free(hca_fake.recv_posted);
    hca_fake.recv_posted = NULL;
    gp_mutex_destroy(&st->lock);
    free(st);
}

static struct nal_op local_op(unsigned target, uint64_t offset, uint64_t length, int ack)
{
    return (struct nal_op){ .target = target, .pt_index = 0, .match_bits = 0,
                            .remote_offset = offset, .length = length,
                            .local_addr = local_buf + offset, .local_offset = offset,
                            .md = local_md, .md_local = ptl_md_lookup(ni, local_md),
                            .ack_req = ack ? PTL_ACK_REQ : PTL_NOACK_REQ };
}

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
    gp_log_threshold = -1; /* failed peers are expected here, by the million */
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
    struct ptl_md_desc desc = { .start = local_buf, .length = LOCAL_BYTES,
                                .threshold = PTL_MD_THRESH_INF, .eq = eq };
    if (ptl_md_bind(ni, &desc, &local_md) != PTL_OK)
        abort();
    /* The job as the transport sees it: this process is rank 0 of 3. */
    ni->base.rank = 0;
    ni->base.size = JOB_SIZE;
    context_fake.ops.post_send = fake_post_send;
    context_fake.ops.post_srq_recv = fake_post_srq_recv;
    srq_fake.context = &context_fake;
    context_fake.ops.poll_cq = fake_poll_cq;
    send_cq_fake.context = &context_fake;
    recv_cq_fake.context = &context_fake;
    for (int rank = 0; rank < JOB_SIZE; rank++) {
        qp_fake[rank].context = &context_fake;
        qp_fake[rank].qp_num = 0x100 + (uint32_t)rank;
    }
    mr_fake.lkey = mr_fake.rkey = 0x1234;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 200000)
        return 0;
    struct ibv_state *st = state_new();
    /* Operations in flight for answers to name (small: no rendezvous, nothing waits). */
    struct nal_op put = local_op(1, 0, 64, 1), get1 = local_op(1, 1024, 256, 0),
                  get2 = local_op(2, 2048, 512, 0);
    if (ibv_msg_put(st, &put) != PTL_OK || ibv_msg_get(st, &get1) != PTL_OK ||
        ibv_msg_get(st, &get2) != PTL_OK)
        abort();
    hca_fake.in = data;
    hca_fake.in_left = size;
    /* Progress as the application would make it, until the input is used up. */
    for (int idle = 0; idle < 4 && !st->fatal.pending;) {
        ibv_msg_flush_credits(st);
        idle = ibv_cq_poll(st) == 0 ? idle + 1 : 0;
    }
    /* Sends still posted complete (or flush, after a failure) before the state goes. */
    while (hca_fake.sends > 0)
        ibv_cq_poll(st);
    hca_fake.in_left = 0;
    /* The SRQ's count is the fake's; with the peers well, every buffer is posted or free. */
    if (hca_fake.recv_count != st->srq_posted ||
        (!st->fatal.pending && st->srq_posted + st->rbuf_free_count != st->rbuf_count))
        abort();
    if (st->fatal.pending && getenv("FUZZ_IBV_VERBOSE") != NULL) /* what a seed provokes */
        fprintf(stderr, "fuzz_ibv_msg: %s\n", st->fatal.text);
    state_free(st);
    struct ptl_event event;
    while (ptl_eq_get(ni, eq, &event) != PTL_EQ_EMPTY)
        if (event.type == PTL_EVENT_PUT_END && event.md_start == segment &&
            event.offset + event.mlength > SEGMENT_BYTES)
            abort(); /* a put reported past the end of the segment */
    return 0;
}
