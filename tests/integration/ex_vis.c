/*
 * GASNet-EX VIS under gp-run: vector, indexed and strided puts and gets in
 * Blocking, NB and NBI forms between each rank and the next (itself at
 * N=1), every byte of the remote region (read back with a contiguous get)
 * or of the local pieces compared with a reference copy; strided sections
 * with transposed and negative strides and a large one; leaf local
 * completion on puts; a reversed team's ranks; and peer completion (§11.5):
 * every armed put delivers exactly one notice, after its bytes are in
 * place, with the payload and a reply-style token, and unarmed puts none.
 * Public API only.
 *
 * Usage: ex_vis          the whole run
 *        ex_vis MODE     one misuse (see misuse() below)
 */
#include <gasnet_vis.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define REGION (96u << 10)               /* per source rank, on its target */
#define SEGSZ (8u * REGION + (64u << 10))
#define NOTE_OFF (8u * REGION)           /* peer-completion words, by source rank */

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm0;
static gex_Segment_t seg;
static gex_Rank_t me, ranks, next, prev;
static char *segbase[8];
static unsigned char local[REGION], image[REGION], back[REGION], src_mem[REGION];
static gex_AM_Index_t notice_index;
static volatile int notices;

enum sync { BLOCKING, NB, NBI };

static void barrier(void)
{
    gex_Coll_BarrierBlocking(tm0, 0);
}

static void pattern(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8) + 1);
}

/* This rank's region on its target (puts) or on its source (gets). */
static char *region_on(gex_Rank_t r)
{
    return segbase[r] + (size_t)me * REGION;
}

static void wait_form(enum sync s, gex_Event_t ev, int is_put)
{
    if (s == NB)
        gex_Event_Wait(ev);
    else if (s == NBI)
        gex_NBI_Wait(is_put ? GEX_EC_PUT : GEX_EC_GET, 0);
}

static void compare(const unsigned char *got, const unsigned char *want, size_t n,
                    const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: byte %zu is %u, expected %u", what, i, got[i], want[i]);
}

/* Reference strided copy: element by element, any strides. */
static void ref_strided(unsigned char *dst, const ptrdiff_t *dstrides, const unsigned char *src,
                        const ptrdiff_t *sstrides, size_t elemsz, const size_t *count,
                        size_t levels)
{
    size_t total = 1;
    for (size_t k = 0; k < levels; k++)
        total *= count[k];
    for (size_t e = 0; e < total; e++) {
        ptrdiff_t d = 0, s = 0;
        size_t rest = e;
        for (size_t k = 0; k < levels; k++) {
            size_t i = rest % count[k];
            rest /= count[k];
            d += (ptrdiff_t)i * dstrides[k];
            s += (ptrdiff_t)i * sstrides[k];
        }
        memcpy(dst + d, src + s, elemsz);
    }
}

