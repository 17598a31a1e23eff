/*
 * RMA straight into a peer's window: once a peer has told this process (in
 * an ACK or a REPLY, ptl_target_window) that an MD is permanent, plain and
 * accepts any match bits -- the RAR segment -- puts become fi_writemsg and
 * gets fi_readmsg at the region's RMA address, with no message and no
 * matching on the target (on a provider with hardware RMA, no target CPU;
 * on tcp;ofi_rxm the target's progress engine moves the bytes).
 *
 * A put's completion is asked for as FI_DELIVERY_COMPLETE, so the ACK event
 * means the bytes are visible at the target, as a put's ACK must, and a
 * later put, get or AM to that node finds them.  Where gp asked for
 * FI_ORDER_WAW and the provider gave it (ofi_info.c; up to
 * max_order_waw_size), only a put's last part asks for it: its delivery
 * means the earlier parts' too, and they complete at FI_TRANSMIT_COMPLETE (on
 * tcp;ofi_rxm a delivery costs an acknowledgement from the target's progress
 * engine per write).  Where it did not, every part asks for delivery: a part
 * completed when sent may still land after the last one, and after what the
 * initiator sends next (GP_OFI_TEST_LATE_WRITES shows it).
 * The local side: region memory has the region's descriptor; other memory needs none
 * where the provider does not demand FI_MR_LOCAL; where it does, get parts up
 * to a buffer's size go through tx buffers and larger ones are registered for
 * the operation.  A put returns with its source copied or consumed (the
 * conduit reuses it at once): up to OFI_PUT_BOUNCE_LIMIT it is copied through
 * 256 KiB bounce buffers and returns once its last part is posted, so that
 * back-to-back puts overlap; a larger one returns at its completion.
 *
 * The op itself (its record, its parts counted, its events) is nal/msg/'s
 * msg_window_op (msg_window_op.h), run here over window_ops.
 */
#include <stdlib.h>
#include <string.h>

#include "nal/msg/msg_window_op.h"
#include "nal/ofi/ofi.h"
#include "nal/ofi/ofi_config.h"
#include "util/log.h"

uint64_t ofi_fault_key(struct ofi_state *st, uint64_t key)
{
    if (ofi_cfg.ofi_fault_key > 0 && ++st->rma_started == (uint64_t)ofi_cfg.ofi_fault_key)
        return key ^ 0x5a5a5a5au;
    return key;
}

struct part_args {
    int is_put;
    uint64_t put_completion;  /* FI_DELIVERY_COMPLETE, or FI_TRANSMIT_COMPLETE for a part
                               * whose delivery a later ordered one vouches for */
    void *local;
    void *desc;
    size_t len;
    fi_addr_t peer;
    uint64_t addr, key;
    struct ofi_ctx *ctx;
};

static ssize_t post_part(struct ofi_state *st, void *arg)
{
    struct part_args *a = arg;
    struct iovec iov = { a->local, a->len };
    struct fi_rma_iov rma = { a->addr, a->len, a->key };
    void *desc = a->desc;
    struct fi_msg_rma msg = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = a->peer,
                              .rma_iov = &rma, .rma_iov_count = 1, .context = a->ctx };
    if (a->is_put)
        return fi_writemsg(st->ep, &msg, FI_COMPLETION | a->put_completion);
    return fi_readmsg(st->ep, &msg, FI_COMPLETION);
}

/* GP_OFI_TEST_LATE_WRITES: a put's part held back, as a provider without FI_ORDER_WAW may
 * place it: written once its target has sent a message since, so after anything the
 * initiator sent meanwhile (a flag, an AM) has arrived and been looked at. */
struct ofi_late_write {
    struct ofi_late_write *next;
    struct part_args args;    /* args.ctx: OFI_CTX_LATE_WRITE, holding the bounce buffer */
    uint64_t heard_before;    /* the target's messages handled here when the part was held */
};

/* Holds a bounced part that asked only for its transmit completion: it counts as complete
 * now (as a provider may say once the bytes are its own) and is written later.  1 if held. */
static int hold_late(struct ofi_state *st, const struct part_args *args)
{
    struct ofi_ctx *ctx = args->ctx;
    struct ofi_late_write *late = malloc(sizeof *late);
    if (late == NULL)
        return 0;
    ctx->kind = OFI_CTX_LATE_WRITE;
    *late = (struct ofi_late_write){ NULL, *args, st->peers[ctx->peer].messages_in };
    struct ofi_late_write **tail = &st->late_writes;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = late;
    return 1;
}

void ofi_rma_late_writes(struct ofi_state *st)
{
    struct ofi_late_write **at = &st->late_writes;
    while (*at != NULL) {
        struct ofi_late_write *late = *at;
        struct ofi_ctx *ctx = late->args.ctx;
        if (st->peers[ctx->peer].messages_in == late->heard_before) {
            at = &late->next;
            continue;
        }
        *at = late->next;
        if (ofi_post_retry(st, ctx->peer, "late RMA write", post_part, &late->args) != PTL_OK) {
            msg_pool_put(&st->bounce, ctx->bounce);
            ofi_ctx_put(st, ctx);
        }
        free(late);
    }
}

void ofi_rma_late_free(struct ofi_state *st)
{
    while (st->late_writes != NULL) {
        struct ofi_late_write *late = st->late_writes;
        st->late_writes = late->next;
        free(late);
    }
}

