/*
 * The tools and harness names GASNet-EX's tests and clients read (subset
 * spec §16): gasnett_nsleep, gasnett_fatalerror_nopos, the statistics
 * macros, GASNETT_UNUSED_ARGS1..8, gasnett_format_ti/_dt/_op, the thread
 * limits as constants, and gasnet_register_value_t as gex_RMA_Value_t.
 */
#include <gasnetex.h>
#include <gasnet_tools.h>

#include <time.h>

#include "../harness/test.h"

/* Constants usable in #if and static assertions, as GASNet's test.h uses them. */
#if GASNETT_MAX_THREADS < 2 || GASNETI_MAX_THREADS != GASNETT_MAX_THREADS
#error "GASNETT_MAX_THREADS and GASNETI_MAX_THREADS are one preprocessor constant"
#endif
#if SIZEOF_GASNET_REGISTER_VALUE_T != 8 || SIZEOF_GEX_RMA_VALUE_T != 8
#error "the register value is 64 bits"
#endif
_Static_assert(GASNETT_MAX_THREADS == 256, "a constant expression");
/* The same type, not just the same size: a pointer to one is a pointer to the other. */
static gasnet_register_value_t register_value;
static gex_RMA_Value_t *const value_p = &register_value;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* At least the time asked for (a lower bound only: never how much longer). */
static void test_nsleep(void)
{
    uint64_t start = now_ns();
    gasnett_nsleep(2000000);
    CHECK(now_ns() - start >= 2000000);
    gasnett_nsleep(0);
}

static void test_macros(void)
{
    int n = 0;
    GASNETT_STATS_PRINTF_FORCE("value %d", ++n);
    GASNETT_STATS_DUMP(++n);
    CHECK_EQ(n, 2);
    n = 0;
    GASNETT_UNUSED_ARGS1(++n);
    CHECK_EQ(n, 1);
    n = 0;
    GASNETT_UNUSED_ARGS2(++n, ++n);
    CHECK_EQ(n, 2);
    n = 0;
    (void)(GASNETT_UNUSED_ARGS8(++n, ++n, ++n, ++n, ++n, ++n, ++n, ++n), 0); /* an expression */
    CHECK_EQ(n, 8);
    n = 0;
    GASNETT_UNUSED_ARGS3(++n, ++n, ++n);
    GASNETT_UNUSED_ARGS4(++n, ++n, ++n, ++n);
    GASNETT_UNUSED_ARGS5(++n, ++n, ++n, ++n, ++n);
    GASNETT_UNUSED_ARGS6(++n, ++n, ++n, ++n, ++n, ++n);
    GASNETT_UNUSED_ARGS7(++n, ++n, ++n, ++n, ++n, ++n, ++n);
    CHECK_EQ(n, 25);
    *value_p = 1;
    CHECK_EQ(register_value, 1);
}

/* The fatal line without a position: the one gp always writes, ending the process. */
static void test_fatalerror_nopos(void)
{
    void (*fatal)(const char *, ...) = gasnett_fatalerror_nopos;
    CHECK(fatal == gasnett_fatalerror);
}

/* Length first (buf NULL), then the text; both counts include the NUL. */
static void check_format(size_t (*fmt)(char *, uint32_t), uint32_t mask, const char *want)
{
    char buf[600];
    size_t need = fmt(NULL, mask);
    CHECK_EQ(need, strlen(want) + 1);
    memset(buf, 'x', sizeof buf);
    CHECK_EQ(fmt(buf, mask), need);
    CHECK_STR_EQ(buf, want);
    CHECK_EQ(buf[need], 'x'); /* not one byte more */
}
static size_t ti(char *b, uint32_t m) { return gasnett_format_ti(b, (gex_TI_t)m); }
static size_t dt(char *b, uint32_t m) { return gasnett_format_dt(b, (gex_DT_t)m); }
static size_t op(char *b, uint32_t m) { return gasnett_format_op(b, (gex_OP_t)m); }

static void test_format(void)
{
    check_format(ti, GEX_TI_SRCRANK | GEX_TI_IS_LONG, "GEX_TI_SRCRANK|GEX_TI_IS_LONG");
    check_format(ti, GEX_TI_ALL,
                 "GEX_TI_SRCRANK|GEX_TI_ENTRY|GEX_TI_IS_REQ|GEX_TI_IS_LONG|GEX_TI_EP");
    check_format(ti, 0, "0");
    check_format(ti, GEX_TI_EP | 0x100, "GEX_TI_EP|0x100");
    check_format(dt, GEX_DT_DBL, "GEX_DT_DBL");
    check_format(dt, GEX_DT_I32 | GEX_DT_USER, "GEX_DT_I32|GEX_DT_USER");
    check_format(op, GEX_OP_FADD, "GEX_OP_FADD");
    check_format(op, GEX_OP_CSWAP, "GEX_OP_FCAS");
    check_format(op, GEX_OP_AND | GEX_OP_USER_NC, "GEX_OP_AND|GEX_OP_USER_NC");
    check_format(op, 0xffffffffu,
                 "GEX_OP_AND|GEX_OP_OR|GEX_OP_XOR|GEX_OP_ADD|GEX_OP_SUB|GEX_OP_MULT|GEX_OP_MIN|"
                 "GEX_OP_MAX|GEX_OP_INC|GEX_OP_DEC|GEX_OP_SET|GEX_OP_CAS|GEX_OP_FAND|GEX_OP_FOR|"
                 "GEX_OP_FXOR|GEX_OP_FADD|GEX_OP_FSUB|GEX_OP_FMULT|GEX_OP_FMIN|GEX_OP_FMAX|"
                 "GEX_OP_FINC|GEX_OP_FDEC|GEX_OP_SWAP|GEX_OP_FCAS|GEX_OP_GET|GEX_OP_USER|"
                 "GEX_OP_USER_NC|0x30007000");
}

static const struct gp_test tests[] = {
    { "nsleep", test_nsleep, 0 },
    { "macros", test_macros, 0 },
    { "fatalerror_nopos", test_fatalerror_nopos, 0 },
    { "format", test_format, 0 },
    GP_TEST_END,
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "tools_ex", tests);
}
