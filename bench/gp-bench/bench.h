/*
 * gp-bench: the shared declarations of the benchmark's parts.
 *
 * main.c runs a plan of points (one test at one size) over the pairs of a
 * gp-run job; tests_rma.c and tests_am.c measure one point on the initiator
 * of a pair; stats.c reduces the samples; output.c writes the table, JSON,
 * CSV and progress bar; expect.c checks the acceptance thresholds; options.c
 * turns the command line into a struct bench_opts; tests_atomic.c measures
 * remote fetch-adds.  Only the public API (gasnet.h, gasnet_tools.h and,
 * for --api ex and the atomics, gasnetex.h and its companions) is used:
 * gp-bench is a client of libgp.
 */
#ifndef GP_BENCH_H
#define GP_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bench_test {
    T_PUT_LAT,
    T_GET_LAT,
    T_PUT_BW,
    T_GET_BW,
    T_PUT_RATE,
    T_PUTS_BW,
    T_AM_LAT_SHORT,
    T_AM_LAT_MEDIUM,
    T_AM_LAT_LONG,
    T_AM_LAT_REQREQ,
    T_AM_BW_MEDIUM,
    T_AM_BW_LONG,
    T_AM_RATE_SHORT,
    T_AM_RATE_MEDIUM,
    T_AM_RATE_MEDIUM_POLL,
    T_POLL_LAT,
    T_BARRIER_LAT,
    T_FADD_LAT,
    T_FADD_RATE,
    T_COUNT
};

/* What kind of figures a test reports: latency statistics; bandwidth and
 * message rate; or message rate and ns per message (a one-way flood, where
 * the rate is the figure and the bytes are beside the point). */
enum bench_kind { KIND_LATENCY, KIND_BANDWIDTH, KIND_RATE };

/* Which sizes a test takes from --sizes. */
enum bench_sizes {
    SIZES_ANY,    /* every size */
    SIZES_NONE,   /* one point of size 0 (AM Short, barrier) */
    SIZES_MEDIUM, /* up to gasnet_AMMaxMedium() */
    SIZES_SMALL   /* up to RATE_MAX_SIZE: a message rate is a small-message figure */
};

#define RATE_MAX_SIZE ((size_t)8192)
/* puts-bw: rows of this many bytes, a row's length apart on the target (so 2x the size). */
#define PUTS_ROW ((size_t)1024)

struct test_info {
    const char *name;
    enum bench_kind kind;
    enum bench_sizes sizes;
    const char *doc;
};

extern const struct test_info bench_tests[T_COUNT];

/* One point of the plan: a test at one size. */
struct bench_point {
    enum bench_test test;
    size_t size;
};

/* Statistics over latency samples, in microseconds. */
struct lat_stats {
    double min, median, p99, max;
};

/* What one pair measured at one point; the initiator puts it into node 0's
 * segment.  Plain doubles and a count so the layout is the same everywhere. */
struct pair_result {
    struct lat_stats lat; /* latency tests */
    double bw_MBps;       /* bandwidth tests: 10^6 bytes per second */
    double msg_rate;      /* bandwidth and rate tests: messages per second */
    uint64_t iters;       /* operations measured (warm-up excluded) */
    uint64_t valid;       /* 1 once written */
};

/* A point's figures over all pairs, as reported. */
struct point_result {
    struct bench_point point;
    struct pair_result all;    /* aggregate: see main.c aggregate() */
    double median_spread[2];   /* latency: smallest and largest pair median */
    unsigned pairs;
};

enum expect_op { OP_GE, OP_GT, OP_LE, OP_LT };
enum expect_metric { M_LAT_MIN, M_LAT_MEDIAN, M_LAT_P99, M_LAT_MAX, M_BW, M_RATE };

