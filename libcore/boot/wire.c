/*
 * Framing and full-transfer I/O for the control channel (see wire.h).
 *
 * Every helper loops over EINTR and short transfers so callers only ever
 * see "all of it", "the peer went away" or "a real error".  Writes go
 * through sendmsg(MSG_NOSIGNAL) so a vanished peer is an EPIPE return, not
 * a SIGPIPE that would kill gp-run or a job process; on a descriptor that
 * is not a socket (a pipe in a test) they fall back to writev.
 */
#include "boot/wire.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static const char *const type_names[GP_WIRE_TYPE_END] = {
    [GP_WIRE_CHALLENGE] = "CHALLENGE",
    [GP_WIRE_RESPONSE] = "RESPONSE",
    [GP_WIRE_PROOF] = "PROOF",
    [GP_WIRE_HELLO] = "HELLO",
    [GP_WIRE_WELCOME] = "WELCOME",
    [GP_WIRE_COLL] = "COLL",
    [GP_WIRE_COLL_RESULT] = "COLL_RESULT",
    [GP_WIRE_ABORT] = "ABORT",
    [GP_WIRE_ABORT_ACK] = "ABORT_ACK",
    [GP_WIRE_FINI] = "FINI",
    [GP_WIRE_FINI_ACK] = "FINI_ACK",
    [GP_WIRE_ERROR] = "ERROR",
};

const char *gp_wire_type_str(uint32_t type)
{
    if (type < GP_WIRE_TYPE_END && type_names[type] != NULL)
        return type_names[type];
    return "unknown";
}

const char *gp_wire_coll_str(uint32_t kind)
{
    switch (kind) {
    case GP_WIRE_COLL_BARRIER: return "barrier";
    case GP_WIRE_COLL_ALLGATHER: return "allgather";
    case GP_WIRE_COLL_BROADCAST: return "broadcast";
    default: return "unknown collective";
    }
}

const char *gp_wire_status_str(int status)
{
    switch (status) {
    case GP_WIRE_OK: return "ok";
    case GP_WIRE_EOF: return "connection closed by the peer";
    case GP_WIRE_ERR: return strerror(errno);
    case GP_WIRE_TIMEOUT: return "timed out";
    case GP_WIRE_BAD: return "malformed or unexpected message";
    default: return "unknown status";
    }
}

void gp_wire_put32(uint8_t *out, uint32_t value)
{
    out[0] = (uint8_t)(value >> 24);
    out[1] = (uint8_t)(value >> 16);
    out[2] = (uint8_t)(value >> 8);
    out[3] = (uint8_t)value;
}

uint32_t gp_wire_get32(const uint8_t *in)
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

void gp_wire_pack_hdr(uint8_t out[GP_WIRE_HDR_LEN], uint32_t type, uint32_t len)
{
    gp_wire_put32(out, type);
    gp_wire_put32(out + 4, len);
}

void gp_wire_unpack_hdr(const uint8_t in[GP_WIRE_HDR_LEN], struct gp_wire_hdr *hdr)
{
    hdr->type = gp_wire_get32(in);
    hdr->len = gp_wire_get32(in + 4);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline_ms (monotonic); -1 means no deadline. */
static int remaining_ms(int64_t deadline_ms)
{
    if (deadline_ms < 0)
        return -1;
    int64_t left = deadline_ms - now_ms();
    return left < 0 ? 0 : (int)left;
}

/* Waits until fd is ready for events; GP_WIRE_OK, _TIMEOUT or _ERR. */
static int wait_ready(int fd, short events, int64_t deadline_ms)
{
    struct pollfd pfd = { .fd = fd, .events = events };
    for (;;) {
        int n = poll(&pfd, 1, remaining_ms(deadline_ms));
        if (n > 0)
            return GP_WIRE_OK;
        if (n == 0)
            return GP_WIRE_TIMEOUT;
        if (errno != EINTR)
            return GP_WIRE_ERR;
    }
}

static ssize_t write_some(int fd, struct iovec *iov, int iovcnt)
{
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
    ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK)
        n = writev(fd, iov, iovcnt);
    return n;
}

int gp_wire_write_full(int fd, const void *head, size_t head_len,
                       const void *body, size_t body_len)
{
    struct iovec iov[2] = {
        { .iov_base = (void *)head, .iov_len = head_len },
        { .iov_base = (void *)body, .iov_len = body_len },
    };
    struct iovec *cur = iov;
    int left = body_len > 0 ? 2 : 1;
    while (left > 0) {
        ssize_t n = write_some(fd, cur, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (wait_ready(fd, POLLOUT, -1) != GP_WIRE_OK)
                    return GP_WIRE_ERR;
                continue;
            }
            return GP_WIRE_ERR;
        }
        size_t done = (size_t)n;
        while (left > 0 && done >= cur->iov_len) {
            done -= cur->iov_len;
            cur++;
            left--;
        }
        if (left > 0) {
            cur->iov_base = (char *)cur->iov_base + done;
            cur->iov_len -= done;
        }
    }
    return GP_WIRE_OK;
}

int gp_wire_send(int fd, uint32_t type, const void *payload, uint32_t len)
{
    uint8_t hdr[GP_WIRE_HDR_LEN];
    gp_wire_pack_hdr(hdr, type, len);
    return gp_wire_write_full(fd, hdr, sizeof hdr, payload, len);
}

int gp_wire_read_full(int fd, void *buf, size_t len, int timeout_ms)
{
    int64_t deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n > 0) {
            got += (size_t)n;
            continue;
        }
        if (n == 0)
            return got == 0 ? GP_WIRE_EOF : GP_WIRE_BAD;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return GP_WIRE_ERR;
        int ready = wait_ready(fd, POLLIN, deadline_ms);
        if (ready != GP_WIRE_OK)
            return ready;
    }
    return GP_WIRE_OK;
}

int gp_wire_recv(int fd, struct gp_wire_hdr *hdr, void *buf, size_t cap, int timeout_ms)
{
    uint8_t raw[GP_WIRE_HDR_LEN];
    int status = gp_wire_read_full(fd, raw, sizeof raw, timeout_ms);
    if (status != GP_WIRE_OK)
        return status;
    gp_wire_unpack_hdr(raw, hdr);
    if (hdr->len > cap)
        return GP_WIRE_BAD;
    if (hdr->len == 0)
        return GP_WIRE_OK;
    status = gp_wire_read_full(fd, buf, hdr->len, timeout_ms);
    /* The header arrived, so a close now tears a message in two. */
    return status == GP_WIRE_EOF ? GP_WIRE_BAD : status;
}

int gp_wire_random(void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom((char *)buf + got, len - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return GP_WIRE_ERR;
        }
        got += (size_t)n;
    }
    return GP_WIRE_OK;
}

void gp_wire_hex(const uint8_t *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

/* A non-blocking connect that gives up after timeout_ms; 0 or errno. */
int gp_wire_connect_within(int fd, const struct sockaddr *addr, unsigned addr_len, int timeout_ms)
{
    if (connect(fd, addr, (socklen_t)addr_len) == 0)
        return 0;
    if (errno != EINPROGRESS && errno != EINTR)
        return errno;
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    int n;
    while ((n = poll(&pfd, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (n == 0)
        return ETIMEDOUT;
    int err = 0;
    socklen_t err_len = sizeof err;
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) != 0)
        return errno;
    return err;
}
