/*
 * A whole job's life from nothing but the installed gasnet.h and pkg-config
 * flags: linked statically against libgp, it shows whether the static
 * flags name everything gasnet_init and gasnet_attach pull in.
 */
#include <gasnet.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK)
        return 2;
    if (gasnet_attach(NULL, 0, GASNET_PAGESIZE * 16, 0) != GASNET_OK)
        return 3;
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
    /* Every node writes its number into the next node's segment. */
    gasnet_seginfo_t seg[256];
    if (nodes > 256 || gasnet_getSegmentInfo(seg, (int)nodes) != GASNET_OK)
        return 4;
    gasnet_node_t next = (gasnet_node_t)((me + 1) % nodes);
    int value = (int)me + 1000;
    gasnet_put(next, seg[next].addr, &value, sizeof value);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    int got = *(int *)seg[me].addr;
    int want = (int)((me + nodes - 1) % nodes) + 1000;
    if (got != want) {
        fprintf(stderr, "client_job: node %u holds %d, expected %d\n", (unsigned)me, got, want);
        gasnet_exit(5);
    }
    printf("client_job: node %u of %u ok\n", (unsigned)me, (unsigned)nodes);
    fflush(stdout);
    /* gasnet_exit on one node ends the others: first every node has said so. */
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
    return 0;
}
