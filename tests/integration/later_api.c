/*
 * The GASNet-1 additions of spec 5.4 end to end, public API only:
 *
 *   nodeinfo EXPECT  gasnet_getNodeInfo: one host; on shm (EXPECT=shm) one
 *                    supernode whose offsets reach every peer's segment (each
 *                    node reads the others' markers through them); on tcp
 *                    (EXPECT=tcp) a supernode per node and offset 0; with
 *                    hosts pretended by GP_HOST_ID in blocks of P ranks
 *                    (EXPECT=hosts:P) a host and a supernode per block
 *   varargs          the seven variable-argument AM forms with 0..16
 *                    arguments to every node, every argument and payload
 *                    byte checked, numargs out of range refused, and the
 *                    fixed-arity names called as functions after #undef
 *   barrier          gasnet_barrier_result after named, anonymous, mixed,
 *                    UNNAMED and relaxed-flag phases (4.10.5), blocking
 *                    gasnet_barrier, mismatches
 *   coll ROUNDS      gasnet_coll_broadcast with every IN x OUT flag pair,
 *                    SINGLE and LOCAL, from every root, sizes 0..70000;
 *                    scatter, gather, gather_all, exchange; each byte checked
 *   coll_badflags    two IN flags: a fatal error naming them
 */
#include <string.h>

#include "amtest.h"

#define SEGSIZE (1u << 20)

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

/* ---- nodeinfo ---- */

static int run_nodeinfo(const char *expect)
{
    gasnet_nodeinfo_t *info = calloc(nodes + 1, sizeof *info);
    CHECK(info != NULL, "calloc");
    info[nodes].host = 12345; /* past the job: left alone */
    CHECK(gasnet_getNodeInfo(info, (int)nodes + 1) == GASNET_OK, "getNodeInfo");
    CHECK(info[nodes].host == 12345, "entry past the last node was written");
    CHECK(gasnet_getNodeInfo(NULL, 1) == GASNET_ERR_BAD_ARG, "NULL table refused");
    /* A marker at the start of each segment, read through the offsets. */
    *(uint64_t *)seg[me].addr = 0xfeed0000u + me;
    barrier();
    int shm = strcmp(expect, "shm") == 0;
    unsigned per_host = strncmp(expect, "hosts:", 6) == 0 ? (unsigned)atoi(expect + 6) : 0;
    for (gasnet_node_t node = 0; node < nodes; node++) {
        if (per_host > 0) {
            unsigned block = node / per_host;
            int same = block == me / per_host;
            CHECK(info[node].host == block && info[node].supernode == block,
                  "node %u: host %u supernode %u, expected %u for both", node, info[node].host,
                  info[node].supernode, block);
            CHECK(node == me || !info[node].offset == !same, "node %u: offset %#lx on %s host",
                  node, (unsigned long)info[node].offset, same ? "this" : "another");
        } else {
            CHECK(info[node].host == 0, "node %u host %u: gp-run starts every node on this host",
                  node, info[node].host);
        }
        if (per_host > 0) {
            /* checked above */
        } else if (shm) {
            CHECK(info[node].supernode == 0, "shm: node %u supernode %u, expected 0", node,
                  info[node].supernode);
            CHECK(node == me || info[node].offset != 0, "shm: node %u not mapped", node);
        } else {
            CHECK(info[node].supernode == node, "tcp: node %u supernode %u, expected %u", node,
                  info[node].supernode, node);
            CHECK(info[node].offset == 0, "tcp: node %u offset %#lx, expected 0", node,
                  (unsigned long)info[node].offset);
        }
        if (node == me || info[node].offset != 0) {
            uint64_t seen = *(volatile uint64_t *)((char *)seg[node].addr + info[node].offset);
            CHECK(seen == 0xfeed0000u + node, "node %u marker read through offset: %#llx", node,
                  (unsigned long long)seen);
        }
    }
    printf("later_api: nodeinfo on %u nodes (%s): hosts, supernodes and offsets verified\n",
           nodes, expect);
    fflush(stdout);
    free(info);
    return 0;
}

/* ---- variable-argument AMs ---- */

enum { SREQ = 128, MREQ = 148, LREQ = 168, SREP = 188, MREP = 208, LREP = 228 };
static volatile int replies;

