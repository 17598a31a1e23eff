/*
 * Choosing the provider: gp asks fi_getinfo for an FI_EP_RDM endpoint with
 * FI_MSG and FI_RMA, per-sender ordered messages (FI_ORDER_SAS: a put's
 * deposit and the AM that follows it arrive in that order, as on tcp and
 * ibv), then, of the provider chosen, writes placed in order (FI_ORDER_WAW:
 * with_ordered_writes), and offers the memory-registration modes it handles (FI_MR_LOCAL,
 * VIRT_ADDR, PROV_KEY, ENDPOINT, ALLOCATED) and the FI_CONTEXT modes (every
 * operation context starts with a struct fi_context2).  GP_OFI_PROVIDER
 * names the provider; FI_PROVIDER, libfabric's own filter, is honoured by
 * libfabric itself.  With neither, the provider must reach other hosts
 * (FI_REMOTE_COMM), which leaves out shm and loopback domains, and gp
 * prefers a hardware provider, then libfabric's native tcp one
 * (preferred_entry).
 *
 * When nothing fits, the error says what was asked and what libfabric does
 * list, the way fi_info would show it (provider, endpoint type, caps).
 */
#include "nal/ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nal/ofi/ofi_config.h"
#include "util/log.h"

#define OFI_API_VERSION FI_VERSION(1, 9)
#define OFI_MR_MODES (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ENDPOINT | \
                      FI_MR_ALLOCATED)

const char *ofi_provider_wanted(void)
{
    if (ofi_cfg.gp_ofi_provider != NULL && ofi_cfg.gp_ofi_provider[0] != '\0')
        return ofi_cfg.gp_ofi_provider;
    const char *env = getenv("FI_PROVIDER");
    return env != NULL && env[0] != '\0' ? env : NULL;
}

/* gp's needs as fi_getinfo hints; ordered_writes adds FI_ORDER_WAW. */
static struct fi_info *hints_new(int ordered_writes)
{
    struct fi_info *hints = fi_allocinfo();
    if (hints == NULL)
        return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_RMA;
    if (ofi_cfg.gp_ofi_provider != NULL && ofi_cfg.gp_ofi_provider[0] != '\0')
        hints->fabric_attr->prov_name = strdup(ofi_cfg.gp_ofi_provider);
    if (ofi_provider_wanted() == NULL)
        hints->caps |= FI_REMOTE_COMM;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = OFI_MR_MODES;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    uint64_t order = FI_ORDER_SAS | (ordered_writes ? FI_ORDER_WAW : 0);
    hints->tx_attr->msg_order = order;
    hints->rx_attr->msg_order = order;
    return hints;
}

/* Appends s to out (size len), quietly cutting what does not fit. */
static void append(char *out, size_t len, const char *s)
{
    size_t used = strlen(out);
    if (used + 1 < len)
        snprintf(out + used, len - used, "%s", s);
}

/* "prov (FI_EP_RDM: [ caps ])" for each distinct provider and endpoint type of list. */
static void describe(const struct fi_info *list, char *out, size_t len)
{
    out[0] = '\0';
    int shown = 0;
    for (const struct fi_info *cur = list; cur != NULL; cur = cur->next) {
        int seen = 0;
        for (const struct fi_info *prev = list; prev != cur && !seen; prev = prev->next)
            seen = strcmp(prev->fabric_attr->prov_name, cur->fabric_attr->prov_name) == 0 &&
                   prev->ep_attr->type == cur->ep_attr->type;
        if (seen)
            continue;
        char line[512], ep[64];
        snprintf(ep, sizeof ep, "%s", fi_tostr(&cur->ep_attr->type, FI_TYPE_EP_TYPE));
        uint64_t caps = cur->caps & (FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC);
        snprintf(line, sizeof line, "%s%s (%s, caps %s)", shown ? "; " : "",
                 cur->fabric_attr->prov_name, ep, fi_tostr(&caps, FI_TYPE_CAPS));
        append(out, len, line);
        shown++;
    }
    if (!shown)
        snprintf(out, len, "no provider at all");
}

