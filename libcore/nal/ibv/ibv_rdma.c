/*
 * RDMA straight into a peer's window: once a peer has told this process
 * (in an ACK or REPLY, ptl_target_window) that an MD is permanent, plain
 * and accepts any match bits -- the RAR segment -- puts become RDMA WRITEs
 * and gets RDMA READs at the region address, with no message and no work
 * on the target's CPU.  The ACK event comes from the send completion: on
 * RC it means the data is placed at the target.  Operations stripe over the
 * peer's QPs (multi-rail) and split where a memory region ends.
 *
 * The local side: memory in the region has the region's keys; other memory
 * is pinned by firehose for the transfer (and, with GP_FIREHOSE_KEEP=1,
 * cached, so the second transfer from a buffer costs nothing), or, when
 * the part is small enough to bounce (GASNET_NONBULKPUT_BOUNCE_LIMIT) and
 * registrations are not kept, with GASNET_USE_FIREHOSE=0, or when firehose
 * cannot pin, copied through 4 KiB bounce buffers part by part.
 *
 * The op itself (its record, its parts counted, its events) is nal/msg/'s
 * msg_window_op (msg_window_op.h), run here over window_ops.
 */
#include <string.h>

#include "nal/ibv/ibv.h"
#include "nal/ibv/ibv_config.h"
#include "nal/msg/msg_window_op.h"
#include "util/log.h"

#define IBV_RDMA_MAX_PART (1ull << 30)

uint64_t ibv_local_key(struct ibv_state *st, unsigned hca, const void *addr, uint64_t len,
                       uint32_t *lkey, uint32_t *rkey, struct firehose_region **pinned)
{
    *pinned = NULL;
    uint64_t covered = ibv_region_keys(st, hca, addr, len, lkey, rkey);
    if (covered > 0)
        return covered;
    struct firehose *fh = st->hca[hca].firehose;
    if (fh == NULL)
        return 0;
    /* A registration made for one transfer and dropped after it costs more
     * than copying a small one through bounce buffers. */
    if (st->set.firehose.drop_idle && len <= st->set.nonbulkput_bounce_limit)
        return 0;
    size_t fh_covered = 0;
    struct firehose_region *region = firehose_acquire(fh, addr, len, &fh_covered);
    if (region == NULL)
        return 0;
    struct ibv_mr *mr = firehose_handle(region);
    *lkey = mr->lkey;
    *rkey = mr->rkey;
    *pinned = region;
    return fh_covered;
}

/* Where region_offset of the peer's region lies, and the bytes to the end of its memory region. */
static uint64_t remote_piece(const struct ibv_peer *peer, uint64_t region_offset,
                             uint64_t *addr, unsigned *piece)
{
    *addr = peer->region_base + region_offset;
    *piece = (unsigned)(region_offset / peer->pin_maxsz);
    return (uint64_t)(*piece + 1) * peer->pin_maxsz - region_offset;
}

/* A window part over the peer's QPs in turn: inline when the whole put fits, else keyed
 * (region, firehose) or through a bounce buffer. */
