/*
 * The collectives' engine (api/gasnet1/coll.c checks the arguments).
 *
 * A node's images call each collective of a team in the same order, so a
 * per-image counter (the team's next_seq) names the call, and with the
 * team's id names the node's record of it (struct gpc_coll_op) without any
 * exchange.  Every image of the node joins the record; once all have, the
 * node's part advances whenever some thread calls gpc_coll_progress (the
 * sync calls, the blocking forms, gasnet_AMPoll), never inside a handler,
 * so reduction callbacks run on client threads.
 *
 * Data travels between nodes as internal AM Mediums (GPC_H_COLL_DATA),
 * never as puts: a destination may lie outside the segment and, with
 * GASNET_COLL_LOCAL, is known only to its own image.  A message is named by
 * (team, call, tag, sender's team rank); its pieces land in a buffer of the
 * record (created by whichever comes first, piece or image), and the node
 * copies results into its images' buffers itself, after they have joined.
 * So data never moves into or out of an image's buffers before that image
 * has entered: IN_NOSYNC and IN_MYSYNC both get the MYSYNC guarantee.
 *
 * Algorithms, over team ranks (a node carries its images' blocks together,
 * images being numbered node by node):
 *   broadcast, scatter  binomial tree from the root's node: ceil(log2 P)
 *                       rounds; a scatter's subtree gets its own blocks only
 *   gather, reduce      the same tree upwards; a node sends its subtree's
 *                       blocks (gather) or their combination (reduce)
 *   reduce_all (EX)     reduce to rank 0, then broadcast from it
 *   ordered reduce (EX) the tree from rank 0 whatever the root, each node
 *                       combining its own images' contributions, then its
 *                       children's in ascending vrank order, with the earlier
 *                       ranks on the left: a subtree's vranks are contiguous and
 *                       its children's subtrees follow one another, so rank 0
 *                       ends with the contributions in rank order; it hands the
 *                       result to the call's root (one more message)
 *   gather_all          gather to rank 0, then broadcast of the whole
 *   exchange            every node sends each other node its blocks
 *                       directly, in the order rank+1, rank+2, ... (no
 *                       node relays or receives more than its own share)
 *   IN_ALLSYNC,         a zero-byte gather and broadcast on the tree from
 *   OUT_ALLSYNC         rank 0, before / after the data phase
 * A node's part is complete when everything it expects has arrived, its
 * images' results are in place and everything it must send is sent (a
 * Medium's source is free on return); that is what OUT_NOSYNC and
 * OUT_MYSYNC wait for, so a node that forwards for others never leaves
 * before it has.  Every message to a node is one it waits for, so a record
 * can go once it is complete and every local image has released it.
 */
#include <stdlib.h>
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/coll/coll.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "conduit/coll/team.h"
#include "conduit/rma/rma_ops.h"
#include "util/log.h"
#include "util/thread.h"

enum tag { TAG_IN_UP = 1, TAG_IN_DOWN, TAG_OUT_UP, TAG_OUT_DOWN, TAG_UP, TAG_DOWN, TAG_EXCHANGE };

/* The stages of an operation, in order. */
enum stage { ST_JOIN, ST_IN_UP, ST_IN_DOWN, ST_DATA, ST_OUT_UP, ST_OUT_DOWN, ST_DONE };

struct inbox {
    uint32_t tag;
    uint32_t from;           /* sender's team rank */
    char *buf;
    uint64_t total;
    uint64_t got;
    int pieces;
    struct inbox *next;
};

struct gpc_coll_op {
    uint32_t team_id, seq;
    struct gpc_coll_op *hash_next;   /* in its bucket */
    struct gpc_coll_op *next;        /* in the progress list, by creation */
    struct inbox *inboxes;           /* lock held */
    /* From here on, only the images (under coll.lock when joining) and the
     * progressing thread touch the record. */
    struct gpc_team *team;
    struct gpc_coll_call call;       /* the first image's (shared fields) */
    void **dst, **src;               /* by local image */
    void *root_buf;                  /* the root image's src or dst */
    uint32_t joined;
    uint32_t released;
    uint32_t images;                 /* the team's local images, kept: the sweep may come
                                      * after the team itself is gone (gex_TM_Destroy) */
    int stage;
    int sub;                         /* step within ST_DATA */
    uint64_t *pre;                   /* scatter / gather: bytes before vrank v */
    char *work;
    char *scratch;                   /* ordered reduce: the right operand's copy */
    int complete;                    /* atomic */
};

