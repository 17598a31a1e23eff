/*
 * team.c: teams.  A team is a list of nodes by rank; its id (0 for
 * GASNET_TEAM_ALL, else the leading node and a count of the teams it
 * leads) names it in messages.  Images: GASNET_TEAM_ALL may have several
 * per node (gasnet_coll_init's table), split teams one.
 */
#ifndef GP_CONDUIT_TEAM_H
#define GP_CONDUIT_TEAM_H

#include <gasnet.h>
#include <stdint.h>

#include "conduit/coll/barrier.h"

struct gpc_team {
    uint32_t id;
    gasnet_node_t size;
    gasnet_node_t rank;          /* this node's */
    gasnet_node_t *rank2node;    /* NULL: rank = node */
    uint32_t *img_count;         /* images by rank; NULL: one each */
    uint32_t *img_first;         /* first image number by rank */
    uint32_t nimages;
    uint32_t local_images;       /* this node's */
    uint32_t *next_seq;          /* by local image: the next collective's number */
    struct gpc_barrier barrier;
    struct gpc_team *next;
};
void gpc_team_setup(void);
extern struct gpc_team gpc_team_all_storage;   /* GASNET_TEAM_ALL */
struct gpc_team *gpc_team_all(void);
struct gpc_team *gpc_team_find(uint32_t id);
gasnet_node_t gpc_team_node(const struct gpc_team *team, gasnet_node_t rank);
/* The team rank of node, or size when it is not a member. */
gasnet_node_t gpc_team_rank_of(const struct gpc_team *team, gasnet_node_t node);
uint32_t gpc_team_images(const struct gpc_team *team, gasnet_node_t rank);
uint32_t gpc_team_first_image(const struct gpc_team *team, gasnet_node_t rank);
/* The rank holding image (image < nimages). */
gasnet_node_t gpc_team_rank_of_image(const struct gpc_team *team, uint32_t image);
/* GASNET_TEAM_ALL's image layout (counts by node; NULL: one each). */
void gpc_team_set_images(const uint32_t *counts);
/* Collective over parent (one image per node): the new team of this color. */
struct gpc_team *gpc_team_split(struct gpc_team *parent, gasnet_node_t color,
                                gasnet_node_t relrank);
/* The same as EX splits: members ordered by key, ties by parent rank; a caller with joins 0
 * takes part but gets NULL.  call names the API call in messages. */
struct gpc_team *gpc_team_split_keyed(struct gpc_team *parent, int joins, uint32_t color,
                                      int64_t key, const char *call);
/* Unregisters and frees a split team, giving its id back; the caller has made sure no
 * member still has a collective of it in flight. */
void gpc_team_destroy(struct gpc_team *team);

#endif
