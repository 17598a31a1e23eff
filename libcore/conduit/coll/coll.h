/*
 * coll.c: the collectives' engine.  Each image's call joins its node's
 * record of the operation; once every local image has joined, the node's
 * part advances (trees of AM Medium messages) whenever a thread calls
 * gpc_coll_progress, until it is complete.  GASNet-1 waits on it with its own
 * collective handles, EX with events (gpc_coll_event).
 */
#ifndef GP_CONDUIT_COLL_H
#define GP_CONDUIT_COLL_H

#include <gasnet.h>
#include <gasnet_coll.h>
#include <stddef.h>
#include <stdint.h>

struct gpc_team;

enum gpc_coll_kind { GPC_BROADCAST, GPC_SCATTER, GPC_GATHER, GPC_GATHER_ALL, GPC_EXCHANGE,
                     GPC_REDUCE, GPC_SYNC, GPC_REDUCE_ALL };
struct gpc_coll_call {
    enum gpc_coll_kind kind;
    int in_allsync, out_allsync;
    gasnet_node_t root_rank;     /* the root image's team rank ... */
    uint32_t root_local;         /* ... and index among that node's images */
    uint64_t nbytes;             /* a block; reduce: one contribution */
    void *dst, *src;             /* this image's own arguments */
    void *const *dsts;           /* this node's images' buffers (M forms), or NULL */
    void *const *srcs;
    gasnet_coll_reduce_fn_t fn;  /* reduce (GASNet-1); NULL: ex_fn */
    int fn_flags, fn_arg;
    size_t elem_size, elem_count;
    /* reduce (EX): right_and_out[i] = left[i] (op) right_and_out[i], i < count */
    void (*ex_fn)(const void *left, void *right_and_out, size_t count, const void *cdata);
    const void *ex_cdata;
    /* reduce (EX): ex_fn need not commute; contributions are combined in team rank order,
     * images of a node in their order (GEX_OP_USER_NC) */
    int ordered;
};
struct gpc_coll_op;
void gpc_coll_setup(void);
struct gpc_coll_op *gpc_coll_start(struct gpc_team *team, uint32_t local,
                                   const struct gpc_coll_call *call);
/* Advances every operation this node has in progress (a no-op when another
 * thread is at it). */
void gpc_coll_progress(void);
int gpc_coll_done(struct gpc_coll_op *op);
/* The caller's image is through with op (it may be freed once complete). */
void gpc_coll_release(struct gpc_coll_op *op);
/* Progresses until op is complete, then releases it. */
void gpc_coll_finish(struct gpc_coll_op *op);
/* An event of either face for op (an operation record of kind OP_COLL, synced by
 * conduit/rma/sync.c like any other); GASNET_INVALID_HANDLE when op is already complete
 * (then released). */
gasnet_handle_t gpc_coll_event(struct gpc_coll_op *op);
/* The collective of an OP_COLL record. */
struct gpc_op;
struct gpc_coll_op *gpc_coll_of_event(const struct gpc_op *event);
void gpc_coll_data_handler(gasnet_token_t token, void *buf, size_t nbytes,
                           gasnet_handlerarg_t team_id, gasnet_handlerarg_t seq,
                           gasnet_handlerarg_t tag, gasnet_handlerarg_t from,
                           gasnet_handlerarg_t off_hi, gasnet_handlerarg_t off_lo,
                           gasnet_handlerarg_t total_hi, gasnet_handlerarg_t total_lo);

#endif
