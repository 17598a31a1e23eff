/*
 * A job for gp-top to watch (tests/integration/gp_top.sh): every node keeps
 * sending Short AMs to the next node, answered by a reply, so the event
 * rates are not zero, until DIR/go exists.  Node 0 writes DIR/ready with
 * the job id once every node has attached and the traffic has started.
 *
 * Usage: top_hold DIR
 */
#include <sys/stat.h>
#include <unistd.h>

#include "amtest.h"

#define H_PING 210
#define H_PONG 211

static volatile int pongs;

static void ping_handler(gasnet_token_t token, gasnet_handlerarg_t seq)
{
    CHECK(gasnet_AMReplyShort1(token, H_PONG, seq) == GASNET_OK, "reply");
}

static void pong_handler(gasnet_token_t token, gasnet_handlerarg_t seq)
{
    (void)token;
    (void)seq;
    pongs++;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping_handler }, { H_PONG, pong_handler },
    AMTEST_HANDLERS,
};

static int exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

int main(int argc, char **argv)
{
    amtest_name = "top_hold";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 2, "usage: top_hold DIR");
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 65536, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    const char *dir = argv[1];
    amtest_barrier();
    if (me == 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/ready.tmp", dir);
        FILE *ready = fopen(path, "w");
        CHECK(ready != NULL, "cannot write %s", path);
        fprintf(ready, "%s\n", getenv("GP_JOBID") ? getenv("GP_JOBID") : "");
        fclose(ready);
        char final[512];
        snprintf(final, sizeof final, "%s/ready", dir);
        CHECK(rename(path, final) == 0, "cannot rename %s", path); /* readers never see it half */
    }
    int sent = 0;
    while (!exists(dir, "go")) {
        CHECK(gasnet_AMRequestShort1((gasnet_node_t)((me + 1) % nodes), H_PING, sent) == GASNET_OK,
              "request");
        sent++;
        GASNET_BLOCKUNTIL(pongs == sent);
        usleep(500);
    }
    if (me == 0)
        printf("top_hold: %u nodes, released\n", nodes);
    fflush(stdout);
    amtest_barrier();
    gasnet_exit(0);
}
