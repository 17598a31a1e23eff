/*
 * What the files of the ibv transport share (nothing outside libcore/nal
 * includes this).  doc/wire-ibv.md describes the protocol; this header the
 * state behind it.
 *
 *   ibv.c             the ops table, and the state API the hybrid transport drives
 *   ibv_settings.c    seed 003's runtime variables as this transport uses them
 *   ibv_limits.c      their rules against the job and the device ("trimmed to")
 *   ibv_ports.c       the GASNET_IBV_PORTS filter
 *   ibv_rcv_thread.c  the receive thread (GASNET_RCV_THREAD)
 *   ibv_dev.c         devices, ports, GIDs, the region's memory regions, CQs
 *   ibv_qp.c          queue pairs: creation, the bootstrap exchange, RTR / RTS
 *   ibv_srq.c         the shared receive queue: its size, its buffers, refills in
 *                     batches, and which peer a receive came from
 *   ibv_msg.c         messages over send/recv: requests, ACK / REPLY, credits,
 *                     the target side (matching, deposits, rendezvous reads)
 *   ibv_rdma.c        RDMA WRITE / READ straight into a peer's window (the RAR
 *                     segment), local keys (region, firehose, bounce buffers)
 *   ibv_cq.c          completion reaping and the failed-completion path
 *   ibv_verbs.c       libibverbs, loaded (dlopen) when a job first wants verbs
 *   ibv_host.c        gp-check's "rdma" line: the devices here and their ports
 * (the registration cache for out-of-region local memory is nal/firehose.c, and the
 * protocol's Portals steps -- matching, events, answers' fields -- nal/msg/, both shared
 * with ofi)
 *
 * Locking: one mutex (PAR builds only) guards all of it, as on tcp.
 * Progress takes it with trylock; events go to lock-free rings, and nothing
 * here calls back into the conduit, so posting events under it is safe.
 */
#ifndef GP_NAL_IBV_H
#define GP_NAL_IBV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "nal/firehose.h"
#include "nal/ibv/ibv_verbs.h"    /* <infiniband/verbs.h>, its library calls onto a table */
#include "nal/inflight.h"
#include "nal/msg/msg.h"
#include "nal/rcv_thread.h"
#include "nal/upcalls.h"
#include "util/thread.h"

struct ibv_state;

/* ---- limits ---------------------------------------------------------------------- */

#define IBV_MAX_PORTS 8         /* ports used by one process (multi-rail) */
#define IBV_MAX_HCAS 4
#define IBV_MAX_QPS 64          /* GASNET_NUM_QPS upper bound */
#define IBV_MAX_PIN_MRS 64      /* memory regions the region may be split into (GASNET_PIN_MAXSZ) */
#define IBV_BUF_BYTES 4096      /* a receive buffer, a bounce buffer (the seed's 4 KiB bbuf) */
#define IBV_SRQ_CREDIT_SLACK 8  /* SRQ buffers beyond requests and answers (CREDIT messages) */
#define IBV_SRQ_MIN_GRANT 2     /* request credits a peer gets however many peers share the SRQ */
#define IBV_SRQ_BATCH 32        /* receive buffers posted to the SRQ by one call */

/* ---- messages (ibv_msg.c) ------------------------------------------------------------ */

/* The message types, flags and the protocol's steps are nal/msg/'s; this is where ibv lays
 * the fields out on its wire (no sender: the QP a message arrives on names it). */
struct ibv_msg_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t credits;        /* receive buffers the sender has re-posted for the receiver */
    uint32_t op_id;          /* the initiator's in-flight slot, echoed by ACK / REPLY */
    uint32_t pt_index;
    uint32_t rkey;           /* PUT_RNDV, large GET: the initiator's buffer */
    uint64_t match_bits;
    uint64_t offset;         /* request: remote offset; ACK / REPLY: offset in the target MD */
    uint64_t hdr_data;
    uint64_t length;         /* request: bytes; ACK / REPLY: mlength */
    uint64_t addr;           /* PUT_RNDV, large GET: the initiator's buffer */
    uint64_t win_offset;     /* WINDOW: the MD's start, from the target region's base */
    uint64_t win_length;
};

