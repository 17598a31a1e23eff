/*
 * Teams (gasnet_coll.h): gasnet_coll_team_split, the team queries and the
 * team barriers.  conduit/coll/team.c keeps the teams, conduit/coll/barrier.c runs
 * each team's barrier; on GASNET_TEAM_ALL it is gasnet_barrier_*'s.
 */
#include <gasnet.h>
#include <string.h>

#include "api/gasnet1/coll_images.h"
#include "api/common/export.h"
#include "conduit/coll/barrier.h"
#include "conduit/coll/team.h"
#include "util/log.h"

GP_EXPORT gasnet_team_handle_t gasnet_coll_team_split(gasnet_team_handle_t parent_team,
                                                      gasnet_node_t color,
                                                      gasnet_node_t relrank, void *clientdata)
{
    const char *call = "gasnet_coll_team_split";
    gp_coll_check_phase(call, 1);
    struct gpc_team *parent = gp_coll_team(call, parent_team);
    if (parent->local_images > 1)
        gp_fatal("%s: the parent team has %u images on this node; teams split from one image "
                 "per node only (as in GASNet 1.29.3)", call, parent->local_images);
    if (clientdata == NULL)
        gp_fatal("%s: clientdata is NULL (it points at a gasnet_seginfo_t of scratch space)",
                 call);
    gasnet_seginfo_t scratch; /* read as GASNet reads it; gp needs no scratch space */
    memcpy(&scratch, clientdata, sizeof scratch);
    (void)scratch;
    if (relrank >= parent->size)
        gp_fatal("%s: relrank %u is not below the parent team's size %u", call, relrank,
                 parent->size);
    return (gasnet_team_handle_t)(void *)gpc_team_split(parent, color, relrank);
}

GP_EXPORT gasnet_node_t gasnet_coll_team_rank2node(gasnet_team_handle_t team, int rank)
{
    struct gpc_team *t = gp_coll_team("gasnet_coll_team_rank2node", team);
    if (rank < 0 || (gasnet_node_t)rank >= t->size)
        gp_fatal("gasnet_coll_team_rank2node: rank %d is not in the team (ranks 0 to %u)", rank,
                 t->size - 1);
    return gpc_team_node(t, (gasnet_node_t)rank);
}

GP_EXPORT gasnet_node_t gasnet_coll_team_node2rank(gasnet_team_handle_t team, gasnet_node_t node)
{
    struct gpc_team *t = gp_coll_team("gasnet_coll_team_node2rank", team);
    gasnet_node_t rank = gpc_team_rank_of(t, node);
    if (rank >= t->size)
        gp_fatal("gasnet_coll_team_node2rank: node %u is not a member of the team", node);
    return rank;
}

GP_EXPORT gasnet_node_t gasnet_coll_team_size(gasnet_team_handle_t team)
{
    return gp_coll_team("gasnet_coll_team_size", team)->size;
}

/* ---- barriers ---- */

#define BARRIER_FLAGS (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH | \
                       GASNET_BARRIERFLAG_IMAGES | GASNET_BARRIERFLAG_UNNAMED)

/* The team, and whether this call is one of several images' (IMAGES with
 * more than one image here): then only local image 0 drives the barrier. */
struct barrier_call {
    struct gpc_team *team;
    int images;
    uint32_t local;
};

static struct barrier_call barrier_begin(const char *call, gasnet_team_handle_t team, int flags)
{
    gp_coll_check_phase(call, 0);
    struct barrier_call b = { gp_coll_team(call, team), 0, 0 };
    if (flags & ~BARRIER_FLAGS)
        gp_fatal("%s: flags 0x%x hold unknown bits (accepted: GASNET_BARRIERFLAG_ANONYMOUS, "
                 "_MISMATCH, _UNNAMED, _IMAGES)", call, (unsigned)flags);
    if ((flags & GASNET_BARRIERFLAG_IMAGES) && b.team->local_images > 1) {
        b.images = 1;
        b.local = gp_coll_local_image(call, b.team);
    }
    return b;
}

static void notify(const char *call, struct barrier_call b, int id, int flags)
{
    if (b.images)
        gp_coll_images_barrier();
    if (b.local != 0)
        return;
    if (gpc_team_barrier_between_notify_and_wait(b.team))
        gp_fatal("%s called twice without a wait/try between", call);
    gpc_team_barrier_notify(b.team, id, flags & ~GASNET_BARRIERFLAG_IMAGES);
}

static int wait(const char *call, struct barrier_call b, int id, int flags)
{
    int rc = GASNET_OK;
    if (b.local == 0) {
        if (!gpc_team_barrier_between_notify_and_wait(b.team))
            gp_fatal("%s called without a preceding notify", call);
        rc = gpc_team_barrier_wait(b.team, id, flags & ~GASNET_BARRIERFLAG_IMAGES);
    }
    if (b.images)
        gp_coll_images_barrier();
    return rc;
}

GP_EXPORT void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags)
{
    const char *call = "gasnet_coll_barrier_notify";
    notify(call, barrier_begin(call, team, flags), id, flags);
}

GP_EXPORT int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags)
{
    const char *call = "gasnet_coll_barrier_wait";
    return wait(call, barrier_begin(call, team, flags), id, flags);
}

GP_EXPORT int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags)
{
    const char *call = "gasnet_coll_barrier_try";
    struct barrier_call b = barrier_begin(call, team, flags);
    if (b.images)
        gp_fatal("%s: GASNET_BARRIERFLAG_IMAGES with %u images on this node (try cannot wait "
                 "for the other images; use gasnet_coll_barrier_wait)", call,
                 b.team->local_images);
    if (!gpc_team_barrier_between_notify_and_wait(b.team))
        gp_fatal("%s called without a preceding notify", call);
    return gpc_team_barrier_try(b.team, id, flags & ~GASNET_BARRIERFLAG_IMAGES);
}

GP_EXPORT int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags)
{
    const char *call = "gasnet_coll_barrier";
    struct barrier_call b = barrier_begin(call, team, flags);
    notify(call, b, id, flags);
    return wait(call, b, id, flags);
}

GP_EXPORT int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id)
{
    const char *call = "gasnet_coll_barrier_result";
    gp_coll_check_phase(call, 0);
    struct gpc_team *t = gp_coll_team(call, team);
    if (id == NULL)
        gp_fatal("%s: id is NULL (it receives the phase's name)", call);
    return gpc_team_barrier_result(t, id);
}
