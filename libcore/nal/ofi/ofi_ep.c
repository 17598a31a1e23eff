/*
 * The provider's objects: fabric, domain, one FI_EP_RDM endpoint with a
 * transmit and a receive CQ and an address vector; the registrations; the
 * address exchange.
 *
 * Memory registration follows the modes the provider demands (mr_mode):
 *   FI_MR_LOCAL      local buffers need a descriptor: the region and the
 *                    rx / tx buffers are registered, other memory for the op
 *   FI_MR_VIRT_ADDR  RMA addresses are virtual; without it, offsets from the
 *                    registration's start (ofi_rma_addr)
 *   FI_MR_PROV_KEY   the provider picks keys; without it gp does (the region
 *                    OFI_REGION_KEY, one-op registrations from a counter)
 *   FI_MR_ENDPOINT   a registration is bound to the endpoint and enabled
 *   FI_MR_ALLOCATED  only allocated memory: the region is populated at creation
 * The region is registered once, whole; its key and base go to every peer
 * in the allgather.
 */
#include "nal/ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "util/log.h"

#define OFI_CQ_DEPTH_MIN 1024

static int check(struct ofi_state *st, int rc, const char *what)
{
    if (rc == 0)
        return PTL_OK;
    gp_error("ofi", "%s failed on provider %s: %s (%d)", what, st->info->fabric_attr->prov_name,
             fi_strerror(rc < 0 ? -rc : rc), rc);
    return PTL_FAIL;
}

int ofi_ep_open(struct ofi_state *st)
{
    struct fi_info *info = st->info;
    st->mr_mode = (uint64_t)info->domain_attr->mr_mode;
    /* Writes whose data lands in order up to max_order_waw_size: only where FI_ORDER_WAW was
     * asked for and given (ofi_info.c); a provider may list it unasked without promising it. */
    st->ordered_write_bytes = st->write_order_granted ? info->ep_attr->max_order_waw_size : 0;
    st->max_msg = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : (1ull << 30);
    if (st->max_msg > (1ull << 30))
        st->max_msg = 1ull << 30;
    gp_debug("ofi", "provider %s, fabric %s, domain %s, mr_mode %s, writes %s",
             info->fabric_attr->prov_name,
             info->fabric_attr->name, info->domain_attr->name,
             fi_tostr(&info->domain_attr->mr_mode, FI_TYPE_MR_MODE),
             st->ordered_write_bytes ? "placed in order (FI_ORDER_WAW)"
                                    : "unordered (every put part completes at delivery)");
    if (check(st, fi_fabric(info->fabric_attr, &st->fabric, NULL), "fi_fabric") != PTL_OK ||
        check(st, fi_domain(st->fabric, info, &st->domain, NULL), "fi_domain") != PTL_OK)
        return PTL_FAIL;
    size_t depth = st->rx_count + OFI_TX_BUFS + 64;
    if (depth < OFI_CQ_DEPTH_MIN)
        depth = OFI_CQ_DEPTH_MIN;
    struct fi_cq_attr cq_attr = { .size = depth, .format = FI_CQ_FORMAT_MSG,
                                  .wait_obj = FI_WAIT_NONE };
    struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC, .count = (size_t)st->ni->size };
    if (check(st, ofi_rcv_cq_open(st, &cq_attr, &st->tx_cq), "fi_cq_open (transmit)") ||
        check(st, ofi_rcv_cq_open(st, &cq_attr, &st->rx_cq), "fi_cq_open (receive)") ||
        check(st, fi_av_open(st->domain, &av_attr, &st->av, NULL), "fi_av_open") ||
        check(st, fi_endpoint(st->domain, info, &st->ep, NULL), "fi_endpoint") ||
        check(st, fi_ep_bind(st->ep, &st->av->fid, 0), "fi_ep_bind (address vector)") ||
        check(st, fi_ep_bind(st->ep, &st->tx_cq->fid, FI_TRANSMIT), "fi_ep_bind (transmit CQ)") ||
        check(st, fi_ep_bind(st->ep, &st->rx_cq->fid, FI_RECV), "fi_ep_bind (receive CQ)") ||
        check(st, fi_enable(st->ep), "fi_enable"))
        return PTL_FAIL;
    return PTL_OK;
}

/* One registration as the modes demand; key is gp's choice where the provider leaves it. */
static int reg(struct ofi_state *st, void *addr, uint64_t len, uint64_t access, uint64_t key,
               struct fid_mr **mr, const char *what)
{
    int rc = fi_mr_reg(st->domain, addr, len, access, 0, key, 0, mr, NULL);
    if (rc != 0) {
        gp_error("ofi", "registering %s (%llu bytes at %p) failed on provider %s: %s", what,
                 (unsigned long long)len, addr, st->info->fabric_attr->prov_name,
                 fi_strerror(-rc));
        return PTL_FAIL;
    }
    if (st->mr_mode & FI_MR_ENDPOINT) {
        if (check(st, fi_mr_bind(*mr, &st->ep->fid, 0), "fi_mr_bind") != PTL_OK ||
            check(st, fi_mr_enable(*mr), "fi_mr_enable") != PTL_OK) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
            return PTL_FAIL;
        }
    }
    return PTL_OK;
}