static gasnet_handlerarg_t arg_value(gasnet_node_t src, int m, int i, int reply)
{
    return (gasnet_handlerarg_t)(0x10000 * (int)src + 256 * m + i + (reply ? 0x4000000 : 0)) ^
           (i % 2 ? -1 : 0);
}
static size_t payload_len(int m) { return (size_t)m * 37 + 1; }
static unsigned char payload_byte(gasnet_node_t src, int m, size_t i, int reply)
{
    return (unsigned char)(src * 13 + m * 7 + i + (reply ? 101 : 0));
}
/* Long slots: [requests from node s with m args][replies from node s with m args]. */
static char *long_slot(gasnet_node_t owner, gasnet_node_t from, int m, int reply)
{
    return (char *)seg[owner].addr + 4096 + (((size_t)reply * nodes + from) * 17 + (size_t)m) * 1024;
}

static void check_args(gasnet_token_t token, const gasnet_handlerarg_t *in, int m, int reply)
{
    gasnet_node_t src;
    CHECK(gasnet_AMGetMsgSource(token, &src) == GASNET_OK, "source");
    for (int i = 0; i < m; i++)
        CHECK(in[i] == arg_value(src, m, i, reply), "%s with %d args: arg %d is %d",
              reply ? "reply" : "request", m, i, (int)in[i]);
}

static void check_payload(gasnet_token_t token, const void *buf, size_t nbytes, int m, int reply)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(nbytes == payload_len(m), "payload length %zu with %d args", nbytes, m);
    for (size_t i = 0; i < nbytes; i++)
        CHECK(((const unsigned char *)buf)[i] == payload_byte(src, m, i, reply),
              "payload byte %zu with %d args", i, m);
}

static unsigned char reply_payload[17][1024];

static void fill_reply_args(gasnet_handlerarg_t *r, int m)
{
    for (int i = 0; i < m; i++)
        r[i] = arg_value(me, m, i, 1);
}

