/*
 * gp-bench: put/get/AM latency and bandwidth of a gp-run job, for system
 * acceptance and for knowing where libgp stands (doc/performance.md).
 *
 * Node i pairs with node i + N/2, so N/2 pairs measure at once (an odd last
 * node only joins the barrier test; a job of one node measures against
 * itself).  For each point of the plan (a test at one size) every node
 * enters a barrier, the initiators measure against their partners, which
 * poll until told the initiator is done, and each initiator puts its
 * pair_result into node 0's segment.  After a second barrier node 0
 * reduces the pairs' figures and writes them.  At the end node 0 checks the
 * --expect rules and every node exits with node 0's verdict.
 *
 * The segment of every node: a control word and the results slots, the
 * target area (the partner's puts, gets and Long payloads land in it, and
 * Long replies to our own requests), and the local buffer unless
 * --out-of-segment puts it in malloc'd memory.
 */
#include "bench.h"

#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdlib.h>
#include <string.h>

#define PAGE ((size_t)GASNET_PAGESIZE)
#define ROUND_PAGE(x) (((x) + PAGE - 1) / PAGE * PAGE)
#define CONTROL_BYTES 64

struct plan {
    struct bench_point *points;
    size_t n;
};

static int plan_add(struct plan *p, enum bench_test t, size_t size)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->points[i].test == t && p->points[i].size == size)
            return 0;
    struct bench_point *grown = realloc(p->points, (p->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    p->points = grown;
    p->points[p->n++] = (struct bench_point){ t, size };
    return 0;
}

static int applies(enum bench_test t, size_t size)
{
    if (size == 0)   /* an empty payload is an AM's only: a 0-byte put or get moves nothing */
        return t == T_AM_LAT_MEDIUM || t == T_AM_LAT_LONG || t == T_AM_BW_MEDIUM ||
               t == T_AM_BW_LONG || t == T_AM_RATE_MEDIUM || t == T_AM_RATE_MEDIUM_POLL;
    switch (bench_tests[t].sizes) {
    case SIZES_MEDIUM: return size <= gasnet_AMMaxMedium();
    case SIZES_SMALL: return size <= RATE_MAX_SIZE;
    default: return 1;
    }
}

static int cmp_point(const void *a, const void *b)
{
    const struct bench_point *x = a, *y = b;
    if (x->test != y->test)
        return (int)x->test - (int)y->test;
    return (x->size > y->size) - (x->size < y->size);
}

/* The tests times the sizes; or, for an acceptance run that names neither,
 * exactly the points its rules need. */
static int plan_build(const struct bench_opts *o, struct plan *p)
{
    int rc = 0;
    if (!o->tests_given && !o->sizes_given && o->nexpects) {
        for (size_t i = 0; rc == 0 && i < o->nexpects; i++)
            rc = plan_add(p, o->expects[i].test, o->expects[i].size);
    } else {
        for (int t = 0; rc == 0 && t < T_COUNT; t++) {
            if (o->tests_given && !o->tests[t])
                continue;
            if (bench_tests[t].sizes == SIZES_NONE) {
                rc = plan_add(p, (enum bench_test)t, 0);
                continue;
            }
            for (size_t s = 0; rc == 0 && s < o->nsizes; s++)
                if (applies((enum bench_test)t, o->sizes[s]))
                    rc = plan_add(p, (enum bench_test)t, o->sizes[s]);
        }
    }
    if (p->n)
        qsort(p->points, p->n, sizeof *p->points, cmp_point);
    return rc;
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* Every node returns node 0's value of CODE. */
static int agree(const gasnet_seginfo_t *seg, int code)
{
    if (gasnet_mynode() == 0)
        memcpy(seg[0].addr, &code, sizeof code);
    barrier();
    if (gasnet_mynode() != 0)
        gasnet_get(&code, 0, seg[0].addr, sizeof code);
    barrier();
    return code;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The figures of all pairs as one: bandwidths and rates add up; latency
 * takes the smallest min, the median of the pairs' medians, the largest p99
 * and max (a pair's bad tail is the system's); iters is the smallest. */
static void aggregate(const struct pair_result *slots, unsigned pairs, struct point_result *r)
{
    double medians[pairs];
    struct pair_result *a = &r->all;
    *a = slots[0];
    medians[0] = slots[0].lat.median;
    for (unsigned i = 1; i < pairs; i++) {
        const struct pair_result *s = &slots[i];
        a->lat.min = s->lat.min < a->lat.min ? s->lat.min : a->lat.min;
        a->lat.p99 = s->lat.p99 > a->lat.p99 ? s->lat.p99 : a->lat.p99;
        a->lat.max = s->lat.max > a->lat.max ? s->lat.max : a->lat.max;
        a->bw_MBps += s->bw_MBps;
        a->msg_rate += s->msg_rate;
        a->iters = s->iters < a->iters ? s->iters : a->iters;
        medians[i] = s->lat.median;
    }
    qsort(medians, pairs, sizeof medians[0], cmp_double);
    a->lat.median = pairs % 2 ? medians[pairs / 2]
                              : (medians[pairs / 2 - 1] + medians[pairs / 2]) / 2;
    r->median_spread[0] = medians[0];
    r->median_spread[1] = medians[pairs - 1];
    r->pairs = pairs;
}

struct job {
    gasnet_seginfo_t *seg;
    unsigned me, nodes, pairs;
    int initiator, active;
    struct pair_result *slots; /* node 0: in its segment */
    struct bench_ctx ctx;
};

/* Measures one point; on node 0, fills R and returns 1. */
static int run_point(struct job *j, const struct bench_point *p, struct point_result *r)
{
    int is_barrier = p->test == T_BARRIER_LAT;
    if (j->me == 0)
        memset(j->slots, 0, j->pairs * sizeof *j->slots);
    barrier();
    struct pair_result mine = { .valid = 1 };
    if (is_barrier) {
        run_barrier(&j->ctx, &mine);
        if (j->me == 0)
            j->slots[0] = mine;
    } else if (j->initiator) {
        if (p->test <= T_PUTS_BW)
            run_rma(&j->ctx, p, &mine);
        else if (p->test == T_FADD_LAT || p->test == T_FADD_RATE)
            run_atomic(&j->ctx, p, &mine);
        else
            run_am(&j->ctx, p, &mine);
        gasnet_put(0, (char *)&j->slots[j->me], &mine, sizeof mine);
        if (j->nodes > 1)
            am_signal_done(j->ctx.peer);
    } else if (j->active) {
        am_serve_until_done();
    }
    barrier();
    if (j->me != 0)
        return 0;
    r->point = *p;
    aggregate(j->slots, is_barrier ? 1 : j->pairs, r);
    r->pairs = j->pairs;
    return 1;
}

/* Segment bytes, from the largest size of the plan. */
static size_t layout(const struct plan *p, const struct bench_opts *o, unsigned nodes,
                     size_t *target_off, size_t *local_off, size_t *max_size)
{
    *max_size = 8;
    size_t target = 8;
    for (size_t i = 0; i < p->n; i++) {
        size_t size = p->points[i].size;
        if (size > *max_size)
            *max_size = size;
        if (p->points[i].test == T_PUTS_BW)
            size *= 2; /* the rows are spread over twice their bytes */
        if (size > target)
            target = size;
    }
    *target_off = ROUND_PAGE(CONTROL_BYTES + nodes * sizeof(struct pair_result));
    *local_off = *target_off + ROUND_PAGE(target);
    return *local_off + (o->out_of_segment ? 0 : ROUND_PAGE(*max_size));
}

static void setup_pairs(struct job *j)
{
    unsigned half = j->nodes / 2;
    j->pairs = half ? half : 1;
    j->initiator = j->nodes == 1 || j->me < half;
    j->active = j->nodes == 1 || j->me < 2 * half;
    j->ctx.me = j->me;
    j->ctx.peer = j->nodes == 1 ? 0 : j->me < half ? j->me + half : j->me - half;
}

/* Puts the initiator of pair p on the 2p-th allowed CPU and its partner on
 * the next one.  Left to the scheduler, both processes of a pair can land
 * on one CPU of a busy host and stay there; each then spins until the
 * kernel preempts it, and every round trip costs two scheduler ticks (8 ms
 * at HZ=250) whatever the transport: seen here for gp and for ucx_perftest
 * alike under taskset -c 0.  Open MPI binds small jobs to cores by default
 * for the same reason. */
static void bind_cpu(const struct job *j)
{
    unsigned half = j->nodes / 2;
    int slot = j->nodes == 1 ? 0
               : j->me < half ? (int)(2 * j->me)
               : j->me < 2 * half ? (int)(2 * (j->me - half) + 1)
                                  : (int)(2 * half);
    gasnett_set_affinity(slot);
}

static void fail_usage(int loud, const char *fmt, const char *arg)
{
    if (loud) {
        fputs("gp-bench: ", stderr);
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
    }
    gasnet_exit(2);
}

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK)
        return 1;
    struct job j = { .me = gasnet_mynode(), .nodes = gasnet_nodes() };
    int loud = j.me == 0, help;
    struct bench_opts o;
    if (opts_parse(argc, argv, &o, loud, &help))
        gasnet_exit(2);
    if (help)
        gasnet_exit(0);
    struct plan plan = { 0 };
    if (plan_build(&o, &plan))
        fail_usage(loud, "out of memory for the plan%s", "");
    if (plan.n == 0)
        fail_usage(loud, "no point to measure: no size of --sizes applies to the tests of "
                         "--test%s (see the size limits in --help)", "");
    size_t target_off, local_off, max_size;
    size_t segsize = layout(&plan, &o, j.nodes, &target_off, &local_off, &max_size);
    if (segsize > gasnet_getMaxLocalSegmentSize()) {
        char sz[16];
        if (loud)
            fprintf(stderr, "gp-bench: --sizes: the largest size, %s, needs a segment of %zu "
                            "bytes; this job allows %lu (see GASNET_MAX_SEGSIZE)\n",
                    size_str(max_size, sz, sizeof sz), segsize,
                    (unsigned long)gasnet_getMaxLocalSegmentSize());
        gasnet_exit(2);
    }
    if (gasnet_attach(am_handlers, am_nhandlers, segsize, 0) != GASNET_OK)
        gasnet_exit(1);
    j.seg = calloc(j.nodes, sizeof *j.seg);
    if (!j.seg || gasnet_getSegmentInfo(j.seg, (int)j.nodes) != GASNET_OK)
        gasnet_exit(1);
    am_setup(j.seg, target_off, o.ex);
    gex_TM_t tm;
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
    j.ctx.tm = tm;
    j.ctx.ex = o.ex;
    atomic_setup(tm);
    setup_pairs(&j);
    if (o.bind)
        bind_cpu(&j);
    j.slots = (struct pair_result *)((char *)j.seg[0].addr + CONTROL_BYTES);
    char *mine = j.seg[j.me].addr;
    j.ctx.own_target = mine + target_off;
    j.ctx.target = (char *)j.seg[j.ctx.peer].addr + target_off;
    if (o.out_of_segment && posix_memalign((void **)&j.ctx.local, 64, max_size))
        gasnet_exit(1);
    if (!o.out_of_segment)
        j.ctx.local = mine + local_off;
    memset(j.ctx.local, 0x5a, max_size); /* touched now, not on the first timed access */
    memset(j.ctx.own_target, 0, max_size);
    j.ctx.iters = o.iters;
    j.ctx.warmup = o.warmup;
    j.ctx.window = o.window;
    j.ctx.library_rma = o.library_rma;

    /* gp places every process of a job on this host (gp-run has one launcher)
     * and picks shm between them unless GP_TRANSPORT says otherwise. */
    const char *transport = getenv("GP_TRANSPORT");
    transport = transport && *transport ? transport : "shm";
    struct output *out = NULL;
    struct point_result *results = NULL;
    if (loud) {
        out = output_open(&o, j.nodes, j.pairs, transport, plan.n);
        results = calloc(plan.n, sizeof *results);
    }
    if (agree(j.seg, loud && (!out || !results) ? 2 : 0))
        gasnet_exit(2);

    for (size_t i = 0; i < plan.n; i++) {
        if (loud)
            output_progress(out, i, &plan.points[i]);
        if (run_point(&j, &plan.points[i], loud ? &results[i] : NULL))
            output_point(out, &results[i]);
    }
    int code = 0;
    if (loud) {
        FILE *v = output_verdict_stream(out);
        if (o.nexpects && expect_check(&o, results, plan.n, v))
            code = 1;
        if (output_close(out)) {
            fprintf(stderr, "gp-bench: could not finish writing the --json/--csv file\n");
            code = 1;
        }
    }
    code = agree(j.seg, code);
    free(results);
    free(plan.points);
    opts_free(&o);
    if (o.out_of_segment)
        free(j.ctx.local);
    free(j.seg);
    gasnet_exit(code);
}
