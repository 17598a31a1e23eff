/*
 * The conduit's state and the pieces of the Portals-conduit protocol of
 * seed 000 shared between its files.  Nothing here is seen by clients.
 *
 * Portal table entries, one MD role each (all ignore their match bits, so
 * the match bits are free to carry protocol data, as the seed does):
 *
 *   PT_RAR      RAR: the segment; target of puts/gets; ACKs, no EQ
 *   PT_RARAM    RARAM: the segment; data of unpacked Long requests; AM_EQ
 *   PT_RARSAFE  the segment; data of unpacked Long replies; SAFE_EQ
 *               (also the source MD of Long payloads that lie in the segment)
 *   PT_REQRB    the ReqRB chain, CB last; AM request headers; AM_EQ
 *   PT_REQSB    ReqSB: request chunks, where replies land; SAFE_EQ
 *   PT_SYS      SYSMD: zero-length system messages (shutdown); SYS_EQ
 *   PT_MBOX     the AM rings' mailbox: a plain MD peers that map this region
 *               find with ptl_direct_address (am_ring.c); no events
 *
 * An AM message (request or reply) is a put whose hdr_data carries:
 *   bits  0-7  handler index
 *   bits  8-9  category (Short, Medium, Long)
 *   bits 10-14 argument count
 *   bit  15    unpacked Long: the payload travels as a second put, joined
 *              with the header through the LID in the match bits
 *   bits 16-23 the credit byte EXXXNNNN
 *   bits 24-47 the requester's ReqSB chunk index
 *   bit  48    no-op reply (only returns credits and frees the chunk)
 * and whose body (in the chunk) is: the arguments (4 bytes each, padded to
 * 16), for a Long the destination offset and length (16 bytes), then the
 * payload of a Medium or packed Long.
 */
#ifndef GP_CONDUIT_CORE_H
#define GP_CONDUIT_CORE_H

#include <gasnet.h>
#include <signal.h>
#include <stdint.h>

#include "conduit/credit_flow.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/thread.h"

#define GPC_CHUNK_BYTES 1024     /* doc/decisions.md: 4 credits carry a full Medium */
#define GPC_CREDIT_BYTES 256     /* one credit: 256 bytes of ReqRB and one AM_EQ event */
#define GPC_MIN_CREDITS 4u
#define GPC_MAX_ARGS 16
#define GPC_LONG_HEADER 16
#define GPC_MAX_MEDIUM 960       /* a chunk less the largest argument block */
#define GPC_MAX_LONG 0x7fffffffu

enum gpc_pt { PT_RAR, PT_RARAM, PT_RARSAFE, PT_REQRB, PT_REQSB, PT_SYS, PT_MBOX, PT_COUNT };
enum gpc_category { GPC_SHORT = 0, GPC_MEDIUM = 1, GPC_LONG = 2 };

/* What an event's MD is, from its user_ptr (TMPMDs carry a pointer instead). */
enum gpc_md_role { ROLE_REQSB = 1, ROLE_RPLSB, ROLE_SEGMENT, ROLE_RARAM, ROLE_CB, ROLE_TMPMD, ROLE_LAST };

/* hdr_data fields */
#define HDR_HANDLER(h) ((gasnet_handler_t)((h) & 0xff))
#define HDR_CATEGORY(h) ((unsigned)(((h) >> 8) & 0x3))
#define HDR_NARGS(h) ((unsigned)(((h) >> 10) & 0x1f))
#define HDR_UNPACKED(h) ((unsigned)(((h) >> 15) & 0x1))
#define HDR_CREDIT_BYTE(h) ((uint8_t)(((h) >> 16) & 0xff))
#define HDR_CHUNK(h) ((uint32_t)(((h) >> 24) & 0xffffff))
#define HDR_NOOP(h) ((unsigned)(((h) >> 48) & 0x1))
#define HDR_NOOP_BIT (1ull << 48)

