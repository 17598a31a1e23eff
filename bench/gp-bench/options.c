/*
 * The command line of gp-bench.  Every rank parses the same argv; only the
 * loud one (node 0) prints, so a bad option gives one message, not N.  A
 * bad value is never clamped or guessed at: the message names the option,
 * the value and what is accepted, and gp-bench exits 2.
 */
#include "bench.h"
#include "util/count.h"

#include <errno.h>
#include <popt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const struct test_info bench_tests[T_COUNT] = {
    [T_PUT_LAT] = { "put-lat", KIND_LATENCY, SIZES_ANY, "blocking gasnet_put, time of one call" },
    [T_GET_LAT] = { "get-lat", KIND_LATENCY, SIZES_ANY, "blocking gasnet_get, time of one call" },
    [T_PUT_BW] = { "put-bw", KIND_BANDWIDTH, SIZES_ANY,
                   "a window of gasnet_put_nbi_bulk, then sync" },
    [T_GET_BW] = { "get-bw", KIND_BANDWIDTH, SIZES_ANY,
                   "a window of gasnet_get_nbi_bulk, then sync" },
    [T_PUT_RATE] = { "put-rate", KIND_BANDWIDTH, SIZES_SMALL,
                     "a window of gasnet_put_nbi, then sync (sizes up to 8K)" },
    [T_PUTS_BW] = { "puts-bw", KIND_BANDWIDTH, SIZES_ANY,
                    "a window of strided gasnet_puts_nbi_bulk (1K rows), then sync" },
    [T_AM_LAT_SHORT] = { "am-lat-short", KIND_LATENCY, SIZES_NONE,
                         "Short request + Short reply round trip" },
    [T_AM_LAT_MEDIUM] = { "am-lat-medium", KIND_LATENCY, SIZES_MEDIUM,
                          "Medium request + Medium reply round trip (sizes up to MaxMedium)" },
    [T_AM_LAT_LONG] = { "am-lat-long", KIND_LATENCY, SIZES_ANY,
                        "Long request + Long reply round trip" },
    [T_AM_LAT_REQREQ] = { "am-lat-reqreq", KIND_LATENCY, SIZES_NONE,
                          "Short request answered by a Short request of the partner's" },
    [T_AM_BW_MEDIUM] = { "am-bw-medium", KIND_BANDWIDTH, SIZES_MEDIUM,
                         "stream of Medium requests, each acknowledged by a Short reply" },
    [T_AM_BW_LONG] = { "am-bw-long", KIND_BANDWIDTH, SIZES_ANY,
                       "stream of Long requests, each acknowledged by a Short reply" },
    [T_AM_RATE_SHORT] = { "am-rate-short", KIND_RATE, SIZES_NONE,
                          "one-way flood of Short requests, no reply awaited: messages/s" },
    [T_AM_RATE_MEDIUM] = { "am-rate-medium", KIND_RATE, SIZES_MEDIUM,
                           "one-way flood of Medium requests (sizes up to MaxMedium)" },
    [T_AM_RATE_MEDIUM_POLL] = { "am-rate-medium-poll", KIND_RATE, SIZES_MEDIUM,
                                "the same flood with a gasnet_AMPoll before each request" },
    [T_POLL_LAT] = { "poll-lat", KIND_LATENCY, SIZES_NONE,
                       "gasnet_AMPoll with nothing to take, time of one call" },
    [T_BARRIER_LAT] = { "barrier-lat", KIND_LATENCY, SIZES_NONE,
                        "anonymous barrier over all nodes, time of one" },
    [T_FADD_LAT] = { "fadd-lat", KIND_LATENCY, SIZES_NONE,
                     "gex_AD_OpNB_U64 fetch-add of 8 bytes, waited: time of one" },
    [T_FADD_RATE] = { "fadd-rate", KIND_RATE, SIZES_NONE,
                      "a window of gex_AD_OpNBI_U64 fetch-adds, then gex_NBI_Wait" },
};

#define DEFAULT_SIZES "8:4M"
#define DEFAULT_WINDOW 64
#define MAX_SIZE ((size_t)1 << 30)
#define MAX_COUNT 100000000L

static int loud_flag;

