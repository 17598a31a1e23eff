/*
 * The static credit plan (seed 000 / 001): the interpolated table of
 * defaults, the ReqRB sizing formula, and the environment overrides --
 * including the impossible ones, which must be refused with a reason.
 */
#include <gasnet.h>
#include <stdlib.h>

#include "conduit/am/am_wire.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/credits/credits.h"
#include "config/config.h"
#include "test.h"
#include "util/counter.h"

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
    CHECK_EQ(cpn, 2);
    CHECK_EQ(banked, 16000);
    gpc_credit_table(100000, &cpn, &banked);
    CHECK_EQ(cpn, 2);
    CHECK_EQ(banked, 8000);
    /* Between 8 (64) and 64 (24) nodes, log-linear: 16 nodes is a third of the way. */
    gpc_credit_table(16, &cpn, &banked);
    CHECK_EQ(cpn, 51);
    /* Below the minimum of 4 only beyond 4,096 nodes (peers then ask for the
     * rest), never below 1, and monotone non-increasing. */
    uint32_t previous = 1000;
    for (uint32_t nodes = 1; nodes <= 40000; nodes = nodes * 3 / 2 + 1) {
        gpc_credit_table(nodes, &cpn, &banked);
        CHECK(cpn >= (nodes <= 4096 ? GPC_MIN_CREDITS : 1));
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

/* The memory targets (doc/decisions.md, "The credit table"): at most 15 MB
 * per node at 10,000 nodes and 20 MB at 20,000 (ReqRB, 128-byte AM_EQ
 * events, conn_state), with peers below the minimum. */
static void test_large_jobs_fit_the_memory_targets(void)
{
    clear_env();
    load_env();
    const struct { uint32_t nodes; uint64_t limit; } cases[] = {
        { 10000, 15000000 }, { 20000, 20000000 } };
    for (unsigned i = 0; i < 2; i++) {
        struct gpc_credit_plan plan;
        char why[256];
        CHECK_EQ(gpc_credit_plan(cases[i].nodes, &plan, why, sizeof why), GASNET_OK);
        CHECK_EQ(plan.credits_per_node, 2);
        CHECK(plan.banked_credits >= (i == 0 ? 16000u : 8000u));
        uint64_t bytes = (uint64_t)plan.reqrb_buffers * plan.reqrb_buffer_bytes +
                         (uint64_t)plan.am_eq_events * 128 +
                         (uint64_t)cases[i].nodes * sizeof(struct credit_conn);
        CHECK(bytes <= cases[i].limit);
        /* loans on request leave the asks a full Medium's worth */
        CHECK_EQ(gpc_credit_limits(&plan).ask_reserve, CREDIT_MIN);
    }
}

/* Peers told to start below the minimum: the bank holds at least a Medium. */
static void test_below_minimum_keeps_a_bank(void)
{
    clear_env();
    setenv("GASNET_PORTAL_CRED_PER_NODE", "1", 1);
    setenv("GASNET_PORTAL_BANKED_CREDITS", "0", 1);
    load_env();
    struct gpc_credit_plan plan;
    char why[256];
    /* 252 nodes x 1 credit fill whole buffers exactly: nothing left over */
    CHECK_EQ(gpc_credit_plan(252, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.credits_per_node, 1);
    CHECK(plan.banked_credits >= GPC_MIN_CREDITS);
    CHECK_EQ(gpc_credit_limits(&plan).ask_reserve, CREDIT_MIN);
    clear_env();
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
    CHECK_STR_CONTAINS(why, "GASNET_PORTAL_AMRECV_SPACE=65536 gives 180 credits for 64 nodes; "
                       "at least 256 are needed");
    /* Peers below the minimum need theirs and a bank of a full Medium. */
    setenv("GASNET_PORTAL_CRED_PER_NODE", "2", 1);
    load_env();
    CHECK_EQ(gpc_credit_plan(64, &plan, why, sizeof why), GASNET_OK);
    CHECK_EQ(plan.banked_credits, 180 - 2 * 64);
    CHECK_EQ(gpc_credit_plan(89, &plan, why, sizeof why), GASNET_ERR_BAD_ARG);
    CHECK_STR_CONTAINS(why, "at least 182 are needed");

    setenv("GASNET_PORTAL_CRED_PER_NODE", "40", 1);
    load_env();
    CHECK_EQ(gpc_credit_plan(8, &plan, why, sizeof why), GASNET_ERR_BAD_ARG);
    CHECK_STR_CONTAINS(why, "fewer than GASNET_PORTAL_CRED_PER_NODE=40");
}

/* ---- the revoke protocol, with a clock and a SYS queue of the test's own ---- */

static uint64_t fake_now_ns;
static uint64_t fake_clock(void) { return fake_now_ns; }

struct sys_msg { uint32_t to; enum credit_sys type; };
static struct sys_msg sys_log[64];
static unsigned sys_count;

static void record_sys(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                       int end_of_epoch)
{
    (void)context, (void)credits, (void)end_of_epoch;
    if (sys_count < sizeof sys_log / sizeof sys_log[0])
        sys_log[sys_count++] = (struct sys_msg){ to, type };
}

static unsigned revokes_to(uint32_t peer)
{
    unsigned n = 0;
    for (unsigned i = 0; i < sys_count; i++)
        n += sys_log[i].to == peer && sys_log[i].type == CREDIT_SYS_REVOKE;
    return n;
}

/* Node 0 of 4 lends 8 credits to each peer; its bank is always "low", so every
 * request it receives scavenges, revoking from all three peers at once. */
static void lender_init(struct credit_node *node, struct credit_conn *conn)
{
    struct credit_limits limits = { .flow_control = 1, .dynamic = 1, .lender_limit = 64,
                                    .revoke_limit = 8, .num_scavenge = 3, .max_per_node = 64,
                                    .epoch_duration = 1000000, .low_bank = 1000,
                                    .revoke_timeout_ns = 1000 };
    sys_count = 0;
    fake_now_ns = 5000;
    credit_node_init(node, 0, 4, conn, 8, 16, &limits, record_sys, NULL);
    node->clock_ns = fake_clock;
}

static void test_lost_revoke_answer_does_not_stop_scavenging(void)
{
    struct credit_node node;
    struct credit_conn conn[4];
    lender_init(&node, conn);
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    CHECK_EQ(sys_count, 3);
    CHECK_EQ(gp_count_get(&node.revokes_in_flight), 3);
    /* Peers 2 and 3 answer; peer 1's answer is lost. */
    credit_return_arrived(&node, 2, 2, 0);
    credit_return_arrived(&node, 3, 2, 0);
    CHECK_EQ(gp_count_get(&node.revokes_in_flight), 1);
    /* Within the limit the lender waits for it: no new revokes. */
    fake_now_ns += 999;
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    CHECK_EQ(sys_count, 3);
    /* Past it, it stops waiting and scavenges again -- but never asks peer 1
     * twice: its answer may still be on the way. */
    fake_now_ns += 1;
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    CHECK_EQ(node.stats.revokes_overdue, 1);
    CHECK_EQ(revokes_to(1), 1);
    CHECK_EQ(revokes_to(2), 2);
    CHECK_EQ(revokes_to(3), 2);
    CHECK_EQ(gp_count_get(&node.revokes_in_flight), 2);
    CHECK(conn[1].flags & CREDIT_REVOKE_OVERDUE);
    /* The late answer is banked, without counting it twice. */
    int64_t bank = gp_count_get(&node.banked);
    credit_return_arrived(&node, 1, 3, 0);
    CHECK_EQ(gp_count_get(&node.banked), bank + 3);
    CHECK_EQ(conn[1].loan_credits, 5);
    CHECK_EQ(gp_count_get(&node.revokes_in_flight), 2);
    CHECK(!(conn[1].flags & (CREDIT_REVOKE_OVERDUE | CREDIT_SYS_MSG_INFLIGHT)));
    credit_return_arrived(&node, 2, 0, 0);
    credit_return_arrived(&node, 3, 0, 0);
    CHECK_EQ(gp_count_get(&node.revokes_in_flight), 0);
}

static void test_answered_revokes_are_not_overdue(void)
{
    struct credit_node node;
    struct credit_conn conn[4];
    lender_init(&node, conn);
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    for (uint32_t peer = 1; peer < 4; peer++)
        credit_return_arrived(&node, peer, 1, 0);
    fake_now_ns += 100000; /* long after: nothing was in flight to give up on */
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    CHECK_EQ(node.stats.revokes_overdue, 0);
    CHECK_EQ(sys_count, 6);
    CHECK_EQ(gp_count_get(&node.revokes_in_flight), 3);
}

/* A lender revokes from borrowers it has not heard from lately, never from one
 * still sending to it (its credits are in use), and a walk that finds only
 * busy borrowers is not repeated until the epoch ends. */
static void test_busy_borrowers_are_not_revoked(void)
{
    struct credit_node node;
    struct credit_conn conn[4];
    struct credit_limits limits = { .flow_control = 1, .dynamic = 1, .lender_limit = 64,
                                    .revoke_limit = 8, .num_scavenge = 3, .max_per_node = 64,
                                    .epoch_duration = 1000000, .low_bank = 1000,
                                    .revoke_timeout_ns = 1000, .idle_after = 512 };
    sys_count = 0;
    fake_now_ns = 5000;
    credit_node_init(&node, 0, 4, conn, 8, 16, &limits, record_sys, NULL);
    node.clock_ns = fake_clock;
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    CHECK_EQ(sys_count, 2);
    CHECK_EQ(revokes_to(1), 0);
    CHECK_EQ(revokes_to(2), 1);
    CHECK_EQ(revokes_to(3), 1);
    credit_return_arrived(&node, 2, 0, 0);
    credit_return_arrived(&node, 3, 0, 0);
    /* Peer 1 busy, 2 and 3 answered with zero this epoch: nobody to ask. */
    credit_request_arrived(&node, 1, credit_byte(0, 0, 1));
    CHECK_EQ(sys_count, 2);
    CHECK_EQ(node.scavenge_dry, 1);
    /* Peer 2 keeps sending; peer 1 goes quiet for more than idle_after requests. */
    for (int i = 0; i < 1500; i++) /* idle_after, in seen_at's units of 256, and one more */
        credit_request_arrived(&node, 2, credit_byte(0, 0, 1));
    CHECK_EQ(sys_count, 2);
    /* The epoch ends: quiet peer 1 and silent peer 3 are asked, busy peer 2 is not. */
    node.limits.epoch_duration = 1;
    credit_request_arrived(&node, 2, credit_byte(0, 0, 1));
    CHECK_EQ(node.stats.epochs, 1);
    CHECK_EQ(revokes_to(1), 1);
    CHECK_EQ(revokes_to(2), 1);
    CHECK_EQ(revokes_to(3), 2);
}

static void test_default_revoke_timeout(void)
{
    struct credit_node node;
    struct credit_conn conn[4];
    struct credit_limits limits = { .flow_control = 1, .dynamic = 1 };
    credit_node_init(&node, 0, 4, conn, 8, 16, &limits, record_sys, NULL);
    CHECK_EQ(node.limits.revoke_timeout_ns, CREDIT_REVOKE_TIMEOUT_NS);
}

static const struct gp_test tests[] = {
    { "lost_revoke_answer_does_not_stop_scavenging",
      test_lost_revoke_answer_does_not_stop_scavenging, 0 },
    { "answered_revokes_are_not_overdue", test_answered_revokes_are_not_overdue, 0 },
    { "default_revoke_timeout", test_default_revoke_timeout, 0 },
    { "busy_borrowers_are_not_revoked", test_busy_borrowers_are_not_revoked, 0 },
    { "table_rows_and_interpolation", test_table_rows_and_interpolation, 0 },
    { "default_plan_follows_seed_formula", test_default_plan_follows_seed_formula, 0 },
    { "large_jobs_fit_the_memory_targets", test_large_jobs_fit_the_memory_targets, 0 },
    { "below_minimum_keeps_a_bank", test_below_minimum_keeps_a_bank, 0 },
    { "overrides", test_overrides, 0 },
    { "small_space", test_small_space, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "credits", tests);
}