#define IBV_EAGER_BYTES (IBV_BUF_BYTES - sizeof(struct ibv_msg_hdr))

/* ---- settings (ibv_settings.c) ------------------------------------------------------ */

struct ibv_settings {
    const char *ports_text;       /* GASNET_IBV_PORTS (or GASNET_VAPI_PORTS) */
    const char *ports_var;        /* which of the two it came from */
    int num_qps;                  /* 0: one per port */
    int qp_timeout, qp_retry_count, qp_rd_atom;
    int inline_limit;             /* -1: the device's */
    uint64_t nonbulkput_bounce_limit;
    int networkdepth_pp, networkdepth_total;
    int am_credits_pp;
    int am_credits_total;         /* receive buffers for answers, over every peer */
    int am_credits_slack;         /* credits owed before a CREDIT message goes back */
    int rbuf_count;               /* GASNET_RBUF_COUNT: the SRQ's buffers, at most */
    int bbuf_count;
    uint64_t pin_maxsz;           /* 0: one memory region */
    uint64_t physmem_max;
    int gid_index;                /* -1: chosen here */
    int use_firehose;
    struct firehose_limits firehose;
};

int ibv_settings_load(struct ibv_settings *out);
/* The device-dependent values (gp_config_ibv_limits), once the HCAs are open. */
int ibv_settings_apply_caps(struct ibv_state *st, int quiet);

/* ---- devices and ports (ibv_dev.c) ---------------------------------------------------- */

struct ibv_hca {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_device_attr attr;
    char name[IBV_SYSFS_NAME_MAX];
    struct ibv_mr *region_mr[IBV_MAX_PIN_MRS];
    unsigned region_mrs;
    struct ibv_mr *bbuf_mr;       /* the bounce-buffer pool */
    struct ibv_mr *rbuf_mr;       /* the receive-buffer pool (the HCA of port 0 only) */
    struct ibv_srq *srq;          /* the shared receive queue of every peer's QP 0 (same HCA) */
    struct ibv_cq *send_cq;       /* st->send_cq_depth entries */
    unsigned send_cq_used;        /* work requests posted on its QPs and not reaped */
    struct ibv_cq *recv_cq;
    struct firehose *firehose;    /* NULL when GASNET_USE_FIREHOSE=0 */
    struct ibv_comp_channel *channel; /* GASNET_RCV_THREAD=1: wakes the receive thread */
};

struct ibv_port {
    unsigned hca;
    uint8_t num;
    uint8_t link_layer;           /* IBV_LINK_LAYER_* */
    uint16_t lid;
    uint8_t mtu;                  /* enum ibv_mtu */
    int gid_index;
    union ibv_gid gid;
};

/* What one process tells every other about one of its ports. */
struct ibv_port_wire {
    uint8_t gid[16];
    uint16_t lid;
    uint8_t link_layer;
    uint8_t mtu;
    uint32_t rkey[IBV_MAX_PIN_MRS];
};

/* ---- peers ------------------------------------------------------------------------- */

enum ibv_op_kind { IBV_OP_PUT = MSG_OP_PUT, IBV_OP_GET = MSG_OP_GET,
                   IBV_OP_RDMA_PUT = MSG_OP_WINDOW_PUT, IBV_OP_RDMA_GET = MSG_OP_WINDOW_GET };

/* An operation of this process awaiting its answer or its completions: an
 * operation record of the peer's table (nal/inflight.h), whose id the
 * answer or the completion's send context names. */
struct ibv_inflight {
    struct msg_record m;          /* first: the shared part (the table's, a window op's counts) */
    struct ibv_mr *transient_mr;  /* registered for this op alone, deregistered at the end */
    struct firehose_region *pinned; /* the firehose region the peer reads or writes, held to the end */
    unsigned pinned_hca;
};

