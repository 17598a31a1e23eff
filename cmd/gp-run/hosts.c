/*
 * The hosts of an ssh job, as seed 003 defines them for gasnetrun: a file
 * with one host name per line (blank lines and '#' comments ignored) named
 * by --hostfile or GASNET_SSH_NODEFILE, or a list in GASNET_SSH_SERVERS
 * separated by commas or white space.  The file wins over the list when
 * both are set.  With -N M (or -n N:M) the first M hosts are used, else as
 * many as there are processes, at most all of them.  Ranks go over the
 * hosts in blocks: host h runs ranks first_rank(h) .. first_rank(h+1)-1,
 * the first N mod M hosts one more than the others.
 */
#include "gp_run.h"

#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_host(struct host_list *list, const char *name, size_t len)
{
    char **grown = realloc(list->names, ((size_t)list->count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    list->names = grown;
    list->names[list->count] = strndup(name, len);
    if (list->names[list->count] == NULL)
        return -1;
    list->count++;
    return 0;
}

/* A host name as ssh takes it: [user@]host, no spaces or shell characters. */
static int valid_name(const char *name, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && strchr("-._@:[]%", name[i]) == NULL)
            return 0;
    return len > 0;
}

static int read_file(const char *path, const char *what, struct host_list *list)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        run_say("%s %s: %s", what, path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        char *start = line;
        while (isspace((unsigned char)*start))
            start++;
        size_t len = strcspn(start, " \t\r\n");
        char *after = start + len + strspn(start + len, " \t\r\n");
        if (len == 0)
            continue;
        if (*after != '\0' || !valid_name(start, len)) {
            run_say("%s %s, line %d: '%s' is not a host name (one host name per line; "
                    "'#' starts a comment)", what, path, lineno, strtok(start, "\r\n"));
            rc = -1;
        } else if (add_host(list, start, len) != 0) {
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

static int read_servers(const char *text, struct host_list *list)
{
    const char *p = text;
    while (*p != '\0') {
        p += strspn(p, ", \t\n");
        size_t len = strcspn(p, ", \t\n");
        if (len == 0)
            break;
        if (!valid_name(p, len)) {
            run_say("GASNET_SSH_SERVERS='%s': '%.*s' is not a host name (names separated by "
                    "commas or spaces)", text, (int)len, p);
            return -1;
        }
        if (add_host(list, p, len) != 0)
            return -1;
        p += len;
    }
    return 0;
}

int hosts_load(const struct run_opts *opts, struct host_list *list)
{
    memset(list, 0, sizeof *list);
    const char *nodefile = gp_config_getenv("GASNET_SSH_NODEFILE");
    const char *servers = gp_config_getenv("GASNET_SSH_SERVERS");
    int rc;
    if (opts->hostfile != NULL) {
        snprintf(list->source, sizeof list->source, "--hostfile %s", opts->hostfile);
        rc = read_file(opts->hostfile, "--hostfile", list);
    } else if (nodefile != NULL && *nodefile != '\0') {
        snprintf(list->source, sizeof list->source, "GASNET_SSH_NODEFILE=%s", nodefile);
        rc = read_file(nodefile, "GASNET_SSH_NODEFILE", list);
    } else if (servers != NULL && *servers != '\0') {
        snprintf(list->source, sizeof list->source, "GASNET_SSH_SERVERS");
        rc = read_servers(servers, list);
    } else {
        run_say("the ssh spawner needs hosts: --hostfile FILE, GASNET_SSH_NODEFILE=FILE or "
                "GASNET_SSH_SERVERS='host1 host2 ...'");
        return -1;
    }
    if (rc == 0 && list->count == 0) {
        run_say("%s names no host", list->source);
        rc = -1;
    }
    return rc;
}

void hosts_free(struct host_list *list)
{
    for (int i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
    memset(list, 0, sizeof *list);
}

/* See gp_run.h.  No limit of its own: the tree of agents (tree.h) spreads the shells. */
int hosts_use(const struct run_opts *opts, const struct host_list *list)
{
    int wanted = opts->nhosts > 0 ? opts->nhosts
                                  : (opts->nprocs < list->count ? opts->nprocs : list->count);
    if (wanted > list->count) {
        run_say("-N %d: %s lists only %d host%s", wanted, list->source, list->count,
                list->count == 1 ? "" : "s");
        return -1;
    }
    if (wanted > opts->nprocs) {
        run_say("-N %d: more hosts than processes (-n %d)", wanted, opts->nprocs);
        return -1;
    }
    return wanted;
}

int hosts_first_rank(int nprocs, int nhosts, int h)
{
    int base = nprocs / nhosts, extra = nprocs % nhosts;
    return h * base + (h < extra ? h : extra);
}
