/*
 * A GASNet-EX client end to end under gp-run: gex_Client_Init, handler
 * registration with indices written back (top down), system and segment
 * queries, gex_Segment_Attach, every AM category at every argument count
 * 0..16 to every rank with each argument, payload byte and gex_Token_Info
 * field checked and answered by a reply of the same kind, RMA in every
 * form with every byte checked, events and NBI sets and access regions,
 * HSLs, and GASNet-1 calls mixed in.  Public API only.
 *
 * Usage: ex_core            the whole run
 *        ex_core legacy     a GASNet-1 client reaching the EX objects
 *        ex_core MODE       one misuse (see misuse() below)
 */
#include <gasnetex.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define FOR_M(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) \
    X(13) X(14) X(15) X(16)
#define NM 17
#define SEGSZ (8u << 20)
#define LSLOT 4096u                       /* one (source, M) Long destination */
#define LONG_SIZE(m) ((size_t)(m) * 200)  /* M=0: a zero-byte Long */
#define REQ_AREA 0u                       /* Long requests land here, by (source, M) */
#define REP_AREA (1u << 20)               /* Long replies land here, by (target, M) */
#define RMA_AREA (2u << 20)               /* puts from the rank before, by form */
#define RMA_SLOT (256u << 10)
#define GET_AREA (7u << 20)               /* what the rank after gets from here */
#define BIG 70000u                        /* larger than a chunk: the transfer is split */

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;
static gex_Segment_t seg;
static gex_Rank_t me, ranks;
static char *segbase[64];
static gex_AM_Entry_t table[1 + 6 * NM];
static gex_AM_Index_t sreq[NM], srep[NM], mreq[NM], mrep[NM], lreq[NM], lrep[NM];
static const char *names[6 * NM];
static volatile int replies, requests;
static gex_HSL_t count_lock = GEX_HSL_INITIALIZER;
static void barrier(void);

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

/* The token's facts, checked against what this handler was registered as. */
static gex_Rank_t check_token(gex_Token_t t, gex_AM_Index_t index, int m, int is_req, int is_long)
{
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK(got == GEX_TI_ALL, "gex_Token_Info filled 0x%x of 0x%x", got, GEX_TI_ALL);
    CHECK(info.gex_srcrank < ranks, "srcrank %u", info.gex_srcrank);
    CHECK(info.gex_ep == ep, "gex_ep %p, not the primordial endpoint", (void *)info.gex_ep);
    CHECK(info.gex_entry->gex_index == index && info.gex_entry->gex_nargs == (unsigned)m,
          "entry index %u nargs %u, expected %u and %d", info.gex_entry->gex_index,
          info.gex_entry->gex_nargs, index, m);
    /* cdata points at the client's entry: gp keeps gex_name as the client's pointer */
    const gex_AM_Entry_t *mine = info.gex_entry->gex_cdata;
    CHECK(mine != NULL && mine->gex_name == info.gex_entry->gex_name &&
              mine->gex_fnptr == info.gex_entry->gex_fnptr, "entry cdata and name");
    CHECK(!info.gex_is_req == !is_req && !info.gex_is_long == !is_long,
          "is_req %d is_long %d, expected %d %d", info.gex_is_req, info.gex_is_long, is_req,
          is_long);
    gex_Rank_t src = info.gex_srcrank;
    gex_Rank_t legacy;
    CHECK(gasnet_AMGetMsgSource(t, &legacy) == GASNET_OK && legacy == src, "gasnet_AMGetMsgSource");
    return src;
}

static void check_args(const gex_AM_Arg_t *got, int m, gex_Rank_t src, int rep)
{
    for (int i = 0; i < m; i++)
        CHECK(got[i] == argval(src, m, i, rep), "M=%d argument %d is %d, expected %d", m, i,
              got[i], argval(src, m, i, rep));
}

