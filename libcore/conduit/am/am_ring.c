/*
 * Active messages between processes that map each other's regions (shm):
 * per ordered pair of nodes of one host, a request ring and a reply ring of
 * fixed slots living in the receiver's region, written by the sender with
 * plain stores and read by the receiver's polls.  doc/decisions.md ("On-node
 * AMs: slot rings") says where this departs from the Portals protocol of
 * seed 000 and why; the Portals path (am.c) carries everything else: peers
 * on other hosts or not mapped here, this node itself, every message of a
 * host of more than GP_SHM_AM_RING_RANKS nodes, and every message when
 * GP_SHM_AM_RING=0 or GASNET_PORTAL_FLOW_CONTROL=0.
 *
 * The rings belong to the host, not the job: the host's nodes are numbered
 * 0, 1, ... in rank order (their local numbers, the same on each of them),
 * and each node's mailbox (allocated in its region at attach, and found by
 * its peers as a plain MD on PT_MBOX through ptl_direct_address, so the
 * conduit never names the transport) holds, for every sender s of its host,
 * under s's local number, two rings: s's requests to this node, and s's
 * replies to this node's requests.  So a mailbox grows with the host's
 * nodes, whatever the job's size, and peers on other hosts cost nothing.
 * A ring is RING_SLOTS slots and two counters on lines of their own:
 * `consumed` (written by the receiver) and `produced` (written by the
 * sender).  A slot is published by storing its sequence number (message
 * index + 1) last, with release; the receiver polls the next slot's
 * sequence number, so an empty ring costs one load of a line in its cache.
 * Hosts of more than RING_SCAN_NODES nodes add a doorbell word to the mailbox
 * (gpc_ring_poll says how), so that an empty poll costs a few loads whatever
 * the number of peers.  Its bit b stands for the senders whose local number is
 * b modulo 64: on a host of more than 64 nodes a rung bit sends the receiver
 * to up to four senders' rings, which it looks at before it locks.  The
 * doorbell is one line that every sender and the receiver write, so ringing it
 * per message moves that line to and fro; a receiver therefore looks directly
 * at the rings of the few senders it heard from last (its hot senders, at most
 * HOT_SENDERS), and flags them in its mailbox (`polled_directly`), and a
 * flagged sender does not ring.  A working pair then costs what it costs on a
 * small host, however many others wait (promote_sender, demote_sender).
 *
 * Flow control: the slots are the credits.  A requester may send a request
 * to T only while
 *
 *     (S - H) + (P - C) < RING_SLOTS
 *
 * S: requests it sent to T; H: those T has handled (T's `consumed` of the
 * request ring, stored after the handler, and after its reply was
 * published); P: replies T wrote to it; C: those it consumed.  Every request
 * not yet handled yields at most one reply, so the left side bounds both
 * rings' occupancy: a request always has a slot, and a reply never finds its
 * ring full (a handler's reply never waits).  The loads go C, then H, then
 * P: stale values of C and H only overestimate, and a P newer than H counts
 * a reply twice, never zero times.  No no-op reply is needed: handling the
 * request returns its slot.
 *
 * Long: the payload is copied straight into the target's segment (mapped
 * here), then the header is posted; no LID join.  SEQ takes no lock.  In
 * polled mode (hosts of up to RING_SCAN_NODES nodes) it takes no atomic
 * read-modify-write either; in doorbell mode a sender sets its doorbell bit
 * with an atomic OR (only when it finds the bit clear) and a receiver takes
 * a non-zero doorbell with an atomic exchange (ring_doorbell, gpc_ring_poll).
 * PAR adds a small spin lock per ring to produce and a try-lock per ring to
 * consume (handlers of one ring run in order).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_ring.h"
#include "conduit/am/am_wire.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"
#include "util/slowwait.h"

#define RING_SLOTS 16u
#define RING_SCAN_NODES 4u   /* hosts up to this size poll every ring; larger ones a doorbell */
#define DOORBELL_BITS 64u
#define HOT_SENDERS 4u       /* senders a doorbell-mode receiver polls directly */

/*
 * One message: the first line holds a Short's header and 12 arguments, the
 * second the other 4 and a Long's offset, and a Medium payload starts on
 * the third, so that 960 bytes take 15 lines and not 16 (doc/decisions.md,
 * "On-node AMs", has the figure).
 *
 * A Long's offset and a payload of up to RING_LONG_IN_SLOT bytes ride in
 * the slot, and the receiver copies the payload into its segment before the
 * handler runs: in the first line, after the arguments, when all of it fits
 * there (long_in_first_line: a Long of 8 bytes and up to 8 arguments then
 * moves one line, as a Short does), else in the second.  A second line is
 * one more cache line to move per message, and a payload stored straight
 * into the receiver's segment one more again.
 */
