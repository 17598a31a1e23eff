/*
 * The hosts of a multi-host job, as seed 003 has GASNet's ssh spawner find
 * them, read the same way by gp-run (where to start the job) and gp-check
 * (whether those hosts resolve and take a login): a file of host names one
 * per line (--hostfile, else GASNET_SSH_NODEFILE) wins over GASNET_SSH_SERVERS,
 * names separated by commas or white space.
 */
#ifndef GP_CMD_HOST_LIST_H
#define GP_CMD_HOST_LIST_H

#include <stddef.h>

struct host_list {
    char **names;          /* in the order given, repeats kept (host_list_drop_repeats) */
    size_t count;
    const char *origin;    /* the option or variable they came from: "--hostfile",
                            * "GASNET_SSH_NODEFILE", "GASNET_SSH_SERVERS"; NULL: none set */
    char source[320];      /* the origin with its value, for messages: "--hostfile FILE" */
};

/*
 * The job's hosts: the file hostfile names (gp-run's --hostfile) when not
 * NULL, else the file GASNET_SSH_NODEFILE names, else GASNET_SSH_SERVERS
 * (an empty variable counts as unset).  0 with no names and origin NULL
 * when none is set; -1 with why saying what is wrong, naming the source
 * and the entry, when the source cannot be read, holds something that is
 * not a host name, or names no host.
 */
int host_list_load(struct host_list *list, const char *hostfile, char *why, size_t whylen);

/* The pieces host_list_load uses, for a list it has set origin and source of. */
int host_list_read_file(struct host_list *list, const char *path, char *why, size_t whylen);
int host_list_parse_text(struct host_list *list, const char *text, char *why, size_t whylen);

/* Keeps the first of each name given more than once. */
void host_list_drop_repeats(struct host_list *list);
void host_list_free(struct host_list *list);

#endif
