/*
 * The ofi transport as one of the hybrid's routes (nal_peer_ops): the peers
 * on other hosts through libfabric, those on this host through shm, on the
 * hybrid's shared-memory region (registered whole, as GP_TRANSPORT=ofi
 * registers its private one).
 *
 * When GP_HYBRID_ORDER names ofi, it serves over whatever provider
 * libfabric gives (GP_OFI_PROVIDER, FI_PROVIDER).  Unasked (the registry's
 * order, where ofi comes after ibv and before tcp) it serves only on a
 * hardware provider: over tcp, udp, sockets, shm or net, and the ofi_rxm /
 * ofi_rxd layers over them, gp's own tcp transport is faster
 * (doc/decisions.md), so tcp carries those hosts.  Whether a host might
 * have one is guessed from /sys and /dev alone, so that a job whose hosts
 * have none never loads libfabric.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nal/ofi/ofi.h"
#include "util/log.h"

/* Does directory path hold an entry whose name starts with prefix? */
static int dir_has(const char *path, const char *prefix)
{
    DIR *dir = opendir(path);
    if (dir == NULL)
        return 0;
    int found = 0;
    for (struct dirent *entry; !found && (entry = readdir(dir)) != NULL;)
        found = strncmp(entry->d_name, prefix, strlen(prefix)) == 0;
    closedir(dir);
    return found;
}

/*
 * A device a hardware provider drives: verbs devices (verbs, efa, usnic, psm3), Slingshot
 * (cxi), Omni-Path (opx, psm2).  Or a provider named (GP_OFI_PROVIDER, else FI_PROVIDER
 * unless it only excludes) that is a hardware one.
 */
static int hardware_may_be_here(void)
{
    const char *named = ofi_provider_wanted();
    if (named != NULL && named[0] != '^')
        return ofi_provider_is_hardware(named);
    return dir_has("/sys/class/infiniband_verbs", "uverbs") || dir_has("/sys/class/cxi", "cxi") ||
           access("/dev/hfi1_0", F_OK) == 0;
}

static int ofi_host_may_serve(enum nal_serving how)
{
    return how == NAL_SERVE_ASKED || hardware_may_be_here();
}

static void *ofi_peers_open(struct nal_ni *ni, enum nal_serving how)
{
    struct ofi_state *st = ofi_state_new(ni);
    if (st == NULL || how == NAL_TAKE_PART)
        return st;
    if (ofi_state_choose(st, "GP_HYBRID_ORDER's ofi", how == NAL_SERVE_ASKED ? GP_LOG_WARN
                                                                            : GP_LOG_DEBUG) !=
        PTL_OK) {
        ofi_state_free(st);
        return NULL;
    }
    const char *prov = st->info->fabric_attr->prov_name;
    if (how == NAL_SERVE && !ofi_provider_is_hardware(prov)) {
        gp_debug("ofi", "libfabric's provider here is %s, which runs over sockets or memory: "
                 "tcp serves the other hosts instead (GP_HYBRID_ORDER=ofi would take it)", prov);
        ofi_state_free(st);
        return NULL;
    }
    return st;
}

static int ofi_peers_connect(void *st, const uint8_t *wanted)
{
    struct ofi_state *ofi = st;
    int rc = ofi_state_connect(ofi, wanted);
    if (rc == PTL_OK && ofi->peers_reached > 0)
        gp_debug("ofi", "provider %s carries this process's %u peers on other hosts (of %d "
                 "processes)", ofi->info->fabric_attr->prov_name, ofi->peers_reached,
                 ofi->ni->size);
    return rc;
}

static int ofi_peers_put(void *st, const struct nal_op *op) { return ofi_state_put(st, op); }
static int ofi_peers_get(void *st, const struct nal_op *op) { return ofi_state_get(st, op); }
static void ofi_peers_progress(void *st) { ofi_state_progress(st); }
static void ofi_peers_close(void *st) { ofi_state_drain(st); }
static void ofi_peers_free(void *st) { ofi_state_free(st); }
static void ofi_peers_report(void *st) { ofi_state_report(st); }

const struct nal_peer_ops ofi_peer_ops = {
    .host_may_serve = ofi_host_may_serve,
    .open = ofi_peers_open,
    .connect = ofi_peers_connect,
    .put = ofi_peers_put,
    .get = ofi_peers_get,
    .progress = ofi_peers_progress,
    .close = ofi_peers_close,
    .free = ofi_peers_free,
    .report = ofi_peers_report,
};