/*
 * The op's local side: region memory has the region's descriptor; other memory needs none
 * where the provider does not demand FI_MR_LOCAL.  Puts up to OFI_PUT_BOUNCE_LIMIT are copied
 * (the put returns at once, the next overlaps it), through bounce buffers; so are get parts
 * FI_MR_LOCAL would need registered, through tx buffers; a larger one is registered for the
 * operation (held in its record).
 */
MSG_WINDOW_INLINE int window_begin(void *nic, int rank, struct msg_record *rec, struct msg_window_xfer *x)
{
    struct ofi_state *st = nic;
    (void)rank;
    const struct nal_op *op = &rec->rec.op;
    x->bounce = 1;
    x->desc = NULL;
    if (!x->is_put || op->length > OFI_PUT_BOUNCE_LIMIT) {
        int in_region;
        x->bounce = 0;
        x->desc = ofi_region_desc(st, op->local_addr, op->length, &in_region);
        if (!in_region && (st->mr_mode & FI_MR_LOCAL)) {
            if (op->length <= OFI_BUF_BYTES) {
                x->bounce = 1;
            } else {
                void *base;
                struct fid_mr *mr = ofi_mr_pin(st, (struct ofi_inflight *)rec, op->local_addr,
                                               op->length, FI_READ | FI_WRITE, &base);
                if (mr == NULL)
                    return PTL_FAIL;
                x->desc = fi_mr_desc(mr);
            }
        }
    }
    x->part_max = !x->bounce ? st->max_msg : x->is_put ? OFI_BOUNCE_BYTES : OFI_BUF_BYTES;
    if (x->part_max > st->max_msg)
        x->part_max = st->max_msg;
    if (x->is_put)
        st->rma_puts++;
    else
        st->rma_gets++;
    return PTL_OK;
}

/* A window part: a bounced one copied into its buffer (a put) or out of it at completion (a
 * get); a put's part that a later ordered one vouches for asks only for its transmit. */
MSG_WINDOW_INLINE int window_part(void *nic, int rank, struct msg_record *rec,
                       const struct msg_window_xfer *x, uint64_t done, uint64_t *len_inout)
{
    struct ofi_state *st = nic;
    struct ofi_peer *peer = &st->peers[rank];
    const struct nal_op *op = &rec->rec.op;
    uint64_t len = *len_inout;
    int is_put = x->is_put;
    struct ofi_ctx *ctx = ofi_ctx_take(st);
    if (ctx == NULL) {
        msg_fail(&st->proto, rank, "aborting: no context left for an RMA part to node %d", rank);
        return PTL_FAIL;
    }
    ctx->kind = OFI_CTX_RMA;
    ctx->peer = rank;
    ctx->op_id = x->id;
    char *local = (char *)op->local_addr + done;
    int vouched = len <= st->ordered_write_bytes && done + len < op->length;
    struct part_args args = { is_put, vouched ? FI_TRANSMIT_COMPLETE : FI_DELIVERY_COMPLETE,
                              local, x->desc, len, peer->addr,
                              peer->region_base + x->region_offset + done,
                              ofi_fault_key(st, peer->region_key), ctx };
    if (x->bounce) {
        if (is_put)
            ctx->bounce = ofi_bounce_take(st);
        else
            ctx->buf = ofi_tx_take(st);
        if (ctx->buf < 0 && ctx->bounce < 0) {
            ofi_ctx_put(st, ctx);
            return PTL_FAIL;
        }
        args.local = is_put ? ofi_bounce_addr(st, ctx->bounce)
                            : ofi_buf_addr(st, ofi_tx_index(st, ctx->buf));
        args.desc = st->buf_desc;
        if (is_put) {
            memcpy(args.local, local, len);
        } else {
            ctx->copy_to = local;
            ctx->copy_len = len;
        }
    }
    if (ofi_cfg.ofi_test_late_writes && is_put && vouched && ctx->bounce >= 0 &&
        hold_late(st, &args))
        return PTL_OK;
    rec->parts_left++;
    int rc = ofi_post_retry(st, rank, is_put ? "RMA write" : "RMA read", post_part, &args);
    if (rc != PTL_OK) {
        rec->parts_left--;
        if (ctx->buf >= 0)
            ofi_tx_put(st, ctx->buf);
        if (ctx->bounce >= 0)
            msg_pool_put(&st->bounce, ctx->bounce);
        ofi_ctx_put(st, ctx);
    }
    return rc;
}

static const struct msg_window_ops window_ops = {
    ofi_record_take, ofi_record_release, ofi_record_wait, window_begin, window_part,
};

static int rma_op(struct ofi_state *st, const struct nal_op *op, int is_put)
{
    return msg_window_op(&window_ops, &st->proto, st->peers[op->target].window, op, is_put);
}

int ofi_rma_put(struct ofi_state *st, const struct nal_op *op)
{
    return rma_op(st, op, 1);
}

int ofi_rma_get(struct ofi_state *st, const struct nal_op *op)
{
    return rma_op(st, op, 0);
}

void ofi_rma_part_done(struct ofi_state *st, struct ofi_ctx *ctx, int failed)
{
    struct ofi_peer *peer = &st->peers[ctx->peer];
    if (ctx->copy_to != NULL && !failed) /* a bounced get part */
        memcpy(ctx->copy_to, ofi_buf_addr(st, ofi_tx_index(st, ctx->buf)), ctx->copy_len);
    msg_window_part_done(&window_ops, &st->proto, ctx->peer, &peer->inflight, ctx->op_id,
                         failed || peer->failed);
}
