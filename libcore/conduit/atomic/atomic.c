/*
 * Remote atomics.  Why they are atomic: every operation, whichever rank
 * issues it and whichever way it travels, ends as one CPU atomic
 * instruction (a compare-and-swap loop, or an atomic load or exchange) on
 * the target location's physical memory.  An issuer whose process has the
 * target's segment (its own, or a neighbour's mapped by the shm transport)
 * executes it there itself; any other issuer sends an AM and the target's
 * handler executes it on its own segment.  Hardware atomics on one
 * physical location are atomic with respect to each other whatever virtual
 * mapping each process reaches it through, so the direct and the AM paths
 * may mix freely on one location, and no lock is needed.  A plain load or
 * store of the location would not be covered, and need not be: the spec
 * makes atomics atomic only with respect to each other.
 *
 * Each compare-and-swap is sequentially consistent, so an operation is a
 * full fence where it executes; the issuer's REL and ACQ (api/ex/atomic.c)
 * only have to order what the issuer does around it.
 */
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/atomic/atomic.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "util/log.h"

static const uint32_t dts[] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT,
                                GEX_DT_DBL };

size_t gpc_atomic_size(uint32_t dt)
{
    switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_FLT: return 4;
    case GEX_DT_I64: case GEX_DT_U64: case GEX_DT_DBL: return 8;
    default: return 0;
    }
}

/* The fetching forms act as their non-fetching twins (SWAP as SET, FCAS as CAS). */
static uint32_t base_op(uint32_t opcode)
{
    return opcode >= GEX_OP_FAND && opcode <= GEX_OP_FCAS ? GEX_OP_TO_NONFETCHING(opcode) : opcode;
}

/* new = x op (a, b), in T; 0 when the location is to be left as it is (a failed CAS). */
#define COMPUTE(T, U)                                                                    \
    static int compute_##T(uint32_t op, T x, T a, T b, T *out)                           \
    {                                                                                    \
        switch (op) {                                                                    \
        case GEX_OP_SET: *out = a; return 1;                                             \
        case GEX_OP_CAS: *out = b; return x == a;                                        \
        case GEX_OP_ADD: *out = (T)((U)x + (U)a); return 1;                              \
        case GEX_OP_SUB: *out = (T)((U)x - (U)a); return 1;                              \
        case GEX_OP_MULT: *out = (T)((U)x * (U)a); return 1;                             \
        case GEX_OP_MIN: *out = a < x ? a : x; return 1;                                 \
        case GEX_OP_MAX: *out = a > x ? a : x; return 1;                                 \
        case GEX_OP_INC: *out = (T)((U)x + (U)1); return 1;                              \
        case GEX_OP_DEC: *out = (T)((U)x - (U)1); return 1;                              \
        default: return bits_##T(op, x, a, out);                                         \
        }                                                                                \
    }
#define INT_BITS(T, U)                                                                   \
    static int bits_##T(uint32_t op, T x, T a, T *out)                                   \
    {                                                                                    \
        *out = op == GEX_OP_AND ? (T)((U)x & (U)a) : op == GEX_OP_OR ? (T)((U)x | (U)a)  \
                                                   : (T)((U)x ^ (U)a);                   \
        return 1;                                                                        \
    }
#define FP_BITS(T)                                                                       \
    static int bits_##T(uint32_t op, T x, T a, T *out)                                   \
    {                                                                                    \
        (void)op, (void)a;                                                               \
        *out = x; /* api/ex/atomic.c admits no bitwise operation on FP domains */        \
        return 0;                                                                        \
    }
INT_BITS(int32_t, uint32_t)
INT_BITS(uint32_t, uint32_t)
INT_BITS(int64_t, uint64_t)
INT_BITS(uint64_t, uint64_t)
FP_BITS(float)
FP_BITS(double)
COMPUTE(int32_t, uint32_t)
COMPUTE(uint32_t, uint32_t)
COMPUTE(int64_t, uint64_t)
COMPUTE(uint64_t, uint64_t)
COMPUTE(float, float)
COMPUTE(double, double)

