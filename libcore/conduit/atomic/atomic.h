/*
 * atomic.c: remote atomics (GASNet-EX's gex_AD_Op*), carried out where the
 * target location's memory is: by a CPU atomic instruction, either here
 * (the target's segment is this process's or mapped here) or in an AM
 * handler on the target.  Opcodes and types are GASNet-EX's (gasnet_fwd.h).
 */
#ifndef GP_CONDUIT_ATOMIC_H
#define GP_CONDUIT_ATOMIC_H

#include <gasnet.h>
#include <stdint.h>

#include "util/counter.h"

/* The size in bytes of a GEX_DT_* the atomics take, or 0 when they take none. */
size_t gpc_atomic_size(uint32_t dt);
/* Starts opcode on the dt-typed location addr of node's segment (checked: inside it and
 * aligned); op1/op2 are the operands' bits.  Once applied, the old value is stored in
 * *result (dt's size; result NULL: nowhere), then *pending and *in_flight each drop by one;
 * the caller raised both.  Applied before the call returns when the location is mapped here,
 * else by an AM to node. */
void gpc_atomic_start(gasnet_node_t node, void *addr, uint32_t dt, uint32_t opcode, uint64_t op1,
                      uint64_t op2, void *result, gp_count_t *pending, int64_t *in_flight);
void gpc_atomic_handler(gasnet_token_t token, gasnet_handlerarg_t dt_op, gasnet_handlerarg_t off_hi,
                        gasnet_handlerarg_t off_lo, gasnet_handlerarg_t op1_hi,
                        gasnet_handlerarg_t op1_lo, gasnet_handlerarg_t op2_hi,
                        gasnet_handlerarg_t op2_lo, gasnet_handlerarg_t result_hi,
                        gasnet_handlerarg_t result_lo, gasnet_handlerarg_t pending_hi,
                        gasnet_handlerarg_t pending_lo, gasnet_handlerarg_t in_flight_hi,
                        gasnet_handlerarg_t in_flight_lo);
void gpc_atomic_done_handler(gasnet_token_t token, gasnet_handlerarg_t dt,
                             gasnet_handlerarg_t value_hi, gasnet_handlerarg_t value_lo,
                             gasnet_handlerarg_t result_hi, gasnet_handlerarg_t result_lo,
                             gasnet_handlerarg_t pending_hi, gasnet_handlerarg_t pending_lo,
                             gasnet_handlerarg_t in_flight_hi, gasnet_handlerarg_t in_flight_lo);

#endif