#define HANDLERS(M)                                                                          \
    static void short_req_##M(gex_Token_t t DECL_##M)                                        \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M }, r[16];                                        \
        gex_Rank_t src = check_token(t, sreq[M], M, 1, 0);                                   \
        check_args(got + 1, M, src, 0);                                                      \
        for (int i = 0; i < M; i++)                                                          \
            r[i] = argval(me, M, i, 1);                                                      \
        (void)r;                                                                             \
        count(&requests);                                                                    \
        AMCALL(gex_AM_ReplyShort##M, t, srep[M], 0 R_##M);                                   \
    }                                                                                        \
    static void short_rep_##M(gex_Token_t t DECL_##M)                                        \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M };                                               \
        gex_Rank_t src = check_token(t, srep[M], M, 0, 0);                                   \
        check_args(got + 1, M, src, 1);                                                      \
        count(&replies);                                                                     \
    }                                                                                        \
    static void medium_req_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                  \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M }, r[16];                                        \
        gex_Rank_t src = check_token(t, mreq[M], M, 1, 0);                                   \
        check_args(got + 1, M, src, 0);                                                      \
        CHECK(n == medium_size(M) && bytes_ok(buf, n, src, M, 0), "Medium M=%d payload", M); \
        for (int i = 0; i < M; i++)                                                          \
            r[i] = argval(me, M, i, 1);                                                      \
        (void)r;                                                                             \
        fill(buf, n, me, M, 1); /* the payload copy is the handler's: reply from it */       \
        CHECK(gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, M) >= gex_AM_LUBReplyMedium(),   \
              "gex_Token_MaxReplyMedium");                                                   \
        count(&requests);                                                                    \
        AMCALL(gex_AM_ReplyMedium##M, t, mrep[M], buf, n, GEX_EVENT_NOW, 0 R_##M);           \
    }                                                                                        \
    static void medium_rep_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                  \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M };                                               \
        gex_Rank_t src = check_token(t, mrep[M], M, 0, 0);                                   \
        check_args(got + 1, M, src, 1);                                                      \
        CHECK(n == medium_size(M) && bytes_ok(buf, n, src, M, 1), "Medium reply M=%d", M);   \
        count(&replies);                                                                     \
    }                                                                                        \
    static void long_req_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                    \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M }, r[16];                                        \
        gex_Rank_t src = check_token(t, lreq[M], M, 1, 1);                                   \
        check_args(got + 1, M, src, 0);                                                      \
        char *want = segbase[me] + REQ_AREA + ((size_t)src * NM + M) * LSLOT;                \
        CHECK(buf == want && n == LONG_SIZE(M) && bytes_ok(buf, n, src, M, 0),               \
              "Long M=%d payload at %p (%zu bytes), expected %p", M, buf, n, (void *)want);  \
        for (int i = 0; i < M; i++)                                                          \
            r[i] = argval(me, M, i, 1);                                                      \
        (void)r;                                                                             \
        unsigned char out[LONG_SIZE(16) + 1];                                                \
        fill(out, n, me, M, 1);                                                              \
        char *dest = segbase[src] + REP_AREA + ((size_t)me * NM + M) * LSLOT;                \
        count(&requests);                                                                    \
        AMCALL(gex_AM_ReplyLong##M, t, lrep[M], out, n, dest, GEX_EVENT_NOW, 0 R_##M);       \
    }                                                                                        \
    static void long_rep_##M(gex_Token_t t, void *buf, size_t n DECL_##M)                    \
    {                                                                                        \
        gex_AM_Arg_t got[17] = { 0 LIST_##M };                                               \
        gex_Rank_t src = check_token(t, lrep[M], M, 0, 1);                                   \
        check_args(got + 1, M, src, 1);                                                      \
        char *want = segbase[me] + REP_AREA + ((size_t)src * NM + M) * LSLOT;                \
        CHECK(buf == want && n == LONG_SIZE(M) && bytes_ok(buf, n, src, M, 1),               \
              "Long reply M=%d", M);                                                         \
        count(&replies);                                                                     \
    }
FOR_M(HANDLERS)

static void fixed_handler(gex_Token_t t, gex_AM_Arg_t a0)
{
    (void)t;
    CHECK(a0 == 42, "fixed handler got %d", a0);
    count(&requests);
}

/* Zero-byte Longs: buf is dest_addr even when that is no address at all. */
static void *const bogus_dest[3] = { NULL, (void *)(uintptr_t)1, (void *)~(uintptr_t)0 };
static volatile int zero_longs;
static gex_AM_Entry_t late_table[1];

static void zero_long_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t which)
{
    (void)t;
    CHECK(n == 0 && which >= 0 && which < 3 && buf == bogus_dest[which],
          "zero-byte Long %d: buf %p, %zu bytes", which, buf, n);
    count(&zero_longs);
}

/* A second registration, after attach: don't-care indices go on down from the first's. */
static void register_late(void)
{
    late_table[0] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)zero_long_handler,
                                      GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, "zero" };
    CHECK(gex_EP_RegisterHandlers(ep, late_table, 1) == GASNET_OK, "second registration");
    CHECK(late_table[0].gex_index == 255 - 6 * NM, "late entry got index %u, expected %d",
          late_table[0].gex_index, 255 - 6 * NM);
    barrier(); /* every rank registered it before anyone sends to it */
    for (int which = 0; which < 3; which++)
        CHECK(gex_AM_RequestLong1(tm, (me + 1) % ranks, late_table[0].gex_index,
                                  (void *)(uintptr_t)1, 0, bogus_dest[which], GEX_EVENT_NOW, 0,
                                  which) == 0, "zero-byte Long");
    GASNET_BLOCKUNTIL(zero_longs == 3);
}

