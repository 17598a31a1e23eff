/*
 * The live statistics page each process publishes for gp-top: a small
 * shared-memory object /dev/shm/gp-<jobid>-stats-<rank>, mode 0600 (only the
 * job's user can read it), removed when the process exits (and by gp-run
 * if it did not get to).  The owner rewrites it under a sequence counter
 * from its poll loop, at most every few milliseconds; readers copy it and
 * retry if the counter moved or was odd -- no lock is ever taken, and the
 * job's fast paths never touch the page.
 */
#ifndef GP_CONDUIT_STATS_PAGE_H
#define GP_CONDUIT_STATS_PAGE_H

#include <stddef.h>
#include <stdint.h>

#define GP_STATS_MAGIC 0x3130737461747067ull /* "gpstats01" */
#define GP_STATS_VERSION 2

/*
 * The timeline: the owner compares its epoch and revoke counters with the
 * values it last published and, when one moved, appends an event to a small
 * ring on the page.  A monitor started late still sees the recent history,
 * at the publisher's resolution (a few ms) rather than its own refresh.
 */
#define GP_STATS_EVENTS 32
enum gp_stats_event_kind {
    GP_STATS_EV_EPOCH = 1,           /* count: epochs ended */
    GP_STATS_EV_REVOKE_SENT = 2,     /* count: revokes sent (we lend) */
    GP_STATS_EV_REVOKE_RECEIVED = 3, /* count: revokes received; credits: given back */
    GP_STATS_EV_RECOVERED = 4,       /* credits: taken back into the bank; count: zero replies */
};

struct gp_stats_event {
    uint64_t when_ns;            /* CLOCK_MONOTONIC of the publication that saw it */
    uint32_t kind;
    uint32_t count;
    uint32_t credits;
    uint32_t pad;
    int64_t banked;              /* BankedCredits then */
};

struct gp_stats_peer {
    uint16_t loan_credits;
    uint16_t send_credits;
    uint16_t send_inuse;
    uint16_t send_max;
    uint16_t send_stalls;
    uint16_t send_revoked;
    uint16_t loan_requested;
    uint16_t loan_given;
    uint32_t flags;
};

struct gp_stats_page {
    uint64_t magic;
    uint32_t version;
    uint32_t rank;
    uint32_t nodes;
    uint32_t pid;
    uint64_t seq;                /* odd while the owner writes */
    uint64_t updated_ns;         /* CLOCK_MONOTONIC of the last update */
    char jobid[24];
    char host[64];
    /* the static plan, fixed at attach: what the live values are measured against */
    uint32_t credits_per_node;   /* each peer's starting SendCredits / LoanCredits */
    uint32_t max_per_node;       /* GASNET_PORTAL_MAX_CRED_PER_NODE: most one peer may hold */
    uint32_t banked_start;       /* BankedCredits at attach */
    uint32_t dynamic;            /* 1: GASNET_PORTAL_DYNAMIC_CREDITS on */
    /* credits (seed 000 / 001) */
    int64_t banked_credits;
    uint64_t epochs;
    uint64_t stalls;
    uint64_t extra_requested;
    uint64_t extra_granted;
    uint64_t revokes_sent;
    uint64_t revokes_received;
    uint64_t credits_returned;
    uint64_t credits_recovered;
    uint64_t zero_replies;
    /* resources */
    int64_t send_tickets_free;
    int64_t send_tickets_limit;
    int64_t tmpmd_tickets_free;
    int64_t tmpmd_tickets_limit;
    uint32_t reqsb_free;
    uint32_t reqsb_total;
    uint32_t rplsb_free;
    uint32_t rplsb_total;
    uint32_t reqrb_buffers;
    uint32_t reqrb_waiting;      /* unlinked, waiting for their requests to be processed */
    uint64_t cb_hits;
    uint64_t am_events;
    uint64_t safe_events;
    uint64_t sys_events;
    uint64_t events_total;       /* events ever recorded; the last is events[(total - 1) % N] */
    struct gp_stats_event events[GP_STATS_EVENTS];
    struct gp_stats_peer peer[]; /* nodes entries */
};

static inline size_t gp_stats_page_bytes(uint32_t nodes)
{
    return sizeof(struct gp_stats_page) + (size_t)nodes * sizeof(struct gp_stats_peer);
}

/*
 * Reads the page of (jobid, rank) into out (room for max_peers peers).
 * 0 on success, -1 with errno (ENOENT: no such page) otherwise.
 */
int gp_stats_read(const char *jobid, uint32_t rank, struct gp_stats_page *out, uint32_t max_peers);

#endif
