/*
 * GASNET_RCV_THREAD=1 (tcp or ibv, PAR build): a node that never calls into
 * the library still serves its peers, AM handlers included.  Node 1 spins
 * without any GASNet call (it says so in a word of its segment, which node
 * 0 reads before anything else); node 0 reads a word of node 1's segment
 * with a get, writes it with a blocking put (both need node 1's side of the
 * transport to answer) and reads it back, then sends node 1 AM requests of
 * every category -- Short, Medium, a packed and an unpacked Long -- and
 * waits for their replies of the same category, payloads checked byte by
 * byte at both ends; then a burst of Shorts, more than one poll takes
 * (GASNET_PORTAL_AM_LIMIT, which rcv_thread.sh sets to 1), which the thread
 * must drain without a further wake-up: node 0 sends nothing more.  Node 1's handlers can only run on its receive thread:
 * each records whether it ran on a thread other than main's, and node 1
 * stops spinning once all of them have run, checking that none ran on
 * main's.  Without the receive thread, or with one that stops at the
 * transport, node 1 would spin until the test's time limit.
 *
 * Usage: rcv_thread     (2 nodes, GASNET_RCV_THREAD=1, PAR build)
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "amtest.h"

#define H_SHORT 200
#define H_MEDIUM 201
#define H_LONG 202
#define H_SHORT_REPLY 203
#define H_MEDIUM_REPLY 204
#define H_LONG_REPLY 205
#define SPIN_LIMIT_S 60
#define BURST 24                   /* Shorts sent back to back after those four */
#define REQUESTS (4 + BURST)       /* Short, Medium, packed Long, unpacked Long, the burst */
#define SMALL_LONG 300             /* travels in the chunk with its header */
#define BIG_LONG (24u << 10)       /* header and data apart */
#define FLAG_OFFSET 0
#define COMPUTING_OFFSET 8         /* node 1 sets it once it has made its last GASNet call */
#define REQUEST_OFFSET 4096        /* where node 0's Longs land on node 1 */
#define REPLY_OFFSET (64u << 10)   /* where node 1's Long replies land on node 0 */
#define SEGMENT (128u << 10)
#define BARRIER()                                                   \
    do {                                                            \
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);     \
        gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);       \
    } while (0)

static gasnet_seginfo_t seg[2];
static pthread_t main_thread;
static int handled;            /* node 1: request handlers run (atomic) */
static int handled_on_main;    /* node 1: of those, on the main thread (atomic) */
static int replies;            /* node 0: replies checked (atomic) */

static unsigned char byte_at(int request, size_t i, int reply)
{
    return (unsigned char)(request * 61 + i * 7 + (i >> 8) + (unsigned)reply * 113);
}

static void fill(unsigned char *buf, size_t nbytes, int request, int reply)
{
    for (size_t i = 0; i < nbytes; i++)
        buf[i] = byte_at(request, i, reply);
}

static void check_bytes(const void *buf, size_t nbytes, int request, int reply)
{
    const unsigned char *bytes = buf;
    for (size_t i = 0; i < nbytes; i++)
        CHECK(bytes[i] == byte_at(request, i, reply), "%s %d: byte %zu of %zu is %u, expected %u",
              reply ? "reply to request" : "request", request, i, nbytes, bytes[i],
              byte_at(request, i, reply));
}

static size_t long_bytes(int request)
{
    return request == 2 ? SMALL_LONG : BIG_LONG;
}

static void note_handler(void)
{
    if (pthread_equal(pthread_self(), main_thread))
        __atomic_fetch_add(&handled_on_main, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&handled, 1, __ATOMIC_SEQ_CST);
}

static void short_request(gasnet_token_t token, gasnet_handlerarg_t request)
{
    CHECK(request == 0 || (request >= 4 && request < REQUESTS), "Short request %d", request);
    note_handler();
    CHECK(gasnet_AMReplyShort1(token, H_SHORT_REPLY, request) == GASNET_OK, "Short reply");
}

static void medium_request(gasnet_token_t token, void *buf, size_t nbytes,
                           gasnet_handlerarg_t request)
{
    CHECK(request == 1 && nbytes == gasnet_AMMaxMedium(), "Medium request %d, %zu bytes",
          request, nbytes);
    check_bytes(buf, nbytes, request, 0);
    note_handler();
    unsigned char payload[1024]; /* this call's own: handlers may run on several threads at once */
    fill(payload, nbytes, request, 1);
    CHECK(gasnet_AMReplyMedium1(token, H_MEDIUM_REPLY, payload, nbytes, request) == GASNET_OK,
          "Medium reply");
}

static void long_request(gasnet_token_t token, void *buf, size_t nbytes,
                         gasnet_handlerarg_t request)
{
    CHECK((request == 2 || request == 3) && nbytes == long_bytes(request),
          "Long request %d, %zu bytes", request, nbytes);
    CHECK(buf == (char *)seg[1].addr + REQUEST_OFFSET + (request - 2) * BIG_LONG,
          "Long request %d landed at the wrong place", request);
    check_bytes(buf, nbytes, request, 0);
    note_handler();
    static _Thread_local unsigned char payload[BIG_LONG]; /* this thread's own */
    fill(payload, nbytes, request, 1);
    char *to = (char *)seg[0].addr + REPLY_OFFSET + (request - 2) * BIG_LONG;
    CHECK(gasnet_AMReplyLong1(token, H_LONG_REPLY, payload, nbytes, to, request) == GASNET_OK,
          "Long reply");
}

