/*
 * The EX VIS calls of gasnet_vis.h (spec §11): vector, indexed and strided
 * puts and gets by team and rank, Blocking, NB and NBI, over the checks
 * and the run GASNet-1's VIS uses (api/common/vis_checks.c) and the
 * conduit's VIS (conduit/vis/).  An EX strided description (element size,
 * element counts, signed strides in any order) becomes the conduit's
 * (bytes per run, run counts, strides as unsigned words, whose wrapping
 * arithmetic steps backwards for a negative stride).
 *
 * Local completion (§11.4) and peer completion (§11.5) cost only the calls
 * that ask: a put with GEX_FLAG_ENABLE_LEAF_LC, or one armed by
 * gex_VIS_SetPeerCompletionHandler, runs to remote completion before it
 * returns (an armed one then sends its notice), so its leaf is
 * GEX_EVENT_INVALID and GEX_EC_LC has nothing to wait for.
 */
#include <gasnet_vis.h>
#include <stddef.h>
#include <string.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "api/common/vis_checks.h"
#include "conduit/core/state.h"
#include "conduit/vis/vis.h"
#include "util/log.h"

_Static_assert(sizeof(gex_Memvec_t) == sizeof(gasnet_memvec_t) &&
                   offsetof(gex_Memvec_t, gex_addr) == offsetof(gasnet_memvec_t, addr) &&
                   offsetof(gex_Memvec_t, gex_len) == offsetof(gasnet_memvec_t, len),
               "the conduit reads a gex_Memvec_t list as a gasnet_memvec_t one");

/* More dimensions than any client uses (t:testvis goes to 20); the conduit's arrays are
 * built on the stack. */
#define MAX_LEVELS 64

#define HINT_FLAGS (GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | \
                    GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_PEER_SEG_BOUND)

/* This thread's arming for its next put (§11.5). */
static _Thread_local struct {
    gex_AM_Index_t handler;      /* 0: not armed */
    size_t nbytes;
    unsigned char payload[GEX_VIS_MAX_PEERCOMPLETION];
} armed;

GP_EXPORT void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                                size_t nbytes, gex_Flags_t flags)
{
    const char *call = "gex_VIS_SetPeerCompletionHandler";
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    if (handler == 0) {
        armed.handler = 0;
        return;
    }
    if (handler < GEX_AM_INDEX_BASE || gpc.handlers[handler] == NULL)
        gp_fatal("%s: handler %u is not a registered client handler (128..255)", call,
                 (unsigned)handler);
    if (nbytes > GEX_VIS_MAX_PEERCOMPLETION)
        gp_fatal("%s: nbytes %zu; the payload takes 0 to GEX_VIS_MAX_PEERCOMPLETION (%d)", call,
                 nbytes, GEX_VIS_MAX_PEERCOMPLETION);
    if (nbytes > 0 && source_addr == NULL)
        gp_fatal("%s: NULL source_addr for %zu bytes", call, nbytes);
    if (nbytes > 0)
        memcpy(armed.payload, source_addr, nbytes);
    armed.nbytes = nbytes;
    armed.handler = handler;
}

static void check_flags(const char *call, gex_Flags_t flags, int is_put)
{
    gex_Flags_t accepted = GEX_FLAG_IMMEDIATE | HINT_FLAGS | (is_put ? GEX_FLAG_ENABLE_LEAF_LC : 0);
    gpx_check_addressing(call, flags);
    if (flags & ~accepted)
        gp_fatal("%s: flags 0x%x; accepted are GEX_FLAG_IMMEDIATE, the segment hints%s", call,
                 (unsigned)flags, is_put ? " and GEX_FLAG_ENABLE_LEAF_LC" : " (ENABLE_LEAF_LC "
                 "is for puts)");
}

