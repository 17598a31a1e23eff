/*
 * The table gasnet.h's inline puts and gets read (gasnet_rma_inline.h,
 * doc/decisions.md "An exported table for inline puts and gets"): rma.c's
 * own decision, per node, that a put or get is a plain copy into a mapped
 * segment, published once attach is complete.  Until then nodes is 0 and
 * every inline call goes to the library, which reports the call phase.
 */
#include <stdlib.h>

#include "util/export.h"
#include "conduit/core/progress.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/core/state.h"

GP_EXPORT struct _gasnet_rma_map_v1 _gasnet_rma_map_v1;

void gpc_rma_map_publish(void)
{
    struct _gasnet_rma_peer_v1 *peers = calloc(gpc.nodes, sizeof *peers);
    if (peers == NULL)
        return; /* nodes stays 0: every call takes the library's path, which is correct */
    for (gasnet_node_t node = 0; node < gpc.nodes; node++) {
        /* mapped_segments is NULL wherever gpc_put/gpc_get would not copy directly. */
        peers[node].local = gpc.mapped_segments[node];
        peers[node].base = (uintptr_t)gpc.seginfo[node].addr;
        peers[node].size = gpc.seginfo[node].size;
    }
    _gasnet_rma_map_v1.peers = peers;
    _gasnet_rma_map_v1.nodes = gpc.nodes;
}

/* The inline copies' countdown to their next call into the progress engine
 * (gasnet_rma_inline.h); the library's own plain copies count down with it. */
GP_EXPORT __thread unsigned _gasnet_rma_calls_left_v1 = _GASNET_RMA_CALLS_PER_PROGRESS;

GP_EXPORT int _gasnet_rma_seq_calls_left_v1 = _GASNET_RMA_CALLS_PER_PROGRESS - 1;

GP_EXPORT void _gasnet_rma_progress_v1(void)
{
    _gasnet_rma_calls_left_v1 = _GASNET_RMA_CALLS_PER_PROGRESS;
    _gasnet_rma_seq_calls_left_v1 = _GASNET_RMA_CALLS_PER_PROGRESS - 1;
    gpc_call_progress(); /* which a handler's copy, unknown to the inline path, skips */
}
