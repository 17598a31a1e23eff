/*
 * A client written the way Chapel's GASNet communication layer drives gp:
 * gex_Client_Init with GEX_FLAG_USES_GASNET1, gex_Segment_Attach of exactly
 * gasnet_getMaxLocalSegmentSize(), gex_EP_RegisterHandlers with handlers
 * written in GASNet-1's types (fixed indices and one left to gp, written
 * back), gex_System_QueryHostInfo for the locales sharing this host, then
 * only GASNet-1 calls: gasnet_getSegmentInfo, gasnet_AMRequestMedium with a
 * reply (gasnet_AMGetMsgSource), gasnet_put/_nbi_bulk, gasnet_get_nb_bulk
 * and split-phase barriers.  Public API only.
 */
#include <gasnetex.h>
#include <stdint.h>
#include <string.h>

#include "amtest.h"

#define H_FORK 130 /* Chapel's fixed indices start above GASNet's reserved ones */
#define H_FORK_DONE 131
#define PAYLOAD 64
#define PUT_OFF 0u    /* 8 bytes per sender node */
#define NBI_OFF 1024u /* 64 bytes per sender node */

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seginfo;
static volatile int forks_run, forks_done;
static gex_AM_Index_t h_ping; /* left to gp: index 0 in the table, written back */
static volatile int pinged;

