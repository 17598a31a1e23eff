/*
 * What the files of the ofi transport share (nothing outside nal/ofi/
 * includes this).  doc/wire-ofi.md describes the protocol; this header the
 * state behind it.
 *
 *   ofi.c         the state's life (shared by both uses) and the ops table of
 *                 GP_TRANSPORT=ofi: region, connect, put, get, progress, fini
 *   ofi_peers.c   the hybrid's route to peers on other hosts (nal_peer_ops), and
 *                 when it serves unasked
 *   ofi_config.c  the transport's configuration rows (GP_OFI_*)
 *   ofi_fabric.c  libfabric, loaded (dlopen) when a job first wants ofi
 *   ofi_info.c    choosing the provider (GP_OFI_PROVIDER, FI_PROVIDER) and saying
 *                 what was found when none fits
 *   ofi_host.c    gp-check's "libfabric" line: the providers here, the one ofi would use
 *   ofi_ep.c      fabric, domain, endpoint, CQs, address vector; the region's and
 *                 the buffers' registrations (the MR modes); the address exchange
 *   ofi_mr.c      registrations of memory outside the region: through the firehose
 *                 cache (nal/firehose.c, shared with ibv), else one operation long
 *   ofi_msg.c     messages: requests, ACK / REPLY, credits, the target side (its Portals
 *                 steps -- matching, events, answers' fields -- are nal/msg/'s, shared with ibv)
 *   ofi_rma.c     RMA straight into a peer's window (the RAR segment)
 *   ofi_cq.c      completion reaping, tx buffers, send contexts, the failure path
 *   ofi_rcv_thread.c  the receive thread (GASNET_RCV_THREAD): CQs with wait fds
 *
 * One FI_EP_RDM endpoint per process, one address vector filled from the
 * bootstrap allgather, two CQs (transmit, receive) read only by this
 * process's progress engine: whatever the provider's data progress, gp
 * drives it (manual progress).
 *
 * Locking: one mutex (PAR builds only) guards all of it, as on tcp and ibv.
 * Progress takes it with trylock; events go to lock-free rings.
 */
#ifndef GP_NAL_OFI_H
#define GP_NAL_OFI_H

#include <stddef.h>
#include <stdint.h>

#include "nal/firehose.h"
#include "nal/inflight.h"
#include "nal/msg/msg.h"
#include "nal/ofi/ofi_fabric.h"
#include "nal/rcv_thread.h"
#include "nal/upcalls.h"
#include "util/thread.h"

#define OFI_BUF_BYTES 8192        /* a receive buffer, a tx buffer */
#define OFI_ADDR_MAX 128          /* an endpoint name, as fi_getname gives it */
#define OFI_PROV_NAME_MAX 48
#define OFI_TX_BUFS 256           /* tx buffers (messages out, bounced RMA parts) */
/* A window put's parts are copied into bounce buffers, 4 MiB in flight.  Each part is a
 * write and a completion: parts of 256 KiB measured 1.1-1.2x gp's tcp at 1 MiB puts,
 * parts of 64 KiB 0.7-1.0x (doc/performance.md). */
#define OFI_BOUNCE_BYTES 262144
#define OFI_BOUNCE_COUNT 16
/* Window puts up to this size are copied through bounce buffers, so the put returns
 * at once and the next one overlaps it (larger ones wait for their completion). */
#define OFI_PUT_BOUNCE_LIMIT (64ull << 20)
#define OFI_REGION_KEY 1          /* the region's key where gp picks keys (no FI_MR_PROV_KEY) */

/* ---- messages (ofi_msg.c) ---------------------------------------------------------------- */

/* The message types, flags and the protocol's steps are nal/msg/'s; this is where ofi lays
 * the fields out on its wire. */
struct ofi_msg_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t credits;        /* requests of the receiver's that the sender has handled */
    uint32_t src;            /* the sender's rank */
    uint32_t op_id;          /* the initiator's record, echoed by ACK / REPLY */
    uint32_t pt_index;
    uint64_t match_bits;
    uint64_t offset;         /* request: remote offset; ACK / REPLY: offset in the target MD */
    uint64_t hdr_data;
    uint64_t length;         /* request: bytes; ACK / REPLY: mlength */
    uint64_t addr;           /* PUT_RNDV, large GET: the initiator's buffer, as RMA addresses it */
    uint64_t key;
    uint64_t win_offset;     /* WINDOW: the MD's start, from the target region's base */
    uint64_t win_length;
};

#define OFI_EAGER_BYTES (OFI_BUF_BYTES - sizeof(struct ofi_msg_hdr))

/* ---- operation contexts ------------------------------------------------------------------- */

