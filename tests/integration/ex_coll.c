/*
 * GASNet-EX collectives under gp-run, on the primordial team and on a
 * split team whose ranks run backwards: barriers (one before attach, eight
 * outstanding retired in reverse, and a late rank's put seen after each),
 * broadcasts from every root of 0 to 5000 bytes (several Mediums) into
 * stack buffers and in place, reductions to one and to all for every
 * built-in type and operation with exact expected values (integer sums
 * and products that wrap), user operations on GEX_DT_USER and on a
 * built-in type with their cdata passed through, in-place reductions, 300
 * reductions outstanding at once, order-preserving user operations
 * (GEX_OP_USER_NC: hex-digit concatenation and 2x2 matrix products, which a
 * reduction that combined out of team rank order would get wrong) on those
 * teams and on a split by parity, and GASNet-1's collectives with no
 * gasnet_coll_init (§12.5).  Public API only.
 *
 * Usage: ex_coll            the whole run
 *        ex_coll MODE       one misuse (see misuse() below)
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "amtest.h"

#define SEGSZ (1u << 20)
#define FLAG_OFF 0u
#define NCNT 3
#define OUTSTANDING 300

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm0;
static gex_Segment_t seg;
static gex_Rank_t me, ranks;
static char *mybase;

/* A barrier must hold back every rank until the last has arrived: team rank 0 comes late
 * and stamps each member's segment first, and every member must see its stamp (or, when
 * it is slow, a later barrier's: stamps only grow) after. */
static void check_barrier(const char *what, gex_TM_t team, int nb)
{
    static uint32_t round;
    round++;
    gex_Rank_t n = gex_TM_QuerySize(team), r = gex_TM_QueryRank(team);
    uint32_t stamp = 0xba000000u | round;
    if (r == 0) {
        usleep(20000);
        for (gex_Rank_t t = 0; t < n; t++) {
            void *base;
            gex_Segment_QueryBound(team, t, &base, NULL, NULL);
            gex_RMA_PutBlocking(team, t, (char *)base + FLAG_OFF, &stamp, 4, 0);
        }
    }
    if (nb) {
        gex_Event_t e = gex_Coll_BarrierNB(team, 0);
        while (gex_Event_Test(e) != GASNET_OK)
            ;
    } else {
        gex_Coll_BarrierBlocking(team, 0);
    }
    uint32_t seen;
    memcpy(&seen, mybase + FLAG_OFF, 4);
    CHECK(seen >= stamp, "%s: barrier %u let rank %u through before team rank 0 arrived "
          "(%#x)", what, round, gex_TM_QueryRank(team), seen);
}

static void barriers(const char *what, gex_TM_t team)
{
    check_barrier(what, team, 0);
    check_barrier(what, team, 1);
    gex_Event_t e[8];
    for (int i = 0; i < 8; i++)
        e[i] = gex_Coll_BarrierNB(team, 0);
    for (int i = 8; i-- > 0;)
        gex_Event_Wait(e[i]);
    check_barrier(what, team, 0);
}

static unsigned char bcast_byte(gex_Rank_t root, size_t i, size_t n)
{
    return (unsigned char)(root * 37 + i * 11 + n + (i >> 8));
}

static void broadcasts(const char *what, gex_TM_t team)
{
    static const size_t sizes[] = { 0, 1, 1000, 5000 };
    gex_Rank_t n = gex_TM_QuerySize(team), r = gex_TM_QueryRank(team);
    for (gex_Rank_t root = 0; root < n; root++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t len = sizes[k];
            unsigned char src[5000], dst[5000];
            memset(dst, 0xee, sizeof dst);
            for (size_t i = 0; i < len; i++)
                src[i] = r == root ? bcast_byte(root, i, len) : 0x55;
            /* Roots alternate: from src, or in place. */
            int in_place = (root + k) % 2;
            unsigned char *to = in_place && r == root ? src : dst;
            gex_Event_Wait(gex_Coll_BroadcastNB(team, root, to, src, len, 0));
            for (size_t i = 0; i < len; i++)
                CHECK(to[i] == bcast_byte(root, i, len), "%s: broadcast of %zu from %u: byte "
                      "%zu is %#x", what, len, root, i, to[i]);
            if (to == dst && len < sizeof dst)
                CHECK(dst[len] == 0xee, "%s: broadcast of %zu wrote past its end", what, len);
        }
    }
}