#define RING_LONG_IN_SLOT 40u
#define RING_FIRST_LINE_ARGS 12u
/* Where a Long of nbytes with nargs arguments keeps its offset and payload: after the
 * arguments in the first line (1), or in the second line's dest_offset and long_payload. */
static inline int long_in_first_line(unsigned nargs, size_t nbytes)
{
    return nargs * sizeof(gasnet_handlerarg_t) + sizeof(uint64_t) + nbytes <=
           RING_FIRST_LINE_ARGS * sizeof(gasnet_handlerarg_t);
}
struct ring_slot {
    _Atomic uint32_t seq;        /* message index + 1, stored last */
    uint8_t handler;
    uint8_t category;
    uint8_t nargs;
    uint8_t unused8;
    uint32_t nbytes;
    uint32_t unused32;
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    uint64_t dest_offset;        /* Long: where in the receiver's segment */
    char long_payload[RING_LONG_IN_SLOT]; /* a Long of at most this many bytes */
    char payload[GPC_MAX_MEDIUM];
};
_Static_assert(sizeof(struct ring_slot) % 64 == 0, "slots are whole cache lines");
_Static_assert(offsetof(struct ring_slot, payload) % 64 == 0, "Medium payloads start a line");
_Static_assert(offsetof(struct ring_slot, long_payload) + RING_LONG_IN_SLOT <= 128,
               "a small Long rides in the line that holds its offset");
_Static_assert(offsetof(struct ring_slot, args) + RING_FIRST_LINE_ARGS * sizeof(gasnet_handlerarg_t) == 64,
               "the first line ends with the twelfth argument");

struct ring {
    _Atomic uint64_t consumed;   /* written by the receiver */
    char pad0[56];
    _Atomic uint64_t produced;   /* written by the sender */
    char pad1[56];
    struct ring_slot slot[RING_SLOTS];
};

enum { RING_REQUEST = 0, RING_REPLY = 1 };

/* The mailbox: this header, then the rings, [sender][kind]. */
struct mailbox {
    _Atomic uint64_t doorbell;   /* bit b: a sender of local number b modulo 64 posted since
                                  * the receiver last looked */
    char pad[56];
    /* [sender's local number]: 1 while the receiver looks at that sender's rings on every
     * poll, so that its posts need not ring.  Written by the receiver only when its hot
     * senders change: the senders keep these lines in their caches. */
    _Atomic uint8_t polled_directly[GPC_RING_MAX_LOCAL_NODES];
    struct ring ring[];
};
_Static_assert(offsetof(struct mailbox, ring) % 64 == 0, "the rings start a line");

#if GP_PAR
typedef _Atomic int ring_lock_t;
static inline void produce_lock(ring_lock_t *lock)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(lock, 1, memory_order_acquire))
        while (atomic_load_explicit(lock, memory_order_relaxed))
            if (++spins % 256 == 0)
                sched_yield();   /* the holder may be descheduled (oversubscribed hosts) */
}
static inline int consume_trylock(ring_lock_t *lock)
{
    return atomic_load_explicit(lock, memory_order_relaxed) == 0 &&
           !atomic_exchange_explicit(lock, 1, memory_order_acquire);
}
static inline void ring_unlock(ring_lock_t *lock)
{
    atomic_store_explicit(lock, 0, memory_order_release);
}
#define produce_unlock ring_unlock
#define consume_unlock ring_unlock
#else
/* No producer lock; the consumer's is a plain flag, against a poll nested in a handler (a
 * blocking call that polls) taking the ring's next message while the outer one's slot is in
 * use: the nested poll passes that ring by. */
typedef char ring_lock_t;
#define produce_lock(l) ((void)(l))
#define produce_unlock(l) ((void)(l))
static inline int consume_trylock(ring_lock_t *lock)
{
    if (*lock)
        return 0;
    *lock = 1;
    return 1;
}
static inline void consume_unlock(ring_lock_t *lock)
{
    *lock = 0;
}
#endif

/*
 * Where a ring's next message will show: the sequence number word of its next slot and the
 * value that word takes when that message is posted, kept by whoever takes from the ring.  An
 * empty look then reads two words and the slot's, and needs no slot arithmetic.  In PAR builds
 * another thread may read an entry half updated: that look sees a message that is not there
 * (poll_peer's own check finds nothing) or misses one for a look (the next one sees it).
 */
struct ring_watch {
    const _Atomic uint32_t *next_seq;
    uint32_t want;
};

static inline int watch_ready(const struct ring_watch *w)
{
    const _Atomic uint32_t *next_seq = __atomic_load_n(&w->next_seq, __ATOMIC_RELAXED);
    return atomic_load_explicit(next_seq, memory_order_relaxed) ==
           __atomic_load_n(&w->want, __ATOMIC_RELAXED);
}

