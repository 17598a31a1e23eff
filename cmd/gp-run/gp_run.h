/*
 * gp-run's pieces and what they share.
 *
 *   main.c         the order of things: options, configuration, listen,
 *                  spawn, serve, clean up, exit status
 *   options.c      the command line (libpopt) and the program lookup
 *   spawn_local.c  fork/exec of the job's processes on this host
 *   server.c       the event loop: signals, the listener, connections, time
 *   conn.c         one control connection: key proof, framing, messages
 *   gather.c       collective rounds (allgather, barrier, broadcast)
 *   job.c          the process table and the exit policy
 *   shmclean.c     removal of the job's leftover shared-memory objects
 *   say.c          gp-run's own messages
 *   hosts.c        the host list (--hostfile, GASNET_SSH_NODEFILE / _SERVERS), blocks of ranks
 *   sshcmd.c       the remote shell's command line (GASNET_SSH_CMD, GASNET_SSH_OPTIONS)
 *   link.c         the framed link between a parent (gp-run or an agent) and an agent
 *   tree.c         the ssh spawner's tree: the split, SETUP, one child's remote shell
 *   spawn_ssh.c    the ssh spawner, gp-run's side: the first agents, output and exits
 *   agent_kids.c   an agent's own children in the tree, their messages relayed up
 *   spawn_pmix.c   the pmix spawner: the job handed to srun or mpirun (exec)
 *   agent.c        gp-run --agent, on each host: starts that host's ranks, relays for them
 *   mirror.c       other hosts' statistics pages copied to this host, for gp-top
 */
#ifndef GP_RUN_GP_RUN_H
#define GP_RUN_GP_RUN_H

#include "boot/boot.h"
#include "boot/keyproof.h"
#include "boot/wire.h"
#include "common/host_list.h"

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit status for a command line (or environment) gp-run can't accept. */
#define RUN_EXIT_USAGE 2
/* run_parse_options: go on and run the job. */
#define RUN_CONTINUE (-1)
/* The largest job the local spawner starts. */
#define RUN_MAX_PROCS 4096
/* Strangers that may be proving the key at the same time. */
#define RUN_MAX_UNPROVEN 64
/* Seconds a new connection has to prove the key. */
#define RUN_PROOF_TIMEOUT_S 10.0
#define RUN_PROOF_TIMEOUT_TEXT "10 s"

enum run_spawner { SPAWN_LOCAL, SPAWN_SSH, SPAWN_PMIX };

struct run_opts {
    int nprocs;
    int nhosts;       /* -N, or M of -n N:M; 0 if not given */
    int spawner;      /* enum run_spawner */
    char *hostfile;   /* --hostfile */
    int tag_output;   /* --tag-output: "[rank] " before every line of output */
    int agent;        /* --agent: run as the agent on a host (agent.c) */
    char *sweep_jobid; /* --agent-sweep JOBID: clear the job's /dev/shm here, exit */
    char *env_list;   /* -E: names only; the local spawner passes everything */
    int verbose;
    int test_only;
    int keep;
    char **argv;      /* the program and its arguments, NULL-terminated */
    char *prog_path;  /* argv[0] as found in PATH */
};

int run_parse_options(int argc, const char **argv, struct run_opts *opts);
void run_free_options(struct run_opts *opts);

/* say.c: "gp-run: ..." on stderr, one write per line. */
extern int run_verbose;
void run_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void run_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double run_now(void);

/* How far the job is in being taken down (see job.c for the policy). */
enum run_phase {
    PHASE_RUNNING,   /* nothing has gone wrong */
    PHASE_GRACE,     /* a rank exited non-zero: the others may finish alone */
    PHASE_TERM,      /* SIGTERM (or the forwarded signal) sent */
    PHASE_KILL       /* SIGKILL sent */
};

struct run_proc {
    pid_t pid;        /* 0: never started; with ssh, the pid on its host */
    int host;         /* index in the host list (ssh spawner), else 0 */
    int running;
    int conn;         /* its control connection (index), -1 if none */
    int joined;       /* said HELLO */
    int finished;     /* said FINI */
};

struct run_hosts;

struct run_job {
    int nprocs;
    struct run_hosts *hosts;  /* the ssh spawner's agents; NULL for the local spawner */
    char jobid[GP_BOOT_JOBID_LEN + 1];
    uint8_t key[GP_KEY_LEN];
    struct run_proc *procs;
    int running;
    pid_t pgid;               /* the job's process group, 0 until the first fork */
    int code;                 /* the job's exit status once decided, else -1 */
    int interrupt_sig;        /* the signal gp-run was asked to stop with */
    uint64_t sent_signals;    /* bit s: gp-run sent signal s to the job */
    enum run_phase phase;
    double deadline;          /* run_now() of the next phase, 0 if none */
    double exit_timeout;
    double boot_timeout;      /* GP_BOOT_TIMEOUT: how long a round waits; 0: for ever */
};

/* A control connection's reading state. */
struct run_conn {
    int fd;                   /* -1: free slot */
    int proven;               /* passed the key proof */
    int rank;                 /* after HELLO, else -1 */
    char peer[64];
    uint8_t nonce_s[GP_NONCE_LEN];
    double proof_deadline;
    uint8_t hdr_raw[GP_WIRE_HDR_LEN];
    size_t hdr_got;
    struct gp_wire_hdr hdr;
    uint8_t *body;            /* hdr.len + 1 bytes once the header is in */
    size_t body_got;
};

/* A collective in progress: one contribution per rank. */
struct run_round {
    int count;
    double started;           /* run_now() when its first contribution came */
    uint32_t kind, root, len;
    int first_rank;
    uint8_t **parts;
    char *present;
};

