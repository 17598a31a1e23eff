/*
 * gasnetex.h: the part of the GASNet-EX API libgp implements (doc/clients.md
 * lists it and what is left for later), beside the GASNet-1 API of gasnet.h.
 *
 * The two headers work in either order and either alone: this one brings
 * gasnet.h in first, because EX clients still call GASNet-1 names (exit,
 * poll, barriers, segment sizes) and its types are the EX types' twins, and
 * gasnet.h brings this one in at its end.  Only a client that includes
 * gasnet.h itself gets _INCLUDED_GASNET_H, which GASNet's test harness reads
 * as "this is a GASNet-1 client".
 */
#ifndef _INCLUDED_GASNETEX_H
#define _INCLUDED_GASNETEX_H

#ifndef _GASNET_H
#define _GEX_BRINGS_GASNET_H
#include "gasnet.h"
#undef _GEX_BRINGS_GASNET_H
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GASNET_SUPPORTS_TI_ENTRY 1
#define GASNET_SUPPORTS_TI_IS_REQ 1
#define GASNET_SUPPORTS_TI_IS_LONG 1
#define GASNET_MAXEPS 1
/* Handlers run only on threads inside a gp call (doc/progress.md). */
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GEX_AM_INDEX_BASE 128
#define SIZEOF_GEX_RMA_VALUE_T 8

/* Types (§2.1): the EX names of GASNet-1 types are those types, so handlers and
 * handles written against either API mix without casts. */
#include "gasnet_fwd.h"

typedef gasnet_handler_t gex_AM_Index_t;
typedef gasnet_handlerarg_t gex_AM_Arg_t;
typedef gasnet_token_t gex_Token_t;
typedef struct _gex_tm *gex_TM_t;
typedef struct _gex_client *gex_Client_t;
typedef struct _gex_ep *gex_EP_t;
typedef struct _gex_segment *gex_Segment_t;
typedef struct _gex_mk *gex_MK_t;
#ifndef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
typedef void (*gex_AM_Fn_t)(); /* unprototyped: a handler of any prototype converts to it */
#ifndef __cplusplus
#pragma GCC diagnostic pop
#endif
typedef uint64_t gex_RMA_Value_t;
/* Field order is ABI: clients fill tables with positional initializers. */
typedef struct {
    gex_AM_Index_t gex_index; /* 0: gp picks one and writes it back */
    gex_AM_Fn_t gex_fnptr;
    gex_Flags_t gex_flags;
    unsigned int gex_nargs;
    const void *gex_cdata;
    const char *gex_name;
} gex_AM_Entry_t;
typedef const struct {
    gex_Rank_t gex_jobrank;
} gex_RankInfo_t;
typedef struct {
    gex_Rank_t gex_srcrank;
    gex_EP_t gex_ep;
    const gex_AM_Entry_t *gex_entry;
    int gex_is_req;
    int gex_is_long;
} gex_Token_Info_t;
typedef unsigned int gex_TI_t;
typedef unsigned int gex_EC_t;
typedef gasnet_hsl_t gex_HSL_t;
typedef struct {
    const char *gex_device_list;
    unsigned int gex_thread_roles;
    void *(*gex_progress_fn)(void *);
    void *gex_progress_arg;
} gex_ProgressThreadInfo_t;

/* Handles and invalid values (§2.2). */
#define GEX_TM_INVALID ((gex_TM_t)(uintptr_t)0)
#define GEX_CLIENT_INVALID ((gex_Client_t)(uintptr_t)0)
#define GEX_EP_INVALID ((gex_EP_t)(uintptr_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)(uintptr_t)0)
#define GEX_MK_INVALID ((gex_MK_t)(uintptr_t)0)
#define GEX_MK_HOST ((gex_MK_t)(uintptr_t)1)
#define GEX_EVENT_INVALID ((gex_Event_t)(uintptr_t)0)
#define GEX_EVENT_NO_OP ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP ((gex_Event_t *)(uintptr_t)3)
#define GEX_HSL_INITIALIZER GASNET_HSL_INITIALIZER

