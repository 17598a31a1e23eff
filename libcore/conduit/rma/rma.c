/*
 * Puts, gets and memsets (seed 000, "The Implemention of GASNet Put and Get
 * Operations").
 *
 * Where this process maps the target's segment (shm) an operation is a
 * plain copy, complete when it returns: tickets exist to protect a
 * network's resources, not a memcpy (GASNet's PSHM does the same).  With
 * GP_DIRECT_RMA=0, or on a transport that does not map peers, the seed's
 * protocol runs: take a send ticket; choose the local MD -- the segment's
 * MD when the local buffer is in the segment, a ReqSB chunk as bounce
 * buffer when the size is within the bounce limit, else a TMPMD; put with an
 * ACK request (or get) on PT_RAR with the operation's 24-bit index in the
 * match bits; the ACK / REPLY_END event retires it and frees the chunk,
 * while SEND_END returns the ticket and unlinks a TMPMD.
 *
 * Where the transport copies a put before it returns (tcp), a put is a
 * counted put instead (ptl_put_counted): the source needs no MD, no bounce
 * chunk and no ticket, since it is the transport's only during the call, and
 * the transport's own operation records bound what is outstanding; the ACK
 * subtracts from the operation's puts_pending without an event
 * (doc/decisions.md, "Counted puts").  GP_DIRECT_RMA=0 keeps the protocol.
 */
#include <stdlib.h>
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/am/chunks.h"
#include "conduit/core/md_role.h"
#include "conduit/core/progress.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"
#include "util/slowwait.h"
#include "util/thread.h"

_Thread_local struct gpc_op *gpc_thread_implicit;
_Thread_local struct gpc_op *gpc_thread_region;

static uint32_t op_index(const struct gpc_op *op)
{
    return (uint32_t)(op - gpc.op_pool.ops);
}

int gpc_rma_setup(void)
{
    struct gpc_op_pool *pool = &gpc.op_pool;
    pool->count = GPC_OP_POOL_SIZE;
    /* Zero pages until a record is first handed out (rma_ops.h, struct gpc_op_pool). */
    pool->ops = calloc(pool->count, sizeof *pool->ops);
    if (pool->ops == NULL)
        return GASNET_ERR_RESOURCE;
    pool->free_head = 0;
    pool->next_unused = 0;
    gp_mutex_init(&pool->lock);

    gpc.put_bounce_limit = (uint64_t)gp_cfg.portal_put_bounce_limit;
    gpc.get_bounce_limit = (uint64_t)gp_cfg.portal_get_bounce_limit;
    /* A bounced get keeps its destination address in the chunk's last bytes. */
    if (gpc.get_bounce_limit == GPC_CHUNK_BYTES)
        gpc.get_bounce_limit -= sizeof(void *);
    else if (gpc.get_bounce_limit > GPC_CHUNK_BYTES - sizeof(void *))
        gp_fatal("GASNET_PORTAL_GET_BOUNCE_LIMIT=%llu is not valid: at most %zu (a ReqSB chunk "
                 "less a pointer), or exactly %u", (unsigned long long)gpc.get_bounce_limit,
                 GPC_CHUNK_BYTES - sizeof(void *), GPC_CHUNK_BYTES);

    gpc.mapped_segments = calloc(gpc.nodes, sizeof *gpc.mapped_segments);
    gpc.counted_puts = calloc(gpc.nodes, sizeof *gpc.counted_puts);
    return gpc.mapped_segments == NULL || gpc.counted_puts == NULL ? GASNET_ERR_RESOURCE
                                                                   : GASNET_OK;
}

/* After the attach barrier, when every peer's RAR is in place. */
void gpc_rma_connect(void)
{
    for (gasnet_node_t node = 0; node < gpc.nodes && gp_cfg.gp_direct_rma; node++) {
        if (gpc.seginfo[node].size > 0)
            gpc.mapped_segments[node] = ptl_direct_address(gpc.ni, node, PT_RAR, PTL_ACCESS_PUT, 0,
                                                          0, gpc.seginfo[node].size);
        gpc.counted_puts[node] = (uint8_t)ptl_counts_puts(gpc.ni, node);
    }
    unsigned counted = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++)
        counted += gpc.counted_puts[node];
    gp_debug("rma", "puts to %u of %u nodes are counted (ptl_put_counted: no MD, no events)",
             counted, (unsigned)gpc.nodes);
}

