/*
 * What the files of the tcp transport share (beyond nal/tcp/, only the
 * hybrid transport, which drives tcp through its state API, and the fuzz
 * target of the receive path include this).  doc/wire-tcp.md describes the protocol; this header
 * describes the state behind it.
 *
 *   tcp.c        the ops table: region, connect, put, get, progress, fini
 *   tcp_frame.c  the frame header: encoding, decoding, checks
 *   tcp_conn.c   listener, address exchange, eager set-up (dialling with the
 *                key proof), connection life cycle (failed, gone, closed)
 *   tcp_lazy.c   connections made on first use (GP_TCP_CONNECT=lazy): the
 *                non-blocking dialler, crossed dials
 *   tcp_accept.c the accepting side: key challenge state machine, strangers
 *   tcp_send.c   per-connection output ring, writev, operation records
 *                (nal/inflight.c), waiting with progress
 *   tcp_recv.c   per-connection input state machine: target-side matching,
 *                data straight into place, ACK / REPLY handling
 *   tcp_rcv_thread.c  the receive thread (GASNET_RCV_THREAD, PAR builds only)
 *   tcp_config.c the transport's configuration rows (GP_TCP_ADDR, GP_TCP_CONNECT)
 *
 * Progress: a few hot connections (those with news lately) are polled
 * directly, in one poll() with the epoll set that holds everything else
 * (the listener, the connections proving the key, the cold connections);
 * only when that set is readable does a pass call epoll_wait.  A pass then
 * services what is ready, the connections whose stage still holds frames
 * (the staged list) and those with frames to write (the dirty list).  A
 * pass with nothing to do is one poll() over at most TCP_HOT_MAX + 1
 * descriptors, whatever the number of connections, or, with at most
 * TCP_READ_FIRST_MAX hot connections, a read of each (a ping-pong then
 * costs a read and a write per message, as a raw socket's does).  POLLOUT
 * is asked for only while a connection's socket is full.
 *
 * Locking (PAR builds only; in SEQ every gp_mutex_t compiles to nothing,
 * and the atomics below are plain loads and stores on x86):
 *
 *   st->progress_lock   one progress pass at a time: the poll sets (events,
 *                       hot_pfds, sleep_pfds, sleeper_busy), the staged list,
 *                       quiet_passes, the listener and the pending handshakes,
 *                       the scratch sink, the pass counter's writes.
 *                       Progress takes it with trylock (another thread already
 *                       moving data is as good); a waiter takes it to sleep.
 *   conn->lock          everything in one struct tcp_conn: its output ring,
 *                       send arena, in-flight table and ACK FIFO, its receive
 *                       state, its dial, its status and socket.  A put or get
 *                       takes only its peer's lock; the receive thread takes
 *                       the lock of the socket it is servicing, so senders to
 *                       other peers go on meanwhile.
 *   st->small_lock      a leaf, held for a few instructions: the hot list and
 *                       each connection's hot / want_out flags (with the epoll
 *                       set's membership they decide), the dirty list, the
 *                       in-flight budget shared by all the tables, peers_up.
 *
 * Order: progress_lock, then one conn->lock, then small_lock.  No thread
 * holds two connection locks at once, and a thread holding a connection's
 * lock never waits for progress_lock: to wait (tcp_wait) it drops the
 * connection's lock first.  pass is read without locks (__atomic); a
 * stale value costs a pass, never a wrong read.  Events go
 * to the EQs' multi-producer rings, and nothing here calls back into the
 * conduit, so holding a lock while posting events is safe.  (The receive
 * thread hands itself to the layer above, ptl_ni_rcv_poll, only after
 * dropping its locks.)
 */
#ifndef GP_NAL_TCP_H
#define GP_NAL_TCP_H

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "boot/keyproof.h"
#include "boot/wire.h"
#include "nal/inflight.h"
#include "nal/rcv_thread.h"
#include "nal/upcalls.h"
#include "util/thread.h"

/* ---- frames (tcp_frame.c) ------------------------------------------------ */

#define TCP_FRAME_MAGIC 0x32747067u /* "gpt2" as a little-endian word */
#define TCP_FRAME_HDR_LEN 48