/* Element i of the contribution of jobrank j: large enough that sums and products wrap. */
static uint64_t contribution(gex_Rank_t j, int i, int small)
{
    if (small) /* exact in float: sums and products of small integers */
        return (uint64_t)(j + 1 + i);
    return 0x7ffffff0fffffff0ull - (uint64_t)j * 0x1000000010001ull + (uint64_t)i * 977;
}

#define FOR_DTS(X)                                   \
    X(GEX_DT_I32, int32_t, uint32_t, 0)              \
    X(GEX_DT_U32, uint32_t, uint32_t, 0)             \
    X(GEX_DT_I64, int64_t, uint64_t, 0)              \
    X(GEX_DT_U64, uint64_t, uint64_t, 0)             \
    X(GEX_DT_FLT, float, float, 1)                   \
    X(GEX_DT_DBL, double, double, 1)

static const gex_OP_t ops[] = { GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX,
                                GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR };

/* One type: every op it takes, to one (each root) and to all (in place, too). */
#define REDUCE_DT(DT, T, U, FP)                                                              \
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {                                \
        gex_OP_t op = ops[o];                                                                \
        if (FP && (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR))                 \
            continue;                                                                        \
        int small = FP;                                                                      \
        T src[NCNT], dst[NCNT], want[NCNT];                                                  \
        for (int i = 0; i < NCNT; i++) {                                                     \
            src[i] = (T)contribution(me, i, small);                                          \
            for (gex_Rank_t t = 0; t < n; t++) {                                             \
                T x = (T)contribution(gex_TM_TranslateRankToJobrank(team, t), i, small);     \
                T y = want[i];                                                               \
                if (t == 0) { want[i] = x; continue; }                                       \
                want[i] = op == GEX_OP_ADD ? (T)((U)x + (U)y) : op == GEX_OP_MULT ? (T)((U)x * (U)y) \
                        : op == GEX_OP_MIN ? (x < y ? x : y) : op == GEX_OP_MAX ? (x > y ? x : y) \
                        : FOLD_BITS(T, U, op, x, y);                                         \
            }                                                                                \
        }                                                                                    \
        gex_Rank_t root = (gex_Rank_t)(o % n);                                               \
        memset(dst, 0, sizeof dst);                                                          \
        gex_Event_Wait(gex_Coll_ReduceToOneNB(team, root, dst, src, DT, sizeof(T), NCNT, op, \
                                              NULL, NULL, 0));                               \
        for (int i = 0; i < NCNT; i++)                                                       \
            CHECK(r == root ? dst[i] == want[i] : dst[i] == 0, "%s: %s op %#x to one (root "  \
                  "%u) element %d", what, #DT, (unsigned)op, root, i);                        \
        gex_Event_Wait(gex_Coll_ReduceToAllNB(team, dst, src, DT, sizeof(T), NCNT, op, NULL,  \
                                              NULL, 0));                                     \
        gex_Event_Wait(gex_Coll_ReduceToAllNB(team, src, src, DT, sizeof(T), NCNT, op, NULL,  \
                                              NULL, 0));                                     \
        for (int i = 0; i < NCNT; i++)                                                       \
            CHECK(dst[i] == want[i] && src[i] == want[i], "%s: %s op %#x to all element %d",  \
                  what, #DT, (unsigned)op, i);                                               \
        checked++;                                                                           \
    }
#define FOLD_BITS(T, U, op, x, y) FOLD_BITS_##U(T, op, x, y)
#define FOLD_BITS_uint32_t(T, op, x, y) INT_BITS(T, uint32_t, op, x, y)
#define FOLD_BITS_uint64_t(T, op, x, y) INT_BITS(T, uint64_t, op, x, y)
#define FOLD_BITS_float(T, op, x, y) (T)0
#define FOLD_BITS_double(T, op, x, y) (T)0
#define INT_BITS(T, U, op, x, y)                                                  \
    (T)(op == GEX_OP_AND ? ((U)x & (U)y) : op == GEX_OP_OR ? ((U)x | (U)y) : ((U)x ^ (U)y))

static void builtin_reductions(const char *what, gex_TM_t team)
{
    gex_Rank_t n = gex_TM_QuerySize(team), r = gex_TM_QueryRank(team);
    int checked = 0;
    FOR_DTS(REDUCE_DT)
    CHECK(checked == 4 * 7 + 2 * 4, "%s: %d type/op pairs", what, checked);
}

/* A user element of 5 bytes: bytewise sums mod 256.  cdata must come through. */
#define USZ 5
static int user_magic = 4242;
static void user_bytes(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    const unsigned char *a = arg1;
    unsigned char *b = arg2_and_out;
    CHECK(cdata == &user_magic, "user op: cdata %p, expected %p", cdata, (void *)&user_magic);
    for (size_t i = 0; i < count * USZ; i++)
        b[i] = (unsigned char)(a[i] + b[i]);
}
/* On a built-in type: the larger of the low 16 bits (commutative and associative). */
static void user_max_low(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    const uint64_t *a = arg1;
    uint64_t *b = arg2_and_out;
    (void)cdata;
    for (size_t i = 0; i < count; i++)
        b[i] = (a[i] & 0xffff) > (b[i] & 0xffff) ? a[i] : b[i];
}

static void user_reductions(const char *what, gex_TM_t team)
{
    gex_Rank_t n = gex_TM_QuerySize(team), r = gex_TM_QueryRank(team);
    unsigned char src[4 * USZ], dst[4 * USZ], want[4 * USZ];
    memset(want, 0, sizeof want);
    for (size_t i = 0; i < sizeof src; i++) {
        src[i] = (unsigned char)(me * 31 + i * 7 + 1);
        for (gex_Rank_t t = 0; t < n; t++)
            want[i] = (unsigned char)(want[i] + gex_TM_TranslateRankToJobrank(team, t) * 31 +
                                      i * 7 + 1);
    }
    gex_Rank_t root = n - 1;
    memset(dst, 0, sizeof dst);
    gex_Event_Wait(gex_Coll_ReduceToOneNB(team, root, dst, src, GEX_DT_USER, USZ, 4,
                                          GEX_OP_USER, user_bytes, &user_magic, 0));
    if (r == root)
        CHECK(memcmp(dst, want, sizeof want) == 0, "%s: user type to one", what);
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, src, src, GEX_DT_USER, USZ, 4, GEX_OP_USER,
                                          user_bytes, &user_magic, 0));
    CHECK(memcmp(src, want, sizeof want) == 0, "%s: user type to all, in place", what);

    uint64_t v[2] = { 0x1000000000ull * (me + 1) + (me * 7919 % 65536), me }, got[2], best[2] = { 0, 0 };
    for (gex_Rank_t t = 0; t < n; t++) {
        gex_Rank_t j = gex_TM_TranslateRankToJobrank(team, t);
        uint64_t x[2] = { 0x1000000000ull * (j + 1) + (j * 7919 % 65536), j };
        for (int i = 0; i < 2; i++)
            if (t == 0 || (x[i] & 0xffff) > (best[i] & 0xffff))
                best[i] = x[i];
    }
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, got, v, GEX_DT_U64, 8, 2, GEX_OP_USER,
                                          user_max_low, NULL, 0));
    CHECK(got[0] == best[0] && got[1] == best[1], "%s: user op on GEX_DT_U64", what);
}