/* This node's view of one peer; lines split by who touches them when. */
struct ring_peer {
    /* sending requests to the peer */
    struct ring *req_out;        /* in the peer's mailbox */
    _Atomic uint64_t *doorbell;  /* the peer's, in doorbell mode, else NULL */
    const _Atomic uint8_t *polled_directly; /* the peer's flag for this node, with doorbell */
    uint32_t *doze;              /* the peer's doze word (ptl_wake), for requests and replies */
    char *segment;               /* the peer's segment, mapped here (Long) */
    uint64_t req_sent;           /* S */
    gp_count_t stalls;           /* requests that waited for a slot */
    gp_count_t rung;             /* posts that set this node's doorbell bit at the peer */
    ring_lock_t req_lock;
    char pad0[64];
    /* replying to the peer */
    struct ring *rep_out;        /* in the peer's mailbox */
    uint64_t rep_sent;           /* P, as the replier counts it */
    ring_lock_t rep_lock;
    char pad1[64];
    /* receiving from the peer */
    gasnet_node_t node;          /* the peer's rank: its handlers' token source */
    struct ring *req_in;         /* in this node's mailbox */
    struct ring *rep_in;
    uint64_t req_head;           /* requests handled (H) */
    _Atomic uint64_t rep_head;   /* replies consumed (C); requesters read it */
    struct ring_watch *req_watch; /* the two rings' entries in ring_state.watch */
    struct ring_watch *rep_watch;
    gp_count_t received;         /* requests and replies taken */
    ring_lock_t req_poll_lock;
    ring_lock_t rep_poll_lock;
    char pad2[64];
};

static struct {
    struct mailbox *mailbox;     /* this node's */
    _Atomic uint64_t *doorbell;  /* this node's, in doorbell mode, else NULL */
    ptl_handle_md_t md;
    uint32_t me;                 /* this node's local number */
    /* [node]: its local number; for a node of another host, gpc.local_nodes, whose entry of
     * peer[] has no rings, so that one lookup answers both "which" and "whether" */
    uint32_t *local_of;
    struct ring_peer *peer;      /* [local number], gpc.local_nodes + 1; NULL when no ring is in use */
    uint32_t *active;            /* local numbers of the peers with rings, in polling order */
    uint32_t nactive;
    /* [2k]: replies from active[k], [2k + 1]: its requests */
    struct ring_watch *watch;
    uint32_t nwatch;
    /* Doorbell mode: the senders this node polls directly, and when each last had a message
     * (a count of doorbell-mode passes that took some); changed under hot_lock. */
    _Atomic uint32_t hot[HOT_SENDERS];
    uint64_t hot_last_took[HOT_SENDERS];   /* __atomic relaxed: a hint, written by any poller */
    _Atomic uint32_t nhot;
    uint64_t passes_that_took;             /* as hot_last_took */
    ring_lock_t hot_lock;
} ring_state;

_Static_assert(DOORBELL_BITS * 4 >= GPC_RING_MAX_LOCAL_NODES, "a doorbell bit stands for at most 4 senders");

static int ring_wanted(void)
{
    return gp_cfg.gp_shm_am_ring && gp_cfg.portal_flow_control && gpc.local_nodes > 1 &&
           gpc.local_nodes <= (gasnet_node_t)gp_cfg.gp_shm_am_ring_ranks;
}

static uint64_t mailbox_bytes(void)
{
    return sizeof(struct mailbox) + (uint64_t)gpc.local_nodes * 2 * sizeof(struct ring);
}

uint64_t gpc_ring_region_bytes(void)
{
    return ring_wanted() ? mailbox_bytes() + 64 : 0;
}

int gpc_ring_setup(void)
{
    if (!ring_wanted())
        return GASNET_OK;
    uint64_t bytes = mailbox_bytes();
    ring_state.mailbox = ptl_region_alloc(gpc.ni, bytes, 64);
    if (ring_state.mailbox == NULL)
        return GASNET_ERR_RESOURCE;
    memset(ring_state.mailbox, 0, bytes);
    /* A plain MD (remote offsets, no threshold, no events): peers that map this region find
     * it with ptl_direct_address; others never send to it. */
    struct ptl_md_desc desc = { .start = ring_state.mailbox, .length = bytes,
                                .threshold = PTL_MD_THRESH_INF,
                                .options = PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE,
                                .eq = PTL_EQ_NONE };
    int rc = ptl_md_attach(gpc.ni, PT_MBOX, 0, ~0ull, &desc, PTL_RETAIN, PTL_INS_AFTER,
                           PTL_INVALID_HANDLE, &ring_state.md);
    if (rc != PTL_OK) {
        gp_error("attach", "cannot attach the AM mailbox: %s", ptl_strerror(rc));
        return GASNET_ERR_RESOURCE;
    }
    gp_debug("attach", "AM mailbox: %llu bytes (%u rings of %zu bytes) for the %u nodes of this "
             "host (%u in the job)", (unsigned long long)bytes, 2 * gpc.local_nodes,
             sizeof(struct ring), gpc.local_nodes, gpc.nodes);
    return GASNET_OK;
}

