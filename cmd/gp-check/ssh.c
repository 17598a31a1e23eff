/*
 * The ssh check: a multi-host job starts its processes with the remote
 * shell of GASNET_SSH_CMD (default ssh) and the options of
 * GASNET_SSH_OPTIONS, without a terminal to type a password or accept a
 * host key into.  So each host is tried exactly that way, non-interactively
 * (BatchMode=yes, a short ConnectTimeout), running "date +%s", whose answer
 * also shows whether the host's clock agrees with this one's.
 *
 * Hosts are tried in parallel, a batch at a time, under one time limit.
 */
#include "gp_check.h"

#include "util/words.h"

#include "child.h"
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hosts tried at once. */
#define SSH_BATCH 32
/* Seconds of clock difference tolerated (the answer itself takes a moment). */
#define CLOCK_SLACK_S 2
/* Arguments before the host: the command, our options, the user's. */
#define SSH_MAX_ARGS 64

struct ssh_command {
    char *argv[SSH_MAX_ARGS + 3];
    size_t host_index;     /* where the host name goes */
    char **options;        /* GASNET_SSH_OPTIONS's words, which argv points to */
    char timeout_option[32];
};

static int build_command(struct ssh_command *cmd, int timeout_s)
{
    const char *program = gp_config_getenv("GASNET_SSH_CMD");
    const char *options = gp_config_getenv("GASNET_SSH_OPTIONS");
    size_t n = 0;
    memset(cmd, 0, sizeof *cmd);
    if (program == NULL || *program == '\0')
        program = "ssh";
    cmd->argv[n++] = (char *)program;
    const char *base = strrchr(program, '/');
    if (strcmp(base != NULL ? base + 1 : program, "ssh") == 0) {
        snprintf(cmd->timeout_option, sizeof cmd->timeout_option, "ConnectTimeout=%d",
                 timeout_s);
        cmd->argv[n++] = "-o";
        cmd->argv[n++] = "BatchMode=yes";
        cmd->argv[n++] = "-o";
        cmd->argv[n++] = cmd->timeout_option;
    }
    const char *why = NULL;
    cmd->options = gp_words_split(options != NULL ? options : "", &why);
    if (cmd->options == NULL) {
        check_report(CHECK_FAIL, "ssh", "quote GASNET_SSH_OPTIONS as for a shell, such as "
                     "-o 'StrictHostKeyChecking no'", "GASNET_SSH_OPTIONS='%s': %s", options, why);
        return -1;
    }
    for (size_t w = 0; cmd->options[w] != NULL; w++) {
        char *word = cmd->options[w];
        if (n == SSH_MAX_ARGS) {
            check_report(CHECK_FAIL, "ssh", "shorten GASNET_SSH_OPTIONS",
                         "GASNET_SSH_OPTIONS has more than %d words", SSH_MAX_ARGS - 5);
            return -1;
        }
        cmd->argv[n++] = word;
    }
    cmd->host_index = n;
    cmd->argv[n + 1] = "date +%s";
    return 0;
}

/* The last line of the output that is a number: the remote clock. */
static int remote_clock(struct child *child, long long *seconds)
{
    char line[256];
    int found = 0;
    rewind(child->output);
    while (fgets(line, sizeof line, child->output) != NULL) {
        char *end;
        long long value = strtoll(line, &end, 10);
        if (end != line && (*end == '\n' || *end == '\0')) {
            *seconds = value;
            found = 1;
        }
    }
    return found;
}

/* One host's report when something is wrong; returns 1 when all is well. */
static int judge_host(const char *host, struct child *child, const char *program, int timeout_s)
{
    char why[512], fix[512];
    long long remote;
    snprintf(fix, sizeof fix, "make '%s -o BatchMode=yes %s true' work: the host up and "
             "reachable, key-based login (ssh-copy-id %s), its host key known "
             "(ssh-keyscan %s >> ~/.ssh/known_hosts)", program, host, host, host);
    if (child->pid == 0) {
        check_report(CHECK_FAIL, "ssh", NULL, "%s: %s could not be started", host, program);
        return 0;
    }
    if (child->timed_out) {
        check_report(CHECK_FAIL, "ssh", fix, "%s: no answer within %d s", host, timeout_s);
        return 0;
    }
    if (child_exit_code(child) != 0 || !remote_clock(child, &remote)) {
        child_summary(child, why, sizeof why);
        check_report(CHECK_FAIL, "ssh", fix, "%s: cannot log in non-interactively (exit status "
                     "%d): %s", host, child_exit_code(child), why[0] ? why : "no message");
        return 0;
    }
    long long skew = remote - (long long)child->ended;
    if (skew > CLOCK_SLACK_S || skew < -CLOCK_SLACK_S) {
        check_report(CHECK_WARN, "ssh", "synchronize the clocks (chrony or systemd-timesyncd "
                     "on every host)", "%s: its clock differs from this host's by %lld s", host,
                     skew);
        return 0;
    }
    return 1;
}

static size_t try_batch(struct ssh_command *cmd, char **hosts, size_t count, int timeout_s)
{
    struct child children[SSH_BATCH];
    size_t good = 0;
    for (size_t i = 0; i < count; i++) {
        cmd->argv[cmd->host_index] = hosts[i];
        if (child_start(&children[i], cmd->argv, NULL) != 0)
            children[i].pid = 0;
    }
    /* ssh's own limit, and a little more for the login and the command. */
    child_wait(children, count, timeout_s + 5.0);
    for (size_t i = 0; i < count; i++) {
        good += (size_t)judge_host(hosts[i], &children[i], cmd->argv[0], timeout_s);
        child_release(&children[i]);
    }
    return good;
}

void check_ssh(const struct check_opts *opts, const struct host_list *hosts)
{
    struct ssh_command cmd;
    if (hosts == NULL)
        return;
    if (hosts->count == 0) {
        check_ok("ssh", "no hosts configured (GASNET_SSH_NODEFILE and "
                 "GASNET_SSH_SERVERS unset): nothing to log in to");
        return;
    }
    if (build_command(&cmd, opts->ssh_timeout) != 0) {
        gp_words_free(cmd.options);
        return;
    }
    size_t good = 0;
    for (size_t first = 0; first < hosts->count; first += SSH_BATCH) {
        size_t batch = hosts->count - first < SSH_BATCH ? hosts->count - first : SSH_BATCH;
        good += try_batch(&cmd, hosts->names + first, batch, opts->ssh_timeout);
    }
    if (good > 0)
        check_ok("ssh", "%zu of the %zu hosts in %s accept a non-interactive "
                 "login with %s, clocks within %d s", good, hosts->count, hosts->origin,
                 cmd.argv[0], CLOCK_SLACK_S);
    gp_words_free(cmd.options);
}
