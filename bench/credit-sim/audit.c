/*
 * The audit: invariants over all nodes at once (the engine checks each
 * call on its own as it goes).
 *
 *   conservation  every lender: bank + the loans of all its records ==
 *                 the credits it started with;
 *   the wire      every lender: what it lends - what its borrowers hold ==
 *                 its credits in flight (extra in replies, returns, grants,
 *                 admitted credits in requests not yet handled);
 *   idle          once nothing is in flight: for every pair, the lender's
 *                 LoanCredits == what the borrower holds (SendCredits and
 *                 admitted credits not yet used), nothing in use, no SYS
 *                 message outstanding, no ask unanswered.
 *
 * A borrower holds its admitted credits until a request takes them home.
 *
 * Records a compact node does not have hold the initial credits_per_node
 * on both sides.  The pair check is done as a fingerprint over one pass
 * per node (sum over pairs of (credits - initial) * hash(pair), once from
 * the lenders' records and once from the borrowers'), since looking up the
 * other side of every pair jumps through gigabytes at 10,000 nodes; only
 * when the fingerprints differ are the pairs compared one by one, to name
 * the first one that disagrees.
 */
#include "sim.h"

#include <inttypes.h>
#include <stdlib.h>

static uint64_t pair_weight(uint32_t lender, uint32_t borrower)
{
    return sim_rand(0x6a09e667f3bcc909ull, lender, borrower) | 1;
}

/* Names the first pair whose two sides disagree. */
static void find_disagreement(struct sim *sim)
{
    uint32_t cpn = sim->cfg.credits_per_node;
    for (uint32_t r = 0; r < sim->opts.nodes; r++) {
        struct sim_vnode *v = &sim->node[r];
        for (uint32_t i = 0; i < sim_records(sim, v); i++) {
            uint32_t p = sim_global(v, i);
            const struct credit_conn *theirs = sim_conn(sim, p, r);
            unsigned held = theirs ? (unsigned)theirs->send_credits + theirs->admitted : cpn;
            if (v->credit.conn[i].loan_credits != held) {
                sim_fail(sim, "idle, yet node %u lends %u to %u, which holds %u", r,
                         v->credit.conn[i].loan_credits, p, held);
                return;
            }
        }
    }
    sim_fail(sim, "idle, yet lenders and borrowers disagree (a borrower holds credits for a "
             "lender without a record of it)");
}

static void audit_pairs(struct sim *sim)
{
    uint64_t lent = 0, held = 0;
    uint32_t cpn = sim->cfg.credits_per_node;
    for (uint32_t r = 0; r < sim->opts.nodes; r++) {
        struct sim_vnode *v = &sim->node[r];
        for (uint32_t i = 0; i < sim_records(sim, v); i++) {
            const struct credit_conn *c = &v->credit.conn[i];
            uint32_t p = sim_global(v, i);
            lent += (uint64_t)((int64_t)c->loan_credits - cpn) * pair_weight(r, p);
            held += (uint64_t)((int64_t)c->send_credits + c->admitted - cpn) * pair_weight(p, r);
            if (c->send_inuse != 0 || (c->flags & CREDIT_SYS_MSG_INFLIGHT) || c->asked ||
                c->ask_want) {
                sim_fail(sim, "idle, yet node %u has %u credits in use for %u, or a SYS message "
                         "or an ask out to it or from it", r, c->send_inuse, p);
                return;
            }
        }
    }
    if (lent != held)
        find_disagreement(sim);
}

void sim_audit(struct sim *sim, int idle)
{
    uint32_t n = sim->opts.nodes, cpn = sim->cfg.credits_per_node;
    int64_t *held = calloc(n, sizeof *held);    /* per lender: what borrowers hold */
    uint32_t *seen = calloc(n, sizeof *seen);   /* per lender: borrowers with a record of it */
    if (held == NULL || seen == NULL) {
        fprintf(stderr, "credit-sim: out of memory for the audit\n");
        exit(2);
    }
    for (uint32_t r = 0; r < n; r++) {
        struct sim_vnode *v = &sim->node[r];
        for (uint32_t i = 0; i < sim_records(sim, v); i++) {
            held[sim_global(v, i)] += v->credit.conn[i].send_credits + v->credit.conn[i].admitted;
            seen[sim_global(v, i)]++;
        }
    }
    int64_t total = (int64_t)cpn * n + sim->cfg.banked;
    for (uint32_t r = 0; r < n; r++) {
        struct sim_vnode *v = &sim->node[r];
        int64_t loans = (int64_t)(n - sim_records(sim, v)) * cpn; /* peers it never meets */
        for (uint32_t i = 0; i < sim_records(sim, v); i++)
            loans += v->credit.conn[i].loan_credits;
        int64_t bank = gp_count_get(&v->credit.banked);
        int64_t out = held[r] + (int64_t)(n - seen[r]) * cpn;
        if (bank + loans != total)
            sim_fail(sim, "node %u: bank %" PRId64 " + loans %" PRId64 " != its %" PRId64
                     " credits", r, bank, loans, total);
        if (loans - out != sim->inflight[r])
            sim_fail(sim, "node %u lends %" PRId64 ", its borrowers hold %" PRId64 ", but %"
                     PRId64 " are on the wire", r, loans, out, sim->inflight[r]);
        if (idle && (sim->inflight[r] != 0 || gp_count_get(&v->credit.revokes_in_flight) != 0))
            sim_fail(sim, "idle, yet node %u has credits or revokes in flight", r);
    }
    free(held);
    free(seen);
    if (idle)
        audit_pairs(sim);
}
