/*
 * gasnet_ratomic.h: GASNet-EX remote atomics (spec §13): atomic domains
 * over a team, and one operation call per data type, explicit (NB, an
 * event) or implicit (NBI: GEX_EC_PUT for SET, GEX_EC_GET for GET,
 * GEX_EC_RMW for the others).
 */
#ifndef _GASNET_RATOMIC_H
#define _GASNET_RATOMIC_H

#include "gasnetex.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _gex_ad *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)(uintptr_t)0)

extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
extern void gex_AD_Destroy(gex_AD_t ad);
extern gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern void *gex_AD_QueryCData(gex_AD_t ad);
extern void gex_AD_SetCData(gex_AD_t ad, const void *val);

#define _GEX_AD_OPS(SUFFIX, TYPE)                                                              \
    extern gex_Event_t gex_AD_OpNB_##SUFFIX(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank,  \
                                            void *tgt_addr, gex_OP_t opcode, TYPE operand1,    \
                                            TYPE operand2, gex_Flags_t flags);                 \
    extern int gex_AD_OpNBI_##SUFFIX(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank,         \
                                     void *tgt_addr, gex_OP_t opcode, TYPE operand1,           \
                                     TYPE operand2, gex_Flags_t flags);
_GEX_AD_OPS(I32, int32_t)
_GEX_AD_OPS(U32, uint32_t)
_GEX_AD_OPS(I64, int64_t)
_GEX_AD_OPS(U64, uint64_t)
_GEX_AD_OPS(FLT, float)
_GEX_AD_OPS(DBL, double)
#undef _GEX_AD_OPS

#ifdef __cplusplus
}
#endif

#endif
