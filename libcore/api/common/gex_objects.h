/*
 * The GASNet-EX objects, shared by both faces (gex_objects.c).  A process
 * has one client, one endpoint and one primordial team, made by gex_Client_Init or, for a GASNet-1
 * client, by gasnet_init (gasnet_QueryGexObjects hands them out), and at
 * most one segment the network serves: the conduit's, whose address and size are read from the
 * conduit rather than kept twice.  gex_Segment_Create makes others (api/ex/segment.c): one the
 * conduit is to allocate when the network opens, or memory that only this process reaches.
 */
#ifndef GP_API_COMMON_GEX_OBJECTS_H
#define GP_API_COMMON_GEX_OBJECTS_H
#include <gasnetex.h>

#include "conduit/am/am.h"
#include "conduit/core/state.h"

struct _gex_client {
    int ex_first;                /* made by gex_Client_Init, not gasnet_init */
    const char *name;
    gex_Flags_t flags;
    void *cdata;
};
struct _gex_segment;
struct _gex_ep {
    void *cdata;
    struct _gex_segment *bound;  /* gex_EP_BindSegment's or gex_Segment_Attach's; NULL: none */
};
#define GPX_SEG_LIVE 0x5e6a11u
struct _gex_segment {
    void *cdata;
    uint32_t live;               /* GPX_SEG_LIVE until destroyed; 0 in gpx_segment */
    int conduit;                 /* the conduit's segment (gpc.segment once published) */
    int published;               /* the network opened with it */
    void *addr;                  /* not the conduit's: client memory, or owned private memory */
    uintptr_t size;              /* as created (the conduit's: rounded to pages) */
    int owned;                   /* addr is gp's mmap, unmapped by gex_Segment_Destroy */
};
/* A team of this process: the primordial one (_gex_tm0, whose conduit team
 * is GASNET_TEAM_ALL) or one gex_TM_Split/Create made (api/ex/team.c). */
#define GPX_TM_LIVE 0x7e4a11u
struct gpc_team;
struct _gex_tm {
    uint32_t live;               /* GPX_TM_LIVE until destroyed */
    void *cdata;
    struct gpc_team *team;
    int has_scratch;             /* made with client scratch: Destroy hands it back */
    gex_Memvec_t scratch;
};

/* A TM-pair (gex_TM_Pair) is no object: the local endpoint's address with the
 * low bit set, so it never equals a team's pointer (the header's inline puts
 * and gets test that bit too).  With one endpoint per process the remote
 * index is always 0 and is not kept. */
#define GPX_TM_PAIR_BIT ((uintptr_t)1)
static inline int gpx_tm_is_pair(gex_TM_t tm)
{
    return ((uintptr_t)tm & GPX_TM_PAIR_BIT) != 0;
}

extern struct _gex_client gpx_client;
extern struct _gex_ep gpx_ep;
extern struct _gex_segment gpx_segment;
extern struct _gex_tm _gex_tm0; /* exported: gasnetex.h's inline RMA compares with it */
/* The endpoint's segment: the one bound to it, else (gasnet_attach's) the conduit's once
 * attached, else GEX_SEGMENT_INVALID. */
gex_Segment_t gpx_ep_segment(void);

/* api/ex/team.c.  The jobrank of rank in tm; fatal unless tm is a live team and rank one
 * of its members, or a TM-pair and rank a jobrank.  The checks every point-to-point call
 * makes are inline where they pass, so that a gex_ call costs what its GASNet-1 twin does;
 * the functions they call say what failed. */
gex_Rank_t gpx_tm_jobrank_checked(const char *call, gex_TM_t tm, gex_Rank_t rank);
static inline gex_Rank_t gpx_tm_jobrank(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    if (tm == &_gex_tm0 && rank < gpc.nodes) /* gpc.nodes is 0 until gex_Client_Init */
        return rank;
    return gpx_tm_jobrank_checked(call, tm, rank);
}
/* Fatal unless tm is a live team (not a TM-pair: call names a collective call). */
void gpx_tm_check_team(const char *call, gex_TM_t tm);
/* The conduit team of tm, for a collective; fatal unless tm is a live team. */
struct gpc_team *gpx_tm_team(const char *call, gex_TM_t tm);
/* api/ex/rma.c.  Fatal if flags ask for offset addressing (GEX_FLAG_SELF_SEG_OFFSET,
 * _PEER_SEG_OFFSET), which gp does not have: RMA, AM and VIS addresses are addresses. */
_Noreturn void gpx_offset_addressing_refused(const char *call, gex_Flags_t flags);
static inline void gpx_check_addressing(const char *call, gex_Flags_t flags)
{
    if (__builtin_expect((flags & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET)) != 0, 0))
        gpx_offset_addressing_refused(call, flags);
}
/* api/ex/client.c.  Fatal unless the segment is attached and the caller is not in a
 * handler. */
_Noreturn void gpx_not_callable(const char *call);
static inline void gpx_check_callable(const char *call)
{
    if (__builtin_expect(!gpc.attached || gpc_in_handler, 0))
        gpx_not_callable(call);
}
#endif
