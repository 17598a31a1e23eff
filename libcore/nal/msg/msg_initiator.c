/*
 * The initiator side of an answer, as far as Portals goes: the events an
 * ACK or a REPLY posts for the operation its record holds, and the window
 * it tells; and the events of an operation done through a window, with no
 * answer (its RDMA / RMA parts completed).  Finding the record (nal/inflight.c) and releasing it, with
 * whatever the transport held for the operation, are the transport's.
 */
#include <string.h>

#include "nal/msg/msg.h"

void msg_take_ack(struct nal_ni *ni, const struct nal_op *op, int rndv,
                  const struct msg_fields *in)
{
    if (!ptl_md_still_valid(ni, op))
        return;
    if (rndv) /* the target has read the source: it may be reused */
        ptl_initiator_event(ni, op, PTL_EVENT_SEND_END, op->length, 0);
    if (in->flags & MSG_FLAG_EVENT)
        ptl_initiator_event(ni, op, PTL_EVENT_ACK, in->length, in->offset);
}

void msg_take_reply(struct nal_ni *ni, const struct nal_op *op, const struct msg_fields *in,
                    const uint8_t *data)
{
    /* The MD may be gone; a reply without the event (nothing matched) carries no data. */
    if (!(in->flags & MSG_FLAG_EVENT) || !ptl_md_still_valid(ni, op))
        return;
    if ((in->flags & MSG_FLAG_DATA) && in->length > 0)
        memcpy(op->local_addr, data, in->length);
    ptl_initiator_event(ni, op, PTL_EVENT_REPLY_END, in->length, in->offset);
}

void msg_window_op_done(struct nal_ni *ni, const struct nal_op *op, int is_put,
                        int send_end_posted)
{
    if (!ptl_md_still_valid(ni, op))
        return;
    if (is_put) {
        if (!send_end_posted)
            ptl_initiator_event(ni, op, PTL_EVENT_SEND_END, op->length, 0);
        if (op->ack_req == PTL_ACK_REQ)
            ptl_initiator_event(ni, op, PTL_EVENT_ACK, op->length, op->remote_offset);
    } else {
        ptl_initiator_event(ni, op, PTL_EVENT_REPLY_END, op->length, op->remote_offset);
    }
}

void msg_record_window(struct msg_window *windows, const struct msg_fields *in)
{
    if ((in->flags & MSG_FLAG_WINDOW) && in->pt_index < MSG_WINDOW_PTS)
        windows[in->pt_index] = (struct msg_window){ in->win_offset, in->win_length };
}
