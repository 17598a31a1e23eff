/*
 * What a run found: totals, the per-window series of credits moved, the
 * time to a steady state, whether credits stop moving once the pattern is
 * static (goal 3 of seed 000) and whether they oscillate, and the memory
 * each node spends on flow control by the static plan (seed 000: a credit
 * is 256 bytes of ReqRB plus one 128-byte event).
 */
#include "sim.h"

#include <inttypes.h>
#include <string.h>

#define EVENT_BYTES 128

static uint64_t moved(const struct sim_window *w)
{
    return w->granted + w->returned;
}

static size_t measured_windows(const struct sim *sim)
{
    return sim->nwin - 1;
}

static void find_steady(struct sim *sim)
{
    struct sim_result *res = &sim->result;
    size_t n = measured_windows(sim);
    res->steady_threshold = sim->opts.steady_moves; /* default 16: four full Mediums */
    size_t first = n;
    while (first > 0 && moved(&sim->win[first - 1]) <= res->steady_threshold)
        first--;
    res->steady_window = first < n ? (int64_t)first : -1;
    /* Steady for the last quarter of the run at least, so one quiet window is not enough. */
    res->stops_moving = res->steady_window >= 0 && (n - first) * 4 >= n;
}

static void scan_end_state(struct sim *sim)
{
    struct sim_result *res = &sim->result;
    res->min_bank = INT64_MAX;
    for (uint32_t r = 0; r < sim->opts.nodes; r++) {
        struct sim_vnode *v = &sim->node[r];
        int64_t bank = gp_count_get(&v->credit.banked);
        res->min_bank = bank < res->min_bank ? bank : res->min_bank;
        res->epochs += v->credit.stats.epochs;
        uint32_t count = v->peers ? v->credit.nodes : sim->opts.nodes;
        for (uint32_t i = 0; i < count; i++) {
            if (i == v->credit.rank)
                continue;
            unsigned send = v->credit.conn[i].send_credits;
            res->max_send = send > res->max_send ? send : res->max_send;
            res->pairs_above += send > sim->cfg.credits_per_node;
        }
    }
}

void sim_summarize(struct sim *sim)
{
    struct sim_result *res = &sim->result;
    sim_pairs_finish(sim);
    for (size_t i = 0; i < measured_windows(sim); i++) {
        const struct sim_window *w = &sim->win[i];
        res->requests += w->requests;
        res->granted += w->granted;
        res->returned += w->returned;
        res->revokes += w->revokes;
        res->zero_replies += w->zero_replies;
        res->stalls += w->stalls;
        res->stall_ticks += w->stall_ticks;
        res->asks += w->asks;
        res->admitted += w->admitted;
    }
    find_steady(sim);
    scan_end_state(sim);
}

const char *sim_layout_name(const struct sim *sim)
{
    if (sim->full_nodes == sim->opts.nodes)
        return "full";
    if (sim->full_nodes == 0)
        return sim->guard ? "compact-guarded" : "compact";
    return "full-receivers";
}

/* ---- memory of the static plan ---- */

struct node_memory {
    uint64_t reqrb, am_eq, conn, total;
};

static struct node_memory node_memory(const struct sim *sim)
{
    const struct gpc_credit_plan *plan = &sim->cfg.plan;
    struct node_memory m;
    m.reqrb = (uint64_t)plan->reqrb_buffers * plan->reqrb_buffer_bytes;
    m.am_eq = (uint64_t)plan->am_eq_events * EVENT_BYTES;
    m.conn = (uint64_t)sim->opts.nodes * sizeof(struct credit_conn);
    m.total = m.reqrb + m.am_eq + m.conn;
    return m;
}

static const char *human_bytes(uint64_t bytes, char *buf, size_t len)
{
    if (bytes >= (uint64_t)10 << 30)
        snprintf(buf, len, "%.1f GiB", (double)bytes / (1u << 30));
    else if (bytes >= (uint64_t)10 << 20)
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1u << 20));
    else
        snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
    return buf;
}

/* ---- the human report ---- */