struct expectation {
    char *text;            /* as written, for the PASS/FAIL line */
    enum bench_test test;
    size_t size;
    enum expect_metric metric;
    enum expect_op op;
    double value;          /* in us, MB/s or messages/s */
    const char *unit;      /* the unit the value is shown in */
    double unit_scale;     /* value shown = canonical value / unit_scale */
};

struct bench_opts {
    int tests[T_COUNT];     /* selected tests (set by --test, else all) */
    int tests_given;
    size_t *sizes;
    size_t nsizes;
    int sizes_given;
    long iters;             /* 0: chosen per point from the warm-up */
    long warmup;            /* -1: warm up for a fixed time */
    long window;
    int out_of_segment;
    const char *json_path;  /* NULL, "-" or a file */
    const char *csv_path;   /* NULL, "-" or a file */
    int progress;           /* 1: a bar on stderr when it is a terminal */
    int bind;               /* 1: each process on its own CPU, partners apart */
    int library_rma;        /* 1: put-lat/get-lat call the exported functions, not gasnet.h's inline copy */
    int ex;                 /* --api ex: each test issues the gex_ twin of its GASNet-1 call */
    struct expectation *expects;
    size_t nexpects;
};

/* options.c: parse argv; on a usage error prints (if loud) and returns 2, on
 * --help prints (if loud) and returns 0 with *done set, else returns 0. */
int opts_parse(int argc, char **argv, struct bench_opts *o, int loud, int *done);
void opts_free(struct bench_opts *o);
int parse_size(const char *text, size_t *out);
const char *size_str(size_t size, char *buf, size_t len);
int test_lookup(const char *name, int selected[T_COUNT]);

/* expect.c */
int expect_parse_spec(const char *spec, struct expectation *e, char *err, size_t errlen);
int expect_load(const char *arg, struct bench_opts *o, char *err, size_t errlen);
int expect_check(const struct bench_opts *o, const struct point_result *res, size_t nres,
                 FILE *out);

/* stats.c */
void stats_latency(double *samples, size_t n, struct lat_stats *out);

/* output.c */
struct output;
struct output *output_open(const struct bench_opts *o, unsigned nodes, unsigned pairs,
                           const char *transport, size_t npoints);
void output_point(struct output *out, const struct point_result *r);
void output_progress(struct output *out, size_t done, const struct bench_point *next);
FILE *output_verdict_stream(struct output *out);
int output_close(struct output *out);

/* The measuring context of one initiator (main.c fills it). */
struct bench_ctx {
    unsigned me, peer;
    char *local;        /* local buffer: in our segment or malloc'd */
    char *target;       /* the peer's target area, in its segment */
    char *own_target;   /* our own target area (Long replies land here) */
    long iters, warmup, window;
    int library_rma;
    int ex;             /* --api ex */
    void *tm;           /* the primordial gex_TM_t (gasnet_QueryGexObjects) */
};

/* tests_rma.c and tests_am.c: measure one point on the initiator. */
void run_rma(const struct bench_ctx *c, const struct bench_point *p, struct pair_result *r);
void run_am(const struct bench_ctx *c, const struct bench_point *p, struct pair_result *r);
void run_barrier(const struct bench_ctx *c, struct pair_result *r);
/* tests_atomic.c: atomic_setup is collective (every node, after attach). */
void atomic_setup(void *tm);
void run_atomic(const struct bench_ctx *c, const struct bench_point *p, struct pair_result *r);
extern void *am_handlers; /* gasnet_handlerentry_t[], see tests_am.c */
extern int am_nhandlers;
void am_setup(const void *seginfo, size_t own_target_off, int ex);
void am_serve_until_done(void);
void am_signal_done(unsigned peer);

/* measure.c: the timing loops shared by every test. */
typedef void (*op_fn)(const struct bench_ctx *c, size_t size, long n);
void measure_latency(const struct bench_ctx *c, size_t size, op_fn op, struct pair_result *r);
void measure_bandwidth(const struct bench_ctx *c, size_t size, op_fn window_op,
                       struct pair_result *r);

#endif
