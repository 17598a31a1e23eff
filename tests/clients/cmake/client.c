/*
 * Built by tests/clients/cmake/CMakeLists.txt with nothing but a gp::
 * target: the target must bring the include directories, the thread-mode
 * define matching the library (the config strings of header and library
 * agree), and every library to link.  A whole job: init, attach, a put to
 * the next node, a barrier.  Prints "cmake_client: node I of N ok (MODE)".
 */
#include <gasnet.h>

int main(int argc, char **argv)
{
    if (strcmp(GASNET_CONFIG_STRING, _gasnet_config_string) != 0) {
        printf("cmake_client: header %s\n    library %s\n", GASNET_CONFIG_STRING,
               _gasnet_config_string);
        return 2;
    }
    if (gasnet_init(&argc, &argv) != GASNET_OK ||
        gasnet_attach(NULL, 0, GASNET_PAGESIZE * 16, 0) != GASNET_OK)
        return 3;
    gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes(), next = (me + 1) % nodes;
    gasnet_seginfo_t *seg = calloc(nodes, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)nodes);
    int value = (int)me + 1000;
    gasnet_put(next, seg[next].addr, &value, sizeof value);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (*(int *)seg[me].addr != (int)((me + nodes - 1) % nodes) + 1000)
        gasnet_exit(4);
    printf("cmake_client: node %u of %u ok (%s)\n", me, nodes, _GASNET_THREADMODEL_STR);
    fflush(stdout);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
    return 0;
}
