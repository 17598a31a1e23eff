/*
 * The job's hosts, numbered once for every layer above: one allgather of
 * the host identities (locality.c), and each rank's host numbered 0, 1,
 * ... in the order of each host's lowest rank.  gasnet_getNodeInfo, the
 * per-host sizing and the hybrid transport's choice of shm or a network
 * all read this one numbering, so they cannot disagree about who shares a
 * host, and a job makes the exchange once.
 *
 * Numbering sorts the ranks by identity (O(N log N)): a job of 20,000
 * ranks compares strings about 300,000 times, not 200 million.
 */
#include "boot/bootint.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static int *host_of_rank;   /* host_of_rank[rank] */
static int host_count;
static const char *identities;   /* for the sort only: the allgather's result */

static int by_identity_then_rank(const void *a, const void *b)
{
    int ra = *(const int *)a, rb = *(const int *)b;
    int order = strcmp(identities + (size_t)ra * GP_BOOT_HOST_ID_LEN,
                       identities + (size_t)rb * GP_BOOT_HOST_ID_LEN);
    return order != 0 ? order : (ra > rb) - (ra < rb);
}

static int by_rank_of(const void *a, const void *b, void *first_rank)
{
    const int *first = first_rank;
    int fa = first[*(const int *)a], fb = first[*(const int *)b];
    return (fa > fb) - (fa < fb);
}

/* Groups equal identities; numbers the groups by their lowest rank. */
static int number_hosts(const char *all, int size, int *out)
{
    int *order = malloc((size_t)size * sizeof *order);
    int *group_first = malloc((size_t)size * sizeof *group_first);
    int *group_of = malloc((size_t)size * sizeof *group_of);
    int *groups = malloc((size_t)size * sizeof *groups);
    if (order == NULL || group_first == NULL || group_of == NULL || groups == NULL) {
        free(order), free(group_first), free(group_of), free(groups);
        return -1;
    }
    for (int rank = 0; rank < size; rank++)
        order[rank] = rank;
    identities = all;
    qsort(order, (size_t)size, sizeof *order, by_identity_then_rank);
    identities = NULL;
    int ngroups = 0;
    for (int i = 0; i < size; i++) {
        int rank = order[i];
        if (i == 0 || strcmp(all + (size_t)rank * GP_BOOT_HOST_ID_LEN,
                             all + (size_t)order[i - 1] * GP_BOOT_HOST_ID_LEN) != 0)
            group_first[ngroups++] = rank;   /* sorted by rank within: the lowest comes first */
        group_of[rank] = ngroups - 1;
    }
    for (int g = 0; g < ngroups; g++)
        groups[g] = g;
    qsort_r(groups, (size_t)ngroups, sizeof *groups, by_rank_of, group_first);
    for (int g = 0; g < ngroups; g++)
        order[groups[g]] = g;   /* reused: the number of group g */
    for (int rank = 0; rank < size; rank++)
        out[rank] = order[group_of[rank]];
    free(order), free(group_first), free(group_of), free(groups);
    return ngroups;
}

int gp_boot_hosts_init(void)
{
    if (host_of_rank != NULL)
        return GP_BOOT_OK;
    int size = gp_boot.size;
    char mine[GP_BOOT_HOST_ID_LEN];
    memset(mine, 0, sizeof mine);
    gp_boot_host_identity(mine, sizeof mine);
    char *all = calloc((size_t)size, GP_BOOT_HOST_ID_LEN);
    int *hosts = calloc((size_t)size, sizeof *hosts);
    /* Every rank takes part in the allgather, even after a failure of its own. */
    int rc = gp_boot_allgather(mine, all != NULL ? (void *)all : (void *)mine,
                               all != NULL ? GP_BOOT_HOST_ID_LEN : 0);
    if (all == NULL || hosts == NULL) {
        gp_error("boot", "no memory to number the hosts of %d ranks", size);
        rc = GP_BOOT_ERR_RESOURCE;
    }
    int count = rc == GP_BOOT_OK ? number_hosts(all, size, hosts) : -1;
    free(all);
    if (count < 0) {
        free(hosts);
        return rc != GP_BOOT_OK ? rc : GP_BOOT_ERR_RESOURCE;
    }
    host_of_rank = hosts;
    host_count = count;
    return GP_BOOT_OK;
}

int gp_boot_host_of(int rank)
{
    if (host_of_rank == NULL || rank < 0 || rank >= gp_boot.size) {
        gp_error("boot", "gp_boot_host_of(%d) %s", rank,
                 host_of_rank == NULL ? "before gp_boot_hosts_init" : "names no rank");
        return -1;
    }
    return host_of_rank[rank];
}

int gp_boot_host_count(void)
{
    return host_count;
}
