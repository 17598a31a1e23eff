/*
 * A threaded client in the classic style of GASNet's tests: the pthread
 * code sits behind HAVE_PTHREAD_H (from gasnet_config.h, as in GASNet's
 * test.h), threads are created in main after attach, meet at a pthread
 * barrier, and each does puts and AM round trips of its own.
 *   threaded [threads]   prints "threaded: N nodes x T threads ok"
 */
#include <gasnet.h>
#include <gasnet_tools.h>

#if defined(HAVE_PTHREAD_H) && !defined(GASNET_SEQ)
#include <pthread.h>

#define H_PING 150
#define H_PONG 151
#define ROUNDS 200
#define SLOT 64 /* bytes of a thread's slot in each segment */

static gasnet_seginfo_t *seg;
static int threads;
static pthread_barrier_t meet;
static gasnett_atomic_t pongs = gasnett_atomic_init(0);
static gasnett_atomic_t errors = gasnett_atomic_init(0);

static void ping(gasnet_token_t token, gasnet_handlerarg_t thread, gasnet_handlerarg_t round)
{
    gasnet_AMReplyShort2(token, H_PONG, thread, round + 1);
}

static void pong(gasnet_token_t token, gasnet_handlerarg_t thread, gasnet_handlerarg_t next)
{
    (void)token;
    if (thread < 0 || thread >= threads || next <= 0)
        gasnett_atomic_increment(&errors, 0);
    gasnett_atomic_increment(&pongs, GASNETT_ATOMIC_REL);
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes(), peer = (me + 1) % n;
    pthread_barrier_wait(&meet);
    char *slot = (char *)seg[peer].addr + ((size_t)me * (size_t)threads + (size_t)t) * SLOT;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t word = ((uint64_t)me << 32) | ((uint64_t)t << 16) | (uint64_t)r, back = 0;
        gasnet_put(peer, slot, &word, sizeof word);
        gasnet_get(&back, peer, slot, sizeof back);
        if (back != word)
            gasnett_atomic_increment(&errors, 0);
        uint32_t before = gasnett_atomic_read(&pongs, GASNETT_ATOMIC_ACQ);
        gasnet_AMRequestShort2(r % 2 ? me : peer, H_PING, t, r);
        GASNET_BLOCKUNTIL(gasnett_atomic_read(&pongs, GASNETT_ATOMIC_ACQ) > before);
    }
    pthread_barrier_wait(&meet);
    return NULL;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = { { H_PING, ping }, { H_PONG, pong } };
    if (gasnet_init(&argc, &argv) != GASNET_OK ||
        gasnet_attach(table, 2, GASNET_PAGESIZE * 64, 0) != GASNET_OK)
        return 2;
    threads = argc > 1 ? atoi(argv[1]) : 4;
    gasnet_node_t n = gasnet_nodes();
    seg = calloc(n, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)n);
    if ((size_t)n * (size_t)threads * SLOT > seg[0].size)
        return 3;
    pthread_barrier_init(&meet, NULL, (unsigned)threads);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    for (int t = 0; t < threads; t++)
        pthread_create(&tid[t], NULL, thread_main, (void *)(intptr_t)t);
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    /* Every round trip of every thread, answered; then the nodes together. */
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&pongs, GASNETT_ATOMIC_ACQ) >= (uint32_t)(threads * ROUNDS));
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (gasnett_atomic_read(&errors, 0) != 0) {
        printf("threaded: node %u: %u errors\n", gasnet_mynode(), gasnett_atomic_read(&errors, 0));
        gasnet_exit(1);
    }
    if (gasnet_mynode() == 0)
        printf("threaded: %u nodes x %d threads ok\n", n, threads);
    fflush(stdout);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
    return 0;
}
#else
int main(void)
{
    printf("threaded: HAVE_PTHREAD_H is not defined (or this is a SEQ build): no threads\n");
    return 1;
}
#endif