/* Vector: three remote pieces (one empty, NULL) against four local ones of other sizes. */
static void vector_case(enum sync s, int is_put)
{
    char *r = region_on(is_put ? next : prev);
    gex_Rank_t peer = is_put ? next : prev;
    size_t lens[3] = { 300, 0, 1000 }, offs[3] = { 5000, 0, 100 };
    size_t llens[4] = { 1, 499, 600, 200 }, loffs[4] = { 9000, 0, 20000, 4000 };
    gex_Memvec_t rl[3], ll[4];
    for (int i = 0; i < 3; i++)
        rl[i] = (gex_Memvec_t){ lens[i] ? r + offs[i] : NULL, lens[i] };
    for (int i = 0; i < 4; i++)
        ll[i] = (gex_Memvec_t){ (is_put ? src_mem : local) + loffs[i], llens[i] };
    /* the reference: the byte stream of one list into the other */
    unsigned char stream[1300];
    size_t at = 0;
    if (is_put) {
        for (int i = 0; i < 4; at += llens[i], i++)
            memcpy(stream + at, src_mem + loffs[i], llens[i]);
        memset(image, 0, REGION);
        for (int i = 0, k = 0; i < 3; k += (int)lens[i], i++)
            memcpy(image + offs[i], stream + k, lens[i]);
        memset(back, 0, REGION);
        gex_RMA_PutBlocking(tm0, peer, r, back, REGION, 0); /* zeroes where nothing lands */
        gex_Event_t ev = GEX_EVENT_INVALID;
        if (s == BLOCKING)
            CHECK(gex_VIS_VectorPutBlocking(tm0, peer, 3, rl, 4, ll, 0) == 0, "VectorPut");
        else if (s == NB)
            ev = gex_VIS_VectorPutNB(tm0, peer, 3, rl, 4, ll, GEX_FLAG_IMMEDIATE);
        else
            CHECK(gex_VIS_VectorPutNBI(tm0, peer, 3, rl, 4, ll, 0) == 0, "VectorPutNBI");
        wait_form(s, ev, 1);
        gex_RMA_GetBlocking(tm0, back, peer, r, REGION, 0);
        compare(back, image, REGION, "VectorPut");
    } else {
        pattern(image, REGION, me + 17);
        gex_RMA_PutBlocking(tm0, peer, r, image, REGION, 0);
        memset(local, 0, REGION);
        memset(back, 0, REGION);
        for (int i = 0; i < 3; at += lens[i], i++)
            memcpy(stream + at, image + offs[i], lens[i]);
        for (int i = 0, k = 0; i < 4; k += (int)llens[i], i++)
            memcpy(back + loffs[i], stream + k, llens[i]);
        gex_Event_t ev = GEX_EVENT_INVALID;
        if (s == BLOCKING)
            CHECK(gex_VIS_VectorGetBlocking(tm0, 4, ll, peer, 3, rl, 0) == 0, "VectorGet");
        else if (s == NB)
            ev = gex_VIS_VectorGetNB(tm0, 4, ll, peer, 3, rl, 0);
        else
            CHECK(gex_VIS_VectorGetNBI(tm0, 4, ll, peer, 3, rl, 0) == 0, "VectorGetNBI");
        wait_form(s, ev, 0);
        compare(local, back, REGION, "VectorGet");
    }
}

/* Indexed: remote pieces of 24 bytes, local ones of 16 (96 bytes each side), out of order. */
static void indexed_case(enum sync s, int is_put)
{
    gex_Rank_t peer = is_put ? next : prev;
    char *r = region_on(peer);
    void *rl[4], *ll[6];
    size_t roffs[4] = { 3000, 100, 7777, 50 }, loffs[6] = { 600, 0, 16, 9999, 300, 40000 };
    unsigned char stream[96];
    for (int i = 0; i < 4; i++)
        rl[i] = r + roffs[i];
    for (int i = 0; i < 6; i++)
        ll[i] = (is_put ? src_mem : local) + loffs[i];
    gex_Event_t ev = GEX_EVENT_INVALID;
    if (is_put) {
        memset(back, 0, REGION);
        gex_RMA_PutBlocking(tm0, peer, r, back, REGION, 0);
        memset(image, 0, REGION);
        for (int i = 0; i < 6; i++)
            memcpy(stream + 16 * i, src_mem + loffs[i], 16);
        for (int i = 0; i < 4; i++)
            memcpy(image + roffs[i], stream + 24 * i, 24);
        if (s == BLOCKING)
            CHECK(gex_VIS_IndexedPutBlocking(tm0, peer, 4, rl, 24, 6, ll, 16, 0) == 0, "IPut");
        else if (s == NB)
            ev = gex_VIS_IndexedPutNB(tm0, peer, 4, rl, 24, 6, ll, 16, 0);
        else
            CHECK(gex_VIS_IndexedPutNBI(tm0, peer, 4, rl, 24, 6, ll, 16, 0) == 0, "IPutNBI");
        wait_form(s, ev, 1);
        gex_RMA_GetBlocking(tm0, back, peer, r, REGION, 0);
        compare(back, image, REGION, "IndexedPut");
    } else {
        pattern(image, REGION, me + 29);
        gex_RMA_PutBlocking(tm0, peer, r, image, REGION, 0);
        memset(local, 0, REGION);
        memset(back, 0, REGION);
        for (int i = 0; i < 4; i++)
            memcpy(stream + 24 * i, image + roffs[i], 24);
        for (int i = 0; i < 6; i++)
            memcpy(back + loffs[i], stream + 16 * i, 16);
        if (s == BLOCKING)
            CHECK(gex_VIS_IndexedGetBlocking(tm0, 6, ll, 16, peer, 4, rl, 24, 0) == 0, "IGet");
        else if (s == NB)
            ev = gex_VIS_IndexedGetNB(tm0, 6, ll, 16, peer, 4, rl, 24, 0);
        else
            CHECK(gex_VIS_IndexedGetNBI(tm0, 6, ll, 16, peer, 4, rl, 24, 0) == 0, "IGetNBI");
        wait_form(s, ev, 0);
        compare(local, back, REGION, "IndexedGet");
    }
}

