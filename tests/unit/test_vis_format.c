/*
 * The VIS formatting helpers of gasnet_tools.h: each writes the facts it
 * promises (counts, totals, the entries, strides) and its text always fits
 * in the _bufsz() it reports, worst cases included (the widest numbers and
 * addresses); not one byte past it is written.  And gasnet_vis.h compiles
 * alone as C and as C++ (spec 1.1), declaring the helpers too.
 */
#include <gasnet_vis.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/test.h"

#define GUARD 256

/* A buffer of bufsz bytes followed by a guard zone, all filled with a marker. */
static char *guarded(size_t bufsz)
{
    char *buf = malloc(bufsz + GUARD);
    CHECK(buf != NULL);
    memset(buf, 0x5a, bufsz + GUARD);
    return buf;
}

/* The text ends inside the buffer, complete (its closing char), and the guard is intact. */
static void check_fits(const char *buf, size_t bufsz, char last)
{
    size_t len = strnlen(buf, bufsz + GUARD);
    CHECK(len < bufsz);
    CHECK(len > 0 && buf[len - 1] == last);
    for (size_t i = bufsz; i < bufsz + GUARD; i++)
        CHECK(buf[i] == 0x5a);
}

static void test_memveclist(void)
{
    char a[64];
    gasnet_memvec_t list[5] = { { a + 8, 8 }, { NULL, 0 }, { a, 4 }, { a + 40, 20 }, { a + 2, 1 } };
    size_t bufsz = gasnett_format_memveclist_bufsz(5);
    CHECK_EQ(gasnett_format_memveclist_bufsz(0), 200);
    char *buf = guarded(bufsz);
    gasnett_memveclist_stats_t s = gasnett_format_memveclist(buf, 5, list);
    check_fits(buf, bufsz, ']');
    CHECK_EQ(s.totalsz, 33);
    CHECK_EQ(s.minsz, 0);
    CHECK_EQ(s.maxsz, 20);
    CHECK(s.minaddr == (void *)a);
    CHECK(s.maxaddr == (void *)(a + 59));
    CHECK_STR_CONTAINS(buf, "count=5");
    CHECK_STR_CONTAINS(buf, "totalsz=33");
    CHECK_STR_CONTAINS(buf, ",20}");
    free(buf);
    /* The same list as GASNet-EX's gex_Memvec_t, taken as it is. */
    gex_Memvec_t ex[5] = { { a + 8, 8 }, { NULL, 0 }, { a, 4 }, { a + 40, 20 }, { a + 2, 1 } };
    buf = guarded(bufsz);
    s = gasnett_format_memveclist(buf, 5, ex);
    check_fits(buf, bufsz, ']');
    CHECK_EQ(s.totalsz, 33);
    CHECK(s.minaddr == (void *)a && s.maxaddr == (void *)(a + 59));
    CHECK_STR_CONTAINS(buf, ",20}");
    free(buf);
    /* More entries than are copied on the stack. */
    gex_Memvec_t many[40];
    for (int i = 0; i < 40; i++)
        many[i] = (gex_Memvec_t){ a + i, 1 };
    buf = guarded(gasnett_format_memveclist_bufsz(40));
    s = gasnett_format_memveclist(buf, 40, many);
    CHECK_EQ(s.totalsz, 40);
    CHECK(s.minaddr == (void *)a && s.maxaddr == (void *)(a + 39));
    free(buf);
}

static void test_addrlist(void)
{
    char a[64];
    void *list[3] = { a + 16, a, a + 32 };
    size_t bufsz = gasnett_format_addrlist_bufsz(3);
    char *buf = guarded(bufsz);
    gasnett_addrlist_stats_t s = gasnett_format_addrlist(buf, 3, list, 8);
    check_fits(buf, bufsz, ']');
    CHECK(s.minaddr == (void *)a);
    CHECK(s.maxaddr == (void *)(a + 39));
    CHECK_STR_CONTAINS(buf, "count=3 totalsz=24 len=8");
    free(buf);
}

