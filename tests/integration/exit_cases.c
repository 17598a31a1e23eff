/*
 * Ways a job can end, one per mode, for tests/integration/exit.sh.
 *
 * Usage: exit_cases MODE CODE
 *   collective      every node: barrier, then gasnet_exit(CODE)
 *   one_polling     node 1 exits; the others poll forever
 *   one_polling_none  nobody exits, everybody polls (for signals from outside)
 *   one_computing_none  nobody exits, everybody computes without polling
 *   one_barrier     node 1 exits; the others wait in a barrier it never joins
 *   one_computing   node 1 exits; the others compute without polling
 *   request_handler node 1 exits inside a request handler; the others poll
 *   reply_handler   node 0 exits inside a reply handler; the others poll
 *   return_all      every node returns CODE from main
 *   return_one      node 1 returns CODE from main; the others wait in a barrier
 *   segv, abort, kill  node 1 dies by that signal; the others wait in a barrier
 *   stopped         node 1 stops itself (SIGSTOP); node 0 exits
 *   init_exit       node 1 exits between init and attach; the others attach
 *   bad_segsize     node 1 asks for a segment that is not a page multiple
 *   race            nodes 0 and 1 exit at once with CODE and CODE+1
 *   client_sigquit  node 0 has a SIGQUIT handler of its own; node 1 exits:
 *                   the remote exit request runs node 0's handler first
 *   return_computing  node 1 returns CODE from main; the others compute
 *                   without polling, so the exit cannot be coordinated
 *   late_computing  node 0 exits after 1 s; the others compute without
 *                   ever entering the library again
 *   late_barrier    node 0 exits after 1 s; the others wait in a barrier
 * EXIT_CASES_NODE=N in the environment gives node 1's part to node N.
 * The late_ modes print "node 0 calls gasnet_exit at MS" (CLOCK_REALTIME,
 * milliseconds) just before the exit, for a test that times the job's end.
 */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "amtest.h"

#define H_EXIT_REQUEST 200
#define H_EXIT_REPLY 201
#define H_ASK 202

static int code;

static void exit_in_request(gasnet_token_t token)
{
    (void)token;
    gasnet_exit(code);
}

static void exit_in_reply(gasnet_token_t token)
{
    (void)token;
    gasnet_exit(code);
}

static void ask(gasnet_token_t token)
{
    gasnet_AMReplyShort0(token, H_EXIT_REPLY);
}

static gasnet_handlerentry_t table[] = {
    { H_EXIT_REQUEST, exit_in_request }, { H_EXIT_REPLY, exit_in_reply }, { H_ASK, ask },
};

static void poll_forever(void)
{
    for (;;)
        gasnet_AMPoll();
}

static void compute_forever(void)
{
    volatile unsigned long spin = 0;
    for (;;)
        spin++;
}

static void barrier_forever(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    fprintf(stderr, "exit_cases: a barrier completed without every node\n");
    gasnet_exit(99);
}

static volatile sig_atomic_t client_sigquit_seen;

static void on_client_sigquit(int sig)
{
    (void)sig;
    static const char line[] = "exit_cases: the client's SIGQUIT handler ran\n";
    if (write(STDOUT_FILENO, line, sizeof line - 1) < 0)
        client_sigquit_seen = 2;
    client_sigquit_seen = 1;
}

static void barrier(void)
{
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* Node 0, a second after the others went their way: the exit, timed. */
static void exit_late(void)
{
    struct timespec pause_1s = { 1, 0 }, now;
    while (nanosleep(&pause_1s, &pause_1s) != 0)
        ;
    clock_gettime(CLOCK_REALTIME, &now);
    printf("exit_cases: node 0 calls gasnet_exit at %lld\n",
           (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    fflush(stdout);
    gasnet_exit(code);
}

int main(int argc, char **argv)
{
    amtest_name = "exit_cases";
    const char *mode = argc > 1 ? argv[1] : "collective";
    code = argc > 2 ? atoi(argv[2]) : 3;
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    gasnet_node_t me = gasnet_mynode();
    if (strcmp(mode, "init_exit") == 0 && me == 1)
        gasnet_exit(code);
    uintptr_t segsize = (strcmp(mode, "bad_segsize") == 0 && me == 1) ? 1000 : 65536;
    int rc = gasnet_attach(table, 3, segsize, 0);
    if (rc != GASNET_OK)
        gasnet_exit(code); /* what a client does when attach fails */
    barrier();
    /* EXIT_CASES_NODE: another node than 1 takes node 1's part (segv with node 0 dying). */
    const char *chosen_env = getenv("EXIT_CASES_NODE");
    gasnet_node_t chosen_node = chosen_env != NULL ? (gasnet_node_t)atoi(chosen_env) : 1;
    int chosen = me == chosen_node || gasnet_nodes() == 1;
    if (strcmp(mode, "collective") == 0 || strcmp(mode, "init_exit") == 0 ||
        strcmp(mode, "bad_segsize") == 0) {
        barrier();
        gasnet_exit(code);
    } else if (strncmp(mode, "one_", 4) == 0) {
        int none = strstr(mode, "_none") != NULL; /* nobody exits: a signal must end it */
        if (chosen && !none)
            gasnet_exit(code);
        if (strcmp(mode, "one_polling") == 0)
            poll_forever();
        if (none) {
            /* The test signals only once every node says so: a signal that
             * came before the handlers are in would test nothing. */
            int polls = strcmp(mode, "one_polling_none") == 0;
            printf("exit_cases: node %u %s\n", (unsigned)me, polls ? "polling" : "computing");
            fflush(stdout);
            if (polls)
                poll_forever();
        }
        if (strcmp(mode, "one_barrier") == 0)
            barrier_forever();
        compute_forever();
    } else if (strcmp(mode, "request_handler") == 0) {
        if (me == 0)
            gasnet_AMRequestShort0(gasnet_nodes() - 1, H_EXIT_REQUEST);
        poll_forever();
    } else if (strcmp(mode, "reply_handler") == 0) {
        if (me == 0)
            gasnet_AMRequestShort0(gasnet_nodes() - 1, H_ASK);
        poll_forever();
    } else if (strcmp(mode, "client_sigquit") == 0) {
        if (me == 0)
            signal(SIGQUIT, on_client_sigquit);
        barrier();
        if (chosen)
            gasnet_exit(code);
        poll_forever();
    } else if (strcmp(mode, "return_computing") == 0) {
        if (chosen)
            return code;
        compute_forever();
    } else if (strcmp(mode, "late_computing") == 0 || strcmp(mode, "late_barrier") == 0) {
        if (me == 0)
            exit_late();
        if (mode[5] == 'b')
            barrier_forever();
        compute_forever();
    } else if (strcmp(mode, "return_all") == 0) {
        barrier();
        return code;
    } else if (strcmp(mode, "return_one") == 0) {
        if (chosen)
            return code;
        barrier_forever();
    } else if (strcmp(mode, "segv") == 0 || strcmp(mode, "abort") == 0 ||
               strcmp(mode, "kill") == 0) {
        if (chosen)
            raise(mode[0] == 's' ? SIGSEGV : mode[0] == 'a' ? SIGABRT : SIGKILL);
        barrier_forever();
    } else if (strcmp(mode, "stopped") == 0) {
        if (chosen && gasnet_nodes() > 1)
            raise(SIGSTOP);
        sleep(1);
        gasnet_exit(code);
    } else if (strcmp(mode, "race") == 0) {
        barrier();
        if (me <= 1)
            gasnet_exit(code + (int)me);
        poll_forever();
    }
    fprintf(stderr, "exit_cases: unknown mode %s\n", mode);
    return 2;
}
