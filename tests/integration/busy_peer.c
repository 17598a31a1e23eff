/*
 * A peer that is busy, and a peer that is gone (doc/wire-tcp.md).
 * Public API only; two nodes (more simply join the barriers).
 *
 *   busy_peer busy SECONDS
 *       Node 1 stays out of the library for SECONDS (it sleeps: to the
 *       library that is the same as computing, and it leaves the test
 *       machine's cores to others) while node 0 makes one blocking 8-byte
 *       gasnet_put to it, its first message to that node.  Then both enter
 *       a barrier and node 1 checks the value: "busy_peer: node 1 was busy
 *       for SECONDS s; node 0's put landed".  A busy peer must never be
 *       fatal, however long it computes.
 *
 *   busy_peer busy SECONDS idle
 *       The same, and node 0 too stays out of the library once its put has
 *       returned, until 2 s before node 1 comes back: where a put does not
 *       need the peer's process (RDMA), a waiter that spins for the rest
 *       would take a CPU from everything beside it (the ibv suite's VM has
 *       few, emulated).
 *
 *   busy_peer gone DIR [open]
 *       Node 1 writes its pid to DIR/node1.pid and ends (_exit(0)) without
 *       the job's exit: a process that vanished mid-job.  Node 0 waits until
 *       that process is no more, then makes a blocking put to it, which must
 *       end the job with a fatal error naming node 1, its address and the
 *       cause.  Without "open" node 1 never talked to node 0 before, so the
 *       put dials a listener that is closed; with "open" the two exchanged a
 *       put and a barrier first, so the put meets a connection the peer's
 *       end closed.  If the put returns, node 0 says so ("busy_peer: the
 *       put to node 1, which has ended, reported completion") and ends with
 *       status 0, which the script counts as the fault.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "amtest.h"

#define PUT_VALUE UINT64_C(0x6275737970656572) /* "busypeer" */
#define GONE_WAIT_SECONDS 30

static void sleep_seconds(double seconds)
{
    struct timespec ts = { .tv_sec = (time_t)seconds,
                           .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_busy(double seconds, int idle, uint64_t *node1_word)
{
    gasnet_node_t me = gasnet_mynode();
    uint64_t value = PUT_VALUE;
    double started = now_seconds();
    if (me == 1) {
        sleep_seconds(seconds); /* no library call meanwhile: node 0's dial and put wait */
    } else if (me == 0) {
        gasnet_put(1, node1_word, &value, sizeof value);
        double left = started + seconds - 2 - now_seconds();
        if (idle && left > 0)
            sleep_seconds(left);
    }
    barrier();
    if (me == 1) {
        uint64_t *mine = node1_word; /* node 1's own segment */
        CHECK(*mine == PUT_VALUE, "node 1 holds %#llx, not node 0's %#llx",
              (unsigned long long)*mine, (unsigned long long)PUT_VALUE);
        printf("busy_peer: node 1 was busy for %g s; node 0's put landed\n", seconds);
        fflush(stdout);
    }
    barrier();
}

/* The pid node 1 left in path, once the file is whole; 0 if it never came. */
static pid_t read_pid(const char *path)
{
    for (int tries = 0; tries < GONE_WAIT_SECONDS * 100; tries++) {
        FILE *f = fopen(path, "r");
        long pid = 0;
        char end = 0;
        if (f != NULL) {
            int got = fscanf(f, "%ld%c", &pid, &end);
            fclose(f);
            if (got == 2 && end == '\n' && pid > 0)
                return (pid_t)pid;
        }
        sleep_seconds(0.01);
    }
    return 0;
}

/* Waits until pid is reaped (gp-run reaps its ranks at once); 0 once it is. */
static int wait_gone(pid_t pid)
{
    for (int tries = 0; tries < GONE_WAIT_SECONDS * 100; tries++) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return 0;
        sleep_seconds(0.01);
    }
    return -1;
}

static void run_gone(const char *dir, int open_first, uint64_t *node1_word)
{
    gasnet_node_t me = gasnet_mynode();
    char path[4096];
    snprintf(path, sizeof path, "%s/node1.pid", dir);
    uint64_t value = PUT_VALUE;
    if (open_first) {
        if (me == 0)
            gasnet_put(1, node1_word, &value, sizeof value);
        barrier();
    }
    if (me == 1) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot write %s", path);
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
        _exit(0); /* vanishes: no gasnet_exit, no coordination */
    }
    if (me != 0)
        return; /* the others wait in the job's end */
    pid_t pid = read_pid(path);
    CHECK(pid > 0, "node 1 left no pid in %s within %d s", path, GONE_WAIT_SECONDS);
    CHECK(wait_gone(pid) == 0, "node 1 (pid %ld) still runs after %d s", (long)pid,
          GONE_WAIT_SECONDS);
    gasnet_put(1, node1_word, &value, sizeof value);
    printf("busy_peer: the put to node 1, which has ended, reported completion\n");
    fflush(stdout);
    _exit(0);
}

int main(int argc, char **argv)
{
    amtest_name = "busy_peer";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    int busy = (argc == 3 || (argc == 4 && strcmp(argv[3], "idle") == 0)) &&
               strcmp(argv[1], "busy") == 0;
    int gone = (argc == 3 || argc == 4) && strcmp(argv[1], "gone") == 0 &&
               (argc == 3 || strcmp(argv[3], "open") == 0);
    char *end = NULL;
    double seconds = busy ? strtod(argv[2], &end) : 0;
    CHECK((busy && end != argv[2] && *end == '\0' && seconds >= 0) || gone,
          "usage: busy_peer busy SECONDS [idle] | busy_peer gone DIR [open]");
    CHECK(gasnet_attach(NULL, 0, 1 << 16, 0) == GASNET_OK, "attach");
    CHECK(gasnet_nodes() >= 2, "needs at least 2 nodes, has %u", gasnet_nodes());
    gasnet_seginfo_t *seg = calloc(gasnet_nodes(), sizeof *seg);
    CHECK(seg != NULL, "no memory");
    CHECK(gasnet_getSegmentInfo(seg, (int)gasnet_nodes()) == GASNET_OK, "segment info");
    uint64_t *node1_word = seg[1].addr;
    if (busy)
        run_busy(seconds, argc == 4, node1_word);
    else
        run_gone(argv[2], argc == 4, node1_word);
    free(seg);
    gasnet_exit(0);
    return 0;
}