/*
 * Strided: a 3-D section of 4-byte elements, 5 x 3 x 2, the remote side transposed (its
 * dimensions in another order) with a negative stride, the local side packed; and a 2-D one
 * whose 8-byte elements make rows of 800 contiguous bytes on both sides (folded into runs).
 */
static void strided_case(enum sync s, int is_put, int big)
{
    gex_Rank_t peer = is_put ? next : prev;
    char *r = region_on(peer);
    size_t count3[3] = { 5, 3, 2 }, count2[2] = { 100, 90 };
    ptrdiff_t remote3[3] = { 24, 4, -200 }, local3[3] = { 4, 20, 60 };
    ptrdiff_t remote2[2] = { 8, 1000 }, local2[2] = { 8, 800 };
    const size_t *count = big ? count2 : count3;
    const ptrdiff_t *rs = big ? remote2 : remote3, *ls = big ? local2 : local3;
    size_t levels = big ? 2 : 3, elemsz = big ? 8 : 4, rbase = big ? 0 : 1000;
    unsigned char *lbuf = is_put ? src_mem : local;
    gex_Event_t ev = GEX_EVENT_INVALID;
    const char *what = is_put ? "StridedPut" : "StridedGet";
    if (is_put) {
        memset(back, 0, REGION);
        gex_RMA_PutBlocking(tm0, peer, r, back, REGION, 0);
        memset(image, 0, REGION);
        ref_strided(image + rbase, rs, src_mem, ls, elemsz, count, levels);
        if (s == BLOCKING)
            CHECK(gex_VIS_StridedPutBlocking(tm0, peer, r + rbase, rs, lbuf, ls, elemsz, count,
                                             levels, 0) == 0, "%s", what);
        else if (s == NB)
            ev = gex_VIS_StridedPutNB(tm0, peer, r + rbase, rs, lbuf, ls, elemsz, count, levels,
                                      0);
        else
            gex_VIS_StridedPutNBI(tm0, peer, r + rbase, rs, lbuf, ls, elemsz, count, levels, 0);
        wait_form(s, ev, 1);
        gex_RMA_GetBlocking(tm0, back, peer, r, REGION, 0);
        compare(back, image, REGION, what);
    } else {
        pattern(image, REGION, me + 41);
        gex_RMA_PutBlocking(tm0, peer, r, image, REGION, 0);
        memset(local, 0, REGION);
        memset(back, 0, REGION);
        ref_strided(back, ls, image + rbase, rs, elemsz, count, levels);
        if (s == BLOCKING)
            gex_VIS_StridedGetBlocking(tm0, lbuf, ls, peer, r + rbase, rs, elemsz, count, levels,
                                       0);
        else if (s == NB)
            ev = gex_VIS_StridedGetNB(tm0, lbuf, ls, peer, r + rbase, rs, elemsz, count, levels,
                                      0);
        else
            gex_VIS_StridedGetNBI(tm0, lbuf, ls, peer, r + rbase, rs, elemsz, count, levels, 0);
        wait_form(s, ev, 0);
        compare(local, back, REGION, what);
    }
}

/* Leaf local completion: an NB put's leaf and the NBI GEX_EC_LC set; the source is then
 * rewritten, and the target must still get the old bytes. */
