/*
 * The reliable message protocol that ibv and ofi both speak (doc/wire-ibv.md,
 * doc/wire-ofi.md): requests (PUT, PUT_RNDV, GET), answers (ACK, REPLY) and
 * CREDIT, what a request and a received message do at either end, the Portals
 * steps each of them takes, and the failure latch both transports raise through.
 *
 *   msg.h            the message types and flags (the same values on both wires),
 *                    the protocol's fields of a header, windows, served requests,
 *                    the table of NIC primitives a transport runs the protocol with
 *   msg_request.c    the initiator's put and get by messages (eager or rendezvous)
 *   msg_received.c   a received message: the target's matching and answer, the
 *                    initiator's ACK or REPLY for the record its op id names
 *   msg_target.c     the target's Portals steps: matching, deposits, the events, the
 *                    fields of the ACK and REPLY a request gets
 *   msg_initiator.c  the initiator's: what an ACK or a REPLY posts, windows told
 *   msg_window_op.h  the initiator's put or get straight into a peer's window, in parts
 *                    the transport posts, and their completions (inline: each transport's
 *                    primitives become direct calls in its window file)
 *   msg_credit.c     request credits: what a message tells back, the peers owed, CREDIT
 *                    messages for those no message answered
 *   msg_fatal.c      a failure (msg_fail, msg_fail_op): the peer marked failed, the first
 *                    failure's text kept and raised once the transport's lock is dropped
 *   msg_pool.c       pools of numbered buffers (bounce buffers, tx buffers)
 *
 * Each transport lays the fields out in a header of its own (ibv's names a 32-bit
 * rkey and no sender, its QP tells it; ofi's a 64-bit key and the sender's rank),
 * converts between that header and struct msg_fields on the way in and out, and
 * gives the protocol its struct msg_nic: how a message is sent, an operation record
 * taken and waited for, a local buffer keyed for the peer, the target's rendezvous
 * read and large get's write posted, a peer's credits (and, in msg_window_op.h's
 * struct msg_window_ops, a window op's parts posted).
 * What counts NIC resources stays the transport's, as verbs and libfabric differ
 * there: its receive buffers and their reposting (ibv's one SRQ topped up in
 * batches, ofi's buffers re-posted one by one), completions and their dispatch
 * (ibv's work completions, ofi's receives queued for the progress pass), when a
 * credit is owed and how a request waits for one, the per-peer order it needs.
 */
#ifndef GP_NAL_MSG_H
#define GP_NAL_MSG_H

#include <stdarg.h>
#include <stdint.h>

#include "nal/inflight.h"
#include "nal/upcalls.h"

enum msg_type {
    MSG_PUT = 1,   /* request: header + data in the same buffer */
    MSG_PUT_RNDV,  /* request: header naming the source (addr, key); the target reads it */
    MSG_GET,       /* request: small ones come back in the REPLY, large ones are written to (addr, key) */
    MSG_ACK,       /* answer to a PUT / PUT_RNDV */
    MSG_REPLY,     /* answer to a GET, with the data when it was small */
    MSG_CREDIT,    /* only returns credits */
    MSG_TYPE_END
};

#define MSG_FLAG_ANSWER  0x01u  /* PUT: the initiator holds a record and awaits an ACK */
#define MSG_FLAG_EVENT   0x02u  /* ACK / REPLY: post the initiator's event (else only release the op) */
#define MSG_FLAG_DATA    0x04u  /* REPLY: data follows the header */
#define MSG_FLAG_WINDOW  0x08u  /* ACK / REPLY: win_offset / win_length describe a window */
#define MSG_FLAG_ACK_REQ 0x10u  /* PUT: the initiator wants the ACK event */

#define MSG_WINDOW_PTS 16       /* portal entries whose windows a peer caches */

