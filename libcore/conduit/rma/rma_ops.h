/*
 * The extended API's operation records and rma.c's puts, gets and memsets.
 *
 * An operation is an explicit handle, a thread's implicit set, an access
 * region, or a value get.  Puts and gets in flight are counted; the
 * record's pool index (24 bits) travels in the match bits so that the ACK
 * or REPLY_END event finds it.
 */
#ifndef GP_CONDUIT_RMA_OPS_H
#define GP_CONDUIT_RMA_OPS_H

#include <gasnet.h>
#include <stddef.h>
#include <stdint.h>

#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/thread.h"

/* OP_COLL: an EX collective's event; value holds the collective (conduit/coll/coll.c). */
enum gpc_op_kind { OP_FREE = 0, OP_EXPLICIT, OP_IMPLICIT, OP_REGION, OP_VALGET, OP_COLL };

struct gpc_op {
    gp_count_t puts_pending;
    gp_count_t gets_pending;
    uint64_t value;          /* a value get lands here */
    uint32_t next_free;
    uint8_t kind;
};

/*
 * The records are handed out from the free list first, then in index order
 * from the never-used tail (next_unused): the array is zero pages from
 * calloc, and a record is touched only when first used, so an idle process
 * holds a page of it rather than all 4 MiB.
 */
struct gpc_op_pool {
    struct gpc_op *ops;
    uint32_t count;
    uint32_t free_head;      /* index + 1, 0 = none */
    uint32_t next_unused;    /* records [next_unused, count) were never handed out */
    gp_mutex_t lock;
};

/* Match bits of a put or get on PT_RAR: op index, and a ReqSB bounce chunk + 1. */
#define RMA_MATCH(op_index, chunk_plus_one) \
    ((uint64_t)(op_index) | ((uint64_t)(chunk_plus_one) << 24))
#define RMA_OP_INDEX(bits) ((uint32_t)((bits) & 0xffffff))
#define RMA_CHUNK_PLUS_ONE(bits) ((uint32_t)(((bits) >> 24) & 0xffffff))
#define GPC_OP_POOL_SIZE (1u << 17)   /* spec: at least 65535 handles outstanding */
#define GPC_MAX_PIECE (1ull << 30)    /* larger transfers are split */

/* rma.c: puts, gets and memsets; each completes into op (NULL: the caller waits). */
int gpc_rma_setup(void);
void gpc_rma_connect(void);
struct gpc_op *gpc_op_new(enum gpc_op_kind kind);
void gpc_op_free(struct gpc_op *op);
int gpc_op_done(struct gpc_op *op);
void gpc_op_wait(struct gpc_op *op);
struct gpc_op *gpc_op_implicit(void);     /* this thread's implicit set, or its access region */
void gpc_put(gasnet_node_t node, void *dest, const void *src, size_t nbytes, struct gpc_op *op);
/* A blocking put or get to a peer whose segment is mapped here: the copy, and nothing else
 * (no operation record); 0 when the peer is not mapped and the caller must go the long way. */
int gpc_put_direct(gasnet_node_t node, void *dest, const void *src, size_t nbytes);
int gpc_get_direct(void *dest, gasnet_node_t node, const void *src, size_t nbytes);
/* A blocking put to a peer whose puts are counted (rma.c): the put and its wait, with no
 * record from the pool; 0 when the peer's puts are not counted. */
int gpc_put_counted_wait(gasnet_node_t node, void *dest, const void *src, size_t nbytes);
void gpc_get(void *dest, gasnet_node_t node, const void *src, size_t nbytes, struct gpc_op *op);
void gpc_put_value(gasnet_node_t node, void *dest, uint64_t value, size_t nbytes,
                   struct gpc_op *op);
void gpc_memset(gasnet_node_t node, void *dest, int value, size_t nbytes, struct gpc_op *op);
void gpc_rma_event(const struct ptl_event *event);
void gpc_memset_handler(gasnet_token_t token, gasnet_handlerarg_t op, gasnet_handlerarg_t off_hi,
                        gasnet_handlerarg_t off_lo, gasnet_handlerarg_t len_hi,
                        gasnet_handlerarg_t len_lo, gasnet_handlerarg_t value);
void gpc_memset_done_handler(gasnet_token_t token, gasnet_handlerarg_t op);
extern _Thread_local struct gpc_op *gpc_thread_implicit;
extern _Thread_local struct gpc_op *gpc_thread_region;

/*
 * The shapes of an RMA call both API faces share, inline so that the library's own blocking
 * put or get adds no call to the copy to a mapped peer: a face checks its arguments, then
 * calls one of these, and neither face repeats the order of the paths.
 */
/* A blocking put or get: the copy to a mapped peer, a counted put, or a record waited on. */
static inline void gpc_put_blocking(gasnet_node_t node, void *dest, const void *src,
                                    size_t nbytes)
{
    if (gpc_put_direct(node, dest, src, nbytes))
        return; /* a mapped peer: the copy is the whole operation */
    if (gpc_put_counted_wait(node, dest, src, nbytes))
        return;
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_put(node, dest, src, nbytes, op);
    gpc_op_wait(op);
    gpc_op_free(op);
}

static inline void gpc_get_blocking(void *dest, gasnet_node_t node, const void *src,
                                    size_t nbytes)
{
    if (gpc_get_direct(dest, node, src, nbytes))
        return; /* a mapped peer: the copy is the whole operation */
    struct gpc_op *op = gpc_op_new(OP_EXPLICIT);
    gpc_get(dest, node, src, nbytes, op);
    gpc_op_wait(op);
    gpc_op_free(op);
}

/* Waits for op and frees it. */
static inline void gpc_op_finish(struct gpc_op *op)
{
    gpc_op_wait(op);
    gpc_op_free(op);
}

/* An explicit operation's handle or event: op while in flight, else NULL (op freed). */
static inline struct gpc_op *gpc_op_in_flight(struct gpc_op *op)
{
    if (gpc_op_done(op)) {
        gpc_op_free(op);
        return NULL;
    }
    return op;
}

/* A value get lands in its record's own word, zero-extended (GASNet-1 spec 4.9.2): start it,
 * then take the value once done (the record freed). */
static inline struct gpc_op *gpc_get_value_start(gasnet_node_t node, const void *src,
                                                 size_t nbytes)
{
    struct gpc_op *op = gpc_op_new(OP_VALGET);
    op->value = 0;
    gpc_get(&op->value, node, src, nbytes, op);
    return op;
}

static inline uint64_t gpc_get_value_finish(struct gpc_op *op)
{
    gpc_op_wait(op);
    uint64_t value = op->value;
    gpc_op_free(op);
    return value;
}

/* rma_map.c: at the end of attach, which peers gasnet.h's inline puts and gets may copy to. */
void gpc_rma_map_publish(void);

#endif
