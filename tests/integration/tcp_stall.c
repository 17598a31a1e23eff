/*
 * One stalled peer does not stop a process's traffic to the others (PAR
 * builds, GP_TRANSPORT=tcp, 3 nodes; tcp.h's per-connection locking).
 *
 * Node 1 stops calling GASNet, so its sockets are not read, until the file
 * named on the command line exists.  Node 0 runs two threads: the first
 * issues STALL_PUTS implicit-handle puts of CHUNK bytes to node 1, far more than
 * the kernel's socket buffers hold (net.ipv4.tcp_wmem + tcp_rmem, a few
 * tens of MiB at most), so it is soon stuck inside a put waiting for room
 * on that connection; the second meanwhile completes ROUNDS blocking puts
 * and gets to node 2, each checked.  Only then does node 0 create the file.
 * No timing: if the stuck thread's connection blocked the other's, the
 * file would never appear and the job would hang (the script's timeout
 * fails it); and the line printed says how many of the big puts had
 * been issued when the other thread was done, which must be fewer than all.
 *
 * Usage: tcp_stall GO_FILE
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amtest.h"

#define CHUNK (1u << 20)
#define STALL_PUTS 128 /* 128 MiB: beyond any socket buffering on the way */
#define ROUNDS 2000
#define SEGMENT (2u << 20)

static gasnet_seginfo_t seg[3];
static int stall_done; /* big puts to node 1 issued (__atomic) */

static void *stall_thread(void *arg)
{
    char *chunk = arg;
    /* Non-blocking: each put returns once its data is with the kernel, so
     * the thread gets stuck inside one, waiting for room on the connection. */
    for (int i = 0; i < STALL_PUTS; i++) {
        gasnet_put_nbi_bulk(1, seg[1].addr, chunk, CHUNK);
        __atomic_add_fetch(&stall_done, 1, __ATOMIC_RELAXED);
    }
    gasnet_wait_syncnbi_puts();
    return NULL;
}

static void *busy_thread(void *arg)
{
    (void)arg;
    for (uint64_t round = 0; round < ROUNDS; round++) {
        uint64_t value = round * 0x9e3779b97f4a7c15ull + 1, back = 0;
        char *where = (char *)seg[2].addr + (round % 64) * sizeof value;
        gasnet_put(2, where, &value, sizeof value);
        gasnet_get(&back, 2, where, sizeof back);
        CHECK(back == value, "round %llu: node 2 gave back 0x%llx for 0x%llx",
              (unsigned long long)round, (unsigned long long)back, (unsigned long long)value);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    amtest_name = "tcp_stall";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 2, "usage: tcp_stall GO_FILE");
    CHECK(gasnet_nodes() == 3, "run on 3 nodes, not %u", gasnet_nodes());
    CHECK(gasnet_attach(NULL, 0, SEGMENT, 0) == GASNET_OK, "attach");
    CHECK(gasnet_getSegmentInfo(seg, 3) == GASNET_OK, "segment info");
    gasnet_node_t me = gasnet_mynode();
    /* Connections up first (made on first use): the stall is on an open one. */
    uint64_t hello = me;
    for (gasnet_node_t node = 0; node < 3; node++)
        gasnet_put(node, (char *)seg[node].addr + SEGMENT - 8 * (me + 1), &hello, sizeof hello);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");

    if (me == 0) {
        char *chunk = malloc(CHUNK);
        CHECK(chunk != NULL, "no memory for %u bytes", CHUNK);
        memset(chunk, 0x5a, CHUNK);
        pthread_t stall, busy;
        CHECK(pthread_create(&stall, NULL, stall_thread, chunk) == 0, "thread");
        CHECK(pthread_create(&busy, NULL, busy_thread, NULL) == 0, "thread");
        pthread_join(busy, NULL);
        int done = __atomic_load_n(&stall_done, __ATOMIC_RELAXED);
        CHECK(done < STALL_PUTS, "all %d puts to the stalled node completed: it was not stalled",
              done);
        printf("tcp_stall: %d round trips to node 2 while a thread was stuck sending to "
               "node 1 (%d of %d MiB sent)\n", ROUNDS, done, STALL_PUTS);
        fflush(stdout);
        FILE *go = fopen(argv[1], "w");
        CHECK(go != NULL && fclose(go) == 0, "cannot create %s", argv[1]);
        pthread_join(stall, NULL);
        free(chunk);
    } else if (me == 1) {
        while (access(argv[1], F_OK) != 0)
            usleep(10000); /* no GASNet call: nothing reads this node's sockets */
        /* The last chunk is in place once node 0's puts are over (the barrier). */
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
    if (me == 1)
        CHECK(((unsigned char *)seg[1].addr)[CHUNK - 1] == 0x5a, "the stalled puts' data is wrong");
    gasnet_exit(0);
    return 0;
}
