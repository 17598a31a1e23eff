/*
 * gp-top's command line:
 *
 *   gp-top [--job ID] [-d SECONDS] [-b] [-n COUNT] [--json] [--views LIST]
 *          [-s COLUMN] [-r] [--rank R]
 *
 * Every mistake is named here with what is accepted, before any page is read.
 */
#include "gp_top.h"

#include <errno.h>
#include <math.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_JOB = 1, OPT_DELAY, OPT_BATCH, OPT_COUNT, OPT_JSON, OPT_VIEWS, OPT_SORT, OPT_REVERSE,
       OPT_RANK, OPT_HELP, OPT_VERSION };

static const struct poptOption option_table[] = {
    { "job", 'j', POPT_ARG_STRING, NULL, OPT_JOB,
      "the job to watch (default: your newest job on this host)", "ID" },
    { "delay", 'd', POPT_ARG_STRING, NULL, OPT_DELAY,
      "seconds between refreshes, from 0.01 to 86400 (default 1)", "SECONDS" },
    { "batch", 'b', POPT_ARG_NONE, NULL, OPT_BATCH,
      "batch mode: plain-text snapshots on stdout, no terminal needed", NULL },
    { "iterations", 'n', POPT_ARG_STRING, NULL, OPT_COUNT,
      "batch mode: stop after COUNT snapshots (default: when the job ends)", "COUNT" },
    { "json", '\0', POPT_ARG_NONE, NULL, OPT_JSON,
      "batch mode, one JSON object per snapshot and line (implies -b)", NULL },
    { "views", '\0', POPT_ARG_STRING, NULL, OPT_VIEWS,
      "batch: views printed; interactive: the first is shown first "
      "(nodes, matrix, peer, timeline, jobs; default nodes)", "LIST" },
    { "sort", 's', POPT_ARG_STRING, NULL, OPT_SORT,
      "node table sort column (rank, host, state, bank, lent, send, tmpmd, reqsb, rplsb, reqrb, "
      "am, safe, sys, stalls, cbhits)", "COLUMN" },
    { "reverse", 'r', POPT_ARG_NONE, NULL, OPT_REVERSE, "reverse the sort order", NULL },
    { "rank", 'p', POPT_ARG_STRING, NULL, OPT_RANK, "the peer view's rank (default 0)", "R" },
    { "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
    { "version", '\0', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
    POPT_TABLEEND
};

static const char *const view_names[VIEW_COUNT] = { "nodes", "matrix", "peer", "timeline", "jobs",
                                                    "help" };

static int parse_delay(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(value) || value < 0.01 ||
        value > 86400) {
        top_say("-d '%s': expected seconds, a number from 0.01 to 86400 (such as 0.5 or 2)", text);
        return -1;
    }
    *out = value;
    return 0;
}

/* A whole number in [min, max], decimal digits only. */
static int parse_number(const char *option, const char *text, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long value = (text[0] >= '0' && text[0] <= '9') ? strtol(text, &end, 10) : -1;
    if (end == NULL || *end != '\0' || errno != 0 || value < min || value > max) {
        top_say("%s '%s': expected a whole number from %ld to %ld", option, text, min, max);
        return -1;
    }
    *out = value;
    return 0;
}

/* --views nodes,matrix,...: the set, and the first named. */
static int parse_views(const char *text, struct top_opts *opts)
{
    unsigned set = 0;
    int first = -1;
    const char *p = text;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int v = 0; v < VIEW_HELP; v++)
            if (strlen(view_names[v]) == len && strncmp(p, view_names[v], len) == 0)
                found = v;
        if (found < 0) {
            top_say("--views '%s': '%.*s' is not a view; expected a comma-separated list of "
                    "nodes, matrix, peer, timeline, jobs", text, (int)len, p);
            return -1;
        }
        set |= 1u << found;
        if (first < 0)
            first = found;
        p += len + (p[len] == ',');
    }
    if (set == 0) {
        top_say("--views '': expected at least one of nodes, matrix, peer, timeline, jobs");
        return -1;
    }
    opts->views = set;
    opts->first_view = (enum top_view)first;
    return 0;
}

static int check_job(const char *text)
{
    size_t len = strlen(text);
    if (len == 0 || len >= TOP_JOBID_MAX || strchr(text, '/') != NULL) {
        top_say("--job '%s': expected a job id such as gp-run prints with -v (1 to %d characters, "
                "no '/')", text, TOP_JOBID_MAX - 1);
        return -1;
    }
    return 0;
}

static int take_option(poptContext ctx, int code, struct top_opts *opts)
{
    const char *arg = poptGetOptArg(ctx);
    long number = 0;
    int rc = 0;
    switch (code) {
    case OPT_JOB: /* kept: popt hands over a copy the caller owns */
        rc = check_job(arg);
        free((void *)opts->job);
        opts->job = arg;
        arg = NULL;
        break;
    case OPT_DELAY: rc = parse_delay(arg, &opts->delay); break;
    case OPT_BATCH: opts->batch = 1; break;
    case OPT_COUNT:
        rc = parse_number("-n", arg, 1, 1000000000L, &number);
        opts->count = number;
        break;
    case OPT_JSON: opts->json = 1; opts->batch = 1; break;
    case OPT_VIEWS: rc = parse_views(arg, opts); break;
    case OPT_SORT:
        opts->sort = column_by_key(arg);
        if (opts->sort < 0) {
            top_say("-s '%s': not a column; expected one of rank, host, state, bank, lent, send, "
                    "tmpmd, reqsb, rplsb, reqrb, am, safe, sys, stalls, cbhits", arg);
            rc = -1;
        }
        break;
    case OPT_REVERSE: opts->reverse = 1; break;
    case OPT_RANK:
        rc = parse_number("--rank", arg, 0, UINT32_MAX - 1L, &number);
        opts->peer_rank = (uint32_t)number;
        break;
    case OPT_HELP: poptPrintHelp(ctx, stdout, 0); rc = 1; break;
    case OPT_VERSION: printf("gp-top %s\n", GP_VERSION); rc = 1; break;
    default: break;
    }
    free((void *)arg);
    return rc;
}

int top_parse_options(int argc, const char **argv, struct top_opts *opts)
{
    opts->delay = 1.0;
    opts->views = 1u << VIEW_NODES;
    opts->first_view = VIEW_NODES;
    opts->sort = 0;
    poptContext ctx = poptGetContext("gp-top", argc, argv, option_table, 0);
    poptSetOtherOptionHelp(ctx, "[OPTION...]");
    int code, status = TOP_CONTINUE;
    while (status == TOP_CONTINUE && (code = poptGetNextOpt(ctx)) > 0) {
        int rc = take_option(ctx, code, opts);
        if (rc != 0)
            status = rc < 0 ? 2 : 0;
    }
    if (status == TOP_CONTINUE && code < -1) {
        top_say("%s: %s (gp-top --help lists the options)", poptBadOption(ctx, POPT_BADOPTION_NOALIAS),
                poptStrerror(code));
        status = 2;
    }
    if (status == TOP_CONTINUE && poptPeekArg(ctx) != NULL) {
        top_say("unexpected argument '%s': gp-top takes options only (--job ID picks a job)",
                poptPeekArg(ctx));
        status = 2;
    }
    if (status == TOP_CONTINUE && opts->count > 0 && !opts->batch) {
        top_say("-n %ld: a snapshot count is for batch mode; add -b (or --json)", opts->count);
        status = 2;
    }
    poptFreeContext(ctx);
    return status;
}