static void print_header(const struct sim *sim, FILE *out)
{
    const struct sim_opts *o = &sim->opts;
    const struct sim_credit_cfg *c = &sim->cfg;
    char desc[256], b1[32], b2[32], b3[32], b4[32];
    sim->pattern->describe(sim, desc, sizeof desc);
    fprintf(out, "credit-sim: %s, %u nodes, %" PRIu64 " ticks (+%" PRIu64 " to drain), latency %u, "
            "service %.2f/tick, send %.2f/tick, seed %" PRIu64 "\n", sim->pattern->name, o->nodes,
            o->ticks, sim->result.drain_ticks, o->latency, o->service_rate, o->send_rate, o->seed);
    fprintf(out, "pattern:     %s\n", desc);
    fprintf(out, "credits:     %u per node, bank %u (%u in all); %s; lender limit %u, revoke limit "
            "%u, scavenge %u, max %u per node, epoch %u requests, low bank %u\n",
            c->credits_per_node, c->banked, c->plan.total_credits,
            c->limits.dynamic ? "dynamic" : "static (GASNET_PORTAL_DYNAMIC_CREDITS=0)",
            c->limits.lender_limit, c->limits.revoke_limit, c->limits.num_scavenge,
            c->limits.max_per_node, c->limits.epoch_duration, c->limits.low_bank);
    struct node_memory m = node_memory(sim);
    fprintf(out, "memory/node: ReqRB %s (%u x %u B) + AM_EQ %s (%u events x %d B) + conn_state "
            "%s (%u x %zu B) = %s\n", human_bytes(m.reqrb, b1, sizeof b1),
            c->plan.reqrb_buffers, c->plan.reqrb_buffer_bytes, human_bytes(m.am_eq, b2, sizeof b2),
            c->plan.am_eq_events, EVENT_BYTES, human_bytes(m.conn, b3, sizeof b3), o->nodes,
            sizeof(struct credit_conn), human_bytes(m.total, b4, sizeof b4));
    fprintf(out, "sim state:   %s layout: %u nodes with a full conn array, %u compact; %s of conn "
            "records\n", sim_layout_name(sim), sim->full_nodes, o->nodes - sim->full_nodes,
            human_bytes(sim->state_bytes, b1, sizeof b1));
    if (sim->result.restarted_at >= 0)
        fprintf(out, "             (rerun: in the compact layout a receiver came near its scavenge "
                "threshold at tick %" PRId64 ")\n", sim->result.restarted_at);
}

static void print_window(const struct sim_window *w, const char *label, FILE *out)
{
    fprintf(out, "%-16s %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %8" PRIu64
            " %11" PRIu64 " %6u\n", label, w->requests, w->granted, w->returned, w->revokes,
            w->zero_replies, w->stalls, w->stall_ticks, w->osc_pairs);
}

void sim_report_human(const struct sim *sim, FILE *out)
{
    const struct sim_result *res = &sim->result;
    print_header(sim, out);
    fprintf(out, "\n%-16s %10s %8s %8s %8s %6s %8s %11s %6s\n", "window (ticks)", "requests",
            "granted", "revoked", "revokes", "zero", "stalls", "stall-ticks", "revers");
    char label[48];
    for (size_t i = 0; i < measured_windows(sim); i++) {
        uint64_t end = (i + 1) * sim->opts.window;
        snprintf(label, sizeof label, "%" PRIu64 "-%" PRIu64, i * sim->opts.window,
                 (end < sim->opts.ticks ? end : sim->opts.ticks) - 1);
        print_window(&sim->win[i], label, out);
    }
    print_window(&sim->win[sim->nwin - 1], "drain", out);

    fprintf(out, "\nrequests handled     %" PRIu64 "\n", res->requests);
    fprintf(out, "credits moved        %" PRIu64 " (granted %" PRIu64 " + revoked %" PRIu64 "); "
            "%" PRIu64 " revokes, %" PRIu64 " answered with zero\n", res->granted + res->returned,
            res->granted, res->returned, res->revokes, res->zero_replies);
    fprintf(out, "stalls               %" PRIu64 " (%" PRIu64 " ticks waited)\n", res->stalls,
            res->stall_ticks);
    fprintf(out, "asks                 %" PRIu64 " (%" PRIu64 " credits admitted for single "
            "requests)\n", res->asks, res->admitted);
    if (res->steady_window >= 0)
        fprintf(out, "steady state         from tick %" PRIu64 " (window %" PRId64 "; at most %"
                PRIu64 " credits moved per window after it)\n",
                (uint64_t)res->steady_window * sim->opts.window, res->steady_window,
                res->steady_threshold);
    else
        fprintf(out, "steady state         not reached (the last window moved more than %" PRIu64
                " credits)\n", res->steady_threshold);
    fprintf(out, "credits stop moving  %s%s\n", res->stops_moving ? "yes" : "no",
            sim->pattern->is_static ? " (static pattern: goal 3 of seed 000)"
                                    : " (the pattern moves: goal 3 does not apply)");
    if (sim->pairs.oscillating)
        fprintf(out, "oscillation          yes: %" PRIu64 " lender/borrower pairs changed direction "
                "twice or more (%" PRIu64 " reversals, %" PRIu64 " in the second half)\n",
                sim->pairs.oscillating, sim->pairs.reversals, sim->pairs.late_reversals);
    else
        fprintf(out, "oscillation          no (%" PRIu64 " reversals among %zu pairs that moved "
                "credits)\n", sim->pairs.reversals, sim->pairs.used);
    fprintf(out, "end state            at most %u credits for one peer; %" PRIu64 " pairs above the "
            "initial %u; lowest bank %" PRId64 "; %" PRIu64 " epochs ended\n", res->max_send,
            res->pairs_above, sim->cfg.credits_per_node, res->min_bank, res->epochs);
    fprintf(out, "checks               %s\n", sim->failures ? "INVARIANTS BROKEN (see stderr)"
                                                         : "conservation, limits and agreement held");
    fprintf(out, "wall time            %.1f s\n", res->wall_seconds);
}

