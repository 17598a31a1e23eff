/*
 * Progress: the engine's poll, in two sizes, who runs which, and the send and
 * TMPMD tickets a message holds while in flight.
 *
 * A ring look (ring_look) reads the slot rings that peers on this host write
 * and runs the handlers of what is there.  The whole pass (poll_pass) looks
 * at the rings, the exit flag and the transport's progress, then takes SYS
 * events (up to GASNET_PORTAL_SYS_LIMIT, 0 meaning all), SAFE_EQ events (up
 * to GASNET_PORTAL_SAFE_LIMIT: they only release resources and run reply
 * handlers) and AM_EQ events (up to GASNET_PORTAL_AM_LIMIT, each taken only
 * while this thread holds what a reply needs -- 2 send tickets, a TMPMD
 * ticket and an RplSB chunk -- so a request handler's reply never waits),
 * each queue looked at with a few loads before it is taken from, and
 * publishes the statistics page.
 *
 * gpc_poll (a barrier's or a collective's try, a sync that finds work
 * pending) runs the whole pass.  A wait turn (gpc_wait_turn), and
 * gasnet_AMPoll (gpc_client_poll) where every peer maps this node's region
 * and rings carry the AMs, make a ring look, or the whole pass when one is
 * due ("Fairness" below), as a call turn (gpc_call_progress: syncs of done
 * operations, every 64th copy to a mapped peer, every 256th AM request)
 * does on its own count; elsewhere gasnet_AMPoll runs the whole pass.  A
 * wait turn whose pass found nothing yields the core when the wait mode or
 * an overcommitted host asks.
 * Handlers never poll.  The receive thread (rcv_thread_poll) takes the SYS,
 * SAFE and AM queues until a round finds nothing.  doc/progress.md states the
 * rule a client can count on and its bounds.
 */
#include <sched.h>
#include <stdatomic.h>

#include "conduit/am/am.h"
#include "conduit/am/am_ring.h"
#include "conduit/am/chunks.h"
#include "conduit/exit/exit.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "conduit/core/stats.h"
#include "conduit/credits/sys.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"
#include "util/slowwait.h"

void gpc_give_tickets(int send_tickets, int tmpmd_tickets)
{
    if (send_tickets)
        gp_count_add(&gpc.send_tickets_free, send_tickets);
    if (tmpmd_tickets)
        gp_count_add(&gpc.tmpmd_tickets_free, tmpmd_tickets);
}

static int try_take_tickets(int send_tickets, int tmpmd_tickets)
{
    if (!gp_count_take(&gpc.send_tickets_free, send_tickets))
        return 0;
    if (tmpmd_tickets && !gp_count_take(&gpc.tmpmd_tickets_free, tmpmd_tickets)) {
        gp_count_add(&gpc.send_tickets_free, send_tickets);
        return 0;
    }
    return 1;
}

void gpc_take_tickets(uint32_t dest, int send_tickets, int tmpmd_tickets)
{
    struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
    while (!try_take_tickets(send_tickets, tmpmd_tickets)) {
        gpc_wait_turn();
        gp_slow_wait_check(&slow, "am", "%d send ticket(s)%s for a message to node %u "
                           "(%lld of %lld send tickets free; every ticket waits for a peer's "
                           "acknowledgement)", send_tickets,
                           tmpmd_tickets ? " and a TMPMD ticket" : "", dest,
                           (long long)gp_count_get(&gpc.send_tickets_free), (long long)gpc.send_tickets_limit);
    }
}

static int reserve_reply(struct gpc_am_reserve *reserve)
{
    if (!try_take_tickets(2, 1))
        return 0;
    reserve->rplsb_chunk = gpc_chunk_get(&gpc.rplsb_chunks);
    if (reserve->rplsb_chunk < 0) {
        gpc_give_tickets(2, 1);
        return 0;
    }
    reserve->send_tickets = 2;
    reserve->tmpmd_tickets = 1;
    return 1;
}

static void release_reply(struct gpc_am_reserve *reserve)
{
    if (reserve->rplsb_chunk >= 0)
        gpc_chunk_put(&gpc.rplsb_chunks, (uint32_t)reserve->rplsb_chunk);
    gpc_give_tickets(reserve->send_tickets, reserve->tmpmd_tickets);
}

_Noreturn static void queue_overflow(const char *queue, const char *hint)
{
    gp_fatal("the %s event queue overflowed and events were lost (hint: %s)", queue, hint);
}

