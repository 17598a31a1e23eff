/*
 * The firehose rows' values (nal/firehose_config.c), as the user gave them:
 * the ibv and ofi transports turn them into struct firehose_limits, trimmed
 * to what may be pinned.
 */
#ifndef GP_NAL_FIREHOSE_CONFIG_H
#define GP_NAL_FIREHOSE_CONFIG_H

#include <stdint.h>

struct gp_cfg_group;

struct firehose_config {
    int     use_firehose;
    uint64_t firehose_maxregion_size;
    int64_t firehose_maxvictim_r;
    uint64_t firehose_maxvictim_m;
    int     firehose_verbose;
    int     firehose_keep;             /* GP_FIREHOSE_KEEP: idle regions stay registered */
    uint64_t firehose_m;               /* 0: no main pool (segments are pinned at attach) */
    int64_t firehose_r;                /* 0 while unset: firehose_m / firehose_maxregion_size */
};

/* Valid after gp_config_load(), which commits it with every other group's values. */
extern struct firehose_config firehose_cfg;
extern const struct gp_cfg_group firehose_cfg_group;

#endif
