/*
 * The dynamic credit algorithm of seed 000, as credit_flow.h describes it.
 * Each function is one message of the protocol seen from one side:
 *
 *   sender      credit_take            stall -> ask for XXX extra credits
 *   target      credit_request_arrived lend from the bank within the limits
 *   requester   credit_reply_arrived   get the credits back, plus any loan
 *   lender      scavenge (bank low)    SYS_CREDIT_REVOKE to idle borrowers
 *   borrower    credit_revoke_arrived  give back what recent use does not need
 *   lender      credit_return_arrived  bank what came back
 *   sender      credit_take            short of what it holds: SYS_CREDIT_ASK
 *   target      credit_ask_arrived     lend, admit for single requests, or queue
 *   sender      credit_grant_arrived   the credits asked for
 *   target      credit_request_released bank admitted credits, serve queued asks
 *
 * Epochs are per node and counted in requests received; at the end of one
 * the Loan variables decay (>> 2, seed 001) and every peer is told, by the
 * E bit of the next message to it, to decay its Send variables for us.
 */
#include "conduit/credits/credit_flow.h"

#include <string.h>
#include <time.h>

#define DECAY(var) ((var) = (uint16_t)((var) >> 2))

_Static_assert(sizeof(struct credit_conn) == 36, "conn_state: 36 bytes per peer");

/* seen_at counts requests handled in units of this many (it is 16 bits wide). */
#define SEEN_SHIFT 8

/* Statistics of the node: several threads count them in PAR builds, under no
 * one lock (the node record has none), so each count is one atomic add. */
#if GP_PAR
#define STAT_ADD(node, field, n) __atomic_fetch_add(&(node)->stats.field, (n), __ATOMIC_RELAXED)
#else
#define STAT_ADD(node, field, n) ((node)->stats.field += (n))
#endif

#if GP_PAR
static void conn_lock(struct credit_conn *conn)
{
    while (__atomic_test_and_set(&conn->lock, __ATOMIC_ACQUIRE))
        ;
}
static int conn_trylock(struct credit_conn *conn)
{
    return !__atomic_test_and_set(&conn->lock, __ATOMIC_ACQUIRE);
}
static void conn_unlock(struct credit_conn *conn)
{
    __atomic_clear(&conn->lock, __ATOMIC_RELEASE);
}
#else
static void conn_lock(struct credit_conn *conn) { (void)conn; }
static int conn_trylock(struct credit_conn *conn) { (void)conn; return 1; }
static void conn_unlock(struct credit_conn *conn) { (void)conn; }
#endif

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }
static unsigned max_u(unsigned a, unsigned b) { return a > b ? a : b; }

/* ---- the scavenge list: peers lent more than the minimum (scavenge_lock held) ---- */

static void list_add(struct credit_node *node, uint32_t peer)
{
    struct credit_conn *conn = node->conn;
    if (conn[peer].flags & CREDIT_ON_SCAVENGE_LIST)
        return;
    conn[peer].flags |= CREDIT_ON_SCAVENGE_LIST;
    if (node->scavenge_head == CREDIT_NONE) {
        conn[peer].link_next = conn[peer].link_prev = peer;
        node->scavenge_head = peer;
        return;
    }
    uint32_t head = node->scavenge_head, tail = conn[head].link_prev;
    conn[peer].link_next = head;
    conn[peer].link_prev = tail;
    conn[tail].link_next = peer;
    conn[head].link_prev = peer;
}

static void list_remove(struct credit_node *node, uint32_t peer)
{
    struct credit_conn *conn = node->conn;
    if (!(conn[peer].flags & CREDIT_ON_SCAVENGE_LIST))
        return;
    conn[peer].flags &= (uint8_t)~CREDIT_ON_SCAVENGE_LIST;
    uint32_t next = conn[peer].link_next, prev = conn[peer].link_prev;
    if (next == peer) {
        node->scavenge_head = CREDIT_NONE;
    } else {
        conn[prev].link_next = next;
        conn[next].link_prev = prev;
        if (node->scavenge_head == peer)
            node->scavenge_head = next;
    }
    conn[peer].link_next = conn[peer].link_prev = CREDIT_NONE;
}

