/*
 * GASNet-EX TM-pairs under gp-run: gex_TM_Pair(ep, 0) as the team of every
 * point-to-point call (RMA in each form, AM Requests of each category, VIS
 * of each kind, gex_AM_Max*, the bound-segment queries), its rank being a
 * jobrank even while a reversed team exists whose ranks are not.  Each rank
 * writes into the next jobrank's segment and the receiver checks what came
 * from the jobrank before it.  Public API only.
 *
 * Usage: ex_tmpair        the whole run
 *        ex_tmpair MODE   one misuse (see misuse() below)
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define SEGSZ (1u << 16)
#define SLOT(j) (8u * (j))     /* contiguous puts: one 8-byte slot per sender jobrank */
#define AM_OFF 1024u           /* Long payloads: one 8-byte slot per sender jobrank */
#define VIS_OFF 2048u          /* VIS: 64 bytes per sender jobrank */
#define H_SHORT 200
#define H_MEDIUM 201
#define H_LONG 202

static gex_EP_t ep;
static gex_TM_t tm0, pair;
static gex_Rank_t me, ranks, next, prev;
static char *mybase, *nextbase;

/* Handlers record the sender's jobrank + 1 and its argument (its own jobrank). */
static volatile uint32_t from_short, from_medium, from_long;

static uint32_t sender(gex_Token_t token, gex_AM_Arg_t said)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    CHECK(info.gex_srcrank == (gex_Rank_t)said, "srcrank %u, the sender says %d",
          info.gex_srcrank, (int)said);
    return info.gex_srcrank + 1;
}
static void on_short(gex_Token_t token, gex_AM_Arg_t said)
{
    __atomic_store_n(&from_short, sender(token, said), __ATOMIC_SEQ_CST);
}
static void on_medium(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t said)
{
    uint64_t v;
    CHECK(nbytes == 8, "Medium of %zu bytes", nbytes);
    memcpy(&v, buf, 8);
    CHECK(v == 0xbeef00000000ull + (uint64_t)said, "Medium payload %#llx",
          (unsigned long long)v);
    __atomic_store_n(&from_medium, sender(token, said), __ATOMIC_SEQ_CST);
}
static void on_long(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t said)
{
    CHECK(nbytes == 8 && buf == mybase + AM_OFF + 8 * (uint32_t)said, "Long at %p, %zu bytes",
          buf, nbytes);
    __atomic_store_n(&from_long, sender(token, said), __ATOMIC_SEQ_CST);
}

static void barrier(void)
{
    gex_Coll_BarrierBlocking(tm0, 0);
}

static uint64_t stamp(gex_Rank_t j, unsigned form) { return ((uint64_t)form << 40) | j; }

/* Each contiguous form puts into the next jobrank's slot and reads it back. */
static void rma(void)
{
    for (unsigned form = 0; form < 4; form++) {
        uint64_t v = stamp(me, form), back = 0;
        void *slot = nextbase + SLOT(me);
        memset(mybase, 0, AM_OFF);
        barrier();
        switch (form) {
        case 0:
            CHECK(gex_RMA_PutBlocking(pair, next, slot, &v, 8, 0) == 0, "PutBlocking");
            CHECK(gex_RMA_GetBlocking(pair, &back, next, slot, 8, 0) == 0, "GetBlocking");
            break;
        case 1:
            gex_Event_Wait(gex_RMA_PutNB(pair, next, slot, &v, 8, GEX_EVENT_NOW, 0));
            gex_Event_Wait(gex_RMA_GetNB(pair, &back, next, slot, 8, 0));
            break;
        case 2:
            CHECK(gex_RMA_PutNBI(pair, next, slot, &v, 8, GEX_EVENT_NOW, 0) == 0, "PutNBI");
            gex_NBI_Wait(GEX_EC_PUT, 0);
            CHECK(gex_RMA_GetNBI(pair, &back, next, slot, 8, 0) == 0, "GetNBI");
            gex_NBI_Wait(GEX_EC_GET, 0);
            break;
        default:
            CHECK(gex_RMA_PutBlockingVal(pair, next, slot, v, 8, 0) == 0, "PutBlockingVal");
            gex_Event_Wait(gex_RMA_PutNBVal(pair, next, slot, v, 8, 0));
            back = gex_RMA_GetBlockingVal(pair, next, slot, 8, 0);
            break;
        }
        CHECK(back == v, "form %u: read back %#llx from jobrank %u", form,
              (unsigned long long)back, next);
        barrier();
        uint64_t got;
        memcpy(&got, mybase + SLOT(prev), 8);
        CHECK(got == stamp(prev, form), "form %u: jobrank %u's put holds %#llx", form, prev,
              (unsigned long long)got);
    }
}

