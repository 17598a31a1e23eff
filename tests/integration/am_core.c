/*
 * The core API end to end, with real processes under gp-run: every AM
 * category and every argument count 0..16, requests to every node
 * including self, each answered by a reply of the same kind; handlers check
 * every argument and every payload byte.  Long payloads go small (packed
 * with the header) and large (header and data apart, joined by the LID
 * cache in both orders), from inside and outside the segment.  Misuse
 * returns the spec's errors.  Public API only.
 *
 * Usage: am_core [ROUNDS]
 */
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define SLOT (64u << 10)       /* one (source, M) Long destination */
#define BIG_LONG (40u << 10)   /* larger than a chunk: header and data travel apart */
#define STAGING (1u << 20)     /* in-segment sources, after the slots: requests, replies */
#define REPLY_SLOTS 8          /* threads that may run request handlers: each builds its
                                  replies in its own slot, in the segment and in private memory */
#define REPLY_SLOT (STAGING / 2 / REPLY_SLOTS)
/* Fits a chunk with its header; 20 and 40 bytes (M = 1, 2) ride in a ring slot's second line. */
#define SMALL_LONG(m) ((m) == 0 ? 0 : (m) <= 2 ? (size_t)(m) * 20 : (size_t)((m) * 41) % 900)
#define BIG_LONG_SIZE(m) (BIG_LONG + (size_t)(m) * 1001)
_Static_assert(BIG_LONG + 16 * 1001 <= REPLY_SLOT, "a reply slot holds the largest Long");

enum { H_SHORT_REQ = 130, H_SHORT_REP = 147, H_MEDIUM_REQ = 164, H_MEDIUM_REP = 181,
       H_LONG_REQ = 198, H_LONG_REP = 215, H_MISUSE = 240, H_MISUSE_REPLY = 241 };

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
static volatile int replies_seen, requests_seen;
static int long_mode; /* 0: small Longs (packed), 1: large (unpacked) */
static unsigned char *private_source, *reply_private; /* reply_private: REPLY_SLOTS slots */
static int reply_slots_taken;                          /* atomic */
static _Thread_local int reply_slot = -1;              /* this thread's, once it has one */

static gasnet_handlerarg_t arg_value(gasnet_node_t src, int m, int i, int reply)
{
    /* Negative values too: arguments are signed 32-bit. */
    return (gasnet_handlerarg_t)((0x9e3779b9u * (uint32_t)(src + 1)) ^ (uint32_t)(m << 8) ^
                                 (uint32_t)i ^ (reply ? 0x80000000u : 0u));
}

static unsigned char byte_value(gasnet_node_t src, int m, size_t i, int reply)
{
    return (unsigned char)(src * 29 + (unsigned)m * 7 + i * 13 + (i >> 9) + (unsigned)reply * 101);
}

static size_t medium_size(int m)
{
    return m == 16 ? gasnet_AMMaxMedium() : (size_t)(m * 57) % (gasnet_AMMaxMedium() + 1);
}

/* The size this node sends; a receiver accepts either mode, since a fast
 * sender may start the next phase while the receiver is still in a barrier. */
static size_t long_size(int m)
{
    return long_mode == 0 ? SMALL_LONG(m) : BIG_LONG_SIZE(m);
}

static int long_size_ok(int m, size_t nbytes)
{
    return nbytes == SMALL_LONG(m) || nbytes == BIG_LONG_SIZE(m);
}

/* Where src's Long with M args lands in owner's segment; replies in the second half. */
static char *long_slot(gasnet_node_t owner, gasnet_node_t src, int m, int reply)
{
    uintptr_t index = (uintptr_t)src * 17 + (uintptr_t)m + (reply ? (uintptr_t)nodes * 17 : 0);
    return (char *)seg[owner].addr + index * SLOT;
}

/* The in-segment source of requests (only the main thread sends them). */
static unsigned char *staging(void)
{
    return (unsigned char *)seg[me].addr + (uintptr_t)nodes * 34 * SLOT;
}

/*
 * Where a request handler builds its reply's payload: in this thread's own
 * slot, in the segment or in private memory.  Handlers run on any thread
 * that polls -- the main thread inside a blocking call or GASNET_BLOCKUNTIL,
 * and a receive thread (GASNET_RCV_THREAD=1) at the same time -- so one
 * buffer for the whole process would let one reply carry another's bytes.
 * A thread runs one handler at a time (handlers may not poll), so a slot
 * per thread is enough.
 */
