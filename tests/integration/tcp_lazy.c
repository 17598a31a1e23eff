/*
 * Which tcp connections a job opens (GP_TCP_CONNECT, doc/wire-tcp.md,
 * "Connections").  Each node counts the sockets it holds (/proc/self/fd)
 * after its exchange and prints
 *
 *   tcp_lazy: node N holds S sockets
 *
 * The count is taken before anything else is sent, so no other node has a
 * reason to dial this one yet, except node 0: nodes that are done arrive at
 * its barrier, and its count may include them.
 * Exchanges (each an AM request answered by a reply, every node polling
 * until it has its answers and has served every request meant for it):
 *   pairs   even node i asks node i+1 only, which answers (the last node of
 *           an odd job talks to nobody): one connection per pair, no crossing;
 *   all     every node asks every other, all at once: each pair's dials cross.
 * Nothing else is sent before the second count (no barrier: it would talk to
 * other nodes).  Public API only.
 *
 * Usage: tcp_lazy pairs|all      (run with GP_TRANSPORT=tcp)
 */
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "amtest.h"

#define H_PING 200
#define H_PONG 201

static volatile int pings_served;
static volatile int pongs;

static void ping_request(gasnet_token_t token, gasnet_handlerarg_t value)
{
    pings_served++;
    CHECK(gasnet_AMReplyShort1(token, H_PONG, value + 1) == GASNET_OK, "reply");
}

static void pong_reply(gasnet_token_t token, gasnet_handlerarg_t value)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(value == (gasnet_handlerarg_t)gasnet_mynode() + 1, "pong from node %u carries %d", src,
          value);
    pongs++;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping_request }, { H_PONG, pong_reply }, AMTEST_HANDLERS
};

/* Sockets this process holds: the listener, the bootstrap's, the connections. */
static int count_sockets(void)
{
    DIR *dir = opendir("/proc/self/fd");
    CHECK(dir != NULL, "cannot open /proc/self/fd");
    int sockets = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        char path[300], target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = '\0';
            sockets += strncmp(target, "socket:", 7) == 0;
        }
    }
    closedir(dir);
    return sockets;
}

int main(int argc, char **argv)
{
    amtest_name = "tcp_lazy";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 2 && (strcmp(argv[1], "pairs") == 0 || strcmp(argv[1], "all") == 0),
          "usage: tcp_lazy pairs|all");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 1 << 16, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    int all = strcmp(argv[1], "all") == 0;
    int asks = 0, asked = 0;
    for (gasnet_node_t node = 0; node < nodes; node++) {
        if (node == me || (!all && node != (me ^ 1u)))
            continue;
        asked += all || me % 2 == 1;
        if (!all && me % 2 == 1)
            continue;
        asks++;
        CHECK(gasnet_AMRequestShort1(node, H_PING, (gasnet_handlerarg_t)me) == GASNET_OK,
              "request to node %u", node);
    }
    GASNET_BLOCKUNTIL(pongs == asks && pings_served == asked);
    printf("tcp_lazy: node %u holds %d sockets\n", me, count_sockets());
    fflush(stdout);
    amtest_barrier();
    gasnet_exit(0);
    return 0;
}
