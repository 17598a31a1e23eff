/*
 * GASNet-EX teams under gp-run: gex_TM_Split (key order, ties by parent
 * rank, callers that join nothing, splits of splits, the scratch-size
 * query), gex_TM_Create (reversed and partial member lists, with and
 * without scratch), gex_TM_Destroy (the scratch handed back, or not), the
 * queries and translations on every new team, and puts and AMs addressed
 * by team rank landing on the jobrank the team says.  Public API only.
 *
 * Usage: ex_team            the whole run
 *        ex_team cycles N   N splits and destroys (team ids must be reused)
 *        ex_team MODE       one misuse (see misuse() below)
 */
#include <gasnetex.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define SEGSZ (1u << 20)
#define SCRATCH_OFF 4096u
#define PUT_OFF 0u /* one slot per sender jobrank */
#define AM_HANDLER 200

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm0;
static gex_Segment_t seg;
static gex_Rank_t me, ranks;
static char *mybase;
static volatile uint32_t am_from; /* jobrank + 1 of the last AM's sender */

static void barrier(void)
{
    gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED);
}

static void am_handler(gex_Token_t token, gex_AM_Arg_t team_rank_of_sender)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    (void)team_rank_of_sender;
    __atomic_store_n(&am_from, info.gex_srcrank + 1, __ATOMIC_SEQ_CST);
}

/* The team's queries against the members it should have, in order. */
static void check_team(const char *what, gex_TM_t team, const gex_Rank_t *members, gex_Rank_t n)
{
    CHECK(team != GEX_TM_INVALID && team != tm0, "%s: a new, distinct team", what);
    CHECK(gex_TM_QuerySize(team) == n, "%s: size %u, expected %u", what, gex_TM_QuerySize(team), n);
    gex_Rank_t mine = GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < n; r++) {
        CHECK(gex_TM_TranslateRankToJobrank(team, r) == members[r],
              "%s: rank %u is jobrank %u, expected %u", what, r,
              gex_TM_TranslateRankToJobrank(team, r), members[r]);
        CHECK(gex_TM_TranslateJobrankToRank(team, members[r]) == r, "%s: jobrank %u back", what,
              members[r]);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(team, r, 0);
        CHECK(loc.gex_rank == members[r] && loc.gex_ep_index == 0, "%s: RankToEP %u", what, r);
        if (members[r] == me)
            mine = r;
    }
    CHECK(gex_TM_QueryRank(team) == mine, "%s: my rank %u, expected %u", what,
          gex_TM_QueryRank(team), mine);
    for (gex_Rank_t j = 0; j < ranks; j++) {
        int member = 0;
        for (gex_Rank_t r = 0; r < n; r++)
            member |= members[r] == j;
        if (!member)
            CHECK(gex_TM_TranslateJobrankToRank(team, j) == GEX_RANK_INVALID,
                  "%s: non-member jobrank %u", what, j);
    }
    CHECK(gex_TM_QueryEP(team) == ep && gex_TM_QueryClient(team) == client, "%s: EP/client", what);
    gex_TM_SetCData(team, &mine);
    CHECK(gex_TM_QueryCData(team) == &mine && gex_TM_QueryCData(tm0) != &mine, "%s: cdata", what);
}

/* Each member puts its jobrank into the next team rank's slot and sends it an AM; the
 * receiver checks both came from the member before it, by jobrank. */
static void check_addressing(const char *what, gex_TM_t team)
{
    gex_Rank_t n = gex_TM_QuerySize(team), r = gex_TM_QueryRank(team);
    gex_Rank_t next = (r + 1) % n, prev = (r + n - 1) % n;
    gex_Rank_t prev_job = gex_TM_TranslateRankToJobrank(team, prev);
    uint64_t stamp = 0xab00000000ull | me;
    void *nbase = NULL;
    CHECK(gex_Segment_QueryBound(team, next, &nbase, NULL, NULL) == 0, "%s: bound", what);
    char *slot = (char *)nbase + PUT_OFF + 8 * me;
    memset(mybase + PUT_OFF, 0, 8 * 64);
    barrier();
    gex_RMA_PutBlocking(team, next, slot, &stamp, 8, 0);
    am_from = 0;
    barrier();
    gex_AM_RequestShort1(team, next, AM_HANDLER, 0, (gex_AM_Arg_t)r);
    GASNET_BLOCKUNTIL(am_from != 0);
    uint64_t got;
    memcpy(&got, mybase + PUT_OFF + 8 * prev_job, 8);
    CHECK(got == (0xab00000000ull | prev_job), "%s: the put from team rank %u (jobrank %u) "
          "holds %#llx", what, prev, prev_job, (unsigned long long)got);
    CHECK(am_from == prev_job + 1, "%s: the AM came from jobrank %u, expected %u", what,
          am_from - 1, prev_job);
    uint64_t back = 0;
    gex_RMA_GetBlocking(team, &back, next, slot, 8, 0);
    CHECK(back == stamp, "%s: get from team rank %u read %#llx", what, next,
          (unsigned long long)back);
    barrier();
}