enum ofi_ctx_kind {
    OFI_CTX_RECV = 1,        /* a posted receive buffer */
    OFI_CTX_SEND,            /* a message: releases its tx buffer */
    OFI_CTX_RMA,             /* one part of an initiator RMA op (window put / get) */
    OFI_CTX_RNDV_READ,       /* the target's read of a rendezvous put */
    OFI_CTX_GET_WRITE,       /* the target's write of a large get's data */
    OFI_CTX_LATE_WRITE       /* a put part written late (GP_OFI_TEST_LATE_WRITES) */
};

/* A rendezvous read or a large get's write in progress: the request's facts, its parts. */
struct ofi_served {
    struct msg_served req;
    uint32_t parts_left;
    uint8_t failed;
    uint8_t is_read;         /* a rendezvous put's read (else a large get's write) */
    int peer;
};

/* A receive completion read but not handled yet. */
struct ofi_received {
    unsigned index;          /* the rx buffer */
    uint64_t bytes;
};

/* What the provider hands back with a completion (FI_CONTEXT2 room first). */
struct ofi_ctx {
    struct fi_context2 fi;
    uint8_t kind;            /* enum ofi_ctx_kind */
    int peer;
    int buf;                 /* tx or rx buffer index, -1: none */
    int bounce;              /* bounce buffer index, -1: none */
    uint32_t op_id;          /* OFI_CTX_RMA: the operation record */
    void *copy_to;           /* a bounced get part: where the bytes go at completion */
    uint64_t copy_len;
    struct ofi_served *served; /* RNDV_READ, GET_WRITE: shared by the op's parts */
    uint32_t next_free;
};

/* ---- peers -------------------------------------------------------------------------------- */

enum ofi_op_kind { OFI_OP_PUT = MSG_OP_PUT, OFI_OP_GET = MSG_OP_GET,
                   OFI_OP_RMA_PUT = MSG_OP_WINDOW_PUT, OFI_OP_RMA_GET = MSG_OP_WINDOW_GET };

struct ofi_inflight {
    struct msg_record m;          /* first: the shared part (the table's, a window op's counts) */
    struct fid_mr *mr;            /* registered for this op alone, closed at the end */
    struct firehose_region *pinned; /* or borrowed from the cache, released at the end */
};

/* What one process tells every other (the bootstrap allgather). */
struct ofi_wire {
    char prov_name[OFI_PROV_NAME_MAX];
    uint32_t addrlen;
    uint8_t addr[OFI_ADDR_MAX];
    uint64_t region_base;         /* RMA address of the region's first byte (0 without VIRT_ADDR) */
    uint64_t region_key;
};

struct ofi_peer {
    fi_addr_t addr;
    int failed;
    uint64_t region_base;
    uint64_t region_key;
    struct msg_credits credits;   /* its requests handled here are owed at once */
    uint64_t messages_in;         /* messages from it handled (GP_OFI_TEST_LATE_WRITES) */
    struct nal_inflight inflight; /* records of struct ofi_inflight */
    struct msg_window window[MSG_WINDOW_PTS];
};

