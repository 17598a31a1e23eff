/* The tcp rows' values (nal/tcp/tcp_config.c). */
#ifndef GP_NAL_TCP_CONFIG_H
#define GP_NAL_TCP_CONFIG_H

struct gp_cfg_group;

struct tcp_config {
    const char *gp_tcp_addr;           /* NULL: the address gp-run is reached from */
    const char *gp_tcp_connect;        /* "lazy" or "eager" */
};

/* Valid after gp_config_load(), which commits it with every other group's values. */
extern struct tcp_config tcp_cfg;
extern const struct gp_cfg_group tcp_cfg_group;

#endif
