/*
 * Devices and ports: which HCAs and ports this process uses (seed 003's
 * GASNET_IBV_PORTS filter and GASNET_NUM_QPS), their addresses (LID on
 * InfiniBand, a GID on RoCE), and the memory every QP needs registered:
 * the region (in GASNET_PIN_MAXSZ pieces), the bounce and receive buffers,
 * and the shared receive queue (ibv_srq.c) on the HCA of port 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "config/config.h"
#include "nal/ibv/ibv.h"
#include "nal/ibv/ibv_ports.h"
#include "util/log.h"

static const char *link_layer_str(uint8_t link_layer)
{
    return link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand";
}

/* RoCE: the configured GID index, else the first IPv4-mapped GID (RoCE v2 routes it), else 0. */
static int choose_gid(struct ibv_state *st, struct ibv_context *ctx, struct ibv_port *port,
                      int table_len)
{
    if (st->set.gid_index >= 0) {
        if (st->set.gid_index >= table_len ||
            ibv_query_gid(ctx, port->num, st->set.gid_index, &port->gid) != 0) {
            gp_error("ibv", "GP_IBV_GID_INDEX=%d: port %u of %s has %d GID entries (accepted: 0 to %d)",
                     st->set.gid_index, port->num, st->hca[port->hca].name, table_len,
                     table_len - 1);
            return -1;
        }
        port->gid_index = st->set.gid_index;
        return 0;
    }
    int fallback = -1;
    for (int index = 0; index < table_len; index++) {
        union ibv_gid gid;
        if (ibv_query_gid(ctx, port->num, index, &gid) != 0)
            continue;
        static const uint8_t zero[16];
        if (memcmp(gid.raw, zero, sizeof zero) == 0)
            continue;
        static const uint8_t v4_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        if (memcmp(gid.raw, v4_prefix, sizeof v4_prefix) == 0) {
            port->gid = gid;
            port->gid_index = index;
            return 0;
        }
        if (fallback < 0) {
            fallback = index;
            port->gid = gid;
        }
    }
    if (fallback < 0) {
        gp_error("ibv", "port %u of %s has no usable GID (is its network interface up, with an "
                 "address?); set GP_IBV_GID_INDEX to choose one", port->num,
                 st->hca[port->hca].name);
        return -1;
    }
    port->gid_index = fallback;
    return 0;
}

static int add_port(struct ibv_state *st, unsigned hca, uint8_t num,
                    const struct ibv_port_attr *attr)
{
    struct ibv_port *port = &st->port[st->nports];
    memset(port, 0, sizeof *port);
    port->hca = hca;
    port->num = num;
    port->link_layer = attr->link_layer == IBV_LINK_LAYER_ETHERNET ? IBV_LINK_LAYER_ETHERNET
                                                                    : IBV_LINK_LAYER_INFINIBAND;
    port->lid = attr->lid;
    port->mtu = (uint8_t)attr->active_mtu;
    port->gid_index = -1;
    if (port->link_layer == IBV_LINK_LAYER_ETHERNET &&
        choose_gid(st, st->hca[hca].ctx, port, attr->gid_tbl_len) != 0)
        return -1;
    gp_debug("ibv", "using %s port %u (%s, lid %u, gid index %d, mtu %d)", st->hca[hca].name, num,
             link_layer_str(port->link_layer), port->lid, port->gid_index,
             128 << port->mtu);
    st->nports++;
    return 0;
}

