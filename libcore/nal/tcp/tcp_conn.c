/*
 * Connection set-up for the tcp transport (doc/wire-tcp.md, "Connections").
 *
 * Every process listens on a TCP port of the address its peers will use
 * (TCP_LISTEN_ADDR) and publishes (address, port) with gp_boot_allgather.
 * By default (GP_TCP_CONNECT=lazy) that is all attach does: tcp_lazy.c
 * dials a peer when this process first sends to it.  GP_TCP_CONNECT=eager
 * makes every connection at attach, all-to-all: rank i dials every rank
 * below it in ascending order, then serves its listener until every rank
 * above it has arrived.  Rank 0 serves at once, and by induction every rank
 * reaches its serving phase, so the scheme can't deadlock.
 *
 * Each connection proves the job key in both directions before any frame
 * is read, with the bootstrap's HMAC challenge (boot/keyproof.h) and its
 * message framing (boot/wire.h): the accepting side sends CHALLENGE, the
 * dialling side answers RESPONSE, the acceptor returns PROOF, then HELLO
 * and WELCOME name both ends (magic, rank, size, job id).  This file is
 * the eager dialling side (blocking, with time limits: nothing else can
 * happen during set-up) and the connection life cycle; the accepting side,
 * which must never block, is tcp_accept.c.
 *
 * The listener stays open for the life of the NI so that such attempts
 * meet a key proof rather than a closed port; it is also where lazily
 * made or re-made connections would arrive later.
 */
#include "boot/wire.h"
#include "nal/tcp/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"
#include "nal/tcp/tcp_config.h"
#include "util/log.h"

#define HELLO_MAGIC "gpt2"

/* What each process publishes through the bootstrap. */
struct tcp_address {
    uint32_t ipv4;  /* network byte order */
    uint16_t port;  /* network byte order */
    uint16_t reserved;
};

static void address_text(const struct tcp_address *addr, char *out, size_t len)
{
    char ip[INET_ADDRSTRLEN] = "?";
    struct in_addr in = { .s_addr = addr->ipv4 };
    inet_ntop(AF_INET, &in, ip, sizeof ip);
    snprintf(out, len, "%s:%u", ip, (unsigned)ntohs(addr->port));
}

void tcp_sockaddr_text(const struct sockaddr_in *sin, char *out, size_t len)
{
    struct tcp_address addr = { .ipv4 = sin->sin_addr.s_addr, .port = sin->sin_port };
    address_text(&addr, out, len);
}