/*
 * The queues the pass looks at, through probes: a few loads each, no call
 * and no handle lookup, since most passes find every queue empty (an empty
 * gasnet_AMPoll is what fine-grained clients pay before every send).  Until
 * attach has made the queues, the probes read counts that stay 0.
 */
static const _Atomic uint64_t no_events;
static const unsigned no_pending_events;
#define NO_QUEUE { &no_events, &no_events, &no_events, &no_pending_events }
static struct ptl_eq_probe sys_queue = NO_QUEUE, safe_queue = NO_QUEUE, am_queue = NO_QUEUE;

void gpc_progress_watch_queues(void)
{
    ptl_eq_probe(gpc.ni, gpc.sys_eq, &sys_queue);
    ptl_eq_probe(gpc.ni, gpc.safe_eq, &safe_queue);
    ptl_eq_probe(gpc.ni, gpc.am_eq, &am_queue);
}

/* Each returns the number of events it took. */
static int poll_safe(void)
{
    struct ptl_event event;
    int taken;
    for (taken = 0; gpc.safe_events_per_poll == 0 || taken < gpc.safe_events_per_poll; taken++) {
        int rc = ptl_eq_get(gpc.ni, gpc.safe_eq, &event);
        if (rc == PTL_EQ_EMPTY)
            break;
        if (rc == PTL_EQ_DROPPED)
            queue_overflow("SAFE", "raise GASNET_PORTAL_MSG_LIMIT or GASNET_PORTAL_SB_CHUNKS");
        gpc_safe_event(&event);
        gp_count_add(&gpc.safe_events_taken, 1);
    }
    return taken;
}

/*
 * Events lost from the AM_EQ: the queue is sized so that only catch-basin
 * hits (requests beyond the ReqRB) can overflow it, so the events already
 * queued are taken first -- a CB hit among them is the better diagnosis --
 * and the overflow is fatal once the queue is drained.
 */
static int am_events_lost; /* set and read with atomics: every polling thread sees it */

static int poll_am(void)
{
    struct ptl_event event;
    struct gpc_am_reserve reserve;
    int taken;
    for (taken = 0; gpc.am_events_per_poll == 0 || taken < gpc.am_events_per_poll; taken++) {
        if (ptl_eq_probe_count(&am_queue) == 0 || !reserve_reply(&reserve))
            break;
        int rc = ptl_eq_get(gpc.ni, gpc.am_eq, &event);
        if (rc == PTL_EQ_DROPPED)
            __atomic_store_n(&am_events_lost, 1, __ATOMIC_RELAXED);
        if (rc == PTL_EQ_EMPTY || event.type == 0) {
            release_reply(&reserve);
            break;
        }
        gpc_am_event(&event, &reserve);
        gp_count_add(&gpc.am_events_taken, 1);
        release_reply(&reserve);
    }
    gpc_am_noop_flush();
    if (__atomic_load_n(&am_events_lost, __ATOMIC_RELAXED) && ptl_eq_probe_count(&am_queue) == 0)
        queue_overflow("AM", "keep GASNET_PORTAL_FLOW_CONTROL on, or raise "
                       "GASNET_PORTAL_AMRECV_SPACE");
    return taken;
}

/*
 * Fairness: what a wait or a call owes the rest of the engine while the
 * slot rings are busy.  Between two whole passes (the exit flag, the
 * transport's progress, the SYS, SAFE and AM queues, the statistics page)
 * a thread makes at most PASS_EVERY_TURNS - 1 ring-only looks, and the
 * ring messages they handle stop them once PASS_EVERY_RING_MESSAGES are
 * reached: a credit, an exit or a tcp peer's request waits for at most
 * 16 looks or 64 handlers, whichever comes first (doc/progress.md).
 */
#define PASS_EVERY_TURNS 16
#define PASS_EVERY_RING_MESSAGES 64
/* Calls that may end without waiting (gpc_call_progress) run it every 64th time: a one-way
 * flood of ring requests makes one such call per message, and a pass costs about what a
 * message does. */
#define CALLS_PER_PASS 64

/* This thread's looks and ring messages since its last whole pass (per thread in PAR). */
static _Thread_local struct {
    unsigned looks;
    unsigned ring_messages;
} since_pass;

static void after_taking(void);

/* Most polls find nothing: each queue is looked at with a few loads before
 * it is taken from.  Returns the number of events taken. */
