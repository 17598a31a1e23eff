/*
 * Threads that only poll beside threads that send (PAR builds; a SEQ build
 * runs one sender and no poller).  Senders issue Medium and Long requests
 * (packed and unpacked Longs, from private memory) whose arguments and every
 * payload byte are derived from (source, thread, sequence number); the
 * target checks them all, and replies with a Medium, a Long (packed or
 * unpacked, built on the handler's stack, landing in the sender's segment)
 * or a Short that the sender checks the same way.  Pollers call
 * gasnet_AMPoll in a loop, so the AM_EQ and SAFE_EQ have several consumers
 * at once -- while senders block in requests waiting for credits, tickets
 * or chunks, and (run with a small GASNET_PORTAL_AMRECV_SPACE) while ReqRB
 * buffers fill, unlink and are relinked all the time.  Every request must run exactly once with intact
 * data, and every reply come back intact.  With GASNET_RCV_THREAD=1 the
 * transport's receive thread runs handlers too, beside all of these.
 *
 * Usage: am_pollers SENDERS POLLERS REQUESTS_PER_SENDER
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define H_MEDIUM 200
#define H_LONG 201
#define H_REPLY_MEDIUM 202
#define H_REPLY_SHORT 203
#define H_REPLY_LONG 204
#define MAX_SENDERS 8
#define MAX_POLLERS 8
#define WINDOW 8         /* Long landing slots per sender and source */
#define SLOT_BYTES 4096  /* a Long's landing area: unpacked beyond a chunk */
#define MAX_REPLY 97

static gasnet_node_t me, nodes;
static int senders, pollers, per_sender;
static size_t max_medium;
static gasnet_seginfo_t *seginfo;
static gasnet_hsl_t lock = GASNET_HSL_INITIALIZER;
static unsigned char *seen;          /* [source][thread][seq], under lock */
static int received;                 /* under lock */
static int replies[MAX_SENDERS];     /* atomics */
static unsigned char *answered;      /* [thread][seq]: its reply came (atomics) */
static int stop_polling;             /* atomic */

/* A value that changes with every field, so a message read from the wrong
 * place (another request's arguments or payload) cannot pass. */
static uint32_t mix(uint32_t src, uint32_t thread, uint32_t seq, uint32_t salt)
{
    uint32_t h = src * 2654435761u ^ thread * 40503u ^ seq * 2246822519u ^ salt * 3266489917u;
    h ^= h >> 15;
    h *= 2654435761u;
    return h ^ (h >> 13);
}

static unsigned char byte_at(uint32_t key, size_t i)
{
    return (unsigned char)(key + i * 7u + (i >> 8));
}

static void fill(unsigned char *buf, size_t nbytes, uint32_t key)
{
    for (size_t i = 0; i < nbytes; i++)
        buf[i] = byte_at(key, i);
}

/* The first byte that differs from the pattern, or -1. */
static long bad_byte(const unsigned char *buf, size_t nbytes, uint32_t key)
{
    for (size_t i = 0; i < nbytes; i++)
        if (buf[i] != byte_at(key, i))
            return (long)i;
    return -1;
}

static size_t medium_bytes(int seq) { return (size_t)(seq * 37) % (max_medium + 1); }
/* Small ones travel packed in the chunk, large ones as header and data apart. */
static size_t long_bytes(int seq) { return seq % 3 ? (size_t)(seq * 53) % 700 : SLOT_BYTES - (size_t)(seq % 200); }
static size_t reply_bytes(int seq) { return (size_t)(seq * 11) % MAX_REPLY; }
static size_t long_reply_bytes(int seq) { return seq % 5 ? (size_t)(seq * 29) % 800 : SLOT_BYTES - (size_t)(seq % 100); }

/* How request seq is answered: with is_long = seq % 2, every pair comes up. */
enum reply_kind { REPLY_MEDIUM, REPLY_LONG, REPLY_SHORT };
static enum reply_kind reply_kind_of(int seq) { return (enum reply_kind)(seq % 3); }

/* Where a Long from (src, thread) with this seq lands on its target: the
 * sender reuses a slot only once the request that had it is answered. */
