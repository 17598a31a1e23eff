/*
 * gasnet_tools.h's macros: tracing and statistics (present, doing nothing),
 * the portability and platform macros, and the header compiled on its own
 * as C++ and as strict ISO C, with and without gasnet.h.
 */
#include <gasnet_tools.h>

#include <limits.h>
#include <stdarg.h>
#include <unistd.h>

#include "../harness/test.h"

/* ---- tracing and statistics: present, and nothing ---- */

static void test_trace_noops(void)
{
    const char *file = "unset";
    unsigned int line = 99;
    int evaluated = 0;
    CHECK_EQ(GASNETT_TRACE_ENABLED, 0);
    GASNETT_TRACE_PRINTF("value %d", ++evaluated);
    GASNETT_TRACE_PRINTF_FORCE("value %d", 1);
    CHECK_EQ(evaluated, 1); /* arguments are evaluated once, as in a call */
    CHECK_STR_EQ(GASNETT_TRACE_GETMASK(), "");
    GASNETT_TRACE_SETMASK("GPS");
    CHECK_EQ(GASNETT_TRACE_GET_TRACELOCAL(), 0);
    GASNETT_TRACE_SET_TRACELOCAL(1);
    GASNETT_TRACE_SETSOURCELINE(__FILE__, __LINE__);
    GASNETT_TRACE_GETSOURCELINE(&file, &line);
    CHECK_STR_EQ(file, "");
    CHECK_EQ(line, 0);
    GASNETT_TRACE_FREEZESOURCELINE();
    GASNETT_TRACE_UNFREEZESOURCELINE();
    CHECK_STR_EQ(GASNETT_STATS_GETMASK(), "");
    GASNETT_STATS_SETMASK("");
}

/* ---- portability macros ---- */

GASNETT_IDENT(test_tools_ident, "$GPTestTools: ident string $");

GASNETT_BEGIN_EXTERNC
GASNETT_INLINE(twice) int twice(int x)
{
    return 2 * x;
}
GASNETT_END_EXTERNC

GASNETT_FORMAT_PRINTF(format_into, 3, 4,
                      static int format_into(char *buf, size_t len, const char *fmt, ...));
static int format_into(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

GASNETT_NEVER_INLINE(copy_bytes,
                     static void copy_bytes(char *GASNETT_RESTRICT dst,
                                            const char *GASNETT_RESTRICT src, size_t n));
static void copy_bytes(char *GASNETT_RESTRICT dst, const char *GASNETT_RESTRICT src, size_t n)
{
    memcpy(dst, src, n);
}

GASNETT_NORETURN static void never_returns(void);
GASNETT_NORETURNP(never_returns)
static void never_returns(void)
{
    _exit(0);
}

#if GASNETT_PAGESIZE <= 0 || GASNETT_CACHE_LINE_BYTES < 16 || GASNETT_MAX_THREADS < 1 || \
    GASNETT_PAGESIZE != (1 << GASNETT_PAGESHIFT)
#error "size constants must be #if-able and sensible"
#endif
#if PLATFORM_ARCH_32 + PLATFORM_ARCH_64 != 1 || !defined(PLATFORM_COMPILER_VERSION) || \
    PLATFORM_COMPILER_VERSION <= 0
#error "PLATFORM_* macros"
#endif
#if GASNETT_SPEC_VERSION_MAJOR != 1 || GASNETT_RELEASE_VERSION_MAJOR < 1 || !GASNETT_THREAD_SAFE
#error "versions"
#endif

static void test_macros(void)
{
    char buf[64], copy[64];
    CHECK_STR_EQ(GASNETT_CURRENT_FUNCTION, "test_macros");
    CHECK_STR_CONTAINS(test_tools_ident, "GPTestTools");
    CHECK_EQ(twice(21), 42);
    CHECK_EQ(format_into(buf, sizeof buf, "%d-%s", 7, "x"), 3);
    copy_bytes(copy, buf, strlen(buf) + 1);
    CHECK_STR_EQ(copy, "7-x");
    CHECK_STR_EQ(_STRINGIFY(GASNETT_PAGESIZE), "4096");
    CHECK_STR_CONTAINS(GASNETT_CONFIG_STRING, "RELEASE=");
    CHECK_STR_CONTAINS(GASNETT_CONFIG_STRING, "SPEC=1.9");
    CHECK_STR_CONTAINS(GASNETT_SYSTEM_TUPLE, "-");
    CHECK(strlen(PLATFORM_COMPILER_VERSION_STR) >= 3);
    const char *family = _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME);
    CHECK(strcmp(family, "GNU") == 0 || strcmp(family, "CLANG") == 0);
    CHECK_STR_CONTAINS(PLATFORM_COMPILER_IDSTR, PLATFORM_COMPILER_VERSION_STR);
    CHECK_EQ(sizeof(void *) == 8, PLATFORM_ARCH_64 + 0);
    int taken = 0;
    if_pt(1) taken++;
    if_pf(0) taken += 10;
    CHECK_EQ(taken, 1);
    CHECK(GASNETT_PREDICT_TRUE(taken == 1));
    if (taken == 2)
        never_returns();
}

