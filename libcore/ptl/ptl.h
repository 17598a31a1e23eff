/*
 * ptl: Portals 3.3 semantics in user space.
 *
 * This is the only interface the conduit speaks to (seed 000, "A Brief
 * Overview of Portals").  A network interface (NI) owns:
 *
 *  - a registered region: memory that peers can reach (the GASNet segment
 *    and the conduit's ReqSB / RplSB / ReqRB buffers are carved from it);
 *  - a portal table: each entry holds an ordered match list of memory
 *    descriptors (MDs) with 64-bit match and ignore bits;
 *  - event queues (EQs) that report SEND_END, ACK, PUT_END, GET_END,
 *    REPLY_END and UNLINK.
 *
 * MDs are either free floating (ptl_md_bind: the source of a put or the
 * destination of a get, any memory) or attached to a portal table entry
 * (ptl_md_attach: a target of remote puts and gets, memory inside the
 * registered region).  An attached MD is remotely managed (the initiator's
 * offset is used) or locally managed (deposits are packed one after the other,
 * each 16-byte aligned; when less than max_size bytes remain the MD is full
 * and, with PTL_UNLINK, leaves the list; an UNLINK event follows the last
 * PUT_END it received, with offset = bytes used and mlength = the number of
 * operations it accepted).
 *
 * Where a transport lets the initiator act on the target's memory directly
 * (shm), the target-side matching runs in the initiator; elsewhere (tcp) the
 * target's progress engine runs it.  Either way the semantics are these.
 *
 * Calls return PTL_OK or a PTL_* status; ptl_strerror() names it.
 */
#ifndef GP_PTL_PTL_H
#define GP_PTL_PTL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nal/portals_types.h"
#include "util/counter.h"

/* The status codes, event kinds, handles and MD options are nal/portals_types.h's. */
const char *ptl_strerror(int status);
const char *ptl_event_kind_str(int kind);

#define PTL_MD_THRESH_INF (-1)
/* Finite thresholds are limited by the width of the shared state word. */
#define PTL_MD_THRESH_MAX 4094

struct ptl_md_desc {
    void *start;
    uint64_t length;
    int threshold;       /* operations before the MD goes inactive, or PTL_MD_THRESH_INF */
    uint64_t max_size;   /* locally managed: full when fewer bytes than this remain */
    unsigned options;
    ptl_handle_eq_t eq;  /* PTL_EQ_NONE for no events */
    void *user_ptr;      /* returned in every event on this MD */
};

enum ptl_unlink_op { PTL_RETAIN = 0, PTL_UNLINK = 1 };
enum ptl_ins_pos { PTL_INS_AFTER = 0, PTL_INS_BEFORE = 1 };

struct ptl_event {
    uint32_t type;           /* enum ptl_event_kind */
    uint32_t initiator;      /* rank that started the operation */
    uint32_t pt_index;
    ptl_handle_md_t md_handle;
    uint64_t match_bits;
    uint64_t hdr_data;
    uint64_t rlength;        /* bytes requested */
    uint64_t mlength;        /* bytes moved (less than rlength when truncated) */
    uint64_t offset;         /* where in the MD the data went or came from */
    void *md_start;          /* the MD's start address, in the process receiving the event */
    void *md_user_ptr;
};

struct ptl_ni;

struct ptl_ni_params {
    const char *transport;    /* "hybrid", "shm", "tcp", "loop"; NULL: hybrid */
    uint64_t region_bytes;    /* registered memory peers can reach */
    unsigned max_pt;          /* portal table entries */
    unsigned max_me_per_pt;   /* attached MDs per entry */
    unsigned max_eq;
    unsigned max_md;          /* bound + attached MDs in this process */
};

/*
 * Creates the NI: builds the registered region, exchanges addresses with
 * every peer through the bootstrap and connects.  Collective.  Peers must
 * not be sent to until the caller has finished attaching its MDs and a
 * gp_boot_barrier() has passed (seed 000, "Notes on Bootstrapping").
 */
int ptl_ni_init(const struct ptl_ni_params *params, struct ptl_ni **ni_out);
/* Collective: after it, no peer maps this NI's region any more. */
int ptl_ni_fini(struct ptl_ni *ni);
int ptl_ni_rank(const struct ptl_ni *ni);
int ptl_ni_size(const struct ptl_ni *ni);
const char *ptl_ni_transport(const struct ptl_ni *ni);
/* Whether a transport keeps the region in a /dev/shm object (NULL: the default, hybrid). */
int ptl_transport_region_in_dev_shm(const char *transport);
/* Whose regions a transport maps into each process (NULL: the default, hybrid). */
enum ptl_maps {
    PTL_MAPS_NONE,              /* none: tcp, ibv (or a name not built in) */
    PTL_MAPS_HOST_PEERS,        /* the peers on the same host: hybrid */
    PTL_MAPS_EVERY_PEER,        /* every peer, whatever host it names: shm */
};
enum ptl_maps ptl_transport_maps_peers(const char *transport);