/* Numbers this host's nodes in rank order; returns this node's number.  Every node of the host
 * numbers them alike, so a sender finds its rings in a receiver's mailbox under its own. */
static uint32_t number_host_nodes(uint32_t *local_of)
{
    uint32_t next = 0, me = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        if (!gpc_shares_host(node)) {
            local_of[node] = gpc.local_nodes;
            continue;
        }
        if (node == gpc.rank)
            me = next;
        local_of[node] = next++;
    }
    return me;
}

/* After the attach barrier: every peer's mailbox is in place. */
void gpc_ring_connect(void)
{
    if (ring_state.mailbox == NULL)
        return;
    uint64_t bytes = mailbox_bytes();
    uint32_t local_nodes = gpc.local_nodes;
    int doorbell = local_nodes > RING_SCAN_NODES;   /* the same choice on every node of the host */
    struct ring_peer *peer = NULL;
    uint32_t *active = calloc(local_nodes, sizeof *active);
    struct ring_watch *watch = calloc(2 * (size_t)local_nodes, sizeof *watch);
    uint32_t *local_of = calloc(gpc.nodes, sizeof *local_of);
    size_t peer_bytes = (local_nodes + 1) * sizeof *peer;
    if (posix_memalign((void **)&peer, 64, peer_bytes) != 0 || active == NULL || local_of == NULL ||
        watch == NULL)
        gp_fatal("attach: no memory for the AM rings of %u nodes", local_nodes);
    memset(peer, 0, peer_bytes);
    uint32_t me = number_host_nodes(local_of);
    uint32_t nactive = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        uint32_t local = local_of[node];
        if (node == gpc.rank || local == local_nodes)
            continue;   /* this node's own messages take the loopback path (am.c) */
        struct mailbox *theirs = ptl_direct_address(gpc.ni, node, PT_MBOX, PTL_ACCESS_PUT, 0, 0,
                                                    bytes);
        char *segment = NULL;
        if (gpc.seginfo[node].size > 0)
            segment = ptl_direct_address(gpc.ni, node, PT_RAR, PTL_ACCESS_PUT, 0, 0,
                                         gpc.seginfo[node].size);
        uint32_t *doze = ptl_doze_word(gpc.ni, node);  /* mapped, as the mailbox is */
        if (theirs == NULL || (gpc.seginfo[node].size > 0 && segment == NULL) || doze == NULL)
            continue;
        struct ring_peer *p = &peer[local];
        p->req_out = &theirs->ring[2 * (uint64_t)me + RING_REQUEST];
        p->rep_out = &theirs->ring[2 * (uint64_t)me + RING_REPLY];
        p->doorbell = doorbell ? &theirs->doorbell : NULL;
        p->polled_directly = doorbell ? &theirs->polled_directly[me] : NULL;
        p->doze = doze;
        p->segment = segment;
        p->node = node;
        p->req_in = &ring_state.mailbox->ring[2 * (uint64_t)local + RING_REQUEST];
        p->rep_in = &ring_state.mailbox->ring[2 * (uint64_t)local + RING_REPLY];
        p->rep_watch = &watch[2 * nactive];
        p->req_watch = &watch[2 * nactive + 1];
        *p->rep_watch = (struct ring_watch){ .next_seq = &p->rep_in->slot[0].seq, .want = 1 };
        *p->req_watch = (struct ring_watch){ .next_seq = &p->req_in->slot[0].seq, .want = 1 };
        active[nactive++] = local;
    }
    ring_state.me = me;
    ring_state.local_of = local_of;
    ring_state.active = active;
    ring_state.nactive = nactive;
    ring_state.watch = watch;
    ring_state.nwatch = 2 * nactive;
    ring_state.doorbell = doorbell ? &ring_state.mailbox->doorbell : NULL;
    /* A poll may read a place of the hot list before the store that filled it (relaxed loads):
     * it then finds a peer with rings, whose look costs nothing, never an empty entry. */
    for (uint32_t i = 0; i < HOT_SENDERS && nactive > 0; i++)
        atomic_store_explicit(&ring_state.hot[i], active[0], memory_order_relaxed);
    ring_state.peer = peer;
    gp_debug("attach", "AM rings to %u of %u nodes (%u on this host, local number %u; %u slots "
             "each way, %s)", nactive, gpc.nodes, local_nodes, me, RING_SLOTS,
             doorbell ? "doorbell" : "polled");
}

static inline struct ring_peer *peer_of(gasnet_node_t node)
{
    return &ring_state.peer[ring_state.local_of[node]];
}

int gpc_ring_in_use(void)
{
    return ring_state.nactive > 0;
}