/* ---- the header compiled on its own: C++ and strict C ---- */

/* The repository root: tests run from it, or we find it from our own path. */
static int find_root(char *root, size_t len)
{
    char exe[PATH_MAX];
    if (access("libcore/include/gasnet_tools.h", R_OK) == 0)
        return snprintf(root, len, ".") > 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    /* BUILD/VARIANT/tests/unit/test_tools: four levels below the root. */
    for (int up = 0; up < 5; up++) {
        char *slash = strrchr(exe, '/');
        if (slash == NULL)
            return 0;
        *slash = '\0';
        char probe[PATH_MAX + 40];
        snprintf(probe, sizeof probe, "%s/libcore/include/gasnet_tools.h", exe);
        if (access(probe, R_OK) == 0)
            return snprintf(root, len, "%s", exe) < (int)len;
    }
    return 0;
}

static const char snippet_both[] =
    "#include <gasnet.h>\n"
    "#include <gasnet_tools.h>\n"
    "#if GASNETT_PAGESIZE != GASNET_PAGESIZE\n"
    "#error GASNETT_PAGESIZE differs from GASNET_PAGESIZE\n"
    "#endif\n"
    "GASNETT_THREADKEY_DEFINE(k);\n"
    "static gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;\n"
    "static gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;\n"
    "static gasnett_cond_t c = GASNETT_COND_INITIALIZER;\n"
    "int use(void);\n"
    "int use(void) {\n"
    "  gasnett_atomic_t a = gasnett_atomic_init(1);\n"
    "  gasnett_atomic64_t b = gasnett_atomic64_init(2);\n"
    "  gasnett_strongatomic32_t s = gasnett_strongatomic32_init(3);\n"
    "  gasnett_mutex_lock(&m); gasnett_mutex_unlock(&m);\n"
    "  gasnett_rwlock_rdlock(&rw); gasnett_rwlock_unlock(&rw);\n"
    "  gasnett_cond_signal(&c);\n"
    "  gasnett_threadkey_set(k, &a);\n"
    "  GASNETT_TRACE_PRINTF(\"%d\", 1);\n"
    "  gasnett_local_wmb();\n"
    "  return (int)gasnett_atomic_add(&a, 1, GASNETT_ATOMIC_MB_POST)\n"
    "       + (int)gasnett_atomic64_swap(&b, 0, 0)\n"
    "       + gasnett_strongatomic32_compare_and_swap(&s, 3, 4, GASNETT_ATOMIC_ACQ_IF_TRUE)\n"
    "       + (int)gasnett_ticks_to_us(gasnett_ticks_now()) + gasnett_cpu_count();\n"
    "}\n";