enum tcp_frame_type {
    TCP_FRAME_PUT = 1, /* initiator -> target: header + length data bytes */
    TCP_FRAME_ACK,     /* target -> initiator: the put's outcome, no data */
    TCP_FRAME_GET,     /* initiator -> target: a request, no data */
    TCP_FRAME_REPLY,   /* target -> initiator: header + length data bytes */
    TCP_FRAME_ACK_RUN, /* target -> initiator: length ACKs at once, the last for op_id */
    TCP_FRAME_TYPE_END
};

#define TCP_FLAG_ACK_REQ 0x01u /* PUT: answer with an ACK frame */
#define TCP_FLAG_EVENT   0x02u /* ACK / REPLY: post the initiator's event (else only release the op) */

struct tcp_frame {
    uint8_t type;
    uint8_t flags;
    uint32_t pt_index;
    uint32_t op_id;          /* the initiator's in-flight slot, echoed by ACK / REPLY */
    uint64_t match_bits;
    uint64_t offset;         /* PUT / GET: remote offset; ACK / REPLY: offset in the target MD */
    uint64_t hdr_data;
    uint64_t length;         /* PUT / REPLY: data bytes that follow; GET: bytes wanted; ACK: mlength */
};

void tcp_frame_encode(const struct tcp_frame *frame, uint8_t out[TCP_FRAME_HDR_LEN]);
/* 0, or -1 with *why naming what is wrong (bad magic, type, flags, reserved bits). */
int tcp_frame_decode(const uint8_t in[TCP_FRAME_HDR_LEN], struct tcp_frame *frame,
                     const char **why);
/* The data bytes a PUT header announces, read before it is decoded and checked;
 * 0 for anything but a PUT of this version.  Inline: the read path asks once or
 * twice a frame (words 0 and 5 of the layout in tcp_frame.c). */
static inline uint64_t tcp_frame_put_length(const uint8_t in[TCP_FRAME_HDR_LEN])
{
    uint64_t head, length;
    memcpy(&head, in, sizeof head);
    memcpy(&length, in + 5 * sizeof length, sizeof length);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    head = __builtin_bswap64(head);
    length = __builtin_bswap64(length);
#endif
    if ((uint32_t)head != TCP_FRAME_MAGIC || (uint8_t)(head >> 32) != TCP_FRAME_PUT)
        return 0;
    return length;
}
const char *tcp_frame_type_str(unsigned type);

/* ---- limits --------------------------------------------------------------- */

/* Operations awaiting an ACK or a REPLY, per peer.  It also bounds the
 * replies a peer can make this process queue, which is what keeps the
 * output ring from overflowing in the read path. */
#define TCP_INFLIGHT_PER_PEER 128
/* Puts and get requests queued per peer (callers wait for room). */
#define TCP_OUT_REQUESTS 128
/* Output ring size: room for every possible reply plus every request. */
#define TCP_OUT_SLOTS 256
/* Frames gathered into one sendmsg, and the iovecs they may take. */
#define TCP_WRITE_BATCH 64
#define TCP_WRITE_IOV 64
/* Puts of at most this many bytes are copied, header and data, into the
 * connection's send arena: the put returns at once, and frames queued
 * back to back leave in one sendmsg. */
#define TCP_COPY_MAX 2048
/* The send arena of a connection (a power of two). */
#define TCP_ARENA_BYTES (32u * 1024)
/* Frames (bytes) a connection holds back before it writes without waiting
 * for the next progress pass. */
#define TCP_DEFER_FRAMES 64
#define TCP_DEFER_BYTES (16u * 1024)
/* Bytes thrown away per read when a put matched nothing or was truncated. */
#define TCP_SCRATCH_BYTES (64u * 1024)
/* Readiness reports taken per epoll_wait (more wait for the next pass). */
#define TCP_EPOLL_BATCH 64
/* Connections polled directly (hot) rather than through the epoll set, and
 * the passes a hot connection may go without news before it goes back. */
#define TCP_HOT_MAX 8
#define TCP_HOT_IDLE_PASSES 4096
/* Up to this many hot connections, with nothing waiting to be written, a
 * pass reads them at once instead of asking poll() first; every
 * TCP_POLL_EVERY-th pass still polls, which looks at the epoll set too. */
