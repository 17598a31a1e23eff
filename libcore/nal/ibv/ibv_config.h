/*
 * The ibv rows' values (nal/ibv/ibv_config.c), as the user gave them;
 * ibv_limits.c trims them to the device (struct gp_ibv_limits), and
 * ibv_settings.c makes them the transport's settings.
 */
#ifndef GP_NAL_IBV_CONFIG_H
#define GP_NAL_IBV_CONFIG_H

#include <stdint.h>

struct gp_cfg_group;

struct ibv_config {
    const char *ibv_ports;             /* GASNET_IBV_PORTS or GASNET_VAPI_PORTS; NULL: no filter */
    int64_t num_qps;                   /* 0: one QP per port used */
    int64_t qp_timeout;
    int64_t qp_retry_count;
    int64_t qp_rd_atom;                /* 0: the device's maximum */
    uint64_t physmem_max;              /* 0: probe */
    int     physmem_noprobe;
    int64_t inlinesend_limit;          /* -1: the device's maximum; 0: no inline sends */
    uint64_t nonbulkput_bounce_limit;  /* 0: no bounce buffers for non-bulk puts */
    int64_t networkdepth_pp;
    int64_t networkdepth_total;        /* 0: automatic; tcp reads it too (gp_config_int) */
    int64_t am_credits_pp;
    int64_t am_credits_total;          /* -1 while unset: MAX(1024, nodes); 0: automatic */
    int64_t am_credits_slack;
    int64_t bbuf_count;                /* 0: networkdepth_total */
    int64_t rbuf_count;                /* the shared receive queue's buffers, at most */
    uint64_t pin_maxsz;                /* 0: the device's limit; else a power of two */
    int64_t amrdma_limit;              /* 0: no AMRDMA */
    int64_t amrdma_depth;              /* a power of two, at most 32 */
    int64_t amrdma_max_peers;          /* 0: no AMRDMA */
    int64_t amrdma_cycle;              /* 0: no AMRDMA; else a power of two */
    int64_t ibv_gid_index;             /* GP_IBV_GID_INDEX; -1: choose automatically */
    int64_t ibv_fault_rkey;            /* GP_IBV_FAULT_RKEY: tests only; 0: never */
};

/* Valid after gp_config_load(), which commits it with every other group's values. */
extern struct ibv_config ibv_cfg;
extern const struct gp_cfg_group ibv_cfg_group;

#endif
