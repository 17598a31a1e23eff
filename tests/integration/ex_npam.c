/*
 * GASNet-EX negotiated-payload AMs (spec §8) under gp-run: every rank
 * prepares and commits a Medium and a Long Request to every rank at every
 * argument count 0..16, from its own buffer (lc_opt NOW, GROUP and an event
 * pointer in turn) and from gp's (a Long of 70000 bytes among them), with a
 * Prepare cancelled before each; each Request handler cancels a Reply
 * Prepare and then replies through Prepare and Commit (plain and _v2, one
 * from the received buffer).  Every argument, payload byte, size granted,
 * Long destination and count is checked.  Public API only.
 *
 * Usage: ex_npam          the whole run
 *        ex_npam MODE     one misuse (see misuse() below)
 */
#include <gasnetex.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define FOR_M(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) \
    X(13) X(14) X(15) X(16)
#define NM 17
#define LSLOT (72u << 10)
#define SEGSZ (2u * 4u * NM * LSLOT)        /* request and reply areas for up to 4 ranks */
#define REP_AREA (4u * NM * LSLOT)

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;
static gex_Segment_t seg;
static gex_Rank_t me, ranks;
static char *segbase[4];
static gex_AM_Entry_t table[4 * NM];
static gex_AM_Index_t mreq[NM], mrep[NM], lreq[NM], lrep[NM];
static volatile int replies, requests;
static gex_HSL_t count_lock = GEX_HSL_INITIALIZER;

static gex_AM_Arg_t argval(gex_Rank_t src, int m, int i, int rep)
{
    return (gex_AM_Arg_t)((0x9e3779b9u * (uint32_t)(src + 1)) ^ (uint32_t)(m << 8) ^
                          (uint32_t)i ^ (rep ? 0x80000000u : 0u));
}

static unsigned char byteval(gex_Rank_t src, int m, size_t i, int rep)
{
    return (unsigned char)(src * 29 + (unsigned)m * 7 + i * 13 + (i >> 9) + (unsigned)rep * 101);
}

static size_t medium_size(int m)
{
    return m == 16 ? gex_AM_LUBRequestMedium() : (size_t)(m * 57) % 961;
}

static size_t long_size(int m)
{
    return m == 16 ? 70000 : (size_t)m * 300; /* M=16 overflows a descriptor's own buffer */
}

static void fill(unsigned char *buf, size_t n, gex_Rank_t src, int m, int rep)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = byteval(src, m, i, rep);
}

static int bytes_ok(const unsigned char *buf, size_t n, gex_Rank_t src, int m, int rep)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != byteval(src, m, i, rep))
            return 0;
    return 1;
}

static void count(volatile int *counter)
{
    gex_HSL_Lock(&count_lock);
    (*counter)++;
    gex_HSL_Unlock(&count_lock);
}

static gex_Rank_t source_of(gex_Token_t t, int is_req, int is_long)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK(!info.gex_is_req == !is_req && !info.gex_is_long == !is_long, "token kind");
    return info.gex_srcrank;
}

static void check_args(const gex_AM_Arg_t *got, int m, gex_Rank_t src, int rep)
{
    for (int i = 0; i < m; i++)
        CHECK(got[i] == argval(src, m, i, rep), "M=%d argument %d is %d, expected %d", m, i,
              got[i], argval(src, m, i, rep));
}

static char *long_dest(gex_Rank_t at, gex_Rank_t from, int m, int rep)
{
    return segbase[at] + (rep ? REP_AREA : 0) + ((size_t)from * NM + (size_t)m) * LSLOT;
}

/* A Reply Prepare cancelled first: it must not spend the token's one reply. */
static void cancelled_reply(gex_Token_t t, int is_long)
{
    gex_AM_SrcDesc_t sd = is_long ? gex_AM_PrepareReplyLong(t, NULL, 0, 64, NULL, NULL, 0, 0)
                                  : gex_AM_PrepareReplyMedium(t, NULL, 0, 64, NULL, 0, 0);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) == 64, "reply prepare to cancel");
    CHECK((is_long ? gex_AM_CancelReplyLong(sd, 0) : gex_AM_CancelReplyMedium(sd, 0)) ==
          GASNET_OK, "reply cancel");
}

