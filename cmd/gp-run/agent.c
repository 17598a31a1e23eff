/*
 * gp-run --agent: gp-run's hand on one host of an ssh job.
 *
 * The remote shell starts it with its stdin and stdout connected to its
 * parent, gp-run or another agent (link.h).  It reads the job's SETUP (key,
 * ids, its host and the hosts of its subtree, the program, gp-run's
 * environment), answers HELLO, starts the agents of its subtree over the
 * remote shell (agent_kids.c, the tree of tree.h), moves to the working
 * directory, starts its ranks the way the local spawner does (own process
 * group, key on an inherited pipe, SIGKILL if the agent dies), and then
 * relays: the ranks' stdout and stderr as whole lines, their exits, rank
 * 0's stdin, the signals its parent passes on, and everything its children
 * send up.
 *
 * The ranks reach gp-run's control channel directly over TCP, at the
 * address SETUP gives (GP_RUN_HOST, or what the first agent down the tree
 * found), else at the address the remote shell came from (SSH_CONNECTION).
 *
 * If the link closes (its parent died, the network went), the agent kills
 * its ranks and hangs up on its children: nothing of the job outlives
 * gp-run.  It exits once every rank has been reaped and reported and every
 * child's shell has ended, removing what the job left in /dev/shm here.
 */
#include "agent_kids.h"
#include "gp_run.h"
#include "link.h"
#include "tree.h"

#include "conduit/core/stats_page.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct agent_rank {
    int rank;
    pid_t pid;
    int out_fd, err_fd;
    struct line_buf out_lines, err_lines;
    int reaped;
    int status;
};

struct agent {
    char *jobid;
    uint8_t key[GP_KEY_LEN];
    char *port;
    char *boot_host;              /* gp-run's address as given; "" = the shell's */
    int nprocs, first_rank, count, verbose;
    int nhosts, host, last, degree;
    double timeout;
    char **names;                 /* hosts host+1..last */
    struct agent_kids kids;
    char *cwd, *prog;
    char **argv;
    char **job_env;
    struct agent_rank *ranks;
    pid_t pgid;
    struct link_buf to_runner;    /* queued for gp-run (our stdout) */
    struct link_buf from_runner;  /* read from gp-run (our stdin) */
    struct link_buf stdin_queue;  /* bytes for rank 0's stdin */
    int stdin_pipe;               /* rank 0's stdin, -1 if closed */
    int stdin_eof;
    int link_up;
    int left;                     /* ranks not yet reaped */
};

static void free_list(char **list)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        free(list[i]);
    free(list);
}

static void agent_free(struct agent *ag)
{
    memset(ag->key, 0, sizeof ag->key);
    free(ag->jobid);
    free(ag->port);
    free(ag->boot_host);
    free_list(ag->names);
    kids_free(&ag->kids);
    free(ag->cwd);
    free(ag->prog);
    free_list(ag->argv);
    free_list(ag->job_env);
    free(ag->ranks);
    link_buf_free(&ag->to_runner);
    link_buf_free(&ag->from_runner);
    link_buf_free(&ag->stdin_queue);
}

static void send_msg(struct agent *ag, uint32_t type, const void *head, size_t head_len,
                     const void *tail, size_t tail_len)
{
    if (ag->link_up)
        link_queue(&ag->to_runner, type, head, head_len, tail, tail_len);
}

static void send_rank_pair(struct agent *ag, uint32_t type, int rank, uint32_t value)
{
    uint8_t payload[8];
    gp_wire_put32(payload, (uint32_t)rank);
    gp_wire_put32(payload + 4, value);
    send_msg(ag, type, payload, sizeof payload, NULL, 0);
}

/* Says why the agent can't go on, makes sure it is sent, exits. */
static _Noreturn void agent_fail(struct agent *ag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static _Noreturn void agent_fail(struct agent *ag, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    uint8_t head[4];
    gp_wire_put32(head, (uint32_t)ag->host);
    send_msg(ag, LINK_FAIL, head, 4, text, strlen(text));
    fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) & ~O_NONBLOCK);
    link_flush(STDOUT_FILENO, &ag->to_runner);
    if (ag->pgid > 0)
        kill(-ag->pgid, SIGKILL);
    kids_hang_up(&ag->kids);
    agent_free(ag);
    exit(1);
}

