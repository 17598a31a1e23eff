/*
 * gasnet_init and gasnet_attach below the API checks: bootstrap, segment
 * limits (per host: sizing.c), handler registration, and the resources of seed 000 -- the
 * registered region holding the segment, ReqSB and RplSB chunk pools, the
 * ReqRB chain and the EQs; the MDs RAR, RARAM, the segment's SAFE MD,
 * ReqSB and RplSB; credits, tickets and LID caches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "conduit/am/am.h"
#include "conduit/am/am_ring.h"
#include "conduit/am/am_wire.h"
#include "conduit/attach/attach.h"
#include "conduit/coll/barrier.h"
#include "conduit/am/chunks.h"
#include "conduit/coll/coll.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/credits/credits.h"
#include "conduit/exit/exit.h"
#include "conduit/am/lid.h"
#include "conduit/core/md_role.h"
#include "conduit/atomic/atomic.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/progress.h"
#include "conduit/am/reqrb.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/attach/runtime.h"
#include "conduit/core/state.h"
#include "conduit/core/stats.h"
#include "conduit/credits/sys.h"
#include "conduit/vis/vis.h"
#include "config/config.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/log.h"

struct gpc_state gpc;

#define PAGE ((uintptr_t)GASNET_PAGESIZE)
#define ALIGN_VIS(x) (((uint64_t)(x) + 15u) & ~(uint64_t)15u) /* vis.c's tail_offset */

int gpc_init(void)
{
    int rc = gp_runtime_init();
    if (rc != GASNET_OK)
        return rc;
    gpc.rank = (gasnet_node_t)gp_boot_rank();
    gpc.nodes = (gasnet_node_t)gp_boot_size();
    /* Collective, like init: gasnet_getNodeInfo answers from here on, and the
     * host's share of memory and cores follows from it (sizing.c). */
    rc = gpc_nodeinfo_init();
    if (rc != GASNET_OK)
        return rc;
    gpc_sizing_init();
    uint64_t mine = gpc.max_local_segsize;
    uint64_t *all = calloc(gpc.nodes, sizeof *all);
    if (all == NULL || gp_boot_allgather(&mine, all, sizeof mine) != 0) {
        free(all);
        return GASNET_ERR_RESOURCE;
    }
    gpc.max_global_segsize = gpc.max_local_segsize;
    for (gasnet_node_t node = 0; node < gpc.nodes; node++)
        if (all[node] < gpc.max_global_segsize)
            gpc.max_global_segsize = (uintptr_t)all[node];
    free(all);
    gpc.initialized = 1;
    gpc_exit_install_signals();
    return GASNET_OK;
}

/* A GASNet-1 entry says nothing of kinds or arguments: it is stored as taking every kind. */
static void set_legacy_entry(unsigned index, gasnet_handlerentry_t *entry, gpc_handler_fn handlers[256])
{
    handlers[index] = (gpc_handler_fn)entry->fnptr;
    if (handlers != gpc.handlers)
        return;
    gex_AM_Entry_t *stored = &gpc.am_entries[index];
    memset(stored, 0, sizeof *stored);
    stored->gex_index = (gex_AM_Index_t)index;
    stored->gex_fnptr = (gex_AM_Fn_t)entry->fnptr;
    stored->gex_flags = GEX_FLAG_AM_REQREP | GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG;
}

/* Seed-spec handler registration: fixed indices first, then "don't care"
 * entries get the lowest free index in 128..255, in table order. */
int gpc_register_handlers(gasnet_handlerentry_t *table, int numentries,
                          gpc_handler_fn handlers[256])
{
    char taken[256] = { 0 };
    for (int i = 0; i < numentries; i++) {
        unsigned index = table[i].index;
        if (index == 0)
            continue;
        if (index < 128) {
            gp_error("attach", "handler table entry %d asks for index %u; client handlers use "
                     "128..255 (0 means any)", i, index);
            return GASNET_ERR_BAD_ARG;
        }
        if (taken[index]) {
            gp_error("attach", "handler table entry %d asks for index %u, already taken", i, index);
            return GASNET_ERR_BAD_ARG;
        }
        taken[index] = 1;
        set_legacy_entry(index, &table[i], handlers);
    }
    for (int i = 0; i < numentries; i++) {
        if (table[i].index != 0)
            continue;
        unsigned index = 128;
        while (index < 256 && taken[index])
            index++;
        if (index == 256) {
            gp_error("attach", "handler table entry %d: no free index left in 128..255", i);
            return GASNET_ERR_BAD_ARG;
        }
        taken[index] = 1;
        table[i].index = (gasnet_handler_t)index;
        set_legacy_entry(index, &table[i], handlers);
    }
    return GASNET_OK;
}

