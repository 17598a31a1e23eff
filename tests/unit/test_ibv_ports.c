/*
 * The GASNET_IBV_PORTS filter: the syntax, the filter semantics of seed 003
 * (duplicates, order, HCAs without a port list) and the error sentences.
 */
#include "../harness/test.h"

#include "nal/ibv/ibv_ports.h"

static struct ibv_port_filter *parse_ok(const char *text)
{
    char err[512] = "";
    struct ibv_port_filter *f = NULL;
    if (ibv_port_filter_parse("GASNET_IBV_PORTS", text, &f, err, sizeof err) != 0)
        gp_test_fail(__FILE__, __LINE__, "'%s' rejected: %s", text ? text : "(null)", err);
    CHECK(f != NULL);
    return f;
}

static void expect_error(int line, const char *varname, const char *text, const char *why)
{
    char err[512] = "";
    struct ibv_port_filter *f = (struct ibv_port_filter *)&err; /* must stay untouched */
    char prefix[256];
    if (ibv_port_filter_parse(varname, text, &f, err, sizeof err) != -1)
        gp_test_fail(__FILE__, line, "'%s' was accepted", text);
    if (f != (struct ibv_port_filter *)&err)
        gp_test_fail(__FILE__, line, "'%s': *out was written on an error", text);
    snprintf(prefix, sizeof prefix, "%s='%s' is not valid: ", varname, text);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        gp_test_fail(__FILE__, line, "message \"%s\" does not start \"%s\"", err, prefix);
    if (strstr(err, why) == NULL)
        gp_test_fail(__FILE__, line, "message \"%s\" does not say \"%s\"", err, why);
    if (strstr(err, "expected HCA[:PORT[,PORT...]][+HCA") == NULL)
        gp_test_fail(__FILE__, line, "message \"%s\" does not give the syntax", err);
}

static void test_empty_allows_all(void)
{
    static const char *const empties[] = { NULL, "" };
    for (size_t i = 0; i < 2; i++) {
        struct ibv_port_filter *f = parse_ok(empties[i]);
        CHECK(ibv_port_filter_is_empty(f));
        CHECK(ibv_port_filter_allows(f, "mlx5_0", 1));
        CHECK(ibv_port_filter_allows(f, "anything", 2));
        CHECK(!ibv_port_filter_allows(f, "mlx5_0", 0));
        CHECK(ibv_port_filter_mentions(f, "rxe0"));
        CHECK(!ibv_port_filter_has_port_list(f, "rxe0"));
        ibv_port_filter_free(f);
    }
    /* NULL is the empty filter too. */
    CHECK(ibv_port_filter_allows(NULL, "mlx5_0", 1));
    CHECK(ibv_port_filter_mentions(NULL, "mlx5_0"));
    CHECK(!ibv_port_filter_has_port_list(NULL, "mlx5_0"));
    ibv_port_filter_free(NULL);
}

static void test_seed_example(void)
{
    struct ibv_port_filter *f = parse_ok("InfiniHost0+InfiniHost1:2");
    CHECK(!ibv_port_filter_is_empty(f));
    CHECK(ibv_port_filter_allows(f, "InfiniHost0", 1));
    CHECK(ibv_port_filter_allows(f, "InfiniHost0", 2));
    CHECK(!ibv_port_filter_allows(f, "InfiniHost1", 1));
    CHECK(ibv_port_filter_allows(f, "InfiniHost1", 2));
    CHECK(!ibv_port_filter_allows(f, "InfiniHost2", 1));
    CHECK(!ibv_port_filter_allows(f, "InfiniHost", 1));   /* a prefix is not a match */
    CHECK(!ibv_port_filter_allows(f, "InfiniHost00", 1));
    CHECK(ibv_port_filter_mentions(f, "InfiniHost0"));
    CHECK(ibv_port_filter_mentions(f, "InfiniHost1"));
    CHECK(!ibv_port_filter_mentions(f, "InfiniHost2"));
    CHECK(!ibv_port_filter_has_port_list(f, "InfiniHost0"));
    CHECK(ibv_port_filter_has_port_list(f, "InfiniHost1"));
    CHECK(!ibv_port_filter_has_port_list(f, "InfiniHost2"));
    ibv_port_filter_free(f);
}

static void test_port_lists(void)
{
    struct ibv_port_filter *f = parse_ok("rxe0:1,3+mlx5_0:255");
    CHECK(ibv_port_filter_allows(f, "rxe0", 1));
    CHECK(!ibv_port_filter_allows(f, "rxe0", 2));
    CHECK(ibv_port_filter_allows(f, "rxe0", 3));
    CHECK(!ibv_port_filter_allows(f, "rxe0", 0));
    CHECK(!ibv_port_filter_allows(f, "rxe0", 256));
    CHECK(ibv_port_filter_allows(f, "mlx5_0", 255));
    CHECK(!ibv_port_filter_allows(f, "mlx5_0", 1));
    CHECK(!ibv_port_filter_allows(f, NULL, 1));
    ibv_port_filter_free(f);
    f = parse_ok("rxe0:1");
    CHECK(ibv_port_filter_allows(f, "rxe0", 1));
    CHECK(!ibv_port_filter_allows(f, "rxe0", 2));
    ibv_port_filter_free(f);
}

