/*
 * gp-run's own messages: "gp-run: ..." on stderr, each line in one write(2)
 * so that it does not interleave with the lines of the job's processes,
 * which share the terminal.  run_note is for what -v adds.
 */
#include "gp_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int run_verbose;

static void say_line(const char *fmt, va_list ap)
{
    char line[2048];
    int saved_errno = errno;
    int used = snprintf(line, sizeof line, "gp-run: ");
    int body = vsnprintf(line + used, sizeof line - (size_t)used, fmt, ap);
    if (body > 0)
        used += body;
    if ((size_t)used > sizeof line - 2)
        used = (int)sizeof line - 2;
    line[used++] = '\n';
    for (size_t done = 0; done < (size_t)used;) {
        ssize_t n = write(STDERR_FILENO, line + done, (size_t)used - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    errno = saved_errno;
}

void run_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_line(fmt, ap);
    va_end(ap);
}

void run_note(const char *fmt, ...)
{
    va_list ap;
    if (!run_verbose)
        return;
    va_start(ap, fmt);
    say_line(fmt, ap);
    va_end(ap);
}

double run_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