struct gpc_op *gpc_op_new(enum gpc_op_kind kind)
{
    struct gpc_op_pool *pool = &gpc.op_pool;
    struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
    for (;;) {
        gp_mutex_lock(&pool->lock);
        uint32_t head = pool->free_head;
        if (head != 0)
            pool->free_head = pool->ops[head - 1].next_free;
        else if (pool->next_unused < pool->count)
            head = ++pool->next_unused;
        gp_mutex_unlock(&pool->lock);
        if (head != 0) {
            struct gpc_op *op = &pool->ops[head - 1];
            gp_count_set(&op->puts_pending, 0);
            gp_count_set(&op->gets_pending, 0);
            op->kind = (uint8_t)kind;
            return op;
        }
        gpc_wait_turn(); /* every record is an unsynchronized handle: wait for one back */
        gp_slow_wait_check(&slow, "rma", "a free operation record (all %u are handles the "
                           "program has not yet synchronized)", pool->count);
    }
}

void gpc_op_free(struct gpc_op *op)
{
    struct gpc_op_pool *pool = &gpc.op_pool;
    op->kind = OP_FREE;
    gp_mutex_lock(&pool->lock);
    op->next_free = pool->free_head;
    pool->free_head = op_index(op) + 1;
    gp_mutex_unlock(&pool->lock);
}

int gpc_op_done(struct gpc_op *op)
{
    if (gp_count_get(&op->puts_pending) != 0 || gp_count_get(&op->gets_pending) != 0)
        return 0;
    /* The counts were read relaxed; this acquire pairs with the release half of the decrement
     * that retired the last put or get (gp_count_add, after a get's data were copied into the
     * client's buffer), so a caller told "done" -- gpc_op_wait, a try_syncnb -- reads what the
     * get brought, not an older value.  A compiler barrier on x86. */
    gp_fence_load();
    return 1;
}

void gpc_op_wait(struct gpc_op *op)
{
    struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
    gpc_call_progress(); /* a loop of syncs of done operations still serves the peers */
    while (!gpc_op_done(op)) {
        gpc_wait_turn();
        /* An operation may span peers: the counts, not a peer, say what is missing. */
        gp_slow_wait_check(&slow, "rma", "%lld put(s) to be acknowledged and %lld get(s) to be "
                           "answered (is every target polling?)",
                           (long long)gp_count_get(&op->puts_pending),
                           (long long)gp_count_get(&op->gets_pending));
    }
    /* gpc_op_done's fence, on its last call, ordered the caller's reads after the count. */
}

struct gpc_op *gpc_op_implicit(void)
{
    if (gpc_thread_region != NULL)
        return gpc_thread_region;
    if (gpc_thread_implicit == NULL)
        gpc_thread_implicit = gpc_op_new(OP_IMPLICIT);
    return gpc_thread_implicit;
}

/* The remote range must lie in the node's segment: naming it beats a stray write. */
static uint64_t remote_offset(gasnet_node_t node, const void *addr, size_t nbytes, const char *what)
{
    const char *base = gpc.seginfo[node].addr, *at = addr;
    uintptr_t size = gpc.seginfo[node].size;
    if (node >= gpc.nodes || !gpc_segment_holds(base, size, addr, nbytes))
        gp_fatal("%s of %zu bytes at %p on node %u: outside that node's segment [%p, %p)", what,
                 nbytes, addr, node, (const void *)base, (const void *)(base + size));
    return (uint64_t)(at - base);
}

static int in_local_segment(const void *addr, size_t nbytes, uint64_t *offset)
{
    const char *at = addr;
    if (!gpc_segment_holds(gpc.segment, gpc.segsize, addr, nbytes))
        return 0;
    *offset = (uint64_t)(at - gpc.segment);
    return 1;
}

static int64_t try_bounce_chunk(uint64_t nbytes, uint64_t limit)
{
    return nbytes <= limit ? gpc_chunk_get(&gpc.reqsb_chunks) : -1;
}

static ptl_handle_md_t bind_tmpmd(void *start, uint64_t nbytes)
{
    struct ptl_md_desc desc = { .start = start, .length = nbytes, .threshold = 1, .eq = gpc.safe_eq,
                                .user_ptr = gpc_md_tag_role(ROLE_TMPMD) };
    ptl_handle_md_t md;
    int rc = ptl_md_bind(gpc.ni, &desc, &md);
    if (rc != PTL_OK)
        gp_fatal("cannot bind a TMPMD of %llu bytes: %s", (unsigned long long)nbytes,
                 ptl_strerror(rc));
    return md;
}

/* The local side of a protocol put or get: seed 000's three cases. */
struct local_side {
    ptl_handle_md_t md;
    uint64_t offset;
    uint32_t chunk_plus_one;  /* a ReqSB bounce chunk, + 1; 0 for none */
    int tmpmd;
};

