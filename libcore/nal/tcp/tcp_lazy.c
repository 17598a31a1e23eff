/*
 * Connections made on first use (GP_TCP_CONNECT=lazy, the default;
 * doc/wire-tcp.md, "Connections").
 *
 * Attach only opens the listener and exchanges addresses; the first put or
 * get to a peer dials it.  The dialler is a state machine driven by the
 * progress engine, like the accepting side (tcp_accept.c): its socket sits
 * in the epoll set, and the sender waits in tcp_wait, which keeps
 * serving the listener, the handshakes of peers dialling this process and
 * every open connection.  Two processes dialling each other at once
 * therefore each answer the other's challenge, and neither waits on a peer
 * that waits on it.
 *
 *   CONNECTING -> CHALLENGE read, RESPONSE sent -> PROOF read and checked,
 *   HELLO sent -> WELCOME read: the socket becomes the peer's connection
 *
 * Crossed dials: when each of two processes dials the other before either
 * connection is up, the one dialled by the lower rank survives.  The lower
 * rank refuses the higher one's HELLO; the higher rank adopts the lower
 * one's connection and lets its own dial finish quietly (it is refused).
 * A dial the lower rank refused waits for that rank's connection, which is
 * on its way (AWAIT_PEER).  Both decisions are made under the peer's
 * connection lock, in the same order on both sides, so exactly one socket
 * survives.
 *
 * A dial has no time limit.  A peer that computes without calling the
 * library has its listener open, so the kernel completes the TCP handshake
 * from its backlog, and the key challenge comes whenever the peer next
 * polls, be it minutes later: the sender waits, with a warning line once
 * the wait is long (util/slowwait.h).  Whether the peer is gone is for the
 * operating system to say: a peer whose listener refuses the connection, or
 * that closes or resets it before WELCOME (other than a crossed dial's
 * refusal), has ended (its listener is open from before the address
 * exchange to its exit).  The connection is GONE, as when an open one is
 * closed, and tcp_conn_gone and tcp_departed decide, by whether the job's
 * exit is under way, between a quiet departure and a fatal error.  Anything
 * else that goes wrong (a wrong proof from the acceptor, a message out of
 * protocol, a connect the kernel gave up on) fails the connection with an
 * error naming the rank, its address and the cause.
 */
#include "boot/wire.h"
#include "nal/tcp/tcp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"
#include "util/log.h"
#include "util/sha256.h"

static const char *step_text(unsigned step)
{
    switch (step) {
    case TCP_DIAL_CONNECTING: return "while connecting";
    case TCP_DIAL_CHALLENGE: return "before its key challenge";
    case TCP_DIAL_PROOF: return "after this process's key proof";
    case TCP_DIAL_WELCOME: return "after HELLO";
    default: return "";
    }
}

void tcp_dial_close(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_dial *dial = &conn->dial;
    if (dial->step >= TCP_DIAL_CONNECTING && dial->step <= TCP_DIAL_WELCOME) {
        tcp_unwatch(st, dial->fd);
        close(dial->fd);
    }
    dial->fd = -1;
    dial->step = TCP_DIAL_NONE;
    dial->superseded = 0;
}

static void dial_failed(struct tcp_state *st, struct tcp_conn *conn, const char *why)
{
    unsigned step = conn->dial.step;
    tcp_dial_close(st, conn);
    tcp_conn_fail(st, conn, "could not be dialled (%s): %s", step_text(step), why);
}

