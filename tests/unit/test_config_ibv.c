/*
 * gp_config_ibv_limits: the seed 003 rules that need the device and the
 * job, over a made-up HCA; warnings for trimmed values the user set.
 */
#include "../harness/test.h"

#include <unistd.h>

#include <gasnet.h>

#include "config/config.h"
#include "nal/ibv/ibv_limits.h"

static void clear_our_environment(void)
{
    char *names[512];
    size_t count = 0;
    for (char **entry = environ; *entry != NULL && count < 512; entry++) {
        if (strncmp(*entry, "GASNET_", 7) != 0 && strncmp(*entry, "GP_", 3) != 0)
            continue;
        names[count] = strndup(*entry, strcspn(*entry, "="));
        CHECK(names[count] != NULL);
        count++;
    }
    for (size_t i = 0; i < count; i++) {
        CHECK_EQ(unsetenv(names[i]), 0);
        free(names[i]);
    }
}

static void load_with(const char *const *pairs)
{
    char err[512] = "";
    clear_our_environment();
    for (; pairs != NULL && pairs[0] != NULL; pairs += 2)
        CHECK_EQ(setenv(pairs[0], pairs[1], 1), 0);
    if (gp_config_load(err, sizeof err) != GASNET_OK)
        gp_test_fail(__FILE__, __LINE__, "load failed: %s", err);
}

/* An HCA like a ConnectX: plenty of everything. */
static struct gp_ibv_caps big_hca(uint64_t nodes)
{
    struct gp_ibv_caps caps = {
        .nodes = nodes, .ports = 2, .max_qp_wr = 32768, .max_cqe = 4194303,
        .max_qp_rd_atom = 16, .max_inline = 220, .max_mr_size = UINT64_MAX,
        .pinnable_bytes = 0, .pinned_elsewhere = 0,
    };
    return caps;
}

static struct gp_ibv_limits limits_for(const struct gp_ibv_caps *caps)
{
    struct gp_ibv_limits out;
    memset(&out, 0xa5, sizeof out);
    gp_config_ibv_limits(&ibv_cfg, &firehose_cfg, caps, &out);
    return out;
}

static void test_defaults_big_job(void)
{
    struct gp_ibv_caps caps = big_hca(2000);
    load_with(NULL);
    struct gp_ibv_limits l = limits_for(&caps);
    CHECK_EQ(l.num_qps, 2);
    CHECK_EQ(l.qp_rd_atom, 16);
    CHECK_EQ(l.inlinesend_limit, 220);
    CHECK_EQ(l.networkdepth_pp, 64);
    CHECK_EQ(l.networkdepth_total, 64 * 1999);
    CHECK_EQ(l.am_credits_pp, 32);
    CHECK_EQ(l.am_credits_total, 2000);          /* MAX(1024, nodes) */
    CHECK_EQ(l.am_credits_slack, 1);
    CHECK_EQ(l.bbuf_count, 1024);
    CHECK(l.pin_maxsz == (uint64_t)1 << 63);
    CHECK_EQ(l.amrdma, 1);
    CHECK_EQ(l.fh_region_bytes, 128 * 1024);
    CHECK_EQ(l.fh_victim_bytes, 128ull << 20);
    CHECK_EQ(l.fh_victim_regions, 1024);
    CHECK_EQ(l.fh_main_bytes, 0);
    CHECK_EQ(l.fh_main_regions, 0);
}

static void test_defaults_small_job(void)
{
    struct gp_ibv_caps caps = big_hca(2);
    load_with(NULL);
    struct gp_ibv_limits l = limits_for(&caps);
    CHECK_EQ(l.networkdepth_total, 64);          /* pp * (nodes - 1) */
    CHECK_EQ(l.am_credits_total, 32);            /* 1024, trimmed to pp * (nodes - 1) */
    CHECK_EQ(l.bbuf_count, 64);                  /* the lesser of 1024 and the total depth */
    caps = big_hca(1);
    l = limits_for(&caps);
    CHECK_EQ(l.networkdepth_total, 64);
    CHECK_EQ(l.am_credits_total, 32);
}

static void test_zero_means_automatic(void)
{
    static const char *const env[] = {
        "GASNET_NUM_QPS", "3", "GASNET_NETWORKDEPTH_TOTAL", "0", "GASNET_AM_CREDITS_TOTAL", "0",
        "GASNET_BBUF_COUNT", "0", "GASNET_INLINESEND_LIMIT", "0", NULL,
    };
    struct gp_ibv_caps caps = big_hca(100);
    caps.max_cqe = 1000;
    load_with(env);
    struct gp_ibv_limits l = limits_for(&caps);
    CHECK_EQ(l.num_qps, 3);
    CHECK_EQ(l.networkdepth_total, 1000);        /* max_cqe < 64 * 99 */
    CHECK_EQ(l.am_credits_total, 1000);          /* 32 * 99, trimmed to the total */
    CHECK_EQ(l.bbuf_count, 1000);
    CHECK_EQ(l.inlinesend_limit, 0);             /* 0 stays off */
}

