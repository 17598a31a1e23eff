/*
 * gasnet_coll.h: the GASNet-1 collectives on GASNET_TEAM_ALL, one image per
 * node.  gasnet.h includes this header; including it alone works too.
 *
 * Every collective is called by every node, in the same order, with the
 * same flags and sizes.  flags hold exactly one GASNET_COLL_IN_* (when data
 * may start to move: as soon as any node enters / once the node it
 * concerns has entered / once all have), exactly one GASNET_COLL_OUT_*
 * (what is complete on return), and exactly one of GASNET_COLL_SINGLE
 * (every node passes the same arguments) and GASNET_COLL_LOCAL (addresses
 * are each node's own).  GASNET_COLL_DST_IN_SEGMENT / _SRC_IN_SEGMENT
 * promise that the local dst / src lie in this node's segment (checked);
 * GASNET_COLL_AGGREGATE is accepted and has no effect.  On return, this
 * node's dst is complete and its src may be reused, whatever the OUT flag.
 * Bad arguments are fatal errors naming the argument.
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

typedef void *gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE ((gasnet_coll_handle_t)0)

#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_AGGREGATE (1 << 8)
#define GASNET_COLL_DST_IN_SEGMENT (1 << 9)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 10)

/* The function table of gasnet_coll_init, for GASNet-1 reductions: accepted
 * (and checked) so that clients build, but gp has no gasnet_coll_reduce. */
typedef void (*gasnet_coll_reduce_fn_t)(void *results, size_t result_count,
                                        const void *left_operands, size_t left_count,
                                        const void *right_operands, size_t elem_size, int flags,
                                        int arg);
typedef struct {
    gasnet_coll_reduce_fn_t fnptr;
    unsigned int flags;
} gasnet_coll_fn_entry_t;
typedef uint32_t gasnet_coll_fn_handle_t;

/* Collective, after gasnet_attach and before any other gasnet_coll_* call.
 * images must be NULL (one image per node; my_image is then ignored). */
extern void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                             gasnet_coll_fn_entry_t *fn_tbl, size_t fn_count, int init_flags);

/* srcimage's nbytes at src to dst on every node. */
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                  void *src, size_t nbytes, int flags);
/* Block i (nbytes) of srcimage's src to node i's dst. */
extern void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                void *src, size_t nbytes, int flags);
/* Node i's nbytes at src to block i of dstimage's dst. */
extern void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t nbytes, int flags);
/* Node i's nbytes at src to block i of every node's dst. */
extern void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                   int flags);
/* Block j of node i's src to block i of node j's dst. */
extern void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                 int flags);

/* Non-blocking forms: gp completes the operation before returning, so the
 * handle is always GASNET_COLL_INVALID_HANDLE (which the syncs accept). */
extern gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                     gasnet_image_t srcimage, void *src,
                                                     size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                   gasnet_image_t srcimage, void *src,
                                                   size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                      void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst,
                                                    void *src, size_t nbytes, int flags);
extern int gasnet_coll_try_sync(gasnet_coll_handle_t handle);
extern void gasnet_coll_wait_sync(gasnet_coll_handle_t handle);

#ifdef __cplusplus
}
#endif

#endif
