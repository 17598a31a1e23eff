/*
 * Stopping for a debugger, and what a fatal end shows a developer: GASNet's
 * GASNET_FREEZE, GASNET_FREEZE_ON_ERROR and GASNET_BACKTRACE.
 *
 * A frozen process prints its host and pid and sleeps until a debugger
 * attached to it sets the exported `gasnet_frozen` to 0 (GASNet's name, so
 * the scripts people have keep working):
 *
 *     gdb -p PID -batch -ex 'set var gasnet_frozen=0'
 *
 * GASNET_FREEZE freezes in gasnet_init; GASNET_FREEZE_ON_ERROR freezes on a
 * fatal error or fatal signal, after its message and before the process
 * ends, so the debugger sees the failing state; GASNET_BACKTRACE writes a
 * backtrace there first.  Both run in the fatal report (util/log.h), which
 * a signal handler may run: only async-signal-safe calls below, with the
 * settings and the host name read at set-up.
 */
#include <gasnet_tools.h>

#include <time.h>
#include <unistd.h>

#include "util/export.h"
#include "config/config.h"
#include "tools/tools.h"
#include "util/log.h"

/* Cleared by a debugger to let a frozen process go on. */
GP_EXPORT volatile int gasnet_frozen;

static int setup_done;
static int freeze_on_error;
static int backtrace_on_fatal;
static long my_rank = -1, my_nodes = -1;
static char host[256] = "(unknown host)";

static void freeze(const char *why)
{
    char line[600];
    size_t len = 0, size = sizeof line;
    unsigned long pid = (unsigned long)getpid();
    gasnet_frozen = 1;
    len = gp_sigsafe_append(line, len, size, "gp: ");
    if (my_rank >= 0) {
        len = gp_sigsafe_append(line, len, size, "node ");
        len = gp_sigsafe_append_uint(line, len, size, (unsigned long)my_rank);
        len = gp_sigsafe_append(line, len, size, "/");
        len = gp_sigsafe_append_uint(line, len, size, (unsigned long)my_nodes);
        len = gp_sigsafe_append(line, len, size, " ");
    }
    len = gp_sigsafe_append(line, len, size, "frozen for a debugger (");
    len = gp_sigsafe_append(line, len, size, why);
    len = gp_sigsafe_append(line, len, size, "): host ");
    len = gp_sigsafe_append(line, len, size, host);
    len = gp_sigsafe_append(line, len, size, " pid ");
    len = gp_sigsafe_append_uint(line, len, size, pid);
    len = gp_sigsafe_append(line, len, size, "; to go on: gdb -p ");
    len = gp_sigsafe_append_uint(line, len, size, pid);
    len = gp_sigsafe_append(line, len, size, " -batch -ex 'set var gasnet_frozen=0'\n");
    gp_sigsafe_write(STDERR_FILENO, line, len);
    while (gasnet_frozen) {
        struct timespec nap = { 0, 100 * 1000 * 1000 };
        nanosleep(&nap, NULL);
    }
}

static void fatal_report(int sig)
{
    if (backtrace_on_fatal)
        gp_backtrace_write(STDERR_FILENO);
    if (freeze_on_error)
        freeze(sig > 0 ? "GASNET_FREEZE_ON_ERROR, fatal signal" : "GASNET_FREEZE_ON_ERROR");
}

int gp_debug_active(void)
{
    return setup_done;
}

void gp_debug_setup(long rank, long nodes)
{
    setup_done = 1;
    my_rank = rank;
    my_nodes = nodes;
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    backtrace_on_fatal = gp_cfg.backtrace;
    freeze_on_error = gp_cfg.freeze_on_error;
    if (backtrace_on_fatal) {
        /* Loads the unwinder now, not in a crash, and names the program. */
        char exe[256];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        gasnett_backtrace_init(n > 0 ? exe : NULL);
    }
    if (backtrace_on_fatal || freeze_on_error)
        gp_set_fatal_report(fatal_report);
    if (gp_cfg.freeze)
        freeze("GASNET_FREEZE");
}