static size_t slot_offset(gasnet_node_t src, int thread, int seq)
{
    return (((size_t)src * MAX_SENDERS + (size_t)thread) * WINDOW + (size_t)(seq % WINDOW)) * SLOT_BYTES;
}

/* Where a Long reply from replier to (thread, seq) lands on the sender: the
 * second half of its segment, reused on the same terms. */
static size_t reply_slot_offset(gasnet_node_t replier, int thread, int seq)
{
    return (size_t)nodes * MAX_SENDERS * WINDOW * SLOT_BYTES + slot_offset(replier, thread, seq);
}

static void got_request(gasnet_token_t token, void *buf, size_t nbytes, int is_long,
                        gasnet_handlerarg_t thread, gasnet_handlerarg_t seq, gasnet_handlerarg_t key)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(thread >= 0 && thread < senders && seq >= 0 && seq < per_sender,
          "%s request from node %u: thread %d seq %d", is_long ? "Long" : "Medium", src, thread, seq);
    uint32_t want = mix(src, (uint32_t)thread, (uint32_t)seq, (uint32_t)is_long);
    CHECK((uint32_t)key == want, "%s request %d of thread %d from node %u: key %08x, expected %08x",
          is_long ? "Long" : "Medium", seq, thread, src, (unsigned)key, (unsigned)want);
    size_t want_bytes = is_long ? long_bytes(seq) : medium_bytes(seq);
    CHECK(nbytes == want_bytes, "request %d of thread %d from node %u: %zu bytes, expected %zu", seq,
          thread, src, nbytes, want_bytes);
    if (is_long)
        CHECK(buf == (char *)seginfo[me].addr + slot_offset(src, thread, seq),
              "Long request %d of thread %d from node %u landed at the wrong place", seq, thread, src);
    long bad = bad_byte(buf, nbytes, want);
    CHECK(bad < 0, "%s request %d of thread %d from node %u: byte %ld of %zu is %u, expected %u",
          is_long ? "Long" : "Medium", seq, thread, src, bad, nbytes,
          bad < 0 ? 0u : ((unsigned char *)buf)[bad], bad < 0 ? 0u : byte_at(want, (size_t)bad));
    size_t index = ((size_t)src * (size_t)senders + (size_t)thread) * (size_t)per_sender + (size_t)seq;
    gasnet_hsl_lock(&lock);
    int twice = seen[index]++;
    received++;
    gasnet_hsl_unlock(&lock);
    CHECK(!twice, "request %d of thread %d from node %u ran twice", seq, thread, src);

    /* The reply's payload is built on this call's stack: handlers run on
     * several threads at once, and the payload is gone once the reply returns. */
    uint32_t reply_key = mix(me, (uint32_t)thread, (uint32_t)seq, 7);
    unsigned char payload[SLOT_BYTES];
    int rc;
    switch (reply_kind_of(seq)) {
    case REPLY_SHORT:
        rc = gasnet_AMReplyShort3(token, H_REPLY_SHORT, thread, seq, (gasnet_handlerarg_t)reply_key);
        break;
    case REPLY_LONG:
        fill(payload, long_reply_bytes(seq), reply_key);
        rc = gasnet_AMReplyLong3(token, H_REPLY_LONG, payload, long_reply_bytes(seq),
                                 (char *)seginfo[src].addr + reply_slot_offset(me, thread, seq),
                                 thread, seq, (gasnet_handlerarg_t)reply_key);
        break;
    default:
        fill(payload, reply_bytes(seq), reply_key);
        rc = gasnet_AMReplyMedium3(token, H_REPLY_MEDIUM, payload, reply_bytes(seq), thread, seq,
                                   (gasnet_handlerarg_t)reply_key);
        break;
    }
    CHECK(rc == GASNET_OK, "reply");
}

static void medium_request(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                           gasnet_handlerarg_t seq, gasnet_handlerarg_t key)
{
    got_request(token, buf, nbytes, 0, thread, seq, key);
}