void credit_node_init(struct credit_node *node, uint32_t rank, uint32_t nodes,
                      struct credit_conn *conn, uint32_t credits_per_node, uint32_t banked,
                      const struct credit_limits *limits, credit_send_sys_fn send_sys,
                      void *context)
{
    memset(node, 0, sizeof *node);
    node->rank = rank;
    node->nodes = nodes;
    node->conn = conn;
    node->limits = *limits;
    node->send_sys = send_sys;
    node->context = context;
    node->scavenge_head = CREDIT_NONE;
    node->clock_ns = monotonic_ns;
    if (node->limits.revoke_timeout_ns == 0)
        node->limits.revoke_timeout_ns = CREDIT_REVOKE_TIMEOUT_NS;
    gp_count_set(&node->banked, banked);
    node->ask_head = node->ask_tail = CREDIT_NONE;
    gp_mutex_init(&node->ask_lock);
    gp_mutex_init(&node->scavenge_lock);
    gp_mutex_init(&node->epoch_lock);
    memset(conn, 0, sizeof *conn * nodes);
    for (uint32_t peer = 0; peer < nodes; peer++) {
        conn[peer].loan_credits = (uint16_t)credits_per_node;
        conn[peer].send_credits = (uint16_t)credits_per_node;
        conn[peer].link_next = conn[peer].link_prev = CREDIT_NONE;
        conn[peer].ask_next = CREDIT_NONE;
        if (peer != rank && credits_per_node > CREDIT_MIN)
            list_add(node, peer);
    }
}

/* The E bit for the next message to peer (conn locked). */
static unsigned take_epoch_flag(struct credit_conn *conn)
{
    if (!(conn->flags & CREDIT_REACHED_EPOCH))
        return 0;
    conn->flags &= (uint8_t)~CREDIT_REACHED_EPOCH;
    return 1;
}

/* The peer ended an epoch: decay what we know of our sending to it (conn locked). */
static void decay_send(struct credit_conn *conn)
{
    DECAY(conn->send_stalls);
    DECAY(conn->send_max);
    DECAY(conn->send_revoked);
}

/* Records the first stall of a wait (conn locked). */
static void note_stall(struct credit_node *node, struct credit_conn *conn,
                       struct credit_wait *wait, unsigned need)
{
    if (wait->stalled)
        return;
    wait->stalled = 1;
    wait->need = need;
    conn->send_stalls++;
    STAT_ADD(node, stalls, 1);
}

/*
 * What to ask dest for (conn locked): when the message needs more than we
 * hold for dest, admitted credits included, replies alone never let it go;
 * one ask per peer at a time (the SYS queue is sized for that).
 */
static unsigned ask_needed(struct credit_conn *conn, unsigned n)
{
    unsigned held = (unsigned)conn->send_credits + conn->admitted;
    if (conn->asked || held >= n)
        return 0;
    conn->asked = (uint8_t)(n - held);
    return conn->asked;
}

int credit_take(struct credit_node *node, uint32_t dest, unsigned n, struct credit_wait *wait,
                uint8_t *byte)
{
    struct credit_conn *conn = &node->conn[dest];
    if (!node->limits.flow_control) {
        *byte = credit_byte(0, 0, n);
        return 1;
    }
    conn_lock(conn);
    unsigned available = conn->send_credits > conn->send_inuse
                             ? (unsigned)(conn->send_credits - conn->send_inuse) : 0;
    if (conn->admitted > 0 && available + conn->admitted >= n) {
        /* Admitted credits first: they are the lender's bank, lent for a
         * request, and a request must take them home. */
        unsigned admitted = min_u(conn->admitted, n);
        conn->admitted = (uint8_t)(conn->admitted - admitted);
        conn->send_inuse = (uint16_t)(conn->send_inuse + n - admitted);
        if (conn->send_inuse > conn->send_max)
            conn->send_max = conn->send_inuse;
        *byte = credit_byte_admitted(take_epoch_flag(conn), admitted, n - admitted);
        conn_unlock(conn);
        return 1;
    }
    if (available < n) {
        note_stall(node, conn, wait, n - available);
        unsigned ask = ask_needed(conn, n);
        conn_unlock(conn);
        if (ask) {
            STAT_ADD(node, asks_sent, 1);
            node->send_sys(node->context, dest, CREDIT_SYS_ASK, ask, 0);
        }
        return 0;
    }
    conn->send_inuse = (uint16_t)(conn->send_inuse + n);
    if (conn->send_inuse > conn->send_max)
        conn->send_max = conn->send_inuse;
    unsigned extra = node->limits.dynamic ? min_u(wait->need, 7) : 0;
    *byte = credit_byte(take_epoch_flag(conn), extra, n);
    conn_unlock(conn);
    if (extra)
        STAT_ADD(node, extra_requested, extra);
    return 1;
}

