/*
 * am_ring.c: on-node AMs through per-peer slot rings in the receiver's
 * region, found through the PT_MBOX mailbox.
 */
#ifndef GP_CONDUIT_AM_RING_H
#define GP_CONDUIT_AM_RING_H

#include <gasnet.h>
#include <stddef.h>
#include <stdint.h>

struct gpc_token;

/* The most nodes of one host that use rings: GP_SHM_AM_RING_RANKS's upper bound, and the size
 * of a mailbox's polled_directly flags. */
#define GPC_RING_MAX_LOCAL_NODES 256

uint64_t gpc_ring_region_bytes(void);   /* what the mailbox adds to the region */
int gpc_ring_setup(void);               /* before the attach barrier */
void gpc_ring_connect(void);            /* after it */
int gpc_ring_to(gasnet_node_t node);    /* messages to node take a ring */
int gpc_ring_in_use(void);              /* some peer's messages take rings */
/* 1 when sent through the ring to dest, 0 when dest has none (the caller goes the Portals way). */
int gpc_ring_request(gasnet_node_t dest, unsigned category, gasnet_handler_t handler,
                     void *source, size_t nbytes, void *dest_addr, int nargs,
                     const gasnet_handlerarg_t *args);
int gpc_ring_reply(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                   void *source, size_t nbytes, void *dest_addr, int nargs,
                   const gasnet_handlerarg_t *args);
int gpc_ring_poll(void);                /* messages taken */
struct gpc_ring_stats {
    uint64_t sent;       /* requests and replies this node posted to the peer */
    uint64_t received;   /* those it took from the peer */
    uint64_t stalls;     /* requests that waited for a slot */
    uint64_t rung;       /* posts that set this node's doorbell bit at the peer (doorbell mode) */
};
void gpc_ring_peer_stats(gasnet_node_t node, struct gpc_ring_stats *stats);

#endif