static unsigned char *reply_source(int in_segment)
{
    if (reply_slot < 0)
        reply_slot = __atomic_fetch_add(&reply_slots_taken, 1, __ATOMIC_SEQ_CST);
    CHECK(reply_slot < REPLY_SLOTS, "more than %d threads ran request handlers", REPLY_SLOTS);
    if (in_segment)
        return staging() + STAGING / 2 + (uintptr_t)reply_slot * REPLY_SLOT;
    return reply_private + (uintptr_t)reply_slot * REPLY_SLOT;
}

static gasnet_node_t check_args(gasnet_token_t token, int m, const gasnet_handlerarg_t *args,
                                int reply)
{
    gasnet_node_t src;
    CHECK(gasnet_AMGetMsgSource(token, &src) == GASNET_OK, "AMGetMsgSource");
    CHECK(src < nodes, "source %u", src);
    gasnet_node_t sender_of_args = reply ? me : src;
    for (int i = 0; i < m; i++)
        CHECK(args[i] == arg_value(sender_of_args, m, i, reply),
              "M=%d arg %d from node %u is %d, expected %d", m, i, src, args[i],
              arg_value(sender_of_args, m, i, reply));
    return src;
}

static void check_bytes(const void *buf, size_t nbytes, gasnet_node_t src, int m, int reply)
{
    const unsigned char *bytes = buf;
    for (size_t i = 0; i < nbytes; i++)
        CHECK(bytes[i] == byte_value(src, m, i, reply), "M=%d byte %zu of %zu (node %u)", m, i,
              nbytes, src);
}

static void reply_args(gasnet_node_t src, int m, gasnet_handlerarg_t *r)
{
    for (int i = 0; i < m; i++)
        r[i] = arg_value(src, m, i, 1);
}

static void on_short_req(gasnet_token_t token, int m, const gasnet_handlerarg_t *args,
                         gasnet_handlerarg_t *r)
{
    reply_args(check_args(token, m, args, 0), m, r);
    __atomic_fetch_add(&requests_seen, 1, __ATOMIC_SEQ_CST);
}

static void on_reply(gasnet_token_t token, int m, const gasnet_handlerarg_t *args)
{
    check_args(token, m, args, 1);
    __atomic_fetch_add(&replies_seen, 1, __ATOMIC_SEQ_CST);
}

static void *on_medium_req(gasnet_token_t token, void *buf, size_t nbytes, int m,
                           const gasnet_handlerarg_t *args, gasnet_handlerarg_t *r)
{
    gasnet_node_t src = check_args(token, m, args, 0);
    CHECK(nbytes == medium_size(m), "Medium size %zu, expected %zu", nbytes, medium_size(m));
    CHECK(nbytes == 0 || ((uintptr_t)buf & 15) == 0, "Medium buffer %p not 16-byte aligned", buf);
    check_bytes(buf, nbytes, src, m, 0);
    __atomic_fetch_add(&requests_seen, 1, __ATOMIC_SEQ_CST);
    reply_args(src, m, r);
    unsigned char *source = reply_source(0);
    for (size_t i = 0; i < nbytes; i++)
        source[i] = byte_value(src, m, i, 1);
    return source;
}

static void on_medium_rep(gasnet_token_t token, void *buf, size_t nbytes, int m,
                          const gasnet_handlerarg_t *args)
{
    on_reply(token, m, args);
    CHECK(nbytes == medium_size(m), "Medium reply size %zu", nbytes);
    check_bytes(buf, nbytes, me, m, 1);
}

/* Returns the reply's source: in the segment for even M, private memory for odd M. */
static void *on_long_req(gasnet_token_t token, void *buf, size_t nbytes, int m,
                         const gasnet_handlerarg_t *args, gasnet_handlerarg_t *r,
                         gasnet_node_t *src_out)
{
    gasnet_node_t src = check_args(token, m, args, 0);
    CHECK(long_size_ok(m, nbytes), "Long size %zu for M=%d", nbytes, m);
    CHECK(nbytes == 0 || buf == long_slot(me, src, m, 0), "Long landed at %p", buf);
    check_bytes(buf, nbytes, src, m, 0);
    __atomic_fetch_add(&requests_seen, 1, __ATOMIC_SEQ_CST);
    reply_args(src, m, r);
    unsigned char *source = reply_source(m % 2 == 0);
    for (size_t i = 0; i < nbytes; i++)
        source[i] = byte_value(src, m, i, 1);
    *src_out = src;
    return source;
}

static void on_long_rep(gasnet_token_t token, void *buf, size_t nbytes, int m,
                        const gasnet_handlerarg_t *args)
{
    gasnet_node_t src;
    on_reply(token, m, args);
    gasnet_AMGetMsgSource(token, &src);
    CHECK(long_size_ok(m, nbytes), "Long reply size %zu for M=%d", nbytes, m);
    CHECK(nbytes == 0 || buf == long_slot(me, src, m, 1), "Long reply landed at %p", buf);
    check_bytes(buf, nbytes, me, m, 1);
}