/* GASNet-EX's shape: element size, element counts, signed strides. */
static void test_putsgets(void)
{
    char d[4096], s[4096];
    size_t count[2] = { 4, 2 };
    ptrdiff_t dst[2] = { 16, -64 }, src[2] = { 32, 200 };
    size_t bufsz = gasnett_format_putsgets_bufsz(2);
    char *buf = guarded(bufsz);
    CHECK_EQ(gasnett_format_putsgets(buf, NULL, GEX_TM_INVALID, 3, d + 1024, dst, s, src, 8,
                                     count, 2), 64);
    check_fits(buf, bufsz, '\n');
    CHECK_STR_CONTAINS(buf, "totalsz=64 tm=");
    CHECK_STR_CONTAINS(buf, " rank=3 elemsz=8 stridelevels=2 count=[4, 2]");
    CHECK_STR_CONTAINS(buf, "strides=[16, -64]");
    CHECK_STR_CONTAINS(buf, "strides=[32, 200]");
    /* dst reaches 64 bytes below its address and 3*16 + 7 above it. */
    char want[200], lo[40], hi[40];
    uint64_t l = (uint64_t)(uintptr_t)(d + 1024 - 64), h = (uint64_t)(uintptr_t)(d + 1024 + 55);
    snprintf(lo, sizeof lo, "0x%08x %08x", (unsigned)(l >> 32), (unsigned)l);
    snprintf(hi, sizeof hi, "0x%08x %08x", (unsigned)(h >> 32), (unsigned)h);
    snprintf(want, sizeof want, "bounds=[%s ... %s]", lo, hi);
    CHECK_STR_CONTAINS(buf, want);
    free(buf);
    /* stridelevels 0: one element; the stride arrays are not read (NULL accepted). */
    bufsz = gasnett_format_putsgets_bufsz(0);
    buf = guarded(bufsz);
    CHECK_EQ(gasnett_format_putsgets(buf, NULL, GEX_TM_INVALID, 0, d, NULL, s, NULL, 16, count,
                                     0), 16);
    check_fits(buf, bufsz, '\n');
    free(buf);
}

static void test_optional(void)
{
    char a[64];
    gasnet_memvec_t v[2] = { { a, 10 }, { a + 20, 6 } }, w[1] = { { a + 32, 16 } };
    void *i1[2] = { a, a + 8 }, *i2[4] = { a + 32, a + 36, a + 40, a + 44 };
    size_t strides[3] = { 1, 22, 333 };
    size_t bufsz = gasnett_format_putvgetv_bufsz(2, 1);
    char *buf = guarded(bufsz);
    CHECK_EQ(gasnett_format_putvgetv(buf, 1, 2, v, 1, w), 16);
    check_fits(buf, bufsz, ']');
    CHECK_STR_CONTAINS(buf, "node=1");
    free(buf);
    bufsz = gasnett_format_putigeti_bufsz(2, 4);
    buf = guarded(bufsz);
    CHECK_EQ(gasnett_format_putigeti(buf, 2, 2, i1, 8, 4, i2, 4), 16);
    check_fits(buf, bufsz, ']');
    free(buf);
    bufsz = gasnett_format_strides_bufsz(3);
    buf = guarded(bufsz);
    gasnett_format_strides(buf, 3, strides);
    check_fits(buf, bufsz, ']');
    CHECK(strcmp(buf, "[1, 22, 333]") == 0);
    free(buf);
}

/* The widest values everywhere: every formatter still fits its size. */
static void test_worst_case(void)
{
    enum { N = 300, L = 40 };
    gasnet_memvec_t *v = malloc(N * sizeof *v);
    void **p = malloc(N * sizeof *p);
    size_t count[L + 1], strides[L];
    ptrdiff_t signed_strides[L];
    CHECK(v != NULL && p != NULL);
    for (size_t i = 0; i < N; i++) {
        v[i].addr = (void *)(UINTPTR_MAX - i);
        v[i].len = SIZE_MAX - i;
        p[i] = (void *)(UINTPTR_MAX - i);
    }
    for (size_t k = 0; k <= L; k++)
        count[k] = k == 0 ? SIZE_MAX : 1;
    for (size_t k = 0; k < L; k++) {
        strides[k] = SIZE_MAX;
        signed_strides[k] = k % 2 ? PTRDIFF_MIN : PTRDIFF_MAX;
    }
    size_t bufsz = gasnett_format_memveclist_bufsz(N);
    char *buf = guarded(bufsz);
    gasnett_format_memveclist(buf, N, v);
    check_fits(buf, bufsz, ']');
    free(buf);
    bufsz = gasnett_format_addrlist_bufsz(N);
    buf = guarded(bufsz);
    gasnett_format_addrlist(buf, N, p, SIZE_MAX);
    check_fits(buf, bufsz, ']');
    free(buf);
    bufsz = gasnett_format_putsgets_bufsz(L);
    buf = guarded(bufsz);
    gasnett_format_putsgets(buf, NULL, (gex_TM_t)(uintptr_t)UINTPTR_MAX, UINT32_MAX,
                            (void *)UINTPTR_MAX, signed_strides, (void *)UINTPTR_MAX,
                            signed_strides, SIZE_MAX, count, L);
    check_fits(buf, bufsz, '\n');
    free(buf);
    bufsz = gasnett_format_strides_bufsz(L);
    buf = guarded(bufsz);
    gasnett_format_strides(buf, L, strides);
    check_fits(buf, bufsz, ']');
    free(buf);
    free(v);
    free(p);
}

