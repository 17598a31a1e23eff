/*
 * The launcher's environment: GP_BOOT_ADDR, GP_RANK, GP_SIZE, GP_JOBID and
 * GP_BOOT_KEY_FD.
 *
 * gp-run sets all five; a user rarely should.  So every check names the
 * variable, shows the value and what is accepted, and hints at the usual
 * cause (a program started by hand with half a job's environment).  The
 * key is read from an inherited pipe, never from the environment, and the
 * descriptor is closed at once so programs this process starts don't
 * inherit it.
 */
#include "boot/bootint.h"

#include "config/config.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HINT "(gp-run sets it; was this program started by gp-run?)"

/* The value of a required variable, or NULL after saying it is missing. */
static const char *required(const char *name)
{
    const char *value = gp_config_getenv(name);
    if (value == NULL || *value == '\0')
        gp_error("boot", "%s is not set but GP_BOOT_ADDR is %s", name, HINT);
    return value;
}

/* Parses a decimal integer in [min, max]; -1 after naming the variable. */
static int parse_ranged(const char *name, const char *text, long min, long max, int *out)
{
    int64_t value;
    if (gp_config_parse_int(text, &value) != 0 || value < min || value > max) {
        gp_error("boot", "%s='%s' is not valid: expected a decimal integer in [%ld, %ld] %s",
                 name, text, min, max, HINT);
        return -1;
    }
    *out = (int)value;
    return 0;
}

/* host:port, where host may be [v6-address]; the port is 1..65535. */
static int parse_addr(const char *text, struct gp_boot_env *env)
{
    const char *colon = strrchr(text, ':');
    const char *host = text;
    size_t host_len = colon ? (size_t)(colon - text) : 0;
    int64_t port = 0;
    if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
        host++;
        host_len -= 2;
    }
    if (colon == NULL || host_len == 0 || host_len >= sizeof env->host ||
        gp_config_parse_int(colon + 1, &port) != 0 || port < 1 || port > 65535) {
        gp_error("boot", "GP_BOOT_ADDR='%s' is not valid: expected HOST:PORT with a port "
                 "in [1, 65535] %s", text, HINT);
        return -1;
    }
    memcpy(env->host, host, host_len);
    env->host[host_len] = '\0';
    snprintf(env->port, sizeof env->port, "%d", (int)port);
    return 0;
}

static int parse_jobid(const char *text, struct gp_boot_env *env)
{
    size_t len = strlen(text);
    int ok = len == GP_BOOT_JOBID_LEN;
    for (size_t i = 0; ok && i < len; i++)
        ok = (text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f');
    if (!ok) {
        gp_error("boot", "GP_JOBID='%s' is not valid: expected %d lowercase hex digits %s",
                 text, GP_BOOT_JOBID_LEN, HINT);
        return -1;
    }
    memcpy(env->jobid, text, len + 1);
    return 0;
}

/* Reads the key from the inherited descriptor and closes it. */
static int read_key(const char *text, struct gp_boot_env *env)
{
    int fd;
    if (parse_ranged("GP_BOOT_KEY_FD", text, 0, 1 << 20, &fd) != 0)
        return -1;
    if (fcntl(fd, F_GETFD) < 0) {
        gp_error("boot", "GP_BOOT_KEY_FD=%d is not an open file descriptor %s", fd, HINT);
        return -1;
    }
    size_t got = 0;
    while (got < GP_KEY_LEN) {
        ssize_t n = read(fd, env->key + got, GP_KEY_LEN - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            gp_error("boot", "GP_BOOT_KEY_FD=%d: read %zu of the %d key bytes (%s) %s", fd, got,
                     GP_KEY_LEN, n < 0 ? strerror(errno) : "end of file", HINT);
            close(fd);
            return -1;
        }
        got += (size_t)n;
    }
    close(fd);
    return 0;
}

/* Variables that mean something only together with GP_BOOT_ADDR. */
static void warn_strays(void)
{
    static const char *const names[] = { "GP_RANK", "GP_SIZE", "GP_JOBID", "GP_BOOT_KEY_FD" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = gp_config_getenv(names[i]);
        if (value != NULL)
            gp_warn("boot", "%s=%s ignored: GP_BOOT_ADDR is not set, so this process runs "
                    "alone (a 1-node job)", names[i], value);
    }
}

int gp_boot_env_read(struct gp_boot_env *env)
{
    const char *addr = gp_config_getenv("GP_BOOT_ADDR");
    if (addr == NULL) {
        warn_strays();
        return 0;
    }
    const char *rank = required("GP_RANK"), *size = required("GP_SIZE");
    const char *jobid = required("GP_JOBID"), *key_fd = required("GP_BOOT_KEY_FD");
    if (rank == NULL || size == NULL || jobid == NULL || key_fd == NULL)
        return -1;
    if (parse_addr(addr, env) != 0 || parse_ranged("GP_SIZE", size, 1, 1 << 24, &env->size) != 0 ||
        parse_ranged("GP_RANK", rank, 0, env->size - 1, &env->rank) != 0 ||
        parse_jobid(jobid, env) != 0 || read_key(key_fd, env) != 0)
        return -1;
    return 1;
}
