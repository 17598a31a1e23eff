/*
 * Logging: one line per message, written with a single write(2) so lines
 * from several processes sharing a terminal do not interleave mid-line.
 */
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int gp_log_threshold = GP_LOG_WARN;

static long log_rank = -1;
static long log_nodes = -1;
static gp_fatal_hook_fn fatal_hook;
static gp_fatal_report_fn fatal_report;
static int fatal_report_ran;

static const char *const level_names[] = { "error", "warn", "info", "debug", "trace" };

void gp_log_set_identity(long rank, long nodes)
{
    log_rank = rank;
    log_nodes = nodes;
}

int gp_log_level_parse(const char *text)
{
    if (text == NULL || *text == '\0')
        return -1;
    for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++)
        if (strcasecmp(text, level_names[i]) == 0)
            return i;
    if (text[0] >= '0' && text[0] <= '4' && text[1] == '\0')
        return text[0] - '0';
    return -1;
}

void gp_sigsafe_write(int fd, const char *line, size_t len)
{
    int saved_errno = errno; /* a signal handler must leave errno as it found it */
    while (len > 0) {
        ssize_t n = write(fd, line, len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        line += n;
        len -= (size_t)n;
    }
    errno = saved_errno;
}

static void write_line(const char *line, size_t len)
{
    gp_sigsafe_write(STDERR_FILENO, line, len);
}

size_t gp_sigsafe_append(char *buf, size_t len, size_t size, const char *text)
{
    while (*text != '\0' && len + 1 < size)
        buf[len++] = *text++;
    buf[len] = '\0';
    return len;
}

size_t gp_sigsafe_append_uint(char *buf, size_t len, size_t size, unsigned long value)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (n > 0 && len + 1 < size)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

void gp_set_fatal_report(gp_fatal_report_fn report)
{
    fatal_report = report;
}

int gp_fatal_report_run(int sig)
{
    gp_fatal_report_fn report = fatal_report;
    if (report == NULL)
        return 0;
    /* Once: a fatal signal inside the report (or a second thread's fatal
     * error) must not start it again. */
    if (__atomic_exchange_n(&fatal_report_ran, 1, __ATOMIC_ACQ_REL) == 0)
        report(sig);
    return 1;
}

void gp_log_vemit(int level, const char *subsys, const char *fmt, va_list ap)
{
    char line[1024];
    int used;
    if (level < 0 || level > GP_LOG_TRACE)
        level = GP_LOG_ERROR;
    if (log_rank >= 0)
        used = snprintf(line, sizeof line, "gp[%ld/%ld] %s %s: ", log_rank, log_nodes,
                        level_names[level], subsys);
    else
        used = snprintf(line, sizeof line, "gp[%ld] %s %s: ", (long)getpid(),
                        level_names[level], subsys);
    if (used < 0)
        return;
    if ((size_t)used < sizeof line - 1) {
        int body = vsnprintf(line + used, sizeof line - (size_t)used, fmt, ap);
        if (body > 0)
            used += body;
    }
    if ((size_t)used > sizeof line - 2) {
        /* Long message: mark the cut instead of dropping it silently. */
        used = (int)sizeof line - 2;
        memcpy(line + used - 3, "...", 3);
    }
    line[used++] = '\n';
    write_line(line, (size_t)used);
}

void gp_log_emit(int level, const char *subsys, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gp_log_vemit(level, subsys, fmt, ap);
    va_end(ap);
}

void gp_set_fatal_hook(gp_fatal_hook_fn hook)
{
    fatal_hook = hook;
}

_Noreturn void gp_fatal(const char *fmt, ...)
{
    char line[1024];
    int used;
    va_list ap;
    if (log_rank >= 0)
        used = snprintf(line, sizeof line, "gp: FATAL ERROR on node %ld/%ld: ", log_rank, log_nodes);
    else
        used = snprintf(line, sizeof line, "gp: FATAL ERROR on process %ld: ", (long)getpid());
    va_start(ap, fmt);
    int body = vsnprintf(line + used, sizeof line - (size_t)used, fmt, ap);
    va_end(ap);
    if (body > 0)
        used += body;
    if ((size_t)used > sizeof line - 2)
        used = (int)sizeof line - 2;
    line[used++] = '\n';
    write_line(line, (size_t)used);
    gp_fatal_report_run(0);

    gp_fatal_hook_fn hook = fatal_hook;
    fatal_hook = NULL; /* a fatal error inside the hook must not loop */
    if (hook != NULL)
        hook(1);
    _exit(1);
}
