/*
 * The physical limit of a put or get on one host: memcpy of SIZE bytes
 * between two buffers already touched, one thread, the same copy a put to a
 * mapped segment performs.  Prints "memcpy_MBps MEDIAN" (10^6 bytes/s) over
 * batches.
 *
 * Usage: memcpy_bw [size-bytes]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe.h"

#define BATCHES 21

int main(int argc, char **argv)
{
    long size = argc > 1 ? atol(argv[1]) : 1 << 20;
    if (size <= 0) {
        fprintf(stderr, "memcpy_bw: size must be a positive byte count, got '%s'\n", argv[1]);
        return 2;
    }
    char *src = aligned_alloc(64, (size_t)size), *dst = aligned_alloc(64, (size_t)size);
    if (!src || !dst)
        return 1;
    memset(src, 1, (size_t)size);
    memset(dst, 2, (size_t)size);
    long per = (256L << 20) / size + 1; /* about 256 MiB a batch */
    double batch[BATCHES];
    for (int b = -1; b < BATCHES; b++) {
        double t0 = now_ns();
        for (long i = 0; i < per; i++) {
            memcpy(dst, src, (size_t)size);
            __asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
        }
        if (b >= 0)
            batch[b] = (double)size * (double)per * 1e3 / (now_ns() - t0);
    }
    qsort(batch, BATCHES, sizeof batch[0], cmp);
    printf("memcpy_MBps %.1f\n", batch[BATCHES / 2]);
    free(src);
    free(dst);
    return 0;
}