#define TCP_READ_FIRST_MAX 2
#define TCP_POLL_EVERY 16
/* Incoming connections proving the key at once (more wait in the backlog). */
#define TCP_MAX_PENDING 16
/* Time for each step of eager set-up at attach, where every process is in
 * the library: generous, a loaded host may be slow.  A dial on first use has
 * no time limit: its peer may be computing (doc/wire-tcp.md, "Busy peers"). */
#define TCP_SETUP_MS 60000
/* HELLO and WELCOME payload: "gpt1", rank, size, job id. */
#define TCP_HELLO_LEN (4 + 4 + 4 + GP_BOOT_JOBID_LEN)
/* The largest handshake message a pending connection reads (the RESPONSE). */
#define TCP_PENDING_BUF (GP_WIRE_HDR_LEN + GP_KEYPROOF_RESPONSE_LEN)

_Static_assert(TCP_INFLIGHT_PER_PEER + TCP_OUT_REQUESTS <= TCP_OUT_SLOTS,
               "the output ring must hold every reply and every request");
_Static_assert((TCP_OUT_SLOTS & (TCP_OUT_SLOTS - 1)) == 0, "ring size is a power of two");
_Static_assert(TCP_DEFER_FRAMES < TCP_OUT_REQUESTS, "held-back frames never fill the request quota");
_Static_assert(TCP_DEFER_BYTES + 2 * (TCP_FRAME_HDR_LEN + TCP_COPY_MAX) <= TCP_ARENA_BYTES,
               "the arena holds what is held back, one more copied put and its wrap");
_Static_assert((TCP_ARENA_BYTES & (TCP_ARENA_BYTES - 1)) == 0, "arena size is a power of two");

/* ---- per-connection state -------------------------------------------------- */

enum tcp_out_kind {
    TCP_OUT_CONTROL,   /* ACK, REPLY without data: header only */
    TCP_OUT_GET,       /* a GET request: header only, counts as a request */
    TCP_OUT_PUT,       /* header and data; posts SEND_END once written */
    TCP_OUT_REPLY,     /* header and data; posts GET_END once written */
    TCP_OUT_COPY       /* a put copied into the arena (header and data there); SEND_END
                        * was posted when it was queued */
};

/* The target-side facts a GET_END needs, kept until the reply is written. */
struct tcp_get_served {
    struct ptl_match match;
    uint64_t match_bits;
    uint64_t rlength;
    uint32_t pt_index;
};

struct tcp_out_entry {
    uint8_t hdr[TCP_FRAME_HDR_LEN];
    const void *data;      /* TCP_OUT_COPY: the header, then the data, in the arena */
    uint64_t data_len;
    uint8_t kind;          /* enum tcp_out_kind */
    uint8_t ack_run;       /* an ACK that later ACKs may join: 1 + its EVENT flag; else 0 */
    uint32_t ack_count;    /* the ACKs it carries (an ACK_RUN when more than one) */
    uint64_t arena_end;    /* TCP_OUT_COPY: the arena's tail once this entry is written */
    union {
        struct nal_op op;  /* TCP_OUT_PUT */
        struct tcp_get_served get; /* TCP_OUT_REPLY */
    } u;
};

/* Operation records (nal/inflight.h) of the operations awaiting an ACK or a REPLY. */
enum tcp_inflight_kind { TCP_INFLIGHT_PUT = 1, TCP_INFLIGHT_GET };

/* Bytes read ahead of the frame being parsed (tcp_recv.c). */
#define TCP_STAGE_BYTES (16u * 1024)
/* A PUT of at most this many data bytes (every copied put: AM requests and
 * replies, small RMA puts) is matched only once it is whole in the stage. */
#define TCP_WHOLE_PUT_MAX TCP_COPY_MAX

_Static_assert(TCP_FRAME_HDR_LEN + TCP_WHOLE_PUT_MAX <= TCP_STAGE_BYTES,
               "a small put fits in the stage whole");

/*
 * A connection's receive state: where the bytes of the frame being read go.
 * Everything a frame left half read -- a partial header or small put in the
 * stage, a large body half in its place, the part still to drop -- is here,
 * so a peer that stops in the middle of a frame (a sender that computes
 * with the rest held in its send arena) stops only its own connection:
 * every pass goes on reading the others.  Only the scratch sink is shared,
 * and nothing is read back from it.
 */
