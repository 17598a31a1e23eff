/*
 * What a layer needs to define the rows it reads.  A layer keeps its rows
 * beside its code in one group (conduit/config_rows.c, nal/ibv/ibv_config.c,
 * ...), with the checks between its rows that a per-row range cannot
 * express and the rules for its rows whose unset value is computed from
 * others; config/table.c lists the groups, which fixes the table's order
 * (the order of the GASNET_VERBOSEENV echo, gp-check --env and gp-env(7)).
 */
#ifndef GP_CONFIG_ROWS_H
#define GP_CONFIG_ROWS_H

#include <stddef.h>

#include "config/config.h"

#define GP_CFG_FIELD(member) offsetof(struct gp_config, member)
#define GP_CFG_KIB 1024.0
#define GP_CFG_MIB (1024.0 * 1024.0)
#define GP_CFG_GIB (1024.0 * GP_CFG_MIB)
#define GP_CFG_TIB (1024.0 * GP_CFG_GIB)
#define GP_CFG_INT32_TOP 2147483647.0
/* A row gp accepts but does not act on yet: a warning when set. */
#define GP_CFG_NO_EFFECT_YET (GP_CFG_F_NO_EFFECT | GP_CFG_F_NOT_YET)

/* Handed to a group's derive rule while a load is being built. */
struct gp_cfg_derivation;
/*
 * 1 when the row NAME was left unset (its default stands), so the rule
 * should compute it; the row then counts as known.  0 when the user set it.
 */
int gp_cfg_derive_unset(struct gp_cfg_derivation *derivation, const char *name);

struct gp_cfg_group {
    const char *layer;                /* who owns these rows, for the table check's messages */
    const struct gp_cfg_row *rows;
    size_t count;
    /* Optional: rows whose unset value is computed from other rows. */
    void (*derive)(struct gp_config *next, struct gp_cfg_derivation *derivation);
    /* Optional: checks between rows; GP_CFG_OK, or GP_CFG_ERR_BAD_ARG with errbuf set. */
    int (*check)(const struct gp_config *next, char *errbuf, size_t errlen);
};

#define GP_CFG_GROUP_ROWS(array) (array), (sizeof(array) / sizeof((array)[0]))

/* The groups, each defined with its layer, in the table's order (config/table.c). */
extern const struct gp_cfg_group gp_cfg_group_conduit;
extern const struct gp_cfg_group gp_cfg_group_ibv;
extern const struct gp_cfg_group gp_cfg_group_nal;
extern const struct gp_cfg_group gp_cfg_group_tcp;
extern const struct gp_cfg_group gp_cfg_group_ofi;
extern const struct gp_cfg_group gp_cfg_group_boot;

#endif
