/*
 * The hosts a multi-host job would use, as GASNet's ssh spawner reads them
 * (seed 003): GASNET_SSH_NODEFILE, a file of host names one per line with
 * blank and '#' lines ignored, wins over GASNET_SSH_SERVERS, names
 * separated by commas or white space.  A name given twice is kept once.
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

static int add_host(struct host_list *hosts, const char *name, size_t len)
{
    for (size_t i = 0; i < hosts->count; i++)
        if (strlen(hosts->names[i]) == len && strncmp(hosts->names[i], name, len) == 0)
            return 0;
    char **grown = realloc(hosts->names, (hosts->count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    hosts->names = grown;
    if ((hosts->names[hosts->count] = strndup(name, len)) == NULL)
        return -1;
    hosts->count++;
    return 0;
}

/* Every word of text separated by any of the separators. */
static int add_words(struct host_list *hosts, const char *text, const char *separators)
{
    for (const char *p = text + strspn(text, separators); *p != '\0';
         p += strspn(p, separators)) {
        size_t len = strcspn(p, separators);
        if (add_host(hosts, p, len) != 0)
            return -1;
        p += len;
    }
    return 0;
}

static int read_nodefile(struct host_list *hosts, const char *path)
{
    char line[1024];
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        check_report(CHECK_FAIL, "hosts", "point GASNET_SSH_NODEFILE at a readable file of "
                     "host names, one per line", "GASNET_SSH_NODEFILE=%s cannot be read: %m",
                     path);
        return -1;
    }
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, file) != NULL) {
        char *word = line + strspn(line, " \t\r\n");
        if (*word == '#' || *word == '\0')
            continue;
        rc = add_host(hosts, word, strcspn(word, " \t\r\n#"));
    }
    fclose(file);
    if (rc != 0)
        check_report(CHECK_FAIL, "hosts", NULL, "out of memory reading %s", path);
    return rc;
}

int hosts_load(struct host_list *hosts)
{
    const char *nodefile = gp_config_getenv("GASNET_SSH_NODEFILE");
    const char *servers = gp_config_getenv("GASNET_SSH_SERVERS");
    memset(hosts, 0, sizeof *hosts);
    if (nodefile != NULL && *nodefile != '\0') {
        hosts->source = "GASNET_SSH_NODEFILE";
        return read_nodefile(hosts, nodefile);
    }
    if (servers == NULL)
        return 0;
    hosts->source = "GASNET_SSH_SERVERS";
    if (add_words(hosts, servers, ", \t\r\n") == 0)
        return 0;
    check_report(CHECK_FAIL, "hosts", NULL, "out of memory reading GASNET_SSH_SERVERS");
    return -1;
}

void hosts_free(struct host_list *hosts)
{
    for (size_t i = 0; i < hosts->count; i++)
        free(hosts->names[i]);
    free(hosts->names);
    memset(hosts, 0, sizeof *hosts);
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
                     "%s (from %s) does not resolve: %s", hosts->names[i], hosts->source, addr);
    }
    if (resolved > 0)
        check_ok("hostname", "%zu of the %zu hosts in %s resolve", resolved,
                 hosts->count, hosts->source);
}
