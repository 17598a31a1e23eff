/*
 * One connection in the middle of a frame does not stop the others
 * (GP_TRANSPORT=tcp, 3 nodes; doc/wire-tcp.md, "Reading").
 *
 * Node 1 writes a PUT frame into node 0's segment by hand, on its own
 * connection to node 0: the header and half the body, then nothing, and
 * it makes no GASNet call (that would write behind the half frame) until
 * node 0 says so.  This is what a sender leaves behind when its socket was
 * full in the middle of a held-back put and it then computed.  Meanwhile
 * node 2 completes ROUNDS AM round trips with node 0, and node 0 sees the
 * first half of the body in place and the second half not yet there: the
 * put was half received all along.  Then node 0 creates the file named on
 * the command line, node 1 writes the rest, and node 0 finds the whole
 * body in place once node 1's next message (behind it on the stream) is in.
 *
 * No timing: if node 0 stopped reading node 2 while node 1's body was
 * half in, the round trips would never end and the job would hang until
 * the script's limit fails it.
 *
 * Node 1 finds its socket to node 0 as the one whose two ends are those of
 * one of node 0's sockets, reversed (node 0 puts its list into node 1's
 * segment): no port is guessed.
 *
 * Usage: tcp_half_put GO_FILE     (HALF_FILE is GO_FILE.half)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "amtest.h"
#include "conduit/am/am_wire.h"
#include "nal/tcp/tcp.h"

#define H_PING 200
#define H_PONG 201
#define ROUNDS 2000
#define SEGMENT (2u << 20)
#define BODY (64u << 10)        /* more than the receiver's stage: read straight into place */
#define BODY_OFFSET (1u << 20)  /* where in node 0's segment the hand-made put goes */
#define MAX_SOCKETS 64

/* One TCP socket's two ends. */
struct ends {
    struct sockaddr_in local;
    struct sockaddr_in peer;
};

/* What node 0 puts into node 1's segment: its sockets. */
struct socket_list {
    uint32_t count;
    struct ends ends[MAX_SOCKETS];
};

static volatile int pings_served, pongs;

static void ping_request(gasnet_token_t token, gasnet_handlerarg_t round)
{
    pings_served++;
    CHECK(gasnet_AMReplyShort1(token, H_PONG, round) == GASNET_OK, "reply");
}

static void pong_reply(gasnet_token_t token, gasnet_handlerarg_t round)
{
    (void)token;
    CHECK(round == pongs, "pong %d came back as %d", pongs, round);
    pongs++;
}

static gasnet_handlerentry_t table[] = {
    { H_PING, ping_request }, { H_PONG, pong_reply }, AMTEST_HANDLERS
};

static unsigned char body_byte(uint32_t i)
{
    return (unsigned char)(i * 7u + 3u);
}

/* The ends of the IPv4 TCP socket fd, or 0 if it is none. */
static int socket_ends(int fd, struct ends *out)
{
    socklen_t len = sizeof out->local;
    if (getsockname(fd, (struct sockaddr *)&out->local, &len) != 0 ||
        out->local.sin_family != AF_INET)
        return 0;
    len = sizeof out->peer;
    return getpeername(fd, (struct sockaddr *)&out->peer, &len) == 0;
}

/* Calls visit(fd, ends, arg) for each connected IPv4 socket this process holds;
 * stops at the first visit that returns non-zero and returns that. */
static int each_socket(int (*visit)(int, const struct ends *, void *), void *arg)
{
    DIR *dir = opendir("/proc/self/fd");
    CHECK(dir != NULL, "cannot open /proc/self/fd");
    int found = 0;
    struct dirent *entry;
    while (found == 0 && (entry = readdir(dir)) != NULL) {
        int fd = atoi(entry->d_name);
        struct ends ends;
        if (entry->d_name[0] != '.' && fd != dirfd(dir) && socket_ends(fd, &ends))
            found = visit(fd, &ends, arg);
    }
    closedir(dir);
    return found;
}

static int add_to_list(int fd, const struct ends *ends, void *arg)
{
    (void)fd;
    struct socket_list *list = arg;
    CHECK(list->count < MAX_SOCKETS, "more than %d sockets", MAX_SOCKETS);
    list->ends[list->count++] = *ends;
    return 0;
}

