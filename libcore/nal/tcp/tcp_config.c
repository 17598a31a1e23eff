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
    { .name = "GP_TCP_KEYPROOF_MS", .type = GP_CFG_INT, .default_text = "10000", .min = 100,
      .max = 3600000, .transport = "tcp", .offset = TCP_FIELD(gp_tcp_keyproof_ms),
      .doc = "milliseconds a connection made to this process's listener has to prove the "
             "job's key, and then to say which rank it is, before it is closed as a "
             "stranger's (a peer that computes past it is not affected: what it sent waits "
             "in the socket)" },
};

struct tcp_config tcp_cfg;

const struct gp_cfg_group tcp_cfg_group = {
    .layer = "tcp", GP_CFG_GROUP_ROWS(tcp_rows), GP_CFG_GROUP_VALUES(tcp_cfg),
};