void tcp_set_nodelay(int fd, const char *peer)
{
    static int warned;
    int one = 1;
    /* Frames are small request/answer exchanges: Nagle would hold them back.
     * Without it the job still works, only slower: say so, once. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 &&
        !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        gp_warn("tcp", "cannot set TCP_NODELAY on the connection to %s: %m; small frames may "
                "wait up to 40 ms (further such connections are not reported)", peer);
}

/* ---- closing ---------------------------------------------------------------- */

static void conn_close(struct tcp_state *st, struct tcp_conn *conn, int status)
{
    if (conn->fd >= 0) {
        tcp_forget(st, conn);
        close(conn->fd);
    }
    conn->fd = -1;
    conn->status = status;
    conn->rx.in_body = 0;
    tcp_conn_drain(st, conn);
}

/* Records the job's end for the next caller without locks (tcp_raise_if_failed): the
 * first one wins.  what: "the peer is gone (...)".  Caller holds conn->lock, maybe
 * progress_lock. */
static void fail_later(struct tcp_state *st, const struct tcp_conn *conn, const char *what)
{
    if (__atomic_load_n(&st->fatal_pending, __ATOMIC_ACQUIRE))
        return;
    gp_mutex_lock(&st->small_lock);
    if (!st->fatal_pending) {
        snprintf(st->fatal_text, sizeof st->fatal_text,
                 "tcp: %u operation(s) to rank %d at %s can never complete: %s",
                 conn->inflight.used, conn->rank, conn->addr_text, what);
        __atomic_store_n(&st->fatal_pending, 1, __ATOMIC_RELEASE);
    }
    gp_mutex_unlock(&st->small_lock);
}

void tcp_raise_if_failed(struct tcp_state *st)
{
    if (!__atomic_load_n(&st->fatal_pending, __ATOMIC_ACQUIRE) ||
        __atomic_exchange_n(&st->fatal_raised, 1, __ATOMIC_ACQ_REL))
        return;
    gp_fatal("%s", st->fatal_text);
}

void tcp_conn_fail(struct tcp_state *st, struct tcp_conn *conn, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    gp_error("tcp", "rank %d at %s %s; connection closed", conn->rank, conn->addr_text, what);
    /* Later operations fail at once; those awaiting an answer would wait for ever. */
    if (conn->inflight.used > 0 && !nal_job_ending()) {
        char failed[300];
        snprintf(failed, sizeof failed, "the connection failed (%s)", what);
        fail_later(st, conn, failed);
    }
    conn_close(st, conn, TCP_CONN_FAILED);
}

void tcp_conn_gone(struct tcp_state *st, struct tcp_conn *conn, const char *why)
{
    snprintf(conn->gone_why, sizeof conn->gone_why, "%s", why);
    if (nal_job_ending()) {
        /* The job's exit is under way: the peer left in it, which is no news. */
        gp_debug("tcp", "connection to rank %d at %s %s: it has left the job", conn->rank,
                 conn->addr_text, why);
    } else {
        /* Nothing said the job ends: the peer's process ended in the middle of it.
         * An operation to it says so (tcp_departed); one awaiting its answer now
         * would wait for ever, so that is said at once. */
        gp_debug("tcp", "connection to rank %d at %s %s, and the job is not exiting",
                 conn->rank, conn->addr_text, why);
        if (conn->inflight.used > 0) {
            char gone[160];
            snprintf(gone, sizeof gone, "the peer is gone (%s), and the job is not exiting", why);
            fail_later(st, conn, gone);
        }
    }
    conn_close(st, conn, TCP_CONN_GONE);
}

void tcp_departed(const struct tcp_conn *conn, const char *what)
{
    if (nal_job_ending()) {
        gp_debug("tcp", "%s rank %d at %s dropped: it has left the job", what, conn->rank,
                 conn->addr_text);
        return;
    }
    /* A busy peer never gets here (its connection waits); the kernel said this one ended. */
    gp_fatal("tcp: %s rank %d at %s failed: the peer is gone (%s), and the job is not exiting: "
             "its process ended without the job's exit", what, conn->rank, conn->addr_text,
             conn->gone_why);
}

void tcp_conn_close_all(struct tcp_state *st)
{
    for (int k = 0; k < TCP_MAX_PENDING; k++)
        if (st->pending[k].fd >= 0) {
            close(st->pending[k].fd);
            st->pending[k].fd = -1;
        }
    if (st->listen_fd >= 0)
        close(st->listen_fd);
    st->listen_fd = -1;
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++)
        tcp_dial_close(st, &st->conns[rank]);
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++)
        if (st->conns[rank].fd >= 0) {
            close(st->conns[rank].fd);
            st->conns[rank].fd = -1;
        }
}

/* ---- HELLO / WELCOME -------------------------------------------------------------- */

void tcp_hello_pack(uint8_t out[TCP_HELLO_LEN], int rank, int size)
{
    memcpy(out, HELLO_MAGIC, 4);
    gp_wire_put32(out + 4, (uint32_t)rank);
    gp_wire_put32(out + 8, (uint32_t)size);
    memcpy(out + 12, gp_boot_jobid(), GP_BOOT_JOBID_LEN);
}

/* The rank a HELLO or WELCOME names, or -1 if it is not one of this job's. */
int tcp_hello_rank(const uint8_t in[TCP_HELLO_LEN], int size)
{
    uint32_t rank = gp_wire_get32(in + 4);
    if (memcmp(in, HELLO_MAGIC, 4) != 0 || gp_wire_get32(in + 8) != (uint32_t)size ||
        memcmp(in + 12, gp_boot_jobid(), GP_BOOT_JOBID_LEN) != 0 || rank >= (uint32_t)size)
        return -1;
    return (int)rank;
}

/* Caller holds the rank's connection lock. */
void tcp_adopt(struct tcp_state *st, int rank, int fd)
{
    struct tcp_conn *conn = &st->conns[rank];
    conn->fd = fd;
    conn->status = TCP_CONN_UP;
    __atomic_add_fetch(&st->peers_up, 1, __ATOMIC_RELAXED);
    tcp_watch(st, fd, rank, EPOLLIN);
    /* Lazy: queues for the peers this process talks to, not for every rank at attach. */
    if (conn->out == NULL && tcp_conn_alloc_queues(conn, &st->budget) != PTL_OK)
        tcp_conn_fail(st, conn, "has no memory for its queues");
}

/* ---- the dialling side ------------------------------------------------------------- */

