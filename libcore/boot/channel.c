/*
 * The process's end of gp-run's control channel: connect, prove the key,
 * introduce ourselves, and send messages one at a time.
 *
 * The socket stays non-blocking for its whole life so that every wait can
 * have a time limit (the wire helpers poll); close-on-exec keeps it out of
 * programs this process starts.  In PAR builds two locks guard it: one per
 * message sent (so abort, from any thread, never splices its message into
 * another) and one per collective round (collectives are not concurrent).
 */
#include "boot/bootint.h"

#include "boot/wire.h"
#include "util/log.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#if GP_PAR
#include <pthread.h>
static pthread_mutex_t send_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t round_mutex = PTHREAD_MUTEX_INITIALIZER;
#endif

void gp_boot_send_lock(void)
{
#if GP_PAR
    pthread_mutex_lock(&send_mutex);
#endif
}

int gp_boot_send_trylock(void)
{
#if GP_PAR
    return pthread_mutex_trylock(&send_mutex) == 0;
#else
    return 1;
#endif
}

void gp_boot_send_unlock(void)
{
#if GP_PAR
    pthread_mutex_unlock(&send_mutex);
#endif
}

void gp_boot_round_lock(void)
{
#if GP_PAR
    pthread_mutex_lock(&round_mutex);
#endif
}

void gp_boot_round_unlock(void)
{
#if GP_PAR
    pthread_mutex_unlock(&round_mutex);
#endif
}

int gp_boot_channel_send(uint32_t type, const void *payload, uint32_t len)
{
    gp_boot_send_lock();
    int status = gp_wire_send(gp_boot.fd, type, payload, len);
    gp_boot_send_unlock();
    return status;
}


/* A connected, non-blocking socket to host:port, or -1 after saying why. */
static int connect_to(const struct gp_boot_env *env)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *list = NULL;
    int gai = getaddrinfo(env->host, env->port, &hints, &list);
    if (gai != 0) {
        gp_error("boot", "GP_BOOT_ADDR=%s:%s: cannot resolve the host: %s", env->host, env->port,
                 gai_strerror(gai));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = list; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        err = gp_wire_connect_within(fd, ai->ai_addr, ai->ai_addrlen, GP_BOOT_HANDSHAKE_MS);
        if (err != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    if (fd < 0) {
        gp_error("boot", "cannot reach gp-run's control channel at GP_BOOT_ADDR=%s:%s: %s "
                 "(has gp-run exited?)", env->host, env->port, strerror(err));
        return -1;
    }
    int one = 1;
    /* Collectives are small request/answer rounds: Nagle would add 40 ms to each
     * (slower, not wrong: a warning). */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        gp_warn("boot", "cannot set TCP_NODELAY on the control channel to %s:%s: %m; each "
                "bootstrap collective may take 40 ms longer", env->host, env->port);
    return fd;
}

/* Prints the text of an ERROR message (already in buf, len bytes). */
static void report_refusal(const uint8_t *buf, uint32_t len)
{
    gp_error("boot", "gp-run refused this process: %.*s", (int)len, (const char *)buf);
}

/* HELLO (rank, pid), then WELCOME (size, job id) must match our variables. */
static int introduce(int fd, const struct gp_boot_env *env)
{
    uint8_t hello[8], reply[GP_WIRE_MAX_TEXT];
    struct gp_wire_hdr hdr;
    gp_wire_put32(hello, (uint32_t)env->rank);
    gp_wire_put32(hello + 4, (uint32_t)getpid());
    int status = gp_wire_send(fd, GP_WIRE_HELLO, hello, sizeof hello);
    if (status == GP_WIRE_OK)
        status = gp_wire_recv(fd, &hdr, reply, sizeof reply, GP_BOOT_HANDSHAKE_MS);
    if (status != GP_WIRE_OK) {
        gp_error("boot", "no welcome from gp-run at %s:%s: %s", env->host, env->port,
                 gp_wire_status_str(status));
        return -1;
    }
    if (hdr.type == GP_WIRE_ERROR) {
        report_refusal(reply, hdr.len);
        return -1;
    }
    if (hdr.type != GP_WIRE_WELCOME || hdr.len != 4 + GP_BOOT_JOBID_LEN ||
        gp_wire_get32(reply) != (uint32_t)env->size ||
        memcmp(reply + 4, env->jobid, GP_BOOT_JOBID_LEN) != 0) {
        gp_error("boot", "gp-run at %s:%s runs another job than GP_SIZE=%d GP_JOBID=%s",
                 env->host, env->port, env->size, env->jobid);
        return -1;
    }
    return 0;
}

int gp_boot_channel_open(const struct gp_boot_env *env)
{
    const char *why = NULL;
    int fd = connect_to(env);
    if (fd < 0)
        return -1;
    int status = gp_keyproof_client(fd, env->key, GP_BOOT_HANDSHAKE_MS, &why);
    if (status != GP_WIRE_OK) {
        if (status == GP_WIRE_BAD)
            gp_error("boot", "key proof with gp-run at %s:%s failed: %s", env->host, env->port,
                     why);
        else
            gp_error("boot", "key proof with gp-run at %s:%s failed: %s: %s", env->host,
                     env->port, why, gp_wire_status_str(status));
        close(fd);
        return -1;
    }
    if (introduce(fd, env) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}
