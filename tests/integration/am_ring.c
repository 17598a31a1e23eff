/*
 * Every node floods every other node at once with requests whose handlers
 * reply (GP_SHM_AM_RING's rings on shm: both directions of every pair full
 * at the same time must not deadlock), every category: Shorts of 0-16
 * arguments, Mediums of 0 bytes up to gasnet_AMMaxMedium() (the ring's
 * inline limit, so every Medium travels inline), Longs of 1 byte to 8 KiB
 * copied straight into the target's segment; replies the same.  Every byte
 * and argument is checked and every request and reply counted.  Node 0
 * stays away from the network for QUIET seconds first, so the rings to it
 * fill and the senders wait for slots while serving each other.  In PAR
 * builds THREADS threads per node send at once (to the same peers).
 *
 * Usage: am_ring COUNT THREADS QUIET
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "amtest.h"

#define H_SHORT 200
#define H_MEDIUM 201
#define H_LONG 202
#define H_REPLY_SHORT 203
#define H_REPLY_MEDIUM 204
#define H_REPLY_LONG 205
#define MAX_THREADS 4
#define WINDOW 24            /* requests a thread has unanswered per peer (> the ring's 16 slots) */
#define AREAS (2 * WINDOW)   /* Long areas per (node, thread) */
#define AREA 8192            /* bytes of one Long's area */

static gasnet_node_t me, nodes;
static int threads, count;
static char *segment;        /* ours; everyone's is at the same offsets */
static gasnet_seginfo_t *seginfo;
static volatile int requests_in;
static volatile int replies_in[MAX_THREADS];
static volatile int replies_from[MAX_THREADS][256];
static volatile int done_ok[MAX_THREADS];

static unsigned char pattern(unsigned src, unsigned thread, unsigned seq, size_t i)
{
    return (unsigned char)(src * 7u + thread * 13u + seq * 3u + i);
}

static size_t medium_size(unsigned seq)
{
    static const size_t sizes[] = { 0, 1, 63, 64, 500, 959, 960 };
    return sizes[(seq / 4) % (sizeof sizes / sizeof sizes[0])];
}

static size_t long_size(unsigned seq)
{
    static const size_t sizes[] = { 1, 960, 961, 4096, AREA };
    return sizes[(seq / 4) % (sizeof sizes / sizeof sizes[0])];
}

/* Where a Long from node src (a requester, or a replier) for request seq of thread lands:
 * requests in the first half of the target's segment, replies in the second. */
static size_t area_offset(unsigned src, unsigned thread, unsigned seq, int reply)
{
    size_t per_half = (size_t)nodes * MAX_THREADS * AREAS * AREA;
    return (size_t)reply * per_half +
           (((size_t)src * MAX_THREADS + thread) * AREAS + seq % AREAS) * AREA;
}

static void check_bytes(const void *buf, size_t nbytes, unsigned src, unsigned thread,
                        unsigned seq, const char *what)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < nbytes; i++)
        CHECK(b[i] == pattern(src, thread, seq, i), "%s from node %u thread %u seq %u: byte %zu "
              "is %u, expected %u", what, src, thread, seq, i, b[i], pattern(src, thread, seq, i));
}

static gasnet_node_t source_of(gasnet_token_t token)
{
    gasnet_node_t src;
    CHECK(gasnet_AMGetMsgSource(token, &src) == GASNET_OK, "source");
    return src;
}

/* The reply to request seq of (me's peer src, thread): its category by seq. */
static void reply_to(gasnet_token_t token, unsigned src, unsigned thread, unsigned seq)
{
    switch (seq % 3) {
    case 0:
        CHECK(gasnet_AMReplyShort3(token, H_REPLY_SHORT, thread, seq, (int)(me ^ seq)) ==
              GASNET_OK, "reply short");
        break;
    case 1: {
        /* a buffer per handler call: handlers of a PAR node may run at once */
        char buf[960];
        size_t n = medium_size(seq + 1);
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)pattern(me, thread, seq, i);
        CHECK(gasnet_AMReplyMedium2(token, H_REPLY_MEDIUM, buf, n, thread, seq) == GASNET_OK,
              "reply medium");
        break;
    }
    default: {
        size_t n = long_size(seq + 1);
        char buf[AREA];
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)pattern(me, thread, seq, i);
        char *dest = (char *)seginfo[src].addr + area_offset(me, thread, seq, 1);
        CHECK(gasnet_AMReplyLong2(token, H_REPLY_LONG, buf, n, dest, thread, seq) == GASNET_OK,
              "reply long");
        break;
    }
    }
}

