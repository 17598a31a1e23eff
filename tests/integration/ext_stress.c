/*
 * A random mix of puts (blocking, nb, nbi), gets, memsets, AMs and barriers
 * on every node at once.  Node i alone writes area i of every segment and
 * keeps a shadow of what each should hold; gets are checked against the
 * shadow as they go, and at the end every node checksums each area it
 * holds and sends the sum to the area's writer, which compares it with its
 * shadow.  AM counts are checked the same way.  Public API only.
 *
 * Usage: ext_stress OPS SEED
 */
#include <string.h>

#include "amtest.h"

#define AREA (64u << 10)
#define MAX_LEN 4096
#define H_COUNT 200
#define H_SUM 201
#define H_EXPECT 202

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
static unsigned char *shadow;      /* [peer][AREA]: what my area holds on each peer */
static volatile int am_received[256];
static volatile int sums_checked, expects_heard;
static volatile int am_expected[256];
static uint64_t rng;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static char *area(gasnet_node_t owner, gasnet_node_t writer)
{
    return (char *)seg[owner].addr + (size_t)writer * AREA;
}

static uint32_t checksum(const unsigned char *bytes, size_t n)
{
    uint32_t sum = 2166136261u;
    for (size_t i = 0; i < n; i++)
        sum = (sum ^ bytes[i]) * 16777619u;
    return sum;
}

static void count_handler(gasnet_token_t token, void *buf, size_t nbytes)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    const unsigned char *bytes = buf;
    for (size_t i = 0; i < nbytes; i++)
        CHECK(bytes[i] == (unsigned char)(src + i), "AM payload from %u", src);
    am_received[src]++;
}

static void expect_handler(gasnet_token_t token, gasnet_handlerarg_t count)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    am_expected[src] = count;
    expects_heard++;
}

static int all_ams_arrived(void)
{
    if (expects_heard < (int)nodes)
        return 0;
    for (gasnet_node_t node = 0; node < nodes; node++)
        if (am_received[node] != am_expected[node])
            return 0;
    return 1;
}

/* From the holder of my area: its checksum. */
static void sum_handler(gasnet_token_t token, gasnet_handlerarg_t sum)
{
    gasnet_node_t holder;
    gasnet_AMGetMsgSource(token, &holder);
    uint32_t expected = checksum(shadow + (size_t)holder * AREA, AREA);
    CHECK((uint32_t)sum == expected, "node %u holds my area with checksum %08x, expected %08x",
          holder, (uint32_t)sum, expected);
    sums_checked++;
}

static gasnet_handlerentry_t table[] = {
    { H_COUNT, count_handler }, { H_SUM, sum_handler }, { H_EXPECT, expect_handler },
    AMTEST_HANDLERS,
};

static int sent_ams[256];

static void random_op(int op, unsigned char *buf)
{
    gasnet_node_t peer = (gasnet_node_t)(next_random() % nodes);
    size_t len = 1 + next_random() % MAX_LEN;
    size_t offset = next_random() % (AREA - len);
    unsigned char *expect = shadow + (size_t)peer * AREA + offset;
    switch (next_random() % 6) {
    case 0: case 1: { /* put, some form */
        for (size_t i = 0; i < len; i++)
            buf[i] = (unsigned char)(op * 7 + i);
        int form = (int)(next_random() % 3);
        if (form == 0)
            gasnet_put_bulk(peer, area(peer, me) + offset, buf, len);
        else if (form == 1)
            gasnet_wait_syncnb(gasnet_put_nb(peer, area(peer, me) + offset, buf, len));
        else {
            gasnet_put_nbi(peer, area(peer, me) + offset, buf, len);
            gasnet_wait_syncnbi_puts();
        }
        memcpy(expect, buf, len);
        break;
    }
    case 2: { /* get, checked against the shadow */
        gasnet_get_bulk(buf, peer, area(peer, me) + offset, len);
        CHECK(memcmp(buf, expect, len) == 0, "get of %zu bytes at %zu from node %u", len, offset,
              peer);
        break;
    }
    case 3: /* memset */
        gasnet_memset(peer, area(peer, me) + offset, op & 0xff, len);
        memset(expect, op & 0xff, len);
        break;
    default: { /* an AM */
        size_t n = len % gasnet_AMMaxMedium();
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)(me + i);
        CHECK(gasnet_AMRequestMedium0(peer, H_COUNT, buf, n) == GASNET_OK, "AM");
        sent_ams[peer]++;
        break;
    }
    }
}

int main(int argc, char **argv)
{
    amtest_name = "ext_stress";
    int ops = argc > 1 ? atoi(argv[1]) : 2000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    CHECK(nodes <= 256, "at most 256 nodes");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]),
                        (uintptr_t)nodes * AREA, 0) == GASNET_OK, "attach");
    seg = calloc(nodes, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)nodes);
    shadow = calloc(nodes, AREA);
    memset(seg[me].addr, 0, (size_t)nodes * AREA);
    rng = seed * 0x9e3779b97f4a7c15ull + me + 1;
    unsigned char *buf = malloc(MAX_LEN);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    for (int op = 0; op < ops; op++) {
        random_op(op, buf);
        if (op % 100 == 99) /* same count on every node: the barriers line up */
            CHECK(gasnet_barrier(op, 0) == GASNET_OK, "barrier after op %d", op);
    }
    /* Every node learns how many AMs to expect from each, and waits for them. */
    for (gasnet_node_t peer = 0; peer < nodes; peer++)
        CHECK(gasnet_AMRequestShort1(peer, H_EXPECT, sent_ams[peer]) == GASNET_OK, "expect");
    GASNET_BLOCKUNTIL(all_ams_arrived());
    /* Each area's holder sends its checksum to the area's writer. */
    for (gasnet_node_t writer = 0; writer < nodes; writer++)
        CHECK(gasnet_AMRequestShort1(writer, H_SUM,
                                     (gasnet_handlerarg_t)checksum((unsigned char *)area(me, writer),
                                                                   AREA)) == GASNET_OK, "sum");
    GASNET_BLOCKUNTIL(sums_checked == (int)nodes);
    /* Print before the last barrier: once a node is past it, its exit may end this one. */
    if (me == 0)
        printf("ext_stress: %u nodes x %d random operations, every area's checksum matched\n",
               nodes, ops);
    fflush(stdout);
    gasnet_barrier(2, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
}
