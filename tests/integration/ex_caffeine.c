/*
 * A client written the way Caffeine (the Fortran 2018 coarray runtime)
 * drives GASNet-EX: gex_Client_Init with NULL argc/argv, a segment of at
 * most the global maximum, every image's coarray base from the bound-segment
 * query, teams formed by gex_TM_Split on a colour (FORM TEAM), coarray
 * sections written by non-blocking strided puts to team ranks and a team
 * barrier (SYNC TEAM), co_sum, co_broadcast and co_reduce with a user
 * operator on a derived type, in place, and a remote fetch-add on one
 * image's counter (an atomic_fetch_add on a coarray).  Public API only.
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define SEGSZ (1u << 16)
#define ROWS 3
#define COLS 4
#define SECTION_OFF 0u      /* the coarray a(ROWS, COLS) of int32, column-major */
#define COUNTER_OFF 4096u   /* an int64 counter; image 1's (jobrank 0) is the shared one */
#define TEAM_COUNTER_OFF 4104u
#define ADDS 50

static gex_TM_t world;
static gex_Rank_t me, images;
static void **bases; /* every image's segment, by jobrank (Caffeine caches these) */

static void sync_team(gex_TM_t team)
{
    gex_Event_Wait(gex_Coll_BarrierNB(team, 0));
}

/* The image's value at a(i, j) for the image with jobrank src. */
static int32_t element(gex_Rank_t src, int i, int j) { return (int32_t)(src * 1000 + i * 10 + j); }

/* a(1:ROWS, 2:COLS:2)[next] = mine(1:ROWS, 2:COLS:2), next in the team: a strided put of
 * ROWS x COLS/2 elements, local and remote strides alike (column-major, every other column). */
static void section_put(const char *what, gex_TM_t team)
{
    gex_Rank_t r = gex_TM_QueryRank(team), n = gex_TM_QuerySize(team), next = (r + 1) % n;
    gex_Rank_t prev_job = gex_TM_TranslateRankToJobrank(team, (r + n - 1) % n);
    int32_t *mine = (int32_t *)((char *)bases[me] + SECTION_OFF);
    int32_t local[ROWS * COLS];
    for (int j = 0; j < COLS; j++)
        for (int i = 0; i < ROWS; i++)
            local[j * ROWS + i] = element(me, i, j);
    memset(mine, 0, sizeof local);
    sync_team(team);
    char *remote = (char *)bases[gex_TM_TranslateRankToJobrank(team, next)] + SECTION_OFF;
    size_t count[2] = { ROWS, COLS / 2 };
    ptrdiff_t strides[2] = { sizeof(int32_t), 2 * ROWS * sizeof(int32_t) };
    gex_VIS_StridedPutNBI(team, next, remote + ROWS * sizeof(int32_t), strides,
                          local + ROWS, strides, sizeof(int32_t), count, 2, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    sync_team(team);
    for (int j = 0; j < COLS; j++)
        for (int i = 0; i < ROWS; i++) {
            int32_t want = j % 2 ? element(prev_job, i, j) : 0;
            CHECK(mine[j * ROWS + i] == want, "%s: a(%d,%d) is %d, expected %d (from jobrank %u)",
                  what, i + 1, j + 1, mine[j * ROWS + i], want, prev_job);
        }
}

/* A derived type reduced by a user operator: the largest value and how many images had it. */
struct best {
    double value;
    int64_t count;
};
static void best_op(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    CHECK(cdata == (const void *)&world, "the user operator's cdata");
    const struct best *in = arg1;
    struct best *io = arg2_and_out;
    for (size_t k = 0; k < count; k++) {
        if (in[k].value > io[k].value)
            io[k] = in[k];
        else if (in[k].value == io[k].value)
            io[k].count += in[k].count;
    }
}

static void collectives(const char *what, gex_TM_t team)
{
    gex_Rank_t r = gex_TM_QueryRank(team), n = gex_TM_QuerySize(team);
    double x = (double)gex_TM_TranslateRankToJobrank(team, r) + 0.5, sum = 0, want_sum = 0;
    for (gex_Rank_t k = 0; k < n; k++)
        want_sum += (double)gex_TM_TranslateRankToJobrank(team, k) + 0.5;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, &sum, &x, GEX_DT_DBL, sizeof(double), 1,
                                          GEX_OP_ADD, NULL, NULL, 0));
    CHECK(sum == want_sum, "%s: co_sum %g, expected %g", what, sum, want_sum);

    int64_t token = r == n - 1 ? 4242 + (int64_t)n : -1; /* co_broadcast from the last rank */
    gex_Event_Wait(gex_Coll_BroadcastNB(team, n - 1, &token, &token, sizeof token, 0));
    CHECK(token == 4242 + (int64_t)n, "%s: co_broadcast gave %lld", what, (long long)token);

    /* Ranks 0 and 1 (if any) share the largest value; in place, as co_reduce is. */
    struct best b[2] = { { r < 2 ? 100.0 : (double)r, 1 }, { -(double)r, 1 } };
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, b, b, GEX_DT_USER, sizeof(struct best), 2,
                                          GEX_OP_USER, best_op, &world, 0));
    CHECK(b[0].value == 100.0 && b[0].count == (n < 2 ? 1 : 2), "%s: co_reduce {%g, %lld}", what,
          b[0].value, (long long)b[0].count);
    CHECK(b[1].value == 0.0 && b[1].count == 1, "%s: co_reduce of the negated ranks {%g, %lld}",
          what, b[1].value, (long long)b[1].count);
}