struct tcp_rx {
    uint8_t stage[TCP_STAGE_BYTES];
    unsigned stage_pos;         /* next unparsed byte of the stage */
    unsigned stage_end;         /* bytes in the stage */
    int in_body;
    struct tcp_frame frame;
    char *dest;                 /* the matched part: region or get destination */
    uint64_t dest_left;
    uint64_t discard_left;      /* the rest: no match, truncated, or a stale get */
    int matched;
    struct ptl_match match;     /* PUT */
    struct nal_inflight_rec *op; /* REPLY */
    int drained;                /* the last read returned less than it asked for */
};

/*
 * A connection this process is dialling on first use (tcp_lazy.c): each
 * step waits for the socket in the progress engine's epoll set, so the
 * process keeps serving its listener, its other connections and its own
 * handshakes meanwhile.
 */
enum tcp_dial_step {
    TCP_DIAL_NONE = 0,      /* not dialling */
    TCP_DIAL_CONNECTING,    /* connect() in progress */
    TCP_DIAL_CHALLENGE,     /* waiting for the acceptor's CHALLENGE */
    TCP_DIAL_PROOF,         /* RESPONSE sent, waiting for its PROOF */
    TCP_DIAL_WELCOME,       /* HELLO sent, waiting for WELCOME */
    TCP_DIAL_AWAIT_PEER     /* a lower rank refused our HELLO: its own dial to us is coming */
};

#define TCP_DIAL_BUF (GP_WIRE_HDR_LEN + GP_KEYPROOF_CHALLENGE_LEN) /* the longest answer */

struct tcp_dial {
    int fd;                     /* valid from CONNECTING to WELCOME */
    uint8_t step;               /* enum tcp_dial_step */
    uint8_t superseded;         /* the peer's dial became the connection: ours ends quietly */
    uint8_t buf[TCP_DIAL_BUF];
    unsigned got;
    unsigned want;
    uint8_t proof[GP_KEYPROOF_PROOF_LEN]; /* what the acceptor must send back */
};

enum tcp_conn_status {
    TCP_CONN_NONE = 0,  /* not connected yet (or this process itself) */
    TCP_CONN_UP,
    TCP_CONN_GONE,      /* the peer closed, reset or refused it: it left in the job's exit
                         * (puts dropped, gets fail), or vanished (operations are fatal) */
    TCP_CONN_FAILED     /* closed here after an error, already logged; sends fail */
};

struct tcp_conn {
    int fd;
    int rank;
    int status;                 /* enum tcp_conn_status */
    char addr_text[64];         /* the peer's address, for messages */
    /* output: entries [out_tail, out_head) wait to be written, in order */
    struct tcp_out_entry *out;
    uint64_t out_head;
    uint64_t out_tail;          /* entries written so far: a waiter's sequence number compares to it */
    uint64_t out_partial;       /* bytes of the tail entry already written */
    unsigned out_requests;      /* puts and get requests among the queued entries */
    uint64_t out_bytes;         /* bytes of the queued entries (what a flush would write) */
    /* the send arena of copied puts: bytes [arena_tail, arena_head) in use */
    uint8_t *arena;
    uint64_t arena_head;
    uint64_t arena_tail;
    uint64_t direct_pass;       /* the progress pass in which a request was last written at once */
    /* operations awaiting an ACK or a REPLY */
    struct nal_inflight inflight;
    /* ids of the ACK_REQ puts in the order they were queued: ACKs come back in that order */
    uint32_t ack_fifo[TCP_INFLIGHT_PER_PEER];
    uint32_t ack_fifo_head;     /* next to push */
    uint32_t ack_fifo_tail;     /* the oldest put awaiting its ACK */
    uint8_t on_staged;          /* on the state's staged list */
    uint8_t on_dirty;           /* on the state's dirty list */
    uint8_t want_out;           /* EPOLLOUT asked for: the socket was full */
    uint8_t hot;                /* polled directly, out of the epoll set (st->hot) */
    uint32_t quiet_passes;      /* hot: passes since it last had news */
    struct tcp_dial dial;       /* lazy: this end dialling the peer */
    char gone_why[96];          /* GONE: how the OS said so, for the fatal line of an operation */
    /* What the writes carried, for the debug line at close (tcp.sh checks the batching). */
    uint64_t frames_written;
    uint64_t writes;
    uint64_t acks_written;      /* ACKs, an ACK_RUN counting for all it stands for */
    uint64_t ack_frames_written;
    gp_mutex_t lock;            /* guards all of the above and rx (see the top of this file) */
    struct tcp_rx rx;
};

