/*
 * gasnet_tools.h for a tools-only client (no gasnet.h, no gasnet_init):
 * numbers, the environment lookups and GASNET_VERBOSEENV, checksums and
 * zero counts, system information, signals, backtraces and fatal errors.
 * The tests that expect a process to end fork once more and read the
 * child's exit status and stderr.
 */
#include <gasnet_tools.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/test.h"

#define CHECK_U(a, b)                                                                    \
    do {                                                                                 \
        unsigned long long check_a_ = (unsigned long long)(a);                           \
        unsigned long long check_b_ = (unsigned long long)(b);                           \
        if (check_a_ != check_b_)                                                        \
            gp_test_fail(__FILE__, __LINE__, "%s == %llu (0x%llx), expected %llu (0x%llx)", \
                         #a, check_a_, check_a_, check_b_, check_b_);                    \
    } while (0)

/* ---- helpers: a child process whose end and stderr we inspect ---- */

struct outcome {
    int status;      /* from waitpid */
    char err[4096];  /* what the child wrote to stderr */
};

/* Runs body in a child with stderr captured; the child exits 0 if body returns. */
static struct outcome run_child(void (*body)(void))
{
    struct outcome out;
    int fds[2];
    memset(&out, 0, sizeof out);
    CHECK_EQ(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        body();
        _exit(0);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t n;
    while ((n = read(fds[0], out.err + used, sizeof out.err - 1 - used)) > 0)
        used += (size_t)n;
    close(fds[0]);
    while (waitpid(pid, &out.status, 0) < 0)
        CHECK_EQ(errno, EINTR);
    return out;
}

/* The child ended through gp's fatal path, saying what we expect. */
static void check_fatal(int line, const struct outcome *out, const char *needle)
{
    if (!WIFEXITED(out->status) || WEXITSTATUS(out->status) == 0)
        gp_test_fail(__FILE__, line, "child did not fail (status 0x%x); stderr: %s", out->status,
                     out->err);
    if (strstr(out->err, "FATAL ERROR") == NULL || strstr(out->err, needle) == NULL)
        gp_test_fail(__FILE__, line, "stderr lacks \"FATAL ERROR\" and \"%s\": %s", needle,
                     out->err);
}

/* ---- numbers ---- */

static void test_parse_format(void)
{
    char buf[64];
    CHECK_EQ(gasnett_parse_int("42", 0), 42);
    CHECK_EQ(gasnett_parse_int("-17", 0), -17);
    CHECK_EQ(gasnett_parse_int("0x1F", 0), 31);
    CHECK_EQ(gasnett_parse_int("4K", 1), 4096);
    CHECK_EQ(gasnett_parse_int("4kb", 1), 4096);
    CHECK_EQ(gasnett_parse_int("2M", 1), 2 << 20);
    CHECK_EQ(gasnett_parse_int("3GB", 1), 3LL << 30);
    CHECK_EQ(gasnett_parse_int("5T", 1), 5LL << 40);
    CHECK_EQ(gasnett_parse_int("100B", 1 << 20), 100);
    CHECK_EQ(gasnett_parse_int("100", 1 << 20), 100 << 20);
    CHECK_EQ(gasnett_parse_int("1.5K", 1), 1536);
    CHECK_EQ(gasnett_parse_int("0.5", 1024), 512);
    CHECK_EQ(gasnett_parse_int("0.25MB", 1), 1 << 18);

    CHECK_STR_EQ(gasnett_format_number(4096, buf, sizeof buf, 1), "4KB");
    CHECK_STR_EQ(gasnett_format_number(1536, buf, sizeof buf, 1), "1536B");
    CHECK_STR_EQ(gasnett_format_number(3LL << 30, buf, sizeof buf, 1), "3GB");
    CHECK_STR_EQ(gasnett_format_number(7LL << 50, buf, sizeof buf, 1), "7168TB");
    CHECK_STR_EQ(gasnett_format_number(0, buf, sizeof buf, 1), "0B");
    CHECK_STR_EQ(gasnett_format_number(-2048, buf, sizeof buf, 1), "-2KB");
    CHECK_STR_EQ(gasnett_format_number(12345, buf, sizeof buf, 0), "12345");
    CHECK_STR_EQ(gasnett_format_number(-1, buf, sizeof buf, 0), "-1");
    CHECK(gasnett_format_number(1, buf, sizeof buf, 0) == buf);
    char tiny[3];
    CHECK_STR_EQ(gasnett_format_number(123456, tiny, sizeof tiny, 0), "12"); /* truncated */

    /* Round trips: parse_int reads back exactly what format_number wrote. */
    static const int64_t sizes[] = { 0, 1, 1023, 1024, 1025, 5 << 20, 3LL << 30, 7LL << 40,
                                     (1LL << 50) + 1024, INT64_MAX, -4096 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        gasnett_format_number(sizes[i], buf, sizeof buf, 1);
        CHECK_EQ(gasnett_parse_int(buf, 1), sizes[i]);
        CHECK_EQ(gasnett_parse_int(buf, 1 << 20), sizes[i]); /* the suffix wins over the unit */
        gasnett_format_number(sizes[i], buf, sizeof buf, 0);
        CHECK_EQ(gasnett_parse_int(buf, 0), sizes[i]);
    }
    gasnett_format_number(INT64_MIN, buf, sizeof buf, 0);
    CHECK_EQ(gasnett_parse_int(buf, 0), INT64_MIN);
}

static void parse_garbage(void)
{
    (void)gasnett_parse_int("12abc", 0);
}

static void parse_bad_suffix(void)
{
    (void)gasnett_parse_int("4Q", 1);
}

static void test_parse_bad(void)
{
    struct outcome out = run_child(parse_garbage);
    check_fatal(__LINE__, &out, "gasnett_parse_int: '12abc' is not valid: expected an integer");
    out = run_child(parse_bad_suffix);
    check_fatal(__LINE__, &out, "'4Q' is not valid: expected a memory size");
}

/* ---- environment ---- */

#define VAR "GP_TEST_TOOLS_VALUE"

static void clear_var(void)
{
    CHECK_EQ(gasnett_unsetenv(VAR), 0);
    CHECK_EQ(gasnett_unsetenv("GASNET_VERBOSEENV"), 0);
}

static void set_var(const char *value)
{
    CHECK_EQ(gasnett_setenv(VAR, value), 0);
}

static void test_getenv(void)
{
    clear_var();
    CHECK(gasnett_getenv(VAR) == NULL);
    CHECK(gasnett_getenv(NULL) == NULL);
    set_var("hello");
    CHECK_STR_EQ(gasnett_getenv(VAR), "hello");
    CHECK_STR_EQ(gasnett_getenv_withdefault(VAR, "dflt"), "hello");
    CHECK_EQ(gasnett_unsetenv(VAR), 0);
    CHECK(gasnett_getenv(VAR) == NULL);
    CHECK_STR_EQ(gasnett_getenv_withdefault(VAR, "dflt"), "dflt");

    /* yes/no */
    CHECK_EQ(gasnett_getenv_yesno_withdefault(VAR, 0), 0);
    CHECK_EQ(gasnett_getenv_yesno_withdefault(VAR, 1), 1);
    CHECK_EQ(gasnett_getenv_yesno_withdefault(VAR, 7), 1);
    static const char *const yes[] = { "1", "y", "Y", "yes", "YES", "true" };
    static const char *const no[] = { "0", "n", "N", "no", "NO", "false" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        set_var(yes[i]);
        CHECK_EQ(gasnett_getenv_yesno_withdefault(VAR, 0), 1);
        set_var(no[i]);
        CHECK_EQ(gasnett_getenv_yesno_withdefault(VAR, 1), 0);
    }

    /* integers and memory sizes */
    CHECK_EQ(gasnett_unsetenv(VAR), 0);
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, -12, 0), -12);
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 64, 1 << 20), 64);
    set_var("123");
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 0, 0), 123);
    set_var("0x10");
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 0, 0), 16);
    set_var("2M");
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 0, 1), 2 << 20);
    set_var("3");
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 0, 1 << 20), 3 << 20);

    /* doubles and fractions */
    CHECK_EQ(gasnett_unsetenv(VAR), 0);
    CHECK(gasnett_getenv_dbl_withdefault(VAR, 0.75) == 0.75);
    set_var("2.5");
    CHECK(gasnett_getenv_dbl_withdefault(VAR, 0) == 2.5);
    set_var("3/8");
    CHECK(gasnett_getenv_dbl_withdefault(VAR, 0) == 0.375);
    set_var("-1e3");
    CHECK(gasnett_getenv_dbl_withdefault(VAR, 0) == -1000.0);
}

