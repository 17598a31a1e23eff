/*
 * The communication patterns of the seeds, as request generators:
 *
 *   hotspot   all-to-one: every other node (or --senders of them) sends
 *             Shorts and Mediums of random size to node 0 as fast as it may;
 *   shift     the same, but the hot target moves every --shift ticks among
 *             --hot-peers nodes chosen at random, round robin, so each one
 *             becomes hot again after it has cooled;
 *   stencil   seed 000's VIS example: a 3-D torus of nodes, each with up to
 *             6 face neighbours; a step sends, face by face, 5 variables x
 *             32 full Mediums (4 credits each) to each neighbour, waits for
 *             its neighbours' ghost faces, then computes --compute ticks;
 *   tree      a binomial-tree allreduce rooted at node 0: each round sends
 *             --tree-msgs full Mediums up every edge, then down every edge;
 *             a node has log2(N) partners or fewer.
 *
 * A pattern only says what to send and when; credit_take decides whether
 * it can go.  Every pattern declares the peers a node meets (partners) and
 * which nodes receive requests, so the engine can size conn arrays.
 */
#include "sim.h"

#include "conduit/am/am_wire.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MEDIUM_ARGS 2  /* a VIS-style packed Medium carries a couple of arguments */

/* Credits of a request, the way the conduit counts them (doc/credits.md). */
static uint8_t medium_credits(uint64_t payload)
{
    uint64_t body = gpc_body_bytes(GPC_MEDIUM, MEDIUM_ARGS, 0, payload);
    uint64_t credits = (body + GPC_CREDIT_BYTES - 1) / GPC_CREDIT_BYTES;
    return (uint8_t)(credits ? credits : 1);
}

/* A quarter Shorts (1 credit), the rest Mediums with a uniform payload. */
static uint8_t random_credits(const struct sim *sim, uint32_t node, uint64_t counter)
{
    uint64_t r = sim_rand(sim->opts.seed, node, counter);
    if ((r & 3) == 0)
        return 1;
    return medium_credits((r >> 8) % (GPC_MAX_MEDIUM + 1));
}

/* ---------------- hotspot and shift ---------------- */

struct hot_state {
    uint32_t *hot;           /* the nodes that take turns being the target */
    uint32_t nhot;
    uint8_t *role;           /* 1: hot, 2: sender, 0: idle */
    uint32_t nsenders;
    uint64_t shift;          /* ticks per target; UINT64_MAX: never moves */
    uint64_t *count;         /* per node: requests generated (random sizes) */
};

enum { ROLE_IDLE = 0, ROLE_HOT = 1, ROLE_SENDER = 2 };

