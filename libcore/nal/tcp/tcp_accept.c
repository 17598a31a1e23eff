/*
 * The accepting side of tcp connection set-up (doc/wire-tcp.md,
 * "Connections"): a non-blocking state machine per connection still
 * proving the key, driven by poll from connection set-up and, afterwards,
 * from the progress engine.
 *
 *   accepted -> CHALLENGE sent -> RESPONSE read and checked -> PROOF sent
 *            -> HELLO read (a rank of this job that still has to connect here)
 *            -> WELCOME sent: the socket becomes that rank's connection
 *
 * Until the key is proven only one message of one exact size is read, so a
 * stranger can't make this process allocate, parse or answer anything but
 * the challenge.  Anything else -- a wrong proof, garbage, another message,
 * silence past GP_TCP_KEYPROOF_MS, a rank that is not expected here -- closes
 * the connection with a warning naming the stranger's address and why, and
 * the job goes on.  Silence is what the socket holds when this process
 * looks: a process that computed past the deadline reads what waits before
 * it calls the other end silent, since a peer of the job dialling it
 * answers at once, however long this process was away (a busy peer is
 * never fatal, doc/wire-tcp.md).  At most TCP_MAX_PENDING connections prove the key at
 * once; later ones wait in the listener's backlog until a slot frees.
 */
#include "nal/tcp/tcp.h"
#include "nal/tcp/tcp_config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"
#include "util/log.h"

static void refuse(struct tcp_pending *p, const char *why)
{
    gp_warn("tcp", "refused a connection from %s: %s", p->peer, why);
    close(p->fd);
    p->fd = -1;
}

static void start_pending(struct tcp_pending *p, int fd, const struct sockaddr_in *from)
{
    uint8_t challenge[GP_KEYPROOF_CHALLENGE_LEN];
    p->fd = fd;
    p->waiting_hello = 0;
    p->got = 0;
    p->want = GP_WIRE_HDR_LEN;
    p->deadline_ms = tcp_now_ms() + tcp_cfg.gp_tcp_keyproof_ms;
    tcp_sockaddr_text(from, p->peer, sizeof p->peer);
    tcp_set_nodelay(fd, p->peer);
    if (gp_keyproof_challenge(p->nonce, challenge) != 0 ||
        gp_wire_send(fd, GP_WIRE_CHALLENGE, challenge, sizeof challenge) != GP_WIRE_OK)
        refuse(p, "could not send the key challenge");
}

struct tcp_pending *tcp_conn_free_pending(struct tcp_state *st)
{
    for (int k = 0; k < TCP_MAX_PENDING; k++)
        if (st->pending[k].fd < 0)
            return &st->pending[k];
    return NULL;
}

