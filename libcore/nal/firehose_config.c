/*
 * The firehose rows (seed 000's "Firehose configuration", and gp's
 * GP_FIREHOSE_KEEP): the registration cache of nal/firehose.c, which the ibv
 * and ofi transports both use, so its rows are the transport layer's and
 * not either transport's.  Their transport stays "ibv": gp-env(7) lists
 * them in ibv's section, where seed 003 documents them.  Here too the rule
 * that sizes the pools from one another and the check that a region is
 * whole pages.
 *
 * Choice the seeds left open, recorded here next to the value:
 * GASNET_FIREHOSE_M has no main pool by default: gp pins each segment
 * whole at attach (GASNet's SEGMENT_FAST), so a set value only holds
 * pinnable memory back from the victim pool.
 */
#include "nal/firehose_config.h"

#include <unistd.h>

#include "config/rows.h"

#define FIREHOSE_FIELD(member) GP_CFG_FIELD_OF(struct firehose_config, member)

static const struct gp_cfg_row firehose_rows[] = {
    { .name = "GASNET_USE_FIREHOSE", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "ibv", .offset = FIREHOSE_FIELD(use_firehose),
      .doc = "cache registrations of out-of-segment memory; off means bounce buffers or "
             "uncached registration" },
    { .name = "GASNET_FIREHOSE_MAXREGION_SIZE", .type = GP_CFG_SIZE, .default_text = "128K",
      .min = 4 * GP_CFG_KIB, .max = GP_CFG_GIB, .flags = GP_CFG_F_BARE_MEGABYTES,
      .transport = "ibv", .offset = FIREHOSE_FIELD(firehose_maxregion_size),
      .doc = "largest single pinned region, a multiple of the page size (a bare number is MB)" },
    { .name = "GASNET_FIREHOSE_MAXVICTIM_R", .type = GP_CFG_INT, .default_text = "1024",
      .min = 1, .max = 1048576, .transport = "ibv", .offset = FIREHOSE_FIELD(firehose_maxvictim_r),
      .doc = "pinned regions in the local victim pool (truncated to MAXVICTIM_M / "
             "MAXREGION_SIZE)" },
    { .name = "GASNET_FIREHOSE_MAXVICTIM_M", .type = GP_CFG_SIZE, .default_text = NULL,
      .min = GP_CFG_MIB, .max = GP_CFG_TIB, .flags = GP_CFG_F_BARE_MEGABYTES, .transport = "ibv",
      .offset = FIREHOSE_FIELD(firehose_maxvictim_m),
      .unset_means = "GASNET_FIREHOSE_MAXVICTIM_R * GASNET_FIREHOSE_MAXREGION_SIZE",
      .doc = "memory in the local victim pool (a bare number is MB)" },
    { .name = "GASNET_FIREHOSE_VERBOSE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ibv", .offset = FIREHOSE_FIELD(firehose_verbose),
      .doc = "print firehose internals, for bug reports" },
    { .name = "GP_FIREHOSE_KEEP", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ibv", .offset = FIREHOSE_FIELD(firehose_keep),
      .doc = "keep a firehose registration after its last transfer, so that the next transfer "
             "from the same buffer costs no registration; only for programs that never free "
             "and reallocate memory they transferred from or into (a kept registration names "
             "the old pages, and the transfer moves the wrong bytes); 0 deregisters at the "
             "end of each transfer and copies parts up to GASNET_NONBULKPUT_BOUNCE_LIMIT "
             "through bounce buffers" },
    { .name = "GASNET_FIREHOSE_M", .type = GP_CFG_SIZE, .default_text = NULL,
      .min = 0, .max = GP_CFG_TIB, .flags = GP_CFG_F_BARE_MEGABYTES, .transport = "ibv",
      .offset = FIREHOSE_FIELD(firehose_m), .unset_value = 0,
      .unset_means = "none: gp pins each segment whole at attach (GASNet's SEGMENT_FAST)",
      .doc = "memory of the main (remote) pool; since segments are pinned at attach it only "
             "holds pinnable memory back from the victim pool (a bare number is MB)" },
    { .name = "GASNET_FIREHOSE_R", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = 1048576, .transport = "ibv", .offset = FIREHOSE_FIELD(firehose_r),
      .unset_value = 0, .unset_means = "GASNET_FIREHOSE_M / GASNET_FIREHOSE_MAXREGION_SIZE",
      .flags = GP_CFG_NO_EFFECT_YET,
      .doc = "pinned regions of the main (remote) pool, truncated to GASNET_FIREHOSE_M / "
             "MAXREGION_SIZE; gp keeps no main pool of regions yet (segments are pinned "
             "whole at attach)" },
};

/* The victim pool is R regions of MAXREGION_SIZE unless its bytes are given; likewise the main
 * pool's R. */
static void derive_firehose(void *values, struct gp_cfg_derivation *derivation)
{
    struct firehose_config *next = values;
    /* At most 2^20 regions of 1G: no overflow. */
    if (gp_cfg_derive_unset(derivation, "GASNET_FIREHOSE_MAXVICTIM_M"))
        next->firehose_maxvictim_m =
            (uint64_t)next->firehose_maxvictim_r * next->firehose_maxregion_size;
    if (gp_cfg_derive_unset(derivation, "GASNET_FIREHOSE_R"))
        next->firehose_r = (int64_t)(next->firehose_m / next->firehose_maxregion_size);
}

/* A region must be whole pages: regions are cut at multiples of their size. */
static int check_firehose(const void *values, char *errbuf, size_t errlen)
{
    const struct firehose_config *cfg = values;
    long page = sysconf(_SC_PAGESIZE);
    char size[32];
    if (page <= 0 || cfg->firehose_maxregion_size % (uint64_t)page == 0)
        return GP_CFG_OK;
    gp_config_format_size(cfg->firehose_maxregion_size, size, sizeof size);
    gp_config_error(errbuf, errlen, "GASNET_FIREHOSE_MAXREGION_SIZE='%s' is not valid: expected "
                    "a multiple of the page size (%ld bytes)", size, page);
    return GP_CFG_ERR_BAD_ARG;
}

struct firehose_config firehose_cfg;

const struct gp_cfg_group firehose_cfg_group = {
    .layer = "firehose", GP_CFG_GROUP_ROWS(firehose_rows), GP_CFG_GROUP_VALUES(firehose_cfg),
    .derive = derive_firehose, .check = check_firehose,
};
