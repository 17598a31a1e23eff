/*
 * Seed 003's runtime variables as the ibv transport uses them.  Its rows
 * in the configuration table (ibv_config.c) parse and validate each one; the rules that tie
 * them to each other, to the job and to the HCA (the seed's "trimmed to",
 * "0 means the device's maximum") are gp_config_ibv_limits, applied here
 * once the devices are open.
 */
#include <string.h>
#include <sys/resource.h>

#include "config/config.h"
#include "nal/firehose_config.h"
#include "nal/ibv/ibv_config.h"
#include "nal/ibv/ibv_limits.h"
#include "nal/ibv/ibv.h"
#include "util/log.h"

/* The largest inline send a QP is asked for; QP creation halves it until the device agrees. */
#define IBV_INLINE_PROBE 1024

int ibv_settings_load(struct ibv_settings *out)
{
    memset(out, 0, sizeof *out);
    out->ports_text = ibv_cfg.ibv_ports;
    out->ports_var = gp_config_source(gp_config_find("GASNET_IBV_PORTS")) == GP_CFG_FROM_ENV
                         ? "GASNET_IBV_PORTS" : "GASNET_IBV_PORTS (or GASNET_VAPI_PORTS)";
    out->num_qps = (int)ibv_cfg.num_qps;
    out->qp_timeout = (int)ibv_cfg.qp_timeout;
    out->qp_retry_count = (int)ibv_cfg.qp_retry_count;
    out->gid_index = (int)ibv_cfg.ibv_gid_index;
    out->physmem_max = ibv_cfg.physmem_max;
    out->use_firehose = firehose_cfg.use_firehose;
    return 0;
}

/*
 * Pinnable memory: GASNET_PHYSMEM_MAX when set (trusted as is with
 * GASNET_PHYSMEM_NOPROBE=1), bounded by the locked-memory limit otherwise;
 * 0 when nothing says (unlimited, or privileged).
 */
static uint64_t pinnable_bytes(void)
{
    uint64_t physmem_max = ibv_cfg.physmem_max;
    if (physmem_max && ibv_cfg.physmem_noprobe)
        return physmem_max;
    struct rlimit lim;
    uint64_t memlock = 0;
    if (getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
        memlock = (uint64_t)lim.rlim_cur;
    if (physmem_max && memlock)
        return physmem_max < memlock ? physmem_max : memlock;
    return physmem_max ? physmem_max : memlock;
}

int ibv_settings_apply_caps(struct ibv_state *st, int quiet)
{
    struct gp_ibv_caps caps = { .nodes = (uint64_t)st->ni->size, .ports = st->nports,
                                .max_inline = IBV_INLINE_PROBE };
    for (unsigned h = 0; h < st->nhcas; h++) {
        const struct ibv_device_attr *attr = &st->hca[h].attr;
        uint64_t rd_atom = (uint64_t)(attr->max_qp_rd_atom < attr->max_qp_init_rd_atom
                                          ? attr->max_qp_rd_atom : attr->max_qp_init_rd_atom);
#define LEAST(field, value) caps.field = (h == 0 || (uint64_t)(value) < caps.field) ? (uint64_t)(value) : caps.field
        LEAST(max_qp_wr, attr->max_qp_wr);
        LEAST(max_cqe, attr->max_cqe);
        LEAST(max_qp_rd_atom, rd_atom);
        LEAST(max_mr_size, attr->max_mr_size);
#undef LEAST
    }
    caps.pinnable_bytes = pinnable_bytes();
    caps.pinned_elsewhere = st->ni->region_bytes;
    if (caps.pinnable_bytes && st->ni->region_bytes > caps.pinnable_bytes) {
        gp_log(quiet ? GP_LOG_DEBUG : GP_LOG_ERROR, "ibv",
               "the registered region (segment and buffers, %llu bytes) exceeds the "
                 "%llu bytes that may be pinned (%s): lower GASNET_MAX_SEGSIZE or raise %s",
                 (unsigned long long)st->ni->region_bytes,
                 (unsigned long long)caps.pinnable_bytes,
                 ibv_cfg.physmem_max ? "GASNET_PHYSMEM_MAX / ulimit -l" : "ulimit -l",
                 ibv_cfg.physmem_max ? "GASNET_PHYSMEM_MAX or ulimit -l" : "ulimit -l");
        return PTL_FAIL;
    }
    struct gp_ibv_limits lim;
    gp_config_ibv_limits(&ibv_cfg, &firehose_cfg, &caps, &lim);
    struct ibv_settings *set = &st->set;
    set->num_qps = (int)lim.num_qps;
    set->qp_rd_atom = (int)(lim.qp_rd_atom > 0 ? lim.qp_rd_atom : 1);
    set->inline_limit = ibv_cfg.inlinesend_limit < 0 ? -1 : (int)lim.inlinesend_limit;
    set->nonbulkput_bounce_limit = ibv_cfg.nonbulkput_bounce_limit;
    set->networkdepth_pp = (int)lim.networkdepth_pp;
    set->networkdepth_total = (int)lim.networkdepth_total;
    set->am_credits_pp = (int)lim.am_credits_pp;
    set->am_credits_total = (int)lim.am_credits_total;
    set->am_credits_slack = (int)lim.am_credits_slack;
    /* at least a few per peer pair in flight, whatever the depth computed */
    set->bbuf_count = (int)(lim.bbuf_count < 16 ? 16 : lim.bbuf_count);
    set->rbuf_count = (int)ibv_cfg.rbuf_count;
    for (unsigned h = 0; h < st->nhcas; h++) /* the SRQ lives on one HCA; the least is safe */
        if (st->hca[h].attr.max_srq_wr > 0 && set->rbuf_count > st->hca[h].attr.max_srq_wr) {
            gp_warn("config", "GASNET_RBUF_COUNT=%d trimmed to %d: the HCA's max_srq_wr",
                    set->rbuf_count, st->hca[h].attr.max_srq_wr);
            set->rbuf_count = st->hca[h].attr.max_srq_wr;
        }
    /* PIN_MAXSZ 0 is "the device's limit": one piece when the region fits in it */
    set->pin_maxsz = ibv_cfg.pin_maxsz ? lim.pin_maxsz
                                      : (lim.pin_maxsz >= st->ni->region_bytes ? 0 : lim.pin_maxsz);
    set->use_firehose = firehose_cfg.use_firehose && lim.fh_victim_regions > 0;
    set->firehose.max_region_bytes = lim.fh_region_bytes;
    set->firehose.max_victim_bytes = lim.fh_victim_bytes;
    set->firehose.max_victim_regions = lim.fh_victim_regions;
    set->firehose.verbose = firehose_cfg.firehose_verbose;
    set->firehose.drop_idle = !firehose_cfg.firehose_keep;
    return PTL_OK;
}