/* GEX_FLAG_IMMEDIATE is never declined: the call proceeds as without it. */
static gex_Event_t run_put(gasnet_node_t node, const struct gpc_vis_side *dst,
                           const struct gpc_vis_side *src, size_t nbytes, enum gp_vis_sync sync,
                           gex_Flags_t flags)
{
    if (armed.handler == 0) {
        if (flags & GEX_FLAG_ENABLE_LEAF_LC)
            sync = GP_VIS_BLOCKING; /* its source must be free when the leaf is asked for */
        return gp_api_vis_run(1, node, dst, src, nbytes, sync);
    }
    gex_AM_Index_t handler = armed.handler;
    armed.handler = 0; /* this put consumes the arming */
    gp_api_vis_run(1, node, dst, src, nbytes, GP_VIS_BLOCKING);
    gpc_vis_peer_notify(node, handler, armed.payload, armed.nbytes);
    return GEX_EVENT_INVALID;
}

/* ---- vector ---------------------------------------------------------------- */

static gex_Event_t putv(const char *call, enum gp_vis_sync sync, gex_TM_t tm, gex_Rank_t rank,
                        size_t dstcount, const gex_Memvec_t dstlist[], size_t srccount,
                        const gex_Memvec_t srclist[], gex_Flags_t flags)
{
    check_flags(call, flags, 1);
    gpx_check_callable(call);
    gasnet_node_t node = gpx_tm_jobrank(call, tm, rank);
    const gasnet_memvec_t *dl = (const gasnet_memvec_t *)dstlist;
    const gasnet_memvec_t *sl = (const gasnet_memvec_t *)srclist;
    size_t dst_bytes = gp_api_vis_vector_bytes(call, "dstlist", dstcount, dl, node, 1);
    size_t src_bytes = gp_api_vis_vector_bytes(call, "srclist", srccount, sl, 0, 0);
    gp_api_vis_check_dst_overlap(call, dstcount, dl, dst_bytes);
    gp_api_vis_check_sizes(call, dst_bytes, src_bytes);
    struct gpc_vis_side dst = { .form = GPC_VIS_VECTOR, .count = dstcount, .vec = dl };
    struct gpc_vis_side src = { .form = GPC_VIS_VECTOR, .count = srccount, .vec = sl };
    return run_put(node, &dst, &src, dst_bytes, sync, flags);
}

static gex_Event_t getv(const char *call, enum gp_vis_sync sync, gex_TM_t tm, size_t dstcount,
                        const gex_Memvec_t dstlist[], gex_Rank_t rank, size_t srccount,
                        const gex_Memvec_t srclist[], gex_Flags_t flags)
{
    check_flags(call, flags, 0);
    gpx_check_callable(call);
    gasnet_node_t node = gpx_tm_jobrank(call, tm, rank);
    const gasnet_memvec_t *dl = (const gasnet_memvec_t *)dstlist;
    const gasnet_memvec_t *sl = (const gasnet_memvec_t *)srclist;
    size_t dst_bytes = gp_api_vis_vector_bytes(call, "dstlist", dstcount, dl, 0, 0);
    size_t src_bytes = gp_api_vis_vector_bytes(call, "srclist", srccount, sl, node, 1);
    gp_api_vis_check_dst_overlap(call, dstcount, dl, dst_bytes);
    gp_api_vis_check_sizes(call, dst_bytes, src_bytes);
    struct gpc_vis_side dst = { .form = GPC_VIS_VECTOR, .count = dstcount, .vec = dl };
    struct gpc_vis_side src = { .form = GPC_VIS_VECTOR, .count = srccount, .vec = sl };
    return gp_api_vis_run(0, node, &dst, &src, dst_bytes, sync);
}

GP_EXPORT int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                        gex_Memvec_t const dstlist[], size_t srccount,
                                        gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    putv("gex_VIS_VectorPutBlocking", GP_VIS_BLOCKING, tm, dstrank, dstcount, dstlist, srccount,
         srclist, flags);
    return 0;
}

GP_EXPORT gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                          gex_Memvec_t const dstlist[], size_t srccount,
                                          gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    return putv("gex_VIS_VectorPutNB", GP_VIS_NB, tm, dstrank, dstcount, dstlist, srccount,
                srclist, flags);
}

GP_EXPORT int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                   gex_Memvec_t const dstlist[], size_t srccount,
                                   gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    putv("gex_VIS_VectorPutNBI", GP_VIS_NBI, tm, dstrank, dstcount, dstlist, srccount, srclist,
         flags);
    return 0;
}

