/*
 * The ssh spawner, gp-run's side.
 *
 * One agent per host, "gp-run --agent" run by the remote shell
 * (GASNET_SSH_CMD, GASNET_SSH_OPTIONS), talks to its parent over the
 * shell's stdin and stdout (link.h): the job's key and description go down
 * in one SETUP message, never on a command line; the ranks' output, their
 * pids and their exits come back.  The ranks themselves connect to gp-run's
 * control channel over TCP, as local ones do, so collectives, ABORT and
 * FINI work the same way whatever the spawner.
 *
 * The agents form a tree, as GASNet's ssh spawner does: gp-run starts at
 * most GASNET_SSH_OUT_DEGREE of them (default 32) and each starts the
 * agents of its own subtree the same way (tree.h), so no process holds more
 * than OUT_DEGREE remote shells, and start-up takes about depth x one
 * login.  gp-run keeps the host list's names and, per direct child, the
 * range of hosts (hence ranks) below it; whatever a child relays must name
 * a rank or host in that range.
 *
 * A host that doesn't answer within GP_SSH_TIMEOUT seconds, or whose shell
 * exits before its agent said HELLO, can't be reached: an error naming it,
 * and the job is taken down.  A host lost later (its shell exits while
 * ranks of its subtree are still running) is a failure of those ranks.  The
 * parent of that host says so (LOST, for an agent's child), and the host's
 * own children, their link closed, kill their ranks, so nothing is left
 * running elsewhere.
 */
#include "gp_run.h"
#include "link.h"
#include "tree.h"

#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Bytes of stdin queued for rank 0 before gp-run stops reading its own stdin. */
#define STDIN_QUEUE_MAX (1u << 20)

struct run_hosts {
    int count;               /* hosts of the job */
    char **names;            /* names[host] */
    int degree;              /* GASNET_SSH_OUT_DEGREE; 0: no limit */
    int nchild;
    struct tree_child *child; /* gp-run's own children; child[0] is host 0 (rank 0) */
    int tag_output;
    int stdin_fd;            /* gp-run's stdin, forwarded to rank 0; -1 if not */
    double timeout;
    sigset_t mask;           /* the signal mask remote shells start with */
};

/* Variables that describe this host or this shell, not the job. */
static char *const host_vars[] = {
    "HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY",
    "SSH_AUTH_SOCK", "TMUX", "TMUX_PANE", NULL
};

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ---- starting ------------------------------------------------------------------ */

/* GASNET_SSH_OUT_DEGREE (gp_config_load has checked it: a launcher row, not in gp_cfg). */
static int out_degree(void)
{
    const char *text = gp_config_getenv("GASNET_SSH_OUT_DEGREE");
    int64_t value;
    if (text == NULL || *text == '\0' || gp_config_parse_int(text, &value) != 0 || value < 0 ||
        value > RUN_MAX_PROCS)
        return TREE_DEFAULT_DEGREE;
    return (int)value;
}

/* The depth of the tree over n hosts: levels of agents below gp-run (the first run of a
 * split is the longest, so it is the deepest). */
static int tree_depth(int n, int degree)
{
    int depth = 0;
    while (n > 0) {
        int k = degree > 0 && degree < n ? degree : n;
        n = (n + k - 1) / k - 1;
        depth++;
    }
    return depth;
}

