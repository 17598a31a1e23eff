/*
 * The ssh spawner, gp-run's side.
 *
 * gp-run starts one agent per host, "gp-run --agent" run by the remote
 * shell (GASNET_SSH_CMD, GASNET_SSH_OPTIONS), and talks to it over the
 * shell's stdin and stdout (link.h): the job's key and description go down
 * in one SETUP message, never on a command line; the ranks' output, their
 * pids and their exits come back.  The ranks themselves connect to gp-run's
 * control channel over TCP, as local ones do, so collectives, ABORT and
 * FINI work the same way whatever the spawner.
 *
 * The fan-out is flat: gp-run holds one remote shell per host, three pipes
 * each, and starts them all at once.  Up to RUN_MAX_SSH_HOSTS hosts that
 * costs well under the descriptor limit and, since the shells connect in
 * parallel, start-up time is about one ssh login, not one per host.  A
 * tree (GASNET_SSH_OUT_DEGREE) would only pay for itself beyond that,
 * where a cluster's own launcher (PMIx) is the better tool anyway.
 *
 * A host that doesn't answer within GP_SSH_TIMEOUT seconds, or whose shell
 * exits before its agent said HELLO, can't be reached: an error naming it,
 * and the job is taken down.  A host lost later (its shell exits while
 * ranks there are still running) is a failure of those ranks.  Either way
 * closing a link makes its agent kill the host's ranks, so nothing is left
 * running elsewhere.
 */
#include "gp_run.h"
#include "link.h"

#include "conduit/config.h"

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

struct run_host {
    char *name;
    pid_t pid;               /* the remote shell; 0 once reaped */
    int to_fd;               /* the agent's stdin */
    int from_fd;             /* the agent's stdout: link messages */
    int err_fd;              /* the shell's (and the agent's own) stderr */
    struct link_buf out;
    struct link_buf in;
    struct line_buf err_lines;
    int first_rank;
    int count;
    int hello;
    int timed_out;
    double deadline;
};

struct run_hosts {
    int count;
    struct run_host *host;
    int tag_output;
    int stdin_fd;            /* gp-run's stdin, forwarded to rank 0; -1 if not */
    double timeout;
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

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- starting ------------------------------------------------------------------ */

static char *agent_command(void)
{
    const char *configured = getenv("GP_RUN_AGENT");
    char self[PATH_MAX];
    if (configured == NULL || *configured == '\0') {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return NULL;
        self[n] = '\0';
        configured = self;
    }
    char *quoted = sshcmd_quote(configured), *cmd = NULL;
    if (quoted != NULL && asprintf(&cmd, "exec %s --agent", quoted) < 0)
        cmd = NULL;
    free(quoted);
    return cmd;
}

static int pack_int(struct link_buf *out, long value)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    return link_pack_str(out, text);
}

/* The SETUP message for host h: everything its agent needs, in a fixed order. */
static int queue_setup(struct run_host *host, const struct run_job *job,
                       const struct run_opts *opts, const char *port, const char *cwd)
{
    struct link_buf body = { 0 };
    char key_hex[2 * GP_KEY_LEN + 1];
    gp_wire_hex(job->key, GP_KEY_LEN, key_hex);
    int rc = link_pack_str(&body, "gp-agent-1") | link_pack_str(&body, job->jobid) |
             link_pack_str(&body, key_hex) | link_pack_str(&body, port) |
             pack_int(&body, job->nprocs) | pack_int(&body, host->first_rank) |
             pack_int(&body, host->count) | link_pack_str(&body, cwd) |
             link_pack_str(&body, opts->prog_path) | pack_int(&body, run_verbose);
    size_t argc = 0, envc = 0;
    while (opts->argv[argc] != NULL)
        argc++;
    rc |= pack_int(&body, (long)argc);
    for (size_t i = 0; i < argc; i++)
        rc |= link_pack_str(&body, opts->argv[i]);
    size_t base = 0;
    char **envp = spawn_base_env(&base, host_vars);
    rc |= envp == NULL;
    for (size_t i = 0; envp != NULL && i < base; i++)
        envc++;
    rc |= pack_int(&body, (long)envc);
    for (size_t i = 0; envp != NULL && i < base; i++)
        rc |= link_pack_str(&body, envp[i]);
    free(envp);
    memset(key_hex, 0, sizeof key_hex);
    if (rc == 0 && body.used > LINK_MAX_PAYLOAD) {
        run_say("the job's description for the hosts is %zu bytes, more than %u: is the "
                "environment that large?", body.used, LINK_MAX_PAYLOAD);
        rc = -1;
    }
    if (rc == 0)
        rc = link_queue(&host->out, LINK_SETUP, body.data, body.used, NULL, 0);
    memset(body.data, 0, body.cap);
    link_buf_free(&body);
    return rc;
}