static void arrived(void)
{
    __atomic_fetch_add(&requests_in, 1, __ATOMIC_SEQ_CST);
}

/* args: thread, seq, then 0-14 more, each checked */
static void short_request(gasnet_token_t token, gasnet_handlerarg_t thread, gasnet_handlerarg_t seq,
                          gasnet_handlerarg_t a2, gasnet_handlerarg_t a3, gasnet_handlerarg_t a4,
                          gasnet_handlerarg_t a5, gasnet_handlerarg_t a6, gasnet_handlerarg_t a7,
                          gasnet_handlerarg_t a8, gasnet_handlerarg_t a9, gasnet_handlerarg_t a10,
                          gasnet_handlerarg_t a11, gasnet_handlerarg_t a12, gasnet_handlerarg_t a13,
                          gasnet_handlerarg_t a14, gasnet_handlerarg_t a15)
{
    gasnet_node_t src = source_of(token);
    gasnet_handlerarg_t more[14] = { a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 };
    for (int i = 0; i < 14; i++)
        CHECK(more[i] == (int)pattern(src, (unsigned)thread, (unsigned)seq, (size_t)i) * 1000 + i,
              "short from node %u: argument %d is %d", src, i + 2, more[i]);
    arrived();
    reply_to(token, src, (unsigned)thread, (unsigned)seq);
}

static void medium_request(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                           gasnet_handlerarg_t seq)
{
    gasnet_node_t src = source_of(token);
    CHECK(nbytes == medium_size((unsigned)seq), "medium of %zu bytes, expected %zu", nbytes,
          medium_size((unsigned)seq));
    check_bytes(buf, nbytes, src, (unsigned)thread, (unsigned)seq, "medium request");
    arrived();
    reply_to(token, src, (unsigned)thread, (unsigned)seq);
}

static void long_request(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                         gasnet_handlerarg_t seq)
{
    gasnet_node_t src = source_of(token);
    CHECK(nbytes == long_size((unsigned)seq), "long of %zu bytes", nbytes);
    CHECK(buf == segment + area_offset(src, (unsigned)thread, (unsigned)seq, 0), "long lands at %p",
          buf);
    check_bytes(buf, nbytes, src, (unsigned)thread, (unsigned)seq, "long request");
    arrived();
    reply_to(token, src, (unsigned)thread, (unsigned)seq);
}

static void reply_arrived(gasnet_node_t src, gasnet_handlerarg_t thread)
{
    __atomic_fetch_add(&replies_from[thread][src], 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&replies_in[thread], 1, __ATOMIC_SEQ_CST);
}

static void short_reply(gasnet_token_t token, gasnet_handlerarg_t thread, gasnet_handlerarg_t seq,
                        gasnet_handlerarg_t check)
{
    gasnet_node_t src = source_of(token);
    CHECK(check == (int)(src ^ (unsigned)seq), "short reply from node %u: %d", src, check);
    reply_arrived(src, thread);
}

static void medium_reply(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                         gasnet_handlerarg_t seq)
{
    gasnet_node_t src = source_of(token);
    CHECK(nbytes == medium_size((unsigned)seq + 1), "medium reply of %zu bytes", nbytes);
    check_bytes(buf, nbytes, src, (unsigned)thread, (unsigned)seq, "medium reply");
    reply_arrived(src, thread);
}

static void long_reply(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                       gasnet_handlerarg_t seq)
{
    gasnet_node_t src = source_of(token);
    CHECK(nbytes == long_size((unsigned)seq + 1), "long reply of %zu bytes", nbytes);
    CHECK(buf == segment + area_offset(src, (unsigned)thread, (unsigned)seq, 1), "long reply at %p", buf);
    check_bytes(buf, nbytes, src, (unsigned)thread, (unsigned)seq, "long reply");
    reply_arrived(src, thread);
}