/* The table: one fixed index (130), then every handler with index 0 (gp picks, top down). */
static void build_table(void)
{
    static char namebuf[6 * NM][24];
    size_t k = 0;
    table[k++] = (gex_AM_Entry_t){ 130, (gex_AM_Fn_t)fixed_handler,
                                   GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "fixed" };
#define ENTRY(fn, flags, M, cat)                                                    \
    snprintf(namebuf[k - 1], sizeof namebuf[0], "%s_%d", #cat, M);                  \
    names[k - 1] = namebuf[k - 1];                                                  \
    table[k] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)fn, flags, M, &table[k], names[k - 1] }; \
    k++;
#define ENTRIES(M)                                                                        \
    ENTRY(short_req_##M, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, M, short_req)           \
    ENTRY(short_rep_##M, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, M, short_rep)             \
    ENTRY(medium_req_##M, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, M, medium_req)        \
    ENTRY(medium_rep_##M, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDLONG, M, medium_rep)         \
    ENTRY(long_req_##M, GEX_FLAG_AM_REQREP | GEX_FLAG_AM_LONG, M, long_req)               \
    ENTRY(long_rep_##M, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_LONG, M, long_rep)
    FOR_M(ENTRIES)
}

static void register_handlers(void)
{
    build_table();
    size_t n = sizeof table / sizeof table[0];
    CHECK(gex_EP_RegisterHandlers(ep, table, n) == GASNET_OK, "gex_EP_RegisterHandlers");
    CHECK(table[0].gex_index == 130, "the fixed index moved to %u", table[0].gex_index);
    for (size_t k = 1; k < n; k++) /* top down, in table order, skipping the fixed one */
        CHECK(table[k].gex_index == 255 - (k - 1),
              "entry %zu got index %u", k, table[k].gex_index);
    for (int m = 0; m < NM; m++) {
        sreq[m] = table[1 + 6 * m].gex_index;
        srep[m] = table[2 + 6 * m].gex_index;
        mreq[m] = table[3 + 6 * m].gex_index;
        mrep[m] = table[4 + 6 * m].gex_index;
        lreq[m] = table[5 + 6 * m].gex_index;
        lrep[m] = table[6 + 6 * m].gex_index;
    }
}

#define SENDER(M)                                                                              \
    static void send_##M(gex_Rank_t p, int variant)                                            \
    {                                                                                          \
        gex_AM_Arg_t r[16];                                                                    \
        unsigned char buf[961];                                                                \
        for (int i = 0; i < M; i++)                                                            \
            r[i] = argval(me, M, i, 0);                                                        \
        (void)r;                                                                               \
        gex_Flags_t flags = variant ? GEX_FLAG_IMMEDIATE : 0;                                  \
        CHECK(AMCALL(gex_AM_RequestShort##M, tm, p, sreq[M], flags R_##M) == 0, "Short");      \
        fill(buf, medium_size(M), me, M, 0);                                                   \
        gex_Event_t lc = GEX_EVENT_NO_OP;                                                      \
        gex_Event_t *lc_opt = variant == 0 ? &lc : variant == 1 ? GEX_EVENT_NOW : GEX_EVENT_GROUP; \
        CHECK(AMCALL(gex_AM_RequestMedium##M, tm, p, mreq[M], buf, medium_size(M), lc_opt,      \
                     flags R_##M) == 0, "Medium");                                             \
        if (variant == 0)                                                                      \
            gex_Event_Wait(lc);                                                                \
        memset(buf, 0, sizeof buf); /* local completion: the source may be reused */           \
        unsigned char lbuf[LONG_SIZE(16) + 1];                                                 \
        fill(lbuf, LONG_SIZE(M), me, M, 0);                                                    \
        char *dest = segbase[p] + REQ_AREA + ((size_t)me * NM + M) * LSLOT;                    \
        CHECK(AMCALL(gex_AM_RequestLong##M, tm, p, lreq[M], lbuf, LONG_SIZE(M), dest, lc_opt,  \
                     flags R_##M) == 0, "Long");                                               \
        if (variant == 0)                                                                      \
            CHECK(gex_Event_Test(lc) == GASNET_OK, "Long lc event");                           \
    }
FOR_M(SENDER)

typedef void (*sender_fn)(gex_Rank_t, int);
#define SENDER_PTR(M) send_##M,
static const sender_fn senders[NM] = { FOR_M(SENDER_PTR) };

static void barrier(void)
{
    gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED); /* a GASNet-1 call in an EX client */
}

static void am_round(void)
{
    static int rounds;
    int before_rep = replies;
    for (gex_Rank_t p = 0; p < ranks; p++)
        for (int m = 0; m < NM; m++)
            senders[m](p, (int)((p + (gex_Rank_t)m) % 3));
    /* The arity-free forms, with zero and three handler arguments. */
    CHECK(gex_AM_RequestShort(tm, me, sreq[0], 0) == 0, "arity-free Short, no argument");
    CHECK(gex_AM_RequestShort(tm, me, sreq[3], 0, argval(me, 3, 0, 0), argval(me, 3, 1, 0),
                              argval(me, 3, 2, 0)) == 0, "arity-free Short, 3 arguments");
    CHECK(gex_AM_RequestShort1(tm, (me + 1) % ranks, 130, 0, 42) == 0, "fixed index");
    int want = (int)ranks * NM * 3 + 2;
    GASNET_BLOCKUNTIL(replies - before_rep == want);
    gex_NBI_Wait(GEX_EC_AM, 0);
    CHECK(gex_NBI_Test(GEX_EC_LC, 0) == GASNET_OK, "nothing of GEX_EC_LC left");
    barrier();
    rounds++; /* peers' requests may arrive before this rank starts a round: count in total */
    CHECK(requests == rounds * (want + 1), "%d requests ran here, expected %d", requests,
          rounds * (want + 1));
    barrier(); /* no request of the next round counted in this one */
}

static void pattern(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static int pattern_ok(const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 8)))
            return 0;
    return 1;
}

enum { F_BLOCKING, F_BLOCKING_FN, F_NB_LEAF, F_NB_DEFER, F_NBI_GROUP, F_REGION, F_VAL, NFORMS };
static const size_t sizes[] = { 1, 1000, BIG };

static void rma_round(void)
{
    gex_Rank_t next = (me + 1) % ranks, prev = (me + ranks - 1) % ranks;
    static unsigned char src[3][BIG];
    static unsigned char got[BIG];
    char *area = segbase[next] + RMA_AREA;
    memset(segbase[me] + RMA_AREA, 0, (size_t)NFORMS * RMA_SLOT);
    pattern((unsigned char *)segbase[me] + GET_AREA, BIG, 900 + me);
    barrier();
    for (int s = 0; s < 3; s++)
        pattern(src[s], sizes[s], (unsigned)(me * 10 + s));
    /* Each form writes the three sizes into its own slot of the next rank's segment. */
    size_t off[3] = { 0, 16, 4096 };
    for (int s = 0; s < 3; s++) {
        size_t n = sizes[s];
        CHECK(gex_RMA_PutBlocking(tm, next, area + F_BLOCKING * RMA_SLOT + off[s], src[s], n, 0) == 0, "PutBlocking");
        CHECK((gex_RMA_PutBlocking)(tm, next, area + F_BLOCKING_FN * RMA_SLOT + off[s], src[s], n,
                                    GEX_FLAG_PEER_SEG_BOUND) == 0, "(gex_RMA_PutBlocking)");
        gex_Event_t leaf = GEX_EVENT_NO_OP;
        gex_Event_t root = gex_RMA_PutNB(tm, next, area + F_NB_LEAF * RMA_SLOT + off[s], src[s], n, &leaf, 0);
        CHECK(leaf == GEX_EVENT_INVALID || gex_Event_QueryLeaf(root, GEX_EC_LC) == leaf, "leaf event");
        gex_Event_Wait(root);
        gex_Event_t e = gex_RMA_PutNB(tm, next, area + F_NB_DEFER * RMA_SLOT + off[s], src[s], n,
                                      GEX_EVENT_DEFER, GEX_FLAG_IMMEDIATE);
        CHECK(e != GEX_EVENT_NO_OP, "gp never declines an IMMEDIATE put");
        while (gex_Event_Test(e) != GASNET_OK)
            ;
        CHECK(gex_RMA_PutNBI(tm, next, area + F_NBI_GROUP * RMA_SLOT + off[s], src[s], n,
                             GEX_EVENT_GROUP, 0) == 0, "PutNBI");
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_NBI_BeginAccessRegion(0);
    for (int s = 0; s < 3; s++)
        gex_RMA_PutNBI(tm, next, area + F_REGION * RMA_SLOT + off[s], src[s], sizes[s], GEX_EVENT_NOW, 0);
    gex_Event_t region = gex_NBI_EndAccessRegion(0);
    gex_Event_Wait(region);
    /* Values of 1, 2, 4 and 8 bytes, by each value form. */
    char *vals = area + F_VAL * RMA_SLOT;
    static const size_t vsizes[] = { 1, 2, 4, 8 };
    for (int v = 0; v < 4; v++) {
        gex_RMA_Value_t value = 0x8877665544332211ull + (gex_RMA_Value_t)me;
        gex_RMA_PutBlockingVal(tm, next, vals + 64 * v, value, vsizes[v], 0);
        gex_Event_Wait(gex_RMA_PutNBVal(tm, next, vals + 64 * v + 16, value, vsizes[v], 0));
        gex_RMA_PutNBIVal(tm, next, vals + 64 * v + 32, value, vsizes[v], 0);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    barrier();
    /* What the rank before put here. */
    char *mine = segbase[me] + RMA_AREA;
    for (int f = 0; f < F_VAL; f++)
        for (int s = 0; s < 3; s++)
            CHECK(pattern_ok((unsigned char *)mine + f * RMA_SLOT + off[s], sizes[s], prev * 10 + s),
                  "form %d, %zu bytes from rank %u", f, sizes[s], prev);
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 3; k++) {
            gex_RMA_Value_t value = 0x8877665544332211ull + (gex_RMA_Value_t)prev, read = 0;
            memcpy(&read, mine + F_VAL * RMA_SLOT + 64 * v + 16 * k, vsizes[v]);
            uint64_t mask = vsizes[v] == 8 ? ~0ull : ((1ull << (8 * vsizes[v])) - 1);
            CHECK(read == (value & mask), "value form %d of %zu bytes: 0x%llx", k, vsizes[v],
                  (unsigned long long)read);
        }
    /* Gets of what the next rank laid out, in every form. */
    char *there = segbase[next] + GET_AREA;
    unsigned seed = 900 + next;
    for (int s = 0; s < 3; s++) {
        size_t n = sizes[s];
        memset(got, 0, n);
        CHECK(gex_RMA_GetBlocking(tm, got, next, there, n, 0) == 0, "GetBlocking");
        CHECK(pattern_ok(got, n, seed), "GetBlocking of %zu bytes", n);
        memset(got, 0, n);
        (gex_RMA_GetBlocking)(tm, got, next, there, n, 0);
        CHECK(pattern_ok(got, n, seed), "(gex_RMA_GetBlocking) of %zu bytes", n);
        memset(got, 0, n);
        gex_Event_t ev[4] = { GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID };
        ev[1] = gex_RMA_GetNB(tm, got, next, there, n / 2, 0);
        ev[3] = gex_RMA_GetNB(tm, got + n / 2, next, there + n / 2, n - n / 2, 0);
        gex_Event_WaitSome(ev, 4, 0);
        CHECK(ev[1] == GEX_EVENT_INVALID || ev[3] == GEX_EVENT_INVALID, "WaitSome retired none");
        while (gex_Event_TestAll(ev, 4, 0) != GASNET_OK)
            ;
        CHECK(pattern_ok(got, n, seed), "GetNB of %zu bytes", n);
        memset(got, 0, n);
        gex_RMA_GetNBI(tm, got, next, there, n, 0);
        while (gex_NBI_Test(GEX_EC_GET, 0) != GASNET_OK)
            ;
        CHECK(pattern_ok(got, n, seed), "GetNBI of %zu bytes", n);
        memset(got, 0, n);
        ev[0] = gex_RMA_GetNB(tm, got, next, there, n, 0);
        while (gex_Event_TestSome(ev, 4, 0) != GASNET_OK)
            ;
        gex_Event_WaitAll(ev, 4, 0);
        CHECK(pattern_ok(got, n, seed), "GetNB (TestSome) of %zu bytes", n);
    }
    gex_Event_t none[2] = { GEX_EVENT_INVALID, GEX_EVENT_INVALID };
    CHECK(gex_Event_TestSome(none, 2, 0) == GASNET_OK && gex_Event_TestAll(none, 2, 0) == GASNET_OK,
          "Test on invalid events");
    CHECK(gex_Event_Test(GEX_EVENT_INVALID) == GASNET_OK, "GEX_EVENT_INVALID is complete");
    for (int v = 0; v < 4; v++) {
        gex_RMA_Value_t want = 0, got_v = gex_RMA_GetBlockingVal(tm, next, there, vsizes[v], 0);
        unsigned char expect[8];
        pattern(expect, 8, seed);
        memcpy(&want, expect, vsizes[v]);
        CHECK(got_v == want, "GetBlockingVal of %zu bytes: 0x%llx, expected 0x%llx", vsizes[v],
              (unsigned long long)got_v, (unsigned long long)want);
    }
    barrier();
}

static void queries_before_attach(void)
{
    CHECK(gex_TM_QueryRank(tm) == gasnet_mynode() && gex_TM_QuerySize(tm) == gasnet_nodes(),
          "TM0 rank/size against gasnet_mynode/nodes");
    CHECK(gex_System_QueryJobRank() == me && gex_System_QueryJobSize() == ranks, "job rank/size");
    CHECK(gasneti_mynode == me, "gasneti_mynode, GASNet's internal name, is the jobrank");
    CHECK(gex_TM_QueryEP(tm) == ep && gex_EP_QueryClient(ep) == client &&
          gex_TM_QueryClient(tm) == client, "object links");
    CHECK(strcmp(gex_Client_QueryName(client), "ex_core") == 0, "client name");
    CHECK(gex_Client_QueryFlags(client) == GEX_FLAG_USES_GASNET1, "client flags");
    CHECK(gex_EP_QueryIndex(ep) == 0, "primordial EP index");
    CHECK(gex_EP_QuerySegment(ep) == GEX_SEGMENT_INVALID, "a segment before attach");
    void *owner = &owner;
    uintptr_t size = 1;
    CHECK(gex_Segment_QueryBound(tm, me, &owner, NULL, &size) != 0 && owner == &owner,
          "QueryBound before attach wrote or reported a segment");
    CHECK(gex_EP_QueryBoundSegmentNB(tm, me, &owner, NULL, &size, GEX_FLAG_IMMEDIATE) ==
              GEX_EVENT_INVALID && owner == NULL && size == 0, "QueryBoundSegmentNB before attach");
    int x;
    gex_Client_SetCData(client, &x);
    gex_EP_SetCData(ep, &x);
    gex_TM_SetCData(tm, &x);
    CHECK(gex_Client_QueryCData(client) == &x && gex_EP_QueryCData(ep) == &x &&
          gex_TM_QueryCData(tm) == &x, "cdata");
    for (gex_Rank_t r = 0; r < ranks; r++)
        CHECK(gex_TM_TranslateRankToJobrank(tm, r) == r && gex_TM_TranslateJobrankToRank(tm, r) == r &&
              gex_TM_TranslateRankToEP(tm, r, 0).gex_rank == r &&
              gex_TM_TranslateRankToEP(tm, r, 0).gex_ep_index == 0, "rank translation");
    CHECK(gex_TM_TranslateJobrankToRank(tm, ranks) == GEX_RANK_INVALID, "a non-member");
    /* System queries, against gasnet_getNodeInfo (GASNet-1). */
    gasnet_nodeinfo_t info[64];
    CHECK(gasnet_getNodeInfo(info, (int)ranks) == GASNET_OK, "gasnet_getNodeInfo");
    gex_RankInfo_t *nbrhd, *host;
    gex_Rank_t nn, ni, hn, hi, nsets, nrank, hsets, hrank;
    gex_System_QueryNbrhdInfo(&nbrhd, &nn, &ni);
    gex_System_QueryHostInfo(&host, &hn, &hi);
    gex_System_QueryMyPosition(&nsets, &nrank, &hsets, &hrank);
    CHECK(nbrhd[ni].gex_jobrank == me && host[hi].gex_jobrank == me && nn <= hn, "my places");
    for (gex_Rank_t k = 0; k < nn; k++)
        CHECK(info[nbrhd[k].gex_jobrank].supernode == info[me].supernode &&
              (k == 0 || nbrhd[k].gex_jobrank > nbrhd[k - 1].gex_jobrank), "neighbourhood");
    for (gex_Rank_t k = 0; k < hn; k++)
        CHECK(info[host[k].gex_jobrank].host == info[me].host &&
              (k == 0 || host[k].gex_jobrank > host[k - 1].gex_jobrank), "host");
    CHECK(nrank == info[me].supernode && hrank == info[me].host && nsets >= hsets && nrank < nsets &&
          hrank < hsets, "QueryMyPosition");
    CHECK(gex_System_GetVerboseErrors() == 1, "verbose errors start on");
    CHECK(gex_System_QueryHiddenAMConcurrencyLevel() == GASNET_HIDDEN_AM_CONCURRENCY_LEVEL, "hidden AM");
    CHECK(gex_System_QueryMaxThreads() >= 1, "max threads");
    unsigned count_threads;
    const gex_ProgressThreadInfo_t *pti;
    CHECK(gex_System_QueryProgressThreads(client, &count_threads, &pti, 0) == GASNET_ERR_RESOURCE,
          "progress threads without GEX_FLAG_DEFER_THREADS");
    gex_EP_t ep2 = GEX_EP_INVALID;
    CHECK(gex_EP_Create(&ep2, client, GEX_EP_CAPABILITY_ALL, 0) == GASNET_ERR_RESOURCE &&
          ep2 == GEX_EP_INVALID, "gex_EP_Create with GASNET_MAXEPS 1");
    CHECK(gex_AM_MaxArgs() >= 16 && gex_AM_LUBRequestMedium() >= 512 &&
          gex_AM_MaxRequestMedium(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16) >= gex_AM_LUBRequestMedium() &&
          gex_AM_MaxReplyLong(tm, 0, NULL, GEX_FLAG_IMMEDIATE, 0) >= gex_AM_LUBReplyLong() &&
          gex_AM_MaxArgs() == gasnet_AMMaxArgs() && gex_AM_LUBRequestMedium() == gasnet_AMMaxMedium(),
          "payload limits");
}

static void queries_after_attach(void)
{
    CHECK(gex_EP_QuerySegment(ep) == seg && gex_Segment_QuerySize(seg) >= SEGSZ &&
          gex_Segment_QuerySize(seg) % GASNET_PAGESIZE == 0 && gex_Segment_QueryClient(seg) == client,
          "segment queries");
    gasnet_seginfo_t si[64];
    CHECK(gasnet_getSegmentInfo(si, (int)ranks) == GASNET_OK && si[me].addr == gex_Segment_QueryAddr(seg),
          "gasnet_getSegmentInfo sees gex_Segment_Attach's segment");
    gex_Client_t c2;
    gex_Segment_t s2;
    gasnet_QueryGexObjects(&c2, NULL, NULL, &s2);
    CHECK(c2 == client && s2 == seg, "gasnet_QueryGexObjects");
    gex_RankInfo_t *nbrhd;
    gex_Rank_t nn, ni;
    gex_System_QueryNbrhdInfo(&nbrhd, &nn, &ni);
    for (gex_Rank_t r = 0; r < ranks; r++) {
        void *owner, *local;
        uintptr_t size;
        CHECK(gex_Segment_QueryBound(tm, r, &owner, &local, &size) == 0 && size >= SEGSZ &&
              owner == si[r].addr, "QueryBound of rank %u", r);
        segbase[r] = owner;
        int in_nbrhd = 0;
        for (gex_Rank_t k = 0; k < nn; k++)
            in_nbrhd |= nbrhd[k].gex_jobrank == r;
        CHECK(!in_nbrhd || local != NULL, "no local address for neighbour %u", r);
    }
    /* A store through each neighbour's local address, seen by its owner after a barrier. */
    for (gex_Rank_t k = 0; k < nn; k++) {
        void *local;
        gex_Rank_t r = nbrhd[k].gex_jobrank;
        gex_EP_QueryBoundSegmentNB(tm, r, NULL, &local, NULL, 0);
        ((volatile unsigned char *)local)[GET_AREA - 1 - me] = (unsigned char)(me + 1);
    }
    barrier();
    for (gex_Rank_t k = 0; k < nn; k++)
        CHECK(((volatile unsigned char *)segbase[me])[GET_AREA - 1 - nbrhd[k].gex_jobrank] ==
                  (unsigned char)(nbrhd[k].gex_jobrank + 1), "store from neighbour %u", nbrhd[k].gex_jobrank);
}

static void hsl_checks(void)
{
    gex_HSL_t l;
    gex_HSL_Init(&l);
    gex_HSL_Lock(&l);
    gex_HSL_Unlock(&l);
    CHECK(gex_HSL_Trylock(&l) == GASNET_OK, "Trylock of a free lock");
    gex_HSL_Unlock(&l);
    gex_HSL_Destroy(&l);
    gasnet_hsl_t *legacy = &l; /* the same type */
    (void)legacy;
}

/* A GASNet-1 client (gasnet_init, gasnet_attach) reaching the EX objects and calls. */
static int legacy_first(int *argc, char ***argv)
{
    CHECK(gasnet_init(argc, argv) == GASNET_OK, "gasnet_init");
    CHECK(gasnet_attach(NULL, 0, 1 << 20, 0) == GASNET_OK, "gasnet_attach");
    me = gasnet_mynode();
    ranks = gasnet_nodes();
    gasnet_QueryGexObjects(&client, &ep, &tm, &seg);
    gasnet_seginfo_t si[64];
    CHECK(gasnet_getSegmentInfo(si, (int)ranks) == GASNET_OK, "gasnet_getSegmentInfo");
    CHECK(tm != GEX_TM_INVALID && gex_TM_QueryEP(tm) == ep && gex_EP_QueryClient(ep) == client &&
          gex_EP_QuerySegment(ep) == seg && gex_Segment_QueryAddr(seg) == si[me].addr &&
          gex_Segment_QuerySize(seg) >= (1 << 20) && gex_TM_QueryRank(tm) == me,
          "the EX objects of a GASNet-1 client");
    gex_Rank_t next = (me + 1) % ranks;
    uint64_t v = 0x1122334455667788ull + me;
    CHECK(gex_RMA_PutBlocking(tm, next, (char *)si[next].addr + 8 * me, &v, 8, 0) == 0, "put");
    gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED);
    gex_Rank_t prev = (me + ranks - 1) % ranks;
    CHECK(((uint64_t *)si[me].addr)[prev] == 0x1122334455667788ull + prev, "the put arrived");
    printf("ex_core: rank %u: a GASNet-1 client used the EX objects\n", me);
    fflush(stdout);
    gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED);
    gasnet_exit(0);
    return 0;
}

/* Misuse: each mode ends in a named error (fatal, or a return the test prints). */
static int misuse(const char *mode, int *argc, char ***argv)
{
    if (strcmp(mode, "client_flags") == 0) {
        int rc = gex_Client_Init(&client, &ep, &tm, "ex_core", argc, argv, 1u << 5);
        printf("ex_core: gex_Client_Init with a bad flag returned %s\n", gasnet_ErrorName(rc));
    }
    CHECK(gex_Client_Init(&client, &ep, &tm, "ex_core", argc, argv, 0) == GASNET_OK, "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    if (strcmp(mode, "bad_index") == 0) {
        gex_AM_Entry_t bad[1] = { { 12, (gex_AM_Fn_t)fixed_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, NULL } };
        printf("ex_core: bad index returned %s\n", gasnet_ErrorName(gex_EP_RegisterHandlers(ep, bad, 1)));
    } else if (strcmp(mode, "bad_flags") == 0) {
        gex_AM_Entry_t bad[1] = { { 0, (gex_AM_Fn_t)fixed_handler, GEX_FLAG_AM_SHORT, 1, NULL, NULL } };
        printf("ex_core: bad flags returned %s\n", gasnet_ErrorName(gex_EP_RegisterHandlers(ep, bad, 1)));
    } else if (strcmp(mode, "attach_too_big") == 0) {
        int rc = gex_Segment_Attach(&seg, tm, gasnet_getMaxLocalSegmentSize() + 1);
        printf("ex_core: too big an attach returned %s\n", gasnet_ErrorName(rc));
    } else if (strcmp(mode, "am_before_attach") == 0) {
        gex_AM_RequestShort0(tm, 0, 200, 0);
    }
    CHECK(gex_Segment_Attach(&seg, tm, 1 << 20) == GASNET_OK, "attach");
    char *base = gex_Segment_QueryAddr(seg);
    if (strcmp(mode, "bad_rank") == 0)
        gex_RMA_PutBlocking(tm, ranks + 5, base, base, 8, 0);
    else if (strcmp(mode, "value_size") == 0)
        gex_RMA_PutBlockingVal(tm, 0, base, 1, 9, 0);
    else if (strcmp(mode, "am_lc_defer") == 0)
        gex_AM_RequestMedium0(tm, 0, 200, base, 8, GEX_EVENT_DEFER, 0);
    else if (strcmp(mode, "no_op_event") == 0)
        gex_Event_Wait(GEX_EVENT_NO_OP);
    else if (strcmp(mode, "rma_offset") == 0) {
        /* Into the next rank's segment, which shm maps here: the inline path must refuse too. */
        void *next_base = NULL;
        gex_Segment_QueryBound(tm, (me + 1) % ranks, &next_base, NULL, NULL);
        gex_RMA_PutBlocking(tm, (me + 1) % ranks, next_base, base, 8, GEX_FLAG_PEER_SEG_OFFSET);
    } else if (strcmp(mode, "am_offset") == 0)
        gex_AM_RequestShort0(tm, 0, 200, GEX_FLAG_SELF_SEG_OFFSET);
    barrier();
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "ex_core";
    if (argc > 1 && strcmp(argv[1], "legacy") == 0)
        return legacy_first(&argc, &argv);
    if (argc > 1)
        return misuse(argv[1], &argc, &argv);
    CHECK(gex_Client_Init(&client, &ep, &tm, "ex_core", &argc, &argv, GEX_FLAG_USES_GASNET1) ==
              GASNET_OK, "gex_Client_Init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    CHECK(ranks <= 64, "at most 64 ranks");
    queries_before_attach();
    register_handlers();
    CHECK(gex_Segment_Attach(&seg, tm, SEGSZ - 100) == GASNET_OK, "gex_Segment_Attach");
    queries_after_attach();
    hsl_checks();
    barrier();
    for (int round = 0; round < 2; round++)
        am_round();
    register_late();
    rma_round();
    printf("ex_core: rank %u of %u: every AM category and argument count, every RMA form, "
           "events, NBI, queries and HSLs verified\n", me, ranks);
    fflush(stdout);
    barrier();
    gasnet_exit(0);
    return 0;
}
