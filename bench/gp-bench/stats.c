/*
 * Latency statistics over the samples of one point.  p99 is the nearest-rank
 * percentile (the smallest sample with at least 99% of the samples at or
 * below it), so it is always a value that was measured; the median of an
 * even count is the mean of the two middle samples.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_latency(double *samples, size_t n, struct lat_stats *out)
{
    if (n == 0) {
        out->min = out->median = out->p99 = out->max = 0;
        return;
    }
    qsort(samples, n, sizeof *samples, cmp_double);
    out->min = samples[0];
    out->max = samples[n - 1];
    out->median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    size_t rank = (size_t)ceil(0.99 * (double)n);
    out->p99 = samples[rank > 0 ? rank - 1 : 0];
}
