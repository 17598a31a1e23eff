/*
 * Acceptance thresholds: an operator states what a system must reach, per
 * test and size, and gp-bench says PASS or FAIL for each and exits 1 if any
 * failed.  A rule reads
 *
 *     TEST[@SIZE][:STAT] OP VALUE UNIT      e.g. put-bw@1M >= 20000 MB/s
 *
 * OP is >=, >, <= or <.  Latency tests take ns, us, ms or s and compare STAT
 * (min, median, p99 or max; median when not given).  Bandwidth tests take
 * MB/s, GB/s (10^6, 10^9 bytes per second), MiB/s, GiB/s (2^20, 2^30), or a
 * message rate in msg/s or Mmsg/s.  Sizes are written as for --sizes;
 * am-lat-short, am-lat-reqreq, am-rate-short and barrier-lat have none.  A file holds one
 * rule per line, with # comments.  A rule whose point was not measured FAILs: an
 * acceptance run must not pass by leaving a test out.
 */
#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    enum expect_metric metric; /* M_LAT_MEDIAN stands for every latency stat */
    double scale;              /* canonical value = written value * scale */
} units[] = {
    { "ns", M_LAT_MEDIAN, 1e-3 }, { "us", M_LAT_MEDIAN, 1 },      { "ms", M_LAT_MEDIAN, 1e3 },
    { "s", M_LAT_MEDIAN, 1e6 },
    { "MB/s", M_BW, 1 },          { "GB/s", M_BW, 1e3 },          { "MiB/s", M_BW, 1.048576 },
    { "GiB/s", M_BW, 1073.741824 }, { "msg/s", M_RATE, 1 },       { "Mmsg/s", M_RATE, 1e6 },
};

static const char *stat_names[] = { "min", "median", "p99", "max" };

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* TEST[@SIZE][:STAT] into e; returns an error text or NULL. */
static const char *parse_lhs(char *lhs, struct expectation *e, int *stat)
{
    char *colon = strchr(lhs, ':'), *at = strchr(lhs, '@');
    *stat = -1;
    if (colon) {
        *colon = '\0';
        for (int s = 0; s < 4; s++)
            if (strcmp(trim(colon + 1), stat_names[s]) == 0)
                *stat = s;
        if (*stat < 0)
            return "unknown statistic; accepted: min, median, p99, max";
    }
    if (at)
        *at = '\0';
    int sel[T_COUNT] = { 0 }, found = -1;
    for (int t = 0; t < T_COUNT; t++)
        if (strcmp(trim(lhs), bench_tests[t].name) == 0)
            found = t;
    if (found < 0)
        return test_lookup(trim(lhs), sel) ? "name one test, not a group (e.g. am-lat-short)"
                                           : "unknown test (see gp-bench --help)";
    e->test = (enum bench_test)found;
    e->size = 0;
    enum bench_sizes kind = bench_tests[found].sizes;
    if (at && parse_size(trim(at + 1), &e->size) && strcmp(trim(at + 1), "0") != 0)
        return "bad size; write a byte count with an optional K, M or G suffix";
    if (kind == SIZES_NONE && e->size != 0)
        return "this test has no size; leave out @SIZE";
    if (kind != SIZES_NONE && e->size == 0)
        return "this test needs @SIZE";
    if (kind == SIZES_MEDIUM && e->size > 960)
        return "Medium messages carry at most gasnet_AMMaxMedium() = 960 bytes";
    if (kind == SIZES_SMALL && e->size > RATE_MAX_SIZE)
        return "put-rate runs sizes up to 8K";
    return NULL;
}

/* OP VALUE UNIT into e, given the test's kind; returns an error text or NULL. */
static const char *parse_rhs(const char *rhs, struct expectation *e, int stat)
{
    if (rhs[0] == '>')
        e->op = rhs[1] == '=' ? OP_GE : OP_GT;
    else
        e->op = rhs[1] == '=' ? OP_LE : OP_LT;
    rhs += rhs[1] == '=' ? 2 : 1;
    char *end;
    errno = 0;
    double v = strtod(rhs, &end);
    if (errno || end == rhs || v < 0)
        return "the threshold is not a non-negative number";
    char *unit = trim(end);
    int latency = bench_tests[e->test].kind == KIND_LATENCY;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strcmp(unit, units[u].name) != 0)
            continue;
        if (latency != (units[u].metric == M_LAT_MEDIAN))
            return latency ? "a latency test takes ns, us, ms or s"
                           : "a bandwidth or rate test takes MB/s, GB/s, MiB/s, GiB/s, "
                             "msg/s or Mmsg/s";
        if (!latency && stat >= 0)
            return "a statistic (:min, :median, ...) applies to latency tests only";
        e->metric = latency ? (enum expect_metric)(stat < 0 ? M_LAT_MEDIAN : stat)
                            : units[u].metric;
        e->value = v * units[u].scale;
        e->unit = units[u].name;
        e->unit_scale = units[u].scale;
        return NULL;
    }
    return "unknown unit; accepted: ns, us, ms, s, MB/s, GB/s, MiB/s, GiB/s, msg/s, Mmsg/s";
}

