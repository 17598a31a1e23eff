/* stats.c: the live statistics page of this process for gp-top (stats_page.h). */
#ifndef GP_CONDUIT_STATS_H
#define GP_CONDUIT_STATS_H

void gpc_stats_setup(void);
/* force: now; else at most every PUBLISH_INTERVAL_NS (stats.c), looking at the clock only on
 * every 256th call. */
void gpc_stats_publish(int force);
/* The poll pass's share: the count inline, so that 255 passes of 256 pay an increment and a
 * branch, not a call.  Each thread counts its own passes (no shared line, no lost
 * increments); the publish itself takes a try-lock, so threads never publish at once. */
extern _Thread_local unsigned gpc_stats_passes;
static inline void gpc_stats_pass(void)
{
    if (__builtin_expect((++gpc_stats_passes & 255) == 0, 0))
        gpc_stats_publish(0);
}
void gpc_stats_remove(void);
void gpc_stats_remove_sigsafe(void); /* the same, from a signal handler */

#endif
