/*
 * The target side of a request, as far as Portals goes: which MD it
 * matches, the deposit of a small put, the PUT_END / GET_END events, and
 * the fields of the ACK or REPLY that answers it.  Moving a large put's or
 * get's bytes (RDMA READ / WRITE, fi_read / fi_write) and sending the
 * answer are the transport's.
 */
#include <string.h>

#include "nal/msg/msg.h"
#include "util/log.h"

static void dropped(const struct msg_proto *p, int rank, const char *what,
                    const struct msg_fields *in)
{
    gp_debug(p->nal, "%s of %llu bytes from rank %d pt %u match 0x%llx matched no MD: dropped",
             what, (unsigned long long)in->length, rank, in->pt_index,
             (unsigned long long)in->match_bits);
}

/* An answer tells the initiator the MD's window when it may skip matching from now on. */
static void grant_window(const struct msg_proto *p, struct msg_fields *out)
{
    uint64_t offset, length;
    if (p->grant_windows && out->pt_index < MSG_WINDOW_PTS &&
        ptl_target_window(p->ni->region, out->pt_index, out->match_bits, &offset, &length)) {
        out->flags |= MSG_FLAG_WINDOW;
        out->win_offset = offset;
        out->win_length = length;
    }
}

int msg_take_put(const struct msg_proto *p, int rank, const struct msg_fields *in,
                 const uint8_t *data, uint64_t bytes, struct ptl_match *match)
{
    int matched = bytes >= in->length &&
                  ptl_target_match(p->ni->region, in->pt_index, PTL_OP_PUT, in->match_bits,
                                   in->offset, in->length, match) == PTL_OK;
    if (matched) {
        if (match->mlength)
            memcpy((char *)p->ni->region + match->data_offset, data, match->mlength);
        ptl_target_event(p->ni->region, match, PTL_EVENT_PUT_END, (unsigned)rank,
                         in->match_bits, in->hdr_data, in->length, in->pt_index);
    } else {
        dropped(p, rank, "put", in);
    }
    return matched;
}

int msg_match_rndv(const struct msg_proto *p, int rank, const struct msg_fields *in,
                   struct ptl_match *match, int *matched)
{
    *matched = ptl_target_match(p->ni->region, in->pt_index, PTL_OP_PUT, in->match_bits,
                                in->offset, in->length, match) == PTL_OK;
    if (*matched && match->mlength > 0)
        return 1;
    if (*matched) /* nothing to read: the put is in */
        ptl_target_event(p->ni->region, match, PTL_EVENT_PUT_END, (unsigned)rank,
                         in->match_bits, in->hdr_data, in->length, in->pt_index);
    else
        dropped(p, rank, "rendezvous put", in);
    return 0;
}

int msg_match_get(const struct msg_proto *p, int rank, const struct msg_fields *in,
                  struct ptl_match *match, struct msg_fields *reply)
{
    int matched = ptl_target_match(p->ni->region, in->pt_index, PTL_OP_GET, in->match_bits,
                                   in->offset, in->length, match) == PTL_OK;
    *reply = (struct msg_fields){
        .type = MSG_REPLY, .flags = matched ? MSG_FLAG_EVENT : 0, .op_id = in->op_id,
        .pt_index = in->pt_index, .match_bits = in->match_bits,
        .offset = matched ? match->md_offset : 0, .length = matched ? match->mlength : 0,
    };
    grant_window(p, reply);
    if (!matched)
        dropped(p, rank, "get", in);
    return matched;
}

int msg_ack(const struct msg_proto *p, const struct msg_fields *in, int matched,
            const struct ptl_match *match, struct msg_fields *ack)
{
    if (!(in->flags & MSG_FLAG_ANSWER))
        return 0;
    int event = matched && (in->flags & MSG_FLAG_ACK_REQ) && !(match->options & PTL_MD_ACK_DISABLE);
    *ack = (struct msg_fields){
        .type = MSG_ACK, .flags = event ? MSG_FLAG_EVENT : 0, .op_id = in->op_id,
        .pt_index = in->pt_index, .match_bits = in->match_bits,
        .offset = matched ? match->md_offset : 0, .length = matched ? match->mlength : 0,
    };
    grant_window(p, ack);
    return 1;
}

void msg_reply_written(const struct msg_proto *p, const struct msg_served *s,
                       struct msg_fields *reply)
{
    *reply = (struct msg_fields){
        .type = MSG_REPLY, .flags = MSG_FLAG_EVENT, .op_id = s->op_id,
        .pt_index = s->pt_index, .match_bits = s->match_bits,
        .offset = s->match.md_offset, .length = s->match.mlength,
    };
    grant_window(p, reply);
}

void msg_served_init(struct msg_served *s, const struct msg_fields *in,
                     const struct ptl_match *match)
{
    *s = (struct msg_served){ .match = *match, .match_bits = in->match_bits,
                              .hdr_data = in->hdr_data, .rlength = in->length,
                              .pt_index = in->pt_index, .op_id = in->op_id, .flags = in->flags };
}

int msg_rndv_done(const struct msg_proto *p, int rank, const struct msg_served *s,
                  struct msg_fields *ack)
{
    ptl_target_event(p->ni->region, &s->match, PTL_EVENT_PUT_END, (unsigned)rank,
                     s->match_bits, s->hdr_data, s->rlength, s->pt_index);
    struct msg_fields in = { .type = MSG_PUT_RNDV, .flags = s->flags, .op_id = s->op_id,
                             .pt_index = s->pt_index, .match_bits = s->match_bits };
    return msg_ack(p, &in, 1, &s->match, ack);
}

void msg_get_done(const struct msg_proto *p, int rank, const struct msg_served *s)
{
    ptl_target_event(p->ni->region, &s->match, PTL_EVENT_GET_END, (unsigned)rank,
                     s->match_bits, 0, s->rlength, s->pt_index);
}
