/*
 * An agent's children in the ssh spawner's tree (tree.h): the agents it
 * starts over the remote shell for the hosts of its subtree, and the relay
 * of their messages up to its own parent.  agent.c runs it beside its ranks.
 */
#ifndef GP_RUN_AGENT_KIDS_H
#define GP_RUN_AGENT_KIDS_H

#include "tree.h"

struct agent_kids {
    int count;
    struct tree_child *child;
    struct link_buf *up;          /* the agent's queue to its parent */
    const int *up_ok;             /* 0 once the parent is gone: nothing is queued */
    int nprocs, nhosts;
    double timeout;
    const char *jobid;            /* for sweeps after a loss (tree_sweep_start) */
    sigset_t mask;                /* the signal mask its remote shells start with */
    char from[256];               /* this host's name, for messages */
};

/*
 * Starts the children for the hosts s->host+1..s->last (names: theirs, in
 * order), each sent s with its own host, last host and names; 0, or -1
 * after saying why (to gp-run's stderr, which is the parent's link: the
 * caller fails the agent with the text in why).
 */
int kids_start(struct agent_kids *k, const struct agent_setup *s, const sigset_t *mask,
               char *why, size_t why_len);
/* The children's descriptors from index at: 3 each; the new count. */
size_t kids_pollfds(const struct agent_kids *k, struct pollfd *pfds, size_t at);
/* Serves what poll found from index at (the same order as kids_pollfds). */
void kids_service(struct agent_kids *k, const struct pollfd *pfds, size_t at);
/* A reaped process: 1 if it was a child's shell (its loss relayed up if it left ranks). */
int kids_reaped(struct agent_kids *k, pid_t pid, int status);
/* Children that have not answered in time are killed (then reaped as unreachable). */
void kids_tick(struct agent_kids *k, double now);
/* Passes a signal for the ranks down every link. */
void kids_signal(struct agent_kids *k, int sig);
/* Closes every link down: the children end their subtrees' ranks and exit. */
void kids_hang_up(struct agent_kids *k);
/* Some child's shell has not been reaped yet. */
int kids_active(const struct agent_kids *k);
void kids_free(struct agent_kids *k);

#endif