/* A connection accepted but not yet proven (tcp_accept.c). */
struct tcp_pending {
    int fd;                     /* -1 = free */
    int waiting_hello;          /* key proven, HELLO expected */
    uint8_t nonce[GP_NONCE_LEN];
    uint8_t buf[TCP_PENDING_BUF];
    unsigned got;
    unsigned want;
    int64_t deadline_ms;
    char peer[64];
};

struct tcp_state {
    struct nal_ni *ni;
    /* wanted[rank]: reached through tcp (NULL: every peer).  The hybrid
     * transport leaves out the peers on this host, which it maps. */
    const uint8_t *wanted;
    int listen_fd;
    char listen_text[64];
    struct tcp_conn *conns;     /* [size]; conns[rank] is this process, never used */
    /* operations awaiting an answer, over every connection: GASNET_NETWORKDEPTH_TOTAL */
    struct nal_inflight_budget budget;
    int peers_up;               /* connections established */
    uint64_t pass;              /* progress passes so far: a request's first write of a pass goes at once */
    int setup_done;             /* eager: every peer connected, later arrivals are strangers;
                                 * lazy: the addresses are known, peers arrive any time */
    int lazy;                   /* GP_TCP_CONNECT=lazy: connections made on first use */
    int serving;                /* progress serves the listener (lazy, with tcp peers) */
    struct sockaddr_in *peer_addr; /* lazy: where each rank listens */
    int dialled;                /* connections this process dialled (for the close line; __atomic) */
    struct tcp_pending pending[TCP_MAX_PENDING];
    struct pollfd *pfds;        /* set-up: listener and pending */
    /* Progress (doc/wire-tcp.md, "Progress"): the epoll set; what one pass
     * was told; the owner in each report's data: a rank, or TCP_OWNER_*. */
    int epfd;
    int listen_armed;           /* the listener is in the set with EPOLLIN */
    struct epoll_event events[TCP_EPOLL_BATCH];
    int sleeper_busy;           /* a thread sleeps in poll (PAR) */
    /* Passes that polled first and that read first, and the reads first that
     * found data (the close line; written under progress_lock). */
    uint64_t passes_polled, passes_read_first, reads_first_found;
    /* Hot connections: the few that had news lately, polled directly with the
     * epoll set's fd in one poll() a pass.  A socket in an epoll set costs each
     * arriving segment a callback into the set, from the sender's CPU, on the
     * lines the receiver spins on (doc/decisions.md, "tcp: batched sends"). */
    int hot[TCP_HOT_MAX];
    int nhot;
    struct pollfd hot_pfds[TCP_HOT_MAX + 1];   /* the hot sockets, then the epoll set */
    struct pollfd sleep_pfds[TCP_HOT_MAX + 1]; /* the one sleeping thread's, unlocked */
    /* Connections whose stage holds frames (no socket will report them), and
     * connections with frames held back: each at most once, by rank. */
    int *staged;
    int nstaged;
    int *staged_work;
    int *dirty;
    int ndirty;
    char *scratch;
    gp_mutex_t progress_lock;   /* the order: progress_lock, one conn->lock, small_lock */
    gp_mutex_t small_lock;
    /* The receive thread (tcp_rcv_thread.c), when GASNET_RCV_THREAD=1. */
    struct nal_rcv_thread rcv;
    /* A peer vanished with operations awaiting its answer: found under locks,
     * raised (gp_fatal) by the next caller that holds none (__atomic). */
    int fatal_pending;
    int fatal_raised;
    char fatal_text[320];
};

/* Owners of epoll reports that are not connections (a connection's owner is its rank). */
#define TCP_OWNER_LISTENER (-1)
#define TCP_OWNER_PENDING(k) (-2 - (k))
#define TCP_OWNER_DIAL(rank) (-2 - TCP_MAX_PENDING - (rank))

static inline struct tcp_state *tcp_state_of(struct nal_ni *ni)
{
    return ni->nal_state;
}

