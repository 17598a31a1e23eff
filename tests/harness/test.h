/*
 * A small test runner in the manner of libuv's: every test runs in its own
 * forked process with a time limit, so a crash or a hang fails that test
 * alone.  Each line of output is "ok SUITE/NAME", "FAIL SUITE/NAME: why" or
 * "skip SUITE/NAME: why"; tests/run.sh counts them.
 */
#ifndef GP_TESTS_HARNESS_TEST_H
#define GP_TESTS_HARNESS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gp_test {
    const char *name;
    void (*fn)(void);
    unsigned timeout_s; /* 0: the default of 60 s */
};

#define GP_TEST_END { NULL, NULL, 0 }

/* Exit status of a test process that decided to skip. */
#define GP_TEST_SKIP_CODE 77
/* Exit status of a test process that printed its own FAIL line. */
#define GP_TEST_FAILED_CODE 78

/* Runs every test of the suite (or those named on the command line). */
int gp_test_main(int argc, char **argv, const char *suite, const struct gp_test *tests);

_Noreturn void gp_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void gp_test_skip(const char *why);

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            gp_test_fail(__FILE__, __LINE__, "check failed: %s", #cond);    \
    } while (0)

#define CHECK_EQ(a, b)                                                      \
    do {                                                                    \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);    \
        if (check_a_ != check_b_)                                           \
            gp_test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
                         #a, check_a_, #b, check_b_);                      \
    } while (0)

/* Two strings equal (actual may be NULL: a failure naming it). */
#define CHECK_STR_EQ(actual, expected)                                                   \
    do {                                                                                 \
        const char *check_x_ = (actual), *check_y_ = (expected);                        \
        if (check_x_ == NULL || strcmp(check_x_, check_y_) != 0)                         \
            gp_test_fail(__FILE__, __LINE__, "%s is \"%s\", expected \"%s\"", #actual,   \
                         check_x_ ? check_x_ : "(null)", check_y_);                     \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                \
    do {                                                                    \
        const char *check_h_ = (haystack);                                  \
        if (check_h_ == NULL || strstr(check_h_, (needle)) == NULL)         \
            gp_test_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
                         check_h_ ? check_h_ : "(null)", (needle));        \
    } while (0)

#endif
