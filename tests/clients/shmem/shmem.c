/*
 * An OpenSHMEM-like layer over GASNet-1, using only the installed headers,
 * and a program that checks it:
 *
 *   symmetric heap   the segment; shmem_malloc is collective and hands out
 *                    the same offset on every PE, so a local address
 *                    translates to any PE's by the segment bases
 *   put / get        gasnet_put / gasnet_get on the translated address
 *   barrier_all      gasnet_barrier (blocking, anonymous)
 *   atomics          fetch-add and compare-swap run by an AM handler on the
 *                    owner (one handler at a time is atomic), the old value
 *                    coming back in the reply
 *   broadcast        gasnet_coll_broadcast
 *
 * Checks: all PEs fetch-add one counter -- every old value 0..N*K-1 is
 * seen exactly once; a compare-swap retry loop increments another to N*K;
 * ring puts and gets of a symmetric array; a broadcast.  Every value is
 * verified.  Usage: shmem [K].
 */
#include <gasnet.h>
#include <gasnet_coll.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_BYTES (1u << 20)
#define H_AMO 210
#define H_AMO_REPLY 211

enum amo { AMO_FADD, AMO_CSWAP };

static gasnet_node_t me, npes;
static gasnet_seginfo_t *seg;
static size_t heap_used;

#define FAIL(...)                                                   \
    do {                                                            \
        fprintf(stderr, "shmem PE %u: ", (unsigned)me);             \
        fprintf(stderr, __VA_ARGS__);                               \
        fputc('\n', stderr);                                        \
        gasnet_exit(1);                                             \
    } while (0)

/* ---- the layer ---- */

static void *shmem_malloc(size_t bytes) /* collective: same sizes on every PE */
{
    size_t at = (heap_used + 15) & ~(size_t)15;
    if (at + bytes > seg[me].size)
        FAIL("symmetric heap exhausted");
    heap_used = at + bytes;
    return (char *)seg[me].addr + at;
}

static void *remote(const void *sym, gasnet_node_t pe)
{
    return (char *)seg[pe].addr + ((const char *)sym - (const char *)seg[me].addr);
}

static void shmem_putmem(void *dest, const void *src, size_t n, gasnet_node_t pe)
{
    gasnet_put(pe, remote(dest, pe), (void *)src, n);
}

static void shmem_getmem(void *dest, const void *src, size_t n, gasnet_node_t pe)
{
    gasnet_get(dest, pe, remote(src, pe), n);
}

static void shmem_barrier_all(void)
{
    if (gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK)
        FAIL("barrier mismatch");
}

/* One outstanding atomic per PE (SEQ): the reply lands here. */
static volatile int amo_done;
static int64_t amo_result;