/*
 * Where an address lies when it is inside a region mapped here that is a
 * /dev/shm object (this process's or a peer's): whose, how far in, how
 * long.  1 with *hit filled, else 0.  Async-signal-safe: it only reads,
 * for a SIGBUS handler asking whether /dev/shm ran out of pages.
 */
struct ptl_region_hit {
    unsigned rank;
    uint64_t offset;
    uint64_t region_bytes;
};
int ptl_region_hit(const struct ptl_ni *ni, const void *addr, struct ptl_region_hit *hit);

/* Memory inside the registered region (never freed before ptl_ni_fini). */
void *ptl_region_alloc(struct ptl_ni *ni, uint64_t bytes, uint64_t align);
/* Bytes of the registered region still free. */
uint64_t ptl_region_free_bytes(const struct ptl_ni *ni);

/* Region bytes one EQ of count events takes (for sizing region_bytes). */
uint64_t ptl_eq_bytes(unsigned count);
int ptl_eq_alloc(struct ptl_ni *ni, unsigned count, ptl_handle_eq_t *eq_out);
/* PTL_OK, PTL_EQ_EMPTY, or PTL_EQ_DROPPED (event valid, an earlier one lost). */
int ptl_eq_get(struct ptl_ni *ni, ptl_handle_eq_t eq, struct ptl_event *event);
/* Events waiting (a snapshot; others may arrive at any time). */
unsigned ptl_eq_count(struct ptl_ni *ni, ptl_handle_eq_t eq);
/* 1 when ptl_eq_get would find nothing now, neither an event nor a loss to report: a
 * few loads, for polls that usually find nothing. */
int ptl_eq_idle(struct ptl_ni *ni, ptl_handle_eq_t eq);
/*
 * The same looks without a call or the handle's lookup, for the poll loop,
 * which makes them on every pass and mostly finds nothing: where an EQ keeps
 * its counts, which stay put for the EQ's life (EQs are never freed before
 * ptl_ni_fini).  ptl_eq_probe fills one in; for a handle that names no EQ,
 * counts that stay 0.
 */