/* Order-preserving operations.  A "word" is a string of hex digits: value and length, joined
 * with the left operand's digits first.  A matrix is 2x2 of uint32_t (products wrap).  Neither
 * commutes, so only team rank order gives the expected values. */
struct word {
    uint64_t digits, len;
};
struct mat {
    uint32_t a, b, c, d;
};
#define NC_CNT 3
static int nc_magic = 77;
static void concat(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    const struct word *x = arg1;
    struct word *y = arg2_and_out;
    CHECK(cdata == &nc_magic, "concat: cdata %p, expected %p", cdata, (void *)&nc_magic);
    for (size_t i = 0; i < count; i++) {
        y[i].digits = x[i].digits << (4 * y[i].len) | y[i].digits;
        y[i].len += x[i].len;
    }
}
static struct mat mat_mul(struct mat x, struct mat y)
{
    return (struct mat){ x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d,
                         x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d };
}
static void mat_product(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    const struct mat *x = arg1;
    struct mat *y = arg2_and_out;
    (void)cdata;
    for (size_t i = 0; i < count; i++)
        y[i] = mat_mul(x[i], y[i]);
}
/* Element e of jobrank j's contributions: one or two digits, and a matrix. */
static struct word word_of(gex_Rank_t j, int e)
{
    return e == 1 ? (struct word){ ((j + 1) & 0xf) << 4 | (j & 0xf), 2 }
                  : (struct word){ (j + 1 + e) & 0xf, 1 };
}
static struct mat mat_of(gex_Rank_t j, int e)
{
    return (struct mat){ j + 2, (uint32_t)e + 1, 1, j * 3 + (uint32_t)e };
}

