/*
 * EX remote atomics (§13): atomic domains and their operations.  A domain
 * only remembers what Create was given (the conduit needs nothing per
 * domain, so Create and Destroy communicate nothing); an operation is
 * checked against it here and carried out by conduit/atomic/atomic.c,
 * whose comment says why every path is atomic against every other.
 *
 * Completion: an operation on a location mapped here is done before the
 * call returns (NB gives GEX_EVENT_INVALID); one sent to the target
 * completes with its reply, into an event (NB) or this thread's implicit
 * set (NBI: SET counts as a put, every other as a get, and GEX_EC_RMW
 * waits for gets, api/ex/rma.c).  Ordering flags act at the issuer: REL
 * first waits for this thread's earlier atomics and implicit puts, ACQ
 * waits for this thread's atomics, this one included, before returning.
 */
#include <gasnet_ratomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "conduit/atomic/atomic.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "conduit/rma/rma_ops.h"
#include "util/log.h"

#define AD_LIVE 0xad0c11eu
struct _gex_ad {
    uint32_t live;
    gex_TM_t tm;
    gex_DT_t dt;
    gex_OP_t ops;
    gex_Flags_t flags;
    void *cdata;
};

#define INT_DTS (GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64)
#define BIT_OPS (GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)
#define ALL_OPS (BIT_OPS | GEX_OP_ADD | GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX | \
                 GEX_OP_INC | GEX_OP_DEC | GEX_OP_SET | GEX_OP_CAS | GEX_OP_FADD | GEX_OP_FSUB | \
                 GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC |          \
                 GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_GET)
#define FETCHING_OPS (GEX_OP_TO_FETCHING(GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_ADD |      \
                                         GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX |    \
                                         GEX_OP_INC | GEX_OP_DEC | GEX_OP_SET | GEX_OP_CAS) |    \
                      GEX_OP_GET)
#define OP_FLAGS (GEX_FLAG_IMMEDIATE | GEX_FLAG_RANK_IS_JOBRANK | GEX_FLAG_AD_MY_RANK |         \
                  GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_REL | GEX_FLAG_AD_ACQ |                    \
                  GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | \
                  GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_PEER_SEG_BOUND)

/* This thread's atomics sent and not yet answered (the replies may run on another thread). */
static _Thread_local int64_t in_flight;

static struct _gex_ad *live_ad(const char *call, gex_AD_t ad)
{
    if (ad == GEX_AD_INVALID || ad->live != AD_LIVE)
        gp_fatal("%s: %p is not a live atomic domain (gex_AD_Create makes them, gex_AD_Destroy "
                 "ends them)", call, (void *)ad);
    return ad;
}

GP_EXPORT void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                             gex_Flags_t flags)
{
    const char *call = "gex_AD_Create";
    if (ad_p == NULL)
        gp_fatal("%s: ad_p is NULL; it receives the domain", call);
    gpx_tm_check_team(call, tm);
    if (gpc_atomic_size(dt) == 0)
        gp_fatal("%s: dt 0x%x; accepted are GEX_DT_I32, _U32, _I64, _U64, _FLT and _DBL", call,
                 (unsigned)dt);
    if (ops & ~(gex_OP_t)ALL_OPS)
        gp_fatal("%s: ops 0x%x hold 0x%x, which are no atomic operations", call, (unsigned)ops,
                 (unsigned)(ops & ~(gex_OP_t)ALL_OPS));
    if (!(dt & INT_DTS) && (ops & BIT_OPS))
        gp_fatal("%s: ops 0x%x hold bitwise operations (0x%x), which floating-point domains do "
                 "not take", call, (unsigned)ops, (unsigned)(ops & BIT_OPS));
    struct _gex_ad *ad = calloc(1, sizeof *ad);
    if (ad == NULL)
        gp_fatal("%s: out of memory for a domain", call);
    *ad = (struct _gex_ad){ AD_LIVE, tm, dt, ops, flags, NULL };
    *ad_p = ad;
}

GP_EXPORT void gex_AD_Destroy(gex_AD_t ad)
{
    live_ad("gex_AD_Destroy", ad)->live = 0;
    free(ad);
}

GP_EXPORT gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return live_ad("gex_AD_QueryTM", ad)->tm; }
GP_EXPORT gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return live_ad("gex_AD_QueryDT", ad)->dt; }
GP_EXPORT gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return live_ad("gex_AD_QueryOps", ad)->ops; }
GP_EXPORT gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad)
{
    return live_ad("gex_AD_QueryFlags", ad)->flags;
}
GP_EXPORT void *gex_AD_QueryCData(gex_AD_t ad) { return live_ad("gex_AD_QueryCData", ad)->cdata; }
GP_EXPORT void gex_AD_SetCData(gex_AD_t ad, const void *val)
{
    live_ad("gex_AD_SetCData", ad)->cdata = (void *)val;
}