static void leaf_lc(void)
{
    char *r = region_on(next);
    ptrdiff_t st[1] = { 64 };
    size_t count[1] = { 100 };
    pattern(src_mem, REGION, me + 3);
    memset(image, 0, REGION);
    ref_strided(image, st, src_mem, st, 32, count, 1);
    memset(back, 0, REGION);
    gex_RMA_PutBlocking(tm0, next, r, back, REGION, 0);
    gex_Event_t ev = gex_VIS_StridedPutNB(tm0, next, r, st, src_mem, st, 32, count, 1,
                                          GEX_FLAG_ENABLE_LEAF_LC);
    gex_Event_Wait(gex_Event_QueryLeaf(ev, GEX_EC_LC));
    memset(src_mem, 0x99, REGION);
    gex_Event_Wait(ev);
    gex_RMA_GetBlocking(tm0, back, next, r, REGION, 0);
    compare(back, image, REGION, "StridedPutNB with a leaf");
    pattern(src_mem, REGION, me + 3);
    gex_VIS_StridedPutNBI(tm0, next, r, st, src_mem, st, 32, count, 1, GEX_FLAG_ENABLE_LEAF_LC);
    gex_NBI_Wait(GEX_EC_LC, 0);
    memset(src_mem, 0x77, REGION);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_RMA_GetBlocking(tm0, back, next, r, REGION, 0);
    compare(back, image, REGION, "StridedPutNBI with GEX_EC_LC");
    pattern(src_mem, REGION, me + 5);
}

/* A reversed team: its rank of the next jobrank names the same process. */
static void team_rank(void)
{
    gex_TM_t rev;
    gex_TM_Split(&rev, tm0, 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t tr = gex_TM_TranslateJobrankToRank(rev, next);
    char *r = region_on(next);
    uint64_t v = 0xabc000u + me, got = 0;
    gex_Memvec_t rl = { r + 64, 8 }, ll = { &v, 8 };
    gex_VIS_VectorPutBlocking(rev, tr, 1, &rl, 1, &ll, 0);
    gex_RMA_GetBlocking(tm0, &got, next, r + 64, 8, 0);
    CHECK(got == v, "a put by team rank %u landed elsewhere: %llx", tr, (unsigned long long)got);
    gex_TM_Destroy(rev, NULL, 0);
}

/* The notice's handler: the put it follows has left seq in this rank's word for the source
 * (or a later put a larger one: a mapped peer's puts land without this rank polling). */
static void notice(gex_Token_t t, void *buf, size_t n)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK(!info.gex_is_req && !info.gex_is_long && info.gex_srcrank == prev &&
              info.gex_entry->gex_index == notice_index,
          "notice token: is_req %d is_long %d srcrank %u index %u", info.gex_is_req,
          info.gex_is_long, info.gex_srcrank, info.gex_entry->gex_index);
    uint32_t seq;
    CHECK(n == 9 && memcmp(buf, "seq:", 4) == 0, "notice payload of %zu bytes", n);
    memcpy(&seq, (char *)buf + 4, 4);
    volatile uint32_t *word = (volatile uint32_t *)(segbase[me] + NOTE_OFF + 64 * prev);
    CHECK(*word >= seq, "notice %u ran before its put's bytes (%u) were there", seq, *word);
    notices++;
}

/* Three armed puts (vector NB, indexed NBI, strided Blocking), each followed by an unarmed
 * one: the next rank counts exactly three notices. */
static void peer_completion(void)
{
    char *word = segbase[next] + NOTE_OFF + 64 * me;
    for (uint32_t seq = 1; seq <= 3; seq++) {
        char payload[9] = "seq:";
        memcpy(payload + 4, &seq, 4);
        payload[8] = (char)me;
        gex_VIS_SetPeerCompletionHandler(notice_index, payload, 9, 0);
        memset(payload, 0, sizeof payload); /* copied when armed */
        uint32_t v = seq;
        gex_Memvec_t rl = { word, 4 }, ll = { &v, 4 };
        void *ri[1] = { word }, *li[1] = { &v };
        ptrdiff_t st[1] = { 4 };
        size_t one[1] = { 1 };
        if (seq == 1) {
            gex_Event_Wait(gex_VIS_VectorPutNB(tm0, next, 1, &rl, 1, &ll, 0));
        } else if (seq == 2) {
            gex_VIS_IndexedPutNBI(tm0, next, 1, ri, 4, 1, li, 4, 0);
            gex_NBI_Wait(GEX_EC_PUT, 0);
        } else {
            gex_VIS_StridedPutBlocking(tm0, next, word, st, &v, st, 4, one, 1, 0);
        }
        gex_Memvec_t spare = { word + 8, 4 };
        gex_VIS_VectorPutBlocking(tm0, next, 1, &spare, 1, &ll, 0); /* not armed: no notice */
    }
    gex_VIS_SetPeerCompletionHandler(notice_index, "x", 1, 0);
    gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0); /* disarmed before any put */
    gex_Memvec_t spare = { word + 16, 1 }, ll = { "y", 1 };
    gex_VIS_VectorPutBlocking(tm0, next, 1, &spare, 1, &ll, 0);
    barrier();
    uint64_t until = gasnett_ticks_to_ns(gasnett_ticks_now()) + 5000000000ull;
    while (notices < 3 && gasnett_ticks_to_ns(gasnett_ticks_now()) < until)
        gasnet_AMPoll();
    barrier();
    CHECK(notices == 3, "%d peer-completion notices, expected 3", notices);
}