static int attach_md(unsigned pt, void *start, uint64_t length, unsigned options,
                     ptl_handle_eq_t eq, enum gpc_md_role role, ptl_handle_md_t *md)
{
    struct ptl_md_desc desc = { .start = start, .length = length, .threshold = PTL_MD_THRESH_INF,
                                .options = options, .eq = eq,
                                .user_ptr = gpc_md_tag_role(role) };
    int rc = ptl_md_attach(gpc.ni, pt, 0, ~0ull, &desc, PTL_RETAIN, PTL_INS_AFTER,
                           PTL_INVALID_HANDLE, md);
    if (rc != PTL_OK)
        gp_error("attach", "cannot attach an MD on portal entry %u: %s", pt, ptl_strerror(rc));
    return rc == PTL_OK ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static uint64_t region_bytes_for(uintptr_t segsize, uint32_t safe_events)
{
    return segsize + gpc.vis_area_bytes + PAGE +
           (uint64_t)(gp_cfg.portal_sb_chunks + gp_cfg.portal_rpl_chunks) * GPC_CHUNK_BYTES +
           (uint64_t)gpc.credit_plan.reqrb_buffers * gpc.credit_plan.reqrb_buffer_bytes +
           ptl_eq_bytes(safe_events) + ptl_eq_bytes(gpc.credit_plan.am_eq_events) +
           ptl_eq_bytes(4 * gpc.nodes + 64) + gpc_ring_region_bytes() + 64 * 1024;
}

static int open_network(uintptr_t segsize)
{
    /* SAFE_EQ: a SEND_END per ticket, an ACK per ticket, a reply and its data per chunk. */
    uint32_t safe_events = (uint32_t)(2 * gp_cfg.portal_msg_limit + 2 * gp_cfg.portal_sb_chunks + 64);
    uint64_t max_md = 16 + gpc.credit_plan.reqrb_buffers + (uint64_t)gp_cfg.portal_num_tmpmd;
    if (max_md > 65000)
        gp_fatal("GASNET_PORTAL_NUM_TMPMD=%lld plus %u ReqRB buffers exceeds the 65000 memory "
                 "descriptors a node can hold (hint: lower GASNET_PORTAL_NUM_TMPMD)",
                 (long long)gp_cfg.portal_num_tmpmd, gpc.credit_plan.reqrb_buffers);
    struct ptl_ni_params params = {
        .transport = gp_cfg.gp_transport, .region_bytes = region_bytes_for(segsize, safe_events),
        .max_pt = PT_COUNT, .max_me_per_pt = gpc.credit_plan.reqrb_buffers + 2,
        .max_eq = 3, .max_md = (unsigned)max_md,
    };
    int rc = ptl_ni_init(&params, &gpc.ni);
    if (rc != PTL_OK) {
        gp_error("attach", "cannot open the network: %s", ptl_strerror(rc));
        return GASNET_ERR_RESOURCE;
    }
    if (ptl_eq_alloc(gpc.ni, safe_events, &gpc.safe_eq) != PTL_OK ||
        ptl_eq_alloc(gpc.ni, gpc.credit_plan.am_eq_events, &gpc.am_eq) != PTL_OK)
        return GASNET_ERR_RESOURCE;
    return GASNET_OK;
}

static int setup_buffers(uintptr_t segsize)
{
    gpc.segsize = segsize;
    /* The VIS area follows the client's bytes; only the AM MDs reach it. */
    uint64_t reach = segsize ? ALIGN_VIS(segsize) + gpc.vis_area_bytes : 0;
    gpc.segment = segsize ? ptl_region_alloc(gpc.ni, reach, PAGE) : NULL;
    char *reqsb = ptl_region_alloc(gpc.ni, (uint64_t)gp_cfg.portal_sb_chunks * GPC_CHUNK_BYTES, 64);
    char *rplsb = ptl_region_alloc(gpc.ni, (uint64_t)gp_cfg.portal_rpl_chunks * GPC_CHUNK_BYTES, 64);
    if ((segsize && gpc.segment == NULL) || reqsb == NULL || rplsb == NULL)
        return GASNET_ERR_RESOURCE;
    if (gpc_chunk_pool_init(&gpc.reqsb_chunks, reqsb, (uint32_t)gp_cfg.portal_sb_chunks) != GASNET_OK ||
        gpc_chunk_pool_init(&gpc.rplsb_chunks, rplsb, (uint32_t)gp_cfg.portal_rpl_chunks) != GASNET_OK)
        return GASNET_ERR_RESOURCE;
    /* Permanent: transports with RDMA (ibv) may let initiators reach it directly. */
    unsigned seg_options = PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE | PTL_MD_PERMANENT;
    uint64_t reqsb_bytes = (uint64_t)gp_cfg.portal_sb_chunks * GPC_CHUNK_BYTES;
    int rc = attach_md(PT_RAR, gpc.segment, segsize, seg_options, PTL_EQ_NONE, ROLE_NONE,
                       &gpc.rar_md);
    if (rc == GASNET_OK)
        rc = attach_md(PT_RARAM, gpc.segment, reach, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE,
                       gpc.am_eq, ROLE_RARAM, &gpc.raram_md);
    if (rc == GASNET_OK)
        rc = attach_md(PT_RARSAFE, gpc.segment, reach, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE,
                       gpc.safe_eq, ROLE_RARSAFE, &gpc.rarsafe_md);
    if (rc == GASNET_OK)
        rc = attach_md(PT_REQSB, reqsb, reqsb_bytes, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE,
                       gpc.safe_eq, ROLE_REQSB, &gpc.reqsb_md);
    if (rc != GASNET_OK)
        return rc;
    struct ptl_md_desc rpl = { .start = rplsb, .length = (uint64_t)gp_cfg.portal_rpl_chunks * GPC_CHUNK_BYTES,
                               .threshold = PTL_MD_THRESH_INF, .eq = gpc.safe_eq,
                               .user_ptr = gpc_md_tag_role(ROLE_RPLSB) };
    if (ptl_md_bind(gpc.ni, &rpl, &gpc.rplsb_md) != PTL_OK)
        return GASNET_ERR_RESOURCE;
    rc = gpc_sys_setup();
    if (rc == GASNET_OK) {
        gpc_progress_watch_queues();
        rc = gpc_ring_setup();
    }
    return rc == GASNET_OK ? gpc_reqrb_setup() : rc;
}

static int setup_flow_control(void)
{
    gpc.credit_conns = calloc(gpc.nodes, sizeof *gpc.credit_conns);
    if (gpc.credit_conns == NULL)
        return GASNET_ERR_RESOURCE;
    uint32_t banked = gpc.credit_plan.banked_credits;
    struct credit_limits limits = gpc_credit_limits(&gpc.credit_plan);
    credit_node_init(&gpc.credit_node, gpc.rank, gpc.nodes, gpc.credit_conns,
                     gpc.credit_plan.credits_per_node, banked, &limits, gpc_sys_send_credit, NULL);
    gp_count_set(&gpc.send_tickets_free, gp_cfg.portal_msg_limit);
    gp_count_set(&gpc.tmpmd_tickets_free, gp_cfg.portal_num_tmpmd);
    gpc.send_tickets_limit = gp_cfg.portal_msg_limit;
    gpc.tmpmd_tickets_limit = gp_cfg.portal_num_tmpmd;
    /* One pool above every transport: seed 000 puts the message limit in the conduit. */
    gp_debug("attach", "send tickets: %lld (GASNET_PORTAL_MSG_LIMIT), TMPMD tickets: %lld "
             "(GASNET_PORTAL_NUM_TMPMD)", (long long)gpc.send_tickets_limit,
             (long long)gpc.tmpmd_tickets_limit);
    gpc.packed_long_enabled = gp_cfg.portal_packed_long;
    /* seed 003's knob, on every transport: a Long packs only up to it (and to what a chunk holds) */
    gpc.packed_long_limit = (uint64_t)gp_cfg.packedlong_limit;
    gpc.safe_events_per_poll = (int)gp_cfg.portal_safe_limit;
    gpc.am_events_per_poll = (int)gp_cfg.portal_am_limit;
    gpc.sys_events_per_poll = (int)gp_cfg.portal_sys_limit;
    /* Waiting halves are bounded by credits (requests) and chunks (replies). */
    if (gpc_lid_cache_init(&gpc.request_lids, gpc.credit_plan.total_credits + 16) != GASNET_OK ||
        gpc_lid_cache_init(&gpc.reply_lids, (uint32_t)gp_cfg.portal_sb_chunks + 16) != GASNET_OK)
        return GASNET_ERR_RESOURCE;
    return GASNET_OK;
}

static int exchange_segments(void)
{
    gasnet_seginfo_t mine = { gpc.segment, gpc.segsize };
    gpc.seginfo = calloc(gpc.nodes, sizeof *gpc.seginfo);
    if (gpc.seginfo == NULL || gp_boot_allgather(&mine, gpc.seginfo, sizeof mine) != 0)
        return GASNET_ERR_RESOURCE;
    return GASNET_OK;
}

static void publish_credit_plan(void)
{
    gp_config_set_derived("GASNET_PORTAL_CRED_PER_NODE", gpc.credit_plan.credits_per_node);
    gp_config_set_derived("GASNET_PORTAL_BANKED_CREDITS", gpc.credit_plan.banked_credits);
    gp_config_set_derived("GASNET_PORTAL_AMRECV_SPACE",
                          (int64_t)gpc.credit_plan.reqrb_buffers * gpc.credit_plan.reqrb_buffer_bytes);
}

/* A fatal error after attach starts the graceful exit (the peers are told). */
static void fatal_exit(int exit_code)
{
    gpc_exit(exit_code);
}

static void register_internal_handlers(void)
{
    gpc.handlers[GPC_H_MEMSET] = (gpc_handler_fn)gpc_memset_handler;
    gpc.handlers[GPC_H_MEMSET_DONE] = (gpc_handler_fn)gpc_memset_done_handler;
    gpc.handlers[GPC_H_BARRIER] = (gpc_handler_fn)gpc_barrier_handler;
    gpc.handlers[GPC_H_COLL_DATA] = (gpc_handler_fn)gpc_coll_data_handler;
    gpc.handlers[GPC_H_VIS_PUT] = (gpc_handler_fn)gpc_vis_put_handler;
    gpc.handlers[GPC_H_VIS_PUT_DONE] = (gpc_handler_fn)gpc_vis_put_done_handler;
    gpc.handlers[GPC_H_VIS_GET] = (gpc_handler_fn)gpc_vis_get_handler;
    gpc.handlers[GPC_H_VIS_GET_DONE] = (gpc_handler_fn)gpc_vis_get_done_handler;
    gpc.handlers[GPC_H_ATOMIC] = (gpc_handler_fn)gpc_atomic_handler;
    gpc.handlers[GPC_H_ATOMIC_DONE] = (gpc_handler_fn)gpc_atomic_done_handler;
    gpc.handlers[GPC_H_VIS_PEER] = (gpc_handler_fn)gpc_vis_peer_handler;
}

int gpc_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize)
{
    char why[512];
    register_internal_handlers();
    int rc = gpc_register_handlers(table, numentries, gpc.handlers);
    if (rc != GASNET_OK)
        return rc;
    rc = gpc_credit_plan(gpc.nodes, &gpc.credit_plan, why, sizeof why);
    if (rc != GASNET_OK)
        gp_fatal("%s", why);
    publish_credit_plan();
    gpc.vis_area_bytes = gpc_vis_area_bytes(segsize);
    rc = open_network(segsize);
    if (rc == GASNET_OK)
        rc = setup_buffers(segsize);
    if (rc == GASNET_OK)
        rc = setup_flow_control();
    if (rc == GASNET_OK)
        rc = exchange_segments();
    if (rc == GASNET_OK)
        rc = gpc_rma_setup();
    if (rc == GASNET_OK) {
        gpc_barrier_setup();
        gpc_vis_setup();
    }
    /* Every node's MDs are attached before anyone sends (seed 000, bootstrapping). */
    if (rc == GASNET_OK && gp_boot_barrier() != 0)
        rc = GASNET_ERR_RESOURCE;
    if (rc != GASNET_OK)
        return rc;
    gpc_rma_connect();
    gpc_ring_connect();
    gpc_coll_setup();
    /* Collective, like attach itself: every node gathers the job's locality. */
    if (gpc_nodeinfo_setup() != GASNET_OK)
        return GASNET_ERR_RESOURCE;
    gpc_stats_setup();
    gp_set_fatal_hook(fatal_exit);
    gpc_rma_map_publish();
    gpc.attached = 1;
    /* GASNet's hook for tools that watch the segment (before any client code runs on it). */
    if (gasnet_client_attach_hook != NULL)
        gasnet_client_attach_hook(gpc.segment, gpc.segsize);
    gpc_rcv_poll_setup(); /* handlers may run on a receive thread from here on */

    if (gp_cfg.verboseenv && gpc.rank == 0)
        fprintf(stderr, "gp: credit plan for %u nodes: %u credits per node, %u banked, ReqRB "
                "%u x %u bytes, AM_EQ %u events\n", gpc.nodes, gpc.credit_plan.credits_per_node,
                gpc.credit_plan.banked_credits, gpc.credit_plan.reqrb_buffers,
                gpc.credit_plan.reqrb_buffer_bytes, gpc.credit_plan.am_eq_events);
    return GASNET_OK;
}
