/*
 * ibv's line among gp-check's system checks ("rdma"): the devices
 * libibverbs finds here and the state of each port.  No device is a
 * warning, not a failure: gp runs over shm and tcp without one, and only
 * the ibv transport needs it.  Devices whose ports are all down are a
 * warning too, with the usual causes.
 */
#include "nal/ibv/ibv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CHECK_NAME "rdma"

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

void ibv_host_report(struct nal_host_report *out)
{
    /* gp-check is the only caller, so the line says it, not a warning of the loader's. */
    if (ibv_verbs_load(NULL, 0) != 0) {
        nal_host_say(out, NAL_HOST_WARN, CHECK_NAME, "nothing to do unless you want the ibv "
                     "transport: then install libibverbs1 and the adapter's provider (Debian's "
                     "ibverbs-providers)", "libibverbs.so.1 cannot be loaded: %s", ibv_verbs_why());
        return;
    }
    int count = 0, active = 0;
    char ports[1024] = "";
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&count);
    if (list == NULL || count == 0) {
        int err = list == NULL ? errno : 0;
        nal_host_say(out, NAL_HOST_WARN, CHECK_NAME, "nothing to do unless you want the ibv "
                     "transport: then load the adapter's driver (e.g. modprobe mlx5_ib), or add a "
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
        nal_host_say(out, NAL_HOST_OK, CHECK_NAME, NULL, "%d device%s: %s", count,
                     count == 1 ? "" : "s", ports);
    else
        nal_host_say(out, NAL_HOST_WARN, CHECK_NAME, "check the cable and the subnet manager "
                     "(ibstat, ibv_devinfo); ibv needs an ACTIVE port",
                     "%d device%s, no port active: %s", count, count == 1 ? "" : "s", ports);
}