static int poll_pass(void)
{
    since_pass.looks = 0;
    since_pass.ring_messages = 0;
    int taken = gpc_ring_poll();
    if (__builtin_expect(gpc_shutdown_signal != 0, 0))
        gpc_exit_check_flag();
    ptl_progress(gpc.ni);
    if (!ptl_eq_probe_idle(&sys_queue))
        taken += gpc_poll_sys();
    if (!ptl_eq_probe_idle(&safe_queue))
        taken += poll_safe();
    if (ptl_eq_probe_count(&am_queue) != 0 || __atomic_load_n(&am_events_lost, __ATOMIC_RELAXED))
        taken += poll_am();
    /* Counted puts end without an event: they count as the SAFE events they replace. */
    int64_t counted = ptl_counted_taken(gpc.ni);
    if (counted > 0) {
        gp_count_add(&gpc.safe_events_taken, counted);
        taken += (int)counted;
    }
    gpc_stats_pass();
    if (taken > 0)
        after_taking();
    return taken;
}

/* The whole pass is owed (see "Fairness" above). */
static int pass_due(void)
{
    return ++since_pass.looks >= PASS_EVERY_TURNS ||
           since_pass.ring_messages >= PASS_EVERY_RING_MESSAGES;
}

static int ring_look(void)
{
    int taken = gpc_ring_poll();
    since_pass.ring_messages += (unsigned)taken;
    if (taken > 0)
        after_taking();
    return taken;
}

/* Whether every peer maps this node's region (one host: shm, or the hybrid's one host), so that
 * a post reaches this node through memory: 0 not known yet (before attach), 1 yes, 2 no. */
static int peers_map_state;

static int peers_all_map_this_node(void)
{
    int state = __atomic_load_n(&peers_map_state, __ATOMIC_RELAXED);
    if (state == 0 && gpc.attached) {
        state = ptl_doze_possible(gpc.ni) ? 1 : 2;
        __atomic_store_n(&peers_map_state, state, __ATOMIC_RELAXED);
    }
    return state == 1;
}

int gpc_poll(void)
{
    poll_pass();
    return GASNET_OK;
}

/*
 * Clients call gasnet_AMPoll before every send of fine-grained traffic, and most polls find
 * nothing: the whole pass on every call (three queue probes, the transport's pass, the
 * statistics page) is most of an empty poll's cost.  Where every peer maps this node's region
 * and the slot rings carry the AMs, nothing waits for a whole pass but SYS messages,
 * Portals-path events and the exit flag, so the poll is a wait turn's look without the wait
 * and owes them what a wait turn does.  A peer over tcp, ibv or ofi keeps the whole pass on
 * every call: the transport writes some messages of a pass only at the next one (tcp), and a
 * client may poll once after its sends and then compute for a long time.
 */
int gpc_client_poll(void)
{
    if (!gpc_ring_in_use() || !peers_all_map_this_node() || pass_due())
        poll_pass();
    else
        ring_look();
    return GASNET_OK;
}

/*
 * A call a client may loop on that can end without waiting: an AM request
 * (a loopback one runs its handler in the call and its reply is in before
 * GASNET_BLOCKUNTIL looks), an RMA to a mapped peer, a sync of what is
 * already done.  Such a loop never reaches a wait turn, so the call itself
 * serves the peers, as GASNet's conduits poll at the top of each request:
 * a look at the rings (peers on this host), and every CALLS_PER_PASS-th
 * call the whole pass, which is where a tcp, ibv or ofi peer's request, a
 * SYS message and the exit flag are seen; sooner when the looks since the
 * last pass have handled PASS_EVERY_RING_MESSAGES.
 */
void gpc_call_progress(void)
{
    static _Thread_local unsigned calls;   /* this thread's, in PAR builds */
    /* A handler never polls (no handler runs inside another), and before attach there is
     * nothing to poll: an inline copy and a sync of GASNET_INVALID_HANDLE may come from either. */
    if (!gpc.attached || gpc_in_handler)
        return;
    if (++calls % CALLS_PER_PASS == 0 || since_pass.ring_messages >= PASS_EVERY_RING_MESSAGES)
        poll_pass();
    else if (gpc_ring_in_use())
        ring_look();
}

/*
 * AM requests make a call turn every GPC_REQUESTS_PER_CALL_TURN-th request
 * of a thread (gpc_request_progress, inline in progress.h), not each: a
 * one-way flood of ring requests pays for every call turn it makes, and a
 * request's own path is short enough that a turn on each would be a large
 * share of it (doc/decisions.md, "Where gp polls", has the figures).  A loop
 * of loopback round trips (one request each) still answers a peer on this
 * host within 256 of them and any other within 256 x CALLS_PER_PASS.
 */
