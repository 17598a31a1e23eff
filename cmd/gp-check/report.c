/*
 * gp-check's output.  A check prints one line per finding on stdout:
 *
 *   ok NAME: what was found
 *   warn NAME: what may go wrong (fix: what to do)
 *   FAIL NAME: what will go wrong (fix: what to do)
 *
 * so that a script (and the test suite) can grep for "^FAIL".  A FAIL
 * makes the exit status 1.  gp-check's own trouble (a bad command line, a
 * missing file) goes to stderr as "gp-check: ...".
 */
#include "gp_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static int failures;

void check_report(enum check_verdict verdict, const char *name, const char *fix,
                  const char *fmt, ...)
{
    static const char *const words[] = { "ok", "warn", "FAIL" };
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (verdict == CHECK_FAIL)
        failures++;
    if (verdict != CHECK_OK && fix != NULL)
        printf("%s %s: %s (fix: %s)\n", words[verdict], name, text, fix);
    else
        printf("%s %s: %s\n", words[verdict], name, text);
    fflush(stdout);
}

void check_ok(const char *name, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    check_report(CHECK_OK, name, NULL, "%s", text);
}

int check_failures(void)
{
    return failures;
}

void check_say(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "gp-check: %s\n", text);
}

void check_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char suffixes[] = "KMGTP";
    double value = (double)bytes;
    int power = 0;
    while (value >= 1024.0 && power < 5) {
        value /= 1024.0;
        power++;
    }
    if (power == 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else if (value == (double)(uint64_t)value || value >= 100.0)
        snprintf(buf, len, "%.0f%c", value, suffixes[power - 1]);
    else
        snprintf(buf, len, "%.1f%c", value, suffixes[power - 1]);
}

double check_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