static void describe(const struct run_hosts *hosts, const struct run_job *job,
                     const char *remote_cmd, const char *cwd, const char *addr)
{
    run_note("job %s: %d process%s over %d host%s (ssh spawner); working directory %s",
             job->jobid, job->nprocs, job->nprocs == 1 ? "" : "es", hosts->count,
             hosts->count == 1 ? "" : "s", cwd);
    run_note("tree of agents: out-degree %d (GASNET_SSH_OUT_DEGREE), %d level%s below gp-run",
             hosts->degree, tree_depth(hosts->count, hosts->degree),
             tree_depth(hosts->count, hosts->degree) == 1 ? "" : "s");
    for (int h = 0; h < hosts->count; h++)
        run_note("host %s: ranks %d-%d", hosts->names[h], hosts_first_rank(job->nprocs, hosts->count, h),
                 hosts_first_rank(job->nprocs, hosts->count, h + 1) - 1);
    for (int c = 0; c < hosts->nchild; c++)
        if (hosts->child[c].last > hosts->child[c].host)
            run_note("gp-run starts host %s, with hosts %s..%s below it",
                     hosts->child[c].name, hosts->names[hosts->child[c].host + 1],
                     hosts->names[hosts->child[c].last]);
        else
            run_note("gp-run starts host %s", hosts->child[c].name);
    char **argv = sshcmd_build(hosts->names[0], remote_cmd);
    if (argv != NULL) {
        char line[1024] = "";
        size_t used = 0;
        for (size_t i = 0; argv[i] != NULL && used < sizeof line - 1; i++)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                     argv[i]);
        run_note("remote shell: %s (the key goes down its stdin)", line);
        run_note("control channel %s: ranks reach it at the address their first agent's "
                 "remote shell came from", addr);
    }
    sshcmd_free(argv);
}

int spawn_ssh_describe(struct run_job *job, const struct run_opts *opts)
{
    struct host_list list;
    if (hosts_load(opts, &list) != 0)
        return RUN_EXIT_USAGE;
    int nhosts = hosts_use(opts, &list);
    if (nhosts <= 0) {
        host_list_free(&list);
        return RUN_EXIT_USAGE;
    }
    int degree = out_degree();
    run_say("test only (-t): nothing is run; %d process%s of %s over %d host%s (ssh spawner, "
            "out-degree %d)", job->nprocs, job->nprocs == 1 ? "" : "es", opts->prog_path, nhosts,
            nhosts == 1 ? "" : "s", degree);
    char *remote_cmd = tree_agent_command();
    /* Who starts whom: walk the tree from gp-run. */
    int *parent = malloc((size_t)nhosts * sizeof *parent);
    int *stack = malloc(((size_t)nhosts + 1) * sizeof *stack);
    int *firsts = malloc(((size_t)nhosts + 1) * sizeof *firsts);
    int top = 0;
    if (parent != NULL && stack != NULL && firsts != NULL) {
        stack[top++] = -1;
        while (top > 0) {
            int p = stack[--top];
            int from = p + 1, to = p < 0 ? nhosts - 1 : parent[p];
            int n = tree_split(from, to, degree, firsts);
            for (int i = 0; i < n; i++) {
                parent[firsts[i]] = tree_child_last(firsts, n, i, to); /* its subtree's end */
                stack[top++] = firsts[i];
            }
        }
    }
    for (int h = 0; h < nhosts; h++) {
        int first = hosts_first_rank(job->nprocs, nhosts, h);
        int last = hosts_first_rank(job->nprocs, nhosts, h + 1) - 1;
        char **argv = remote_cmd != NULL ? sshcmd_build(list.names[h], remote_cmd) : NULL;
        char line[1024] = "";
        size_t used = 0;
        for (size_t i = 0; argv != NULL && argv[i] != NULL && used < sizeof line - 1; i++)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                     argv[i]);
        if (parent != NULL && stack != NULL && firsts != NULL && parent[h] > h)
            run_say("host %s: ranks %d-%d, hosts %s..%s below it, by: %s",
                    list.names[h], first, last, list.names[h + 1], list.names[parent[h]], line);
        else
            run_say("host %s: ranks %d-%d, by: %s", list.names[h], first, last, line);
        sshcmd_free(argv);
    }
    free(parent);
    free(stack);
    free(firsts);
    free(remote_cmd);
    host_list_free(&list);
    return 0;
}

