/*
 * Several threads per process (PAR builds; SEQ builds run one) issuing nb
 * and nbi puts and gets at once, each thread synchronizing its own
 * implicit-handle operations independently (spec 4.7), each checking its
 * own data.  Public API only.
 *
 * Usage: ext_threads THREADS ROUNDS
 */
#include <pthread.h>
#include <string.h>

#include "amtest.h"

#define MAX_THREADS 8
#define SLICE (32u << 10)     /* one thread's area in a segment */
#define BATCH 32

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
static int threads, rounds;

/* Thread t of node me owns slice [me][t] of every segment. */
static char *slice(gasnet_node_t owner, gasnet_node_t writer, int thread)
{
    return (char *)seg[owner].addr + ((size_t)writer * MAX_THREADS + (size_t)thread) * SLICE;
}

static void *worker(void *arg)
{
    int thread = (int)(intptr_t)arg;
    unsigned char *src = malloc(SLICE), *back = malloc(SLICE);
    size_t piece = SLICE / BATCH;
    for (int round = 0; round < rounds; round++) {
        gasnet_node_t peer = (gasnet_node_t)((me + (unsigned)thread + (unsigned)round) % nodes);
        for (size_t i = 0; i < SLICE; i++)
            src[i] = (unsigned char)(me * 17 + thread * 5 + round + i);
        gasnet_handle_t handles[BATCH];
        for (int b = 0; b < BATCH; b++) {
            char *dest = slice(peer, me, thread) + (size_t)b * piece;
            if (b % 2)
                gasnet_put_nbi_bulk(peer, dest, src + (size_t)b * piece, piece);
            else
                handles[b / 2] = gasnet_put_nb_bulk(peer, dest, src + (size_t)b * piece, piece);
        }
        gasnet_wait_syncnbi_puts();          /* only this thread's implicit puts */
        gasnet_wait_syncnb_all(handles, BATCH / 2);
        memset(back, 0, SLICE);
        for (int b = 0; b < BATCH; b++)
            gasnet_get_nbi_bulk(back + (size_t)b * piece, peer,
                                slice(peer, me, thread) + (size_t)b * piece, piece);
        gasnet_wait_syncnbi_gets();
        CHECK(memcmp(back, src, SLICE) == 0, "thread %d round %d: data read back differs", thread,
              round);
        CHECK(gasnet_try_syncnbi_all() == GASNET_OK, "thread %d has nothing outstanding", thread);
    }
    free(src);
    free(back);
    return NULL;
}

static gasnet_handlerentry_t table[] = { AMTEST_HANDLERS };

int main(int argc, char **argv)
{
    amtest_name = "ext_threads";
    threads = argc > 1 ? atoi(argv[1]) : 4;
    rounds = argc > 2 ? atoi(argv[2]) : 50;
#ifndef GASNET_PAR
    threads = 1;
#endif
    CHECK(threads >= 1 && threads <= MAX_THREADS, "threads %d", threads);
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    CHECK(gasnet_attach(table, 2, (uintptr_t)nodes * MAX_THREADS * SLICE, 0) == GASNET_OK, "attach");
    seg = calloc(nodes, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)nodes);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    pthread_t ids[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        CHECK(pthread_create(&ids[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < threads; t++)
        pthread_join(ids[t], NULL);
    /* Print before the last barrier: once a node is past it, its exit may end this one. */
    if (me == 0)
        printf("ext_threads: %u nodes x %d threads x %d rounds of nb/nbi puts and gets verified\n",
               nodes, threads, rounds);
    fflush(stdout);
    gasnet_barrier(1, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
}
