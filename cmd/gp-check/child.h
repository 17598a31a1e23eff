/*
 * Commands gp-check runs (ssh to each host, gp-run for each conformance
 * program): started with standard input from /dev/null and standard output
 * and error kept in a temporary file, waited for under a time limit, and
 * read afterwards.
 */
#ifndef GP_CHECK_CHILD_H
#define GP_CHECK_CHILD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct child {
    pid_t pid;         /* 0: not started */
    FILE *output;      /* its standard output and error */
    int status;        /* waitpid's status, once done */
    int done;
    int timed_out;     /* stopped by child_wait at the time limit */
    time_t ended;      /* wall-clock time it was reaped */
};

/*
 * Starts argv[0] (looked up in PATH when it has no '/') with the
 * VAR=VALUE settings added to its environment (settings may be NULL).
 * 0, or -1 after saying why.  A program that cannot be executed exits 127
 * with the reason in its output.
 */
int child_start(struct child *child, char *const argv[], char *const settings[]);
/*
 * Waits for the started children; those still running after limit_s get
 * SIGTERM (gp-run passes it to its job), and SIGKILL 5 s later.
 */
void child_wait(struct child *children, size_t count, double limit_s);
/* The exit status as a shell shows it: the code, or 128 + the signal. */
int child_exit_code(const struct child *child);
/* Whether its output holds text. */
int child_output_contains(struct child *child, const char *text);
/*
 * The most telling line of its output: the first sanitizer report or
 * fatal error, else the last non-empty line ("" when it printed nothing).
 */
void child_summary(struct child *child, char *buf, size_t len);
void child_release(struct child *child);

#endif
