/*
 * The rows of the transport layer as a whole: which transport carries a
 * job, and the receive thread that tcp and ibv share.
 */
#include "config/rows.h"

#include "nal/nal.h"

static const struct gp_cfg_row nal_rows[] = {
    { .name = "GP_TRANSPORT", .type = GP_CFG_STRING, .default_text = NULL,
      .choices_from = nal_selectable_names, .transport = "all",
      .offset = GP_CFG_FIELD(gp_transport), .unset_means = "automatic",
      .doc = "force one transport for every peer; unset picks per peer (shm on the same host, "
             "tcp to other hosts)" },
    { .name = "GASNET_RCV_THREAD", .type = GP_CFG_BOOL, .default_text = "0", .transport = "tcp",
      .offset = GP_CFG_FIELD(rcv_thread),
      .doc = "1: a thread waits on the network (tcp sockets; ibv completion events) and serves "
             "peers (puts, gets, AM requests and replies, whose handlers run on that thread) "
             "while the application computes; tcp and ibv, PAR builds only (seed 003)" },
};

const struct gp_cfg_group gp_cfg_group_nal = {
    "nal", GP_CFG_GROUP_ROWS(nal_rows), NULL, NULL,
};
