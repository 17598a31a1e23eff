/*
 * Timers.  A tick is one nanosecond of CLOCK_MONOTONIC, read through the
 * vDSO, so ticks_to_ns is the identity and the conversions live inline in
 * the header.  Granularity and overhead are measured once, on first use.
 */
#include <gasnet_tools.h>

#include <sys/time.h>
#include <time.h>

#include "util/export.h"

GP_EXPORT gasnett_tick_t gasnett_ticks_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (gasnett_tick_t)now.tv_sec * 1000000000u + (gasnett_tick_t)now.tv_nsec;
}

GP_EXPORT uint64_t gasnett_gettimeofday_us(void)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_usec;
}

#define SAMPLES 10000

static pthread_once_t measured = PTHREAD_ONCE_INIT;
static double granularity_us;
static double overhead_us;

/* The smallest step seen between successive distinct reads, and the mean cost of a read. */
static void measure(void)
{
    gasnett_tick_t smallest = GASNETT_TICK_MAX;
    gasnett_tick_t start = gasnett_ticks_now(), last = start;
    for (int i = 0; i < SAMPLES; i++) {
        gasnett_tick_t now = gasnett_ticks_now();
        if (now > last && now - last < smallest)
            smallest = now - last;
        last = now;
    }
    overhead_us = (double)gasnett_ticks_to_ns(last - start) / 1000.0 / SAMPLES;
    if (smallest == GASNETT_TICK_MAX) {
        /* Every read in the loop returned the same tick: the clock is coarse. */
        struct timespec res;
        smallest = clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0
                       ? (gasnett_tick_t)res.tv_nsec
                       : 1000000u;
    }
    granularity_us = (double)gasnett_ticks_to_ns(smallest) / 1000.0;
}

GP_EXPORT double gasnett_tick_granularityus(void)
{
    pthread_once(&measured, measure);
    return granularity_us;
}

GP_EXPORT double gasnett_tick_overheadus(void)
{
    pthread_once(&measured, measure);
    return overhead_us;
}
