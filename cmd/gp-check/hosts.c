/*
 * The hosts a multi-host job would use, read by the parser gp-run shares
 * (cmd/common/host_list.h): GASNET_SSH_NODEFILE, a file of host names one
 * per line, wins over GASNET_SSH_SERVERS.  A name given twice is kept once.
 *
 * The host-name check: this host's own name must resolve (a peer, or the
 * ssh spawner, finds it by name), and so must every host listed.
 */
#include "gp_check.h"

#include "config/config.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int hosts_load(struct host_list *hosts)
{
    char why[600];
    if (host_list_load(hosts, NULL, why, sizeof why) != 0) {
        check_report(CHECK_FAIL, "hosts", "list one host name per line in GASNET_SSH_NODEFILE's "
                     "file, or separate them by commas or spaces in GASNET_SSH_SERVERS", "%s",
                     why);
        return -1;
    }
    host_list_drop_repeats(hosts);
    return 0;
}

/* The first address of name, as text, or the resolver's complaint. */
static int resolve(const char *name, char *buf, size_t len)
{
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(name, NULL, &hints, &found);
    if (rc != 0) {
        snprintf(buf, len, "%s", gai_strerror(rc));
        return -1;
    }
    if (getnameinfo(found->ai_addr, found->ai_addrlen, buf, (socklen_t)len, NULL, 0,
                    NI_NUMERICHOST) != 0)
        snprintf(buf, len, "an address");
    freeaddrinfo(found);
    return 0;
}

void check_hostname(const struct host_list *hosts)
{
    char name[256], addr[128];
    if (gethostname(name, sizeof name) != 0) {
        check_report(CHECK_FAIL, "hostname", "set one: hostnamectl set-hostname NAME",
                     "this host has no name: %m");
    } else if (resolve(name, addr, sizeof addr) != 0) {
        check_report(CHECK_WARN, "hostname", "add it to DNS or /etc/hosts",
                     "this host's name %s does not resolve: %s", name, addr);
    } else {
        check_ok("hostname", "this host is %s (%s)", name, addr);
    }
    size_t resolved = 0;
    for (size_t i = 0; hosts != NULL && i < hosts->count; i++) {
        if (resolve(hosts->names[i], addr, sizeof addr) == 0) {
            resolved++;
            continue;
        }
        check_report(CHECK_FAIL, "hostname", "correct the name, or add it to DNS or /etc/hosts",
                     "%s (from %s) does not resolve: %s", hosts->names[i], hosts->origin, addr);
    }
    if (resolved > 0)
        check_ok("hostname", "%zu of the %zu hosts in %s resolve", resolved,
                 hosts->count, hosts->origin);
}
