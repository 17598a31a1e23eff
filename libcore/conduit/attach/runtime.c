/* gp_runtime_init: see runtime.h. */
#include "conduit/attach/runtime.h"

#include <gasnet.h>
#include <stdio.h>

#include "boot/boot.h"
#include "config/config.h"
#include "tools/tools.h"
#include "util/log.h"

int gp_runtime_init(void)
{
    char why[512];
    /* The log level first, so that bootstrap trouble is reported at the asked level. */
    int level = gp_log_level_parse(gp_config_getenv("GP_LOG_LEVEL"));
    if (level >= 0)
        gp_log_threshold = level;
    if (gp_boot_init() != GP_BOOT_OK)
        return GASNET_ERR_RESOURCE;   /* boot has said why */
    if (gp_config_load(why, sizeof why) != GASNET_OK)
        gp_fatal("%s", why);
    level = gp_log_level_parse(gp_cfg.gp_log_level);
    if (level >= 0)
        gp_log_threshold = level;
    if (gp_cfg.verboseenv && gp_boot_rank() == 0) {
        gp_config_print(stderr);
        fflush(stderr);
    }
    gp_debug_setup(gp_boot_rank(), gp_boot_size()); /* GASNET_FREEZE stops here */
    return GASNET_OK;
}