#define BUCKETS 256

static struct {
    gp_mutex_t lock;         /* records, their inboxes, the lists */
    gp_mutex_t progress;     /* one thread advances operations at a time */
    struct gpc_coll_op *bucket[BUCKETS];
    struct gpc_coll_op *head, *tail;
} coll;

static _Thread_local int progressing;

void gpc_coll_setup(void)
{
    memset(&coll, 0, sizeof coll);
    gp_mutex_init(&coll.lock);
    gp_mutex_init(&coll.progress);
}

static void *xcalloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n > 0 ? n : 1, size > 0 ? size : 1);
    if (p == NULL)
        gp_fatal("out of memory for %s (%zu x %zu bytes)", what, n, size);
    return p;
}

/* The record of (team, seq), created on first mention.  Lock held. */
static struct gpc_coll_op *find_op(uint32_t team_id, uint32_t seq)
{
    struct gpc_coll_op **bucket = &coll.bucket[(seq ^ team_id * 31u) % BUCKETS];
    for (struct gpc_coll_op *op = *bucket; op != NULL; op = op->hash_next)
        if (op->seq == seq && op->team_id == team_id)
            return op;
    struct gpc_coll_op *op = xcalloc(1, sizeof *op, "a collective's record");
    op->team_id = team_id;
    op->seq = seq;
    op->hash_next = *bucket;
    *bucket = op;
    if (coll.tail != NULL)
        coll.tail->next = op;
    else
        __atomic_store_n(&coll.head, op, __ATOMIC_RELEASE);
    coll.tail = op;
    return op;
}

static struct inbox *find_inbox(struct gpc_coll_op *op, uint32_t tag, uint32_t from)
{
    for (struct inbox *in = op->inboxes; in != NULL; in = in->next)
        if (in->tag == tag && in->from == from)
            return in;
    return NULL;
}

void gpc_coll_data_handler(gasnet_token_t token, void *buf, size_t nbytes,
                           gasnet_handlerarg_t team_id, gasnet_handlerarg_t seq,
                           gasnet_handlerarg_t tag, gasnet_handlerarg_t from,
                           gasnet_handlerarg_t off_hi, gasnet_handlerarg_t off_lo,
                           gasnet_handlerarg_t total_hi, gasnet_handlerarg_t total_lo)
{
    (void)token;
    uint64_t offset = (uint64_t)(uint32_t)off_hi << 32 | (uint32_t)off_lo;
    uint64_t total = (uint64_t)(uint32_t)total_hi << 32 | (uint32_t)total_lo;
    if (offset > total || nbytes > total - offset)
        gp_fatal("collective %u: a piece of %zu bytes at offset %llu overruns its %llu-byte "
                 "message (collective calls out of step between nodes?)", (unsigned)seq, nbytes,
                 (unsigned long long)offset, (unsigned long long)total);
    gp_mutex_lock(&coll.lock);
    struct gpc_coll_op *op = find_op((uint32_t)team_id, (uint32_t)seq);
    struct inbox *in = find_inbox(op, (uint32_t)tag, (uint32_t)from);
    if (in == NULL) {
        in = xcalloc(1, sizeof *in, "a collective's message");
        in->tag = (uint32_t)tag;
        in->from = (uint32_t)from;
        in->total = total;
        in->buf = xcalloc(1, total, "a collective's message");
        in->next = op->inboxes;
        op->inboxes = in;
    }
    if (in->total != total)
        gp_fatal("collective %u: message %d from team rank %d is %llu bytes in one piece and "
                 "%llu in another (collective calls out of step between nodes?)", (unsigned)seq,
                 (int)tag, (int)from, (unsigned long long)in->total, (unsigned long long)total);
    memcpy(in->buf + offset, buf, nbytes);
    in->got += nbytes;
    in->pieces++;
    gp_mutex_unlock(&coll.lock);
}

