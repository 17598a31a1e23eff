/* The tcp transport's rows. */
#include "config/rows.h"

static const struct gp_cfg_row tcp_rows[] = {
    { .name = "GP_TCP_ADDR", .type = GP_CFG_STRING, .default_text = NULL, .transport = "tcp",
      .offset = GP_CFG_FIELD(gp_tcp_addr), .unset_means = "the address gp-run is reached from",
      .doc = "IPv4 address of this host that the tcp transport listens on and publishes to "
             "its peers" },
    { .name = "GP_TCP_CONNECT", .type = GP_CFG_STRING, .default_text = "lazy",
      .choices = "lazy|eager", .transport = "tcp", .offset = GP_CFG_FIELD(gp_tcp_connect),
      .doc = "when tcp connections are made: lazy dials a peer when this process first sends "
             "to it (a job whose ranks talk to few others opens few sockets and attaches "
             "fast); eager connects every pair at attach" },
};

const struct gp_cfg_group gp_cfg_group_tcp = {
    "tcp", GP_CFG_GROUP_ROWS(tcp_rows), NULL, NULL,
};