/* ---- CSV ---- */

void sim_report_csv(const struct sim *sim, FILE *out, int header)
{
    const struct sim_result *res = &sim->result;
    struct node_memory m = node_memory(sim);
    if (header)
        fprintf(out, "pattern,nodes,ticks,latency,service_rate,send_rate,seed,senders,credits_per_node,"
                "banked,reqrb_bytes,am_eq_bytes,conn_bytes,node_bytes,requests,granted,revoked,"
                "revokes,zero_replies,stalls,stall_ticks,steady_tick,stops_moving,oscillating_pairs,"
                "reversals,max_send,pairs_above,min_bank,epochs,failures,layout,full_nodes,state_bytes,"
                "restarted_at,wall_s,asks,admitted\n");
    fprintf(out, "%s,%u,%" PRIu64 ",%u,%.2f,%.2f,%" PRIu64 ",%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRId64 ",%s,%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64 ",%" PRId64 ",%" PRIu64
            ",%" PRIu64 ",%s,%u,%" PRIu64 ",%" PRId64 ",%.1f,%" PRIu64 ",%" PRIu64 "\n",
            sim->pattern->name, sim->opts.nodes, sim->opts.ticks, sim->opts.latency,
            sim->opts.service_rate, sim->opts.send_rate, sim->opts.seed, sim->opts.senders,
            sim->cfg.credits_per_node,
            sim->cfg.banked, m.reqrb, m.am_eq, m.conn, m.total, res->requests, res->granted,
            res->returned, res->revokes, res->zero_replies, res->stalls, res->stall_ticks,
            res->steady_window >= 0 ? res->steady_window * (int64_t)sim->opts.window : -1,
            res->stops_moving ? "yes" : "no", sim->pairs.oscillating, sim->pairs.reversals,
            res->max_send, res->pairs_above, res->min_bank, res->epochs, sim->failures,
            sim_layout_name(sim), sim->full_nodes, sim->state_bytes, res->restarted_at,
            res->wall_seconds, res->asks, res->admitted);
}

int sim_report_windows(const struct sim *sim, const char *path)
{
    FILE *out = fopen(path, "w");
    if (out == NULL)
        return -1;
    fprintf(out, "window,start_tick,requests,granted,revoked,revokes,zero_replies,stalls,"
            "stall_ticks,reversals\n");
    for (size_t i = 0; i < sim->nwin; i++) {
        const struct sim_window *w = &sim->win[i];
        if (i + 1 == sim->nwin)
            fprintf(out, "drain,%" PRIu64, sim->opts.ticks);
        else
            fprintf(out, "%zu,%" PRIu64, i, (uint64_t)i * sim->opts.window);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
                PRIu64 ",%u\n", w->requests, w->granted, w->returned, w->revokes, w->zero_replies,
                w->stalls, w->stall_ticks, w->osc_pairs);
    }
    return fclose(out) == 0 ? 0 : -1;
}