MSG_WINDOW_INLINE int window_part(void *nic, int rank, struct msg_record *rec,
                       const struct msg_window_xfer *x, uint64_t done, uint64_t *len_inout)
{
    struct ibv_state *st = nic;
    struct ibv_peer *peer = &st->peers[rank];
    enum ibv_wr_opcode opcode = x->is_put ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
    char *local = (char *)rec->rec.op.local_addr + done;
    unsigned q = peer->next_qp++ % peer->nqps;
    unsigned hca = st->port[q % st->nports].hca;
    uint64_t remote_addr;
    unsigned piece;
    uint64_t len = *len_inout;
    uint64_t room = remote_piece(peer, x->region_offset + done, &remote_addr, &piece);
    if (len > room)
        len = room;
    struct ibv_send_ctx *ctx = ibv_sctx_take(st);
    if (ctx == NULL)
        return PTL_FAIL;
    ctx->kind = IBV_SEND_RDMA;
    ctx->op_id = x->id;
    struct ibv_sge sge = { (uint64_t)(uintptr_t)local, 0, 0 };
    struct ibv_send_wr wr = { .opcode = opcode, .sg_list = &sge, .num_sge = 1 };
    int inline_put = x->is_put && (int64_t)len <= st->inline_limit && len == rec->rec.op.length;
    if (inline_put) {
        wr.send_flags = IBV_SEND_INLINE;
    } else {
        uint32_t rkey_unused;
        uint64_t covered = x->bounce ? 0 : ibv_local_key(st, hca, local, len, &sge.lkey,
                                                         &rkey_unused, &ctx->pinned);
        if (covered > 0) {
            len = len < covered ? len : covered;
        } else { /* bounce */
            ctx->bbuf = ibv_bbuf_take(st);
            if (ctx->bbuf < 0) {
                ibv_sctx_put(st, ctx);
                return PTL_FAIL;
            }
            if (len > IBV_BUF_BYTES)
                len = IBV_BUF_BYTES;
            uint8_t *staged = ibv_bbuf_addr(st, ctx->bbuf);
            if (x->is_put) {
                memcpy(staged, local, len);
            } else {
                ctx->copy_to = local;
                ctx->copy_len = len;
            }
            sge.addr = (uint64_t)(uintptr_t)staged;
            sge.lkey = st->hca[hca].bbuf_mr->lkey;
        }
    }
    sge.length = (uint32_t)len;
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = peer->port[q].rkey[piece];
    if (ibv_cfg.ibv_fault_rkey > 0 && ++st->rdma_parts_posted == (uint64_t)ibv_cfg.ibv_fault_rkey)
        wr.wr.rdma.rkey ^= 0x5a5a5a5au; /* GP_IBV_FAULT_RKEY: the failed-completion test */
    rec->parts_left++;
    if (ibv_post_send_wr(st, peer, q, &wr, ctx) != PTL_OK) {
        rec->parts_left--;
        return PTL_FAIL;
    }
    *len_inout = len;
    if (inline_put) { /* the source was copied into the work request */
        rec->rndv = 1;
        ptl_initiator_event(st->ni, &rec->rec.op, PTL_EVENT_SEND_END, len, 0);
    }
    return PTL_OK;
}

/*
 * Up to GASNET_NONBULKPUT_BOUNCE_LIMIT (seed 003's) a put's parts go through bounce buffers;
 * beyond it the put waits for its completions.  A part ends where the peer's memory region
 * does (remote_piece) and at IBV_RDMA_MAX_PART.
 */
MSG_WINDOW_INLINE int window_begin(void *nic, int rank, struct msg_record *rec, struct msg_window_xfer *x)
{
    struct ibv_state *st = nic;
    (void)rank;
    uint64_t length = rec->rec.op.length;
    x->bounce = x->is_put && length > (uint64_t)(st->inline_limit > 0 ? st->inline_limit : 0) &&
                length <= st->set.nonbulkput_bounce_limit;
    x->part_max = IBV_RDMA_MAX_PART;
    st->window_ops++;
    return PTL_OK;
}

static const struct msg_window_ops window_ops = {
    ibv_record_take, ibv_record_release, ibv_record_wait, window_begin, window_part,
};

/* The peer's QPs carry no RDMA until they are connected: messages then. */
static int rdma_op(struct ibv_state *st, const struct nal_op *op, int is_put)
{
    struct ibv_peer *peer = &st->peers[op->target];
    if (peer->nqps == 0)
        return MSG_NO_WINDOW;
    return msg_window_op(&window_ops, &st->proto, peer->window, op, is_put);
}

int ibv_rdma_put(struct ibv_state *st, const struct nal_op *op)
{
    return rdma_op(st, op, 1);
}

int ibv_rdma_get(struct ibv_state *st, const struct nal_op *op)
{
    return rdma_op(st, op, 0);
}

void ibv_rdma_part_done(struct ibv_state *st, struct ibv_send_ctx *ctx)
{
    struct ibv_peer *peer = &st->peers[ctx->peer];
    unsigned hca = st->port[ctx->qp_index % st->nports].hca;
    if (ctx->pinned)
        firehose_release(st->hca[hca].firehose, ctx->pinned);
    if (ctx->copy_to && !peer->failed) /* a bounced get part */
        memcpy(ctx->copy_to, ibv_bbuf_addr(st, ctx->bbuf), ctx->copy_len);
    msg_window_part_done(&window_ops, &st->proto, ctx->peer, &peer->inflight, ctx->op_id,
                         peer->failed);
}