/* What the protocol reads of a header and writes into one. */
struct msg_fields {
    uint8_t type;
    uint8_t flags;
    uint32_t op_id;          /* the initiator's record, echoed by ACK / REPLY */
    uint32_t pt_index;
    uint64_t match_bits;
    uint64_t offset;         /* request: remote offset; ACK / REPLY: offset in the target MD */
    uint64_t hdr_data;
    uint64_t length;         /* request: bytes; ACK / REPLY: mlength */
    uint64_t win_offset;     /* WINDOW: the MD's start, from the target region's base */
    uint64_t win_length;
};

/* A transport's header to the fields and back.  Each header names these fields alike, and
 * the macros touch those names only: what else it holds (credits, the sender, the source's
 * or destination's address and key) is the transport's to read and write. */
#define MSG_FIELDS_OF(hdr)                                                                      \
    ((struct msg_fields){ .type = (hdr)->type, .flags = (hdr)->flags, .op_id = (hdr)->op_id,     \
                          .pt_index = (hdr)->pt_index, .match_bits = (hdr)->match_bits,         \
                          .offset = (hdr)->offset, .hdr_data = (hdr)->hdr_data,                 \
                          .length = (hdr)->length, .win_offset = (hdr)->win_offset,             \
                          .win_length = (hdr)->win_length })
#define MSG_HDR_OF(hdr_type, f)                                                                 \
    ((hdr_type){ .type = (f)->type, .flags = (f)->flags, .op_id = (f)->op_id,                    \
                 .pt_index = (f)->pt_index, .match_bits = (f)->match_bits, .offset = (f)->offset, \
                 .hdr_data = (f)->hdr_data, .length = (f)->length,                              \
                 .win_offset = (f)->win_offset, .win_length = (f)->win_length })

/* A peer's window on one portal entry, as its answers told it. */
struct msg_window {
    uint64_t region_offset;  /* 0 length: not known */
    uint64_t length;
};

/* Target-side facts a rendezvous read or a served get needs at its completion. */
struct msg_served {
    struct ptl_match match;
    uint64_t match_bits;
    uint64_t hdr_data;
    uint64_t rlength;
    uint32_t pt_index;
    uint32_t op_id;
    uint8_t flags;
};

/* The kinds of operation record the shared requests and window ops take. */
enum msg_op_kind { MSG_OP_PUT = 1, MSG_OP_GET, MSG_OP_WINDOW_PUT, MSG_OP_WINDOW_GET };

/* A peer's request credits, as a transport counts them against its receive buffers: a
 * request costs one, and the receiver tells it back once the request is handled (and, on
 * ibv, its buffer replaced), in the header of any message the other way or in a CREDIT. */
struct msg_credits {
    int send;                     /* requests the peer can still take */
    int owed;                     /* its requests handled here, not told yet */
    int listed;                   /* on the transport's struct msg_owing */
};

/* The peers owed credits that no message has carried back yet (ranks: one a peer at most). */
struct msg_owing {
    int *ranks;
    unsigned count;
};

/* An operation record as the shared code keeps it; a transport's record starts with it and
 * holds after it what the transport keeps for the op (registrations, pins). */
struct msg_record {
    struct nal_inflight_rec rec;  /* first: the table's part (op, kind, generation) */
    uint8_t failed;               /* window op: a part failed, or the peer did */
    uint8_t rndv;                 /* window put: SEND_END posted already (source copied) */
    uint32_t parts_left;          /* window op: parts not completed yet */
};

/* One window op as the transport posts its parts: what msg_window_op says, and what the
 * transport's begin primitive decides for the op's local side (msg_window_op.h). */
struct msg_window_xfer {
    int is_put;
    uint32_t id;                  /* the record's wire id, for the parts' completions */
    uint64_t region_offset;       /* the op's first byte, from the target region's base */
    int bounce;                   /* through the transport's buffers (a put returns at once) */
    uint64_t part_max;            /* the largest part */
    void *desc;                   /* the transport's local descriptor when not bounced */
};

/* The initiator's buffer a PUT_RNDV or a large GET names: the target reads or writes it. */
struct msg_remote {
    uint64_t addr;           /* as the transport's RDMA / RMA addresses it */
    uint64_t key;
};

