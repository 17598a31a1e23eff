/* stats.c: the live statistics page of this process for gp-top (stats_page.h). */
#ifndef GP_CONDUIT_STATS_H
#define GP_CONDUIT_STATS_H

void gpc_stats_setup(void);
void gpc_stats_publish(int force);
void gpc_stats_remove(void);
void gpc_stats_remove_sigsafe(void); /* the same, from a signal handler */

#endif