static inline uint64_t gpc_hdr_make(gasnet_handler_t handler, unsigned category, unsigned nargs,
                                    unsigned unpacked, uint8_t credit_byte, uint32_t chunk)
{
    return (uint64_t)handler | ((uint64_t)category << 8) | ((uint64_t)nargs << 10) |
           ((uint64_t)unpacked << 15) | ((uint64_t)credit_byte << 16) |
           ((uint64_t)(chunk & 0xffffff) << 24);
}

static inline unsigned gpc_args_bytes(unsigned nargs)
{
    return (nargs * 4u + 15u) & ~15u;
}

/* Bytes of the message that travel in the chunk. */
static inline uint64_t gpc_body_bytes(unsigned category, unsigned nargs, int packed_payload,
                                      uint64_t nbytes)
{
    uint64_t bytes = gpc_args_bytes(nargs);
    if (category == GPC_LONG)
        bytes += GPC_LONG_HEADER;
    if (category == GPC_MEDIUM || packed_payload)
        bytes += nbytes;
    return bytes;
}

/* A pool of fixed-size chunks (ReqSB, RplSB): a stack of free indices. */
struct gpc_chunk_pool {
    char *base;
    uint32_t count;
    uint32_t *free_stack;
    uint32_t free_top;
    gp_mutex_t lock;
};

int gpc_chunk_pool_init(struct gpc_chunk_pool *pool, char *base, uint32_t count);
/* A chunk index, or -1 when none is free (the caller polls and retries). */
int64_t gpc_chunk_get(struct gpc_chunk_pool *pool);
/* A chunk index, polling until one is free (saying so after a long wait for
 * a message to node dest; pool_name names the pool: "ReqSB"). */
uint32_t gpc_chunk_wait(struct gpc_chunk_pool *pool, const char *pool_name, uint32_t dest);
void gpc_chunk_put(struct gpc_chunk_pool *pool, uint32_t index);
static inline char *gpc_chunk_addr(const struct gpc_chunk_pool *pool, uint32_t index)
{
    return pool->base + (uint64_t)index * GPC_CHUNK_BYTES;
}
uint32_t gpc_chunk_free_count(struct gpc_chunk_pool *pool);

/* The ReqRB chain: buffers recycled once every request in them is processed. */
struct gpc_reqrb_buffer {
    char *start;
    ptl_handle_md_t md;
    gp_count_t processed;    /* requests handled since the buffer was linked */
    gp_count_t unlink_count; /* from its UNLINK event: requests it took; -1 before */
};

struct gpc_reqrb {
    gp_mutex_t lock;         /* PAR: the processed / unlinked bookkeeping */
    uint32_t buffers;
    uint32_t buffer_bytes;
    struct gpc_reqrb_buffer *buffer;
    ptl_handle_md_t cb_md;
    uint64_t space_bytes;
};

/* Credits and ReqRB sizing, the same on every node (seed 000 and 001). */
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

/* A Long whose header and data travel separately, waiting for the other half. */
struct gpc_lid_entry {
    uint32_t source;
    uint32_t lid;
    uint8_t have_header;
    uint8_t have_data;
    uint8_t in_use;
    gasnet_handler_t handler;
    uint8_t nargs;
    uint8_t credit_byte;
    uint32_t chunk;          /* requester's ReqSB chunk (requests) */
    uint64_t dest_offset;
    uint64_t nbytes;
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    struct gpc_lid_entry *next;
};

struct gpc_lid_cache {
    struct gpc_lid_entry *entries;
    struct gpc_lid_entry **buckets;
    struct gpc_lid_entry *free_list;
    uint32_t bucket_mask;
    gp_mutex_t lock;
};

int gpc_lid_cache_init(struct gpc_lid_cache *cache, uint32_t capacity);
/*
 * Records one half of an unpacked Long.  Returns NULL while the other half
 * is missing; once both are in, returns the entry (with the header's fields),
 * removed from the cache: the caller runs the handler and then releases it.
 */
struct gpc_lid_entry *gpc_lid_arrive(struct gpc_lid_cache *cache, uint32_t source, uint32_t lid,
                                     const struct gpc_lid_entry *header);
