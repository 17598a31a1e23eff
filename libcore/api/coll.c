/*
 * The GASNet-1 collectives (gasnet_coll.h): argument checks, then a plan of
 * what this node sends, receives and copies for its part, which
 * conduit/coll.c carries out.  The collectives return void, so a bad
 * argument is a fatal error naming the call, the argument and what is
 * accepted.
 */
#include <gasnet.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/export.h"
#include "conduit/core.h"
#include "util/log.h"

struct _gasnet_team {
    const char *name;
};
static struct _gasnet_team team_all = { "GASNET_TEAM_ALL" };
GP_EXPORT gasnet_team_handle_t _gasnet_team_all = &team_all;

static int coll_ready;

#define IN_FLAGS (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC)
#define OUT_FLAGS (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC)
#define MODE_FLAGS (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL)
#define ALL_FLAGS (IN_FLAGS | OUT_FLAGS | MODE_FLAGS | GASNET_COLL_AGGREGATE | \
                   GASNET_COLL_DST_IN_SEGMENT | GASNET_COLL_SRC_IN_SEGMENT)

static int one_bit(int bits)
{
    return bits != 0 && (bits & (bits - 1)) == 0;
}

static void check_phase(const char *call)
{
    if (!gpc.attached)
        gp_fatal("%s called before gasnet_attach", call);
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler (collectives are for main-line code)", call);
}

static void check_flags(const char *call, int flags)
{
    if (flags & ~ALL_FLAGS)
        gp_fatal("%s: flags 0x%x hold unknown bits 0x%x (accepted: GASNET_COLL_IN_*, "
                 "GASNET_COLL_OUT_*, GASNET_COLL_SINGLE/LOCAL, GASNET_COLL_AGGREGATE, "
                 "GASNET_COLL_DST/SRC_IN_SEGMENT)", call, (unsigned)flags, (unsigned)(flags & ~ALL_FLAGS));
    if (!one_bit(flags & IN_FLAGS))
        gp_fatal("%s: flags 0x%x must hold exactly one of GASNET_COLL_IN_NOSYNC, "
                 "GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC", call, (unsigned)flags);
    if (!one_bit(flags & OUT_FLAGS))
        gp_fatal("%s: flags 0x%x must hold exactly one of GASNET_COLL_OUT_NOSYNC, "
                 "GASNET_COLL_OUT_MYSYNC, GASNET_COLL_OUT_ALLSYNC", call, (unsigned)flags);
    if (!one_bit(flags & MODE_FLAGS))
        gp_fatal("%s: flags 0x%x must hold exactly one of GASNET_COLL_SINGLE, GASNET_COLL_LOCAL",
                 call, (unsigned)flags);
}

static void check_call(const char *call, gasnet_team_handle_t team, int flags)
{
    check_phase(call);
    if (!coll_ready)
        gp_fatal("%s called before gasnet_coll_init", call);
    if (team != &team_all)
        gp_fatal("%s: team %p is not GASNET_TEAM_ALL, the only team gp has", call, (void *)team);
    check_flags(call, flags);
}

static void check_image(const char *call, const char *what, gasnet_image_t image)
{
    if (image >= gpc.nodes)
        gp_fatal("%s: %s %u does not exist (images are 0 to %u, one per node)", call, what, image,
                 gpc.nodes - 1);
}

/* [addr, +bytes) within this node's segment, as DST/SRC_IN_SEGMENT promise? */
static void check_in_segment(const char *call, const char *what, int promised, const void *addr,
                             uint64_t bytes)
{
    if (!promised || bytes == 0)
        return;
    const char *base = gpc.seginfo[gpc.rank].addr, *p = addr;
    uint64_t size = gpc.seginfo[gpc.rank].size;
    if (base == NULL || p < base || bytes > size || (uint64_t)(p - base) > size - bytes)
        gp_fatal("%s: %s %p + %llu bytes is not in this node's segment [%p, +%llu), as "
                 "GASNET_COLL_%s_IN_SEGMENT says", call, what, addr, (unsigned long long)bytes,
                 (const void *)base, (unsigned long long)size, what[0] == 'd' ? "DST" : "SRC");
}

static void check_buffers(const char *call, int flags, void *dst, uint64_t dst_bytes, void *src,
                          uint64_t src_bytes)
{
    if (dst_bytes > 0 && dst == NULL)
        gp_fatal("%s: dst is NULL for %llu bytes", call, (unsigned long long)dst_bytes);
    if (src_bytes > 0 && src == NULL)
        gp_fatal("%s: src is NULL for %llu bytes", call, (unsigned long long)src_bytes);
    check_in_segment(call, "dst", flags & GASNET_COLL_DST_IN_SEGMENT, dst, dst_bytes);
    check_in_segment(call, "src", flags & GASNET_COLL_SRC_IN_SEGMENT, src, src_bytes);
}

