/*
 * A stranger at a job's tcp listener: it knows the address (as anyone on
 * the host could find the port) but not the job key.  Each attempt must end
 * with the job closing the connection, having sent nothing but its key
 * challenge: no PROOF, no WELCOME, no frame.
 *
 *   tcp_stranger HOST:PORT
 *
 * Attempts: a silent connection held open across all the others (it must
 * not block them) and then past the job's deadline for a key proof (10 s):
 * the job must close it; a RESPONSE made without the key;
 * garbage; a header announcing a huge payload; HELLO before any proof; a
 * tcp data frame before any proof.  Prints "tcp_stranger: CASE refused" per
 * attempt; exits 0 if every attempt was refused, 1 otherwise.
 */
#include "boot/keyproof.h"
#include "boot/wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WAIT_MS 10000
/* More than the job's deadline for a key proof (GP_TCP_KEYPROOF_MS, 10 s by default). */
#define SILENT_WAIT_MS 25000
#define ATTEMPTS 6

static const char *target;

static int connect_to(const char *addr)
{
    char host[64];
    const char *colon = strrchr(addr, ':');
    struct sockaddr_in sin = { .sin_family = AF_INET };
    if (colon == NULL || (size_t)(colon - addr) >= sizeof host) {
        fprintf(stderr, "tcp_stranger: '%s' is not HOST:PORT\n", addr);
        exit(2);
    }
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    sin.sin_port = htons((uint16_t)atoi(colon + 1));
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || inet_pton(AF_INET, host, &sin.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
        perror("tcp_stranger: connect");
        exit(1);
    }
    return fd;
}

/* Reads the job's CHALLENGE; 0 if it came as it should. */
static int read_challenge(int fd)
{
    struct gp_wire_hdr hdr;
    uint8_t challenge[GP_KEYPROOF_CHALLENGE_LEN];
    if (gp_wire_recv(fd, &hdr, challenge, sizeof challenge, WAIT_MS) != GP_WIRE_OK ||
        hdr.type != GP_WIRE_CHALLENGE || hdr.len != sizeof challenge ||
        memcmp(challenge, GP_KEYPROOF_MAGIC, 4) != 0) {
        printf("tcp_stranger: no challenge from %s\n", target);
        return -1;
    }
    return 0;
}

/* After our attempt the job must close within wait_ms without sending another message. */
static int refused_within(int fd, const char *name, int wait_ms)
{
    struct gp_wire_hdr hdr;
    uint8_t buf[256];
    int status = gp_wire_recv(fd, &hdr, buf, sizeof buf, wait_ms);
    close(fd);
    if (status == GP_WIRE_EOF || status == GP_WIRE_ERR) { /* closed, or reset */
        printf("tcp_stranger: %s refused\n", name);
        return 0;
    }
    if (status == GP_WIRE_OK)
        printf("tcp_stranger: %s NOT refused: got %s\n", name, gp_wire_type_str(hdr.type));
    else
        printf("tcp_stranger: %s NOT refused: %s\n", name, gp_wire_status_str(status));
    return 1;
}

static int refused(int fd, const char *name)
{
    return refused_within(fd, name, WAIT_MS);
}

static int wrong_key(void)
{
    uint8_t response[GP_KEYPROOF_RESPONSE_LEN];
    int fd = connect_to(target);
    if (read_challenge(fd) != 0)
        return 1;
    gp_wire_random(response, sizeof response); /* a nonce and a MAC made without the key */
    gp_wire_send(fd, GP_WIRE_RESPONSE, response, sizeof response);
    return refused(fd, "wrong-key");
}

static int garbage(void)
{
    uint8_t junk[200];
    int fd = connect_to(target);
    if (read_challenge(fd) != 0)
        return 1;
    gp_wire_random(junk, sizeof junk);
    gp_wire_write_full(fd, junk, sizeof junk, NULL, 0);
    return refused(fd, "garbage");
}

static int huge_length(void)
{
    uint8_t hdr[GP_WIRE_HDR_LEN];
    int fd = connect_to(target);
    if (read_challenge(fd) != 0)
        return 1;
    gp_wire_pack_hdr(hdr, GP_WIRE_RESPONSE, 0xffffffffu);
    gp_wire_write_full(fd, hdr, sizeof hdr, NULL, 0);
    return refused(fd, "huge-length");
}

static int hello_first(void)
{
    uint8_t hello[28] = { 'g', 'p', 't', '1' };
    int fd = connect_to(target);
    if (read_challenge(fd) != 0)
        return 1;
    gp_wire_send(fd, GP_WIRE_HELLO, hello, sizeof hello);
    return refused(fd, "hello-without-proof");
}

/* A put frame header as a peer would send it, magic "gpt2" first. */
static int frame_first(void)
{
    uint8_t frame[48] = { 'g', 'p', 't', '2', 1 /* PUT */ };
    frame[40] = 16; /* length: 16 bytes of data follow */
    uint8_t data[16] = { 0 };
    int fd = connect_to(target);
    if (read_challenge(fd) != 0)
        return 1;
    gp_wire_write_full(fd, frame, sizeof frame, data, sizeof data);
    return refused(fd, "frame-without-proof");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tcp_stranger HOST:PORT\n");
        return 2;
    }
    target = argv[1];
    /* Connects and says nothing while the others are tried: it must not block them. */
    int silent = connect_to(target);
    int failures = wrong_key() + garbage() + huge_length() + hello_first() + frame_first();
    /* Then it stays silent until the job's deadline closes it. */
    if (read_challenge(silent) != 0)
        failures++;
    else
        failures += refused_within(silent, "silent", SILENT_WAIT_MS);
    printf("tcp_stranger: %d attempts, %d not refused\n", ATTEMPTS, failures);
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