void gpc_lid_release(struct gpc_lid_cache *cache, struct gpc_lid_entry *entry);

/* What a thread holds while it may poll the AM_EQ (seed 000). */
struct gpc_am_reserve {
    int64_t rplsb_chunk;     /* -1 once used */
    int send_tickets;
    int tmpmd_tickets;
};

/* The token handed to handlers. */
struct gpc_token {
    gasnet_node_t source;
    uint8_t is_request;
    uint8_t replied;
    uint8_t credit_byte;     /* for the reply: credits returned, any granted, epoch bit */
    uint8_t via_ring;        /* came through an AM ring (am_ring.c): so does the reply */
    uint8_t loopback;        /* a message to self, run inside the call (loopback.c) */
    uint32_t reqsb_chunk;
    struct gpc_am_reserve *reserve;
};

/* Unprototyped on purpose: handlers of every prototype are stored here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
typedef void (*gpc_handler_fn)();
#pragma GCC diagnostic pop

/* Handler indices the conduit keeps for itself (1..127 are GASNet's). */
enum gpc_internal_handler {
    GPC_H_MEMSET = 10,       /* memset on the target, then GPC_H_MEMSET_DONE */
    GPC_H_MEMSET_DONE = 11,
    GPC_H_BARRIER = 12,      /* one round of a team's dissemination barrier */
    GPC_H_COLL_DATA = 13,    /* a piece of a collective's message (coll.c) */
    GPC_H_VIS_PUT = 15,      /* VIS: packed put data to unpack (vis.c), then _PUT_DONE */
    GPC_H_VIS_PUT_DONE = 16,
    GPC_H_VIS_GET = 17,      /* VIS: pieces to pack and send back in _GET_DONE */
    GPC_H_VIS_GET_DONE = 18,
};

/*
 * An extended-API operation: an explicit handle, a thread's implicit set,
 * an access region, or a value get.  Puts and gets in flight are counted;
 * the record's pool index (24 bits) travels in the match bits so that the
 * ACK or REPLY_END event finds it.
 */
enum gpc_op_kind { OP_FREE = 0, OP_EXPLICIT, OP_IMPLICIT, OP_REGION, OP_VALGET };

struct gpc_op {
    gp_count_t puts_pending;
    gp_count_t gets_pending;
    uint64_t value;          /* a value get lands here */
    uint32_t next_free;
    uint8_t kind;
};

/*
 * The records are handed out from the free list first, then in index order
 * from the never-used tail (next_unused): the array is zero pages from
 * calloc, and a record is touched only when first used, so an idle process
 * holds a page of it rather than all 4 MiB.
 */
struct gpc_op_pool {
    struct gpc_op *ops;
    uint32_t count;
    uint32_t free_head;      /* index + 1, 0 = none */
    uint32_t next_unused;    /* records [next_unused, count) were never handed out */
    gp_mutex_t lock;
};

/* Match bits of a put or get on PT_RAR: op index, and a ReqSB bounce chunk + 1. */
#define RMA_MATCH(op_index, chunk_plus_one) \
    ((uint64_t)(op_index) | ((uint64_t)(chunk_plus_one) << 24))