/* The repository root: tests run from it, or we find it from our own path. */
static int find_root(char *root, size_t len)
{
    char exe[PATH_MAX];
    if (access("libcore/include/gasnet_vis.h", R_OK) == 0)
        return snprintf(root, len, ".") > 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    for (int up = 0; up < 5; up++) {
        char *slash = strrchr(exe, '/');
        if (slash == NULL)
            return 0;
        *slash = '\0';
        char probe[PATH_MAX + 40];
        snprintf(probe, sizeof probe, "%s/libcore/include/gasnet_vis.h", exe);
        if (access(probe, R_OK) == 0)
            return snprintf(root, len, "%s", exe) < (int)len;
    }
    return 0;
}

static const char snippet[] =
    "#include <gasnet_vis.h>\n"
    "#include <gasnet_vis.h>\n" /* the include guard */
    "int use(gasnet_node_t n, void *p);\n"
    "int use(gasnet_node_t n, void *p) {\n"
    "  gasnet_memvec_t v[2] = { { p, 8 }, { 0, 0 } };\n"
    "  void *a[1] = { p };\n"
    "  size_t c[2] = { 8, 1 }, s[1] = { 8 };\n"
    "  char buf[512];\n"
    "  gasnet_putv_bulk(n, 1, v, 1, v);\n"
    "  gasnet_wait_syncnb(gasnet_getv_nb_bulk(1, v, n, 1, v));\n"
    "  gasnet_puti_nbi_bulk(n, 1, a, 8, 1, a, 8);\n"
    "  gasnet_gets_bulk(p, s, n, p, s, c, 1);\n"
    "  gasnett_format_strides(buf, 2, c);\n"
    "  return (int)gasnett_format_memveclist_bufsz(2);\n"
    "}\n";

static void compile_snippet(const char *compiler, const char *flags)
{
    char root[PATH_MAX], log[] = "/tmp/gp-test-vis.XXXXXX", command[2 * PATH_MAX];
    char have[200];
    snprintf(have, sizeof have, "command -v %s >/dev/null 2>&1", compiler);
    if (system(have) != 0)
        gp_test_skip("no compiler");
    if (!find_root(root, sizeof root))
        gp_test_skip("cannot find the repository root (libcore/include)");
    int fd = mkstemp(log);
    CHECK(fd >= 0);
    close(fd);
    snprintf(command, sizeof command,
             "%s %s -DGASNET_SEQ -Wall -Wextra -Werror -fsyntax-only -I'%s/libcore/include' - "
             ">%s 2>&1", compiler, flags, root, log);
    FILE *pipe_in = popen(command, "w");
    CHECK(pipe_in != NULL);
    fputs(snippet, pipe_in);
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
        gp_test_fail(__FILE__, __LINE__, "%s %s rejected gasnet_vis.h:\n%s", compiler, flags,
                     text);
    }
    unlink(log);
}

static void test_header_c(void)
{
    compile_snippet("cc", "-std=c99 -x c");
}

static void test_header_cxx(void)
{
    compile_snippet("c++", "-std=c++11 -x c++");
}

static const struct gp_test tests[] = {
    { "memveclist", test_memveclist, 0 },
    { "addrlist", test_addrlist, 0 },
    { "putsgets", test_putsgets, 0 },
    { "optional", test_optional, 0 },
    { "worst_case", test_worst_case, 0 },
    { "header_c", test_header_c, 120 },
    { "header_cxx", test_header_cxx, 120 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "vis_format", tests);
}
