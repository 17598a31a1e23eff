/*
 * A PGAS-style shared array over GASNet-1, using only the installed
 * headers: N * BLOCK 64-bit elements, block-distributed, each block in its
 * owner's segment.
 *
 *   1. AM-driven updates: every node sends "add v to element i" requests
 *      to the owners (AMRequestShort3), which apply them in the handler and
 *      acknowledge; the sender waits for every acknowledgement.
 *   2. Every node reads the whole array back with gets and checks each
 *      element against the sum it computes itself; where the owner's block
 *      is mapped here (gasnet_getNodeInfo offset), a plain load too.
 *   3. Puts: each node writes a pattern into its right neighbour's block,
 *      then every node checks the whole array with non-blocking gets.
 *
 * Usage: pgas_array [ROUNDS]; prints one line and exits 0 when every value
 * matched, else exits 1 naming the first wrong element.
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096
#define H_ADD 201
#define H_ACK 202

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
static gasnet_nodeinfo_t *info;
static gasnett_atomic_t acks = gasnett_atomic_init(0);

#define FAIL(...)                                                   \
    do {                                                            \
        fprintf(stderr, "pgas_array node %u: ", (unsigned)me);      \
        fprintf(stderr, __VA_ARGS__);                               \
        fputc('\n', stderr);                                        \
        gasnet_exit(1);                                             \
    } while (0)

static int64_t *block_of(gasnet_node_t owner) { return (int64_t *)seg[owner].addr; }
static gasnet_node_t owner_of(uint64_t i) { return (gasnet_node_t)(i / BLOCK); }
static int64_t *addr_of(uint64_t i) { return block_of(owner_of(i)) + i % BLOCK; }

/* The update stream of one node: element and value of its k-th update. */
static uint64_t update_index(gasnet_node_t from, uint64_t k)
{
    return (k * 2654435761u + from * 40503u) % ((uint64_t)nodes * BLOCK);
}
static int64_t update_value(gasnet_node_t from, uint64_t k) { return (int64_t)(from + 1) * 1000 + (int64_t)(k % 997); }

static void add_handler(gasnet_token_t token, gasnet_handlerarg_t index, gasnet_handlerarg_t hi,
                        gasnet_handlerarg_t lo)
{
    int64_t v = (int64_t)((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
    block_of(me)[index] += v; /* handlers run one at a time in SEQ */
    gasnet_AMReplyShort0(token, H_ACK);
}

static void ack_handler(gasnet_token_t token)
{
    (void)token;
    gasnett_atomic_increment(&acks, 0);
}

static gasnet_handlerentry_t handlers[] = {
    { H_ADD, (void (*)())add_handler },
    { H_ACK, (void (*)())ack_handler },
};

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK)
        FAIL("barrier mismatch");
}

static int64_t pattern(uint64_t i, int round) { return (int64_t)(i * 7919 + (uint64_t)round * 104729) ^ 0x5a5a; }

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK)
        return 1;
    /* The segment is exactly this node's block (BLOCK * 8 bytes is whole pages). */
    if (gasnet_attach(handlers, 2, BLOCK * sizeof(int64_t), 0) != GASNET_OK)
        return 1;
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    uint64_t total = (uint64_t)nodes * BLOCK, updates = 5000;
    seg = calloc(nodes, sizeof *seg);
    info = calloc(nodes, sizeof *info);
    int64_t *expect = calloc(total, sizeof *expect), *copy = calloc(total, sizeof *copy);
    if (!seg || !info || !expect || !copy)
        FAIL("out of memory");
    if (gasnet_getSegmentInfo(seg, (int)nodes) != GASNET_OK || gasnet_getNodeInfo(info, (int)nodes) != GASNET_OK)
        FAIL("segment or node info");
    memset(block_of(me), 0, BLOCK * sizeof(int64_t));
    barrier();

    unsigned long direct_loads = 0;
    for (int round = 0; round < rounds; round++) {
        /* 1. AM-driven updates. */
        for (uint64_t k = 0; k < updates; k++) {
            uint64_t i = update_index(me, k + (uint64_t)round * updates);
            uint64_t v = (uint64_t)update_value(me, k);
            gasnet_AMRequestShort3(owner_of(i), H_ADD, (gasnet_handlerarg_t)(i % BLOCK),
                                   (gasnet_handlerarg_t)(uint32_t)(v >> 32), (gasnet_handlerarg_t)(uint32_t)v);
        }
        GASNET_BLOCKUNTIL(gasnett_atomic_read(&acks, 0) == (round + 1) * updates);
        for (gasnet_node_t from = 0; from < nodes; from++)
            for (uint64_t k = 0; k < updates; k++)
                expect[update_index(from, k + (uint64_t)round * updates)] += update_value(from, k);
        barrier();
        /* 2. Read everything back. */
        for (gasnet_node_t owner = 0; owner < nodes; owner++)
            gasnet_get_bulk(copy + (uint64_t)owner * BLOCK, owner, block_of(owner), BLOCK * sizeof(int64_t));
        for (uint64_t i = 0; i < total; i++) {
            if (copy[i] != expect[i])
                FAIL("round %d: element %" PRIu64 " is %" PRId64 ", expected %" PRId64, round, i, copy[i], expect[i]);
            gasnet_node_t owner = owner_of(i);
            if (owner != me && info[owner].offset != 0) {
                int64_t seen = *(volatile int64_t *)((char *)addr_of(i) + info[owner].offset);
                if (seen != expect[i])
                    FAIL("round %d: element %" PRIu64 " loaded through the supernode mapping is %" PRId64, round, i, seen);
                direct_loads++;
            }
        }
        barrier();
    }

    /* 3. Puts into the right neighbour's block, checked everywhere with nb gets. */
    gasnet_node_t right = (me + 1) % nodes;
    for (uint64_t j = 0; j < BLOCK; j++)
        copy[j] = pattern((uint64_t)right * BLOCK + j, rounds);
    gasnet_put_bulk(right, block_of(right), copy, BLOCK * sizeof(int64_t));
    barrier();
    gasnet_handle_t *h = calloc(nodes, sizeof *h);
    for (gasnet_node_t owner = 0; owner < nodes; owner++)
        h[owner] = gasnet_get_nb_bulk(copy + (uint64_t)owner * BLOCK, owner, block_of(owner), BLOCK * sizeof(int64_t));
    gasnet_wait_syncnb_all(h, nodes);
    for (uint64_t i = 0; i < total; i++)
        if (copy[i] != pattern(i, rounds))
            FAIL("after puts: element %" PRIu64 " is %" PRId64 ", expected %" PRId64, i, copy[i], pattern(i, rounds));

    printf("pgas_array: %u nodes, %d rounds of %" PRIu64 " AM updates each, %" PRIu64
           " elements verified by get (%lu also by direct load) and after puts\n",
           (unsigned)nodes, rounds, updates, total, direct_loads);
    fflush(stdout);
    barrier();
    free(h);
    free(expect);
    free(copy);
    free(info);
    free(seg);
    gasnet_exit(0);
    return 0;
}