int spawn_ssh(struct run_server *srv, const struct run_opts *opts, const sigset_t *child_mask)
{
    struct run_job *job = srv->job;
    struct host_list list;
    if (hosts_load(opts, &list) != 0)
        return -1;
    int nhosts = hosts_use(opts, &list);
    struct run_hosts *hosts = nhosts > 0 ? calloc(1, sizeof *hosts) : NULL;
    int *firsts = nhosts > 0 ? calloc((size_t)nhosts + 1, sizeof *firsts) : NULL;
    if (hosts == NULL || firsts == NULL) {
        free(hosts);
        free(firsts);
        host_list_free(&list);
        return -1;
    }
    /* The names are the job's now; the list keeps none. */
    hosts->names = list.names;
    hosts->count = nhosts;
    for (size_t h = (size_t)nhosts; h < list.count; h++)
        free(list.names[h]);
    hosts->degree = out_degree();
    hosts->nchild = tree_split(0, nhosts - 1, hosts->degree, firsts);
    hosts->child = calloc((size_t)hosts->nchild, sizeof *hosts->child);
    hosts->tag_output = opts->tag_output;
    hosts->mask = *child_mask;
    /* gp_config_load has checked it already (a launcher row: not stored in gp_cfg). */
    const char *timeout_text = gp_config_getenv("GP_SSH_TIMEOUT");
    if (timeout_text == NULL || gp_config_parse_double(timeout_text, &hosts->timeout) != 0 ||
        hosts->timeout <= 0)
        hosts->timeout = 30;
    hosts->stdin_fd = isatty(STDIN_FILENO) ? -1 : STDIN_FILENO;
    if (hosts->stdin_fd >= 0)
        set_nonblock(hosts->stdin_fd);
    job->hosts = hosts;
    if (hosts->child == NULL) {
        free(firsts);
        hosts->nchild = 0;
        return -1;
    }
    for (int h = 0; h < nhosts; h++)
        for (int r = hosts_first_rank(job->nprocs, nhosts, h);
             r < hosts_first_rank(job->nprocs, nhosts, h + 1); r++) {
            job->procs[r].host = h;
            job->procs[r].running = 1;
            job->running++;
        }
    char cwd[PATH_MAX];
    const char *remote_path = gp_config_getenv("GASNET_SSH_REMOTE_PATH");
    if (remote_path == NULL || *remote_path == '\0')
        remote_path = getcwd(cwd, sizeof cwd) != NULL ? cwd : "/";
    const char *port = strrchr(srv->addr, ':') + 1;
    const char *boot_host = gp_config_getenv("GP_RUN_HOST");
    char *remote_cmd = tree_agent_command();
    size_t base = 0;
    char **envp = spawn_base_env(&base, host_vars);
    int rc = remote_cmd == NULL || envp == NULL ? -1 : 0;
    if (envp != NULL)
        envp[base] = NULL;
    for (int c = 0; c < hosts->nchild; c++) {
        struct tree_child *child = &hosts->child[c];
        child->to_fd = child->from_fd = child->err_fd = -1;
        child->host = firsts[c];
        child->last = tree_child_last(firsts, hosts->nchild, c, nhosts - 1);
        child->name = strdup(hosts->names[child->host]);
        if (child->name == NULL)
            rc = -1;
    }
    if (rc == 0)
        describe(hosts, job, remote_cmd, remote_path, srv->addr);
    for (int c = 0; rc == 0 && c < hosts->nchild; c++) {
        struct tree_child *child = &hosts->child[c];
        struct agent_setup setup = {
            .jobid = job->jobid, .key = job->key, .port = port,
            .boot_host = boot_host != NULL ? boot_host : "", .nprocs = job->nprocs,
            .nhosts = nhosts, .host = child->host, .last = child->last,
            .degree = hosts->degree, .timeout = hosts->timeout, .verbose = run_verbose,
            .cwd = remote_path, .prog = opts->prog_path, .argv = opts->argv, .env = envp,
            .names = hosts->names + child->host + 1
        };
        if (setup_queue(&child->out, &setup) != 0 ||
            tree_child_start(child, remote_cmd, child_mask, hosts->timeout) != 0) {
            rc = -1;
            break;
        }
        link_flush(child->to_fd, &child->out);
    }
    free(envp);
    free(firsts);
    free(remote_cmd);
    return rc;
}

/* ---- running ------------------------------------------------------------------- */

int hosts_max_fds(const struct run_job *job)
{
    return job->hosts != NULL ? 3 * job->hosts->nchild + 1 : 0;
}

