/*
 * Ending badly on purpose: gasnett_fatalerror, gasnett_killmyprocess, and
 * gasnett_reghandler for the client's signal handlers.
 *
 * gasnett_fatalerror goes through gp's one fatal path, gp_fatal: one line,
 * "gp: FATAL ERROR on node N/M: <message>", then the fatal hook, which
 * takes the whole job down once the bootstrap or the conduit has installed
 * one (a process outside any job just exits).  With GASNET_BACKTRACE set,
 * a backtrace is written first.
 */
#include <gasnet_tools.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gasnet.h>

#include "util/export.h"
#include "config/config.h"
#include "tools/tools.h"
#include "util/log.h"

static int backtrace_wanted(void)
{
    int on = 0;
    if (gp_config_parse_bool(gp_config_getenv("GASNET_BACKTRACE"), &on) != GASNET_OK)
        return 0; /* unset or unreadable: we are dying anyway, so no second error */
    return on;
}

GP_EXPORT void gasnett_fatalerror(const char *msg, ...)
{
    char text[900];
    va_list ap;
    va_start(ap, msg);
    vsnprintf(text, sizeof text, msg != NULL ? msg : "(no message)", ap);
    va_end(ap);
    /* One line: the message's own trailing newline would split it. */
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == '\n')
        text[--len] = '\0';
    gasnett_flush_streams();
    /* After gasnet_init gp_fatal's report writes it (GASNET_BACKTRACE); before, nobody would. */
    if (!gp_debug_active() && backtrace_wanted())
        gasnett_print_backtrace(STDERR_FILENO);
    gp_fatal("%s", text);
}

GP_EXPORT void gasnett_killmyprocess(int exitcode)
{
    _exit(exitcode);
}

GP_EXPORT gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp)
{
    struct sigaction act, previous;
    memset(&act, 0, sizeof act);
    act.sa_handler = fp;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_RESTART;
    if (sigaction(sigtocatch, &act, &previous) != 0)
        gp_fatal("gasnett_reghandler: cannot install a handler for signal %d (%s): %s",
                 sigtocatch, strsignal(sigtocatch), strerror(errno));
    return previous.sa_handler;
}