#define RMA_OP_INDEX(bits) ((uint32_t)((bits) & 0xffffff))
#define RMA_CHUNK_PLUS_ONE(bits) ((uint32_t)(((bits) >> 24) & 0xffffff))
#define GPC_OP_POOL_SIZE (1u << 17)   /* spec: at least 65535 handles outstanding */
#define GPC_MAX_PIECE (1ull << 30)    /* larger transfers are split */

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
    gp_count_t sys_sent;
    ptl_handle_md_t rar_md;
    ptl_handle_md_t raram_md;
    ptl_handle_md_t rarsafe_md;
    ptl_handle_md_t reqsb_md;
    ptl_handle_md_t rplsb_md;
    char *segment;
    uintptr_t segsize;
    uint64_t vis_area;               /* bytes of the VIS area after the segment (vis.h) */
    gasnet_seginfo_t *seginfo;
    struct gpc_chunk_pool reqsb;
    struct gpc_chunk_pool rplsb;
    struct gpc_reqrb reqrb;
    struct gpc_credit_plan credit_plan;   /* the static plan: credits per peer, bank, ReqRB and AM_EQ sizes */
    struct credit_conn *conn;        /* conn_state per peer */
    struct credit_node credit_node;  /* the dynamic credit algorithm's node */
    gp_count_t send_tickets;     /* free; GASNET_PORTAL_MSG_LIMIT in all */
    gp_count_t tmpmd_tickets;    /* free; GASNET_PORTAL_NUM_TMPMD in all */
    int64_t send_tickets_limit;
    int64_t tmpmd_tickets_limit;
    gp_count_t next_lid;
    struct gpc_lid_cache am_lids;    /* unpacked Long requests, AM side */
    struct gpc_lid_cache reply_lids; /* unpacked Long replies, SAFE side */
    gpc_handler_fn handlers[256];
    int packed_long;
    uint64_t packed_long_limit;  /* GASNET_PACKEDLONG_LIMIT: the chunk bounds it further */
    int safe_limit;
    int am_limit;
    int sys_limit;
    gp_count_t cb_hits;
    gp_count_t am_events;            /* events taken, for the statistics page */
    gp_count_t safe_events;
    gp_count_t sys_events;
    struct gpc_op_pool op_pool;
    char **direct_segment;           /* peers' segments mapped here (shm), else NULL */
    uint64_t put_bounce_limit;
    uint64_t get_bounce_limit;
    int wait_mode;                   /* GASNET_WAIT_*, from gasnet_set_waitmode */
    int oversubscribed;              /* more of the job's processes on this host than cores */
};

extern struct gpc_state gpc;

/* Thread-local context checks (handler, reply rules). */
extern _Thread_local int gpc_in_handler;

/* attach.c */
int gpc_init(void);
int gpc_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize);
int gpc_register_handlers(gasnet_handlerentry_t *table, int numentries,
                          gpc_handler_fn handlers[256]);

/* progress.c */
int gpc_poll(void);
/* One turn of a blocking wait: polls, and yields the CPU when asked to or overcommitted. */
void gpc_wait_turn(void);
/* At the end of attach: a transport's receive thread polls too (GASNET_RCV_THREAD). */
void gpc_rcv_poll_setup(void);
/* Polls until the tickets are free; a long wait says so, naming node dest. */
void gpc_take_tickets(uint32_t dest, int send_tickets, int tmpmd_tickets);
void gpc_give_tickets(int send_tickets, int tmpmd_tickets);

/* am.c */
int gpc_am_request(gasnet_node_t dest, unsigned category, gasnet_handler_t handler,
                   void *source, size_t nbytes, void *dest_addr, int nargs,
                   const gasnet_handlerarg_t *args);
int gpc_am_reply(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                 void *source, size_t nbytes, void *dest_addr, int nargs,
                 const gasnet_handlerarg_t *args);
void gpc_am_event(const struct ptl_event *event, struct gpc_am_reserve *reserve);

/* loopback.c: messages to self, handled inside the request (or reply) call */
int gpc_am_loopback_request(unsigned category, gasnet_handler_t handler, void *source,
                            size_t nbytes, void *dest_addr, int nargs,
                            const gasnet_handlerarg_t *args);
int gpc_am_loopback_reply(struct gpc_token *request, unsigned category, gasnet_handler_t handler,
                          void *source, size_t nbytes, void *dest_addr, int nargs,
                          const gasnet_handlerarg_t *args);
void gpc_safe_event(const struct ptl_event *event);

/* am_ring.c: on-node AMs through per-peer slot rings in the receiver's region */
uint64_t gpc_ring_region_bytes(void);   /* what the mailbox adds to the region */
int gpc_ring_setup(void);               /* before the attach barrier */
void gpc_ring_connect(void);            /* after it */
int gpc_ring_to(gasnet_node_t node);    /* messages to node take a ring */
/* 1 when sent through the ring to dest, 0 when dest has none (the caller goes the Portals way). */
int gpc_ring_request(gasnet_node_t dest, unsigned category, gasnet_handler_t handler,
                     void *source, size_t nbytes, void *dest_addr, int nargs,
                     const gasnet_handlerarg_t *args);
