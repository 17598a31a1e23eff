/*
 * The ssh spawner's tree (GASNET_SSH_OUT_DEGREE), shared by gp-run and its
 * agents: how a range of hosts is split among at most DEGREE children, the
 * job's description each child is sent (SETUP), and one child: its remote
 * shell, the link to its agent, the shell's own error lines.
 *
 * Hosts are numbered 0..nhosts-1 in the host list's order and each holds a
 * block of ranks (hosts_first_rank).  A parent with hosts first..last to
 * start splits them into at most DEGREE contiguous runs of nearly equal
 * length; the first host of a run is its child, and the rest of the run is
 * that child's subtree, split the same way by its agent.  Every run is a
 * contiguous range of hosts, hence of ranks, so a child's share of the job
 * is two numbers: its host and the last host of its subtree.
 */
#ifndef GP_RUN_TREE_H
#define GP_RUN_TREE_H

#include "gp_run.h"
#include "link.h"

/* SETUP's magic: the layout below (setup_pack, agent.c's parse_setup). */
#define SETUP_MAGIC "gp-agent-2"

/* GASNET_SSH_OUT_DEGREE's default (GASNet's too); 0 means no limit (flat). */
#define TREE_DEFAULT_DEGREE 32

/* The first host of each child for hosts first..last (at most degree of them); their count. */
int tree_split(int first, int last, int degree, int *child_first);
/* The last host of child i of a split (child_first from tree_split, n children). */
int tree_child_last(const int *child_first, int n, int i, int last);

/* What one agent is told: the job, its own host and the hosts of its subtree. */
struct agent_setup {
    const char *jobid;
    const uint8_t *key;           /* GP_KEY_LEN bytes */
    const char *port;             /* gp-run's control channel */
    const char *boot_host;        /* gp-run's address as the hosts reach it; "" = the shell's */
    int nprocs, nhosts;
    int host, last;               /* this agent's host; the last host of its subtree */
    int degree;                   /* GASNET_SSH_OUT_DEGREE (0: no limit) */
    double timeout;               /* GP_SSH_TIMEOUT for its children */
    int verbose;
    const char *cwd, *prog;
    char *const *argv;            /* NULL-terminated */
    char *const *env;             /* NULL-terminated */
    char *const *names;           /* names of hosts host+1..last */
};
/* Queues the SETUP message for s on out; -1 after saying why (too large, no memory). */
int setup_queue(struct link_buf *out, const struct agent_setup *s);

/* One child of gp-run or of an agent: the remote shell running its agent. */
struct tree_child {
    int host, last;               /* its host; the last host of its subtree */
    char *name;
    pid_t pid;                    /* the remote shell; 0 once reaped */
    int to_fd, from_fd, err_fd;   /* its agent's stdin, stdout; the shell's stderr */
    struct link_buf out, in;
    struct line_buf err_lines;
    int hello;                    /* its agent said HELLO */
    int timed_out;                /* killed for not answering within the timeout */
    int killed;                   /* hung up on after SIGKILL: its loss is no news */
    double deadline;
    int exits;                    /* ranks of its subtree whose exit was relayed (agents) */
    uint8_t *exited;              /* exited[rank - its first rank]: counted once each */
    pid_t sweep_pid;              /* the remote shell clearing up after its loss; 0: none */
    double sweep_deadline;
};

/* "exec 'PATH' --agent": gp-run on the hosts (GP_RUN_AGENT, else this program). */
char *tree_agent_command(void);
/* Starts child's remote shell (its name, remote_cmd); fds non-blocking; -1 after saying why. */
int tree_child_start(struct tree_child *child, const char *remote_cmd, const sigset_t *mask,
                     double timeout);
/* Reads what the link holds into child->in; -1 once it is closed (or broken). */
int tree_child_read(struct tree_child *child);
/* Reads the shell's stderr; passes whole lines to emit; -1 once it is closed. */
int tree_child_read_errors(struct tree_child *child,
                           void (*emit)(void *arg, const char *bytes, size_t n), void *arg);
/* Closes the link down to it (its agent then ends its subtree's ranks). */
void tree_child_hang_up(struct tree_child *child);
/* Sends sig down its link (its agent passes it to its subtree); 0, or -1 when the link is
 * closed already.  A link that fails is hung up, and so is every link on SIGKILL: a busy
 * agent is not counted on, a closed link kills the subtree's ranks. */
int tree_child_signal(struct tree_child *child, int sig);
void tree_child_free(struct tree_child *child);
/*
 * After a child that had answered was lost (its shell ended with status
 * other than 0: its agent did not end by itself, cleaning up):
 * "gp-run --agent-sweep JOBID" on its host over the remote shell, removing
 * what the job left in /dev/shm there (its ranks died with their agent,
 * their statistics pages did not).  The parent waits for it (tree_sweep_*)
 * up to timeout seconds.
 */
void tree_sweep_start(struct tree_child *child, int status, const char *jobid,
                      const sigset_t *mask, double timeout);
/* A reaped process: 1 if it was child's sweep. */
int tree_sweep_reaped(struct tree_child *child, pid_t pid);
/* Kills a sweep past its deadline (then reaped as usual). */
void tree_sweep_tick(struct tree_child *child, double now);
/* Ranks of hosts host..last: first and count. */
void tree_ranks(int nprocs, int nhosts, int host, int last, int *first, int *count);
/*
 * How a child's shell ended (wait status), for "host NAME <text>": "can't be
 * reached ..." before its agent answered, "lost ..." after; from names the
 * parent's host.
 */
void tree_lost_text(const struct tree_child *child, int status, double timeout,
                    const char *from, char *out, size_t len);

#endif