struct ptl_eq_probe {
    const _Atomic uint64_t *head;        /* the ring's next cell to fill */
    const _Atomic uint64_t *tail;        /* its next cell to drain */
    const _Atomic uint64_t *dropped;     /* events lost, not yet reported */
    const unsigned *pending_count;       /* the owner's UNLINK events, read atomically */
};
void ptl_eq_probe(struct ptl_ni *ni, ptl_handle_eq_t eq, struct ptl_eq_probe *probe);
/* ptl_eq_count, through a probe. */
static inline unsigned ptl_eq_probe_count(const struct ptl_eq_probe *probe)
{
    uint64_t head = atomic_load_explicit(probe->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(probe->tail, memory_order_acquire);
    return (head > tail ? (unsigned)(head - tail) : 0) +
           __atomic_load_n(probe->pending_count, __ATOMIC_ACQUIRE);
}
/* ptl_eq_idle, through a probe. */
static inline int ptl_eq_probe_idle(const struct ptl_eq_probe *probe)
{
    return ptl_eq_probe_count(probe) == 0 &&
           atomic_load_explicit(probe->dropped, memory_order_relaxed) == 0;
}

int ptl_md_bind(struct ptl_ni *ni, const struct ptl_md_desc *desc, ptl_handle_md_t *md_out);
/*
 * Attaches an MD to portal table entry pt_index.  base == PTL_INVALID_HANDLE
 * with PTL_INS_AFTER appends at the end of the list, with PTL_INS_BEFORE
 * inserts at the head; otherwise the MD goes right after / before base.
 */
int ptl_md_attach(struct ptl_ni *ni, unsigned pt_index, uint64_t match_bits, uint64_t ignore_bits,
                  const struct ptl_md_desc *desc, enum ptl_unlink_op unlink_op,
                  enum ptl_ins_pos position, ptl_handle_md_t base, ptl_handle_md_t *md_out);
int ptl_md_unlink(struct ptl_ni *ni, ptl_handle_md_t md);
/* The MD's description as it is now (locally managed: not the offset). */
int ptl_md_query(struct ptl_ni *ni, ptl_handle_md_t md, struct ptl_md_desc *desc_out);

int ptl_put_region(struct ptl_ni *ni, ptl_handle_md_t md, uint64_t local_offset, uint64_t length,
                   enum ptl_ack_req ack_req, unsigned target, unsigned pt_index,
                   uint64_t match_bits, uint64_t remote_offset, uint64_t hdr_data);
int ptl_put(struct ptl_ni *ni, ptl_handle_md_t md, enum ptl_ack_req ack_req, unsigned target,
            unsigned pt_index, uint64_t match_bits, uint64_t remote_offset, uint64_t hdr_data);
int ptl_get_region(struct ptl_ni *ni, ptl_handle_md_t md, uint64_t local_offset, uint64_t length,
                   unsigned target, unsigned pt_index, uint64_t match_bits,
                   uint64_t remote_offset);
int ptl_get(struct ptl_ni *ni, ptl_handle_md_t md, unsigned target, unsigned pt_index,
            uint64_t match_bits, uint64_t remote_offset);

/*
 * A counted put: not Portals.  Where the transport finishes with the source
 * before it returns (a copy: tcp), a put needs no MD and no SEND_END, and
 * its ACK is only "one fewer outstanding": the transport subtracts one from
 * *count_down when the put is acknowledged, or
 * dropped at a peer that has left, and posts no event.  The caller adds one
 * before the call.  hold: the put may wait for the transport's next pass
 * (PTL_ACK_DEFER).  Only to a target for which ptl_counts_puts said 1.
 */
int ptl_counts_puts(struct ptl_ni *ni, unsigned target);
/* How many counted puts completed since the last call: a poll that took no event may still
 * have ended a wait (the caller then does not give up its core). */
int64_t ptl_counted_taken(struct ptl_ni *ni);
int ptl_put_counted(struct ptl_ni *ni, const void *src, uint64_t length, int hold,
                    unsigned target, unsigned pt_index, uint64_t match_bits,
                    uint64_t remote_offset, gp_count_t *count_down);

/*
 * Where the memory an operation would reach lies in this process, when the
 * transport maps the target's region (shm, loop) and the first MD that
 * would match is a plain one (remotely managed, no threshold, no EQ): the
 * caller may then load or store directly, which is what such an operation
 * amounts to.  NULL otherwise, or when the range does not fit the MD: the
 * caller uses ptl_put / ptl_get.
 */
enum ptl_access { PTL_ACCESS_PUT, PTL_ACCESS_GET };
void *ptl_direct_address(struct ptl_ni *ni, unsigned target, unsigned pt_index,
                         enum ptl_access access, uint64_t match_bits, uint64_t remote_offset,
                         uint64_t length);

/*
 * Dozing, for waits in GASNET_WAIT_BLOCK: a process whose waits keep finding
 * nothing sleeps in the kernel until a peer that maps its region posts to it
 * -- an event into one of its EQs (ptl does that wake itself), or a message
 * of the conduit's own that names ptl_wake -- or until max_us pass.  Only
 * where every peer maps this region (ptl_doze_possible): a peer over tcp,
 * ibv or ofi could not wake it.  The sequence: ptl_doze_announce, one more
 * look at everything the wait waits for (a post that the look missed sees
 * the announcement and wakes it), ptl_doze if the look found nothing, then
 * ptl_doze_end.
 */
int ptl_doze_possible(struct ptl_ni *ni);
void ptl_doze_announce(struct ptl_ni *ni);
/* 1 when woken (or the wake came first), 0 when max_us passed. */
int ptl_doze(struct ptl_ni *ni, unsigned max_us);
void ptl_doze_end(struct ptl_ni *ni);
/* A peer's doze word, for ptl_wake after a post the conduit makes itself; NULL where the
 * peer's region is not mapped here. */
uint32_t *ptl_doze_word(struct ptl_ni *ni, unsigned rank);
void ptl_wake_slow(uint32_t *doze_word);
/* After a post (doze_word not NULL): a load of a line the dozer writes only around a doze,
 * and a system call only when it dozes. */
static inline void ptl_wake(uint32_t *doze_word)
{
    if (__builtin_expect(__atomic_load_n(doze_word, __ATOMIC_RELAXED) != 0, 0))
        ptl_wake_slow(doze_word);
}

/* The job ends (without ptl_ni_fini): the transport's summary lines, if it has any. */
void ptl_ni_report(struct ptl_ni *ni);

/*
 * The job's exit is under way as far as this process knows: it started its
 * own, or a peer's exit message came.  From then on a peer that leaves has
 * left in that exit (its transport drops what is sent to it quietly);
 * before, a peer that cannot be reached ends the job with a fatal error
 * naming it (doc/wire-tcp.md, "Peers that leave, and failures").  Never
 * undone; safe to call any number of times, from any thread.
 */
void ptl_job_exit_known(void);

/* Lets a transport that needs it move data (tcp); a no-op on shm. */
int ptl_progress(struct ptl_ni *ni);

/*
 * The receive thread's poll (GASNET_RCV_THREAD=1; tcp and ibv, PAR builds).
 * A transport with a receive thread calls fn(arg) on that thread after each
 * of its progress passes, holding none of its own locks, so that the layer
 * above can take the events the pass queued -- and run what they mean --
 * there too, not only at the application's next call.  The call may come at
 * any time once this returns, concurrently with the application's own
 * threads; a transport without such a thread never calls it.  Meant to be
 * set once; NULL stops later calls (one already under way runs to its end).
 */
typedef void (*ptl_rcv_poll_fn)(void *arg);
void ptl_ni_set_rcv_poll(struct ptl_ni *ni, ptl_rcv_poll_fn fn, void *arg);

/* Messages that reached this NI but matched no MD (they are dropped). */
uint64_t ptl_ni_dropped(const struct ptl_ni *ni);

#endif