int expect_parse_spec(const char *spec, struct expectation *e, char *err, size_t errlen)
{
    char *copy = strdup(spec);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *op = strpbrk(copy, "<>");
    const char *why = NULL;
    int stat = -1;
    if (!op)
        why = "no comparison; write TEST@SIZE>=VALUE UNIT, e.g. put-bw@1M>=20000MB/s";
    if (!why) {
        char rhs[256];
        snprintf(rhs, sizeof rhs, "%s", op);
        *op = '\0';
        why = parse_lhs(copy, e, &stat);
        if (!why)
            why = parse_rhs(rhs, e, stat);
    }
    free(copy);
    if (why) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    e->text = strdup(spec);
    return e->text ? 0 : -1;
}

static int add_rule(struct bench_opts *o, const char *spec, char *err, size_t errlen)
{
    struct expectation e;
    if (expect_parse_spec(spec, &e, err, errlen))
        return -1;
    struct expectation *grown = realloc(o->expects, (o->nexpects + 1) * sizeof *grown);
    if (!grown) {
        free(e.text);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    o->expects = grown;
    o->expects[o->nexpects++] = e;
    return 0;
}

/* ARG is a rule when it holds a comparison, else the name of a file of them. */
int expect_load(const char *arg, struct bench_opts *o, char *err, size_t errlen)
{
    if (strpbrk(arg, "<>")) {
        char rule[512];
        snprintf(rule, sizeof rule, "%s", arg);
        return add_rule(o, trim(rule), err, errlen);
    }
    FILE *f = fopen(arg, "r");
    if (!f) {
        snprintf(err, errlen, "neither a rule (no <, <=, >, >=) nor a readable file: %s",
                 strerror(errno));
        return -1;
    }
    char line[512], why[256];
    int lineno = 0, rc = 0;
    size_t before = o->nexpects;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *rule = trim(line);
        if (*rule && add_rule(o, rule, why, sizeof why)) {
            snprintf(err, errlen, "line %d '%s': %s", lineno, rule, why);
            rc = -1;
        }
    }
    fclose(f);
    if (rc == 0 && o->nexpects == before)
        snprintf(err, errlen, "the file holds no rules"), rc = -1;
    return rc;
}

static double measured(const struct expectation *e, const struct pair_result *r)
{
    switch (e->metric) {
    case M_LAT_MIN: return r->lat.min;
    case M_LAT_MEDIAN: return r->lat.median;
    case M_LAT_P99: return r->lat.p99;
    case M_LAT_MAX: return r->lat.max;
    case M_BW: return r->bw_MBps;
    default: return r->msg_rate;
    }
}

static int holds(enum expect_op op, double got, double want)
{
    switch (op) {
    case OP_GE: return got >= want;
    case OP_GT: return got > want;
    case OP_LE: return got <= want;
    default: return got < want;
    }
}

int expect_check(const struct bench_opts *o, const struct point_result *res, size_t nres,
                 FILE *out)
{
    int failed = 0;
    for (size_t i = 0; i < o->nexpects; i++) {
        const struct expectation *e = &o->expects[i];
        const struct point_result *r = NULL;
        for (size_t j = 0; j < nres; j++)
            if (res[j].point.test == e->test && res[j].point.size == e->size)
                r = &res[j];
        if (!r) {
            fprintf(out, "FAIL %s: not measured (add the test and size to --test/--sizes)\n",
                    e->text);
            failed++;
            continue;
        }
        double got = measured(e, &r->all);
        int ok = holds(e->op, got, e->value);
        const char *what = e->metric <= M_LAT_MAX ? stat_names[e->metric] : "";
        fprintf(out, "%s %s: measured %s%s%.4g %s\n", ok ? "PASS" : "FAIL", e->text, what,
                *what ? " " : "", got / e->unit_scale, e->unit);
        failed += !ok;
    }
    return failed;
}