#define HANDLERS(M)                                                                          \
    static void medium_req_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                  \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M }, r[16];                                        \
        gex_Rank_t src = source_of(t, 1, 0);                                                 \
        check_args(got + 1, M, src, 0);                                                      \
        CHECK(n == medium_size(M) && bytes_ok(buf, n, src, M, 0), "Medium M=%d payload", M); \
        for (int i = 0; i < M; i++)                                                          \
            r[i] = argval(me, M, i, 1);                                                      \
        (void)r;                                                                             \
        count(&requests);                                                                    \
        cancelled_reply(t, 0);                                                               \
        /* odd M: from the received buffer, rewritten; even: gp's, least < most */           \
        gex_AM_SrcDesc_t sd = M % 2 ? gex_AM_PrepareReplyMedium(t, buf, n, n, GEX_EVENT_NOW, \
                                                                 0, M)                       \
                                    : gex_AM_PrepareReplyMedium(t, NULL, n / 2, 100000,      \
                                                                 NULL, 0, M);                \
        CHECK(M % 2 ? gex_AM_SrcDescAddr(sd) == buf && gex_AM_SrcDescSize(sd) == n           \
                    : gex_AM_SrcDescSize(sd) == gex_Token_MaxReplyMedium(t, NULL, 0, M),     \
              "Medium reply M=%d granted %zu at %p", M, gex_AM_SrcDescSize(sd),              \
              gex_AM_SrcDescAddr(sd));                                                       \
        fill(gex_AM_SrcDescAddr(sd), n, me, M, 1);                                           \
        CHECK(AMCALL(gex_AM_CommitReplyMedium##M##_v2, sd, mrep[M], n, 0 R_##M) == 0,        \
              "Medium reply commit");                                                        \
    }                                                                                        \
    static void medium_rep_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                  \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M };                                               \
        gex_Rank_t src = source_of(t, 0, 0);                                                 \
        check_args(got + 1, M, src, 1);                                                      \
        CHECK(n == medium_size(M) && bytes_ok(buf, n, src, M, 1), "Medium reply M=%d", M);   \
        count(&replies);                                                                     \
    }                                                                                        \
    static void long_req_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                    \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M }, r[16];                                        \
        gex_Rank_t src = source_of(t, 1, 1);                                                 \
        check_args(got + 1, M, src, 0);                                                      \
        CHECK(n == long_size(M) && (n == 0 || buf == long_dest(me, src, M, 0)) &&            \
                  bytes_ok(buf, n, src, M, 0), "Long M=%d payload (%zu bytes at %p)", M, n,  \
              buf);                                                                          \
        for (int i = 0; i < M; i++)                                                          \
            r[i] = argval(me, M, i, 1);                                                      \
        (void)r;                                                                             \
        count(&requests);                                                                    \
        cancelled_reply(t, 1);                                                               \
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, n, n, NULL, NULL, 0, M);      \
        CHECK(gex_AM_SrcDescSize(sd) == n, "Long reply granted %zu", gex_AM_SrcDescSize(sd));\
        fill(gex_AM_SrcDescAddr(sd), n, me, M, 1);                                           \
        AMCALL(gex_AM_CommitReplyLong##M, sd, lrep[M], n, long_dest(src, me, M, 1) R_##M);   \
    }                                                                                        \
    static void long_rep_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                    \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M };                                               \
        gex_Rank_t src = source_of(t, 0, 1);                                                 \
        check_args(got + 1, M, src, 1);                                                      \
        CHECK(n == long_size(M) && (n == 0 || buf == long_dest(me, src, M, 1)) &&            \
                  bytes_ok(buf, n, src, M, 1), "Long reply M=%d", M);                        \
        count(&replies);                                                                     \
    }
FOR_M(HANDLERS)

