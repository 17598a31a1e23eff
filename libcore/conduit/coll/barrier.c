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
 *
 * Each team has its own barrier (struct gpc_barrier in its gpc_team):
 * ranks and partners are team ranks, and the messages name the team.
 * GASNET_TEAM_ALL's is the one gasnet_barrier_* drives.
 */
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/coll/barrier.h"
#include "conduit/core/progress.h"
#include "conduit/coll/team.h"
#include "util/log.h"
#include "util/thread.h"

static struct barrier_value merge(struct barrier_value a, struct barrier_value b)
{
    if (a.state == NAME_MISMATCH || b.state == NAME_MISMATCH)
        return (struct barrier_value){ NAME_MISMATCH, 0 };
    if (a.state == NAME_NAMED && b.state == NAME_NAMED && a.name != b.name)
        return (struct barrier_value){ NAME_MISMATCH, 0 };
    return a.state == NAME_NAMED ? a : b;
}

void gpc_barrier_init(struct gpc_barrier *b, gasnet_node_t size)
{
    memset(b, 0, sizeof *b);
    gp_mutex_init(&b->lock);
    while ((1u << b->rounds) < size)
        b->rounds++;
}

void gpc_barrier_setup(void)
{
    gpc_team_setup();
}

void gpc_barrier_handler(gasnet_token_t token, gasnet_handlerarg_t phase, gasnet_handlerarg_t round,
                         gasnet_handlerarg_t state, gasnet_handlerarg_t name,
                         gasnet_handlerarg_t team_id)
{
    (void)token;
    struct gpc_team *team = gpc_team_find((uint32_t)team_id);
    if (team == NULL)
        gp_fatal("barrier message for unknown team %#x", (unsigned)team_id);
    struct gpc_barrier *b = &team->barrier;
    int parity = phase & 1;
    gp_mutex_lock(&b->lock);
    if (round < 0 || round >= GPC_BARRIER_MAX_ROUNDS || b->arrived[parity][round])
        gp_fatal("barrier message for phase %d round %d arrived twice (barrier calls out of "
                 "step between nodes?)", phase, round);
    b->received[parity][round] = (struct barrier_value){ state, name };
    __atomic_store_n(&b->arrived[parity][round], 1, __ATOMIC_RELEASE);
    gp_mutex_unlock(&b->lock);
}

static void send_round(struct gpc_team *team)
{
    struct gpc_barrier *b = &team->barrier;
    gasnet_node_t partner = gpc_team_node(team, (team->rank + (1u << b->round)) % team->size);
    gasnet_handlerarg_t args[5] = { b->phase, b->round, b->known.state, b->known.name,
                                    (gasnet_handlerarg_t)team->id };
    gpc_am_request(partner, GPC_SHORT, GPC_H_BARRIER, NULL, 0, NULL, 5, args);
}

/* Takes every round that has arrived, sending the next one; 1 when all are in. */
static int advance(struct gpc_team *team)
{
    struct gpc_barrier *b = &team->barrier;
    int parity = b->phase & 1;
    while (b->round < b->rounds &&
           __atomic_load_n(&b->arrived[parity][b->round], __ATOMIC_ACQUIRE)) {
        gp_mutex_lock(&b->lock);
        b->known = merge(b->known, b->received[parity][b->round]);
        b->arrived[parity][b->round] = 0;
        gp_mutex_unlock(&b->lock);
        b->round++;
        if (b->round < b->rounds)
            send_round(team);
    }
    return b->round == b->rounds;
}

void gpc_team_barrier_notify(struct gpc_team *team, int id, int flags)
{
    struct gpc_barrier *b = &team->barrier;
    if (b->notified)
        gp_fatal("gasnet_barrier_notify called twice without a gasnet_barrier_wait/try between");
    b->notified = 1;
    b->notify_id = id;
    b->notify_flags = flags;
    b->round = 0;
    if (flags & GASNET_BARRIERFLAG_MISMATCH)
        b->known = (struct barrier_value){ NAME_MISMATCH, 0 };
    else if (flags & GASNET_BARRIERFLAG_ANONYMOUS)
        b->known = (struct barrier_value){ NAME_ANONYMOUS, 0 };
    else
        b->known = (struct barrier_value){ NAME_NAMED, id };
    if (b->rounds > 0)
        send_round(team);
}

/* The result of a completed phase for this node's wait (spec 4.10.5, as refined). */
static int phase_result(const struct gpc_barrier *b, int id, int flags)
{
    if (b->known.state == NAME_MISMATCH || (flags & GASNET_BARRIERFLAG_MISMATCH))
        return GASNET_ERR_BARRIER_MISMATCH;
    if (!(flags & GASNET_BARRIERFLAG_ANONYMOUS)) {
        int notified_named = !(b->notify_flags & GASNET_BARRIERFLAG_ANONYMOUS);
        if (notified_named && b->notify_id != id)
            return GASNET_ERR_BARRIER_MISMATCH;
        if (b->known.state == NAME_NAMED && b->known.name != id)
            return GASNET_ERR_BARRIER_MISMATCH;
    }
    return GASNET_OK;
}

int gpc_team_barrier_try(struct gpc_team *team, int id, int flags)
{
    struct gpc_barrier *b = &team->barrier;
    if (!b->notified)
        gp_fatal("gasnet_barrier_wait/try called without a preceding gasnet_barrier_notify");
    gpc_poll();
    if (!advance(team))
        return GASNET_ERR_NOT_READY;
    int result = phase_result(b, id, flags);
    b->last = b->known;
    b->completed++;
    b->notified = 0;
    b->phase++;
    return result;
}

int gpc_team_barrier_wait(struct gpc_team *team, int id, int flags)
{
    int rc;
    while ((rc = gpc_team_barrier_try(team, id, flags)) == GASNET_ERR_NOT_READY)
        gpc_wait_turn();
    return rc;
}

int gpc_team_barrier_between_notify_and_wait(const struct gpc_team *team)
{
    return team->barrier.notified;
}

/*
 * 5.4.2: the merged name of the last phase.  It includes this node's own
 * notify, so a named notify followed by an anonymous wait reports the
 * name.  A mismatched phase has no common name: 0, and *id is left alone.
 */
int gpc_team_barrier_result(const struct gpc_team *team, int *id)
{
    const struct gpc_barrier *b = &team->barrier;
    if (b->notified)
        gp_fatal("gasnet_barrier_result called between gasnet_barrier_notify and its wait/try");
    if (b->completed == 0)
        gp_fatal("gasnet_barrier_result called before any barrier phase completed");
    if (b->last.state == NAME_ANONYMOUS)
        return 1;
    if (b->last.state == NAME_NAMED)
        *id = b->last.name;
    return 0;
}

/* gasnet_barrier_*: GASNET_TEAM_ALL's barrier. */
void gpc_barrier_notify(int id, int flags)
{
    gpc_team_barrier_notify(gpc_team_all(), id, flags);
}

int gpc_barrier_try(int id, int flags)
{
    return gpc_team_barrier_try(gpc_team_all(), id, flags);
}

int gpc_barrier_wait(int id, int flags)
{
    return gpc_team_barrier_wait(gpc_team_all(), id, flags);
}

int gpc_barrier_between_notify_and_wait(void)
{
    return gpc_team_barrier_between_notify_and_wait(gpc_team_all());
}

int gpc_barrier_result(int *id)
{
    return gpc_team_barrier_result(gpc_team_all(), id);
}
