/*
 * Static credits: how many ReqRB credits each node lends each peer at
 * start-up, how many it banks, and the ReqRB space and AM_EQ that follow
 * (seed 000, "Scheme for credit balancing", first half; seed 001 for the
 * sizing).  Every node computes the same plan from the job size and the
 * environment, without communicating.
 *
 * The seeds refer to a table of defaults by job size that is not in their
 * text; this one is derived from the figures they do give (see
 * doc/decisions.md): generous per-peer credits for small jobs (about 24
 * reach full Medium bandwidth to an attentive receiver), approaching the
 * minimum of 4 per peer at 4,096 nodes.  Beyond, peers start with 2 (a
 * Short, an unpacked Long, a Medium of up to 512 bytes) and ask for the rest
 * when they first need it (credit_flow.h, admission): the memory targets of
 * 15 MB at 10,000 nodes and 20 MB at 20,000 leave no room for 4 each
 * (doc/credits.md, "Memory at scale").
 * Between rows the values are interpolated in log2(nodes).
 */
#include <math.h>
#include <stdio.h>

#include "config/config.h"
#include "conduit/am/am_wire.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/credits/credits.h"

struct credit_row {
    uint32_t nodes;
    uint32_t credits_per_node;
    uint32_t banked;
};

static const struct credit_row credit_table[] = {
    { 1, 256, 256 },   { 8, 64, 512 },   { 64, 24, 1024 },    { 256, 12, 2048 },
    { 1024, 8, 4096 }, { 4096, 6, 8192 }, { 10000, 2, 16000 }, { 20000, 2, 8000 },
};
#define CREDIT_ROWS (sizeof credit_table / sizeof credit_table[0])

void gpc_credit_table(uint32_t nodes, uint32_t *credits_per_node, uint32_t *banked)
{
    const struct credit_row *last = &credit_table[CREDIT_ROWS - 1];
    if (nodes <= 1) {
        *credits_per_node = credit_table[0].credits_per_node;
        *banked = credit_table[0].banked;
        return;
    }
    if (nodes >= last->nodes) {
        *credits_per_node = last->credits_per_node;
        *banked = last->banked;
        return;
    }
    unsigned row = 1;
    while (credit_table[row].nodes < nodes)
        row++;
    const struct credit_row *lo = &credit_table[row - 1], *hi = &credit_table[row];
    double at = (log2((double)nodes) - log2((double)lo->nodes)) /
                (log2((double)hi->nodes) - log2((double)lo->nodes));
    *credits_per_node = (uint32_t)lround(lo->credits_per_node +
                                         at * ((double)hi->credits_per_node - lo->credits_per_node));
    *banked = (uint32_t)lround(lo->banked + at * ((double)hi->banked - lo->banked));
}

/* Buffers hold 64 chunks, or fewer when the ReqRB space is small, so that at
 * least two buffers exist: one is always recyclable while the other fills. */
static uint32_t buffer_bytes_for(uint64_t space)
{
    uint64_t bytes = 64 * GPC_CHUNK_BYTES;
    if (space < 4 * bytes) {
        bytes = (space / 4) / GPC_CHUNK_BYTES * GPC_CHUNK_BYTES;
        if (bytes < 4 * GPC_CHUNK_BYTES)
            bytes = 4 * GPC_CHUNK_BYTES;
    }
    return (uint32_t)bytes;
}

/* Credits a ReqRB chain can promise: seed 000's
 * (num_ReqRB_buffers-1)*(chunks_per_buffer-1)*sizeof_chunk / 256. */
static uint64_t credits_of(uint32_t buffers, uint32_t buffer_bytes)
{
    uint64_t chunks_per_buffer = buffer_bytes / GPC_CHUNK_BYTES;
    return (uint64_t)(buffers - 1) * (chunks_per_buffer - 1) * GPC_CHUNK_BYTES / GPC_CREDIT_BYTES;
}

/* below_min: the credits per peer the user set below the minimum, else 0:
 * then the space must hold those and a bank of a full Medium for the asks. */
static int size_from_space(uint32_t nodes, uint64_t space, uint32_t below_min,
                           struct gpc_credit_plan *plan, char *why, size_t whylen)
{
    plan->reqrb_buffer_bytes = buffer_bytes_for(space);
    plan->reqrb_buffers = (uint32_t)(space / plan->reqrb_buffer_bytes);
    if (plan->reqrb_buffers < 2)
        plan->reqrb_buffers = 2;
    uint64_t total = credits_of(plan->reqrb_buffers, plan->reqrb_buffer_bytes);
    uint64_t lent_min = below_min ? (uint64_t)below_min * nodes + GPC_MIN_CREDITS
                                  : (uint64_t)GPC_MIN_CREDITS * nodes;
    if (total < lent_min) {
        snprintf(why, whylen, "GASNET_PORTAL_AMRECV_SPACE=%llu gives %llu credits for %u nodes; "
                 "at least %llu are needed (%llu bytes of ReqRB space or more)",
                 (unsigned long long)space, (unsigned long long)total, nodes,
                 (unsigned long long)lent_min,
                 (unsigned long long)(lent_min * GPC_CREDIT_BYTES * 2 + 2 * 4 * GPC_CHUNK_BYTES));
        return GASNET_ERR_BAD_ARG;
    }
    plan->total_credits = (uint32_t)(total > UINT32_MAX ? UINT32_MAX : total);
    return GASNET_OK;
}

