/* The tcp transport's rows. */
#include "nal/tcp/tcp_config.h"

#include "config/rows.h"

#define TCP_FIELD(member) GP_CFG_FIELD_OF(struct tcp_config, member)

static const struct gp_cfg_row tcp_rows[] = {
    { .name = "GP_TCP_ADDR", .type = GP_CFG_STRING, .default_text = NULL, .transport = "tcp",
      .offset = TCP_FIELD(gp_tcp_addr), .unset_means = "the address gp-run is reached from",
      .doc = "IPv4 address of this host that the tcp transport listens on and publishes to "
             "its peers" },
    { .name = "GP_TCP_CONNECT", .type = GP_CFG_STRING, .default_text = "lazy",
      .choices = "lazy|eager", .transport = "tcp", .offset = TCP_FIELD(gp_tcp_connect),
      .doc = "when tcp connections are made: lazy dials a peer when this process first sends "
             "to it (a job whose ranks talk to few others opens few sockets and attaches "
             "fast); eager connects every pair at attach" },
};

struct tcp_config tcp_cfg;

const struct gp_cfg_group tcp_cfg_group = {
    .layer = "tcp", GP_CFG_GROUP_ROWS(tcp_rows), GP_CFG_GROUP_VALUES(tcp_cfg),
};
