/*
 * Memory per process against the job's size (tests/scale/04-ibv-recv.sh,
 * the ibv suite's srq cases): every node sends COUNT Medium requests of
 * 512 bytes to every other node, at once, each answered by a Short reply, so
 * the receive path of every peer pair is used; the payload's bytes and the
 * counts are checked.  Then each node prints its resident and pinned
 * memory (from /proc/self/status):
 *   recv_memory: node R of N: VmRSS K kB, VmPin P kB
 *
 * Usage: recv_memory [COUNT]      (default 8)
 */
#include <string.h>

#include "amtest.h"

#define H_REQ 200
#define H_REP 201
#define PAYLOAD 512

static volatile int requests_in, replies_in, bad_bytes;

static unsigned char pattern(unsigned src, unsigned seq, size_t i)
{
    return (unsigned char)(src * 31u + seq * 7u + i);
}

static void on_request(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t seq)
{
    gasnet_node_t src;
    CHECK(gasnet_AMGetMsgSource(token, &src) == GASNET_OK, "source");
    const unsigned char *p = buf;
    for (size_t i = 0; i < nbytes; i++)
        if (p[i] != pattern(src, (unsigned)seq, i))
            bad_bytes++;
    if (nbytes != PAYLOAD)
        bad_bytes++;
    requests_in++;
    CHECK(gasnet_AMReplyShort0(token, H_REP) == GASNET_OK, "reply");
}

static void on_reply(gasnet_token_t token)
{
    (void)token;
    replies_in++;
}

static gasnet_handlerentry_t table[] = {
    AMTEST_HANDLERS,
    { H_REQ, on_request },
    { H_REP, on_reply },
};

/* The value of a "Name:   N kB" line of /proc/self/status, or -1. */
static long status_kb(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t len = strlen(name);
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, name, len) == 0 && line[len] == ':')
            kb = strtol(line + len + 1, NULL, 10);
    if (f != NULL)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    amtest_name = "recv_memory";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    int count = argc > 1 ? atoi(argv[1]) : 8;
    CHECK(count >= 1, "COUNT %d", count);
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), GASNET_PAGESIZE, 0) ==
              GASNET_OK, "attach");
    amtest_barrier();
    unsigned char payload[PAYLOAD];
    for (int seq = 0; seq < count; seq++)
        for (gasnet_node_t k = 1; k < nodes; k++) {
            gasnet_node_t peer = (gasnet_node_t)((me + k) % nodes);
            for (size_t i = 0; i < PAYLOAD; i++)
                payload[i] = pattern(me, (unsigned)seq, i);
            CHECK(gasnet_AMRequestMedium1(peer, H_REQ, payload, PAYLOAD, seq) == GASNET_OK,
                  "request to %u", peer);
        }
    int expected = count * (int)(nodes - 1);
    GASNET_BLOCKUNTIL(replies_in == expected);
    amtest_barrier(); /* every node has its replies: every request has run */
    CHECK(requests_in == expected && bad_bytes == 0, "%d requests in (expected %d), %d bad bytes",
          requests_in, expected, bad_bytes);
    printf("recv_memory: node %u of %u: VmRSS %ld kB, VmPin %ld kB\n", me, nodes,
           status_kb("VmRSS"), status_kb("VmPin"));
    fflush(stdout);
    amtest_barrier();
    if (me == 0)
        printf("recv_memory: %u nodes, %d requests of %d bytes to each peer, every reply back, "
               "every byte checked\n", nodes, count, PAYLOAD);
    fflush(stdout);
    amtest_barrier();
    gasnet_exit(0);
}