/* ---- SETUP ---------------------------------------------------------------------- */

static int take_int(const uint8_t **p, const uint8_t *end, long min, long max, long *out)
{
    char *text = link_unpack_str(p, end), *stop = NULL;
    if (text == NULL)
        return -1;
    errno = 0;
    long value = strtol(text, &stop, 10);
    int ok = *text != '\0' && *stop == '\0' && errno == 0 && value >= min && value <= max;
    free(text);
    *out = value;
    return ok ? 0 : -1;
}

static char **take_list(const uint8_t **p, const uint8_t *end)
{
    long count;
    if (take_int(p, end, 0, 1 << 20, &count) != 0)
        return NULL;
    char **list = calloc((size_t)count + 1, sizeof *list);
    for (long i = 0; list != NULL && i < count; i++)
        if ((list[i] = link_unpack_str(p, end)) == NULL) {
            free_list(list);
            return NULL;
        }
    return list;
}

static int take_double(const uint8_t **p, const uint8_t *end, double min, double max,
                       double *out)
{
    char *text = link_unpack_str(p, end), *stop = NULL;
    if (text == NULL)
        return -1;
    errno = 0;
    *out = strtod(text, &stop);
    int ok = *text != '\0' && *stop == '\0' && errno == 0 && *out >= min && *out <= max;
    free(text);
    return ok ? 0 : -1;
}

/* The layout is setup_queue's (tree.c). */
static int parse_setup(struct agent *ag, const uint8_t *p, const uint8_t *end)
{
    char *magic = link_unpack_str(&p, end);
    int ok = magic != NULL && strcmp(magic, SETUP_MAGIC) == 0;
    free(magic);
    if (!ok)
        return -1;
    ag->jobid = link_unpack_str(&p, end);
    char *key_hex = link_unpack_str(&p, end);
    ag->port = link_unpack_str(&p, end);
    ag->boot_host = link_unpack_str(&p, end);
    if (ag->jobid == NULL || key_hex == NULL || ag->port == NULL || ag->boot_host == NULL ||
        strlen(key_hex) != 2 * GP_KEY_LEN) {
        free(key_hex);
        return -1;
    }
    for (int i = 0; i < GP_KEY_LEN; i++) {
        unsigned byte;
        if (sscanf(key_hex + 2 * i, "%2x", &byte) != 1) {
            free(key_hex);
            return -1;
        }
        ag->key[i] = (uint8_t)byte;
    }
    memset(key_hex, 0, strlen(key_hex));
    free(key_hex);
    long nprocs, nhosts, host, last, degree, verbose;
    if (take_int(&p, end, 1, RUN_MAX_PROCS, &nprocs) != 0 ||
        take_int(&p, end, 1, nprocs, &nhosts) != 0 ||
        take_int(&p, end, 0, nhosts - 1, &host) != 0 ||
        take_int(&p, end, host, nhosts - 1, &last) != 0 ||
        take_int(&p, end, 0, RUN_MAX_PROCS, &degree) != 0 ||
        take_double(&p, end, 1e-3, 1e6, &ag->timeout) != 0)
        return -1;
    ag->cwd = link_unpack_str(&p, end);
    ag->prog = link_unpack_str(&p, end);
    if (ag->cwd == NULL || ag->prog == NULL || take_int(&p, end, 0, 1, &verbose) != 0)
        return -1;
    ag->argv = take_list(&p, end);
    ag->job_env = take_list(&p, end);
    ag->names = take_list(&p, end);
    ag->nprocs = (int)nprocs;
    ag->nhosts = (int)nhosts;
    ag->host = (int)host;
    ag->last = (int)last;
    ag->degree = (int)degree;
    ag->first_rank = hosts_first_rank(ag->nprocs, ag->nhosts, ag->host);
    ag->count = hosts_first_rank(ag->nprocs, ag->nhosts, ag->host + 1) - ag->first_rank;
    ag->verbose = (int)verbose;
    size_t names = 0;
    while (ag->names != NULL && ag->names[names] != NULL)
        names++;
    return ag->argv != NULL && ag->argv[0] != NULL && ag->job_env != NULL &&
                   ag->names != NULL && names == (size_t)(ag->last - ag->host) && p == end
               ? 0
               : -1;
}

