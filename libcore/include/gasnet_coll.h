/*
 * gasnet_coll.h: the GASNet-1 collectives and teams, as GASNet 1.29.3 has
 * them.  gasnet.h includes this header; including it alone works too.
 *
 * Every image (a client thread taking part; one per node unless
 * gasnet_coll_init was given an images table) calls every collective of a
 * team, in the same order, with the same flags and sizes.  flags hold
 * exactly one GASNET_COLL_IN_* (when data may start to move), exactly one
 * GASNET_COLL_OUT_* (what a sync guarantees) and exactly one of
 * GASNET_COLL_SINGLE (every caller passes the same arguments: M lists hold
 * every image's buffer) and GASNET_COLL_LOCAL (each caller passes its own:
 * M lists hold this node's images).  Roots and blocks are image numbers
 * (team ranks on a split team).  Each X also exists as X_nb, returning a
 * handle for gasnet_coll_wait_sync / try_sync (GASNET_COLL_INVALID_HANDLE
 * when the operation finished inside the call).  Bad arguments are fatal
 * errors naming the call, the argument and what is accepted.
 */
#ifndef _GASNET_COLL_H
#define _GASNET_COLL_H

#include "gasnet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t gasnet_image_t;
typedef struct _gasnet_team *gasnet_team_handle_t;
extern gasnet_team_handle_t _gasnet_team_all;
#define GASNET_TEAM_ALL _gasnet_team_all

typedef struct _gasnet_coll_handle *gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE ((gasnet_coll_handle_t)0)

#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SYNC_FLAG_MASK 0x3F
#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_AGGREGATE (1 << 8)
#define GASNET_COLL_FIXED_THREADS_PER_NODE (1 << 9)   /* accepted, no effect */
#define GASNET_COLL_DST_IN_SEGMENT (1 << 10)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 11)
#define GASNET_COLL_REDUCE_OP_SUM (1 << 12)           /* the four: accepted, no effect */
#define GASNET_COLL_REDUCE_OP_MAX (1 << 13)
#define GASNET_COLL_REDUCE_OP_MIN (1 << 14)
#define GASNET_COLL_REDUCE_OP_CUSTOM (1 << 15)
#define GASNET_COLL_INCLUSIVE_SCAN (1 << 16)
#define GASNET_COLL_EXCLUSIVE_SCAN (1 << 17)
#define GASNET_COLL_DISABLE_AUTOTUNE (1 << 18)        /* accepted, no effect */
#define GASNET_COLL_NO_IMAGES (1 << 19)               /* accepted, no effect */

/* Function-table flags (gasnet_coll_fn_entry_t.flags, and what a callback gets). */
#define GASNET_COLL_AMSAFE (1 << 0)
#define GASNET_COLL_NONCOMM (1 << 1)

/*
 * A reduction callback.  gp calls it element-wise, as GASNet 1.29.3 does:
 * fn(acc, n, acc, n, contribution, elem_size, entry flags, func_arg), so
 * results[i] = left[i] op right[i] for i < n, results aliasing left.
 * Contributions are combined in image order (rotated to start at the root's
 * node), on client threads inside gasnet_coll_* calls.
 */
typedef void (*gasnet_coll_reduce_fn_t)(void *results, size_t result_count,
                                        const void *left_operands, size_t left_count,
                                        const void *right_operands, size_t elem_size, int flags,
                                        int arg);
typedef struct {
    gasnet_coll_reduce_fn_t fnptr;
    unsigned int flags;
} gasnet_coll_fn_entry_t;
typedef gasnet_handlerarg_t gasnet_coll_fn_handle_t;

/* Collective, after gasnet_attach and before any other gasnet_coll_* call
 * but the barriers.  images: NULL (an image per node) or gasnet_nodes()
 * counts of images per node (PAR builds; every image then calls this with
 * its own number my_image).  fn_tbl is copied. */
extern void gasnet_coll_init(const gasnet_image_t images[], gasnet_image_t my_image,
                             gasnet_coll_fn_entry_t fn_tbl[], size_t fn_count, int init_flags);