static gasnet_handlerentry_t table[] = {
    { H_SHORT, short_request }, { H_MEDIUM, medium_request },
    { H_LONG, long_request }, { H_REPLY_SHORT, short_reply },
    { H_REPLY_MEDIUM, medium_reply }, { H_REPLY_LONG, long_reply },
    AMTEST_HANDLERS,
};

static void send_one(gasnet_node_t dest, unsigned thread, unsigned seq)
{
    int t = (int)thread, s = (int)seq;
    char buf[AREA];
    switch (seq % 3) {
    case 0: {
        int a[14];
        for (int i = 0; i < 14; i++)
            a[i] = (int)pattern(me, thread, seq, (size_t)i) * 1000 + i;
        CHECK(gasnet_AMRequestShort16(dest, H_SHORT, t, s, a[0], a[1], a[2], a[3], a[4], a[5],
                                      a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13]) ==
              GASNET_OK, "request short");
        break;
    }
    case 1: {
        size_t n = medium_size(seq);
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)pattern(me, thread, seq, i);
        CHECK(gasnet_AMRequestMedium2(dest, H_MEDIUM, buf, n, t, s) == GASNET_OK, "request medium");
        break;
    }
    default: {
        size_t n = long_size(seq);
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)pattern(me, thread, seq, i);
        char *to = (char *)seginfo[dest].addr + area_offset(me, thread, seq, 0);
        CHECK(gasnet_AMRequestLong2(dest, H_LONG, buf, n, to, t, s) == GASNET_OK, "request long");
        break;
    }
    }
}

static void *sender(void *arg)
{
    unsigned thread = (unsigned)(intptr_t)arg;
    int peers = (int)nodes - 1;
    for (int seq = 0; seq < count; seq++) {
        for (gasnet_node_t k = 1; k < nodes; k++) {
            gasnet_node_t dest = (gasnet_node_t)((me + k) % nodes);
            /* at most WINDOW unanswered per peer: the Long areas are reused after AREAS */
            GASNET_BLOCKUNTIL(__atomic_load_n(&replies_from[thread][dest], __ATOMIC_SEQ_CST) >=
                              seq - WINDOW + 1);
            send_one(dest, thread, (unsigned)seq);
        }
    }
    GASNET_BLOCKUNTIL(__atomic_load_n(&replies_in[thread], __ATOMIC_SEQ_CST) == count * peers);
    done_ok[thread] = 1;
    return NULL;
}

int main(int argc, char **argv)
{
    amtest_name = "am_ring";
    count = argc > 1 ? atoi(argv[1]) : 300;
    threads = argc > 2 ? atoi(argv[2]) : 1;
    int quiet = argc > 3 ? atoi(argv[3]) : 0;
#ifndef GASNET_PAR
    threads = 1;
#endif
    CHECK(threads >= 1 && threads <= MAX_THREADS, "threads %d", threads);
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    CHECK(nodes <= 256, "at most 256 nodes");
    uintptr_t segsize = 2 * (uintptr_t)nodes * MAX_THREADS * AREAS * AREA;
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), segsize, 0) == GASNET_OK,
          "attach");
    seginfo = calloc(nodes, sizeof *seginfo);
    CHECK(gasnet_getSegmentInfo(seginfo, (int)nodes) == GASNET_OK, "segment info");
    segment = seginfo[me].addr;
    amtest_barrier();
    if (me == 0 && quiet > 0)
        sleep((unsigned)quiet); /* the rings to node 0 fill meanwhile */
    pthread_t ids[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        CHECK(pthread_create(&ids[t], NULL, sender, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < threads; t++)
        pthread_join(ids[t], NULL);
    for (int t = 0; t < threads; t++)
        CHECK(done_ok[t] && replies_in[t] == count * ((int)nodes - 1), "thread %d: %d replies", t,
              replies_in[t]);
    amtest_barrier(); /* every node has all its replies: every request has run */
    CHECK(requests_in == count * threads * ((int)nodes - 1), "%d requests arrived, expected %d",
          requests_in, count * threads * ((int)nodes - 1));
    if (me == 0)
        printf("am_ring: %u nodes x %d threads x %d requests to each peer, every reply back, "
               "every byte checked\n", nodes, threads, count);
    fflush(stdout);
    amtest_barrier(); /* node 0 releases the barrier after printing */
    gasnet_exit(0);
}