struct ibv_peer {
    int rank;
    int reached;                  /* this transport reaches it */
    int failed;                   /* a completion to or from it failed: nothing more is sent */
    unsigned nqps;
    struct ibv_qp *qp[IBV_MAX_QPS];
    unsigned next_qp;             /* round robin of RDMA over the QPs */
    unsigned sq_used[IBV_MAX_QPS];/* work requests posted and not reaped */
    /* the remote side */
    uint64_t region_base;
    uint64_t pin_maxsz;
    struct ibv_port_wire *port;   /* [nqps]: the remote port each of our QPs talks to */
    /* message flow control on QP 0 */
    struct msg_credits credits;   /* granted at set-up; owed once a replacement buffer is posted */
    /* operations awaiting answers or completions: records of struct ibv_inflight */
    struct nal_inflight inflight;
    /* rendezvous reads from it in progress: its later messages wait (per-peer order) */
    unsigned reads_pending;
    uint32_t deferred_head, deferred_tail; /* receive buffers, index + 1, FIFO through rbuf_next */
    unsigned deferred_count;
    struct msg_window window[MSG_WINDOW_PTS];
};

/* ---- send contexts: what a send completion finishes ------------------------------------ */

enum ibv_send_kind {
    IBV_SEND_MSG = 1,             /* a message: releases its bounce buffer */
    IBV_SEND_RDMA,                /* one part of an initiator RDMA op */
    IBV_SEND_RNDV_READ,           /* the target's read of a rendezvous put (its last part) */
    IBV_SEND_PART,                /* a part that finishes nothing: the last one does */
    IBV_SEND_GET_WRITE,           /* the target's write of a large get's data */
    IBV_SEND_GET_REPLY            /* the REPLY that follows it: GET_END then */
};

struct ibv_send_ctx {
    uint8_t kind;                 /* enum ibv_send_kind */
    uint8_t qp_index;
    int peer;
    int bbuf;                     /* -1: none */
    uint32_t op_id;               /* IBV_SEND_RDMA: the operation record */
    struct firehose_region *pinned;
    void *copy_to;                /* a bounced get part: where the bytes go at completion */
    uint64_t copy_len;
    struct msg_served served;
    uint32_t next_free;
};

/* ---- the state ------------------------------------------------------------------------ */

