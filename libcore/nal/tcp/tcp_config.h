/* The tcp rows' values (nal/tcp/tcp_config.c). */
#ifndef GP_NAL_TCP_CONFIG_H
#define GP_NAL_TCP_CONFIG_H

#include <stdint.h>

struct gp_cfg_group;

struct tcp_config {
    const char *gp_tcp_addr;           /* NULL: the address gp-run is reached from */
    const char *gp_tcp_connect;        /* "lazy" or "eager" */
    int64_t gp_tcp_keyproof_ms;        /* GP_TCP_KEYPROOF_MS: a new connection's time to prove the key */
};

/* Valid after gp_config_load(), which commits it with every other group's values. */
extern struct tcp_config tcp_cfg;
extern const struct gp_cfg_group tcp_cfg_group;

#endif
