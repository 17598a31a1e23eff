/*
 * EX collectives (§12): barrier, broadcast and the two reductions, on any
 * team, run by the collectives engine of GASNet-1's (conduit/coll/coll.c)
 * and completed through events of the conduit's sync (conduit/rma/sync.c),
 * so any number may be outstanding and retired in any order.  The engine
 * copies into and out of the client's buffers itself, so they may lie
 * anywhere, and dst == src is a plain case.
 *
 * GEX_OP_USER_NC is a user operation that need not commute: the engine
 * combines contributions in team rank order for it (GEX_OP_USER's may come
 * in any order).
 *
 * Built-in reductions are one combining function per (type, operation),
 * called as a gex_Coll_ReduceFn_t is; integer ones compute in the unsigned
 * type so that they wrap, as the spec says, without C's signed overflow.
 */
#include <gasnetex.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "boot/boot.h"
#include "conduit/coll/coll.h"
#include "conduit/coll/team.h"
#include "conduit/core/state.h"
#include "util/log.h"

#define INT_DTS (GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64)
#define BUILTIN_DTS (INT_DTS | GEX_DT_FLT | GEX_DT_DBL)
#define ARITH_OPS (GEX_OP_ADD | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX)
#define BIT_OPS (GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR)

#define COMBINER(name, T, U, expr)                                                   \
    static void name(const void *left, void *right_and_out, size_t n, const void *cd) \
    {                                                                                \
        const T *a = left;                                                           \
        T *b = right_and_out;                                                        \
        (void)cd;                                                                    \
        for (size_t i = 0; i < n; i++) {                                             \
            T x = a[i], y = b[i];                                                    \
            b[i] = (expr);                                                           \
        }                                                                            \
    }
