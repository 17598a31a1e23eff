/*
 * credit-sim: a discrete-event simulation of the dynamic credit algorithm
 * for thousands of virtual nodes, running the library's own code
 * (libcore/conduit/credits/credit_flow.c, linked from libgp.a), not a copy of it.
 *
 * Time is counted in ticks.  Every message (AM request, AM reply,
 * SYS_CREDIT_REVOKE, SYS_CREDIT_RETURN, SYS_CREDIT_ASK, SYS_CREDIT_GRANT)
 * takes `latency` ticks on the wire.
 * One tick is, in this order:
 *
 *   1. deliver every message due now: a request joins its target's receive
 *      queue; a reply runs credit_reply_arrived at the requester; a revoke
 *      runs credit_revoke_arrived at the borrower (which answers with a
 *      RETURN through the send_sys callback); a return runs
 *      credit_return_arrived at the lender;
 *   2. every node handles up to `service_rate` queued requests (a fraction
 *      means a busy receiver): credit_request_arrived, the reply, then
 *      credit_request_released;
 *   3. every node sends up to `send_rate` requests its pattern has ready,
 *      each through credit_take.  A sender that is short stalls on that
 *      message (AM requests block the caller) and retries with the same
 *      struct credit_wait.
 *
 * A stalled sender is retried only on ticks where a reply or a grant from
 * the peer it waits for arrived: credit_take with an already stalled wait and too few
 * credits changes nothing, and only a reply can add credits, so this is
 * the same as retrying every tick, without the cost.  Likewise a node whose
 * pattern has nothing to send is asked again only when a request was
 * handled at it or at the tick the pattern named.
 *
 * Memory (layout.c, doc/credit-sim.md): conn arrays are indexed by peer,
 * and a node gets a compact array over the peers it can ever meet, with
 * its own numbering; the results are the same as with full arrays
 * (--full-state, and the test, check that).
 */
#ifndef GP_BENCH_CREDIT_SIM_H
#define GP_BENCH_CREDIT_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conduit/credits/credits.h"
#include "conduit/credits/credit_flow.h"

/* ---- the command line ---- */

struct sim_opts {
    uint32_t nodes;
    const char *pattern;
    uint64_t ticks;
    uint32_t latency;
    double service_rate;     /* requests a node handles per tick */
    double send_rate;        /* requests a node may send per tick */
    uint64_t seed;
    int csv;                 /* summary as CSV instead of the human report */
    int csv_header;
    const char *windows_csv; /* file for the per-window series, or NULL */
    uint64_t window;         /* ticks per measurement window (0: ticks / 40) */
    uint64_t steady_moves;   /* credits moved per window that still count as steady */
    uint32_t compute;        /* stencil: ticks of computation between steps */
    uint32_t tree_msgs;      /* tree: full Mediums per edge per round */
    uint32_t hot_peers;      /* shift: how many nodes take turns being hot */
    uint64_t shift_every;    /* shift: ticks between moves (0: ticks / 8) */
    uint32_t senders;        /* hotspot, shift: senders (0: every other node) */
    int full_state;          /* every node gets a full conn array */
    int compact;             /* guarded compact arrays even where full ones are cheap */
    int audit;               /* full conservation audit at the end of every window */
    double max_mem_gib;      /* refuse runs whose conn state would exceed this */
};

/* The credit plan and knobs, resolved from the library's table and config. */
struct sim_credit_cfg {
    struct gpc_credit_plan plan;
    struct credit_limits limits;
    uint32_t credits_per_node;
    uint32_t banked;
};

/* ---- messages ---- */

enum sim_kind { SIM_REQUEST, SIM_REPLY, SIM_REVOKE, SIM_RETURN, SIM_ASK, SIM_ADMIT, SIM_LEND };

struct sim_event {
    uint64_t due;
    uint32_t from, to;
    uint32_t tag;            /* the pattern's tag; RETURN, ASK, ADMIT, LEND: the credits */
    uint8_t kind;
    uint8_t byte;            /* the credit byte; SYS: the end-of-epoch flag */
    uint8_t credits;         /* REPLY: the extra credits it carries (for the audit) */
};

/* A FIFO of events: every message takes the same latency, so due times
 * arrive in order and a ring buffer is the whole priority queue. */
