/*
 * The GASNet-1 collectives (gasnet_coll.h): gasnet_coll_init and its
 * images, the argument checks of every data mover and reduction, their
 * handles and the sync calls.  conduit/coll/coll.c moves the data.  The calls
 * return void or a handle, so a bad argument is a fatal error naming the
 * call, the argument and what is accepted.
 */
#include <gasnet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/gasnet1/coll_images.h"
#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/am/am.h"
#include "conduit/coll/coll.h"
#include "conduit/core/progress.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "conduit/coll/team.h"
#include "util/log.h"
#include "util/thread.h"

GP_EXPORT gasnet_team_handle_t _gasnet_team_all =
    (gasnet_team_handle_t)(void *)&gpc_team_all_storage;

static struct {
    int ready;                   /* gasnet_coll_init has run */
    int with_images;             /* ... with an images table */
    gasnet_coll_fn_entry_t *fn;
    size_t fn_count;
    gp_mutex_t lock;             /* the images' thread barrier */
    uint32_t arrived;
    uint32_t generation;
} state = { 0, 0, NULL, 0, GP_MUTEX_INITIALIZER, 0, 0 };

static _Thread_local int64_t thread_local_image = -1;

/* A handle: the operations it completes (an aggregate's members first). */
struct _gasnet_coll_handle {
    uint32_t count;
    struct gpc_coll_op *ops[];
};

/* This thread's GASNET_COLL_AGGREGATE operations not yet in a handle. */
static _Thread_local struct {
    struct gpc_coll_op **ops;
    uint32_t count, cap;
} pending;

#define IN_FLAGS (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC)
#define OUT_FLAGS (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC)
#define SCOPE_FLAGS (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL)
#define ALL_FLAGS ((1 << 20) - 1)

static int one_bit(int bits)
{
    return bits != 0 && (bits & (bits - 1)) == 0;
}

void gp_coll_check_phase(const char *call, int need_init)
{
    if (!gpc.attached)
        gp_fatal("%s called before gasnet_attach", call);
    if (gpc_in_handler)
        gp_fatal("%s called inside an AM handler (collectives are for main-line code)", call);
    if (need_init && !state.ready) {
        if (!gpx_client.ex_first)
            gp_fatal("%s called before gasnet_coll_init", call);
        /* GASNet-EX has no gasnet_coll_init (spec §12.5): an EX client's legacy collectives
         * run with one image per process and no reduction functions, as that call with no
         * table would set them up. */
        state.ready = 1;
    }
}

struct gpc_team *gp_coll_team(const char *call, gasnet_team_handle_t team)
{
    struct gpc_team *t = (struct gpc_team *)(void *)team;
    if (t == NULL || gpc_team_find(t->id) != t)
        gp_fatal("%s: team %p is not GASNET_TEAM_ALL or a team gasnet_coll_team_split "
                 "returned on this node", call, (void *)team);
    return t;
}

uint32_t gp_coll_local_image(const char *call, const struct gpc_team *team)
{
    if (team->local_images == 1)
        return 0;
    if (thread_local_image < 0)
        gp_fatal("%s: this thread is none of node %u's %u images (each image calls "
                 "gasnet_coll_init with its image number first)", call, gpc.rank,
                 team->local_images);
    return (uint32_t)thread_local_image;
}

void gp_coll_images_barrier(void)
{
    uint32_t n = gpc_team_all()->local_images;
    if (n <= 1)
        return;
    gp_mutex_lock(&state.lock);
    uint32_t generation = state.generation;
    if (++state.arrived == n) {
        state.arrived = 0;
        __atomic_store_n(&state.generation, generation + 1, __ATOMIC_RELEASE);
        gp_mutex_unlock(&state.lock);
        return;
    }
    gp_mutex_unlock(&state.lock);
    while (__atomic_load_n(&state.generation, __ATOMIC_ACQUIRE) == generation)
        gpc_wait_turn();
}

