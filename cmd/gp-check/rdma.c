/*
 * The RDMA check, through libibverbs: the devices this host has and the
 * state of each port.  No device is a warning, not a failure: gp runs over
 * shm and tcp without one, and only the ibv transport needs it.  Devices
 * whose ports are all down are a warning too, with the usual causes.
 */
#include "gp_check.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

int check_rdma_device_count(void)
{
    int count = 0;
    struct ibv_device **list = ibv_get_device_list(&count);
    if (list == NULL)
        return 0;
    ibv_free_device_list(list);
    return count;
}

/* Appends "NAME port P STATE (LINK), ..." for one device; returns its active ports. */
static int describe_device(struct ibv_device *device, char *buf, size_t len)
{
    size_t used = strlen(buf);
    int active = 0;
    const char *name = ibv_get_device_name(device);
    struct ibv_context *ctx = ibv_open_device(device);
    struct ibv_device_attr attr;
    if (ctx == NULL || ibv_query_device(ctx, &attr) != 0) {
        snprintf(buf + used, len - used, "%s%s (cannot open: %s)", used ? ", " : "", name,
                 strerror(errno));
        if (ctx != NULL)
            ibv_close_device(ctx);
        return 0;
    }
    for (uint8_t port = 1; port <= attr.phys_port_cnt && used < len; port++) {
        struct ibv_port_attr port_attr;
        used = strlen(buf);
        if (ibv_query_port(ctx, port, &port_attr) != 0) {
            snprintf(buf + used, len - used, "%s%s port %u (cannot query)", used ? ", " : "",
                     name, port);
            continue;
        }
        active += port_attr.state == IBV_PORT_ACTIVE;
        snprintf(buf + used, len - used, "%s%s port %u %s (%s)", used ? ", " : "", name, port,
                 ibv_port_state_str(port_attr.state),
                 port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
    }
    ibv_close_device(ctx);
    return active;
}

void check_rdma(void)
{
    int count = 0, active = 0;
    char ports[1024] = "";
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&count);
    if (list == NULL || count == 0) {
        int err = list == NULL ? errno : 0;
        check_report(CHECK_WARN, "rdma", "nothing to do unless you want the ibv transport: "
                     "then load the adapter's driver (e.g. modprobe mlx5_ib), or add a "
                     "software device (rdma link add rxe0 type rxe netdev eth0)",
                     "no RDMA device%s%s%s", err ? " (" : "",
                     err == ENOSYS ? "the kernel has no RDMA support loaded"
                                   : err ? strerror(err) : "", err ? ")" : "");
        if (list != NULL)
            ibv_free_device_list(list);
        return;
    }
    for (int i = 0; i < count; i++)
        active += describe_device(list[i], ports, sizeof ports);
    ibv_free_device_list(list);
    if (active > 0)
        check_ok("rdma", "%d device%s: %s", count, count == 1 ? "" : "s", ports);
    else
        check_report(CHECK_WARN, "rdma", "check the cable and the subnet manager (ibstat, "
                     "ibv_devinfo); ibv needs an ACTIVE port",
                     "%d device%s, no port active: %s", count, count == 1 ? "" : "s", ports);
}