GP_EXPORT int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount,
                                        gex_Memvec_t const dstlist[], gex_Rank_t srcrank,
                                        size_t srccount, gex_Memvec_t const srclist[],
                                        gex_Flags_t flags)
{
    getv("gex_VIS_VectorGetBlocking", GP_VIS_BLOCKING, tm, dstcount, dstlist, srcrank, srccount,
         srclist, flags);
    return 0;
}

GP_EXPORT gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount,
                                          gex_Memvec_t const dstlist[], gex_Rank_t srcrank,
                                          size_t srccount, gex_Memvec_t const srclist[],
                                          gex_Flags_t flags)
{
    return getv("gex_VIS_VectorGetNB", GP_VIS_NB, tm, dstcount, dstlist, srcrank, srccount,
                srclist, flags);
}

GP_EXPORT int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                   gex_Rank_t srcrank, size_t srccount,
                                   gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    getv("gex_VIS_VectorGetNBI", GP_VIS_NBI, tm, dstcount, dstlist, srcrank, srccount, srclist,
         flags);
    return 0;
}

/* ---- indexed --------------------------------------------------------------- */

static gex_Event_t puti(const char *call, enum gp_vis_sync sync, gex_TM_t tm, gex_Rank_t rank,
                        size_t dstcount, void *const dstlist[], size_t dstlen, size_t srccount,
                        void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    check_flags(call, flags, 1);
    gpx_check_callable(call);
    gasnet_node_t node = gpx_tm_jobrank(call, tm, rank);
    struct gpc_vis_side dst, src;
    size_t bytes = gp_api_vis_indexed_sides(call, 1, node, dstcount, dstlist, dstlen, srccount,
                                            srclist, srclen, &dst, &src);
    return run_put(node, &dst, &src, bytes, sync, flags);
}

static gex_Event_t geti(const char *call, enum gp_vis_sync sync, gex_TM_t tm, size_t dstcount,
                        void *const dstlist[], size_t dstlen, gex_Rank_t rank, size_t srccount,
                        void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    check_flags(call, flags, 0);
    gpx_check_callable(call);
    gasnet_node_t node = gpx_tm_jobrank(call, tm, rank);
    struct gpc_vis_side dst, src;
    size_t bytes = gp_api_vis_indexed_sides(call, 0, node, dstcount, dstlist, dstlen, srccount,
                                            srclist, srclen, &dst, &src);
    return gp_api_vis_run(0, node, &dst, &src, bytes, sync);
}

GP_EXPORT int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                         void *const dstlist[], size_t dstlen, size_t srccount,
                                         void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    puti("gex_VIS_IndexedPutBlocking", GP_VIS_BLOCKING, tm, dstrank, dstcount, dstlist, dstlen,
         srccount, srclist, srclen, flags);
    return 0;
}

GP_EXPORT gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                           void *const dstlist[], size_t dstlen, size_t srccount,
                                           void *const srclist[], size_t srclen,
                                           gex_Flags_t flags)
{
    return puti("gex_VIS_IndexedPutNB", GP_VIS_NB, tm, dstrank, dstcount, dstlist, dstlen,
                srccount, srclist, srclen, flags);
}

GP_EXPORT int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                    void *const dstlist[], size_t dstlen, size_t srccount,
                                    void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    puti("gex_VIS_IndexedPutNBI", GP_VIS_NBI, tm, dstrank, dstcount, dstlist, dstlen, srccount,
         srclist, srclen, flags);
    return 0;
}

GP_EXPORT int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                         size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                         void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    geti("gex_VIS_IndexedGetBlocking", GP_VIS_BLOCKING, tm, dstcount, dstlist, dstlen, srcrank,
         srccount, srclist, srclen, flags);
    return 0;
}

GP_EXPORT gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                           size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                           void *const srclist[], size_t srclen,
                                           gex_Flags_t flags)
{
    return geti("gex_VIS_IndexedGetNB", GP_VIS_NB, tm, dstcount, dstlist, dstlen, srcrank,
                srccount, srclist, srclen, flags);
}

