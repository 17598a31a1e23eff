/*
 * The hosts of the job as the conduit sees them.
 * nodeinfo.c: hosts and supernodes (5.4.5): gathered at init (supernodes as
 * the transport will map them), made exact at attach (what is mapped).
 * sizing.c: per-host sizing at init, from the nodes on this host.
 */
#ifndef GP_CONDUIT_NODEINFO_H
#define GP_CONDUIT_NODEINFO_H

#include <gasnet.h>

int gpc_nodeinfo_init(void);
int gpc_nodeinfo_setup(void);
const gasnet_nodeinfo_t *gpc_nodeinfo(void);

/* After gpc_nodeinfo_init: gpc.local_nodes, the segment limit and
 * gpc.oversubscribed. */
void gpc_sizing_init(void);
/* After gpc_nodeinfo_init: does node share this host (this node does)?  The
 * nodes gpc.local_nodes counts, by the rule sizing.c's header gives. */
int gpc_shares_host(gasnet_node_t node);

#endif