static void end_epoch(struct credit_node *node)
{
    gp_mutex_lock(&node->epoch_lock);
    /* Another thread may have ended it while we waited for the lock. */
    if (gp_count_get(&node->requests) >= (int64_t)node->limits.epoch_duration) {
        gp_count_set(&node->requests, 0);
        STAT_ADD(node, epochs, 1);
        for (uint32_t peer = 0; peer < node->nodes; peer++) {
            struct credit_conn *conn = &node->conn[peer];
            conn_lock(conn);
            DECAY(conn->loan_requested);
            DECAY(conn->loan_given);
            conn->flags = (uint8_t)((conn->flags & (CREDIT_SYS_MSG_INFLIGHT | CREDIT_REVOKE_OVERDUE |
                                                    CREDIT_ON_SCAVENGE_LIST | CREDIT_SEEN)) |
                                    CREDIT_REACHED_EPOCH);
            conn_unlock(conn);
        }
        /* Borrowers may have gone quiet since the last walk: walk again. */
        __atomic_store_n(&node->scavenge_dry, 0, __ATOMIC_RELAXED);
    }
    gp_mutex_unlock(&node->epoch_lock);
}

/*
 * Whether the peer is still sending to us (conn locked): a request of its was
 * handled within the last idle_after requests, more than can be queued here,
 * so a borrower that waits on us (its requests queued behind the others) is
 * heard from in that time.  Its credits are in use: revoked, they come back
 * empty (it stalled on us) or it asks for them again (seed 001: a busy target
 * gains nothing from moving credits among its senders).
 */
static int busy_with_us(struct credit_node *node, const struct credit_conn *conn)
{
    if (!(conn->flags & CREDIT_SEEN) || node->limits.idle_after == 0)
        return 0;
    uint16_t now = (uint16_t)((uint64_t)gp_count_get(&node->handled) >> SEEN_SHIFT);
    uint32_t since = (uint16_t)(now - conn->seen_at);
    return since <= (node->limits.idle_after >> SEEN_SHIFT) + 1;
}

enum revoke_verdict { REVOKE_YES, REVOKE_BUSY, REVOKE_LATER };

/* May this revoke target be asked?  (seed 000's list of reasons to skip, and busy_with_us) */
static enum revoke_verdict worth_revoking(struct credit_node *node, uint32_t peer,
                                          const struct credit_conn *conn)
{
    if (conn->flags & CREDIT_SYS_MSG_INFLIGHT)
        return REVOKE_LATER; /* its answer may change things */
    if (peer == node->rank || conn->loan_credits <= CREDIT_MIN ||
        (conn->flags & CREDIT_REVOKE_ZERO_REPLY) || conn->loan_requested != 0 ||
        busy_with_us(node, conn))
        return REVOKE_BUSY;
    return REVOKE_YES;
}

/* Whether the revokes in flight went out longer ago than the limit allows. */
static int answers_overdue(struct credit_node *node)
{
    uint64_t sent_ns = __atomic_load_n(&node->revokes_sent_ns, __ATOMIC_RELAXED);
    return node->clock_ns() - sent_ns >= node->limits.revoke_timeout_ns;
}

/*
 * Stops waiting for the answers still missing (scavenge_lock held): their
 * borrowers stay marked as asked (one credit message in flight per peer, as
 * the SYS queue is sized), so none is asked twice, but they no longer hold
 * up revokes to the others.  A revoke target stays on the list until its
 * answer, so the walk finds every one.
 */
static void give_up_on_answers(struct credit_node *node)
{
    uint32_t start = node->scavenge_head, peer = start, overdue = 0;
    while (peer != CREDIT_NONE) {
        struct credit_conn *conn = &node->conn[peer];
        conn_lock(conn);
        if ((conn->flags & CREDIT_SYS_MSG_INFLIGHT) && !(conn->flags & CREDIT_REVOKE_OVERDUE)) {
            conn->flags |= CREDIT_REVOKE_OVERDUE;
            overdue++;
        }
        conn_unlock(conn);
        peer = conn->link_next;
        if (peer == start)
            break;
    }
    gp_count_add(&node->revokes_in_flight, -(int64_t)overdue);
    STAT_ADD(node, revokes_overdue, overdue);
}