GP_EXPORT int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                    size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                    void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    geti("gex_VIS_IndexedGetNBI", GP_VIS_NBI, tm, dstcount, dstlist, dstlen, srcrank, srccount,
         srclist, srclen, flags);
    return 0;
}

/* ---- strided --------------------------------------------------------------- */

/* The conduit's shape of an EX strided transfer; 0 bytes when nothing moves. */
struct shape {
    size_t counts[MAX_LEVELS + 1]; /* counts[0]: bytes per run */
    size_t dst[MAX_LEVELS], src[MAX_LEVELS];
    size_t levels;
    size_t nbytes;
};

/*
 * Checks an EX description and builds the conduit's: leading dimensions contiguous on both
 * sides fold into the run (an element of 8 bytes in rows of 100 is one run of 800), and the
 * remote side's lowest and highest byte, wherever negative strides put them, must lie in the
 * node's segment.
 */
static void make_shape(struct shape *sh, const char *call, const ptrdiff_t dststrides[],
                       const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                       size_t levels, const void *remote_addr, const char *remote_name,
                       gasnet_node_t node)
{
    if (levels > MAX_LEVELS)
        gp_fatal("%s: stridelevels %zu; gp takes 0 to %d", call, levels, MAX_LEVELS);
    if (levels > 0 && count == NULL)
        gp_fatal("%s: count is NULL with stridelevels %zu", call, levels);
    sh->levels = 0;
    sh->counts[0] = 0;
    size_t volume = elemsz;
    for (size_t k = 0; k < levels; k++)
        if (__builtin_mul_overflow(volume, count[k], &volume))
            gp_fatal("%s: elemsz times the counts exceeds SIZE_MAX bytes", call);
    sh->nbytes = volume;
    if (volume == 0)
        return;
    if (levels > 0 && (dststrides == NULL || srcstrides == NULL))
        gp_fatal("%s: %s is NULL with stridelevels %zu", call,
                 dststrides == NULL ? "dststrides" : "srcstrides", levels);
    const ptrdiff_t *rstrides = remote_name[0] == 'd' ? dststrides : srcstrides;
    ptrdiff_t lo = 0, hi = (ptrdiff_t)elemsz;
    for (size_t k = 0; k < levels; k++) {
        ptrdiff_t reach;
        if (__builtin_mul_overflow((ptrdiff_t)(count[k] - 1), rstrides[k], &reach) ||
            __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
            gp_fatal("%s: %s's extent overflows (count[%zu] %zu, stride %td)", call,
                     remote_name, k, count[k], rstrides[k]);
    }
    gp_api_vis_check_remote(call, remote_name, 0, node,
                            (const char *)((uintptr_t)remote_addr + (uintptr_t)lo),
                            (size_t)(hi - lo));
    size_t first = 0, run = elemsz;
    while (first < levels && (size_t)dststrides[first] == run &&
           (size_t)srcstrides[first] == run && dststrides[first] >= 0) {
        run *= count[first]; /* bounded by the volume */
        first++;
    }
    sh->counts[0] = run;
    sh->levels = levels - first;
    for (size_t k = first; k < levels; k++) {
        sh->counts[k - first + 1] = count[k];
        sh->dst[k - first] = (size_t)dststrides[k]; /* wraps: the layout adds it modulo 2^64 */
        sh->src[k - first] = (size_t)srcstrides[k];
    }
}

static gex_Event_t puts_ex(const char *call, enum gp_vis_sync sync, gex_TM_t tm, gex_Rank_t rank,
                           void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                           const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                           size_t levels, gex_Flags_t flags)
{
    struct shape sh;
    check_flags(call, flags, 1);
    gpx_check_callable(call);
    gasnet_node_t node = gpx_tm_jobrank(call, tm, rank);
    make_shape(&sh, call, dststrides, srcstrides, elemsz, count, levels, dstaddr, "dstaddr",
               node);
    struct gpc_vis_side dst = { .form = GPC_VIS_STRIDED, .base = dstaddr, .strides = sh.dst,
                                .counts = sh.counts, .levels = sh.levels };
    struct gpc_vis_side src = { .form = GPC_VIS_STRIDED, .base = srcaddr, .strides = sh.src,
                                .counts = sh.counts, .levels = sh.levels };
    return run_put(node, &dst, &src, sh.nbytes, sync, flags);
}

static gex_Event_t gets_ex(const char *call, enum gp_vis_sync sync, gex_TM_t tm, void *dstaddr,
                           const ptrdiff_t dststrides[], gex_Rank_t rank, void *srcaddr,
                           const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                           size_t levels, gex_Flags_t flags)
{
    struct shape sh;
    check_flags(call, flags, 0);
    gpx_check_callable(call);
    gasnet_node_t node = gpx_tm_jobrank(call, tm, rank);
    make_shape(&sh, call, dststrides, srcstrides, elemsz, count, levels, srcaddr, "srcaddr",
               node);
    struct gpc_vis_side dst = { .form = GPC_VIS_STRIDED, .base = dstaddr, .strides = sh.dst,
                                .counts = sh.counts, .levels = sh.levels };
    struct gpc_vis_side src = { .form = GPC_VIS_STRIDED, .base = srcaddr, .strides = sh.src,
                                .counts = sh.counts, .levels = sh.levels };
    return gp_api_vis_run(0, node, &dst, &src, sh.nbytes, sync);
}

GP_EXPORT int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                         const ptrdiff_t dststrides[], void *srcaddr,
                                         const ptrdiff_t srcstrides[], size_t elemsz,
                                         const size_t count[], size_t stridelevels,
                                         gex_Flags_t flags)
{
    puts_ex("gex_VIS_StridedPutBlocking", GP_VIS_BLOCKING, tm, dstrank, dstaddr, dststrides,
            srcaddr, srcstrides, elemsz, count, stridelevels, flags);
    return 0;
}

