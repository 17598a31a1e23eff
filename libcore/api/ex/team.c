/*
 * EX teams (§5): the queries, rank translation, gex_TM_Split, _Create and
 * _Destroy.  A team is a conduit team (conduit/coll/team.c, the one
 * GASNet-1's gasnet_coll_team_split makes), so the collectives engine runs
 * EX collectives on it as on any other; the EX object adds what only EX
 * has: the client data and the scratch space to hand back.
 *
 * gp's collectives carry their data in AM Mediums and need no scratch, so
 * the size queries answer 0 (MIN and RECOMMENDED alike, which the spec
 * allows); a scratch a client still gives is checked to lie in its segment
 * and is remembered for Destroy, never written.
 */
#include <gasnetex.h>
#include <stdlib.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/coll/coll.h"
#include "conduit/coll/team.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "util/log.h"

#define SCRATCH_QUERY (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED)
#define TM_NEW_FLAGS (SCRATCH_QUERY | GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH | \
                      GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_NO_SCRATCH)

static void check_live(const char *call, gex_TM_t tm)
{
    if (gpx_tm_is_pair(tm))
        gp_fatal("%s: %p is a TM-pair (gex_TM_Pair), which addresses point-to-point calls "
                 "only; this call takes a team", call, (void *)tm);
    if (tm == GEX_TM_INVALID || tm->live != GPX_TM_LIVE)
        gp_fatal("%s: team %p is not a live team (gex_Client_Init, gex_TM_Split and "
                 "gex_TM_Create make them; gex_TM_Destroy ends them)", call, (void *)tm);
}

/* Before attach, the primordial team's conduit team is not set up yet: its numbers
 * come from the job. */
static gex_Rank_t tm_size(gex_TM_t tm)
{
    return tm == &_gex_tm0 ? gpc.nodes : tm->team->size;
}

void gpx_tm_check_team(const char *call, gex_TM_t tm) { check_live(call, tm); }

gex_Rank_t gpx_tm_jobrank_checked(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    if (gpx_tm_is_pair(tm)) {
        if (rank >= gpc.nodes)
            gp_fatal("%s: jobrank %u (addressed by a TM-pair) is not in the job (its ranks are "
                     "0..%u)", call, rank, gpc.nodes - 1);
        return rank;
    }
    check_live(call, tm);
    gex_Rank_t size = tm_size(tm);
    if (rank >= size)
        gp_fatal("%s: rank %u is not in the team (its ranks are 0..%u)", call, rank, size - 1);
    return tm == &_gex_tm0 ? rank : gpc_team_node(tm->team, rank);
}

struct gpc_team *gpx_tm_team(const char *call, gex_TM_t tm)
{
    check_live(call, tm);
    gpx_check_callable(call);
    if (tm->team->local_images > 1)
        gp_fatal("%s: the primordial team has %u images on this node (gasnet_coll_init's "
                 "table); EX collectives need one image per process", call,
                 tm->team->local_images);
    return tm->team;
}

/* The queries read the team object, which a TM-pair does not have. */
static gex_TM_t no_pair(const char *call, gex_TM_t tm)
{
    if (gpx_tm_is_pair(tm))
        check_live(call, tm);
    return tm;
}

GP_EXPORT gex_Rank_t gex_TM_QueryRank(gex_TM_t tm)
{
    return no_pair("gex_TM_QueryRank", tm) == &_gex_tm0 ? gpc.rank : tm->team->rank;
}
GP_EXPORT gex_Rank_t gex_TM_QuerySize(gex_TM_t tm)
{
    return tm_size(no_pair("gex_TM_QuerySize", tm));
}
GP_EXPORT gex_EP_t gex_TM_QueryEP(gex_TM_t tm)
{
    (void)no_pair("gex_TM_QueryEP", tm);
    return &gpx_ep;
}
GP_EXPORT gex_Client_t gex_TM_QueryClient(gex_TM_t tm)
{
    (void)no_pair("gex_TM_QueryClient", tm);
    return &gpx_client;
}
GP_EXPORT gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm)
{
    (void)no_pair("gex_TM_QueryFlags", tm);
    return 0;
}
GP_EXPORT void gex_TM_SetCData(gex_TM_t tm, const void *val)
{
    no_pair("gex_TM_SetCData", tm)->cdata = (void *)val;
}
GP_EXPORT void *gex_TM_QueryCData(gex_TM_t tm) { return no_pair("gex_TM_QueryCData", tm)->cdata; }

