/*
 * barrier.c: a team's split-phase dissemination barrier (the team's ranks
 * take part), named, anonymous or mismatched; and gasnet_barrier_* as
 * GASNET_TEAM_ALL's.
 */
#ifndef GP_CONDUIT_BARRIER_H
#define GP_CONDUIT_BARRIER_H

#include <gasnet.h>

#include "util/thread.h"

#define GPC_BARRIER_MAX_ROUNDS 32
enum gpc_barrier_name { NAME_ANONYMOUS = 0, NAME_NAMED = 1, NAME_MISMATCH = 2 };
struct barrier_value {
    int state;
    int name;
};
struct gpc_barrier {
    int phase;
    int notified;
    int notify_id;
    int notify_flags;
    int rounds;
    int round;               /* next round whose message we wait for */
    struct barrier_value known;
    int completed;           /* phases completed on this node */
    struct barrier_value last;   /* the merged name state of the last one */
    /* messages received, by phase parity and round (written by the handler) */
    volatile int arrived[2][GPC_BARRIER_MAX_ROUNDS];
    struct barrier_value received[2][GPC_BARRIER_MAX_ROUNDS];
    gp_mutex_t lock;
};
struct gpc_team;
void gpc_barrier_init(struct gpc_barrier *b, gasnet_node_t size);
void gpc_team_barrier_notify(struct gpc_team *team, int id, int flags);
int gpc_team_barrier_try(struct gpc_team *team, int id, int flags);
int gpc_team_barrier_wait(struct gpc_team *team, int id, int flags);
int gpc_team_barrier_between_notify_and_wait(const struct gpc_team *team);
int gpc_team_barrier_result(const struct gpc_team *team, int *id);
/* gasnet_barrier_*: GASNET_TEAM_ALL's */
void gpc_barrier_notify(int id, int flags);
int gpc_barrier_between_notify_and_wait(void);
int gpc_barrier_result(int *id);
int gpc_barrier_try(int id, int flags);
int gpc_barrier_wait(int id, int flags);
void gpc_barrier_setup(void);
void gpc_barrier_handler(gasnet_token_t token, gasnet_handlerarg_t phase, gasnet_handlerarg_t round,
                         gasnet_handlerarg_t state, gasnet_handlerarg_t name,
                         gasnet_handlerarg_t team_id);

#endif