static void nc_reductions(const char *what, gex_TM_t team)
{
    gex_Rank_t n = gex_TM_QuerySize(team), r = gex_TM_QueryRank(team);
    struct word w[NC_CNT], wdst[NC_CNT], wwant[NC_CNT];
    struct mat m[NC_CNT], mdst[NC_CNT], mwant[NC_CNT];
    for (int e = 0; e < NC_CNT; e++) {
        w[e] = word_of(me, e);
        m[e] = mat_of(me, e);
        wwant[e] = (struct word){ 0, 0 };
        mwant[e] = (struct mat){ 1, 0, 0, 1 };
        for (gex_Rank_t t = 0; t < n; t++) {
            gex_Rank_t j = gex_TM_TranslateRankToJobrank(team, t);
            struct word x = word_of(j, e);
            wwant[e] = (struct word){ wwant[e].digits << (4 * x.len) | x.digits,
                                      wwant[e].len + x.len };
            mwant[e] = mat_mul(mwant[e], mat_of(j, e));
        }
    }
    for (gex_Rank_t root = 0; root < n; root++) {
        memset(wdst, 0, sizeof wdst);
        memset(mdst, 0, sizeof mdst);
        gex_Event_t ev[2] = {
            gex_Coll_ReduceToOneNB(team, root, wdst, w, GEX_DT_USER, sizeof(struct word), NC_CNT,
                                   GEX_OP_USER_NC, concat, &nc_magic, 0),
            gex_Coll_ReduceToOneNB(team, root, mdst, m, GEX_DT_USER, sizeof(struct mat), NC_CNT,
                                   GEX_OP_USER_NC, mat_product, NULL, 0)
        };
        gex_Event_WaitAll(ev, 2, 0);
        for (int e = 0; e < NC_CNT; e++) {
            if (r != root) {
                CHECK(wdst[e].len == 0 && mdst[e].a == 0, "%s: USER_NC to one (root %u) wrote "
                      "a non-root's dst", what, root);
                continue;
            }
            CHECK(wdst[e].digits == wwant[e].digits && wdst[e].len == wwant[e].len,
                  "%s: USER_NC concatenation to one (root %u) element %d: %#llx (%llu digits), "
                  "expected %#llx", what, root, e, (unsigned long long)wdst[e].digits,
                  (unsigned long long)wdst[e].len, (unsigned long long)wwant[e].digits);
            CHECK(memcmp(&mdst[e], &mwant[e], sizeof mwant[e]) == 0, "%s: USER_NC matrix product "
                  "to one (root %u) element %d", what, root, e);
        }
    }
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, wdst, w, GEX_DT_USER, sizeof(struct word), NC_CNT,
                                          GEX_OP_USER_NC, concat, &nc_magic, 0));
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, m, m, GEX_DT_USER, sizeof(struct mat), NC_CNT,
                                          GEX_OP_USER_NC, mat_product, NULL, 0));
    for (int e = 0; e < NC_CNT; e++) {
        CHECK(wdst[e].digits == wwant[e].digits && wdst[e].len == wwant[e].len,
              "%s: USER_NC concatenation to all element %d: %#llx, expected %#llx", what, e,
              (unsigned long long)wdst[e].digits, (unsigned long long)wwant[e].digits);
        CHECK(memcmp(&m[e], &mwant[e], sizeof mwant[e]) == 0, "%s: USER_NC matrix product to "
              "all, in place, element %d", what, e);
    }
}

