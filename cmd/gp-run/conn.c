/*
 * One control connection, from accept to close.
 *
 * A connection starts unproven: gp-run sends a CHALLENGE and accepts
 * exactly one thing back, a RESPONSE of exactly 64 bytes, within
 * RUN_PROOF_TIMEOUT_S.  Anything else -- a wrong MAC, another message, a
 * huge length, silence, a close -- is refused, closed and logged with the
 * peer's address, and the job goes on.  A proven connection must say HELLO
 * with its rank, then may send COLL, ABORT and FINI.
 *
 * Reads are non-blocking and resumable (a header, then a body), so one
 * slow or hostile peer never holds up the event loop.
 */
#include "gp_run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void conn_close(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    if (c->fd < 0)
        return;
    close(c->fd);
    free(c->body);
    if (c->rank >= 0 && srv->job->procs[c->rank].conn == index)
        srv->job->procs[c->rank].conn = -1;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->rank = -1;
}

static void refuse(struct run_server *srv, int index, const char *why)
{
    run_say("refused a control connection from %s: %s", srv->conns[index].peer, why);
    conn_close(srv, index);
}

int conn_send(struct run_server *srv, int index, uint32_t type, const void *payload,
              uint32_t len)
{
    int status = gp_wire_send(srv->conns[index].fd, type, payload, len);
    if (status != GP_WIRE_OK) {
        run_note("cannot send %s to %s: %s", gp_wire_type_str(type), srv->conns[index].peer,
                 gp_wire_status_str(status));
        conn_close(srv, index);
    }
    return status;
}

/* A free slot for a new connection, or -1 when full or too many unproven. */
static int free_slot(const struct run_server *srv)
{
    int unproven = 0, slot = -1;
    for (int i = 0; i < srv->nconns; i++) {
        if (srv->conns[i].fd < 0 && slot < 0)
            slot = i;
        else if (srv->conns[i].fd >= 0 && !srv->conns[i].proven)
            unproven++;
    }
    return unproven >= srv->max_unproven ? -1 : slot;
}

int conn_room(const struct run_server *srv)
{
    return free_slot(srv) >= 0;
}

static void peer_text(const struct sockaddr_storage *addr, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (addr->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
    } else if (addr->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        port = ntohs(in6->sin6_port);
    }
    snprintf(buf, len, "%s:%d", host, port);
}

/* Sets up a fresh slot and sends the CHALLENGE. */
static void start(struct run_server *srv, int slot, int fd, const char *peer)
{
    struct run_conn *c = &srv->conns[slot];
    uint8_t challenge[GP_KEYPROOF_CHALLENGE_LEN];
    int one = 1;
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->rank = -1;
    c->proof_deadline = run_now() + RUN_PROOF_TIMEOUT_S;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        run_say("cannot set TCP_NODELAY on the connection from %s: %m; its collectives may "
                 "take 40 ms longer", peer);
    if (gp_keyproof_challenge(c->nonce_s, challenge) != 0) {
        run_say("cannot draw a nonce from getrandom: %m");
        conn_close(srv, slot);
        return;
    }
    conn_send(srv, slot, GP_WIRE_CHALLENGE, challenge, sizeof challenge);
}

/*
 * At most srv->max_unproven connections prove the key at once; the others
 * wait in the listen backlog (sized for every rank and as many strangers)
 * until one is proven, refused or expired, and the event loop stops
 * looking at the listener meanwhile.  Refusing them instead failed the
 * ranks of jobs over 64 processes that all dialled while 64 of their
 * own were still proving ("no challenge from the server").
 */
void conn_accept(struct run_server *srv)
{
    while (conn_room(srv)) {
        struct sockaddr_storage addr;
        socklen_t addr_len = sizeof addr;
        char peer[64];
        int fd = accept4(srv->listen_fd, (struct sockaddr *)&addr, &addr_len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                run_say("accept on the control channel failed: %m");
            return;
        }
        peer_text(&addr, peer, sizeof peer);
        start(srv, free_slot(srv), fd, peer);
    }
}

void conn_expire(struct run_server *srv, double now)
{
    for (int i = 0; i < srv->nconns; i++)
        if (srv->conns[i].fd >= 0 && !srv->conns[i].proven && now >= srv->conns[i].proof_deadline)
            refuse(srv, i, "no key proof within " RUN_PROOF_TIMEOUT_TEXT);
}

/* Whether a header may be followed by its body in the connection's state. */
static int header_allowed(const struct run_conn *c)
{
    uint32_t type = c->hdr.type, len = c->hdr.len;
    if (!c->proven)
        return type == GP_WIRE_RESPONSE && len == GP_KEYPROOF_RESPONSE_LEN;
    if (c->rank < 0)
        return type == GP_WIRE_HELLO && len == 8;
    switch (type) {
    case GP_WIRE_COLL:
        return len >= GP_WIRE_COLL_FIXED && len - GP_WIRE_COLL_FIXED <= GP_WIRE_MAX_PAYLOAD;
    case GP_WIRE_ABORT:
        return len >= 4 && len - 4 <= GP_WIRE_MAX_TEXT;
    case GP_WIRE_FINI:
        return len == 4;
    default:
        return 0;
    }
}

static void protocol_error(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    char why[160];
    snprintf(why, sizeof why, "%s message (type %u, %u bytes) %s",
             gp_wire_type_str(c->hdr.type), c->hdr.type, c->hdr.len,
             c->proven ? "not allowed here" : "instead of a key proof");
    if (!c->proven) {
        refuse(srv, index, why);
        return;
    }
    if (c->rank >= 0)
        job_fail(srv, 1, "rank %d broke the control protocol: %s", c->rank, why);
    else
        job_fail(srv, 1, "a process of the job at %s broke the control protocol: %s", c->peer,
                 why);
    conn_close(srv, index);
}

