/*
 * The AM round trip between nodes 0 and 1 while every other node of the
 * job sits idle, for tests/scale/02-tcp.sh (doc/scale.md section 02): with every
 * connection open, does the cost of a progress pass on nodes 0 and 1 grow
 * with the sockets that have nothing to say?
 *
 * Node 0 times ITERS Short request + Short reply round trips to node 1
 * (after a warm-up) and prints "rtt_us_median X" and "attach_ms Y" (its
 * gasnet_attach, connection set-up included).  The other nodes must not
 * compete for the CPU (the machine may have fewer cores than the job has
 * processes): they sleep, polling once every 100 ms, until node 0's DONE
 * reaches them.  Every node waits in GASNET_WAIT_BLOCK mode (a poll, then
 * sched_yield), which is what the conduit does anyway in a job with more
 * processes than cores: so the 2-node job waits as the 64-node one does, and
 * the ratio compares the transports' passes, not attach.c's rule for
 * oversubscribed hosts.  Public API only.
 *
 * Usage: tcp_rtt_idle [ITERS]      (default 4000; 0: attach only)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "amtest.h"

#define H_PING 200
#define H_PONG 201
#define H_DONE 202
#define WARMUP 500

static volatile long pongs;
static volatile int done;

static void ping_request(gasnet_token_t token)
{
    CHECK(gasnet_AMReplyShort0(token, H_PONG) == GASNET_OK, "reply");
}

static void pong_reply(gasnet_token_t token)
{
    (void)token;
    pongs++;
}

static void done_request(gasnet_token_t token)
{
    (void)token;
    done = 1;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping_request }, { H_PONG, pong_reply }, { H_DONE, done_request }, AMTEST_HANDLERS
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void round_trip(void)
{
    long want = pongs + 1;
    CHECK(gasnet_AMRequestShort0(1, H_PING) == GASNET_OK, "request");
    GASNET_BLOCKUNTIL(pongs >= want);
}

int main(int argc, char **argv)
{
    amtest_name = "tcp_rtt_idle";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    long iters = argc > 1 ? atol(argv[1]) : 4000;
    CHECK(iters >= 0, "usage: tcp_rtt_idle [ITERS]");
    double t0 = now_us();
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 1 << 16, 0) == GASNET_OK,
          "attach");
    double attach_ms = (now_us() - t0) / 1e3;
    CHECK(gasnet_set_waitmode(GASNET_WAIT_BLOCK) == GASNET_OK, "wait mode");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    CHECK(nodes >= 2, "needs 2 nodes or more");
    amtest_barrier();
    if (me == 0 && iters > 0) {
        for (int i = 0; i < WARMUP; i++)
            round_trip();
        double *samples = malloc((size_t)iters * sizeof *samples);
        CHECK(samples != NULL, "samples");
        for (long i = 0; i < iters; i++) {
            double t = now_us();
            round_trip();
            samples[i] = now_us() - t;
        }
        qsort(samples, (size_t)iters, sizeof *samples, by_value);
        printf("rtt_us_median %.3f\n", samples[iters / 2]);
        free(samples);
    }
    if (me == 0) {
        printf("attach_ms %.1f\n", attach_ms);
        fflush(stdout);
        for (gasnet_node_t n = 1; n < nodes; n++)
            CHECK(gasnet_AMRequestShort0(n, H_DONE) == GASNET_OK, "done");
    } else if (me == 1) {
        GASNET_BLOCKUNTIL(done); /* serves the round trips */
    } else {
        while (!done) { /* idle: no CPU taken from nodes 0 and 1 */
            usleep(100000);
            gasnet_AMPoll();
        }
    }
    amtest_barrier();
    gasnet_exit(0);
    return 0;
}
