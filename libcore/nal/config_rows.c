/*
 * The rows of the transport layer as a whole: which transport carries a
 * job, the order in which the hybrid tries the others, and the receive
 * thread that tcp and ibv share.
 */
#include "config/rows.h"

#include "nal/nal.h"

static const struct gp_cfg_row nal_rows[] = {
    { .name = "GP_TRANSPORT", .type = GP_CFG_STRING, .default_text = NULL,
      .choices_from = nal_selectable_names, .transport = "all",
      .offset = GP_CFG_FIELD(gp_transport), .unset_means = "automatic",
      .doc = "force one transport for every peer; unset picks per peer (shm on the same host, "
             "GP_HYBRID_ORDER's first usable transport to other hosts)" },
    { .name = "GP_HYBRID_ORDER", .type = GP_CFG_STRING, .default_text = NULL, .transport = "all",
      .offset = GP_CFG_FIELD(gp_hybrid_order),
      .unset_means = "every one, fastest first (ofi only on a hardware provider)",
      .doc = "with GP_TRANSPORT unset: the transports that may reach peers on other hosts, "
             "comma-separated, the preferred first (\"tcp\" keeps verbs devices unused; "
             "\"ofi\" takes libfabric whatever its provider); a pair of hosts takes the first "
             "that both can use, and a pair with none is an error" },
    { .name = "GASNET_RCV_THREAD", .type = GP_CFG_BOOL, .default_text = "0", .transport = "tcp",
      .offset = GP_CFG_FIELD(rcv_thread),
      .doc = "1: a thread waits on the network (tcp sockets; ibv completion events; ofi "
             "completion queues, where the provider gives them a file descriptor) and serves "
             "peers (puts, gets, AM requests and replies, whose handlers run on that thread) "
             "while the application computes; tcp, ibv and ofi, PAR builds only (seed 003)" },
};

static int check_nal_rows(const void *next, char *errbuf, size_t errlen)
{
    const struct gp_config *cfg = next;
    const struct nal_ops *order[NAL_ROUTES_MAX];
    if (cfg->gp_hybrid_order == NULL ||
        nal_route_order("GP_HYBRID_ORDER", cfg->gp_hybrid_order, order, errbuf, errlen) > 0)
        return GP_CFG_OK;
    return GP_CFG_ERR_BAD_ARG;
}

/* The conduit reads GP_TRANSPORT too (through ptl): these values stay in gp_cfg. */
const struct gp_cfg_group nal_cfg_group = {
    .layer = "nal", GP_CFG_GROUP_ROWS(nal_rows), GP_CFG_GROUP_VALUES(gp_cfg),
    .check = check_nal_rows,
};