static void read_setup(struct agent *ag)
{
    uint8_t raw[LINK_HDR];
    struct gp_wire_hdr hdr;
    if (gp_wire_read_full(STDIN_FILENO, raw, sizeof raw, 60000) != GP_WIRE_OK)
        exit(1); /* no gp-run at the other end: nobody to tell */
    gp_wire_unpack_hdr(raw, &hdr);
    if (hdr.type != LINK_SETUP || hdr.len > LINK_MAX_PAYLOAD)
        agent_fail(ag, "the agent expected the job's SETUP, got message type %u (is the same "
                   "gp installed on every host?)", hdr.type);
    uint8_t *body = malloc(hdr.len ? hdr.len : 1);
    if (body == NULL || gp_wire_read_full(STDIN_FILENO, body, hdr.len, 60000) != GP_WIRE_OK) {
        free(body);
        exit(1);
    }
    int parsed = parse_setup(ag, body, body + hdr.len);
    memset(body, 0, hdr.len); /* it holds the key */
    free(body);
    if (parsed != 0)
        agent_fail(ag, "the job's SETUP is malformed (is the same gp installed on every host?)");
}

/* ---- starting the ranks ----------------------------------------------------------- */

/* This host's environment, overridden by gp-run's, with room for the launcher's. */
static char **job_environment(struct agent *ag, size_t *base)
{
    size_t given = 0, mine = 0, used = 0;
    while (ag->job_env[given] != NULL)
        given++;
    while (environ[mine] != NULL)
        mine++;
    char **envp = calloc(given + mine + 8, sizeof *envp);
    if (envp == NULL)
        return NULL;
    for (size_t i = 0; i < mine; i++) {
        size_t name_len = strcspn(environ[i], "=");
        int overridden = strncmp(environ[i], "GP_", 3) == 0 &&
                         (strncmp(environ[i], "GP_BOOT_", 8) == 0 ||
                          strncmp(environ[i], "GP_RANK=", 8) == 0 ||
                          strncmp(environ[i], "GP_SIZE=", 8) == 0 ||
                          strncmp(environ[i], "GP_JOBID=", 9) == 0);
        for (size_t j = 0; j < given && !overridden; j++)
            overridden = strncmp(ag->job_env[j], environ[i], name_len + 1) == 0;
        if (!overridden)
            envp[used++] = environ[i];
    }
    for (size_t j = 0; j < given; j++)
        envp[used++] = ag->job_env[j];
    *base = used;
    return envp;
}

/* gp-run's address as this host reaches it: as SETUP says, else where the remote shell
 * came from.  Kept in boot_host: the agents this one starts are told the same. */
static void boot_address(struct agent *ag, char *out, size_t len)
{
    const char *conn = getenv("SSH_CONNECTION");
    const char *runner = getenv("GP_RUN_HOST");
    char client[128] = "127.0.0.1";
    if (*ag->boot_host != '\0')
        snprintf(client, sizeof client, "%s", ag->boot_host);
    else if (runner != NULL && *runner != '\0')
        snprintf(client, sizeof client, "%s", runner);
    else if (conn != NULL && *conn != '\0')
        snprintf(client, sizeof client, "%.*s", (int)strcspn(conn, " "), conn);
    char *kept = strdup(client);
    if (kept != NULL) {
        free(ag->boot_host);
        ag->boot_host = kept;
    }
    if (strchr(client, ':') != NULL)
        snprintf(out, len, "[%s]:%s", client, ag->port);
    else
        snprintf(out, len, "%s:%s", client, ag->port);
}

