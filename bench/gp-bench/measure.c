/*
 * The timing loops every pair test shares.  A test supplies one function
 * that performs n operations (op_fn); this file warms up, decides how many
 * operations to measure, times them and fills a pair_result.
 *
 * Warm-up: --warmup N runs N operations untimed.  Without it the warm-up
 * runs in doubling rounds until WARMUP_NS have passed, which brings pages,
 * caches and the transport's credits to their steady state whatever the
 * cost of one operation (8-byte puts on shm and 4 MiB puts over tcp differ
 * by five orders of magnitude).  Its mean time per operation sizes the rest.
 *
 * Latency: the clock is read around a batch of consecutive operations, as
 * many as fill about BATCH_NS, and one sample is the batch's mean.  Reading
 * CLOCK_MONOTONIC costs some 20 ns, as much as a whole put on shm, so timing
 * such operations one by one would measure the clock; operations longer
 * than BATCH_NS are timed one by one, so their p99 and max are per
 * operation.  Bandwidth: one timed run of whole windows.
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

/* Runs the warm-up; returns the mean ns per operation it saw (0: none ran). */
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
    long done = 0, round = unit;
    double elapsed = 0;
    while (elapsed < WARMUP_NS) {
        gasnett_tick_t t0 = gasnett_ticks_now();
        op(c, size, round);
        elapsed += (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
        done += round;
        if (round < MAX_ITERS)
            round *= 2;
    }
    return elapsed / (double)done;
}

/* Operations to measure: --iters, else what fills TARGET_NS; whole units. */
static long choose_iters(const struct bench_ctx *c, double ns_per_op, long unit)
{
    long n = c->iters;
    if (n <= 0) {
        double fit = ns_per_op > 0 ? TARGET_NS / ns_per_op : MIN_ITERS;
        n = fit < MIN_ITERS ? MIN_ITERS : fit > MAX_ITERS ? MAX_ITERS : (long)fit;
    }
    return (n + unit - 1) / unit * unit;
}

void measure_latency(const struct bench_ctx *c, size_t size, op_fn op, struct pair_result *r)
{
    double ns_per_op = warm_up(c, size, op, 1);
    long batch = ns_per_op > 0 ? (long)(BATCH_NS / ns_per_op) : 1;
    if (batch < 1)
        batch = 1;
    if (batch > MAX_BATCH)
        batch = MAX_BATCH;
    long iters = choose_iters(c, ns_per_op, 1);
    if (batch > iters)
        batch = iters;
    size_t nsamples = (size_t)((iters + batch - 1) / batch);
    double *samples = malloc(nsamples * sizeof *samples);
    if (!samples) {
        fprintf(stderr, "gp-bench: out of memory for %zu latency samples\n", nsamples);
        gasnet_exit(1);
    }
    long left = iters;
    for (size_t i = 0; i < nsamples; i++) {
        long n = left < batch ? left : batch;
        gasnett_tick_t t0 = gasnett_ticks_now();
        op(c, size, n);
        gasnett_tick_t t1 = gasnett_ticks_now();
        samples[i] = (double)gasnett_ticks_to_ns(t1 - t0) / 1e3 / (double)n;
        left -= n;
    }
    stats_latency(samples, nsamples, &r->lat);
    free(samples);
    r->iters = (uint64_t)iters;
}

void measure_bandwidth(const struct bench_ctx *c, size_t size, op_fn window_op,
                       struct pair_result *r)
{
    double ns_per_op = warm_up(c, size, window_op, c->window);
    long iters = choose_iters(c, ns_per_op, c->window);
    gasnett_tick_t t0 = gasnett_ticks_now();
    window_op(c, size, iters);
    double ns = (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
    if (ns <= 0)
        ns = 1; /* below the clock's resolution: report a bound, not a division by 0 */
    r->bw_MBps = (double)size * (double)iters * 1e3 / ns; /* bytes/ns * 1000 = 10^6 B/s */
    r->msg_rate = (double)iters * 1e9 / ns;
    r->iters = (uint64_t)iters;
}