static void bad_yesno(void)
{
    set_var("maybe");
    (void)gasnett_getenv_yesno_withdefault(VAR, 0);
}

static void bad_int(void)
{
    set_var("12abc");
    (void)gasnett_getenv_int_withdefault(VAR, 0, 0);
}

static void empty_int(void)
{
    set_var("");
    (void)gasnett_getenv_int_withdefault(VAR, 5, 0);
}

static void bad_size(void)
{
    set_var("10 MB");
    (void)gasnett_getenv_int_withdefault(VAR, 0, 1);
}

static void bad_dbl(void)
{
    set_var("x1");
    (void)gasnett_getenv_dbl_withdefault(VAR, 0);
}

static void zero_denominator(void)
{
    set_var("1/0");
    (void)gasnett_getenv_dbl_withdefault(VAR, 0);
}

static void test_getenv_bad(void)
{
    clear_var();
    struct outcome out = run_child(bad_yesno);
    check_fatal(__LINE__, &out, VAR "='maybe' is not valid: expected one of 0, 1, y, n");
    out = run_child(bad_int);
    check_fatal(__LINE__, &out, VAR "='12abc' is not valid: expected an integer");
    out = run_child(empty_int);
    check_fatal(__LINE__, &out, VAR "='' is not valid");
    out = run_child(bad_size);
    check_fatal(__LINE__, &out, VAR "='10 MB' is not valid: expected a memory size");
    out = run_child(bad_dbl);
    check_fatal(__LINE__, &out, VAR "='x1' is not valid: expected a number");
    out = run_child(zero_denominator);
    check_fatal(__LINE__, &out, VAR "='1/0' is not valid");
}