static void start_ranks(struct agent *ag, const sigset_t *child_mask, const char *addr)
{
    size_t base = 0;
    char **envp = job_environment(ag, &base);
    ag->ranks = calloc((size_t)ag->count, sizeof *ag->ranks);
    if (envp == NULL || ag->ranks == NULL)
        agent_fail(ag, "out of memory starting the ranks");
    for (int i = 0; i < ag->count; i++) {
        struct agent_rank *r = &ag->ranks[i];
        int out[2], err[2], in[2] = { -1, -1 };
        r->rank = ag->first_rank + i;
        if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
            (r->rank == 0 && pipe2(in, O_CLOEXEC) != 0))
            agent_fail(ag, "cannot make pipes for rank %d: %s", r->rank, strerror(errno));
        int key_fd = spawn_key_pipe(ag->key);
        if (key_fd < 0)
            agent_fail(ag, "cannot make the key pipe for rank %d: %s", r->rank, strerror(errno));
        r->pid = spawn_rank(ag->prog, ag->argv, envp, base, addr, ag->jobid, ag->nprocs,
                            r->rank, key_fd, &ag->pgid, child_mask, in[0], out[1], err[1]);
        close(key_fd);
        close(out[1]);
        close(err[1]);
        if (in[0] >= 0)
            close(in[0]);
        if (r->pid < 0)
            agent_fail(ag, "cannot start rank %d: %s", r->rank, strerror(errno));
        r->out_fd = out[0];
        r->err_fd = err[0];
        fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
        fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
        if (r->rank == 0) {
            ag->stdin_pipe = in[1];
            fcntl(ag->stdin_pipe, F_SETFL, O_NONBLOCK);
        }
        send_rank_pair(ag, LINK_STARTED, r->rank, (uint32_t)r->pid);
        ag->left++;
    }
    free(envp);
}

/* ---- relaying --------------------------------------------------------------------- */

struct emit_ctx {
    struct agent *ag;
    uint32_t type;
    int rank;
};

static void emit_lines(void *arg, const char *bytes, size_t n)
{
    struct emit_ctx *ctx = arg;
    uint8_t rank[4];
    gp_wire_put32(rank, (uint32_t)ctx->rank);
    send_msg(ctx->ag, ctx->type, rank, 4, bytes, n);
}

/* Reads what a rank's stream holds now; closes it at its end. */
static void drain(struct agent *ag, struct agent_rank *r, int *fd, struct line_buf *lines,
                  uint32_t type)
{
    char chunk[LINK_CHUNK];
    struct emit_ctx ctx = { .ag = ag, .type = type, .rank = r->rank };
    while (*fd >= 0) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            line_flush(lines, emit_lines, &ctx);
            close(*fd);
            *fd = -1;
            return;
        }
        line_feed(lines, chunk, (size_t)n, emit_lines, &ctx);
    }
}

static void reap(struct agent *ag)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (kids_reaped(&ag->kids, pid, status))
            continue;
        for (int i = 0; i < ag->count; i++) {
            struct agent_rank *r = &ag->ranks[i];
            if (r->pid != pid || r->reaped)
                continue;
            /* Its last words go out before its exit. */
            drain(ag, r, &r->out_fd, &r->out_lines, LINK_OUT);
            drain(ag, r, &r->err_fd, &r->err_lines, LINK_ERR);
            struct emit_ctx ctx = { .ag = ag, .type = LINK_OUT, .rank = r->rank };
            line_flush(&r->out_lines, emit_lines, &ctx);
            ctx.type = LINK_ERR;
            line_flush(&r->err_lines, emit_lines, &ctx);
            r->reaped = 1;
            r->status = status;
            ag->left--;
            send_rank_pair(ag, LINK_EXIT, r->rank, (uint32_t)status);
        }
    }
}

/* The ranks' statistics pages, up to gp-run for its mirrors (mirror.c). */
static void relay_stats(struct agent *ag)
{
    size_t bytes = gp_stats_page_bytes((uint32_t)ag->nprocs);
    struct gp_stats_page *page = malloc(bytes);
    for (int i = 0; page != NULL && i < ag->count; i++) {
        int rank = ag->ranks[i].rank;
        if (ag->ranks[i].reaped ||
            gp_stats_read(ag->jobid, (uint32_t)rank, page, (uint32_t)ag->nprocs) != 0 ||
            page->nodes != (uint32_t)ag->nprocs)
            continue;
        uint8_t head[4];
        gp_wire_put32(head, (uint32_t)rank);
        send_msg(ag, LINK_STATS, head, 4, page, bytes);
    }
    free(page);
}

static void link_lost(struct agent *ag)
{
    if (!ag->link_up)
        return;
    ag->link_up = 0;
    link_buf_free(&ag->to_runner);
    /* gp-run is gone: nothing of the job may outlive it. */
    if (ag->pgid > 0)
        kill(-ag->pgid, SIGKILL);
    kids_hang_up(&ag->kids);
}

