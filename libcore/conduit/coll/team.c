/*
 * Teams: GASNET_TEAM_ALL and the teams gasnet_coll_team_split makes.
 *
 * A team's id names it in barrier and collective messages, so every member
 * must compute the same one without asking: it is the node of the new
 * team's rank 0 (20 bits) and a slot that node holds for it (12 bits, as
 * GASNet 1.29.3 limits a node to 4095 teams led at once), learned in the
 * split's gather.  0 is GASNET_TEAM_ALL.  A split registers the new team
 * before its closing synchronization on the parent, so a member's first
 * message on the new team always finds it registered.
 *
 * A destroyed team (gex_TM_Destroy) gives its slot back, so an EX client
 * may make and destroy teams without end.  Reusing the id is safe because
 * the destroy follows a synchronization of the whole team (or the client's
 * promise that it is quiet): every collective message of the old team has
 * then been received, and a member can take part in a new team only after
 * that, through a collective of a parent it belongs to.
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
    uint8_t slot_used[TEAM_MAX_LED + 1];   /* by slot of the teams this node leads; 0 unused */
} reg = { GP_MUTEX_INITIALIZER, NULL, { 0 } };

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
    int64_t order;           /* relrank (legacy) or key (EX) */
    uint32_t joins;          /* 0: takes part, but joins no team (EX's NULL new_tm_p) */
    uint32_t color;
    uint32_t slot;           /* the team slot this node would lead with; 0 none free */
    uint32_t unused;         /* no padding of unset bytes goes on the wire */
};

/* A blocking internal collective on team (one image per node). */
static void run(struct gpc_team *team, const struct gpc_coll_call *call)
{
    gpc_coll_finish(gpc_coll_start(team, 0, call));
}

/* The lowest free slot, taken (0 when all are): a concurrent split on another thread
 * must not offer the same one. */
static uint32_t take_slot(void)
{
    uint32_t slot = 0;
    gp_mutex_lock(&reg.lock);
    for (uint32_t s = 1; s <= TEAM_MAX_LED && slot == 0; s++)
        if (!reg.slot_used[s])
            slot = s;
    if (slot != 0)
        reg.slot_used[slot] = 1;
    gp_mutex_unlock(&reg.lock);
    return slot;
}

static void give_slot(uint32_t slot)
{
    gp_mutex_lock(&reg.lock);
    reg.slot_used[slot] = 0;
    gp_mutex_unlock(&reg.lock);
}

/* Ascending key, ties by parent rank (EX's order). */
static int by_key(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static struct gpc_team *split(struct gpc_team *parent, int joins, uint32_t color, int64_t order,
                              int keyed, const char *call)
{
    gasnet_node_t n = parent->size;
    uint32_t my_slot = take_slot();
    struct split_entry mine = { order, (uint32_t)(joins != 0), color, my_slot, 0 };
    struct split_entry *all = calloc(n, sizeof *all);
    if (all == NULL)
        gp_fatal("%s: out of memory for %u members", call, n);
    run(parent, &(struct gpc_coll_call){ .kind = GPC_GATHER_ALL, .in_allsync = 1,
                                         .nbytes = sizeof mine, .dst = all, .src = &mine });
    struct gpc_team *team = NULL;
    if (joins) {
        gasnet_node_t size = 0;
        for (gasnet_node_t r = 0; r < n; r++)
            size += all[r].joins && all[r].color == color;
        /* Members as (order, parent rank), in team rank order once sorted. */
        int64_t (*members)[2] = calloc(size, sizeof *members);
        gasnet_node_t *rank2node = malloc(size * sizeof *rank2node);
        uint8_t *seen = calloc(size, 1);
        team = calloc(1, sizeof *team);
        uint32_t *seq = calloc(1, sizeof *seq);
        if (members == NULL || rank2node == NULL || seen == NULL || team == NULL || seq == NULL)
            gp_fatal("%s: out of memory for a team of %u", call, size);
        gasnet_node_t m = 0;
        for (gasnet_node_t r = 0; r < n; r++) {
            if (!all[r].joins || all[r].color != color)
                continue;
            members[m][0] = all[r].order;
            members[m][1] = r;
            m++;
            if (keyed)
                continue;
            int64_t rel = all[r].order;
            if (rel < 0 || rel >= size || seen[rel])
                gp_fatal("%s: color %u has %u members, but parent rank %u passed relrank %lld "
                         "(%s; relranks must be 0..%u, each once)", call, color, size, r,
                         (long long)rel, rel >= size ? "too large" : "taken twice", size - 1);
            seen[rel] = 1;
        }
        qsort(members, size, sizeof *members, by_key);
        for (gasnet_node_t k = 0; k < size; k++) {
            gasnet_node_t r = (gasnet_node_t)members[k][1];
            rank2node[k] = gpc_team_node(parent, r);
            if (r == parent->rank)
                team->rank = k;
        }
        uint32_t leader_slot = all[members[0][1]].slot;
        if (leader_slot == 0)
            gp_fatal("%s: node %u already leads %u teams, the most it may at once", call,
                     rank2node[0], TEAM_MAX_LED);
        if (rank2node[0] == gpc.rank)
            my_slot = 0; /* kept: this node leads the new team */
        team->id = (uint32_t)rank2node[0] << TEAM_LEAD_BITS | leader_slot;
        team->size = size;
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
        free(members);
    }
    if (my_slot != 0)
        give_slot(my_slot);
    free(all);
    /* Every member has registered its new team once this completes. */
    run(parent, &(struct gpc_coll_call){ .kind = GPC_SYNC, .in_allsync = 1 });
    return team;
}

struct gpc_team *gpc_team_split(struct gpc_team *parent, gasnet_node_t color,
                                gasnet_node_t relrank)
{
    return split(parent, 1, color, relrank, 0, "gasnet_coll_team_split");
}

struct gpc_team *gpc_team_split_keyed(struct gpc_team *parent, int joins, uint32_t color,
                                      int64_t key, const char *call)
{
    return split(parent, joins, color, key, 1, call);
}

void gpc_team_destroy(struct gpc_team *team)
{
    gp_mutex_lock(&reg.lock);
    struct gpc_team **link = &reg.teams;
    while (*link != NULL && *link != team)
        link = &(*link)->next;
    if (*link == NULL)
        gp_fatal("team %#x is not registered here (destroyed twice?)", (unsigned)team->id);
    *link = team->next;
    if (team->rank == 0)
        reg.slot_used[team->id & TEAM_MAX_LED] = 0;
    gp_mutex_unlock(&reg.lock);
    free(team->rank2node);
    free(team->next_seq);
    free(team);
}