static void register_handlers(void)
{
    size_t k = 0;
#define ENTRIES(M)                                                                            \
    table[k++] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)medium_req_##M,                           \
                                   GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, M, NULL, NULL }; \
    table[k++] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)medium_rep_##M,                            \
                                   GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, M, NULL, NULL };   \
    table[k++] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)long_req_##M,                              \
                                   GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, M, NULL, NULL };   \
    table[k++] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)long_rep_##M,                              \
                                   GEX_FLAG_AM_REPLY | GEX_FLAG_AM_LONG, M, NULL, NULL };
    FOR_M(ENTRIES)
    CHECK(gex_EP_RegisterHandlers(ep, table, k) == GASNET_OK, "gex_EP_RegisterHandlers");
    for (int m = 0; m < NM; m++) {
        mreq[m] = table[4 * m].gex_index;
        mrep[m] = table[4 * m + 1].gex_index;
        lreq[m] = table[4 * m + 2].gex_index;
        lrep[m] = table[4 * m + 3].gex_index;
    }
}

/* variant: 0 client buffer with an event pointer, 1 with NOW, 2 with GROUP, 3 gp's buffer. */
#define SENDER(M)                                                                              \
    static void send_##M(gex_Rank_t p, int variant)                                            \
    {                                                                                          \
        gex_AM_Arg_t r[16];                                                                    \
        static unsigned char buf[70000];                                                       \
        for (int i = 0; i < M; i++)                                                            \
            r[i] = argval(me, M, i, 0);                                                        \
        (void)r;                                                                               \
        gex_Event_t lc = GEX_EVENT_NO_OP;                                                      \
        gex_Event_t *lc_opt = variant == 0 ? &lc : variant == 1 ? GEX_EVENT_NOW                \
                            : variant == 2 ? GEX_EVENT_GROUP : NULL;                           \
        const void *cbuf = variant == 3 ? NULL : buf;                                          \
        size_t n = medium_size(M);                                                             \
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, p, NULL, 1, 2, NULL, 0, 0);      \
        CHECK(gex_AM_CancelRequestMedium(sd, 0) == GASNET_OK, "cancel");                       \
        sd = gex_AM_PrepareRequestMedium(tm, p, cbuf, n, n, lc_opt, GEX_FLAG_IMMEDIATE, M);    \
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) == n &&                     \
                  (cbuf == NULL || gex_AM_SrcDescAddr(sd) == cbuf),                            \
              "Medium M=%d variant %d: granted %zu at %p", M, variant, gex_AM_SrcDescSize(sd), \
              gex_AM_SrcDescAddr(sd));                                                         \
        fill(gex_AM_SrcDescAddr(sd), n, me, M, 0);                                             \
        AMCALL(gex_AM_CommitRequestMedium##M, sd, mreq[M], n R_##M);                           \
        if (variant == 0)                                                                      \
            CHECK(lc == GEX_EVENT_INVALID, "Medium lc event not written at Commit");          \
        n = long_size(M);                                                                      \
        sd = gex_AM_PrepareRequestLong(tm, p, NULL, 0, 10, NULL, NULL, 0, 0);                  \
        CHECK(gex_AM_CancelRequestLong(sd, 0) == GASNET_OK, "cancel");                         \
        lc = GEX_EVENT_NO_OP;                                                                  \
        sd = gex_AM_PrepareRequestLong(tm, p, cbuf, n, n, NULL, lc_opt, 0, M);                 \
        CHECK(gex_AM_SrcDescSize(sd) == n && (cbuf == NULL || gex_AM_SrcDescAddr(sd) == cbuf), \
              "Long M=%d variant %d: granted %zu", M, variant, gex_AM_SrcDescSize(sd));        \
        fill(gex_AM_SrcDescAddr(sd), n, me, M, 0);                                             \
        CHECK(AMCALL(gex_AM_CommitRequestLong##M##_v2, sd, lreq[M], n,                         \
                     long_dest(p, me, M, 0), M % 2 ? GEX_FLAG_IMMEDIATE : 0 R_##M) == 0,       \
              "Long commit _v2");                                                              \
        if (variant == 0)                                                                      \
            CHECK(lc == GEX_EVENT_INVALID, "Long lc event not written at Commit");            \
        if (variant == 0)                                                                      \
            gex_Event_Wait(gex_Event_QueryLeaf(lc, GEX_EC_LC));                                \
    }
FOR_M(SENDER)

typedef void (*sender_fn)(gex_Rank_t, int);
#define SENDER_PTR(M) send_##M,
static const sender_fn senders[NM] = { FOR_M(SENDER_PTR) };

/* Negotiation: the granted size lies in [least, most], and is most when gp can afford it. */
static void grants(void)
{
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, me, NULL, 10, 100000, NULL, 0, 2);
    size_t max = gex_AM_MaxRequestMedium(tm, me, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 2);
    CHECK(gex_AM_SrcDescSize(sd) == max, "Medium granted %zu, not the limit %zu",
          gex_AM_SrcDescSize(sd), max);
    gex_AM_CancelRequestMedium(sd, 0);
    sd = gex_AM_PrepareRequestMedium(tm, me, NULL, 0, 0, NULL, 0, 0); /* t:testexit's */
    CHECK(gex_AM_SrcDescSize(sd) == 0, "zero-byte Medium granted %zu", gex_AM_SrcDescSize(sd));
    gex_AM_CancelRequestMedium(sd, 0);
    sd = gex_AM_PrepareRequestLong(tm, me, NULL, 100, 200000, NULL, NULL, 0, 0);
    size_t got = gex_AM_SrcDescSize(sd);
    CHECK(got >= 100 && got <= 200000, "Long granted %zu outside [100, 200000]", got);
    memset(gex_AM_SrcDescAddr(sd), 0x5a, got); /* the whole grant is writable */
    gex_AM_CancelRequestLong(sd, 0);
}

