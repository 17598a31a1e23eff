/*
 * util/dynlib.c: a library that loads fills every slot; one that does not
 * says why, and gp_dynlib_open_once tries it once and asks its caller to
 * warn once (the verbs and libfabric loaders are asked at every attach).
 */
#include "util/dynlib.h"

#include "../harness/test.h"

static void test_loads_and_fills_slots(void)
{
    size_t (*length_of)(const char *) = NULL;
    const struct gp_dynsym syms[] = { { "strlen", (void **)&length_of } };
    static const char *const names[] = { "libc.so.6", NULL };
    struct gp_dynlib_once once = { 0 };
    CHECK_EQ(gp_dynlib_open_once(&once, names, syms, 1), 1);
    CHECK(length_of != NULL && length_of("four") == 4);
    CHECK_EQ(gp_dynlib_open_once(&once, names, syms, 1), 1);
}

static void test_failure_tried_once_said_once(void)
{
    void *slot = NULL;
    const struct gp_dynsym syms[] = { { "strlen", &slot } };
    static const char *const names[] = { "/nonexistent/libgp-test-missing.so.1", NULL };
    struct gp_dynlib_once once = { 0 };
    CHECK_EQ(gp_dynlib_open_once(&once, names, syms, 1), 0);
    CHECK_STR_CONTAINS(once.why, "libgp-test-missing.so.1");
    CHECK_EQ(gp_dynlib_open_once(&once, names, syms, 1), -1);
    CHECK_EQ(gp_dynlib_open_once(&once, names, syms, 1), -1);
    CHECK(slot == NULL);
}

static void test_missing_symbol_leaves_slots(void)
{
    void *first = NULL, *second = NULL;
    const struct gp_dynsym syms[] = { { "strlen", &first }, { "gp_no_such_symbol", &second } };
    static const char *const names[] = { "libc.so.6", NULL };
    struct gp_dynlib_once once = { 0 };
    CHECK_EQ(gp_dynlib_open_once(&once, names, syms, 2), 0);
    CHECK_STR_CONTAINS(once.why, "gp_no_such_symbol");
    CHECK(first == NULL && second == NULL);
}

static const struct gp_test tests[] = {
    { "loads_and_fills_slots", test_loads_and_fills_slots, 0 },
    { "failure_tried_once_said_once", test_failure_tried_once_said_once, 0 },
    { "missing_symbol_leaves_slots", test_missing_symbol_leaves_slots, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "dynlib", tests);
}
