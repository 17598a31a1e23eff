/*
 * Running commands for gp-check: see child.h.  gp-check is single-threaded,
 * so the child may set its environment between fork and exec.  Waiting
 * polls every 10 ms rather than blocking in waitpid, so that several
 * children (ssh to many hosts) share one time limit.
 */
#include "child.h"

#include "gp_check.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL_GRACE_S 5.0

int child_start(struct child *child, char *const argv[], char *const settings[])
{
    memset(child, 0, sizeof *child);
    child->output = tmpfile();
    if (child->output == NULL) {
        check_say("cannot create a temporary file for the output of %s: %m", argv[0]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        check_say("cannot start %s: fork: %m", argv[0]);
        fclose(child->output);
        child->output = NULL;
        return -1;
    }
    if (pid == 0) {
        int null_fd = open("/dev/null", O_RDONLY);
        int out_fd = fileno(child->output);
        if (null_fd >= 0)
            dup2(null_fd, STDIN_FILENO);
        dup2(out_fd, STDOUT_FILENO);
        dup2(out_fd, STDERR_FILENO);
        for (size_t i = 0; settings != NULL && settings[i] != NULL; i++)
            putenv(settings[i]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %m\n", argv[0]);
        _exit(127);
    }
    child->pid = pid;
    return 0;
}

/* Reaps whichever children have ended; returns how many are still running. */
static size_t reap(struct child *children, size_t count, int options)
{
    size_t running = 0;
    for (size_t i = 0; i < count; i++) {
        struct child *child = &children[i];
        if (child->pid == 0 || child->done)
            continue;
        pid_t got = waitpid(child->pid, &child->status, options);
        if (got == child->pid || (got < 0 && errno != EINTR)) {
            child->done = 1;
            child->ended = time(NULL);
        } else {
            running++;
        }
    }
    return running;
}

static void signal_running(struct child *children, size_t count, int sig)
{
    for (size_t i = 0; i < count; i++) {
        if (children[i].pid == 0 || children[i].done)
            continue;
        kill(children[i].pid, sig);
        children[i].timed_out = 1;
    }
}

void child_wait(struct child *children, size_t count, double limit_s)
{
    const struct timespec tick = { 0, 10 * 1000 * 1000 };
    double deadline = check_now() + limit_s;
    int termed = 0;
    while (reap(children, count, WNOHANG) > 0) {
        if (check_now() > deadline) {
            signal_running(children, count, termed ? SIGKILL : SIGTERM);
            if (termed) {
                reap(children, count, 0);
                break;
            }
            termed = 1;
            deadline = check_now() + KILL_GRACE_S;
        }
        nanosleep(&tick, NULL);
    }
    for (size_t i = 0; i < count; i++)
        if (children[i].output != NULL)
            rewind(children[i].output);
}

int child_exit_code(const struct child *child)
{
    if (WIFEXITED(child->status))
        return WEXITSTATUS(child->status);
    if (WIFSIGNALED(child->status))
        return 128 + WTERMSIG(child->status);
    return -1;
}

int child_output_contains(struct child *child, const char *text)
{
    char line[4096];
    int found = 0;
    if (child->output == NULL)
        return 0;
    rewind(child->output);
    while (!found && fgets(line, sizeof line, child->output) != NULL)
        found = strstr(line, text) != NULL;
    return found;
}

static int telling(const char *line)
{
    return strstr(line, "ERROR: AddressSanitizer") != NULL ||
           strstr(line, "ERROR: LeakSanitizer") != NULL ||
           strstr(line, "runtime error:") != NULL || strstr(line, "FATAL ERROR") != NULL;
}

void child_summary(struct child *child, char *buf, size_t len)
{
    char line[4096];
    buf[0] = '\0';
    if (child->output == NULL)
        return;
    rewind(child->output);
    while (fgets(line, sizeof line, child->output) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[strspn(line, " \t")] == '\0')
            continue;
        snprintf(buf, len, "%s", line);
        if (telling(line))
            break;
    }
}

void child_release(struct child *child)
{
    if (child->output != NULL)
        fclose(child->output);
    child->output = NULL;
}
