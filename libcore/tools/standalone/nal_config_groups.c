/*
 * The tools-only library carries the configuration table for the few
 * variables its own functions read through it (GASNET_VERBOSEENV,
 * GASNET_BACKTRACE: the conduit's rows), but no transport layer: its table
 * takes the conduit's and boot's groups and none of the transports'.
 * Nothing there loads the table (only libgp's attach, gp-run and gp-check
 * call gp_config_load), so no unknown-variable warning is ever drawn from
 * it: a client setting GP_OFI_PROVIDER sees the same silence as before.
 * In libgp, nal/registry.c answers.  Outside the libcore/DIR/ files that
 * make libgp, on purpose.
 */
#include <stddef.h>

#include "config/rows.h"

const struct gp_cfg_group *nal_config_group(unsigned index)
{
    (void)index;
    return NULL;
}