static void wait_atomics(void)
{
    while (__atomic_load_n(&in_flight, __ATOMIC_ACQUIRE) != 0)
        gpc_wait_turn();
}

/* One operation; op1/op2 are the operands' bits.  Returns the event (NB) or 0 (NBI). */
static gex_Event_t ad_op(const char *call, gex_AD_t ad, gex_DT_t dt, void *result_p,
                         gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode, uint64_t op1,
                         uint64_t op2, gex_Flags_t flags, int implicit)
{
    live_ad(call, ad);
    gpx_check_callable(call);
    if (dt != ad->dt)
        gp_fatal("%s: the domain's data type is 0x%x, not this call's 0x%x", call,
                 (unsigned)ad->dt, (unsigned)dt);
    if (opcode == 0 || (opcode & (opcode - 1)) != 0 || !(opcode & ad->ops))
        gp_fatal("%s: opcode 0x%x is not one of the domain's operations (ops 0x%x)", call,
                 (unsigned)opcode, (unsigned)ad->ops);
    if (flags & ~(gex_Flags_t)OP_FLAGS)
        gp_fatal("%s: flags 0x%x; accepted are GEX_FLAG_IMMEDIATE, _RANK_IS_JOBRANK, "
                 "GEX_FLAG_AD_MY_RANK, _MY_NBRHD, _REL, _ACQ and the segment assertions but "
                 "the *_SEG_OFFSET ones", call, (unsigned)flags);
    int fetching = (opcode & FETCHING_OPS) != 0;
    if (fetching && result_p == NULL)
        gp_fatal("%s: result_p is NULL for a fetching operation (0x%x)", call, (unsigned)opcode);
    gex_Rank_t node;
    if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
        if (tgt_rank >= gpc.nodes)
            gp_fatal("%s: jobrank %u is not in the job (0..%u)", call, tgt_rank, gpc.nodes - 1);
        node = tgt_rank;
    } else {
        node = gpx_tm_jobrank(call, ad->tm, tgt_rank);
    }
    if (flags & GEX_FLAG_AD_REL) {
        wait_atomics();
        struct gpc_op *set = gpc_op_implicit();
        while (gp_count_get(&set->puts_pending) != 0)
            gpc_wait_turn();
    }
    struct gpc_op *op = implicit ? gpc_op_implicit() : gpc_op_new(OP_EXPLICIT);
    gp_count_t *pending = implicit && opcode == GEX_OP_SET ? &op->puts_pending
                                                           : &op->gets_pending;
    gp_count_add(pending, 1);
    __atomic_fetch_add(&in_flight, 1, __ATOMIC_RELAXED);
    gpc_atomic_start(node, tgt_addr, dt, opcode, op1, op2, fetching ? result_p : NULL, pending,
                     &in_flight);
    if (flags & GEX_FLAG_AD_ACQ)
        wait_atomics();
    if (implicit)
        return GEX_EVENT_INVALID;
    gpc_request_progress(); /* a loop of atomics alone still serves the peers */
    return (gex_Event_t)gpc_op_in_flight(op);
}

static uint64_t bits32(const void *v)
{
    uint32_t b;
    memcpy(&b, v, 4);
    return b;
}

static uint64_t bits64(const void *v)
{
    uint64_t b;
    memcpy(&b, v, 8);
    return b;
}

#define AD_OPS(SUFFIX, TYPE, DT, BITS)                                                         \
    GP_EXPORT gex_Event_t gex_AD_OpNB_##SUFFIX(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, \
                                               void *tgt_addr, gex_OP_t opcode, TYPE operand1, \
                                               TYPE operand2, gex_Flags_t flags)               \
    {                                                                                          \
        return ad_op("gex_AD_OpNB_" #SUFFIX, ad, DT, result_p, tgt_rank, tgt_addr, opcode,    \
                     BITS(&operand1), BITS(&operand2), flags, 0);                              \
    }                                                                                          \
    GP_EXPORT int gex_AD_OpNBI_##SUFFIX(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank,      \
                                        void *tgt_addr, gex_OP_t opcode, TYPE operand1,        \
                                        TYPE operand2, gex_Flags_t flags)                      \
    {                                                                                          \
        ad_op("gex_AD_OpNBI_" #SUFFIX, ad, DT, result_p, tgt_rank, tgt_addr, opcode,           \
              BITS(&operand1), BITS(&operand2), flags, 1);                                     \
        return 0;                                                                              \
    }
AD_OPS(I32, int32_t, GEX_DT_I32, bits32)
AD_OPS(U32, uint32_t, GEX_DT_U32, bits32)
AD_OPS(I64, int64_t, GEX_DT_I64, bits64)
AD_OPS(U64, uint64_t, GEX_DT_U64, bits64)
AD_OPS(FLT, float, GEX_DT_FLT, bits32)
AD_OPS(DBL, double, GEX_DT_DBL, bits64)