static void size_from_credits(uint64_t wanted, struct gpc_credit_plan *plan)
{
    plan->reqrb_buffer_bytes = 64 * GPC_CHUNK_BYTES;
    uint64_t per_buffer = credits_of(2, plan->reqrb_buffer_bytes);
    plan->reqrb_buffers = (uint32_t)((wanted + per_buffer - 1) / per_buffer) + 1;
    plan->total_credits = (uint32_t)credits_of(plan->reqrb_buffers, plan->reqrb_buffer_bytes);
}

int gpc_credit_plan(uint32_t nodes, struct gpc_credit_plan *plan, char *why, size_t whylen)
{
    uint32_t table_cpn, table_banked;
    gpc_credit_table(nodes, &table_cpn, &table_banked);
    if (table_cpn > (uint32_t)gp_cfg.portal_max_cred_per_node)
        table_cpn = (uint32_t)gp_cfg.portal_max_cred_per_node;
    int user_cpn = gp_cfg.portal_cred_per_node > 0;
    int user_banked = gp_cfg.portal_banked_credits >= 0;
    uint32_t cpn = user_cpn ? (uint32_t)gp_cfg.portal_cred_per_node : table_cpn;
    uint32_t banked = user_banked ? (uint32_t)gp_cfg.portal_banked_credits : table_banked;

    if (gp_cfg.portal_amrecv_space > 0) {
        uint32_t below_min = user_cpn && cpn < GPC_MIN_CREDITS ? cpn : 0;
        int rc = size_from_space(nodes, gp_cfg.portal_amrecv_space, below_min, plan, why, whylen);
        if (rc != GASNET_OK)
            return rc;
        uint64_t total = plan->total_credits;
        if (!user_cpn) {
            /* The space decides: a bank the user asked for comes first, else the
             * table's per-peer credits as far as the space holds them. */
            if (user_banked)
                cpn = (uint32_t)(total > banked ? (total - banked) / nodes : 0);
            else
                cpn = (uint32_t)(total / nodes < table_cpn ? total / nodes : table_cpn);
            if (cpn < GPC_MIN_CREDITS)
                cpn = GPC_MIN_CREDITS;
        }
        if ((uint64_t)cpn * nodes > total) {
            snprintf(why, whylen, "GASNET_PORTAL_AMRECV_SPACE=%llu holds %llu credits, fewer than "
                     "GASNET_PORTAL_CRED_PER_NODE=%u for each of %u nodes",
                     (unsigned long long)gp_cfg.portal_amrecv_space, (unsigned long long)total,
                     cpn, nodes);
            return GASNET_ERR_BAD_ARG;
        }
    } else {
        /* Peers below the minimum ask the bank for a full Medium's worth, so it
         * must hold one (credit_ask_arrived). */
        if (cpn < GPC_MIN_CREDITS && banked < GPC_MIN_CREDITS)
            banked = GPC_MIN_CREDITS;
        size_from_credits((uint64_t)cpn * nodes + banked, plan);
    }
    plan->credits_per_node = cpn;
    /* What the fixed-size buffers hold beyond the estimate goes to the bank. */
    plan->banked_credits = plan->total_credits - cpn * nodes;
    /* One event per 256 bytes of the whole chain (so that even without flow
     * control a flood of requests reaches the CB before the AM_EQ fills),
     * one UNLINK per buffer, and some slack. */
    plan->am_eq_events = (uint32_t)((uint64_t)plan->reqrb_buffers * plan->reqrb_buffer_bytes /
                                    GPC_CREDIT_BYTES) + plan->reqrb_buffers + 64;
    return GASNET_OK;
}

struct credit_limits gpc_credit_limits(const struct gpc_credit_plan *plan)
{
    uint32_t banked = plan->banked_credits;
    return (struct credit_limits){
        .flow_control = gp_cfg.portal_flow_control,
        .dynamic = gp_cfg.portal_dynamic_credits,
        .lender_limit = (uint32_t)gp_cfg.portal_lender_limit,
        .revoke_limit = (uint32_t)gp_cfg.portal_revoke_limit,
        .num_scavenge = (uint32_t)gp_cfg.portal_num_scavenge,
        .max_per_node = (uint32_t)gp_cfg.portal_max_cred_per_node,
        .epoch_duration = (uint32_t)gp_cfg.portal_epoch_duration,
        /* scavenge before the bank is empty: an eighth of it, at least a Medium's worth */
        .low_bank = banked / 8 > CREDIT_MIN ? banked / 8 : CREDIT_MIN,
        /* Every request queued here holds at least one of our credits, so a
         * borrower still sending to us is heard from within this many. */
        .idle_after = plan->total_credits,
        /* Peers below the minimum ask for credits that only the bank has:
         * loans on request must leave it a Medium's worth (a loan of up to the
         * minimum is never revoked). */
        .ask_reserve = plan->credits_per_node < CREDIT_MIN ? CREDIT_MIN : 0,
    };
}