struct ibv_state {
    struct nal_ni *ni;
    struct msg_proto proto;       /* the shared protocol steps' view of it (nal/msg/) */
    struct ibv_settings set;
    const uint8_t *wanted;        /* wanted[rank]: reached through ibv (NULL: every peer) */
    struct ibv_hca hca[IBV_MAX_HCAS];
    unsigned nhcas;
    struct ibv_port port[IBV_MAX_PORTS];
    unsigned nports;
    unsigned nqps;                /* QPs per peer this process offers */
    int inline_limit;             /* what the QPs accept */
    int rd_atom;
    unsigned sq_depth;            /* per QP */
    unsigned inflight_per_peer;   /* GASNET_NETWORKDEPTH_PP: records per peer */
    struct nal_inflight_budget budget;  /* GASNET_NETWORKDEPTH_TOTAL: records over all peers */
    unsigned send_cq_depth;       /* min(GASNET_NETWORKDEPTH_TOTAL, PP * (N - 1)) as seed 003 says */
    int request_credits;          /* what this process grants each peer (the SRQ covers them) */
    struct ibv_peer *peers;       /* [size] */
    size_t reached;               /* peers this transport reaches */
    /* The shared receive queue (ibv_srq.c): rbuf_count buffers, posted up to srq_target =
     * srq_requests + srq_slack + answers_total; answers are posted on demand, one before
     * each request that will be answered (seed 003). */
    uint8_t *rbuf;
    size_t rbuf_count;
    unsigned srq_requests;        /* buffers for peers' requests: min(share, grant * reached) */
    unsigned srq_slack;           /* buffers for CREDIT messages */
    unsigned answers_cap;         /* answered ops in flight from this process, over every peer */
    unsigned answers_total;       /* answered ops in flight now (each has a buffer posted) */
    unsigned srq_posted;          /* buffers on the SRQ now */
    uint32_t *rbuf_free;          /* stack of buffers neither posted nor being handled */
    unsigned rbuf_free_count;
    uint32_t *rbuf_owner;         /* rank each buffer's message came from */
    uint32_t *rbuf_bytes;         /* length of a message waiting behind a rendezvous read */
    uint32_t *rbuf_next;          /* a peer's deferred FIFO: next buffer index + 1 */
    uint32_t *credit_due;         /* ranks owed a credit once a replacement buffer is posted */
    unsigned credit_due_count;
    int settling;                 /* ibv_msg_settle_credits is on the stack */
    uint64_t *qpn_rank;           /* sorted (qp_num << 32 | rank) of every peer's QP 0 */
    size_t qpn_count;
    uint64_t srq_refills, srq_low_water; /* for the debug line at close */
    /* bounce buffers: messages out, bounced RDMA parts */
    uint8_t *bbuf;
    unsigned bbuf_count;
    struct msg_pool bbufs;        /* which of the bbuf_count are free */
    /* send contexts */
    struct ibv_send_ctx *sctx;
    unsigned sctx_count;
    uint32_t sctx_free;           /* index + 1, 0 = none */
    /* peers owed credits: at the next progress call, those a reply did not carry them back
     * to get a CREDIT message once more than GASNET_AM_CREDITS_SLACK are owed */
    struct msg_owing owing;
    struct msg_fatal fatal;       /* a failed completion was logged: the graceful exit starts */
    /* the receive thread (ibv_rcv_thread.c), GASNET_RCV_THREAD=1 in PAR builds */
    int rcv_wanted;
    struct nal_rcv_thread rcv;
    uint64_t window_ops, messages_sent;   /* for the debug line at close */
    uint64_t rdma_parts_posted;   /* for GP_IBV_FAULT_RKEY */
    gp_mutex_t lock;
};

static inline struct ibv_state *ibv_state_of(struct nal_ni *ni)
{
    return ni->nal_state;
}

static inline int ibv_wanted(const struct ibv_state *st, int rank)
{
    return rank != st->ni->rank && (st->wanted == NULL || st->wanted[rank]);
}

static inline uint8_t *ibv_rbuf_addr(const struct ibv_state *st, uint32_t index)
{
    return st->rbuf + (size_t)index * IBV_BUF_BYTES;
}

static inline uint8_t *ibv_bbuf_addr(const struct ibv_state *st, int index)
{
    return st->bbuf + (size_t)index * IBV_BUF_BYTES;
}

/* ---- the state as a whole (ibv.c), also driven by the hybrid transport ------------------ */

/* Opens devices and ports; NULL (after saying why at the given level) when there are none. */
struct ibv_state *ibv_state_new(struct nal_ni *ni, int quiet);
/* A state with no device, for a rank that only takes part in the collective set-up. */
struct ibv_state *ibv_state_participant(struct nal_ni *ni);
void ibv_state_free(struct ibv_state *st);
/* The per-peer tables, pools and buffer bookkeeping sized from the state's depths (also the
 * message fuzzer's way to a state with no device). */
int ibv_state_alloc_peers(struct ibv_state *st);
/* Frees what ibv_state_alloc_peers made (ibv_state_free calls it). */
void ibv_state_free_peers(struct ibv_state *st);
/* Collective: registers the region, creates and connects the QPs of the wanted peers. */
int ibv_state_connect(struct ibv_state *st, const uint8_t *wanted);
void ibv_state_progress(struct ibv_state *st);
int ibv_state_put(struct ibv_state *st, const struct nal_op *op);
int ibv_state_get(struct ibv_state *st, const struct nal_op *op);
void ibv_state_close(struct ibv_state *st);
/* End-of-job lines: firehose's summary (GASNET_FIREHOSE_VERBOSE), counts at debug level. */
void ibv_state_report(struct ibv_state *st);