/*
 * The NIC primitives the shared sends and handling call, one table per transport
 * (nic is its state).  Each moves bytes the transport's way and keeps its own
 * accounting (credits, queue room, contexts, registrations); none of them copies
 * what the protocol hands it more than the transport did on its own.
 */
struct msg_nic {
    /* A message to rank: f laid out in the transport's header, remote (NULL: none) in
     * its address and key fields, then len bytes of data (copied or sent inline: the
     * caller may reuse them on return).  A request first waits for a credit.  PTL_OK
     * or PTL_FAIL. */
    int (*send)(void *nic, int rank, const struct msg_fields *f, const struct msg_remote *remote,
                const void *data, uint64_t len, int is_request);
    /* An operation record of kind for op (waiting with progress for room), its wire id in
     * *id; NULL when the peer or the transport has failed. */
    struct nal_inflight_rec *(*record_take)(void *nic, int rank, unsigned kind,
                                            const struct nal_op *op, uint32_t *id);
    /* The record and what it holds (registrations, an answer's receive buffer) freed. */
    void (*record_release)(void *nic, int rank, struct nal_inflight_rec *rec);
    /* Waits (with progress) until record id is answered: PTL_OK, or PTL_FAIL when the
     * transport counts the peer's failure meanwhile as the op's. */
    int (*record_wait)(void *nic, int rank, uint32_t id);
    /* The address and key by which the peer reads (peer_writes 0) or writes rec's
     * local buffer until the record is released: PTL_OK or PTL_FAIL. */
    int (*remote_key)(void *nic, int rank, struct nal_inflight_rec *rec, int peer_writes,
                      struct msg_remote *remote);
    /* Target: read a rendezvous put's s->match.mlength bytes from the source into the
     * region; its last part's completion calls msg_rndv_done and sends the ACK. */
    void (*read_source)(void *nic, int rank, const struct msg_served *s,
                        const struct msg_remote *source);
    /* Target: write a large get's bytes from the region to the destination, then its
     * REPLY (reply: its fields as matched); GET_END once both are done. */
    void (*write_get)(void *nic, int rank, const struct msg_served *s,
                      const struct msg_fields *reply, const struct msg_remote *dest);
    /* Nothing more is sent to the peer (msg_fail: it failed or broke the protocol). */
    void (*peer_failed)(void *nic, int peer);
    /* The peer's request credits; *live 0 once it has failed (nothing more goes to it). */
    struct msg_credits *(*credits)(void *nic, int rank, int *live);
};

/* What the shared steps need of the transport that runs them. */
struct msg_proto {
    struct nal_ni *ni;
    const char *nal;         /* "ibv", "ofi": the log lines' tag */
    int grant_windows;       /* answers tell windows (GP_OFI_WINDOWS=0 keeps RMA in messages) */
    uint64_t eager_bytes;    /* the most a PUT or a REPLY carries; more goes by RDMA / RMA */
    const struct msg_nic *nic;
    void *nic_state;
    struct msg_fatal *fatal;    /* the transport's latch, under its lock */
};

/* A received message, out of the transport's header. */
struct msg_in {
    struct msg_fields f;
    struct msg_remote remote;   /* PUT_RNDV, GET */
    const uint8_t *data;        /* what follows the header */
    uint64_t bytes;
};

/* ---- msg_request.c ---------------------------------------------------------------------- */

/* A put by messages: PUT with its data when it fits the eager size, else PUT_RNDV naming the
 * source, which the target reads; such a put returns at the ACK (the conduit reuses the
 * source once a put returns).  The transport checked its peer has not failed. */
int msg_put(const struct msg_proto *p, const struct nal_op *op);
/* A get by messages: the REPLY brings small ones; large ones name the destination, which
 * the target writes before it replies. */
int msg_get(const struct msg_proto *p, const struct nal_op *op);

