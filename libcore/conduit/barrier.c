/*
 * Split-phase barriers (spec 4.10) by dissemination: in round r node i
 * tells node i + 2^r (mod N) what it knows, so after ceil(log2 N) rounds
 * every node has heard, directly or not, from every other -- O(log N)
 * rounds and N log N messages in all, none of them gathered on one node.
 *
 * What travels is the phase's name state merged so far: anonymous, named
 * with a value, or mismatched (two different names, or a MISMATCH flag).
 * Messages are internal AM Shorts; their handler only records them, and the
 * rounds advance in notify / try / wait, which run in main-line code.
 *
 * A node is at most one phase ahead of any other (finishing phase p needs
 * every node's notify of p), so two slots, by phase parity, hold the
 * messages of the current and the next phase.
 */
#include <string.h>

#include "conduit/core.h"
#include "util/log.h"

#define MAX_ROUNDS 32

enum name_state { NAME_ANONYMOUS = 0, NAME_NAMED = 1, NAME_MISMATCH = 2 };

struct barrier_value {
    int state;
    int name;
};

struct barrier {
    int phase;
    int notified;
    int notify_id;
    int notify_flags;
    int rounds;
    int round;               /* next round whose message we wait for */
    struct barrier_value known;
    int completed;           /* phases completed on this node */
    struct barrier_value last;   /* the merged name state of the last one */
    /* messages received, by phase parity and round (written by the handler) */
    volatile int arrived[2][MAX_ROUNDS];
    struct barrier_value received[2][MAX_ROUNDS];
    gp_mutex_t lock;
};

static struct barrier barrier;

static struct barrier_value merge(struct barrier_value a, struct barrier_value b)
{
    if (a.state == NAME_MISMATCH || b.state == NAME_MISMATCH)
        return (struct barrier_value){ NAME_MISMATCH, 0 };
    if (a.state == NAME_NAMED && b.state == NAME_NAMED && a.name != b.name)
        return (struct barrier_value){ NAME_MISMATCH, 0 };
    return a.state == NAME_NAMED ? a : b;
}

void gpc_barrier_setup(void)
{
    memset(&barrier, 0, sizeof barrier);
    gp_mutex_init(&barrier.lock);
    while ((1u << barrier.rounds) < gpc.nodes)
        barrier.rounds++;
}

void gpc_barrier_handler(gasnet_token_t token, gasnet_handlerarg_t phase, gasnet_handlerarg_t round,
                         gasnet_handlerarg_t state, gasnet_handlerarg_t name)
{
    (void)token;
    int parity = phase & 1;
    gp_mutex_lock(&barrier.lock);
    if (round < 0 || round >= MAX_ROUNDS || barrier.arrived[parity][round])
        gp_fatal("barrier message for phase %d round %d arrived twice (barrier calls out of "
                 "step between nodes?)", phase, round);
    barrier.received[parity][round] = (struct barrier_value){ state, name };
    __atomic_store_n(&barrier.arrived[parity][round], 1, __ATOMIC_RELEASE);
    gp_mutex_unlock(&barrier.lock);
}

static void send_round(void)
{
    gasnet_node_t partner = (gasnet_node_t)((gpc.rank + (1u << barrier.round)) % gpc.nodes);
    gasnet_handlerarg_t args[4] = { barrier.phase, barrier.round, barrier.known.state,
                                    barrier.known.name };
    gpc_am_request(partner, GPC_SHORT, GPC_H_BARRIER, NULL, 0, NULL, 4, args);
}

/* Takes every round that has arrived, sending the next one; 1 when all are in. */
static int advance(void)
{
    int parity = barrier.phase & 1;
    while (barrier.round < barrier.rounds &&
           __atomic_load_n(&barrier.arrived[parity][barrier.round], __ATOMIC_ACQUIRE)) {
        gp_mutex_lock(&barrier.lock);
        barrier.known = merge(barrier.known, barrier.received[parity][barrier.round]);
        barrier.arrived[parity][barrier.round] = 0;
        gp_mutex_unlock(&barrier.lock);
        barrier.round++;
        if (barrier.round < barrier.rounds)
            send_round();
    }
    return barrier.round == barrier.rounds;
}

void gpc_barrier_notify(int id, int flags)
{
    if (barrier.notified)
        gp_fatal("gasnet_barrier_notify called twice without a gasnet_barrier_wait/try between");
    barrier.notified = 1;
    barrier.notify_id = id;
    barrier.notify_flags = flags;
    barrier.round = 0;
    if (flags & GASNET_BARRIERFLAG_MISMATCH)
        barrier.known = (struct barrier_value){ NAME_MISMATCH, 0 };
    else if (flags & GASNET_BARRIERFLAG_ANONYMOUS)
        barrier.known = (struct barrier_value){ NAME_ANONYMOUS, 0 };
    else
        barrier.known = (struct barrier_value){ NAME_NAMED, id };
    if (barrier.rounds > 0)
        send_round();
}

/* The result of a completed phase for this node's wait (spec 4.10.5, as refined). */
static int phase_result(int id, int flags)
{
    if (barrier.known.state == NAME_MISMATCH || (flags & GASNET_BARRIERFLAG_MISMATCH))
        return GASNET_ERR_BARRIER_MISMATCH;
    if (!(flags & GASNET_BARRIERFLAG_ANONYMOUS)) {
        int notified_named = !(barrier.notify_flags & GASNET_BARRIERFLAG_ANONYMOUS);
        if (notified_named && barrier.notify_id != id)
            return GASNET_ERR_BARRIER_MISMATCH;
        if (barrier.known.state == NAME_NAMED && barrier.known.name != id)
            return GASNET_ERR_BARRIER_MISMATCH;
    }
    return GASNET_OK;
}

int gpc_barrier_try(int id, int flags)
{
    if (!barrier.notified)
        gp_fatal("gasnet_barrier_wait/try called without a preceding gasnet_barrier_notify");
    gpc_poll();
    if (!advance())
        return GASNET_ERR_NOT_READY;
    int result = phase_result(id, flags);
    barrier.last = barrier.known;
    barrier.completed++;
    barrier.notified = 0;
    barrier.phase++;
    return result;
}

int gpc_barrier_wait(int id, int flags)
{
    int rc;
    while ((rc = gpc_barrier_try(id, flags)) == GASNET_ERR_NOT_READY)
        gpc_wait_turn();
    return rc;
}

int gpc_barrier_between_notify_and_wait(void)
{
    return barrier.notified;
}

/*
 * 5.4.2: the merged name of the last phase.  It includes this node's own
 * notify, so a named notify followed by an anonymous wait reports the
 * name.  A mismatched phase has no common name: 0, and *id is left alone.
 */
int gpc_barrier_result(int *id)
{
    if (barrier.notified)
        gp_fatal("gasnet_barrier_result called between gasnet_barrier_notify and its wait/try");
    if (barrier.completed == 0)
        gp_fatal("gasnet_barrier_result called before any barrier phase completed");
    if (barrier.last.state == NAME_ANONYMOUS)
        return 1;
    if (barrier.last.state == NAME_NAMED)
        *id = barrier.last.name;
    return 0;
}