_Thread_local unsigned gpc_requests_made;

/*
 * A transport's receive thread (GASNET_RCV_THREAD=1) after its progress
 * pass: the same queues in the same order as gpc_poll, so the handlers of
 * what arrived run on that thread, under the locks any polling thread
 * takes.  Unlike one poll it goes on until a round finds nothing to take:
 * the thread sleeps until the transport has news, and requests left past
 * GASNET_PORTAL_AM_LIMIT would wait for the application, whose peers may
 * have nothing more to send.  A shutdown signal is acted on here too: the
 * application may be computing for a long time.  (The statistics page is
 * left to the application's polls: it has one writer at a time.)
 */
static void rcv_thread_poll(void *unused)
{
    (void)unused;
    gpc_exit_check_flag();
    int taken;
    do {
        taken = gpc_poll_sys();
        taken += poll_safe();
        taken += poll_am();
    } while (taken > 0);
}

void gpc_rcv_poll_setup(void)
{
    ptl_ni_set_rcv_poll(gpc.ni, rcv_thread_poll, NULL);
}

/*
 * Dozing: in GASNET_WAIT_BLOCK (or SPINBLOCK) a wait that has found nothing
 * for DOZE_AFTER_EMPTY_PASSES whole passes in a row sleeps in the kernel
 * (ptl_doze) until a peer posts to this node -- a ring message, an event
 * into one of its queues -- or GP_DOZE_MAX_US pass, and then polls again.
 * A host with more ranks than cores then runs the ranks that work: ranks
 * that yield still take a turn of the CPU each time the scheduler comes
 * round to them, and a pair doing round trips waits behind every one.
 *
 * Only when every peer maps this node's region (ptl_doze_possible): a
 * message over tcp, ibv or ofi would not wake it.  In PAR builds another
 * thread of the process may take what a dozer waits for (its reply, the
 * message that ends its barrier), and no peer's post follows to wake it:
 * a thread whose pass took messages wakes the process's dozers, and bumps
 * taking_passes before it looks at the doze word; a thread about to doze
 * announces, then compares taking_passes with what it saw at the end of its
 * previous turn, before its caller last tested what it waits for.  Each
 * side stores and then loads the other's word with a full fence between
 * (the store-buffering pattern, as in ptl/doze.c), so either the dozer sees
 * the bump and polls on, or the taker sees the announcement and wakes it.
 *
 * Some ends wake nobody: a flag a peer stores into this node's segment with
 * a put (GASNET_BLOCKUNTIL on it), a wake-up missed in the window doze.c
 * describes.  A doze therefore sleeps DOZE_FIRST_US at first and twice as
 * long after each doze that slept its whole length, up to GP_DOZE_MAX_US:
 * such an end waits at most about as long again as the wait had already
 * lasted (and the cap), while a rank idle for long wakes rarely.  Waits
 * whose end is such a store by design (a ring slot) never doze.
 */
#define DOZE_AFTER_EMPTY_PASSES 64
#define DOZE_FIRST_US 50u

static struct {
    uint64_t dozes, woken, capped_sleeps;   /* woken by a peer; capped: slept the whole cap */
} doze_state;
#if GP_PAR
static _Atomic uint64_t taking_passes;      /* passes of any thread that took messages */
static _Thread_local uint64_t taking_passes_seen; /* taking_passes at the end of this thread's last turn */
#endif
/* Whole passes in a row of this thread's waits that found nothing, and the length of its
 * next doze (0: DOZE_FIRST_US). */
static _Thread_local unsigned empty_passes, next_doze_us;

static int doze_allowed(void)
{
    if (gpc.wait_mode != GASNET_WAIT_BLOCK && gpc.wait_mode != GASNET_WAIT_SPINBLOCK)
        return 0;
    return peers_all_map_this_node();
}

/* A pass took messages: in PAR, what a dozing thread of this process waits for may be among
 * them (see "Dozing" above). */
static void after_taking(void)
{
#if GP_PAR
    if (doze_allowed()) {
        atomic_fetch_add_explicit(&taking_passes, 1, memory_order_seq_cst);
        /* The add's store before the doze word's load: the taker's half of the store-load
         * pair whose other half is ptl_doze_announce's fence before others_took's load.  An
         * LL/SC add (aarch64 without LSE, POWER) lets a later load pass its store half. */
        gp_fence_full_after_rmw();
        ptl_wake(ptl_doze_word(gpc.ni, gpc.rank)); /* this node's own word: never NULL once attached */
    }
#endif
}