static inline int tcp_wanted(const struct tcp_state *st, int rank)
{
    return rank != st->ni->rank && (st->wanted == NULL || st->wanted[rank]);
}

/* ---- the state as a whole (tcp.c), also driven by the hybrid transport ------ */

struct tcp_state *tcp_state_new(struct nal_ni *ni);
void tcp_state_free(struct tcp_state *st);
/* Collective: queues and sockets for the wanted peers (ni->peer_region is the caller's). */
int tcp_state_connect(struct tcp_state *st, const uint8_t *wanted);
/* One progress pass unless another thread is making one. */
void tcp_state_progress(struct tcp_state *st);
int tcp_state_put(struct tcp_state *st, const struct nal_op *op);
int tcp_state_get(struct tcp_state *st, const struct nal_op *op);
/* Flushes what the socket takes now and closes everything. */
void tcp_state_close(struct tcp_state *st);
/* End-of-job line (debug level): the most operations in flight at once. */
void tcp_state_report(struct tcp_state *st);

/* ---- tcp_conn.c ------------------------------------------------------------ */

/* Collective: listen, exchange addresses, connect every pair, prove the key. */
int tcp_conn_setup(struct tcp_state *st);
void tcp_conn_close_all(struct tcp_state *st);
/* Closes a connection after an error (logged here, naming the peer).  These
 * three, tcp_flush, tcp_recv and the queueing functions below: the caller
 * holds conn->lock. */
