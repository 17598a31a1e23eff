/*
 * The event ring behind an EQ: a bounded queue in shared memory that any
 * process of the job may push to and any thread of the owner may pop from,
 * without locks (a per-cell sequence number, after D. Vyukov's bounded
 * MPMC queue).  A push that finds the ring full does not wait: it counts
 * the event as dropped, and the next pop reports PTL_EQ_DROPPED, as a
 * Portals EQ that overflowed does.  Full means capacity events not taken:
 * a cell whose event a consumer has taken but not yet released is waited
 * for, not dropped.
 */
#ifndef GP_PTL_RING_H
#define GP_PTL_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ptl/ptl.h"

struct ptl_ring_cell {
    _Atomic uint64_t seq;
    struct ptl_event event;
};

struct ptl_ring {
    uint64_t mask;                        /* capacity - 1; capacity is a power of two */
    _Atomic uint64_t dropped;             /* events lost to a full ring, not yet reported */
    alignas(64) _Atomic uint64_t head;    /* next cell to fill */
    alignas(64) _Atomic uint64_t tail;    /* next cell to drain */
    alignas(64) struct ptl_ring_cell cells[];
};

/* Bytes needed for a ring of at least count events (rounded to a power of two). */
uint64_t ptl_ring_bytes(unsigned count);
void ptl_ring_init(struct ptl_ring *ring, unsigned count);
/* 0 on success, -1 if the ring was full (the event is counted as dropped). */
int ptl_ring_push(struct ptl_ring *ring, const struct ptl_event *event);
/*
 * A push in two steps, for an event whose place in the order must be taken
 * before it is known: claim a cell (-1 if the ring is full: counted as a
 * drop), then publish into it.  Consumers stop at a claimed cell until it is
 * published, so events stay in claim order.
 */
int64_t ptl_ring_claim(struct ptl_ring *ring);
void ptl_ring_publish(struct ptl_ring *ring, int64_t pos, const struct ptl_event *event);
/* PTL_OK, PTL_EQ_EMPTY or PTL_EQ_DROPPED (then event->type is 0 if no event came with it). */
int ptl_ring_pop(struct ptl_ring *ring, struct ptl_event *event);
unsigned ptl_ring_count(struct ptl_ring *ring);

#endif
