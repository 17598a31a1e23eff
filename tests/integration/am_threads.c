/*
 * Several threads per process sending AM requests and polling at once (PAR
 * builds; a SEQ build runs one thread).  Request handlers update shared
 * state under a handler-safe lock and reply; every request must run exactly
 * once and every reply come back.
 *
 * Usage: am_threads THREADS REQUESTS_PER_THREAD
 */
#include <pthread.h>
#include <string.h>

#include "amtest.h"

#define H_WORK 200
#define H_DONE 201
#define MAX_THREADS 8

static gasnet_node_t me, nodes;
static int threads, per_thread;
static gasnet_hsl_t lock = GASNET_HSL_INITIALIZER;
static unsigned char *seen;        /* [source][thread][seq], under lock */
static int received;               /* under lock */
static volatile int replies[MAX_THREADS];

static void work_request(gasnet_token_t token, void *buf, size_t nbytes,
                         gasnet_handlerarg_t thread, gasnet_handlerarg_t seq)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(thread >= 0 && thread < threads && seq >= 0 && seq < per_thread, "args %d %d", thread, seq);
    CHECK(nbytes == (size_t)(seq % 64) && (nbytes == 0 || ((unsigned char *)buf)[0] ==
                                           (unsigned char)(thread + seq)), "payload");
    size_t index = ((size_t)src * (size_t)threads + (size_t)thread) * (size_t)per_thread + (size_t)seq;
    gasnet_hsl_lock(&lock);
    int twice = seen[index]++;
    received++;
    gasnet_hsl_unlock(&lock);
    CHECK(!twice, "request %d of thread %d from node %u ran twice", seq, thread, src);
    CHECK(gasnet_AMReplyShort1(token, H_DONE, thread) == GASNET_OK, "reply");
}

static void work_reply(gasnet_token_t token, gasnet_handlerarg_t thread)
{
    (void)token;
    __atomic_fetch_add(&replies[thread], 1, __ATOMIC_SEQ_CST);
}

static gasnet_handlerentry_t table[] = {
    { H_WORK, work_request }, { H_DONE, work_reply }, AMTEST_HANDLERS,
};

static void *sender(void *arg)
{
    int thread = (int)(intptr_t)arg;
    unsigned char payload[64];
    for (int seq = 0; seq < per_thread; seq++) {
        gasnet_node_t dest = (gasnet_node_t)((me + (unsigned)thread + (unsigned)seq) % nodes);
        memset(payload, thread + seq, sizeof payload);
        CHECK(gasnet_AMRequestMedium2(dest, H_WORK, payload, (size_t)(seq % 64), thread, seq) ==
              GASNET_OK, "request");
        if (seq % 16 == 0)
            gasnet_AMPoll();
    }
    GASNET_BLOCKUNTIL(replies[thread] == per_thread);
    return NULL;
}

/* How many requests node src's threads send to me. */
static int expected_from(gasnet_node_t src)
{
    int count = 0;
    for (int thread = 0; thread < threads; thread++)
        for (int seq = 0; seq < per_thread; seq++)
            count += (src + (unsigned)thread + (unsigned)seq) % nodes == me;
    return count;
}

int main(int argc, char **argv)
{
    amtest_name = "am_threads";
    threads = argc > 1 ? atoi(argv[1]) : 4;
    per_thread = argc > 2 ? atoi(argv[2]) : 2000;
#ifndef GASNET_PAR
    threads = 1;
#endif
    CHECK(threads >= 1 && threads <= MAX_THREADS, "threads %d", threads);
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 1 << 20, 0) == GASNET_OK, "attach");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    seen = calloc((size_t)nodes * (size_t)threads * (size_t)per_thread, 1);
    amtest_barrier();
    pthread_t ids[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        CHECK(pthread_create(&ids[t], NULL, sender, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < threads; t++)
        pthread_join(ids[t], NULL);
    amtest_barrier(); /* every node has all its replies: every request has run */
    int expected = 0;
    for (gasnet_node_t src = 0; src < nodes; src++)
        expected += expected_from(src);
    CHECK(received == expected, "received %d requests, expected %d", received, expected);
    if (me == 0)
        printf("am_threads: %u nodes x %d threads x %d requests, each run exactly once\n", nodes,
               threads, per_thread);
    fflush(stdout);
    amtest_barrier(); /* node 0 releases the barrier after printing */
    gasnet_exit(0);
}
