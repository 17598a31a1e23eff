/*
 * Disaggregated segments (§4.5) under gp-run: gex_Segment_Create with
 * address NULL, gex_EP_BindSegment and gex_EP_PublishBoundSegment over the
 * primordial team must leave what gex_Segment_Attach leaves (the address and
 * size every query reports, on every rank; puts into the next rank's segment
 * and AM Longs landing there); Bind's four refusals come back as
 * GASNET_ERR_BAD_ARG with nothing bound; a client-address segment reports
 * exactly its address and size; later publishes (again, with no endpoint,
 * over a split team) succeed; unbound segments are destroyed.  Public API
 * only.
 *
 * Usage: ex_segment          every rank publishes its segment
 *        ex_segment some     odd ranks publish none (num_eps 0): they have no segment, and the
 *                            even ones theirs
 *        ex_segment MODE     one misuse (see misuse() below)
 */
#include <gasnetex.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define LENGTH (256u * 1024 + 100) /* not a page multiple: the size is rounded up */
#define H_LONG 200
#define LONG_OFF 8192u

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm0;
static gex_Rank_t me, ranks;
static volatile int longs_in;
static char client_mem[4096 + 64];

static void long_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t from)
{
    (void)token;
    for (size_t i = 0; i < nbytes; i++)
        CHECK(((unsigned char *)buf)[i] == (unsigned char)(from * 5 + i), "AM Long byte %zu", i);
    __atomic_fetch_add(&longs_in, 1, __ATOMIC_SEQ_CST);
}

static int has_segment(gex_Rank_t r, int some)
{
    return !some || r % 2 == 0;
}

/* A segment of the client's memory, at an offset no page boundary has. */
static gex_Segment_t client_segment(void)
{
    gex_Segment_t cseg;
    CHECK(gex_Segment_Create(&cseg, client, client_mem + 16, 1000, GEX_MK_HOST, 0) == GASNET_OK,
          "create at a client address");
    CHECK(gex_Segment_QueryAddr(cseg) == client_mem + 16 && gex_Segment_QuerySize(cseg) == 1000,
          "a client segment is exactly its memory: %p + %lu", gex_Segment_QueryAddr(cseg),
          (unsigned long)gex_Segment_QuerySize(cseg));
    return cseg;
}

/* Bind's refusals: each returns GASNET_ERR_BAD_ARG and binds nothing. */
static void bind_refusals(gex_Segment_t seg)
{
    gex_System_SetVerboseErrors(0);
    CHECK(gex_EP_BindSegment(GEX_EP_INVALID, seg, 0) == GASNET_ERR_BAD_ARG, "invalid endpoint");
    CHECK(gex_EP_BindSegment(ep, GEX_SEGMENT_INVALID, 0) == GASNET_ERR_BAD_ARG, "invalid segment");
    CHECK(gex_EP_BindSegment(ep, seg, 1) == GASNET_ERR_BAD_ARG, "flags");
    CHECK(gex_EP_QuerySegment(ep) == GEX_SEGMENT_INVALID, "a refused bind bound nothing");
    gex_System_SetVerboseErrors(1);
}

static void check_queries(gex_Segment_t seg, int some)
{
    char *base = gex_Segment_QueryAddr(seg);
    uintptr_t size = gex_Segment_QuerySize(seg);
    if (!has_segment(me, some)) {
        CHECK(base == NULL, "a segment never published has no address (%p)", (void *)base);
        CHECK(gex_Segment_QueryBound(tm0, me, NULL, NULL, NULL) != 0, "nothing bound here");
        return;
    }
    CHECK(base != NULL && (uintptr_t)base % GASNET_PAGESIZE == 0, "published address %p", base);
    CHECK(size >= LENGTH && size % GASNET_PAGESIZE == 0, "published size %lu", (unsigned long)size);
    void *owner, *local;
    uintptr_t bsize;
    CHECK(gex_EP_QueryBoundSegmentNB(tm0, me, &owner, &local, &bsize, GEX_FLAG_IMMEDIATE) ==
              GEX_EVENT_INVALID, "immediate self query");
    CHECK(owner == base && local == base && bsize == size, "the bound segment is the created one");
    gasnet_seginfo_t *info = calloc(ranks, sizeof *info);
    CHECK(info != NULL && gasnet_getSegmentInfo(info, (int)ranks) == GASNET_OK, "seginfo");
    for (gex_Rank_t r = 0; r < ranks; r++) {
        int rc = gex_Segment_QueryBound(tm0, r, &owner, NULL, &bsize);
        if (!has_segment(r, some)) {
            CHECK(rc != 0 && info[r].size == 0, "rank %u published no segment", r);
            continue;
        }
        CHECK(rc == 0 && owner == info[r].addr && bsize == info[r].size && bsize >= LENGTH,
              "rank %u's segment as both faces see it", r);
    }
    free(info);
}

