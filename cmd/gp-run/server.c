/*
 * gp-run's event loop: one poll over a signalfd, the listening socket and
 * the control connections, until every process of the job has been
 * reaped.
 *
 * Signals arrive through a signalfd rather than handlers, so SIGCHLD,
 * SIGINT and friends are handled in the loop like any other event, with
 * no async-signal-safety concerns.  Within one wake-up the connections are
 * read first: a process that sends ABORT and then exits must be seen to
 * abort, not merely to exit.  The listener is bound to 127.0.0.1 on an
 * ephemeral port for the local spawner; for the ssh spawner it listens on
 * every interface, IPv6 and IPv4 (ranks on other hosts connect to the
 * address their remote shell came from), and every connection must still
 * prove the job key before it is heard.
 */
#include "gp_run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Blocks the signals the loop handles and opens a signalfd for them.  A
 * stop signal that gp-run was started ignoring (nohup, a background job of
 * a script) stays ignored, by gp-run and, through exec, by the job.
 */
static int open_signals(sigset_t *saved_mask)
{
    static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP };
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGCONT);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaddset(&mask, stop_signals[i]);
    }
    if (sigprocmask(SIG_BLOCK, &mask, saved_mask) != 0)
        return -1;
    /* A closed stderr must not kill gp-run (and so the job); children get SIG_DFL back. */
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

/*
 * A listening socket bound to sa (port 0: the kernel picks one); the port
 * chosen, or -1 with errno.  v6only 0 makes an IPv6 socket take IPv4 too.
 */
static int listen_on(struct sockaddr_storage *sa, socklen_t len, int v6only, int backlog,
                     int *port)
{
    int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (sa->ss_family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) != 0)
        run_say("cannot set IPV6_V6ONLY=%d on the IPv6 listener: %m; ranks may not reach "
                "gp-run over IPv4", v6only);
    if (bind(fd, (struct sockaddr *)sa, len) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)sa, &len) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *port = ntohs(sa->ss_family == AF_INET6 ? ((struct sockaddr_in6 *)sa)->sin6_port
                                            : ((struct sockaddr_in *)sa)->sin_port);
    return fd;
}

/* Loopback only (local spawner), or every interface, dual-stack where IPv6 exists (ssh). */
static int open_listener(char *addr, size_t addr_len, int backlog, int remote)
{
    struct sockaddr_storage sa;
    int port = 0, fd = -1;
    if (remote) {
        memset(&sa, 0, sizeof sa);
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&sa;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_addr = in6addr_any;
        fd = listen_on(&sa, sizeof *sin6, 0, backlog, &port);
        if (fd >= 0) {
            snprintf(addr, addr_len, "[::]:%d", port);
            return fd;
        }
    }
    memset(&sa, 0, sizeof sa);
    struct sockaddr_in *sin = (struct sockaddr_in *)&sa;
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(remote ? INADDR_ANY : INADDR_LOOPBACK);
    fd = listen_on(&sa, sizeof *sin, 0, backlog, &port);
    if (fd >= 0)
        snprintf(addr, addr_len, "%s:%d", remote ? "0.0.0.0" : "127.0.0.1", port);
    return fd;
}

int server_open(struct run_server *srv, struct run_job *job, sigset_t *saved_mask, int remote)
{
    memset(srv, 0, sizeof *srv);
    srv->job = job;
    srv->listen_fd = -1;
    srv->signal_fd = open_signals(saved_mask);
    if (srv->signal_fd < 0) {
        run_say("cannot set up signal handling (signalfd): %m");
        return -1;
    }
    int backlog = job->nprocs + RUN_MAX_UNPROVEN;
    srv->listen_fd = open_listener(srv->addr, sizeof srv->addr, backlog, remote);
    if (srv->listen_fd < 0) {
        run_say("cannot listen on %s for the control channel: %m",
                remote ? "every interface" : "127.0.0.1");
        return -1;
    }
    /* GP_RUN_TEST_MAX_UNPROVEN: fewer at once, for the test of the backlog (gp_run.sh). */
    const char *test_max = getenv("GP_RUN_TEST_MAX_UNPROVEN");
    srv->max_unproven = RUN_MAX_UNPROVEN;
    if (test_max != NULL && atoi(test_max) >= 1 && atoi(test_max) < RUN_MAX_UNPROVEN)
        srv->max_unproven = atoi(test_max);
    srv->nconns = job->nprocs + srv->max_unproven;
    srv->conns = calloc((size_t)srv->nconns, sizeof *srv->conns);
    if (srv->conns == NULL || gather_init(&srv->round, job->nprocs) != 0) {
        run_say("out of memory for %d connections", srv->nconns);
        return -1;
    }
    for (int i = 0; i < srv->nconns; i++) {
        srv->conns[i].fd = -1;
        srv->conns[i].rank = -1;
    }
    return 0;
}

