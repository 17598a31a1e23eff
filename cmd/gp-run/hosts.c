/*
 * The hosts of an ssh job, as seed 003 defines them for gasnetrun, read by
 * the parser gp-check shares (cmd/common/host_list.h): a file with one host
 * name per line named by --hostfile or GASNET_SSH_NODEFILE, else a list in
 * GASNET_SSH_SERVERS.  With -N M (or -n N:M) the first M hosts are used,
 * else as many as there are processes, at most all of them.  Ranks go over the
 * hosts in blocks: host h runs ranks first_rank(h) .. first_rank(h+1)-1,
 * the first N mod M hosts one more than the others.
 */
#include "gp_run.h"

#include <limits.h>

int hosts_load(const struct run_opts *opts, struct host_list *list)
{
    char why[600];
    if (host_list_load(list, opts->hostfile, why, sizeof why) != 0) {
        run_say("%s", why);
        return -1;
    }
    if (list->origin == NULL) {
        run_say("the ssh spawner needs hosts: --hostfile FILE, GASNET_SSH_NODEFILE=FILE or "
                "GASNET_SSH_SERVERS='host1 host2 ...'");
        return -1;
    }
    return 0;
}

/* See gp_run.h.  No limit of its own: the tree of agents (tree.h) spreads the shells. */
int hosts_use(const struct run_opts *opts, const struct host_list *list)
{
    int listed = list->count < INT_MAX ? (int)list->count : INT_MAX;
    int wanted = opts->nhosts > 0 ? opts->nhosts : (opts->nprocs < listed ? opts->nprocs : listed);
    if (wanted > listed) {
        run_say("-N %d: %s lists only %d host%s", wanted, list->source, listed,
                listed == 1 ? "" : "s");
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