static void take_fn_table(gasnet_coll_fn_entry_t fn_tbl[], size_t fn_count)
{
    free(state.fn);
    state.fn = calloc(fn_count > 0 ? fn_count : 1, sizeof *state.fn);
    if (state.fn == NULL)
        gp_fatal("gasnet_coll_init: out of memory copying %zu functions", fn_count);
    if (fn_count > 0)
        memcpy(state.fn, fn_tbl, fn_count * sizeof *fn_tbl);
    state.fn_count = fn_count;
}

GP_EXPORT void gasnet_coll_init(const gasnet_image_t images[], gasnet_image_t my_image,
                                gasnet_coll_fn_entry_t fn_tbl[], size_t fn_count, int init_flags)
{
    gp_coll_check_phase("gasnet_coll_init", 0);
    if (fn_count > 0 && fn_tbl == NULL)
        gp_fatal("gasnet_coll_init: fn_tbl is NULL with fn_count %zu", fn_count);
    for (size_t i = 0; i < fn_count; i++) {
        if (fn_tbl[i].flags & ~(unsigned)(GASNET_COLL_AMSAFE | GASNET_COLL_NONCOMM))
            gp_fatal("gasnet_coll_init: fn_tbl[%zu].flags 0x%x hold unknown bits (accepted: "
                     "GASNET_COLL_AMSAFE, GASNET_COLL_NONCOMM)", i, fn_tbl[i].flags);
        if (fn_tbl[i].fnptr == NULL)
            gp_fatal("gasnet_coll_init: fn_tbl[%zu].fnptr is NULL", i);
    }
    if (init_flags != 0)
        gp_fatal("gasnet_coll_init: init_flags is 0x%x; no flags are defined, pass 0",
                 (unsigned)init_flags);
    if (images == NULL) {
        /* One image per node; a repeat (test.h's TEST_COLL_INIT after the
         * client's own call) is harmless and ignored. */
        if (state.ready && state.with_images)
            gp_fatal("gasnet_coll_init: images is NULL, but an earlier call gave an images table");
        if (!state.ready)
            take_fn_table(fn_tbl, fn_count);
        state.ready = 1;
        return;
    }
#if !GP_PAR
    gp_fatal("gasnet_coll_init: images must be NULL in this build (several images per node "
             "need the PAR library, gp-par)");
#endif
    if (thread_local_image >= 0)
        gp_fatal("gasnet_coll_init: called twice by the thread of image %lld",
                 (long long)thread_local_image);
    uint64_t total = 0, first = 0;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        if (images[node] == 0)
            gp_fatal("gasnet_coll_init: images[%u] is 0 (every node has at least one image)",
                     node);
        if (node == gpc.rank)
            first = total;
        total += images[node];
    }
    if (total > UINT32_MAX)
        gp_fatal("gasnet_coll_init: %llu images in all do not fit gasnet_image_t",
                 (unsigned long long)total);
    if (my_image < first || my_image >= first + images[gpc.rank])
        gp_fatal("gasnet_coll_init: my_image %u is not one of node %u's images (%llu to %llu "
                 "by the images table)", my_image, gpc.rank, (unsigned long long)first,
                 (unsigned long long)(first + images[gpc.rank] - 1));
    if (state.ready && !state.with_images)
        gp_fatal("gasnet_coll_init: an images table after a call with images NULL");
    thread_local_image = (int64_t)(my_image - first);
    /* Local image 0 sets the layout while the others wait on either side,
     * so that none starts a collective before it is in place. */
    if (thread_local_image == 0) {
        gpc_team_set_images(images);
        take_fn_table(fn_tbl, fn_count);
        state.with_images = 1;
        __atomic_store_n(&state.ready, 1, __ATOMIC_RELEASE);
    }
    if (images[gpc.rank] > 1) {
        /* The barrier's count is the layout's: wait for it to be set. */
        while (!__atomic_load_n(&state.ready, __ATOMIC_ACQUIRE))
            gpc_wait_turn();
        gp_coll_images_barrier();
    }
}

