/*
 * The graceful exit of seed 003 ("Graceful exits"), over the SYS queue of
 * seed 000 ("Notes on the Job Shutdown Process").
 *
 * An exit starts in one of three ways: gasnet_exit (the client, or a fatal
 * error), a remote exit request, or the atexit hook (return from main).
 * exit_head records the first exit code; exit_body coordinates; exit_tail
 * ends the process.  Coordination: the node asks node 0 whether it is the
 * master (the first candidate is; an election that times out makes the
 * asker master, so a wedged node 0 can't stall the exit); the master sends
 * every peer an exit request and waits for their acks; a slave waits for
 * the request.  That is O(N) messages.  Everything waits at most
 * GASNET_EXITTIMEOUT, and no longer once a node it waits for has ended
 * (a crash: the bootstrap can tell where it sees that node's process); if
 * coordination failed, the bootstrap aborts the job (gp-run kills what is
 * left) instead of finishing it.
 *
 * Signals: exit work is not done in a signal handler when it can be
 * avoided (the seed's advice): SIGQUIT and the termination signals set a
 * shutdown flag that the poll loop checks, unless the client installed its
 * own SIGQUIT handler, which a termination signal or a remote exit request
 * then raises (spec 1.10).  Fatal signals print the fatal line and die.
 *
 * A process outside the library never polls, so the flag alone would leave
 * it running until the launcher's SIGKILL, one more exit timeout after an
 * exit that could not be coordinated.  The stop signal therefore
 * also arms a short timer (STOP_GRACE_NS): a process inside the library
 * starts its exit at the next poll, microseconds later, and the exit's body
 * disarms the timer; one that has not started it when the timer fires is
 * outside the library (computing, sleeping, blocked in a call of its own),
 * and ends there with the signal's code, having removed its statistics
 * page.  The timer costs nothing on any fast path.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "conduit/am/am.h"
#include "conduit/exit/bus_fault.h"
#include "conduit/credits/credits.h"
#include "conduit/exit/exit.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "conduit/core/stats.h"
#include "conduit/credits/sys.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/log.h"

enum exit_role { ROLE_UNKNOWN = 0, ROLE_MASTER, ROLE_SLAVE };

/* Set by the termination signals' handler, read by the poll loop. */
volatile sig_atomic_t gpc_shutdown_signal;

/* How long a process told to stop has to start its exit at a poll before it
 * is taken to be outside the library and ends at once.  A polling process
 * needs microseconds; 0.2 s leaves room for a loaded host to schedule it,
 * and keeps the job's end within half a second of the stop (gp-run(1)). */
#define STOP_GRACE_NS 200000000L

static timer_t stop_timer;            /* fires SIGALRM; made once, armed by a stop */
static int stop_timer_made;
static int stop_code;                 /* the code a stop outside the library ends with; 0: none */
static volatile sig_atomic_t stop_signal;

static int exit_started;              /* head: the first exit wins */
static volatile int exit_code;
static volatile int exit_role;
static volatile int exit_request_seen;
static volatile int exit_acks;
static int election_winner = -1;      /* node 0: the master, once chosen */
static int body_entered;
/* The status exit() was called with, in the atexit path: the peers are told
 * 0 (seed 003), but an exit that cannot be coordinated aborts the job with
 * the process's real status, which the launcher would otherwise not see. */
static int abort_code_override = -1;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double exit_timeout(void)
{
    if (gp_cfg.exittimeout > 0)
        return gp_cfg.exittimeout;
    double derived = gp_cfg.exittimeout_min + gp_cfg.exittimeout_factor * gpc.nodes;
    return derived < gp_cfg.exittimeout_max ? derived : gp_cfg.exittimeout_max;
}