/* ---- msg_received.c --------------------------------------------------------------------- */

/* A message of a known type (1 .. MSG_TYPE_END - 1) from rank, whose records (awaiting
 * answers) and windows are given: the target's matching and answer, or the initiator's
 * answer taken.  Credits, and the receive buffer it came in, stay the transport's. */
void msg_received(const struct msg_proto *p, int rank, struct nal_inflight *records,
                  struct msg_window *windows, const struct msg_in *in);

/* A served request's read or write has completed (not failed): a rendezvous put's PUT_END and
 * ACK (is_read), or a get's GET_END, with its REPLY unless the transport sent that already
 * (reply_sent: behind the writes, in order on its queue). */
void msg_served_done(const struct msg_proto *p, int rank, const struct msg_served *s, int is_read,
                     int reply_sent);

/* ---- msg_target.c ----------------------------------------------------------------------- */

/* A PUT's data into the MD it matches (PUT_END), or a debug line when none does; whether it
 * matched (match filled then). */
int msg_take_put(const struct msg_proto *p, int rank, const struct msg_fields *in,
                 const uint8_t *data, uint64_t bytes, struct ptl_match *match);
/* A PUT_RNDV's matching: 1 when the target must read match->mlength bytes from the source;
 * 0 when the put ends here (PUT_END posted when it matched, *matched says) and is answered. */
int msg_match_rndv(const struct msg_proto *p, int rank, const struct msg_fields *in,
                   struct ptl_match *match, int *matched);
/* A GET's matching, and its REPLY's fields (the data not flagged yet); whether it matched. */
int msg_match_get(const struct msg_proto *p, int rank, const struct msg_fields *in,
                  struct ptl_match *match, struct msg_fields *reply);
/* The ACK a put request gets, when it asked for an answer (0: none is sent). */
int msg_ack(const struct msg_proto *p, const struct msg_fields *in, int matched,
            const struct ptl_match *match, struct msg_fields *ack);
/* The REPLY of a get served by a write, once written. */
void msg_reply_written(const struct msg_proto *p, const struct msg_served *s,
                       struct msg_fields *reply);
/* The request's facts kept until its read or write completes. */
void msg_served_init(struct msg_served *s, const struct msg_fields *in,
                     const struct ptl_match *match);
/* A rendezvous put's read completed: PUT_END; its ACK's fields (0: none is sent). */
int msg_rndv_done(const struct msg_proto *p, int rank, const struct msg_served *s,
                  struct msg_fields *ack);
/* A get's data is written and its REPLY gone: GET_END. */
void msg_get_done(const struct msg_proto *p, int rank, const struct msg_served *s);

/* ---- msg_initiator.c -------------------------------------------------------------------- */

/* An ACK for op: SEND_END when it was a rendezvous (the source was read), the ACK event. */
void msg_take_ack(struct nal_ni *ni, const struct nal_op *op, int rndv,
                  const struct msg_fields *in);
/* A REPLY that fits op (the caller checked): its data into the get's buffer, REPLY_END. */
void msg_take_reply(struct nal_ni *ni, const struct nal_op *op, const struct msg_fields *in,
                    const uint8_t *data);
/* A put or get done through a window has completed (not failed): SEND_END unless posted
 * already, the ACK event when asked for, or REPLY_END. */
void msg_window_op_done(struct nal_ni *ni, const struct nal_op *op, int is_put,
                        int send_end_posted);
/* The window an answer tells, into the peer's table of MSG_WINDOW_PTS. */
void msg_record_window(struct msg_window *windows, const struct msg_fields *in);

/* The peer's window that holds all of op, or NULL: the op goes by messages (every RDMA / RMA
 * put and get asks, hence inline). */
static inline const struct msg_window *msg_window_for(const struct msg_window *windows,
                                                      const struct nal_op *op)
{
    if (op->pt_index >= MSG_WINDOW_PTS)
        return NULL;
    const struct msg_window *win = &windows[op->pt_index];
    if (win->length == 0 || op->remote_offset > win->length ||
        op->length > win->length - op->remote_offset)
        return NULL;
    return win;
}