/* The peer closed or refused our socket; err is the errno, or 0 for an orderly close. */
static void dial_closed(struct tcp_state *st, struct tcp_conn *conn, int err)
{
    struct tcp_dial *dial = &conn->dial;
    unsigned step = dial->step;
    int superseded = dial->superseded;
    tcp_dial_close(st, conn);
    if (superseded || conn->status != TCP_CONN_NONE)
        return; /* the peer's own dial is the connection */
    if (step == TCP_DIAL_WELCOME && conn->rank < st->ni->rank) {
        /* A crossed dial: the lower rank keeps its own, which is on its way here. */
        dial->step = TCP_DIAL_AWAIT_PEER;
        return;
    }
    if (err == 0 || err == ECONNREFUSED || err == ECONNRESET) {
        /* Its listener closed: the peer is leaving (a wrong key proof is
         * reported by the acceptor, which has the job key and the stranger's address). */
        char what[128];
        snprintf(what, sizeof what, "%s a new connection %s",
                 err == ECONNREFUSED ? "refused" : err == 0 ? "closed" : "reset", step_text(step));
        tcp_conn_gone(st, conn, what);
        return;
    }
    char why[128];
    snprintf(why, sizeof why, "the connection was %s %s", err == 0 ? "closed" : strerror(err),
             step_text(step));
    tcp_conn_fail(st, conn, "could not be dialled: %s", why);
}

/* Starts the dial: a non-blocking connect to the peer's listener. */
static void dial_start(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_dial *dial = &conn->dial;
    const struct sockaddr_in *sin = &st->peer_addr[conn->rank];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        tcp_conn_fail(st, conn, "could not be dialled: socket: %s", strerror(errno));
        return;
    }
    memset(dial, 0, sizeof *dial);
    dial->fd = fd;
    dial->step = TCP_DIAL_CONNECTING;
    __atomic_add_fetch(&st->dialled, 1, __ATOMIC_RELAXED);
    tcp_watch(st, fd, TCP_OWNER_DIAL(conn->rank), EPOLLOUT);
    if (connect(fd, (const struct sockaddr *)sin, sizeof *sin) != 0 && errno != EINPROGRESS) {
        dial_closed(st, conn, errno);
        return;
    }
    gp_debug("tcp", "dialling rank %d at %s", conn->rank, conn->addr_text);
}

/* The socket connected (or failed to): on to the key challenge. */
static int dial_connected(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_dial *dial = &conn->dial;
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(dial->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err == EINPROGRESS || err == EALREADY)
        return 0;
    if (err != 0) {
        dial_closed(st, conn, err);
        return -1;
    }
    tcp_set_nodelay(dial->fd, conn->addr_text);
    tcp_watch_change(st, dial->fd, TCP_OWNER_DIAL(conn->rank), EPOLLIN);
    dial->step = TCP_DIAL_CHALLENGE;
    dial->got = 0;
    dial->want = GP_WIRE_HDR_LEN;
    return 0;
}

/* The message each step waits for: its type and payload length. */
static void expected(unsigned step, uint32_t *type, uint32_t *len)
{
    *type = step == TCP_DIAL_CHALLENGE ? GP_WIRE_CHALLENGE
            : step == TCP_DIAL_PROOF   ? GP_WIRE_PROOF
                                       : GP_WIRE_WELCOME;
    *len = step == TCP_DIAL_CHALLENGE ? GP_KEYPROOF_CHALLENGE_LEN
           : step == TCP_DIAL_PROOF   ? GP_KEYPROOF_PROOF_LEN
                                      : TCP_HELLO_LEN;
}

