/*
 * gp-check --env: every row of the configuration table with its effective
 * value and where the value came from:
 *
 *   default      the table's default
 *   environment  set in the environment
 *   derived      computed from the job size or from other variables
 *
 * followed by ", no effect (yet)" for a row gp accepts but does not act on
 * (setting it draws a warning), and ", older name of X" for an older name.
 *
 * Outside a job there is no job size, so the credit variables and the
 * exit timeout show their rule; with -n N gp-check derives them as
 * gasnet_attach and gp-run would for a job of N processes (the credit
 * plan is libgp's own).
 */
#include "gp_check.h"

#include "config/config.h"
#include "conduit/credits/credits.h"
#include "gasnet.h"

#include <stdio.h>
#include <string.h>

/* Values longer than this overflow their column rather than widen it. */
#define VALUE_COLUMN 24

/* What gasnet_attach (the credit plan) and gp-run (the exit timeout) would derive. */
static int derive_for(int nprocs, char *why, size_t len)
{
    struct gpc_credit_plan plan;
    if (gpc_credit_plan((uint32_t)nprocs, &plan, why, len) != GASNET_OK)
        return -1;
    gp_config_set_derived("GASNET_PORTAL_CRED_PER_NODE", plan.credits_per_node);
    gp_config_set_derived("GASNET_PORTAL_BANKED_CREDITS", plan.banked_credits);
    gp_config_set_derived("GASNET_PORTAL_AMRECV_SPACE",
                          (int64_t)plan.reqrb_buffers * plan.reqrb_buffer_bytes);
    double timeout = gp_cfg.exittimeout_min + gp_cfg.exittimeout_factor * nprocs;
    if (timeout > gp_cfg.exittimeout_max)
        timeout = gp_cfg.exittimeout_max;
    gp_config_set_derived_double("GASNET_EXITTIMEOUT", timeout);
    return 0;
}

static const char *source_of(const struct gp_cfg_row *row)
{
    switch (gp_config_source(row)) {
    case GP_CFG_FROM_ENV:
        return "environment";
    case GP_CFG_FROM_JOBSIZE:
        return "derived";
    case GP_CFG_FROM_DEFAULT:
        break;
    }
    /* A default that is a rule rather than a constant. */
    return row->default_text == NULL && (row->unset_means != NULL || row->fallback != NULL)
               ? "derived" : "default";
}

int check_env_list(const struct check_opts *opts)
{
    char why[512], value[256];
    size_t count;
    int name_width = (int)strlen("VARIABLE"), value_width = (int)strlen("VALUE");
    if (gp_config_load(why, sizeof why) != GASNET_OK ||
        (opts->nprocs > 0 && derive_for(opts->nprocs, why, sizeof why) != 0)) {
        check_say("%s", why);
        return 1;
    }
    const struct gp_cfg_row *rows = gp_config_rows(&count);
    for (size_t i = 0; i < count; i++) {
        gp_config_format_value(&rows[i], value, sizeof value);
        if ((int)strlen(rows[i].name) > name_width)
            name_width = (int)strlen(rows[i].name);
        if ((int)strlen(value) > value_width && strlen(value) <= VALUE_COLUMN)
            value_width = (int)strlen(value);
    }
    printf("%-*s  %-*s  %s\n", name_width, "VARIABLE", value_width, "VALUE", "SOURCE");
    for (size_t i = 0; i < count; i++) {
        const struct gp_cfg_row *row = &rows[i];
        gp_config_format_value(row, value, sizeof value);
        printf("%-*s  %-*s  %s%s%s%s\n", name_width, row->name, value_width, value,
               source_of(row),
               !(row->flags & GP_CFG_F_NO_EFFECT) ? ""
               : (row->flags & GP_CFG_F_NOT_YET) ? ", no effect yet" : ", no effect",
               row->newer != NULL ? ", older name of " : "", row->newer ? row->newer : "");
    }
    if (opts->nprocs == 0)
        printf("(values that depend on the job size show their rule; -n N derives them for "
               "N processes)\n");
    return 0;
}
