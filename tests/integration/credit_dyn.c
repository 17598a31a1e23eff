/*
 * Traffic for the dynamic credit tests (tests/integration/credits.sh reads
 * the GASNET_PORTAL_CREDIT_STATS files each node writes at exit).
 *
 * Usage: credit_dyn MODE COUNT
 *   hotspot  node 1 sends COUNT full Mediums to node 0; the others only poll
 *   deaf     as hotspot, but node 0 first computes for 3 s without polling,
 *            so node 1 waits for credits that long (and says so)
 *   random   every node sends COUNT Mediums of random size to random nodes;
 *            every payload is checksummed and every message counted
 * With a third argument DIR, node 0 then writes DIR/ready (holding the job
 * id) and every node keeps polling until DIR/go exists: a monitor can read
 * the live statistics pages meanwhile.
 */
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <string.h>

#include "amtest.h"

#define H_DATA 200
#define H_EXPECT 201

static gasnet_node_t me, nodes;
static volatile int received[256], expected[256], expects_heard;

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return x;
}

static void data_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t seq,
                         gasnet_handlerarg_t sum)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    uint32_t check = 0;
    const unsigned char *bytes = buf;
    for (size_t i = 0; i < nbytes; i++)
        check = check * 31 + bytes[i];
    CHECK(check == (uint32_t)sum, "message %d from node %u: checksum %08x, sent %08x", seq, src,
          check, (uint32_t)sum);
    received[src]++;
}

static void expect_handler(gasnet_token_t token, gasnet_handlerarg_t count)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    expected[src] = count;
    expects_heard++;
}

static gasnet_handlerentry_t table[] = {
    { H_DATA, data_handler }, { H_EXPECT, expect_handler }, AMTEST_HANDLERS,
};

static int all_arrived(void)
{
    if (expects_heard < (int)nodes)
        return 0;
    for (gasnet_node_t node = 0; node < nodes; node++)
        if (received[node] != expected[node])
            return 0;
    return 1;
}

static void hold(const char *dir)
{
    char path[512];
    struct stat st;
    if (me == 0) {
        snprintf(path, sizeof path, "%s/ready", dir);
        FILE *ready = fopen(path, "w");
        CHECK(ready != NULL, "cannot write %s", path);
        fprintf(ready, "%s\n", getenv("GP_JOBID") ? getenv("GP_JOBID") : "");
        fclose(ready);
    }
    snprintf(path, sizeof path, "%s/go", dir);
    while (stat(path, &st) != 0) {
        gasnet_AMPoll();
        usleep(1000);
    }
}

static void send_one(gasnet_node_t dest, int seq, size_t nbytes, unsigned char *buf)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < nbytes; i++) {
        buf[i] = (unsigned char)mix((uint32_t)seq * 977u + me + (uint32_t)i);
        sum = sum * 31 + buf[i];
    }
    CHECK(gasnet_AMRequestMedium2(dest, H_DATA, buf, nbytes, seq, (gasnet_handlerarg_t)sum) ==
          GASNET_OK, "request");
}

int main(int argc, char **argv)
{
    amtest_name = "credit_dyn";
    const char *mode = argc > 1 ? argv[1] : "random";
    int count = argc > 2 ? atoi(argv[2]) : 1000;
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 65536, 0) == GASNET_OK,
          "attach");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    CHECK(nodes <= 256, "at most 256 nodes");
    unsigned char buf[1024];
    int sent[256] = { 0 };
    amtest_barrier();
    int deaf = strcmp(mode, "deaf") == 0;
    if (deaf && me == 0) {
        /* Busy, not asleep in GASNet: nothing here polls. */
        struct timespec hold = { 3, 0 };
        while (nanosleep(&hold, &hold) != 0)
            ;
    }
    uint32_t rng = mix(me + 12345u);
    for (int seq = 0; seq < count; seq++) {
        if (strcmp(mode, "hotspot") == 0 || deaf) {
            if (me != 1)
                break;
            send_one(0, seq, gasnet_AMMaxMedium(), buf);
            sent[0]++;
        } else {
            rng = mix(rng + (uint32_t)seq);
            gasnet_node_t dest = rng % nodes;
            send_one(dest, seq, (rng >> 8) % (gasnet_AMMaxMedium() + 1), buf);
            sent[dest]++;
        }
    }
    for (gasnet_node_t node = 0; node < nodes; node++)
        CHECK(gasnet_AMRequestShort1(node, H_EXPECT, sent[node]) == GASNET_OK, "expect");
    GASNET_BLOCKUNTIL(all_arrived());
    if (argc > 3)
        hold(argv[3]);
    if (me == 0)
        printf("credit_dyn: %s, %u nodes, every message arrived once with its checksum\n", mode,
               nodes);
    fflush(stdout);
    amtest_barrier();
    gasnet_exit(0);
}