static int64_t join(gasnet_handlerarg_t hi, gasnet_handlerarg_t lo)
{
    return (int64_t)((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
}
#define HI(v) ((gasnet_handlerarg_t)(uint32_t)((uint64_t)(v) >> 32))
#define LO(v) ((gasnet_handlerarg_t)(uint32_t)(uint64_t)(v))

static void amo_handler(gasnet_token_t token, gasnet_handlerarg_t op, gasnet_handlerarg_t offset,
                        gasnet_handlerarg_t a_hi, gasnet_handlerarg_t a_lo,
                        gasnet_handlerarg_t b_hi, gasnet_handlerarg_t b_lo)
{
    int64_t *target = (int64_t *)((char *)seg[me].addr + offset), old = *target;
    if (op == AMO_FADD)
        *target = old + join(a_hi, a_lo);
    else if (old == join(a_hi, a_lo))
        *target = join(b_hi, b_lo);
    gasnet_AMReplyShort2(token, H_AMO_REPLY, HI(old), LO(old));
}

static void amo_reply_handler(gasnet_token_t token, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo)
{
    (void)token;
    amo_result = join(hi, lo);
    amo_done = 1;
}

static int64_t amo(enum amo op, int64_t *sym, int64_t a, int64_t b, gasnet_node_t pe)
{
    amo_done = 0;
    gasnet_AMRequestShort6(pe, H_AMO, op, (gasnet_handlerarg_t)((char *)sym - (char *)seg[me].addr),
                           HI(a), LO(a), HI(b), LO(b));
    GASNET_BLOCKUNTIL(amo_done);
    return amo_result;
}
static int64_t shmem_long_fadd(int64_t *sym, int64_t v, gasnet_node_t pe) { return amo(AMO_FADD, sym, v, 0, pe); }
static int64_t shmem_long_cswap(int64_t *sym, int64_t cond, int64_t v, gasnet_node_t pe) { return amo(AMO_CSWAP, sym, cond, v, pe); }

static void shmem_broadcast(void *dest, const void *src, size_t n, gasnet_node_t root)
{
    gasnet_coll_broadcast(GASNET_TEAM_ALL, dest, root, (void *)src, n,
                          GASNET_COLL_LOCAL | GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC);
}

static gasnet_handlerentry_t handlers[] = {
    { H_AMO, (void (*)())amo_handler },
    { H_AMO_REPLY, (void (*)())amo_reply_handler },
};

/* ---- the program ---- */

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK ||
        gasnet_attach(handlers, 2, HEAP_BYTES, 0) != GASNET_OK)
        return 1;
    gasnet_coll_init(NULL, 0, NULL, 0, 0);
    me = gasnet_mynode();
    npes = gasnet_nodes();
    int k = argc > 1 ? atoi(argv[1]) : 500;
    seg = calloc(npes, sizeof *seg);
    if (seg == NULL || gasnet_getSegmentInfo(seg, (int)npes) != GASNET_OK)
        FAIL("segment info");

    int64_t *counter = shmem_malloc(sizeof *counter);
    int64_t *counter2 = shmem_malloc(sizeof *counter2);
    int64_t total = (int64_t)npes * k;
    int64_t *seen = shmem_malloc((size_t)total * sizeof *seen); /* PE 0 collects old values */
    int64_t *ring = shmem_malloc(1000 * sizeof *ring);
    *counter = *counter2 = 0;
    shmem_barrier_all();

    /* Fetch-add: the old values, put at PE 0, must be a permutation of 0..total-1. */
    for (int i = 0; i < k; i++) {
        int64_t old = shmem_long_fadd(counter, 1, 0);
        shmem_putmem(&seen[(int64_t)me * k + i], &old, sizeof old, 0);
    }
    /* Compare-swap: read, try to install +1, retry on a lost race. */
    for (int i = 0; i < k; i++) {
        int64_t guess = 0, got;
        while ((got = shmem_long_cswap(counter2, guess, guess + 1, 0)) != guess)
            guess = got;
    }
    shmem_barrier_all();
    int64_t final1, final2;
    shmem_getmem(&final1, counter, sizeof final1, 0);
    shmem_getmem(&final2, counter2, sizeof final2, 0);
    if (final1 != total || final2 != total)
        FAIL("counters %" PRId64 " and %" PRId64 ", expected %" PRId64, final1, final2, total);
    if (me == 0) {
        char *hit = calloc((size_t)total, 1);
        for (int64_t i = 0; i < total; i++) {
            if (seen[i] < 0 || seen[i] >= total || hit[seen[i]]++)
                FAIL("fetch-add returned %" PRId64 " twice or out of range", seen[i]);
        }
        free(hit);
    }

    /* Ring: put my array into my right neighbour's, get my left neighbour's back. */
    int64_t mine[1000], back[1000];
    gasnet_node_t right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int i = 0; i < 1000; i++)
        mine[i] = (int64_t)me * 1000003 + i * 17;
    shmem_putmem(ring, mine, sizeof mine, right);
    shmem_barrier_all();
    for (int i = 0; i < 1000; i++)
        if (ring[i] != (int64_t)left * 1000003 + i * 17)
            FAIL("ring element %d from PE %u is %" PRId64, i, (unsigned)left, ring[i]);
    shmem_getmem(back, ring, sizeof back, right);
    for (int i = 0; i < 1000; i++)
        if (back[i] != mine[i])
            FAIL("element %d read back from PE %u is %" PRId64, i, (unsigned)right, back[i]);

    /* Broadcast from the last PE. */
    int64_t bc[64];
    for (int i = 0; i < 64; i++)
        bc[i] = me == npes - 1 ? i * 3 + 1 : -1;
    shmem_broadcast(bc, bc, sizeof bc, npes - 1);
    for (int i = 0; i < 64; i++)
        if (bc[i] != i * 3 + 1)
            FAIL("broadcast element %d is %" PRId64, i, bc[i]);

    printf("shmem: %u PEs, %" PRId64 " fetch-adds (each old value once), %" PRId64
           " compare-swap increments, ring put/get and broadcast verified\n",
           (unsigned)npes, total, total);
    fflush(stdout);
    shmem_barrier_all();
    free(seg);
    gasnet_exit(0);
    return 0;
}