/* The message (tag, from) once all of it is in, else NULL. */
static struct inbox *arrived(struct gpc_coll_op *op, uint32_t tag, gasnet_node_t from)
{
    gp_mutex_lock(&coll.lock);
    struct inbox *in = find_inbox(op, tag, from);
    if (in != NULL && (in->pieces == 0 || in->got < in->total))
        in = NULL;
    gp_mutex_unlock(&coll.lock);
    return in;
}

static void send_msg(const struct gpc_coll_op *op, gasnet_node_t to_rank, uint32_t tag,
                     const void *src, uint64_t nbytes)
{
    static const char nothing;
    gasnet_node_t node = gpc_team_node(op->team, to_rank);
    const char *bytes = nbytes > 0 ? src : &nothing;
    uint64_t done = 0;
    do {
        uint64_t piece = nbytes - done;
        if (piece > GPC_MAX_MEDIUM)
            piece = GPC_MAX_MEDIUM;
        gasnet_handlerarg_t args[8] = { (gasnet_handlerarg_t)op->team_id,
                                        (gasnet_handlerarg_t)op->seq,
                                        (gasnet_handlerarg_t)tag,
                                        (gasnet_handlerarg_t)op->team->rank,
                                        (gasnet_handlerarg_t)(uint32_t)(done >> 32),
                                        (gasnet_handlerarg_t)(uint32_t)done,
                                        (gasnet_handlerarg_t)(uint32_t)(nbytes >> 32),
                                        (gasnet_handlerarg_t)(uint32_t)nbytes };
        gpc_am_request(node, GPC_MEDIUM, GPC_H_COLL_DATA, (void *)(bytes + done), piece, NULL, 8,
                       args);
        done += piece;
    } while (done < nbytes);
}

/* ---- binomial trees over virtual ranks (team rank - root, mod size) ---- */

static gasnet_node_t lowbit(gasnet_node_t v)
{
    return v & (~v + 1);
}

/* One past the last vrank of v's subtree. */
static gasnet_node_t subtree_end(gasnet_node_t v, gasnet_node_t size)
{
    if (v == 0)
        return size;
    gasnet_node_t end = v + lowbit(v);
    return end < v || end > size ? size : end;
}

static gasnet_node_t parent_of(gasnet_node_t v)
{
    return v - lowbit(v);
}

/* v's first child, and the one after child c (size when none). */
static gasnet_node_t first_child(gasnet_node_t v, gasnet_node_t size)
{
    return v + 1 < subtree_end(v, size) ? v + 1 : size;
}

static gasnet_node_t next_child(gasnet_node_t v, gasnet_node_t c, gasnet_node_t size)
{
    gasnet_node_t next = v + 2 * (c - v);
    return next > c && next < subtree_end(v, size) ? next : size;
}

static gasnet_node_t rank_of_vrank(const struct gpc_team *team, gasnet_node_t v, gasnet_node_t root)
{
    return (gasnet_node_t)(((uint64_t)v + root) % team->size);
}

static gasnet_node_t my_vrank(const struct gpc_team *team, gasnet_node_t root)
{
    return (gasnet_node_t)(((uint64_t)team->rank + team->size - root) % team->size);
}

/* Every child's message of tag arrived? */
static int children_in(struct gpc_coll_op *op, gasnet_node_t root, uint32_t tag)
{
    gasnet_node_t size = op->team->size, v = my_vrank(op->team, root);
    for (gasnet_node_t c = first_child(v, size); c < size; c = next_child(v, c, size))
        if (arrived(op, tag, rank_of_vrank(op->team, c, root)) == NULL)
            return 0;
    return 1;
}

static struct inbox *child_msg(struct gpc_coll_op *op, gasnet_node_t root, uint32_t tag,
                               gasnet_node_t c)
{
    return arrived(op, tag, rank_of_vrank(op->team, c, root));
}