struct sim_queue {
    struct sim_event *ev;
    size_t cap, head, len;
};

/* A request waiting in its target's receive queue (pool-linked). */
struct sim_rq_item {
    uint32_t next;
    uint32_t from;
    uint32_t tag;
    uint8_t byte;
};

/* What a pattern wants sent next. */
struct sim_send {
    uint32_t dest;
    uint32_t tag;
    uint8_t credits;
};

/* ---- virtual nodes ---- */

struct sim;

struct sim_vnode {
    struct credit_node credit;
    struct sim *sim;
    uint32_t rank;
    uint32_t *peers;         /* compact array: conn[i] is for peers[i]; NULL: conn[r] is rank r */
    struct sim_send head;    /* the request being sent, while has_head */
    struct credit_wait wait;
    uint8_t has_head;
    uint8_t stalled;         /* waiting for a reply from head.dest */
    uint64_t stalled_since;
    uint64_t accrued_to;     /* send_budget holds the ticks before this one */
    double send_budget;
    double serve_budget;
    uint32_t rq_first, rq_last;
};

/* ---- patterns (patterns.c) ---- */

struct sim_pattern {
    const char *name;
    const char *doc;
    int is_static;           /* the pattern never changes: goal 3 applies */
    int (*setup)(struct sim *sim, char *why, size_t whylen);
    void (*teardown)(struct sim *sim);
    /* May node ever be the target of a request? */
    int (*receives)(const struct sim *sim, uint32_t node);
    /* The peers node sends to or receives from, into out (room for nodes); their count. */
    uint32_t (*partners)(const struct sim *sim, uint32_t node, uint32_t *out);
    /* The next request node sends now: 1 with *out set; or 0, with *wake_at the tick
     * to ask again (UINT64_MAX: when a request was handled at node). */
    int (*next)(struct sim *sim, uint32_t node, struct sim_send *out, uint64_t *wake_at);
    /* A request from `from` with tag was handled at node. */
    void (*handled)(struct sim *sim, uint32_t node, uint32_t from, uint32_t tag);
    /* One line on the pattern's progress, for the report. */
    void (*describe)(const struct sim *sim, char *buf, size_t len);
};

const struct sim_pattern *sim_pattern_find(const char *name);
void sim_pattern_list(FILE *out);

/* ---- measurement (report.c, pairs.c) ---- */

struct sim_window {
    uint64_t granted;        /* extra credits lent */
    uint64_t returned;       /* credits given back on revoke */
    uint64_t revokes;        /* SYS_CREDIT_REVOKE sent */
    uint64_t zero_replies;   /* revokes answered with nothing */
    uint64_t stalls;         /* sends that had to wait */
    uint64_t stall_ticks;    /* ticks senders spent waiting, counted when they resume */
    uint64_t requests;       /* requests handled */
    uint64_t asks;           /* SYS_CREDIT_ASK sent */
    uint64_t admitted;       /* credits granted for single requests */
    uint32_t osc_pairs;      /* pairs whose credits changed direction in this window */
};

/* Per (lender, borrower) pair: the direction credits last moved, to see oscillation. */
struct sim_pair {
    uint64_t key;            /* lender << 32 | borrower; 0 marks an empty slot (key + 1 stored) */
    uint64_t window;         /* the window net refers to */
    int32_t net;             /* granted - returned in that window */
    int8_t last_sign;        /* direction of the last window that moved credits */
    uint16_t reversals;      /* changes of direction */
};

struct sim_pairs {
    struct sim_pair *slot;
    size_t cap, used;
    uint64_t reversals;
    uint64_t oscillating;    /* pairs with two reversals or more */
    uint64_t late_reversals; /* reversals in the second half of the run */
};

void sim_pairs_move(struct sim *sim, uint32_t lender, uint32_t borrower, int32_t credits);
void sim_pairs_finish(struct sim *sim);
void sim_pairs_free(struct sim_pairs *pairs);