/*
 * libfabric sizes per-process resources for FI_UNIVERSE_SIZE peers, 256 by default:
 * ofi_rxm asks its core provider for one completion queue of (tx size + rx size) x
 * universe entries, (384 + 384) x 256 over verbs, which Soft-RoCE (at most 32767 CQ
 * entries per CQ) and smaller HCAs refuse, so fi_enable fails with EINVAL.  The job's
 * size is the universe gp will use; libfabric reads the variable once, when it first
 * initializes, so this comes before the first fi_getinfo.  A user's value is kept.
 */
void ofi_info_universe(int job_size)
{
    if (getenv("FI_UNIVERSE_SIZE") != NULL)
        return;
    char size[16];
    snprintf(size, sizeof size, "%d", job_size);
    setenv("FI_UNIVERSE_SIZE", size, 0);
}

/* Providers that run over the host's sockets or memory, not a network device. */
static const char *const software_providers[] = { "tcp", "udp", "sockets", "shm", "sm2", "net" };

int ofi_provider_is_hardware(const char *prov_name)
{
    /* The core provider is the first name: "tcp;ofi_rxm" is ofi_rxm layered on tcp. */
    size_t len = strcspn(prov_name, ";,");
    if (len == 0)
        return 0;
    for (size_t i = 0; i < sizeof software_providers / sizeof software_providers[0]; i++)
        if (strlen(software_providers[i]) == len &&
            strncmp(software_providers[i], prov_name, len) == 0)
            return 0;
    return 1;
}

/*
 * The entry of list a job that names no provider should take.  libfabric
 * orders its list by its own priorities, and 1.17 (Debian 12) puts
 * tcp;ofi_rxm before net, its native RDM provider over tcp (1.18 renamed
 * it tcp).  Layered on tcp's connected endpoints, ofi_rxm writes and reads
 * a signalling pipe for every message: 8 system calls per AM round trip
 * against net's 5 here, an AM latency 1.31-1.43x gp's own tcp transport's
 * against net's 1.03x (doc/performance.md).  So a hardware provider, if
 * libfabric lists one, comes first, as libfabric orders them; then the
 * native tcp RDM provider; then libfabric's first.
 */
static struct fi_info *preferred_entry(struct fi_info *list)
{
    for (struct fi_info *cur = list; cur != NULL; cur = cur->next)
        if (ofi_provider_is_hardware(cur->fabric_attr->prov_name))
            return cur;
    for (struct fi_info *cur = list; cur != NULL; cur = cur->next)
        if (strcmp(cur->fabric_attr->prov_name, "net") == 0 ||
            strcmp(cur->fabric_attr->prov_name, "tcp") == 0)
            return cur;
    return list;
}

/* fi_getinfo's answer for hints, the entry gp takes first (the rest follow, for fi_freeinfo). */
static int getinfo_ordered(struct fi_info *hints, struct fi_info **out)
{
    struct fi_info *list = NULL;
    int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    if (rc != 0 || list == NULL) {
        *out = NULL;
        return rc != 0 ? rc : -FI_ENODATA;
    }
    struct fi_info *first = ofi_provider_wanted() == NULL ? preferred_entry(list) : list;
    if (first != list) {
        struct fi_info *before = list;
        while (before->next != first)
            before = before->next;
        before->next = first->next;
        first->next = list;
    }
    *out = first;
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/*
 * The chosen provider again, with FI_ORDER_WAW asked for (GP_OFI_ORDER_WAW), on the same
 * fabric and domain; NULL where it does not offer it.  Asked after the choice, so that
 * ordering never changes which provider a job takes: a hardware provider without it still
 * comes before tcp, and its puts' parts then all complete at delivery (ofi_rma.c).  An
 * ordering counts only where it was asked for: fi_getinfo answers for the hints, and a
 * provider may list more than it was asked (ofi_rxm lists FI_ORDER_WAW either way, shm only
 * when asked) without the endpoint promising it.
 */
static struct fi_info *with_ordered_writes(const struct fi_info *chosen)
{
    struct fi_info *hints = hints_new(1), *ordered = NULL;
    if (hints == NULL)
        return NULL;
    free(hints->fabric_attr->prov_name);
    hints->fabric_attr->prov_name = dup_or_null(chosen->fabric_attr->prov_name);
    hints->fabric_attr->name = dup_or_null(chosen->fabric_attr->name);
    hints->domain_attr->name = dup_or_null(chosen->domain_attr->name);
    int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &ordered);
    fi_freeinfo(hints);
    if (rc != 0 || ordered == NULL)
        return NULL;
    if (!(ordered->tx_attr->msg_order & FI_ORDER_WAW) ||
        !(ordered->rx_attr->msg_order & FI_ORDER_WAW) || ordered->ep_attr->max_order_waw_size == 0) {
        fi_freeinfo(ordered);
        return NULL;
    }
    return ordered;
}

