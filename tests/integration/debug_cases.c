/*
 * A program for tests/integration/debug.sh: GASNET_FREEZE,
 * GASNET_FREEZE_ON_ERROR and GASNET_BACKTRACE seen from outside.
 *
 * Usage: debug_cases MODE
 *   run    init, attach, barrier, print "debug_cases: went on", exit 0
 *          (under GASNET_FREEZE it stops in gasnet_init first)
 *   fatal  after attach, a put outside the peer's segment: a fatal error
 *   segv   after attach, SIGSEGV: a fatal signal
 *   stall  the last node stays alive between gasnet_init and gasnet_attach
 *          for ever, so the others wait in attach's first bootstrap round
 *          (gp-run's GP_BOOT_TIMEOUT must end the job)
 *   thread_fatal  (PAR builds) the last node's second thread reports a fatal
 *          error while every main thread waits in a barrier: the job must
 *          end with status 1, as from the main thread
 * Public API only.
 */
#include <gasnet_tools.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "amtest.h"

static void *fail_on_a_thread(void *arg)
{
    (void)arg;
    gasnett_fatalerror("debug_cases: a fatal error on a second thread");
    return NULL;
}

static gasnet_handlerentry_t table[] = { AMTEST_HANDLERS };

int main(int argc, char **argv)
{
    amtest_name = "debug_cases";
    const char *mode = argc > 1 ? argv[1] : "run";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    if (strcmp(mode, "stall") == 0 && gasnet_mynode() == gasnet_nodes() - 1) {
        signal(SIGTERM, SIG_DFL); /* stuck outside GASNet: gp-run's SIGTERM ends it */
        for (;;)
            pause();
    }
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 65536, 0) == GASNET_OK,
          "attach");
    gasnet_seginfo_t seg;
    CHECK(gasnet_getSegmentInfo(&seg, 1) == GASNET_OK, "segment info");
    if (strcmp(mode, "fatal") == 0) {
        long value = 1;
        gasnet_put(0, (char *)seg.addr + seg.size + 4096, &value, sizeof value);
        fprintf(stderr, "debug_cases: a put outside the segment went through\n");
        gasnet_exit(99);
    }
    if (strcmp(mode, "segv") == 0) {
        raise(SIGSEGV);
        fprintf(stderr, "debug_cases: SIGSEGV did not end the process\n");
        gasnet_exit(99);
    }
    if (strcmp(mode, "thread_fatal") == 0 && gasnet_mynode() == gasnet_nodes() - 1) {
        pthread_t thread;
        CHECK(pthread_create(&thread, NULL, fail_on_a_thread, NULL) == 0, "pthread_create");
        for (;;) /* the main thread polls on until the exit the other one starts ends it */
            gasnet_AMPoll();
    }
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS); /* thread_fatal: never complete */
    printf("debug_cases: went on\n");
    fflush(stdout);
    gasnet_exit(0);
}
