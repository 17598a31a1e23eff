/*
 * GASNET_RCV_THREAD=1 over tcp: a node that never calls into the library
 * still serves its peers.  Node 1 spins on a word of its own segment
 * without any GASNet call; node 0 reads it with a get, writes it with a
 * blocking put (both need node 1's side of the transport to answer) and
 * reads it back.  Without a receive thread node 1 would spin until the
 * test's time limit.  Then node 1 polls again and runs the handler of an
 * AM request node 0 sent while it computed (the thread took it in).
 *
 * Usage: rcv_thread     (2 nodes, GP_TRANSPORT=tcp GASNET_RCV_THREAD=1, PAR build)
 */
#include <stdint.h>
#include <time.h>

#include "amtest.h"

#define H_POKE 200
#define H_POKED 201
#define SPIN_LIMIT_S 60
#define BARRIER()                                                   \
    do {                                                            \
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);     \
        gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);       \
    } while (0)

static volatile int poked;

static void poke_request(gasnet_token_t token, gasnet_handlerarg_t value)
{
    CHECK(gasnet_AMReplyShort1(token, H_POKED, value + 1) == GASNET_OK, "reply");
}

static void poked_reply(gasnet_token_t token, gasnet_handlerarg_t value)
{
    (void)token;
    poked = value;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    amtest_name = "rcv_thread";
    gasnet_handlerentry_t handlers[] = {
        { H_POKE, poke_request },
        { H_POKED, poked_reply },
    };
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(handlers, 2, 1 << 16, 0) == GASNET_OK, "attach");
    CHECK(gasnet_nodes() == 2, "needs 2 nodes");
    gasnet_seginfo_t seg[2];
    CHECK(gasnet_getSegmentInfo(seg, 2) == GASNET_OK, "segment info");
    volatile uint64_t *flag = (volatile uint64_t *)seg[1].addr;
    BARRIER();
    if (gasnet_mynode() == 1) {
        /* No GASNet call until the flag changes. */
        double deadline = now_s() + SPIN_LIMIT_S;
        while (*flag == 0 && now_s() < deadline)
            ;
        CHECK(*flag == 42, "node 1: the put never arrived while it computed (flag %llu)",
              (unsigned long long)*flag);
    } else {
        uint64_t value = 42, back = 0;
        gasnet_get(&back, 1, seg[1].addr, sizeof back);
        CHECK(back == 0, "get before the put read %llu", (unsigned long long)back);
        gasnet_put(1, seg[1].addr, &value, sizeof value);
        gasnet_get(&back, 1, seg[1].addr, sizeof back);
        CHECK(back == 42, "get after the put read %llu", (unsigned long long)back);
        gasnet_AMRequestShort1(1, H_POKE, 6);
        GASNET_BLOCKUNTIL(poked == 7);
        printf("rcv_thread: node 1 served a get and a put while it computed\n");
        fflush(stdout);
    }
    BARRIER();
    gasnet_exit(0);
    return 0;
}