static void verbose_lookups(void)
{
    CHECK_EQ(gasnett_setenv("GASNET_VERBOSEENV", "yes"), 0);
    CHECK(gasnett_verboseenv());
    set_var("3M");
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 0, 1), 3 << 20);
    CHECK_EQ(gasnett_getenv_int_withdefault(VAR, 0, 1), 3 << 20); /* echoed once */
    CHECK_EQ(gasnett_getenv_yesno_withdefault("GP_TEST_TOOLS_UNSET", 1), 1);
}

static void bad_verboseenv(void)
{
    CHECK_EQ(gasnett_setenv("GASNET_VERBOSEENV", "loud"), 0);
    (void)gasnett_verboseenv();
}

static int count_of(const char *haystack, const char *needle)
{
    int count = 0;
    for (const char *p = strstr(haystack, needle); p != NULL; p = strstr(p + 1, needle))
        count++;
    return count;
}

static void quiet_lookups(void)
{
    CHECK_EQ(gasnett_verboseenv(), 0);
    CHECK_EQ(gasnett_getenv_yesno_withdefault(VAR, 1), 1);
}

static void test_verboseenv(void)
{
    /* Each case in a fresh child: the variable is read once per process. */
    clear_var();
    struct outcome out = run_child(quiet_lookups);
    CHECK(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
    CHECK(strstr(out.err, "ENV parameter") == NULL);
    out = run_child(verbose_lookups);
    if (!WIFEXITED(out.status) || WEXITSTATUS(out.status) != 0)
        gp_test_fail(__FILE__, __LINE__, "verbose child failed: %s", out.err);
    CHECK_EQ(count_of(out.err, "ENV parameter: " VAR), 1);
    CHECK_STR_CONTAINS(out.err, "3MB");
    CHECK_STR_CONTAINS(out.err, "(set)");
    CHECK_STR_CONTAINS(out.err, "GP_TEST_TOOLS_UNSET");
    CHECK_STR_CONTAINS(out.err, "(default)");
    out = run_child(bad_verboseenv);
    check_fatal(__LINE__, &out, "GASNET_VERBOSEENV='loud' is not valid");
}

/* ---- checksums and zero counts ---- */

static void test_checksum(void)
{
    static const uint8_t bytes[] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99 };
    CHECK_U(gasnett_checksum(bytes, 0), 0);
    CHECK_U(gasnett_checksum(bytes, 1), 0x11);
    CHECK_U(gasnett_checksum(bytes, 3), 0x112233);
    CHECK_U(gasnett_checksum(bytes, 8), 0x1122334455667788ull);
    /* The ninth byte rotates the first one round to the bottom. */
    CHECK_U(gasnett_checksum(bytes, 9), 0x2233445566778811ull ^ 0x99);
    CHECK_U(gasnett_checksum("abc", 3), 0x616263);
}

