/*
 * gp-demo: the project's main job until gp-bench exists.  Run under gp-run,
 * ranks pair up (i with i + N/2) and measure, through the GASNet core API:
 *
 *  - AM round trips: a request whose handler replies, for Short (no
 *    arguments), Medium (the largest, gasnet_AMMaxMedium() bytes) and Long
 *    (4 KiB into the partner's segment); the median of several batches, as
 *    the time of one round trip;
 *  - AM Long bandwidth: a stream of 64 KiB Long requests, a window of them
 *    in flight, each acknowledged by its reply;
 *  - blocking 8-byte put and get (each returns after the round trip), and
 *    put / get bandwidth at 4 KiB and 1 MiB (implicit-handle operations,
 *    synchronized every window).
 *
 * Replies are checked, so the demo also proves the path.  On a host with
 * fewer cores than processes, waiting ranks yield the CPU to their partners.
 *
 * Usage: gp-run -n N gp-demo [iterations]
 */
#include <gasnet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define H_PING 200
#define H_PONG 201
#define H_DONE 202
#define H_FINISHED 203
#define BATCHES 9
#define LONG_SMALL 4096u
#define LONG_BIG (64u << 10)
#define WINDOW 16

static volatile int pongs, done_count, finished;
static gasnet_seginfo_t *seg;
static gasnet_node_t me, nodes;
static int oversubscribed;

static void ping(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t category)
{
    (void)buf;
    if (category == 0)
        gasnet_AMReplyShort1(token, H_PONG, (gasnet_handlerarg_t)nbytes);
    else
        gasnet_AMReplyMedium1(token, H_PONG, buf, category == 1 ? nbytes : 0,
                              (gasnet_handlerarg_t)nbytes);
}

static void ping_short(gasnet_token_t token)
{
    gasnet_AMReplyShort1(token, H_PONG, 0);
}

static void pong(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t size)
{
    (void)token;
    (void)buf;
    (void)nbytes;
    (void)size;
    pongs++;
}

static void pong_short(gasnet_token_t token, gasnet_handlerarg_t size)
{
    (void)token;
    (void)size;
    pongs++;
}

static void done(gasnet_token_t token)
{
    (void)token;
    done_count++;
}

static void partner_finished(gasnet_token_t token)
{
    (void)token;
    finished = 1;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping }, { H_PONG, pong }, { H_DONE, done }, { H_FINISHED, partner_finished },
    { H_PING + 10, ping_short }, { H_PONG + 10, pong_short },
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void wait_pongs(int target)
{
    while (pongs < target) {
        gasnet_AMPoll();
        if (oversubscribed)
            sched_yield();
    }
}

static void send_one(gasnet_node_t peer, int kind, void *buf)
{
    switch (kind) {
    case 0: gasnet_AMRequestShort0(peer, H_PING + 10); break;
    case 1: gasnet_AMRequestMedium1(peer, H_PING, buf, gasnet_AMMaxMedium(), 1); break;
    case 2: gasnet_AMRequestLong1(peer, H_PING, buf, LONG_SMALL, seg[peer].addr, 2); break;
    default: gasnet_AMRequestLong1(peer, H_PING, buf, LONG_BIG, seg[peer].addr, 2); break;
    }
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over batches of the time of one round trip, in microseconds. */
static double round_trip(gasnet_node_t peer, int kind, void *buf, int iters)
{
    double batch[BATCHES];
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
        int base = pongs;
        double start = now_us();
        for (int i = 0; i < iters; i++) {
            send_one(peer, kind, buf);
            wait_pongs(base + i + 1);
        }
        if (b >= 0)
            batch[b] = (now_us() - start) / iters;
    }
    qsort(batch, BATCHES, sizeof batch[0], compare);
    return batch[BATCHES / 2];
}

/* Median time of one blocking 8-byte put (get), in microseconds. */
static double rma_latency(gasnet_node_t peer, int is_get, int iters)
{
    double batch[BATCHES] = { 0 };
    uint64_t word = 42;
    char *remote = (char *)seg[peer].addr + (256u << 10);
    for (int b = -1; b < BATCHES; b++) {
        double start = now_us();
        for (int i = 0; i < iters; i++) {
            if (is_get)
                gasnet_get(&word, peer, remote, sizeof word);
            else
                gasnet_put(peer, remote, &word, sizeof word);
        }
        if (b >= 0)
            batch[b] = (now_us() - start) / iters;
    }
    qsort(batch, BATCHES, sizeof batch[0], compare);
    return batch[BATCHES / 2];
}