/* A whole message is in: answer it, or adopt the socket.  -1 if the dial ended. */
static int dial_message(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_dial *dial = &conn->dial;
    const uint8_t *payload = dial->buf + GP_WIRE_HDR_LEN;
    unsigned len = dial->want - GP_WIRE_HDR_LEN;
    const char *why = NULL;
    if (dial->step == TCP_DIAL_CHALLENGE) {
        uint8_t response[GP_KEYPROOF_RESPONSE_LEN];
        if (gp_keyproof_respond(gp_boot_key(), payload, len, response, dial->proof, &why) != 0) {
            dial_failed(st, conn, why);
            return -1;
        }
        if (gp_wire_send(dial->fd, GP_WIRE_RESPONSE, response, sizeof response) != GP_WIRE_OK) {
            dial_closed(st, conn, errno);
            return -1;
        }
        dial->step = TCP_DIAL_PROOF;
    } else if (dial->step == TCP_DIAL_PROOF) {
        if (gp_memcmp_const_time(payload, dial->proof, GP_KEYPROOF_PROOF_LEN) != 0) {
            dial_failed(st, conn, "its listener does not hold the job key");
            return -1;
        }
        uint8_t hello[TCP_HELLO_LEN];
        tcp_hello_pack(hello, st->ni->rank, st->ni->size);
        if (gp_wire_send(dial->fd, GP_WIRE_HELLO, hello, sizeof hello) != GP_WIRE_OK) {
            dial_closed(st, conn, errno);
            return -1;
        }
        dial->step = TCP_DIAL_WELCOME;
    } else {
        if (tcp_hello_rank(payload, st->ni->size) != conn->rank) {
            dial_failed(st, conn, "its WELCOME does not name that rank of this job");
            return -1;
        }
        if (dial->superseded || conn->status != TCP_CONN_NONE) {
            tcp_dial_close(st, conn); /* cannot happen with both ends following the rule */
            return -1;
        }
        int fd = dial->fd;
        tcp_unwatch(st, fd);
        dial->fd = -1;
        dial->step = TCP_DIAL_NONE;
        tcp_adopt(st, conn->rank, fd);
        gp_debug("tcp", "connected to rank %d at %s (dialled on first use)", conn->rank,
                 conn->addr_text);
        return -1;
    }
    dial->got = 0;
    dial->want = GP_WIRE_HDR_LEN;
    return 0;
}

/* Reads what the acceptor sent: one exact message per step, header first. */
static void dial_read(struct tcp_state *st, struct tcp_conn *conn)
{
    struct tcp_dial *dial = &conn->dial;
    for (;;) {
        ssize_t n = recv(dial->fd, dial->buf + dial->got, dial->want - dial->got, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (n <= 0) {
            dial_closed(st, conn, n == 0 ? 0 : errno);
            return;
        }
        dial->got += (unsigned)n;
        if (dial->got == GP_WIRE_HDR_LEN) {
            struct gp_wire_hdr hdr;
            uint32_t type, len;
            gp_wire_unpack_hdr(dial->buf, &hdr);
            expected(dial->step, &type, &len);
            if (hdr.type != type || hdr.len != len) {
                dial_failed(st, conn, "its listener answered with another message than the "
                                      "key proof protocol's");
                return;
            }
            dial->want = GP_WIRE_HDR_LEN + len;
        }
        if (dial->got == dial->want && dial_message(st, conn) != 0)
            return;
    }
}

void tcp_dial_step(struct tcp_state *st, int rank)
{
    struct tcp_conn *conn = &st->conns[rank];
    if (conn->dial.step == TCP_DIAL_CONNECTING && dial_connected(st, conn) != 0)
        return;
    if (conn->dial.step >= TCP_DIAL_CHALLENGE && conn->dial.step <= TCP_DIAL_WELCOME)
        dial_read(st, conn);
}

int tcp_lazy_take_hello(struct tcp_state *st, int rank)
{
    struct tcp_dial *dial = &st->conns[rank].dial;
    if (dial->step == TCP_DIAL_NONE)
        return 1;
    if (st->ni->rank < rank)
        return 0; /* ours, from the lower rank, survives */
    /* Theirs survives.  Ours goes on until it is refused, so that the lower
     * rank never sees a stranger's silent close. */
    if (dial->step == TCP_DIAL_AWAIT_PEER)
        dial->step = TCP_DIAL_NONE;
    else
        dial->superseded = 1;
    return 1;
}

int tcp_lazy_connect(struct tcp_state *st, struct tcp_conn *conn)
{
    if (conn->dial.step == TCP_DIAL_NONE && conn->status == TCP_CONN_NONE)
        dial_start(st, conn);
    /* No deadline: a peer that computes answers when it next polls, and one
     * that has ended is reported by the kernel (dial_closed). */
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    while (conn->status == TCP_CONN_NONE) {
        gp_slow_wait_check(&wait, "tcp", "the connection to rank %d at %s (dialled on first use, "
                           "%s; the peer may be computing)", conn->rank, conn->addr_text,
                           conn->dial.step == TCP_DIAL_AWAIT_PEER
                               ? "waiting for its own dial to this process"
                               : step_text(conn->dial.step));
        tcp_wait(st, conn);
    }
    return conn->status;
}