/* scavenge_for_credits() of seed 000: revoke from peers lent more than the minimum. */
static void scavenge(struct credit_node *node)
{
    /* The last walk found no borrower to ask: not before the epoch ends. */
    if (__atomic_load_n(&node->scavenge_dry, __ATOMIC_RELAXED))
        return;
    /* Answers are on their way: wait for them before asking more, within limits. */
    if (gp_count_get(&node->revokes_in_flight) > 0 && !answers_overdue(node))
        return;
    gp_mutex_lock(&node->scavenge_lock);
    if (gp_count_get(&node->revokes_in_flight) > 0) {
        if (!answers_overdue(node)) { /* another thread scavenged meanwhile */
            gp_mutex_unlock(&node->scavenge_lock);
            return;
        }
        give_up_on_answers(node);
    }
    uint32_t start = node->scavenge_head, peer = start, sent = 0, later = 0;
    while (peer != CREDIT_NONE && sent < node->limits.num_scavenge) {
        struct credit_conn *conn = &node->conn[peer];
        uint32_t next = conn->link_next;
        if (!conn_trylock(conn)) {
            later++;
        } else {
            enum revoke_verdict verdict = worth_revoking(node, peer, conn);
            later += verdict == REVOKE_LATER;
            if (verdict == REVOKE_YES) {
                conn->flags |= CREDIT_SYS_MSG_INFLIGHT;
                unsigned epoch = take_epoch_flag(conn);
                conn_unlock(conn);
                if (sent == 0) /* read outside the lock by answers_overdue */
                    __atomic_store_n(&node->revokes_sent_ns, node->clock_ns(), __ATOMIC_RELAXED);
                gp_count_add(&node->revokes_in_flight, 1);
                STAT_ADD(node, revokes_sent, 1);
                node->send_sys(node->context, peer, CREDIT_SYS_REVOKE, 0, (int)epoch);
                sent++;
            } else {
                conn_unlock(conn);
            }
        }
        peer = next;
        if (peer == start)
            break;
    }
    /* Next time, start where this walk stopped: every borrower gets its turn. */
    if (node->scavenge_head != CREDIT_NONE && peer != CREDIT_NONE)
        node->scavenge_head = peer;
    /* Every borrower busy with us or lent only the minimum: walking the list
     * again on every request would find the same (and cost O(list) each). */
    if (sent == 0 && later == 0)
        __atomic_store_n(&node->scavenge_dry, 1, __ATOMIC_RELAXED);
    gp_mutex_unlock(&node->scavenge_lock);
}

/* ---- asks: for peers that hold fewer credits than a message takes ---- */

/* Lends want to the peer for good, within lend()'s limits, while the bank
 * keeps its low mark: below it the bank admits single requests, so that
 * every asker gets through in turn (conn locked). */
static int lend_on_ask(struct credit_node *node, struct credit_conn *conn, unsigned want)
{
    if (!node->limits.dynamic || conn->loan_given > node->limits.lender_limit ||
        conn->loan_credits + want > node->limits.max_per_node ||
        !gp_count_take_leaving(&node->banked, want, node->limits.low_bank))
        return 0;
    conn->loan_given = (uint16_t)(conn->loan_given + want);
    conn->loan_credits = (uint16_t)(conn->loan_credits + want);
    return 1;
}

/* Answers the peer's ask from the bank: 1 if granted (ask_lock held). */
static int answer_ask(struct credit_node *node, uint32_t peer, unsigned want)
{
    struct credit_conn *conn = &node->conn[peer];
    enum credit_sys how = CREDIT_SYS_LEND;
    conn_lock(conn);
    if (!lend_on_ask(node, conn, want)) {
        if (!gp_count_take(&node->banked, want)) {
            conn_unlock(conn);
            return 0;
        }
        conn->loan_credits = (uint16_t)(conn->loan_credits + want);
        how = CREDIT_SYS_ADMIT;
    }
    int listed = how == CREDIT_SYS_LEND && conn->loan_credits > CREDIT_MIN && peer != node->rank;
    conn_unlock(conn);
    if (how == CREDIT_SYS_LEND) {
        STAT_ADD(node, credits_lent_on_ask, want);
        if (listed) {
            gp_mutex_lock(&node->scavenge_lock);
            list_add(node, peer);
            gp_mutex_unlock(&node->scavenge_lock);
        }
    } else {
        STAT_ADD(node, credits_admitted, want);
    }
    node->send_sys(node->context, peer, how, want, 0);
    return 1;
}