static void long_request(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                         gasnet_handlerarg_t seq, gasnet_handlerarg_t key)
{
    got_request(token, buf, nbytes, 1, thread, seq, key);
}

static const char *const reply_names[] = { "Medium", "Long", "Short" };

static void got_reply(gasnet_token_t token, const void *buf, size_t nbytes, enum reply_kind kind,
                      gasnet_handlerarg_t thread, gasnet_handlerarg_t seq, gasnet_handlerarg_t key)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(thread >= 0 && thread < senders && seq >= 0 && seq < per_sender,
          "reply from node %u: thread %d seq %d", src, thread, seq);
    uint32_t want = mix(src, (uint32_t)thread, (uint32_t)seq, 7);
    CHECK((uint32_t)key == want && kind == reply_kind_of(seq),
          "%s reply to request %d of thread %d from node %u: key %08x, expected %08x and a %s reply",
          reply_names[kind], seq, thread, src, (unsigned)key, (unsigned)want,
          reply_names[reply_kind_of(seq)]);
    if (kind != REPLY_SHORT) {
        size_t want_bytes = kind == REPLY_LONG ? long_reply_bytes(seq) : reply_bytes(seq);
        CHECK(nbytes == want_bytes, "%s reply to request %d of thread %d: %zu bytes, expected %zu",
              reply_names[kind], seq, thread, nbytes, want_bytes);
        if (kind == REPLY_LONG)
            CHECK(buf == (char *)seginfo[me].addr + reply_slot_offset(src, thread, seq),
                  "Long reply to request %d of thread %d from node %u landed at the wrong place",
                  seq, thread, src);
        long bad = bad_byte(buf, nbytes, want);
        CHECK(bad < 0, "%s reply to request %d of thread %d from node %u: byte %ld of %zu is %u, "
              "expected %u", reply_names[kind], seq, thread, src, bad, nbytes,
              bad < 0 ? 0u : ((const unsigned char *)buf)[bad],
              bad < 0 ? 0u : byte_at(want, (size_t)bad));
    }
    __atomic_store_n(&answered[(size_t)thread * (size_t)per_sender + (size_t)seq], 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&replies[thread], 1, __ATOMIC_SEQ_CST);
}

static void medium_reply(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                         gasnet_handlerarg_t seq, gasnet_handlerarg_t key)
{
    got_reply(token, buf, nbytes, REPLY_MEDIUM, thread, seq, key);
}

static void long_reply(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t thread,
                       gasnet_handlerarg_t seq, gasnet_handlerarg_t key)
{
    got_reply(token, buf, nbytes, REPLY_LONG, thread, seq, key);
}

static void short_reply(gasnet_token_t token, gasnet_handlerarg_t thread, gasnet_handlerarg_t seq,
                        gasnet_handlerarg_t key)
{
    got_reply(token, NULL, 0, REPLY_SHORT, thread, seq, key);
}

static gasnet_handlerentry_t table[] = {
    { H_MEDIUM, medium_request },     { H_LONG, long_request },
    { H_REPLY_MEDIUM, medium_reply }, { H_REPLY_SHORT, short_reply },
    { H_REPLY_LONG, long_reply },
    AMTEST_HANDLERS,
};

static gasnet_node_t dest_of(int thread, int seq)
{
    return (gasnet_node_t)((me + (unsigned)thread + (unsigned)seq) % nodes);
}