/* ---- ibv_dev.c ------------------------------------------------------------------------ */

int ibv_dev_open(struct ibv_state *st, int quiet);
/* Registers the region (in GASNET_PIN_MAXSZ pieces), buffers, CQs. */
int ibv_dev_register(struct ibv_state *st);
void ibv_dev_close(struct ibv_state *st);
/* The keys and bytes covered from addr for memory in the region, or 0 covered. */
uint64_t ibv_region_keys(const struct ibv_state *st, unsigned hca, const void *addr, uint64_t len,
                         uint32_t *lkey, uint32_t *rkey);
void ibv_port_describe(const struct ibv_state *st, unsigned port, struct ibv_port_wire *out);

/* ---- ibv_host.c ----------------------------------------------------------------------- */

/* nal_ops.host_report: the devices libibverbs finds here, each port's state. */
void ibv_host_report(struct nal_host_report *out);

/* ---- ibv_qp.c ------------------------------------------------------------------------- */

/* Collective: creates, exchanges and connects every wanted peer's QPs. */
int ibv_qp_setup(struct ibv_state *st);
void ibv_qp_destroy_all(struct ibv_state *st);

/* ---- ibv_srq.c ------------------------------------------------------------------------ */

/* Sizes the SRQ and the grant from the settings and st->reached (ibv_state_alloc_peers). */
void ibv_srq_size(struct ibv_state *st);
/* Creates it on the HCA of port 0 (after the buffers are registered). */
int ibv_srq_create(struct ibv_state *st);
/* Posts free buffers until srq_target is reached, IBV_SRQ_BATCH per call of the verb. */
int ibv_srq_refill(struct ibv_state *st);
/* Builds the QP-number map once every peer's QP 0 exists. */
int ibv_srq_map_qps(struct ibv_state *st);
/* The rank whose QP 0 has this number, or -1. */
int ibv_srq_rank_of(const struct ibv_state *st, uint32_t qp_num);
/* A handled buffer goes back to the free stack. */
static inline void ibv_srq_release(struct ibv_state *st, uint32_t index)
{
    st->rbuf_free[st->rbuf_free_count++] = index;
}
static inline unsigned ibv_srq_target(const struct ibv_state *st)
{
    return st->srq_requests + st->srq_slack + st->answers_total;
}

/* ---- ibv_msg.c ------------------------------------------------------------------------ */

/* The NIC primitives the shared protocol (nal/msg/) runs over ibv through; its state is st. */
extern const struct msg_nic ibv_msg_nic;
/* Its operation records' wait (record_wait; record_take and record_release are inline
 * below), which the window ops of ibv_rdma.c take too. */
int ibv_record_wait(void *nic, int rank, uint32_t id);
/* A put or get by messages (msg_put, msg_get), unless the peer has failed. */
int ibv_msg_put(struct ibv_state *st, const struct nal_op *op);
int ibv_msg_get(struct ibv_state *st, const struct nal_op *op);
/* A receive completed into buffer index (from peer st->rbuf_owner[index]). */
void ibv_msg_received(struct ibv_state *st, uint32_t index, uint32_t bytes);
/* Credits for handled requests go back once the SRQ holds their replacements. */
void ibv_msg_settle_credits(struct ibv_state *st);
/* Returns credits banked past GASNET_AM_CREDITS_SLACK that no message carried back. */
static inline void ibv_msg_flush_credits(struct ibv_state *st)
{
    if (st->owing.count > 0)
        msg_credits_flush(&st->proto, &st->owing, st->set.am_credits_slack);
}
/* A rendezvous read or a served get finished (ctx from the send CQ). */
void ibv_msg_served(struct ibv_state *st, struct ibv_send_ctx *ctx);

/* ---- ibv_rdma.c ----------------------------------------------------------------------- */

/* PTL_OK or a PTL_* error if done through the peer's window (msg_window_op); MSG_NO_WINDOW
 * if the op has no window: use messages. */
