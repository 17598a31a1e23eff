/*
 * gasnet_fwd.h: the GASNet-EX types and constants that need nothing but
 * <stdint.h> and <stddef.h> (spec §2-§3, and §12.4's data-type and
 * operation codes), for clients that name them without the API, and for
 * gasnetex.h, which includes it.  GASNet-EX's values, so binaries agree on
 * them.  C and C++; no function declarations.
 */
#ifndef _GEX_FWD_H
#define _GEX_FWD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The same types as gasnet.h's twins (gasnet_node_t, gasnet_handle_t); gex_Rank_t is
 * defined once, by whichever of the two headers comes first. */
#ifndef _GEX_RANK_T
#define _GEX_RANK_T
typedef uint32_t gex_Rank_t;
#endif
#define GEX_RANK_INVALID (~(gex_Rank_t)0)
typedef void *gex_Event_t;
typedef uint16_t gex_EP_Index_t;
typedef struct {
    gex_Rank_t gex_rank;
    gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;
typedef void *gex_Addr_t;
typedef uint32_t gex_DT_t;
typedef uint32_t gex_OP_t;
typedef uint32_t gex_Flags_t;
typedef uint32_t gex_EP_Capabilities_t;
#ifndef _GEX_MEMVEC_T
#define _GEX_MEMVEC_T
typedef struct {
    void *gex_addr;
    size_t gex_len;
} gex_Memvec_t;
#endif

#define GEX_FLAG_IMMEDIATE (1u << 0)
#define GEX_FLAG_SELF_SEG_UNKNOWN (1u << 3)
#define GEX_FLAG_SELF_SEG_SOME (1u << 4)
#define GEX_FLAG_SELF_SEG_BOUND (1u << 5)
#define GEX_FLAG_SELF_SEG_OFFSET (1u << 6)
#define GEX_FLAG_PEER_SEG_UNKNOWN (1u << 7)
#define GEX_FLAG_PEER_SEG_SOME (1u << 8)
#define GEX_FLAG_PEER_SEG_BOUND (1u << 9)
#define GEX_FLAG_PEER_SEG_OFFSET (1u << 10)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT (1u << 11)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC (1u << 12)
#define GEX_FLAG_AD_REL (1u << 1)
#define GEX_FLAG_AD_ACQ (1u << 2)
#define GEX_FLAG_AD_MY_RANK (1u << 11)
#define GEX_FLAG_AD_MY_NBRHD (1u << 12)
#define GEX_FLAG_RANK_IS_JOBRANK (1u << 13)
#define GEX_FLAG_AD_FAVOR_MY_RANK (1u << 0)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD (1u << 1)
#define GEX_FLAG_AD_FAVOR_REMOTE (1u << 2)
#define GEX_FLAG_AM_SHORT (1u << 0)
#define GEX_FLAG_AM_MEDIUM (1u << 1)
#define GEX_FLAG_AM_LONG (1u << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST (1u << 3)
#define GEX_FLAG_AM_REPLY (1u << 4)
#define GEX_FLAG_AM_REQREP (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)
#define GEX_FLAG_ENABLE_LEAF_LC (1u << 11)
#define GEX_FLAG_USES_GASNET1 (1u << 0)
#define GEX_FLAG_DEFER_THREADS (1u << 1)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN (1u << 0)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED (1u << 1)
#define GEX_FLAG_TM_GLOBAL_SCRATCH (1u << 2)
#define GEX_FLAG_TM_LOCAL_SCRATCH (1u << 3)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH (1u << 4)
#define GEX_FLAG_TM_NO_SCRATCH (1u << 5)
#define GEX_FLAG_SCRATCH_SEG_OFFSET (1u << 6)
#define GEX_FLAG_GLOBALLY_QUIESCED (1u << 13)
#define GEX_FLAG_PEER_NEVER_NBRHD (1u << 14)
#define GEX_FLAG_PEER_NEVER_SELF (1u << 15)
#define GEX_FLAG_HINT_ACCEL_AD (1u << 0)
#define GEX_FLAG_HINT_ACCEL_COLL (1u << 1)
#define GEX_FLAG_HINT_ACCEL_ALL 3u
#define GEX_EP_CAPABILITY_RMA (1u << 0)
#define GEX_EP_CAPABILITY_AM (1u << 1)
#define GEX_EP_CAPABILITY_VIS (1u << 2)
#define GEX_EP_CAPABILITY_COLL (1u << 3)
#define GEX_EP_CAPABILITY_AD (1u << 4)
#define GEX_EP_CAPABILITY_ALL 31u

/* Data types and operations (§12.4): one bit each. */
#define GEX_DT_I32 ((gex_DT_t)1 << 0)
#define GEX_DT_U32 ((gex_DT_t)1 << 1)
#define GEX_DT_I64 ((gex_DT_t)1 << 2)
#define GEX_DT_U64 ((gex_DT_t)1 << 3)
#define GEX_DT_FLT ((gex_DT_t)1 << 4)
#define GEX_DT_DBL ((gex_DT_t)1 << 5)
#define GEX_DT_USER ((gex_DT_t)1 << 6)

#define GEX_OP_AND ((gex_OP_t)1 << 0)
#define GEX_OP_OR ((gex_OP_t)1 << 1)
#define GEX_OP_XOR ((gex_OP_t)1 << 2)
#define GEX_OP_ADD ((gex_OP_t)1 << 3)
#define GEX_OP_SUB ((gex_OP_t)1 << 4)
#define GEX_OP_MULT ((gex_OP_t)1 << 5)
#define GEX_OP_MIN ((gex_OP_t)1 << 6)
#define GEX_OP_MAX ((gex_OP_t)1 << 7)
#define GEX_OP_INC ((gex_OP_t)1 << 8)
#define GEX_OP_DEC ((gex_OP_t)1 << 9)
#define GEX_OP_SET ((gex_OP_t)1 << 10)
#define GEX_OP_CAS ((gex_OP_t)1 << 11)
#define GEX_OP_FAND ((gex_OP_t)1 << 15)
#define GEX_OP_FOR ((gex_OP_t)1 << 16)
#define GEX_OP_FXOR ((gex_OP_t)1 << 17)
#define GEX_OP_FADD ((gex_OP_t)1 << 18)
#define GEX_OP_FSUB ((gex_OP_t)1 << 19)
#define GEX_OP_FMULT ((gex_OP_t)1 << 20)
#define GEX_OP_FMIN ((gex_OP_t)1 << 21)
#define GEX_OP_FMAX ((gex_OP_t)1 << 22)
#define GEX_OP_FINC ((gex_OP_t)1 << 23)
#define GEX_OP_FDEC ((gex_OP_t)1 << 24)
#define GEX_OP_SWAP ((gex_OP_t)1 << 25)
#define GEX_OP_FCAS ((gex_OP_t)1 << 26)
#define GEX_OP_GET ((gex_OP_t)1 << 27)
#define GEX_OP_USER ((gex_OP_t)1 << 30)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 31)
#define GEX_OP_CSWAP GEX_OP_FCAS /* deprecated */
/* AND->FAND ... SET->SWAP, CAS->FCAS, and back */
#define GEX_OP_TO_FETCHING(op) ((op) << 15)
#define GEX_OP_TO_NONFETCHING(op) ((op) >> 15)

#ifdef __cplusplus
}
#endif

#endif
