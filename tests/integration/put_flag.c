/*
 * A put's data is all there when the put is complete: a sender puts BYTES
 * (over ofi: a window put in several parts) into its target's segment, and
 * once gasnet_put returns sends the target an AM, the flag; the target's
 * handler checks every byte of the round's pattern and replies with the
 * count of wrong ones, which the sender waits for.  Each round writes a new
 * pattern, so a part that lands after the flag leaves the last round's
 * bytes behind.  Between put and flag the sender also sends MEDIUMS AM
 * Mediums of gasnet_AMMaxMedium() bytes to its target, so that the
 * transport's message buffers are spent too.
 *
 *   flag   node 0 sends to every other node, which only answers
 *   both   every node sends to the next at once (node n-1 to node 0), so
 *          that with few buffers (GP_OFI_TX_BUFS, GP_OFI_BOUNCE_BUFS) two
 *          processes are short of them at the same time, each waiting on
 *          parts whose completion needs the other to progress
 *
 * Usage: put_flag flag|both ROUNDS BYTES
 */
#include <stdlib.h>
#include <string.h>

#include "amtest.h"

#define H_CHECK 200
#define H_RESULT 201
#define H_MEDIUM 202
#define MEDIUMS 8

static gasnet_seginfo_t *seg;
static size_t put_bytes;
static volatile int results_in;    /* answers to this node's flags */
static volatile long wrong_total;  /* wrong bytes the targets found */
static volatile int mediums_in;

static unsigned char pattern(int round, size_t i)
{
    return (unsigned char)((unsigned)round * 131u + i * 7u + (i >> 12));
}

/* The flag: the round's put is complete at the sender; every byte must be there. */
static void check_request(gasnet_token_t token, gasnet_handlerarg_t round)
{
    const unsigned char *area = seg[gasnet_mynode()].addr;
    long wrong = 0;
    for (size_t i = 0; i < put_bytes; i++)
        wrong += area[i] != pattern(round, i);
    gasnet_AMReplyShort2(token, H_RESULT, round, (gasnet_handlerarg_t)wrong);
}

static void result_reply(gasnet_token_t token, gasnet_handlerarg_t round, gasnet_handlerarg_t wrong)
{
    (void)token;
    if (wrong != 0)
        fprintf(stderr, "put_flag node %u: round %d: %d of %zu bytes not there at the flag\n",
                gasnet_mynode(), round, wrong, put_bytes);
    wrong_total += wrong;
    results_in++;
}

static void medium_request(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)token;
    (void)buf;
    (void)nbytes;
    mediums_in++;
}

static gasnet_handlerentry_t table[] = {
    { H_CHECK, check_request }, { H_RESULT, result_reply }, { H_MEDIUM, medium_request },
    AMTEST_HANDLERS
};

int main(int argc, char **argv)
{
    amtest_name = "put_flag";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    const char *mode = argc > 1 ? argv[1] : "flag";
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    put_bytes = argc > 3 ? (size_t)atol(argv[3]) : (size_t)1 << 20;
    int both = strcmp(mode, "both") == 0;
    CHECK(both || strcmp(mode, "flag") == 0, "mode %s: flag or both", mode);
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]),
                        (uintptr_t)((put_bytes + 65535) & ~(size_t)65535), 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    CHECK(nodes >= 2, "at least 2 nodes");
    seg = calloc(nodes, sizeof *seg);
    CHECK(seg != NULL, "memory");
    gasnet_getSegmentInfo(seg, (int)nodes);
    unsigned char *source = malloc(put_bytes), *medium = malloc(gasnet_AMMaxMedium());
    CHECK(source != NULL && medium != NULL, "memory");
    memset(medium, 0x5a, gasnet_AMMaxMedium());
    amtest_barrier();
    /* Who this node writes to: one writer per target area. */
    gasnet_node_t first = both ? (gasnet_node_t)((me + 1) % nodes) : 1;
    gasnet_node_t last = both ? first : (me == 0 ? nodes - 1 : 0);
    int sends = both || me == 0;
    int expected = 0;
    for (int round = 1; sends && round <= rounds; round++) {
        for (size_t i = 0; i < put_bytes; i++)
            source[i] = pattern(round, i);
        for (gasnet_node_t to = first; to <= last; to++) {
            gasnet_put(to, seg[to].addr, source, put_bytes);
            for (int m = 0; m < MEDIUMS; m++)
                CHECK(gasnet_AMRequestMedium0(to, H_MEDIUM, medium, gasnet_AMMaxMedium()) == GASNET_OK,
                      "medium");
            CHECK(gasnet_AMRequestShort1(to, H_CHECK, round) == GASNET_OK, "flag");
            expected++;
            GASNET_BLOCKUNTIL(results_in == expected);
        }
    }
    amtest_barrier();
    CHECK(wrong_total == 0, "%ld bytes were not there when their flag arrived", wrong_total);
    if (me == 0)
        printf("put_flag: %s, %u nodes, %d rounds of %zu bytes: every byte there when its flag "
               "arrived\n", mode, nodes, rounds, put_bytes);
    fflush(stdout);
    amtest_barrier();
    free(source);
    free(medium);
    gasnet_exit(0);
}
