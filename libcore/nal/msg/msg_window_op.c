/*
 * The initiator's put or get straight into a peer's window (the RAR segment
 * the peer's answers told, msg_record_window): no message, no matching on
 * the target.  The op is split into parts, each one RDMA / RMA transfer the
 * transport posts (window_part); its record counts the parts not completed
 * yet, one more while they are being posted, so that parts completing
 * meanwhile cannot finish the op early.
 *
 * The conduit reuses a put's source as soon as the put returns (bulk or not:
 * it does not say which), so a put returns with its source copied or
 * consumed: bounced through the transport's buffers (SEND_END once every
 * part holds its bytes, and the put returns at once), sent inline, or else
 * waited for until its parts complete.  A get returns at once: REPLY_END
 * says when the data is in.  How a part reaches the wire (which queue, which
 * key, when a buffer is used) is the transport's.
 */
#include "nal/msg/msg.h"

static void finish(const struct msg_proto *p, int rank, struct msg_record *rec)
{
    if (!rec->failed)
        msg_window_op_done(p->ni, &rec->rec.op, rec->rec.kind == MSG_OP_WINDOW_PUT, rec->rndv);
    p->nic->record_release(p->nic_state, rank, &rec->rec);
}

int msg_window_op(const struct msg_proto *p, const struct msg_window *windows,
                  const struct nal_op *op, int is_put)
{
    const struct msg_window *told = msg_window_for(windows, op);
    if (told == NULL)
        return MSG_NO_WINDOW;
    /* Read once: in a PAR build a wait below may let other threads handle answers, which
     * may tell this peer's window anew while the parts are being posted. */
    struct msg_window_xfer x = { .is_put = is_put,
                                 .region_offset = told->region_offset + op->remote_offset };
    const struct msg_nic *nic = p->nic;
    int rank = (int)op->target;
    struct nal_inflight_rec *taken = nic->record_take(
        p->nic_state, rank, is_put ? MSG_OP_WINDOW_PUT : MSG_OP_WINDOW_GET, op, &x.id);
    if (taken == NULL)
        return PTL_FAIL;
    struct msg_record *rec = (struct msg_record *)taken;
    if (nic->window_begin(p->nic_state, rank, rec, &x) != PTL_OK) {
        nic->record_release(p->nic_state, rank, taken);
        return PTL_FAIL;
    }
    rec->parts_left = 1;
    uint64_t done = 0;
    int rc = PTL_OK;
    while (done < op->length && rc == PTL_OK) {
        uint64_t len = op->length - done;
        if (len > x.part_max)
            len = x.part_max;
        rc = nic->window_part(p->nic_state, rank, rec, &x, done, &len);
        done += len;
    }
    if (rc != PTL_OK)
        rec->failed = 1;
    if (x.bounce && is_put && rc == PTL_OK) { /* every byte is in the transport's buffers now */
        rec->rndv = 1;
        ptl_initiator_event(p->ni, op, PTL_EVENT_SEND_END, op->length, 0);
    }
    if (--rec->parts_left == 0) {
        finish(p, rank, rec);
        return rc;
    }
    if (is_put && !rec->rndv)
        nic->record_wait(p->nic_state, rank, x.id);
    return rc;
}

void msg_window_part_done(const struct msg_proto *p, int rank, const struct nal_inflight *records,
                          uint32_t id, int failed)
{
    const char *why;
    struct msg_record *rec =
        (struct msg_record *)nal_inflight_find(records, id, NAL_INFLIGHT_FREE, &why);
    if (rec == NULL || (rec->rec.kind != MSG_OP_WINDOW_PUT && rec->rec.kind != MSG_OP_WINDOW_GET))
        return;
    if (failed)
        rec->failed = 1;
    if (--rec->parts_left == 0)
        finish(p, rank, rec);
}