static void *sender(void *arg)
{
    int thread = (int)(intptr_t)arg;
    unsigned char *payload = malloc(SLOT_BYTES > max_medium ? SLOT_BYTES : max_medium);
    CHECK(payload != NULL, "malloc");
    for (int seq = 0; seq < per_sender; seq++) {
        /* The request that used this Long landing slot last has been answered,
         * so its handler is done with the slot, and so is the reply handler
         * with the slot its Long reply used. */
        if (seq >= WINDOW)
            GASNET_BLOCKUNTIL(__atomic_load_n(&answered[(size_t)thread * (size_t)per_sender +
                                                        (size_t)(seq - WINDOW)], __ATOMIC_SEQ_CST));
        gasnet_node_t dest = dest_of(thread, seq);
        int is_long = seq % 2;
        uint32_t key = mix(me, (uint32_t)thread, (uint32_t)seq, (uint32_t)is_long);
        if (is_long) {
            fill(payload, long_bytes(seq), key);
            void *to = (char *)seginfo[dest].addr + slot_offset(me, thread, seq);
            CHECK(gasnet_AMRequestLong3(dest, H_LONG, payload, long_bytes(seq), to, thread, seq,
                                        (gasnet_handlerarg_t)key) == GASNET_OK, "request");
        } else {
            fill(payload, medium_bytes(seq), key);
            CHECK(gasnet_AMRequestMedium3(dest, H_MEDIUM, payload, medium_bytes(seq), thread, seq,
                                          (gasnet_handlerarg_t)key) == GASNET_OK, "request");
        }
    }
    GASNET_BLOCKUNTIL(__atomic_load_n(&replies[thread], __ATOMIC_SEQ_CST) == per_sender);
    free(payload);
    return NULL;
}

/* Polls, and only polls, until the senders of this node are done. */
static void *poller(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop_polling, __ATOMIC_SEQ_CST))
        gasnet_AMPoll();
    return NULL;
}

static int expected_from(gasnet_node_t src)
{
    int count = 0;
    for (int thread = 0; thread < senders; thread++)
        for (int seq = 0; seq < per_sender; seq++)
            count += (src + (unsigned)thread + (unsigned)seq) % nodes == me;
    return count;
}

int main(int argc, char **argv)
{
    amtest_name = "am_pollers";
    senders = argc > 1 ? atoi(argv[1]) : 2;
    pollers = argc > 2 ? atoi(argv[2]) : 2;
    per_sender = argc > 3 ? atoi(argv[3]) : 2000;
#ifndef GASNET_PAR
    senders = 1;
    pollers = 0;
#endif
    CHECK(senders >= 1 && senders <= MAX_SENDERS && pollers >= 0 && pollers <= MAX_POLLERS &&
          per_sender >= 1, "senders %d pollers %d requests %d", senders, pollers, per_sender);
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    uintptr_t segsize = 2 * (uintptr_t)nodes * MAX_SENDERS * WINDOW * SLOT_BYTES; /* requests, replies */
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), segsize, 0) == GASNET_OK,
          "attach");
    max_medium = gasnet_AMMaxMedium();
    seginfo = calloc(nodes, sizeof *seginfo);
    seen = calloc((size_t)nodes * (size_t)senders * (size_t)per_sender, 1);
    answered = calloc((size_t)senders * (size_t)per_sender, 1);
    CHECK(seginfo != NULL && seen != NULL && answered != NULL, "calloc");
    CHECK(gasnet_getSegmentInfo(seginfo, (int)nodes) == GASNET_OK, "segment info");
    amtest_barrier();
    pthread_t poll_ids[MAX_POLLERS], send_ids[MAX_SENDERS];
    for (int t = 0; t < pollers; t++)
        CHECK(pthread_create(&poll_ids[t], NULL, poller, NULL) == 0, "pthread_create");
    for (int t = 0; t < senders; t++)
        CHECK(pthread_create(&send_ids[t], NULL, sender, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < senders; t++)
        pthread_join(send_ids[t], NULL);
    /* The pollers keep serving requests from nodes whose senders are not done. */
    amtest_barrier(); /* every node has all its replies: every request has run */
    __atomic_store_n(&stop_polling, 1, __ATOMIC_SEQ_CST);
    for (int t = 0; t < pollers; t++)
        pthread_join(poll_ids[t], NULL);
    int expected = 0;
    for (gasnet_node_t src = 0; src < nodes; src++)
        expected += expected_from(src);
    CHECK(received == expected, "received %d requests, expected %d", received, expected);
    if (me == 0)
        printf("am_pollers: %u nodes x %d senders + %d pollers x %d requests, each run exactly once "
               "with intact data\n", nodes, senders, pollers, per_sender);
    fflush(stdout);
    amtest_barrier(); /* node 0 releases the barrier after printing */
    gasnet_exit(0);
}
