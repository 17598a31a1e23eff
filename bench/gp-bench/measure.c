/*
 * The timing loops every pair test shares.  A test supplies one function
 * that performs n operations (op_fn); this file warms up, decides how many
 * operations to measure, times them and fills a pair_result.
 *
 * Warm-up: --warmup N runs N operations untimed.  Without it the warm-up
 * runs in doubling rounds until WARMUP_NS have passed, which brings pages,
 * caches and the transport's credits to their steady state whatever the
 * cost of one operation (8-byte puts on shm and 4 MiB puts over tcp differ
 * by five orders of magnitude).  Its time per operation sizes the latency
 * batches and the bandwidth chunks; without --iters a point is measured for
 * TARGET_NS of wall time.
 *
 * Latency: the clock is read around a batch of consecutive operations, as
 * many as fill about BATCH_NS, and one sample is the batch's mean.  Reading
 * CLOCK_MONOTONIC costs about as much as a whole put on shm, so timing
 * such operations one by one would measure the clock; operations longer
 * than BATCH_NS are timed one by one, so their p99 and max are per
 * operation.  Bandwidth: whole windows, bytes over the time they took.
 */
#include "bench.h"

#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdlib.h>

#define WARMUP_NS 20000000.0  /* adaptive warm-up: 20 ms */
#define TARGET_NS 200000000.0 /* default measured time per point: 0.2 s */
#define BATCH_NS 1000.0       /* latency batch: about 1 us */
#define MIN_ITERS 100
#define MAX_ITERS 1000000
#define MAX_BATCH 1000

/* Runs the warm-up; returns the ns per operation to size the run with (0:
 * none ran).  Adaptive rounds report the fastest round's rate, not the
 * mean: one round stretched by the scheduler (the process or its partner
 * descheduled for a few ms on a busy host) would otherwise shrink the run
 * to a few hundred operations, short enough that a single descheduling
 * covers every sample and becomes the median. */
static double warm_up(const struct bench_ctx *c, size_t size, op_fn op, long unit)
{
    if (c->warmup == 0)
        return 0;
    if (c->warmup > 0) {
        long n = (c->warmup + unit - 1) / unit * unit;
        gasnett_tick_t t0 = gasnett_ticks_now();
        op(c, size, n);
        return (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0) / (double)n;
    }
    long round = unit;
    double elapsed = 0, fastest = 0;
    while (elapsed < WARMUP_NS) {
        gasnett_tick_t t0 = gasnett_ticks_now();
        op(c, size, round);
        double ns = (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
        elapsed += ns;
        if (fastest == 0 || ns / (double)round < fastest)
            fastest = ns / (double)round;
        if (round < MAX_ITERS)
            round *= 2;
    }
    return fastest > 0 ? fastest : 1;
}

/* Whether a run without --iters has measured enough: TARGET_NS of wall
 * time and MIN_ITERS operations, at most MAX_ITERS.  Measuring for a time,
 * rather than for a count guessed from the warm-up, keeps a run long enough
 * that a few ms lost to the scheduler touch a part of the samples, not all. */
static int enough(const struct bench_ctx *c, long done, double elapsed)
{
    if (c->iters > 0)
        return done >= c->iters;
    return done >= MAX_ITERS || (elapsed >= TARGET_NS && done >= MIN_ITERS);
}

void measure_latency(const struct bench_ctx *c, size_t size, op_fn op, struct pair_result *r)
{
    double ns_per_op = warm_up(c, size, op, 1);
    long batch = ns_per_op > 0 ? (long)(BATCH_NS / ns_per_op) : 1;
    batch = batch < 1 ? 1 : batch > MAX_BATCH ? MAX_BATCH : batch;
    size_t cap = c->iters > 0 ? (size_t)((c->iters + batch - 1) / batch) : 4096, n = 0;
    double *samples = malloc(cap * sizeof *samples), elapsed = 0;
    long done = 0;
    while (samples && !enough(c, done, elapsed)) {
        long ops = c->iters > 0 && c->iters - done < batch ? c->iters - done : batch;
        gasnett_tick_t t0 = gasnett_ticks_now();
        op(c, size, ops);
        double ns = (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
        if (n == cap) {
            double *grown = realloc(samples, 2 * cap * sizeof *samples);
            if (!grown)
                free(samples);
            samples = grown;
            cap *= 2;
        }
        if (samples)
            samples[n++] = ns / 1e3 / (double)ops;
        done += ops;
        elapsed += ns;
    }
    if (!samples) {
        fprintf(stderr, "gp-bench: out of memory for %zu latency samples\n", cap);
        gasnet_exit(1);
    }
    stats_latency(samples, n, &r->lat);
    free(samples);
    r->iters = (uint64_t)done;
}

void measure_bandwidth(const struct bench_ctx *c, size_t size, op_fn window_op,
                       struct pair_result *r)
{
    double ns_per_op = warm_up(c, size, window_op, c->window);
    /* Without --iters, whole windows in chunks of about a ms between clock reads. */
    long chunk = c->window;
    if (c->iters > 0)
        chunk = (c->iters + c->window - 1) / c->window * c->window;
    else if (ns_per_op > 0 && ns_per_op * (double)c->window < 1e6)
        chunk *= (long)(1e6 / (ns_per_op * (double)c->window));
    long done = 0;
    double elapsed = 0;
    while (!enough(c, done, elapsed)) {
        gasnett_tick_t t0 = gasnett_ticks_now();
        window_op(c, size, chunk);
        elapsed += (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
        done += chunk;
    }
    if (elapsed <= 0)
        elapsed = 1; /* below the clock's resolution: report a bound, not a division by 0 */
    r->bw_MBps = (double)size * (double)done * 1e3 / elapsed; /* bytes/ns * 1000 = 10^6 B/s */
    r->msg_rate = (double)done * 1e9 / elapsed;
    r->iters = (uint64_t)done;
}