/* A pseudo-team for point-to-point calls whose ranks are jobranks (gpx_tm_jobrank);
 * no allocation, no communication. */
GP_EXPORT gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index)
{
    if (local_ep != &gpx_ep)
        gp_fatal("gex_TM_Pair: local_ep %p is not this process's endpoint (gex_Client_Init's, "
                 "%p)", (void *)local_ep, (void *)&gpx_ep);
    if (remote_ep_index != 0)
        gp_fatal("gex_TM_Pair: remote_ep_index %u; a process has one endpoint "
                 "(GASNET_MAXEPS 1), index 0", (unsigned)remote_ep_index);
    return (gex_TM_t)((uintptr_t)&gpx_ep | GPX_TM_PAIR_BIT);
}

GP_EXPORT gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank)
{
    return gpx_tm_jobrank("gex_TM_TranslateRankToJobrank", tm, rank);
}

GP_EXPORT gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank)
{
    if (gpx_tm_is_pair(tm) || tm == &_gex_tm0)
        return jobrank < gpc.nodes ? jobrank : GEX_RANK_INVALID;
    check_live("gex_TM_TranslateJobrankToRank", tm);
    gex_Rank_t rank = gpc_team_rank_of(tm->team, jobrank);
    return rank < tm->team->size ? rank : GEX_RANK_INVALID;
}

GP_EXPORT gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank,
                                                    gex_Flags_t flags)
{
    gex_Rank_t jobrank = gpx_tm_jobrank("gex_TM_TranslateRankToEP", tm, rank);
    if (flags != 0)
        gp_fatal("gex_TM_TranslateRankToEP: flags 0x%x; it takes 0", (unsigned)flags);
    gex_EP_Location_t where = { jobrank, 0 };
    return where;
}

static void check_new_flags(const char *call, gex_Flags_t flags)
{
    if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET)
        gp_fatal("%s: GEX_FLAG_SCRATCH_SEG_OFFSET is not supported (scratch is given by "
                 "address)", call);
    if (flags & ~(gex_Flags_t)TM_NEW_FLAGS)
        gp_fatal("%s: flags 0x%x; accepted are GEX_FLAG_TM_SCRATCH_SIZE_MIN, "
                 "_SCRATCH_SIZE_RECOMMENDED, GEX_FLAG_TM_GLOBAL_SCRATCH, _LOCAL_SCRATCH, "
                 "_SYMMETRIC_SCRATCH and _NO_SCRATCH", call, (unsigned)flags);
}

/* The new team's EX object, with the scratch it was given. */
static gex_TM_t new_tm(const char *call, struct gpc_team *team, void *scratch_addr,
                       size_t scratch_size, gex_Flags_t flags)
{
    struct _gex_tm *tm = calloc(1, sizeof *tm);
    if (tm == NULL)
        gp_fatal("%s: out of memory for a team", call);
    tm->live = GPX_TM_LIVE;
    tm->team = team;
    if (!(flags & GEX_FLAG_TM_NO_SCRATCH)) {
        tm->has_scratch = 1;
        tm->scratch.gex_addr = scratch_addr;
        tm->scratch.gex_len = scratch_size;
    }
    return tm;
}

/* Scratch, unless NO_SCRATCH, lies in the caller's segment (checked before the
 * collective part, so a refusal is this caller's own line). */
static void check_scratch(const char *call, const void *addr, size_t size, gex_Flags_t flags)
{
    if ((flags & GEX_FLAG_TM_NO_SCRATCH) || size == 0)
        return;
    if (!gpc_segment_holds(gpc.segment, gpc.segsize, addr, size))
        gp_fatal("%s: scratch %p + %zu bytes is outside this process's segment [%p, +%lu) "
                 "(pass GEX_FLAG_TM_NO_SCRATCH for none)", call, addr, size,
                 (void *)gpc.segment, (unsigned long)gpc.segsize);
}

GP_EXPORT size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                              void *scratch_addr, size_t scratch_size, gex_Flags_t flags)
{
    const char *call = "gex_TM_Split";
    check_new_flags(call, flags);
    if (flags & SCRATCH_QUERY)
        return 0; /* not collective; gp needs no scratch */
    struct gpc_team *parent = gpx_tm_team(call, parent_tm);
    if (new_tm_p != NULL)
        check_scratch(call, scratch_addr, scratch_size, flags);
    struct gpc_team *team =
        gpc_team_split_keyed(parent, new_tm_p != NULL, (uint32_t)color, key, call);
    if (new_tm_p != NULL)
        *new_tm_p = new_tm(call, team, scratch_addr, scratch_size, flags);
    return 0;
}