#define INT_COMBINERS(tag, T, U)                                     \
    COMBINER(add_##tag, T, U, (T)((U)x + (U)y))                      \
    COMBINER(mult_##tag, T, U, (T)((U)x * (U)y))                     \
    COMBINER(min_##tag, T, U, x < y ? x : y)                         \
    COMBINER(max_##tag, T, U, x > y ? x : y)                         \
    COMBINER(and_##tag, T, U, (T)((U)x & (U)y))                      \
    COMBINER(or_##tag, T, U, (T)((U)x | (U)y))                       \
    COMBINER(xor_##tag, T, U, (T)((U)x ^ (U)y))
#define FP_COMBINERS(tag, T)                          \
    COMBINER(add_##tag, T, T, x + y)                  \
    COMBINER(mult_##tag, T, T, x * y)                 \
    COMBINER(min_##tag, T, T, x < y ? x : y)          \
    COMBINER(max_##tag, T, T, x > y ? x : y)

INT_COMBINERS(i32, int32_t, uint32_t)
INT_COMBINERS(u32, uint32_t, uint32_t)
INT_COMBINERS(i64, int64_t, uint64_t)
INT_COMBINERS(u64, uint64_t, uint64_t)
FP_COMBINERS(flt, float)
FP_COMBINERS(dbl, double)

typedef void (*combiner_t)(const void *, void *, size_t, const void *);

struct builtin {
    gex_DT_t dt;
    size_t size;
    combiner_t add, mult, min, max, and_, or_, xor_;
};
static const struct builtin builtins[] = {
    { GEX_DT_I32, 4, add_i32, mult_i32, min_i32, max_i32, and_i32, or_i32, xor_i32 },
    { GEX_DT_U32, 4, add_u32, mult_u32, min_u32, max_u32, and_u32, or_u32, xor_u32 },
    { GEX_DT_I64, 8, add_i64, mult_i64, min_i64, max_i64, and_i64, or_i64, xor_i64 },
    { GEX_DT_U64, 8, add_u64, mult_u64, min_u64, max_u64, and_u64, or_u64, xor_u64 },
    { GEX_DT_FLT, 4, add_flt, mult_flt, min_flt, max_flt, NULL, NULL, NULL },
    { GEX_DT_DBL, 8, add_dbl, mult_dbl, min_dbl, max_dbl, NULL, NULL, NULL },
};

static const struct builtin *builtin_of(gex_DT_t dt)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (builtins[i].dt == dt)
            return &builtins[i];
    return NULL;
}

/* The combining function of a reduction, after its arguments are checked. */
static combiner_t reduction(const char *call, gex_DT_t dt, size_t dt_sz, gex_OP_t op,
                            gex_Coll_ReduceFn_t user_op)
{
    const struct builtin *b = builtin_of(dt);
    if (b == NULL && dt != GEX_DT_USER)
        gp_fatal("%s: dt 0x%x; accepted are GEX_DT_I32, _U32, _I64, _U64, _FLT, _DBL and "
                 "_USER", call, (unsigned)dt);
    if (b != NULL && dt_sz != b->size)
        gp_fatal("%s: dt_sz %zu for a data type of %zu bytes", call, dt_sz, b->size);
    if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
        const char *name = op == GEX_OP_USER ? "GEX_OP_USER" : "GEX_OP_USER_NC";
        if (user_op == NULL)
            gp_fatal("%s: %s with a NULL user_op", call, name);
        if (dt_sz == 0)
            gp_fatal("%s: dt_sz is 0; GEX_DT_USER elements have at least one byte", call);
        return user_op;
    }
    if (b == NULL)
        gp_fatal("%s: GEX_DT_USER takes GEX_OP_USER or GEX_OP_USER_NC, not op 0x%x", call,
                 (unsigned)op);
    combiner_t fn = op == GEX_OP_ADD ? b->add : op == GEX_OP_MULT ? b->mult
                  : op == GEX_OP_MIN ? b->min : op == GEX_OP_MAX ? b->max
                  : op == GEX_OP_AND ? b->and_ : op == GEX_OP_OR ? b->or_
                  : op == GEX_OP_XOR ? b->xor_ : NULL;
    if (fn == NULL)
        gp_fatal("%s: op 0x%x on dt 0x%x; accepted are GEX_OP_ADD, _MULT, _MIN, _MAX%s and "
                 "GEX_OP_USER(_NC)", call, (unsigned)op, (unsigned)dt,
                 (dt & INT_DTS) ? ", _AND, _OR, _XOR" : " (_AND, _OR, _XOR for integer types)");
    return fn;
}

static struct gpc_team *coll_team(const char *call, gex_TM_t tm, gex_Flags_t flags)
{
    struct gpc_team *team = gpx_tm_team(call, tm);
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    return team;
}

static void check_root(const char *call, const struct gpc_team *team, gex_Rank_t root)
{
    if (root >= team->size)
        gp_fatal("%s: root %u is not in the team (its ranks are 0..%u)", call, root,
                 team->size - 1);
}

static gex_Event_t start(struct gpc_team *team, const struct gpc_coll_call *call)
{
    return gpc_coll_event(gpc_coll_start(team, 0, call));
}

/* Before attach, the network is not open yet, but the job's bootstrap barrier is (a
 * client's first barrier often comes before its segment): the primordial team's barrier
 * is that one, complete on return. */
GP_EXPORT gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    const char *call = "gex_Coll_BarrierNB";
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (!gpc.attached && tm == &_gex_tm0 && gpc.initialized && !gpc_in_handler) {
        if (gp_boot_barrier() != 0)
            gp_fatal("%s: the bootstrap barrier before attach failed", call);
        return GEX_EVENT_INVALID;
    }
    return start(coll_team(call, tm, flags),
                 &(struct gpc_coll_call){ .kind = GPC_SYNC, .in_allsync = 1 });
}

/* A blocking barrier is over before it returns, so it can take the team's own barrier,
 * GASNet-1's split-phase one (the whole job's for the primordial team), which is made for
 * that alone, rather than the collectives engine's trees of Mediums that a non-blocking one
 * needs to overlap with others.  Every rank makes the same choice: it depends only on the
 * team's GASNet-1 barrier being between a notify and its wait, which the program's calls
 * decide. */
GP_EXPORT void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags)
{
    const char *call = "gex_Coll_BarrierBlocking";
    if (gpc.attached && !gpc_in_handler) {
        struct gpc_team *team = coll_team(call, tm, flags);
        if (!gpc_team_barrier_between_notify_and_wait(team)) {
            gpc_team_barrier_notify(team, 0, GASNET_BARRIERFLAG_ANONYMOUS);
            (void)gpc_team_barrier_wait(team, 0, GASNET_BARRIERFLAG_ANONYMOUS);
            return;
        }
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
}

GP_EXPORT gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                           const void *src, size_t nbytes, gex_Flags_t flags)
{
    const char *call = "gex_Coll_BroadcastNB";
    struct gpc_team *team = coll_team(call, tm, flags);
    check_root(call, team, root);
    if (nbytes > 0 && (dst == NULL || (team->rank == root && src == NULL)))
        gp_fatal("%s: %s is NULL for %zu bytes", call, dst == NULL ? "dst" : "the root's src",
                 nbytes);
    return start(team, &(struct gpc_coll_call){ .kind = GPC_BROADCAST, .root_rank = root,
                                                .nbytes = nbytes, .dst = dst,
                                                .src = (void *)src });
}

static gex_Event_t reduce(const char *call, gex_TM_t tm, int to_all, gex_Rank_t root,
                          void *dst, const void *src, gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                          gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata,
                          gex_Flags_t flags)
{
    struct gpc_team *team = coll_team(call, tm, flags);
    if (!to_all)
        check_root(call, team, root);
    combiner_t fn = reduction(call, dt, dt_sz, op, user_op);
    if (dt_cnt > 0 && (src == NULL || ((to_all || team->rank == root) && dst == NULL)))
        gp_fatal("%s: %s is NULL for %zu elements", call, src == NULL ? "src" : "dst", dt_cnt);
    if (dt_cnt > 0 && dt_sz > SIZE_MAX / dt_cnt)
        gp_fatal("%s: %zu elements of %zu bytes overflow size_t", call, dt_cnt, dt_sz);
    return start(team, &(struct gpc_coll_call){
                           .kind = to_all ? GPC_REDUCE_ALL : GPC_REDUCE, .root_rank = root,
                           .nbytes = (uint64_t)dt_sz * dt_cnt, .dst = dst, .src = (void *)src,
                           .elem_size = dt_sz, .elem_count = dt_cnt, .ex_fn = fn,
                           .ex_cdata = user_cdata, .ordered = op == GEX_OP_USER_NC });
}

GP_EXPORT gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                             const void *src, gex_DT_t dt, size_t dt_sz,
                                             size_t dt_cnt, gex_OP_t op,
                                             gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                             gex_Flags_t flags)
{
    return reduce("gex_Coll_ReduceToOneNB", tm, 0, root, dst, src, dt, dt_sz, dt_cnt, op,
                  user_op, user_cdata, flags);
}

GP_EXPORT gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src,
                                             gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                                             gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                             void *user_cdata, gex_Flags_t flags)
{
    return reduce("gex_Coll_ReduceToAllNB", tm, 1, 0, dst, src, dt, dt_sz, dt_cnt, op, user_op,
                  user_cdata, flags);
}