#define HANDLERS(M)                                                                         \
    static void short_req_##M(gasnet_token_t token DECL_##M)                                \
    {                                                                                       \
        gasnet_handlerarg_t args[] = { 0 LIST_##M }, r[17];                                 \
        on_short_req(token, M, args + 1, r);                                                \
        CHECK(AMCALL(gasnet_AMReplyShort##M, token, H_SHORT_REP + M R_##M) == GASNET_OK, "reply");  \
    }                                                                                       \
    static void short_rep_##M(gasnet_token_t token DECL_##M)                                \
    {                                                                                       \
        gasnet_handlerarg_t args[] = { 0 LIST_##M };                                        \
        on_reply(token, M, args + 1);                                                       \
    }                                                                                       \
    static void medium_req_##M(gasnet_token_t token, void *buf, size_t nbytes DECL_##M)     \
    {                                                                                       \
        gasnet_handlerarg_t args[] = { 0 LIST_##M }, r[17];                                 \
        void *out = on_medium_req(token, buf, nbytes, M, args + 1, r);                      \
        CHECK(AMCALL(gasnet_AMReplyMedium##M, token, H_MEDIUM_REP + M, out, nbytes R_##M) ==        \
              GASNET_OK, "reply");                                                          \
    }                                                                                       \
    static void medium_rep_##M(gasnet_token_t token, void *buf, size_t nbytes DECL_##M)     \
    {                                                                                       \
        gasnet_handlerarg_t args[] = { 0 LIST_##M };                                        \
        on_medium_rep(token, buf, nbytes, M, args + 1);                                     \
    }                                                                                       \
    static void long_req_##M(gasnet_token_t token, void *buf, size_t nbytes DECL_##M)       \
    {                                                                                       \
        gasnet_handlerarg_t args[] = { 0 LIST_##M }, r[17];                                 \
        gasnet_node_t src;                                                                  \
        void *out = on_long_req(token, buf, nbytes, M, args + 1, r, &src);                  \
        CHECK(AMCALL(gasnet_AMReplyLong##M, token, H_LONG_REP + M, out, nbytes,                     \
                                    long_slot(src, me, M, 1) R_##M) == GASNET_OK, "reply"); \
    }                                                                                       \
    static void long_rep_##M(gasnet_token_t token, void *buf, size_t nbytes DECL_##M)       \
    {                                                                                       \
        gasnet_handlerarg_t args[] = { 0 LIST_##M };                                        \
        on_long_rep(token, buf, nbytes, M, args + 1);                                       \
    }                                                                                       \
    static void send_##M(gasnet_node_t dest, int category)                                  \
    {                                                                                       \
        gasnet_handlerarg_t r[17];                                                          \
        for (int i = 0; i < M; i++)                                                         \
            r[i] = arg_value(me, M, i, 0);                                                  \
        (void)r;                                                                            \
        int rc;                                                                             \
        unsigned char *src = (M % 2 == 0) ? staging() : private_source;                     \
        if (category == 0)                                                                  \
            rc = AMCALL(gasnet_AMRequestShort##M, dest, H_SHORT_REQ + M R_##M);                     \
        else if (category == 1)                                                             \
            rc = AMCALL(gasnet_AMRequestMedium##M, dest, H_MEDIUM_REQ + M, private_source,          \
                                           medium_size(M) R_##M);                           \
        else if (M % 3 == 0)                                                                \
            rc = AMCALL(gasnet_AMRequestLongAsync##M, dest, H_LONG_REQ + M, src, long_size(M),      \
                                              long_slot(dest, me, M, 0) R_##M);             \
        else                                                                                \
            rc = AMCALL(gasnet_AMRequestLong##M, dest, H_LONG_REQ + M, src, long_size(M),           \
                                         long_slot(dest, me, M, 0) R_##M);                  \
        CHECK(rc == GASNET_OK, "request category %d M=%d to node %u: %s", category, M,      \
              dest, gasnet_ErrorName(rc));                                                  \
    }

HANDLERS(0) HANDLERS(1) HANDLERS(2) HANDLERS(3) HANDLERS(4) HANDLERS(5) HANDLERS(6)
HANDLERS(7) HANDLERS(8) HANDLERS(9) HANDLERS(10) HANDLERS(11) HANDLERS(12) HANDLERS(13)
HANDLERS(14) HANDLERS(15) HANDLERS(16)

#define ENTRIES(M)                                                                          \
    { H_SHORT_REQ + M, short_req_##M }, { H_SHORT_REP + M, short_rep_##M },                 \
    { H_MEDIUM_REQ + M, medium_req_##M }, { H_MEDIUM_REP + M, medium_rep_##M },             \
    { H_LONG_REQ + M, long_req_##M }, { H_LONG_REP + M, long_rep_##M }

static void (*const senders[17])(gasnet_node_t, int) = {
    send_0, send_1, send_2, send_3, send_4, send_5, send_6, send_7, send_8,
    send_9, send_10, send_11, send_12, send_13, send_14, send_15, send_16,
};

#include "am_core_misuse.h"

static gasnet_handlerentry_t table[] = {
    ENTRIES(0), ENTRIES(1), ENTRIES(2), ENTRIES(3), ENTRIES(4), ENTRIES(5),
    ENTRIES(6), ENTRIES(7), ENTRIES(8), ENTRIES(9), ENTRIES(10), ENTRIES(11),
    ENTRIES(12), ENTRIES(13), ENTRIES(14), ENTRIES(15), ENTRIES(16),
    { H_MISUSE, misuse_request }, { H_MISUSE_REPLY, misuse_reply },
    { 0, misuse_anywhere }, /* "don't care": attach picks an index */
    AMTEST_HANDLERS,
};

/* Sends category to every node for every M; waits for every reply. */
static void run_phase(int category)
{
    int expected = replies_seen + (int)nodes * 17;
    for (gasnet_node_t dest = 0; dest < nodes; dest++) {
        for (int m = 0; m <= 16; m++) {
            size_t bytes = category == 1 ? medium_size(m) : category == 2 ? long_size(m) : 0;
            unsigned char *source = (category == 2 && m % 2 == 0) ? staging() : private_source;
            for (size_t i = 0; i < bytes; i++)
                source[i] = byte_value(me, m, i, 0);
            senders[m](dest, category);
        }
    }
    GASNET_BLOCKUNTIL(replies_seen == expected);
    amtest_barrier(); /* every node's requests to me are done too */
}

static void check_segments(void)
{
    uintptr_t local = gasnet_getMaxLocalSegmentSize(), global = gasnet_getMaxGlobalSegmentSize();
    CHECK(local >= global && global > 0, "local %lu global %lu", (unsigned long)local,
          (unsigned long)global);
    CHECK(local % GASNET_PAGESIZE == 0 && global % GASNET_PAGESIZE == 0, "page multiples");
    seg = calloc(nodes, sizeof *seg);
    CHECK(gasnet_getSegmentInfo(seg, (int)nodes) == GASNET_OK, "getSegmentInfo");
    for (gasnet_node_t node = 0; node < nodes; node++)
        CHECK(seg[node].size >= (uintptr_t)nodes * 34 * SLOT + STAGING &&
              (uintptr_t)seg[node].addr % GASNET_PAGESIZE == 0, "node %u segment", node);
}

int main(int argc, char **argv)
{
    amtest_name = "am_core";
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    CHECK(gasnet_AMRequestShort0(0, H_SHORT_REQ) == GASNET_ERR_NOT_INIT, "request before init");
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_init(&argc, &argv) == GASNET_ERR_NOT_INIT, "second init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    CHECK(gasnet_AMRequestShort0(0, H_SHORT_REQ) == GASNET_ERR_NOT_INIT, "request before attach");
    uintptr_t segsize = ((uintptr_t)nodes * 34 * SLOT + STAGING + GASNET_PAGESIZE - 1) /
                        GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), segsize, 0) == GASNET_OK,
          "attach");
    CHECK(gasnet_attach(table, 0, segsize, 0) == GASNET_ERR_NOT_INIT, "second attach");
    anywhere_index = table[sizeof table / sizeof table[0] - 3].index;
    CHECK(anywhere_index == 128, "the don't-care entry got index %u, expected 128 (lowest free)",
          anywhere_index);
    check_segments();
    private_source = malloc(BIG_LONG + 17 * 1001);
    reply_private = malloc((size_t)REPLY_SLOTS * REPLY_SLOT);
    CHECK(private_source != NULL && reply_private != NULL, "malloc");
    amtest_barrier();
    for (int round = 0; round < rounds; round++) {
        run_phase(0);
        run_phase(1);
        long_mode = 0;
        run_phase(2);
        long_mode = 1;
        run_phase(2);
    }
    CHECK(requests_seen == rounds * 4 * (int)nodes * 17, "requests seen %d", requests_seen);
    check_misuse();
    amtest_barrier();
    /* Print before the last barrier: once a node is past it, its exit may end this one. */
    if (me == 0)
        printf("am_core: %u nodes, %d rounds, every category and argument count verified\n",
               nodes, rounds);
    fflush(stdout);
    amtest_barrier();
    gasnet_exit(0);
}
