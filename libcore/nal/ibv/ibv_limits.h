/*
 * The ibv rows of the configuration table meet the hardware.
 *
 * gp_config_load checks each variable against its own range; seed 003 also
 * has rules that need the device and the job: "0 means the HCA's maximum",
 * "trimmed to GASNET_NETWORKDEPTH_PP", "the lesser of GASNET_BBUF_COUNT and
 * GASNET_NETWORKDEPTH_TOTAL", and so on.  The ibv transport fills in a
 * gp_ibv_caps once its HCAs are open and calls gp_config_ibv_limits for the
 * values to use.  ibv_cfg and firehose_cfg themselves keep what the user
 * asked for.
 *
 * A value the user set that has to be trimmed draws a warning naming the
 * variable, the value and the reason; a default that is trimmed is logged
 * at debug level, since the defaults are meant to adapt.
 */
#ifndef GP_NAL_IBV_LIMITS_H
#define GP_NAL_IBV_LIMITS_H

#include <stdint.h>

#include "nal/firehose_config.h"
#include "nal/ibv/ibv_config.h"

/* What the transport learned from the job and the open HCAs (the least over them). */
struct gp_ibv_caps {
    uint64_t nodes;             /* job size */
    uint64_t ports;             /* ports opened, after GASNET_IBV_PORTS */
    uint64_t max_qp_wr;         /* ibv_device_attr.max_qp_wr */
    uint64_t max_cqe;           /* ibv_device_attr.max_cqe */
    uint64_t max_qp_rd_atom;    /* ibv_device_attr.max_qp_rd_atom */
    uint64_t max_inline;        /* the max_inline_data a test QP was granted */
    uint64_t max_mr_size;       /* ibv_device_attr.max_mr_size */
    uint64_t pinnable_bytes;    /* GASNET_PHYSMEM_MAX or the probe's result; 0: unknown */
    uint64_t pinned_elsewhere;  /* segment and bounce buffers, pinned outside firehose */
};

/* The values to use.  Each follows the seed 003 rule named next to it. */
struct gp_ibv_limits {
    int64_t num_qps;              /* 0 -> ports opened (at least 1) */
    int64_t qp_rd_atom;           /* 0 -> max_qp_rd_atom; else at most it */
    int64_t inlinesend_limit;     /* -1 -> max_inline; else at most it; 0: no inline sends */
    int64_t networkdepth_pp;      /* at most max_qp_wr */
    int64_t networkdepth_total;   /* 0 -> max_cqe; at most max_cqe and pp * (nodes - 1):
                                     the send completion queue's depth */
    int64_t am_credits_pp;        /* at most networkdepth_pp */
    int64_t am_credits_total;     /* unset -> MAX(1024, nodes); 0 -> the most usable; at most
                                     networkdepth_total and am_credits_pp * (nodes - 1) */
    int64_t am_credits_slack;     /* at most am_credits_pp - 1, so banking can't deadlock */
    int64_t bbuf_count;           /* 0 -> networkdepth_total; at most networkdepth_total */
    uint64_t pin_maxsz;           /* 0 -> max_mr_size rounded down to a power of two */
    int amrdma;                   /* AMRDMA on: limit, max peers and cycle all non-zero */
    uint64_t fh_region_bytes;     /* GASNET_FIREHOSE_MAXREGION_SIZE */
    uint64_t fh_victim_bytes;     /* MAXVICTIM_M, at most the pinnable memory left */
    uint64_t fh_victim_regions;   /* MAXVICTIM_R, at most fh_victim_bytes / region;
                                     0: no firehose (GASNET_USE_FIREHOSE=0 or no room) */
    uint64_t fh_main_bytes;       /* GASNET_FIREHOSE_M */
    uint64_t fh_main_regions;     /* GASNET_FIREHOSE_R, at most fh_main_bytes / region */
};

void gp_config_ibv_limits(const struct ibv_config *cfg, const struct firehose_config *fh,
                          const struct gp_ibv_caps *caps, struct gp_ibv_limits *out);

#endif
