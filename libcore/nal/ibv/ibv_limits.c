/*
 * The seed 003 rules that tie ibv variables to the device and the job (see
 * config_ibv.h).  Every rule is a "0 means automatic" or an upper bound, in
 * the order the seed builds them: network depth first, the AM credits
 * inside it, bounce buffers inside the total depth, and firehose inside
 * the memory the rest leaves pinnable.
 */
#include "nal/ibv/ibv_limits.h"

#include "config/config.h"
#include "util/log.h"

static int user_set(const char *name)
{
    return gp_config_source(gp_config_find(name)) == GP_CFG_FROM_ENV;
}

static int64_t capped(uint64_t value)
{
    return value > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)value;
}

/* value, or most when larger: a warning when the user chose value, else a debug line. */
static int64_t trim(const char *name, int64_t value, int64_t most, const char *why)
{
    if (value <= most)
        return value;
    if (user_set(name))
        gp_warn("config", "%s=%lld trimmed to %lld: %s", name, (long long)value,
                (long long)most, why);
    else
        gp_debug("config", "%s: %lld trimmed to %lld: %s", name, (long long)value,
                 (long long)most, why);
    return most;
}

static uint64_t trim_bytes(const char *name, uint64_t value, uint64_t most, const char *why)
{
    if (value <= most)
        return value;
    if (user_set(name))
        gp_warn("config", "%s=%llu trimmed to %llu bytes: %s", name, (unsigned long long)value,
                (unsigned long long)most, why);
    else
        gp_debug("config", "%s: %llu trimmed to %llu bytes: %s", name,
                 (unsigned long long)value, (unsigned long long)most, why);
    return most;
}

static uint64_t floor_power_of_two(uint64_t value)
{
    uint64_t power = 1;
    if (value == 0)
        return 0;
    while (power <= value / 2)
        power *= 2;
    return power;
}

static void queue_limits(const struct ibv_config *cfg, const struct gp_ibv_caps *caps,
                         struct gp_ibv_limits *out)
{
    int64_t peers = caps->nodes > 1 ? capped(caps->nodes - 1) : 1;
    int64_t max_cqe = capped(caps->max_cqe), total;
    out->num_qps = cfg->num_qps != 0 ? cfg->num_qps : (caps->ports ? capped(caps->ports) : 1);
    out->qp_rd_atom = cfg->qp_rd_atom == 0 ? capped(caps->max_qp_rd_atom)
        : trim("GASNET_QP_RD_ATOM", cfg->qp_rd_atom, capped(caps->max_qp_rd_atom),
               "the HCA's max_qp_rd_atom");
    out->inlinesend_limit = cfg->inlinesend_limit < 0 ? capped(caps->max_inline)
        : trim("GASNET_INLINESEND_LIMIT", cfg->inlinesend_limit, capped(caps->max_inline),
               "the HCA's largest inline send");
    out->networkdepth_pp = trim("GASNET_NETWORKDEPTH_PP", cfg->networkdepth_pp,
                                capped(caps->max_qp_wr), "the HCA's max_qp_wr");
    total = cfg->networkdepth_total == 0 ? max_cqe
        : trim("GASNET_NETWORKDEPTH_TOTAL", cfg->networkdepth_total, max_cqe,
               "the HCA's max_cqe");
    /* The seed's send CQ depth: no use for more than every peer's queue holds. */
    if (total > out->networkdepth_pp * peers)
        total = out->networkdepth_pp * peers;
    out->networkdepth_total = total;
}