/* ---- argument checks ---- */

struct ctx {
    const char *call;
    struct gpc_team *team;
    uint32_t local;
    int flags;
    int nb;
};

static void check_flags(const struct ctx *c)
{
    int flags = c->flags;
    if (flags & ~ALL_FLAGS)
        gp_fatal("%s: flags 0x%x hold unknown bits 0x%x (accepted: the GASNET_COLL_* flags of "
                 "bits 0 to 19)", c->call, (unsigned)flags, (unsigned)(flags & ~ALL_FLAGS));
    if (!one_bit(flags & IN_FLAGS))
        gp_fatal("%s: flags 0x%x must hold exactly one of GASNET_COLL_IN_NOSYNC, "
                 "GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC", c->call, (unsigned)flags);
    if (!one_bit(flags & OUT_FLAGS))
        gp_fatal("%s: flags 0x%x must hold exactly one of GASNET_COLL_OUT_NOSYNC, "
                 "GASNET_COLL_OUT_MYSYNC, GASNET_COLL_OUT_ALLSYNC", c->call, (unsigned)flags);
    if (!one_bit(flags & SCOPE_FLAGS))
        gp_fatal("%s: flags 0x%x must hold exactly one of GASNET_COLL_SINGLE, GASNET_COLL_LOCAL",
                 c->call, (unsigned)flags);
}

static struct ctx begin(const char *call, gasnet_team_handle_t team, int flags, int nb,
                        int multi)
{
    gp_coll_check_phase(call, 1);
    struct ctx c = { call, gp_coll_team(call, team), 0, flags, nb };
    c.local = gp_coll_local_image(call, c.team);
    check_flags(&c);
    if (!multi && (flags & GASNET_COLL_SINGLE) && c.team->local_images > 1)
        gp_fatal("%s: GASNET_COLL_SINGLE with %u images on this node needs the M form "
                 "(single-address forms take GASNET_COLL_LOCAL here)", call,
                 c.team->local_images);
    if (!nb && (flags & GASNET_COLL_AGGREGATE))
        gp_fatal("%s: GASNET_COLL_AGGREGATE is for the _nb forms only", call);
    return c;
}

static void check_root(const struct ctx *c, const char *what, gasnet_image_t image)
{
    if (image >= c->team->nimages)
        gp_fatal("%s: %s %u does not exist (the team's images are 0 to %u)", c->call, what, image,
                 c->team->nimages - 1);
}

/* nbytes times count, refusing products that do not fit. */
static uint64_t times(const struct ctx *c, size_t nbytes, uint64_t count)
{
    if (count > 0 && nbytes > SIZE_MAX / count)
        gp_fatal("%s: nbytes %zu times %llu images does not fit in size_t", c->call, nbytes,
                 (unsigned long long)count);
    return (uint64_t)nbytes * count;
}

/* A buffer of this node: not NULL when it holds bytes, and in the segment
 * when the flags promise so. */
static void check_buffer(const struct ctx *c, const char *what, int dst, const void *addr,
                         uint64_t bytes)
{
    if (bytes == 0)
        return;
    if (addr == NULL)
        gp_fatal("%s: %s is NULL for %llu bytes", c->call, what, (unsigned long long)bytes);
    if (!(c->flags & (dst ? GASNET_COLL_DST_IN_SEGMENT : GASNET_COLL_SRC_IN_SEGMENT)))
        return;
    const char *base = gpc.seginfo[gpc.rank].addr;
    uint64_t size = gpc.seginfo[gpc.rank].size;
    if (!gpc_segment_holds(base, size, addr, bytes))
        gp_fatal("%s: %s %p + %llu bytes is not in this node's segment [%p, +%llu), as "
                 "GASNET_COLL_%s_IN_SEGMENT says", c->call, what, addr,
                 (unsigned long long)bytes, (const void *)base, (unsigned long long)size,
                 dst ? "DST" : "SRC");
}

