/*
 * Where this process is: the address it reaches gp-run from, and the
 * identity of its host.
 *
 * The transports publish the first (tcp listens there) and compare the
 * second (peers with the same host identity map each other's memory).  A
 * hostname alone is not a host identity: network namespaces, containers
 * and cloned machines share hostnames, or share a kernel under different
 * ones.  Two processes can map each other's /dev/shm objects when they
 * run under one kernel (same boot id) in the same UTS view (same
 * hostname), so the identity is both; GP_HOST_ID replaces it for
 * launchers that know better (and for tests that pretend to be hosts).
 * Under PMIx the launcher says which ranks share a node (PMIX_HOSTNAME and
 * PMIX_LOCAL_PEERS), and that is the identity unless GP_HOST_ID is set.
 */
#include "boot/bootint.h"

#include "config/config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void gp_boot_local_ipv4(uint32_t *ipv4)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof local;
    if (gp_boot.pmix) {
        gp_boot_pmix_local_ipv4(ipv4); /* no gp-run to face: see boot/pmix.c */
        return;
    }
    *ipv4 = htonl(INADDR_LOOPBACK);
    if (gp_boot.fd < 0 || getsockname(gp_boot.fd, (struct sockaddr *)&local, &len) != 0)
        return;
    if (local.ss_family == AF_INET) {
        *ipv4 = ((struct sockaddr_in *)&local)->sin_addr.s_addr;
    } else if (local.ss_family == AF_INET6) {
        /* gp-run listens dual-stack: an IPv4 peer shows up as ::ffff:a.b.c.d. */
        const struct in6_addr *a6 = &((struct sockaddr_in6 *)&local)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a6))
            memcpy(ipv4, a6->s6_addr + 12, 4);
    }
}

static void read_boot_id(char *out, size_t len)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    out[0] = '\0';
    if (f == NULL)
        return;
    if (fgets(out, (int)len, f) == NULL)
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

void gp_boot_machine_id(char *out, size_t len)
{
    read_boot_id(out, len);
}

void gp_boot_host_identity(char *out, size_t len)
{
    const char *configured = gp_cfg.gp_host_id;
    if (configured != NULL && *configured != '\0') {
        snprintf(out, len, "id:%s", configured);
        return;
    }
    if (gp_boot.pmix && gp_boot_pmix_host_identity(out, len) == 0)
        return; /* the launcher's own idea of which ranks share a node */
    char host[256] = "", boot_id[64];
    gethostname(host, sizeof host - 1);
    read_boot_id(boot_id, sizeof boot_id);
    snprintf(out, len, "%s/%s", host, boot_id);
}