/* Puts and AM Longs into the next rank with a segment; each checks what landed in its own. */
static void traffic(gex_Segment_t seg, int some)
{
    gex_Rank_t step = some ? 2 : 1, next = (me + step) % ranks, prev = (me + ranks - step) % ranks;
    int sends = has_segment(me, some) && has_segment(next, some);
    char *theirs = NULL;
    if (sends)
        gex_Segment_QueryBound(tm0, next, (void **)&theirs, NULL, NULL);
    uint64_t stamp = 0x5e600000000ull | me;
    unsigned char block[512];
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (unsigned char)(me * 5 + i);
    if (sends) {
        gex_RMA_PutBlocking(tm0, next, theirs, &stamp, 8, 0);
        gex_AM_RequestLong1(tm0, next, H_LONG, block, sizeof block, theirs + LONG_OFF,
                            GEX_EVENT_NOW, 0, (gex_AM_Arg_t)me);
    }
    gex_Coll_BarrierBlocking(tm0, 0);
    int receives = has_segment(me, some) && has_segment(prev, some);
    if (receives) {
        GASNET_BLOCKUNTIL(longs_in == 1);
        char *mine = gex_Segment_QueryAddr(seg);
        uint64_t got;
        memcpy(&got, mine, 8);
        CHECK(got == (0x5e600000000ull | prev), "rank %u's put holds %#llx", prev,
              (unsigned long long)got);
    }
    gex_Coll_BarrierBlocking(tm0, 0);
}