int gpc_ring_reply(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                   void *source, size_t nbytes, void *dest_addr, int nargs,
                   const gasnet_handlerarg_t *args);
int gpc_ring_poll(void);                /* messages taken */
void gpc_ring_peer_stats(gasnet_node_t node, uint64_t *sent, uint64_t *received,
                         uint64_t *stalls);

/* reqrb.c */
int gpc_reqrb_setup(void);
void gpc_reqrb_processed(const struct ptl_event *event);
void gpc_reqrb_unlinked(const struct ptl_event *event);

/* sys.c: the SYS queue of seed 000 */
enum gpc_sys_type {
    SYS_EXIT_ELECT = 1,   /* to node 0: may I coordinate the exit? */
    SYS_EXIT_ROLE,        /* node 0's answer: arg 1 = master, 0 = slave */
    SYS_EXIT_REQUEST,     /* master to all: exit with code (data) */
    SYS_EXIT_ACK,         /* to the master: request received */
    SYS_CREDIT_REVOKE,    /* lender to borrower: give back what you don't use (arg: E bit) */
    SYS_CREDIT_RETURN,    /* borrower to lender: arg credits returned, data E bit */
    SYS_CREDIT_ASK,       /* borrower to lender: arg credits wanted (it holds fewer than a
                           * message takes) */
    SYS_CREDIT_GRANT,     /* lender to borrower: arg credits, data 1 = lent for good, 0 =
                           * admitted for single requests */
};
int gpc_sys_setup(void);
void gpc_sys_send(gasnet_node_t node, enum gpc_sys_type type, uint32_t arg, uint64_t data);
int gpc_poll_sys(void);
void gpc_sys_send_credit(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                         int end_of_epoch);
/* exit.c: a shutdown message */
void gpc_exit_sys_received(gasnet_node_t from, enum gpc_sys_type type, uint32_t arg,
                           uint64_t data);

/* stats.c: the live statistics page for gp-top (stats_page.h) */
void gpc_stats_setup(void);
void gpc_stats_publish(int force);
void gpc_stats_remove(void);
void gpc_stats_remove_sigsafe(void); /* the same, from a signal handler */

/* credit_stats.c: GASNET_PORTAL_CREDIT_STATS */
void gpc_credit_stats_write(void);

/* exit.c: the graceful exit of seed 003 over the SYS queue */
_Noreturn void gpc_exit(int exit_code);
void gpc_exit_install_signals(void);
void gpc_exit_check_flag(void);   /* the shutdown flag, checked at poll time */
extern volatile sig_atomic_t gpc_shutdown_signal;

/* rma.c: puts, gets and memsets; each completes into op (NULL: the caller waits). */
int gpc_rma_setup(void);
void gpc_rma_connect(void);
struct gpc_op *gpc_op_new(enum gpc_op_kind kind);
void gpc_op_free(struct gpc_op *op);
int gpc_op_done(struct gpc_op *op);
void gpc_op_wait(struct gpc_op *op);
struct gpc_op *gpc_op_implicit(void);     /* this thread's implicit set, or its access region */
void gpc_put(gasnet_node_t node, void *dest, const void *src, size_t nbytes, struct gpc_op *op);
/* A blocking put or get to a peer whose segment is mapped here: the copy, and nothing else
 * (no operation record); 0 when the peer is not mapped and the caller must go the long way. */
int gpc_put_direct(gasnet_node_t node, void *dest, const void *src, size_t nbytes);
int gpc_get_direct(void *dest, gasnet_node_t node, const void *src, size_t nbytes);
void gpc_get(void *dest, gasnet_node_t node, const void *src, size_t nbytes, struct gpc_op *op);
void gpc_put_value(gasnet_node_t node, void *dest, uint64_t value, size_t nbytes,
                   struct gpc_op *op);
