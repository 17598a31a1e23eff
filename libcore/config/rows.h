/*
 * What a layer needs to define the rows it reads.  A layer keeps its rows
 * beside its code in one group (conduit/core/config_rows.c, nal/ibv/ibv_config.c,
 * ...), with the struct its rows store their values in, the checks between
 * its rows that a per-row range cannot express and the rules for its rows
 * whose unset value is computed from others.
 *
 * The table is the groups in this order (the order of the GASNET_VERBOSEENV
 * echo, gp-check --env and gp-env(7)): the conduit's, then those of the
 * transport layer, which its registry lists (nal_config_group below), then
 * the boot layer's.  So a transport's rows, their struct and their checks
 * live in its folder, and its entry in the registry brings them in: this
 * layer, the bottom one, names no transport.
 */
#ifndef GP_CONFIG_ROWS_H
#define GP_CONFIG_ROWS_H

#include <stddef.h>

#include "config/config.h"

/* A row's offset: in struct gp_config (the conduit's, boot's and nal-wide rows), or in the
 * struct of the layer whose group holds it. */
#define GP_CFG_FIELD(member) offsetof(struct gp_config, member)
#define GP_CFG_FIELD_OF(type, member) offsetof(type, member)
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
    /*
     * Where the stored rows keep their values: one object of the layer's
     * own (struct gp_config gp_cfg, struct ibv_config ibv_cfg, ...) that
     * every stored row's offset lies in; NULL when no row is stored.  A load
     * fills a scratch copy of it and commits every group's at once, so that
     * a failed load leaves them all as they were.
     */
    void *values;
    size_t values_size;
    /* Optional: rows whose unset value is computed from other rows of the group; next is
     * the scratch copy of the group's values. */
    void (*derive)(void *next, struct gp_cfg_derivation *derivation);
    /* Optional: checks between the group's rows, on the scratch copy of its values;
     * GP_CFG_OK, or GP_CFG_ERR_BAD_ARG with errbuf set. */
    int (*check)(const void *next, char *errbuf, size_t errlen);
};

/* For a group's initializer: its rows, and the object its values live in. */
#define GP_CFG_GROUP_ROWS(array) .rows = (array), .count = sizeof(array) / sizeof((array)[0])
#define GP_CFG_GROUP_VALUES(object) .values = &(object), .values_size = sizeof(object)

/* The groups config/table.c lists itself, each defined with its layer. */
extern const struct gp_cfg_group gp_cfg_group_conduit;
extern const struct gp_cfg_group gp_cfg_group_boot;

/*
 * The index'th configuration group of the transport layer, in the table's
 * order; NULL past the last.  Declared here, where the table asks for
 * them, and defined by the transport registry (nal/registry.c): the
 * layer's own groups, then each transport's in the registry's order.  The
 * tools-only library, which has no transports and never loads the table,
 * has a stand-in that lists none (tools/standalone/).
 */
const struct gp_cfg_group *nal_config_group(unsigned index);

#endif