/*
 * The segment's MD when the local buffer is in the segment, else a ReqSB
 * chunk when the size is within the bounce limit and one is free (returned,
 * for the caller to fill), else a TMPMD over the buffer.  Takes the send
 * ticket (and TMPMD ticket) the operation needs.
 */
static char *choose_local_side(gasnet_node_t node, void *addr, uint64_t nbytes,
                               uint64_t bounce_limit, struct local_side *side)
{
    char *chunk_addr = NULL;
    side->chunk_plus_one = 0;
    side->tmpmd = 0;
    if (in_local_segment(addr, nbytes, &side->offset)) {
        side->md = gpc.rarsafe_md;
    } else {
        int64_t chunk = try_bounce_chunk(nbytes, bounce_limit);
        if (chunk >= 0) {
            chunk_addr = gpc_chunk_addr(&gpc.reqsb_chunks, (uint32_t)chunk);
            side->md = gpc.reqsb_md;
            side->offset = (uint64_t)chunk * GPC_CHUNK_BYTES;
            side->chunk_plus_one = (uint32_t)chunk + 1;
        } else {
            side->tmpmd = 1;
            side->offset = 0;
        }
    }
    gpc_take_tickets(node, 1, side->tmpmd);
    if (side->tmpmd)
        side->md = bind_tmpmd(addr, nbytes);
    return chunk_addr;
}

/* One put of at most GPC_MAX_PIECE bytes through the protocol. */
static void put_piece(gasnet_node_t node, uint64_t roffset, const void *src, uint64_t nbytes,
                      struct gpc_op *op)
{
    struct local_side side;
    char *bounce = choose_local_side(node, (void *)src, nbytes, gpc.put_bounce_limit, &side);
    if (bounce != NULL)
        memcpy(bounce, src, nbytes);
    gp_count_add(&op->puts_pending, 1);
    /* Nobody waits on one implicit-handle put: a burst of them may leave together. */
    enum ptl_ack_req ack = op->kind == OP_EXPLICIT ? PTL_ACK_REQ : PTL_ACK_DEFER;
    int rc = ptl_put_region(gpc.ni, side.md, side.offset, nbytes, ack, node, PT_RAR,
                            RMA_MATCH(op_index(op), side.chunk_plus_one), roffset, 0);
    if (rc != PTL_OK)
        gp_fatal("put of %llu bytes to node %u failed: %s", (unsigned long long)nbytes, node,
                 ptl_strerror(rc));
}

static void get_piece(void *dest, gasnet_node_t node, uint64_t roffset, uint64_t nbytes,
                      struct gpc_op *op)
{
    struct local_side side;
    char *bounce = choose_local_side(node, dest, nbytes, gpc.get_bounce_limit, &side);
    if (bounce != NULL) /* where REPLY_END copies the data to (seed 000 keeps it in the chunk) */
        memcpy(bounce + GPC_CHUNK_BYTES - sizeof dest, &dest, sizeof dest);
    gp_count_add(&op->gets_pending, 1);
    int rc = ptl_get_region(gpc.ni, side.md, side.offset, nbytes, node, PT_RAR,
                            RMA_MATCH(op_index(op), side.chunk_plus_one), roffset);
    if (rc != PTL_OK)
        gp_fatal("get of %llu bytes from node %u failed: %s", (unsigned long long)nbytes, node,
                 ptl_strerror(rc));
}

/* A counted put (the file's comment): the operation's count is all that follows it. */
static void put_counted(gasnet_node_t node, uint64_t roffset, const void *src, uint64_t nbytes,
                        struct gpc_op *op)
{
    gp_count_add(&op->puts_pending, 1);
    /* Nobody waits on one implicit-handle put: a burst of them may leave together. */
    int rc = ptl_put_counted(gpc.ni, src, nbytes, op->kind != OP_EXPLICIT, node, PT_RAR,
                             RMA_MATCH(0, 0), roffset, &op->puts_pending);
    if (rc != PTL_OK)
        gp_fatal("put of %llu bytes to node %u failed: %s", (unsigned long long)nbytes, node,
                 ptl_strerror(rc));
}

/*
 * A put or get that is a plain copy into or out of a mapped peer's segment
 * (doc/memory-model.md): the same fences as the inline path of
 * gasnet_rma_inline.h, so both paths promise one thing.  A put's stores
 * come after the caller's earlier stores and before its later ones (the put
 * of a flag after the put of its data, the AM header after the put); they
 * pair with the reader's load fence (a get's, GASNET_BLOCKUNTIL's, a ring's
 * acquire) between its look at the flag and its read of the data.
 */
