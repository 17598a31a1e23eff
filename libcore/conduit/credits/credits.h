/*
 * credits.c: the static side of credits, the same on every node (seed 000
 * and 001): credits per peer, the bank, and the ReqRB and AM_EQ sizes they
 * take; and the limits the dynamic algorithm (credit_flow.h) runs with.
 * credit_stats.c: GASNET_PORTAL_CREDIT_STATS.
 */
#ifndef GP_CONDUIT_CREDITS_H
#define GP_CONDUIT_CREDITS_H

#include <stddef.h>
#include <stdint.h>

#include "conduit/credits/credit_flow.h"

struct gpc_credit_plan {
    uint32_t credits_per_node;
    uint32_t banked_credits;
    uint32_t total_credits;
    uint32_t reqrb_buffers;
    uint32_t reqrb_buffer_bytes;
    uint32_t am_eq_events;
};

/* Computes the plan for a job of nodes; GASNET_ERR_BAD_ARG with why filled if impossible. */
int gpc_credit_plan(uint32_t nodes, struct gpc_credit_plan *plan, char *why, size_t whylen);
/* The dynamic algorithm's limits from the configuration, for a node with the credits
 * of plan (attach.c for a job, bench/credit-sim for its virtual nodes). */
struct credit_limits gpc_credit_limits(const struct gpc_credit_plan *plan);
/* The interpolated defaults of the credit table (doc/decisions.md). */
void gpc_credit_table(uint32_t nodes, uint32_t *credits_per_node, uint32_t *banked);

/* credit_stats.c: writes this node's GASNET_PORTAL_CREDIT_STATS file. */
void gpc_credit_stats_write(void);

#endif
