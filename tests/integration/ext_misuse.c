/*
 * Extended-API misuse is fatal (spec 1.9) with a message that names what
 * was wrong.  Usage: ext_misuse MODE, one misuse per run:
 *   outside_segment  a put past the end of node 1's segment
 *   get_below_segment  an 8-byte get just below node 1's segment
 *   put_before_attach  an 8-byte put between gasnet_init and gasnet_attach
 * (gasnet.h's inline puts and gets hand all three to the library, which
 * reports them as it always has.)
 *   double_notify    gasnet_barrier_notify twice
 *   wait_no_notify   gasnet_barrier_wait without a notify
 *   value_size       gasnet_put_val of 9 bytes
 */
#include <string.h>

#include "amtest.h"

static gasnet_handlerentry_t table[] = { AMTEST_HANDLERS };

int main(int argc, char **argv)
{
    amtest_name = "ext_misuse";
    const char *mode = argc > 1 ? argv[1] : "outside_segment";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    char buf[64] = { 0 };
    if (strcmp(mode, "put_before_attach") == 0 && gasnet_mynode() == 0) {
        gasnet_put(gasnet_nodes() - 1, buf + 8, buf, 8);
        printf("ext_misuse: %s was not refused\n", mode);
        gasnet_exit(0);
    }
    CHECK(gasnet_attach(table, 2, 65536, 0) == GASNET_OK, "attach");
    gasnet_seginfo_t seg[2];
    gasnet_getSegmentInfo(seg, 2);
    gasnet_node_t peer = gasnet_nodes() > 1 ? 1 : 0;
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (gasnet_mynode() == 0) {
        if (strcmp(mode, "outside_segment") == 0)
            gasnet_put(peer, (char *)seg[peer].addr + seg[peer].size - 8, buf, 16);
        else if (strcmp(mode, "get_below_segment") == 0)
            gasnet_get(buf, peer, (char *)seg[peer].addr - 8, 8);
        else if (strcmp(mode, "double_notify") == 0) {
            gasnet_barrier_notify(1, 0);
            gasnet_barrier_notify(2, 0);
        } else if (strcmp(mode, "wait_no_notify") == 0)
            gasnet_barrier_wait(1, 0);
        else if (strcmp(mode, "value_size") == 0)
            gasnet_put_val(peer, seg[peer].addr, 1, 9);
        printf("ext_misuse: %s was not refused\n", mode);
        gasnet_exit(0);
    }
    for (;;)
        gasnet_AMPoll();
}