/* A tools-only client. */
static const char snippet_tools_only[] =
    "#include <gasnet_tools.h>\n"
    "GASNETT_IDENT(ident, \"$Ident: x $\");\n"
    "static gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;\n"
    "static gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;\n"
    "int use(void);\n"
    "int use(void) { gasnett_atomic64_t a = gasnett_atomic64_init(0);\n"
    "  gasnett_mutex_lock(&m); gasnett_mutex_unlock(&m);\n"
    "  gasnett_rwlock_wrlock(&rw); gasnett_rwlock_unlock(&rw);\n"
    "  GASNETT_TRACE_PRINTF(\"%s\", GASNETT_CONFIG_STRING);\n"
    "  return (int)gasnett_atomic64_add(&a, 1, GASNETT_ATOMIC_ACQ) + ident[0]; }\n";

/* The same use, tools first: the order GASNet forbids works with gp. */
static const char snippet_tools_first[] =
    "#include <gasnet_tools.h>\n"
    "#include <gasnet.h>\n"
    "static gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;\n"
    "int use(void);\n"
    "int use(void) { gasnett_atomic32_t a = gasnett_atomic32_init(0);\n"
    "  gasnett_rwlock_wrlock(&rw); gasnett_rwlock_unlock(&rw);\n"
    "  return (int)gasnett_atomic32_read(&a, 0); }\n";

/* Feeds a snippet to a compiler; fails the test with the compiler's words. */
static void compile_snippet(int line, const char *compiler, const char *flags, const char *code)
{
    char root[PATH_MAX], log[] = "/tmp/gp-test-tools.XXXXXX", command[2 * PATH_MAX];
    if (!find_root(root, sizeof root))
        gp_test_skip("cannot find the repository root (libcore/include)");
    int fd = mkstemp(log);
    CHECK(fd >= 0);
    close(fd);
    snprintf(command, sizeof command,
             "%s %s -Wall -Wextra -Werror -fsyntax-only -I'%s/libcore/include' - >%s 2>&1",
             compiler, flags, root, log);
    FILE *pipe_in = popen(command, "w");
    CHECK(pipe_in != NULL);
    fputs(code, pipe_in);
    int status = pclose(pipe_in);
    if (status != 0) {
        char text[4000] = "";
        FILE *got = fopen(log, "r");
        if (got != NULL) {
            size_t n = fread(text, 1, sizeof text - 1, got);
            text[n] = '\0';
            fclose(got);
        }
        unlink(log);
        gp_test_fail(__FILE__, line, "%s %s rejected the header:\n%s", compiler, flags, text);
    }
    unlink(log);
}

static int have_command(const char *name)
{
    char command[200];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", name);
    return system(command) == 0;
}

static void test_cxx_syntax(void)
{
    if (!have_command("c++"))
        gp_test_skip("no c++ compiler");
    compile_snippet(__LINE__, "c++", "-std=c++11 -x c++", snippet_tools_only);
    compile_snippet(__LINE__, "c++", "-std=c++11 -x c++", snippet_both);
    compile_snippet(__LINE__, "c++", "-std=c++11 -x c++", snippet_tools_first);
}

static void test_strict_c_syntax(void)
{
    if (!have_command("cc"))
        gp_test_skip("no cc");
    /* Strict ISO C hides POSIX names the header must not depend on. */
    compile_snippet(__LINE__, "cc", "-std=c99 -x c", snippet_tools_only);
    compile_snippet(__LINE__, "cc", "-std=c99 -x c", snippet_both);
    compile_snippet(__LINE__, "cc", "-std=c99 -x c", snippet_tools_first);
    compile_snippet(__LINE__, "cc", "-std=c11 -x c", snippet_both);
}

static const struct gp_test tests[] = {
    { "trace_noops", test_trace_noops, 0 },
    { "macros", test_macros, 0 },
    { "cxx_syntax", test_cxx_syntax, 120 },
    { "strict_c_syntax", test_strict_c_syntax, 120 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "tools_macros", tests);
}