struct fi_info *ofi_info_choose(int log_level, int *waw_granted)
{
    *waw_granted = 0;
    struct fi_info *hints = hints_new(0), *info = NULL;
    if (hints == NULL) {
        gp_error("ofi", "fi_allocinfo failed: out of memory");
        return NULL;
    }
    int rc = getinfo_ordered(hints, &info);
    fi_freeinfo(hints);
    if (rc == 0) {
        struct fi_info *ordered = ofi_cfg.ofi_order_waw ? with_ordered_writes(info) : NULL;
        if (ordered == NULL) {
            gp_debug("ofi", "provider %s: writes not ordered (%s): every part of a window put "
                     "completes at delivery", info->fabric_attr->prov_name,
                     ofi_cfg.ofi_order_waw ? "it offers no FI_ORDER_WAW" : "GP_OFI_ORDER_WAW=0");
            return info;
        }
        fi_freeinfo(info);
        *waw_granted = 1;
        return ordered;
    }
    /* What there is: every provider libfabric lists here (FI_PROVIDER still filters). */
    struct fi_info *found = NULL;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, NULL, &found) != 0)
        found = NULL;
    char what[2048];
    describe(found, what, sizeof what);
    if (found != NULL)
        fi_freeinfo(found);
    const char *env = getenv("FI_PROVIDER");
    gp_log(log_level, "ofi", "no libfabric provider offers what the ofi transport needs: asked for "
             "provider %s%s%s, an FI_EP_RDM endpoint with FI_MSG and FI_RMA, FI_ORDER_SAS%s "
             "(fi_getinfo: %s); libfabric %u.%u lists: %s",
             ofi_cfg.gp_ofi_provider != NULL ? ofi_cfg.gp_ofi_provider : "any",
             env != NULL ? " with FI_PROVIDER=" : "", env != NULL ? env : "",
             ofi_provider_wanted() == NULL ? ", reaching other hosts (FI_REMOTE_COMM)" : "",
             fi_strerror(-rc), FI_MAJOR(fi_version()), FI_MINOR(fi_version()), what);
    return NULL;
}

void ofi_info_list(char *out, size_t len, char *chosen, size_t chosen_len)
{
    out[0] = '\0';
    chosen[0] = '\0';
    struct fi_info *all = NULL, *fit = NULL;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, NULL, &all) != 0)
        all = NULL;
    struct fi_info *hints = hints_new(0);
    if (hints != NULL && getinfo_ordered(hints, &fit) != 0)
        fit = NULL;
    if (hints != NULL)
        fi_freeinfo(hints);
    if (fit != NULL) /* what ofi_info_choose would take */
        snprintf(chosen, chosen_len, "%s (fabric %s, domain %s)", fit->fabric_attr->prov_name,
                 fit->fabric_attr->name, fit->domain_attr->name);
    /* Each provider once, marked when it offers what gp needs. */
    for (const struct fi_info *cur = all; cur != NULL; cur = cur->next) {
        int seen = 0, usable = 0;
        for (const struct fi_info *prev = all; prev != cur && !seen; prev = prev->next)
            seen = strcmp(prev->fabric_attr->prov_name, cur->fabric_attr->prov_name) == 0;
        if (seen)
            continue;
        for (const struct fi_info *f = fit; f != NULL && !usable; f = f->next)
            usable = strcmp(f->fabric_attr->prov_name, cur->fabric_attr->prov_name) == 0;
        char line[160];
        snprintf(line, sizeof line, "%s%s%s", out[0] ? " " : "", cur->fabric_attr->prov_name,
                 usable ? " (rdm+rma)" : "");
        append(out, len, line);
    }
    if (all != NULL)
        fi_freeinfo(all);
    if (fit != NULL)
        fi_freeinfo(fit);
}