int gpc_ring_to(gasnet_node_t node)
{
    return ring_state.peer != NULL && peer_of(node)->req_out != NULL;
}

void gpc_ring_peer_stats(gasnet_node_t node, struct gpc_ring_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (!gpc_ring_to(node))
        return;
    struct ring_peer *p = peer_of(node);
    stats->sent = __atomic_load_n(&p->req_sent, __ATOMIC_RELAXED) +
                  __atomic_load_n(&p->rep_sent, __ATOMIC_RELAXED);
    stats->received = (uint64_t)gp_count_get(&p->received);
    stats->stalls = (uint64_t)gp_count_get(&p->stalls);
    stats->rung = (uint64_t)gp_count_get(&p->rung);
}

/* Fills a slot and publishes it as message n. */
static void post(struct ring *ring, uint64_t n, char *segment, unsigned category,
                 gasnet_handler_t handler, const void *source, size_t nbytes, void *dest_addr,
                 gasnet_node_t dest, int nargs, const gasnet_handlerarg_t *args)
{
    struct ring_slot *slot = &ring->slot[n % RING_SLOTS];
    slot->handler = handler;
    slot->category = (uint8_t)category;
    slot->nargs = (uint8_t)nargs;
    slot->nbytes = (uint32_t)nbytes;
    if (nargs > 0)
        memcpy(slot->args, args, (size_t)nargs * sizeof *args);
    if (category == GPC_MEDIUM) {
        if (nbytes > 0)
            memcpy(slot->payload, source, nbytes);
    } else if (category == GPC_LONG) {
        uint64_t offset = gpc_long_offset(dest_addr, gpc.seginfo[dest].addr);
        slot->nbytes = (uint32_t)nbytes;
        if (long_in_first_line((unsigned)nargs, nbytes)) {
            char *after_args = (char *)&slot->args[nargs];
            memcpy(after_args, &offset, sizeof offset);
            if (nbytes > 0) /* zero bytes may come from and go to NULL */
                memcpy(after_args + sizeof offset, source, nbytes);
        } else {
            slot->dest_offset = offset;
            if (nbytes > RING_LONG_IN_SLOT)
                memcpy(segment + offset, source, nbytes);
            else if (nbytes > 0)
                memcpy(slot->long_payload, source, nbytes);
        }
    }
    atomic_store_explicit(&slot->seq, (uint32_t)(n + 1), memory_order_release);
}

/*
 * Doorbell mode: tells the receiver that this node posted, unless it polls this node's rings
 * directly.  The bit is set only when clear, so a busy sender does not keep taking the
 * receiver's line away.
 *
 * The wake-up must not be lost: this is the store-buffering (Dekker) pattern, twice.
 *     sender:    store slot.seq;  FULL FENCE;  load polled_directly, then doorbell
 *                (set the bit if clear)
 *     receiver:  exchange doorbell to 0;  FULL FENCE;  load slot.seq  (poll_doorbell)
 *     receiver:  store polled_directly = 0;  FULL FENCE;  load slot.seq  (demote_sender)
 * Each side stores one word and then loads the word the other stores, so each needs a full
 * (store-to-load) fence between them; with both fences, at least one side sees the other's
 * store: either the receiver's poll after its exchange sees the slot, or this load sees the
 * bit cleared and sets it again, and the next poll finds it.  Seeing the bit still set (not
 * yet taken, or set again by the receiver's `again`) is as good: the receiver's exchange is
 * then later in the doorbell's order, and its fence orders the slot read after it.  A release
 * or seq_cst store of the seq alone is not enough here: on x86 a store can wait in the store
 * buffer past a later load, and on aarch64 and POWER a plain load can pass a store-release.
 */
static void ring_doorbell(struct ring_peer *p)
{
    _Atomic uint64_t *doorbell = p->doorbell;
    if (doorbell == NULL)
        return;
    uint64_t bit = UINT64_C(1) << (ring_state.me % DOORBELL_BITS);
    /* the slot's seq (post) before the loads below; pairs with poll_doorbell's and
     * demote_sender's fences */
    gp_fence_full();
    if (atomic_load_explicit(p->polled_directly, memory_order_relaxed))
        return;
    if (!(atomic_load_explicit(doorbell, memory_order_relaxed) & bit)) {
        atomic_fetch_or_explicit(doorbell, bit, memory_order_relaxed);
        gp_count_add(&p->rung, 1);
    }
}

/* (S - H) + (P - C) < RING_SLOTS, loaded in the order the header explains. */
static int request_fits(struct ring_peer *p)
{
    uint64_t consumed_replies = atomic_load_explicit(&p->rep_head, memory_order_relaxed);
    uint64_t handled = atomic_load_explicit(&p->req_out->consumed, memory_order_acquire);
    uint64_t replies = atomic_load_explicit(&p->rep_in->produced, memory_order_acquire);
    return (p->req_sent - handled) + (replies - consumed_replies) < RING_SLOTS;
}

