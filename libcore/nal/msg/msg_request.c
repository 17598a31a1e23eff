/*
 * The initiator's requests by messages: a put (PUT with its data, or
 * PUT_RNDV naming the source for the target to read) and a get (GET, naming
 * the destination when the data will not fit the REPLY).  What a request
 * waits for (a record, a credit, room to post) and how it travels are the
 * transport's, through its table of NIC primitives.
 */
#include "nal/msg/msg.h"

int msg_put(const struct msg_proto *p, const struct nal_op *op)
{
    const struct msg_nic *nic = p->nic;
    int rank = (int)op->target;
    int eager = op->length <= p->eager_bytes;
    int ack = op->ack_req == PTL_ACK_REQ;
    struct msg_fields f = {
        .type = eager ? MSG_PUT : MSG_PUT_RNDV, .flags = ack ? MSG_FLAG_ACK_REQ : 0,
        .pt_index = op->pt_index, .match_bits = op->match_bits, .offset = op->remote_offset,
        .hdr_data = op->hdr_data, .length = op->length,
    };
    struct nal_inflight_rec *rec = NULL;
    uint32_t id = 0;
    /* An eager put that wants no ACK needs no record; one that does gets its window back in
     * the ACK, as a rendezvous does. */
    if (!eager || ack) {
        rec = nic->record_take(p->nic_state, rank, MSG_OP_PUT, op, &id);
        if (rec == NULL)
            return PTL_FAIL;
        f.flags |= MSG_FLAG_ANSWER;
        f.op_id = id;
    }
    struct msg_remote source;
    if (!eager && nic->remote_key(p->nic_state, rank, rec, 0, &source) != PTL_OK) {
        nic->record_release(p->nic_state, rank, rec);
        return PTL_FAIL;
    }
    int rc = nic->send(p->nic_state, rank, &f, eager ? NULL : &source,
                       eager ? op->local_addr : NULL, eager ? op->length : 0, 1);
    if (rc != PTL_OK) {
        if (rec != NULL)
            nic->record_release(p->nic_state, rank, rec);
        return rc;
    }
    if (eager) { /* the data was copied or sent inline: the source may be reused */
        ptl_initiator_event(p->ni, op, PTL_EVENT_SEND_END, op->length, 0);
        return PTL_OK;
    }
    /* The conduit reuses the source when the put returns: wait for the target's read. */
    return nic->record_wait(p->nic_state, rank, id);
}

int msg_get(const struct msg_proto *p, const struct nal_op *op)
{
    const struct msg_nic *nic = p->nic;
    int rank = (int)op->target;
    uint32_t id;
    struct nal_inflight_rec *rec = nic->record_take(p->nic_state, rank, MSG_OP_GET, op, &id);
    if (rec == NULL)
        return PTL_FAIL;
    struct msg_fields f = {
        .type = MSG_GET, .op_id = id, .pt_index = op->pt_index, .match_bits = op->match_bits,
        .offset = op->remote_offset, .length = op->length,
    };
    int large = op->length > p->eager_bytes;
    struct msg_remote dest;
    if (large && nic->remote_key(p->nic_state, rank, rec, 1, &dest) != PTL_OK) {
        nic->record_release(p->nic_state, rank, rec);
        return PTL_FAIL;
    }
    int rc = nic->send(p->nic_state, rank, &f, large ? &dest : NULL, NULL, 0, 1);
    if (rc != PTL_OK)
        nic->record_release(p->nic_state, rank, rec);
    return rc;
}