static int misuse(const char *mode)
{
    gex_Segment_t seg;
    int returned = 1; /* the misuse returns an error, and the job goes on to attach */
    if (strcmp(mode, "create_kind") == 0) {
        int rc = gex_Segment_Create(&seg, client, NULL, 4096, GEX_MK_INVALID, 0);
        printf("ex_segment: create of kind GEX_MK_INVALID returned %s\n", gasnet_ErrorName(rc));
    } else if (strcmp(mode, "create_too_big") == 0) {
        int rc = gex_Segment_Create(&seg, client, NULL, gasnet_getMaxLocalSegmentSize() + 1,
                                    GEX_MK_HOST, 0);
        printf("ex_segment: too big a create returned %s\n", gasnet_ErrorName(rc));
    } else {
        returned = 0;
    }
    if (returned) {
        fflush(stdout);
        CHECK(gex_Segment_Attach(&seg, tm0, 4096) == GASNET_OK, "attach");
        gex_Coll_BarrierBlocking(tm0, 0);
    } else if (strcmp(mode, "bind_client") == 0) {
        gex_EP_BindSegment(ep, client_segment(), 0);
    } else if (strcmp(mode, "destroy_bound") == 0 || strcmp(mode, "attach_after_bind") == 0) {
        CHECK(gex_Segment_Create(&seg, client, NULL, 4096, GEX_MK_HOST, 0) == GASNET_OK, "create");
        CHECK(gex_EP_BindSegment(ep, seg, 0) == GASNET_OK, "bind");
        if (strcmp(mode, "destroy_bound") == 0)
            gex_Segment_Destroy(seg, 0);
        else
            gex_Segment_Attach(&seg, tm0, 4096);
    } else if (strcmp(mode, "bind_late") == 0 || strcmp(mode, "left_out") == 0) {
        /* Created before the network opens, but not bound (or not published) when it does. */
        CHECK(gex_Segment_Create(&seg, client, NULL, 4096, GEX_MK_HOST, 0) == GASNET_OK, "create");
        if (strcmp(mode, "left_out") == 0)
            CHECK(gex_EP_BindSegment(ep, seg, 0) == GASNET_OK, "bind");
        CHECK(gex_EP_PublishBoundSegment(tm0, NULL, 0, 0) == GASNET_OK, "publish none");
        if (strcmp(mode, "left_out") == 0)
            gex_EP_PublishBoundSegment(tm0, &ep, 1, 0);
        else
            gex_EP_BindSegment(ep, seg, 0);
    } else if (strcmp(mode, "bind_private") == 0) {
        /* Created once the network is open: memory of this process alone. */
        CHECK(gex_EP_PublishBoundSegment(tm0, NULL, 0, 0) == GASNET_OK, "publish none");
        CHECK(gex_Segment_Create(&seg, client, NULL, 4096, GEX_MK_HOST, 0) == GASNET_OK, "create");
        gex_EP_BindSegment(ep, seg, 0);
    }
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "ex_segment";
    CHECK(gex_Client_Init(&client, &ep, &tm0, "ex_segment", &argc, &argv, 0) == GASNET_OK, "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    gex_AM_Entry_t table[1] = { { H_LONG, (gex_AM_Fn_t)long_handler,
                                  GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, "long" } };
    CHECK(gex_EP_RegisterHandlers(ep, table, 1) == GASNET_OK, "register");
    int some = argc > 1 && strcmp(argv[1], "some") == 0;
    if (argc > 1 && !some)
        return misuse(argv[1]);

    gex_Segment_t seg, other;
    CHECK(gex_Segment_Create(&seg, client, NULL, LENGTH, GEX_MK_HOST, 0) == GASNET_OK, "create");
    CHECK(gex_Segment_QuerySize(seg) >= LENGTH && gex_Segment_QuerySize(seg) % GASNET_PAGESIZE == 0,
          "created size %lu", (unsigned long)gex_Segment_QuerySize(seg));
    CHECK(gex_Segment_QueryAddr(seg) == NULL, "the conduit allocates as the network opens");
    gex_Segment_SetCData(seg, &seg);
    gex_Segment_t cseg = client_segment();
    bind_refusals(seg);
    if (has_segment(me, some)) {
        CHECK(gex_EP_BindSegment(ep, seg, 0) == GASNET_OK, "bind");
        CHECK(gex_EP_QuerySegment(ep) == seg, "the endpoint's segment is the bound one");
        gex_System_SetVerboseErrors(0);
        CHECK(gex_EP_BindSegment(ep, cseg, 0) == GASNET_ERR_BAD_ARG, "a second bind");
        gex_System_SetVerboseErrors(1);
        CHECK(gex_EP_QuerySegment(ep) == seg, "a refused second bind changed nothing");
    }

    /* The odd ranks of "some" publish their endpoint with nothing bound, or no endpoint. */
    CHECK(gex_EP_PublishBoundSegment(tm0, &ep, has_segment(me, some) || me % 4 == 1 ? 1 : 0, 0) ==
              GASNET_OK, "publish");
    CHECK(gex_Segment_QueryCData(seg) == &seg, "cdata kept");
    check_queries(seg, some);
    /* Publishing again, with or without the endpoint, and over a split team, changes nothing. */
    CHECK(gex_EP_PublishBoundSegment(tm0, &ep, me % 2, 0) == GASNET_OK, "publish again");
    gex_TM_t half;
    gex_TM_Split(&half, tm0, (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(gex_EP_PublishBoundSegment(half, &ep, 1, 0) == GASNET_OK, "publish over a split team");
    gex_TM_Destroy(half, NULL, 0);
    check_queries(seg, some);
    traffic(seg, some);

    /* Unbound segments go: the client one, and private memory made once the network is open. */
    gex_Segment_Destroy(cseg, 0);
    CHECK(gex_Segment_Create(&other, client, NULL, 5000, GEX_MK_HOST, 0) == GASNET_OK,
          "create after the network opened");
    char *p = gex_Segment_QueryAddr(other);
    CHECK(p != NULL && gex_Segment_QuerySize(other) >= 5000, "private memory");
    memset(p, 0x5a, 5000);
    gex_Segment_Destroy(other, 0);

    printf("ex_segment: rank %u of %u: create, bind, publish%s, queries, puts, AM Longs and "
           "destroys verified\n", me, ranks, some ? " (odd ranks without a segment)" : "");
    fflush(stdout);
    gex_Coll_BarrierBlocking(tm0, 0);
    gasnet_exit(0);
    return 0;
}
