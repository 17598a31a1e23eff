/*
 * Moving the bytes of a VIS transfer (vis.h): three ways, best first.
 *
 * Mapped peer (shm, GP_DIRECT_RMA): the pieces are copied directly, span
 * by span; the transfer is complete when the call returns.
 *
 * Packed (a peer reached by messages: tcp, ibv): as few AM Longs as the
 * slots allow.  A put packs, per message, a description of the remote
 * pieces it covers and their bytes into one of this node's request slots at
 * the target (GPC_H_VIS_PUT); the target unpacks into its segment and
 * answers (GPC_H_VIS_PUT_DONE), which completes the message (remote
 * completion) and frees the slot.  A get sends only the description
 * (GPC_H_VIS_GET); the target packs the bytes after it, in the same slot,
 * and replies with them as a Long into one of this node's reply slots
 * (GPC_H_VIS_GET_DONE), where they are unpacked into the local pieces.  The
 * description of a strided remote side is its shape and a range of run
 * numbers, not a list; other sides are (offset, length) pairs.  A run of
 * 64 KiB or more on both sides goes as an ordinary put or get.  Several
 * slots per peer keep several messages in flight: a transfer pipelines,
 * and waits only when every slot is taken.
 *
 * Otherwise (no VIS area: a zero-sized segment, too many nodes): one
 * ordinary put or get per contiguous span.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/core/progress.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "conduit/vis/vis.h"
#include "config/config.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"
#include "util/slowwait.h"
#include "util/thread.h"

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "wire fields are read as size_t");
_Static_assert(sizeof(gasnet_memvec_t) == 16, "a wire piece is a gasnet_memvec_t");

#define VIS_SLOTS 8                    /* per peer, of each kind */
/*
 * A peer's window is what it may have in flight: over tcp, a 1 MiB strided
 * put of 1K rows reaches half the contiguous bandwidth only with megabytes
 * in flight (doc/performance.md).  So few peers get large windows, and many
 * share the budget, down to VIS_WINDOW_MIN each.  The area is part of the
 * registered region (on shm, reserved in /dev/shm), so a job whose nodes
 * are all on one host and mapped (direct copies) has none.
 */
#define VIS_AREA_BUDGET (16ull << 20)
#define VIS_WINDOW_MAX (4ull << 20)
#define VIS_WINDOW_MIN (64ull << 10)
#define VIS_HEADER 32u
/* A run at least this long on both sides goes as an ordinary put or get:
 * packing would only add two copies and a reply. */
#define VIS_RUN_RMA (64u << 10)
#define ALIGN16(x) (((x) + 15u) & ~(uint64_t)15u)

enum { WIRE_PIECES = 1, WIRE_STRIDED = 2 };

/* The head of a message's description. */
struct vis_wire {
    uint32_t form;
    uint32_t levels;    /* strided */
    uint64_t npieces;   /* (offset, length) pairs, or runs */
    uint64_t first;     /* strided: number of the first run */
    uint64_t nbytes;    /* data bytes */
};
_Static_assert(sizeof(struct vis_wire) == VIS_HEADER, "wire header");

/* A get's local side, copied: the client may free its lists on return. */
struct vis_meta {
    gp_count_t refs;
    struct gpc_vis_side side;
};

struct vis_reply_slot {
    struct gpc_vis_cursor local;  /* where the message's bytes go */
    struct vis_meta *meta;
    struct gpc_op *op;
};

struct vis_peer {
    uint32_t request_busy;        /* my request slots at the peer */
    uint32_t reply_busy;          /* my reply slots for the peer */
    struct vis_reply_slot reply[VIS_SLOTS];
};

static struct {
    uint64_t slot_bytes;          /* 0: no VIS area */
    uint64_t window;
    struct vis_peer *peers;
    gp_mutex_t stage_lock;
    char *stage_free;             /* staging buffers, linked through their first bytes */
} vis = { .stage_lock = GP_MUTEX_INITIALIZER };

static uint64_t tail_offset(uintptr_t segsize)
{
    return ALIGN16((uint64_t)segsize);
}

/* Collective: whether every node has this node's host identity (the
 * default transport then maps every peer). */