struct ofi_state {
    struct nal_ni *ni;
    struct msg_proto proto;       /* the shared protocol steps' view of it (nal/msg/) */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *tx_cq, *rx_cq;
    uint64_t mr_mode;             /* what the provider demands (FI_MR_*) */
    uint64_t max_msg;             /* the endpoint's largest transfer */
    int write_order_granted;      /* FI_ORDER_WAW was asked for and the provider gave it */
    uint64_t ordered_write_bytes; /* writes up to this size are placed in order (ofi_rma.c) */
    struct fid_mr *region_mr;
    void *region_desc;
    uint64_t region_key;
    struct fid_mr *buf_mr;        /* rx and tx buffers, one allocation */
    void *buf_desc;
    uint8_t *bufs;
    uint64_t next_key;            /* gp-chosen keys of one-op and cached registrations */
    struct firehose *firehose;    /* the cache for memory outside the region (ofi_mr.c) */
    int credits_pp;
    unsigned depth_pp;
    struct ofi_peer *peers;
    const uint8_t *wanted;        /* wanted[rank]: reached this way (the hybrid's); NULL: all */
    unsigned peers_reached;
    /* receive buffers: rx_count posted at all times (re-posted once handled) */
    unsigned rx_count;
    struct ofi_ctx *rx_ctx;
    /* Receives read from the CQ, not handled yet, oldest first (ofi_cq.c): a wait reads the
     * receive CQ but handles nothing; each posted buffer is here at most once. */
    struct ofi_received *received;
    unsigned received_head, received_count;
    int progressing;              /* in ofi_progress_locked: waits keep the lock, handle nothing */
    int op_may_yield;             /* a put or get holds the lock, outside progress (PAR waits) */
    int rx_read_since_tx;         /* GP_OFI_TEST_RX_PROGRESS: the receive CQ was read */
    /* tx buffers and send contexts (GP_OFI_TX_BUFS, GP_OFI_BOUNCE_BUFS of the arrays) */
    struct msg_pool tx;           /* of the OFI_TX_BUFS the allocation holds */
    struct msg_pool bounce;       /* of the OFI_BOUNCE_COUNT */
    struct ofi_late_write *late_writes; /* GP_OFI_TEST_LATE_WRITES: parts not written yet */
    struct ofi_ctx *ctx;
    unsigned ctx_count;
    uint32_t ctx_free;            /* index + 1 */
    unsigned ctx_in_use;          /* 0: nothing can complete on the transmit CQ */
    /* served ops whose last part completed while a send could not nest: answered at the pass's end */
    struct ofi_served **done_served;
    unsigned done_count, done_cap;
    struct msg_owing owing;       /* peers owed half their credits or more */
    struct msg_fatal fatal;
    uint64_t rma_puts, rma_gets, messages_sent, rma_started;
    uint64_t credit_waits, credit_messages; /* requests that waited for a credit; CREDITs sent */
    gp_mutex_t lock;
    /* the receive thread (ofi_rcv_thread.c), GASNET_RCV_THREAD=1 in PAR builds */
    int rcv_wanted;
    int rcv_fds[2];               /* the transmit and receive CQs' wait descriptors */
    struct nal_rcv_thread rcv;
};

static inline struct ofi_state *ofi_state_of(struct nal_ni *ni)
{
    return ni->nal_state;
}

/* Is rank a peer this state reaches (every other rank, or those the hybrid routes here)? */
static inline int ofi_wants(const struct ofi_state *st, int rank)
{
    return rank != st->ni->rank && (st->wanted == NULL || st->wanted[rank]);
}

static inline uint8_t *ofi_buf_addr(const struct ofi_state *st, unsigned index)
{
    return st->bufs + (size_t)index * OFI_BUF_BYTES;
}
/* The message buffers' allocation: rx buffers, tx buffers, then the bounce buffers. */
static inline size_t ofi_bufs_bytes(const struct ofi_state *st)
{
    return (size_t)(st->rx_count + OFI_TX_BUFS) * OFI_BUF_BYTES +
           (size_t)OFI_BOUNCE_COUNT * OFI_BOUNCE_BYTES;
}
static inline uint8_t *ofi_bounce_addr(const struct ofi_state *st, int index)
{
    return st->bufs + (size_t)(st->rx_count + OFI_TX_BUFS) * OFI_BUF_BYTES +
           (size_t)index * OFI_BOUNCE_BYTES;
}
/* Buffer indices: the rx buffers first, then the tx buffers. */
static inline unsigned ofi_tx_index(const struct ofi_state *st, int tx)
{
    return st->rx_count + (unsigned)tx;
}

/* ---- ofi.c: the state, for GP_TRANSPORT=ofi and the hybrid's route ------------------------ */

struct ofi_state *ofi_state_new(struct nal_ni *ni);
/* Loads libfabric (needed_by names what wants it, for the warning when it cannot) and picks
 * the provider (st->info), keeping gp's fatal-signal handlers: PTL_OK, or PTL_FAIL after a
 * line at log_level (GP_LOG_*) saying why. */
int ofi_state_choose(struct ofi_state *st, const char *needed_by, int log_level);
/* Collective: the endpoint (where st->info is set) and the exchange, for the peers marked in
 * wanted (NULL: every other rank; the array must outlive the state). */
int ofi_state_connect(struct ofi_state *st, const uint8_t *wanted);
int ofi_state_put(struct ofi_state *st, const struct nal_op *op);
int ofi_state_get(struct ofi_state *st, const struct nal_op *op);
void ofi_state_progress(struct ofi_state *st);
/* What is queued leaves, for a bounded time. */
void ofi_state_drain(struct ofi_state *st);
/* Drains, then the debug line of what was sent. */
void ofi_state_report(struct ofi_state *st);
void ofi_state_free(struct ofi_state *st);

/* ---- ofi_peers.c ------------------------------------------------------------------------ */

extern const struct nal_peer_ops ofi_peer_ops;

/* ---- ofi_info.c ------------------------------------------------------------------------- */