#define HANDLERS(M)                                                                              \
    static void sreq##M(gasnet_token_t t DECL_##M)                                              \
    {                                                                                            \
        gasnet_handlerarg_t in[17] = { 0 LIST_##M }, r[16] __attribute__((unused));              \
        check_args(t, in + 1, M, 0);                                                             \
        fill_reply_args(r, M);                                                                   \
        CHECK(AMCALL(gasnet_AMReplyShort, t, SREP + M, M R_##M) == GASNET_OK, "reply short");    \
    }                                                                                            \
    static void mreq##M(gasnet_token_t t, void *buf, size_t n DECL_##M)                         \
    {                                                                                            \
        gasnet_handlerarg_t in[17] = { 0 LIST_##M }, r[16] __attribute__((unused));              \
        check_args(t, in + 1, M, 0);                                                             \
        check_payload(t, buf, n, M, 0);                                                          \
        fill_reply_args(r, M);                                                                   \
        CHECK(AMCALL(gasnet_AMReplyMedium, t, MREP + M, reply_payload[M], payload_len(M),        \
                     M R_##M) == GASNET_OK, "reply medium");                                     \
    }                                                                                            \
    static void lreq##M(gasnet_token_t t, void *buf, size_t n DECL_##M)                         \
    {                                                                                            \
        gasnet_handlerarg_t in[17] = { 0 LIST_##M }, r[16] __attribute__((unused));              \
        gasnet_node_t src;                                                                       \
        check_args(t, in + 1, M, 0);                                                             \
        check_payload(t, buf, n, M, 0);                                                          \
        gasnet_AMGetMsgSource(t, &src);                                                          \
        CHECK(buf == long_slot(me, src, M, 0), "long request landed at %p", buf);                \
        fill_reply_args(r, M);                                                                   \
        CHECK(AMCALL(gasnet_AMReplyLong, t, LREP + M, reply_payload[M], payload_len(M),          \
                     long_slot(src, me, M, 1), M R_##M) == GASNET_OK, "reply long");             \
    }                                                                                            \
    static void srep##M(gasnet_token_t t DECL_##M)                                              \
    {                                                                                            \
        gasnet_handlerarg_t in[17] = { 0 LIST_##M };                                             \
        check_args(t, in + 1, M, 1);                                                             \
        __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);                                       \
    }                                                                                            \
    static void mrep##M(gasnet_token_t t, void *buf, size_t n DECL_##M)                         \
    {                                                                                            \
        gasnet_handlerarg_t in[17] = { 0 LIST_##M };                                             \
        check_args(t, in + 1, M, 1);                                                             \
        check_payload(t, buf, n, M, 1);                                                          \
        __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);                                       \
    }                                                                                            \
    static void lrep##M(gasnet_token_t t, void *buf, size_t n DECL_##M)                         \
    {                                                                                            \
        gasnet_handlerarg_t in[17] = { 0 LIST_##M };                                             \
        gasnet_node_t src;                                                                       \
        check_args(t, in + 1, M, 1);                                                             \
        check_payload(t, buf, n, M, 1);                                                          \
        gasnet_AMGetMsgSource(t, &src);                                                          \
        CHECK(buf == long_slot(me, src, M, 1), "long reply landed at %p", buf);                  \
        __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);                                       \
    }

HANDLERS(0) HANDLERS(1) HANDLERS(2) HANDLERS(3) HANDLERS(4) HANDLERS(5) HANDLERS(6)
HANDLERS(7) HANDLERS(8) HANDLERS(9) HANDLERS(10) HANDLERS(11) HANDLERS(12) HANDLERS(13)
HANDLERS(14) HANDLERS(15) HANDLERS(16)

#define ENTRIES(M)                                                                               \
    { SREQ + M, sreq##M }, { MREQ + M, mreq##M }, { LREQ + M, lreq##M },                         \
    { SREP + M, srep##M }, { MREP + M, mrep##M }, { LREP + M, lrep##M }

static gasnet_handlerentry_t handlers[] = {
    ENTRIES(0), ENTRIES(1), ENTRIES(2), ENTRIES(3), ENTRIES(4), ENTRIES(5),
    ENTRIES(6), ENTRIES(7), ENTRIES(8), ENTRIES(9), ENTRIES(10), ENTRIES(11),
    ENTRIES(12), ENTRIES(13), ENTRIES(14), ENTRIES(15), ENTRIES(16),
    AMTEST_HANDLERS,
};

/* The four request forms with M arguments to node, through the variadic names. */
#define SEND(M)                                                                                  \
    do {                                                                                         \
        gasnet_handlerarg_t r[16] __attribute__((unused));                                       \
        unsigned char *p = request_payload[M];                                                   \
        for (int i = 0; i < M; i++)                                                              \
            r[i] = arg_value(me, M, i, 0);                                                       \
        CHECK(AMCALL(gasnet_AMRequestShort, node, SREQ + M, M R_##M) == GASNET_OK, "short");     \
        CHECK(AMCALL(gasnet_AMRequestMedium, node, MREQ + M, p, payload_len(M), M R_##M) ==      \
                  GASNET_OK, "medium");                                                          \
        CHECK(AMCALL(gasnet_AMRequestLong, node, LREQ + M, p, payload_len(M),                    \
                     long_slot(node, me, M, 0), M R_##M) == GASNET_OK, "long");                  \
        GASNET_BLOCKUNTIL(replies == sent + 3);                                                  \
        CHECK(AMCALL(gasnet_AMRequestLongAsync, node, LREQ + M, p, payload_len(M),               \
                     long_slot(node, me, M, 0), M R_##M) == GASNET_OK, "long async");            \
        sent += 4;                                                                               \
        GASNET_BLOCKUNTIL(replies == sent);                                                      \
    } while (0)

static unsigned char request_payload[17][1024];
static void call_undefined_names(gasnet_node_t node);

static int run_varargs(void)
{
    int sent = 0;
    for (int m = 0; m <= 16; m++)
        for (size_t i = 0; i < payload_len(m); i++) {
            request_payload[m][i] = payload_byte(me, m, i, 0);
            reply_payload[m][i] = payload_byte(me, m, i, 1);
        }
    for (gasnet_node_t node = 0; node < nodes; node++) {
        /* Each Long slot is used by one request (and one LongAsync after its
         * reply came back), so no two writes to it are ever in flight. */
        SEND(0); SEND(1); SEND(2); SEND(3); SEND(4); SEND(5); SEND(6); SEND(7); SEND(8);
        SEND(9); SEND(10); SEND(11); SEND(12); SEND(13); SEND(14); SEND(15); SEND(16);
    }
    CHECK(gasnet_AMRequestShort(0, SREQ, 17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                16, 17) == GASNET_ERR_BAD_ARG, "17 args accepted");
    CHECK(gasnet_AMRequestMedium(0, MREQ, request_payload[0], 1, -1) == GASNET_ERR_BAD_ARG,
          "-1 args accepted");
    call_undefined_names(nodes - 1);
    barrier();
    printf("later_api: varargs AMs with 0..16 arguments to %u nodes verified (%d replies)\n",
           nodes, sent);
    fflush(stdout);
    return 0;
}

/* ---- barriers ---- */

static void phase(int notify_id, int notify_flags, int wait_id, int wait_flags, int want_rc,
                  int want_anonymous, int want_id, const char *what)
{
    gasnet_barrier_notify(notify_id, notify_flags);
    int rc;
    if (me % 2) /* some nodes poll with try, the others block in wait */
        while ((rc = gasnet_barrier_try(wait_id, wait_flags)) == GASNET_ERR_NOT_READY)
            gasnet_AMPoll();
    else
        rc = gasnet_barrier_wait(wait_id, wait_flags);
    CHECK(rc == want_rc, "%s: barrier returned %d, expected %d", what, rc, want_rc);
    if (want_anonymous < 0)
        return;
    int id = -1;
    int anonymous = gasnet_barrier_result(&id);
    CHECK(!anonymous == !want_anonymous, "%s: barrier_result says %s", what,
          anonymous ? "anonymous" : "named");
    if (!want_anonymous)
        CHECK(id == want_id, "%s: barrier_result id %d, expected %d", what, id, want_id);
}

static int run_barrier(void)
{
    const int anon = GASNET_BARRIERFLAG_ANONYMOUS;
    for (int i = 0; i < 5; i++)
        phase(i, 0, i, 0, GASNET_OK, 0, i, "all named");
    phase(0, anon, 0, anon, GASNET_OK, 1, 0, "all anonymous");
    int cafe = (int)0xcafef00d;
    if (me == 0)
        phase(cafe, 0, cafe, 0, GASNET_OK, 0, cafe, "node 0 named");
    else
        phase(0, anon, 0, anon, GASNET_OK, 0, cafe, "node 0 named");
    phase(7, 0, 0, anon, GASNET_OK, 0, 7, "named notify, anonymous wait");
    phase(0, anon, 5, 0, GASNET_OK, 1, 0, "anonymous notify, named wait, all anonymous");
    phase(0, GASNET_BARRIERFLAG_UNNAMED, 0, GASNET_BARRIERFLAG_UNNAMED, GASNET_OK, 1, 0, "unnamed");
    CHECK(gasnet_barrier(42, 0) == GASNET_OK, "gasnet_barrier named");
    int id = 0;
    CHECK(gasnet_barrier_result(&id) == 0 && id == 42, "gasnet_barrier result %d", id);
    CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK, "gasnet_barrier unnamed");
    CHECK(gasnet_barrier_result(&id) != 0, "gasnet_barrier unnamed reported named");
    if (nodes > 1) {
        phase((int)me, 0, (int)me, 0, GASNET_ERR_BARRIER_MISMATCH, -1, 0, "different names");
        int flags = me == nodes - 1 ? GASNET_BARRIERFLAG_MISMATCH : anon;
        phase(0, flags, 0, flags, GASNET_ERR_BARRIER_MISMATCH, -1, 0, "MISMATCH flag");
        /* Node 0 names 3; the others notify anonymously and wait for 4. */
        if (me == 0)
            phase(3, 0, 3, 0, GASNET_OK, 0, 3, "named 3");
        else
            phase(0, anon, 4, 0, GASNET_ERR_BARRIER_MISMATCH, 0, 3, "anonymous notify, wait for 4");
    }
    phase(9, 0, 9, 0, GASNET_OK, 0, 9, "named after mismatches");
    printf("later_api: barrier_result and relaxed flag matching verified on %u nodes\n", nodes);
    fflush(stdout);
    barrier();
    return 0;
}

/* ---- collectives ---- */

static unsigned char coll_byte(unsigned round, unsigned root, size_t block, size_t i)
{
    return (unsigned char)(round * 29 + root * 71 + block * 5 + i * 3 + (i >> 9));
}

static const int in_flags[] = { GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC };
static const int out_flags[] = { GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                                 GASNET_COLL_OUT_ALLSYNC };
static const size_t coll_sizes[] = { 0, 1, 5, 960, 961, 2000, 70000 };
#define NCOLL_SIZES (sizeof coll_sizes / sizeof coll_sizes[0])

static int run_coll(int rounds)
{
    gasnet_coll_init(NULL, 0, NULL, 0, 0);
    size_t max = 70000 * (size_t)nodes + 1; /* and a guard byte */
    unsigned char *src = malloc(max), *dst = malloc(max);
    CHECK(src != NULL && dst != NULL, "malloc");
    unsigned round = 0, broadcasts = 0;
    for (int r = 0; r < rounds; r++)
        for (int in = 0; in < 3; in++)
            for (int out = 0; out < 3; out++)
                for (int mode = 0; mode < 2; mode++)
                    for (size_t s = 0; s < NCOLL_SIZES; s++, round++) {
                        size_t n = coll_sizes[s];
                        gasnet_node_t root = (gasnet_node_t)(round % nodes);
                        int flags = in_flags[in] | out_flags[out] |
                                    (mode ? GASNET_COLL_SINGLE : GASNET_COLL_LOCAL);
                        for (size_t i = 0; i < n; i++)
                            src[i] = me == root ? coll_byte(round, root, 0, i) : 0xee;
                        memset(dst, 0xdd, n + 1);
                        gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, root, src, n, flags);
                        for (size_t i = 0; i < n; i++)
                            CHECK(dst[i] == coll_byte(round, root, 0, i),
                                  "broadcast round %u flags 0x%x size %zu root %u: byte %zu is %u",
                                  round, (unsigned)flags, n, root, i, dst[i]);
                        CHECK(dst[n] == 0xdd, "broadcast wrote past %zu bytes", n);
                        broadcasts++;
                    }
    /* The other collectives, with a few flag pairs and sizes. */
    unsigned others = 0;
    for (int k = 0; k < 3; k++) {
        int flags = in_flags[k] | out_flags[2 - k] | GASNET_COLL_LOCAL;
        for (size_t s = 0; s < NCOLL_SIZES; s++, round++) {
            size_t n = coll_sizes[s];
            gasnet_node_t root = (gasnet_node_t)(round % nodes);
            /* scatter: block i of root's src to node i */
            for (size_t b = 0; b < nodes; b++)
                for (size_t i = 0; i < n; i++)
                    src[b * n + i] = coll_byte(round, me, b, i);
            gasnet_coll_scatter(GASNET_TEAM_ALL, dst, root, src, n, flags);
            for (size_t i = 0; i < n; i++)
                CHECK(dst[i] == coll_byte(round, root, me, i), "scatter size %zu byte %zu", n, i);
            /* gather: node i's src (its block me) to block i of root's dst */
            gasnet_coll_gather(GASNET_TEAM_ALL, root, dst, src + (size_t)me * n, n, flags);
            if (me == root)
                for (size_t b = 0; b < nodes; b++)
                    for (size_t i = 0; i < n; i++)
                        CHECK(dst[b * n + i] == coll_byte(round, (unsigned)b, b, i),
                              "gather size %zu block %zu byte %zu", n, b, i);
            gasnet_coll_gather_all(GASNET_TEAM_ALL, dst, src, n, flags);
            for (size_t b = 0; b < nodes; b++)
                for (size_t i = 0; i < n; i++)
                    CHECK(dst[b * n + i] == coll_byte(round, (unsigned)b, 0, i),
                          "gather_all size %zu block %zu byte %zu", n, b, i);
            gasnet_coll_exchange(GASNET_TEAM_ALL, dst, src, n, flags);
            for (size_t b = 0; b < nodes; b++)
                for (size_t i = 0; i < n; i++)
                    CHECK(dst[b * n + i] == coll_byte(round, (unsigned)b, me, i),
                          "exchange size %zu block %zu byte %zu", n, b, i);
            others += 4;
        }
    }
    /* In-segment promise, and the nb form with its handle. */
    char *segdst = (char *)seg[me].addr + 8192;
    strcpy((char *)src, "in the segment");
    gasnet_coll_handle_t h = gasnet_coll_broadcast_nb(
        GASNET_TEAM_ALL, segdst, 0, src, 15,
        GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_SINGLE |
            GASNET_COLL_DST_IN_SEGMENT);
    gasnet_coll_wait_sync(h);
    CHECK(strcmp(segdst, "in the segment") == 0, "in-segment broadcast");
    printf("later_api: coll on %u nodes: %u broadcasts (every IN x OUT flag pair, SINGLE and "
           "LOCAL) and %u scatter/gather/gather_all/exchange verified\n", nodes, broadcasts,
           others);
    fflush(stdout);
    free(src);
    free(dst);
    barrier();
    return 0;
}

static int run_coll_badflags(void)
{
    gasnet_coll_init(NULL, 0, NULL, 0, 0);
    char buf[8] = { 0 };
    gasnet_coll_broadcast(GASNET_TEAM_ALL, buf, 0, buf, sizeof buf,
                          GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_ALLSYNC |
                              GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "later_api";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(handlers, sizeof handlers / sizeof handlers[0], SEGSIZE, 0) == GASNET_OK,
          "attach");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    seg = calloc(nodes, sizeof *seg);
    CHECK(seg != NULL && gasnet_getSegmentInfo(seg, (int)nodes) == GASNET_OK, "segments");
    CHECK(4096 + 2 * (size_t)nodes * 17 * 1024 <= SEGSIZE, "too many nodes for the segment");
    const char *mode = argc > 1 ? argv[1] : "varargs";
    int rc = 2;
    if (strcmp(mode, "nodeinfo") == 0)
        rc = run_nodeinfo(argc > 2 ? argv[2] : "shm");
    else if (strcmp(mode, "varargs") == 0)
        rc = run_varargs();
    else if (strcmp(mode, "barrier") == 0)
        rc = run_barrier();
    else if (strcmp(mode, "coll") == 0)
        rc = run_coll(argc > 2 ? atoi(argv[2]) : 1);
    else if (strcmp(mode, "coll_badflags") == 0)
        rc = run_coll_badflags();
    else
        fprintf(stderr, "later_api: unknown mode %s\n", mode);
    free(seg);
    gasnet_exit(rc);
    return rc;
}

/*
 * Last in the file: the names a client may #undef (spec 5.7) -- the
 * fixed-arity AM calls and the AM limits -- are functions too.
 */
#undef gasnet_AMRequestShort2
#undef gasnet_AMRequestMedium1
#undef gasnet_AMRequestLong16
#undef gasnet_AMMaxArgs
#undef gasnet_AMMaxMedium
static void call_undefined_names(gasnet_node_t node)
{
    int base = replies;
    gasnet_handlerarg_t r[16];
    for (int i = 0; i < 16; i++)
        r[i] = arg_value(me, 16, i, 0);
    CHECK(gasnet_AMMaxArgs() == 16 && gasnet_AMMaxMedium() >= 512, "AM limits as functions");
    CHECK(gasnet_AMRequestShort2(node, SREQ + 2, arg_value(me, 2, 0, 0), arg_value(me, 2, 1, 0)) ==
              GASNET_OK, "Short2 as a function");
    CHECK(gasnet_AMRequestMedium1(node, MREQ + 1, request_payload[1], payload_len(1),
                                  arg_value(me, 1, 0, 0)) == GASNET_OK, "Medium1 as a function");
    GASNET_BLOCKUNTIL(replies == base + 2);
    CHECK(gasnet_AMRequestLong16(node, LREQ + 16, request_payload[16], payload_len(16),
                                 long_slot(node, me, 16, 0), r[0], r[1], r[2], r[3], r[4], r[5],
                                 r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
                                 r[15]) == GASNET_OK, "Long16 as a function");
    GASNET_BLOCKUNTIL(replies == base + 3);
}