/* nbytes for each of the job's nodes, refusing sizes that do not fit. */
static uint64_t per_node(const char *call, size_t nbytes)
{
    if (nbytes > SIZE_MAX / gpc.nodes)
        gp_fatal("%s: nbytes %zu times %u nodes does not fit in size_t", call, nbytes, gpc.nodes);
    return (uint64_t)nbytes * gpc.nodes;
}

static enum gpc_coll_sync sync_of(int flags, int no, int my)
{
    return (flags & no) ? GPC_COLL_NOSYNC : (flags & my) ? GPC_COLL_MYSYNC : GPC_COLL_ALLSYNC;
}

/* A plan with its send and sender lists sized for the job. */
struct plan {
    struct gpc_coll_plan p;
    struct gpc_coll_send *sends;
    gasnet_node_t *senders;
};

static void plan_start(struct plan *plan, int flags)
{
    plan->sends = calloc(gpc.nodes, sizeof *plan->sends);
    plan->senders = calloc(gpc.nodes, sizeof *plan->senders);
    if (plan->sends == NULL || plan->senders == NULL)
        gp_fatal("out of memory planning a collective for %u nodes", gpc.nodes);
    plan->p = (struct gpc_coll_plan){
        .in_sync = sync_of(flags, GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC),
        .out_sync = sync_of(flags, GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC),
        .sends = plan->sends,
        .senders = plan->senders,
    };
}

static void plan_send(struct plan *plan, gasnet_node_t to, const void *src, uint64_t nbytes,
                      uint64_t offset)
{
    if (nbytes > 0)
        plan->sends[plan->p.nsends++] = (struct gpc_coll_send){ to, src, nbytes, offset };
}

static void plan_receive(struct plan *plan, gasnet_node_t from, uint64_t nbytes)
{
    if (nbytes > 0) {
        plan->senders[plan->p.nsenders++] = from;
        plan->p.expected += nbytes;
    }
}

static void plan_self(struct plan *plan, void *dst, const void *src, uint64_t nbytes)
{
    plan->p.self_dst = dst;
    plan->p.self_src = src;
    plan->p.self_bytes = nbytes;
}

static void plan_run(struct plan *plan)
{
    gpc_coll_run(&plan->p);
    free(plan->sends);
    free(plan->senders);
}

GP_EXPORT void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                                gasnet_coll_fn_entry_t *fn_tbl, size_t fn_count, int init_flags)
{
    (void)my_image; /* meaningful only with an images table */
    check_phase("gasnet_coll_init");
    if (coll_ready)
        gp_fatal("gasnet_coll_init called twice");
    if (images != NULL)
        gp_fatal("gasnet_coll_init: images must be NULL: gp runs one image per node "
                 "(GASNet's multi-image PAR mode is not supported)");
    if (fn_count > 0 && fn_tbl == NULL)
        gp_fatal("gasnet_coll_init: fn_tbl is NULL with fn_count %zu", fn_count);
    if (init_flags != 0)
        gp_fatal("gasnet_coll_init: init_flags is 0x%x; no flags are defined, pass 0",
                 (unsigned)init_flags);
    coll_ready = 1;
}

static void broadcast(const char *call, gasnet_team_handle_t team, void *dst,
                      gasnet_image_t srcimage, void *src, size_t nbytes, int flags)
{
    check_call(call, team, flags);
    check_image(call, "srcimage", srcimage);
    int root = gpc.rank == srcimage;
    check_buffers(call, flags, dst, nbytes, root ? src : NULL, root ? nbytes : 0);
    struct plan plan;
    plan_start(&plan, flags);
    plan.p.recv_bytes = nbytes;
    if (root) {
        for (gasnet_node_t node = 0; node < gpc.nodes; node++)
            if (node != gpc.rank)
                plan_send(&plan, node, src, nbytes, 0);
        plan_self(&plan, dst, src, nbytes);
    } else {
        plan.p.dst = dst;
        plan_receive(&plan, srcimage, nbytes);
    }
    plan_run(&plan);
}

static void scatter(const char *call, gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                    void *src, size_t nbytes, int flags)
{
    check_call(call, team, flags);
    check_image(call, "srcimage", srcimage);
    int root = gpc.rank == srcimage;
    uint64_t all = per_node(call, nbytes);
    check_buffers(call, flags, dst, nbytes, root ? src : NULL, root ? all : 0);
    struct plan plan;
    plan_start(&plan, flags);
    plan.p.recv_bytes = nbytes;
    if (root) {
        for (gasnet_node_t node = 0; node < gpc.nodes; node++)
            if (node != gpc.rank)
                plan_send(&plan, node, (char *)src + (uint64_t)node * nbytes, nbytes, 0);
        plan_self(&plan, dst, (char *)src + (uint64_t)gpc.rank * nbytes, nbytes);
    } else {
        plan.p.dst = dst;
        plan_receive(&plan, srcimage, nbytes);
    }
    plan_run(&plan);
}