void tcp_conn_accept(struct tcp_state *st)
{
    /* With every slot busy the rest wait in the kernel's backlog (the listener
     * leaves the poll set meanwhile): a peer of this job is then only delayed. */
    struct tcp_pending *slot;
    while ((slot = tcp_conn_free_pending(st)) != NULL) {
        struct sockaddr_in from;
        socklen_t from_len = sizeof from;
        int fd = accept4(st->listen_fd, (struct sockaddr *)&from, &from_len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or a connection that died in the backlog */
        start_pending(slot, fd, &from);
        if (slot->fd >= 0) /* a refused one is closed, which takes it out of the set too */
            tcp_watch(st, fd, TCP_OWNER_PENDING((int)(slot - st->pending)), EPOLLIN);
    }
    /* Every slot busy: the listener reports nothing until the progress pass re-arms it. */
    if (st->listen_armed) {
        tcp_watch_change(st, st->listen_fd, TCP_OWNER_LISTENER, 0);
        st->listen_armed = 0;
    }
}

/* The RESPONSE is in: check the MAC, answer with PROOF. */
static void take_response(struct tcp_pending *p)
{
    uint8_t proof[GP_KEYPROOF_PROOF_LEN];
    if (gp_keyproof_check_response(gp_boot_key(), p->nonce, p->buf + GP_WIRE_HDR_LEN,
                                   GP_KEYPROOF_RESPONSE_LEN, proof) != 0) {
        refuse(p, "wrong key proof");
        return;
    }
    if (gp_wire_send(p->fd, GP_WIRE_PROOF, proof, sizeof proof) != GP_WIRE_OK) {
        refuse(p, "could not send the key proof");
        return;
    }
    p->waiting_hello = 1;
    p->got = 0;
    p->want = GP_WIRE_HDR_LEN;
    /* The key is proven: a peer of the job, whose HELLO this process may read only
     * after its next compute phase.  The deadline restarts from here. */
    p->deadline_ms = tcp_now_ms() + tcp_cfg.gp_tcp_keyproof_ms;
}

/* The HELLO from rank is in: a peer of this job we still wait for becomes a
 * connection.  Caller holds the rank's connection lock. */
static void take_rank_hello(struct tcp_state *st, struct tcp_pending *p, int rank)
{
    struct nal_ni *ni = st->ni;
    if (st->lazy && tcp_wanted(st, rank) &&
        (st->conns[rank].status != TCP_CONN_NONE || !tcp_lazy_take_hello(st, rank))) {
        /* A job member whose dial crossed ours (tcp_lazy.c): not a stranger, no warning. */
        gp_debug("tcp", "connection from rank %d at %s closed: %s", rank, p->peer,
                 st->conns[rank].status != TCP_CONN_NONE ? "that rank is connected already"
                 : "it crossed this rank's dial to it, which survives (the lower rank's)");
        close(p->fd);
        p->fd = -1;
        return;
    }
    if (!st->lazy && (rank <= ni->rank || st->conns[rank].status != TCP_CONN_NONE)) {
        /* Eager: connections are made once, at set-up, by the higher rank. */
        char why[128];
        snprintf(why, sizeof why, "proved the key as rank %d, which %s", rank,
                 !tcp_wanted(st, rank) ? "shares this host: it is reached through shm"
                 : st->setup_done ? "is connected already (set-up is over)"
                                  : "does not connect to this rank");
        refuse(p, why);
        return;
    }
    if (!tcp_wanted(st, rank)) {
        refuse(p, "proved the key as a rank that shares this host: it is reached through shm");
        return;
    }
    uint8_t welcome[TCP_HELLO_LEN];
    tcp_hello_pack(welcome, ni->rank, ni->size);
    if (gp_wire_send(p->fd, GP_WIRE_WELCOME, welcome, sizeof welcome) != GP_WIRE_OK) {
        refuse(p, "could not send WELCOME");
        return;
    }
    tcp_unwatch(st, p->fd); /* watched again as rank's connection */
    tcp_adopt(st, rank, p->fd);
    p->fd = -1;
}

static void take_hello(struct tcp_state *st, struct tcp_pending *p)
{
    int rank = tcp_hello_rank(p->buf + GP_WIRE_HDR_LEN, st->ni->size);
    if (rank < 0) {
        refuse(p, "proved the key but its HELLO names no rank of this job");
        return;
    }
    gp_mutex_lock(&st->conns[rank].lock);
    take_rank_hello(st, p, rank);
    gp_mutex_unlock(&st->conns[rank].lock);
}

/*
 * The 8-byte header is in: only the one message expected now, of its exact
 * size, is read further.  NULL if it is that one, else why it is refused.
 */
static const char *header_refusal(struct tcp_pending *p)
{
    struct gp_wire_hdr hdr;
    gp_wire_unpack_hdr(p->buf, &hdr);
    uint32_t type = p->waiting_hello ? GP_WIRE_HELLO : GP_WIRE_RESPONSE;
    uint32_t len = p->waiting_hello ? TCP_HELLO_LEN : GP_KEYPROOF_RESPONSE_LEN;
    if (hdr.type == type && hdr.len == len) {
        p->want = GP_WIRE_HDR_LEN + len;
        return NULL;
    }
    if (hdr.type == type)
        return p->waiting_hello ? "announced a HELLO of the wrong size"
                                : "announced a key proof of the wrong size";
    if (hdr.type > 0 && hdr.type < GP_WIRE_TYPE_END)
        return p->waiting_hello ? "sent another message than HELLO after the key proof"
                                : "sent another message before proving the key";
    return p->waiting_hello ? "sent garbage after the key proof"
                            : "sent garbage instead of a key proof";
}

void tcp_conn_pending_step(struct tcp_state *st, int k)
{
    struct tcp_pending *p = &st->pending[k];
    ssize_t n = recv(p->fd, p->buf + p->got, p->want - p->got, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        refuse(p, p->waiting_hello ? "closed after proving the key, before HELLO"
                                   : "closed before proving the key");
        return;
    }
    p->got += (unsigned)n;
    const char *why = p->got == GP_WIRE_HDR_LEN ? header_refusal(p) : NULL;
    if (why != NULL) {
        refuse(p, why);
        return;
    }
    if (p->got < p->want)
        return;
    if (p->waiting_hello)
        take_hello(st, p);
    else
        take_response(p);
}

/* Steps pending connection k while the socket has more for it: each step reads at
 * most one header or one payload. */
static void pending_read_all(struct tcp_state *st, int k)
{
    const struct tcp_pending *p = &st->pending[k];
    for (;;) {
        unsigned got = p->got;
        int waiting_hello = p->waiting_hello;
        tcp_conn_pending_step(st, k);
        if (p->fd < 0 || (p->got == got && p->waiting_hello == waiting_hello))
            return;
    }
}

void tcp_conn_pending_expire(struct tcp_state *st)
{
    int64_t now = -1; /* read the clock only when someone is pending */
    for (int k = 0; k < TCP_MAX_PENDING; k++) {
        if (st->pending[k].fd < 0)
            continue;
        if (now < 0)
            now = tcp_now_ms();
        if (now < st->pending[k].deadline_ms)
            continue;
        /* The answer may have waited while this process was away: it is not silence. */
        pending_read_all(st, k);
        if (st->pending[k].fd >= 0 && now >= st->pending[k].deadline_ms)
            refuse(&st->pending[k], "no key proof in time");
    }
}
