/*
 * The static credit plan (seed 000 / 001): the interpolated table of
 * defaults, the ReqRB sizing formula, and the environment overrides --
 * including the impossible ones, which must be refused with a reason.
 */
#include <gasnet.h>
#include <stdlib.h>

#include "conduit/config.h"
#include "conduit/core.h"
#include "test.h"

static void load_env(void)
{
    char why[256];
    CHECK_EQ(gp_config_load(why, sizeof why), GASNET_OK);
}

static void clear_env(void)
{
    unsetenv("GASNET_PORTAL_CRED_PER_NODE");
    unsetenv("GASNET_PORTAL_BANKED_CREDITS");
    unsetenv("GASNET_PORTAL_AMRECV_SPACE");
    unsetenv("GASNET_PORTAL_MAX_CRED_PER_NODE");
}

static void test_table_rows_and_interpolation(void)
{
    uint32_t cpn, banked;
    gpc_credit_table(1, &cpn, &banked);
    CHECK_EQ(cpn, 256);
    CHECK_EQ(banked, 256);
    gpc_credit_table(64, &cpn, &banked);
    CHECK_EQ(cpn, 24);
    CHECK_EQ(banked, 1024);
    gpc_credit_table(10000, &cpn, &banked);
    CHECK_EQ(cpn, 5);
    CHECK_EQ(banked, 20000);
    gpc_credit_table(100000, &cpn, &banked);
    CHECK_EQ(cpn, 4);
    CHECK_EQ(banked, 20000);
    /* Between 8 (64) and 64 (24) nodes, log-linear: 16 nodes is a third of the way. */
    gpc_credit_table(16, &cpn, &banked);
    CHECK_EQ(cpn, 51);
    /* Never below the minimum of 4, and monotone non-increasing. */
    uint32_t previous = 1000;
    for (uint32_t nodes = 1; nodes <= 40000; nodes = nodes * 3 / 2 + 1) {
        gpc_credit_table(nodes, &cpn, &banked);
        CHECK(cpn >= GPC_MIN_CREDITS);
        CHECK(cpn <= previous);
        previous = cpn;
    }
}

static void test_default_plan_follows_seed_formula(void)
{
    clear_env();
    load_env();
    struct gpc_credit_plan plan;
    char why[256];
    CHECK_EQ(gpc_credit_plan(8, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.credits_per_node, 64);
    CHECK_EQ(plan.reqrb_buffer_bytes, 64 * 1024);
    /* total = (buffers - 1) * (chunks_per_buffer - 1) * 1024 / 256 */
    CHECK_EQ(plan.total_credits, (plan.reqrb_buffers - 1) * 63 * 4);
    CHECK(plan.total_credits >= 64 * 8 + 512);
    CHECK_EQ(plan.banked_credits, plan.total_credits - 64 * 8);
    CHECK(plan.am_eq_events >= plan.total_credits);
}

static void test_large_job_keeps_minimum_and_big_bank(void)
{
    clear_env();
    load_env();
    struct gpc_credit_plan plan;
    char why[256];
    CHECK_EQ(gpc_credit_plan(10000, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.credits_per_node, 5);
    CHECK(plan.banked_credits >= 20000);
    /* about 15-22 MB of ReqRB plus events per node at this size (seed 001) */
    uint64_t bytes = (uint64_t)plan.reqrb_buffers * plan.reqrb_buffer_bytes;
    CHECK(bytes > 15000000 && bytes < 22000000);
}

static void test_overrides(void)
{
    clear_env();
    setenv("GASNET_PORTAL_CRED_PER_NODE", "10", 1);
    setenv("GASNET_PORTAL_BANKED_CREDITS", "100", 1);
    load_env();
    struct gpc_credit_plan plan;
    char why[256];
    CHECK_EQ(gpc_credit_plan(4, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.credits_per_node, 10);
    CHECK(plan.banked_credits >= 100);

    clear_env();
    setenv("GASNET_PORTAL_MAX_CRED_PER_NODE", "30", 1);
    load_env();
    CHECK_EQ(gpc_credit_plan(2, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.credits_per_node, 30); /* the table's 200-odd, capped */
}

static void test_small_space(void)
{
    clear_env();
    setenv("GASNET_PORTAL_AMRECV_SPACE", "64K", 1);
    load_env();
    struct gpc_credit_plan plan;
    char why[256];
    CHECK_EQ(gpc_credit_plan(8, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.reqrb_buffers, 4);
    CHECK_EQ(plan.reqrb_buffer_bytes, 16 * 1024);
    CHECK_EQ(plan.total_credits, 3 * 15 * 4);
    CHECK_EQ(plan.credits_per_node, 22); /* 180 credits over 8 nodes */
    CHECK_EQ(plan.banked_credits, 180 - 22 * 8);

    /* Too small for 4 credits each: refused, with the numbers. */
    CHECK_EQ(gpc_credit_plan(64, &plan, why, sizeof why), GASNET_ERR_BAD_ARG);
    CHECK_STR_CONTAINS(why, "GASNET_PORTAL_AMRECV_SPACE=65536 gives 180 credits for 64 nodes");

    setenv("GASNET_PORTAL_CRED_PER_NODE", "40", 1);
    load_env();
    CHECK_EQ(gpc_credit_plan(8, &plan, why, sizeof why), GASNET_ERR_BAD_ARG);
    CHECK_STR_CONTAINS(why, "fewer than GASNET_PORTAL_CRED_PER_NODE=40");
}

static const struct gp_test tests[] = {
    { "table_rows_and_interpolation", test_table_rows_and_interpolation, 0 },
    { "default_plan_follows_seed_formula", test_default_plan_follows_seed_formula, 0 },
    { "large_job_keeps_minimum_and_big_bank", test_large_job_keeps_minimum_and_big_bank, 0 },
    { "overrides", test_overrides, 0 },
    { "small_space", test_small_space, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "credits", tests);
}