static void usage_error(const char *fmt, ...)
{
    if (!loud_flag)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("gp-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
}

/* Selects the tests NAME stands for; returns 0 if it names none. */
int test_lookup(const char *name, int selected[T_COUNT])
{
    static const struct {
        const char *name;
        enum bench_test first, last;
    } groups[] = { { "all", T_PUT_LAT, T_FADD_RATE },
                   { "fadd", T_FADD_LAT, T_FADD_RATE },
                   { "am-lat", T_AM_LAT_SHORT, T_AM_LAT_REQREQ },
                   { "am-bw", T_AM_BW_MEDIUM, T_AM_BW_LONG },
                   { "am-rate", T_AM_RATE_SHORT, T_AM_RATE_MEDIUM } };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (strcmp(name, groups[i].name) == 0) {
            for (int t = groups[i].first; t <= (int)groups[i].last; t++)
                selected[t] = 1;
            return 1;
        }
    for (int t = 0; t < T_COUNT; t++)
        if (strcmp(name, bench_tests[t].name) == 0) {
            selected[t] = 1;
            return 1;
        }
    return 0;
}

static int parse_tests(const char *arg, struct bench_opts *o)
{
    char *copy = strdup(arg), *save = NULL;
    int ok = copy != NULL && *arg != '\0';
    for (char *name = copy ? strtok_r(copy, ",", &save) : NULL; ok && name;
         name = strtok_r(NULL, ",", &save))
        if (!test_lookup(name, o->tests)) {
            usage_error("--test '%s': unknown test '%s'; accepted: a comma list of put-lat, "
                        "get-lat, put-bw, get-bw, put-rate, puts-bw, am-lat (am-lat-short, "
                        "am-lat-medium, am-lat-long, am-lat-reqreq), am-bw (am-bw-medium, am-bw-long), "
                        "am-rate (am-rate-short, am-rate-medium), am-rate-medium-poll, poll-lat, "
                        "barrier-lat, fadd (fadd-lat, fadd-rate), all", arg, name);
            free(copy);
            return -1;
        }
    free(copy);
    if (!ok)
        usage_error("--test '%s': empty; accepted: a comma list of test names (see --help)", arg);
    o->tests_given = 1;
    return ok ? 0 : -1;
}

/* A byte count with an optional K, M or G suffix (powers of 1024). */
int parse_size(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    if (*text < '0' || *text > '9')
        return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -1;
    unsigned long long mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1ull << 10; end++; break;
    case 'm': case 'M': mult = 1ull << 20; end++; break;
    case 'g': case 'G': mult = 1ull << 30; end++; break;
    default: break;
    }
    if (*end != '\0' || v == 0 || v > MAX_SIZE / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

const char *size_str(size_t size, char *buf, size_t len)
{
    if (size >= (1u << 20) && size % (1u << 20) == 0)
        snprintf(buf, len, "%zuM", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, len, "%zuK", size >> 10);
    else
        snprintf(buf, len, "%zu", size);
    return buf;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static int add_size(struct bench_opts *o, size_t size)
{
    size_t *grown = realloc(o->sizes, (o->nsizes + 1) * sizeof *grown);
    if (!grown)
        return -1;
    o->sizes = grown;
    o->sizes[o->nsizes++] = size;
    return 0;
}

/* "8:4M" (powers of two from 8 to 4M), "8,64,1K" or a mix of both. */
static int parse_sizes(const char *arg, struct bench_opts *o)
{
    char *copy = strdup(arg), *save = NULL;
    int rc = copy && *arg ? 0 : -1;
    o->nsizes = 0;
    for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; rc == 0 && item;
         item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        size_t lo, hi;
        if (colon)
            *colon = '\0';
        if (!colon && strcmp(item, "0") == 0) {   /* an AM's empty payload (main.c: applies) */
            rc = add_size(o, 0);
            continue;
        }
        if (parse_size(item, &lo) || (colon && parse_size(colon + 1, &hi))) {
            rc = -1;
            break;
        }
        if (!colon)
            hi = lo;
        if (lo > hi) {
            usage_error("--sizes '%s': the range %s:%s runs backwards; write LOW:HIGH", arg,
                        item, colon + 1);
            free(copy);
            return -1;
        }
        for (size_t s = lo; rc == 0 && s <= hi; s *= 2)
            rc = add_size(o, s);
    }
    free(copy);
    if (rc) {
        usage_error("--sizes '%s': not a size list; accepted: sizes from 1 to 1G (a number of "
                    "bytes with an optional K, M or G suffix), a range LOW:HIGH of powers of "
                    "two from LOW, or a comma list of both, e.g. 8:4M or 8,1K,1M; 0 alone "
                    "(in a comma list) for the AM Medium and Long tests", arg);
        return -1;
    }
    qsort(o->sizes, o->nsizes, sizeof *o->sizes, cmp_size);
    size_t n = 0;
    for (size_t i = 0; i < o->nsizes; i++)
        if (n == 0 || o->sizes[n - 1] != o->sizes[i])
            o->sizes[n++] = o->sizes[i];
    o->nsizes = n;
    return 0;
}

static int parse_count(const char *opt, const char *arg, long min, long *out)
{
    if (gp_parse_count(arg, min, MAX_COUNT, out) != 0) {
        usage_error("%s '%s': accepted: a whole number from %ld to %ld", opt, arg, min,
                    MAX_COUNT);
        return -1;
    }
    return 0;
}

enum { O_TEST = 1, O_SIZES, O_ITERS, O_WARMUP, O_WINDOW, O_IN_SEG, O_OUT_SEG, O_JSON, O_CSV,
       O_EXPECT, O_NO_PROGRESS, O_BIND, O_NO_BIND, O_LIBRARY_RMA, O_API, O_HELP };

static const struct poptOption table[] = {
    { "test", 't', POPT_ARG_STRING, NULL, O_TEST,
      "tests to run, a comma list (default all; see below)", "LIST" },
    { "sizes", 's', POPT_ARG_STRING, NULL, O_SIZES,
      "message sizes: LOW:HIGH powers of two and/or a comma list (default " DEFAULT_SIZES ")",
      "SIZES" },
    { "iters", 'i', POPT_ARG_STRING, NULL, O_ITERS,
      "operations measured per point and pair (default: what fills 0.2 s)", "N" },
    { "warmup", 'w', POPT_ARG_STRING, NULL, O_WARMUP,
      "operations run untimed first (default: 20 ms worth)", "N" },
    { "window", 'W', POPT_ARG_STRING, NULL, O_WINDOW,
      "operations in flight in bandwidth tests (default 64)", "N" },
    { "in-segment", 0, POPT_ARG_NONE, NULL, O_IN_SEG,
      "the local buffer lies in our own segment (default)", NULL },
    { "out-of-segment", 0, POPT_ARG_NONE, NULL, O_OUT_SEG,
      "the local buffer is malloc'd memory outside the segment", NULL },
    { "json", 0, POPT_ARG_STRING, NULL, O_JSON,
      "write one JSON object per point to FILE (- for stdout)", "FILE|-" },
    { "csv", 0, POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, O_CSV,
      "write CSV to FILE (stdout when no FILE) instead of the table", "FILE|-" },
    { "expect", 'e', POPT_ARG_STRING, NULL, O_EXPECT,
      "a threshold like 'put-bw@1M>=20000MB/s', or a FILE of them; repeatable", "RULE|FILE" },
    { "no-progress", 0, POPT_ARG_NONE, NULL, O_NO_PROGRESS,
      "no progress bar on stderr", NULL },
    { "bind", 0, POPT_ARG_NONE, NULL, O_BIND,
      "bind each process to a CPU, the two of a pair to different ones (default)", NULL },
    { "no-bind", 0, POPT_ARG_NONE, NULL, O_NO_BIND,
      "leave the processes where the scheduler puts them", NULL },
    { "library-rma", 0, POPT_ARG_NONE, NULL, O_LIBRARY_RMA,
      "put-lat and get-lat call libgp's gasnet_put/gasnet_get, as a client built with "
      "GP_NO_INLINE_RMA does, not gasnet.h's inline copy to a mapped peer", NULL },
    { "api", 0, POPT_ARG_STRING, NULL, O_API,
      "gasnet1 (default): GASNet-1 calls; ex: each test's gex_ twin (the fadd tests are EX "
      "either way)", "gasnet1|ex" },
    { "help", 'h', POPT_ARG_NONE, NULL, O_HELP, "show this help", NULL },
    POPT_TABLEEND
};

static void print_help(poptContext ctx)
{
    poptPrintHelp(ctx, stdout, 0);
    printf("\nRun as: gp-run -n N gp-bench [OPTIONS]; node i measures against node i+N/2.\n"
           "Tests (the groups am-lat, am-bw, am-rate, fadd and all select several):\n");
    for (int t = 0; t < T_COUNT; t++)
        printf("  %-14s %s\n", bench_tests[t].name, bench_tests[t].doc);
    printf("Exit status: 0 done, 1 an --expect threshold failed or a run error, 2 bad usage.\n");
}

/* One option's effect; returns -1 on a usage error. */
static int apply(poptContext ctx, int code, struct bench_opts *o)
{
    const char *arg = poptGetOptArg(ctx); /* popt hands over ownership */
    char err[512];
    int rc = 0;
    switch (code) {
    case O_TEST: rc = parse_tests(arg, o); break;
    case O_SIZES: rc = parse_sizes(arg, o); o->sizes_given = 1; break;
    case O_ITERS: rc = parse_count("--iters", arg, 1, &o->iters); break;
    case O_WARMUP: rc = parse_count("--warmup", arg, 0, &o->warmup); break;
    case O_WINDOW: rc = parse_count("--window", arg, 1, &o->window); break;
    case O_IN_SEG: o->out_of_segment = 0; break;
    case O_OUT_SEG: o->out_of_segment = 1; break;
    case O_JSON: o->json_path = strdup(arg); break;
    case O_CSV: o->csv_path = strdup(arg && *arg ? arg : "-"); break;
    case O_NO_PROGRESS: o->progress = 0; break;
    case O_BIND: o->bind = 1; break;
    case O_NO_BIND: o->bind = 0; break;
    case O_LIBRARY_RMA: o->library_rma = 1; break;
    case O_API:
        if (strcmp(arg, "gasnet1") == 0 || strcmp(arg, "ex") == 0) {
            o->ex = arg[0] == 'e';
        } else {
            usage_error("--api '%s': accepted: gasnet1 or ex", arg);
            rc = -1;
        }
        break;
    case O_EXPECT:
        rc = expect_load(arg, o, err, sizeof err);
        if (rc)
            usage_error("--expect '%s': %s", arg, err);
        break;
    default: break;
    }
    free((void *)arg);
    return rc;
}

int opts_parse(int argc, char **argv, struct bench_opts *o, int loud, int *done)
{
    memset(o, 0, sizeof *o);
    o->warmup = -1;
    o->window = DEFAULT_WINDOW;
    o->progress = 1;
    o->bind = 1;
    *done = 0;
    loud_flag = loud;
    poptContext ctx = poptGetContext("gp-bench", argc, (const char **)argv, table, 0);
    int code, rc = 0;
    while (rc == 0 && (code = poptGetNextOpt(ctx)) != -1) {
        if (code < 0) {
            usage_error("%s: %s; see gp-bench --help", poptBadOption(ctx, 0),
                        poptStrerror(code));
            rc = 2;
        } else if (code == O_HELP) {
            if (loud)
                print_help(ctx);
            *done = 1;
            break;
        } else if (apply(ctx, code, o)) {
            rc = 2;
        }
    }
    const char *extra = rc || *done ? NULL : poptGetArg(ctx);
    if (extra) {
        usage_error("unexpected argument '%s'; gp-bench takes options only (see --help)", extra);
        rc = 2;
    }
    poptFreeContext(ctx);
    if (rc == 0 && !*done && !o->sizes_given && parse_sizes(DEFAULT_SIZES, o))
        rc = 2;
    if (rc == 0 && o->json_path && o->csv_path && strcmp(o->json_path, "-") == 0 &&
        strcmp(o->csv_path, "-") == 0) {
        usage_error("--json - and --csv -: both want stdout; give one of them a FILE");
        rc = 2;
    }
    return rc;
}

void opts_free(struct bench_opts *o)
{
    for (size_t i = 0; i < o->nexpects; i++)
        free(o->expects[i].text);
    free(o->expects);
    free(o->sizes);
    free((void *)o->json_path);
    free((void *)o->csv_path);
}
