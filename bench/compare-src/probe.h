/*
 * What the probes in bench/compare-src share: a clock, CPU pinning and the
 * comparison for sorting timings into a median.  Each probe is built alone
 * by bench/compare (one cc per file), so these are static inline.
 */
#ifndef GP_BENCH_PROBE_H
#define GP_BENCH_PROBE_H

#include <sched.h>
#include <time.h>

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Parent on the first allowed CPU, child on the second, as the tools compared
 * with bind theirs: two spinning processes sharing one CPU would measure the
 * scheduler's tick instead. */
static inline void pin(int nth)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed) || nth-- > 0)
            continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
        return;
    }
}

static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
