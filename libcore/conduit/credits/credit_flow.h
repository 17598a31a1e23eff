/*
 * Dynamic credit management (seed 000 "Scheme for credit balancing and
 * re-distribution"; seed 001 whole): the conn_state of every peer, the
 * credit byte EXXXNNNN, loans from the bank on request, per-node epochs
 * with decay by >> 2, and the scavenge list that revokes unused credits
 * through SYS_CREDIT_REVOKE / SYS_CREDIT_RETURN.
 *
 * This code knows nothing of transports or AMs: a node is a struct, and
 * sending a SYS message is a callback.  The conduit runs it for the real
 * node; bench/credit-sim runs the very same code for thousands of virtual
 * nodes.
 *
 * Choices the seeds leave open (doc/decisions.md): SendRevoked is kept at
 * the borrower, as seed 000's algorithm has it; the per-record lock is a
 * one-byte spinlock in PAR builds (seed 001 settled on mutexes with a
 * spinlock switch; a byte keeps conn_state near the seed's 40 bytes); a
 * lender does not revoke from a borrower still sending to it (seed 001's
 * busy target: doc/credits.md, "Busy targets").
 *
 * Admission (doc/credits.md, "Memory at scale"): at large N peers start
 * with fewer credits than a full Medium takes.  A sender short of what it
 * holds asks the target (SYS_CREDIT_ASK); the target lends from its bank
 * while the bank is well above its low mark, else grants credits for one
 * request that come back to its bank when that request has been handled,
 * and queues asks it cannot serve yet until credits come home.
 */
#ifndef GP_CONDUIT_CREDIT_FLOW_H
#define GP_CONDUIT_CREDIT_FLOW_H

#include <stdint.h>

#include "util/counter.h"
#include "util/thread.h"

#define CREDIT_MIN 4u                      /* GASNETC_MIN_CREDITS: a full Medium */
#define CREDIT_NONE UINT32_MAX

/* conn_state flags (seed 000's values, plus list membership) */
#define CREDIT_SYS_MSG_INFLIGHT 0x02u
#define CREDIT_REVOKE_ZERO_REPLY 0x04u
#define CREDIT_REACHED_EPOCH 0x08u
#define CREDIT_ON_SCAVENGE_LIST 0x10u
/* The answer to our revoke is overdue: no longer counted in revokes_in_flight
 * (it may still come, and is then banked as usual). */
#define CREDIT_REVOKE_OVERDUE 0x20u
/* A request from the peer was handled here (seen_at says when). */
#define CREDIT_SEEN 0x40u

/*
 * How long a lender waits for the answers to a round of revokes before it
 * stops waiting for them and scavenges again.  A borrower answers when it
 * polls, so a late answer is normal; a lost one (a SYS message dropped, a
 * peer wedged) must not stop scavenging for the rest of the job.
 */
#define CREDIT_REVOKE_TIMEOUT_NS (5ull * 1000 * 1000 * 1000)

/* The credit byte EXXXNNNN.  A message takes at most 4 credits (a full
 * Medium), so NNNN's top bit is free: in a request it says that XXX are not
 * extra credits wanted but admitted ones it carries, which the target banks
 * again once it has handled the request (NNNN's low bits: the peer's own
 * credits it also uses, returned by the reply as usual). */
#define CREDIT_BYTE_ADMIT 0x08u
static inline uint8_t credit_byte(unsigned epoch, unsigned extra, unsigned used)
{
    return (uint8_t)(((epoch & 1u) << 7) | ((extra & 7u) << 4) | (used & 0x7u));
}
static inline uint8_t credit_byte_admitted(unsigned epoch, unsigned admitted, unsigned used)
{
    return (uint8_t)(credit_byte(epoch, admitted, used) | CREDIT_BYTE_ADMIT);
}
#define CREDIT_BYTE_USED(b) ((unsigned)((b) & 0x7u))
#define CREDIT_BYTE_EXTRA(b) ((unsigned)((b) & CREDIT_BYTE_ADMIT ? 0 : ((b) >> 4) & 0x7u))
#define CREDIT_BYTE_ADMITTED(b) ((unsigned)((b) & CREDIT_BYTE_ADMIT ? ((b) >> 4) & 0x7u : 0))
#define CREDIT_BYTE_EPOCH(b) ((unsigned)(((b) >> 7) & 0x1u))

/* conn_state of seed 000: 36 bytes per peer (the seed's is about 40). */
struct credit_conn {
    uint16_t loan_credits;    /* LoanCredits: our credits lent to the peer */
    uint16_t send_credits;    /* SendCredits: the peer's credits lent to us */
    uint16_t send_stalls;     /* SendStalls: times we waited for credits (decayed) */
    uint16_t send_inuse;      /* SendInuse: credits in requests not yet answered */
    uint16_t send_max;        /* SendMax: most in use at once (decayed) */
    uint16_t send_revoked;    /* SendRevoked: credits given back this epoch (decayed) */
    uint16_t loan_requested;  /* LoanRequested: extra credits the peer asked for (decayed) */
    uint16_t loan_given;      /* LoanGiven: extra credits given to the peer (decayed) */
    uint32_t link_next;       /* the scavenge list (CREDIT_NONE: end) */
    uint32_t link_prev;
    uint8_t flags;
    uint8_t lock;             /* PAR builds: a spinlock byte */
    uint16_t seen_at;         /* requests handled here, / 256, when the peer's last one was */
    uint32_t ask_next;        /* lender: the next ask waiting for the bank (CREDIT_NONE: last) */
    uint8_t ask_want;         /* lender: credits the peer's waiting ask wants (0: none waits) */
    uint8_t asked;            /* borrower: credits asked of the peer, not yet granted */
    uint8_t admitted;         /* borrower: credits the peer granted for single requests,
                               * not yet sent (never revoked: they go home with a request) */
};

