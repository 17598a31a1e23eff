/*
 * The ssh spawner's tree (tree.h): the split, SETUP, one child's shell.
 */
#include "tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tree_split(int first, int last, int degree, int *child_first)
{
    int n = last - first + 1;
    if (n <= 0)
        return 0;
    int k = degree > 0 && degree < n ? degree : n;
    int base = n / k, extra = n % k, at = first;
    for (int i = 0; i < k; i++) {
        child_first[i] = at;
        at += base + (i < extra);
    }
    return k;
}

int tree_child_last(const int *child_first, int n, int i, int last)
{
    return i + 1 < n ? child_first[i + 1] - 1 : last;
}

/* ---- SETUP ------------------------------------------------------------------------ */

static int pack_int(struct link_buf *out, long value)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    return link_pack_str(out, text);
}

static int pack_list(struct link_buf *out, char *const *list, size_t count)
{
    int rc = pack_int(out, (long)count);
    for (size_t i = 0; i < count; i++)
        rc |= link_pack_str(out, list[i]);
    return rc;
}

static size_t list_len(char *const *list)
{
    size_t n = 0;
    while (list[n] != NULL)
        n++;
    return n;
}

int setup_queue(struct link_buf *out, const struct agent_setup *s)
{
    struct link_buf body = { 0 };
    char key_hex[2 * GP_KEY_LEN + 1], timeout[32];
    gp_wire_hex(s->key, GP_KEY_LEN, key_hex);
    snprintf(timeout, sizeof timeout, "%.17g", s->timeout);
    int rc = link_pack_str(&body, SETUP_MAGIC) | link_pack_str(&body, s->jobid) |
             link_pack_str(&body, key_hex) | link_pack_str(&body, s->port) |
             link_pack_str(&body, s->boot_host) | pack_int(&body, s->nprocs) |
             pack_int(&body, s->nhosts) | pack_int(&body, s->host) | pack_int(&body, s->last) |
             pack_int(&body, s->degree) | link_pack_str(&body, timeout) |
             link_pack_str(&body, s->cwd) | link_pack_str(&body, s->prog) |
             pack_int(&body, s->verbose);
    rc |= pack_list(&body, s->argv, list_len(s->argv));
    rc |= pack_list(&body, s->env, list_len(s->env));
    rc |= pack_list(&body, s->names, (size_t)(s->last - s->host));
    memset(key_hex, 0, sizeof key_hex);
    if (rc != 0)
        run_say("out of memory packing the job's description for the hosts");
    if (rc == 0 && body.used > LINK_MAX_PAYLOAD) {
        run_say("the job's description for the hosts is %zu bytes, more than %u: is the "
                "environment that large?", body.used, LINK_MAX_PAYLOAD);
        rc = -1;
    }
    if (rc == 0)
        rc = link_queue(out, LINK_SETUP, body.data, body.used, NULL, 0);
    if (body.data != NULL)
        memset(body.data, 0, body.cap); /* it holds the key */
    link_buf_free(&body);
    return rc;
}

/* ---- one child --------------------------------------------------------------------- */

char *tree_agent_command(void)
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