/* A zero-byte synchronization on the tree from rank 0: up, then down. */
static int sync_up(struct gpc_coll_op *op, uint32_t tag)
{
    if (!children_in(op, 0, tag))
        return 0;
    if (op->team->rank != 0)
        send_msg(op, parent_of(op->team->rank), tag, NULL, 0);
    return 1;
}

static int sync_down(struct gpc_coll_op *op, uint32_t tag)
{
    gasnet_node_t size = op->team->size, v = op->team->rank;
    if (v != 0 && arrived(op, tag, parent_of(v)) == NULL)
        return 0;
    for (gasnet_node_t c = first_child(v, size); c < size; c = next_child(v, c, size))
        send_msg(op, c, tag, NULL, 0);
    return 1;
}

/* ---- the data phases; each returns 1 when this node's part is done ---- */

static uint32_t local_images(const struct gpc_coll_op *op)
{
    return op->team->local_images;
}

static void copy(void *dst, const void *src, uint64_t nbytes)
{
    if (nbytes > 0 && dst != src)
        memmove(dst, src, nbytes);
}

/* Bytes of the blocks of ranks before vrank v (scatter, gather). */
static uint64_t *prefix(struct gpc_coll_op *op, gasnet_node_t root)
{
    if (op->pre == NULL) {
        gasnet_node_t size = op->team->size;
        op->pre = xcalloc(size + 1, sizeof *op->pre, "a collective's layout");
        for (gasnet_node_t v = 0; v < size; v++)
            op->pre[v + 1] = op->pre[v] +
                             gpc_team_images(op->team, rank_of_vrank(op->team, v, root)) *
                                 op->call.nbytes;
    }
    return op->pre;
}

/* Sends payload (the whole of v's subtree, stride bytes per vrank or by
 * pre) down to v's children. */
static void send_down(struct gpc_coll_op *op, gasnet_node_t root, const char *payload,
                      const uint64_t *pre)
{
    gasnet_node_t size = op->team->size, v = my_vrank(op->team, root);
    for (gasnet_node_t c = first_child(v, size); c < size; c = next_child(v, c, size)) {
        const char *from = payload;
        uint64_t bytes = op->call.nbytes;
        if (pre != NULL) {
            from += pre[c] - pre[v];
            bytes = pre[subtree_end(c, size)] - pre[c];
        }
        send_msg(op, rank_of_vrank(op->team, c, root), TAG_DOWN, from, bytes);
    }
}

/* The payload from the parent (or the root's own), NULL while not in. */
static const char *from_parent(struct gpc_coll_op *op, gasnet_node_t root, const char *own)
{
    gasnet_node_t v = my_vrank(op->team, root);
    if (v == 0)
        return own;
    struct inbox *in = arrived(op, TAG_DOWN, rank_of_vrank(op->team, parent_of(v), root));
    return in != NULL ? in->buf : NULL;
}

static int broadcast(struct gpc_coll_op *op)
{
    gasnet_node_t root = op->call.root_rank;
    const char *payload = from_parent(op, root, op->root_buf);
    if (payload == NULL)
        return 0;
    send_down(op, root, payload, NULL);
    for (uint32_t k = 0; k < local_images(op); k++)
        copy(op->dst[k], payload, op->call.nbytes);
    return 1;
}

static int scatter(struct gpc_coll_op *op)
{
    gasnet_node_t root = op->call.root_rank;
    const uint64_t *pre = prefix(op, root);
    if (my_vrank(op->team, root) == 0 && op->work == NULL) {
        /* The blocks in vrank order: the root's src turned to start at its node. */
        uint64_t all = pre[op->team->size];
        uint64_t head = (uint64_t)gpc_team_first_image(op->team, root) * op->call.nbytes;
        op->work = xcalloc(1, all, "a scatter's blocks");
        copy(op->work, (char *)op->root_buf + head, all - head);
        copy(op->work + (all - head), op->root_buf, head);
    }
    const char *payload = from_parent(op, root, op->work);
    if (payload == NULL)
        return 0;
    send_down(op, root, payload, pre);
    for (uint32_t k = 0; k < local_images(op); k++)
        copy(op->dst[k], payload + (uint64_t)k * op->call.nbytes, op->call.nbytes);
    return 1;
}