/* A filter: duplicates merge, order does not matter, "x" wins over "x:1". */
static void test_duplicates_and_order(void)
{
    struct ibv_port_filter *a = parse_ok("mlx5_1:2+mlx5_0:1+mlx5_1:2,1+mlx5_0:1");
    struct ibv_port_filter *b = parse_ok("mlx5_0:1+mlx5_1:1,2");
    for (unsigned port = 0; port < 5; port++) {
        CHECK_EQ(ibv_port_filter_allows(a, "mlx5_0", port),
                 ibv_port_filter_allows(b, "mlx5_0", port));
        CHECK_EQ(ibv_port_filter_allows(a, "mlx5_1", port),
                 ibv_port_filter_allows(b, "mlx5_1", port));
    }
    CHECK(ibv_port_filter_allows(a, "mlx5_1", 1));
    ibv_port_filter_free(a);
    ibv_port_filter_free(b);
    a = parse_ok("x:1+x");
    CHECK(ibv_port_filter_allows(a, "x", 7));
    CHECK(!ibv_port_filter_has_port_list(a, "x"));
    ibv_port_filter_free(a);
    a = parse_ok("x+x:1");
    CHECK(ibv_port_filter_allows(a, "x", 7));
    CHECK(!ibv_port_filter_has_port_list(a, "x"));
    ibv_port_filter_free(a);
}

static void test_syntax_errors(void)
{
    const char *v = "GASNET_IBV_PORTS";
    expect_error(__LINE__, v, "+", "an HCA name was expected at offset 0");
    expect_error(__LINE__, v, "mlx5_0+", "nothing after the last '+'");
    expect_error(__LINE__, v, "mlx5_0++mlx5_1", "an HCA name was expected at offset 7");
    expect_error(__LINE__, v, ":1", "an HCA name was expected at offset 0");
    expect_error(__LINE__, v, "mlx5_0:", "a port number was expected at offset 7");
    expect_error(__LINE__, v, "mlx5_0:0", "port 0 is outside 1 to 255");
    expect_error(__LINE__, v, "mlx5_0:256", "port 256 is outside 1 to 255");
    expect_error(__LINE__, v, "mlx5_0:99999999999999999999", "is outside 1 to 255");
    expect_error(__LINE__, v, "mlx5_0:a", "a port number was expected at offset 7");
    expect_error(__LINE__, v, "mlx5_0:1,", "a port number was expected at offset 9");
    expect_error(__LINE__, v, "mlx5_0:1,,2", "a port number was expected at offset 9");
    expect_error(__LINE__, v, "mlx5_0:1x", "unexpected 'x' at offset 8");
    expect_error(__LINE__, v, "mlx5_0:1:2", "unexpected ':' at offset 8");
    expect_error(__LINE__, v, "mlx5_0::1", "a port number was expected at offset 7");
    expect_error(__LINE__, v, "mlx5_0,mlx5_1", "unexpected ',' at offset 6");
    expect_error(__LINE__, v, " mlx5_0", "unexpected ' ' at offset 0");
    expect_error(__LINE__, v, "mlx5_0 ", "unexpected ' ' at offset 6");
    expect_error(__LINE__, v, "mlx5_0:-1", "a port number was expected at offset 7");
    /* The variable named is the one the text came from. */
    expect_error(__LINE__, "GASNET_VAPI_PORTS", "InfiniHost0:", "a port number was expected");
}

static void test_error_leaves_out_alone(void)
{
    char err[8];
    struct ibv_port_filter *f = NULL;
    /* A short buffer truncates the sentence but still fails cleanly. */
    CHECK_EQ(ibv_port_filter_parse("GASNET_IBV_PORTS", "x:0", &f, err, sizeof err), -1);
    CHECK(f == NULL);
    CHECK_EQ(strlen(err), sizeof err - 1);
    CHECK_EQ(ibv_port_filter_parse("GASNET_IBV_PORTS", "x:0", &f, NULL, 0), -1);
    CHECK(f == NULL);
}

static void test_long_text_shortened(void)
{
    char text[301], err[1024] = "";
    struct ibv_port_filter *f = NULL;
    memset(text, 'a', 300);
    text[300] = '\0';
    text[299] = '+';
    CHECK_EQ(ibv_port_filter_parse("GASNET_IBV_PORTS", text, &f, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "...' is not valid: nothing after the last '+'");
}

static void test_many_hcas(void)
{
    char text[4096];
    size_t used = 0;
    struct ibv_port_filter *f;
    for (int i = 0; i < 100; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%shca%d:%d", i ? "+" : "",
                                 i, i % 255 + 1);
    f = parse_ok(text);
    for (int i = 0; i < 100; i++) {
        char name[16];
        snprintf(name, sizeof name, "hca%d", i);
        CHECK(ibv_port_filter_allows(f, name, (unsigned)(i % 255 + 1)));
        CHECK(!ibv_port_filter_allows(f, name, (unsigned)(i % 255 + 2)));
    }
    ibv_port_filter_free(f);
}

static const struct gp_test tests[] = {
    { "empty_allows_all", test_empty_allows_all, 0 },
    { "seed_example", test_seed_example, 0 },
    { "port_lists", test_port_lists, 0 },
    { "duplicates_and_order", test_duplicates_and_order, 0 },
    { "syntax_errors", test_syntax_errors, 0 },
    { "error_leaves_out_alone", test_error_leaves_out_alone, 0 },
    { "long_text_shortened", test_long_text_shortened, 0 },
    { "many_hcas", test_many_hcas, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "ibv_ports", tests);
}
