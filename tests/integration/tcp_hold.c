/*
 * A job that holds still while strangers knock on its tcp listener, then
 * shows that it still works.  Node 0 keeps polling (so its progress engine
 * answers the strangers) until the file named on the command line exists
 * or 30 s have passed; then every node sends an AM request to every node,
 * each answered by a reply that carries the arguments back, and node 0
 * prints "tcp_hold: N nodes went on".  Public API only.
 *
 * Usage: tcp_hold GO_FILE      (run with GP_TRANSPORT=tcp)
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "amtest.h"

#define H_PING 200
#define H_PONG 201
#define HOLD_SECONDS 30

static volatile int pongs;

static void ping_request(gasnet_token_t token, gasnet_handlerarg_t value)
{
    CHECK(gasnet_AMReplyShort1(token, H_PONG, value + 1) == GASNET_OK, "reply");
}

static void pong_reply(gasnet_token_t token, gasnet_handlerarg_t value)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(value == (gasnet_handlerarg_t)(src * 10 + 1), "pong from node %u carries %d", src,
          value);
    pongs++;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping_request }, { H_PONG, pong_reply }, AMTEST_HANDLERS
};

/* Polls until go_file exists: the strangers are served meanwhile. */
static void hold(const char *go_file)
{
    time_t until = time(NULL) + HOLD_SECONDS;
    while (access(go_file, F_OK) != 0 && time(NULL) < until) {
        gasnet_AMPoll();
        usleep(1000);
    }
    CHECK(access(go_file, F_OK) == 0, "%s did not appear within %d s", go_file, HOLD_SECONDS);
}

int main(int argc, char **argv)
{
    amtest_name = "tcp_hold";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 2, "usage: tcp_hold GO_FILE");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 1 << 16, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    amtest_barrier();
    if (me == 0)
        hold(argv[1]);
    amtest_barrier();
    for (gasnet_node_t node = 0; node < nodes; node++)
        CHECK(gasnet_AMRequestShort1(node, H_PING, (gasnet_handlerarg_t)(node * 10)) == GASNET_OK,
              "request");
    GASNET_BLOCKUNTIL(pongs == (int)nodes);
    /* Print before the last barrier: once a node is past it, its exit may end this one. */
    if (me == 0)
        printf("tcp_hold: %u nodes went on\n", nodes);
    fflush(stdout);
    amtest_barrier();
    gasnet_exit(0);
    return 0;
}