/* Create is a split: the members' color is the parent rank of their list's first
 * member (disjoint lists make disjoint teams) and their key their place in it.  Each
 * member then checks that the team came out as its own list says. */
GP_EXPORT size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                               gex_EP_Location_t *args, size_t numargs,
                               gex_Addr_t *scratch_addrs, size_t scratch_size, gex_Flags_t flags)
{
    const char *call = "gex_TM_Create";
    check_new_flags(call, flags);
    if (flags & SCRATCH_QUERY)
        return 0;
    struct gpc_team *parent = gpx_tm_team(call, parent_tm);
    int64_t key = -1;
    if (numargs > 0) {
        if (num_new_tms != 1 || new_tms == NULL)
            gp_fatal("%s: num_new_tms %zu, new_tms %p; gp makes one team per call (1 and a "
                     "place for it)", call, num_new_tms, (void *)new_tms);
        if (args == NULL)
            gp_fatal("%s: args is NULL with numargs %zu", call, numargs);
        if (!(flags & GEX_FLAG_TM_NO_SCRATCH) && scratch_addrs == NULL && scratch_size > 0)
            gp_fatal("%s: scratch_addrs is NULL for %zu bytes of scratch (pass "
                     "GEX_FLAG_TM_NO_SCRATCH for none)", call, scratch_size);
        for (size_t i = 0; i < numargs; i++) {
            if (args[i].gex_rank >= parent->size || args[i].gex_ep_index != 0)
                gp_fatal("%s: args[%zu] is {rank %u, ep_index %u}; ranks are the parent's "
                         "(0..%u) and ep_index 0", call, i, args[i].gex_rank,
                         (unsigned)args[i].gex_ep_index, parent->size - 1);
            for (size_t j = 0; j < i; j++)
                if (args[j].gex_rank == args[i].gex_rank)
                    gp_fatal("%s: parent rank %u is in args twice (at %zu and %zu)", call,
                             args[i].gex_rank, j, i);
            if (args[i].gex_rank == parent->rank)
                key = (int64_t)i;
        }
        if (key < 0)
            gp_fatal("%s: this caller (parent rank %u) is not in its own args; a non-member "
                     "passes numargs 0", call, parent->rank);
        if (scratch_addrs != NULL)
            check_scratch(call, scratch_addrs[0], scratch_size, flags);
    }
    uint32_t color = numargs > 0 ? args[0].gex_rank : 0;
    struct gpc_team *team = gpc_team_split_keyed(parent, numargs > 0, color, key, call);
    if (numargs == 0)
        return 0;
    for (size_t i = 0; i < numargs; i++)
        if (team->size != numargs ||
            gpc_team_node(team, (gex_Rank_t)i) != gpc_team_node(parent, args[i].gex_rank))
            gp_fatal("%s: the members passed different lists (this caller's has %zu members "
                     "and parent rank %u at %zu; the team formed has %u)", call, numargs,
                     args[i].gex_rank, i, team->size);
    void *scratch = (flags & GEX_FLAG_TM_NO_SCRATCH) || scratch_addrs == NULL ? NULL
                                                                               : scratch_addrs[0];
    new_tms[0] = new_tm(call, team, scratch, scratch_size, flags);
    return 0;
}

GP_EXPORT int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags)
{
    const char *call = "gex_TM_Destroy";
    struct gpc_team *team = gpx_tm_team(call, tm);
    if (tm == &_gex_tm0)
        gp_fatal("%s: the primordial team lives as long as the client", call);
    if (flags & ~(gex_Flags_t)GEX_FLAG_GLOBALLY_QUIESCED)
        gp_fatal("%s: flags 0x%x; accepted is GEX_FLAG_GLOBALLY_QUIESCED", call,
                 (unsigned)flags);
    /* The team's id goes back for reuse: no member may still be sending on it. */
    if (!(flags & GEX_FLAG_GLOBALLY_QUIESCED))
        gpc_coll_finish(gpc_coll_start(team, 0, &(struct gpc_coll_call){ .kind = GPC_SYNC,
                                                                          .in_allsync = 1 }));
    int handed_back = tm->has_scratch && scratch_p != NULL;
    if (handed_back)
        *scratch_p = tm->scratch;
    tm->live = 0;
    gpc_team_destroy(team);
    free(tm);
    return handed_back;
}