/* Serves waiting asks in the order they came while the bank can (credits came home). */
static void serve_asks(struct credit_node *node)
{
    if (__atomic_load_n(&node->asks_waiting, __ATOMIC_RELAXED) == 0)
        return;
    gp_mutex_lock(&node->ask_lock);
    while (node->ask_head != CREDIT_NONE) {
        uint32_t peer = node->ask_head;
        struct credit_conn *conn = &node->conn[peer];
        if (!answer_ask(node, peer, conn->ask_want))
            break;
        node->ask_head = conn->ask_next;
        if (node->ask_head == CREDIT_NONE)
            node->ask_tail = CREDIT_NONE;
        conn->ask_next = CREDIT_NONE;
        conn->ask_want = 0;
        __atomic_store_n(&node->asks_waiting, node->asks_waiting - 1, __ATOMIC_RELAXED);
    }
    gp_mutex_unlock(&node->ask_lock);
}

/* Lends up to want extra credits to src from the bank; returns how many (conn locked). */
static unsigned lend(struct credit_node *node, struct credit_conn *conn, unsigned want)
{
    conn->loan_requested = (uint16_t)(conn->loan_requested + 1);
    if (!node->limits.dynamic || conn->loan_given > node->limits.lender_limit ||
        conn->loan_credits + want > node->limits.max_per_node)
        return 0;
    /* Asks come first: they wait for credits that only come home (a request
     * handled, a revoke answered), and a loan may never come home. */
    if (__atomic_load_n(&node->asks_waiting, __ATOMIC_RELAXED) > 0 ||
        !gp_count_take_leaving(&node->banked, want, node->limits.ask_reserve))
        return 0;
    conn->loan_given = (uint16_t)(conn->loan_given + want);
    conn->loan_credits = (uint16_t)(conn->loan_credits + want);
    return want;
}

uint8_t credit_request_arrived(struct credit_node *node, uint32_t src, uint8_t byte)
{
    if (!node->limits.flow_control)
        return credit_byte(0, 0, CREDIT_BYTE_USED(byte));
    struct credit_conn *conn = &node->conn[src];
    unsigned granted = 0;
    conn_lock(conn);
    if (CREDIT_BYTE_EPOCH(byte))
        decay_send(conn);
    if (CREDIT_BYTE_EXTRA(byte) > 0) /* an admitted request asks for nothing */
        granted = lend(node, conn, CREDIT_BYTE_EXTRA(byte));
    unsigned epoch = take_epoch_flag(conn);
    int listed = conn->loan_credits > CREDIT_MIN && src != node->rank;
    conn->flags |= CREDIT_SEEN;
    conn->seen_at = (uint16_t)((uint64_t)gp_count_fetch_add(&node->handled, 1) >> SEEN_SHIFT);
    conn_unlock(conn);
    if (granted) {
        STAT_ADD(node, extra_granted, granted);
        if (listed) {
            gp_mutex_lock(&node->scavenge_lock);
            list_add(node, src);
            gp_mutex_unlock(&node->scavenge_lock);
        }
    }
    if (gp_count_fetch_add(&node->requests, 1) + 1 >= (int64_t)node->limits.epoch_duration)
        end_epoch(node);
    if (node->limits.dynamic && gp_count_get(&node->banked) < (int64_t)node->limits.low_bank)
        scavenge(node);
    return credit_byte(epoch, granted, CREDIT_BYTE_USED(byte));
}

void credit_reply_arrived(struct credit_node *node, uint32_t from, uint8_t byte)
{
    if (!node->limits.flow_control)
        return;
    struct credit_conn *conn = &node->conn[from];
    conn_lock(conn);
    if (CREDIT_BYTE_EPOCH(byte))
        decay_send(conn);
    conn->send_inuse = (uint16_t)(conn->send_inuse - CREDIT_BYTE_USED(byte));
    conn->send_credits = (uint16_t)(conn->send_credits + CREDIT_BYTE_EXTRA(byte));
    conn_unlock(conn);
}

void credit_revoke_arrived(struct credit_node *node, uint32_t lender, int end_of_epoch)
{
    struct credit_conn *conn = &node->conn[lender];
    conn_lock(conn);
    if (end_of_epoch)
        decay_send(conn);
    /* What recent use does not need, within what this epoch may still give back. */
    unsigned keep = max_u(max_u(CREDIT_MIN, conn->send_max), conn->send_inuse);
    unsigned available = conn->send_credits > keep ? conn->send_credits - keep : 0;
    unsigned allowed = conn->send_revoked < node->limits.revoke_limit
                           ? node->limits.revoke_limit - conn->send_revoked : 0;
    unsigned give = min_u(available, allowed);
    if (conn->send_stalls > 0) /* we were short of credits to this lender lately */
        give = 0;
    conn->send_credits = (uint16_t)(conn->send_credits - give);
    conn->send_revoked = (uint16_t)(conn->send_revoked + give);
    unsigned epoch = take_epoch_flag(conn);
    conn_unlock(conn);
    STAT_ADD(node, revokes_received, 1);
    STAT_ADD(node, credits_returned, give);
    node->send_sys(node->context, lender, CREDIT_SYS_RETURN, give, (int)epoch);
}

