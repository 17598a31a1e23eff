/* The lock-free event ring described in ring.h. */
#include "ptl/ring.h"

#include <sched.h>

static unsigned round_up_pow2(unsigned count)
{
    unsigned capacity = 1;
    while (capacity < count)
        capacity <<= 1;
    return capacity;
}

uint64_t ptl_ring_bytes(unsigned count)
{
    return sizeof(struct ptl_ring) + (uint64_t)round_up_pow2(count) * sizeof(struct ptl_ring_cell);
}

void ptl_ring_init(struct ptl_ring *ring, unsigned count)
{
    unsigned capacity = round_up_pow2(count);
    ring->mask = capacity - 1;
    atomic_init(&ring->dropped, 0);
    atomic_init(&ring->head, 0);
    atomic_init(&ring->tail, 0);
    for (unsigned i = 0; i < capacity; i++)
        atomic_init(&ring->cells[i].seq, i);
}

int ptl_ring_push(struct ptl_ring *ring, const struct ptl_event *event)
{
    int64_t pos = ptl_ring_claim(ring);
    if (pos < 0)
        return -1;
    ptl_ring_publish(ring, pos, event);
    return 0;
}

/*
 * A cell not yet recycled for position pos means a full ring only when the
 * consumers have not taken the event in it.  A consumer that has advanced
 * the tail past that event and not yet released the cell (a thread
 * descheduled between the two steps of a pop, in PAR builds or across
 * processes) leaves the ring with room: while it sleeps, the other
 * consumers go on, and a whole capacity of events may pass before the
 * producers come round to its cell again.  Counting that as a drop would
 * lose no event but make the job fatal (an EQ "overflow" with a handful of
 * events queued); the producer waits for the release instead, which comes
 * as soon as that thread runs again.
 */
static int cell_held_by_consumer(struct ptl_ring *ring, uint64_t pos)
{
    uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    return (int64_t)(pos - tail) <= (int64_t)ring->mask; /* fewer than capacity not taken */
}

/* Until the cell's sequence moves on from seen (its consumer released it). */
static void wait_for_release(struct ptl_ring_cell *cell, uint64_t seen)
{
    for (unsigned spins = 1; atomic_load_explicit(&cell->seq, memory_order_acquire) == seen; spins++)
        if (spins % 64 == 0)
            sched_yield(); /* the consumer may need this core to finish its pop */
}

int64_t ptl_ring_claim(struct ptl_ring *ring)
{
    uint64_t pos = atomic_load_explicit(&ring->head, memory_order_relaxed);
    for (;;) {
        struct ptl_ring_cell *cell = &ring->cells[pos & ring->mask];
        uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        int64_t lag = (int64_t)(seq - pos);
        if (lag == 0) {
            if (atomic_compare_exchange_weak_explicit(&ring->head, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                return (int64_t)pos;
        } else if (lag < 0) {
            if (!cell_held_by_consumer(ring, pos)) {
                atomic_fetch_add_explicit(&ring->dropped, 1, memory_order_relaxed);
                return -1;
            }
            wait_for_release(cell, seq);
            pos = atomic_load_explicit(&ring->head, memory_order_relaxed);
        } else {
            pos = atomic_load_explicit(&ring->head, memory_order_relaxed);
        }
    }
}

void ptl_ring_publish(struct ptl_ring *ring, int64_t pos, const struct ptl_event *event)
{
    struct ptl_ring_cell *cell = &ring->cells[(uint64_t)pos & ring->mask];
    cell->event = *event;
    atomic_store_explicit(&cell->seq, (uint64_t)pos + 1, memory_order_release);
}

int ptl_ring_pop(struct ptl_ring *ring, struct ptl_event *event)
{
    uint64_t pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    for (;;) {
        struct ptl_ring_cell *cell = &ring->cells[pos & ring->mask];
        uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        int64_t lag = (int64_t)(seq - (pos + 1));
        if (lag == 0) {
            if (atomic_compare_exchange_weak_explicit(&ring->tail, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                *event = cell->event;
                atomic_store_explicit(&cell->seq, pos + ring->mask + 1, memory_order_release);
                break;
            }
        } else if (lag < 0) {
            /* Report a loss even when nothing follows it, or it would go unseen. */
            if (atomic_load_explicit(&ring->dropped, memory_order_relaxed) != 0 &&
                atomic_exchange_explicit(&ring->dropped, 0, memory_order_relaxed) != 0) {
                event->type = 0;
                return PTL_EQ_DROPPED;
            }
            return PTL_EQ_EMPTY;
        } else {
            pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        }
    }
    if (atomic_load_explicit(&ring->dropped, memory_order_relaxed) != 0 &&
        atomic_exchange_explicit(&ring->dropped, 0, memory_order_relaxed) != 0)
        return PTL_EQ_DROPPED;
    return PTL_OK;
}

unsigned ptl_ring_count(struct ptl_ring *ring)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    return head > tail ? (unsigned)(head - tail) : 0;
}