/* Records the first exit's code; 1 if this call is the first. */
static int exit_head(int code)
{
    /* From here a peer that leaves has left in this exit: its transport keeps quiet. */
    ptl_job_exit_known();
    int expected = 0;
    if (!__atomic_compare_exchange_n(&exit_started, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return 0;
    exit_code = code;
    return 1;
}

static void stop_timer_set(long ns)
{
    struct itimerspec when = { .it_value = { 0, ns } };
    if (stop_timer_made)
        timer_settime(stop_timer, 0, &when, NULL); /* async-signal-safe */
}

/* "SIGTERM", for the line of a process that ends outside the library. */
static const char *stop_signal_name(int sig)
{
    switch (sig) {
    case SIGQUIT: return "SIGQUIT";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

/* The stop timer fired before any exit started: the process was told to
 * stop while outside the library.  Async-signal-safe. */
_Noreturn static void end_outside_library(void)
{
    int code = __atomic_load_n(&stop_code, __ATOMIC_SEQ_CST);
    if (gp_log_threshold >= GP_LOG_INFO) {
        char line[200];
        size_t len = gp_sigsafe_append(line, 0, sizeof line, "gp[");
        len = gp_sigsafe_append_uint(line, len, sizeof line, gpc.rank);
        len = gp_sigsafe_append(line, len, sizeof line, "/");
        len = gp_sigsafe_append_uint(line, len, sizeof line, gpc.nodes);
        len = gp_sigsafe_append(line, len, sizeof line, "] info exit: told to stop (");
        len = gp_sigsafe_append(line, len, sizeof line, stop_signal_name(stop_signal));
        len = gp_sigsafe_append(line, len, sizeof line,
                                ") outside the library: ending now with exit code ");
        len = gp_sigsafe_append_uint(line, len, sizeof line, (unsigned long)code);
        len = gp_sigsafe_append(line, len, sizeof line, "\n");
        gp_sigsafe_write(STDERR_FILENO, line, len);
    }
    gpc_stats_remove_sigsafe();
    _exit(code);
}

/* SIGALRM: the exit's own alarm (its work wedged: the code is still
 * right), or the stop timer of a process outside the library. */
static void on_alarm(int sig)
{
    (void)sig;
    if (!__atomic_load_n(&body_entered, __ATOMIC_SEQ_CST) &&
        __atomic_load_n(&stop_code, __ATOMIC_SEQ_CST) != 0)
        end_outside_library();
    _exit(exit_code);
}

/*
 * A peer that has ended cannot take part in the exit: a crashed rank's
 * peers, stopped by the launcher, would otherwise wait out the whole exit
 * timeout for its answer.  The bootstrap can tell for a peer whose process
 * this one can see (same kernel and pid namespace: shm jobs, pretended
 * hosts); elsewhere a peer that never answers still costs the timeout.
 * Looked at every GONE_CHECK_S of a wait: a system call per peer looked
 * for, and only waits that already last come to it.
 */
#define GONE_CHECK_S 0.01
/* A slave's master, once known (-1: not known); written by the SYS handler, which may run on a
 * receive thread, and read by the exit's wait.  Relaxed atomics suffice: a wait that reads a
 * stale -1 only does not look for the master's end, and waits out its timeout as before. */
static int exit_master = -1;
static unsigned char *exit_acked;     /* the master's: acked[node]; NULL: acks only counted */
static int node_gone = -1;            /* the peer found gone, for the exit's line */

/* Who the wait is for: the master's answer (node 0 for the election, then the master), or
 * every peer's ack. */
enum waiting_for { FOR_ONE_NODE, FOR_ACKS };

static int waited_peer_gone(enum waiting_for what, int node)
{
    if (what == FOR_ONE_NODE) {
        if (node >= 0 && gp_boot_rank_ended(node)) {
            node_gone = node;
            return 1;
        }
        return 0;
    }
    for (gasnet_node_t peer = 0; exit_acked != NULL && peer < gpc.nodes; peer++) {
        if (peer != gpc.rank && !__atomic_load_n(&exit_acked[peer], __ATOMIC_ACQUIRE) &&
            gp_boot_rank_ended((int)peer)) {
            node_gone = (int)peer;
            return 1;
        }
    }
    return 0;
}

/*
 * What a peer sent before its process ended may still be on its way in (a
 * tcp socket's queue, read by the next progress pass): a peer that answered
 * and then ended in a normal exit is found gone before its answer is seen.
 * So a wait that finds its peer gone goes on polling for GONE_DRAIN_S and at
 * least GONE_DRAIN_PASSES passes before it gives up, and looks again.
 */
#define GONE_DRAIN_S 0.05
#define GONE_DRAIN_PASSES 4

/* Waits, servicing only the SYS queue, until *flag reaches target, the deadline passes (0), or
 * the peer it waits for is gone (0, node_gone says which). */
static int wait_for(volatile int *flag, int target, double deadline, enum waiting_for what,
                    int node)
{
    double next_gone_check = now_seconds() + GONE_CHECK_S;
    double drain_until = 0;
    int drain_passes = 0, draining_for = -1;
    while (*flag < target) {
        if (gpc.attached) {
            ptl_progress(gpc.ni); /* a transport that moves data in progress (tcp) */
            gpc_poll_sys();
        }
        double now = now_seconds();
        if (now > deadline)
            return 0;
        int drained = draining_for >= 0 && ++drain_passes >= GONE_DRAIN_PASSES && now > drain_until;
        if (drained || (draining_for < 0 && now > next_gone_check)) {
            next_gone_check = now + GONE_CHECK_S;
            int gone = waited_peer_gone(what, node);
            if (gone && node_gone == draining_for)
                return 0; /* still gone, and nothing more of it came in */
            /* Newly found gone (drain what it sent first), or what was waited for came in. */
            draining_for = gone ? node_gone : -1;
            node_gone = -1;
            drain_until = now + GONE_DRAIN_S;
            drain_passes = 0;
        }
        if (gpc.oversubscribed)
            sched_yield();
    }
    node_gone = -1;
    return 1;
}

static void elect(double deadline)
{
    if (exit_request_seen) {
        exit_role = ROLE_SLAVE;
        return;
    }
    if (gpc.rank == 0) {
        int expected = -1;
        int won = __atomic_compare_exchange_n(&election_winner, &expected, 0, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE);
        exit_role = won ? ROLE_MASTER : ROLE_SLAVE;
        if (!won)
            __atomic_store_n(&exit_master, election_winner, __ATOMIC_RELAXED);
        return;
    }
    gpc_sys_send(0, SYS_EXIT_ELECT, 0, (uint64_t)exit_code);
    /* Node 0 wedged or gone: whoever asked coordinates the exit itself. */
    if (!wait_for(&exit_role, ROLE_MASTER, deadline, FOR_ONE_NODE, 0) && !exit_request_seen) {
        exit_role = ROLE_MASTER;
        node_gone = -1; /* node 0's end is the master's to find, among the acks */
    }
}

/* 1 if every node took part within the deadline. */
static int coordinate(double deadline)
{
    elect(deadline);
    if (exit_role == ROLE_MASTER) {
        exit_acked = calloc(gpc.nodes, 1);
        for (gasnet_node_t node = 0; node < gpc.nodes; node++)
            if (node != gpc.rank)
                gpc_sys_send(node, SYS_EXIT_REQUEST, 0, (uint64_t)(uint32_t)exit_code);
        return wait_for(&exit_acks, (int)gpc.nodes - 1, deadline, FOR_ACKS, -1);
    }
    return wait_for(&exit_request_seen, 1, deadline, FOR_ONE_NODE,
                    __atomic_load_n(&exit_master, __ATOMIC_RELAXED));
}

/* An abort signal during the exit (seed 003): whatever broke, the process
 * ends at once with the code the exit was for, not with the signal's. */
static void on_abort_signal_in_exit(int sig)
{
    (void)sig;
    _exit(exit_code);
}

static const int abort_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

/*
 * The exit's work, seed 003's _body: coordinate with the peers, then end
 * this process's part of the job with the bootstrap: fini when every node
 * took part, else an abort (which does not return) so that the launcher
 * ends what is left.  Returns with the alarm cancelled; only the first
 * thread gets here, the others wait for the process to end.
 */
/* Set on the thread that runs the exit's work: a fatal error raised inside that work (a
 * transport's, while the coordination polls) comes back here on the same thread. */
static _Thread_local int running_exit_body;

static void exit_body(void)
{
    int expected = 0;
    /* Sequentially consistent: arm_stop_timer reads it after arming. */
    if (!__atomic_compare_exchange_n(&body_entered, &expected, 1, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST)) {
        /* Waiting for itself would hold the process until the launcher's SIGKILL. */
        if (running_exit_body)
            gp_boot_abort(exit_code, "a fatal error came during the exit's coordination");
        for (;;)
            pause(); /* the first thread ends the process */
    }
    running_exit_body = 1;
    stop_timer_set(0); /* this process runs its exit: no stop timer cuts it short */
    double timeout = exit_timeout();
    signal(SIGQUIT, SIG_IGN);
    for (unsigned i = 0; i < sizeof abort_signals / sizeof abort_signals[0]; i++)
        signal(abort_signals[i], on_abort_signal_in_exit);
    signal(SIGALRM, on_alarm);
    unsigned alarm_seconds = gp_config_exit_alarm(timeout); /* 0: a timeout that means never */
    if (alarm_seconds != 0)
        alarm(alarm_seconds);
    /* NULL when gasnet_init failed before it read the configuration */
    if (gp_cfg.gp_exit_fault != NULL && strcmp(gp_cfg.gp_exit_fault, "abort") == 0)
        raise(SIGABRT); /* GP_EXIT_FAULT: the test of the handler above */
    fflush(stdout);
    fflush(stderr);
    gpc_credit_stats_write();
    gpc_stats_publish(1);
    gpc_stats_remove();
    int coordinated = 1;
    if (gpc.attached && gpc.nodes > 1)
        coordinated = coordinate(now_seconds() + timeout);
    ptl_ni_report(gpc.ni);
    uint64_t dozes, woken, capped_sleeps;
    gpc_doze_counts(&dozes, &woken, &capped_sleeps);
    if (dozes > 0)
        gp_debug("progress", "waits dozed %llu times: %llu woken by a peer, %llu for the whole "
                 "GP_DOZE_MAX_US (%lld us)", (unsigned long long)dozes, (unsigned long long)woken,
                 (unsigned long long)capped_sleeps, (long long)gp_cfg.gp_doze_max_us);
    char not_coordinated[96];
    if (node_gone >= 0)
        snprintf(not_coordinated, sizeof not_coordinated,
                 "not coordinated: node %d's process has ended", node_gone);
    else
        snprintf(not_coordinated, sizeof not_coordinated, "coordination timed out");
    gp_info("exit", "exit code %d, %s, %lld system messages sent", exit_code,
            coordinated ? "coordinated" : not_coordinated,
            (long long)gp_count_get(&gpc.sys_messages_sent));
    /* The transport is left to the process's end (doc/decisions.md): its
     * fini is collective, and peers may still be finishing their exit. */
    fflush(stdout);
    fflush(stderr);
    if (!coordinated) {
        char why[128];
        if (node_gone >= 0)
            snprintf(why, sizeof why, "the exit could not be coordinated: node %d's process has "
                     "ended", node_gone);
        else
            snprintf(why, sizeof why, "the exit could not be coordinated with every node in time");
        gp_boot_abort(abort_code_override >= 0 ? abort_code_override : exit_code, why);
    }
    if (gpc.initialized)
        gp_boot_fini(exit_code);
    alarm(0);
}

_Noreturn static void exit_tail(void)
{
    fflush(stdout);
    fflush(stderr);
    _exit(exit_code);
}

_Noreturn void gpc_exit(int code)
{
    exit_head(code);
    exit_body();
    exit_tail();
}

static void on_shutdown_signal(int sig);

/* Whether SIGQUIT now runs a handler of the client's, not ours or a default. */
static int client_handles_sigquit(void)
{
    struct sigaction current;
    if (sigaction(SIGQUIT, NULL, &current) != 0)
        return 0;
    if (current.sa_flags & SA_SIGINFO)
        return 1;
    return current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN &&
           current.sa_handler != on_shutdown_signal;
}

/* A remote exit request that is the first news of an exit here. */
static void remote_exit(void)
{
    /* The client may want to clean up: its SIGQUIT handler, if it has one, runs
     * now (and may itself call gasnet_exit, which then never returns here). */
    if (client_handles_sigquit())
        raise(SIGQUIT);
    exit_body();
    exit_tail();
}

void gpc_exit_sys_received(gasnet_node_t from, enum gpc_sys_type type, uint32_t arg,
                           uint64_t data)
{
    /* Any exit message means the job is ending: a peer may leave any moment now. */
    ptl_job_exit_known();
    switch (type) {
    case SYS_EXIT_ELECT: {
        int expected = -1;
        __atomic_compare_exchange_n(&election_winner, &expected, (int)from, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
        gpc_sys_send(from, SYS_EXIT_ROLE, election_winner == (int)from,
                     (uint64_t)(uint32_t)election_winner);
        break;
    }
    case SYS_EXIT_ROLE:
        if (!arg)
            __atomic_store_n(&exit_master, (int)(uint32_t)data, __ATOMIC_RELAXED);
        exit_role = arg ? ROLE_MASTER : ROLE_SLAVE;
        break;
    case SYS_EXIT_REQUEST: {
        int code = (int)(int32_t)(uint32_t)data;
        int first = exit_head(code);
        /* Every node ends with the master's code, so that simultaneous exits with
         * different codes end the job one way: with the code of the exit node 0
         * heard of first. */
        if (exit_role != ROLE_MASTER) {
            exit_role = ROLE_SLAVE;
            exit_code = code;
        }
        exit_request_seen = 1;
        gpc_sys_send(from, SYS_EXIT_ACK, 0, 0);
        if (first)
            remote_exit();
        break;
    }
    case SYS_EXIT_ACK:
        if (exit_acked != NULL && from < gpc.nodes)
            __atomic_store_n(&exit_acked[from], 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&exit_acks, 1, __ATOMIC_ACQ_REL);
        break;
    default:
        gp_error("sys", "unknown system message %u from node %u", type, from);
        break;
    }
}

/* ---- signals ---- */

/*
 * The first stop arms the timer (a later one keeps the first deadline),
 * unless an exit already runs: its own alarm bounds it.  The body sets
 * body_entered before it disarms the timer, and this looks at body_entered
 * again after arming, so a body that starts meanwhile (another thread) is
 * never cut short.  Async-signal-safe.
 */
static void arm_stop_timer(int sig)
{
    int none = 0;
    if (!stop_timer_made || __atomic_load_n(&body_entered, __ATOMIC_SEQ_CST) ||
        !__atomic_compare_exchange_n(&stop_code, &none, sig == SIGQUIT ? 1 : 128 + sig, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    stop_signal = sig;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    stop_timer_set(STOP_GRACE_NS);
    if (__atomic_load_n(&body_entered, __ATOMIC_SEQ_CST))
        stop_timer_set(0);
}

static void on_shutdown_signal(int sig)
{
    if (sig != SIGQUIT && client_handles_sigquit()) {
        raise(SIGQUIT); /* the client's handler decides (spec 1.10) */
        return;
    }
    gpc_shutdown_signal = sig; /* acted on at the next poll, outside signal context */
    arm_stop_timer(sig);       /* ... or, outside the library, when the timer fires */
}

/* The fatal signals' names, for a handler that may not call strsignal. */
static const char *fatal_signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV: segmentation fault";
    case SIGBUS: return "SIGBUS: bus error";
    case SIGILL: return "SIGILL: illegal instruction";
    case SIGFPE: return "SIGFPE: arithmetic exception";
    case SIGABRT: return "SIGABRT: aborted";
    default: return "unexpected signal";
    }
}

/* Async-signal-safe: the line is built by hand and written with write(2);
 * the fatal report (GASNET_BACKTRACE, GASNET_FREEZE_ON_ERROR) is too.  A
 * SIGBUS inside a region mapped from /dev/shm says whose segment ran out of
 * pages (bus_fault.c). */
static void fatal_signal(int sig, const void *fault_addr)
{
    char line[640];
    size_t len = gp_sigsafe_append(line, 0, sizeof line, "gp: FATAL ERROR on node ");
    len = gp_sigsafe_append_uint(line, len, sizeof line, gpc.rank);
    len = gp_sigsafe_append(line, len, sizeof line, "/");
    len = gp_sigsafe_append_uint(line, len, sizeof line, gpc.nodes);
    len = gp_sigsafe_append(line, len, sizeof line, ": caught fatal signal ");
    len = gp_sigsafe_append_uint(line, len, sizeof line, (unsigned long)sig);
    len = gp_sigsafe_append(line, len, sizeof line, " (");
    len = gp_sigsafe_append(line, len, sizeof line, fatal_signal_name(sig));
    len = gp_sigsafe_append(line, len, sizeof line, ")");
    if (sig == SIGBUS && fault_addr != NULL)
        len = gpc_bus_fault_describe(line, len, sizeof line, fault_addr);
    len = gp_sigsafe_append(line, len, sizeof line, "\n");
    gp_sigsafe_write(STDERR_FILENO, line, len);
    gp_fatal_report_run(sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_fatal_signal(int sig)
{
    fatal_signal(sig, NULL);
}

static void on_fatal_signal_info(int sig, siginfo_t *info, void *context)
{
    (void)context;
    /* si_addr means something only for a fault the kernel raised (si_code > 0) */
    fatal_signal(sig, info != NULL && info->si_code > 0 ? info->si_addr : NULL);
}

static void on_process_exit(int status, void *unused)
{
    (void)unused;
    if (!gpc.initialized)
        return;
    /* Returning from main or calling exit(): the process's own status carries
     * the code to gp-run; the peers are told 0 (seed 003 does the same). */
    if (exit_head(0))
        abort_code_override = status & 0xff;
    exit_body(); /* then the process ends as exit() was asked to */
}

void gpc_exit_install_signals(void)
{
    static const int shutdown[] = { SIGQUIT, SIGINT, SIGTERM, SIGHUP };
    for (unsigned i = 0; i < sizeof shutdown / sizeof shutdown[0]; i++) {
        struct sigaction previous;
        /* A signal the process was started ignoring (nohup) stays ignored. */
        if (sigaction(shutdown[i], NULL, &previous) == 0 && previous.sa_handler == SIG_IGN)
            continue;
        signal(shutdown[i], on_shutdown_signal);
    }
    for (unsigned i = 0; i < sizeof abort_signals / sizeof abort_signals[0]; i++)
        signal(abort_signals[i], on_fatal_signal);
    /* SIGBUS with its address: a segment's page that /dev/shm could not supply. */
    struct sigaction bus;
    memset(&bus, 0, sizeof bus);
    bus.sa_sigaction = on_fatal_signal_info;
    bus.sa_flags = SA_SIGINFO;
    sigemptyset(&bus.sa_mask);
    sigaction(SIGBUS, &bus, NULL);
    on_exit(on_process_exit, NULL); /* atexit, with the status (glibc) */
    /* Made now: timer_create may not be called from a signal handler. */
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_SIGNAL;
    event.sigev_signo = SIGALRM;
    stop_timer_made = timer_create(CLOCK_MONOTONIC, &event, &stop_timer) == 0;
}

void gpc_exit_check_flag(void)
{
    int sig = gpc_shutdown_signal;
    if (sig == 0 || gpc_in_handler)
        return;
    gpc_shutdown_signal = 0;
    /* SIGQUIT's default is gasnet_exit(1) (spec 1.10); a termination signal
     * ends the job with 128 + its number, as a shell would report it. */
    gpc_exit(sig == SIGQUIT ? 1 : 128 + sig);
}
