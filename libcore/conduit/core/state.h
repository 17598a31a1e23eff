/*
 * The conduit's state: one per process, reached as gpc.  What each module
 * keeps to itself stays in its own file; what lives here is read by several.
 */
#ifndef GP_CONDUIT_STATE_H
#define GP_CONDUIT_STATE_H

#include <gasnet.h>
#include <stdint.h>

#include "conduit/am/am.h"
#include "conduit/am/chunks.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/credits/credits.h"
#include "conduit/am/lid.h"
#include "conduit/am/reqrb.h"
#include "conduit/rma/rma_ops.h"
#include "ptl/ptl.h"
#include "util/counter.h"

struct gpc_state {
    int initialized;
    int attached;
    gasnet_node_t rank;
    gasnet_node_t nodes;
    gasnet_node_t local_nodes;       /* nodes on this host, this one included */
    uintptr_t max_local_segsize;     /* per host: sizing.c */
    uintptr_t max_global_segsize;
    struct ptl_ni *ni;
    ptl_handle_eq_t safe_eq;
    ptl_handle_eq_t am_eq;
    ptl_handle_eq_t sys_eq;
    ptl_handle_md_t sys_md;          /* zero-length source of system messages */
    gp_count_t sys_messages_sent;
    ptl_handle_md_t rar_md;
    ptl_handle_md_t raram_md;
    ptl_handle_md_t rarsafe_md;
    ptl_handle_md_t reqsb_md;
    ptl_handle_md_t rplsb_md;
    char *segment;                   /* this node's segment, NULL when it has none */
    uintptr_t segsize;
    uint64_t vis_area_bytes;         /* the VIS area after the segment (vis.h) */
    gasnet_seginfo_t *seginfo;       /* every node's segment, by node */
    struct gpc_chunk_pool reqsb_chunks;
    struct gpc_chunk_pool rplsb_chunks;
    struct gpc_reqrb reqrb;
    /* the static plan: credits per peer, bank, ReqRB and AM_EQ sizes */
    struct gpc_credit_plan credit_plan;
    struct credit_conn *credit_conns;     /* the dynamic algorithm's conn_state, by peer */
    struct credit_node credit_node;  /* the dynamic credit algorithm's node */
    gp_count_t send_tickets_free;    /* GASNET_PORTAL_MSG_LIMIT in all */
    gp_count_t tmpmd_tickets_free;   /* GASNET_PORTAL_NUM_TMPMD in all */
    int64_t send_tickets_limit;
    int64_t tmpmd_tickets_limit;
    gp_count_t next_lid;
    struct gpc_lid_cache request_lids;    /* unpacked Long requests, AM side */
    struct gpc_lid_cache reply_lids;      /* unpacked Long replies, SAFE side */
    gpc_handler_fn handlers[256];
    gex_AM_Entry_t am_entries[256];  /* what each client handler was registered as */
    int packed_long_enabled;         /* GASNET_PORTAL_PACKED_LONG */
    uint64_t packed_long_limit;      /* GASNET_PACKEDLONG_LIMIT: the chunk bounds it further */
    /* events taken from each queue per poll, 0: all there are (GASNET_PORTAL_*_LIMIT) */
    int safe_events_per_poll;
    int am_events_per_poll;
    int sys_events_per_poll;
    /* for the statistics page: */
    gp_count_t catch_basin_hits;
    gp_count_t am_events_taken;
    gp_count_t safe_events_taken;
    gp_count_t sys_events_taken;
    struct gpc_op_pool op_pool;
    /* by node: its segment as mapped here (shm), else NULL; NULL until rma.c's setup */
    char **mapped_segments;
    /* by node: 1 where puts are counted puts (ptl_put_counted: no MD, no events), else 0 */
    uint8_t *counted_puts;
    uint64_t put_bounce_limit;
    uint64_t get_bounce_limit;
    int wait_mode;                   /* GASNET_WAIT_*, from gasnet_set_waitmode */
    int oversubscribed;              /* more of the job's processes on this host than cores */
};

extern struct gpc_state gpc;

#endif