/* The outcome of a run, for the report. */
struct sim_result {
    uint64_t requests, granted, returned, revokes, zero_replies, stalls, stall_ticks;
    uint64_t asks, admitted;
    uint64_t epochs;
    int64_t steady_window;   /* first window after which moves stay small; -1: never */
    int stops_moving;        /* steady for at least the last quarter of the run */
    uint64_t steady_threshold;
    uint32_t max_send;       /* most credits one node holds for one peer at the end */
    uint64_t pairs_above;    /* pairs holding more than credits_per_node at the end */
    int64_t min_bank;        /* lowest bank of any node at the end */
    uint64_t drain_ticks;
    int64_t restarted_at;    /* tick at which a compact run was abandoned; -1: none */
    double wall_seconds;
};

/* ---- the simulator ---- */

/* Which nodes get a full conn array (layout.c). */
enum sim_layout {
    SIM_LAYOUT_AUTO,            /* compact where exact; see layout.c */
    SIM_LAYOUT_FULL_RECEIVERS,  /* full arrays for nodes that may walk a scavenge list of all */
    SIM_LAYOUT_FULL_ALL         /* --full-state */
};

struct sim {
    struct sim_opts opts;
    struct sim_credit_cfg cfg;
    const struct sim_pattern *pattern;
    void *pattern_state;
    struct sim_vnode *node;
    uint64_t now;
    int sending;             /* 0 while draining: patterns stop */
    struct sim_queue events;
    struct sim_rq_item *rq;
    uint32_t rq_cap, rq_free;
    uint32_t *rq_count;      /* per node: requests queued (dense, scanned every tick) */
    uint64_t *wake;          /* per node: first tick to try sending; UINT64_MAX: blocked */
    uint32_t *receivers;     /* nodes that may be sent requests */
    uint32_t nreceivers;
    /* memory model */
    enum sim_layout layout;
    int guard;               /* compact receivers must never walk their scavenge list */
    int restart;             /* the guard fired: rerun with SIM_LAYOUT_FULL_RECEIVERS */
    uint64_t restart_tick;
    uint32_t full_nodes;
    uint64_t state_bytes;    /* conn arrays allocated */
    /* measurement */
    struct sim_window *win;
    size_t nwin;
    struct sim_pairs pairs;
    int64_t *inflight;       /* per lender: credits in replies, returns, grants and admitted
                              * requests on the wire or queued */
    int64_t granted_now;     /* credits the call being checked granted through asks */
    /* invariant checks */
    uint64_t failures;
    struct sim_result result;
};

/* layout.c */
int sim_init(struct sim *sim, const struct sim_opts *opts, const struct sim_credit_cfg *cfg,
             enum sim_layout layout, char *why, size_t whylen);
void sim_free(struct sim *sim);
/* Local index of global rank peer in node v's conn array, or UINT32_MAX. */
uint32_t sim_local(const struct sim_vnode *v, uint32_t peer);
static inline uint32_t sim_global(const struct sim_vnode *v, uint32_t local)
{
    return v->peers ? v->peers[local] : local;
}
static inline uint32_t sim_records(const struct sim *sim, const struct sim_vnode *v)
{
    return v->peers ? v->credit.nodes : sim->opts.nodes;
}
/* Conn record of node for the peer with global rank peer; NULL if it has none. */
struct credit_conn *sim_conn(struct sim *sim, uint32_t node, uint32_t peer);
/* The send_sys callback of every virtual node (engine.c). */
void sim_send_sys(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                  int end_of_epoch);

/* engine.c: runs the ticks, then drains; returns early if sim->restart. */
void sim_run(struct sim *sim);
/* Reports a broken invariant (counted; the first few are printed). */
void sim_fail(struct sim *sim, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* audit.c: conservation at every lender, and agreement with borrowers when idle. */
void sim_audit(struct sim *sim, int idle);
/* The window of the current tick. */
struct sim_window *sim_window_now(struct sim *sim);

/* Deterministic per-stream random numbers. */
uint64_t sim_rand(uint64_t seed, uint64_t stream, uint64_t counter);

/* ---- report (report.c) ---- */

void sim_summarize(struct sim *sim);
const char *sim_layout_name(const struct sim *sim);
void sim_report_human(const struct sim *sim, FILE *out);
void sim_report_csv(const struct sim *sim, FILE *out, int header);
int sim_report_windows(const struct sim *sim, const char *path);

#endif
