/*
 * The calls a transport makes up into the Portals library (ptl): the target
 * side of an operation, the initiator's events, the counts of counted puts,
 * the receive thread's hand-up.  They are declared here, below ptl, and ptl
 * implements them, as the Portals reference NALs called lib_parse and
 * lib_finalize that their library implemented: so a transport includes no
 * header of the layer above it and reaches none of its state but struct
 * nal_ni.  They keep their ptl_ names because ptl defines them (a nal_ name
 * is one nal/ defines).  Each is a plain call, as it was when transports
 * included ptl's headers: no table stands between a put and its target side.
 */
#ifndef GP_NAL_UPCALLS_H
#define GP_NAL_UPCALLS_H

#include <stdint.h>

#include "nal/nal.h"
#include "nal/portals_types.h"
#include "util/counter.h"

struct ptl_me_slot;

/*
 * Target side of an operation, run by whoever can touch the target's region
 * (the initiator on shm and loop, the target's progress engine on tcp).
 */
struct ptl_match {
    struct ptl_me_slot *slot;
    uint64_t data_offset;   /* where the bytes go / come from, from the region base */
    uint64_t md_offset;     /* the same, from the MD's start */
    uint64_t mlength;
    uint32_t options;
    uint32_t eq_index;
    ptl_handle_md_t md_handle;
    uint64_t md_start;
    uint64_t user_ptr;
};

enum ptl_op_kind { PTL_OP_PUT, PTL_OP_GET };

/* PTL_OK with *match filled, or PTL_FAIL when no MD takes the message (dropped and counted). */
int ptl_target_match(void *region, unsigned pt_index, enum ptl_op_kind op, uint64_t match_bits,
                     uint64_t remote_offset, uint64_t length, struct ptl_match *match);
/* Posts PUT_END / GET_END to the target's EQ if its MD asks for it. */
void ptl_target_event(void *region, const struct ptl_match *match, enum ptl_event_kind kind,
                      unsigned initiator, uint64_t match_bits, uint64_t hdr_data, uint64_t rlength,
                      unsigned pt_index);

/*
 * Where the MD that an operation on (pt_index, match_bits) would reach lies
 * in this process's region, when initiators may from now on skip matching
 * and reach it by RDMA: the first MD that accepts those bits is permanent,
 * remotely managed, takes puts and gets, has no threshold and no events,
 * and accepts any match bits.  1 with *region_offset and *length set, or 0.
 */
int ptl_target_window(void *region, unsigned pt_index, uint64_t match_bits,
                      uint64_t *region_offset, uint64_t *length);

/* Both halves of an operation on a region this process can address directly. */
int ptl_direct_put(struct nal_ni *ni, void *target_region, const struct nal_op *op);
int ptl_direct_get(struct nal_ni *ni, void *target_region, const struct nal_op *op);

/* Posts an initiator-side event (SEND_END, ACK, REPLY_END) for a local MD. */
void ptl_initiator_event(struct nal_ni *ni, const struct nal_op *op, enum ptl_event_kind kind,
                         uint64_t mlength, uint64_t remote_md_offset);
/* The initiator's MD may have been unlinked (and its slot reused) while the op was in flight. */
int ptl_md_still_valid(struct nal_ni *ni, const struct nal_op *op);

/* Done counted puts of one operation (nal_op.count_down), subtracted from its count. */
void ptl_count_done(struct nal_ni *ni, gp_count_t *count_down, int64_t done);

/*
 * A peer's region as shm maps it: whether its owner (rank) has formatted it
 * (the header is published last, so a region that says so is whole), and
 * its length as the header gives it.
 */
int ptl_region_formatted(const void *region, unsigned rank);
uint64_t ptl_region_length(const void *region);

/*
 * A transport's receive thread, after a progress pass and outside its own
 * locks: hands the thread to the layer above (ptl_ni_set_rcv_poll), if it
 * asked for it.
 */
void ptl_ni_rcv_poll(struct nal_ni *ni);

#endif
