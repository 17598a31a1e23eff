/*
 * credit-sim: the command line.  Reads the options, resolves the credit
 * plan the way a job of that size would (the library's credit table and
 * its configuration table: the credit knobs on the command line are passed
 * as the GASNET_PORTAL_* variables they stand for, so they are validated by
 * the same rules), runs the simulation and prints the report.
 *
 * Exit status: 0, 1 when an invariant of the credit algorithm broke, 2 for
 * a usage or set-up error.
 */
#include "sim.h"

#include <errno.h>
#include <popt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gasnet.h>

#include "config/config.h"

#define EXIT_BROKEN 1
#define EXIT_USAGE 2

struct cli {
    int nodes, latency, compute, tree_msgs, hot_peers, senders;
    long long ticks, seed, window, steady_moves, shift;
    double service_rate, send_rate, max_mem;
    int csv, no_header, full_state, compact, audit, list, static_credits;
    char *pattern, *windows_csv;
    /* credit knobs, as text for the configuration table */
    char *cred_per_node, *banked, *lender_limit, *revoke_limit, *num_scavenge, *max_cred,
        *epoch, *space;
};

/* The knobs and the variables they set. */
static int export_knobs(const struct cli *c, char *why, size_t whylen)
{
    const struct { const char *name; const char *value; } knobs[] = {
        { "GASNET_PORTAL_CRED_PER_NODE", c->cred_per_node },
        { "GASNET_PORTAL_BANKED_CREDITS", c->banked },
        { "GASNET_PORTAL_LENDER_LIMIT", c->lender_limit },
        { "GASNET_PORTAL_REVOKE_LIMIT", c->revoke_limit },
        { "GASNET_PORTAL_NUM_SCAVENGE", c->num_scavenge },
        { "GASNET_PORTAL_MAX_CRED_PER_NODE", c->max_cred },
        { "GASNET_PORTAL_EPOCH_DURATION", c->epoch },
        { "GASNET_PORTAL_AMRECV_SPACE", c->space },
        { "GASNET_PORTAL_DYNAMIC_CREDITS", c->static_credits ? "0" : NULL },
    };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        if (knobs[i].value && setenv(knobs[i].name, knobs[i].value, 1) != 0) {
            snprintf(why, whylen, "setenv %s: %s", knobs[i].name, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The plan and limits a job of `nodes` would use, by the conduit's own functions. */
static int resolve_credits(uint32_t nodes, struct sim_credit_cfg *cfg, char *why, size_t whylen)
{
    if (gp_config_load(why, whylen) != GASNET_OK ||
        gpc_credit_plan(nodes, &cfg->plan, why, whylen) != GASNET_OK)
        return -1;
    cfg->credits_per_node = cfg->plan.credits_per_node;
    cfg->banked = cfg->plan.banked_credits;
    cfg->limits = gpc_credit_limits(&cfg->plan);
    return 0;
}

static int parse(int argc, const char **argv, struct cli *c)
{
    struct poptOption table[] = {
        { "nodes", 'n', POPT_ARG_INT, &c->nodes, 0, "virtual nodes (default 1000)", "N" },
        { "pattern", 'p', POPT_ARG_STRING, &c->pattern, 0,
          "hotspot, stencil, tree or shift (default hotspot)", "NAME" },
        { "ticks", 't', POPT_ARG_LONGLONG, &c->ticks, 0, "ticks to simulate (default 20000)", "T" },
        { "latency", 'l', POPT_ARG_INT, &c->latency, 0, "ticks a message takes (default 10)", "L" },
        { "service-rate", 's', POPT_ARG_DOUBLE, &c->service_rate, 0,
          "requests a node handles per tick; below 1 is a busy receiver (default 2)", "R" },
        { "send-rate", 0, POPT_ARG_DOUBLE, &c->send_rate, 0,
          "requests a node may send per tick (default 1)", "R" },
        { "seed", 0, POPT_ARG_LONGLONG, &c->seed, 0, "random seed (default 1)", "S" },
        { "csv", 0, POPT_ARG_NONE, &c->csv, 0, "print the summary as CSV (header and one line)", NULL },
        { "no-header", 0, POPT_ARG_NONE, &c->no_header, 0, "with --csv: no header line", NULL },
        { "windows-csv", 0, POPT_ARG_STRING, &c->windows_csv, 0,
          "write the per-window series to FILE as CSV", "FILE" },
        { "window", 'w', POPT_ARG_LONGLONG, &c->window, 0,
          "ticks per measurement window (default ticks/40)", "T" },
        { "steady-moves", 0, POPT_ARG_LONGLONG, &c->steady_moves, 0,
          "credits moved per window still counted as steady (default 16)", "C" },
        { "compute", 0, POPT_ARG_INT, &c->compute, 0, "stencil: ticks of work per step (default 200)", "T" },
        { "tree-msgs", 0, POPT_ARG_INT, &c->tree_msgs, 0,
          "tree: full Mediums per edge per round (default 8)", "M" },
        { "hot-peers", 0, POPT_ARG_INT, &c->hot_peers, 0, "shift: nodes taking turns (default 4)", "H" },
        { "shift", 0, POPT_ARG_LONGLONG, &c->shift, 0, "shift: ticks per hot target (default ticks/8)", "K" },
        { "senders", 0, POPT_ARG_INT, &c->senders, 0,
          "hotspot, shift: number of senders (default all other nodes)", "S" },
        { "cred-per-node", 0, POPT_ARG_STRING, &c->cred_per_node, 0,
          "GASNET_PORTAL_CRED_PER_NODE (default: the credit table)", "C" },
        { "banked", 0, POPT_ARG_STRING, &c->banked, 0,
          "GASNET_PORTAL_BANKED_CREDITS (default: the credit table)", "C" },
        { "lender-limit", 0, POPT_ARG_STRING, &c->lender_limit, 0, "GASNET_PORTAL_LENDER_LIMIT", "C" },
        { "revoke-limit", 0, POPT_ARG_STRING, &c->revoke_limit, 0, "GASNET_PORTAL_REVOKE_LIMIT", "C" },
        { "num-scavenge", 0, POPT_ARG_STRING, &c->num_scavenge, 0, "GASNET_PORTAL_NUM_SCAVENGE", "N" },
        { "max-cred-per-node", 0, POPT_ARG_STRING, &c->max_cred, 0,
          "GASNET_PORTAL_MAX_CRED_PER_NODE", "C" },
        { "epoch-duration", 0, POPT_ARG_STRING, &c->epoch, 0, "GASNET_PORTAL_EPOCH_DURATION", "R" },
        { "amrecv-space", 0, POPT_ARG_STRING, &c->space, 0, "GASNET_PORTAL_AMRECV_SPACE", "BYTES" },
        { "static", 0, POPT_ARG_NONE, &c->static_credits, 0,
          "no dynamic credits (GASNET_PORTAL_DYNAMIC_CREDITS=0)", NULL },
        { "full-state", 0, POPT_ARG_NONE, &c->full_state, 0,
          "give every node a full conn array (to check the compact ones)", NULL },
        { "compact", 0, POPT_ARG_NONE, &c->compact, 0,
          "compact conn arrays under the scavenge guard even where full ones are cheap", NULL },
        { "audit", 0, POPT_ARG_NONE, &c->audit, 0,
          "check conservation across all nodes at the end of every window", NULL },
        { "max-mem", 0, POPT_ARG_DOUBLE, &c->max_mem, 0,
          "refuse runs whose conn state needs more GiB (default 8)", "GIB" },
        { "list-patterns", 0, POPT_ARG_NONE, &c->list, 0, "list the patterns", NULL },
        POPT_AUTOHELP POPT_TABLEEND
    };
    poptContext ctx = poptGetContext("credit-sim", argc, argv, table, 0);
    int rc;
    while ((rc = poptGetNextOpt(ctx)) > 0)
        ;
    if (rc < -1) {
        fprintf(stderr, "credit-sim: %s: %s\n", poptBadOption(ctx, POPT_BADOPTION_NOALIAS),
                poptStrerror(rc));
    } else if (poptPeekArg(ctx) != NULL) {
        fprintf(stderr, "credit-sim: unexpected argument '%s' (see --help)\n", poptPeekArg(ctx));
        rc = -2;
    }
    poptFreeContext(ctx);
    return rc < -1 ? -1 : 0;
}

static int to_opts(const struct cli *c, struct sim_opts *o)
{
    const char *bad = NULL;
    if (c->nodes < 2 || c->nodes > 1000000)
        bad = "--nodes must be 2 to 1000000";
    else if (c->ticks < 1 || c->latency < 1 || c->window < 0 || c->steady_moves < 0 ||
             c->ticks / (c->window ? c->window : 1) > 100000000)
        bad = "--ticks and --latency must be positive, --window and --steady-moves not negative, "
              "and at most 100 million windows";
    else if (!(c->service_rate > 0) || !(c->send_rate > 0) || !(c->max_mem > 0))
        bad = "--service-rate, --send-rate and --max-mem must be positive";
    else if (c->compute < 0 || c->tree_msgs < 1 || c->hot_peers < 1 || c->senders < 0 || c->shift < 0)
        bad = "--compute, --senders and --shift must not be negative, --tree-msgs and --hot-peers positive";
    if (bad) {
        fprintf(stderr, "credit-sim: %s\n", bad);
        return -1;
    }
    *o = (struct sim_opts){
        .nodes = (uint32_t)c->nodes, .pattern = c->pattern, .ticks = (uint64_t)c->ticks,
        .latency = (uint32_t)c->latency, .service_rate = c->service_rate,
        .send_rate = c->send_rate, .seed = (uint64_t)c->seed, .csv = c->csv,
        .csv_header = !c->no_header, .windows_csv = c->windows_csv,
        .window = c->window ? (uint64_t)c->window : ((uint64_t)c->ticks + 39) / 40,
        .steady_moves = (uint64_t)c->steady_moves, .compute = (uint32_t)c->compute,
        .tree_msgs = (uint32_t)c->tree_msgs, .hot_peers = (uint32_t)c->hot_peers,
        .shift_every = (uint64_t)c->shift, .senders = (uint32_t)c->senders,
        .full_state = c->full_state, .compact = c->compact, .audit = c->audit, .max_mem_gib = c->max_mem,
    };
    return 0;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void free_cli(struct cli *c)
{
    char *strings[] = { c->pattern, c->windows_csv, c->cred_per_node, c->banked, c->lender_limit,
                        c->revoke_limit, c->num_scavenge, c->max_cred, c->epoch, c->space };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        free(strings[i]);
}

/* Runs with compact conn arrays where exact; again with full ones for receivers if the
 * guard of layout.c fires. */
static int run(struct sim *sim, const struct sim_opts *opts, const struct sim_credit_cfg *cfg)
{
    char why[512] = "";
    enum sim_layout layout = SIM_LAYOUT_AUTO;
    int64_t restarted_at = -1;
    for (;;) {
        if (sim_init(sim, opts, cfg, layout, why, sizeof why) != 0) {
            fprintf(stderr, "credit-sim: %s\n", why);
            return -1;
        }
        sim->result.restarted_at = restarted_at;
        double start = seconds_now();
        sim_run(sim);
        sim->result.wall_seconds = seconds_now() - start;
        if (!sim->restart)
            return 0;
        restarted_at = (int64_t)sim->restart_tick;
        sim_free(sim);
        layout = SIM_LAYOUT_FULL_RECEIVERS;
    }
}

static int simulate(const struct sim_opts *opts, const struct sim_credit_cfg *cfg)
{
    struct sim sim;
    if (run(&sim, opts, cfg) != 0) {
        sim_free(&sim);
        return EXIT_USAGE;
    }
    sim_summarize(&sim);
    if (opts->csv)
        sim_report_csv(&sim, stdout, opts->csv_header);
    else
        sim_report_human(&sim, stdout);
    int status = sim.failures ? EXIT_BROKEN : 0;
    if (opts->windows_csv && sim_report_windows(&sim, opts->windows_csv) != 0) {
        fprintf(stderr, "credit-sim: cannot write %s: %s\n", opts->windows_csv, strerror(errno));
        status = EXIT_USAGE;
    }
    sim_free(&sim);
    return status;
}

int main(int argc, char **argv)
{
    struct cli c = { .nodes = 1000, .latency = 10, .compute = 200, .tree_msgs = 8, .hot_peers = 4,
                     .steady_moves = 16,
                     .ticks = 20000, .seed = 1, .service_rate = 2.0, .send_rate = 1.0,
                     .max_mem = 8.0 };
    struct sim_opts opts;
    struct sim_credit_cfg cfg;
    char why[512] = "";
    int status = EXIT_USAGE;
    if (parse(argc, (const char **)argv, &c) != 0)
        goto out;
    if (c.list) {
        sim_pattern_list(stdout);
        status = 0;
        goto out;
    }
    if (c.pattern == NULL && (c.pattern = strdup("hotspot")) == NULL)
        goto out;
    if (to_opts(&c, &opts) != 0)
        goto out;
    if (export_knobs(&c, why, sizeof why) != 0 ||
        resolve_credits(opts.nodes, &cfg, why, sizeof why) != 0) {
        fprintf(stderr, "credit-sim: %s\n", why);
        goto out;
    }
    status = simulate(&opts, &cfg);
out:
    free_cli(&c);
    return status;
}