/* Many at once, retired together, each with its own exact sum. */
static void outstanding(void)
{
    static int64_t src[OUTSTANDING], dst[OUTSTANDING];
    static gex_Event_t ev[OUTSTANDING];
    for (int k = 0; k < OUTSTANDING; k++) {
        src[k] = (int64_t)k * 1000 + me;
        ev[k] = k % 3 == 0 ? gex_Coll_ReduceToOneNB(tm0, (gex_Rank_t)k % ranks, &dst[k], &src[k],
                                                    GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL, NULL, 0)
                           : gex_Coll_ReduceToAllNB(tm0, &dst[k], &src[k], GEX_DT_I64, 8, 1,
                                                    GEX_OP_ADD, NULL, NULL, 0);
    }
    /* Retired by every sync there is: TestSome until a third are in, GASNet-1's
     * wait_syncnb on single ones, then WaitAll (finished entries are INVALID by then). */
    size_t done = 0;
    while (done < OUTSTANDING / 3) {
        gex_Event_TestSome(ev, OUTSTANDING, 0);
        done = 0;
        for (int k = 0; k < OUTSTANDING; k++)
            done += ev[k] == GEX_EVENT_INVALID;
    }
    for (int k = 0; k < OUTSTANDING; k += 7) {
        gasnet_wait_syncnb(ev[k]);
        ev[k] = GEX_EVENT_INVALID;
    }
    gex_Event_WaitAll(ev, OUTSTANDING, 0);
    int64_t ranksum = (int64_t)ranks * (ranks - 1) / 2;
    for (int k = 0; k < OUTSTANDING; k++) {
        CHECK(ev[k] == GEX_EVENT_INVALID, "event %d retired", k);
        if (k % 3 != 0 || (gex_Rank_t)k % ranks == me)
            CHECK(dst[k] == (int64_t)k * 1000 * ranks + ranksum, "reduction %d of %d: %lld", k,
                  OUTSTANDING, (long long)dst[k]);
    }
}

/* GASNet-1's collectives in an EX client that never called gasnet_coll_init. */
static void legacy_collectives(void)
{
    uint64_t *src = (uint64_t *)(mybase + 8192), *dst = src + 1;
    *src = 0xc011000000ull + me;
    *dst = 0;
    int flags = GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_LOCAL |
                GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT;
    gex_Rank_t root = ranks - 1;
    gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, root, src, 8, flags);
    CHECK(*dst == 0xc011000000ull + root, "legacy broadcast without gasnet_coll_init");
}

static void on_team(const char *what, gex_TM_t team)
{
    barriers(what, team);
    broadcasts(what, team);
    builtin_reductions(what, team);
    user_reductions(what, team);
    nc_reductions(what, team);
}

static int misuse(const char *mode)
{
    int32_t x = 1, y;
    float f = 1;
    if (strcmp(mode, "bad_dt") == 0)
        gex_Coll_ReduceToAllNB(tm0, &y, &x, 1u << 9, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (strcmp(mode, "fp_and") == 0)
        gex_Coll_ReduceToAllNB(tm0, &f, &f, GEX_DT_FLT, 4, 1, GEX_OP_AND, NULL, NULL, 0);
    else if (strcmp(mode, "user_nc_no_fn") == 0)
        gex_Coll_ReduceToAllNB(tm0, &y, &x, GEX_DT_I32, 4, 1, GEX_OP_USER_NC, NULL, NULL, 0);
    else if (strcmp(mode, "dt_size") == 0)
        gex_Coll_ReduceToAllNB(tm0, &y, &x, GEX_DT_I32, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (strcmp(mode, "bcast_root") == 0)
        gex_Coll_BroadcastNB(tm0, ranks, &y, &x, 4, 0);
    else if (strcmp(mode, "barrier_flags") == 0)
        gex_Coll_BarrierNB(tm0, 4);
    gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED);
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "ex_coll";
    CHECK(gex_Client_Init(&client, &ep, &tm0, "ex_coll", &argc, &argv, 0) == GASNET_OK, "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    gex_Coll_BarrierBlocking(tm0, 0); /* before attach: test.h's first barrier */
    CHECK(gex_Segment_Attach(&seg, tm0, SEGSZ) == GASNET_OK, "attach");
    mybase = gex_Segment_QueryAddr(seg);
    if (argc > 1)
        return misuse(argv[1]);
    gex_TM_t backwards;
    gex_TM_Split(&backwards, tm0, 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    on_team("primordial team", tm0);
    on_team("reversed team", backwards);
    /* Team ranks by parity, ordered backwards: rank order is neither jobrank order nor its
     * reverse over the whole job. */
    gex_TM_t parity;
    gex_TM_Split(&parity, tm0, (int)(me % 2), -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    nc_reductions("parity team", parity);
    gex_TM_Destroy(parity, NULL, 0);
    outstanding();
    legacy_collectives();
    gex_TM_Destroy(backwards, NULL, 0);
    printf("ex_coll: rank %u of %u: barriers, broadcasts, every built-in and user reduction "
           "verified\n", me, ranks);
    fflush(stdout);
    gex_Coll_BarrierBlocking(tm0, 0);
    gasnet_exit(0);
    return 0;
}
