/*
 * The initiator side of puts and gets: checks the local MD, hands the
 * operation to the transport, and posts the initiator's events (SEND_END,
 * ACK, REPLY_END) when the transport says they happened.
 */
#include "ptl/ni.h"

/* Claims one operation from a bound MD with a finite threshold. */
static int take_op(struct ptl_md_local *md)
{
    int left = atomic_load_explicit(&md->ops_left, memory_order_relaxed);
    do {
        if (left == PTL_MD_THRESH_INF)
            return PTL_OK;
        if (left == 0)
            return PTL_MD_INVALID;
    } while (!atomic_compare_exchange_weak(&md->ops_left, &left, left - 1));
    return PTL_OK;
}

static int prepare(struct ptl_ni *ni, ptl_handle_md_t handle, uint64_t local_offset,
                   uint64_t length, unsigned target, struct nal_op *op)
{
    struct ptl_md_local *md = ptl_md_lookup(ni, handle);
    if (md == NULL)
        return PTL_MD_INVALID;
    if (target >= (unsigned)ni->base.size)
        return PTL_PROCESS_INVALID;
    if (local_offset > md->desc.length || length > md->desc.length - local_offset)
        return PTL_SEGV;
    int rc = take_op(md);
    if (rc != PTL_OK)
        return rc;
    op->target = target;
    op->length = length;
    op->local_addr = (char *)md->desc.start + local_offset;
    op->local_offset = local_offset;
    op->md = handle;
    op->md_local = md;
    op->count_down = NULL; /* its MD's events say when it is done */
    return PTL_OK;
}

int ptl_put_region(struct ptl_ni *ni, ptl_handle_md_t md, uint64_t local_offset, uint64_t length,
                   enum ptl_ack_req ack_req, unsigned target, unsigned pt_index,
                   uint64_t match_bits, uint64_t remote_offset, uint64_t hdr_data)
{
    struct nal_op op;
    int rc = prepare(ni, md, local_offset, length, target, &op);
    if (rc != PTL_OK)
        return rc;
    op.pt_index = pt_index;
    op.match_bits = match_bits;
    op.remote_offset = remote_offset;
    op.hdr_data = hdr_data;
    op.ack_req = ack_req == PTL_ACK_DEFER ? PTL_ACK_REQ : ack_req;
    op.hold = ack_req == PTL_ACK_DEFER || ack_req == PTL_NOACK_DEFER;
    return ni->nal->put(&ni->base, &op);
}

int ptl_put(struct ptl_ni *ni, ptl_handle_md_t md, enum ptl_ack_req ack_req, unsigned target,
            unsigned pt_index, uint64_t match_bits, uint64_t remote_offset, uint64_t hdr_data)
{
    struct ptl_md_local *local = ptl_md_lookup(ni, md);
    if (local == NULL)
        return PTL_MD_INVALID;
    return ptl_put_region(ni, md, 0, local->desc.length, ack_req, target, pt_index, match_bits,
                          remote_offset, hdr_data);
}

int ptl_counts_puts(struct ptl_ni *ni, unsigned target)
{
    return target < (unsigned)ni->base.size && ni->nal->counts_puts(&ni->base, target);
}

void ptl_count_done(struct nal_ni *base, gp_count_t *count_down, int64_t done)
{
    gp_count_add(&ptl_ni_of(base)->counted_done, done);
    gp_count_add(count_down, -done);
}

int64_t ptl_counted_taken(struct ptl_ni *ni)
{
    int64_t done = gp_count_get(&ni->counted_done);
    if (done != 0)
        gp_count_add(&ni->counted_done, -done); /* what lands meanwhile stays for next time */
    return done;
}

int ptl_put_counted(struct ptl_ni *ni, const void *src, uint64_t length, int hold,
                    unsigned target, unsigned pt_index, uint64_t match_bits,
                    uint64_t remote_offset, gp_count_t *count_down)
{
    if (target >= (unsigned)ni->base.size)
        return PTL_PROCESS_INVALID;
    struct nal_op op = {
        .target = target, .pt_index = pt_index, .match_bits = match_bits,
        .remote_offset = remote_offset, .length = length, .local_addr = (void *)src,
        .ack_req = PTL_ACK_REQ, .hold = hold, .count_down = count_down,
    };
    return ni->nal->put(&ni->base, &op);
}

int ptl_get_region(struct ptl_ni *ni, ptl_handle_md_t md, uint64_t local_offset, uint64_t length,
                   unsigned target, unsigned pt_index, uint64_t match_bits,
                   uint64_t remote_offset)
{
    struct nal_op op;
    int rc = prepare(ni, md, local_offset, length, target, &op);
    if (rc != PTL_OK)
        return rc;
    op.pt_index = pt_index;
    op.match_bits = match_bits;
    op.remote_offset = remote_offset;
    op.hdr_data = 0;
    op.ack_req = PTL_NOACK_REQ;
    op.hold = 0;
    return ni->nal->get(&ni->base, &op);
}

int ptl_get(struct ptl_ni *ni, ptl_handle_md_t md, unsigned target, unsigned pt_index,
            uint64_t match_bits, uint64_t remote_offset)
{
    struct ptl_md_local *local = ptl_md_lookup(ni, md);
    if (local == NULL)
        return PTL_MD_INVALID;
    return ptl_get_region(ni, md, 0, local->desc.length, target, pt_index, match_bits,
                          remote_offset);
}

void ptl_initiator_event(struct nal_ni *base, const struct nal_op *op, enum ptl_event_kind kind,
                         uint64_t mlength, uint64_t remote_md_offset)
{
    struct ptl_ni *ni = ptl_ni_of(base);
    const struct ptl_md_desc *desc = &op->md_local->desc;
    if (desc->eq == PTL_EQ_NONE || (desc->options & PTL_MD_EVENT_DISABLE))
        return;
    if (kind == PTL_EVENT_SEND_END && (desc->options & PTL_MD_SEND_END_DISABLE))
        return;
    struct ptl_eq_local *eq = ptl_eq_lookup(ni, desc->eq);
    if (eq == NULL)
        return;
    struct ptl_event event = {
        .type = kind,
        .initiator = (uint32_t)base->rank,
        .pt_index = op->pt_index,
        .md_handle = op->md,
        .match_bits = op->match_bits,
        .hdr_data = op->hdr_data,
        .rlength = op->length,
        .mlength = mlength,
        /* SEND_END and REPLY_END name the local offset; ACK the remote one, as Portals does */
        .offset = kind == PTL_EVENT_ACK ? remote_md_offset : op->local_offset,
        .md_start = desc->start,
        .md_user_ptr = desc->user_ptr,
    };
    ptl_ring_push(eq->ring, &event);
}