static void short_reply(gasnet_token_t token, gasnet_handlerarg_t request)
{
    (void)token;
    CHECK(request == 0 || (request >= 4 && request < REQUESTS), "Short reply to request %d",
          request);
    __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);
}

static void medium_reply(gasnet_token_t token, void *buf, size_t nbytes,
                         gasnet_handlerarg_t request)
{
    (void)token;
    CHECK(request == 1 && nbytes == gasnet_AMMaxMedium(), "Medium reply to request %d, %zu bytes",
          request, nbytes);
    check_bytes(buf, nbytes, request, 1);
    __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);
}

static void long_reply(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t request)
{
    (void)token;
    CHECK((request == 2 || request == 3) && nbytes == long_bytes(request),
          "Long reply to request %d, %zu bytes", request, nbytes);
    CHECK(buf == (char *)seg[0].addr + REPLY_OFFSET + (request - 2) * BIG_LONG,
          "Long reply to request %d landed at the wrong place", request);
    check_bytes(buf, nbytes, request, 1);
    __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Node 1: no GASNet call until node 0's put has landed and every request has run. */
static void compute(void)
{
    volatile uint64_t *flag = (volatile uint64_t *)((char *)seg[1].addr + FLAG_OFFSET);
    __atomic_store_n((uint64_t *)((char *)seg[1].addr + COMPUTING_OFFSET), 1, __ATOMIC_SEQ_CST);
    double deadline = now_s() + SPIN_LIMIT_S;
    while ((*flag != 42 || __atomic_load_n(&handled, __ATOMIC_SEQ_CST) < REQUESTS) &&
           now_s() < deadline)
        ;
    CHECK(*flag == 42, "node 1: the put never arrived while it computed (flag %llu)",
          (unsigned long long)*flag);
    int ran = __atomic_load_n(&handled, __ATOMIC_SEQ_CST);
    CHECK(ran == REQUESTS, "node 1: %d of %d AM requests ran while it computed", ran, REQUESTS);
    int on_main = __atomic_load_n(&handled_on_main, __ATOMIC_SEQ_CST);
    CHECK(on_main == 0, "node 1: %d handlers ran on the main thread, which never polled", on_main);
}

/* Node 0: once node 1 computes, RMA, then one request of each kind, then their replies. */
static void drive(void)
{
    uint64_t value = 42, back = 0, computing = 0;
    /* Node 1 may still be polling in the barrier: its handlers must not run there. */
    double deadline = now_s() + SPIN_LIMIT_S;
    while (computing != 1 && now_s() < deadline)
        gasnet_get(&computing, 1, (char *)seg[1].addr + COMPUTING_OFFSET, sizeof computing);
    CHECK(computing == 1, "node 1 never started computing");
    char *flag = (char *)seg[1].addr + FLAG_OFFSET;
    gasnet_get(&back, 1, flag, sizeof back);
    CHECK(back == 0, "get before the put read %llu", (unsigned long long)back);
    gasnet_put(1, flag, &value, sizeof value);
    gasnet_get(&back, 1, flag, sizeof back);
    CHECK(back == 42, "get after the put read %llu", (unsigned long long)back);

    static unsigned char payload[BIG_LONG];
    CHECK(gasnet_AMRequestShort1(1, H_SHORT, 0) == GASNET_OK, "Short request");
    fill(payload, gasnet_AMMaxMedium(), 1, 0);
    CHECK(gasnet_AMRequestMedium1(1, H_MEDIUM, payload, gasnet_AMMaxMedium(), 1) == GASNET_OK,
          "Medium request");
    for (int request = 2; request <= 3; request++) {
        fill(payload, long_bytes(request), request, 0);
        char *to = (char *)seg[1].addr + REQUEST_OFFSET + (request - 2) * BIG_LONG;
        CHECK(gasnet_AMRequestLong1(1, H_LONG, payload, long_bytes(request), to, request) ==
              GASNET_OK, "Long request");
    }
    for (int request = 4; request < REQUESTS; request++)
        CHECK(gasnet_AMRequestShort1(1, H_SHORT, request) == GASNET_OK, "Short request");
    GASNET_BLOCKUNTIL(__atomic_load_n(&replies, __ATOMIC_SEQ_CST) == REQUESTS);
    printf("rcv_thread: node 1 served a get, a put and %d AM requests (Short, Medium, Long, a "
           "burst of Shorts) on its receive thread while it computed\n", REQUESTS);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    amtest_name = "rcv_thread";
    main_thread = pthread_self();
    gasnet_handlerentry_t handlers[] = {
        { H_SHORT, short_request },       { H_MEDIUM, medium_request },
        { H_LONG, long_request },         { H_SHORT_REPLY, short_reply },
        { H_MEDIUM_REPLY, medium_reply }, { H_LONG_REPLY, long_reply },
    };
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(handlers, 6, SEGMENT, 0) == GASNET_OK, "attach");
    CHECK(gasnet_nodes() == 2, "needs 2 nodes");
    CHECK(gasnet_getSegmentInfo(seg, 2) == GASNET_OK, "segment info");
    BARRIER();
    if (gasnet_mynode() == 1)
        compute();
    else
        drive();
    BARRIER();
    gasnet_exit(0);
    return 0;
}