/* Flags and constants (§3) are gasnet_fwd.h's, but for these of gasnetex.h's own types. */
#define GEX_TI_SRCRANK ((gex_TI_t)1 << 0)
#define GEX_TI_ENTRY ((gex_TI_t)1 << 1)
#define GEX_TI_IS_REQ ((gex_TI_t)1 << 2)
#define GEX_TI_IS_LONG ((gex_TI_t)1 << 3)
#define GEX_TI_EP ((gex_TI_t)1 << 4)
#define GEX_TI_ALL ((gex_TI_t)31)
#define GEX_EC_PUT ((gex_EC_t)(1 | 2))
#define GEX_EC_GET ((gex_EC_t)4)
#define GEX_EC_AM ((gex_EC_t)2)
#define GEX_EC_LC ((gex_EC_t)2)
#define GEX_EC_RMW ((gex_EC_t)8)
#define GEX_EC_ALL (~(gex_EC_t)0)
#define GEX_THREAD_ROLE_RCV (1u << 0)
#define GEX_THREAD_ROLE_SND (1u << 1)

/* Client, endpoint, segment (§4). */
extern int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv, gex_Flags_t flags);
extern void gex_Client_SetCData(gex_Client_t client, const void *val);
extern void *gex_Client_QueryCData(gex_Client_t client);
extern gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);
extern const char *gex_Client_QueryName(gex_Client_t client);
extern void gex_EP_SetCData(gex_EP_t ep, const void *val);
extern void *gex_EP_QueryCData(gex_EP_t ep);
extern gex_Client_t gex_EP_QueryClient(gex_EP_t ep);
extern gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep);
extern gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep);
extern gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
extern int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);
extern int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                         gex_Flags_t flags);
extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t length);
extern int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                              uintptr_t length, gex_MK_t kind, gex_Flags_t flags);
extern void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps,
                                      gex_Flags_t flags);
extern void gex_Segment_SetCData(gex_Segment_t seg, const void *val);
extern void *gex_Segment_QueryCData(gex_Segment_t seg);
extern gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
extern gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg);
extern void *gex_Segment_QueryAddr(gex_Segment_t seg);
extern uintptr_t gex_Segment_QuerySize(gex_Segment_t seg);
extern gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                              void **localaddr_p, uintptr_t *size_p,
                                              gex_Flags_t flags);
extern int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                  void **localaddr_p, uintptr_t *size_p);

/* Teams (§5). */
extern gex_Rank_t gex_TM_QueryRank(gex_TM_t tm);
extern gex_Rank_t gex_TM_QuerySize(gex_TM_t tm);
extern gex_EP_t gex_TM_QueryEP(gex_TM_t tm);
extern gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
extern gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm);
extern void gex_TM_SetCData(gex_TM_t tm, const void *val);
extern void *gex_TM_QueryCData(gex_TM_t tm);
extern gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
extern gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
extern gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags);
extern size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                           void *scratch_addr, size_t scratch_size, gex_Flags_t flags);
extern size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                            gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                            size_t scratch_size, gex_Flags_t flags);
extern int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);
/* A TM-pair: for point-to-point calls only (RMA, AM Requests, VIS, gex_AM_Max*,
 * gex_EP_QueryBoundSegmentNB), whose rank argument is then a jobrank. */
extern gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);

/* System queries (§6). */
extern gex_Rank_t gex_System_QueryJobRank(void);
extern gex_Rank_t gex_System_QueryJobSize(void);
extern void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                      gex_Rank_t *my_info_index_p);
extern void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                     gex_Rank_t *my_info_index_p);
extern void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                       gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p);
extern int gex_System_GetVerboseErrors(void);
extern void gex_System_SetVerboseErrors(int enable);
extern int gex_System_QueryHiddenAMConcurrencyLevel(void);
extern int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                           const gex_ProgressThreadInfo_t **info_p,
                                           gex_Flags_t flags);
extern uint64_t gex_System_QueryMaxThreads(void);

/* Fixed-payload AMs (§7): the numbered and arity-free forms are macros over these. */
extern int _gex_AM_RequestShortM(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                 gex_Flags_t flags, int nargs, ...);
extern int _gex_AM_RequestMediumM(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                  const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                                  gex_Flags_t flags, int nargs, ...);
extern int _gex_AM_RequestLongM(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                const void *source_addr, size_t nbytes, void *dest_addr,
                                gex_Event_t *lc_opt, gex_Flags_t flags, int nargs, ...);
extern int _gex_AM_ReplyShortM(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                               int nargs, ...);
extern int _gex_AM_ReplyMediumM(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                                size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags, int nargs,
                                ...);
