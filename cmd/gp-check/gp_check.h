/*
 * gp-check's pieces and what they share.
 *
 * gp-check answers "does gp work here?" in three ways: the system checks
 * (no arguments), the configuration table with effective values (--env),
 * and the conformance programs launched through gp-run (--run).  It is a
 * thin front end: every rule it applies to a variable comes from libgp's
 * configuration table, and the conformance programs are the library's own
 * integration tests.
 *
 *   main.c      the order of things: options, then one of the three modes
 *   options.c   the command line (libpopt)
 *   report.c    the "ok / warn / FAIL NAME: ..." lines, sizes as text
 *   env.c       every GASNET_* / GP_* variable set, validated by the table
 *   shm.c       /dev/shm space against the segment size the job would get
 *   memlock.c   ulimit -l against what ibv would pin
 *   transports.c  each transport's line from its ops table (nal_ops.host_report):
 *               RDMA devices and ports (ibv), libfabric's providers (ofi)
 *   hosts.c     the hosts of GASNET_SSH_NODEFILE / _SERVERS; name resolution
 *   ssh.c       non-interactive ssh login (and clock) on each of those hosts
 *   envlist.c   --env: the table with effective values and sources
 *   envman.c    --env --man: the gp-env(7) page, generated from the table
 *   suite.c     the conformance programs and where they are installed
 *   runner.c    --run: each program through gp-run, with a time limit
 *   child.c     running a command with its output kept and a time limit
 */
#ifndef GP_CHECK_GP_CHECK_H
#define GP_CHECK_GP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "common/host_list.h"

/* Exit status for a command line gp-check cannot accept. */
#define CHECK_EXIT_USAGE 2
/* check_parse_options: go on. */
#define CHECK_CONTINUE (-1)
/* The largest -n accepted (gp-run's own limit). */
#define CHECK_MAX_PROCS 4096
/* Where the system checks look for shared-memory space. */
#define CHECK_SHM_DIR "/dev/shm"
/* Seconds ssh may take to connect to a host. */
#define CHECK_SSH_TIMEOUT_S 5
/*
 * What one process keeps in its shared-memory object besides the segment:
 * the allowance attach.c's local_segment_limit() leaves for the conduit's
 * chunk pools, ReqRB and event queues.
 */
#define CHECK_CONDUIT_BYTES ((uint64_t)8 << 20)

enum check_mode { MODE_SYSTEM, MODE_ENV, MODE_RUN };

struct check_opts {
    enum check_mode mode;
    int man;              /* --env --man */
    int nprocs;           /* -n; 0: the mode's default */
    char *transport;      /* --run --transport; NULL: gp's choice */
    int quick;            /* --run --quick */
    char *shm_dir;        /* --shm-dir; NULL: CHECK_SHM_DIR */
    int ssh_timeout;      /* --ssh-timeout, seconds */
};

int check_parse_options(int argc, const char **argv, struct check_opts *opts);
void check_free_options(struct check_opts *opts);
/* The process count the system checks assume: -n, else one per online CPU. */
int check_system_nprocs(const struct check_opts *opts);

/* report.c */
enum check_verdict { CHECK_OK, CHECK_WARN, CHECK_FAIL };
/* One line on stdout: "ok NAME: detail" or "warn|FAIL NAME: reason (fix: FIX)". */
void check_report(enum check_verdict verdict, const char *name, const char *fix,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same for CHECK_OK, which has no fix. */
void check_ok(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int check_failures(void);
/* gp-check's own messages: "gp-check: ..." on stderr. */
void check_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Bytes as text with a binary suffix: "24G", "2.2G", "512K", "100". */
void check_format_bytes(uint64_t bytes, char *buf, size_t len);
/* Seconds since an arbitrary start, monotonic. */
double check_now(void);

/* The system checks; each prints its lines. */
void check_env(void);
void check_shm(const struct check_opts *opts);
void check_memlock(const struct check_opts *opts);
void check_transports(void);

/* What a process of an N-process job may map, from the configuration (shm.c). */
uint64_t check_segment_limit(int nprocs);

/* hosts.c: the hosts named by the launcher variables (host_list.h's parser), without
 * repeats; 0, or -1 after reporting why the list could not be read.  host_list_free
 * releases them. */
int hosts_load(struct host_list *hosts);
/* hosts: NULL when the list could not be read. */
void check_hostname(const struct host_list *hosts);
void check_ssh(const struct check_opts *opts, const struct host_list *hosts);

/* --env and --env --man */
int check_env_list(const struct check_opts *opts);
void check_env_man(void);

/* suite.c: the conformance programs. */
struct suite_prog {
    const char *name;        /* the name on its report line */
    const char *program;     /* file name in the conformance directory */
    const char *args;        /* arguments, space-separated; "%n" is the process count */
    const char *quick_args;  /* the same for --quick; NULL: not part of --quick */
    const char *env;         /* VAR=VALUE settings, space-separated, or NULL */
    int exit_code;           /* the job's expected exit status */
    const char *expect;      /* text the job's output must contain, or NULL */
};
const struct suite_prog *suite_programs(size_t *count);
/* The directory holding the programs, next to gp-check's own (malloc'd), or NULL. */
char *suite_find_dir(const char *bin_dir, char *tried, size_t tried_len);
/* The directory of the running gp-check (malloc'd), or NULL. */
char *check_bin_dir(void);
/* gp-run next to gp-check, else in PATH (malloc'd), or NULL. */
char *check_find_gp_run(const char *bin_dir);

/* runner.c: --run; returns the exit status. */
int check_run_suite(const struct check_opts *opts);

#endif