int hosts_pollfds(struct run_server *srv, struct pollfd *pfds, int at)
{
    struct run_hosts *hosts = srv->job->hosts;
    if (hosts == NULL)
        return at;
    for (int c = 0; c < hosts->nchild; c++) {
        struct tree_child *child = &hosts->child[c];
        pfds[at++] = (struct pollfd){ .fd = child->from_fd, .events = POLLIN };
        pfds[at++] = (struct pollfd){ .fd = child->err_fd, .events = POLLIN };
        pfds[at++] = (struct pollfd){ .fd = child->out.used > 0 ? child->to_fd : -1,
                                      .events = POLLOUT };
    }
    int room = hosts->nchild > 0 && hosts->child[0].to_fd >= 0 &&
               hosts->child[0].out.used < STDIN_QUEUE_MAX;
    pfds[at++] = (struct pollfd){ .fd = room ? hosts->stdin_fd : -1, .events = POLLIN };
    return at;
}

static void write_all(int fd, const char *bytes, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, bytes, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            poll(&pfd, 1, 100);
            continue;
        }
        if (n <= 0)
            return; /* our own output is gone: nothing better to do with the job's */
        bytes += n;
        len -= (size_t)n;
    }
}

/* A rank's output, whole lines, to our stdout or stderr, tagged if asked. */
static void emit_output(struct run_hosts *hosts, int fd, uint32_t rank, const char *bytes,
                        size_t len)
{
    if (!hosts->tag_output) {
        write_all(fd, bytes, len);
        return;
    }
    char tag[24];
    int tag_len = snprintf(tag, sizeof tag, "[%u] ", rank);
    while (len > 0) {
        const char *nl = memchr(bytes, '\n', len);
        size_t line = nl != NULL ? (size_t)(nl - bytes) + 1 : len;
        char buf[LINK_CHUNK + 32];
        size_t n = line < LINK_CHUNK ? line : LINK_CHUNK;
        memcpy(buf, tag, (size_t)tag_len);
        memcpy(buf + tag_len, bytes, n);
        write_all(fd, buf, (size_t)tag_len + n);
        bytes += n;
        len -= n;
    }
}

struct err_ctx {
    const char *host;
};

static void emit_shell_error(void *arg, const char *bytes, size_t n)
{
    const struct err_ctx *ctx = arg;
    while (n > 0) {
        const char *nl = memchr(bytes, '\n', n);
        size_t line = nl != NULL ? (size_t)(nl - bytes) : n;
        run_say("host %s: %.*s", ctx->host, (int)line, bytes);
        size_t step = nl != NULL ? line + 1 : line;
        bytes += step;
        n -= step;
    }
}

/* "4-7" or "4, 6" for the ranks from first (count of them) still running. */
static void running_text(const struct run_job *job, int first, int count, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = first; r < first + count && used + 16 < len; r++)
        if (job->procs[r].running)
            used += (size_t)snprintf(out + used, len - used, "%s%d", used ? ", " : "", r);
}

/* Hosts host..last are gone (text says how): the job fails, their ranks with it. */
static void subtree_lost(struct run_server *srv, int host, int last, const char *text)
{
    struct run_hosts *hosts = srv->job->hosts;
    int first, count;
    tree_ranks(srv->job->nprocs, hosts->count, host, last, &first, &count);
    char ranks[256];
    running_text(srv->job, first, count, ranks, sizeof ranks);
    if (ranks[0] == '\0')
        return;
    if (last > host)
        job_fail(srv, 1, "host %s %s; ranks %s (its own and those of hosts %s..%s, started "
                 "from it) are lost", hosts->names[host], text, ranks, hosts->names[host + 1],
                 hosts->names[last]);
    else
        job_fail(srv, 1, "host %s %s; ranks %s are lost", hosts->names[host], text, ranks);
    for (int r = first; r < first + count; r++)
        job_rank_lost(srv, r);
}

/* The u32 host at the head of payload, if it lies in child's subtree; else -1. */
static int host_in(const struct tree_child *child, const uint8_t *payload, uint32_t len)
{
    if (len < 4)
        return -1;
    uint32_t host = gp_wire_get32(payload);
    return host >= (uint32_t)child->host && host <= (uint32_t)child->last ? (int)host : -1;
}