static void test_count0s(void)
{
    uint8_t src[100], dst[100];
    for (int i = 0; i < 100; i++)
        src[i] = (uint8_t)(i % 7 == 0 ? 0 : i);
    CHECK_EQ(gasnett_count0s(src, sizeof src), 15); /* 0, 7, ..., 98 */
    CHECK_EQ(gasnett_count0s(src, 0), 0);
    memset(dst, 0xFF, sizeof dst);
    CHECK_EQ(gasnett_count0s_copy(dst, src, sizeof src), 15);
    CHECK(memcmp(dst, src, sizeof src) == 0);
    CHECK_EQ(gasnett_count0s_uint32_t(0), 4);
    CHECK_EQ(gasnett_count0s_uint32_t(0xFFFFFFFFu), 0);
    CHECK_EQ(gasnett_count0s_uint32_t(0x00FF0001u), 2);
    CHECK_EQ(gasnett_count0s_uint64_t(0), 8);
    CHECK_EQ(gasnett_count0s_uint64_t(0x0100000000000001ull), 6);
    CHECK_EQ(gasnett_count0s_uintptr_t(0), (int)sizeof(uintptr_t));
    CHECK_EQ(gasnett_count0s_uintptr_t(UINTPTR_MAX), 0);
}

/* ---- system ---- */

static void test_sysinfo(void)
{
    CHECK(gasnett_cpu_count() >= 1);
    CHECK(gasnett_getPhysMemSz(1) > 0);
    CHECK(gasnett_getPhysMemSz(0) == gasnett_getPhysMemSz(1));
    const char *host = gasnett_gethostname();
    CHECK(host != NULL && host[0] != '\0');
    CHECK(gasnett_gethostname() == host);
    CHECK_EQ(gasnett_sched_yield(), 0);
    /* 0 when bound (any rank maps onto an allowed processor, and the thread then has
     * exactly one), else non-zero with the thread's processors as they were. */
    int ranks[3] = { 0, -3, 1000003 };
    for (int i = 0; i < 3; i++) {
        cpu_set_t before, after;
        CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof before, &before), 0);
        int rc = gasnett_set_affinity(ranks[i]);
        CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
        if (rc == 0)
            CHECK_EQ(CPU_COUNT(&after), 1);
        else
            CHECK(CPU_EQUAL(&before, &after));
    }
    (void)gasnett_maximize_rlimits();
    gasnett_flush_streams();
    const char *warning = gasnett_performance_warning_str();
    CHECK(warning != NULL);
    uint16_t probe = 1;
    CHECK_EQ(gasnett_isLittleEndian(), *(uint8_t *)&probe == 1);
}