static int one_host(void)
{
    char mine[GP_BOOT_HOST_ID_LEN] = { 0 };
    gp_boot_host_identity(mine, sizeof mine);
    char *all = calloc(gpc.nodes, sizeof mine);
    if (all == NULL || gp_boot_allgather(mine, all, sizeof mine) != 0)
        gp_fatal("cannot gather the host identities of %u nodes", gpc.nodes);
    int same = 1;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++)
        same &= strncmp(all + (size_t)node * sizeof mine, mine, sizeof mine) == 0;
    free(all);
    return same;
}

/* Collective (every node calls it at attach, with the same configuration). */
uint64_t gpc_vis_area_bytes(uintptr_t segsize)
{
    enum ptl_maps maps = ptl_transport_maps_peers(gp_cfg.gp_transport);
    vis.slot_bytes = 0;
    /* Every peer mapped: copies only, no area (the same answer on every node). */
    if (gp_cfg.gp_direct_rma && (maps == PTL_MAPS_EVERY_PEER || gpc.nodes == 1 ||
                                 (maps == PTL_MAPS_HOST_PEERS && one_host())))
        return 0;
    uint64_t window = VIS_AREA_BUDGET / gpc.nodes;
    window = window > VIS_WINDOW_MAX ? VIS_WINDOW_MAX : window < VIS_WINDOW_MIN ? VIS_WINDOW_MIN : window;
    uint64_t slot = window / (2 * VIS_SLOTS) & ~(uint64_t)63;
    vis.slot_bytes = slot;
    vis.window = 2 * VIS_SLOTS * slot;
    return segsize ? vis.window * gpc.nodes : 0;
}

void gpc_vis_setup(void)
{
    vis.peers = calloc(gpc.nodes, sizeof *vis.peers);
    if (vis.peers == NULL)
        gp_fatal("cannot allocate the VIS state of %u peers", gpc.nodes);
    gp_debug("vis", "VIS area: %llu bytes, %u request and %u reply slots of %llu bytes per peer",
             (unsigned long long)gpc.vis_area_bytes, VIS_SLOTS, VIS_SLOTS,
             (unsigned long long)vis.slot_bytes);
}

int gpc_vis_direct(gasnet_node_t node)
{
    return gpc.mapped_segments[node] != NULL;
}

/* A slot of the node's area, as an address of the node's segment space:
 * the window of peer, request (0) or reply (1) slot s. */
static void *slot_address(gasnet_node_t node, gasnet_node_t peer, int reply, unsigned s)
{
    return (char *)gpc.seginfo[node].addr + tail_offset(gpc.seginfo[node].size) +
           peer * vis.window + ((uint64_t)reply * VIS_SLOTS + s) * vis.slot_bytes;
}

static unsigned take_slot(uint32_t *busy, gasnet_node_t node, const char *kind)
{
    struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
    for (;;) {
        uint32_t mask = __atomic_load_n(busy, __ATOMIC_ACQUIRE);
        uint32_t free_slots = ~mask & ((1u << VIS_SLOTS) - 1);
        if (free_slots != 0) {
            unsigned s = (unsigned)__builtin_ctz(free_slots);
            if (__atomic_compare_exchange_n(busy, &mask, mask | (1u << s), 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED))
                return s;
            continue;
        }
        gpc_wait_turn(); /* polls for the answers that free slots */
        gp_slow_wait_check(&slow, "vis", "a free VIS %s slot for node %u (all %u wait for its "
                           "answer: is it polling?)", kind, node, VIS_SLOTS);
    }
}

static void free_slot(uint32_t *busy, unsigned s)
{
    __atomic_fetch_and(busy, ~(1u << s), __ATOMIC_RELEASE);
}

/* Staging buffers for packing: a list, so that no thread's buffer is lost when it exits. */
static char *stage_take(void)
{
    gp_mutex_lock(&vis.stage_lock);
    char *buf = vis.stage_free;
    if (buf != NULL)
        memcpy(&vis.stage_free, buf, sizeof vis.stage_free);
    gp_mutex_unlock(&vis.stage_lock);
    if (buf == NULL && (buf = malloc(vis.slot_bytes)) == NULL)
        gp_fatal("cannot allocate a VIS staging buffer of %llu bytes",
                 (unsigned long long)vis.slot_bytes);
    return buf;
}

