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
 *
 * A window op is the path a put or get takes once the window is known, one
 * call per op and per part: the steps are inline functions that the
 * transport's window file (ibv_rdma.c, ofi_rma.c) runs over a static const
 * struct msg_window_ops of its own, so that the compiler turns each primitive
 * into a direct call there, as the transport's own code made them.
 */
#ifndef GP_NAL_MSG_WINDOW_OP_H
#define GP_NAL_MSG_WINDOW_OP_H

#include "nal/msg/msg.h"

/* The primitives a window op runs over (nic: the transport's state). */
struct msg_window_ops {
    /* The operation records, as struct msg_nic's record_take, record_release and record_wait
     * (a window op's record is a struct msg_record; the wait's status is not the op's). */
    struct nal_inflight_rec *(*take)(void *nic, int rank, unsigned kind, const struct nal_op *op,
                                     uint32_t *id);
    void (*release)(void *nic, int rank, struct nal_inflight_rec *rec);
    int (*wait)(void *nic, int rank, uint32_t id);
    /* The op's local side (x->bounce, x->desc, x->part_max, registrations held in rec);
     * PTL_OK or PTL_FAIL. */
    int (*begin)(void *nic, int rank, struct msg_record *rec, struct msg_window_xfer *x);
    /* Posts one part: at most *len bytes from done bytes into the op, *len set to what the
     * part took; a part that will complete counts in rec->parts_left.  PTL_OK or PTL_FAIL
     * (what the part held is given back). */
    int (*part)(void *nic, int rank, struct msg_record *rec, const struct msg_window_xfer *x,
                uint64_t done, uint64_t *len);
};

/* Inlined whole into the transport's window op, primitives and all: one function, as its
 * own code was. */
#define MSG_WINDOW_INLINE static inline __attribute__((always_inline))

MSG_WINDOW_INLINE void msg_window_finish(const struct msg_window_ops *ops,
                                         const struct msg_proto *p, int rank,
                                         struct msg_record *rec)
{
    if (!rec->failed)
        msg_window_op_done(p->ni, &rec->rec.op, rec->rec.kind == MSG_OP_WINDOW_PUT, rec->rndv);
    ops->release(p->nic_state, rank, &rec->rec);
}

/* A put or get straight into the peer's window (windows: the peer's table); PTL_OK or a PTL_*
 * error, or MSG_NO_WINDOW.  The transport checked its peer can take window ops. */
MSG_WINDOW_INLINE int msg_window_op(const struct msg_window_ops *ops, const struct msg_proto *p,
                                const struct msg_window *windows, const struct nal_op *op,
                                int is_put)
{
    const struct msg_window *told = msg_window_for(windows, op);
    if (told == NULL)
        return MSG_NO_WINDOW;
    /* Read once: in a PAR build a wait below may let other threads handle answers, which
     * may tell this peer's window anew while the parts are being posted. */
    struct msg_window_xfer x = { .is_put = is_put,
                                 .region_offset = told->region_offset + op->remote_offset };
    int rank = (int)op->target;
    struct msg_record *rec = (struct msg_record *)ops->take(
        p->nic_state, rank, is_put ? MSG_OP_WINDOW_PUT : MSG_OP_WINDOW_GET, op, &x.id);
    if (rec == NULL)
        return PTL_FAIL;
    if (ops->begin(p->nic_state, rank, rec, &x) != PTL_OK) {
        ops->release(p->nic_state, rank, &rec->rec);
        return PTL_FAIL;
    }
    rec->parts_left = 1;
    uint64_t done = 0;
    int rc = PTL_OK;
    while (done < op->length && rc == PTL_OK) {
        uint64_t len = op->length - done;
        if (len > x.part_max)
            len = x.part_max;
        rc = ops->part(p->nic_state, rank, rec, &x, done, &len);
        done += len;
    }
    if (rc != PTL_OK)
        rec->failed = 1;
    if (x.bounce && is_put && rc == PTL_OK) { /* every byte is in the transport's buffers now */
        rec->rndv = 1;
        ptl_initiator_event(p->ni, op, PTL_EVENT_SEND_END, op->length, 0);
    }
    if (--rec->parts_left == 0) {
        msg_window_finish(ops, p, rank, rec);
        return rc;
    }
    if (is_put && !rec->rndv)
        ops->wait(p->nic_state, rank, x.id);
    return rc;
}

/* One part of the window op whose record is id completed (failed: it or the peer failed);
 * the last one posts the op's events and releases its record. */
MSG_WINDOW_INLINE void msg_window_part_done(const struct msg_window_ops *ops,
                                        const struct msg_proto *p, int rank,
                                        const struct nal_inflight *records, uint32_t id,
                                        int failed)
{
    const char *why;
    struct msg_record *rec =
        (struct msg_record *)nal_inflight_find(records, id, NAL_INFLIGHT_FREE, &why);
    if (rec == NULL || (rec->rec.kind != MSG_OP_WINDOW_PUT && rec->rec.kind != MSG_OP_WINDOW_GET))
        return;
    if (failed)
        rec->failed = 1;
    if (--rec->parts_left == 0)
        msg_window_finish(ops, p, rank, rec);
}

#endif