static void credit_limits(const struct ibv_config *cfg, const struct gp_ibv_caps *caps,
                          struct gp_ibv_limits *out)
{
    int64_t peers = caps->nodes > 1 ? capped(caps->nodes - 1) : 1;
    int64_t nodes = capped(caps->nodes), total;
    out->am_credits_pp = trim("GASNET_AM_CREDITS_PP", cfg->am_credits_pp, out->networkdepth_pp,
                              "GASNET_NETWORKDEPTH_PP");
    if (cfg->am_credits_total == 0) {
        /* Automatic: the most usable, so nothing the user chose is trimmed. */
        total = out->am_credits_pp * peers;
        if (total > out->networkdepth_total)
            total = out->networkdepth_total;
    } else {
        total = cfg->am_credits_total < 0 ? (nodes > 1024 ? nodes : 1024)
                                          : cfg->am_credits_total;
        total = trim("GASNET_AM_CREDITS_TOTAL", total, out->networkdepth_total,
                     "GASNET_NETWORKDEPTH_TOTAL");
    }
    if (total > out->am_credits_pp * peers)
        total = out->am_credits_pp * peers;   /* more could never be in flight */
    out->am_credits_total = total;
    /* Seed 003: reduced silently, so a requester never waits on credits banked at its peer. */
    out->am_credits_slack = cfg->am_credits_slack < out->am_credits_pp
                                ? cfg->am_credits_slack : out->am_credits_pp - 1;
    out->bbuf_count = cfg->bbuf_count == 0 ? out->networkdepth_total
        : (cfg->bbuf_count < out->networkdepth_total ? cfg->bbuf_count
                                                      : out->networkdepth_total);
    out->amrdma = cfg->amrdma_limit != 0 && cfg->amrdma_max_peers != 0 && cfg->amrdma_cycle != 0;
}

static void firehose_limits(const struct firehose_config *cfg, const struct gp_ibv_caps *caps,
                            struct gp_ibv_limits *out)
{
    uint64_t region = cfg->firehose_maxregion_size, victim = cfg->firehose_maxvictim_m;
    out->fh_region_bytes = region;
    out->fh_main_bytes = cfg->firehose_m;
    out->fh_main_regions = (uint64_t)trim("GASNET_FIREHOSE_R", cfg->firehose_r,
                                          capped(cfg->firehose_m / region),
                                          "GASNET_FIREHOSE_M / GASNET_FIREHOSE_MAXREGION_SIZE");
    if (!cfg->use_firehose) {
        out->fh_victim_bytes = out->fh_victim_regions = 0;
        return;
    }
    if (caps->pinnable_bytes != 0) {
        uint64_t taken = caps->pinned_elsewhere + cfg->firehose_m;
        uint64_t left = caps->pinnable_bytes > taken ? caps->pinnable_bytes - taken : 0;
        victim = trim_bytes("GASNET_FIREHOSE_MAXVICTIM_M", victim, left,
                            "the pinnable memory left after the segment, the bounce buffers "
                            "and GASNET_FIREHOSE_M");
    }
    out->fh_victim_bytes = victim;
    out->fh_victim_regions = (uint64_t)trim("GASNET_FIREHOSE_MAXVICTIM_R",
                                            cfg->firehose_maxvictim_r, capped(victim / region),
                                            "GASNET_FIREHOSE_MAXVICTIM_M / "
                                            "GASNET_FIREHOSE_MAXREGION_SIZE");
    if (out->fh_victim_regions == 0)
        gp_warn("config", "no pinnable memory left for firehose (%llu bytes for regions of "
                "%llu): out-of-segment transfers go through bounce buffers",
                (unsigned long long)victim, (unsigned long long)region);
}

void gp_config_ibv_limits(const struct ibv_config *cfg, const struct firehose_config *fh,
                          const struct gp_ibv_caps *caps, struct gp_ibv_limits *out)
{
    uint64_t device_pin = floor_power_of_two(caps->max_mr_size);
    queue_limits(cfg, caps, out);
    credit_limits(cfg, caps, out);
    out->pin_maxsz = cfg->pin_maxsz == 0 ? device_pin
        : trim_bytes("GASNET_PIN_MAXSZ", cfg->pin_maxsz, device_pin,
                     "the HCA's max_mr_size, as a power of two");
    firehose_limits(fh, caps, out);
}
