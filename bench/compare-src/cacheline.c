/*
 * The physical limit of a shared-memory round trip: two processes bounce
 * one cache line through a shared mapping.  Each side spins until the line
 * holds the value it waits for and writes the next, so one round trip is
 * two cache-line transfers between cores, the least any protocol over
 * shared memory can cost.  Prints "cacheline_rt_ns MEDIAN" over batches.
 *
 * Usage: cacheline [round-trips-per-batch]
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 21

struct line {
    _Alignas(64) atomic_long ping;
    _Alignas(64) long pad;
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long per = argc > 1 ? atol(argv[1]) : 100000;
    if (per <= 0) {
        fprintf(stderr, "cacheline: round trips per batch must be positive, got '%s'\n", argv[1]);
        return 2;
    }
    struct line *l = mmap(NULL, sizeof *l, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
    if (l == MAP_FAILED) {
        perror("cacheline: mmap");
        return 1;
    }
    atomic_store(&l->ping, 0);
    long total = per * (BATCHES + 1);
    pid_t child = fork();
    if (child == 0) { /* the echo side: answers every odd value with the next even one */
        for (long v = 1; v < 2 * total; v += 2) {
            while (atomic_load_explicit(&l->ping, memory_order_acquire) != v)
                ;
            atomic_store_explicit(&l->ping, v + 1, memory_order_release);
        }
        _exit(0);
    }
    double batch[BATCHES];
    long v = 0;
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
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
    qsort(batch, BATCHES, sizeof batch[0], cmp);
    printf("cacheline_rt_ns %.1f\n", batch[BATCHES / 2]);
    return 0;
}