/* Gathers the subtree's blocks (vrank order) into op->work; sends them up,
 * or at the root returns them.  NULL while waiting or when sent. */
static const char *gather_up(struct gpc_coll_op *op, gasnet_node_t root)
{
    const struct gpc_team *team = op->team;
    gasnet_node_t size = team->size, v = my_vrank(team, root);
    if (!children_in(op, root, TAG_UP))
        return NULL;
    const uint64_t *pre = prefix(op, root);
    gasnet_node_t end = subtree_end(v, size);
    op->work = xcalloc(1, pre[end] - pre[v], "a gather's blocks");
    for (uint32_t k = 0; k < local_images(op); k++)
        copy(op->work + (uint64_t)k * op->call.nbytes, op->src[k], op->call.nbytes);
    for (gasnet_node_t c = first_child(v, size); c < size; c = next_child(v, c, size))
        copy(op->work + (pre[c] - pre[v]), child_msg(op, root, TAG_UP, c)->buf,
             pre[subtree_end(c, size)] - pre[c]);
    if (v != 0) {
        send_msg(op, rank_of_vrank(team, parent_of(v), root), TAG_UP, op->work, pre[end] - pre[v]);
        return NULL;
    }
    return op->work;
}

/* The root's vrank-ordered blocks into dst, by image number. */
static void unrotate(const struct gpc_coll_op *op, gasnet_node_t root, char *dst,
                     const char *blocks)
{
    for (gasnet_node_t v = 0; v < op->team->size; v++) {
        gasnet_node_t rank = rank_of_vrank(op->team, v, root);
        copy(dst + (uint64_t)gpc_team_first_image(op->team, rank) * op->call.nbytes,
             blocks + op->pre[v], op->pre[v + 1] - op->pre[v]);
    }
}

static int gather(struct gpc_coll_op *op)
{
    gasnet_node_t root = op->call.root_rank;
    if (op->sub == 0) {
        const char *blocks = gather_up(op, root);
        if (blocks == NULL && op->work == NULL)
            return 0;
        if (blocks != NULL)
            unrotate(op, root, op->root_buf, blocks);
    }
    return 1;
}

static int gather_all(struct gpc_coll_op *op)
{
    if (op->sub == 0) {
        const char *blocks = gather_up(op, 0);
        if (blocks == NULL && op->work == NULL)
            return 0;
        op->sub = 1;
    }
    /* Rank 0's work holds every block in image order (vrank = rank). */
    const char *payload = from_parent(op, 0, op->work);
    if (payload == NULL)
        return 0;
    uint64_t all = (uint64_t)op->team->nimages * op->call.nbytes;
    struct gpc_coll_call whole = op->call;
    op->call.nbytes = all;
    send_down(op, 0, payload, NULL);
    op->call = whole;
    for (uint32_t k = 0; k < local_images(op); k++)
        copy(op->dst[k], payload, all);
    return 1;
}

