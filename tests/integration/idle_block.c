/*
 * Ranks that wait in GASNET_WAIT_BLOCK leave the CPU to the ranks that work.
 *
 * Usage: idle_block cpu MS ROUNDS | idle_block pair ROUNDTRIPS
 *
 * cpu: in each round node 0 computes for MS milliseconds without calling
 * GASNet while every other node waits in a barrier with
 * gasnet_set_waitmode(GASNET_WAIT_BLOCK); each waiter measures the CPU time
 * its process used over the wait (getrusage) against the wait's wall time
 * and prints both.  The script holds the share to a bound: a waiter that
 * polls and yields takes its turn of the CPU whenever the scheduler comes
 * round to it, one that sleeps takes almost none.
 *
 * pair: nodes 0 and 1 time ROUNDTRIPS AM Short round trips (default wait
 * mode) while every other node waits in a GASNET_WAIT_BLOCK barrier; node 0
 * prints the median, for the figure (not checked here: timings are
 * for benchmarks).  Every reply is checked.
 *
 * threads ROUNDS (PAR, 2 nodes): node 0's main thread, in GASNET_WAIT_BLOCK,
 * sends node 1 a request and waits for node 1's answer, which comes as a
 * request of node 1's main loop about a millisecond later, so that the wait
 * dozes; meanwhile a second thread of node 0 polls without pause and takes
 * most answers itself.  No post follows an answer that thread took, so a
 * dozer it left asleep would sleep the whole GP_DOZE_MAX_US: the script
 * sets a long one and checks that no doze slept it.  (The window in which
 * the taker could leave it asleep is a few instructions wide, between the
 * waiter's last test and its announcement; progress.c's taking_passes closes
 * it, and this run rarely lands in it: what it shows every time is that PAR
 * waits doze beside a polling thread and that every answer ends one.)
 */
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef GASNET_PAR
#include <pthread.h>
#endif

#include "amtest.h"

#define H_PING 201
#define H_PONG 202
#define H_ASK 203
#define H_ANSWER 204

static volatile int pongs;

static void ping(gasnet_token_t token, gasnet_handlerarg_t value)
{
    gasnet_AMReplyShort1(token, H_PONG, value + 1);
}

static void pong(gasnet_token_t token, gasnet_handlerarg_t value)
{
    (void)token;
    CHECK(value == pongs + 1, "reply %d carries %d", pongs, (int)value);
    pongs++;
}

/* threads: node 1 counts the questions; node 0 the answers, which must come in order. */
static volatile int asked, answered;

static void ask(gasnet_token_t token, gasnet_handlerarg_t round)
{
    (void)token;
    CHECK(round == asked, "question %d is numbered %d", asked, (int)round);
    asked++;
}

static void answer(gasnet_token_t token, gasnet_handlerarg_t round)
{
    (void)token;
    CHECK(round == answered, "answer %d is numbered %d", answered, (int)round);
    answered++;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, (void (*)(void))ping },
    { H_PONG, (void (*)(void))pong },
    { H_ASK, (void (*)(void))ask },
    { H_ANSWER, (void (*)(void))answer },
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

/* Work the compiler cannot drop, for ms milliseconds, without calling GASNet. */
static void compute(double ms)
{
    static volatile double sink;
    double until = now_ms() + ms;
    while (now_ms() < until)
        for (int i = 0; i < 10000; i++)
            sink = sink * 0.5 + i;
}

static void cpu_rounds(gasnet_node_t me, double ms, int rounds)
{
    double waited = 0, used = 0;
    if (me != 0)
        CHECK(gasnet_set_waitmode(GASNET_WAIT_BLOCK) == GASNET_OK, "set_waitmode");
    for (int r = 0; r < rounds; r++) {
        double wall0 = now_ms(), cpu0 = cpu_ms();
        if (me == 0)
            compute(ms);
        barrier();
        waited += now_ms() - wall0;
        used += cpu_ms() - cpu0;
    }
    if (me != 0)
        printf("idle_block: node %u waited %.0f ms and used %.0f ms of CPU\n", me, waited, used);
    fflush(stdout);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void pair_round_trips(gasnet_node_t me, gasnet_node_t nodes, int count)
{
    if (me >= 2) {
        CHECK(gasnet_set_waitmode(GASNET_WAIT_BLOCK) == GASNET_OK, "set_waitmode");
        barrier();
        return;
    }
    double *times = calloc((size_t)count, sizeof *times);
    CHECK(times != NULL, "memory");
    if (me == 0) {
        for (int i = 0; i < count; i++) {
            double start = now_ms();
            gasnet_AMRequestShort1(1, H_PING, pongs);
            GASNET_BLOCKUNTIL(pongs == i + 1);
            times[i] = now_ms() - start;
        }
        qsort(times, (size_t)count, sizeof *times, compare_doubles);
        printf("idle_block: %d round trips between nodes 0 and 1 with %u nodes waiting in "
               "GASNET_WAIT_BLOCK, median %.3f us, all replies checked\n", count, nodes - 2,
               times[count / 2] * 1e3);
        fflush(stdout);
    }
    free(times);
    barrier();
}

#ifdef GASNET_PAR
static volatile int polling_done;

static void *poll_until_done(void *unused)
{
    (void)unused;
    while (!polling_done)
        gasnet_AMPoll();
    return NULL;
}

static void threads_rounds(gasnet_node_t me, int rounds)
{
    if (me == 0) {
        CHECK(gasnet_set_waitmode(GASNET_WAIT_BLOCK) == GASNET_OK, "set_waitmode");
        pthread_t poller;
        CHECK(pthread_create(&poller, NULL, poll_until_done, NULL) == 0, "pthread_create");
        for (int r = 0; r < rounds; r++) {
            gasnet_AMRequestShort1(1, H_ASK, r);
            GASNET_BLOCKUNTIL(answered == r + 1);
        }
        polling_done = 1;
        pthread_join(poller, NULL);
        printf("idle_block: node 0 had %d answers, each in order\n", answered);
    } else if (me == 1) {
        for (int r = 0; r < rounds; r++) {
            GASNET_BLOCKUNTIL(asked == r + 1);
            struct timespec pause = { 0, 1000000 };
            nanosleep(&pause, NULL);
            gasnet_AMRequestShort1(0, H_ANSWER, r);
        }
    }
    fflush(stdout);
}
#endif

int main(int argc, char **argv)
{
    amtest_name = "idle_block";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(table, sizeof table / sizeof table[0], 0, 0) == GASNET_OK, "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    barrier();
    if (argc > 1 && strcmp(argv[1], "cpu") == 0) {
        cpu_rounds(me, argc > 2 ? atof(argv[2]) : 500, argc > 3 ? atoi(argv[3]) : 2);
    } else if (argc > 1 && strcmp(argv[1], "pair") == 0) {
        CHECK(nodes >= 2, "pair needs 2 nodes or more");
        pair_round_trips(me, nodes, argc > 2 ? atoi(argv[2]) : 20000);
#ifdef GASNET_PAR
    } else if (argc > 1 && strcmp(argv[1], "threads") == 0) {
        CHECK(nodes == 2, "threads needs 2 nodes");
        threads_rounds(me, argc > 2 ? atoi(argv[2]) : 200);
#endif
    } else {
        CHECK(0, "usage: idle_block cpu MS ROUNDS | idle_block pair ROUNDTRIPS | idle_block threads ROUNDS (PAR)");
    }
    barrier();
    gasnet_exit(0);
}
