/*
 * The data movement and synchronization of the GASNet-1 collectives
 * (api/coll.c builds the plan of each call).
 *
 * Collectives are called in the same order on every node, so a per-node
 * counter names each one (seq) without any exchange.  Data travels as
 * internal AM Mediums (GPC_H_COLL_DATA), never as puts: in GASNET_COLL_LOCAL
 * mode a destination address is known only to its own image, and it may
 * lie outside the segment.  A piece that arrives before its image has
 * entered the collective (allowed by IN_NOSYNC) waits in a staging buffer
 * that the image copies out on entry; later pieces go straight to dst.
 *
 * Synchronization, with short notices (GPC_H_COLL_SIGNAL):
 *   IN_NOSYNC    senders send at once
 *   IN_MYSYNC    each receiver tells its senders it has entered; a sender
 *                sends to a receiver only after that receiver's notice
 *   IN_ALLSYNC   every node tells node 0 it has entered; node 0 tells every
 *                node once all have; nobody sends before that
 *   OUT_NOSYNC,
 *   OUT_MYSYNC   a node returns when its sends are out (a Medium's source is
 *                free on return) and all its bytes are in.  OUT_NOSYNC is
 *                given the OUT_MYSYNC guarantee: a LOCAL destination can only
 *                be written by its own image, which must therefore wait for
 *                the bytes anyway before its caller may use dst
 *   OUT_ALLSYNC  as MYSYNC, then every node tells node 0 it is done, and
 *                node 0 tells every node once all are
 *
 * Every notice and piece for a collective reaches its node before that
 * node finishes the collective (each one is waited for), so a record can
 * be freed when its node returns.
 */
#include <stdlib.h>
#include <string.h>

#include "conduit/core.h"
#include "util/log.h"

enum signal_kind { SIG_ENTERED = 1, SIG_ALL_ENTERED, SIG_DONE, SIG_ALL_DONE };

struct coll_op {
    uint32_t seq;
    char *dst;               /* set when this node enters */
    char *staging;           /* pieces that came earlier */
    uint64_t staging_bytes;
    uint64_t received;
    uint32_t entered;        /* SIG_ENTERED notices */
    uint8_t *entered_from;   /* by node (IN_MYSYNC) */
    uint32_t done;           /* SIG_DONE notices (node 0) */
    int all_entered;
    int all_done;
    struct coll_op *next;
};

static struct {
    gp_mutex_t lock;
    uint32_t next_seq;
    struct coll_op *ops;
} coll = { GP_MUTEX_INITIALIZER, 0, NULL };

void gpc_coll_setup(void)
{
    gp_mutex_init(&coll.lock);
    coll.next_seq = 0;
    coll.ops = NULL;
}

/* The record of collective seq, created on first mention.  Lock held. */
static struct coll_op *find_op(uint32_t seq)
{
    for (struct coll_op *op = coll.ops; op != NULL; op = op->next)
        if (op->seq == seq)
            return op;
    struct coll_op *op = calloc(1, sizeof *op);
    uint8_t *entered_from = calloc(gpc.nodes, 1);
    if (op == NULL || entered_from == NULL) {
        gp_fatal("out of memory for a collective's record");
        return NULL; /* not reached: said for the static analyzers */
    }
    op->entered_from = entered_from;
    op->seq = seq;
    op->next = coll.ops;
    coll.ops = op;
    return op;
}

static void free_op(struct coll_op *gone)
{
    gp_mutex_lock(&coll.lock);
    for (struct coll_op **link = &coll.ops; *link != NULL; link = &(*link)->next)
        if (*link == gone) {
            *link = gone->next;
            break;
        }
    gp_mutex_unlock(&coll.lock);
    free(gone->staging);
    free(gone->entered_from);
    free(gone);
}

void gpc_coll_data_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t seq,
                           gasnet_handlerarg_t off_hi, gasnet_handlerarg_t off_lo,
                           gasnet_handlerarg_t total_hi, gasnet_handlerarg_t total_lo)
{
    (void)token;
    uint64_t offset = (uint64_t)(uint32_t)off_hi << 32 | (uint32_t)off_lo;
    uint64_t total = (uint64_t)(uint32_t)total_hi << 32 | (uint32_t)total_lo;
    if (offset > total || nbytes > total - offset)
        gp_fatal("collective %u: a piece of %zu bytes at offset %llu overruns its %llu-byte "
                 "destination (collective calls out of step between nodes?)", (unsigned)seq,
                 nbytes, (unsigned long long)offset, (unsigned long long)total);
    gp_mutex_lock(&coll.lock);
    struct coll_op *op = find_op((uint32_t)seq);
    char *where = op->dst;
    if (where == NULL && op->staging == NULL) {
        char *staging = calloc(1, total > 0 ? total : 1);
        if (staging == NULL) {
            gp_fatal("out of memory staging %llu bytes of collective %u",
                     (unsigned long long)total, (unsigned)seq);
            return; /* not reached: said for the static analyzers */
        }
        op->staging = staging;
        op->staging_bytes = total;
    }
    if (where == NULL)
        where = op->staging;
    memcpy(where + offset, buf, nbytes);
    op->received += nbytes;
    gp_mutex_unlock(&coll.lock);
}