static int exchange(struct gpc_coll_op *op)
{
    const struct gpc_team *team = op->team;
    uint64_t b = op->call.nbytes;
    uint32_t mine = local_images(op), first = gpc_team_first_image(team, team->rank);
    if (op->sub == 0) {
        /* To rank q: block (q's image j) of each local image i, i-major. */
        for (gasnet_node_t k = 1; k < team->size; k++) {
            gasnet_node_t q = (gasnet_node_t)(((uint64_t)team->rank + k) % team->size);
            uint32_t theirs = gpc_team_images(team, q), qfirst = gpc_team_first_image(team, q);
            char *msg = xcalloc(1, (uint64_t)mine * theirs * b, "an exchange's message");
            for (uint32_t i = 0; i < mine; i++)
                for (uint32_t j = 0; j < theirs; j++)
                    copy(msg + ((uint64_t)i * theirs + j) * b,
                         (char *)op->src[i] + (uint64_t)(qfirst + j) * b, b);
            send_msg(op, q, TAG_EXCHANGE, msg, (uint64_t)mine * theirs * b);
            free(msg);
        }
        for (uint32_t i = 0; i < mine; i++)
            for (uint32_t j = 0; j < mine; j++)
                copy((char *)op->dst[j] + (uint64_t)(first + i) * b,
                     (char *)op->src[i] + (uint64_t)(first + j) * b, b);
        op->sub = 1;
    }
    for (gasnet_node_t q = 0; q < team->size; q++)
        if (q != team->rank && arrived(op, TAG_EXCHANGE, q) == NULL)
            return 0;
    for (gasnet_node_t q = 0; q < team->size; q++) {
        if (q == team->rank)
            continue;
        const char *msg = arrived(op, TAG_EXCHANGE, q)->buf;
        uint32_t theirs = gpc_team_images(team, q), qfirst = gpc_team_first_image(team, q);
        for (uint32_t i = 0; i < theirs; i++)
            for (uint32_t j = 0; j < mine; j++)
                copy((char *)op->dst[j] + (uint64_t)(qfirst + i) * b,
                     msg + ((uint64_t)i * mine + j) * b, b);
    }
    return 1;
}

/* acc = acc op right, element-wise: as GASNet 1.29.3 calls its callback, or (EX, fn NULL)
 * as gex_Coll_ReduceFn_t is called, which may combine in any order. */
static void combine(const struct gpc_coll_op *op, void *acc, const void *right)
{
    if (op->call.elem_count == 0)
        return;
    if (op->call.fn == NULL)
        op->call.ex_fn(right, acc, op->call.elem_count, op->call.ex_cdata);
    else
        op->call.fn(acc, op->call.elem_count, acc, op->call.elem_count, right,
                    op->call.elem_size, op->call.fn_flags, op->call.fn_arg);
}

/* work = work op right for an ordered reduction.  The function writes its result over its
 * right operand, which must stay the later contribution, so right is copied to scratch, combined
 * there, and the two buffers trade places. */
static void combine_ordered(struct gpc_coll_op *op, const void *right)
{
    if (op->call.elem_count == 0)
        return;
    if (op->scratch == NULL)
        op->scratch = xcalloc(1, op->call.nbytes, "a reduction's operand");
    copy(op->scratch, right, op->call.nbytes);
    op->call.ex_fn(op->work, op->scratch, op->call.elem_count, op->call.ex_cdata);
    char *result = op->scratch;
    op->scratch = op->work;
    op->work = result;
}

static void combine_in(struct gpc_coll_op *op, const void *right)
{
    if (op->call.ordered)
        combine_ordered(op, right);
    else
        combine(op, op->work, right);
}

/* Combines this subtree's contributions into op->work and sends them to the parent;
 * 0 while a child's are missing. */
static int reduce_up(struct gpc_coll_op *op, gasnet_node_t root)
{
    const struct gpc_team *team = op->team;
    gasnet_node_t size = team->size, v = my_vrank(team, root);
    if (!children_in(op, root, TAG_UP))
        return 0;
    uint64_t bytes = op->call.nbytes;
    op->work = xcalloc(1, bytes, "a reduction's accumulator");
    copy(op->work, op->src[0], bytes);
    for (uint32_t k = 1; k < local_images(op); k++)
        combine_in(op, op->src[k]);
    for (gasnet_node_t c = first_child(v, size); c < size; c = next_child(v, c, size))
        combine_in(op, child_msg(op, root, TAG_UP, c)->buf);
    if (v != 0)
        send_msg(op, rank_of_vrank(team, parent_of(v), root), TAG_UP, op->work, bytes);
    return 1;
}

/* The rank whose tree a reduction climbs: an ordered one needs vrank order to be rank
 * order, which only a tree from rank 0 gives. */
static gasnet_node_t tree_top(const struct gpc_coll_op *op)
{
    return op->call.ordered ? 0 : op->call.root_rank;
}