static void gather(const char *call, gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                   void *src, size_t nbytes, int flags)
{
    check_call(call, team, flags);
    check_image(call, "dstimage", dstimage);
    int root = gpc.rank == dstimage;
    uint64_t all = per_node(call, nbytes);
    check_buffers(call, flags, root ? dst : NULL, root ? all : 0, src, nbytes);
    struct plan plan;
    plan_start(&plan, flags);
    plan.p.recv_bytes = all;
    uint64_t mine = (uint64_t)gpc.rank * nbytes;
    if (root) {
        plan.p.dst = dst;
        for (gasnet_node_t node = 0; node < gpc.nodes; node++)
            if (node != gpc.rank)
                plan_receive(&plan, node, nbytes);
        plan_self(&plan, (char *)dst + mine, src, nbytes);
    } else {
        plan_send(&plan, dstimage, src, nbytes, mine);
    }
    plan_run(&plan);
}

/* gather_all (src_stride 0: every node gets the same block) and exchange
 * (src_stride nbytes: node j gets block j). */
static void all_to_all(const char *call, gasnet_team_handle_t team, void *dst, void *src,
                       size_t nbytes, int flags, int exchange)
{
    check_call(call, team, flags);
    uint64_t all = per_node(call, nbytes);
    check_buffers(call, flags, dst, all, src, exchange ? all : nbytes);
    struct plan plan;
    plan_start(&plan, flags);
    plan.p.recv_bytes = all;
    plan.p.dst = dst;
    uint64_t mine = (uint64_t)gpc.rank * nbytes;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        if (node == gpc.rank)
            continue;
        const char *block = (const char *)src + (exchange ? (uint64_t)node * nbytes : 0);
        plan_send(&plan, node, block, nbytes, mine);
        plan_receive(&plan, node, nbytes);
    }
    plan_self(&plan, (char *)dst + mine, (const char *)src + (exchange ? mine : 0), nbytes);
    plan_run(&plan);
}

GP_EXPORT void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                     void *src, size_t nbytes, int flags)
{
    broadcast("gasnet_coll_broadcast", team, dst, srcimage, src, nbytes, flags);
}

GP_EXPORT void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                   void *src, size_t nbytes, int flags)
{
    scatter("gasnet_coll_scatter", team, dst, srcimage, src, nbytes, flags);
}

GP_EXPORT void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                  void *src, size_t nbytes, int flags)
{
    gather("gasnet_coll_gather", team, dstimage, dst, src, nbytes, flags);
}

GP_EXPORT void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src,
                                      size_t nbytes, int flags)
{
    all_to_all("gasnet_coll_gather_all", team, dst, src, nbytes, flags, 0);
}

GP_EXPORT void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                    int flags)
{
    all_to_all("gasnet_coll_exchange", team, dst, src, nbytes, flags, 1);
}

/* The non-blocking forms finish before they return; see gasnet_coll.h. */
GP_EXPORT gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                        gasnet_image_t srcimage, void *src,
                                                        size_t nbytes, int flags)
{
    broadcast("gasnet_coll_broadcast_nb", team, dst, srcimage, src, nbytes, flags);
    return GASNET_COLL_INVALID_HANDLE;
}

GP_EXPORT gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                      gasnet_image_t srcimage, void *src,
                                                      size_t nbytes, int flags)
{
    scatter("gasnet_coll_scatter_nb", team, dst, srcimage, src, nbytes, flags);
    return GASNET_COLL_INVALID_HANDLE;
}

GP_EXPORT gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team,
                                                     gasnet_image_t dstimage, void *dst, void *src,
                                                     size_t nbytes, int flags)
{
    gather("gasnet_coll_gather_nb", team, dstimage, dst, src, nbytes, flags);
    return GASNET_COLL_INVALID_HANDLE;
}

GP_EXPORT gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                         void *src, size_t nbytes, int flags)
{
    all_to_all("gasnet_coll_gather_all_nb", team, dst, src, nbytes, flags, 0);
    return GASNET_COLL_INVALID_HANDLE;
}

GP_EXPORT gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst,
                                                       void *src, size_t nbytes, int flags)
{
    all_to_all("gasnet_coll_exchange_nb", team, dst, src, nbytes, flags, 1);
    return GASNET_COLL_INVALID_HANDLE;
}

GP_EXPORT int gasnet_coll_try_sync(gasnet_coll_handle_t handle)
{
    if (handle != GASNET_COLL_INVALID_HANDLE)
        gp_fatal("gasnet_coll_try_sync: handle %p was not returned by gp (its collectives "
                 "return GASNET_COLL_INVALID_HANDLE)", handle);
    return GASNET_OK;
}

GP_EXPORT void gasnet_coll_wait_sync(gasnet_coll_handle_t handle)
{
    if (handle != GASNET_COLL_INVALID_HANDLE)
        gp_fatal("gasnet_coll_wait_sync: handle %p was not returned by gp (its collectives "
                 "return GASNET_COLL_INVALID_HANDLE)", handle);
}
