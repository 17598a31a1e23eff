/*
 * How gp-run ends a job: one rank does something drastic, the others
 * carry on in a chosen way, and the script checks gp-run's exit status,
 * messages and leftovers.
 *
 *   boot_exitcode [--shm] ACTION RANK VALUE OTHERS
 *     ACTION  exit    rank RANK exits with code VALUE
 *             signal  rank RANK raises signal VALUE
 *             abort   rank RANK calls gp_boot_abort(VALUE, ...)
 *             fatal   rank RANK calls gp_fatal (the default hook aborts)
 *             mismatch rank RANK calls allgather where the others call
 *                     barrier (OTHERS), which gp-run must refuse
 *             stall   ranks RANK and VALUE stay alive but never join the
 *                     others' next collective (GP_BOOT_TIMEOUT must end it)
 *             catch   every rank waits for signal number RANK, reports how
 *                     many times it came, and exits with VALUE (99 if it
 *                     came more than once: gp-run must pass it on once)
 *             wait    every rank waits for ever
 *     OTHERS  what the other ranks do: exit0 | sleep | barrier
 *   --shm     every rank first creates /dev/shm/gp-JOBID-test-RANK, as the
 *             library would, for gp-run to clean up
 *
 * Each rank prints "pid RANK PID" and rank 0 prints "jobid JOBID" and,
 * once all ranks are up, "ready LAUNCHER-PID", for the script.
 */
#include "boot/boot.h"
#include "gasnet.h"
#include "util/log.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t signal_count;

static void count_signal(int sig)
{
    (void)sig;
    signal_count++;
}

static void make_shm_object(int rank)
{
    char name[64];
    snprintf(name, sizeof name, "/gp-%s-test-%d", gp_boot_jobid(), rank);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0) {
        perror("boot_exitcode: shm_open");
        exit(1);
    }
    close(fd);
}

static _Noreturn void sleep_forever(void)
{
    for (;;)
        pause();
}

/* Waits for sig, then a little longer to see whether it comes twice. */
static _Noreturn void catch_and_report(int sig, int code, int rank)
{
    struct sigaction action = { .sa_handler = count_signal };
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, NULL);
    printf("armed %d\n", rank);
    fflush(stdout);
    gp_boot_barrier();
    if (rank == 0) {
        printf("ready %d\n", (int)getppid());
        fflush(stdout);
    }
    while (signal_count == 0)
        pause();
    struct timespec settle = { 0, 500 * 1000 * 1000 };
    while (nanosleep(&settle, &settle) != 0)
        ;
    printf("rank %d got signal %d %d time(s)\n", rank, sig, (int)signal_count);
    fflush(stdout);
    _exit(signal_count == 1 ? code : 99);
}

static _Noreturn void act(const char *action, int value)
{
    if (strcmp(action, "exit") == 0) {
        gp_boot_fini(value);
        exit(value);
    }
    if (strcmp(action, "signal") == 0) {
        signal(value, SIG_DFL);
        raise(value);
        _exit(120);
    }
    if (strcmp(action, "abort") == 0)
        gp_boot_abort(value, "boot_exitcode was told to abort");
    if (strcmp(action, "mismatch") == 0) {
        uint64_t mine = 1, all[64];
        gp_boot_allgather(&mine, all, sizeof mine);
        fprintf(stderr, "boot_exitcode: rank %d: a mismatched allgather completed\n",
                gp_boot_rank());
        exit(1);
    }
    gp_fatal("boot_exitcode was told to fail (hint: this is a test)");
}

static _Noreturn void carry_on(const char *others)
{
    if (strcmp(others, "exit0") == 0) {
        gp_boot_fini(0);
        exit(0);
    }
    if (strcmp(others, "barrier") == 0) {
        gp_boot_barrier();
        fprintf(stderr, "boot_exitcode: rank %d: a barrier completed without every rank\n",
                gp_boot_rank());
        exit(1);
    }
    sleep_forever();
}

int main(int argc, char **argv)
{
    int shm = argc > 1 && strcmp(argv[1], "--shm") == 0;
    if (argc - shm != 5) {
        fprintf(stderr, "usage: boot_exitcode [--shm] ACTION RANK VALUE OTHERS\n");
        return 2;
    }
    const char *action = argv[1 + shm], *others = argv[4 + shm];
    int target = atoi(argv[2 + shm]), value = atoi(argv[3 + shm]);
    if (gp_boot_init() != GASNET_OK)
        return 1;
    int rank = gp_boot_rank();
    if (shm)
        make_shm_object(rank);
    printf("pid %d %d\n", rank, (int)getpid());
    if (rank == 0)
        printf("jobid %s\n", gp_boot_jobid());
    fflush(stdout);
    if (strcmp(action, "catch") == 0)
        catch_and_report(target, value, rank);
    gp_boot_barrier();
    if (rank == 0) {
        printf("ready %d\n", (int)getppid());
        fflush(stdout);
    }
    if (strcmp(action, "wait") == 0)
        sleep_forever();
    if (strcmp(action, "stall") == 0 && (rank == target || rank == value))
        sleep_forever();
    if (rank == target)
        act(action, value);
    carry_on(others);
}