static void test_trims_warn(void)
{
    static const char *const env[] = {
        "GASNET_QP_RD_ATOM", "32", "GASNET_INLINESEND_LIMIT", "1000",
        "GASNET_NETWORKDEPTH_PP", "500", "GASNET_AM_CREDITS_PP", "400",
        "GASNET_AM_CREDITS_SLACK", "255", "GASNET_PIN_MAXSZ", "1G", NULL,
    };
    struct gp_ibv_caps caps = big_hca(4);
    char output[4096];
    FILE *capture = tmpfile();
    int saved = dup(2);
    caps.max_qp_wr = 256;
    caps.max_mr_size = (3ull << 28);             /* 768M: pinned in 512M pieces */
    load_with(env);
    CHECK(capture != NULL && saved >= 0);
    fflush(stderr);
    CHECK(dup2(fileno(capture), 2) >= 0);
    struct gp_ibv_limits l = limits_for(&caps);
    fflush(stderr);
    CHECK(dup2(saved, 2) >= 0);
    close(saved);
    rewind(capture);
    output[fread(output, 1, sizeof output - 1, capture)] = '\0';
    fclose(capture);
    CHECK_EQ(l.qp_rd_atom, 16);
    CHECK_EQ(l.inlinesend_limit, 220);
    CHECK_EQ(l.networkdepth_pp, 256);
    CHECK_EQ(l.am_credits_pp, 256);
    CHECK_EQ(l.am_credits_slack, 255);           /* below am_credits_pp: kept */
    CHECK_EQ(l.pin_maxsz, 512ull << 20);
    CHECK_STR_CONTAINS(output, "GASNET_QP_RD_ATOM=32 trimmed to 16: the HCA's max_qp_rd_atom");
    CHECK_STR_CONTAINS(output, "GASNET_INLINESEND_LIMIT=1000 trimmed to 220");
    CHECK_STR_CONTAINS(output, "GASNET_NETWORKDEPTH_PP=500 trimmed to 256: the HCA's max_qp_wr");
    CHECK_STR_CONTAINS(output, "GASNET_AM_CREDITS_PP=400 trimmed to 256: "
                               "GASNET_NETWORKDEPTH_PP");
    CHECK_STR_CONTAINS(output, "GASNET_PIN_MAXSZ=1073741824 trimmed to 536870912 bytes");
    /* Defaults adapt without a word at the default log level. */
    CHECK(strstr(output, "AM_CREDITS_TOTAL") == NULL);
    CHECK(strstr(output, "NETWORKDEPTH_TOTAL") == NULL);
}

static void test_slack_below_credits(void)
{
    static const char *const env[] = {
        "GASNET_AM_CREDITS_PP", "4", "GASNET_AM_CREDITS_SLACK", "10", NULL,
    };
    struct gp_ibv_caps caps = big_hca(8);
    load_with(env);
    struct gp_ibv_limits l = limits_for(&caps);
    CHECK_EQ(l.am_credits_pp, 4);
    CHECK_EQ(l.am_credits_slack, 3);
}

static void test_amrdma_switches(void)
{
    static const char *const names[] = {
        "GASNET_AMRDMA_LIMIT", "GASNET_AMRDMA_MAX_PEERS", "GASNET_AMRDMA_CYCLE",
    };
    struct gp_ibv_caps caps = big_hca(8);
    for (size_t i = 0; i < 3; i++) {
        const char *env[] = { names[i], "0", NULL };
        load_with(env);
        CHECK_EQ(limits_for(&caps).amrdma, 0);
    }
}

static void test_firehose_pools(void)
{
    static const char *const env[] = {
        "GASNET_FIREHOSE_M", "64", "GASNET_FIREHOSE_R", "1000",
        "GASNET_FIREHOSE_MAXVICTIM_M", "256", NULL,
    };
    struct gp_ibv_caps caps = big_hca(8);
    caps.pinnable_bytes = 1ull << 30;
    caps.pinned_elsewhere = 768ull << 20;       /* 1G - 768M - 64M leaves 192M */
    load_with(env);
    struct gp_ibv_limits l = limits_for(&caps);
    CHECK_EQ(l.fh_main_bytes, 64ull << 20);
    CHECK_EQ(l.fh_main_regions, 512);            /* R truncated to M / region */
    CHECK_EQ(l.fh_victim_bytes, 192ull << 20);
    CHECK_EQ(l.fh_victim_regions, 1024);         /* 1024 regions of 128K fit in 192M */
    /* No room at all: no firehose, with a warning. */
    caps.pinned_elsewhere = 1ull << 30;
    l = limits_for(&caps);
    CHECK_EQ(l.fh_victim_bytes, 0);
    CHECK_EQ(l.fh_victim_regions, 0);
    /* Turned off: no victim pool. */
    const char *off[] = { "GASNET_USE_FIREHOSE", "0", NULL };
    load_with(off);
    caps = big_hca(8);
    l = limits_for(&caps);
    CHECK_EQ(l.fh_victim_regions, 0);
}

static const struct gp_test tests[] = {
    { "defaults_big_job", test_defaults_big_job, 0 },
    { "defaults_small_job", test_defaults_small_job, 0 },
    { "zero_means_automatic", test_zero_means_automatic, 0 },
    { "trims_warn", test_trims_warn, 0 },
    { "slack_below_credits", test_slack_below_credits, 0 },
    { "amrdma_switches", test_amrdma_switches, 0 },
    { "firehose_pools", test_firehose_pools, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "config_ibv", tests);
}