static void on_response(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    uint8_t proof[GP_KEYPROOF_PROOF_LEN];
    if (gp_keyproof_check_response(srv->job->key, c->nonce_s, c->body, c->hdr.len, proof) != 0) {
        refuse(srv, index, "wrong key proof");
        return;
    }
    c->proven = 1;
    conn_send(srv, index, GP_WIRE_PROOF, proof, sizeof proof);
}

/* Sends ERROR with the reason, says it, and closes. */
static void turn_away(struct run_server *srv, int index, const char *why)
{
    run_say("turned away a process of the job at %s: %s", srv->conns[index].peer, why);
    if (conn_send(srv, index, GP_WIRE_ERROR, why, (uint32_t)strlen(why)) == GP_WIRE_OK)
        conn_close(srv, index);
}

static void on_hello(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    struct run_job *job = srv->job;
    uint32_t rank = gp_wire_get32(c->body), pid = gp_wire_get32(c->body + 4);
    uint8_t welcome[4 + GP_BOOT_JOBID_LEN];
    char why[128];
    if (rank >= (uint32_t)job->nprocs) {
        snprintf(why, sizeof why, "rank %u is not in this job of %d processes", rank,
                 job->nprocs);
        turn_away(srv, index, why);
        return;
    }
    if (job->procs[rank].joined) {
        snprintf(why, sizeof why, "rank %u has already joined the job", rank);
        turn_away(srv, index, why);
        return;
    }
    job->procs[rank].joined = 1;
    job->procs[rank].conn = index;
    c->rank = (int)rank;
    run_note("rank %u (pid %u) joined from %s", rank, pid, c->peer);
    gp_wire_put32(welcome, (uint32_t)job->nprocs);
    memcpy(welcome + 4, job->jobid, GP_BOOT_JOBID_LEN);
    conn_send(srv, index, GP_WIRE_WELCOME, welcome, sizeof welcome);
}

static void on_abort(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    int rank = c->rank;
    int code = (int)gp_wire_get32(c->body);
    char why[GP_WIRE_MAX_TEXT + 1];
    size_t why_len = c->hdr.len - 4;
    /* The reason goes to a terminal: no control characters. */
    for (size_t i = 0; i < why_len; i++) {
        unsigned char ch = c->body[4 + i];
        why[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    why[why_len] = '\0';
    run_say("rank %d (pid %d) aborted the job with exit code %d: %s", rank,
            (int)srv->job->procs[rank].pid, code, why_len ? why : "(no reason given)");
    if (conn_send(srv, index, GP_WIRE_ABORT_ACK, NULL, 0) == GP_WIRE_OK)
        conn_close(srv, index);
    job_abort(srv, code);
}

static void on_message(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    if (!c->proven) {
        on_response(srv, index);
    } else if (c->rank < 0) {
        on_hello(srv, index);
    } else if (c->hdr.type == GP_WIRE_COLL) {
        gather_contribute(srv, c->rank, c->body, c->hdr.len);
    } else if (c->hdr.type == GP_WIRE_ABORT) {
        on_abort(srv, index);
    } else {
        srv->job->procs[c->rank].finished = 1;
        run_note("rank %d finished (exit code %d)", c->rank, (int)gp_wire_get32(c->body));
        conn_send(srv, index, GP_WIRE_FINI_ACK, NULL, 0);
    }
}

static void on_eof(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    if (!c->proven) {
        refuse(srv, index, c->hdr_got ? "closed in the middle of a message"
                                      : "closed the connection without proving the key");
        return;
    }
    if (c->rank >= 0 && !srv->job->procs[c->rank].finished)
        run_note("rank %d closed its control channel without saying it finished", c->rank);
    conn_close(srv, index);
}

/* Reads what is available into the header or body; 1 = more may come. */
static int read_some(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    int in_header = c->hdr_got < GP_WIRE_HDR_LEN;
    uint8_t *dst = in_header ? c->hdr_raw + c->hdr_got : c->body + c->body_got;
    size_t want = in_header ? GP_WIRE_HDR_LEN - c->hdr_got : c->hdr.len - c->body_got;
    ssize_t n = want ? read(c->fd, dst, want) : 0;
    if (want > 0 && n <= 0) {
        if (n < 0 && errno == EINTR)
            return 1;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0 && !c->proven)
            refuse(srv, index, strerror(errno));
        else if (n < 0)
            conn_close(srv, index);
        else
            on_eof(srv, index);
        return 0;
    }
    if (in_header) {
        c->hdr_got += (size_t)n;
        if (c->hdr_got < GP_WIRE_HDR_LEN)
            return 1;
        gp_wire_unpack_hdr(c->hdr_raw, &c->hdr);
        if (!header_allowed(c) || (c->body = malloc((size_t)c->hdr.len + 1)) == NULL) {
            protocol_error(srv, index);
            return 0;
        }
        c->body_got = 0;
    } else {
        c->body_got += (size_t)n;
    }
    return 1;
}

void conn_service(struct run_server *srv, int index)
{
    struct run_conn *c = &srv->conns[index];
    while (c->fd >= 0 && read_some(srv, index)) {
        if (c->hdr_got < GP_WIRE_HDR_LEN || c->body_got < c->hdr.len)
            continue;
        on_message(srv, index);
        if (c->fd < 0)
            return;
        free(c->body);
        c->body = NULL;
        c->hdr_got = 0;
        c->body_got = 0;
    }
}