static void stage_give(char *buf)
{
    gp_mutex_lock(&vis.stage_lock);
    memcpy(buf, &vis.stage_free, sizeof vis.stage_free);
    vis.stage_free = buf;
    gp_mutex_unlock(&vis.stage_lock);
}

static uint32_t op_index(const struct gpc_op *op)
{
    return (uint32_t)(op - gpc.op_pool.ops);
}

/*
 * Describes the next message into buf: the remote pieces at the cursor
 * (offsets from the node's segment) whose bytes fit in one slot with the
 * description.  Returns the data bytes; *desc is where they start.
 */
static uint64_t describe(char *buf, struct gpc_vis_cursor *remote, uint64_t *desc)
{
    const struct gpc_vis_side *side = remote->side;
    uint64_t cap = vis.slot_bytes;
    struct vis_wire wire = { 0 };
    if (side->form == GPC_VIS_STRIDED && remote->off == 0) {
        uint64_t shape = VIS_HEADER + 8 * (2 + 2 * (uint64_t)side->levels);
        uint64_t row = side->counts[0];
        if (ALIGN16(shape) < cap && row <= cap - ALIGN16(shape)) {
            uint64_t runs = (cap - ALIGN16(shape)) / row, left = remote->end - remote->piece;
            wire = (struct vis_wire){ .form = WIRE_STRIDED, .levels = (uint32_t)side->levels,
                                      .npieces = runs < left ? runs : left,
                                      .first = remote->piece };
            wire.nbytes = wire.npieces * row;
            uint64_t *field = (uint64_t *)(buf + VIS_HEADER);
            field[0] = (uint64_t)((uintptr_t)side->base + (uintptr_t)remote->delta);
            memcpy(field + 1, side->strides, side->levels * sizeof(uint64_t));
            memcpy(field + 1 + side->levels, side->counts, (side->levels + 1) * sizeof(uint64_t));
            memcpy(buf, &wire, sizeof wire);
            remote->piece += wire.npieces;
            *desc = ALIGN16(shape);
            return wire.nbytes;
        }
    }
    wire.form = WIRE_PIECES;
    gasnet_memvec_t *piece = (gasnet_memvec_t *)(buf + VIS_HEADER);
    for (;;) {
        char *at;
        size_t span = gpc_vis_cursor_span(remote, &at);
        uint64_t head = ALIGN16(VIS_HEADER + 16 * (wire.npieces + 1));
        if (span == 0 || head >= cap || cap - head <= wire.nbytes)
            break;
        uint64_t room = cap - head - wire.nbytes;
        uint64_t take = span < room ? span : room;
        piece[wire.npieces].addr = at;
        piece[wire.npieces].len = take;
        wire.npieces++;
        wire.nbytes += take;
        gpc_vis_cursor_advance(remote, take);
    }
    memcpy(buf, &wire, sizeof wire);
    *desc = ALIGN16(VIS_HEADER + 16 * wire.npieces);
    return wire.nbytes;
}

/* The receiving side of a description: the pieces it names in this node's
 * segment, each checked (a peer's bug must not write outside it). */
static const char *decode(const char *buf, uint64_t bytes, struct gpc_vis_side *side,
                          struct gpc_vis_cursor *c, gasnet_node_t from, uint64_t *nbytes)
{
    struct vis_wire wire;
    uint64_t desc;
    memcpy(&wire, buf, sizeof wire);
    memset(side, 0, sizeof *side);
    if (wire.form == WIRE_STRIDED) {
        const uint64_t *field = (const uint64_t *)(buf + VIS_HEADER);
        side->form = GPC_VIS_STRIDED;
        side->levels = wire.levels;
        side->base = (char *)(uintptr_t)field[0];
        side->strides = (const size_t *)(field + 1);
        side->counts = (const size_t *)(field + 1 + wire.levels);
        desc = ALIGN16(VIS_HEADER + 8 * (2 + 2 * (uint64_t)wire.levels));
    } else {
        side->form = GPC_VIS_VECTOR;
        side->vec = (const gasnet_memvec_t *)(buf + VIS_HEADER);
        side->count = wire.npieces;
        desc = ALIGN16(VIS_HEADER + 16 * wire.npieces);
    }
    if (desc > bytes && bytes != 0)
        gp_fatal("VIS message from node %u: a description of %llu bytes in a message of %llu",
                 from, (unsigned long long)desc, (unsigned long long)bytes);
    gpc_vis_cursor_init(c, side, (intptr_t)gpc.segment);
    if (wire.form == WIRE_STRIDED) {
        c->piece = wire.first;
        c->end = wire.first + wire.npieces;
    }
    for (size_t p = c->piece; p < c->end; p++) {
        uintptr_t off = (uintptr_t)gpc_vis_piece_addr(side, p);
        size_t len = gpc_vis_piece_len(side, p);
        if (!gpc_segment_holds_offset(gpc.segsize, off, len))
            gp_fatal("VIS message from node %u: piece %zu of %zu bytes at offset %llu lies "
                     "outside this node's segment of %llu bytes", from, p, len,
                     (unsigned long long)off, (unsigned long long)gpc.segsize);
    }
    *nbytes = wire.nbytes;
    return buf + desc;
}

