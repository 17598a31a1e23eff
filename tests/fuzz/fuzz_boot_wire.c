/*
 * libFuzzer target: the bootstrap's wire decoders, which read what another
 * process sends before (or without) proving anything.
 *
 *   - gp-run's control channel (cmd/gp-run/conn.c): a process's messages
 *     through conn_service exactly as the server's poll loop calls it --
 *     the header check of each state, HELLO, COLL into a gather round
 *     (gather.c), ABORT's reason text, FINI -- on a connection that has
 *     proven the key (or, by the input's choice, one that has not);
 *   - the agent link (cmd/gp-run/link.c and agent.c): link_next framing, a
 *     SETUP's packed strings and numbers (link_unpack_str, parse_setup: the
 *     job, the agent's host and the names of its subtree's hosts) and the
 *     other messages an agent takes from its parent.
 *
 *   - the relay up the tree (cmd/gp-run/agent_kids.c): what a child agent
 *     sends its parent agent, read from the child's link, framed, counted
 *     (HELLO, EXIT) and queued up unchanged; then the child's shell ends,
 *     and LOST goes up if its subtree had ranks left.
 *
 * The first byte chooses: bit 0 the link rather than the channel; with it,
 * bit 3 the relay up rather than what an agent takes from its parent; bit 1
 * a job of 1 process rather than 3 (so a collective can complete and
 * answer); bit 2 a connection that has not proven the key.  The rest is the byte
 * stream.  What must hold: no access outside what was allocated, no
 * undefined behaviour, no leak, and a hostile stream ends in a refusal or a
 * closed connection, never in a hang.  job->running stays 0, so a failing
 * job signals no process.
 *
 *   make fuzz && build-fuzz/fuzz_boot_wire -max_total_time=60 tests/fuzz/corpus/fuzz_boot_wire
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* parse_setup and handle_message are the agent's own (static): reached by including it. */
#include "../../cmd/gp-run/agent.c"

#define MAX_INPUT 100000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    run_verbose = 0;
    return 0;
}

/* ---- the control channel ------------------------------------------------------------ */

static void drain_peer(int fd)
{
    char sink[65536];
    while (read(fd, sink, sizeof sink) > 0)
        ;
}

static void fuzz_channel(const uint8_t *data, size_t size, int nprocs, int proven)
{
    struct run_job job;
    struct run_server srv;
    struct run_conn conn;
    int fds[2];
    if (job_init(&job, nprocs, 10.0) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
        abort();
    memset(&srv, 0, sizeof srv);
    srv.job = &job;
    srv.listen_fd = srv.signal_fd = -1;
    srv.conns = &conn;
    srv.nconns = 1;
    if (gather_init(&srv.round, nprocs) != 0)
        abort();
    memset(&conn, 0, sizeof conn);
    conn.fd = fds[0];
    conn.rank = -1;
    conn.proven = proven;
    conn.proof_deadline = run_now() + 60;
    snprintf(conn.peer, sizeof conn.peer, "fuzz");
    /* In pieces, as the socket delivers them, serving between. */
    size_t done = 0;
    while (done < size && conn.fd >= 0) {
        ssize_t n = write(fds[1], data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
        conn_service(&srv, 0);
        drain_peer(fds[1]);
    }
    close(fds[1]);
    if (conn.fd >= 0)
        conn_service(&srv, 0); /* the end of the stream */
    conn_close(&srv, 0);
    gather_free(&srv.round, nprocs);
    job_free(&job);
}

/* ---- the agent link ------------------------------------------------------------------ */

static void fuzz_link(const uint8_t *data, size_t size)
{
    struct link_buf in = { 0 };
    if (link_buf_append(&in, data, size) != 0)
        abort();
    for (;;) {
        uint32_t type, len;
        const uint8_t *payload;
        const char *why = NULL;
        int rc = link_next(&in, &type, &payload, &len, &why);
        if (rc < 0 && why == NULL)
            abort(); /* a refusal must say why */
        if (rc <= 0)
            break;
        struct agent ag;
        memset(&ag, 0, sizeof ag);
        ag.stdin_pipe = -1;
        ag.pgid = 0; /* no ranks: a SIGNAL reaches nobody */
        if (type == LINK_SETUP) {
            int parsed = parse_setup(&ag, payload, payload + len) == 0;
            if (parsed &&
                (ag.nprocs < 1 || ag.first_rank < 0 || ag.count < 1 ||
                 ag.first_rank + ag.count > ag.nprocs || ag.argv == NULL || ag.argv[0] == NULL ||
                 ag.nhosts < 1 || ag.nhosts > ag.nprocs || ag.host < 0 || ag.last < ag.host ||
                 ag.last >= ag.nhosts || ag.degree < 0 || !(ag.timeout > 0)))
                abort(); /* accepted, yet not a job (or subtree) the agent can start */
            for (int i = 0; parsed && i < ag.last - ag.host; i++)
                if (ag.names[i] == NULL)
                    abort(); /* a subtree host without a name */
        } else {
            handle_message(&ag, type, payload, len);
        }
        agent_free(&ag);
        link_buf_consume(&in, LINK_HDR + len);
    }
    link_buf_free(&in);
}

/* ---- the relay up the tree ------------------------------------------------------------ */

static void fuzz_relay(const uint8_t *data, size_t size)
{
    struct link_buf up = { 0 };
    int up_ok = 1, fds[2];
    sigset_t mask;
    sigemptyset(&mask);
    struct tree_child child;
    memset(&child, 0, sizeof child);
    struct agent_kids kids = { .count = 1, .child = &child, .up = &up, .up_ok = &up_ok,
                               .nprocs = 8, .nhosts = 4, .timeout = 1, .jobid = "0123456789abcdef",
                               .mask = mask, .from = "fuzz" };
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
        abort();
    child.host = 1;
    child.last = 3;             /* ranks 2..7 below it */
    child.name = strdup("fuzzhost");
    child.exited = calloc(6, 1);
    child.from_fd = fds[0];
    child.to_fd = child.err_fd = -1;
    struct pollfd pfds[3] = { { .fd = fds[0], .revents = POLLIN }, { .fd = -1 }, { .fd = -1 } };
    size_t done = 0;
    while (done < size && child.from_fd >= 0) {
        ssize_t n = write(fds[1], data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
        pfds[0].fd = child.from_fd;
        kids_service(&kids, pfds, 0);
    }
    close(fds[1]);
    if (child.from_fd >= 0) {
        pfds[0].fd = child.from_fd;
        kids_service(&kids, pfds, 0);
    }
    /* Its shell ends: no sweep (that would log in somewhere), but LOST if ranks were left. */
    child.hello = 0;
    child.pid = 1 << 30;
    if (kids_reaped(&kids, 1 << 30, 0) != 1 || child.exits > 6)
        abort();
    /* What went up is whole messages of the kinds an agent sends. */
    struct link_buf check = up;
    uint32_t type, len;
    const uint8_t *payload;
    const char *why = NULL;
    int got;
    while ((got = link_next(&check, &type, &payload, &len, &why)) == 1) {
        if (type < LINK_HELLO)
            abort();
        link_buf_consume(&check, LINK_HDR + len);
    }
    if (got != 0 || check.used != 0)
        abort();
    link_buf_free(&check);
    tree_child_free(&child);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > MAX_INPUT)
        return 0;
    unsigned mode = data[0];
    if ((mode & 9) == 9)
        fuzz_relay(data + 1, size - 1);
    else if (mode & 1)
        fuzz_link(data + 1, size - 1);
    else
        fuzz_channel(data + 1, size - 1, (mode & 2) ? 1 : 3, !(mode & 4));
    return 0;
}