static void handle_message(struct agent *ag, uint32_t type, const uint8_t *payload, uint32_t len)
{
    if (type == LINK_STDIN && ag->stdin_pipe >= 0) {
        link_buf_append(&ag->stdin_queue, payload, len);
    } else if (type == LINK_STDIN_EOF) {
        ag->stdin_eof = 1;
    } else if (type == LINK_SIGNAL && len == 4 && ag->pgid > 0) {
        int sig = (int)gp_wire_get32(payload);
        if (sig > 0 && sig < 65)
            kill(-ag->pgid, sig);
    }
    if (type == LINK_SIGNAL && len == 4) {
        int sig = (int)gp_wire_get32(payload);
        if (sig > 0 && sig < 65)
            kids_signal(&ag->kids, sig); /* the rest of the subtree */
    }
}

static void read_runner(struct agent *ag)
{
    uint8_t chunk[65536];
    ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0 || link_buf_append(&ag->from_runner, chunk, (size_t)n) != 0) {
        link_lost(ag);
        return;
    }
    uint32_t type, len;
    const uint8_t *payload;
    const char *why;
    int got;
    while ((got = link_next(&ag->from_runner, &type, &payload, &len, &why)) == 1) {
        handle_message(ag, type, payload, len);
        link_buf_consume(&ag->from_runner, LINK_HDR + (size_t)len);
    }
    if (got < 0)
        link_lost(ag);
}

static void feed_stdin(struct agent *ag)
{
    if (ag->stdin_pipe < 0)
        return;
    if (link_flush(ag->stdin_pipe, &ag->stdin_queue) != 0) {
        /* rank 0 closed its stdin: what is left for it is dropped, as a pipe would */
        link_buf_free(&ag->stdin_queue);
        ag->stdin_eof = 1;
    }
    if (ag->stdin_eof && ag->stdin_queue.used == 0) {
        close(ag->stdin_pipe);
        ag->stdin_pipe = -1;
    }
}

static int open_signals(sigset_t *saved)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, saved);
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* The remote shell's settings for this agent's own children: gp-run's, from the job. */
static void take_shell_settings(const struct agent *ag)
{
    static const char *const names[] = { "GASNET_SSH_CMD", "GASNET_SSH_OPTIONS", "GP_RUN_AGENT" };
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        size_t len = strlen(names[n]);
        for (size_t i = 0; ag->job_env[i] != NULL; i++)
            if (strncmp(ag->job_env[i], names[n], len) == 0 && ag->job_env[i][len] == '=')
                setenv(names[n], ag->job_env[i] + len + 1, 1);
    }
}