int gpc_ring_request(gasnet_node_t dest, unsigned category, gasnet_handler_t handler,
                     void *source, size_t nbytes, void *dest_addr, int nargs,
                     const gasnet_handlerarg_t *args)
{
    if (!gpc_ring_to(dest))
        return 0;
    struct ring_peer *p = peer_of(dest);
    produce_lock(&p->req_lock);
    if (__builtin_expect(!request_fits(p), 0)) {
        struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
        gp_count_add(&p->stalls, 1);
        do {
            produce_unlock(&p->req_lock);
            gpc_wait_turn_awake(); /* the slot comes back by a store, which wakes nobody */
            gp_slow_wait_check(&slow, "am", "a request slot to node %u (its %u slots hold "
                               "requests it has not handled: is it polling?)", dest, RING_SLOTS);
            produce_lock(&p->req_lock);
        } while (!request_fits(p));
    }
    uint64_t n = p->req_sent;
    post(p->req_out, n, p->segment, category, handler, source, nbytes, dest_addr, dest, nargs,
         args);
    __atomic_store_n(&p->req_sent, n + 1, __ATOMIC_RELAXED);
    produce_unlock(&p->req_lock);
    ring_doorbell(p);
    /* A plain load after post's release store of the slot, no fence between: a load that
     * passes that store can miss a receiver just going to sleep, which then sleeps out its
     * sleep's length (ptl/doze.c says why no fence, and what bounds it). */
    ptl_wake(p->doze);
    return 1;
}

int gpc_ring_reply(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                   void *source, size_t nbytes, void *dest_addr, int nargs,
                   const gasnet_handlerarg_t *args)
{
    gasnet_node_t dest = token->source;
    struct ring_peer *p = peer_of(dest);
    token->replied = 1;
    produce_lock(&p->rep_lock);
    uint64_t n = p->rep_sent;   /* the requester's bound keeps this slot free */
    post(p->rep_out, n, p->segment, category, handler, source, nbytes, dest_addr, dest, nargs,
         args);
    __atomic_store_n(&p->rep_sent, n + 1, __ATOMIC_RELAXED);
    atomic_store_explicit(&p->rep_out->produced, n + 1, memory_order_release);
    produce_unlock(&p->rep_lock);
    ring_doorbell(p);
    ptl_wake(p->doze); /* as after a request */
    return GASNET_OK;
}

/* Runs the handler of message `head` of a ring if it is there; 1 if it was. */
static int take(struct ring *ring, uint64_t head, gasnet_node_t source, int is_request)
{
    struct ring_slot *slot = &ring->slot[head % RING_SLOTS];
    if (atomic_load_explicit(&slot->seq, memory_order_acquire) != (uint32_t)(head + 1))
        return 0;
    struct gpc_token token = { .source = source, .is_request = (uint8_t)is_request,
                               .via_ring = 1 };
    unsigned category = slot->category;
    void *buf = NULL;
    if (category == GPC_MEDIUM)
        buf = slot->payload;
    else if (category == GPC_LONG) {
        uint32_t nbytes = slot->nbytes;
        if (long_in_first_line(slot->nargs, nbytes)) {
            const char *after_args = (const char *)&slot->args[slot->nargs];
            uint64_t offset;
            memcpy(&offset, after_args, sizeof offset);
            buf = gpc_long_at(gpc.segment, offset);
            if (nbytes > 0)
                memcpy(buf, after_args + sizeof offset, nbytes);
        } else {
            buf = gpc_long_at(gpc.segment, slot->dest_offset);
            if (nbytes > 0 && nbytes <= RING_LONG_IN_SLOT)
                memcpy(buf, slot->long_payload, nbytes);
        }
    }
    gpc_run_handler(&token, slot->handler, category, buf, slot->nbytes, slot->nargs, slot->args);
    return 1;
}

static void watch_next(struct ring_watch *w, const struct ring *ring, uint64_t head)
{
    __atomic_store_n(&w->next_seq, &ring->slot[head % RING_SLOTS].seq, __ATOMIC_RELAXED);
    __atomic_store_n(&w->want, (uint32_t)(head + 1), __ATOMIC_RELAXED);
}

/* Each returns the messages taken, and sets *more when the ring may hold others (it was busy,
 * or a pass's share was taken). */
static int poll_requests(struct ring_peer *p, int *more)
{
    if (!consume_trylock(&p->req_poll_lock)) {
        *more = 1;
        return 0;
    }
    int taken = 0;
    uint64_t head = __atomic_load_n(&p->req_head, __ATOMIC_RELAXED);
    while (taken < (int)RING_SLOTS && take(p->req_in, head, p->node, 1)) {
        head++;
        taken++;
        /* after the handler and its reply: the requester may reuse the slot */
        atomic_store_explicit(&p->req_in->consumed, head, memory_order_release);
    }
    __atomic_store_n(&p->req_head, head, __ATOMIC_RELAXED);
    if (taken)
        watch_next(p->req_watch, p->req_in, head);
    consume_unlock(&p->req_poll_lock);
    *more |= taken == (int)RING_SLOTS;
    if (taken) {
        gp_count_add(&p->received, taken);
        gp_count_add(&gpc.am_events_taken, taken);
    }
    return taken;
}