struct run_server {
    struct run_job *job;
    int listen_fd;
    int signal_fd;
    char addr[64];            /* host:port for GP_BOOT_ADDR */
    struct run_conn *conns;
    int nconns;               /* slots */
    int max_unproven;         /* RUN_MAX_UNPROVEN, or less for a test (server_open) */
    struct run_round round;
};

/* job.c */
int job_init(struct run_job *job, int nprocs, double exit_timeout);
void job_free(struct run_job *job);
int job_rank_of(const struct run_job *job, pid_t pid);
void job_reaped(struct run_server *srv, pid_t pid, int status);
void job_fail(struct run_server *srv, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void job_abort(struct run_server *srv, int code);
void job_interrupt(struct run_job *job, int sig);
void job_stop(struct run_job *job, int stopped);
void job_tick(struct run_job *job, double now);
int job_exit_status(const struct run_job *job);

void job_rank_ended(struct run_server *srv, int rank, int status);
/* A rank that can no longer be heard of (its host was lost): ends it as failed. */
void job_rank_lost(struct run_server *srv, int rank);

/* spawn_local.c */
void spawn_describe(const struct run_job *job, const struct run_opts *opts, const char *addr);
int spawn_local(struct run_job *job, const struct run_opts *opts, const char *addr,
                const sigset_t *child_mask);
/* What spawn_local and the agent share. */
char **spawn_base_env(size_t *base, char *const *extra_deny);
int spawn_key_pipe(const uint8_t key[GP_KEY_LEN]);
/* Forks rank's process with the launcher variables in envp[base..] and the key
 * pipe key_fd (spawn_key_pipe; the caller closes it); its pid, or -1. */
pid_t spawn_rank(const char *prog_path, char *const *argv, char **envp, size_t base,
                 const char *addr, const char *jobid, int nprocs, int rank, int key_fd,
                 pid_t *pgid, const sigset_t *child_mask, int stdin_fd, int stdout_fd,
                 int stderr_fd);

/* hosts.c: the hosts of an ssh job (host_list.h's parser); 0, or -1 after saying
 * why there are none.  host_list_free releases them. */
int hosts_load(const struct run_opts *opts, struct host_list *list);
/* The number of hosts the job uses (-N, else one per process up to the list); -1 after
 * saying why it can't. */
int hosts_use(const struct run_opts *opts, const struct host_list *list);
/* The first rank of host h when nprocs ranks go over nhosts hosts in blocks. */
int hosts_first_rank(int nprocs, int nhosts, int h);

/* sshcmd.c: argv for running remote_cmd on host; NULL after saying why. */
char **sshcmd_build(const char *host, const char *remote_cmd);
void sshcmd_free(char **argv);
/* word quoted for a remote shell (malloc'd). */
char *sshcmd_quote(const char *word);

/* spawn_ssh.c */
int spawn_ssh(struct run_server *srv, const struct run_opts *opts, const sigset_t *child_mask);
/* -t: the hosts and their ranks, the remote shell's command line; an exit status. */
int spawn_ssh_describe(struct run_job *job, const struct run_opts *opts);
/* Poll set of the agents: adds to pfds from index at, returns the new count. */
int hosts_pollfds(struct run_server *srv, struct pollfd *pfds, int at);
void hosts_service(struct run_server *srv, struct pollfd *pfds, int from, int to);
/* An ssh process (or the agent started locally) ended: 1 if it was one. */
int hosts_reaped(struct run_server *srv, pid_t pid, int status);
/* The name of the host rank runs on (ssh spawner); NULL for a local job. */
const char *hosts_rank_host(const struct run_job *job, int rank);
void hosts_signal(struct run_job *job, int sig);
void hosts_tick(struct run_server *srv, double now);
int hosts_active(const struct run_server *srv);
int hosts_max_fds(const struct run_job *job);
void hosts_close(struct run_job *job);

/* spawn_pmix.c: execs srun or mpirun for the job (-t: prints the command line and
 * returns 0); returns an exit status only if that fails. */
int spawn_pmix(const struct run_opts *opts);

/* mirror.c: copies of other hosts' statistics pages, for gp-top */
void mirror_write(const struct run_job *job, int rank, const uint8_t *bytes, size_t len);
void mirror_close_all(void);
/* How often agents send their ranks' pages up. */
#define RUN_STATS_PERIOD_S 0.5

/* agent.c */
int agent_main(void);

/* server.c */
/* remote: listen on every interface (ssh spawner), else on loopback only. */
int server_open(struct run_server *srv, struct run_job *job, sigset_t *saved_mask, int remote);
void server_run(struct run_server *srv);
void server_close(struct run_server *srv);

/* conn.c */
void conn_accept(struct run_server *srv);
/* Whether a connection may be accepted now: the rest wait in the listen backlog. */
int conn_room(const struct run_server *srv);
void conn_service(struct run_server *srv, int index);
void conn_close(struct run_server *srv, int index);
void conn_expire(struct run_server *srv, double now);
int conn_send(struct run_server *srv, int index, uint32_t type, const void *payload,
              uint32_t len);

/* gather.c */
int gather_init(struct run_round *round, int nprocs);
void gather_free(struct run_round *round, int nprocs);
void gather_contribute(struct run_server *srv, int rank, const uint8_t *body, uint32_t len);
void gather_check_stuck(struct run_server *srv);
/* Ends the job when a round has waited GP_BOOT_TIMEOUT for live ranks. */
void gather_tick(struct run_server *srv, double now);
/* When the round in progress times out (run_now() scale), 0 if none does. */
double gather_deadline(const struct run_server *srv);
/* The job was stopped and continued: the round's time starts again. */
void gather_resume(struct run_server *srv);

/* shmclean.c */
void shm_cleanup(const char *jobid, int keep);

#endif
