/*
 * The memory model: which conn records each virtual node gets.
 *
 * A conn array is indexed by peer, and credit_node_init, the epoch end and
 * the scavenge walk run over the whole of it, so the plain approach is a
 * full N x N matrix: 28 bytes a record, 2.8 GB at 10,000 nodes and 11 GB
 * at 20,000.  But a node only ever touches the records of peers it
 * exchanges a message with:
 *
 *   - it sends requests to its pattern's destinations and hears their
 *     replies, and handles requests from its pattern's sources;
 *   - revokes come only from a node that handles requests (scavenging runs
 *     inside credit_request_arrived) and has it on its scavenge list.  With
 *     more than CREDIT_MIN credits per node every peer starts on every list
 *     ("listed_all"), so a receiver may revoke from anyone; with CREDIT_MIN
 *     or fewer a peer joins a list only when it is lent extra, so only a
 *     node's own sources are ever revoked from.
 *
 * So each node gets a compact array over the peers it can meet, numbered
 * its own way (sorted ranks), and the engine translates ranks at every
 * call.  Records a node never meets would, in a full array, stay as
 * initialised (an epoch end decays their zeros and sets a flag no message
 * reads), so nothing observable changes.  The layouts:
 *
 *   FULL_ALL        --full-state: every node a full array (the reference);
 *   FULL_RECEIVERS  with listed_all, a receiver may walk a list of all
 *                   peers, so it gets a full array, and every node has the
 *                   receivers among its peers;
 *   AUTO            FULL_RECEIVERS when that costs little (few receivers,
 *                   as in a hot spot).  Otherwise (every node receives, as
 *                   in the stencil and the tree) compact arrays of partners
 *                   only, under a guard: a compact receiver must never
 *                   scavenge.  Before each request it handles, the engine
 *                   checks that lending it what it asks cannot take the
 *                   bank below the scavenge threshold; if it could, the run
 *                   stops and main() reruns it with FULL_RECEIVERS.  Without
 *                   listed_all, compact arrays are exact as they are.
 *
 * A node whose peers are more than half of all nodes gets a full array.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define CHEAP_FULL_BYTES (256ull << 20) /* full arrays for receivers below this: no guard */

uint32_t sim_local(const struct sim_vnode *v, uint32_t peer)
{
    if (v->peers == NULL)
        return peer;
    uint32_t lo = 0, hi = v->credit.nodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->peers[mid] < peer)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->credit.nodes && v->peers[lo] == peer ? lo : NIL;
}

