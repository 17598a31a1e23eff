/* The fork-per-test runner declared in test.h. */
#include "test.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *current_suite = "?";
static const char *current_test = "?";
/* Set in a test's own process, whose failure line the runner must not repeat. */
static int in_test_process;

_Noreturn void gp_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "FAIL %s/%s: %s:%d: ", current_suite, current_test, file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    _exit(in_test_process ? GP_TEST_FAILED_CODE : 1);
}

_Noreturn void gp_test_skip(const char *why)
{
    fprintf(stdout, "skip %s/%s: %s\n", current_suite, current_test, why);
    fflush(stdout);
    _exit(GP_TEST_SKIP_CODE);
}

static int selected(int argc, char **argv, const char *name)
{
    if (argc <= 1)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

static int run_one(const char *suite, const struct gp_test *test)
{
    unsigned limit = test->timeout_s ? test->timeout_s : 60;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("FAIL %s/%s: fork: %s\n", suite, test->name, strerror(errno));
        return 1;
    }
    if (pid == 0) {
        current_test = test->name;
        in_test_process = 1;
        alarm(limit);
        test->fn();
        fflush(stdout);
        _exit(0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        printf("ok %s/%s\n", suite, test->name);
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == GP_TEST_SKIP_CODE)
        return 0; /* the child printed the skip line */
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        printf("FAIL %s/%s: timed out after %u s\n", suite, test->name, limit);
    else if (WIFSIGNALED(status))
        printf("FAIL %s/%s: killed by signal %d (%s)\n", suite, test->name, WTERMSIG(status),
               strsignal(WTERMSIG(status)));
    /* only gp_test_fail's status says the child printed its own FAIL line */
    else if (WEXITSTATUS(status) != GP_TEST_FAILED_CODE)
        printf("FAIL %s/%s: exited with status %d\n", suite, test->name, WEXITSTATUS(status));
    return 1;
}

int gp_test_main(int argc, char **argv, const char *suite, const struct gp_test *tests)
{
    int failed = 0;
    current_suite = suite;
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The plan lets tests/run.sh see results that never came (a crash of
     * the runner itself, an exit from inside a library). */
    int planned = 0;
    for (const struct gp_test *test = tests; test->name != NULL; test++)
        planned += selected(argc, argv, test->name);
    printf("plan %d\n", planned);
    for (const struct gp_test *test = tests; test->name != NULL; test++)
        if (selected(argc, argv, test->name))
            failed += run_one(suite, test);
    return failed ? 1 : 0;
}