/* Adds the usable ports of one device; returns -1 on an error already logged. */
static int scan_device(struct ibv_state *st, struct ibv_device *dev,
                       const struct ibv_port_filter *filter, unsigned wanted_ports)
{
    const char *name = ibv_get_device_name(dev);
    if (!ibv_port_filter_mentions(filter, name))
        return 0;
    struct ibv_context *ctx = ibv_open_device(dev);
    if (ctx == NULL) {
        gp_warn("ibv", "cannot open device %s: %m", name);
        return 0;
    }
    unsigned hca = st->nhcas;
    struct ibv_hca *h = &st->hca[hca];
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    snprintf(h->name, sizeof h->name, "%s", name);
    if (ibv_query_device(ctx, &h->attr) != 0) {
        gp_warn("ibv", "cannot query device %s: %m", name);
        ibv_close_device(ctx);
        return 0;
    }
    unsigned before = st->nports;
    int list = ibv_port_filter_has_port_list(filter, name);
    for (uint8_t num = 1; num <= h->attr.phys_port_cnt && st->nports < wanted_ports &&
                          st->nports < IBV_MAX_PORTS; num++) {
        struct ibv_port_attr attr;
        if (ibv_query_port(ctx, num, &attr) != 0 || attr.state != IBV_PORT_ACTIVE)
            continue;
        if (!ibv_port_filter_allows(filter, name, num))
            continue;
        if (add_port(st, hca, num, &attr) != 0) {
            ibv_close_device(ctx);
            return -1;
        }
        if (!list)
            break; /* no port list: the first active port of the HCA */
    }
    if (st->nports == before) {
        ibv_close_device(ctx);
        return 0;
    }
    st->nhcas++;
    return 0;
}

static void explain_memlock(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
        return;
    gp_error("ibv", "the locked-memory limit is %llu KiB (ulimit -l): raise it (e.g. "
             "'ulimit -l unlimited', or memlock in /etc/security/limits.conf, or "
             "LimitMEMLOCK= for a systemd service) or lower GASNET_MAX_SEGSIZE",
             (unsigned long long)lim.rlim_cur / 1024);
}

int ibv_dev_open(struct ibv_state *st, int quiet)
{
    int level = quiet ? GP_LOG_DEBUG : GP_LOG_ERROR;
    char why[256];
    struct ibv_port_filter *filter = NULL;
    if (ibv_port_filter_parse(st->set.ports_var, st->set.ports_text, &filter, why,
                              sizeof why) != 0) {
        gp_error("ibv", "%s", why);
        return PTL_FAIL;
    }
    /* The library comes in only now (ibv_verbs.h): GP_TRANSPORT=ibv must have it; the
     * hybrid, which asks only when the job crosses hosts with devices on both sides,
     * falls back to tcp. */
    char needed_by[96];
    if (gp_cfg.gp_transport != NULL)
        snprintf(needed_by, sizeof needed_by, "GP_TRANSPORT=%s", gp_cfg.gp_transport);
    else
        snprintf(needed_by, sizeof needed_by, "the default transport (GP_TRANSPORT unset: hybrid)");
    if (ibv_verbs_load(needed_by, !quiet) != 0) {
        ibv_port_filter_free(filter);
        return PTL_FAIL;
    }
    int count = 0;
    struct ibv_device **list = ibv_get_device_list(&count);
    if (list == NULL || count == 0) {
        gp_log(level, "ibv", "no InfiniBand / RoCE device found%s%s (ibv_devices lists them; "
               "check GASNET_IBV_PORTS, or set GP_TRANSPORT=tcp)",
               list == NULL ? ": " : "", list == NULL ? strerror(errno) : "");
        if (list)
            ibv_free_device_list(list);
        ibv_port_filter_free(filter);
        return PTL_FAIL;
    }
    /* seed 003: all HCAs when GASNET_NUM_QPS is 0, else the first GASNET_NUM_QPS ports */
    unsigned wanted_ports = st->set.num_qps > 0 ? (unsigned)st->set.num_qps : IBV_MAX_PORTS;
    int rc = 0;
    for (int i = 0; i < count && rc == 0 && st->nhcas < IBV_MAX_HCAS &&
                    st->nports < wanted_ports; i++)
        rc = scan_device(st, list[i], filter, wanted_ports);
    ibv_free_device_list(list);
    ibv_port_filter_free(filter);
    if (rc != 0)
        return PTL_FAIL;
    if (st->nports == 0) {
        gp_log(level, "ibv", "no active port%s%s%s (ibv_devinfo shows port states; "
               "GASNET_IBV_PORTS takes HCA[:port,...]+...)",
               st->set.ports_text && *st->set.ports_text ? " matches " : " found",
               st->set.ports_text && *st->set.ports_text ? st->set.ports_var : "",
               st->set.ports_text && *st->set.ports_text ? "" : "");
        if (st->set.ports_text && *st->set.ports_text)
            gp_log(level, "ibv", "%s='%s' selected nothing", st->set.ports_var,
                   st->set.ports_text);
        return PTL_FAIL;
    }
    for (unsigned h = 0; h < st->nhcas; h++) {
        st->hca[h].pd = ibv_alloc_pd(st->hca[h].ctx);
        if (st->hca[h].pd == NULL) {
            gp_error("ibv", "cannot allocate a protection domain on %s: %m", st->hca[h].name);
            return PTL_FAIL;
        }
    }
    st->nqps = st->set.num_qps > 0 ? (unsigned)st->set.num_qps : st->nports;
    if (st->nqps > IBV_MAX_QPS)
        st->nqps = IBV_MAX_QPS;
    return PTL_OK;
}