static void put_copy(char *to, const void *src, size_t nbytes)
{
    gp_fence_store();
    memcpy(to, src, nbytes);
    gp_fence_store();
}

static void memset_copy(char *to, int value, size_t nbytes)
{
    gp_fence_store(); /* as put_copy */
    memset(to, value, nbytes);
    gp_fence_store();
}

/* A get's loads come after the caller's earlier loads (the flag it saw) and before its later
 * loads and stores (the data that a flag this get fetched announces); they pair with the
 * writer's store fence between data and flag. */
static void get_copy(void *dest, const char *from, size_t nbytes)
{
    gp_fence_load();
    memcpy(dest, from, nbytes);
    gp_fence_load();
}

int gpc_put_direct(gasnet_node_t node, void *dest, const void *src, size_t nbytes)
{
    if (gpc.mapped_segments[node] == NULL)
        return 0;
    if (nbytes > 0)
        put_copy(gpc.mapped_segments[node] + remote_offset(node, dest, nbytes, "put"), src, nbytes);
    _gasnet_rma_count_call(); /* a loop of copies still serves the peers */
    return 1;
}

int gpc_get_direct(void *dest, gasnet_node_t node, const void *src, size_t nbytes)
{
    if (gpc.mapped_segments[node] == NULL)
        return 0;
    if (nbytes > 0)
        get_copy(dest, gpc.mapped_segments[node] + remote_offset(node, src, nbytes, "get"), nbytes);
    _gasnet_rma_count_call(); /* a loop of copies still serves the peers */
    return 1;
}

void gpc_put(gasnet_node_t node, void *dest, const void *src, size_t nbytes, struct gpc_op *op)
{
    if (nbytes == 0)
        return;
    uint64_t roffset = remote_offset(node, dest, nbytes, "put");
    if (gpc.mapped_segments[node] != NULL) {
        put_copy(gpc.mapped_segments[node] + roffset, src, nbytes);
        return;
    }
    for (uint64_t done = 0; done < nbytes; done += GPC_MAX_PIECE) {
        uint64_t piece = nbytes - done < GPC_MAX_PIECE ? nbytes - done : GPC_MAX_PIECE;
        if (gpc.counted_puts[node])
            put_counted(node, roffset + done, (const char *)src + done, piece, op);
        else
            put_piece(node, roffset + done, (const char *)src + done, piece, op);
    }
}

int gpc_put_counted_wait(gasnet_node_t node, void *dest, const void *src, size_t nbytes)
{
    if (!gpc.counted_puts[node])
        return 0;
    /* Only the count is needed, and only until the wait ends: no record from the pool. */
    struct gpc_op op = { .kind = OP_EXPLICIT };
    gpc_put(node, dest, src, nbytes, &op);
    gpc_op_wait(&op);
    return 1;
}

void gpc_get(void *dest, gasnet_node_t node, const void *src, size_t nbytes, struct gpc_op *op)
{
    if (nbytes == 0)
        return;
    uint64_t roffset = remote_offset(node, src, nbytes, "get");
    if (gpc.mapped_segments[node] != NULL) {
        get_copy(dest, gpc.mapped_segments[node] + roffset, nbytes);
        return;
    }
    for (uint64_t done = 0; done < nbytes; done += GPC_MAX_PIECE) {
        uint64_t piece = nbytes - done < GPC_MAX_PIECE ? nbytes - done : GPC_MAX_PIECE;
        get_piece((char *)dest + done, node, roffset + done, piece, op);
    }
}

/* A value has no client memory behind it, so it always bounces through a chunk. */
void gpc_put_value(gasnet_node_t node, void *dest, uint64_t value, size_t nbytes,
                   struct gpc_op *op)
{
    uint64_t roffset = remote_offset(node, dest, nbytes, "value put");
    if (gpc.mapped_segments[node] != NULL) {
        put_copy(gpc.mapped_segments[node] + roffset, &value, nbytes); /* low bytes: little endian */
        return;
    }
    if (gpc.counted_puts[node]) { /* copied by the transport before the call returns */
        put_counted(node, roffset, &value, nbytes, op);
        return;
    }
    uint32_t chunk = gpc_chunk_wait(&gpc.reqsb_chunks, "ReqSB", node);
    memcpy(gpc_chunk_addr(&gpc.reqsb_chunks, chunk), &value, nbytes);
    gpc_take_tickets(node, 1, 0);
    gp_count_add(&op->puts_pending, 1);
    int rc = ptl_put_region(gpc.ni, gpc.reqsb_md, (uint64_t)chunk * GPC_CHUNK_BYTES, nbytes,
                            PTL_ACK_REQ, node, PT_RAR, RMA_MATCH(op_index(op), (uint32_t)chunk + 1),
                            roffset, 0);
    if (rc != PTL_OK)
        gp_fatal("value put to node %u failed: %s", node, ptl_strerror(rc));
}