static gasnet_node_t token_source(gasnet_token_t token)
{
    return ((struct gpc_token *)token)->source;
}

/* ---- puts ---------------------------------------------------------------- */

/*
 * When the next run of both sides is long, moves it as one ordinary put or
 * get (the remote cursor holds segment offsets); returns whether it did.
 */
static int long_run(gasnet_node_t node, struct gpc_vis_cursor *remote,
                    struct gpc_vis_cursor *local, struct gpc_op *op, int is_put)
{
    char *r, *l;
    size_t rspan = gpc_vis_cursor_span(remote, &r);
    size_t lspan = gpc_vis_cursor_span(local, &l);
    size_t n = rspan < lspan ? rspan : lspan;
    if (n < VIS_RUN_RMA)
        return 0;
    char *at = (char *)gpc.seginfo[node].addr + (uintptr_t)r;
    if (is_put)
        gpc_put(node, at, l, n, op);
    else
        gpc_get(l, node, at, n, op);
    gpc_vis_cursor_advance(remote, n);
    gpc_vis_cursor_advance(local, n);
    return 1;
}

static void put_packed(gasnet_node_t node, struct gpc_vis_cursor *remote,
                       struct gpc_vis_cursor *local, struct gpc_op *op)
{
    struct vis_peer *peer = &vis.peers[node];
    char *stage = stage_take();
    char *unused;
    while (gpc_vis_cursor_span(remote, &unused) > 0) {
        if (long_run(node, remote, local, op, 1))
            continue;
        unsigned s = take_slot(&peer->request_busy, node, "request");
        uint64_t desc, nbytes = describe(stage, remote, &desc);
        gpc_vis_gather(local, stage + desc, nbytes);
        gasnet_handlerarg_t args[2] = { (gasnet_handlerarg_t)op_index(op), (gasnet_handlerarg_t)s };
        gp_count_add(&op->puts_pending, 1);
        /* The source is the transport's only until the call returns (nal.h). */
        gpc_am_request(node, GPC_LONG, GPC_H_VIS_PUT, stage, desc + nbytes,
                       slot_address(node, gpc.rank, 0, s), 2, args);
    }
    stage_give(stage);
}

void gpc_vis_put_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t op,
                         gasnet_handlerarg_t slot)
{
    struct gpc_vis_side side;
    struct gpc_vis_cursor c;
    uint64_t data_bytes;
    const char *data = decode(buf, nbytes, &side, &c, token_source(token), &data_bytes);
    gpc_vis_scatter(&c, data, data_bytes);
    gasnet_handlerarg_t args[2] = { op, slot };
    gpc_am_reply(token, GPC_SHORT, GPC_H_VIS_PUT_DONE, NULL, 0, NULL, 2, args);
}

void gpc_vis_put_done_handler(gasnet_token_t token, gasnet_handlerarg_t op,
                              gasnet_handlerarg_t slot)
{
    free_slot(&vis.peers[token_source(token)].request_busy, (unsigned)slot);
    gp_count_add(&gpc.op_pool.ops[(uint32_t)op].puts_pending, -1);
}