/* ---- msg_window_op.h ------------------------------------------------------------------- */

/* A window op's answer when the peer has told no window that holds the op: use messages.
 * Not a PTL_* status (those are >= 0). */
#define MSG_NO_WINDOW (-1)

/* ---- msg_credit.c ---------------------------------------------------------------------- */

/* A request: the messages that cost a credit. */
static inline int msg_is_request(unsigned type)
{
    return type == MSG_PUT || type == MSG_PUT_RNDV || type == MSG_GET;
}
/* What a message to the peer tells back (a header's 16 bits), no longer owed then. */
static inline uint16_t msg_credits_told(struct msg_credits *c)
{
    int told = c->owed > 0xffff ? 0xffff : c->owed;
    c->owed -= told;
    return (uint16_t)told;
}
/* One more credit owed to a peer granted grant: whether half of them are owed now (a sender
 * must not wait long for them: a CREDIT message should carry them). */
static inline int msg_credit_owe(struct msg_credits *c, int grant)
{
    return ++c->owed >= (grant + 1) / 2;
}
/* The peer on the list, once. */
static inline void msg_owing_add(struct msg_owing *o, struct msg_credits *c, int rank)
{
    if (!c->listed) {
        c->listed = 1;
        o->ranks[o->count++] = rank;
    }
}
/* A CREDIT message to each listed peer owed more than slack; a live peer still owed some stays
 * listed.  Sending may progress and list more: they are kept after those seen. */
void msg_credits_flush(const struct msg_proto *p, struct msg_owing *o, int slack);

/* ---- msg_pool.c ------------------------------------------------------------------------- */

/* Numbered buffers, the free ones a stack: the one freed last is taken first (its lines are
 * still in cache), the lowest number on top at the start.  Waiting for one (and what a wait
 * progresses) is the transport's. */
struct msg_pool {
    int *free;               /* [size] */
    unsigned free_count;
    unsigned size;
};

/* PTL_OK, or PTL_NO_SPACE. */
int msg_pool_init(struct msg_pool *pool, unsigned size);
void msg_pool_fini(struct msg_pool *pool);
/* A free buffer's number, or -1 when all are taken. */
static inline int msg_pool_get(struct msg_pool *pool)
{
    return pool->free_count ? pool->free[--pool->free_count] : -1;
}
static inline void msg_pool_put(struct msg_pool *pool, int index)
{
    pool->free[pool->free_count++] = index;
}
static inline int msg_pool_all_free(const struct msg_pool *pool)
{
    return pool->free_count == pool->size;
}

/* ---- msg_fatal.c ------------------------------------------------------------------------ */

/* The first failure of a transport's state: kept under its lock, raised once it is dropped. */
struct msg_fatal {
    int pending;             /* a failure was logged: the graceful exit starts */
    int raised;
    char text[512];
};

/* Keeps the first failure's text (later ones are dropped). */
void msg_fatal_vset(struct msg_fatal *f, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* A failure that concerns node peer (-1: none): the same, unless the job's exit is under
 * way (nal_job_ending), when the peer has left in it: then only a debug line under tag. */
void msg_fatal_vset_peer(struct msg_fatal *f, const char *tag, int peer, const char *fmt,
                         va_list ap) __attribute__((format(printf, 4, 0)));
/* A failure of p's transport, its first kept (msg_fatal_raise ends the job once the lock is
 * dropped); peer, when one of the job's (-1: none), gets nothing more sent to it. */
void msg_fail(const struct msg_proto *p, int peer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for an operation to or from node peer that failed: once the job's exit is under
 * way the peer has left in it, and that is a debug line, not the job's end. */
void msg_fail_op(const struct msg_proto *p, int peer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* gp_fatal with the text, once, when a failure is pending. */
void msg_fatal_raise(struct msg_fatal *f);

#endif
