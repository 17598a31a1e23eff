/*
 * System queries (§6 of the EX subset): the job, its neighbourhoods (the
 * processes that map each other's segments: gasnet_getNodeInfo's
 * supernodes) and hosts, and what gp offers threads.
 */
#include <gasnetex.h>
#include <stdlib.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/state.h"
#include "util/log.h"

GP_EXPORT gex_Rank_t gex_System_QueryJobRank(void) { return gpc.rank; }
GP_EXPORT gex_Rank_t gex_System_QueryJobSize(void) { return gpc.nodes; }

/* The members of this process's group, by jobrank (ascending), kept by gp:
 * rebuilt on each call, as attach may refine the supernodes. */
static gex_Rank_t *group_members(int by_host, gex_Rank_t *count, gex_Rank_t *mine)
{
    static gex_Rank_t *lists[2];
    if (!gpc.initialized)
        gp_fatal("gex_System_Query%sInfo called before gex_Client_Init", by_host ? "Host" : "Nbrhd");
    if (lists[by_host] == NULL && (lists[by_host] = calloc(gpc.nodes, sizeof(gex_Rank_t))) == NULL)
        gp_fatal("gex_System_Query%sInfo: out of memory", by_host ? "Host" : "Nbrhd");
    const gasnet_nodeinfo_t *info = gpc_nodeinfo();
    gasnet_node_t my_group = by_host ? info[gpc.rank].host : info[gpc.rank].supernode;
    gex_Rank_t n = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        if ((by_host ? info[node].host : info[node].supernode) != my_group)
            continue;
        if (node == gpc.rank)
            *mine = n;
        lists[by_host][n++] = node;
    }
    *count = n;
    return lists[by_host];
}

static void query_info(int by_host, gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                       gex_Rank_t *my_info_index_p)
{
    gex_Rank_t count, mine = 0;
    gex_Rank_t *members = group_members(by_host, &count, &mine);
    /* gex_RankInfo_t holds one gex_Rank_t, so the jobrank list is the info array */
    if (info_p)
        *info_p = (gex_RankInfo_t *)members;
    if (info_count_p)
        *info_count_p = count;
    if (my_info_index_p)
        *my_info_index_p = mine;
}

GP_EXPORT void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                         gex_Rank_t *my_info_index_p)
{
    query_info(0, info_p, info_count_p, my_info_index_p);
}

GP_EXPORT void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                        gex_Rank_t *my_info_index_p)
{
    query_info(1, info_p, info_count_p, my_info_index_p);
}

/* The ids are dense and numbered by each group's smallest jobrank (nodeinfo.c). */
GP_EXPORT void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p,
                                          gex_Rank_t *nbrhd_set_rank_p,
                                          gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p)
{
    if (!gpc.initialized)
        gp_fatal("gex_System_QueryMyPosition called before gex_Client_Init");
    const gasnet_nodeinfo_t *info = gpc_nodeinfo();
    gex_Rank_t supernodes = 0, hosts = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        if (info[node].supernode + 1 > supernodes)
            supernodes = info[node].supernode + 1;
        if (info[node].host + 1 > hosts)
            hosts = info[node].host + 1;
    }
    if (nbrhd_set_size_p)
        *nbrhd_set_size_p = supernodes;
    if (nbrhd_set_rank_p)
        *nbrhd_set_rank_p = info[gpc.rank].supernode;
    if (host_set_size_p)
        *host_set_size_p = hosts;
    if (host_set_rank_p)
        *host_set_rank_p = info[gpc.rank].host;
}

GP_EXPORT int gex_System_GetVerboseErrors(void) { return gp_api_verbose_errors; }

GP_EXPORT void gex_System_SetVerboseErrors(int enable)
{
    gp_api_verbose_errors = enable != 0;
}

GP_EXPORT int gex_System_QueryHiddenAMConcurrencyLevel(void)
{
    return GASNET_HIDDEN_AM_CONCURRENCY_LEVEL;
}

/* gp starts no progress threads, so a client that deferred them gets none. */
GP_EXPORT int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                              const gex_ProgressThreadInfo_t **info_p,
                                              gex_Flags_t flags)
{
    (void)flags;
    if (client == NULL || !(client->flags & GEX_FLAG_DEFER_THREADS))
        return GASNET_ERR_RESOURCE;
    if (count_p)
        *count_p = 0;
    if (info_p)
        *info_p = NULL;
    return GASNET_OK;
}

GP_EXPORT uint64_t gex_System_QueryMaxThreads(void)
{
#if GP_PAR
    return 256; /* GASNETT_MAX_THREADS */
#else
    return 1;
#endif
}