static int same_address(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

/* Returns fd + 1 if this socket is the other end of one on node 0's list. */
static int matches_list(int fd, const struct ends *ends, void *arg)
{
    const struct socket_list *list = arg;
    for (uint32_t i = 0; i < list->count; i++)
        if (same_address(&ends->local, &list->ends[i].peer) &&
            same_address(&ends->peer, &list->ends[i].local))
            return fd + 1;
    return 0;
}

/* Writes all of buf to the non-blocking socket fd, waiting for room as needed. */
static void write_all(int fd, const void *buf, size_t len)
{
    const char *at = buf;
    while (len > 0) {
        ssize_t n = write(fd, at, len);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            poll(&pfd, 1, -1);
            continue;
        }
        CHECK(n > 0 || errno == EINTR, "write to node 0's socket: %s", strerror(errno));
        if (n > 0) {
            at += n;
            len -= (size_t)n;
        }
    }
}

static void wait_for_file(const char *path)
{
    while (access(path, F_OK) != 0)
        usleep(10000); /* no GASNet call */
}

static void create_file(const char *path)
{
    FILE *file = fopen(path, "w");
    CHECK(file != NULL && fclose(file) == 0, "cannot create %s", path);
}

/* Node 1: a put of BODY bytes to node 0's segment, header and first half only. */
static void write_half_put(int fd, const unsigned char *body)
{
    struct tcp_frame put = { .type = TCP_FRAME_PUT, .pt_index = PT_RAR, .offset = BODY_OFFSET,
                             .length = BODY }; /* no ACK_REQ: no answer this library awaits */
    uint8_t hdr[TCP_FRAME_HDR_LEN];
    tcp_frame_encode(&put, hdr);
    write_all(fd, hdr, sizeof hdr);
    write_all(fd, body, BODY / 2);
}

static void node0_check_body(const unsigned char *at, uint32_t from, uint32_t to, int present)
{
    for (uint32_t i = from; i < to; i++)
        CHECK(at[i] == (present ? body_byte(i) : 0), "body byte %u is 0x%02x, expected 0x%02x",
              i, at[i], present ? body_byte(i) : 0);
}

int main(int argc, char **argv)
{
    amtest_name = "tcp_half_put";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc == 2, "usage: tcp_half_put GO_FILE");
    CHECK(gasnet_nodes() == 3, "run on 3 nodes, not %u", gasnet_nodes());
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), SEGMENT, 0) == GASNET_OK,
          "attach");
    gasnet_seginfo_t seg[3];
    CHECK(gasnet_getSegmentInfo(seg, 3) == GASNET_OK, "segment info");
    gasnet_node_t me = gasnet_mynode();
    char half_file[4096];
    snprintf(half_file, sizeof half_file, "%s.half", argv[1]);

    /* Connections up first (made on first use): the half frame goes on an open one. */
    uint64_t hello = me;
    if (me != 0)
        gasnet_put(0, (char *)seg[0].addr + 8 * me, &hello, sizeof hello);
    amtest_barrier();
    if (me == 0) {
        struct socket_list list = { 0 };
        each_socket(add_to_list, &list);
        gasnet_put(1, seg[1].addr, &list, sizeof list);
    }
    amtest_barrier();

    if (me == 1) {
        int fd = each_socket(matches_list, seg[1].addr) - 1;
        CHECK(fd >= 0, "no socket of node 1 is the other end of one of node 0's");
        unsigned char *body = malloc(BODY);
        CHECK(body != NULL, "no memory");
        for (uint32_t i = 0; i < BODY; i++)
            body[i] = body_byte(i);
        /* Whatever the library still held back for node 0 leaves before the hand-made frame. */
        for (int i = 0; i < 4; i++)
            gasnet_AMPoll();
        write_half_put(fd, body);
        create_file(half_file);
        wait_for_file(argv[1]);
        write_all(fd, body + BODY / 2, BODY - BODY / 2);
        free(body);
    } else if (me == 2) {
        for (int round = 0; round < ROUNDS; round++) {
            CHECK(gasnet_AMRequestShort1(0, H_PING, round) == GASNET_OK, "request");
            GASNET_BLOCKUNTIL(pongs == round + 1);
        }
    } else {
        wait_for_file(half_file);
        GASNET_BLOCKUNTIL(pings_served == ROUNDS);
        const unsigned char *at = (const unsigned char *)seg[0].addr + BODY_OFFSET;
        node0_check_body(at, 0, BODY / 2, 1);
        node0_check_body(at, BODY / 2, BODY, 0);
        printf("tcp_half_put: %d round trips with node 2 while node 1's put was half received\n",
               ROUNDS);
        fflush(stdout);
        create_file(argv[1]);
    }
    /* Node 1's arrival follows the rest of its body on the same stream. */
    amtest_barrier();
    if (me == 0) {
        node0_check_body((const unsigned char *)seg[0].addr + BODY_OFFSET, 0, BODY, 1);
        printf("tcp_half_put: the put's %u bytes arrived whole once node 1 went on\n", BODY);
        fflush(stdout);
    }
    amtest_barrier();
    gasnet_exit(0);
    return 0;
}