int ibv_rdma_put(struct ibv_state *st, const struct nal_op *op);
int ibv_rdma_get(struct ibv_state *st, const struct nal_op *op);
/* One part of an initiator RDMA op completed. */
void ibv_rdma_part_done(struct ibv_state *st, struct ibv_send_ctx *ctx);
/* A local key for [addr, addr+len) on hca: region, firehose, or a registration for this op
 * alone (*transient set).  Returns bytes covered (0: none, the caller bounces). */
uint64_t ibv_local_key(struct ibv_state *st, unsigned hca, const void *addr, uint64_t len,
                       uint32_t *lkey, uint32_t *rkey, struct firehose_region **pinned);

/* ---- ibv_rcv_thread.c ------------------------------------------------------------------------ */

/* Before the CQs exist: completion channels when GASNET_RCV_THREAD=1 (PAR). */
int ibv_rcv_prepare(struct ibv_state *st);
/* After the QPs are connected: arms the CQs and starts the thread. */
int ibv_rcv_start(struct ibv_state *st);
/* Stops and joins it, and takes the events left (before the CQs go). */
void ibv_rcv_stop(struct ibv_state *st);

/* ---- ibv_cq.c ------------------------------------------------------------------------- */

/* Reaps completions; returns how many. Caller holds st->lock. */
int ibv_cq_poll(struct ibv_state *st);
/* Progress (locked) until cond(st, arg) holds or the job is failing. */
void ibv_wait_locked(struct ibv_state *st, int (*cond)(struct ibv_state *, void *), void *arg);

/* Send contexts and bounce buffers (ibv_cq.c). */
struct ibv_send_ctx *ibv_sctx_get(struct ibv_state *st);
/* The same, waiting (with progress) while none is free; NULL only when the job is failing. */
struct ibv_send_ctx *ibv_sctx_take(struct ibv_state *st);
int ibv_bbuf_take(struct ibv_state *st);
void ibv_sctx_put(struct ibv_state *st, struct ibv_send_ctx *ctx);
int ibv_bbuf_get(struct ibv_state *st);
void ibv_bbuf_put(struct ibv_state *st, int index);
/* Posts one send work request on peer's QP, waiting (with progress) for room in its queue. */
int ibv_post_send_wr(struct ibv_state *st, struct ibv_peer *peer, unsigned qp_index,
                     struct ibv_send_wr *wr, struct ibv_send_ctx *ctx);

/* Operation records (ibv_msg.c over nal/inflight.c).  Take waits (with progress) for a record
 * of the peer's table and the node's budget; NULL only when the peer or the job failed. */
struct ibv_inflight *ibv_inflight_take(struct ibv_state *st, struct ibv_peer *peer, unsigned kind,
                                       const struct nal_op *op);
static inline uint32_t ibv_inflight_id(const struct ibv_peer *peer, const struct ibv_inflight *slot)
{
    return nal_inflight_id(&peer->inflight, &slot->m.rec);
}
void ibv_inflight_release(struct ibv_state *st, struct ibv_peer *peer, struct ibv_inflight *slot);
/* Progress until the op with this id has finished (or the peer failed). */
void ibv_inflight_wait(struct ibv_state *st, struct ibv_peer *peer, uint32_t id);

/* The table's record_take and record_release (struct msg_nic), inline for the window ops. */
static inline struct nal_inflight_rec *ibv_record_take(void *nic, int rank, unsigned kind,
                                                       const struct nal_op *op, uint32_t *id)
{
    struct ibv_state *st = nic;
    struct ibv_peer *peer = &st->peers[rank];
    struct ibv_inflight *slot = ibv_inflight_take(st, peer, kind, op);
    if (slot == NULL)
        return NULL;
    *id = ibv_inflight_id(peer, slot);
    return &slot->m.rec;
}

static inline void ibv_record_release(void *nic, int rank, struct nal_inflight_rec *rec)
{
    struct ibv_state *st = nic;
    ibv_inflight_release(st, &st->peers[rank], (struct ibv_inflight *)rec);
}

#endif