static void am(void)
{
    uint64_t payload = 0xbeef00000000ull + me;
    CHECK(gex_AM_MaxRequestMedium(pair, next, NULL, 0, 1) == gex_AM_LUBRequestMedium() &&
              gex_AM_MaxRequestLong(pair, next, NULL, 0, 1) == gex_AM_LUBRequestLong(),
          "the Max queries take a TM-pair");
    barrier();
    CHECK(gex_AM_RequestShort1(pair, next, H_SHORT, 0, (gex_AM_Arg_t)me) == 0, "Short");
    CHECK(gex_AM_RequestMedium1(pair, next, H_MEDIUM, &payload, 8, GEX_EVENT_NOW, 0,
                                (gex_AM_Arg_t)me) == 0, "Medium");
    CHECK(gex_AM_RequestLong1(pair, next, H_LONG, &payload, 8, nextbase + AM_OFF + 8 * me,
                              GEX_EVENT_NOW, 0, (gex_AM_Arg_t)me) == 0, "Long");
    GASNET_BLOCKUNTIL(from_short && from_medium && from_long);
    CHECK(from_short == prev + 1 && from_medium == prev + 1 && from_long == prev + 1,
          "the AMs came from jobranks %u, %u, %u; expected %u", from_short - 1,
          from_medium - 1, from_long - 1, prev);
    uint64_t got;
    memcpy(&got, mybase + AM_OFF + 8 * prev, 8);
    CHECK(got == 0xbeef00000000ull + prev, "Long payload %#llx", (unsigned long long)got);
    barrier();
}

/* A vector put of two pieces, an indexed get of them back, a strided put of a
 * 2x4 block transposed: all to the next jobrank's VIS area. */
static void vis(void)
{
    char *mine = nextbase + VIS_OFF + 64 * me;
    char src[16], back[16], block[8];
    for (int i = 0; i < 16; i++)
        src[i] = (char)(me * 16 + i);
    for (int i = 0; i < 8; i++)
        block[i] = (char)(0x80 + me + 8 * i);
    memset(mybase + VIS_OFF, 0, 64 * ranks);
    barrier();
    gex_Memvec_t dst[2] = { { mine, 8 }, { mine + 16, 8 } }, s[1] = { { src, 16 } };
    CHECK(gex_VIS_VectorPutBlocking(pair, next, 2, dst, 1, s, 0) == 0, "VectorPut");
    void *rl[2] = { mine, mine + 16 }, *ll[1] = { back };
    CHECK(gex_VIS_IndexedGetBlocking(pair, 1, ll, 16, next, 2, rl, 8, 0) == 0, "IndexedGet");
    CHECK(memcmp(back, src, 16) == 0, "the indexed get read the vector put back");
    /* Source rows of 4 bytes; destination columns: element (i, j) goes to 32 + j*2 + i. */
    size_t count[2] = { 4, 2 };
    ptrdiff_t sstr[2] = { 1, 4 }, dstr[2] = { 2, 1 };
    CHECK(gex_VIS_StridedPutBlocking(pair, next, mine + 32, dstr, block, sstr, 1, count, 2, 0) ==
              0,
          "StridedPut");
    barrier();
    char *from_prev = mybase + VIS_OFF + 64 * prev;
    for (int i = 0; i < 16; i++) {
        char want = (char)(prev * 16 + i);
        CHECK(from_prev[i < 8 ? i : i + 8] == want, "vector byte %d from jobrank %u", i, prev);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            CHECK(from_prev[32 + j * 2 + i] == (char)(0x80 + prev + 8 * (i * 4 + j)),
                  "strided element (%d, %d) from jobrank %u", i, j, prev);
    barrier();
}

/* The bound-segment queries by jobrank agree with the primordial team's. */
static void queries(void)
{
    for (gex_Rank_t j = 0; j < ranks; j++) {
        void *own = NULL, *loc = NULL, *own0 = NULL, *loc0 = NULL;
        uintptr_t size = 0, size0 = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(pair, j, &own, &loc, &size, 0));
        CHECK(gex_Segment_QueryBound(tm0, j, &own0, &loc0, &size0) == 0, "QueryBound");
        CHECK(own == own0 && loc == loc0 && size == size0 && size >= SEGSZ,
              "jobrank %u's segment by TM-pair", j);
        CHECK(gex_TM_TranslateRankToJobrank(pair, j) == j &&
                  gex_TM_TranslateJobrankToRank(pair, j) == j,
              "a TM-pair's ranks are jobranks (%u)", j);
    }
    CHECK(gex_TM_TranslateJobrankToRank(pair, ranks) == GEX_RANK_INVALID, "no jobrank %u",
          ranks);
}