/*
 * The address the listener binds and publishes: GP_TCP_ADDR when set, else
 * the address this process reaches gp-run from (the interface facing the
 * launcher, and so, on any sane network, the one facing the peers;
 * loopback when every process runs on gp-run's host).
 */
static int listen_address(struct in_addr *addr, char *text, size_t len)
{
    const char *configured = tcp_cfg.gp_tcp_addr;
    if (configured != NULL && *configured != '\0') {
        if (inet_pton(AF_INET, configured, addr) != 1) {
            gp_error("tcp", "GP_TCP_ADDR='%s' is not valid: expected an IPv4 address of this "
                     "host in dotted form, such as 10.0.0.5", configured);
            return PTL_FAIL;
        }
    } else {
        uint32_t ipv4 = 0;
        gp_boot_local_ipv4(&ipv4);
        addr->s_addr = ipv4;
    }
    inet_ntop(AF_INET, addr, text, (socklen_t)len);
    return PTL_OK;
}

static int open_listener(struct tcp_state *st, struct tcp_address *mine)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    socklen_t len = sizeof sin;
    char ip[INET_ADDRSTRLEN] = "?";
    if (listen_address(&sin.sin_addr, ip, sizeof ip) != PTL_OK)
        return PTL_FAIL;
    st->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (st->listen_fd < 0 || bind(st->listen_fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
        listen(st->listen_fd, SOMAXCONN) != 0 ||
        getsockname(st->listen_fd, (struct sockaddr *)&sin, &len) != 0) {
        gp_error("tcp", "cannot listen on %s%s: %m", ip, tcp_cfg.gp_tcp_addr != NULL ?
                 " (GP_TCP_ADDR: is it an address of this host?)" : "");
        return PTL_FAIL;
    }
    tcp_watch(st, st->listen_fd, TCP_OWNER_LISTENER, EPOLLIN);
    st->listen_armed = 1;
    *mine = (struct tcp_address){ .ipv4 = sin.sin_addr.s_addr, .port = sin.sin_port };
    address_text(mine, st->listen_text, sizeof st->listen_text);
    gp_debug("tcp", "listening on %s", st->listen_text);
    return PTL_OK;
}


/* Key proof as the client, then HELLO out and WELCOME back from the right rank. */
static int client_handshake(struct tcp_state *st, int fd, int rank, const char **why)
{
    int status = gp_keyproof_client(fd, gp_boot_key(), TCP_SETUP_MS, why);
    if (status != GP_WIRE_OK)
        return status;
    uint8_t hello[TCP_HELLO_LEN];
    struct gp_wire_hdr hdr;
    tcp_hello_pack(hello, st->ni->rank, st->ni->size);
    *why = "HELLO";
    status = gp_wire_send(fd, GP_WIRE_HELLO, hello, sizeof hello);
    if (status == GP_WIRE_OK)
        status = gp_wire_recv(fd, &hdr, hello, sizeof hello, TCP_SETUP_MS);
    if (status != GP_WIRE_OK)
        return status == GP_WIRE_EOF ? GP_WIRE_BAD : status;
    *why = "its WELCOME does not name that rank of this job";
    if (hdr.type != GP_WIRE_WELCOME || hdr.len != TCP_HELLO_LEN ||
        tcp_hello_rank(hello, st->ni->size) != rank)
        return GP_WIRE_BAD;
    return GP_WIRE_OK;
}

static int dial(struct tcp_state *st, int rank, const struct tcp_address *addr)
{
    struct tcp_conn *conn = &st->conns[rank];
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = addr->port,
                               .sin_addr.s_addr = addr->ipv4 };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int err = fd < 0 ? errno : gp_wire_connect_within(fd, (const struct sockaddr *)&sin, sizeof sin, TCP_SETUP_MS);
    if (err != 0) {
        gp_error("tcp", "cannot connect to rank %d at %s: %s", rank, conn->addr_text,
                 strerror(err));
        if (fd >= 0)
            close(fd);
        return PTL_FAIL;
    }
    tcp_set_nodelay(fd, conn->addr_text);
    const char *why = "key proof";
    int status = client_handshake(st, fd, rank, &why);
    if (status != GP_WIRE_OK) {
        gp_error("tcp", "connection to rank %d at %s failed: %s%s%s", rank, conn->addr_text,
                 why, status == GP_WIRE_BAD ? "" : ": ",
                 status == GP_WIRE_BAD ? "" : gp_wire_status_str(status));
        close(fd);
        return PTL_FAIL;
    }
    gp_mutex_lock(&conn->lock);
    tcp_adopt(st, rank, fd);
    gp_mutex_unlock(&conn->lock);
    return PTL_OK;
}

