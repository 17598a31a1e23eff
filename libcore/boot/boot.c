/*
 * gp_boot_init and the accessors: who this process is within its job.
 *
 * A process started by gp-run connects to it and proves the job key before
 * it trusts anything else; one started by a cluster's launcher (no
 * GP_BOOT_ADDR, but a PMIx server's PMIX_NAMESPACE and PMIX_RANK) learns its
 * job from PMIx (boot/pmix.c); one started by hand is a singleton, a 1-node
 * job with a made-up job id and key, so every program also runs without a
 * launcher.  Either way init installs the default
 * fatal hook -- tell gp-run, then exit -- which the conduit replaces once
 * its own exit protocol can run.
 */
#include "boot/bootint.h"

#include "boot/wire.h"
#include "util/log.h"

#include <string.h>
#include <unistd.h>

struct gp_boot_state gp_boot = { .fd = -1 };

static void boot_fatal_hook(int exit_code)
{
    if (gp_boot.fd < 0 && !gp_boot.pmix)
        _exit(exit_code); /* gp_fatal has said why; nobody else to tell */
    gp_boot_abort(exit_code, "fatal error (its message is above)");
}

static int init_singleton(void)
{
    uint8_t id[GP_BOOT_JOBID_LEN / 2];
    if (gp_wire_random(id, sizeof id) != GP_WIRE_OK ||
        gp_wire_random(gp_boot.key, sizeof gp_boot.key) != GP_WIRE_OK) {
        gp_error("boot", "cannot draw a job id and key from getrandom: %m");
        return GP_BOOT_ERR_RESOURCE;
    }
    gp_wire_hex(id, sizeof id, gp_boot.jobid);
    gp_boot.singleton = 1;
    gp_boot.rank = 0;
    gp_boot.size = 1;
    return GP_BOOT_OK;
}

static int init_launched(const struct gp_boot_env *env)
{
    int fd = gp_boot_channel_open(env);
    if (fd < 0)
        return GP_BOOT_ERR_RESOURCE;
    gp_boot.fd = fd;
    gp_boot.rank = env->rank;
    gp_boot.size = env->size;
    memcpy(gp_boot.jobid, env->jobid, sizeof gp_boot.jobid);
    memcpy(gp_boot.key, env->key, sizeof gp_boot.key);
    return GP_BOOT_OK;
}

int gp_boot_init(void)
{
    struct gp_boot_env env;
    if (gp_boot.initialized)
        return GP_BOOT_OK;
    memset(&env, 0, sizeof env);
    int launched = gp_boot_env_read(&env);
    int rc = launched < 0 ? GP_BOOT_ERR_RESOURCE
           : launched ? init_launched(&env)
           : gp_boot_pmix_detect() ? gp_boot_pmix_init() : init_singleton();
    /* The key has been copied where it belongs; don't leave it on the stack. */
    memset(env.key, 0, sizeof env.key);
    if (rc != GP_BOOT_OK)
        return rc;
    gp_boot.initialized = 1;
    gp_log_set_identity(gp_boot.rank, gp_boot.size);
    gp_set_fatal_hook(boot_fatal_hook);
    gp_debug("boot", "job %s: rank %d of %d, pid %d%s", gp_boot.jobid, gp_boot.rank,
             gp_boot.size, (int)getpid(), gp_boot.singleton ? " (singleton: no launcher)"
             : gp_boot.pmix ? " (PMIx)" : "");
    return GP_BOOT_OK;
}

int gp_boot_rank(void)
{
    return gp_boot.rank;
}

int gp_boot_size(void)
{
    return gp_boot.size;
}

int gp_boot_is_singleton(void)
{
    return gp_boot.singleton;
}

const char *gp_boot_jobid(void)
{
    return gp_boot.jobid;
}

const uint8_t *gp_boot_key(void)
{
    return gp_boot.key;
}