static int poll_replies(struct ring_peer *p, int *more)
{
    if (!consume_trylock(&p->rep_poll_lock)) {
        *more = 1;
        return 0;
    }
    int taken = 0;
    uint64_t head = atomic_load_explicit(&p->rep_head, memory_order_relaxed);
    while (taken < (int)RING_SLOTS && take(p->rep_in, head, p->node, 0)) {
        head++;
        taken++;
        atomic_store_explicit(&p->rep_head, head, memory_order_relaxed);
    }
    if (taken)
        watch_next(p->rep_watch, p->rep_in, head);
    consume_unlock(&p->rep_poll_lock);
    *more |= taken == (int)RING_SLOTS;
    if (taken) {
        gp_count_add(&p->received, taken);
        gp_count_add(&gpc.safe_events_taken, taken);
    }
    return taken;
}

/* A look without the lock: is message head of the ring there? */
static inline int ready(const struct ring *ring, uint64_t head)
{
    return atomic_load_explicit(&ring->slot[head % RING_SLOTS].seq, memory_order_relaxed) ==
           (uint32_t)(head + 1);
}

/* Each ring's lock is taken only when the ring has a message: in PAR builds the lock is an
 * atomic exchange, and a round trip would pay two that take nothing (doc/decisions.md,
 * "Where gp polls", has the figures). */
static int poll_peer(uint32_t local, int *more)
{
    struct ring_peer *p = &ring_state.peer[local];
    int taken = 0;
    if (ready(p->rep_in, atomic_load_explicit(&p->rep_head, memory_order_relaxed)))
        taken += poll_replies(p, more);   /* replies first: they free request slots */
    if (ready(p->req_in, __atomic_load_n(&p->req_head, __ATOMIC_RELAXED)))
        taken += poll_requests(p, more);
    return taken;
}

/* Small jobs look at every ring (a load of a line in this core's cache each, until a sender
 * writes it); larger ones at the doorbell, and then at the rings of the senders it names. */
static __attribute__((noinline)) int poll_active_peers(void)
{
    int taken = 0, more = 0;
    for (uint32_t i = 0; i < ring_state.nactive; i++)
        taken += poll_peer(ring_state.active[i], &more);   /* it looks before it locks */
    return taken;
}

/* Whether a peer's rings hold a message: the looks of poll_peer, in a loop that calls
 * nothing, so an empty poll (most of them) saves and restores no registers. */
static inline int peer_has_messages(uint32_t local)
{
    const struct ring_peer *p = &ring_state.peer[local];
    return watch_ready(p->rep_watch) || watch_ready(p->req_watch);
}

static int poll_doorbell_mode(void);

int gpc_ring_poll(void)
{
    if (ring_state.doorbell != NULL) {
        uint32_t nhot = atomic_load_explicit(&ring_state.nhot, memory_order_relaxed);
        for (uint32_t i = 0; i < nhot; i++)
            if (peer_has_messages(atomic_load_explicit(&ring_state.hot[i], memory_order_relaxed)))
                return poll_doorbell_mode();
        if (atomic_load_explicit(ring_state.doorbell, memory_order_relaxed) != 0)
            return poll_doorbell_mode();
        return 0;
    }
    for (const struct ring_watch *w = ring_state.watch, *end = w + ring_state.nwatch; w < end; w++)
        if (watch_ready(w))
            return poll_active_peers();
    return 0;
}

static int is_hot(uint32_t local)
{
    uint32_t nhot = atomic_load_explicit(&ring_state.nhot, memory_order_relaxed);
    for (uint32_t i = 0; i < nhot; i++)
        if (atomic_load_explicit(&ring_state.hot[i], memory_order_relaxed) == local)
            return 1;
    return 0;
}

/* The sender leaves the hot ones: from now on it rings.  A post it made before it saw the flag
 * cleared did not ring, so the rings are looked at once more after the store (the receiver's
 * half of ring_doorbell's store-load pair), and what they hold rings this node's own bell. */
static void demote_sender(uint32_t local)
{
    atomic_store_explicit(&ring_state.mailbox->polled_directly[local], 0, memory_order_relaxed);
    gp_fence_full(); /* the flag's store before the slot loads; pairs with ring_doorbell */
    /* the rings themselves, not their watch entries: in PAR builds an entry may be half
     * updated, and a miss here would be a lost wake-up */
    const struct ring_peer *p = &ring_state.peer[local];
    if (ready(p->rep_in, atomic_load_explicit(&p->rep_head, memory_order_relaxed)) ||
        ready(p->req_in, __atomic_load_n(&p->req_head, __ATOMIC_RELAXED)))
        atomic_fetch_or_explicit(ring_state.doorbell, UINT64_C(1) << (local % DOORBELL_BITS),
                                 memory_order_relaxed);
}

