/*
 * Backtraces: the client's own mechanism if it defined gasnett_backtrace_user,
 * then glibc's backtrace(3).  GASNET_BACKTRACE_TYPE is not consulted: there
 * is one built-in mechanism, so there is nothing to order.
 */
#include <gasnet_tools.h>

#include <execinfo.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/export.h"
#include "tools/tools.h"
#include "util/log.h"

/* Empty unless the client defines its own (the linker then takes the client's). */
__attribute__((weak, visibility("default"))) gasnett_backtrace_type_t gasnett_backtrace_user;

static char exe_name[256] = "(unknown program)";

GP_EXPORT void gasnett_backtrace_init(const char *exename)
{
    if (exename != NULL)
        snprintf(exe_name, sizeof exe_name, "%s", exename);
    /* The first backtrace() loads the unwinder; do it now rather than in a crash. */
    void *frame;
    (void)backtrace(&frame, 1);
}

int gp_backtrace_write(int fd)
{
    void *frames[64];
    char header[400];
    int count = backtrace(frames, (int)(sizeof frames / sizeof frames[0]));
    if (count <= 0)
        return -1;
    size_t len = gp_sigsafe_append(header, 0, sizeof header, "backtrace of process ");
    len = gp_sigsafe_append_uint(header, len, sizeof header, (unsigned long)getpid());
    len = gp_sigsafe_append(header, len, sizeof header, " (");
    len = gp_sigsafe_append(header, len, sizeof header, exe_name);
    len = gp_sigsafe_append(header, len, sizeof header, "):\n");
    gp_sigsafe_write(fd, header, len);
    backtrace_symbols_fd(frames, count, fd);
    return 0;
}

GP_EXPORT int gasnett_print_backtrace(int fd)
{
    if (gasnett_backtrace_user.fnp != NULL && gasnett_backtrace_user.fnp(fd) == 0)
        return 0;
    return gp_backtrace_write(fd);
}