extern int _gex_AM_ReplyLongM(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                              size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                              gex_Flags_t flags, int nargs, ...);

/* Payload limits (§7.5): one limit for every destination, lc_opt, flag and
 * argument count, so the LUBs are the limits; the queries still evaluate
 * each argument once. */
#define gex_AM_MaxArgs() ((unsigned int)GASNET_MAXARGS)
#define gex_AM_LUBRequestMedium() ((size_t)960)
#define gex_AM_LUBReplyMedium() ((size_t)960)
#define gex_AM_LUBRequestLong() ((size_t)0x7fffffff)
#define gex_AM_LUBReplyLong() ((size_t)0x7fffffff)
extern size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                      gex_Flags_t flags, unsigned int nargs);
extern size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int nargs);
extern size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int nargs);
extern size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                  gex_Flags_t flags, unsigned int nargs);
extern size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int nargs);
extern size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                                     gex_Flags_t flags, unsigned int nargs);
extern gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* Negotiated-payload AMs (§8): Prepare, then fill SrcDescAddr and Commit (the numbered
 * Commit forms are gasnetex_am.h's macros over these), or Cancel. */
#define GASNET_SUPPORTS_AM_CANCEL 20240418L
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906L
typedef struct _gex_srcdesc *gex_AM_SrcDesc_t;
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)(uintptr_t)0)
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                    const void *client_buf, size_t least_payload,
                                                    size_t most_payload, gex_Event_t *lc_opt,
                                                    gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                  const void *client_buf, size_t least_payload,
                                                  size_t most_payload, void *dest_addr,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                size_t least_payload, size_t most_payload,
                                                void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);
extern void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
extern size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
extern int _gex_AM_CommitRequestMediumM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                        size_t nbytes, gex_Flags_t commit_flags, int nargs, ...);
extern int _gex_AM_CommitReplyMediumM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                      size_t nbytes, gex_Flags_t commit_flags, int nargs, ...);
extern int _gex_AM_CommitRequestLongM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                      void *dest_addr, gex_Flags_t commit_flags, int nargs, ...);
extern int _gex_AM_CommitReplyLongM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                    void *dest_addr, gex_Flags_t commit_flags, int nargs, ...);
extern int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);

/* Events and implicit operations (§9). */
extern int gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
extern int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_id);
extern int gex_NBI_Test(gex_EC_t mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t mask, gex_Flags_t flags);
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* RMA (§10). */
extern int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                 size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                               gex_Flags_t flags);
extern gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                 size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags);
extern int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                                  size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                    gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags);
extern gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags);

/* Collectives (§12) on any team but a TM-pair; each returns an event (GEX_EVENT_INVALID
 * when already complete).  gasnet_coll.h has them too, through gasnet.h. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
extern void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);
extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                        size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                          const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);

/* Handler-safe locks (§14): GASNet-1's, under their EX names. */
#define gex_HSL_Init(hsl) gasnet_hsl_init(hsl)
#define gex_HSL_Destroy(hsl) gasnet_hsl_destroy(hsl)
#define gex_HSL_Lock(hsl) gasnet_hsl_lock(hsl)
#define gex_HSL_Unlock(hsl) gasnet_hsl_unlock(hsl)
#define gex_HSL_Trylock(hsl) gasnet_hsl_trylock(hsl)

/* The EX objects of a client that came in through gasnet_init (§15.1); any pointer may be NULL. */
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                                   gex_Segment_t *segment_p);

#include "gasnetex_am.h"

/*
 * Puts and gets to a peer mapped here, inline where gasnet.h's are (blocking,
 * implicit and value forms): the primordial team's ranks are jobranks, so the
 * same table answers, as do a TM-pair's (gex_TM_Pair: the low bit set), and a
 * plain copy is complete, with nothing to count or to complete locally.  Other
 * teams' ranks need translating, so their calls
 * go to the exported functions, as do lc_opt and every other check.
 */
#ifndef GP_NO_INLINE_RMA
extern struct _gex_tm _gex_tm0; /* the primordial team */
/* Offset addressing goes to the library, which refuses it. */
#define _gex_rma_local(tm, rank, addr, nbytes, flags)                                    \
    (!((flags) & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET)) &&               \
             ((tm) == &_gex_tm0 || ((uintptr_t)(tm) & 1u))                               \
         ? _gasnet_rma_local(rank, addr, nbytes)                                         \
         : (char *)0)
