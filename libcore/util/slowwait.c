/* A wait that says so when it lasts: see slowwait.h. */
#include "util/slowwait.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/log.h"

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t gp_slow_wait_threshold_ns(void)
{
    static uint64_t threshold_ns;
    if (threshold_ns == 0) {
        /* GP_SLOW_WAIT_MS: milliseconds, > 0 (its row validates it at init). */
        const char *text = getenv("GP_SLOW_WAIT_MS");
        char *end = NULL;
        unsigned long long ms = text != NULL ? strtoull(text, &end, 10) : 0;
        threshold_ns = (text != NULL && end != text && *end == '\0' && ms > 0)
                           ? ms * 1000000ull : GP_SLOW_WAIT_NS;
    }
    return threshold_ns;
}

int gp_slow_wait_check(struct gp_slow_wait *wait, const char *subsys, const char *fmt, ...)
{
    if (wait->warned || (wait->calls++ & 1023u) != 0)
        return 0;
    uint64_t now = monotonic_ns();
    if (wait->started_ns == 0) {
        wait->started_ns = now;
        return 0;
    }
    uint64_t waited_ns = now - wait->started_ns;
    if (waited_ns < gp_slow_wait_threshold_ns())
        return 0;
    wait->warned = 1;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    gp_warn(subsys, "still waiting for %s after %.1f s (the job goes on waiting)", what,
            (double)waited_ns / 1e9);
    return 1;
}
