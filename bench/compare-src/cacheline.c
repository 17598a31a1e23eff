/*
 * The physical limit of a shared-memory round trip: two processes bounce
 * one cache line through a shared mapping.  Each side spins until the line
 * holds the value it waits for and writes the next, so one round trip is
 * two cache-line transfers between cores, the least any protocol over
 * shared memory can cost.  The clock is read around batches of PER round
 * trips (one round trip is about as short as a clock read), many short
 * batches, so a batch hit by the scheduler is an outlier the median
 * ignores, as gp-bench's median ignores its slow samples.  Prints
 * "cacheline_rt_ns MEDIAN".
 *
 * Usage: cacheline [batches]
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#define PER 64

struct line {
    _Alignas(64) atomic_long ping;
    _Alignas(64) long pad;
};

int main(int argc, char **argv)
{
    long batches = argc > 1 ? atol(argv[1]) : 20000;
    if (batches <= 0) {
        fprintf(stderr, "cacheline: the count of batches must be positive, got '%s'\n", argv[1]);
        return 2;
    }
    double *batch = malloc((size_t)batches * sizeof *batch);
    if (!batch)
        return 1;
    struct line *l = mmap(NULL, sizeof *l, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
    if (l == MAP_FAILED) {
        perror("cacheline: mmap");
        free(batch);
        return 1;
    }
    atomic_store(&l->ping, 0);
    long per = PER, total = per * (batches + batches / 10);
    pid_t child = fork();
    pin(child == 0);
    if (child == 0) { /* the echo side: answers every odd value with the next even one */
        for (long v = 1; v < 2 * total; v += 2) {
            while (atomic_load_explicit(&l->ping, memory_order_acquire) != v)
                ;
            atomic_store_explicit(&l->ping, v + 1, memory_order_release);
        }
        _exit(0);
    }
    long v = 0;
    for (long b = -batches / 10; b < batches; b++) { /* negative batches warm up */
        double t0 = now_ns();
        for (long i = 0; i < per; i++) {
            atomic_store_explicit(&l->ping, ++v, memory_order_release);
            ++v;
            while (atomic_load_explicit(&l->ping, memory_order_acquire) != v)
                ;
        }
        if (b >= 0)
            batch[b] = (now_ns() - t0) / (double)per;
    }
    waitpid(child, NULL, 0);
    qsort(batch, (size_t)batches, sizeof batch[0], cmp);
    printf("cacheline_rt_ns %.1f\n", batch[batches / 2]);
    free(batch);
    return 0;
}
