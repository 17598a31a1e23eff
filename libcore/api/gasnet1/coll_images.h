/*
 * What api/gasnet1/coll.c and api/gasnet1/team.c share: whether gasnet_coll_init has run,
 * the calling thread's image, and the node's images' thread barrier.
 */
#ifndef GP_API_COLL_IMAGES_H
#define GP_API_COLL_IMAGES_H

#include <gasnet.h>

#include "conduit/coll/team.h"

/* Fatal unless attached, outside handlers, and (need_init) after gasnet_coll_init. */
void gp_coll_check_phase(const char *call, int need_init);
/* team as gp's, fatal when it is not a team of this node. */
struct gpc_team *gp_coll_team(const char *call, gasnet_team_handle_t team);
/* The calling thread's index among this node's images of team (0 with one image per node). */
uint32_t gp_coll_local_image(const char *call, const struct gpc_team *team);
/* Waits until all of this node's images have called it (one image: returns at once). */
void gp_coll_images_barrier(void);

#endif