/* Portals has no memset: the target does it, asked by an AM, and replies. */
void gpc_memset(gasnet_node_t node, void *dest, int value, size_t nbytes, struct gpc_op *op)
{
    if (nbytes == 0)
        return;
    uint64_t roffset = remote_offset(node, dest, nbytes, "memset");
    if (gpc.mapped_segments[node] != NULL) {
        memset_copy(gpc.mapped_segments[node] + roffset, value, nbytes);
        return;
    }
    gasnet_handlerarg_t args[6] = {
        (gasnet_handlerarg_t)op_index(op), (gasnet_handlerarg_t)(roffset >> 32),
        (gasnet_handlerarg_t)(uint32_t)roffset, (gasnet_handlerarg_t)((uint64_t)nbytes >> 32),
        (gasnet_handlerarg_t)(uint32_t)nbytes, (gasnet_handlerarg_t)value,
    };
    gp_count_add(&op->puts_pending, 1);
    gpc_am_request(node, GPC_SHORT, GPC_H_MEMSET, NULL, 0, NULL, 6, args);
}

/* The target side of a memset, and its reply. */
void gpc_memset_handler(gasnet_token_t token, gasnet_handlerarg_t op, gasnet_handlerarg_t off_hi,
                        gasnet_handlerarg_t off_lo, gasnet_handlerarg_t len_hi,
                        gasnet_handlerarg_t len_lo, gasnet_handlerarg_t value)
{
    uint64_t offset = ((uint64_t)(uint32_t)off_hi << 32) | (uint32_t)off_lo;
    uint64_t nbytes = ((uint64_t)(uint32_t)len_hi << 32) | (uint32_t)len_lo;
    memset(gpc.segment + offset, value, nbytes);
    gasnet_handlerarg_t args[1] = { op };
    gpc_am_reply(token, GPC_SHORT, GPC_H_MEMSET_DONE, NULL, 0, NULL, 1, args);
}

void gpc_memset_done_handler(gasnet_token_t token, gasnet_handlerarg_t op)
{
    (void)token;
    gp_count_add(&gpc.op_pool.ops[(uint32_t)op].puts_pending, -1);
}

/* A TMPMD's operation is over: unlink it, or its slot of the MD table leaks
 * (a bound MD is never unlinked for us, so failure is a bug, not a race). */
static void release_tmpmd(const struct ptl_event *event, const char *what)
{
    int rc = ptl_md_unlink(gpc.ni, event->md_handle);
    if (rc != PTL_OK)
        gp_fatal("cannot unlink the temporary MD of a finished %s: %s (its slot in the MD "
                 "table would be lost)", what, ptl_strerror(rc));
}

/* ACK of a put, REPLY_END of a get: the operation is done there. */
void gpc_rma_event(const struct ptl_event *event)
{
    struct gpc_op *op = &gpc.op_pool.ops[RMA_OP_INDEX(event->match_bits)];
    uint32_t chunk_plus_one = RMA_CHUNK_PLUS_ONE(event->match_bits);
    if (event->type == PTL_EVENT_ACK) {
        if (chunk_plus_one)
            gpc_chunk_put(&gpc.reqsb_chunks, chunk_plus_one - 1);
        if (gpc_md_role_of(event) == ROLE_TMPMD) {
            release_tmpmd(event, "put");
            gpc_give_tickets(0, 1);
        }
        gp_count_add(&op->puts_pending, -1);
        return;
    }
    /* REPLY_END: gets return their ticket here (a get has no SEND_END). */
    if (chunk_plus_one) {
        char *at = gpc_chunk_addr(&gpc.reqsb_chunks, chunk_plus_one - 1);
        void *dest;
        memcpy(&dest, at + GPC_CHUNK_BYTES - sizeof dest, sizeof dest);
        memcpy(dest, at, event->mlength);
        gpc_chunk_put(&gpc.reqsb_chunks, chunk_plus_one - 1);
        gpc_give_tickets(1, 0);
    } else if (gpc_md_role_of(event) == ROLE_TMPMD) {
        release_tmpmd(event, "get");
        gpc_give_tickets(1, 1);
    } else {
        gpc_give_tickets(1, 0);
    }
    gp_count_add(&op->gets_pending, -1);
}