/* ---- set-up ----------------------------------------------------------------------------- */

/* Serves the listener until every higher rank has connected, or the time is up. */
static int serve_higher_ranks(struct tcp_state *st)
{
    int64_t deadline = tcp_now_ms() + TCP_SETUP_MS;
    /* peers_up counts the ranks dialled already as well as those served. */
    int expected = 0;
    for (int rank = 0; rank < st->ni->size; rank++)
        expected += tcp_wanted(st, rank);
    while (__atomic_load_n(&st->peers_up, __ATOMIC_RELAXED) < expected) {
        int64_t left = deadline - tcp_now_ms();
        if (left <= 0) {
            int missing = expected;
            for (int rank = st->ni->rank + 1; rank < st->ni->size; rank++)
                if (st->conns[rank].status == TCP_CONN_NONE && tcp_wanted(st, rank)) {
                    missing = rank;
                    break;
                }
            gp_error("tcp", "rank %d (and %d others) did not connect to %s within %d s",
                     missing, expected - st->peers_up - 1, st->listen_text, TCP_SETUP_MS / 1000);
            return PTL_FAIL;
        }
        int count = 0;
        short listen_events = tcp_conn_free_pending(st) != NULL ? POLLIN : 0;
        st->pfds[count++] = (struct pollfd){ .fd = st->listen_fd, .events = listen_events };
        for (int k = 0; k < TCP_MAX_PENDING; k++)
            st->pfds[count++] = (struct pollfd){ .fd = st->pending[k].fd, .events = POLLIN };
        if (poll(st->pfds, (nfds_t)count, (int)(left < 100 ? left : 100)) < 0 && errno != EINTR) {
            gp_error("tcp", "poll on the listener %s failed: %m", st->listen_text);
            return PTL_FAIL;
        }
        for (int k = 0; k < TCP_MAX_PENDING; k++)
            if (st->pending[k].fd >= 0 && st->pfds[1 + k].revents)
                tcp_conn_pending_step(st, k);
        if (st->pfds[0].revents)
            tcp_conn_accept(st);
        tcp_conn_pending_expire(st);
    }
    return PTL_OK;
}

static int exchange_addresses(struct tcp_state *st, struct tcp_address **all_out)
{
    struct tcp_address mine;
    int rc = open_listener(st, &mine);
    if (rc != PTL_OK)
        return rc;
    struct tcp_address *all = calloc((size_t)st->ni->size, sizeof *all);
    if (all == NULL)
        return PTL_NO_SPACE;
    if (gp_boot_allgather(&mine, all, sizeof mine) != 0) {
        free(all);
        return PTL_FAIL;
    }
    for (int rank = 0; rank < st->ni->size; rank++) {
        st->conns[rank].rank = rank;
        address_text(&all[rank], st->conns[rank].addr_text, sizeof st->conns[rank].addr_text);
    }
    *all_out = all;
    return PTL_OK;
}

/* Lazy: every rank's address is kept for the dials to come; none is made now. */
static int keep_addresses(struct tcp_state *st, const struct tcp_address *all)
{
    st->peer_addr = calloc((size_t)st->ni->size, sizeof *st->peer_addr);
    if (st->peer_addr == NULL)
        return PTL_NO_SPACE;
    for (int rank = 0; rank < st->ni->size; rank++) {
        st->peer_addr[rank] = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = all[rank].port,
                                                    .sin_addr.s_addr = all[rank].ipv4 };
        st->serving |= tcp_wanted(st, rank);
    }
    st->setup_done = 1;
    gp_debug("tcp", "listening on %s; connections are made on first use (GP_TCP_CONNECT=lazy)",
             st->listen_text);
    return PTL_OK;
}

int tcp_conn_setup(struct tcp_state *st)
{
    struct tcp_address *all = NULL;
    int rc = exchange_addresses(st, &all);
    if (rc == PTL_OK && st->lazy) {
        rc = keep_addresses(st, all);
        free(all);
        return rc;
    }
    for (int rank = 0; rc == PTL_OK && rank < st->ni->rank; rank++)
        if (tcp_wanted(st, rank))
            rc = dial(st, rank, &all[rank]);
    free(all);
    if (rc == PTL_OK)
        rc = serve_higher_ranks(st);
    if (rc == PTL_OK) {
        st->setup_done = 1;
        gp_debug("tcp", "connected to %d peers from %s", st->peers_up, st->listen_text);
    }
    return rc;
}
