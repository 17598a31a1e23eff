/*
 * A flood of AM requests from every node to node 0, which stays away from
 * the network for a while first.  With flow control the senders stall on
 * credits and the flood completes, every request counted exactly once;
 * without it the requests overflow node 0's ReqRB into the catch basin,
 * which must end the job with a fatal error that says so.
 *
 * Usage: am_flood COUNT [QUIET_SECONDS]
 */
#include <string.h>
#include <unistd.h>

#include "amtest.h"

#define H_FLOOD 200
#define PAYLOAD 256

static volatile int flood_count[256];
static volatile int flood_total;

static void flood_request(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t seq)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    const unsigned char *bytes = buf;
    CHECK(nbytes == PAYLOAD, "flood payload of %zu bytes", nbytes);
    for (size_t i = 0; i < nbytes; i++)
        CHECK(bytes[i] == (unsigned char)(src + (unsigned)seq + i), "byte %zu from node %u", i, src);
    CHECK(seq == flood_count[src], "from node %u: request %d, expected %d", src, seq,
          flood_count[src]);
    flood_count[src]++;
    flood_total++;
    /* No reply: the conduit's implicit no-op reply returns the credits. */
}

static gasnet_handlerentry_t table[] = { { H_FLOOD, flood_request }, AMTEST_HANDLERS };

int main(int argc, char **argv)
{
    amtest_name = "am_flood";
    int count = argc > 1 ? atoi(argv[1]) : 1000;
    int quiet = argc > 2 ? atoi(argv[2]) : 1;
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 1 << 20, 0) == GASNET_OK, "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    CHECK(nodes <= 256, "at most 256 nodes");
    amtest_barrier();
    if (me == 0)
        sleep((unsigned)quiet); /* the others flood meanwhile */
    unsigned char payload[PAYLOAD];
    for (int seq = 0; seq < count; seq++) {
        for (size_t i = 0; i < PAYLOAD; i++)
            payload[i] = (unsigned char)(me + (unsigned)seq + i);
        CHECK(gasnet_AMRequestMedium1(0, H_FLOOD, payload, PAYLOAD, seq) == GASNET_OK, "request");
    }
    if (me == 0) {
        GASNET_BLOCKUNTIL(flood_total == count * (int)nodes);
        for (gasnet_node_t node = 0; node < nodes; node++)
            CHECK(flood_count[node] == count, "node %u: %d requests arrived", node,
                  flood_count[node]);
        printf("am_flood: %d requests from each of %u nodes arrived exactly once\n", count, nodes);
    }
    fflush(stdout);
    amtest_barrier(); /* node 0 releases the barrier after printing */
    gasnet_exit(0);
}