#define _GASNET_COLL_DECLARE_MOVERS(name, rtype)                                                   \
    extern rtype gasnet_coll_broadcast##name(gasnet_team_handle_t team, void *dst,             \
                                             gasnet_image_t srcimage, void *src, size_t nbytes,   \
                                             int flags);                                          \
    extern rtype gasnet_coll_broadcastM##name(gasnet_team_handle_t team, void *const dstlist[], \
                                              gasnet_image_t srcimage, void *src, size_t nbytes,  \
                                              int flags);                                         \
    extern rtype gasnet_coll_scatter##name(gasnet_team_handle_t team, void *dst,               \
                                           gasnet_image_t srcimage, void *src, size_t nbytes,     \
                                           int flags);                                            \
    extern rtype gasnet_coll_scatterM##name(gasnet_team_handle_t team, void *const dstlist[],   \
                                            gasnet_image_t srcimage, void *src, size_t nbytes,    \
                                            int flags);                                           \
    extern rtype gasnet_coll_gather##name(gasnet_team_handle_t team, gasnet_image_t dstimage,  \
                                          void *dst, void *src, size_t nbytes, int flags);        \
    extern rtype gasnet_coll_gatherM##name(gasnet_team_handle_t team, gasnet_image_t dstimage, \
                                           void *dst, void *const srclist[], size_t nbytes,       \
                                           int flags);                                            \
    extern rtype gasnet_coll_gather_all##name(gasnet_team_handle_t team, void *dst, void *src, \
                                              size_t nbytes, int flags);                          \
    extern rtype gasnet_coll_gather_allM##name(gasnet_team_handle_t team,                      \
                                               void *const dstlist[], void *const srclist[],      \
                                               size_t nbytes, int flags);                         \
    extern rtype gasnet_coll_exchange##name(gasnet_team_handle_t team, void *dst, void *src,   \
                                            size_t nbytes, int flags);                            \
    extern rtype gasnet_coll_exchangeM##name(gasnet_team_handle_t team, void *const dstlist[],  \
                                             void *const srclist[], size_t nbytes, int flags);    \
    extern rtype gasnet_coll_reduce##name(gasnet_team_handle_t team, gasnet_image_t dstimage,  \
                                          void *dst, void *src, size_t src_blksz,                 \
                                          size_t src_offset, size_t elem_size,                    \
                                          size_t elem_count, gasnet_coll_fn_handle_t func,        \
                                          int func_arg, int flags);                               \
    extern rtype gasnet_coll_reduceM##name(gasnet_team_handle_t team, gasnet_image_t dstimage, \
                                           void *dst, void *const srclist[], size_t src_blksz,    \
                                           size_t src_offset, size_t elem_size,                   \
                                           size_t elem_count, gasnet_coll_fn_handle_t func,       \
                                           int func_arg, int flags);                              \
    extern rtype gasnet_coll_scan##name(gasnet_team_handle_t team, void *dst, size_t dst_blksz, \
                                        size_t dst_offset, void *src, size_t src_blksz,           \
                                        size_t src_offset, size_t elem_size, size_t elem_count,   \
                                        gasnet_coll_fn_handle_t func, int func_arg, int flags);   \
    extern rtype gasnet_coll_scanM##name(gasnet_team_handle_t team, void *const dstlist[],      \
                                         size_t dst_blksz, size_t dst_offset,                     \
                                         void *const srclist[], size_t src_blksz,                 \
                                         size_t src_offset, size_t elem_size, size_t elem_count,  \
                                         gasnet_coll_fn_handle_t func, int func_arg, int flags);

/* broadcast: srcimage's nbytes at src to every image's dst.
 * scatter: block i of srcimage's src to image i's dst.
 * gather: image i's src to block i of dstimage's dst.
 * gather_all: image i's src to block i of every image's dst.
 * exchange: block j of image i's src to block i of image j's dst.
 * reduce: element k of dstimage's dst = element k of every image's src,
 *   combined by fn_tbl[func] (src_blksz and src_offset must be 0).
 * scan: declared for source compatibility; calling it is a fatal error. */
_GASNET_COLL_DECLARE_MOVERS(, void)
_GASNET_COLL_DECLARE_MOVERS(_nb, gasnet_coll_handle_t)
#undef _GASNET_COLL_DECLARE_MOVERS

/* Not collective: only the initiating image syncs its handle. */
extern void gasnet_coll_wait_sync(gasnet_coll_handle_t handle);
extern int gasnet_coll_try_sync(gasnet_coll_handle_t handle);
extern void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
extern int gasnet_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
extern void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);
extern int gasnet_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);

/* Teams.  split is collective over parent_team: the callers passing one
 * color form a team in which each has rank relrank (0..n-1, given
 * explicitly); clientdata points at a gasnet_seginfo_t of scratch space
 * (read, not needed by gp).  Teams live until exit. */
extern gasnet_team_handle_t gasnet_coll_team_split(gasnet_team_handle_t parent_team,
                                                   gasnet_node_t color, gasnet_node_t relrank,
                                                   void *clientdata);
extern gasnet_node_t gasnet_coll_team_rank2node(gasnet_team_handle_t team, int rank);
extern gasnet_node_t gasnet_coll_team_node2rank(gasnet_team_handle_t team, gasnet_node_t node);
extern gasnet_node_t gasnet_coll_team_size(gasnet_team_handle_t team);

/* Team barriers: gasnet_barrier_* among the team's members.  On
 * GASNET_TEAM_ALL they are the same barrier as gasnet_barrier_*.  flags may
 * add GASNET_BARRIERFLAG_IMAGES: every image calls (not _try). */
extern void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id);

/* Profiling and autotuning: gp has no profiler or autotuner, so these do
 * nothing (as GASNet 1.29.3's do with its default settings). */
extern void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_loadTuningState(char *filename, gasnet_team_handle_t team);

typedef enum {
    GASNET_COLL_BROADCAST_OP = 0,
    GASNET_COLL_BROADCASTM_OP,
    GASNET_COLL_SCATTER_OP,
    GASNET_COLL_SCATTERM_OP,
    GASNET_COLL_GATHER_OP,
    GASNET_COLL_GATHERM_OP,
    GASNET_COLL_GATHER_ALL_OP,
    GASNET_COLL_GATHER_ALLM_OP,
    GASNET_COLL_EXCHANGE_OP,
    GASNET_COLL_EXCHANGEM_OP,
    GASNET_COLL_REDUCE_OP,
    GASNET_COLL_REDUCEM_OP,
    GASNET_COLL_NUM_COLL_OPTYPES
} gasnet_coll_optype_t;

#ifdef __cplusplus
}
#endif

#endif