static int misuse(const char *mode)
{
    char *r = segbase[next];
    char buf[64] = { 0 };
    gex_Memvec_t ll = { buf, 16 }, rl = { r, 8 };
    if (strcmp(mode, "outside") == 0) {
        gex_Memvec_t bad = { r + SEGSZ - 4, 16 };
        gex_VIS_VectorPutBlocking(tm0, next, 1, &bad, 1, &ll, 0);
    } else if (strcmp(mode, "sizes") == 0) {
        gex_VIS_VectorPutBlocking(tm0, next, 1, &rl, 1, &ll, 0);
    } else if (strcmp(mode, "negative_stride") == 0) {
        ptrdiff_t rs[1] = { -64 }, ls[1] = { 8 };
        size_t count[1] = { 4 };
        gex_VIS_StridedPutBlocking(tm0, next, r + 64, rs, buf, ls, 8, count, 1, 0);
    } else if (strcmp(mode, "get_leaf_lc") == 0) {
        gex_VIS_VectorGetNB(tm0, 1, &ll, next, 1, &rl, GEX_FLAG_ENABLE_LEAF_LC);
    } else if (strcmp(mode, "offset") == 0) {
        gex_Memvec_t same = { r, 16 };
        gex_VIS_VectorPutBlocking(tm0, next, 1, &same, 1, &ll, GEX_FLAG_PEER_SEG_OFFSET);
    } else if (strcmp(mode, "peer_nbytes") == 0) {
        gex_VIS_SetPeerCompletionHandler(notice_index, buf, 128, 0);
    }
    barrier();
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "ex_vis";
    CHECK(gex_Client_Init(&client, &ep, &tm0, "ex_vis", &argc, &argv, 0) == GASNET_OK, "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    CHECK(ranks <= 8, "at most 8 ranks");
    next = (me + 1) % ranks;
    prev = (me + ranks - 1) % ranks;
    gex_AM_Entry_t entry = { 0, (gex_AM_Fn_t)notice, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 0,
                             NULL, "notice" };
    CHECK(gex_EP_RegisterHandlers(ep, &entry, 1) == GASNET_OK, "register");
    notice_index = entry.gex_index;
    CHECK(gex_Segment_Attach(&seg, tm0, SEGSZ) == GASNET_OK, "attach");
    for (gex_Rank_t r = 0; r < ranks; r++)
        gex_Segment_QueryBound(tm0, r, (void **)&segbase[r], NULL, NULL);
    if (argc > 1)
        return misuse(argv[1]);
    pattern(src_mem, REGION, me + 5);
    barrier();
    for (int s = BLOCKING; s <= NBI; s++) {
        for (int is_put = 0; is_put < 2; is_put++) {
            /* gets read the region this rank's source just wrote: one at a time */
            vector_case((enum sync)s, is_put);
            indexed_case((enum sync)s, is_put);
            strided_case((enum sync)s, is_put, 0);
            strided_case((enum sync)s, is_put, 1);
        }
    }
    leaf_lc();
    team_rank();
    barrier();
    peer_completion();
    printf("ex_vis: rank %u of %u: vector, indexed and strided puts and gets in every form, "
           "leaf and peer completion verified\n", me, ranks);
    fflush(stdout);
    barrier();
    gasnet_exit(0);
    return 0;
}
