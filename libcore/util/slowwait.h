/*
 * A wait that says so when it lasts.
 *
 * Waits for credits, send tickets, chunks or operation records are correct
 * to go on for as long as the peer takes, so they have no deadline; but a
 * silent spin that never ends looks like a hang to whoever runs the job.
 * A slow wait prints one warning line once it has lasted GP_SLOW_WAIT_NS,
 * naming the resource and the peer, and then keeps waiting quietly.
 *
 * Cost on the fast path: the caller only starts the clock once the first
 * try has failed, and a check reads the clock once every 1024 calls.
 */
#ifndef GP_UTIL_SLOWWAIT_H
#define GP_UTIL_SLOWWAIT_H

#include <stdint.h>

#define GP_SLOW_WAIT_NS (10ull * 1000 * 1000 * 1000)

struct gp_slow_wait {
    uint64_t started_ns;   /* 0 until the first gp_slow_wait_check */
    uint32_t calls;
    int warned;
};

#define GP_SLOW_WAIT_INIT { 0, 0, 0 }

/*
 * Call on every turn of a waiting loop.  Returns 1 on the one call that
 * crossed the threshold (after printing the warning built from fmt: "still
 * waiting for <fmt> after 10 s"), else 0.
 */
int gp_slow_wait_check(struct gp_slow_wait *wait, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The threshold in effect: GP_SLOW_WAIT_MS (a row of the configuration
 * table, read here with getenv because util sits below the table; an
 * unparsable value there is refused by the table at init), else
 * GP_SLOW_WAIT_NS. */
uint64_t gp_slow_wait_threshold_ns(void);

#endif