/* Written as Chapel's are, in GASNet-1's types. */
static void fork_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t from)
{
    gasnet_node_t src;
    CHECK(gasnet_AMGetMsgSource(token, &src) == GASNET_OK && src == (gasnet_node_t)from,
          "the fork came from node %u, which says %d", src, (int)from);
    CHECK(nbytes == PAYLOAD, "fork payload of %zu bytes", nbytes);
    for (size_t i = 0; i < nbytes; i++)
        CHECK(((unsigned char *)buf)[i] == (unsigned char)(from + i), "fork payload byte %zu", i);
    __atomic_fetch_add(&forks_run, 1, __ATOMIC_SEQ_CST);
    CHECK(gasnet_AMReplyShort1(token, H_FORK_DONE, (gasnet_handlerarg_t)me) == GASNET_OK,
          "reply");
}
static void fork_done_handler(gasnet_token_t token, gasnet_handlerarg_t from)
{
    (void)token;
    CHECK((gasnet_node_t)from == (me + 1) % nodes, "the fork's reply came from node %d",
          (int)from);
    __atomic_fetch_add(&forks_done, 1, __ATOMIC_SEQ_CST);
}
static void ping_handler(gasnet_token_t token)
{
    (void)token;
    __atomic_fetch_add(&pinged, 1, __ATOMIC_SEQ_CST);
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

static void host_info(void)
{
    gex_RankInfo_t *host;
    gex_Rank_t count, mine;
    gex_System_QueryHostInfo(&host, &count, &mine);
    CHECK(count >= 1 && count <= nodes && mine < count && host[mine].gex_jobrank == me,
          "this node is entry %u of its host's %u", mine, count);
    gasnet_nodeinfo_t *info = calloc(nodes, sizeof *info);
    CHECK(info != NULL && gasnet_getNodeInfo(info, (int)nodes) == GASNET_OK, "node info");
    gex_Rank_t same_host = 0;
    for (gasnet_node_t n = 0; n < nodes; n++)
        same_host += info[n].host == info[me].host;
    CHECK(same_host == count, "%u nodes on this host by gasnet_getNodeInfo, %u by "
          "gex_System_QueryHostInfo", same_host, count);
    for (gex_Rank_t k = 0; k < count; k++)
        CHECK(info[host[k].gex_jobrank].host == info[me].host, "host entry %u", k);
    free(info);
}

static void active_messages(void)
{
    gasnet_node_t next = (me + 1) % nodes;
    unsigned char payload[PAYLOAD];
    for (size_t i = 0; i < PAYLOAD; i++)
        payload[i] = (unsigned char)(me + i);
    for (int k = 0; k < 10; k++)
        CHECK(gasnet_AMRequestMedium1(next, H_FORK, payload, PAYLOAD,
                                      (gasnet_handlerarg_t)me) == GASNET_OK, "fork");
    CHECK(gasnet_AMRequestShort0(next, h_ping) == GASNET_OK, "ping by the written-back index");
    GASNET_BLOCKUNTIL(forks_done == 10 && forks_run == 10 && pinged == 1);
}

static void puts_and_gets(void)
{
    gasnet_node_t next = (me + 1) % nodes, prev = (me + nodes - 1) % nodes;
    char *mine = seginfo[me].addr, *theirs = seginfo[next].addr;
    uint64_t stamp = 0xc4a9e100000000ull | me;
    char block[64];
    for (int i = 0; i < 64; i++)
        block[i] = (char)(me * 3 + i);
    memset(mine, 0, 4096);
    barrier();
    gasnet_put(next, theirs + PUT_OFF + 8 * me, &stamp, 8);
    gasnet_put_nbi_bulk(next, theirs + NBI_OFF + 64 * me, block, 64);
    gasnet_wait_syncnbi_puts();
    char back[64];
    gasnet_wait_syncnb(gasnet_get_nb_bulk(back, next, theirs + NBI_OFF + 64 * me, 64));
    CHECK(memcmp(back, block, 64) == 0, "the get read back the put");
    barrier();
    uint64_t got;
    memcpy(&got, mine + PUT_OFF + 8 * prev, 8);
    CHECK(got == (0xc4a9e100000000ull | prev), "node %u's put holds %#llx", prev,
          (unsigned long long)got);
    for (int i = 0; i < 64; i++)
        CHECK(mine[NBI_OFF + 64 * prev + i] == (char)(prev * 3 + i), "node %u's byte %d", prev,
              i);
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    amtest_name = "ex_chapel";
    CHECK(gex_Client_Init(&client, &ep, &tm, "chpl", &argc, &argv, GEX_FLAG_USES_GASNET1) ==
              GASNET_OK, "init");
    CHECK(gex_Client_QueryFlags(client) & GEX_FLAG_USES_GASNET1, "the flag is remembered");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    gex_AM_Entry_t ftable[3] = {
        { H_FORK, (gex_AM_Fn_t)fork_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL,
          "fork" },
        { H_FORK_DONE, (gex_AM_Fn_t)fork_done_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1,
          NULL, "fork_done" },
        { 0, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL,
          "ping" },
    };
    CHECK(gex_EP_RegisterHandlers(ep, ftable, 3) == GASNET_OK, "register");
    h_ping = ftable[2].gex_index;
    CHECK(h_ping >= 128 && h_ping != H_FORK && h_ping != H_FORK_DONE, "ping got index %u",
          h_ping);
    uintptr_t max = gasnet_getMaxLocalSegmentSize();
    CHECK(gex_Segment_Attach(&seg, tm, max) == GASNET_OK, "attach %lu bytes",
          (unsigned long)max);
    seginfo = calloc(nodes, sizeof *seginfo);
    CHECK(seginfo != NULL && gasnet_getSegmentInfo(seginfo, (int)nodes) == GASNET_OK, "seginfo");
    CHECK(seginfo[me].addr == gex_Segment_QueryAddr(seg) &&
              seginfo[me].size == gex_Segment_QuerySize(seg) && seginfo[me].size >= 4096,
          "gasnet_getSegmentInfo reports gex_Segment_Attach's segment");
    host_info();
    barrier();
    active_messages();
    puts_and_gets();
    printf("ex_chapel: rank %u of %u: EX init and registration, host info, GASNet-1 AMs, puts "
           "and gets verified\n", me, nodes);
    fflush(stdout);
    barrier();
    gasnet_exit(0);
    return 0;
}