void gpc_coll_signal_handler(gasnet_token_t token, gasnet_handlerarg_t seq, gasnet_handlerarg_t kind)
{
    gasnet_node_t source = ((struct gpc_token *)token)->source;
    gp_mutex_lock(&coll.lock);
    struct coll_op *op = find_op((uint32_t)seq);
    switch (kind) {
    case SIG_ENTERED:
        op->entered++;
        op->entered_from[source] = 1;
        break;
    case SIG_ALL_ENTERED: op->all_entered = 1; break;
    case SIG_DONE: op->done++; break;
    case SIG_ALL_DONE: op->all_done = 1; break;
    default:
        gp_fatal("collective %u: unknown notice %d from node %u", (unsigned)seq, (int)kind, source);
    }
    gp_mutex_unlock(&coll.lock);
}

static void signal_node(gasnet_node_t node, uint32_t seq, enum signal_kind kind)
{
    gasnet_handlerarg_t args[2] = { (gasnet_handlerarg_t)seq, kind };
    gpc_am_request(node, GPC_SHORT, GPC_H_COLL_SIGNAL, NULL, 0, NULL, 2, args);
}

/* Reads a counter or flag of a record under the lock (handlers write them). */
static uint64_t read_field(const void *field, size_t size)
{
    uint64_t value = 0;
    gp_mutex_lock(&coll.lock);
    if (size == sizeof(uint64_t))
        memcpy(&value, field, size);
    else if (size == sizeof(uint32_t))
        value = *(const uint32_t *)field;
    else
        value = *(const uint8_t *)field;
    gp_mutex_unlock(&coll.lock);
    return value;
}

static void wait_count(const uint32_t *field, uint32_t want)
{
    while (read_field(field, sizeof *field) < want)
        gpc_wait_turn();
}

/* Node 0 gathers one notice from every node, then releases them all. */
static void all_nodes(struct coll_op *op, enum signal_kind notice, uint32_t *count, int *released,
                      enum signal_kind release)
{
    if (gpc.nodes == 1)
        return;
    if (gpc.rank == 0) {
        wait_count(count, gpc.nodes - 1);
        for (gasnet_node_t node = 1; node < gpc.nodes; node++)
            signal_node(node, op->seq, release);
    } else {
        signal_node(0, op->seq, notice);
        while (!read_field(released, sizeof *released))
            gpc_wait_turn();
    }
}

static void send_pieces(const struct coll_op *op, const struct gpc_coll_send *send,
                        uint64_t recv_bytes)
{
    const char *src = send->src;
    uint64_t done = 0;
    while (done < send->nbytes) {
        uint64_t piece = send->nbytes - done;
        if (piece > GPC_MAX_MEDIUM)
            piece = GPC_MAX_MEDIUM;
        uint64_t offset = send->offset + done;
        gasnet_handlerarg_t args[5] = { (gasnet_handlerarg_t)op->seq,
                                        (gasnet_handlerarg_t)(uint32_t)(offset >> 32),
                                        (gasnet_handlerarg_t)(uint32_t)offset,
                                        (gasnet_handlerarg_t)(uint32_t)(recv_bytes >> 32),
                                        (gasnet_handlerarg_t)(uint32_t)recv_bytes };
        gpc_am_request(send->to, GPC_MEDIUM, GPC_H_COLL_DATA, (void *)(src + done), piece, NULL, 5,
                       args);
        done += piece;
    }
}

void gpc_coll_run(const struct gpc_coll_plan *plan)
{
    uint32_t seq = coll.next_seq++;
    gp_mutex_lock(&coll.lock);
    struct coll_op *op = find_op(seq);
    /* Entering: what came early moves to dst, the rest will land there. */
    if (plan->dst != NULL) {
        if (op->staging != NULL)
            memcpy(plan->dst, op->staging, op->staging_bytes);
        op->dst = plan->dst;
    }
    gp_mutex_unlock(&coll.lock);

    if (plan->in_sync == GPC_COLL_MYSYNC)
        for (uint32_t i = 0; i < plan->nsenders; i++)
            signal_node(plan->senders[i], seq, SIG_ENTERED);
    else if (plan->in_sync == GPC_COLL_ALLSYNC)
        all_nodes(op, SIG_ENTERED, &op->entered, &op->all_entered, SIG_ALL_ENTERED);

    /* After the entry synchronization: ALLSYNC moves nothing, not even
     * this node's own part, before every node has entered. */
    if (plan->self_bytes > 0 && plan->self_dst != plan->self_src)
        memmove(plan->self_dst, plan->self_src, plan->self_bytes);

    if (plan->in_sync == GPC_COLL_MYSYNC) {
        /* Each receiver as soon as it has entered, in whatever order they do. */
        uint8_t *sent = calloc(plan->nsends > 0 ? plan->nsends : 1, 1);
        if (sent == NULL)
            gp_fatal("out of memory for a collective's send list");
        for (uint32_t left = plan->nsends; left > 0;) {
            uint32_t progress = 0;
            for (uint32_t i = 0; i < plan->nsends; i++) {
                if (sent[i] || !read_field(&op->entered_from[plan->sends[i].to], 1))
                    continue;
                send_pieces(op, &plan->sends[i], plan->recv_bytes);
                sent[i] = 1;
                progress++;
                left--;
            }
            if (progress == 0)
                gpc_wait_turn();
        }
        free(sent);
    } else {
        for (uint32_t i = 0; i < plan->nsends; i++)
            send_pieces(op, &plan->sends[i], plan->recv_bytes);
    }

    while (read_field(&op->received, sizeof op->received) < plan->expected)
        gpc_wait_turn();
    if (plan->out_sync == GPC_COLL_ALLSYNC)
        all_nodes(op, SIG_DONE, &op->done, &op->all_done, SIG_ALL_DONE);
    free_op(op);
}