/* This node's entries of an M list (SINGLE: the whole list by image). */
static void *const *local_list(const struct ctx *c, const char *what, int dst,
                               void *const list[], uint64_t bytes)
{
    if (list == NULL)
        gp_fatal("%s: %s is NULL", c->call, what);
    void *const *mine = list;
    if (c->flags & GASNET_COLL_SINGLE)
        mine += gpc_team_first_image(c->team, c->team->rank);
    for (uint32_t k = 0; k < c->team->local_images; k++)
        check_buffer(c, what, dst, mine[k], bytes);
    return mine;
}

static int is_root(const struct ctx *c, gasnet_image_t image)
{
    return image == gpc_team_first_image(c->team, c->team->rank) + c->local;
}

static void set_root(const struct ctx *c, struct gpc_coll_call *call, gasnet_image_t image)
{
    call->root_rank = gpc_team_rank_of_image(c->team, image);
    call->root_local = image - gpc_team_first_image(c->team, call->root_rank);
    call->in_allsync = (c->flags & GASNET_COLL_IN_ALLSYNC) != 0;
    call->out_allsync = (c->flags & GASNET_COLL_OUT_ALLSYNC) != 0;
}

/* ---- starting an operation, and handles ---- */

static gasnet_coll_handle_t make_handle(struct gpc_coll_op *op)
{
    struct _gasnet_coll_handle *h =
        malloc(sizeof *h + (pending.count + 1) * sizeof h->ops[0]);
    if (h == NULL)
        gp_fatal("out of memory for a collective's handle");
    h->count = 0;
    for (uint32_t i = 0; i < pending.count; i++)
        h->ops[h->count++] = pending.ops[i];
    h->ops[h->count++] = op;
    pending.count = 0;
    return h;
}

/* Every operation of h complete?  Then they are released and h is freed. */
static int handle_done(gasnet_coll_handle_t h)
{
    for (uint32_t i = 0; i < h->count; i++)
        if (!gpc_coll_done(h->ops[i]))
            return 0;
    for (uint32_t i = 0; i < h->count; i++)
        gpc_coll_release(h->ops[i]);
    free(h);
    return 1;
}

static gasnet_coll_handle_t start(const struct ctx *c, struct gpc_coll_call *call)
{
    struct gpc_coll_op *op = gpc_coll_start(c->team, c->local, call);
    if (c->nb && (c->flags & GASNET_COLL_AGGREGATE)) {
        /* The group's last call's handle completes it (spec 2.12). */
        if (pending.count == pending.cap) {
            uint32_t cap = pending.cap ? 2 * pending.cap : 16;
            struct gpc_coll_op **ops = realloc(pending.ops, cap * sizeof *ops);
            if (ops == NULL)
                gp_fatal("%s: out of memory for an aggregate of %u", c->call, cap);
            pending.ops = ops;
            pending.cap = cap;
        }
        pending.ops[pending.count++] = op;
        return GASNET_COLL_INVALID_HANDLE;
    }
    gasnet_coll_handle_t h = make_handle(op);
    if (!c->nb) {
        while (!handle_done(h))
            gpc_wait_turn();
        return GASNET_COLL_INVALID_HANDLE;
    }
    return handle_done(h) ? GASNET_COLL_INVALID_HANDLE : h;
}

/* ---- the data movers ---- */