static int hot_setup_common(struct sim *sim, uint32_t nhot, uint64_t shift, char *why, size_t whylen)
{
    uint32_t n = sim->opts.nodes;
    if (nhot == 0 || nhot >= n) {
        snprintf(why, whylen, "need 1 to %u hot peers among %u nodes", n - 1, n);
        return -1;
    }
    struct hot_state *st = calloc(1, sizeof *st);
    if (st == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    st->hot = calloc(nhot, sizeof *st->hot);
    st->role = calloc(n, sizeof *st->role);
    st->count = calloc(n, sizeof *st->count);
    sim->pattern_state = st;
    if (st->hot == NULL || st->role == NULL || st->count == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    st->nhot = nhot;
    st->shift = shift;
    if (nhot == 1) {
        st->hot[0] = 0;
    } else { /* distinct nodes at random */
        for (uint32_t i = 0, draw = 0; i < nhot; draw++) {
            uint32_t cand = (uint32_t)(sim_rand(sim->opts.seed, UINT32_MAX, draw) % n);
            if (st->role[cand] == ROLE_IDLE) {
                st->role[cand] = ROLE_HOT;
                st->hot[i++] = cand;
            }
        }
    }
    st->role[st->hot[0]] = ROLE_HOT;
    uint32_t limit = sim->opts.senders ? sim->opts.senders : n;
    for (uint32_t r = 0; r < n && st->nsenders < limit; r++) {
        if (st->role[r] == ROLE_IDLE) {
            st->role[r] = ROLE_SENDER;
            st->nsenders++;
        }
    }
    return 0;
}

static int hotspot_setup(struct sim *sim, char *why, size_t whylen)
{
    return hot_setup_common(sim, 1, UINT64_MAX, why, whylen);
}

static int shift_setup(struct sim *sim, char *why, size_t whylen)
{
    uint64_t shift = sim->opts.shift_every ? sim->opts.shift_every : sim->opts.ticks / 8;
    return hot_setup_common(sim, sim->opts.hot_peers, shift ? shift : 1, why, whylen);
}

static void hot_teardown(struct sim *sim)
{
    struct hot_state *st = sim->pattern_state;
    free(st->hot);
    free(st->role);
    free(st->count);
    free(st);
    sim->pattern_state = NULL;
}

static int hot_receives(const struct sim *sim, uint32_t node)
{
    const struct hot_state *st = sim->pattern_state;
    return st->role[node] == ROLE_HOT;
}

static uint32_t hot_partners(const struct sim *sim, uint32_t node, uint32_t *out)
{
    const struct hot_state *st = sim->pattern_state;
    uint32_t count = 0;
    if (st->role[node] == ROLE_SENDER) {
        memcpy(out, st->hot, st->nhot * sizeof *out);
        count = st->nhot;
    } else if (st->role[node] == ROLE_HOT) {
        for (uint32_t r = 0; r < sim->opts.nodes; r++)
            if (st->role[r] == ROLE_SENDER)
                out[count++] = r;
    }
    return count;
}

static int hot_next(struct sim *sim, uint32_t node, struct sim_send *out, uint64_t *wake_at)
{
    struct hot_state *st = sim->pattern_state;
    if (st->role[node] != ROLE_SENDER) {
        *wake_at = UINT64_MAX;
        return 0;
    }
    uint64_t turn = st->shift == UINT64_MAX ? 0 : sim->now / st->shift;
    out->dest = st->hot[turn % st->nhot];
    out->tag = (uint32_t)turn;
    out->credits = random_credits(sim, node, st->count[node]++);
    return 1;
}

static void hot_handled(struct sim *sim, uint32_t node, uint32_t from, uint32_t tag)
{
    (void)sim, (void)node, (void)from, (void)tag;
}

static void hot_describe(const struct sim *sim, char *buf, size_t len)
{
    const struct hot_state *st = sim->pattern_state;
    int used = snprintf(buf, len, "%u senders; hot:", st->nsenders);
    for (uint32_t i = 0; i < st->nhot && used > 0 && (size_t)used < len; i++)
        used += snprintf(buf + used, len - (size_t)used, " %u", st->hot[i]);
    if (st->shift != UINT64_MAX && used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, ", moving every %llu ticks",
                 (unsigned long long)st->shift);
}

/* ---------------- stencil ---------------- */

#define STENCIL_VARS 5u
#define STENCIL_MSGS 32u     /* Mediums per variable per face: 32 KB in < 1 KB pieces */
#define STENCIL_PER_FACE (STENCIL_VARS * STENCIL_MSGS)

enum { ST_SEND, ST_WAIT, ST_COMPUTE };

struct stencil_node {
    uint64_t ready_at;
    uint32_t step;
    uint32_t sent;
    uint32_t recv[2];        /* requests handled, by step parity */
    uint8_t phase;
};

struct stencil_state {
    uint32_t dims[3];
    uint8_t faces[6];        /* faces whose dimension is longer than 1 */
    uint32_t nfaces;
    uint32_t expected;       /* requests per step, sent and received */
    struct stencil_node *node;
};

/* The largest divisor of n no greater than limit. */
static uint32_t divisor_below(uint32_t n, double limit)
{
    for (uint32_t d = (uint32_t)limit; d > 1; d--)
        if (n % d == 0)
            return d;
    return 1;
}

static int stencil_setup(struct sim *sim, char *why, size_t whylen)
{
    uint32_t n = sim->opts.nodes;
    struct stencil_state *st = calloc(1, sizeof *st);
    sim->pattern_state = st;
    if (st == NULL || (st->node = calloc(n, sizeof *st->node)) == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    st->dims[2] = divisor_below(n, cbrt((double)n) + 1e-9);
    st->dims[1] = divisor_below(n / st->dims[2], sqrt((double)(n / st->dims[2])) + 1e-9);
    st->dims[0] = n / st->dims[2] / st->dims[1];
    for (uint8_t f = 0; f < 6; f++)
        if (st->dims[f / 2] > 1)
            st->faces[st->nfaces++] = f;
    st->expected = st->nfaces * STENCIL_PER_FACE;
    if (st->nfaces == 0) {
        snprintf(why, whylen, "a stencil needs at least 2 nodes");
        return -1;
    }
    return 0;
}

static void stencil_teardown(struct sim *sim)
{
    struct stencil_state *st = sim->pattern_state;
    free(st->node);
    free(st);
    sim->pattern_state = NULL;
}

static uint32_t stencil_neighbour(const struct stencil_state *st, uint32_t node, unsigned face)
{
    uint32_t c[3] = { node % st->dims[0], node / st->dims[0] % st->dims[1],
                      node / st->dims[0] / st->dims[1] };
    unsigned d = face / 2;
    c[d] = face % 2 ? (c[d] + 1) % st->dims[d] : (c[d] + st->dims[d] - 1) % st->dims[d];
    return c[0] + st->dims[0] * (c[1] + st->dims[1] * c[2]);
}

static int every_node_receives(const struct sim *sim, uint32_t node)
{
    (void)sim, (void)node;
    return 1;
}

static uint32_t stencil_partners(const struct sim *sim, uint32_t node, uint32_t *out)
{
    const struct stencil_state *st = sim->pattern_state;
    for (uint32_t i = 0; i < st->nfaces; i++)
        out[i] = stencil_neighbour(st, node, st->faces[i]);
    return st->nfaces;
}

static int stencil_next(struct sim *sim, uint32_t node, struct sim_send *out, uint64_t *wake_at)
{
    struct stencil_state *st = sim->pattern_state;
    struct stencil_node *me = &st->node[node];
    for (;;) {
        switch (me->phase) {
        case ST_COMPUTE:
            if (sim->now < me->ready_at) {
                *wake_at = me->ready_at;
                return 0;
            }
            me->phase = ST_SEND;
            me->sent = 0;
            break;
        case ST_SEND:
            if (me->sent < st->expected) {
                out->dest = stencil_neighbour(st, node, st->faces[me->sent / STENCIL_PER_FACE]);
                out->tag = me->step;
                out->credits = medium_credits(GPC_MAX_MEDIUM);
                me->sent++;
                return 1;
            }
            me->phase = ST_WAIT;
            break;
        default: /* ST_WAIT: the neighbours' ghost faces for this step */
            if (me->recv[me->step & 1] < st->expected) {
                *wake_at = UINT64_MAX; /* until a neighbour's request is handled here */
                return 0;
            }
            me->recv[me->step & 1] = 0;
            me->step++;
            me->phase = ST_COMPUTE;
            me->ready_at = sim->now + sim->opts.compute;
            break;
        }
    }
}

static void stencil_handled(struct sim *sim, uint32_t node, uint32_t from, uint32_t tag)
{
    struct stencil_state *st = sim->pattern_state;
    struct stencil_node *me = &st->node[node];
    if (tag != me->step && tag != me->step + 1)
        sim_fail(sim, "stencil: node %u at step %u got step %u from %u", node, me->step, tag, from);
    me->recv[tag & 1]++;
}

static void stencil_describe(const struct sim *sim, char *buf, size_t len)
{
    const struct stencil_state *st = sim->pattern_state;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t r = 0; r < sim->opts.nodes; r++) {
        lo = st->node[r].step < lo ? st->node[r].step : lo;
        hi = st->node[r].step > hi ? st->node[r].step : hi;
    }
    snprintf(buf, len, "torus %ux%ux%u, %u neighbours, %u Mediums of %u credits per "
             "neighbour per step; steps done: %u to %u", st->dims[0], st->dims[1], st->dims[2],
             st->nfaces, STENCIL_PER_FACE, medium_credits(GPC_MAX_MEDIUM), lo, hi);
}

/* ---------------- tree ---------------- */

enum { TR_REDUCE_WAIT, TR_REDUCE_SEND, TR_BCAST_WAIT, TR_BCAST_SEND };

struct tree_node {
    uint32_t round;
    uint32_t sent;
    uint32_t child;
    uint32_t recv_reduce[2];
    uint32_t recv_bcast[2];
    uint8_t phase;
};

struct tree_state {
    struct tree_node *node;
};

/* Children of v in the binomial tree rooted at 0: v + 2^k for 2^k below v's lowest bit. */
static uint32_t tree_children(uint32_t nodes, uint32_t v)
{
    uint32_t count = 0;
    for (uint32_t k = 0; k < 32 && (v == 0 || (1u << k) < (v & -v)); k++) {
        if ((uint64_t)v + (1u << k) >= nodes)
            break;
        count++;
    }
    return count;
}

static int tree_setup(struct sim *sim, char *why, size_t whylen)
{
    struct tree_state *st = calloc(1, sizeof *st);
    sim->pattern_state = st;
    if (st == NULL || (st->node = calloc(sim->opts.nodes, sizeof *st->node)) == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (sim->opts.tree_msgs == 0) {
        snprintf(why, whylen, "--tree-msgs must be at least 1");
        return -1;
    }
    return 0;
}

static void tree_teardown(struct sim *sim)
{
    struct tree_state *st = sim->pattern_state;
    free(st->node);
    free(st);
    sim->pattern_state = NULL;
}

static uint32_t tree_partners(const struct sim *sim, uint32_t node, uint32_t *out)
{
    uint32_t count = 0;
    if (node != 0)
        out[count++] = node & (node - 1);
    uint32_t children = tree_children(sim->opts.nodes, node);
    for (uint32_t k = 0; k < children; k++)
        out[count++] = node + (1u << k);
    return count;
}

static int tree_next(struct sim *sim, uint32_t node, struct sim_send *out, uint64_t *wake_at)
{
    struct tree_node *me = &((struct tree_state *)sim->pattern_state)->node[node];
    uint32_t m = sim->opts.tree_msgs, children = tree_children(sim->opts.nodes, node);
    out->credits = medium_credits(GPC_MAX_MEDIUM);
    for (;;) {
        switch (me->phase) {
        case TR_REDUCE_WAIT:
            if (me->recv_reduce[me->round & 1] < m * children) {
                *wake_at = UINT64_MAX;
                return 0;
            }
            me->phase = node == 0 ? TR_BCAST_SEND : TR_REDUCE_SEND;
            me->sent = me->child = 0;
            break;
        case TR_REDUCE_SEND:
            if (me->sent < m) {
                out->dest = node & (node - 1);
                out->tag = me->round * 2;
                me->sent++;
                return 1;
            }
            me->phase = TR_BCAST_WAIT;
            break;
        case TR_BCAST_WAIT:
            if (me->recv_bcast[me->round & 1] < m) {
                *wake_at = UINT64_MAX;
                return 0;
            }
            me->phase = TR_BCAST_SEND;
            me->sent = me->child = 0;
            break;
        default: /* TR_BCAST_SEND */
            if (me->child < children) {
                out->dest = node + (1u << me->child);
                out->tag = me->round * 2 + 1;
                if (++me->sent == m) {
                    me->sent = 0;
                    me->child++;
                }
                return 1;
            }
            me->recv_reduce[me->round & 1] = me->recv_bcast[me->round & 1] = 0;
            me->round++;
            me->phase = TR_REDUCE_WAIT;
            break;
        }
    }
}

static void tree_handled(struct sim *sim, uint32_t node, uint32_t from, uint32_t tag)
{
    struct tree_node *me = &((struct tree_state *)sim->pattern_state)->node[node];
    uint32_t round = tag / 2;
    if (round != me->round && round != me->round + 1)
        sim_fail(sim, "tree: node %u in round %u got round %u from %u", node, me->round, round, from);
    if (tag & 1)
        me->recv_bcast[round & 1]++;
    else
        me->recv_reduce[round & 1]++;
}

static void tree_describe(const struct sim *sim, char *buf, size_t len)
{
    const struct tree_state *st = sim->pattern_state;
    snprintf(buf, len, "binomial tree rooted at 0, root has %u children; %u Mediums of %u "
             "credits per edge each way per round; rounds done: %u",
             tree_children(sim->opts.nodes, 0), sim->opts.tree_msgs,
             medium_credits(GPC_MAX_MEDIUM), st->node[0].round);
}

/* ---------------- the list ---------------- */

static const struct sim_pattern patterns[] = {
    { "hotspot", "all-to-one: every other node floods node 0 with random Shorts and Mediums", 1,
      hotspot_setup, hot_teardown, hot_receives, hot_partners, hot_next, hot_handled,
      hot_describe },
    { "stencil", "3-D torus ghost exchange, seed 000's 32x32x32 example (6 neighbours)", 1,
      stencil_setup, stencil_teardown, every_node_receives, stencil_partners, stencil_next,
      stencil_handled, stencil_describe },
    { "tree", "binomial-tree allreduce rounds (log2 N partners)", 1, tree_setup, tree_teardown,
      every_node_receives, tree_partners, tree_next, tree_handled, tree_describe },
    { "shift", "a hot target that moves every --shift ticks among --hot-peers nodes", 0,
      shift_setup, hot_teardown, hot_receives, hot_partners, hot_next, hot_handled,
      hot_describe },
};

const struct sim_pattern *sim_pattern_find(const char *name)
{
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (strcmp(patterns[i].name, name) == 0)
            return &patterns[i];
    return NULL;
}

void sim_pattern_list(FILE *out)
{
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        fprintf(out, "  %-8s %s\n", patterns[i].name, patterns[i].doc);
}