/* 1 when prov_name ("cxi", "verbs;ofi_rxm") runs on a network device; 0 for the providers
 * that run over the host's sockets or memory (tcp, udp, sockets, shm, sm2, net) and the
 * ofi_rxm / ofi_rxd layers over them: gp's own tcp transport serves those hosts better. */
int ofi_provider_is_hardware(const char *prov_name);

/* The provider named: GP_OFI_PROVIDER, else FI_PROVIDER, else NULL (ofi_info.c then chooses). */
const char *ofi_provider_wanted(void);
/* Tells libfabric the job's size (FI_UNIVERSE_SIZE) unless the user did; before the first
 * fi_getinfo of the process. */
void ofi_info_universe(int job_size);
/* fi_getinfo with gp's needs; NULL after a line at log_level (GP_LOG_*) naming what was asked
 * and what was found.  *waw_granted: 1 when FI_ORDER_WAW was asked for (GP_OFI_ORDER_WAW)
 * and the chosen provider offers it, 0 when it is absent. */
struct fi_info *ofi_info_choose(int log_level, int *waw_granted);
/* For gp-check's line (ofi_host.c): every provider libfabric lists here into out, those
 * offering what gp needs marked "(rdm+rma)"; and into chosen the one GP_TRANSPORT=ofi would
 * open ("" if none). */
void ofi_info_list(char *out, size_t len, char *chosen, size_t chosen_len);

/* ---- ofi_host.c ------------------------------------------------------------------------- */

/* nal_ops.host_report: libfabric's providers here, and the one GP_TRANSPORT=ofi would use. */
void ofi_host_report(struct nal_host_report *out);

/* ---- ofi_mr.c --------------------------------------------------------------------------- */

/* The registration cache, unless GASNET_USE_FIREHOSE=0 (after ofi_ep_open). */
int ofi_mr_cache_start(struct ofi_state *st);
/* A registration covering [addr, addr+len) for rec's operation (cached, else its own), and
 * in *base where it starts; NULL after an error naming the range.  ofi_mr_unpin at the end. */
struct fid_mr *ofi_mr_pin(struct ofi_state *st, struct ofi_inflight *rec, void *addr,
                          uint64_t len, uint64_t access, void **base);
void ofi_mr_unpin(struct ofi_state *st, struct ofi_inflight *rec);
/* The GASNET_FIREHOSE_VERBOSE line, every cached registration closed. */
void ofi_mr_cache_stop(struct ofi_state *st);

/* ---- ofi_ep.c --------------------------------------------------------------------------- */

int ofi_ep_open(struct ofi_state *st);
/* Registers the region and the buffers (after ofi_ep_open). */
int ofi_ep_register(struct ofi_state *st);
/* Collective: the allgather of addresses, keys and regions, the AV. */
int ofi_ep_exchange(struct ofi_state *st);
void ofi_ep_close(struct ofi_state *st);
/* Registers [addr, addr+len) for this op (access FI_*); PTL_OK with *mr, or PTL_FAIL. */
int ofi_mr_one_op(struct ofi_state *st, void *addr, uint64_t len, uint64_t access,
                  struct fid_mr **mr);
/* The RMA address a peer uses for addr in a registration starting at base. */
static inline uint64_t ofi_rma_addr(const struct ofi_state *st, const void *addr, const void *base)
{
    return (st->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)addr
                                           : (uint64_t)((const char *)addr - (const char *)base);
}
/* The local descriptor for addr when it lies in the region, else NULL (*in_region 0). */
static inline void *ofi_region_desc(const struct ofi_state *st, const void *addr, uint64_t len,
                                    int *in_region)
{
    const char *base = st->ni->region, *at = addr;
    *in_region = at >= base && (uint64_t)(at - base) <= st->ni->region_bytes &&
                 len <= st->ni->region_bytes - (uint64_t)(at - base);
    return *in_region ? st->region_desc : NULL;
}

/* ---- ofi_msg.c -------------------------------------------------------------------------- */

/* The NIC primitives the shared protocol (nal/msg/) runs over ofi through; its state is st. */
extern const struct msg_nic ofi_msg_nic;
/* Its operation records' wait (record_wait; record_take and record_release are inline
 * below), which the window ops of ofi_rma.c take too. */
int ofi_record_wait(void *nic, int rank, uint32_t id);
/* A put or get by messages (msg_put, msg_get). */
int ofi_msg_put(struct ofi_state *st, const struct nal_op *op);
int ofi_msg_get(struct ofi_state *st, const struct nal_op *op);
/* A receive completed into rx buffer index. */
void ofi_msg_received(struct ofi_state *st, unsigned index, uint64_t bytes);
/* A served op's last part completed: its event and its answer. */
void ofi_msg_served(struct ofi_state *st, struct ofi_served *served);
/* Posts every receive buffer (at connect). */
int ofi_msg_post_receives(struct ofi_state *st);
int ofi_msg_repost(struct ofi_state *st, unsigned index);