static gasnet_coll_handle_t broadcast(const char *name, gasnet_team_handle_t team,
                                      void *dst, void *const dstlist[], gasnet_image_t srcimage,
                                      void *src, size_t nbytes, int flags, int nb)
{
    struct ctx c = begin(name, team, flags, nb, dstlist != NULL);
    check_root(&c, "srcimage", srcimage);
    struct gpc_coll_call call = { .kind = GPC_BROADCAST, .nbytes = nbytes, .dst = dst, .src = src };
    set_root(&c, &call, srcimage);
    if (dstlist != NULL)
        call.dsts = local_list(&c, "dstlist", 1, dstlist, nbytes);
    else
        check_buffer(&c, "dst", 1, dst, nbytes);
    if (is_root(&c, srcimage))
        check_buffer(&c, "src", 0, src, nbytes);
    return start(&c, &call);
}

static gasnet_coll_handle_t scatter(const char *name, gasnet_team_handle_t team, void *dst,
                                    void *const dstlist[], gasnet_image_t srcimage, void *src,
                                    size_t nbytes, int flags, int nb)
{
    struct ctx c = begin(name, team, flags, nb, dstlist != NULL);
    check_root(&c, "srcimage", srcimage);
    uint64_t all = times(&c, nbytes, c.team->nimages);
    struct gpc_coll_call call = { .kind = GPC_SCATTER, .nbytes = nbytes, .dst = dst, .src = src };
    set_root(&c, &call, srcimage);
    if (dstlist != NULL)
        call.dsts = local_list(&c, "dstlist", 1, dstlist, nbytes);
    else
        check_buffer(&c, "dst", 1, dst, nbytes);
    if (is_root(&c, srcimage))
        check_buffer(&c, "src", 0, src, all);
    return start(&c, &call);
}

static gasnet_coll_handle_t gather(const char *name, gasnet_team_handle_t team,
                                   gasnet_image_t dstimage, void *dst, void *src,
                                   void *const srclist[], size_t nbytes, int flags, int nb)
{
    struct ctx c = begin(name, team, flags, nb, srclist != NULL);
    check_root(&c, "dstimage", dstimage);
    uint64_t all = times(&c, nbytes, c.team->nimages);
    struct gpc_coll_call call = { .kind = GPC_GATHER, .nbytes = nbytes, .dst = dst, .src = src };
    set_root(&c, &call, dstimage);
    if (srclist != NULL)
        call.srcs = local_list(&c, "srclist", 0, srclist, nbytes);
    else
        check_buffer(&c, "src", 0, src, nbytes);
    if (is_root(&c, dstimage))
        check_buffer(&c, "dst", 1, dst, all);
    return start(&c, &call);
}

static gasnet_coll_handle_t all_to_all(const char *name, gasnet_team_handle_t team, void *dst,
                                       void *const dstlist[], void *src, void *const srclist[],
                                       size_t nbytes, int flags, int nb, int exchange)
{
    int multi = dstlist != NULL || srclist != NULL;
    struct ctx c = begin(name, team, flags, nb, multi);
    uint64_t all = times(&c, nbytes, c.team->nimages);
    struct gpc_coll_call call = { .kind = exchange ? GPC_EXCHANGE : GPC_GATHER_ALL,
                                  .nbytes = nbytes, .dst = dst, .src = src };
    set_root(&c, &call, 0);
    if (multi) {
        call.dsts = local_list(&c, "dstlist", 1, dstlist, all);
        call.srcs = local_list(&c, "srclist", 0, srclist, exchange ? all : nbytes);
    } else {
        check_buffer(&c, "dst", 1, dst, all);
        check_buffer(&c, "src", 0, src, exchange ? all : nbytes);
    }
    return start(&c, &call);
}

