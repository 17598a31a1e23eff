/*
 * ibv_srq_size: the shared receive queue's buffers and the credits granted
 * to each peer, from the settings gp_config_ibv_limits gives for a job of
 * N nodes on a made-up HCA.  What must hold: the buffers never exceed
 * GASNET_RBUF_COUNT whatever N (the same at 10,000 and 20,000 nodes), a
 * small job registers no more than it can fill, and while the grant covers
 * every peer (up to 252 peers with the defaults) the requests the peers may
 * send never outnumber the buffers posted for them.
 */
#include "../harness/test.h"

#include <unistd.h>

#include <gasnet.h>

#include "config/config.h"
#include "nal/ibv/ibv.h"
#include "nal/ibv/ibv_limits.h"

static void load_with(const char *name, const char *value)
{
    char err[512] = "";
    for (char **entry = environ; *entry != NULL;) {
        if (strncmp(*entry, "GASNET_", 7) != 0 && strncmp(*entry, "GP_", 3) != 0) {
            entry++;
            continue;
        }
        char *var = strndup(*entry, strcspn(*entry, "="));
        CHECK(var != NULL);
        CHECK_EQ(unsetenv(var), 0); /* environ shifts: look at the same slot again */
        free(var);
    }
    if (name != NULL)
        CHECK_EQ(setenv(name, value, 1), 0);
    if (gp_config_load(err, sizeof err) != GASNET_OK)
        gp_test_fail(__FILE__, __LINE__, "load failed: %s", err);
}

/* The sizes a process of a job of `nodes` reaching every other node would use. */
static void size_for(struct ibv_state *st, uint64_t nodes)
{
    struct gp_ibv_caps caps = {
        .nodes = nodes, .ports = 1, .max_qp_wr = 16384, .max_cqe = 4194303,
        .max_qp_rd_atom = 16, .max_inline = 220, .max_mr_size = UINT64_MAX,
    };
    struct gp_ibv_limits lim;
    gp_config_ibv_limits(&ibv_cfg, &firehose_cfg, &caps, &lim);
    memset(st, 0, sizeof *st);
    st->nports = 1;
    st->set.rbuf_count = (int)ibv_cfg.rbuf_count;
    st->set.am_credits_pp = (int)lim.am_credits_pp;
    st->set.am_credits_total = (int)lim.am_credits_total;
    st->budget.cap = (unsigned)lim.networkdepth_total;
    st->reached = nodes - 1;
    ibv_srq_size(st);
    CHECK_EQ(st->rbuf_count, (size_t)st->srq_requests + st->srq_slack + st->answers_cap);
    CHECK(st->rbuf_count <= (size_t)ibv_cfg.rbuf_count);
}

static void test_small_job(void)
{
    struct ibv_state st;
    load_with(NULL, NULL);
    size_for(&st, 2);
    CHECK_EQ(st.request_credits, 32); /* GASNET_AM_CREDITS_PP, as with a queue of its own */
    CHECK_EQ(st.srq_requests, 32);
    CHECK_EQ(st.answers_cap, 32);
    CHECK_EQ(st.rbuf_count, 72);      /* not the 1024 allowed: no more than can be filled */
}

static void test_bounded_at_scale(void)
{
    struct ibv_state st;
    load_with(NULL, NULL);
    size_for(&st, 10000);
    CHECK_EQ(st.rbuf_count, 1024);
    CHECK_EQ(st.request_credits, 2);
    size_t at_10k = st.rbuf_count;
    size_for(&st, 20000);
    CHECK_EQ(st.rbuf_count, at_10k);
    CHECK_EQ(st.request_credits, 2);
    CHECK_EQ(st.answers_cap, 512);
    CHECK_EQ(st.srq_requests, 504);
    load_with("GASNET_RBUF_COUNT", "256");
    size_for(&st, 20000);
    CHECK_EQ(st.rbuf_count, 256);
}

/* The credit scheme's guarantee: every credit handed out has a posted buffer, up to 252 peers. */
static void test_grants_covered(void)
{
    struct ibv_state st;
    load_with(NULL, NULL);
    for (uint64_t nodes = 2; nodes <= 253; nodes++) {
        size_for(&st, nodes);
        CHECK((uint64_t)st.request_credits * (nodes - 1) <= st.srq_requests);
        CHECK(st.request_credits >= 2);
    }
    size_for(&st, 254); /* past it the HCA's RNR flow control holds the senders */
    CHECK((uint64_t)st.request_credits * 253 > st.srq_requests);
}

static void test_suite_cases(void)
{
    struct ibv_state st;
    load_with("GASNET_RBUF_COUNT", "64"); /* tests/ibv/suite.sh srq_bounded */
    size_for(&st, 8);
    CHECK_EQ(st.rbuf_count, 61);
    CHECK_EQ(st.request_credits, 3);
    load_with("GASNET_RBUF_COUNT", "16"); /* srq_rnr */
    size_for(&st, 4);
    CHECK_EQ(st.rbuf_count, 16);
    CHECK_EQ(st.request_credits, 2);
    CHECK_EQ(st.srq_requests, 4);
}

static const struct gp_test tests[] = {
    { "small_job", test_small_job, 0 },
    { "bounded_at_scale", test_bounded_at_scale, 0 },
    { "grants_covered", test_grants_covered, 0 },
    { "suite_cases", test_suite_cases, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "ibv_srq", tests);
}