/* ---- ofi_rma.c -------------------------------------------------------------------------- */

/* PTL_OK or a PTL_* error if done through the peer's window (msg_window_op); MSG_NO_WINDOW
 * if the peer has told none that holds the op: use messages. */
int ofi_rma_put(struct ofi_state *st, const struct nal_op *op);
int ofi_rma_get(struct ofi_state *st, const struct nal_op *op);
void ofi_rma_part_done(struct ofi_state *st, struct ofi_ctx *ctx, int failed);
/* GP_OFI_TEST_LATE_WRITES: writes the held parts whose target has sent a message since. */
void ofi_rma_late_writes(struct ofi_state *st);
/* Frees the parts still held (the state's end). */
void ofi_rma_late_free(struct ofi_state *st);
/* key, or a wrong one for the GP_OFI_FAULT_KEY'th RMA operation started (tests). */
uint64_t ofi_fault_key(struct ofi_state *st, uint64_t key);

/* ---- ofi_cq.c --------------------------------------------------------------------------- */

/* The receive queue of handled-later completions (rx_count entries), at connect. */
int ofi_cq_alloc(struct ofi_state *st);
/* One pass: the CQs, finished served ops, credits. Lock held. */
void ofi_progress_locked(struct ofi_state *st);
struct ofi_ctx *ofi_ctx_take(struct ofi_state *st);
void ofi_ctx_put(struct ofi_state *st, struct ofi_ctx *ctx);
/* Between two passes of a wait: in a put or a get of a PAR build, outside the progress pass,
 * lets the lock go for a moment so that other threads progress (ofi_cq.c). */
void ofi_wait_yield(struct ofi_state *st);
/* A tx buffer, waiting while none is free (ofi_cq.c says how a wait progresses); -1 when
 * failing. */
int ofi_tx_take(struct ofi_state *st);
void ofi_tx_put(struct ofi_state *st, int tx);
/* A bounce buffer, waiting the same way; -1 when failing. */
int ofi_bounce_take(struct ofi_state *st);
/*
 * Posts with post(st, arg), retrying on -FI_EAGAIN with the waits' progress (both CQs
 * read, nothing handled).  PTL_OK or PTL_FAIL (logged with what).
 */
int ofi_post_retry(struct ofi_state *st, int peer, const char *what,
                   ssize_t (*post)(struct ofi_state *st, void *arg), void *arg);

/* Operation records: take waits (with progress) for room; NULL when the peer or job failed. */
struct ofi_inflight *ofi_inflight_take(struct ofi_state *st, int peer, unsigned kind,
                                       const struct nal_op *op);
void ofi_inflight_release(struct ofi_state *st, int peer, struct ofi_inflight *rec);
static inline uint32_t ofi_inflight_id(const struct ofi_peer *peer, const struct ofi_inflight *r)
{
    return nal_inflight_id(&peer->inflight, &r->m.rec);
}
/* Progress until the op with this id has finished (or the peer failed). */
void ofi_inflight_wait(struct ofi_state *st, int peer, uint32_t id);

/* The table's record_take and record_release (struct msg_nic), inline for the window ops. */
static inline struct nal_inflight_rec *ofi_record_take(void *nic, int rank, unsigned kind,
                                                       const struct nal_op *op, uint32_t *id)
{
    struct ofi_state *st = nic;
    struct ofi_inflight *rec = ofi_inflight_take(st, rank, kind, op);
    if (rec == NULL)
        return NULL;
    *id = ofi_inflight_id(&st->peers[rank], rec);
    return &rec->m.rec;
}

static inline void ofi_record_release(void *nic, int rank, struct nal_inflight_rec *rec)
{
    ofi_inflight_release(nic, rank, (struct ofi_inflight *)rec);
}

/* ---- ofi_rcv_thread.c -------------------------------------------------------------------- */

/* Before the CQs: whether GASNET_RCV_THREAD asks for the thread (PAR). */
void ofi_rcv_prepare(struct ofi_state *st);
/* fi_cq_open, with a wait descriptor when the thread is wanted and the provider has one. */
int ofi_rcv_cq_open(struct ofi_state *st, struct fi_cq_attr *attr, struct fid_cq **cq);
/* After the address exchange: starts the thread (or says why this provider cannot). */
int ofi_rcv_start(struct ofi_state *st);
/* Stops and joins it, before the CQs close. */
void ofi_rcv_stop(struct ofi_state *st);

#endif