/* ADDS fetch-adds of 1 from each member to the counter of the team's rank 0: the fetched
 * values are distinct, so together they are 0 .. n*ADDS-1, whose sum is known. */
static void fetch_add(const char *what, gex_TM_t team, uint32_t offset)
{
    gex_Rank_t r = gex_TM_QueryRank(team), n = gex_TM_QuerySize(team);
    gex_Rank_t owner = gex_TM_TranslateRankToJobrank(team, 0);
    int64_t *counter = (int64_t *)((char *)bases[owner] + offset);
    if (r == 0)
        *(int64_t *)((char *)bases[me] + offset) = 0;
    gex_AD_t ad;
    gex_AD_Create(&ad, team, GEX_DT_I64, GEX_OP_FADD | GEX_OP_GET, 0);
    sync_team(team);
    int64_t fetched_sum = 0;
    for (int k = 0; k < ADDS; k++) {
        int64_t old = -1;
        gex_Event_Wait(gex_AD_OpNB_I64(ad, &old, 0, counter, GEX_OP_FADD, 1, 0, 0));
        CHECK(old >= 0 && old < (int64_t)n * ADDS, "%s: fetched %lld", what, (long long)old);
        fetched_sum += old;
    }
    sync_team(team);
    int64_t total = 0, all = 0, m = (int64_t)n * ADDS;
    gex_Event_Wait(gex_AD_OpNB_I64(ad, &total, 0, counter, GEX_OP_GET, 0, 0, 0));
    CHECK(total == m, "%s: the counter holds %lld, expected %lld", what, (long long)total,
          (long long)m);
    gex_Event_Wait(gex_Coll_ReduceToAllNB(team, &all, &fetched_sum, GEX_DT_I64, 8, 1, GEX_OP_ADD,
                                          NULL, NULL, 0));
    CHECK(all == m * (m - 1) / 2, "%s: the fetched values sum to %lld, expected %lld", what,
          (long long)all, (long long)(m * (m - 1) / 2));
    sync_team(team);
    gex_AD_Destroy(ad);
}

int main(void)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    amtest_name = "ex_caffeine";
    CHECK(gex_Client_Init(&client, &ep, &world, "caffeine", NULL, NULL, 0) == GASNET_OK,
          "init with NULL argc/argv");
    me = gex_System_QueryJobRank();
    images = gex_System_QueryJobSize();
    uintptr_t size = gasnet_getMaxGlobalSegmentSize() < SEGSZ ? gasnet_getMaxGlobalSegmentSize()
                                                               : SEGSZ;
    CHECK(size >= 8192 && gex_Segment_Attach(&seg, world, size) == GASNET_OK, "attach");
    bases = calloc(images, sizeof *bases);
    CHECK(bases != NULL, "memory");
    for (gex_Rank_t j = 0; j < images; j++)
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(world, j, &bases[j], NULL, NULL, 0));
    CHECK(bases[me] == gex_Segment_QueryAddr(seg), "my own base");
    sync_team(world);

    /* FORM TEAM (colour = 1 + odd image number), NEW_INDEX by image order. */
    gex_TM_t team;
    gex_TM_Split(&team, world, 1 + (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(gex_TM_QuerySize(team) == (images + (me % 2 ? 0 : 1)) / 2, "team size");
    section_put("initial team", world);
    section_put("child team", team);
    collectives("initial team", world);
    collectives("child team", team);
    fetch_add("initial team", world, COUNTER_OFF);
    fetch_add("child team", team, TEAM_COUNTER_OFF);
    gex_TM_Destroy(team, NULL, 0);

    printf("ex_caffeine: rank %u of %u: team split, strided puts, user reductions and remote "
           "fetch-add verified\n", me, images);
    fflush(stdout);
    sync_team(world);
    gasnet_exit(0);
    return 0;
}