static void splits(void)
{
    gex_Rank_t members[64], n = 0;
    /* By parity, reversed by key. */
    gex_TM_t parity;
    gex_TM_Split(&parity, tm0, (int)(me % 2) + 0xf00, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    for (gex_Rank_t j = ranks; j-- > 0;)
        if (j % 2 == me % 2)
            members[n++] = j;
    check_team("parity split", parity, members, n);
    check_addressing("parity split", parity);

    /* Equal keys: parent rank order; split of a split (halves of the parity team). */
    gex_TM_t half;
    gex_Rank_t pr = gex_TM_QueryRank(parity), pn = gex_TM_QuerySize(parity);
    gex_TM_Split(&half, parity, pr < pn / 2, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t hn = 0, hm[64];
    for (gex_Rank_t r = 0; r < pn; r++)
        if ((r < pn / 2) == (pr < pn / 2))
            hm[hn++] = gex_TM_TranslateRankToJobrank(parity, r);
    check_team("split of a split", half, hm, hn);
    check_addressing("split of a split", half);

    /* Only odd ranks join; even ones get 0 and nothing. */
    gex_TM_t odd = GEX_TM_INVALID;
    size_t rc = gex_TM_Split(me % 2 ? &odd : NULL, tm0, 7, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(rc == 0, "a split returns 0 here (%zu)", rc);
    if (me % 2) {
        n = 0;
        for (gex_Rank_t j = 1; j < ranks; j += 2)
            members[n++] = j;
        check_team("odd ranks", odd, members, n);
    } else {
        CHECK(odd == GEX_TM_INVALID, "a NULL new_tm_p gets no team");
    }

    /* The scratch query is local, creates nothing and leaves *new_tm_p alone. */
    gex_TM_t untouched = (gex_TM_t)(uintptr_t)0x5a5a;
    CHECK(gex_TM_Split(&untouched, tm0, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0 &&
              gex_TM_Split(&untouched, tm0, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN) == 0 &&
              untouched == (gex_TM_t)(uintptr_t)0x5a5a,
          "scratch-size query");
    CHECK(gex_TM_Split(NULL, tm0, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN) == 0, "NULL query");

    /* Destroy without scratch: 0, and the memvec untouched. */
    gex_Memvec_t mv = { (void *)(uintptr_t)0x77, 0x99 };
    CHECK(gex_TM_Destroy(half, &mv, 0) == 0 && mv.gex_addr == (void *)(uintptr_t)0x77 &&
              mv.gex_len == 0x99, "destroy of a NO_SCRATCH team");
    if (me % 2)
        CHECK(gex_TM_Destroy(odd, NULL, GEX_FLAG_GLOBALLY_QUIESCED) == 0, "destroy odd");
    CHECK(gex_TM_Destroy(parity, NULL, 0) == 0, "destroy parity");
}

static void creates(void)
{
    /* Every rank, reversed, with scratch: Destroy hands it back exactly. */
    gex_EP_Location_t args[64];
    gex_Rank_t members[64];
    for (gex_Rank_t r = 0; r < ranks; r++) {
        args[r].gex_rank = ranks - 1 - r;
        args[r].gex_ep_index = 0;
        members[r] = ranks - 1 - r;
    }
    gex_TM_t rev;
    gex_Addr_t scratch = mybase + SCRATCH_OFF;
    CHECK(gex_TM_Create(NULL, 1, tm0, args, ranks, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN) == 0,
          "create query");
    gex_TM_Create(&rev, 1, tm0, args, ranks, &scratch, 512 + me, GEX_FLAG_TM_LOCAL_SCRATCH);
    check_team("reversed create", rev, members, ranks);
    check_addressing("reversed create", rev);
    gex_Memvec_t mv = { NULL, 0 };
    CHECK(gex_TM_Destroy(rev, &mv, 0) != 0 && mv.gex_addr == scratch && mv.gex_len == 512 + me,
          "destroy hands the scratch back (%p %zu)", mv.gex_addr, mv.gex_len);

    /* The last rank and rank 0 only; the others pass nothing and keep their handle. */
    gex_TM_t ends = (gex_TM_t)(uintptr_t)0x5a5a;
    gex_Rank_t n = ranks > 1 ? 2 : 1;
    args[0].gex_rank = ranks - 1;
    args[1].gex_rank = 0;
    members[0] = ranks - 1;
    members[1] = 0;
    int member = me == 0 || me == ranks - 1;
    gex_TM_Create(&ends, 1, tm0, args, member ? n : 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    if (member) {
        check_team("ends create", ends, members, n);
        check_addressing("ends create", ends);
        CHECK(gex_TM_Destroy(ends, NULL, GEX_FLAG_GLOBALLY_QUIESCED) == 0, "destroy ends");
    } else {
        CHECK(ends == (gex_TM_t)(uintptr_t)0x5a5a, "a non-member's handle is left alone");
        barrier(); /* the members' check_addressing barriers */
        barrier();
        barrier();
    }
}

static void cycles(int count)
{
    for (int i = 0; i < count; i++) {
        gex_TM_t t;
        gex_TM_Split(&t, tm0, 0, (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        CHECK(gex_TM_QuerySize(t) == ranks, "cycle %d", i);
        gex_TM_Destroy(t, NULL, i % 2 ? GEX_FLAG_GLOBALLY_QUIESCED : 0);
    }
    printf("ex_team: rank %u: %d team splits and destroys\n", me, count);
}

static int misuse(const char *mode)
{
    if (strcmp(mode, "destroy_tm0") == 0)
        gex_TM_Destroy(tm0, NULL, 0);
    else if (strcmp(mode, "split_flags") == 0)
        gex_TM_Split(NULL, tm0, 0, 0, NULL, 0, 1u << 9);
    else if (strcmp(mode, "create_not_member") == 0) {
        gex_EP_Location_t only = { (me + 1) % ranks, 0 };
        gex_TM_t t;
        gex_TM_Create(&t, 1, tm0, &only, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else if (strcmp(mode, "scratch_offset") == 0) {
        gex_TM_t t;
        gex_TM_Split(&t, tm0, 0, 0, NULL, 0, GEX_FLAG_SCRATCH_SEG_OFFSET);
    } else if (strcmp(mode, "scratch_outside") == 0) {
        static char outside[64];
        gex_TM_t t;
        gex_TM_Split(&t, tm0, 0, 0, outside, sizeof outside, 0);
    }
    barrier();
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "ex_team";
    CHECK(gex_Client_Init(&client, &ep, &tm0, "ex_team", &argc, &argv, 0) == GASNET_OK, "init");
    me = gex_System_QueryJobRank();
    ranks = gex_System_QueryJobSize();
    CHECK(ranks <= 64, "at most 64 ranks");
    gex_AM_Entry_t entry[1] = { { AM_HANDLER, (gex_AM_Fn_t)am_handler,
                                  GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, NULL } };
    CHECK(gex_EP_RegisterHandlers(ep, entry, 1) == GASNET_OK, "register");
    CHECK(gex_Segment_Attach(&seg, tm0, SEGSZ) == GASNET_OK, "attach");
    mybase = gex_Segment_QueryAddr(seg);
    if (argc > 2 && strcmp(argv[1], "cycles") == 0) {
        cycles(atoi(argv[2]));
    } else if (argc > 1) {
        return misuse(argv[1]);
    } else {
        splits();
        creates();
        printf("ex_team: rank %u of %u: splits, creates, destroys, queries and team-rank "
               "addressing verified\n", me, ranks);
    }
    fflush(stdout);
    barrier();
    gasnet_exit(0);
    return 0;
}
