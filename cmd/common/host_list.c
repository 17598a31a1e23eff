/*
 * The host-list parser of gp-run and gp-check (host_list.h).  A host name is
 * taken as ssh takes it, [user@]host with letters, digits and -._@:[]%, so
 * that a name can never carry a shell character onto a remote command line.
 */
#include "host_list.h"

#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_SEPARATORS ", \t\r\n"   /* GASNET_SSH_SERVERS */
#define LINE_SPACE " \t\r\n"

static int valid_name(const char *name, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && strchr("-._@:[]%", name[i]) == NULL)
            return 0;
    return len > 0;
}

static int add_name(struct host_list *list, const char *name, size_t len, char *why,
                    size_t whylen)
{
    char **grown = realloc(list->names, (list->count + 1) * sizeof *grown);
    if (grown != NULL) {
        list->names = grown;
        list->names[list->count] = strndup(name, len);
    }
    if (grown == NULL || list->names[list->count] == NULL) {
        snprintf(why, whylen, "%s: out of memory after %zu host names", list->source,
                 list->count);
        return -1;
    }
    list->count++;
    return 0;
}

int host_list_read_file(struct host_list *list, const char *path, char *why, size_t whylen)
{
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        snprintf(why, whylen, "%s: %s", list->source, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t capacity = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &capacity, file) >= 0) {
        lineno++;
        line[strcspn(line, "#")] = '\0';
        char *name = line + strspn(line, LINE_SPACE);
        size_t len = strcspn(name, LINE_SPACE);
        if (len == 0)
            continue;
        if (name[len + strspn(name + len, LINE_SPACE)] != '\0' || !valid_name(name, len)) {
            name[strcspn(name, "\r\n")] = '\0';
            snprintf(why, whylen, "%s, line %d: '%s' is not a host name (one host name per "
                     "line; '#' starts a comment)", list->source, lineno, name);
            rc = -1;
        } else {
            rc = add_name(list, name, len, why, whylen);
        }
    }
    free(line);
    fclose(file);
    return rc;
}

int host_list_parse_text(struct host_list *list, const char *text, char *why, size_t whylen)
{
    for (const char *p = text + strspn(text, NAME_SEPARATORS); *p != '\0';
         p += strspn(p, NAME_SEPARATORS)) {
        size_t len = strcspn(p, NAME_SEPARATORS);
        if (!valid_name(p, len)) {
            snprintf(why, whylen, "%s='%s': '%.*s' is not a host name (names separated by "
                     "commas or spaces)", list->origin, text, (int)len, p);
            return -1;
        }
        if (add_name(list, p, len, why, whylen) != 0)
            return -1;
        p += len;
    }
    return 0;
}

int host_list_load(struct host_list *list, const char *hostfile, char *why, size_t whylen)
{
    memset(list, 0, sizeof *list);
    const char *nodefile = gp_config_getenv("GASNET_SSH_NODEFILE");
    const char *servers = gp_config_getenv("GASNET_SSH_SERVERS");
    int rc;
    if (hostfile != NULL) {
        list->origin = "--hostfile";
        snprintf(list->source, sizeof list->source, "--hostfile %s", hostfile);
        rc = host_list_read_file(list, hostfile, why, whylen);
    } else if (nodefile != NULL && *nodefile != '\0') {
        list->origin = "GASNET_SSH_NODEFILE";
        snprintf(list->source, sizeof list->source, "GASNET_SSH_NODEFILE=%s", nodefile);
        rc = host_list_read_file(list, nodefile, why, whylen);
    } else if (servers != NULL && *servers != '\0') {
        list->origin = "GASNET_SSH_SERVERS";
        snprintf(list->source, sizeof list->source, "GASNET_SSH_SERVERS");
        rc = host_list_parse_text(list, servers, why, whylen);
    } else {
        return 0;
    }
    if (rc == 0 && list->count == 0) {
        snprintf(why, whylen, "%s names no host", list->source);
        rc = -1;
    }
    if (rc != 0)
        host_list_free(list);
    return rc;
}

void host_list_drop_repeats(struct host_list *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        size_t j = 0;
        while (j < kept && strcmp(list->names[j], list->names[i]) != 0)
            j++;
        if (j < kept)
            free(list->names[i]);
        else
            list->names[kept++] = list->names[i];
    }
    list->count = kept;
}

void host_list_free(struct host_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
    memset(list, 0, sizeof *list);
}
