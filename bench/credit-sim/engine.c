/*
 * The simulator's engine: the wire, the receive queues, the tick loop
 * (sim.h describes a tick), and the checks around every call into the
 * credit code.  Each call is bracketed by what it may change: a lender's
 * bank and loan move together, a borrower never holds more than
 * GASNET_PORTAL_MAX_CRED_PER_NODE nor has more in use than it holds, and a
 * revoke never takes a borrower below the minimum.
 */
#include "sim.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define NEVER UINT64_MAX
#define MAX_REPORTED_FAILURES 10

uint64_t sim_rand(uint64_t seed, uint64_t stream, uint64_t counter)
{
    uint64_t z = seed ^ (stream * 0x9e3779b97f4a7c15ull) ^ (counter * 0xbf58476d1ce4e5b9ull);
    z += 0x9e3779b97f4a7c15ull; /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sim_fail(struct sim *sim, const char *fmt, ...)
{
    if (sim->failures++ >= MAX_REPORTED_FAILURES)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "credit-sim: invariant broken at tick %" PRIu64 ": ", sim->now);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

struct sim_window *sim_window_now(struct sim *sim)
{
    if (!sim->sending)
        return &sim->win[sim->nwin - 1]; /* the drain has its own bucket */
    size_t w = (size_t)(sim->now / sim->opts.window);
    return &sim->win[w < sim->nwin - 1 ? w : sim->nwin - 2];
}

/* The local index a message needs; a missing one is a bug in a pattern's partners(). */
static uint32_t must_local(struct sim *sim, const struct sim_vnode *v, uint32_t peer)
{
    uint32_t local = sim_local(v, peer);
    if (local == NIL) {
        fprintf(stderr, "credit-sim: node %u has no conn record for peer %u (pattern %s "
                "misdeclares its partners)\n", v->rank, peer, sim->pattern->name);
        abort();
    }
    return local;
}

/* ---- the wire ---- */

static void push(struct sim *sim, const struct sim_event *ev)
{
    struct sim_queue *q = &sim->events;
    if (q->len == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 4096;
        struct sim_event *ring = malloc(cap * sizeof *ring);
        if (ring == NULL) {
            fprintf(stderr, "credit-sim: out of memory for %zu events in flight\n", cap);
            exit(2);
        }
        for (size_t i = 0; i < q->len; i++)
            ring[i] = q->ev[(q->head + i) % q->cap];
        free(q->ev);
        q->ev = ring;
        q->cap = cap;
        q->head = 0;
    }
    q->ev[(q->head + q->len) % q->cap] = *ev;
    q->len++;
}

void sim_send_sys(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                  int end_of_epoch)
{
    static const uint8_t kind_of[] = {
        [CREDIT_SYS_REVOKE] = SIM_REVOKE, [CREDIT_SYS_RETURN] = SIM_RETURN,
        [CREDIT_SYS_ASK] = SIM_ASK, [CREDIT_SYS_ADMIT] = SIM_ADMIT, [CREDIT_SYS_LEND] = SIM_LEND,
    };
    struct sim_vnode *v = context;
    struct sim *sim = v->sim;
    struct sim_event ev = {
        .due = sim->now + sim->opts.latency, .from = v->rank, .to = sim_global(v, to),
        .kind = kind_of[type], .byte = (uint8_t)(end_of_epoch != 0), .tag = credits,
    };
    struct sim_window *w = sim_window_now(sim);
    switch (ev.kind) {
    case SIM_REVOKE:
        w->revokes++;
        break;
    case SIM_RETURN:
        sim->inflight[ev.to] += credits; /* the lender's credits, on their way home */
        break;
    case SIM_ASK:
        w->asks++;
        break;
    default: /* a grant: the lender's credits, on their way out */
        sim->inflight[v->rank] += credits;
        sim->granted_now += credits;
        if (ev.kind == SIM_ADMIT) {
            w->admitted += credits;
        } else { /* a standing loan moves credits as a lend on XXX does */
            w->granted += credits;
            if (sim->sending)
                sim_pairs_move(sim, v->rank, ev.to, (int32_t)credits);
        }
        break;
    }
    push(sim, &ev);
}

/* ---- receive queues ---- */

static void rq_append(struct sim *sim, struct sim_vnode *v, const struct sim_event *ev)
{
    if (sim->rq_free == NIL) {
        uint32_t cap = sim->rq_cap ? sim->rq_cap * 2 : 65536;
        struct sim_rq_item *pool = realloc(sim->rq, (size_t)cap * sizeof *pool);
        if (pool == NULL) {
            fprintf(stderr, "credit-sim: out of memory for %u queued requests\n", cap);
            exit(2);
        }
        for (uint32_t i = sim->rq_cap; i < cap; i++)
            pool[i].next = i + 1 < cap ? i + 1 : NIL;
        sim->rq = pool;
        sim->rq_free = sim->rq_cap;
        sim->rq_cap = cap;
    }
    uint32_t i = sim->rq_free;
    sim->rq_free = sim->rq[i].next;
    sim->rq[i] = (struct sim_rq_item){ .next = NIL, .from = ev->from, .tag = ev->tag, .byte = ev->byte };
    if (sim->rq_count[v->rank]++ == 0)
        v->rq_first = i;
    else
        sim->rq[v->rq_last].next = i;
    v->rq_last = i;
}

static struct sim_rq_item rq_pop(struct sim *sim, struct sim_vnode *v)
{
    uint32_t i = v->rq_first;
    struct sim_rq_item req = sim->rq[i];
    v->rq_first = req.next;
    sim->rq_count[v->rank]--;
    sim->rq[i].next = sim->rq_free;
    sim->rq_free = i;
    return req;
}

/* ---- one message of the protocol, with the checks around it ---- */

/* A compact receiver must not walk its scavenge list (layout.c): could this request make it? */
static int guard_fires(struct sim *sim, struct sim_vnode *v, uint8_t byte)
{
    int64_t bank = gp_count_get(&v->credit.banked);
    return sim->guard && v->peers != NULL &&
           bank - (int64_t)CREDIT_BYTE_EXTRA(byte) < (int64_t)sim->cfg.limits.low_bank;
}

/* The request's space is free: credits it was admitted with go back to the bank,
 * which may grant them at once to an ask waiting there. */
static void release_request(struct sim *sim, struct sim_vnode *v, uint32_t src,
                            const struct sim_rq_item *req)
{
    unsigned admitted = CREDIT_BYTE_ADMITTED(req->byte);
    int64_t bank0 = gp_count_get(&v->credit.banked);
    sim->granted_now = 0;
    credit_request_released(&v->credit, src, req->byte);
    int64_t bank1 = gp_count_get(&v->credit.banked);
    if (bank1 != bank0 + (int64_t)admitted - sim->granted_now)
        sim_fail(sim, "node %u banked %u admitted credits from %u and granted %" PRId64
                 ": bank %" PRId64 " -> %" PRId64, v->rank, admitted, req->from,
                 sim->granted_now, bank0, bank1);
    sim->inflight[v->rank] -= admitted;
}

static void handle_request(struct sim *sim, struct sim_vnode *v, const struct sim_rq_item *req)
{
    uint32_t src = must_local(sim, v, req->from);
    struct credit_conn *conn = &v->credit.conn[src];
    int64_t bank0 = gp_count_get(&v->credit.banked);
    unsigned loan0 = conn->loan_credits;
    uint8_t reply = credit_request_arrived(&v->credit, src, req->byte);
    unsigned extra = CREDIT_BYTE_EXTRA(reply);
    int64_t bank1 = gp_count_get(&v->credit.banked);
    if (conn->loan_credits != loan0 + extra || bank1 != bank0 - (int64_t)extra)
        sim_fail(sim, "node %u lent %u to %u: loan %u -> %u, bank %" PRId64 " -> %" PRId64,
                 v->rank, extra, req->from, loan0, conn->loan_credits, bank0, bank1);
    if (extra && conn->loan_credits > sim->cfg.limits.max_per_node)
        sim_fail(sim, "node %u lent %u credits to %u, more than the %u per node allowed",
                 v->rank, conn->loan_credits, req->from, sim->cfg.limits.max_per_node);
    struct sim_window *w = sim_window_now(sim);
    w->requests++;
    if (extra) {
        w->granted += extra;
        if (sim->sending)
            sim_pairs_move(sim, v->rank, req->from, (int32_t)extra);
        sim->inflight[v->rank] += extra;
    }
    struct sim_event ev = { .due = sim->now + sim->opts.latency, .from = v->rank,
                            .to = req->from, .tag = req->tag, .kind = SIM_REPLY,
                            .byte = reply, .credits = (uint8_t)extra };
    push(sim, &ev);
    release_request(sim, v, src, req);
    if (sim->sending) {
        sim->pattern->handled(sim, v->rank, req->from, req->tag);
        if (!v->stalled)
            sim->wake[v->rank] = sim->now; /* its pattern may have something to send now */
    }
}

static void check_borrower(struct sim *sim, const struct sim_vnode *v, uint32_t lender,
                           const struct credit_conn *conn, const char *when)
{
    if (conn->send_credits > sim->cfg.limits.max_per_node &&
        conn->send_credits > sim->cfg.credits_per_node)
        sim_fail(sim, "%s: node %u holds %u credits for %u, more than the %u per node allowed",
                 when, v->rank, conn->send_credits, lender, sim->cfg.limits.max_per_node);
    if (conn->send_inuse > conn->send_credits)
        sim_fail(sim, "%s: node %u has %u credits in use for %u but holds only %u", when,
                 v->rank, conn->send_inuse, lender, conn->send_credits);
}

static void deliver_reply(struct sim *sim, const struct sim_event *ev)
{
    struct sim_vnode *v = &sim->node[ev->to];
    uint32_t lender = must_local(sim, v, ev->from);
    credit_reply_arrived(&v->credit, lender, ev->byte);
    sim->inflight[ev->from] -= ev->credits;
    check_borrower(sim, v, ev->from, &v->credit.conn[lender], "reply");
    if (v->stalled && v->head.dest == ev->from) {
        v->stalled = 0; /* credits came back: try again this tick */
        sim->wake[v->rank] = sim->now;
    }
}

static void deliver_ask(struct sim *sim, const struct sim_event *ev)
{
    struct sim_vnode *v = &sim->node[ev->to];
    uint32_t borrower = must_local(sim, v, ev->from);
    int64_t bank0 = gp_count_get(&v->credit.banked);
    sim->granted_now = 0;
    credit_ask_arrived(&v->credit, borrower, ev->tag);
    int64_t bank1 = gp_count_get(&v->credit.banked);
    if (bank1 != bank0 - sim->granted_now)
        sim_fail(sim, "node %u answered an ask of %u from %u granting %" PRId64 ": bank %"
                 PRId64 " -> %" PRId64, v->rank, ev->tag, ev->from, sim->granted_now, bank0, bank1);
}

static void deliver_grant(struct sim *sim, const struct sim_event *ev)
{
    struct sim_vnode *v = &sim->node[ev->to];
    uint32_t lender = must_local(sim, v, ev->from);
    credit_grant_arrived(&v->credit, lender, ev->tag, ev->kind == SIM_LEND);
    sim->inflight[ev->from] -= ev->tag;
    check_borrower(sim, v, ev->from, &v->credit.conn[lender], "grant");
    if (v->stalled && v->head.dest == ev->from) {
        v->stalled = 0; /* the credits it asked for: try again this tick */
        sim->wake[v->rank] = sim->now;
    }
}

static void deliver_revoke(struct sim *sim, const struct sim_event *ev)
{
    struct sim_vnode *v = &sim->node[ev->to];
    uint32_t lender = must_local(sim, v, ev->from);
    struct credit_conn *conn = &v->credit.conn[lender];
    unsigned before = conn->send_credits;
    credit_revoke_arrived(&v->credit, lender, ev->byte);
    if (conn->send_credits < CREDIT_MIN && conn->send_credits < before)
        sim_fail(sim, "node %u gave credits back to %u below the minimum: %u -> %u", v->rank,
                 ev->from, before, conn->send_credits);
    check_borrower(sim, v, ev->from, conn, "revoke");
}

static void deliver_return(struct sim *sim, const struct sim_event *ev)
{
    struct sim_vnode *v = &sim->node[ev->to];
    uint32_t borrower = must_local(sim, v, ev->from);
    struct credit_conn *conn = &v->credit.conn[borrower];
    int64_t bank0 = gp_count_get(&v->credit.banked);
    unsigned loan0 = conn->loan_credits;
    sim->granted_now = 0; /* what came back may answer asks waiting for the bank */
    credit_return_arrived(&v->credit, borrower, ev->tag, ev->byte);
    int64_t bank1 = gp_count_get(&v->credit.banked);
    if ((sim->granted_now == 0 && conn->loan_credits + ev->tag != loan0) ||
        bank1 != bank0 + (int64_t)ev->tag - sim->granted_now)
        sim_fail(sim, "node %u got %u back from %u: loan %u -> %u, bank %" PRId64 " -> %" PRId64,
                 v->rank, ev->tag, ev->from, loan0, conn->loan_credits, bank0, bank1);
    sim->inflight[v->rank] -= ev->tag;
    struct sim_window *w = sim_window_now(sim);
    if (ev->tag) {
        w->returned += ev->tag;
        if (sim->sending)
            sim_pairs_move(sim, v->rank, ev->from, -(int32_t)ev->tag);
    } else {
        w->zero_replies++;
    }
}

static void deliver(struct sim *sim)
{
    struct sim_queue *q = &sim->events;
    while (q->len > 0 && q->ev[q->head].due <= sim->now) {
        struct sim_event ev = q->ev[q->head];
        q->head = (q->head + 1) % q->cap;
        q->len--;
        switch (ev.kind) {
        case SIM_REQUEST: rq_append(sim, &sim->node[ev.to], &ev); break;
        case SIM_REPLY: deliver_reply(sim, &ev); break;
        case SIM_REVOKE: deliver_revoke(sim, &ev); break;
        case SIM_RETURN: deliver_return(sim, &ev); break;
        case SIM_ASK: deliver_ask(sim, &ev); break;
        case SIM_ADMIT:
        case SIM_LEND: deliver_grant(sim, &ev); break;
        default: abort();
        }
    }
}

/* ---- the tick ---- */

/* Budget after `ticks` more ticks of `rate` each, never above one tick's worth (or 1). */
static double add_budget(double budget, double rate, uint64_t ticks)
{
    double cap = rate > 1.0 ? rate : 1.0;
    budget += rate * (double)ticks;
    return budget > cap ? cap : budget;
}

/* Every node handles up to service_rate queued requests; returns how many stay queued. */
static uint64_t serve(struct sim *sim)
{
    uint64_t queued = 0;
    for (uint32_t r = 0; r < sim->opts.nodes; r++) {
        if (sim->rq_count[r] == 0)
            continue;
        struct sim_vnode *v = &sim->node[r];
        v->serve_budget = add_budget(v->serve_budget, sim->opts.service_rate, 1);
        while (sim->rq_count[r] > 0 && v->serve_budget >= 1.0) {
            if (guard_fires(sim, v, sim->rq[v->rq_first].byte)) {
                sim->restart = 1;
                sim->restart_tick = sim->now;
                return 0;
            }
            struct sim_rq_item req = rq_pop(sim, v);
            v->serve_budget -= 1.0;
            handle_request(sim, v, &req);
        }
        if (sim->rq_count[r] == 0)
            v->serve_budget = 0; /* an idle receiver banks no service */
        queued += sim->rq_count[r];
    }
    return queued;
}

static void send_from(struct sim *sim, struct sim_vnode *v)
{
    v->send_budget = add_budget(v->send_budget, sim->opts.send_rate, sim->now + 1 - v->accrued_to);
    v->accrued_to = sim->now + 1;
    while (v->send_budget >= 1.0) {
        if (!v->has_head && !sim->sending) { /* draining: its last head has gone */
            sim->wake[v->rank] = NEVER;
            return;
        }
        if (!v->has_head) {
            uint64_t wake_at = NEVER;
            if (!sim->pattern->next(sim, v->rank, &v->head, &wake_at)) {
                sim->wake[v->rank] = wake_at > sim->now ? wake_at : sim->now + 1;
                return;
            }
            v->has_head = 1;
            v->wait = (struct credit_wait){ 0, 0 };
        }
        int was_stalled = v->wait.stalled;
        uint8_t byte;
        uint32_t dest = must_local(sim, v, v->head.dest);
        if (!credit_take(&v->credit, dest, v->head.credits, &v->wait, &byte)) {
            if (!was_stalled) {
                sim_window_now(sim)->stalls++;
                v->stalled_since = sim->now;
            }
            v->stalled = 1;
            sim->wake[v->rank] = NEVER; /* until a reply from head.dest */
            return;
        }
        if (was_stalled)
            sim_window_now(sim)->stall_ticks += sim->now - v->stalled_since;
        check_borrower(sim, v, v->head.dest, &v->credit.conn[dest], "send");
        sim->inflight[v->head.dest] += CREDIT_BYTE_ADMITTED(byte); /* going home with it */
        struct sim_event ev = { .due = sim->now + sim->opts.latency, .from = v->rank,
                                .to = v->head.dest, .tag = v->head.tag, .kind = SIM_REQUEST,
                                .byte = byte };
        push(sim, &ev);
        v->has_head = 0;
        v->send_budget -= 1.0;
    }
    sim->wake[v->rank] = sim->now + 1;
}

static uint64_t tick(struct sim *sim)
{
    deliver(sim);
    uint64_t queued = serve(sim);
    if (!sim->restart) {
        for (uint32_t r = 0; r < sim->opts.nodes; r++)
            if (sim->wake[r] <= sim->now && (sim->sending || sim->node[r].has_head))
                send_from(sim, &sim->node[r]);
    }
    return queued;
}

/* Whether node asked for credits for its head, or holds admitted ones: the
 * library's sender would send it (it blocks until it can), and admitted
 * credits go home only with a request, so the drain sends it too. */
static int asked_for_head(const struct sim_vnode *v)
{
    if (!v->has_head)
        return 0;
    const struct credit_conn *conn = &v->credit.conn[sim_local(v, v->head.dest)];
    return conn->asked || conn->admitted;
}

void sim_run(struct sim *sim)
{
    sim->sending = 1;
    for (sim->now = 0; sim->now < sim->opts.ticks; sim->now++) {
        tick(sim);
        if (sim->restart)
            return;
        if (sim->opts.audit && (sim->now + 1) % sim->opts.window == 0)
            sim_audit(sim, 0);
    }
    /* Drain: no new requests; what is on the wire or queued completes, and
     * requests that asked for credits are sent. */
    sim->sending = 0;
    for (uint32_t r = 0; r < sim->opts.nodes; r++)
        if (!asked_for_head(&sim->node[r]))
            sim->node[r].has_head = sim->node[r].stalled = 0;
    uint64_t start = sim->now, queued = 1;
    while (sim->events.len > 0 || queued > 0) {
        queued = tick(sim);
        if (sim->restart)
            return;
        sim->now++;
    }
    sim->result.drain_ticks = sim->now - start;
    sim_audit(sim, 1);
}