static gasnet_coll_handle_t reduce(const char *name, gasnet_team_handle_t team,
                                   gasnet_image_t dstimage, void *dst, void *src,
                                   void *const srclist[], size_t src_blksz, size_t src_offset,
                                   size_t elem_size, size_t elem_count,
                                   gasnet_coll_fn_handle_t func, int func_arg, int flags, int nb)
{
    struct ctx c = begin(name, team, flags, nb, srclist != NULL);
    check_root(&c, "dstimage", dstimage);
    if (src_blksz != 0 || src_offset != 0)
        gp_fatal("%s: src_blksz %zu and src_offset %zu must be 0 (block-cyclic and one-image "
                 "layouts are not implemented, as in GASNet 1.29.3)", name, src_blksz,
                 src_offset);
    if (func < 0 || (size_t)func >= state.fn_count)
        gp_fatal("%s: func %d is not an index of gasnet_coll_init's fn_tbl (it has %zu entries)",
                 name, (int)func, state.fn_count);
    if (elem_size == 0 && elem_count > 0)
        gp_fatal("%s: elem_size is 0 for %zu elements", name, elem_count);
    uint64_t bytes = times(&c, elem_size, elem_count);
    struct gpc_coll_call call = { .kind = GPC_REDUCE, .nbytes = bytes, .dst = dst, .src = src,
                                  .fn = state.fn[func].fnptr, .fn_flags = (int)state.fn[func].flags,
                                  .fn_arg = func_arg, .elem_size = elem_size,
                                  .elem_count = elem_count };
    set_root(&c, &call, dstimage);
    if (srclist != NULL)
        call.srcs = local_list(&c, "srclist", 0, srclist, bytes);
    else
        check_buffer(&c, "src", 0, src, bytes);
    if (is_root(&c, dstimage))
        check_buffer(&c, "dst", 1, dst, bytes);
    return start(&c, &call);
}

/* An M form's lists are never NULL. */
static void need_list(const char *call, const char *what, void *const list[])
{
    if (list == NULL)
        gp_fatal("%s: %s is NULL (it holds the images' buffers)", call, what);
}

