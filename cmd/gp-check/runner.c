/*
 * gp-check --run: each conformance program (suite.c) launched through
 * gp-run with N processes, one report line per program -- "ok NAME: ..."
 * or "FAIL NAME: what differed" followed by the command that reproduces
 * it -- and "N passed, N failed" at the end.  A program passes when the
 * job's exit status is the expected one, its output holds the expected
 * line, no sanitizer reported anything, and the job's exit protocol
 * completed (libgp says when it had to give up on a node).
 */
#include "gp_check.h"

#include "child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --run's process count when -n is not given. */
#define RUN_DEFAULT_PROCS 4
/* Seconds a program may take before it is stopped. */
#define RUN_LIMIT_S 600.0
#define RUN_QUICK_LIMIT_S 120.0
/* What libgp says when its exit protocol gave up waiting for a node. */
#define UNCOORDINATED "the exit could not be coordinated"
/* Arguments of one program, and settings of its environment. */
#define RUN_MAX_WORDS 16

struct run_setup {
    const char *gp_run;
    const char *dir;
    int nprocs;
    char nprocs_text[16];
    const char *transport;
    int quick;
};

/* Splits text at spaces into out (pointing into copy), "%n" becoming the count. */
static size_t split_words(char *copy, const char *nprocs_text, char **out, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *word = strtok_r(copy, " ", &save); word != NULL && n < max;
         word = strtok_r(NULL, " ", &save))
        out[n++] = strcmp(word, "%n") == 0 ? (char *)nprocs_text : word;
    return n;
}