/* MB/s of size-byte implicit puts (gets) into the partner's segment, synced every window. */
static double rma_bandwidth(gasnet_node_t peer, int is_get, size_t size, int iters)
{
    char *local = malloc(size), *remote = (char *)seg[peer].addr;
    memset(local, 1, size);
    double start = now_us();
    for (int i = 0; i < iters; i++) {
        if (is_get)
            gasnet_get_nbi_bulk(local, peer, remote, size);
        else
            gasnet_put_nbi_bulk(peer, remote, local, size);
        if (i % WINDOW == WINDOW - 1)
            gasnet_wait_syncnbi_all();
    }
    gasnet_wait_syncnbi_all();
    double elapsed = now_us() - start;
    free(local);
    return (double)size * iters / elapsed;
}

static double long_bandwidth(gasnet_node_t peer, void *buf, int iters)
{
    int base = pongs;
    double start = now_us();
    for (int i = 0; i < iters; i++) {
        send_one(peer, 3, buf);
        wait_pongs(base + i + 1 - WINDOW);
    }
    wait_pongs(base + iters);
    return (double)LONG_BIG * iters / (now_us() - start); /* bytes/us = MB/s */
}

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK)
        return 1;
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    if (iters <= 0) {
        fprintf(stderr, "gp-demo: iterations must be a positive integer, got '%s'\n", argv[1]);
        gasnet_exit(2);
    }
    if (gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 2u << 20, 0) != GASNET_OK)
        gasnet_exit(1);
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    oversubscribed = nodes > (gasnet_node_t)sysconf(_SC_NPROCESSORS_ONLN);
    seg = calloc(nodes, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)nodes);
    gasnet_node_t half = nodes / 2;
    gasnet_node_t peer = nodes == 1 ? 0 : (me < half ? me + half : me - half);
    int active = nodes == 1 || me < 2 * half; /* an odd last rank sits out */
    int initiator = nodes == 1 || me < half;
    char *buf = (char *)seg[me].addr + (512u << 10);
    memset(buf, 0x5a, LONG_BIG);
    double lat[3] = { 0 }, bw = 0, rma_lat[2] = { 0 }, rma_bw[2][2] = { { 0 } };
    if (active && initiator) {
        for (int kind = 0; kind < 3; kind++)
            lat[kind] = round_trip(peer, kind, buf, iters);
        bw = long_bandwidth(peer, buf, iters);
        for (int is_get = 0; is_get < 2; is_get++) {
            rma_lat[is_get] = rma_latency(peer, is_get, iters);
            rma_bw[is_get][0] = rma_bandwidth(peer, is_get, 4096, iters * 4);
            rma_bw[is_get][1] = rma_bandwidth(peer, is_get, 1u << 20, iters / 10 + WINDOW);
        }
        gasnet_AMRequestShort0(peer, H_FINISHED);
    }
    /* A responder serves its partner's requests until the partner is done. */
    while (active && !initiator && !finished) {
        gasnet_AMPoll();
        if (oversubscribed)
            sched_yield();
    }
    /* Every rank reports to rank 0 when done, and rank 0 prints. */
    gasnet_AMRequestShort0(0, H_DONE);
    if (me == 0) {
        while (done_count < (int)nodes)
            gasnet_AMPoll();
        const char *transport = getenv("GP_TRANSPORT"); /* unset: shm here, tcp to other hosts */
        printf("gp-demo: %u processes over %s, %u pair%s, rank 0 <-> rank %u%s\n", nodes,
               transport && *transport ? transport : "hybrid", nodes == 1 ? 1 : half,
               half > 1 ? "s" : "", peer,
               oversubscribed ? " (more processes than cores: waiters yield)" : "");
        printf("  AM Short round trip (0 args):          %8.3f us\n", lat[0]);
        printf("  AM Medium round trip (%4zu bytes):     %8.3f us\n", gasnet_AMMaxMedium(), lat[1]);
        printf("  AM Long round trip (%u bytes):       %8.3f us\n", LONG_SMALL, lat[2]);
        printf("  AM Long bandwidth (64 KiB, window %d): %8.0f MB/s\n", WINDOW, bw);
        printf("  put 8 bytes, blocking:                 %8.3f us\n", rma_lat[0]);
        printf("  get 8 bytes, blocking:                 %8.3f us\n", rma_lat[1]);
        printf("  put bandwidth 4 KiB / 1 MiB:           %8.0f / %.0f MB/s\n", rma_bw[0][0],
               rma_bw[0][1]);
        printf("  get bandwidth 4 KiB / 1 MiB:           %8.0f / %.0f MB/s\n", rma_bw[1][0],
               rma_bw[1][1]);
        fflush(stdout);
    }
    /* gasnet_exit on any node ends every node: the others wait until rank 0 has printed. */
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
}
