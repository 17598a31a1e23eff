/*
 * Teams: GASNET_TEAM_ALL and the teams gasnet_coll_team_split makes.
 *
 * A team's id names it in barrier and collective messages, so every member
 * must compute the same one without asking: it is the node of the new
 * team's rank 0 (20 bits) and how many teams that node has led before (12
 * bits, as GASNet 1.29.3 limits it), learned in the split's gather.  0 is
 * GASNET_TEAM_ALL.  A split registers the new team before its closing
 * synchronization on the parent, so a member's first message on the new
 * team always finds it registered.
 */
#include <stdlib.h>
#include <string.h>

#include "conduit/coll/barrier.h"
#include "conduit/coll/coll.h"
#include "conduit/core/state.h"
#include "conduit/coll/team.h"
#include "util/log.h"
#include "util/thread.h"

#define TEAM_LEAD_BITS 12
#define TEAM_MAX_LED ((1u << TEAM_LEAD_BITS) - 1)

struct gpc_team gpc_team_all_storage;
#define team_all gpc_team_all_storage
static struct {
    gp_mutex_t lock;
    struct gpc_team *teams;  /* split teams, newest first */
    uint32_t led;            /* teams this node leads */
} reg = { GP_MUTEX_INITIALIZER, NULL, 0 };

static uint32_t one_seq;

void gpc_team_setup(void)
{
    memset(&team_all, 0, sizeof team_all);
    team_all.id = 0;
    team_all.size = gpc.nodes;
    team_all.rank = gpc.rank;
    team_all.nimages = gpc.nodes;
    team_all.local_images = 1;
    one_seq = 0;
    team_all.next_seq = &one_seq;
    gpc_barrier_init(&team_all.barrier, gpc.nodes);
    gp_mutex_init(&reg.lock);
}

struct gpc_team *gpc_team_all(void)
{
    return &team_all;
}

struct gpc_team *gpc_team_find(uint32_t id)
{
    if (id == 0)
        return &team_all;
    gp_mutex_lock(&reg.lock);
    struct gpc_team *team = reg.teams;
    while (team != NULL && team->id != id)
        team = team->next;
    gp_mutex_unlock(&reg.lock);
    return team;
}

gasnet_node_t gpc_team_node(const struct gpc_team *team, gasnet_node_t rank)
{
    return team->rank2node != NULL ? team->rank2node[rank] : rank;
}

gasnet_node_t gpc_team_rank_of(const struct gpc_team *team, gasnet_node_t node)
{
    if (team->rank2node == NULL)
        return node < team->size ? node : team->size;
    for (gasnet_node_t rank = 0; rank < team->size; rank++)
        if (team->rank2node[rank] == node)
            return rank;
    return team->size;
}

uint32_t gpc_team_images(const struct gpc_team *team, gasnet_node_t rank)
{
    return team->img_count != NULL ? team->img_count[rank] : 1;
}

uint32_t gpc_team_first_image(const struct gpc_team *team, gasnet_node_t rank)
{
    return team->img_first != NULL ? team->img_first[rank] : rank;
}

gasnet_node_t gpc_team_rank_of_image(const struct gpc_team *team, uint32_t image)
{
    if (team->img_first == NULL)
        return image;
    gasnet_node_t lo = 0, hi = team->size - 1;   /* the last rank whose first image <= image */
    while (lo < hi) {
        gasnet_node_t mid = lo + (hi - lo + 1) / 2;
        if (team->img_first[mid] <= image)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void gpc_team_set_images(const uint32_t *counts)
{
    if (counts == NULL)
        return;
    uint32_t *count = calloc(gpc.nodes, sizeof *count);
    uint32_t *first = calloc(gpc.nodes, sizeof *first);
    if (count == NULL || first == NULL)
        gp_fatal("out of memory for the images of %u nodes", gpc.nodes);
    uint32_t total = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        count[node] = counts[node];
        first[node] = total;
        total += counts[node];
    }
    uint32_t *seq = calloc(count[gpc.rank], sizeof *seq);
    if (seq == NULL)
        gp_fatal("out of memory for %u images", count[gpc.rank]);
    team_all.img_count = count;
    team_all.img_first = first;
    team_all.nimages = total;
    team_all.local_images = count[gpc.rank];
    team_all.next_seq = seq;
}

/* What each member of the parent tells the others in a split. */
struct split_entry {
    uint32_t color;
    uint32_t relrank;
    uint32_t led;            /* teams this node has led so far */
};

/* A blocking internal collective on team (one image per node). */
static void run(struct gpc_team *team, const struct gpc_coll_call *call)
{
    gpc_coll_finish(gpc_coll_start(team, 0, call));
}

struct gpc_team *gpc_team_split(struct gpc_team *parent, gasnet_node_t color,
                                gasnet_node_t relrank)
{
    gasnet_node_t n = parent->size;
    struct split_entry mine = { color, relrank, reg.led };
    struct split_entry *all = calloc(n, sizeof *all);
    if (all == NULL)
        gp_fatal("gasnet_coll_team_split: out of memory for %u members", n);
    run(parent, &(struct gpc_coll_call){ .kind = GPC_GATHER_ALL, .in_allsync = 1,
                                         .nbytes = sizeof mine, .dst = all, .src = &mine });
    gasnet_node_t size = 0;
    for (gasnet_node_t r = 0; r < n; r++)
        size += all[r].color == color;
    gasnet_node_t *rank2node = malloc(size * sizeof *rank2node);
    uint8_t *seen = calloc(size, 1);
    struct gpc_team *team = calloc(1, sizeof *team);
    uint32_t *seq = calloc(1, sizeof *seq);
    if (rank2node == NULL || seen == NULL || team == NULL || seq == NULL)
        gp_fatal("gasnet_coll_team_split: out of memory for a team of %u", size);
    uint32_t leader_led = 0;
    for (gasnet_node_t r = 0; r < n; r++) {
        if (all[r].color != color)
            continue;
        uint32_t rel = all[r].relrank;
        if (rel >= size || seen[rel])
            gp_fatal("gasnet_coll_team_split: color %u has %u members, but parent rank %u "
                     "passed relrank %u (%s; relranks must be 0..%u, each once)", color, size, r,
                     rel, rel >= size ? "too large" : "taken twice", size - 1);
        seen[rel] = 1;
        rank2node[rel] = gpc_team_node(parent, r);
        if (rel == 0)
            leader_led = all[r].led;
    }
    if (leader_led >= TEAM_MAX_LED)
        gp_fatal("gasnet_coll_team_split: node %u already leads %u teams, the most it may",
                 rank2node[0], leader_led);
    if (rank2node[0] == gpc.rank)
        reg.led++;
    team->id = (uint32_t)rank2node[0] << TEAM_LEAD_BITS | (leader_led + 1);
    team->size = size;
    team->rank = relrank;
    team->rank2node = rank2node;
    team->nimages = size;
    team->local_images = 1;
    team->next_seq = seq;
    gpc_barrier_init(&team->barrier, size);
    gp_mutex_lock(&reg.lock);
    team->next = reg.teams;
    reg.teams = team;
    gp_mutex_unlock(&reg.lock);
    free(seen);
    free(all);
    /* Every member has registered its new team once this completes. */
    run(parent, &(struct gpc_coll_call){ .kind = GPC_SYNC, .in_allsync = 1 });
    return team;
}
