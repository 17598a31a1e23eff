/*
 * gasnet_vis.h: GASNet-1's non-contiguous puts and gets (VIS): vector
 * (gasnet_memvec_t lists), indexed (address lists with one piece size per
 * side) and strided (regular sections), each as put and get, blocking,
 * _nb and _nbi.  All of them are bulk: the source may not change and the
 * destination may not be read until the operation completes.
 *
 * Each side is an ordered sequence of bytes (its pieces in list order, or
 * strided runs with the first dimension varying fastest); source byte k
 * goes to destination byte k, so the two sides may split the bytes
 * differently but must hold the same total.  The remote side (the
 * destination of a put, the source of a get) lies in the node's segment,
 * every piece checked; the local side may be anywhere.  Destination pieces
 * must not overlap; source pieces may.  Lists, strides and counts are read
 * during the call only.  _nb forms return a handle for the ordinary
 * gasnet_wait_syncnb family (GASNET_INVALID_HANDLE when already complete);
 * _nbi forms count as puts or gets of the thread's implicit set, or join its
 * access region.  Bad arguments are fatal errors naming the call, the piece
 * and the node.
 */
#ifndef _GASNET_VIS_H
#define _GASNET_VIS_H

#include "gasnet.h"
#include "gasnetex.h"
#include <stddef.h>
#include "gasnet_tools.h" /* again after gasnet.h: the VIS formatting helpers */

#ifdef __cplusplus
extern "C" {
#endif

/* Vector: dstcount / srccount entries; the byte totals must agree. */
extern void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                             gasnet_memvec_t const dstlist[], size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           gasnet_memvec_t const dstlist[], size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                 gasnet_memvec_t const dstlist[], size_t srccount,
                                 gasnet_memvec_t const srclist[]);
extern void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                             gasnet_node_t srcnode, size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                           gasnet_node_t srcnode, size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                 gasnet_node_t srcnode, size_t srccount,
                                 gasnet_memvec_t const srclist[]);

/* Indexed: pieces of dstlen / srclen bytes (both > 0); dstcount * dstlen ==
 * srccount * srclen. */
extern void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                             size_t dstlen, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           void *const dstlist[], size_t dstlen,
                                           size_t srccount, void *const srclist[],
                                           size_t srclen);
extern void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, size_t srccount, void *const srclist[],
                                 size_t srclen);
extern void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                             gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[],
                                           size_t dstlen, gasnet_node_t srcnode,
                                           size_t srccount, void *const srclist[],
                                           size_t srclen);
extern void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                 size_t srclen);

/*
 * Strided: count[0] bytes per run, count[1..stridelevels] items per
 * dimension; strides[k-1] is the distance between items of dimension k on
 * that side (bytes).  Non-empty transfers need strides[0] >= count[0] and
 * strides[k] >= count[k] * strides[k-1] for 0 < k < stridelevels.
 */
extern void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                           const size_t dststrides[], void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);
extern void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                           gasnet_node_t srcnode, void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);

/*
 * GASNet-EX VIS (subset spec §11): the same transfers by team and rank,
 * Blocking (0 on return), NB (an event; GEX_EVENT_INVALID when already
 * complete) and NBI (the thread's GEX_EC_PUT / GEX_EC_GET set).  Strided
 * sections count elements of elemsz bytes per dimension, with signed byte
 * strides in any order.  flags: GEX_FLAG_IMMEDIATE (never declined), the
 * segment hints, and for puts GEX_FLAG_ENABLE_LEAF_LC.
 */
#define GEX_VIS_MAX_PEERCOMPLETION 127
/* Arms this thread's next put: once its bytes are in place, handler runs at the target as a
 * reply-style Medium of no arguments with the nbytes (0..127) bytes of source_addr; 0 disarms. */
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);
#define _GEX_VIS_VECTOR_PUT(name, ret)                                                       \
    extern ret name(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,                        \
                    gex_Memvec_t const dstlist[], size_t srccount,                           \
                    gex_Memvec_t const srclist[], gex_Flags_t flags);
#define _GEX_VIS_VECTOR_GET(name, ret)                                                       \
    extern ret name(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],              \
                    gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],       \
                    gex_Flags_t flags);
#define _GEX_VIS_INDEXED_PUT(name, ret)                                                      \
    extern ret name(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount, void *const dstlist[], \
                    size_t dstlen, size_t srccount, void *const srclist[], size_t srclen,    \
                    gex_Flags_t flags);
#define _GEX_VIS_INDEXED_GET(name, ret)                                                      \
    extern ret name(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,      \
                    gex_Rank_t srcrank, size_t srccount, void *const srclist[],              \
                    size_t srclen, gex_Flags_t flags);
#define _GEX_VIS_STRIDED_PUT(name, ret)                                                      \
    extern ret name(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,                          \
                    const ptrdiff_t dststrides[], void *srcaddr,                             \
                    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],       \
                    size_t stridelevels, gex_Flags_t flags);
#define _GEX_VIS_STRIDED_GET(name, ret)                                                      \
    extern ret name(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],                \
                    gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],         \
                    size_t elemsz, const size_t count[], size_t stridelevels,                \
                    gex_Flags_t flags);
_GEX_VIS_VECTOR_PUT(gex_VIS_VectorPutBlocking, int)
_GEX_VIS_VECTOR_PUT(gex_VIS_VectorPutNB, gex_Event_t)
_GEX_VIS_VECTOR_PUT(gex_VIS_VectorPutNBI, int)
_GEX_VIS_VECTOR_GET(gex_VIS_VectorGetBlocking, int)
_GEX_VIS_VECTOR_GET(gex_VIS_VectorGetNB, gex_Event_t)
_GEX_VIS_VECTOR_GET(gex_VIS_VectorGetNBI, int)
_GEX_VIS_INDEXED_PUT(gex_VIS_IndexedPutBlocking, int)
_GEX_VIS_INDEXED_PUT(gex_VIS_IndexedPutNB, gex_Event_t)
_GEX_VIS_INDEXED_PUT(gex_VIS_IndexedPutNBI, int)
_GEX_VIS_INDEXED_GET(gex_VIS_IndexedGetBlocking, int)
_GEX_VIS_INDEXED_GET(gex_VIS_IndexedGetNB, gex_Event_t)
_GEX_VIS_INDEXED_GET(gex_VIS_IndexedGetNBI, int)
_GEX_VIS_STRIDED_PUT(gex_VIS_StridedPutBlocking, int)
_GEX_VIS_STRIDED_PUT(gex_VIS_StridedPutNB, gex_Event_t)
_GEX_VIS_STRIDED_PUT(gex_VIS_StridedPutNBI, int)
_GEX_VIS_STRIDED_GET(gex_VIS_StridedGetBlocking, int)
_GEX_VIS_STRIDED_GET(gex_VIS_StridedGetNB, gex_Event_t)
_GEX_VIS_STRIDED_GET(gex_VIS_StridedGetNBI, int)

#ifdef __cplusplus
}
#endif

#endif