static int reduce(struct gpc_coll_op *op)
{
    gasnet_node_t root = op->call.root_rank, top = tree_top(op);
    if (op->sub == 0) {
        if (!reduce_up(op, top))
            return 0;
        if (op->team->rank == top && root != top)
            send_msg(op, root, TAG_DOWN, op->work, op->call.nbytes);
        op->sub = 1;
    }
    if (op->team->rank != root)
        return 1;
    const char *result = op->work;
    if (root != top) {
        struct inbox *in = arrived(op, TAG_DOWN, top);
        if (in == NULL)
            return 0;
        result = in->buf;
    }
    copy(op->root_buf, result, op->call.nbytes);
    return 1;
}

/* Reduced to rank 0, then broadcast from there down the same tree. */
static int reduce_all(struct gpc_coll_op *op)
{
    if (op->sub == 0) {
        if (!reduce_up(op, 0))
            return 0;
        op->sub = 1;
    }
    const char *payload = from_parent(op, 0, op->work);
    if (payload == NULL)
        return 0;
    send_down(op, 0, payload, NULL);
    for (uint32_t k = 0; k < local_images(op); k++)
        copy(op->dst[k], payload, op->call.nbytes);
    return 1;
}

static int data_phase(struct gpc_coll_op *op)
{
    switch (op->call.kind) {
    case GPC_BROADCAST: return broadcast(op);
    case GPC_SCATTER: return scatter(op);
    case GPC_GATHER: return gather(op);
    case GPC_GATHER_ALL: return gather_all(op);
    case GPC_EXCHANGE: return exchange(op);
    case GPC_REDUCE: return reduce(op);
    case GPC_REDUCE_ALL: return reduce_all(op);
    case GPC_SYNC: return 1;
    }
    return 1;
}

/* Moves op on as far as it goes now. */
static void advance(struct gpc_coll_op *op)
{
    for (;;) {
        int moved = 1;
        switch (op->stage) {
        case ST_JOIN:
            gp_mutex_lock(&coll.lock);
            moved = op->team != NULL && op->joined == op->team->local_images;
            gp_mutex_unlock(&coll.lock);
            if (moved && !op->call.in_allsync)
                op->stage = ST_DATA - 1;
            break;
        case ST_IN_UP: moved = sync_up(op, TAG_IN_UP); break;
        case ST_IN_DOWN: moved = sync_down(op, TAG_IN_DOWN); break;
        case ST_DATA:
            moved = data_phase(op);
            if (moved && !op->call.out_allsync)
                op->stage = ST_DONE - 1;
            break;
        case ST_OUT_UP: moved = sync_up(op, TAG_OUT_UP); break;
        case ST_OUT_DOWN: moved = sync_down(op, TAG_OUT_DOWN); break;
        default: return;
        }
        if (!moved)
            return;
        op->stage++;
        if (op->stage == ST_DONE) {
            __atomic_store_n(&op->complete, 1, __ATOMIC_RELEASE);
            return;
        }
    }
}

static void free_op(struct gpc_coll_op *op)
{
    while (op->inboxes != NULL) {
        struct inbox *in = op->inboxes;
        op->inboxes = in->next;
        free(in->buf);
        free(in);
    }
    free(op->dst);
    free(op->src);
    free(op->pre);
    free(op->work);
    free(op->scratch);
    free(op);
}

/* Unlinks the records that are complete and released.  Both locks held. */
static void sweep(void)
{
    struct gpc_coll_op *prev = NULL;
    for (struct gpc_coll_op *op = coll.head, *next; op != NULL; op = next) {
        next = op->next;
        if (!op->complete || op->team == NULL || op->released < op->images) {
            prev = op;
            continue;
        }
        if (prev != NULL)
            prev->next = next;
        else
            __atomic_store_n(&coll.head, next, __ATOMIC_RELEASE);
        if (coll.tail == op)
            coll.tail = prev;
        struct gpc_coll_op **link = &coll.bucket[(op->seq ^ op->team_id * 31u) % BUCKETS];
        while (*link != op)
            link = &(*link)->hash_next;
        *link = op->hash_next;
        free_op(op);
    }
}