static void handle_message(struct run_server *srv, struct tree_child *child, uint32_t type,
                           const uint8_t *payload, uint32_t len)
{
    struct run_hosts *hosts = srv->job->hosts;
    int first, count;
    tree_ranks(srv->job->nprocs, hosts->count, child->host, child->last, &first, &count);
    int by_host = type == LINK_HELLO || type == LINK_FAIL || type == LINK_LOST ||
                  type == LINK_SAY;
    int who = by_host ? host_in(child, payload, len)
                      : len >= 4 ? (int)gp_wire_get32(payload) : -1;
    if (!by_host && (who < first || who >= first + count))
        who = -1;
    if (who < 0) {
        run_say("host %s: its agent named a %s outside its subtree; ignored", child->name,
                by_host ? "host" : "rank");
        return;
    }
    const char *text = (const char *)payload + 4;
    int text_len = (int)(len - 4 < 1000 ? len - 4 : 1000);
    switch (type) {
    case LINK_HELLO:
        if (who == child->host)
            child->hello = 1;
        run_note("host %s: agent up (%.*s)", hosts->names[who], text_len < 200 ? text_len : 200,
                 text);
        break;
    case LINK_STARTED:
        if (len == 8)
            srv->job->procs[who].pid = (pid_t)gp_wire_get32(payload + 4);
        break;
    case LINK_OUT:
    case LINK_ERR:
        emit_output(hosts, type == LINK_OUT ? STDOUT_FILENO : STDERR_FILENO, (uint32_t)who,
                    text, len - 4);
        break;
    case LINK_EXIT:
        if (len == 8)
            job_rank_ended(srv, who, (int)gp_wire_get32(payload + 4));
        break;
    case LINK_STATS:
        mirror_write(srv->job, who, payload + 4, len - 4);
        break;
    case LINK_FAIL:
        job_fail(srv, 1, "host %s: %.*s", hosts->names[who], text_len, text);
        break;
    case LINK_SAY:
        run_say("host %s: %.*s", hosts->names[who], text_len, text);
        break;
    case LINK_LOST: {
        int last = len >= 8 ? (int)gp_wire_get32(payload + 4) : -1;
        if (who == child->host || last < who || last > child->last) {
            run_say("host %s: its agent named a lost subtree not below it; ignored",
                    child->name);
            break;
        }
        char why[1024];
        snprintf(why, sizeof why, "%.*s", (int)(len - 8 < 1000 ? len - 8 : 1000),
                 (const char *)payload + 8);
        subtree_lost(srv, who, last, why);
        break;
    }
    default:
        run_say("host %s: its agent sent a message meant for agents; ignored", child->name);
    }
}

static void read_link(struct run_server *srv, struct tree_child *child)
{
    tree_child_read(child);
    uint32_t type, len;
    const uint8_t *payload;
    const char *why = NULL;
    int got;
    while ((got = link_next(&child->in, &type, &payload, &len, &why)) == 1) {
        handle_message(srv, child, type, payload, len);
        link_buf_consume(&child->in, LINK_HDR + (size_t)len);
    }
    if (got < 0) {
        job_fail(srv, 1, "host %s: its agent sent %s", child->name, why);
        tree_child_hang_up(child);
        if (child->from_fd >= 0)
            close(child->from_fd);
        child->from_fd = -1;
        link_buf_free(&child->in);
    }
}

static void forward_stdin(struct run_hosts *hosts)
{
    struct tree_child *child = &hosts->child[0];
    char chunk[65536];
    ssize_t n = read(hosts->stdin_fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        link_queue(&child->out, LINK_STDIN_EOF, NULL, 0, NULL, 0);
        hosts->stdin_fd = -1;
    } else {
        link_queue(&child->out, LINK_STDIN, chunk, (size_t)n, NULL, 0);
    }
    if (child->to_fd >= 0 && link_flush(child->to_fd, &child->out) != 0)
        tree_child_hang_up(child);
}