/* The loop on the location's bits W, each value read as T. */
#define APPLY(T, W)                                                                      \
    static uint64_t apply_##T(void *at, uint32_t op, uint64_t op1, uint64_t op2)         \
    {                                                                                    \
        W *p = at, a_bits = (W)op1, b_bits = (W)op2;                                     \
        if (op == GEX_OP_GET)                                                            \
            return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                 \
        T a, b;                                                                          \
        memcpy(&a, &a_bits, sizeof a);                                                   \
        memcpy(&b, &b_bits, sizeof b);                                                   \
        W old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                    \
        for (;;) {                                                                       \
            T x, nv;                                                                     \
            memcpy(&x, &old, sizeof x);                                                  \
            if (!compute_##T(op, x, a, b, &nv))                                          \
                return old;                                                              \
            W nv_bits;                                                                   \
            memcpy(&nv_bits, &nv, sizeof nv_bits);                                       \
            if (__atomic_compare_exchange_n(p, &old, nv_bits, 0, __ATOMIC_SEQ_CST,       \
                                            __ATOMIC_SEQ_CST))                           \
                return old;                                                              \
        }                                                                                \
    }
APPLY(int32_t, uint32_t)
APPLY(uint32_t, uint32_t)
APPLY(int64_t, uint64_t)
APPLY(uint64_t, uint64_t)
APPLY(float, uint32_t)
APPLY(double, uint64_t)

/* The old value's bits. */
static uint64_t apply(void *at, uint32_t dt, uint32_t opcode, uint64_t op1, uint64_t op2)
{
    uint32_t op = base_op(opcode);
    switch (dt) {
    case GEX_DT_I32: return apply_int32_t(at, op, op1, op2);
    case GEX_DT_U32: return apply_uint32_t(at, op, op1, op2);
    case GEX_DT_I64: return apply_int64_t(at, op, op1, op2);
    case GEX_DT_U64: return apply_uint64_t(at, op, op1, op2);
    case GEX_DT_FLT: return apply_float(at, op, op1, op2);
    default: return apply_double(at, op, op1, op2);
    }
}

static void finish(uint32_t dt, uint64_t old, void *result, gp_count_t *pending, int64_t *in_flight)
{
    if (result != NULL) {
        if (gpc_atomic_size(dt) == 4) {
            uint32_t v = (uint32_t)old;
            memcpy(result, &v, 4);
        } else {
            memcpy(result, &old, 8);
        }
    }
    gp_count_add(pending, -1); /* its release half publishes the result */
    __atomic_fetch_sub(in_flight, 1, __ATOMIC_RELEASE);
}

#define HI(x) ((gasnet_handlerarg_t)(uint32_t)((uint64_t)(x) >> 32))
#define LO(x) ((gasnet_handlerarg_t)(uint32_t)(uint64_t)(x))
#define JOIN(hi, lo) ((uint64_t)(uint32_t)(hi) << 32 | (uint32_t)(lo))
#define PTR(hi, lo) ((void *)(uintptr_t)JOIN(hi, lo))

static uint32_t dt_index(uint32_t dt)
{
    uint32_t i = 0;
    while (dts[i] != dt)
        i++;
    return i;
}

void gpc_atomic_start(gasnet_node_t node, void *addr, uint32_t dt, uint32_t opcode, uint64_t op1,
                      uint64_t op2, void *result, gp_count_t *pending, int64_t *in_flight)
{
    size_t size = gpc_atomic_size(dt);
    const char *base = gpc.seginfo[node].addr;
    if (!gpc_segment_holds(base, gpc.seginfo[node].size, addr, size))
        gp_fatal("atomic on %p of node %u: outside that node's segment [%p, +%lu)", addr, node,
                 (const void *)base, (unsigned long)gpc.seginfo[node].size);
    if ((uintptr_t)addr % size != 0)
        gp_fatal("atomic on %p of node %u: not aligned to its %zu-byte type", addr, node, size);
    uint64_t offset = (uint64_t)((const char *)addr - base);
    char *here = node == gpc.rank ? gpc.segment : gpc.mapped_segments[node];
    if (here != NULL) {
        finish(dt, apply(here + offset, dt, opcode, op1, op2), result, pending, in_flight);
        return;
    }
    gasnet_handlerarg_t args[13] = {
        (gasnet_handlerarg_t)(dt_index(dt) | (uint32_t)__builtin_ctz(opcode) << 3),
        HI(offset), LO(offset), HI(op1), LO(op1), HI(op2), LO(op2),
        HI((uintptr_t)result), LO((uintptr_t)result), HI((uintptr_t)pending),
        LO((uintptr_t)pending), HI((uintptr_t)in_flight), LO((uintptr_t)in_flight),
    };
    gpc_am_request(node, GPC_SHORT, GPC_H_ATOMIC, NULL, 0, NULL, 13, args);
}

void gpc_atomic_handler(gasnet_token_t token, gasnet_handlerarg_t dt_op, gasnet_handlerarg_t off_hi,
                        gasnet_handlerarg_t off_lo, gasnet_handlerarg_t op1_hi,
                        gasnet_handlerarg_t op1_lo, gasnet_handlerarg_t op2_hi,
                        gasnet_handlerarg_t op2_lo, gasnet_handlerarg_t result_hi,
                        gasnet_handlerarg_t result_lo, gasnet_handlerarg_t pending_hi,
                        gasnet_handlerarg_t pending_lo, gasnet_handlerarg_t in_flight_hi,
                        gasnet_handlerarg_t in_flight_lo)
{
    uint32_t dt = dts[(uint32_t)dt_op & 7], opcode = 1u << (((uint32_t)dt_op >> 3) & 31);
    uint64_t old = apply(gpc.segment + JOIN(off_hi, off_lo), dt, opcode, JOIN(op1_hi, op1_lo),
                         JOIN(op2_hi, op2_lo));
    gasnet_handlerarg_t args[9] = { (gasnet_handlerarg_t)dt, HI(old), LO(old), result_hi,
                                    result_lo, pending_hi, pending_lo, in_flight_hi,
                                    in_flight_lo };
    gpc_am_reply(token, GPC_SHORT, GPC_H_ATOMIC_DONE, NULL, 0, NULL, 9, args);
}

void gpc_atomic_done_handler(gasnet_token_t token, gasnet_handlerarg_t dt,
                             gasnet_handlerarg_t value_hi, gasnet_handlerarg_t value_lo,
                             gasnet_handlerarg_t result_hi, gasnet_handlerarg_t result_lo,
                             gasnet_handlerarg_t pending_hi, gasnet_handlerarg_t pending_lo,
                             gasnet_handlerarg_t in_flight_hi, gasnet_handlerarg_t in_flight_lo)
{
    (void)token;
    finish((uint32_t)dt, JOIN(value_hi, value_lo), PTR(result_hi, result_lo),
           PTR(pending_hi, pending_lo), PTR(in_flight_hi, in_flight_lo));
}