int agent_main(void)
{
    struct agent ag;
    memset(&ag, 0, sizeof ag);
    ag.stdin_pipe = -1;
    ag.link_up = 1;
    ag.kids.up = &ag.to_runner;
    ag.kids.up_ok = &ag.link_up;
    sigset_t child_mask;
    int sig_fd = open_signals(&child_mask);
    read_setup(&ag);
    run_verbose = ag.verbose;
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    snprintf(ag.kids.from, sizeof ag.kids.from, "%s", host);
    char hello[300];
    int hello_len = snprintf(hello, sizeof hello, "%s, pid %d", host, (int)getpid());
    uint8_t head[4];
    gp_wire_put32(head, (uint32_t)ag.host);
    send_msg(&ag, LINK_HELLO, head, 4, hello, (size_t)hello_len);
    if (sig_fd < 0)
        agent_fail(&ag, "cannot set up signal handling on %s: %s", host, strerror(errno));
    fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
    link_flush(STDOUT_FILENO, &ag.to_runner);
    /* The subtree first: its logins take longest, and go on while this host starts. */
    char addr[200];
    boot_address(&ag, addr, sizeof addr);
    if (ag.last > ag.host) {
        take_shell_settings(&ag);
        struct agent_setup down = {
            .jobid = ag.jobid, .key = ag.key, .port = ag.port, .boot_host = ag.boot_host,
            .nprocs = ag.nprocs, .nhosts = ag.nhosts, .host = ag.host, .last = ag.last,
            .degree = ag.degree, .timeout = ag.timeout, .verbose = ag.verbose, .cwd = ag.cwd,
            .prog = ag.prog, .argv = ag.argv, .env = ag.job_env, .names = ag.names
        };
        char why[300];
        if (kids_start(&ag.kids, &down, &child_mask, why, sizeof why) != 0)
            agent_fail(&ag, "%s: %s", host, why);
    }
    if (chdir(ag.cwd) != 0)
        agent_fail(&ag, "cannot change to the working directory %s on %s: %s (set "
                   "GASNET_SSH_REMOTE_PATH to one that exists on every host)", ag.cwd, host,
                   strerror(errno));
    if (access(ag.prog, X_OK) != 0)
        agent_fail(&ag, "program %s on %s: %s (it must be at the same path on every host)",
                   ag.prog, host, strerror(errno));
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    start_ranks(&ag, &child_mask, addr);
    size_t npfds = 4 + 2 * (size_t)ag.count + 3 * (size_t)ag.kids.count;
    struct pollfd *pfds = calloc(npfds, sizeof *pfds);
    if (pfds == NULL)
        agent_fail(&ag, "out of memory");
    int streams_open = 1;
    double next_stats = run_now() + RUN_STATS_PERIOD_S;
    while (ag.left > 0 || streams_open || kids_active(&ag.kids) ||
           (ag.link_up && ag.to_runner.used > 0)) {
        size_t n = 0;
        pfds[n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
        pfds[n++] = (struct pollfd){ .fd = ag.link_up ? STDIN_FILENO : -1, .events = POLLIN };
        pfds[n++] = (struct pollfd){ .fd = ag.link_up && ag.to_runner.used ? STDOUT_FILENO : -1,
                                     .events = POLLOUT };
        pfds[n++] = (struct pollfd){ .fd = ag.stdin_queue.used || ag.stdin_eof ? ag.stdin_pipe
                                                                               : -1,
                                     .events = POLLOUT };
        for (int i = 0; i < ag.count; i++) {
            pfds[n++] = (struct pollfd){ .fd = ag.ranks[i].out_fd, .events = POLLIN };
            pfds[n++] = (struct pollfd){ .fd = ag.ranks[i].err_fd, .events = POLLIN };
        }
        size_t kids_at = n;
        n = kids_pollfds(&ag.kids, pfds, n);
        if (poll(pfds, (nfds_t)n, ag.left > 0 || ag.kids.count ? 250 : 100) < 0 && errno != EINTR)
            break;
        if (pfds[1].revents)
            read_runner(&ag);
        streams_open = 0;
        for (int i = 0; i < ag.count; i++) {
            struct agent_rank *r = &ag.ranks[i];
            if (pfds[4 + 2 * i].revents)
                drain(&ag, r, &r->out_fd, &r->out_lines, LINK_OUT);
            if (pfds[5 + 2 * i].revents)
                drain(&ag, r, &r->err_fd, &r->err_lines, LINK_ERR);
            /* A stream a reaped rank's children keep open is not waited for. */
            streams_open |= !r->reaped && (r->out_fd >= 0 || r->err_fd >= 0);
        }
        kids_service(&ag.kids, pfds, kids_at);
        if (pfds[0].revents) {
            struct signalfd_siginfo info;
            while (read(sig_fd, &info, sizeof info) == (ssize_t)sizeof info) {
                if (info.ssi_signo == SIGCHLD)
                    reap(&ag);
                else
                    link_lost(&ag); /* the remote shell hung up: treat as gp-run gone */
            }
        }
        kids_tick(&ag.kids, run_now());
        feed_stdin(&ag);
        if (run_now() >= next_stats) {
            /* Only while the link keeps up: statistics never crowd out output. */
            if (ag.to_runner.used < LINK_MAX_PAYLOAD)
                relay_stats(&ag);
            next_stats = run_now() + RUN_STATS_PERIOD_S;
        }
        if (ag.link_up && link_flush(STDOUT_FILENO, &ag.to_runner) != 0)
            link_lost(&ag);
        if (!ag.link_up && ag.left == 0 && !kids_active(&ag.kids))
            break;
    }
    shm_cleanup(ag.jobid, 0);
    free(pfds);
    if (sig_fd >= 0)
        close(sig_fd);
    agent_free(&ag);
    return 0;
}