struct credit_conn *sim_conn(struct sim *sim, uint32_t node, uint32_t peer)
{
    uint32_t local = sim_local(&sim->node[node], peer);
    return local == NIL ? NULL : &sim->node[node].credit.conn[local];
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Decides between FULL_RECEIVERS and the guarded compact layout for AUTO. */
static enum sim_layout choose_layout(struct sim *sim, enum sim_layout asked)
{
    if (asked != SIM_LAYOUT_AUTO || sim->cfg.credits_per_node <= CREDIT_MIN)
        return asked;
    uint64_t full = (uint64_t)sim->nreceivers * sim->opts.nodes * sizeof(struct credit_conn);
    if (full <= CHEAP_FULL_BYTES && !sim->opts.compact)
        return SIM_LAYOUT_FULL_RECEIVERS;
    sim->guard = sim->cfg.limits.dynamic && sim->cfg.limits.flow_control;
    return SIM_LAYOUT_AUTO;
}

/* The peers node can ever meet, sorted, into buf; NIL when it gets a full array. */
static uint32_t peer_set(struct sim *sim, uint32_t node, uint32_t *buf)
{
    int listed_all = sim->cfg.credits_per_node > CREDIT_MIN;
    if (sim->layout == SIM_LAYOUT_FULL_ALL)
        return NIL;
    int receivers_full = listed_all && sim->layout == SIM_LAYOUT_FULL_RECEIVERS;
    if (receivers_full && sim->pattern->receives(sim, node))
        return NIL;
    uint32_t count = sim->pattern->partners(sim, node, buf);
    buf[count++] = node;
    if (receivers_full) {
        memcpy(buf + count, sim->receivers, sim->nreceivers * sizeof *buf);
        count += sim->nreceivers;
    }
    qsort(buf, count, sizeof *buf, cmp_u32);
    uint32_t unique = 0;
    for (uint32_t i = 0; i < count; i++)
        if (unique == 0 || buf[unique - 1] != buf[i])
            buf[unique++] = buf[i];
    return (uint64_t)unique * 2 > sim->opts.nodes ? NIL : unique;
}

static int plan_memory(struct sim *sim, char *why, size_t whylen)
{
    uint32_t n = sim->opts.nodes;
    uint32_t *buf = malloc(((size_t)2 * n + 1) * sizeof *buf);
    if (buf == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < n; r++) {
        struct sim_vnode *v = &sim->node[r];
        uint32_t count = peer_set(sim, r, buf);
        if (count == NIL) {
            sim->full_nodes++;
            sim->state_bytes += (uint64_t)n * sizeof(struct credit_conn);
            continue;
        }
        v->peers = malloc((size_t)count * sizeof *v->peers);
        if (v->peers == NULL) {
            free(buf);
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        memcpy(v->peers, buf, (size_t)count * sizeof *buf);
        v->credit.nodes = count; /* until credit_node_init */
        sim->state_bytes += (uint64_t)count * (sizeof(struct credit_conn) + sizeof(uint32_t));
    }
    free(buf);
    double gib = (double)sim->state_bytes / (1024.0 * 1024.0 * 1024.0);
    if (gib > sim->opts.max_mem_gib) {
        snprintf(why, whylen, "the conn state of %u nodes (%u of them with a full array) needs "
                 "%.1f GiB, more than --max-mem %.1f GiB", n, sim->full_nodes, gib,
                 sim->opts.max_mem_gib);
        return -1;
    }
    return 0;
}

static int init_nodes(struct sim *sim, char *why, size_t whylen)
{
    uint32_t n = sim->opts.nodes;
    for (uint32_t r = 0; r < n; r++) {
        struct sim_vnode *v = &sim->node[r];
        uint32_t count = v->peers ? v->credit.nodes : n;
        struct credit_conn *conn = malloc((size_t)count * sizeof *conn);
        if (conn == NULL) {
            snprintf(why, whylen, "out of memory for the conn array of node %u", r);
            return -1;
        }
        credit_node_init(&v->credit, v->peers ? sim_local(v, r) : r, count, conn,
                         sim->cfg.credits_per_node, sim->cfg.banked, &sim->cfg.limits,
                         sim_send_sys, v);
        v->sim = sim;
        v->rank = r;
        v->rq_first = v->rq_last = NIL;
    }
    return 0;
}

static int find_receivers(struct sim *sim, char *why, size_t whylen)
{
    sim->receivers = malloc((size_t)sim->opts.nodes * sizeof *sim->receivers);
    if (sim->receivers == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < sim->opts.nodes; r++)
        if (sim->pattern->receives(sim, r))
            sim->receivers[sim->nreceivers++] = r;
    return 0;
}

int sim_init(struct sim *sim, const struct sim_opts *opts, const struct sim_credit_cfg *cfg,
             enum sim_layout layout, char *why, size_t whylen)
{
    memset(sim, 0, sizeof *sim);
    sim->opts = *opts;
    sim->cfg = *cfg;
    sim->rq_free = NIL;
    sim->pattern = sim_pattern_find(opts->pattern);
    if (sim->pattern == NULL) {
        snprintf(why, whylen, "unknown pattern '%s' (see --list-patterns)", opts->pattern);
        return -1;
    }
    sim->nwin = (size_t)((opts->ticks + opts->window - 1) / opts->window) + 1; /* + the drain */
    sim->win = calloc(sim->nwin, sizeof *sim->win);
    sim->node = calloc(opts->nodes, sizeof *sim->node);
    sim->inflight = calloc(opts->nodes, sizeof *sim->inflight);
    sim->rq_count = calloc(opts->nodes, sizeof *sim->rq_count);
    sim->wake = calloc(opts->nodes, sizeof *sim->wake);
    if (sim->win == NULL || sim->node == NULL || sim->inflight == NULL || sim->rq_count == NULL ||
        sim->wake == NULL) {
        snprintf(why, whylen, "out of memory for %u nodes", opts->nodes);
        return -1;
    }
    if (sim->pattern->setup(sim, why, whylen) != 0 || find_receivers(sim, why, whylen) != 0)
        return -1;
    sim->layout = choose_layout(sim, opts->full_state ? SIM_LAYOUT_FULL_ALL : layout);
    if (plan_memory(sim, why, whylen) != 0 || init_nodes(sim, why, whylen) != 0)
        return -1;
    return 0;
}

void sim_free(struct sim *sim)
{
    if (sim->pattern && sim->pattern_state)
        sim->pattern->teardown(sim);
    if (sim->node) {
        for (uint32_t r = 0; r < sim->opts.nodes; r++) {
            free(sim->node[r].peers);
            free(sim->node[r].credit.conn);
        }
    }
    free(sim->node);
    free(sim->events.ev);
    free(sim->rq);
    free(sim->rq_count);
    free(sim->wake);
    free(sim->receivers);
    free(sim->win);
    free(sim->inflight);
    sim_pairs_free(&sim->pairs);
    memset(sim, 0, sizeof *sim);
}