GP_EXPORT gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                           const ptrdiff_t dststrides[], void *srcaddr,
                                           const ptrdiff_t srcstrides[], size_t elemsz,
                                           const size_t count[], size_t stridelevels,
                                           gex_Flags_t flags)
{
    return puts_ex("gex_VIS_StridedPutNB", GP_VIS_NB, tm, dstrank, dstaddr, dststrides, srcaddr,
                   srcstrides, elemsz, count, stridelevels, flags);
}

GP_EXPORT int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                    const ptrdiff_t dststrides[], void *srcaddr,
                                    const ptrdiff_t srcstrides[], size_t elemsz,
                                    const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    puts_ex("gex_VIS_StridedPutNBI", GP_VIS_NBI, tm, dstrank, dstaddr, dststrides, srcaddr,
            srcstrides, elemsz, count, stridelevels, flags);
    return 0;
}

GP_EXPORT int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                         gex_Rank_t srcrank, void *srcaddr,
                                         const ptrdiff_t srcstrides[], size_t elemsz,
                                         const size_t count[], size_t stridelevels,
                                         gex_Flags_t flags)
{
    gets_ex("gex_VIS_StridedGetBlocking", GP_VIS_BLOCKING, tm, dstaddr, dststrides, srcrank,
            srcaddr, srcstrides, elemsz, count, stridelevels, flags);
    return 0;
}

GP_EXPORT gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr,
                                           const ptrdiff_t dststrides[], gex_Rank_t srcrank,
                                           void *srcaddr, const ptrdiff_t srcstrides[],
                                           size_t elemsz, const size_t count[],
                                           size_t stridelevels, gex_Flags_t flags)
{
    return gets_ex("gex_VIS_StridedGetNB", GP_VIS_NB, tm, dstaddr, dststrides, srcrank, srcaddr,
                   srcstrides, elemsz, count, stridelevels, flags);
}

GP_EXPORT int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                    gex_Rank_t srcrank, void *srcaddr,
                                    const ptrdiff_t srcstrides[], size_t elemsz,
                                    const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    gets_ex("gex_VIS_StridedGetNBI", GP_VIS_NBI, tm, dstaddr, dststrides, srcrank, srcaddr,
            srcstrides, elemsz, count, stridelevels, flags);
    return 0;
}