int tree_child_start(struct tree_child *child, const char *remote_cmd, const sigset_t *mask,
                     double timeout)
{
    char **argv = sshcmd_build(child->name, remote_cmd);
    int to[2] = { -1, -1 }, from[2] = { -1, -1 }, err[2] = { -1, -1 };
    if (argv == NULL)
        return -1;
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        run_say("host %s: cannot make pipes for its remote shell: %m", child->name);
        for (int i = 0; i < 2; i++)
            close_fd(&to[i]), close_fd(&from[i]), close_fd(&err[i]);
        sshcmd_free(argv);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* Its own process group: a terminal's Ctrl-C, or a kill of the ranks' group, is
         * not for the shell; the parent passes signals on. */
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, mask, NULL);
        dup2(to[0], STDIN_FILENO);
        dup2(from[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        execv(argv[0], argv);
        fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close_fd(&to[0]), close_fd(&from[1]), close_fd(&err[1]);
    if (pid < 0) {
        run_say("host %s: cannot start %s: %m", child->name, argv[0]);
        close_fd(&to[1]), close_fd(&from[0]), close_fd(&err[0]);
        sshcmd_free(argv);
        return -1;
    }
    sshcmd_free(argv);
    child->pid = pid;
    child->to_fd = to[1];
    child->from_fd = from[0];
    child->err_fd = err[0];
    set_nonblock(child->to_fd);
    set_nonblock(child->from_fd);
    set_nonblock(child->err_fd);
    child->deadline = run_now() + timeout;
    return 0;
}

int tree_child_read(struct tree_child *child)
{
    uint8_t chunk[65536];
    while (child->from_fd >= 0) {
        ssize_t n = read(child->from_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0 || link_buf_append(&child->in, chunk, (size_t)n) != 0)
            close_fd(&child->from_fd);
    }
    return -1;
}

int tree_child_read_errors(struct tree_child *child,
                           void (*emit)(void *arg, const char *bytes, size_t n), void *arg)
{
    char chunk[4096];
    while (child->err_fd >= 0) {
        ssize_t n = read(child->err_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0) {
            line_flush(&child->err_lines, emit, arg);
            close_fd(&child->err_fd);
        } else {
            line_feed(&child->err_lines, chunk, (size_t)n, emit, arg);
        }
    }
    return -1;
}

void tree_child_hang_up(struct tree_child *child)
{
    close_fd(&child->to_fd);
    link_buf_free(&child->out);
}

int tree_child_signal(struct tree_child *child, int sig)
{
    if (child->to_fd < 0)
        return -1;
    uint8_t payload[4];
    gp_wire_put32(payload, (uint32_t)sig);
    link_queue(&child->out, LINK_SIGNAL, payload, sizeof payload, NULL, 0);
    if (link_flush(child->to_fd, &child->out) != 0 || sig == SIGKILL)
        tree_child_hang_up(child);
    return 0;
}

void tree_child_free(struct tree_child *child)
{
    tree_child_hang_up(child);
    close_fd(&child->from_fd);
    close_fd(&child->err_fd);
    link_buf_free(&child->in);
    free(child->name);
    child->name = NULL;
    free(child->exited);
    child->exited = NULL;
}

void tree_ranks(int nprocs, int nhosts, int host, int last, int *first, int *count)
{
    *first = hosts_first_rank(nprocs, nhosts, host);
    *count = hosts_first_rank(nprocs, nhosts, last + 1) - *first;
}

void tree_lost_text(const struct tree_child *child, int status, double timeout,
                    const char *from, char *out, size_t len)
{
    char how[64];
    if (WIFEXITED(status))
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
    if (child->timed_out)
        snprintf(out, len, "can't be reached from %s: no answer within %.15g s (GP_SSH_TIMEOUT)",
                 from, timeout);
    else if (!child->hello)
        snprintf(out, len, "can't be reached from %s: the remote shell %s before gp-run's agent "
                 "answered (its messages, if any, are above)", from, how);
    else
        snprintf(out, len, "lost: the remote shell from %s %s", from, how);
}

void tree_sweep_start(struct tree_child *child, int status, const char *jobid,
                      const sigset_t *mask, double timeout)
{
    if (!child->hello || child->sweep_pid > 0)
        return; /* never reached: nothing of the job is there */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return; /* its agent ended by itself, removing the job's objects there */
    const char *configured = getenv("GP_RUN_AGENT");
    char self[PATH_MAX], *cmd = NULL;
    if (configured == NULL || *configured == '\0') {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return;
        self[n] = '\0';
        configured = self;
    }
    char *quoted = sshcmd_quote(configured);
    if (quoted == NULL || asprintf(&cmd, "exec %s --agent-sweep %s", quoted, jobid) < 0)
        cmd = NULL;
    free(quoted);
    char **argv = cmd != NULL ? sshcmd_build(child->name, cmd) : NULL;
    free(cmd);
    if (argv == NULL)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, mask, NULL);
        int null_fd = open("/dev/null", O_RDWR);
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        dup2(null_fd, STDERR_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    sshcmd_free(argv);
    if (pid > 0) {
        child->sweep_pid = pid;
        child->sweep_deadline = run_now() + timeout;
    }
}

int tree_sweep_reaped(struct tree_child *child, pid_t pid)
{
    if (pid <= 0 || child->sweep_pid != pid)
        return 0;
    child->sweep_pid = 0;
    return 1;
}

void tree_sweep_tick(struct tree_child *child, double now)
{
    if (child->sweep_pid > 0 && now >= child->sweep_deadline) {
        kill(child->sweep_pid, SIGKILL);
        child->sweep_deadline = now + 3600; /* once */
    }
}