int ofi_mr_one_op(struct ofi_state *st, void *addr, uint64_t len, uint64_t access,
                  struct fid_mr **mr)
{
    return reg(st, addr, len ? len : 1, access, st->next_key++, mr, "memory outside the region");
}

int ofi_ep_register(struct ofi_state *st)
{
    uint64_t all = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    if (reg(st, st->ni->region, st->ni->region_bytes, all, OFI_REGION_KEY, &st->region_mr,
            "the registered region") != PTL_OK)
        return PTL_FAIL;
    st->region_desc = fi_mr_desc(st->region_mr);
    st->region_key = fi_mr_key(st->region_mr);
    size_t bytes = ofi_bufs_bytes(st);
    if (reg(st, st->bufs, bytes, FI_SEND | FI_RECV | FI_READ | FI_WRITE, OFI_REGION_KEY + 1,
            &st->buf_mr, "the message buffers") != PTL_OK)
        return PTL_FAIL;
    st->buf_desc = fi_mr_desc(st->buf_mr);
    st->next_key = OFI_REGION_KEY + 2;
    return PTL_OK;
}

int ofi_ep_exchange(struct ofi_state *st)
{
    struct nal_ni *ni = st->ni;
    struct ofi_wire mine;
    memset(&mine, 0, sizeof mine);
    size_t addrlen = sizeof mine.addr;
    int rc = -1;
    /* A process that could not open its endpoint (or, routed by the hybrid, has no peer
     * this way) still joins the exchange, with no provider name: the others then say which
     * node failed instead of waiting for it. */
    if (st->ep != NULL) {
        snprintf(mine.prov_name, sizeof mine.prov_name, "%s", st->info->fabric_attr->prov_name);
        rc = fi_getname(&st->ep->fid, mine.addr, &addrlen);
    }
    if (st->ep != NULL && (rc != 0 || addrlen > sizeof mine.addr)) {
        gp_error("ofi", "fi_getname failed on provider %s: %s (the name takes %zu bytes, gp "
                 "keeps %zu)", mine.prov_name, rc ? fi_strerror(-rc) : "too long", addrlen,
                 sizeof mine.addr);
        rc = -1;
    }
    mine.addrlen = (uint32_t)addrlen;
    mine.region_base = ofi_rma_addr(st, ni->region, ni->region);
    mine.region_key = st->region_key;
    struct ofi_wire *all = calloc((size_t)ni->size, sizeof *all);
    /* Collective: every rank takes part, whatever went wrong here. */
    if (gp_boot_allgather(&mine, all ? (void *)all : (void *)&mine, all ? sizeof mine : 0) != 0 ||
        all == NULL) {
        gp_error("ofi", "the address exchange failed");
        free(all);
        return PTL_FAIL;
    }
    /* Said above, where this rank had to reach someone; one that only joins is done. */
    if (rc != 0) {
        free(all);
        return st->peers_reached > 0 ? PTL_FAIL : PTL_OK;
    }
    int status = PTL_OK;
    for (int rank = 0; rank < ni->size && status == PTL_OK; rank++) {
        struct ofi_peer *peer = &st->peers[rank];
        if (!ofi_wants(st, rank))
            continue;
        if (all[rank].prov_name[0] == '\0') {
            gp_error("ofi", "node %d could not open its libfabric endpoint (its own line says "
                     "why)", rank);
            status = PTL_FAIL;
            break;
        }
        if (strcmp(all[rank].prov_name, mine.prov_name) != 0) {
            gp_error("ofi", "node %d opened provider %s and node %d provider %s: every process "
                     "of a job must use the same (set GP_OFI_PROVIDER)", ni->rank, mine.prov_name,
                     rank, all[rank].prov_name);
            status = PTL_FAIL;
            break;
        }
        int inserted = fi_av_insert(st->av, all[rank].addr, 1, &peer->addr, 0, NULL);
        if (inserted != 1) {
            gp_error("ofi", "fi_av_insert of node %d's address failed on provider %s: %s", rank,
                     mine.prov_name, fi_strerror(inserted < 0 ? -inserted : FI_EINVAL));
            status = PTL_FAIL;
        }
        peer->region_base = all[rank].region_base;
        peer->region_key = all[rank].region_key;
    }
    free(all);
    return status;
}

static void close_fid(struct fid *fid)
{
    if (fid != NULL)
        fi_close(fid);
}

void ofi_ep_close(struct ofi_state *st)
{
    if (st->region_mr != NULL)
        close_fid(&st->region_mr->fid);
    if (st->buf_mr != NULL)
        close_fid(&st->buf_mr->fid);
    if (st->ep != NULL)
        close_fid(&st->ep->fid);
    if (st->av != NULL)
        close_fid(&st->av->fid);
    if (st->tx_cq != NULL)
        close_fid(&st->tx_cq->fid);
    if (st->rx_cq != NULL)
        close_fid(&st->rx_cq->fid);
    if (st->domain != NULL)
        close_fid(&st->domain->fid);
    if (st->fabric != NULL)
        close_fid(&st->fabric->fid);
    st->ep = NULL;
    st->region_mr = st->buf_mr = NULL;
    st->av = NULL;
    st->tx_cq = st->rx_cq = NULL;
    st->domain = NULL;
    st->fabric = NULL;
}