/* In PAR, whether another thread took messages since this one's caller last looked. */
static int others_took(void)
{
#if GP_PAR
    return atomic_load_explicit(&taking_passes, memory_order_seq_cst) != taking_passes_seen;
#else
    return 0;
#endif
}

/* After a pass of a wait turn that took nothing: doze once enough of them came in a row. */
static void after_empty_pass(void)
{
    if (++empty_passes < DOZE_AFTER_EMPTY_PASSES || !doze_allowed()) {
        sched_yield();
        return;
    }
    ptl_doze_announce(gpc.ni);
    /* The last look, after the announcement: a post it misses sees the announcement. */
    if (poll_pass() == 0 && gpc_shutdown_signal == 0 && !others_took()) {
        unsigned max_us = (unsigned)gp_cfg.gp_doze_max_us;
        unsigned sleep_us = next_doze_us ? next_doze_us : DOZE_FIRST_US;
        if (sleep_us > max_us)
            sleep_us = max_us;
        __atomic_fetch_add(&doze_state.dozes, 1, __ATOMIC_RELAXED);
        if (ptl_doze(gpc.ni, sleep_us)) {
            __atomic_fetch_add(&doze_state.woken, 1, __ATOMIC_RELAXED);
            next_doze_us = 0;
        } else {
            if (sleep_us == max_us)
                __atomic_fetch_add(&doze_state.capped_sleeps, 1, __ATOMIC_RELAXED);
            next_doze_us = sleep_us <= max_us / 2 ? 2 * sleep_us : max_us;
        }
    } else {
        empty_passes = 0;
        next_doze_us = 0;
    }
    ptl_doze_end(gpc.ni);
}

void gpc_doze_counts(uint64_t *dozes, uint64_t *woken, uint64_t *capped_sleeps)
{
    *dozes = __atomic_load_n(&doze_state.dozes, __ATOMIC_RELAXED);
    *woken = __atomic_load_n(&doze_state.woken, __ATOMIC_RELAXED);
    *capped_sleeps = __atomic_load_n(&doze_state.capped_sleeps, __ATOMIC_RELAXED);
}

/*
 * One turn of a wait for a peer: for a flag, a count, or a resource (a ring
 * slot, a credit, a chunk, a ticket) that comes back with the peer's
 * answer.  On a host with more ranks than cores the peer may need this core
 * to send that answer, so a pass that found nothing gives the core up (or,
 * in GASNET_WAIT_BLOCK, dozes: see above); a pass that took events goes
 * straight on, as what it took may have been the wait's end.
 *
 * Where slot rings carry this node's AMs, the answer is most likely in one:
 * a turn looks only at the rings (a load of a line in this core's cache per
 * peer) until the whole pass is due (see "Fairness" above).  A reply that
 * lands while a whole pass runs waits for its end, so the pass is kept
 * rare while the rings carry the traffic (doc/decisions.md, "On-node AMs").
 */
static void wait_turn(int may_doze)
{
    /* Every 16th turn of the wait's own is a whole pass, whatever else ran one: a loop whose
     * other calls poll (a barrier's tries) would otherwise never come to a pass here, and so
     * never yield the core an overcommitted host's peers need. */
    static _Thread_local unsigned wait_turns;   /* this thread's, in PAR builds */
    int own_pass = ++wait_turns % PASS_EVERY_TURNS == 0;
    if (gpc_ring_in_use() && !own_pass && !pass_due()) {
        if (ring_look() != 0)
            empty_passes = 0;
        return;
    }
    if (poll_pass() != 0) {
        empty_passes = 0;
        next_doze_us = 0;
        return;
    }
    if (may_doze && gpc.wait_mode != GASNET_WAIT_SPIN)
        after_empty_pass();
    else if (gpc.wait_mode != GASNET_WAIT_SPIN || gpc.oversubscribed)
        sched_yield();
}

void gpc_wait_turn(void)
{
    wait_turn(1);
#if GP_PAR
    /* Acquire: before the caller's test of what it waits for, which a taker's bump follows. */
    taking_passes_seen = atomic_load_explicit(&taking_passes, memory_order_acquire);
#endif
}

void gpc_wait_turn_awake(void)
{
    wait_turn(0);
}