/* One ordinary put or get per span where the two sides' spans overlap. */
static void per_span(gasnet_node_t node, struct gpc_vis_cursor *remote,
                     struct gpc_vis_cursor *local, struct gpc_op *op, int is_put)
{
    for (;;) {
        char *r, *l;
        size_t rspan = gpc_vis_cursor_span(remote, &r);
        size_t lspan = gpc_vis_cursor_span(local, &l);
        size_t n = rspan < lspan ? rspan : lspan;
        if (n == 0)
            return;
        if (is_put)
            gpc_put(node, r, l, n, op);
        else
            gpc_get(l, node, r, n, op);
        gpc_vis_cursor_advance(remote, n);
        gpc_vis_cursor_advance(local, n);
    }
}

static intptr_t mapped_delta(gasnet_node_t node)
{
    return (intptr_t)((uintptr_t)gpc.mapped_segments[node] - (uintptr_t)gpc.seginfo[node].addr);
}

void gpc_vis_put(gasnet_node_t node, const struct gpc_vis_side *dst,
                 const struct gpc_vis_side *src, uint64_t nbytes, struct gpc_op *op)
{
    struct gpc_vis_cursor remote, local;
    if (nbytes == 0)
        return;
    gpc_vis_cursor_init(&local, src, 0);
    if (gpc_vis_direct(node)) {
        gpc_vis_cursor_init(&remote, dst, mapped_delta(node));
        /* Ordered as a contiguous put into a mapped peer (rma.c, put_copy): after the caller's
         * earlier stores, before its later ones (doc/memory-model.md). */
        gp_fence_store();
        gpc_vis_copy(&remote, &local);
        gp_fence_store();
    } else if (vis.slot_bytes > 0 && gpc.seginfo[node].size > 0) {
        gpc_vis_cursor_init(&remote, dst, -(intptr_t)(uintptr_t)gpc.seginfo[node].addr);
        put_packed(node, &remote, &local, op);
    } else {
        gpc_vis_cursor_init(&remote, dst, 0);
        per_span(node, &remote, &local, op, 1);
    }
}

/* ---- gets ---------------------------------------------------------------- */

static struct vis_meta *meta_copy(const struct gpc_vis_side *side)
{
    size_t extra = 0;
    if (side->form == GPC_VIS_VECTOR)
        extra = side->count * sizeof(gasnet_memvec_t);
    else if (side->form == GPC_VIS_INDEXED)
        extra = side->count * sizeof(void *);
    else
        extra = (2 * side->levels + 1) * sizeof(size_t);
    struct vis_meta *meta = malloc(sizeof *meta + extra);
    if (meta == NULL)
        gp_fatal("cannot allocate %zu bytes for a VIS get's local pieces", sizeof *meta + extra);
    char *arrays = (char *)(meta + 1);
    meta->side = *side;
    if (side->form == GPC_VIS_VECTOR) {
        memcpy(arrays, side->vec, extra);
        meta->side.vec = (const gasnet_memvec_t *)arrays;
    } else if (side->form == GPC_VIS_INDEXED) {
        memcpy(arrays, side->addrs, extra);
        meta->side.addrs = (void *const *)arrays;
    } else {
        size_t *copy = (size_t *)arrays;
        if (side->levels > 0)
            memcpy(copy, side->strides, side->levels * sizeof(size_t));
        memcpy(copy + side->levels, side->counts, (side->levels + 1) * sizeof(size_t));
        meta->side.strides = copy;
        meta->side.counts = copy + side->levels;
    }
    gp_count_set(&meta->refs, 1);
    return meta;
}

static void meta_release(struct vis_meta *meta)
{
    if (gp_count_fetch_add(&meta->refs, -1) == 1)
        free(meta);
}

/* Moves the cursor nbytes on without touching memory. */
static void cursor_skip(struct gpc_vis_cursor *c, uint64_t nbytes)
{
    char *unused;
    while (nbytes > 0) {
        size_t span = gpc_vis_cursor_span(c, &unused);
        size_t n = span < nbytes ? span : (size_t)nbytes;
        if (n == 0)
            return;
        gpc_vis_cursor_advance(c, n);
        nbytes -= n;
    }
}