void tcp_conn_fail(struct tcp_state *st, struct tcp_conn *conn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The OS says the peer is gone (its end closed, reset or refused the connection):
 * it left in the job's exit, or, if this process knows of none, it vanished. */
void tcp_conn_gone(struct tcp_state *st, struct tcp_conn *conn, const char *why);
/* An operation (what: "put of 8 bytes") to conn, which is GONE, with no lock held:
 * dropped quietly (a debug line) during the job's exit, else the job ends here (gp_fatal). */
void tcp_departed(const struct tcp_conn *conn, const char *what);
/* Ends the job (gp_fatal) if a vanished peer left operations unanswered; no lock held. */
void tcp_raise_if_failed(struct tcp_state *st);
/* A proven socket becomes rank's connection. */
void tcp_adopt(struct tcp_state *st, int rank, int fd);
/* HELLO / WELCOME payloads: this end's rank; the rank of this job one names, or -1. */
void tcp_hello_pack(uint8_t out[TCP_HELLO_LEN], int rank, int size);
int tcp_hello_rank(const uint8_t in[TCP_HELLO_LEN], int size);
void tcp_sockaddr_text(const struct sockaddr_in *sin, char *out, size_t len);
void tcp_set_nodelay(int fd, const char *peer);

/* ---- tcp_lazy.c ------------------------------------------------------------- */

/* Caller holds conn->lock; conn is a wanted peer not connected yet: dials it (or
 * waits for the dial under way, or for the peer's own), running progress.
 * Returns the connection's status then (TCP_CONN_UP, or why not). */
int tcp_lazy_connect(struct tcp_state *st, struct tcp_conn *conn);
/* The epoll set reported the socket of the dial to rank (caller holds its lock). */
void tcp_dial_step(struct tcp_state *st, int rank);
/* A HELLO from rank proved the key while conn has no connection: 1 to adopt
 * it, 0 to refuse it (a crossed dial: ours, from the lower rank, survives).
 * Caller holds the rank's connection lock. */
int tcp_lazy_take_hello(struct tcp_state *st, int rank);
/* Closes the dial's socket, if any (at close, or once the peer's dial won). */
void tcp_dial_close(struct tcp_state *st, struct tcp_conn *conn);

/* ---- tcp_accept.c ---------------------------------------------------------- */

/* The listener is readable: accept what waits (peers during set-up, strangers after). */
void tcp_conn_accept(struct tcp_state *st);
/* A free slot for a connection proving the key, or NULL: then the listener is not polled. */
struct tcp_pending *tcp_conn_free_pending(struct tcp_state *st);
/* Pending connection k is readable. */
void tcp_conn_pending_step(struct tcp_state *st, int k);
/* Drops pending connections whose time to prove the key is up. */
void tcp_conn_pending_expire(struct tcp_state *st);

/* ---- tcp_send.c ------------------------------------------------------------ */

/* The output ring and the operation records (their node-wide budget: budget, or NULL). */
int tcp_conn_alloc_queues(struct tcp_conn *conn, struct nal_inflight_budget *budget);
void tcp_conn_free_queues(struct tcp_conn *conn);
/* Writes what the ring holds until the socket is full; 0, or -1 if the conn failed. */
int tcp_flush(struct tcp_state *st, struct tcp_conn *conn);
/* Queues a reply from the read path (never waits); NULL if the peer broke its limit. */
struct tcp_out_entry *tcp_queue_reply(struct tcp_conn *conn, const struct tcp_frame *frame,
                                      enum tcp_out_kind kind);
/* Queues an ACK from the read path; runnable: it may join an ACK_RUN.  -1 if the peer
 * broke its limit. */
int tcp_queue_ack(struct tcp_conn *conn, const struct tcp_frame *ack, int runnable);
/* Initiator side: queues a put or get request, waiting (with progress) for room. */
int tcp_send_put(struct tcp_state *st, const struct nal_op *op);
int tcp_send_get(struct tcp_state *st, const struct nal_op *op);
/* Empties the output ring of a connection that went away, waking its waiters. */
void tcp_conn_drain(struct tcp_state *st, struct tcp_conn *conn);

/* ---- tcp_recv.c ------------------------------------------------------------ */

/* Reads and handles what the socket holds; returns when it would block:
 * 1 if it read or handled anything, 0 if the socket had nothing. */
int tcp_recv(struct tcp_state *st, struct tcp_conn *conn);
/* Frames (or body bytes) wait in the connection's stage: poll() won't say so,
 * the socket may be empty, but tcp_recv has work. */
int tcp_recv_staged(const struct tcp_conn *conn);

/* ---- tcp.c ------------------------------------------------------------------ */

/* The epoll set: fd in (events 0: present, reporting nothing), changed, out. */
void tcp_watch(struct tcp_state *st, int fd, int owner, uint32_t events);
void tcp_watch_change(struct tcp_state *st, int fd, int owner, uint32_t events);
void tcp_unwatch(struct tcp_state *st, int fd);
/* Frames left in conn's stage: served by the next pass. */
void tcp_note_staged(struct tcp_state *st, struct tcp_conn *conn);
/* Frames held back on conn: written by the next pass. */
void tcp_note_dirty(struct tcp_state *st, struct tcp_conn *conn);
/* conn asks for EPOLLOUT (its socket is full) or stops asking. */
void tcp_want_out(struct tcp_state *st, struct tcp_conn *conn, int want);
/* conn is closing: out of the hot list or the epoll set. */
void tcp_forget(struct tcp_state *st, struct tcp_conn *conn);
/* Fills pfds (TCP_HOT_MAX + 1) for a sleep: the hot sockets and the epoll set. */
nfds_t tcp_sleep_pollfds(struct tcp_state *st, struct pollfd *pfds);

/* ---- tcp_rcv_thread.c ------------------------------------------------------------------ */

/* Starts the receive thread if GASNET_RCV_THREAD says so; PTL_OK or an error. */
int tcp_rcv_start(struct tcp_state *st);
/* Stops and joins it (before the sockets close). */
void tcp_rcv_stop(struct tcp_state *st);

/* One pass: flush, read, accept, handshakes.  Caller holds st->progress_lock only. */
void tcp_progress_locked(struct tcp_state *st);
/* Caller holds conn->lock (conn may be NULL: no lock): drops it, sleeps in
 * poll() until a socket is ready (unless another thread sleeps there), makes
 * a progress pass, takes conn->lock again. */
void tcp_wait(struct tcp_state *st, struct tcp_conn *conn);
/* Whether staged or held-back frames wait for a pass (no sleep then). */
int tcp_work_waiting(struct tcp_state *st);
/* Operation records: taken and released with the shared budget's lock. */
struct nal_inflight_rec *tcp_record_take(struct tcp_state *st, struct tcp_conn *conn,
                                         unsigned kind, const struct nal_op *op);
void tcp_record_release(struct tcp_state *st, struct tcp_conn *conn,
                        struct nal_inflight_rec *rec);
int64_t tcp_now_ms(void);

#endif
