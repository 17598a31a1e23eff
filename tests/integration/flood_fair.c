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
 *   poll, blockuntil
 *         counted, not timed: node 0 stays out of the library while node 2's
 *         request reaches its socket and node 1 fills its rings, then waits
 *         for that request in a gasnet_AMPoll loop (poll) or in
 *         GASNET_BLOCKUNTIL (blockuntil) while node 1 keeps flooding.  The
 *         flood handlers node 0 runs before it serves the request are
 *         checked against doc/progress.md's bounds: one pass's ring look
 *         (16 per on-host peer) for gasnet_AMPoll, 64 more for a wait.
 *         A poll that ends where the rings gave messages fails both by
 *         hundreds.  ROUNDS rounds; the median must be within the bound
 *         (a round whose request was still on its way counts more).
 *
 * Usage: flood_fair rtt|exit|poll|blockuntil ROUNDS
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "amtest.h"

#define H_PING 200
#define H_PONG 201
#define H_FLOOD 202
#define H_PHASE_DONE 203
#define H_STOP_FLOOD 204
#define H_FLOOD_UNDER_WAY 205
#define H_HOLD 206
#define H_GO 207
#define H_HELD_PING 208
#define H_HELD_PONG 209
#define FLOOD_UNDER_WAY 1000   /* flood requests node 0 handles before node 2 starts timing */
/* doc/progress.md: a ring look takes at most 16 messages of a peer's ring; a wait runs the
 * whole pass once the looks since the last one have handled 64. */
#define RING_LOOK_MOST 16
#define WAIT_RING_MESSAGES_MOST 64
#define FLOOD_BEFORE_FLAG 8    /* node 1's requests queued before it tells node 0: fewer than a ring holds */
#define FLOOD_BYTES 64

static volatile int pongs;              /* node 2 */
static volatile int phases_done;        /* node 0: node 2 finished a phase */
static volatile int stop_flood;         /* node 1 */
static volatile int flood_under_way;    /* node 2 */
static volatile long long flooded;      /* node 0: flood requests handled */
static volatile int hold_round;         /* nodes 1 and 2: node 0 stays out of the library */
static volatile int go_round;           /* node 1: node 2's request to node 0 is sent */
static volatile int held_pinged;        /* node 0 */
static volatile long long flooded_at_ping;
static volatile int held_pongs;         /* node 2 */

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

static void hold(gasnet_token_t token, gasnet_handlerarg_t round)
{
    (void)token;
    hold_round = round;
}

static void go(gasnet_token_t token, gasnet_handlerarg_t round)
{
    (void)token;
    go_round = round;
}

static void held_ping(gasnet_token_t token)
{
    flooded_at_ping = flooded;
    held_pinged = 1;
    gasnet_AMReplyShort0(token, H_HELD_PONG);
}

static void held_pong(gasnet_token_t token)
{
    (void)token;
    held_pongs++;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping }, { H_PONG, pong }, { H_FLOOD, flood },
    { H_PHASE_DONE, phase_done }, { H_STOP_FLOOD, stop }, { H_FLOOD_UNDER_WAY, under_way },
    { H_HOLD, hold }, { H_GO, go }, { H_HELD_PING, held_ping }, { H_HELD_PONG, held_pong },
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

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/*
 * The counted cases.  Node 0 is out of the library from its hold messages until node 1's
 * flag lands in its segment (a store into a mapped segment needs no poll) and 20 ms after:
 * by then node 2's request, sent before node 2 told node 1 to start, is in node 0's socket
 * and node 1 has filled its ring.  Node 0 then waits for that request while node 1 keeps
 * the ring full: its handlers (half a microsecond each) are slower than node 1's sends.
 */