void hosts_service(struct run_server *srv, struct pollfd *pfds, int from, int to)
{
    struct run_hosts *hosts = srv->job->hosts;
    if (hosts == NULL)
        return;
    int at = from;
    for (int c = 0; c < hosts->nchild && at + 2 < to; c++, at += 3) {
        struct tree_child *child = &hosts->child[c];
        if (pfds[at].revents != 0 && pfds[at].fd == child->from_fd && child->from_fd >= 0)
            read_link(srv, child);
        if (pfds[at + 1].revents != 0 && pfds[at + 1].fd == child->err_fd &&
            child->err_fd >= 0) {
            struct err_ctx ctx = { .host = child->name };
            tree_child_read_errors(child, emit_shell_error, &ctx);
        }
        if (pfds[at + 2].revents != 0 && pfds[at + 2].fd == child->to_fd &&
            link_flush(child->to_fd, &child->out) != 0)
            tree_child_hang_up(child);
    }
    if (at < to && pfds[at].revents != 0 && pfds[at].fd == hosts->stdin_fd &&
        hosts->stdin_fd >= 0)
        forward_stdin(hosts);
}

const char *hosts_rank_host(const struct run_job *job, int rank)
{
    const struct run_hosts *hosts = job->hosts;
    int host = job->procs[rank].host;
    return hosts != NULL && host >= 0 && host < hosts->count ? hosts->names[host] : NULL;
}

int hosts_reaped(struct run_server *srv, pid_t pid, int status)
{
    struct run_hosts *hosts = srv->job->hosts;
    for (int c = 0; hosts != NULL && c < hosts->nchild; c++) {
        struct tree_child *child = &hosts->child[c];
        if (tree_sweep_reaped(child, pid))
            return 1;
        if (child->pid != pid || pid == 0)
            continue;
        child->pid = 0;
        /* What the agent said before it went still counts (exits above all). */
        if (child->from_fd >= 0)
            read_link(srv, child);
        if (child->err_fd >= 0) {
            struct err_ctx ctx = { .host = child->name };
            tree_child_read_errors(child, emit_shell_error, &ctx);
        }
        tree_child_hang_up(child);
        char text[600];
        tree_lost_text(child, status, hosts->timeout, "gp-run's host", text, sizeof text);
        int first, count;
        tree_ranks(srv->job->nprocs, hosts->count, child->host, child->last, &first, &count);
        /* Its agent gone while ranks ran: nobody there removes the job's objects. */
        for (int r = first; r < first + count && !child->killed; r++)
            if (srv->job->procs[r].running) {
                tree_sweep_start(child, status, srv->job->jobid, &hosts->mask, hosts->timeout);
                break;
            }
        if (child->killed) /* the job was already ended: its ranks are gone, quietly */
            for (int r = first; r < first + count; r++)
                job_rank_lost(srv, r);
        else
            subtree_lost(srv, child->host, child->last, text);
        return 1;
    }
    return 0;
}

void hosts_signal(struct run_job *job, int sig)
{
    struct run_hosts *hosts = job->hosts;
    for (int c = 0; c < hosts->nchild; c++)
        if (tree_child_signal(&hosts->child[c], sig) == 0 && sig == SIGKILL)
            hosts->child[c].killed = 1; /* its end is ours, not a lost host */
}

void hosts_tick(struct run_server *srv, double now)
{
    struct run_hosts *hosts = srv->job->hosts;
    for (int c = 0; hosts != NULL && c < hosts->nchild; c++) {
        struct tree_child *child = &hosts->child[c];
        if (child->pid > 0 && !child->hello && !child->timed_out && now >= child->deadline) {
            child->timed_out = 1;
            kill(child->pid, SIGKILL);
        }
        tree_sweep_tick(child, now);
        /* Once every rank is done, a link left open only keeps an agent waiting. */
        if (srv->job->running == 0 && child->to_fd >= 0 && child->out.used == 0)
            tree_child_hang_up(child);
    }
}

int hosts_active(const struct run_server *srv)
{
    const struct run_hosts *hosts = srv->job->hosts;
    for (int c = 0; hosts != NULL && c < hosts->nchild; c++)
        if (hosts->child[c].pid > 0 || hosts->child[c].sweep_pid > 0)
            return 1;
    return 0;
}

void hosts_close(struct run_job *job)
{
    struct run_hosts *hosts = job->hosts;
    if (hosts == NULL)
        return;
    for (int c = 0; c < hosts->nchild; c++)
        tree_child_free(&hosts->child[c]);
    for (int h = 0; h < hosts->count; h++)
        free(hosts->names[h]);
    free(hosts->names);
    free(hosts->child);
    free(hosts);
    job->hosts = NULL;
    mirror_close_all();
}