static void exit_noisily(void)
{
    fprintf(stderr, "atexit handler ran\n");
}

static void kill_self(void)
{
    atexit(exit_noisily);
    gasnett_killmyprocess(7);
}

static void test_killmyprocess(void)
{
    struct outcome out = run_child(kill_self);
    CHECK(WIFEXITED(out.status));
    CHECK_EQ(WEXITSTATUS(out.status), 7);
    CHECK(strstr(out.err, "atexit") == NULL);
}

/* ---- signals, backtraces, fatal errors ---- */

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
    usr1_seen = sig;
}

static void test_reghandler(void)
{
    gasnett_sighandlerfn_t previous = gasnett_reghandler(SIGUSR1, on_usr1);
    CHECK(previous == SIG_DFL);
    CHECK_EQ(raise(SIGUSR1), 0);
    CHECK_EQ(usr1_seen, SIGUSR1);
    CHECK(gasnett_reghandler(SIGUSR1, SIG_IGN) == on_usr1);
    CHECK_EQ(raise(SIGUSR1), 0);
    CHECK(gasnett_reghandler(SIGUSR1, SIG_DFL) == SIG_IGN);
}

/* A client's own backtrace mechanism: tried first, declines unless asked. */
static int user_backtrace_on;

static int user_backtrace(int fd)
{
    static const char line[] = "USER BACKTRACE\n";
    if (!user_backtrace_on)
        return -1;
    return write(fd, line, sizeof line - 1) == (ssize_t)(sizeof line - 1) ? 0 : -1;
}

gasnett_backtrace_type_t gasnett_backtrace_user = { "USER", user_backtrace, 1 };

static void backtrace_to_stderr(void)
{
    CHECK_EQ(gasnett_print_backtrace(STDERR_FILENO), 0);
}

static void test_backtrace(void)
{
    gasnett_backtrace_init("test_tools");
    struct outcome out = run_child(backtrace_to_stderr);
    CHECK(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
    CHECK_STR_CONTAINS(out.err, "backtrace of process");
    CHECK_STR_CONTAINS(out.err, "test_tools");
    CHECK(strstr(out.err, "USER BACKTRACE") == NULL);

    user_backtrace_on = 1;
    out = run_child(backtrace_to_stderr);
    CHECK(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
    CHECK_STR_CONTAINS(out.err, "USER BACKTRACE");
    CHECK(strstr(out.err, "backtrace of process") == NULL);
}

static void die_plainly(void)
{
    CHECK_EQ(gasnett_unsetenv("GASNET_BACKTRACE"), 0);
    gasnett_fatalerror("the %s is %d\n", "answer", 42);
}

static void die_with_backtrace(void)
{
    CHECK_EQ(gasnett_setenv("GASNET_BACKTRACE", "1"), 0);
    gasnett_fatalerror("with a backtrace");
}

static void test_fatalerror(void)
{
    struct outcome out = run_child(die_plainly);
    check_fatal(__LINE__, &out, "the answer is 42");
    CHECK_EQ(count_of(out.err, "\n"), 1); /* one line, its own newline dropped */
    CHECK(strstr(out.err, "backtrace") == NULL);
    out = run_child(die_with_backtrace);
    check_fatal(__LINE__, &out, "with a backtrace");
    CHECK_STR_CONTAINS(out.err, "backtrace of process");
}

static const struct gp_test tests[] = {
    { "parse_format", test_parse_format, 0 },
    { "parse_bad", test_parse_bad, 0 },
    { "getenv", test_getenv, 0 },
    { "getenv_bad", test_getenv_bad, 0 },
    { "verboseenv", test_verboseenv, 0 },
    { "checksum", test_checksum, 0 },
    { "count0s", test_count0s, 0 },
    { "sysinfo", test_sysinfo, 0 },
    { "killmyprocess", test_killmyprocess, 0 },
    { "reghandler", test_reghandler, 0 },
    { "backtrace", test_backtrace, 0 },
    { "fatalerror", test_fatalerror, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "tools_env", tests);
}