/* ASK: credits wanted; ADMIT: credits for single requests; LEND: a standing loan. */
enum credit_sys {
    CREDIT_SYS_REVOKE = 1, CREDIT_SYS_RETURN, CREDIT_SYS_ASK, CREDIT_SYS_ADMIT, CREDIT_SYS_LEND
};

struct credit_limits {
    int flow_control;         /* GASNET_PORTAL_FLOW_CONTROL */
    int dynamic;              /* GASNET_PORTAL_DYNAMIC_CREDITS */
    uint32_t lender_limit;    /* gasnetc_lender_limit: extra lent to a peer per epoch */
    uint32_t revoke_limit;    /* gasnetc_revoke_limit: credits a borrower gives back per epoch */
    uint32_t num_scavenge;    /* gasnetc_num_scavenge: revokes per scavenge */
    uint32_t max_per_node;    /* GASNET_PORTAL_MAX_CRED_PER_NODE */
    uint32_t epoch_duration;  /* requests received per epoch */
    uint32_t low_bank;        /* scavenge when the bank falls below this */
    uint32_t idle_after;      /* requests handled here after which a borrower not heard
                               * from since counts as idle (0: every borrower does) */
    uint64_t revoke_timeout_ns; /* 0: CREDIT_REVOKE_TIMEOUT_NS */
    uint32_t ask_reserve;     /* credits lending on a request's XXX leaves in the bank for
                               * asks (peers that start below CREDIT_MIN need them) */
};

struct credit_stats {
    uint64_t stalls;
    uint64_t extra_requested;
    uint64_t extra_granted;
    uint64_t revokes_sent;
    uint64_t revokes_received;
    uint64_t credits_returned;   /* given back by us as a borrower */
    uint64_t credits_recovered;  /* taken back into our bank as a lender */
    uint64_t zero_replies;
    uint64_t epochs;
    uint64_t revokes_overdue;    /* answers we stopped waiting for */
    uint64_t asks_sent;          /* SYS_CREDIT_ASK sent as a borrower */
    uint64_t asks_received;
    uint64_t asks_waited;        /* asks the bank could not serve at once */
    uint64_t credits_admitted;   /* granted for single requests, as a lender */
    uint64_t credits_lent_on_ask; /* lent for good in answer to an ask */
};

typedef void (*credit_send_sys_fn)(void *context, uint32_t to, enum credit_sys type,
                                   uint32_t credits, int end_of_epoch);

struct credit_node {
    uint32_t rank;
    uint32_t nodes;
    struct credit_conn *conn;
    gp_count_t banked;           /* BankedCredits */
    gp_count_t requests;         /* requests received in this epoch */
    gp_count_t handled;          /* requests received in all */
    int scavenge_dry;            /* the last walk found only busy borrowers: no walk
                                  * again until the epoch ends */
    gp_count_t revokes_in_flight;
    uint64_t revokes_sent_ns;    /* when the revokes in flight went out (scavenge_lock) */
    uint64_t (*clock_ns)(void);  /* monotonic; tests may replace it after init */
    uint32_t scavenge_head;      /* gasnetc_scavenge_list */
    uint32_t ask_head, ask_tail; /* asks waiting for the bank, first come first served */
    uint32_t asks_waiting;       /* their number (ask_lock; read without it) */
    gp_mutex_t ask_lock;
    gp_mutex_t scavenge_lock;
    gp_mutex_t epoch_lock;
    struct credit_limits limits;
    credit_send_sys_fn send_sys;
    void *context;
    struct credit_stats stats;
};

/* A sender's state across the polls of one stalled request. */
struct credit_wait {
    unsigned need;               /* credits it was short when it first stalled */
    int stalled;
};

void credit_node_init(struct credit_node *node, uint32_t rank, uint32_t nodes,
                      struct credit_conn *conn, uint32_t credits_per_node, uint32_t banked,
                      const struct credit_limits *limits, credit_send_sys_fn send_sys,
                      void *context);

/* Sender: takes n credits for dest; 1 with *byte set, or 0 (poll and retry with the same wait). */
int credit_take(struct credit_node *node, uint32_t dest, unsigned n, struct credit_wait *wait,
                uint8_t *byte);
/* Target of a request: counts it, lends extra if asked and possible; returns the reply's byte. */
uint8_t credit_request_arrived(struct credit_node *node, uint32_t src, uint8_t byte);
/* Target: the request's ReqRB space is free again; banks the credits it was admitted with. */
void credit_request_released(struct credit_node *node, uint32_t src, uint8_t byte);
/* Requester: a reply came back with its byte. */
void credit_reply_arrived(struct credit_node *node, uint32_t from, uint8_t byte);
/* A consistent copy of peer's conn_state, taken under its lock (for statistics:
 * the record's fields change together, under that lock, in PAR builds). */
void credit_conn_snapshot(struct credit_node *node, uint32_t peer, struct credit_conn *out);
/* SYS messages. */
void credit_revoke_arrived(struct credit_node *node, uint32_t lender, int end_of_epoch);
void credit_return_arrived(struct credit_node *node, uint32_t borrower, uint32_t credits,
                           int end_of_epoch);
void credit_ask_arrived(struct credit_node *node, uint32_t borrower, uint32_t want);
/* standing: a LEND (the credits stay), else an ADMIT (for single requests). */
void credit_grant_arrived(struct credit_node *node, uint32_t lender, uint32_t credits,
                          int standing);

#endif