#define MOVERS(sfx, rtype, nb, ret)                                                               \
    GP_EXPORT rtype gasnet_coll_broadcast##sfx(gasnet_team_handle_t team, void *dst,            \
                                                gasnet_image_t srcimage, void *src,               \
                                                size_t nbytes, int flags)                         \
    {                                                                                             \
        ret broadcast("gasnet_coll_broadcast" #sfx, team, dst, NULL, srcimage, src, nbytes,      \
                      flags, nb);                                                                 \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_broadcastM##sfx(gasnet_team_handle_t team,                      \
                                                 void *const dstlist[], gasnet_image_t srcimage,  \
                                                 void *src, size_t nbytes, int flags)             \
    {                                                                                             \
        need_list("gasnet_coll_broadcastM" #sfx, "dstlist", dstlist);                                       \
        ret broadcast("gasnet_coll_broadcastM" #sfx, team, NULL, dstlist, srcimage, src, nbytes, \
                      flags, nb);                                                                 \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_scatter##sfx(gasnet_team_handle_t team, void *dst,              \
                                              gasnet_image_t srcimage, void *src, size_t nbytes,  \
                                              int flags)                                          \
    {                                                                                             \
        ret scatter("gasnet_coll_scatter" #sfx, team, dst, NULL, srcimage, src, nbytes, flags,   \
                    nb);                                                                          \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_scatterM##sfx(gasnet_team_handle_t team, void *const dstlist[], \
                                               gasnet_image_t srcimage, void *src, size_t nbytes, \
                                               int flags)                                         \
    {                                                                                             \
        need_list("gasnet_coll_scatterM" #sfx, "dstlist", dstlist);                                       \
        ret scatter("gasnet_coll_scatterM" #sfx, team, NULL, dstlist, srcimage, src, nbytes,     \
                    flags, nb);                                                                   \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_gather##sfx(gasnet_team_handle_t team, gasnet_image_t dstimage, \
                                             void *dst, void *src, size_t nbytes, int flags)      \
    {                                                                                             \
        ret gather("gasnet_coll_gather" #sfx, team, dstimage, dst, src, NULL, nbytes, flags, nb); \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_gatherM##sfx(gasnet_team_handle_t team,                         \
                                              gasnet_image_t dstimage, void *dst,                 \
                                              void *const srclist[], size_t nbytes, int flags)    \
    {                                                                                             \
        need_list("gasnet_coll_gatherM" #sfx, "srclist", srclist);                                       \
        ret gather("gasnet_coll_gatherM" #sfx, team, dstimage, dst, NULL, srclist, nbytes, flags, \
                   nb);                                                                           \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_gather_all##sfx(gasnet_team_handle_t team, void *dst, void *src, \
                                                 size_t nbytes, int flags)                        \
    {                                                                                             \
        ret all_to_all("gasnet_coll_gather_all" #sfx, team, dst, NULL, src, NULL, nbytes, flags,  \
                       nb, 0);                                                                    \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_gather_allM##sfx(gasnet_team_handle_t team,                     \
                                                  void *const dstlist[], void *const srclist[],   \
                                                  size_t nbytes, int flags)                       \
    {                                                                                             \
        need_list("gasnet_coll_gather_allM" #sfx, "dstlist", dstlist); need_list("gasnet_coll_gather_allM" #sfx, "srclist", srclist);                                       \
        ret all_to_all("gasnet_coll_gather_allM" #sfx, team, NULL, dstlist, NULL, srclist,       \
                       nbytes, flags, nb, 0);                                                     \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_exchange##sfx(gasnet_team_handle_t team, void *dst, void *src,  \
                                               size_t nbytes, int flags)                          \
    {                                                                                             \
        ret all_to_all("gasnet_coll_exchange" #sfx, team, dst, NULL, src, NULL, nbytes, flags,    \
                       nb, 1);                                                                    \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_exchangeM##sfx(gasnet_team_handle_t team,                       \
                                                void *const dstlist[], void *const srclist[],     \
                                                size_t nbytes, int flags)                         \
    {                                                                                             \
        need_list("gasnet_coll_exchangeM" #sfx, "dstlist", dstlist); need_list("gasnet_coll_exchangeM" #sfx, "srclist", srclist);                                       \
        ret all_to_all("gasnet_coll_exchangeM" #sfx, team, NULL, dstlist, NULL, srclist, nbytes, \
                       flags, nb, 1);                                                             \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_reduce##sfx(                                                    \
        gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src,                 \
        size_t src_blksz, size_t src_offset, size_t elem_size, size_t elem_count,                 \
        gasnet_coll_fn_handle_t func, int func_arg, int flags)                                    \
    {                                                                                             \
        ret reduce("gasnet_coll_reduce" #sfx, team, dstimage, dst, src, NULL, src_blksz,          \
                   src_offset, elem_size, elem_count, func, func_arg, flags, nb);                 \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_reduceM##sfx(                                                   \
        gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *const srclist[],     \
        size_t src_blksz, size_t src_offset, size_t elem_size, size_t elem_count,                 \
        gasnet_coll_fn_handle_t func, int func_arg, int flags)                                    \
    {                                                                                             \
        need_list("gasnet_coll_reduceM" #sfx, "srclist", srclist);                                  \
        ret reduce("gasnet_coll_reduceM" #sfx, team, dstimage, dst, NULL, srclist, src_blksz,     \
                   src_offset, elem_size, elem_count, func, func_arg, flags, nb);                 \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_scan##sfx(                                                      \
        gasnet_team_handle_t team, void *dst, size_t dst_blksz, size_t dst_offset, void *src,     \
        size_t src_blksz, size_t src_offset, size_t elem_size, size_t elem_count,                 \
        gasnet_coll_fn_handle_t func, int func_arg, int flags)                                    \
    {                                                                                             \
        (void)team, (void)dst, (void)dst_blksz, (void)dst_offset, (void)src, (void)src_blksz;     \
        (void)src_offset, (void)elem_size, (void)elem_count, (void)func, (void)func_arg;          \
        (void)flags;                                                                              \
        gp_fatal("gasnet_coll_scan" #sfx " is not implemented (as in GASNet 1.29.3)");            \
    }                                                                                             \
    GP_EXPORT rtype gasnet_coll_scanM##sfx(                                                     \
        gasnet_team_handle_t team, void *const dstlist[], size_t dst_blksz, size_t dst_offset,    \
        void *const srclist[], size_t src_blksz, size_t src_offset, size_t elem_size,             \
        size_t elem_count, gasnet_coll_fn_handle_t func, int func_arg, int flags)                 \
    {                                                                                             \
        (void)team, (void)dstlist, (void)dst_blksz, (void)dst_offset, (void)srclist;              \
        (void)src_blksz, (void)src_offset, (void)elem_size, (void)elem_count, (void)func;         \
        (void)func_arg, (void)flags;                                                              \
        gp_fatal("gasnet_coll_scanM" #sfx " is not implemented (as in GASNet 1.29.3)");           \
    }

MOVERS(, void, 0, (void))
MOVERS(_nb, gasnet_coll_handle_t, 1, return)

/* ---- sync ---- */

GP_EXPORT int gasnet_coll_try_sync(gasnet_coll_handle_t handle)
{
    gp_coll_check_phase("gasnet_coll_try_sync", 1);
    if (handle == GASNET_COLL_INVALID_HANDLE) {
        gpc_coll_progress();
        return GASNET_OK;
    }
    return handle_done(handle) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

GP_EXPORT void gasnet_coll_wait_sync(gasnet_coll_handle_t handle)
{
    while (gasnet_coll_try_sync(handle) != GASNET_OK)
        gpc_wait_turn();
}

/* Completes what it can of phandle[]; *all_invalid: every entry is now. */
static int sync_some(const char *call, gasnet_coll_handle_t *phandle, size_t n, int *all_invalid)
{
    gp_coll_check_phase(call, 1);
    if (n > 0 && phandle == NULL)
        gp_fatal("%s: phandle is NULL for %zu handles", call, n);
    int completed = 0, left = 0;
    gpc_coll_progress();
    for (size_t i = 0; i < n; i++) {
        if (phandle[i] == GASNET_COLL_INVALID_HANDLE)
            continue;
        if (handle_done(phandle[i])) {
            phandle[i] = GASNET_COLL_INVALID_HANDLE;
            completed++;
        } else {
            left++;
        }
    }
    *all_invalid = left == 0;
    return completed;
}

GP_EXPORT int gasnet_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    int all_invalid;
    int completed = sync_some("gasnet_coll_try_sync_some", phandle, numhandles, &all_invalid);
    return completed > 0 || all_invalid ? GASNET_OK : GASNET_ERR_NOT_READY;
}

GP_EXPORT void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    while (gasnet_coll_try_sync_some(phandle, numhandles) != GASNET_OK)
        gpc_wait_turn();
}

GP_EXPORT int gasnet_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    int all_invalid;
    sync_some("gasnet_coll_try_sync_all", phandle, numhandles, &all_invalid);
    return all_invalid ? GASNET_OK : GASNET_ERR_NOT_READY;
}

GP_EXPORT void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    while (gasnet_coll_try_sync_all(phandle, numhandles) != GASNET_OK)
        gpc_wait_turn();
}

/* ---- profiling and tuning: gp has no autotuner ---- */

GP_EXPORT void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    gp_coll_check_phase("gasnet_coll_dumpProfile", 1);
    gp_coll_team("gasnet_coll_dumpProfile", team);
}

GP_EXPORT void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    gp_coll_check_phase("gasnet_coll_dumpTuningState", 1);
    gp_coll_team("gasnet_coll_dumpTuningState", team);
}

GP_EXPORT void gasnet_coll_loadTuningState(char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    gp_coll_check_phase("gasnet_coll_loadTuningState", 1);
    gp_coll_team("gasnet_coll_loadTuningState", team);
}
