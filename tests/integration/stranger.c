/*
 * A stranger at a job's control channel: it knows the address (it reads
 * GP_BOOT_ADDR, as anyone on the host could find the port) but not the
 * key.  Each attempt must end with gp-run closing the connection, having
 * sent nothing but its challenge: no PROOF, no WELCOME, no result.
 *
 *   stranger        (run from inside a job, so GP_BOOT_ADDR is set)
 *
 * Prints "stranger: CASE refused" per attempt; exits 0 if every attempt
 * was refused, 1 otherwise.
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

static int connect_to(const char *addr)
{
    char host[64];
    const char *colon = strrchr(addr, ':');
    struct sockaddr_in sin = { .sin_family = AF_INET };
    if (colon == NULL || (size_t)(colon - addr) >= sizeof host)
        return -1;
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    sin.sin_port = htons((uint16_t)atoi(colon + 1));
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || inet_pton(AF_INET, host, &sin.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
        perror("stranger: connect");
        exit(1);
    }
    return fd;
}

/* Reads the server's CHALLENGE; 0 if it came as it should. */
static int read_challenge(int fd, uint8_t nonce[GP_NONCE_LEN])
{
    struct gp_wire_hdr hdr;
    uint8_t challenge[GP_KEYPROOF_CHALLENGE_LEN];
    if (gp_wire_recv(fd, &hdr, challenge, sizeof challenge, WAIT_MS) != GP_WIRE_OK ||
        hdr.type != GP_WIRE_CHALLENGE || hdr.len != sizeof challenge)
        return -1;
    memcpy(nonce, challenge + 4, GP_NONCE_LEN);
    return 0;
}

/* After our attempt the server must close without another message. */
static int refused(int fd, const char *name)
{
    struct gp_wire_hdr hdr;
    uint8_t buf[256];
    int status = gp_wire_recv(fd, &hdr, buf, sizeof buf, WAIT_MS);
    /* The challenge is sent on accept, before our attempt was read: skip it. */
    if (status == GP_WIRE_OK && hdr.type == GP_WIRE_CHALLENGE)
        status = gp_wire_recv(fd, &hdr, buf, sizeof buf, WAIT_MS);
    close(fd);
    if (status == GP_WIRE_EOF || status == GP_WIRE_ERR) { /* closed, or reset */
        printf("stranger: %s refused\n", name);
        return 0;
    }
    if (status == GP_WIRE_OK)
        printf("stranger: %s NOT refused: got %s\n", name, gp_wire_type_str(hdr.type));
    else
        printf("stranger: %s NOT refused: %s\n", name, gp_wire_status_str(status));
    return 1;
}

static int wrong_key(const char *addr)
{
    uint8_t nonce[GP_NONCE_LEN], response[GP_KEYPROOF_RESPONSE_LEN];
    int fd = connect_to(addr);
    if (read_challenge(fd, nonce) != 0)
        return printf("stranger: no challenge\n"), 1;
    gp_wire_random(response, sizeof response); /* a nonce and a MAC made without the key */
    gp_wire_send(fd, GP_WIRE_RESPONSE, response, sizeof response);
    return refused(fd, "wrong-key");
}

static int garbage(const char *addr)
{
    uint8_t junk[200];
    int fd = connect_to(addr);
    gp_wire_random(junk, sizeof junk);
    gp_wire_write_full(fd, junk, sizeof junk, NULL, 0);
    return refused(fd, "garbage");
}

static int huge_length(const char *addr)
{
    uint8_t hdr[GP_WIRE_HDR_LEN];
    int fd = connect_to(addr);
    gp_wire_pack_hdr(hdr, GP_WIRE_RESPONSE, 0xffffffffu);
    gp_wire_write_full(fd, hdr, sizeof hdr, NULL, 0);
    return refused(fd, "huge-length");
}

static int hello_first(const char *addr)
{
    uint8_t nonce[GP_NONCE_LEN], hello[8] = { 0 };
    int fd = connect_to(addr);
    if (read_challenge(fd, nonce) != 0)
        return printf("stranger: no challenge\n"), 1;
    gp_wire_send(fd, GP_WIRE_HELLO, hello, sizeof hello);
    return refused(fd, "hello-without-proof");
}

int main(void)
{
    const char *addr = getenv("GP_BOOT_ADDR");
    if (addr == NULL) {
        fprintf(stderr, "stranger: GP_BOOT_ADDR is not set (run me inside a gp-run job)\n");
        return 2;
    }
    int failures = wrong_key(addr) + garbage(addr) + huge_length(addr) + hello_first(addr);
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
