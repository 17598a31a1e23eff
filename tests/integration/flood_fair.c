/*
 * Fair progress under a ring flood (doc/progress.md).  Three nodes, run on
 * two pretended hosts: nodes 0 and 1 share one (slot rings), node 2 is on
 * the other (tcp).  Node 0 waits in GASNET_BLOCKUNTIL, the wait turns whose
 * ring-only looks must still leave room for the whole pass.
 *
 *   rtt   node 2 times ROUNDS Short round trips to node 0, first with node 1
 *         idle, then, once node 0 has handled 1,000 of them, while node 1
 *         floods node 0 with Medium requests over the rings; the flooded
 *         median must stay within 2x the quiet one (a timing: run by
 *         tests/timing/fair_rtt.sh, make check-timing, not make check).
 *   exit  node 1 floods node 0 and node 2 calls gasnet_exit(7) meanwhile:
 *         the flood's sender and its target must both see the exit, so the
 *         job ends with 7 inside GASNET_EXITTIMEOUT (the script checks that
 *         gp-run killed nobody).
 *
 * Usage: flood_fair rtt|exit ROUNDS
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amtest.h"

#define H_PING 200
#define H_PONG 201
#define H_FLOOD 202
#define H_PHASE_DONE 203
#define H_STOP_FLOOD 204
#define H_FLOOD_UNDER_WAY 205
#define FLOOD_UNDER_WAY 1000   /* flood requests node 0 handles before node 2 starts timing */
#define FLOOD_BYTES 64

static volatile int pongs;              /* node 2 */
static volatile int phases_done;        /* node 0: node 2 finished a phase */
static volatile int stop_flood;         /* node 1 */
static volatile int flood_under_way;    /* node 2 */
static volatile long long flooded;      /* node 0: flood requests handled */

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void ping(gasnet_token_t token, gasnet_handlerarg_t seq)
{
    gasnet_AMReplyShort1(token, H_PONG, seq);
}

static void pong(gasnet_token_t token, gasnet_handlerarg_t seq)
{
    (void)token;
    pongs = seq + 1;
}

/* A handler with some work in it (half a microsecond, by the clock), so the flood's target,
 * not its sender, is the slower end and its rings stay full: a waiter that ends its poll
 * wherever the rings gave messages then never reaches the rest of the engine. */
#define FLOOD_HANDLER_NS 500
static void flood(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)token;
    (void)buf;
    CHECK(nbytes == FLOOD_BYTES, "flood payload of %zu bytes", nbytes);
    long long until = now_ns() + FLOOD_HANDLER_NS;
    while (now_ns() < until)
        ;
    flooded++;
}

static void phase_done(gasnet_token_t token)
{
    (void)token;
    phases_done++;
}

static void stop(gasnet_token_t token)
{
    (void)token;
    stop_flood = 1;
}

static void under_way(gasnet_token_t token)
{
    (void)token;
    flood_under_way = 1;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping }, { H_PONG, pong }, { H_FLOOD, flood },
    { H_PHASE_DONE, phase_done }, { H_STOP_FLOOD, stop }, { H_FLOOD_UNDER_WAY, under_way },
};

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

static int compare_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Node 2: the median of ROUNDS round trips to node 0. */
static long long median_round_trip(int rounds)
{
    long long *took = malloc((size_t)rounds * sizeof *took);
    CHECK(took != NULL, "out of memory");
    pongs = 0;
    for (int seq = 0; seq < rounds; seq++) {
        long long sent = now_ns();
        CHECK(gasnet_AMRequestShort1(0, H_PING, seq) == GASNET_OK, "ping");
        GASNET_BLOCKUNTIL(pongs == seq + 1);
        took[seq] = now_ns() - sent;
    }
    qsort(took, (size_t)rounds, sizeof *took, compare_ll);
    long long median = took[rounds / 2];
    free(took);
    return median;
}

/* Node 1: Medium requests to node 0 as fast as the rings take them, until told to stop. */
static void flood_node0(void)
{
    char payload[FLOOD_BYTES];
    memset(payload, 0x5a, sizeof payload);
    while (!stop_flood)
        CHECK(gasnet_AMRequestMedium0(0, H_FLOOD, payload, sizeof payload) == GASNET_OK,
              "flood request");
}

int main(int argc, char **argv)
{
    amtest_name = "flood_fair";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 3 && (strcmp(argv[1], "rtt") == 0 || strcmp(argv[1], "exit") == 0),
          "usage: flood_fair rtt|exit ROUNDS");
    int exit_case = strcmp(argv[1], "exit") == 0;
    int rounds = atoi(argv[2]);
    CHECK(rounds > 0, "ROUNDS must be positive");
    CHECK(gasnet_attach(table, sizeof table / sizeof table[0], 1 << 16, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode();
    CHECK(gasnet_nodes() == 3, "runs on 3 nodes");
    barrier();

    if (exit_case) {
        if (me == 1)
            flood_node0();             /* ended by the exit */
        else if (me == 0)
            GASNET_BLOCKUNTIL(0);      /* ended by the exit */
        median_round_trip(rounds);     /* the flood is under way */
        printf("flood_fair: node 2 calls gasnet_exit(7) during the flood\n");
        fflush(stdout);
        gasnet_exit(7);
    }

    long long quiet = 0;
    if (me == 2) {
        quiet = median_round_trip(rounds);
        CHECK(gasnet_AMRequestShort0(0, H_PHASE_DONE) == GASNET_OK, "phase done");
    } else if (me == 0) {
        GASNET_BLOCKUNTIL(phases_done == 1);
    }
    barrier();
    if (me == 1) {
        flood_node0();
    } else if (me == 2) {
        GASNET_BLOCKUNTIL(flood_under_way);   /* time only what the flood meets */
        long long busy = median_round_trip(rounds);
        CHECK(gasnet_AMRequestShort0(0, H_PHASE_DONE) == GASNET_OK, "phase done");
        printf("flood_fair: node 2's round trip to node 0: median %.1f us quiet, %.1f us while "
               "node 1 floods node 0 (%.2fx)\n", quiet / 1e3, busy / 1e3, (double)busy / quiet);
        fflush(stdout);
        CHECK(busy <= 2 * quiet, "the flooded round trip is %.2fx the quiet one (bound 2x)",
              (double)busy / quiet);
    } else {
        GASNET_BLOCKUNTIL(flooded >= FLOOD_UNDER_WAY);
        CHECK(gasnet_AMRequestShort0(2, H_FLOOD_UNDER_WAY) == GASNET_OK, "flood under way");
        GASNET_BLOCKUNTIL(phases_done == 2);
        CHECK(gasnet_AMRequestShort0(1, H_STOP_FLOOD) == GASNET_OK, "stop the flood");
        printf("flood_fair: node 0 handled %lld flood requests during node 2's round trips\n",
               (long long)flooded);
        fflush(stdout);
        CHECK(flooded > rounds, "node 1's flood did not overlap node 2's round trips");
    }
    barrier();
    gasnet_exit(0);
    return 0;
}