static inline int _gex_RMA_PutBlocking_inline(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                              const void *src, size_t nbytes, gex_Flags_t flags)
{
    char *at = _gex_rma_local(tm, rank, dest, nbytes, flags);
    if (__builtin_expect(at != NULL, 1)) {
        _gasnet_rma_put_copy(at, src, nbytes);
        return 0;
    }
    return (gex_RMA_PutBlocking)(tm, rank, dest, src, nbytes, flags);
}
static inline int _gex_RMA_GetBlocking_inline(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags)
{
    const char *at = _gex_rma_local(tm, rank, src, nbytes, flags);
    if (__builtin_expect(at != NULL, 1)) {
        _gasnet_rma_get_copy(dest, at, nbytes);
        return 0;
    }
    return (gex_RMA_GetBlocking)(tm, dest, rank, src, nbytes, flags);
}
static inline int _gex_RMA_PutNBI_inline(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                         size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    char *at = _gex_rma_local(tm, rank, dest, nbytes, flags);
    if (__builtin_expect(at != NULL, 1)) {
        _gasnet_rma_put_copy(at, src, nbytes);
        return 0;
    }
    return (gex_RMA_PutNBI)(tm, rank, dest, src, nbytes, lc_opt, flags);
}
static inline int _gex_RMA_GetNBI_inline(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                         size_t nbytes, gex_Flags_t flags)
{
    const char *at = _gex_rma_local(tm, rank, src, nbytes, flags);
    if (__builtin_expect(at != NULL, 1)) {
        _gasnet_rma_get_copy(dest, at, nbytes);
        return 0;
    }
    return (gex_RMA_GetNBI)(tm, dest, rank, src, nbytes, flags);
}
#define gex_RMA_PutNBI(tm, rank, dest, src, nbytes, lc_opt, flags) \
    _gex_RMA_PutNBI_inline(tm, rank, dest, src, nbytes, lc_opt, flags)
#define gex_RMA_GetNBI(tm, dest, rank, src, nbytes, flags) \
    _gex_RMA_GetNBI_inline(tm, dest, rank, src, nbytes, flags)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* 1 to 8 bytes, the value's low-order ones; other sizes get the library's error. */
static inline int _gex_RMA_PutBlockingVal_inline(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                                 gex_RMA_Value_t value, size_t nbytes,
                                                 gex_Flags_t flags)
{
    char *at = nbytes - 1 < sizeof value ? _gex_rma_local(tm, rank, dest, nbytes, flags) : NULL;
    if (__builtin_expect(at != NULL, 1)) {
        _gasnet_rma_put_copy(at, &value, nbytes);
        return 0;
    }
    return (gex_RMA_PutBlockingVal)(tm, rank, dest, value, nbytes, flags);
}
static inline gex_RMA_Value_t _gex_RMA_GetBlockingVal_inline(gex_TM_t tm, gex_Rank_t rank,
                                                             void *src, size_t nbytes,
                                                             gex_Flags_t flags)
{
    gex_RMA_Value_t value = 0; /* zero-extended */
    const char *at =
        nbytes - 1 < sizeof value ? _gex_rma_local(tm, rank, src, nbytes, flags) : NULL;
    if (__builtin_expect(at == NULL, 0))
        return (gex_RMA_GetBlockingVal)(tm, rank, src, nbytes, flags);
    _gasnet_rma_get_copy(&value, at, nbytes);
    return value;
}
#define gex_RMA_PutBlockingVal(tm, rank, dest, value, nbytes, flags) \
    _gex_RMA_PutBlockingVal_inline(tm, rank, dest, value, nbytes, flags)
#define gex_RMA_GetBlockingVal(tm, rank, src, nbytes, flags) \
    _gex_RMA_GetBlockingVal_inline(tm, rank, src, nbytes, flags)
#endif
#define gex_RMA_PutBlocking(tm, rank, dest, src, nbytes, flags) \
    _gex_RMA_PutBlocking_inline(tm, rank, dest, src, nbytes, flags)
#define gex_RMA_GetBlocking(tm, dest, rank, src, nbytes, flags) \
    _gex_RMA_GetBlocking_inline(tm, dest, rank, src, nbytes, flags)
#endif

#ifdef __cplusplus
}
#endif

#endif