static void barrier(void)
{
    gex_Coll_BarrierBlocking(tm, 0);
}

static int misuse(const char *mode)
{
    gex_AM_SrcDesc_t sd;
    if (strcmp(mode, "commit_nargs") == 0) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 0, 8, NULL, 0, 2);
        gex_AM_CommitRequestMedium3(sd, mreq[3], 8, 1, 2, 3);
    } else if (strcmp(mode, "commit_twice") == 0) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 0, 8, NULL, 0, 0);
        gex_AM_CommitRequestMedium0(sd, mreq[0], 0);
        gex_AM_CommitRequestMedium0(sd, mreq[0], 0);
    } else if (strcmp(mode, "least_over") == 0) {
        gex_AM_PrepareRequestMedium(tm, 0, NULL, 961, 2000, NULL, 0, 0);
    } else if (strcmp(mode, "nbytes_over") == 0) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 0, 100, NULL, 0, 0);
        gex_AM_CommitRequestMedium0(sd, mreq[0], 200);
    } else if (strcmp(mode, "lc_gp_buffer") == 0) {
        gex_AM_PrepareRequestLong(tm, 0, NULL, 0, 100, NULL, GEX_EVENT_NOW, 0, 0);
    }
    barrier();
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "ex_npam";
    CHECK(gex_Client_Init(&client, &ep, &tm, "ex_npam", &argc, &argv, 0) == GASNET_OK, "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    CHECK(ranks <= 4, "at most 4 ranks");
    register_handlers();
    CHECK(gex_Segment_Attach(&seg, tm, SEGSZ) == GASNET_OK, "attach");
    for (gex_Rank_t r = 0; r < ranks; r++)
        gex_Segment_QueryBound(tm, r, (void **)&segbase[r], NULL, NULL);
    if (argc > 1)
        return misuse(argv[1]);
    barrier();
    grants();
    for (gex_Rank_t p = 0; p < ranks; p++)
        for (int m = 0; m < NM; m++)
            senders[m](p, (int)((p + (gex_Rank_t)m) % 4));
    int want = 2 * NM * (int)ranks;
    GASNET_BLOCKUNTIL(replies == want);
    gex_NBI_Wait(GEX_EC_AM, 0);
    barrier();
    CHECK(requests == want, "%d requests ran here, expected %d", requests, want);
    printf("ex_npam: rank %u of %u: every Prepare/Commit/Cancel form at 0..16 arguments "
           "verified\n", me, ranks);
    fflush(stdout);
    barrier();
    gasnet_exit(0);
    return 0;
}