static void held_rounds(int use_poll, int rounds)
{
    gasnet_node_t me = gasnet_mynode();
    gasnet_seginfo_t seginfo[3];
    CHECK(gasnet_getSegmentInfo(seginfo, 3) == GASNET_OK, "segment info");
    volatile int *flag_at_node0 = (volatile int *)seginfo[0].addr;   /* node 0's own view */
    int *counts = malloc((size_t)rounds * sizeof *counts);
    CHECK(counts != NULL, "out of memory");
    int bound = use_poll ? RING_LOOK_MOST : WAIT_RING_MESSAGES_MOST + RING_LOOK_MOST;
    /* Node 2's connections are made first: a first message over tcp needs both ends to poll. */
    if (me == 2) {
        for (gasnet_node_t peer = 0; peer < 2; peer++) {
            pongs = 0;
            CHECK(gasnet_AMRequestShort1(peer, H_PING, 0) == GASNET_OK, "ping");
            GASNET_BLOCKUNTIL(pongs == 1);
        }
    }
    barrier();
    for (int round = 1; round <= rounds; round++) {
        if (me == 0) {
            held_pinged = 0;
            CHECK(gasnet_AMRequestShort1(1, H_HOLD, round) == GASNET_OK, "hold to node 1");
            CHECK(gasnet_AMRequestShort1(2, H_HOLD, round) == GASNET_OK, "hold to node 2");
            gasnet_AMPoll();   /* tcp writes a connection's second request of a pass at the next */
            long long give_up = now_ns() + 60LL * 1000000000LL;
            while (*flag_at_node0 != round)
                CHECK(now_ns() < give_up, "round %d: node 1's flag never came", round);
            usleep(20000);
            long long flooded_at_start = flooded;
            if (use_poll) {
                while (!held_pinged)
                    gasnet_AMPoll();
            } else {
                GASNET_BLOCKUNTIL(held_pinged);
            }
            counts[round - 1] = (int)(flooded_at_ping - flooded_at_start);
            CHECK(gasnet_AMRequestShort0(1, H_STOP_FLOOD) == GASNET_OK, "stop the flood");
        } else if (me == 1) {
            GASNET_BLOCKUNTIL(hold_round == round && go_round == round);
            char payload[FLOOD_BYTES];
            memset(payload, 0x5a, sizeof payload);
            stop_flood = 0;
            for (int sent = 0; sent < FLOOD_BEFORE_FLAG; sent++)
                CHECK(gasnet_AMRequestMedium0(0, H_FLOOD, payload, sizeof payload) == GASNET_OK,
                      "flood request");
            gasnet_put(0, seginfo[0].addr, &round, sizeof round);
            flood_node0();
        } else {
            GASNET_BLOCKUNTIL(hold_round == round);
            CHECK(gasnet_AMRequestShort0(0, H_HELD_PING) == GASNET_OK, "request to node 0");
            CHECK(gasnet_AMRequestShort1(1, H_GO, round) == GASNET_OK, "go to node 1");
            while (held_pongs != round) {   /* off the cores the other two need */
                usleep(200);
                gasnet_AMPoll();
            }
        }
        barrier();
    }
    if (me == 0) {
        qsort(counts, (size_t)rounds, sizeof *counts, compare_int);
        printf("flood_fair: node 0 ran %d flood handlers (median of %d rounds; least %d, most %d) "
               "before serving node 2's waiting request in %s (bound %d)\n",
               counts[rounds / 2], rounds, counts[0], counts[rounds - 1],
               use_poll ? "a gasnet_AMPoll loop" : "GASNET_BLOCKUNTIL", bound);
        fflush(stdout);
        CHECK(counts[rounds / 2] <= bound, "node 0 ran %d flood handlers before serving a request "
              "already in its socket (bound %d, doc/progress.md)", counts[rounds / 2], bound);
    }
    free(counts);
}

int main(int argc, char **argv)
{
    amtest_name = "flood_fair";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 3 && (strcmp(argv[1], "rtt") == 0 || strcmp(argv[1], "exit") == 0 ||
                        strcmp(argv[1], "poll") == 0 || strcmp(argv[1], "blockuntil") == 0),
          "usage: flood_fair rtt|exit|poll|blockuntil ROUNDS");
    int exit_case = strcmp(argv[1], "exit") == 0;
    int poll_case = strcmp(argv[1], "poll") == 0;
    int blockuntil_case = strcmp(argv[1], "blockuntil") == 0;
    int rounds = atoi(argv[2]);
    CHECK(rounds > 0, "ROUNDS must be positive");
    CHECK(gasnet_attach(table, sizeof table / sizeof table[0], 1 << 16, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode();
    CHECK(gasnet_nodes() == 3, "runs on 3 nodes");
    barrier();

    if (poll_case || blockuntil_case) {
        held_rounds(poll_case, rounds);
        barrier();
        gasnet_exit(0);
    }
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
