/*
 * The conduit side of GASNet-1 VIS (gasnet_vis.h): a transfer between two
 * non-contiguous byte sequences, one local and one on a node.
 *
 * vis_layout.c walks a side (vector, indexed or strided) as contiguous
 * spans; vis.c moves the bytes: direct copies for a peer whose segment is
 * mapped here, else packed AM Longs through the VIS area (below), else one
 * ordinary put or get per span.
 *
 * The VIS area is a conduit-owned tail of every node's registered segment,
 * after the client's bytes (the client never sees it: seginfo ends before
 * it).  It holds a window per peer p: p's request slots (p packs put data or
 * get descriptions into them) and this node's reply slots for gets from p.
 * A slot is owned by the node that fills it first; its owner frees it when
 * the answer comes back, so no slot is ever written by two parties.
 */
#ifndef GP_CONDUIT_VIS_H
#define GP_CONDUIT_VIS_H

#include <gasnet.h>
#include <stdint.h>

struct gpc_op;

enum gpc_vis_form { GPC_VIS_VECTOR, GPC_VIS_INDEXED, GPC_VIS_STRIDED };

/* One side of a transfer, as the client described it (arrays not copied). */
struct gpc_vis_side {
    enum gpc_vis_form form;
    size_t count;                 /* entries: vector, indexed */
    const gasnet_memvec_t *vec;   /* vector */
    void *const *addrs;           /* indexed */
    size_t len;                   /* indexed: bytes of every piece */
    char *base;                   /* strided */
    const size_t *strides;        /* strided: levels entries */
    const size_t *counts;         /* strided: levels + 1 entries, counts[0] in bytes */
    size_t levels;
};

/* A position in a side: piece (entry, or run number of a strided side) and
 * the bytes of it consumed.  delta is added to every address produced. */
struct gpc_vis_cursor {
    const struct gpc_vis_side *side;
    size_t piece;
    size_t end;                   /* pieces: [piece, end) */
    size_t off;
    intptr_t delta;
};

/* vis_layout.c */
size_t gpc_vis_pieces(const struct gpc_vis_side *side);
size_t gpc_vis_piece_len(const struct gpc_vis_side *side, size_t piece);
char *gpc_vis_piece_addr(const struct gpc_vis_side *side, size_t piece);
void gpc_vis_cursor_init(struct gpc_vis_cursor *c, const struct gpc_vis_side *side, intptr_t delta);
/* The contiguous bytes left at the cursor (skipping empty pieces), 0 at the end. */
size_t gpc_vis_cursor_span(struct gpc_vis_cursor *c, char **addr);
void gpc_vis_cursor_advance(struct gpc_vis_cursor *c, size_t nbytes);
/* Copies nbytes out of / into the sequence at the cursor, advancing it. */
void gpc_vis_gather(struct gpc_vis_cursor *c, char *buf, size_t nbytes);
void gpc_vis_scatter(struct gpc_vis_cursor *c, const char *buf, size_t nbytes);
/* Copies every byte of src to dst (both cursors at their start). */
void gpc_vis_copy(struct gpc_vis_cursor *dst, struct gpc_vis_cursor *src);

/* vis.c */
/* Bytes of this node's VIS area for a segment of segsize bytes (0: none). */
uint64_t gpc_vis_area_bytes(uintptr_t segsize);
void gpc_vis_setup(void);  /* after the segments are known */
/* 1 when the node's segment is mapped here: the transfer is a copy, done on return. */
int gpc_vis_direct(gasnet_node_t node);
/* nbytes is the (agreed) total of both sides; completion counts into op. */
void gpc_vis_put(gasnet_node_t node, const struct gpc_vis_side *dst,
                 const struct gpc_vis_side *src, uint64_t nbytes, struct gpc_op *op);
void gpc_vis_get(const struct gpc_vis_side *dst, gasnet_node_t node,
                 const struct gpc_vis_side *src, uint64_t nbytes, struct gpc_op *op);
void gpc_vis_put_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t op,
                         gasnet_handlerarg_t slot);
void gpc_vis_put_done_handler(gasnet_token_t token, gasnet_handlerarg_t op,
                              gasnet_handlerarg_t slot);
void gpc_vis_get_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t pslot,
                         gasnet_handlerarg_t gslot);
void gpc_vis_get_done_handler(gasnet_token_t token, void *buf, size_t nbytes,
                              gasnet_handlerarg_t pslot, gasnet_handlerarg_t gslot);

/* vis_peer.c: after a put's bytes are in place at node, runs handler there with the payload
 * (0..127 bytes, copied before the call returns) as a reply-style Medium of no arguments. */
void gpc_vis_peer_notify(gasnet_node_t node, gasnet_handler_t handler, const void *payload,
                         size_t nbytes);
void gpc_vis_peer_handler(gasnet_token_t token, void *buf, size_t nbytes,
                          gasnet_handlerarg_t handler);

#endif
