/*
 * A rank that loops on calls which complete without waiting must still
 * serve its peers (doc/progress.md).  Node 0 spins until every peer's
 * requests have been answered, in one of these loops:
 *
 *   am    a Medium round trip to itself: the request's handler replies with
 *         a lock word, the reply handler sets a flag, GASNET_BLOCKUNTIL waits
 *         for it -- which finds it set, as the loopback handlers ran inside
 *         the request (the OpenSHMEM lock test's shape);
 *   rma   a blocking put and a get of its own segment (plain copies);
 *   sync  a non-blocking get and put of its own segment (plain copies, so
 *         done at once) with their syncs, and a try of the implicit syncs.
 *
 * Every other node sends node 0 REQUESTS Short requests, one at a time,
 * and times each until its reply.  It passes when the median answer takes
 * at most BOUND_MS and none more than 2 s; node 0 gives up spinning after
 * 30 s (then its barrier serves the peers, whose times say what happened),
 * so a library that does not poll in these calls fails instead of hanging.
 *
 * Usage: self_spin am|rma|sync REQUESTS BOUND_MS
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amtest.h"

#define H_READ_WORD 200
#define H_WORD_VALUE 201
#define H_ASK 202
#define H_ANSWER 203
#define SPIN_LIMIT_NS (30 * 1000000000LL)
#define WORST_LIMIT_NS (2 * 1000000000LL)

static volatile uint64_t lock_word;       /* node 0's: what its own round trips read */
static volatile int word_read;            /* node 0: the reply to itself arrived */
static volatile uint64_t word_value;
static volatile int asks_served;          /* node 0: peers' requests handled */
static volatile int answers;              /* peers: replies received */

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void read_word(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)buf;
    (void)nbytes;
    uint64_t value = lock_word;
    gasnet_AMReplyMedium0(token, H_WORD_VALUE, &value, sizeof value);
}

static void word_arrived(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)token;
    uint64_t value;
    memcpy(&value, buf, nbytes < sizeof value ? nbytes : sizeof value);
    word_value = value;
    word_read = 1;
}

static void ask(gasnet_token_t token, gasnet_handlerarg_t seq)
{
    __atomic_fetch_add(&asks_served, 1, __ATOMIC_SEQ_CST);
    lock_word++;
    gasnet_AMReplyShort1(token, H_ANSWER, seq);
}

static void answer(gasnet_token_t token, gasnet_handlerarg_t seq)
{
    (void)token;
    __atomic_store_n(&answers, seq + 1, __ATOMIC_SEQ_CST);
}

/* One turn of node 0's loop; none of them should need to wait. */
static void spin_once(const char *mode, uint64_t *segment)
{
    static uint64_t scratch;
    if (strcmp(mode, "am") == 0) {
        word_read = 0;
        uint64_t probe = 0;
        CHECK(gasnet_AMRequestMedium0(0, H_READ_WORD, &probe, sizeof probe) == GASNET_OK,
              "loopback request");
        GASNET_BLOCKUNTIL(word_read);
    } else if (strcmp(mode, "rma") == 0) {
        scratch++;
        gasnet_put(0, segment, &scratch, sizeof scratch);
        gasnet_get(&scratch, 0, segment, sizeof scratch);
    } else {
        /* The library's explicit-handle forms, which the inline copies do not replace. */
        gasnet_wait_syncnb(gasnet_get_nb(&scratch, 0, segment, sizeof scratch));
        gasnet_handle_t put = gasnet_put_nb(0, segment + 1, &scratch, sizeof scratch);
        while (gasnet_try_syncnb(put) != GASNET_OK)
            ;
        while (gasnet_try_syncnbi_all() != GASNET_OK)
            ;
    }
}

static int compare_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    amtest_name = "self_spin";
    gasnet_handlerentry_t handlers[] = {
        { H_READ_WORD, read_word },
        { H_WORD_VALUE, word_arrived },
        { H_ASK, ask },
        { H_ANSWER, answer },
    };
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 4, "usage: self_spin am|rma|sync REQUESTS BOUND_MS");
    const char *mode = argv[1];
    int requests = atoi(argv[2]);
    long long bound_ns = atoll(argv[3]) * 1000000LL;
    CHECK(strcmp(mode, "am") == 0 || strcmp(mode, "rma") == 0 || strcmp(mode, "sync") == 0,
          "mode %s is not am, rma or sync", mode);
    CHECK(requests > 0 && bound_ns > 0, "REQUESTS and BOUND_MS must be positive");
    CHECK(gasnet_attach(handlers, sizeof handlers / sizeof handlers[0], 1 << 16, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    CHECK(nodes >= 2, "needs 2 nodes or more");
    gasnet_seginfo_t seginfo[nodes];
    CHECK(gasnet_getSegmentInfo(seginfo, (int)nodes) == GASNET_OK, "segment info");
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);

    int expected = (int)(nodes - 1) * requests;
    long long median = 0, worst = 0;
    if (me == 0) {
        long long started = now_ns();
        unsigned long long turns = 0;
        while (__atomic_load_n(&asks_served, __ATOMIC_SEQ_CST) < expected) {
            spin_once(mode, seginfo[0].addr);
            if (++turns % 1024 == 0 && now_ns() - started > SPIN_LIMIT_NS)
                break;
        }
        CHECK(asks_served >= expected,
              "node 0 looped on '%s' calls for 30 s and served only %d of its peers' %d "
              "requests", mode, asks_served, expected);
        CHECK(strcmp(mode, "am") != 0 || word_value == lock_word,
              "the loopback round trip read %llu, the word is %llu",
              (unsigned long long)word_value, (unsigned long long)lock_word);
    } else {
        long long *took = malloc((size_t)requests * sizeof *took);
        CHECK(took != NULL, "out of memory");
        for (int seq = 0; seq < requests; seq++) {
            long long sent = now_ns();
            CHECK(gasnet_AMRequestShort1(0, H_ASK, seq) == GASNET_OK, "request to node 0");
            GASNET_BLOCKUNTIL(answers == seq + 1);
            took[seq] = now_ns() - sent;
        }
        qsort(took, (size_t)requests, sizeof *took, compare_ll);
        median = took[requests / 2];
        worst = took[requests - 1];
        free(took);
        printf("self_spin: node %u, node 0 looping on '%s': median answer %.1f us, worst %.1f us\n",
               me, mode, median / 1e3, worst / 1e3);
        fflush(stdout);
        CHECK(median <= bound_ns, "the median answer from node 0 took %.3f ms (bound %lld ms)",
              median / 1e6, bound_ns / 1000000LL);
        CHECK(worst <= WORST_LIMIT_NS, "an answer from node 0 took %.3f ms (bound 2000 ms)",
              worst / 1e6);
    }
    /* Said before the barrier: a peer's gasnet_exit after it may end this process first. */
    if (me == 0)
        printf("self_spin: %u nodes, '%s': node 0 answered %d requests while looping\n", nodes,
               mode, expected);
    fflush(stdout);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
    return 0;
}