void gpc_memset(gasnet_node_t node, void *dest, int value, size_t nbytes, struct gpc_op *op);
void gpc_rma_event(const struct ptl_event *event);
/* rma_map.c: at the end of attach, which peers gasnet.h's inline puts and gets may copy to. */
void gpc_rma_map_publish(void);
void gpc_memset_handler(gasnet_token_t token, gasnet_handlerarg_t op, gasnet_handlerarg_t off_hi,
                        gasnet_handlerarg_t off_lo, gasnet_handlerarg_t len_hi,
                        gasnet_handlerarg_t len_lo, gasnet_handlerarg_t value);
void gpc_memset_done_handler(gasnet_token_t token, gasnet_handlerarg_t op);
extern _Thread_local struct gpc_op *gpc_thread_implicit;
extern _Thread_local struct gpc_op *gpc_thread_region;

/* barrier.c: a team's split-phase barrier (the team's ranks take part). */
#define GPC_BARRIER_MAX_ROUNDS 32
enum gpc_barrier_name { NAME_ANONYMOUS = 0, NAME_NAMED = 1, NAME_MISMATCH = 2 };
struct barrier_value {
    int state;
    int name;
};
struct gpc_barrier {
    int phase;
    int notified;
    int notify_id;
    int notify_flags;
    int rounds;
    int round;               /* next round whose message we wait for */
    struct barrier_value known;
    int completed;           /* phases completed on this node */
    struct barrier_value last;   /* the merged name state of the last one */
    /* messages received, by phase parity and round (written by the handler) */
    volatile int arrived[2][GPC_BARRIER_MAX_ROUNDS];
    struct barrier_value received[2][GPC_BARRIER_MAX_ROUNDS];
    gp_mutex_t lock;
};
struct gpc_team;
void gpc_barrier_init(struct gpc_barrier *b, gasnet_node_t size);
void gpc_team_barrier_notify(struct gpc_team *team, int id, int flags);
int gpc_team_barrier_try(struct gpc_team *team, int id, int flags);
int gpc_team_barrier_wait(struct gpc_team *team, int id, int flags);
int gpc_team_barrier_between_notify_and_wait(const struct gpc_team *team);
int gpc_team_barrier_result(const struct gpc_team *team, int *id);
/* gasnet_barrier_*: GASNET_TEAM_ALL's */
void gpc_barrier_notify(int id, int flags);
int gpc_barrier_between_notify_and_wait(void);
int gpc_barrier_result(int *id);
int gpc_barrier_try(int id, int flags);
int gpc_barrier_wait(int id, int flags);
void gpc_barrier_setup(void);
void gpc_barrier_handler(gasnet_token_t token, gasnet_handlerarg_t phase, gasnet_handlerarg_t round,
                         gasnet_handlerarg_t state, gasnet_handlerarg_t name,
                         gasnet_handlerarg_t team_id);

/*
 * team.c: teams.  A team is a list of nodes by rank; its id (0 for
 * GASNET_TEAM_ALL, else the leading node and a count of the teams it
 * leads) names it in messages.  Images: GASNET_TEAM_ALL may have several
 * per node (gasnet_coll_init's table), split teams one.
 */
struct gpc_team {
    uint32_t id;
    gasnet_node_t size;
    gasnet_node_t rank;          /* this node's */
    gasnet_node_t *rank2node;    /* NULL: rank = node */
    uint32_t *img_count;         /* images by rank; NULL: one each */
    uint32_t *img_first;         /* first image number by rank */
    uint32_t nimages;
    uint32_t local_images;       /* this node's */
    uint32_t *next_seq;          /* by local image: the next collective's number */
    struct gpc_barrier barrier;
    struct gpc_team *next;
};
void gpc_team_setup(void);
extern struct gpc_team gpc_team_all_storage;   /* GASNET_TEAM_ALL */
struct gpc_team *gpc_team_all(void);
struct gpc_team *gpc_team_find(uint32_t id);
gasnet_node_t gpc_team_node(const struct gpc_team *team, gasnet_node_t rank);
/* The team rank of node, or size when it is not a member. */
gasnet_node_t gpc_team_rank_of(const struct gpc_team *team, gasnet_node_t node);
uint32_t gpc_team_images(const struct gpc_team *team, gasnet_node_t rank);
uint32_t gpc_team_first_image(const struct gpc_team *team, gasnet_node_t rank);
/* The rank holding image (image < nimages). */
gasnet_node_t gpc_team_rank_of_image(const struct gpc_team *team, uint32_t image);
/* GASNET_TEAM_ALL's image layout (counts by node; NULL: one each). */
void gpc_team_set_images(const uint32_t *counts);
/* Collective over parent (one image per node): the new team of this color. */
struct gpc_team *gpc_team_split(struct gpc_team *parent, gasnet_node_t color,
                                gasnet_node_t relrank);