static int misuse(const char *mode)
{
    uint64_t v = 0;
    if (strcmp(mode, "pair_index") == 0)
        gex_TM_Pair(ep, 1);
    else if (strcmp(mode, "pair_ep") == 0)
        gex_TM_Pair(GEX_EP_INVALID, 0);
    else if (strcmp(mode, "pair_ad") == 0) {
        gex_AD_t ad;
        gex_AD_Create(&ad, pair, GEX_DT_I32, GEX_OP_ADD, 0);
    }
    else if (strcmp(mode, "pair_query") == 0)
        printf("%u\n", gex_TM_QueryRank(pair));
    else if (strcmp(mode, "pair_barrier") == 0)
        gex_Coll_BarrierNB(pair, 0);
    else if (strcmp(mode, "pair_rank") == 0)
        gex_RMA_PutBlocking(pair, ranks, mybase, &v, 8, 0);
    barrier();
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_Segment_t seg;
    amtest_name = "ex_tmpair";
    CHECK(gex_Client_Init(&client, &ep, &tm0, "ex_tmpair", &argc, &argv, 0) == GASNET_OK,
          "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    next = (me + 1) % ranks;
    prev = (me + ranks - 1) % ranks;
    gex_AM_Entry_t entry[3] = {
        { H_SHORT, (gex_AM_Fn_t)on_short, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, NULL },
        { H_MEDIUM, (gex_AM_Fn_t)on_medium, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL,
          NULL },
        { H_LONG, (gex_AM_Fn_t)on_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, NULL },
    };
    CHECK(gex_EP_RegisterHandlers(ep, entry, 3) == GASNET_OK, "register");
    CHECK(gex_Segment_Attach(&seg, tm0, SEGSZ) == GASNET_OK, "attach");
    CHECK(ranks * 64 <= SEGSZ - VIS_OFF, "at most %u ranks", (SEGSZ - VIS_OFF) / 64);
    mybase = gex_Segment_QueryAddr(seg);
    pair = gex_TM_Pair(ep, 0);
    CHECK(pair != GEX_TM_INVALID && pair != tm0, "a TM-pair is no team");
    CHECK(gex_Segment_QueryBound(pair, next, (void **)&nextbase, NULL, NULL) == 0, "bound");
    if (argc > 1)
        return misuse(argv[1]);
    /* A reversed team exists throughout: a TM-pair's ranks are still jobranks. */
    gex_TM_t rev;
    gex_TM_Split(&rev, tm0, 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    queries();
    rma();
    am();
    vis();
    gex_TM_Destroy(rev, NULL, 0);
    printf("ex_tmpair: rank %u of %u: RMA, AM, VIS and queries by TM-pair verified\n", me,
           ranks);
    fflush(stdout);
    barrier();
    gasnet_exit(0);
    return 0;
}