void gpc_coll_progress(void)
{
    /* Nothing in progress (the common case of gasnet_AMPoll): no lock taken. */
    if (__atomic_load_n(&coll.head, __ATOMIC_ACQUIRE) == NULL)
        return;
    if (progressing || gp_mutex_trylock(&coll.progress) != 0)
        return;
    progressing = 1;
    /* Records are only appended meanwhile (by handlers and other images),
     * and only this thread unlinks them. */
    gp_mutex_lock(&coll.lock);
    struct gpc_coll_op *op = coll.head;
    gp_mutex_unlock(&coll.lock);
    while (op != NULL) {
        if (!__atomic_load_n(&op->complete, __ATOMIC_ACQUIRE))
            advance(op);
        gp_mutex_lock(&coll.lock);
        op = op->next;
        gp_mutex_unlock(&coll.lock);
    }
    gp_mutex_lock(&coll.lock);
    sweep();
    gp_mutex_unlock(&coll.lock);
    progressing = 0;
    gp_mutex_unlock(&coll.progress);
}

struct gpc_coll_op *gpc_coll_start(struct gpc_team *team, uint32_t local,
                                   const struct gpc_coll_call *call)
{
    uint32_t seq = team->next_seq[local]++;
    gp_mutex_lock(&coll.lock);
    struct gpc_coll_op *op = find_op(team->id, seq);
    if (op->team == NULL) {
        op->team = team;
        op->images = team->local_images;
        op->call = *call;
        op->dst = xcalloc(team->local_images, sizeof *op->dst, "a collective's buffers");
        op->src = xcalloc(team->local_images, sizeof *op->src, "a collective's buffers");
    } else if (op->call.kind != call->kind || op->call.nbytes != call->nbytes) {
        gp_fatal("collective %u: the images of node %u called different collectives (kind %d "
                 "with %llu bytes, and kind %d with %llu)", (unsigned)seq, gpc.rank,
                 (int)op->call.kind, (unsigned long long)op->call.nbytes, (int)call->kind,
                 (unsigned long long)call->nbytes);
    }
    for (uint32_t k = 0; k < team->local_images; k++) {
        if (call->dsts != NULL)
            op->dst[k] = call->dsts[k];
        if (call->srcs != NULL)
            op->src[k] = call->srcs[k];
    }
    if (call->dsts == NULL)
        op->dst[local] = call->dst;
    if (call->srcs == NULL)
        op->src[local] = call->src;
    if (team->rank == call->root_rank && local == call->root_local)
        op->root_buf = (call->kind == GPC_BROADCAST || call->kind == GPC_SCATTER) ? call->src
                                                                                   : call->dst;
    op->joined++;
    gp_mutex_unlock(&coll.lock);
    gpc_coll_progress();
    return op;
}

int gpc_coll_done(struct gpc_coll_op *op)
{
    if (__atomic_load_n(&op->complete, __ATOMIC_ACQUIRE))
        return 1;
    gpc_poll();
    gpc_coll_progress();
    return __atomic_load_n(&op->complete, __ATOMIC_ACQUIRE);
}

void gpc_coll_release(struct gpc_coll_op *op)
{
    gp_mutex_lock(&coll.lock);
    op->released++;
    gp_mutex_unlock(&coll.lock);
}

void gpc_coll_finish(struct gpc_coll_op *op)
{
    while (!gpc_coll_done(op))
        gpc_wait_turn();
    gpc_coll_release(op);
}

gasnet_handle_t gpc_coll_event(struct gpc_coll_op *op)
{
    if (__atomic_load_n(&op->complete, __ATOMIC_ACQUIRE)) {
        gpc_coll_release(op);
        return GASNET_INVALID_HANDLE;
    }
    /* The record's value field is free in an OP_COLL record: it names the collective. */
    struct gpc_op *event = gpc_op_new(OP_COLL);
    event->value = (uint64_t)(uintptr_t)op;
    return (gasnet_handle_t)event;
}

struct gpc_coll_op *gpc_coll_of_event(const struct gpc_op *event)
{
    return (struct gpc_coll_op *)(uintptr_t)event->value;
}