/* A sender the doorbell named, and whose rings held messages, joins the hot ones, in place of
 * the one that has been longest without a message when all places are taken.  In PAR builds
 * one thread at a time changes the list; another that finds it busy leaves the sender out. */
static void promote_sender(uint32_t local)
{
    if (is_hot(local) || !consume_trylock(&ring_state.hot_lock))
        return;
    if (is_hot(local)) {   /* another thread listed it between the look and the lock */
        consume_unlock(&ring_state.hot_lock);
        return;
    }
    uint32_t nhot = atomic_load_explicit(&ring_state.nhot, memory_order_relaxed);
    uint32_t place = nhot;
    if (nhot == HOT_SENDERS) {
        place = 0;
        for (uint32_t i = 1; i < HOT_SENDERS; i++)
            if (__atomic_load_n(&ring_state.hot_last_took[i], __ATOMIC_RELAXED) <
                __atomic_load_n(&ring_state.hot_last_took[place], __ATOMIC_RELAXED))
                place = i;
        /* out of the list first: a poll that still looks at it does no harm */
        uint32_t old = atomic_load_explicit(&ring_state.hot[place], memory_order_relaxed);
        demote_sender(old);
    }
    __atomic_store_n(&ring_state.hot_last_took[place],
                     __atomic_load_n(&ring_state.passes_that_took, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    atomic_store_explicit(&ring_state.hot[place], local, memory_order_relaxed);
    if (place == nhot)
        atomic_store_explicit(&ring_state.nhot, nhot + 1, memory_order_release);
    /* listed before flagged: once the sender stops ringing, every poll looks at its rings */
    atomic_store_explicit(&ring_state.mailbox->polled_directly[local], 1, memory_order_release);
    consume_unlock(&ring_state.hot_lock);
}

/* The doorbell named senders (by local number): their rings, and the bit again for those that
 * have more. */
static int poll_doorbell(_Atomic uint64_t *doorbell)
{
    int taken = 0, more = 0;
    uint64_t senders = atomic_exchange_explicit(doorbell, 0, memory_order_seq_cst);
    /* The exchange's store before the slot loads below (poll_peer's first look is a relaxed
     * load): the receiver's half of ring_doorbell's store-load pair.  Even seq_cst, the
     * exchange does not order a later plain load after its store half where it is a
     * load-linked/store-conditional pair (aarch64 without LSE, POWER): the load may be
     * satisfied before the store-conditional is visible, see the ring empty, while the sender
     * still sees its old bit and does not ring -- a lost wake-up.  On x86 the exchange is a
     * locked instruction, already a full fence, and this is a compiler barrier. */
    gp_fence_full_after_rmw();
    uint64_t again = 0;
    while (senders != 0) {
        uint32_t bit = (uint32_t)__builtin_ctzll(senders);
        senders &= senders - 1;
        more = 0;
        for (uint32_t local = bit; local < gpc.local_nodes; local += DOORBELL_BITS) {
            if (ring_state.peer[local].req_out == NULL)
                continue;
            int from_sender = poll_peer(local, &more);   /* it looks before it locks */
            if (from_sender > 0) {
                taken += from_sender;
                promote_sender(local);
            }
        }
        if (more)
            again |= UINT64_C(1) << bit;
    }
    if (again != 0)
        atomic_fetch_or_explicit(doorbell, again, memory_order_relaxed);
    return taken;
}

/* The hot senders' rings, then the doorbell. */
static __attribute__((noinline)) int poll_doorbell_mode(void)
{
    int taken = 0, more = 0;
    uint32_t nhot = atomic_load_explicit(&ring_state.nhot, memory_order_acquire);
    for (uint32_t i = 0; i < nhot; i++) {
        int from_sender = poll_peer(atomic_load_explicit(&ring_state.hot[i], memory_order_relaxed),
                                    &more);
        if (from_sender > 0) {
            taken += from_sender;
            __atomic_store_n(&ring_state.hot_last_took[i],
                             __atomic_load_n(&ring_state.passes_that_took, __ATOMIC_RELAXED) + 1,
                             __ATOMIC_RELAXED);
        }
    }
    if (atomic_load_explicit(ring_state.doorbell, memory_order_relaxed) != 0)
        taken += poll_doorbell(ring_state.doorbell);
    if (taken > 0)
        __atomic_store_n(&ring_state.passes_that_took,
                         __atomic_load_n(&ring_state.passes_that_took, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELAXED);
    return taken;
}