static void get_packed(gasnet_node_t node, struct gpc_vis_cursor *remote,
                       const struct gpc_vis_side *dst, struct gpc_op *op)
{
    struct vis_peer *peer = &vis.peers[node];
    struct vis_meta *meta = meta_copy(dst);
    struct gpc_vis_cursor local;
    gpc_vis_cursor_init(&local, &meta->side, 0);
    char *stage = stage_take();
    char *unused;
    while (gpc_vis_cursor_span(remote, &unused) > 0) {
        if (long_run(node, remote, &local, op, 0))
            continue;
        unsigned p = take_slot(&peer->request_busy, node, "request");
        unsigned g = take_slot(&peer->reply_busy, node, "reply");
        uint64_t desc, nbytes = describe(stage, remote, &desc);
        struct vis_reply_slot *reply = &peer->reply[g];
        reply->local = local;
        reply->meta = meta;
        reply->op = op;
        gp_count_add(&meta->refs, 1);
        cursor_skip(&local, nbytes);
        gasnet_handlerarg_t args[2] = { (gasnet_handlerarg_t)p, (gasnet_handlerarg_t)g };
        gp_count_add(&op->gets_pending, 1);
        gpc_am_request(node, GPC_LONG, GPC_H_VIS_GET, stage, desc,
                       slot_address(node, gpc.rank, 0, p), 2, args);
    }
    stage_give(stage);
    meta_release(meta);
}

/* The target packs the bytes right after the description, in the same slot. */
void gpc_vis_get_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t pslot,
                         gasnet_handlerarg_t gslot)
{
    gasnet_node_t from = token_source(token);
    struct gpc_vis_side side;
    struct gpc_vis_cursor c;
    uint64_t data_bytes;
    char *data = (char *)decode(buf, 0, &side, &c, from, &data_bytes);
    (void)nbytes;
    if ((uint64_t)(data - (char *)buf) + data_bytes > vis.slot_bytes)
        gp_fatal("VIS get from node %u: %llu bytes do not fit its slot of %llu", from,
                 (unsigned long long)data_bytes, (unsigned long long)vis.slot_bytes);
    gpc_vis_gather(&c, data, data_bytes);
    gasnet_handlerarg_t args[2] = { pslot, gslot };
    gpc_am_reply(token, GPC_LONG, GPC_H_VIS_GET_DONE, data, data_bytes,
                 slot_address(from, gpc.rank, 1, (unsigned)gslot), 2, args);
}

void gpc_vis_get_done_handler(gasnet_token_t token, void *buf, size_t nbytes,
                              gasnet_handlerarg_t pslot, gasnet_handlerarg_t gslot)
{
    struct vis_peer *peer = &vis.peers[token_source(token)];
    struct vis_reply_slot *reply = &peer->reply[(uint32_t)gslot];
    struct gpc_op *op = reply->op;
    gpc_vis_scatter(&reply->local, buf, nbytes);
    meta_release(reply->meta);
    free_slot(&peer->reply_busy, (unsigned)gslot);
    free_slot(&peer->request_busy, (unsigned)pslot);
    gp_count_add(&op->gets_pending, -1);
}

void gpc_vis_get(const struct gpc_vis_side *dst, gasnet_node_t node,
                 const struct gpc_vis_side *src, uint64_t nbytes, struct gpc_op *op)
{
    struct gpc_vis_cursor remote, local;
    if (nbytes == 0)
        return;
    if (gpc_vis_direct(node)) {
        gpc_vis_cursor_init(&local, dst, 0);
        gpc_vis_cursor_init(&remote, src, mapped_delta(node));
        /* Ordered as a contiguous get from a mapped peer (rma.c, get_copy): after the caller's
         * earlier loads, before its later loads and stores. */
        gp_fence_load();
        gpc_vis_copy(&local, &remote);
        gp_fence_load();
    } else if (vis.slot_bytes > 0 && gpc.seginfo[node].size > 0 && gpc.segsize > 0) {
        gpc_vis_cursor_init(&remote, src, -(intptr_t)(uintptr_t)gpc.seginfo[node].addr);
        get_packed(node, &remote, dst, op);
    } else {
        gpc_vis_cursor_init(&local, dst, 0);
        gpc_vis_cursor_init(&remote, src, 0);
        per_span(node, &remote, &local, op, 0);
    }
}
