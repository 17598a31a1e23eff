/*
 * Seed 003's runtime variables as the ibv transport uses them.  The table
 * in conduit/config.c parses and validates each one; the rules that tie
 * several together (the seed's "trimmed to") are applied here, once.
 */
#include <string.h>

#include "conduit/config.h"
#include "nal/ibv.h"

static int at_most(int64_t value, int64_t limit)
{
    return (int)(value < limit ? value : limit);
}

int ibv_settings_load(struct ibv_settings *out, int nodes)
{
    memset(out, 0, sizeof *out);
    out->ports_text = gp_cfg.ibv_ports;
    out->ports_var = gp_config_source(gp_config_find("GASNET_IBV_PORTS")) == GP_CFG_FROM_ENV
                         ? "GASNET_IBV_PORTS" : "GASNET_IBV_PORTS (or GASNET_VAPI_PORTS)";
    out->num_qps = (int)gp_cfg.num_qps;
    out->qp_timeout = (int)gp_cfg.qp_timeout;
    out->qp_retry_count = (int)gp_cfg.qp_retry_count;
    out->qp_rd_atom = (int)gp_cfg.qp_rd_atom;
    out->inline_limit = (int)gp_cfg.inlinesend_limit;
    out->nonbulkput_bounce_limit = gp_cfg.nonbulkput_bounce_limit;
    out->networkdepth_pp = (int)gp_cfg.networkdepth_pp;
    int peers = nodes > 1 ? nodes - 1 : 1;
    /* seed 003: the total defaults to what the per-peer depth asks for */
    int64_t total = gp_cfg.networkdepth_total > 0 ? gp_cfg.networkdepth_total
                                                  : (int64_t)out->networkdepth_pp * peers;
    out->networkdepth_total = at_most(total, 1 << 20);
    /* "trimmed to GASNET_NETWORKDEPTH_PP if larger" */
    out->am_credits_pp = at_most(gp_cfg.am_credits_pp, out->networkdepth_pp);
    int64_t bbufs = gp_cfg.bbuf_count > 0 ? gp_cfg.bbuf_count : out->networkdepth_total;
    /* "the lesser of GASNET_BBUF_COUNT and GASNET_NETWORKDEPTH_TOTAL" -- but never so few
     * that one message per peer cannot be in flight */
    out->bbuf_count = at_most(bbufs, out->networkdepth_total);
    if (out->bbuf_count < 16)
        out->bbuf_count = 16;
    out->pin_maxsz = gp_cfg.pin_maxsz;
    out->physmem_max = gp_cfg.physmem_max;
    out->gid_index = (int)gp_cfg.ibv_gid_index;
    out->use_firehose = gp_cfg.use_firehose;
    out->firehose.max_region_bytes = gp_cfg.firehose_maxregion_size;
    out->firehose.max_victim_regions = (uint64_t)gp_cfg.firehose_maxvictim_r;
    out->firehose.max_victim_bytes = gp_cfg.firehose_maxvictim_m
                                         ? gp_cfg.firehose_maxvictim_m
                                         : (uint64_t)gp_cfg.firehose_maxvictim_r *
                                               gp_cfg.firehose_maxregion_size;
    out->firehose.verbose = gp_cfg.firehose_verbose;
    return 0;
}