/* handlers.c */
void gpc_run_handler(struct gpc_token *token, gasnet_handler_t handler, unsigned category,
                     void *buf, size_t nbytes, unsigned nargs, const gasnet_handlerarg_t *args);

/* nodeinfo.c: hosts and supernodes (5.4.5): gathered at init (supernodes
 * as the transport will map them), made exact at attach (what is mapped). */
int gpc_nodeinfo_init(void);
int gpc_nodeinfo_setup(void);
const gasnet_nodeinfo_t *gpc_nodeinfo(void);

/* bus_fault.c: for the fatal-signal handler: appends to line what a SIGBUS at
 * addr inside a /dev/shm region means (whose segment, its size, /dev/shm's
 * free space); returns the new length, len unchanged elsewhere.
 * Async-signal-safe. */
size_t gpc_bus_fault_describe(char *line, size_t len, size_t size, const void *addr);

/* sizing.c: at init, after gpc_nodeinfo_init: gpc.local_nodes, the segment
 * limit and gpc.oversubscribed, all from the nodes on this host. */
void gpc_sizing_init(void);

/*
 * coll.c: the collectives' engine.  Each image's call joins its node's
 * record of the operation; once every local image has joined, the node's
 * part advances (trees of AM Medium messages) whenever a thread calls
 * gpc_coll_progress, until it is complete.
 */
enum gpc_coll_kind { GPC_BROADCAST, GPC_SCATTER, GPC_GATHER, GPC_GATHER_ALL, GPC_EXCHANGE,
                     GPC_REDUCE, GPC_SYNC };
struct gpc_coll_call {
    enum gpc_coll_kind kind;
    int in_allsync, out_allsync;
    gasnet_node_t root_rank;     /* the root image's team rank ... */
    uint32_t root_local;         /* ... and index among that node's images */
    uint64_t nbytes;             /* a block; reduce: one contribution */
    void *dst, *src;             /* this image's own arguments */
    void *const *dsts;           /* this node's images' buffers (M forms), or NULL */
    void *const *srcs;
    gasnet_coll_reduce_fn_t fn;  /* reduce */
    int fn_flags, fn_arg;
    size_t elem_size, elem_count;
};
struct gpc_coll_op;
void gpc_coll_setup(void);
struct gpc_coll_op *gpc_coll_start(struct gpc_team *team, uint32_t local,
                                   const struct gpc_coll_call *call);
/* Advances every operation this node has in progress (a no-op when another
 * thread is at it). */
void gpc_coll_progress(void);
int gpc_coll_done(struct gpc_coll_op *op);
/* The caller's image is through with op (it may be freed once complete). */
void gpc_coll_release(struct gpc_coll_op *op);
/* Progresses until op is complete, then releases it. */
void gpc_coll_finish(struct gpc_coll_op *op);
void gpc_coll_data_handler(gasnet_token_t token, void *buf, size_t nbytes,
                           gasnet_handlerarg_t team_id, gasnet_handlerarg_t seq,
                           gasnet_handlerarg_t tag, gasnet_handlerarg_t from,
                           gasnet_handlerarg_t off_hi, gasnet_handlerarg_t off_lo,
                           gasnet_handlerarg_t total_hi, gasnet_handlerarg_t total_lo);

#endif
