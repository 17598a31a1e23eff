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
 */
#include <string.h>

#include "nal/ibv/ibv.h"
#include "nal/ibv/ibv_config.h"
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

/* Where remote_offset of the peer's window lies, and the bytes to the end of its memory region. */
static uint64_t remote_piece(const struct ibv_peer *peer, const struct msg_window *win,
                             uint64_t remote_offset, uint64_t *addr, unsigned *piece)
{
    uint64_t region_offset = win->region_offset + remote_offset;
    *addr = peer->region_base + region_offset;
    *piece = (unsigned)(region_offset / peer->pin_maxsz);
    return (uint64_t)(*piece + 1) * peer->pin_maxsz - region_offset;
}

static void finish(struct ibv_state *st, struct ibv_peer *peer, struct ibv_inflight *slot)
{
    /* rndv here means "SEND_END already posted" (inline) */
    if (!slot->failed)
        msg_window_op_done(st->ni, &slot->rec.op, slot->rec.kind == IBV_OP_RDMA_PUT, slot->rndv);
    ibv_inflight_release(st, peer, slot);
}

void ibv_rdma_part_done(struct ibv_state *st, struct ibv_send_ctx *ctx)
{
    struct ibv_peer *peer = &st->peers[ctx->peer];
    unsigned hca = st->port[ctx->qp_index % st->nports].hca;
    if (ctx->pinned)
        firehose_release(st->hca[hca].firehose, ctx->pinned);
    if (ctx->copy_to && !peer->failed) /* a bounced get part */
        memcpy(ctx->copy_to, ibv_bbuf_addr(st, ctx->bbuf), ctx->copy_len);
    const char *why;
    struct ibv_inflight *slot =
        (struct ibv_inflight *)nal_inflight_find(&peer->inflight, ctx->op_id, NAL_INFLIGHT_FREE, &why);
    if (slot == NULL || (slot->rec.kind != IBV_OP_RDMA_PUT && slot->rec.kind != IBV_OP_RDMA_GET))
        return;
    if (peer->failed)
        slot->failed = 1;
    if (--slot->parts_left == 0)
        finish(st, peer, slot);
}

/* Posts one part; PTL_OK or PTL_FAIL (the context is given back either way on failure). */
static int post_part(struct ibv_state *st, struct ibv_peer *peer, struct ibv_inflight *slot,
                     enum ibv_wr_opcode opcode, char *local, uint64_t remote_offset,
                     const struct msg_window *win, int bounce, uint64_t *len_inout)
{
    unsigned q = peer->next_qp++ % peer->nqps;
    unsigned hca = st->port[q % st->nports].hca;
    uint64_t remote_addr;
    unsigned piece;
    uint64_t len = *len_inout;
    uint64_t room = remote_piece(peer, win, remote_offset, &remote_addr, &piece);
    if (len > room)
        len = room;
    if (len > IBV_RDMA_MAX_PART)
        len = IBV_RDMA_MAX_PART;
    struct ibv_send_ctx *ctx = ibv_sctx_take(st);
    if (ctx == NULL)
        return PTL_FAIL;
    ctx->kind = IBV_SEND_RDMA;
    ctx->op_id = ibv_inflight_id(peer, slot);
    struct ibv_sge sge = { (uint64_t)(uintptr_t)local, 0, 0 };
    struct ibv_send_wr wr = { .opcode = opcode, .sg_list = &sge, .num_sge = 1 };
    int inline_put = opcode == IBV_WR_RDMA_WRITE && (int64_t)len <= st->inline_limit &&
                     len == slot->rec.op.length;
    if (inline_put) {
        wr.send_flags = IBV_SEND_INLINE;
    } else {
        uint32_t rkey_unused;
        uint64_t covered = bounce ? 0 : ibv_local_key(st, hca, local, len, &sge.lkey, &rkey_unused,
                                                      &ctx->pinned);
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
            if (opcode == IBV_WR_RDMA_WRITE) {
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
    slot->parts_left++;
    if (ibv_post_send_wr(st, peer, q, &wr, ctx) != PTL_OK) {
        slot->parts_left--;
        return PTL_FAIL;
    }
    *len_inout = len;
    if (inline_put) { /* the source was copied into the work request */
        slot->rndv = 1;
        ptl_initiator_event(st->ni, &slot->rec.op, PTL_EVENT_SEND_END, len, 0);
    }
    return PTL_OK;
}

static int rdma_op(struct ibv_state *st, const struct nal_op *op, unsigned kind,
                   enum ibv_wr_opcode opcode)
{
    struct ibv_peer *peer = &st->peers[op->target];
    const struct msg_window *win = msg_window_for(peer->window, op);
    if (win == NULL || peer->nqps == 0)
        return 1;
    if (peer->failed)
        return PTL_FAIL;
    struct ibv_inflight *slot = ibv_inflight_take(st, peer, kind, op);
    if (slot == NULL)
        return PTL_FAIL;
    /*
     * The conduit reuses a put's source as soon as the put returns (bulk or
     * not: it does not say which), so a put returns with its source copied or
     * consumed -- seed 003's GASNET_NONBULKPUT_BOUNCE_LIMIT: up to the limit
     * the parts go through bounce buffers, beyond it the put waits for its
     * completions.  Gets return at once: REPLY_END says when the data is in.
     */
    int is_put = opcode == IBV_WR_RDMA_WRITE;
    int bounce = is_put && op->length > (uint64_t)(st->inline_limit > 0 ? st->inline_limit : 0) &&
                 op->length <= st->set.nonbulkput_bounce_limit;
    uint32_t slot_id = ibv_inflight_id(peer, slot);
    /* One count for the posting itself: parts may complete while later ones are posted. */
    slot->parts_left = 1;
    uint64_t done = 0;
    int rc = PTL_OK;
    while (done < op->length && rc == PTL_OK) {
        uint64_t len = op->length - done;
        rc = post_part(st, peer, slot, opcode, (char *)op->local_addr + done,
                       op->remote_offset + done, win, bounce, &len);
        done += len;
    }
    if (rc != PTL_OK)
        slot->failed = 1;
    if (bounce && rc == PTL_OK) { /* every byte is in a bounce buffer now */
        slot->rndv = 1;
        ptl_initiator_event(st->ni, op, PTL_EVENT_SEND_END, op->length, 0);
    }
    st->window_ops++;
    if (--slot->parts_left == 0) {
        finish(st, peer, slot);
        return rc;
    }
    if (is_put && !slot->rndv)
        ibv_inflight_wait(st, peer, slot_id);
    return rc;
}

int ibv_rdma_put(struct ibv_state *st, const struct nal_op *op)
{
    return rdma_op(st, op, IBV_OP_RDMA_PUT, IBV_WR_RDMA_WRITE);
}

int ibv_rdma_get(struct ibv_state *st, const struct nal_op *op)
{
    return rdma_op(st, op, IBV_OP_RDMA_GET, IBV_WR_RDMA_READ);
}