static struct ibv_mr *register_or_explain(struct ibv_hca *h, void *addr, size_t len,
                                          const char *what)
{
    struct ibv_mr *mr = ibv_reg_mr(h->pd, addr, len,
                                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                       IBV_ACCESS_REMOTE_READ);
    if (mr == NULL) {
        gp_error("ibv", "cannot register %s (%zu bytes at %p) with %s: %m", what, len, addr,
                 h->name);
        if (errno == ENOMEM || errno == EPERM)
            explain_memlock();
    }
    return mr;
}

static void *alloc_buffers(size_t count)
{
    void *mem = mmap(NULL, count * IBV_BUF_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return mem == MAP_FAILED ? NULL : mem;
}

int ibv_dev_register(struct ibv_state *st)
{
    struct nal_ni *ni = st->ni;
    uint64_t piece = st->set.pin_maxsz ? st->set.pin_maxsz : ni->region_bytes;
    unsigned pieces = (unsigned)((ni->region_bytes + piece - 1) / piece);
    if (pieces > IBV_MAX_PIN_MRS) {
        gp_error("ibv", "GASNET_PIN_MAXSZ=%llu splits the %llu-byte region into %u memory "
                 "regions; at most %d are supported: raise GASNET_PIN_MAXSZ to at least %llu",
                 (unsigned long long)st->set.pin_maxsz, (unsigned long long)ni->region_bytes,
                 pieces, IBV_MAX_PIN_MRS,
                 (unsigned long long)((ni->region_bytes + IBV_MAX_PIN_MRS - 1) / IBV_MAX_PIN_MRS));
        return PTL_FAIL;
    }
    st->bbuf = alloc_buffers(st->bbuf_count);
    st->rbuf = st->rbuf_count ? alloc_buffers(st->rbuf_count) : NULL;
    if (st->bbuf == NULL || (st->rbuf_count && st->rbuf == NULL)) {
        gp_error("ibv", "cannot allocate %u bounce and %zu receive buffers: %m", st->bbuf_count,
                 st->rbuf_count);
        return PTL_NO_SPACE;
    }
    /* Seed 003: the send CQ holds min(GASNET_NETWORKDEPTH_TOTAL, PP * (N - 1)), which
     * ibv_limits.c computed; ibv_post_send_wr keeps the work requests posted within it. */
    st->send_cq_depth = st->set.networkdepth_total > 0 ? (unsigned)st->set.networkdepth_total : 1;
    int cq_send = (int)st->send_cq_depth;
    int cq_recv = (int)(st->rbuf_count + 16);
    for (unsigned h = 0; h < st->nhcas; h++) {
        struct ibv_hca *hca = &st->hca[h];
        for (unsigned k = 0; k < pieces; k++) {
            uint64_t off = (uint64_t)k * piece;
            uint64_t len = ni->region_bytes - off < piece ? ni->region_bytes - off : piece;
            hca->region_mr[k] = register_or_explain(hca, (char *)ni->region + off, len,
                                                    "the registered region");
            if (hca->region_mr[k] == NULL)
                return PTL_FAIL;
        }
        hca->region_mrs = pieces;
        hca->bbuf_mr = register_or_explain(hca, st->bbuf, (size_t)st->bbuf_count * IBV_BUF_BYTES,
                                           "the bounce buffers");
        if (hca->bbuf_mr == NULL)
            return PTL_FAIL;
        if (h == st->port[0].hca && st->rbuf_count) {
            hca->rbuf_mr = register_or_explain(hca, st->rbuf, st->rbuf_count * IBV_BUF_BYTES,
                                               "the receive buffers");
            if (hca->rbuf_mr == NULL)
                return PTL_FAIL;
        }
        int max_cqe = hca->attr.max_cqe;
        hca->send_cq = ibv_create_cq(hca->ctx, cq_send < max_cqe ? cq_send : max_cqe, NULL,
                                     hca->channel, 0);
        hca->recv_cq = ibv_create_cq(hca->ctx, cq_recv < max_cqe ? cq_recv : max_cqe, NULL,
                                     hca->channel, 0);
        if (hca->send_cq == NULL || hca->recv_cq == NULL) {
            gp_error("ibv", "cannot create completion queues on %s (%d and %d entries): %m",
                     hca->name, cq_send, cq_recv);
            return PTL_FAIL;
        }
        if (h == st->port[0].hca && st->rbuf_count && ibv_srq_create(st) != PTL_OK)
            return PTL_FAIL;
    }
    return PTL_OK;
}

void ibv_dev_close(struct ibv_state *st)
{
    for (unsigned h = 0; h < st->nhcas; h++) {
        struct ibv_hca *hca = &st->hca[h];
        if (hca->firehose)
            firehose_free(hca->firehose);
        for (unsigned k = 0; k < hca->region_mrs; k++)
            ibv_dereg_mr(hca->region_mr[k]);
        if (hca->bbuf_mr)
            ibv_dereg_mr(hca->bbuf_mr);
        if (hca->srq) /* after the QPs that used it (ibv_qp_destroy_all) */
            ibv_destroy_srq(hca->srq);
        if (hca->rbuf_mr)
            ibv_dereg_mr(hca->rbuf_mr);
        if (hca->send_cq)
            ibv_destroy_cq(hca->send_cq);
        if (hca->recv_cq)
            ibv_destroy_cq(hca->recv_cq);
        if (hca->channel)
            ibv_destroy_comp_channel(hca->channel);
        if (hca->pd)
            ibv_dealloc_pd(hca->pd);
        if (hca->ctx)
            ibv_close_device(hca->ctx);
        memset(hca, 0, sizeof *hca);
    }
    st->nhcas = 0;
    if (st->bbuf)
        munmap(st->bbuf, (size_t)st->bbuf_count * IBV_BUF_BYTES);
    if (st->rbuf)
        munmap(st->rbuf, st->rbuf_count * IBV_BUF_BYTES);
    st->bbuf = st->rbuf = NULL;
}

uint64_t ibv_region_keys(const struct ibv_state *st, unsigned hca, const void *addr, uint64_t len,
                         uint32_t *lkey, uint32_t *rkey)
{
    const char *base = st->ni->region;
    const char *p = addr;
    if (p < base || p >= base + st->ni->region_bytes)
        return 0;
    uint64_t off = (uint64_t)(p - base);
    uint64_t piece = st->set.pin_maxsz ? st->set.pin_maxsz : st->ni->region_bytes;
    unsigned k = (unsigned)(off / piece);
    uint64_t piece_end = (uint64_t)(k + 1) * piece;
    if (piece_end > st->ni->region_bytes)
        piece_end = st->ni->region_bytes;
    *lkey = st->hca[hca].region_mr[k]->lkey;
    *rkey = st->hca[hca].region_mr[k]->rkey;
    return len < piece_end - off ? len : piece_end - off;
}

void ibv_port_describe(const struct ibv_state *st, unsigned port_index, struct ibv_port_wire *out)
{
    const struct ibv_port *port = &st->port[port_index];
    const struct ibv_hca *hca = &st->hca[port->hca];
    memset(out, 0, sizeof *out);
    memcpy(out->gid, port->gid.raw, 16);
    out->lid = port->lid;
    out->link_layer = port->link_layer;
    out->mtu = port->mtu;
    for (unsigned k = 0; k < hca->region_mrs; k++)
        out->rkey[k] = hca->region_mr[k]->rkey;
}