void server_close(struct run_server *srv)
{
    for (int i = 0; srv->conns != NULL && i < srv->nconns; i++)
        conn_close(srv, i);
    free(srv->conns);
    srv->conns = NULL;
    gather_free(&srv->round, srv->job->nprocs);
    if (srv->listen_fd >= 0)
        close(srv->listen_fd);
    if (srv->signal_fd >= 0)
        close(srv->signal_fd);
    srv->listen_fd = srv->signal_fd = -1;
}

static void reap(struct run_server *srv)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        job_reaped(srv, pid, status);
}

static void on_signals(struct run_server *srv)
{
    struct signalfd_siginfo info;
    while (read(srv->signal_fd, &info, sizeof info) == (ssize_t)sizeof info) {
        int sig = (int)info.ssi_signo;
        if (sig == SIGCHLD)
            reap(srv);
        else if (sig == SIGTSTP || sig == SIGCONT) {
            job_stop(srv->job, sig == SIGTSTP);
            gather_resume(srv); /* time stopped does not count against a round */
        }
        else
            job_interrupt(srv->job, sig);
    }
}

/* Milliseconds until the next deadline (job phase, round or key proof), -1 if none. */
static int next_timeout_ms(const struct run_server *srv, double now)
{
    double next = srv->job->deadline;
    double round = gather_deadline(srv);
    if (round != 0 && (next == 0 || round < next))
        next = round;
    for (int i = 0; i < srv->nconns; i++) {
        const struct run_conn *c = &srv->conns[i];
        if (c->fd >= 0 && !c->proven && (next == 0 || c->proof_deadline < next))
            next = c->proof_deadline;
    }
    if (next == 0)
        return -1;
    double ms = (next - now) * 1000.0 + 1.0;
    return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
}

void server_run(struct run_server *srv)
{
    int nconn_fds = 2 + srv->nconns;
    int npoll = nconn_fds + hosts_max_fds(srv->job);
    struct pollfd *pfds = calloc((size_t)npoll, sizeof *pfds);
    if (pfds == NULL) {
        job_fail(srv, 1, "out of memory for the event loop");
        npoll = 0;
    }
    while (npoll > 0 && (srv->job->running > 0 || hosts_active(srv))) {
        pfds[0] = (struct pollfd){ .fd = srv->signal_fd, .events = POLLIN };
        /* A listener left pending while every proof slot is taken (conn_accept). */
        pfds[1] = (struct pollfd){ .fd = conn_room(srv) ? srv->listen_fd : -1, .events = POLLIN };
        for (int i = 0; i < srv->nconns; i++)
            pfds[2 + i] = (struct pollfd){ .fd = srv->conns[i].fd, .events = POLLIN };
        int used = hosts_pollfds(srv, pfds, nconn_fds);
        int timeout_ms = next_timeout_ms(srv, run_now());
        if (srv->job->hosts != NULL && (timeout_ms < 0 || timeout_ms > 500))
            timeout_ms = 500; /* the hosts' answer deadlines */
        if (poll(pfds, (nfds_t)used, timeout_ms) < 0 && errno != EINTR)
            run_say("poll: %m");
        for (int i = 0; i < srv->nconns; i++)
            if (pfds[2 + i].revents != 0 && srv->conns[i].fd == pfds[2 + i].fd)
                conn_service(srv, i);
        hosts_service(srv, pfds, nconn_fds, used);
        if (pfds[1].revents != 0)
            conn_accept(srv);
        if (pfds[0].revents != 0)
            on_signals(srv);
        double now = run_now();
        job_tick(srv->job, now);
        gather_tick(srv, now);
        hosts_tick(srv, now);
        conn_expire(srv, now);
    }
    free(pfds);
}