void credit_return_arrived(struct credit_node *node, uint32_t borrower, uint32_t credits,
                           int end_of_epoch)
{
    struct credit_conn *conn = &node->conn[borrower];
    conn_lock(conn);
    /* An answer we had stopped waiting for was already taken off the count. */
    int counted = !(conn->flags & CREDIT_REVOKE_OVERDUE);
    conn->flags &= (uint8_t)~(CREDIT_SYS_MSG_INFLIGHT | CREDIT_REVOKE_OVERDUE);
    if (end_of_epoch)
        decay_send(conn);
    if (credits > 0)
        conn->loan_credits = (uint16_t)(conn->loan_credits - credits);
    else
        conn->flags |= CREDIT_REVOKE_ZERO_REPLY; /* don't ask it again this epoch */
    int unlisted = conn->loan_credits <= CREDIT_MIN;
    conn_unlock(conn);
    if (counted)
        gp_count_add(&node->revokes_in_flight, -1);
    if (credits > 0) {
        gp_count_add(&node->banked, credits);
        STAT_ADD(node, credits_recovered, credits);
    } else {
        STAT_ADD(node, zero_replies, 1);
    }
    if (unlisted) {
        gp_mutex_lock(&node->scavenge_lock);
        list_remove(node, borrower);
        gp_mutex_unlock(&node->scavenge_lock);
    }
    if (credits > 0)
        serve_asks(node);
}

void credit_ask_arrived(struct credit_node *node, uint32_t borrower, uint32_t want)
{
    struct credit_conn *conn = &node->conn[borrower];
    /* A message takes at most CREDIT_MIN, and the plan banks at least that
     * when peers start below it: an ask for more could never be served. */
    want = want < 1 ? 1 : min_u(want, CREDIT_MIN);
    STAT_ADD(node, asks_received, 1);
    conn_lock(conn);
    conn->loan_requested = (uint16_t)(conn->loan_requested + 1); /* not revoked this epoch */
    conn_unlock(conn);
    gp_mutex_lock(&node->ask_lock);
    /* One ask per borrower at a time; others wait first (first come, first served). */
    if (conn->ask_want == 0 &&
        (node->ask_head != CREDIT_NONE || !answer_ask(node, borrower, want))) {
        conn->ask_want = (uint8_t)want;
        if (node->ask_tail == CREDIT_NONE)
            node->ask_head = borrower;
        else
            node->conn[node->ask_tail].ask_next = borrower;
        node->ask_tail = borrower;
        __atomic_store_n(&node->asks_waiting, node->asks_waiting + 1, __ATOMIC_RELAXED);
        STAT_ADD(node, asks_waited, 1);
    }
    gp_mutex_unlock(&node->ask_lock);
    if (node->limits.dynamic && gp_count_get(&node->banked) < (int64_t)node->limits.low_bank)
        scavenge(node);
}

void credit_grant_arrived(struct credit_node *node, uint32_t lender, uint32_t credits,
                          int standing)
{
    struct credit_conn *conn = &node->conn[lender];
    conn_lock(conn);
    conn->asked = 0;
    if (standing)
        conn->send_credits = (uint16_t)(conn->send_credits + credits);
    else
        conn->admitted = (uint8_t)(conn->admitted + credits);
    conn_unlock(conn);
}

void credit_request_released(struct credit_node *node, uint32_t src, uint8_t byte)
{
    unsigned admitted = CREDIT_BYTE_ADMITTED(byte);
    if (!node->limits.flow_control || admitted == 0)
        return;
    struct credit_conn *conn = &node->conn[src];
    conn_lock(conn);
    conn->loan_credits = (uint16_t)(conn->loan_credits - admitted);
    conn_unlock(conn);
    gp_count_add(&node->banked, admitted);
    serve_asks(node);
}

void credit_conn_snapshot(struct credit_node *node, uint32_t peer, struct credit_conn *out)
{
    struct credit_conn *conn = &node->conn[peer];
    conn_lock(conn);
    *out = *conn;
    conn_unlock(conn);
    out->lock = 0;
}