/* "VAR=VALUE ... gp-run -n N PROGRAM ARGS", for a person to rerun. */
static void describe(char *const argv[], char *const settings[], char *buf, size_t len)
{
    size_t used = 0;
    for (size_t i = 0; settings[i] != NULL && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s ", settings[i]);
    for (size_t i = 0; argv[i] != NULL && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

static void judge(const struct suite_prog *prog, const struct run_setup *setup,
                  struct child *child, double seconds, const char *command)
{
    char summary[512];
    int code = child_exit_code(child);
    child_summary(child, summary, sizeof summary);
    int sanitizer = child_output_contains(child, "ERROR: AddressSanitizer") ||
                    child_output_contains(child, "ERROR: LeakSanitizer") ||
                    child_output_contains(child, "runtime error:");
    if (child->timed_out)
        check_report(CHECK_FAIL, prog->name, NULL, "did not finish within %.0f s: %s",
                     setup->quick ? RUN_QUICK_LIMIT_S : RUN_LIMIT_S, summary);
    else if (code != prog->exit_code)
        check_report(CHECK_FAIL, prog->name, NULL, "exit status %d, expected %d: %s", code,
                     prog->exit_code, summary[0] ? summary : "no output");
    else if (sanitizer)
        check_report(CHECK_FAIL, prog->name, NULL, "sanitizer report: %s", summary);
    else if (child_output_contains(child, UNCOORDINATED))
        check_report(CHECK_FAIL, prog->name, NULL, "exit status %d as expected, but %s", code,
                     UNCOORDINATED);
    else if (prog->expect != NULL && !child_output_contains(child, prog->expect))
        check_report(CHECK_FAIL, prog->name, NULL, "exit status %d as expected, but the output "
                     "lacks \"%s\": %s", code, prog->expect, summary[0] ? summary : "no output");
    else {
        check_ok(prog->name, "%d process%s, %.1f s", setup->nprocs,
                 setup->nprocs == 1 ? "" : "es", seconds);
        return;
    }
    printf("    rerun: %s\n", command);
}

/* Runs one program; returns 1 when it passed. */
static int run_one(const struct suite_prog *prog, const struct run_setup *setup)
{
    char *argv[RUN_MAX_WORDS + 5], *settings[RUN_MAX_WORDS + 2];
    char *args = strdup(setup->quick ? prog->quick_args : prog->args);
    char *env = strdup(prog->env != NULL ? prog->env : "");
    char *path = NULL, transport[32], command[2048];
    size_t n = 0, s;
    if (args == NULL || env == NULL || asprintf(&path, "%s/%s", setup->dir, prog->program) < 0) {
        free(args);
        free(env);
        check_report(CHECK_FAIL, prog->name, NULL, "out of memory");
        return 0;
    }
    argv[n++] = (char *)setup->gp_run;
    argv[n++] = "-n";
    argv[n++] = (char *)setup->nprocs_text;
    argv[n++] = path;
    argv[n + split_words(args, setup->nprocs_text, argv + n, RUN_MAX_WORDS)] = NULL;
    s = split_words(env, setup->nprocs_text, settings, RUN_MAX_WORDS);
    if (setup->transport != NULL) {
        snprintf(transport, sizeof transport, "GP_TRANSPORT=%s", setup->transport);
        settings[s++] = transport;
    }
    settings[s] = NULL;
    describe(argv, settings, command, sizeof command);

    struct child child;
    double start = check_now();
    int passed = 0;
    if (child_start(&child, argv, settings) == 0) {
        child_wait(&child, 1, setup->quick ? RUN_QUICK_LIMIT_S : RUN_LIMIT_S);
        int failures = check_failures();
        judge(prog, setup, &child, check_now() - start, command);
        passed = check_failures() == failures;
        child_release(&child);
    } else {
        check_report(CHECK_FAIL, prog->name, NULL, "could not be started");
    }
    free(path);
    free(args);
    free(env);
    return passed;
}

/* gp-run and the programs, or -1 after saying what is missing. */
static int find_tools(struct run_setup *setup, char **gp_run, char **dir)
{
    char tried[1024];
    char *bin_dir = check_bin_dir();
    *gp_run = check_find_gp_run(bin_dir);
    *dir = suite_find_dir(bin_dir, tried, sizeof tried);
    if (*gp_run == NULL)
        check_say("gp-run was found neither next to gp-check (%s) nor in PATH; install gp "
                  "(make install) or add its bin directory to PATH", bin_dir ? bin_dir : "?");
    else if (*dir == NULL)
        check_say("the conformance programs are not in %s; build them (make) or install "
                  "them (make install)", tried[0] ? tried : "gp-check's directory");
    free(bin_dir);
    setup->gp_run = *gp_run;
    setup->dir = *dir;
    return *gp_run != NULL && *dir != NULL ? 0 : -1;
}

int check_run_suite(const struct check_opts *opts)
{
    struct run_setup setup;
    char *gp_run = NULL, *dir = NULL;
    size_t count, passed = 0, ran = 0;
    const struct suite_prog *progs = suite_programs(&count);
    memset(&setup, 0, sizeof setup);
    if (find_tools(&setup, &gp_run, &dir) != 0) {
        free(gp_run);
        free(dir);
        return 1;
    }
    setup.nprocs = opts->nprocs > 0 ? opts->nprocs : RUN_DEFAULT_PROCS;
    snprintf(setup.nprocs_text, sizeof setup.nprocs_text, "%d", setup.nprocs);
    setup.transport = opts->transport;
    setup.quick = opts->quick;
    printf("gp-check " GP_VERSION ": %sconformance programs in %s, %d process%s through %s, "
           "transport %s\n", setup.quick ? "quick " : "", dir, setup.nprocs,
           setup.nprocs == 1 ? "" : "es", gp_run,
           setup.transport ? setup.transport : "chosen by gp");
    for (size_t i = 0; i < count; i++) {
        if (setup.quick && progs[i].quick_args == NULL)
            continue;
        passed += (size_t)run_one(&progs[i], &setup);
        ran++;
    }
    printf("%zu passed, %zu failed\n", passed, ran - passed);
    free(gp_run);
    free(dir);
    return passed == ran ? 0 : 1;
}
