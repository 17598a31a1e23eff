/*
 * The physical limits of TCP on loopback, which gp's tcp transport runs on:
 *
 *   tcp_raw lat [N]   8-byte ping-pong with TCP_NODELAY, both sides
 *                     busy-polling non-blocking recv (what a polling
 *                     runtime does), each round trip timed alone (they
 *                     take microseconds); prints "tcp_rt_us MEDIAN";
 *   tcp_raw bw [MiB]  one side streams 1 MiB writes, the other reads them;
 *                     prints "tcp_stream_MBps X" (10^6 bytes/s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#define CHUNK (1 << 20)

static void die(const char *what)
{
    fprintf(stderr, "tcp_raw: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* A connected loopback pair: *a for the parent, *b for the child. */
static void connect_pair(int *a, int *b)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sa;
    int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof sa) || listen(l, 1) ||
        getsockname(l, (struct sockaddr *)&sa, &len))
        die("listen");
    *b = socket(AF_INET, SOCK_STREAM, 0);
    if (*b < 0 || connect(*b, (struct sockaddr *)&sa, sizeof sa))
        die("connect");
    *a = accept(l, NULL, NULL);
    if (*a < 0)
        die("accept");
    close(l);
    setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Reads exactly n bytes, spinning on a non-blocking recv. */
static void spin_read(int fd, char *buf, size_t n)
{
    while (n > 0) {
        ssize_t got = recv(fd, buf, n, MSG_DONTWAIT);
        if (got > 0) {
            buf += got;
            n -= (size_t)got;
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
            die("recv");
        }
    }
}

static void write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t put = send(fd, buf, n, 0);
        if (put < 0 && errno != EINTR)
            die("send");
        if (put > 0) {
            buf += put;
            n -= (size_t)put;
        }
    }
}

static void latency(long n)
{
    int a, b;
    char msg[8] = { 0 };
    double *rt = malloc((size_t)n * sizeof *rt);
    if (!rt)
        die("malloc");
    connect_pair(&a, &b);
    long warm = n / 10 + 1;
    pid_t child = fork();
    pin(child == 0);
    if (child == 0) {
        close(a);
        for (long i = 0; i < n + warm; i++) {
            spin_read(b, msg, sizeof msg);
            write_all(b, msg, sizeof msg);
        }
        _exit(0);
    }
    close(b);
    for (long i = -warm; i < n; i++) {
        double t0 = now_ns();
        write_all(a, msg, sizeof msg);
        spin_read(a, msg, sizeof msg);
        if (i >= 0)
            rt[i] = (now_ns() - t0) / 1e3;
    }
    wait(NULL);
    qsort(rt, (size_t)n, sizeof rt[0], cmp);
    printf("tcp_rt_us %.3f\n", rt[n / 2]);
    free(rt);
}

static void stream(long mib)
{
    int a, b;
    char *buf = calloc(1, CHUNK);
    if (!buf)
        die("calloc");
    connect_pair(&a, &b);
    pid_t child = fork();
    pin(child == 0);
    if (child == 0) {
        close(a);
        for (long i = 0; i < mib; i++)
            write_all(b, buf, CHUNK);
        _exit(0);
    }
    close(b);
    double t0 = 0;
    long got = 0, total = mib * (long)CHUNK;
    while (got < total) {
        ssize_t n = recv(a, buf, CHUNK, 0);
        if (n <= 0)
            die("recv");
        if (t0 == 0)
            t0 = now_ns(); /* from the first byte: connection setup is not streaming */
        got += n;
    }
    double ns = now_ns() - t0;
    wait(NULL);
    printf("tcp_stream_MBps %.1f\n", (double)total * 1e3 / ns);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "lat") && strcmp(argv[1], "bw"))) {
        fprintf(stderr, "usage: tcp_raw lat [round-trips] | tcp_raw bw [MiB]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 0;
    if (strcmp(argv[1], "lat") == 0)
        latency(n > 0 ? n : 20000);
    else
        stream(n > 0 ? n : 4096);
    return 0;
}