static int start_shell(struct run_host *host, char **argv, const sigset_t *child_mask)
{
    int to[2], from[2], err[2];
    if (pipe2(to, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(from, O_CLOEXEC) != 0) {
        close(to[0]), close(to[1]);
        return -1;
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(to[0]), close(to[1]), close(from[0]), close(from[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* Its own process group: the terminal's Ctrl-C is gp-run's to pass on. */
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, child_mask, NULL);
        dup2(to[0], STDIN_FILENO);
        dup2(from[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        execv(argv[0], argv);
        fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(to[0]), close(from[1]), close(err[1]);
    if (pid < 0) {
        close(to[1]), close(from[0]), close(err[0]);
        return -1;
    }
    host->pid = pid;
    host->to_fd = to[1];
    host->from_fd = from[0];
    host->err_fd = err[0];
    set_nonblock(host->to_fd);
    set_nonblock(host->from_fd);
    set_nonblock(host->err_fd);
    return 0;
}

static void describe(const struct run_hosts *hosts, const struct run_job *job,
                     char **argv_example, const char *cwd, const char *addr)
{
    run_note("job %s: %d process%s over %d host%s (ssh spawner); working directory %s",
             job->jobid, job->nprocs, job->nprocs == 1 ? "" : "es", hosts->count,
             hosts->count == 1 ? "" : "s", cwd);
    for (int h = 0; h < hosts->count; h++)
        run_note("host %s: ranks %d-%d", hosts->host[h].name, hosts->host[h].first_rank,
                 hosts->host[h].first_rank + hosts->host[h].count - 1);
    if (argv_example != NULL) {
        char line[1024] = "";
        size_t used = 0;
        for (size_t i = 0; argv_example[i] != NULL && used < sizeof line - 1; i++)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                     argv_example[i]);
        run_note("remote shell: %s (the key goes down its stdin)", line);
        run_note("control channel %s: ranks reach it at the address their remote shell "
                 "came from", addr);
    }
}

int spawn_ssh_describe(struct run_job *job, const struct run_opts *opts)
{
    struct host_list list;
    if (hosts_load(opts, &list) != 0)
        return RUN_EXIT_USAGE;
    int nhosts = hosts_use(opts, &list);
    if (nhosts <= 0) {
        hosts_free(&list);
        return RUN_EXIT_USAGE;
    }
    run_say("test only (-t): nothing is run; %d process%s of %s over %d host%s (ssh spawner)",
            job->nprocs, job->nprocs == 1 ? "" : "es", opts->prog_path, nhosts,
            nhosts == 1 ? "" : "s");
    char *remote_cmd = agent_command();
    for (int h = 0; h < nhosts; h++) {
        int first = hosts_first_rank(job->nprocs, nhosts, h);
        int last = hosts_first_rank(job->nprocs, nhosts, h + 1) - 1;
        char **argv = remote_cmd != NULL ? sshcmd_build(list.names[h], remote_cmd) : NULL;
        char line[1024] = "";
        size_t used = 0;
        for (size_t i = 0; argv != NULL && argv[i] != NULL && used < sizeof line - 1; i++)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                     argv[i]);
        run_say("host %s: ranks %d-%d, by: %s", list.names[h], first, last, line);
        sshcmd_free(argv);
    }
    free(remote_cmd);
    hosts_free(&list);
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
    if (hosts != NULL)
        hosts->host = calloc((size_t)nhosts, sizeof *hosts->host);
    if (hosts == NULL || hosts->host == NULL) {
        if (hosts != NULL)
            free(hosts);
        hosts_free(&list);
        return -1;
    }
    hosts->count = nhosts;
    hosts->tag_output = opts->tag_output;
    /* gp_config_load has checked it already (a launcher row: not stored in gp_cfg). */
    const char *timeout_text = gp_config_getenv("GP_SSH_TIMEOUT");
    if (timeout_text == NULL || gp_config_parse_double(timeout_text, &hosts->timeout) != 0 ||
        hosts->timeout <= 0)
        hosts->timeout = 30;
    hosts->stdin_fd = isatty(STDIN_FILENO) ? -1 : STDIN_FILENO;
    if (hosts->stdin_fd >= 0)
        set_nonblock(hosts->stdin_fd);
    job->hosts = hosts;
    char cwd[PATH_MAX];
    const char *remote_path = gp_config_getenv("GASNET_SSH_REMOTE_PATH");
    if (remote_path == NULL || *remote_path == '\0')
        remote_path = getcwd(cwd, sizeof cwd) != NULL ? cwd : "/";
    const char *port = strrchr(srv->addr, ':') + 1;
    char *remote_cmd = agent_command();
    int rc = remote_cmd == NULL ? -1 : 0;
    for (int h = 0; h < nhosts; h++) {
        struct run_host *host = &hosts->host[h];
        host->name = strdup(list.names[h]);
        host->to_fd = host->from_fd = host->err_fd = -1;
        host->first_rank = hosts_first_rank(job->nprocs, nhosts, h);
        host->count = hosts_first_rank(job->nprocs, nhosts, h + 1) - host->first_rank;
        for (int r = host->first_rank; r < host->first_rank + host->count; r++) {
            job->procs[r].host = h;
            job->procs[r].running = 1;
            job->running++;
        }
    }
    for (int h = 0; rc == 0 && h < nhosts; h++) {
        struct run_host *host = &hosts->host[h];
        char **argv = sshcmd_build(host->name, remote_cmd);
        if (argv == NULL || queue_setup(host, job, opts, port, remote_path) != 0) {
            sshcmd_free(argv);
            rc = -1;
            break;
        }
        if (h == 0)
            describe(hosts, job, argv, remote_path, srv->addr);
        if (start_shell(host, argv, child_mask) != 0) {
            run_say("host %s: cannot start %s: %m", host->name, argv[0]);
            rc = -1;
        }
        host->deadline = run_now() + hosts->timeout;
        sshcmd_free(argv);
        link_flush(host->to_fd, &host->out);
    }
    free(remote_cmd);
    hosts_free(&list);
    return rc;
}

/* ---- running ------------------------------------------------------------------- */

static int host_of_rank0(const struct run_hosts *hosts)
{
    return hosts->count > 0 ? 0 : -1;
}

int hosts_max_fds(const struct run_job *job)
{
    return job->hosts != NULL ? 3 * job->hosts->count + 1 : 0;
}

int hosts_pollfds(struct run_server *srv, struct pollfd *pfds, int at)
{
    struct run_hosts *hosts = srv->job->hosts;
    if (hosts == NULL)
        return at;
    for (int h = 0; h < hosts->count; h++) {
        struct run_host *host = &hosts->host[h];
        pfds[at++] = (struct pollfd){ .fd = host->from_fd, .events = POLLIN };
        pfds[at++] = (struct pollfd){ .fd = host->err_fd, .events = POLLIN };
        pfds[at++] = (struct pollfd){ .fd = host->out.used > 0 ? host->to_fd : -1,
                                      .events = POLLOUT };
    }
    int r0 = host_of_rank0(hosts);
    int room = r0 >= 0 && hosts->host[r0].to_fd >= 0 &&
               hosts->host[r0].out.used < STDIN_QUEUE_MAX;
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

static void lose_link(struct run_host *host)
{
    close_fd(&host->to_fd);
    link_buf_free(&host->out);
}

static int rank_of_host(const struct run_host *host, const uint8_t *payload, uint32_t len)
{
    if (len < 4)
        return -1;
    int rank = (int)gp_wire_get32(payload);
    return rank >= host->first_rank && rank < host->first_rank + host->count ? rank : -1;
}

static void handle_message(struct run_server *srv, struct run_host *host, uint32_t type,
                           const uint8_t *payload, uint32_t len)
{
    struct run_hosts *hosts = srv->job->hosts;
    int rank = type == LINK_HELLO || type == LINK_FAIL ? 0 : rank_of_host(host, payload, len);
    if (rank < 0) {
        run_say("host %s: its agent named a rank it does not run; ignored", host->name);
        return;
    }
    switch (type) {
    case LINK_HELLO:
        host->hello = 1;
        run_note("host %s: agent up (%.*s)", host->name, (int)(len < 200 ? len : 200),
                 (const char *)payload);
        break;
    case LINK_STARTED:
        if (len == 8)
            srv->job->procs[rank].pid = (pid_t)gp_wire_get32(payload + 4);
        break;
    case LINK_OUT:
    case LINK_ERR:
        emit_output(hosts, type == LINK_OUT ? STDOUT_FILENO : STDERR_FILENO, (uint32_t)rank,
                    (const char *)payload + 4, len - 4);
        break;
    case LINK_EXIT:
        if (len == 8)
            job_rank_ended(srv, rank, (int)gp_wire_get32(payload + 4));
        break;
    case LINK_STATS:
        mirror_write(srv->job, rank, payload + 4, len - 4);
        break;
    case LINK_FAIL:
        job_fail(srv, 1, "host %s: %.*s", host->name, (int)(len < 1000 ? len : 1000),
                 (const char *)payload);
        break;
    default:
        run_say("host %s: its agent sent a message meant for agents; ignored", host->name);
    }
}

static void read_link(struct run_server *srv, struct run_host *host)
{
    uint8_t chunk[65536];
    for (;;) {
        ssize_t n = read(host->from_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            close_fd(&host->from_fd);
            break;
        }
        if (link_buf_append(&host->in, chunk, (size_t)n) != 0) {
            job_fail(srv, 1, "out of memory reading host %s's messages", host->name);
            close_fd(&host->from_fd);
            break;
        }
    }
    uint32_t type, len;
    const uint8_t *payload;
    const char *why = NULL;
    int got;
    while ((got = link_next(&host->in, &type, &payload, &len, &why)) == 1) {
        handle_message(srv, host, type, payload, len);
        link_buf_consume(&host->in, LINK_HDR + (size_t)len);
    }
    if (got < 0) {
        job_fail(srv, 1, "host %s: its agent sent %s", host->name, why);
        close_fd(&host->from_fd);
        lose_link(host);
    }
}

static void read_shell_errors(struct run_host *host)
{
    char chunk[4096];
    struct err_ctx ctx = { .host = host->name };
    for (;;) {
        ssize_t n = read(host->err_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            line_flush(&host->err_lines, emit_shell_error, &ctx);
            close_fd(&host->err_fd);
            return;
        }
        line_feed(&host->err_lines, chunk, (size_t)n, emit_shell_error, &ctx);
    }
}

static void forward_stdin(struct run_hosts *hosts)
{
    struct run_host *host = &hosts->host[host_of_rank0(hosts)];
    char chunk[65536];
    ssize_t n = read(hosts->stdin_fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        link_queue(&host->out, LINK_STDIN_EOF, NULL, 0, NULL, 0);
        hosts->stdin_fd = -1;
    } else {
        link_queue(&host->out, LINK_STDIN, chunk, (size_t)n, NULL, 0);
    }
    if (host->to_fd >= 0 && link_flush(host->to_fd, &host->out) != 0)
        lose_link(host);
}

void hosts_service(struct run_server *srv, struct pollfd *pfds, int from, int to)
{
    struct run_hosts *hosts = srv->job->hosts;
    if (hosts == NULL)
        return;
    int at = from;
    for (int h = 0; h < hosts->count && at + 2 < to; h++, at += 3) {
        struct run_host *host = &hosts->host[h];
        if (pfds[at].revents != 0 && pfds[at].fd == host->from_fd)
            read_link(srv, host);
        if (pfds[at + 1].revents != 0 && pfds[at + 1].fd == host->err_fd)
            read_shell_errors(host);
        if (pfds[at + 2].revents != 0 && pfds[at + 2].fd == host->to_fd &&
            link_flush(host->to_fd, &host->out) != 0)
            lose_link(host);
    }
    if (at < to && pfds[at].revents != 0 && pfds[at].fd == hosts->stdin_fd &&
        hosts->stdin_fd >= 0)
        forward_stdin(hosts);
}

/* "4-7" or "4, 6" for the ranks of host still running. */
static void running_text(const struct run_job *job, const struct run_host *host, char *out,
                         size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = host->first_rank; r < host->first_rank + host->count && used + 16 < len; r++)
        if (job->procs[r].running)
            used += (size_t)snprintf(out + used, len - used, "%s%d", used ? ", " : "", r);
}

int hosts_reaped(struct run_server *srv, pid_t pid, int status)
{
    struct run_hosts *hosts = srv->job->hosts;
    for (int h = 0; hosts != NULL && h < hosts->count; h++) {
        struct run_host *host = &hosts->host[h];
        if (host->pid != pid || pid == 0)
            continue;
        host->pid = 0;
        /* What the agent said before it went still counts (exits above all). */
        if (host->from_fd >= 0)
            read_link(srv, host);
        if (host->err_fd >= 0)
            read_shell_errors(host);
        lose_link(host);
        char ranks[256], how[64];
        running_text(srv->job, host, ranks, sizeof ranks);
        if (WIFEXITED(status))
            snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
        else
            snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
        if (ranks[0] == '\0')
            return 1;
        if (host->timed_out)
            job_fail(srv, 1, "host %s can't be reached: no answer within %.15g s (GP_SSH_TIMEOUT); "
                     "ranks %s not started", host->name, hosts->timeout, ranks);
        else if (!host->hello)
            job_fail(srv, 1, "host %s can't be reached: the remote shell %s before gp-run's "
                     "agent answered (its messages, if any, are above); ranks %s not started",
                     host->name, how, ranks);
        else
            job_fail(srv, 1, "host %s lost: the remote shell %s while ranks %s were running",
                     host->name, how, ranks);
        for (int r = host->first_rank; r < host->first_rank + host->count; r++)
            job_rank_lost(srv, r);
        return 1;
    }
    return 0;
}

void hosts_signal(struct run_job *job, int sig)
{
    struct run_hosts *hosts = job->hosts;
    uint8_t payload[4];
    gp_wire_put32(payload, (uint32_t)sig);
    for (int h = 0; h < hosts->count; h++) {
        struct run_host *host = &hosts->host[h];
        if (host->to_fd < 0)
            continue;
        link_queue(&host->out, LINK_SIGNAL, payload, sizeof payload, NULL, 0);
        if (link_flush(host->to_fd, &host->out) != 0)
            lose_link(host);
        /* SIGKILL: don't count on a busy agent; a closed link kills the host's ranks. */
        if (sig == SIGKILL)
            lose_link(host);
    }
}

void hosts_tick(struct run_server *srv, double now)
{
    struct run_hosts *hosts = srv->job->hosts;
    for (int h = 0; hosts != NULL && h < hosts->count; h++) {
        struct run_host *host = &hosts->host[h];
        if (host->pid > 0 && !host->hello && !host->timed_out && now >= host->deadline) {
            host->timed_out = 1;
            kill(host->pid, SIGKILL);
        }
        /* Once every rank is done, a link left open only keeps an agent waiting. */
        if (srv->job->running == 0 && host->to_fd >= 0 && host->out.used == 0)
            lose_link(host);
    }
}

int hosts_active(const struct run_server *srv)
{
    const struct run_hosts *hosts = srv->job->hosts;
    for (int h = 0; hosts != NULL && h < hosts->count; h++)
        if (hosts->host[h].pid > 0)
            return 1;
    return 0;
}

void hosts_close(struct run_job *job)
{
    struct run_hosts *hosts = job->hosts;
    if (hosts == NULL)
        return;
    for (int h = 0; h < hosts->count; h++) {
        struct run_host *host = &hosts->host[h];
        lose_link(host);
        close_fd(&host->from_fd);
        close_fd(&host->err_fd);
        link_buf_free(&host->in);
        free(host->name);
    }
    free(hosts->host);
    free(hosts);
    job->hosts = NULL;
    mirror_close_all();
}
