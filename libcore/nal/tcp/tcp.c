/*
 * tcp: the transport that reaches peers through TCP sockets only (loopback
 * on one host today, across hosts later).  No peer maps this process's
 * region: the target side of every put and get runs here, in the progress
 * engine, on this process's own region (ni->region), with the same
 * ptl_target_match / ptl_target_event code shm runs in the initiator, so
 * matching, locally managed deposits, truncation, drop counting and event
 * fields are the same.  doc/wire-tcp.md describes the protocol.
 *
 * Progress is made whenever the application enters the library
 * (ptl_progress), and inside a put that waits for its data to leave: a
 * pass polls the hot sockets and the epoll set of all the others (no wait),
 * reads what is ready, and writes what is queued; its cost does not grow
 * with connections that have nothing to say.  With GASNET_RCV_THREAD=1 a receive thread (tcp_rcv_thread.c)
 * also makes passes whenever a socket is ready, while the application
 * computes.
 *
 * Operations to this process itself take the shortcut shm takes for every
 * peer: ptl_direct_put / ptl_direct_get on its own region, no socket.
 */
#include "nal/tcp/tcp.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "config/config.h"
#include "nal/private_region.h"
#include "nal/tcp/tcp_config.h"
#include "util/log.h"

/* Longest sleep in poll() while waiting; a wake-up only re-checks. */
#define TCP_SLEEP_MS 10

int64_t tcp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the epoll set ----------------------------------------------------------- */

static void watch_ctl(struct tcp_state *st, int op, int fd, int owner, uint32_t events)
{
    struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)(int64_t)owner };
    /* Cannot fail for a valid fd but for lack of kernel memory: then the job can't go on. */
    if (st->epfd >= 0 && epoll_ctl(st->epfd, op, fd, &ev) != 0)
        gp_fatal("tcp: epoll_ctl(%s) on socket %d failed: %s",
                 op == EPOLL_CTL_ADD ? "ADD" : op == EPOLL_CTL_MOD ? "MOD" : "DEL", fd,
                 strerror(errno));
}

void tcp_watch(struct tcp_state *st, int fd, int owner, uint32_t events)
{
    watch_ctl(st, EPOLL_CTL_ADD, fd, owner, events);
}

void tcp_watch_change(struct tcp_state *st, int fd, int owner, uint32_t events)
{
    watch_ctl(st, EPOLL_CTL_MOD, fd, owner, events);
}

void tcp_unwatch(struct tcp_state *st, int fd)
{
    watch_ctl(st, EPOLL_CTL_DEL, fd, 0, 0);
}

/* Caller holds progress_lock and conn->lock (the staged list is the pass's own). */
void tcp_note_staged(struct tcp_state *st, struct tcp_conn *conn)
{
    if (!conn->on_staged && st->staged != NULL && tcp_recv_staged(conn)) {
        conn->on_staged = 1;
        st->staged[st->nstaged++] = conn->rank;
    }
}

/* Caller holds conn->lock (on_dirty is the connection's; the list is shared). */
void tcp_note_dirty(struct tcp_state *st, struct tcp_conn *conn)
{
    if (!conn->on_dirty && st->dirty != NULL) {
        conn->on_dirty = 1;
        gp_mutex_lock(&st->small_lock);
        st->dirty[st->ndirty] = conn->rank;
        /* Stored atomically: a pass reads the count without the lock (tcp_work_waiting). */
        __atomic_store_n(&st->ndirty, st->ndirty + 1, __ATOMIC_RELAXED);
        gp_mutex_unlock(&st->small_lock);
    }
}

int tcp_work_waiting(struct tcp_state *st)
{
    return st->nstaged > 0 || __atomic_load_n(&st->ndirty, __ATOMIC_RELAXED) > 0;
}

/* The listener reports only while a pending slot is free: it would stay readable. */
static void arm_listener(struct tcp_state *st)
{
    int want = tcp_conn_free_pending(st) != NULL;
    if (st->listen_fd >= 0 && want != st->listen_armed) {
        tcp_watch_change(st, st->listen_fd, TCP_OWNER_LISTENER, want ? EPOLLIN : 0);
        st->listen_armed = want;
    }
}

/* ---- hot connections ---------------------------------------------------------- */

/*
 * Whether a connection's socket is in the epoll set follows its hot flag and
 * status; the flag, want_out and the hot list change only under both the
 * connection's lock and small_lock, so a sender (holding the connection's
 * lock) and a pass (reading the hot list under small_lock) agree on it.
 */

static uint32_t cold_events(const struct tcp_conn *conn)
{
    return EPOLLIN | (conn->want_out ? EPOLLOUT : 0);
}

void tcp_want_out(struct tcp_state *st, struct tcp_conn *conn, int want)
{
    if (conn->want_out == want)
        return;
    gp_mutex_lock(&st->small_lock);
    conn->want_out = (uint8_t)want;
    if (!conn->hot) /* a hot one's next poll asks for it */
        tcp_watch_change(st, conn->fd, conn->rank, cold_events(conn));
    gp_mutex_unlock(&st->small_lock);
}

/* The hot connection at index i goes back to the epoll set.  Caller holds
 * that connection's lock and small_lock. */
static void make_cold_at(struct tcp_state *st, int i)
{
    struct tcp_conn *conn = &st->conns[st->hot[i]];
    st->hot[i] = st->hot[--st->nhot];
    conn->hot = 0;
    if (conn->status == TCP_CONN_UP)
        tcp_watch(st, conn->fd, conn->rank, cold_events(conn));
}

/* rank's connection goes back to the epoll set, if it is still hot.  Caller
 * holds progress_lock only. */
static void make_cold(struct tcp_state *st, int rank)
{
    struct tcp_conn *conn = &st->conns[rank];
    gp_mutex_lock(&conn->lock);
    gp_mutex_lock(&st->small_lock);
    for (int i = 0; i < st->nhot; i++)
        if (st->hot[i] == rank) {
            make_cold_at(st, i);
            break;
        }
    gp_mutex_unlock(&st->small_lock);
    gp_mutex_unlock(&conn->lock);
}

/* Makes room in the hot list (the quietest goes).  Caller holds progress_lock only. */
static void hot_make_room(struct tcp_state *st)
{
    gp_mutex_lock(&st->small_lock);
    int quietest = -1;
    if (st->nhot == TCP_HOT_MAX) {
        quietest = st->hot[0];
        for (int i = 1; i < st->nhot; i++)
            if (st->conns[st->hot[i]].quiet_passes > st->conns[quietest].quiet_passes)
                quietest = st->hot[i];
    }
    gp_mutex_unlock(&st->small_lock);
    if (quietest >= 0)
        make_cold(st, quietest);
}

/* conn had news: polled directly from now on.  Caller holds progress_lock and
 * conn->lock, and made room (hot_make_room) before taking conn->lock. */
static void make_hot(struct tcp_state *st, struct tcp_conn *conn)
{
    gp_mutex_lock(&st->small_lock);
    if (!conn->hot && conn->status == TCP_CONN_UP && st->nhot < TCP_HOT_MAX) {
        tcp_unwatch(st, conn->fd);
        conn->hot = 1;
        conn->quiet_passes = 0;
        st->hot[st->nhot++] = conn->rank;
    }
    gp_mutex_unlock(&st->small_lock);
}

/* Caller holds conn->lock. */
void tcp_forget(struct tcp_state *st, struct tcp_conn *conn)
{
    gp_mutex_lock(&st->small_lock);
    if (!conn->hot) {
        tcp_unwatch(st, conn->fd);
    } else {
        for (int i = 0; i < st->nhot; i++)
            if (st->hot[i] == conn->rank) {
                st->hot[i] = st->hot[--st->nhot];
                break;
            }
        conn->hot = 0;
    }
    gp_mutex_unlock(&st->small_lock);
}

/* The hot sockets, then the epoll set (readable when a member is ready); the
 * ranks polled go to hot[].  A connection closed after this (its socket gone
 * from the list) is skipped when its report is read: it is no longer hot. */
static nfds_t hot_pollfds(struct tcp_state *st, struct pollfd *pfds, int *hot)
{
    gp_mutex_lock(&st->small_lock);
    int nhot = st->nhot;
    for (int i = 0; i < nhot; i++) {
        const struct tcp_conn *conn = &st->conns[st->hot[i]];
        if (hot != NULL)
            hot[i] = conn->rank;
        pfds[i] = (struct pollfd){ .fd = conn->fd,
                                   .events = (short)(POLLIN | (conn->want_out ? POLLOUT : 0)) };
    }
    gp_mutex_unlock(&st->small_lock);
    pfds[nhot] = (struct pollfd){ .fd = st->epfd, .events = POLLIN };
    return (nfds_t)nhot + 1;
}

nfds_t tcp_sleep_pollfds(struct tcp_state *st, struct pollfd *pfds)
{
    return hot_pollfds(st, pfds, NULL);
}

/* ---- progress ----------------------------------------------------------------- */

/* Caller holds progress_lock and conn->lock. */
static void service_conn(struct tcp_state *st, struct tcp_conn *conn, int readable, int writable)
{
    if (readable)
        tcp_recv(st, conn);
    if (conn->status != TCP_CONN_UP)
        return;
    if (writable && conn->out_tail != conn->out_head)
        tcp_note_dirty(st, conn);
    tcp_note_staged(st, conn);
    /* Answers queued by what was just read go out at the end of the pass. */
    if (conn->out_tail != conn->out_head)
        tcp_note_dirty(st, conn);
}

/* What the epoll set reported: the listener, pending handshakes, cold connections. */
static void service_cold(struct tcp_state *st, int count)
{
    for (int i = 0; i < count; i++) {
        uint32_t revents = st->events[i].events;
        int owner = (int)(int64_t)st->events[i].data.u64;
        if (owner == TCP_OWNER_LISTENER) {
            tcp_conn_accept(st);
        } else if (owner < 0) {
            int k = -2 - owner;
            if (k < TCP_MAX_PENDING && st->pending[k].fd >= 0) {
                tcp_conn_pending_step(st, k);
            } else if (k >= TCP_MAX_PENDING && k - TCP_MAX_PENDING < st->ni->size) {
                struct tcp_conn *conn = &st->conns[k - TCP_MAX_PENDING];
                gp_mutex_lock(&conn->lock);
                tcp_dial_step(st, conn->rank);
                gp_mutex_unlock(&conn->lock);
            }
        } else if (owner < st->ni->size) {
            struct tcp_conn *conn = &st->conns[owner];
            gp_mutex_lock(&conn->lock);
            int wanted = conn->status == TCP_CONN_UP && !conn->hot;
            gp_mutex_unlock(&conn->lock);
            if (!wanted)
                continue;
            hot_make_room(st);
            gp_mutex_lock(&conn->lock);
            if (conn->status == TCP_CONN_UP && !conn->hot) {
                make_hot(st, conn);
                service_conn(st, conn, (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0,
                             (revents & EPOLLOUT) != 0);
            }
            gp_mutex_unlock(&conn->lock);
        }
    }
}

/*
 * A pass over one or two hot connections with nothing to write reads them
 * at once: the read that finds data saves the poll() before it, which is a
 * system call on every message a ping-pong receives, and the one that finds
 * nothing costs what that poll() would have.  The epoll set (the listener,
 * handshakes, cold connections) waits for the next pass that polls, at most
 * TCP_POLL_EVERY passes away.
 */
static int read_first(struct tcp_state *st, const int *hot, int nhot)
{
    if (nhot == 0 || nhot > TCP_READ_FIRST_MAX ||
        __atomic_load_n(&st->pass, __ATOMIC_RELAXED) % TCP_POLL_EVERY == 0)
        return 0;
    for (int i = 0; i < nhot; i++)
        if (st->hot_pfds[i].events & POLLOUT)
            return 0; /* a full socket's POLLOUT needs the poll() */
    for (int i = 0; i < nhot; i++) {
        struct tcp_conn *conn = &st->conns[hot[i]];
        gp_mutex_lock(&conn->lock);
        if (conn->hot && conn->status == TCP_CONN_UP) {
            if (tcp_recv(st, conn)) {
                st->reads_first_found++;
                conn->quiet_passes = 0;
                service_conn(st, conn, 0, 0);
            } else {
                conn->quiet_passes++;
            }
        }
        gp_mutex_unlock(&conn->lock);
    }
    st->passes_read_first++;
    return 1;
}

/* One poll() over the hot sockets and the epoll set; then whatever is ready. */
static void poll_first(struct tcp_state *st, const int *hot, int nhot, nfds_t count)
{
    st->passes_polled++;
    if (poll(st->hot_pfds, count, 0) <= 0) {
        for (int i = 0; i < nhot; i++)
            st->conns[hot[i]].quiet_passes++;
        return;
    }
    for (int i = 0; i < nhot; i++) {
        struct tcp_conn *conn = &st->conns[hot[i]];
        short revents = st->hot_pfds[i].revents;
        if (revents == 0) {
            conn->quiet_passes++;
            continue;
        }
        gp_mutex_lock(&conn->lock);
        if (conn->hot && conn->status == TCP_CONN_UP) {
            conn->quiet_passes = 0;
            service_conn(st, conn, (revents & (POLLIN | POLLHUP | POLLERR)) != 0,
                         (revents & POLLOUT) != 0);
        }
        gp_mutex_unlock(&conn->lock);
    }
    if (st->hot_pfds[nhot].revents) {
        int ready = epoll_wait(st->epfd, st->events, TCP_EPOLL_BATCH, 0);
        if (ready > 0)
            service_cold(st, ready);
    }
}

static void service(struct tcp_state *st)
{
    int hot[TCP_HOT_MAX];
    nfds_t count = hot_pollfds(st, st->hot_pfds, hot);
    int nhot = (int)count - 1;
    if (!read_first(st, hot, nhot))
        poll_first(st, hot, nhot, count);
    /* A hot connection quiet for long goes back to the set. */
    for (int i = 0; i < nhot; i++)
        if (st->conns[hot[i]].quiet_passes > TCP_HOT_IDLE_PASSES)
            make_cold(st, hot[i]);
}

/* Connections whose stage holds frames already read: no socket will report them. */
static void serve_staged(struct tcp_state *st)
{
    int count = st->nstaged;
    memcpy(st->staged_work, st->staged, (size_t)count * sizeof *st->staged);
    st->nstaged = 0;
    for (int i = 0; i < count; i++) {
        struct tcp_conn *conn = &st->conns[st->staged_work[i]];
        gp_mutex_lock(&conn->lock);
        conn->on_staged = 0;
        if (tcp_recv_staged(conn))
            service_conn(st, conn, 1, 0);
        gp_mutex_unlock(&conn->lock);
    }
}

/* Connections with frames to write: answers read this pass, requests held back. */
static void flush_dirty(struct tcp_state *st)
{
    int *work = st->staged_work; /* free again: serve_staged is done */
    gp_mutex_lock(&st->small_lock);
    int count = st->ndirty;
    memcpy(work, st->dirty, (size_t)count * sizeof *work);
    __atomic_store_n(&st->ndirty, 0, __ATOMIC_RELAXED);
    gp_mutex_unlock(&st->small_lock);
    for (int i = 0; i < count; i++) {
        struct tcp_conn *conn = &st->conns[work[i]];
        gp_mutex_lock(&conn->lock);
        /* Cleared under the lock before the flush: a frame queued after it
         * puts the connection on the list again, or is written by this flush. */
        conn->on_dirty = 0;
        /* What the socket does not take now waits for POLLOUT (tcp_flush asks for it). */
        if (conn->status == TCP_CONN_UP && conn->out_tail != conn->out_head)
            tcp_flush(st, conn);
        gp_mutex_unlock(&conn->lock);
    }
}

void tcp_progress_locked(struct tcp_state *st)
{
    /* The next request to each peer is written at once again. */
    __atomic_store_n(&st->pass, st->pass + 1, __ATOMIC_RELAXED);
    service(st);
    if (st->nstaged > 0)
        serve_staged(st);
    /* Answers queued by what was just read, and requests held back since the
     * last pass, go out now. */
    if (__atomic_load_n(&st->ndirty, __ATOMIC_RELAXED) > 0)
        flush_dirty(st);
    if (!st->listen_armed)
        arm_listener(st);
    /* Deadlines of seconds, and a look walks every slot: every
     * TCP_POLL_EVERY-th pass looks (each of them polls the epoll set, where
     * the handshakes are served), not every pass. */
    if (st->pass % TCP_POLL_EVERY == 0)
        tcp_conn_pending_expire(st);
}

void tcp_wait(struct tcp_state *st, struct tcp_conn *conn)
{
    if (conn != NULL)
        gp_mutex_unlock(&conn->lock);
    gp_mutex_lock(&st->progress_lock);
    if (st->sleeper_busy) {
        /* PAR: another thread sleeps on the sockets; it, or we next time, will progress. */
        gp_mutex_unlock(&st->progress_lock);
        sched_yield();
        gp_mutex_lock(&st->progress_lock);
    } else {
        st->sleeper_busy = 1;
        /* Staged frames and held-back frames are work to do now: no sleep then. */
        int sleep_ms = tcp_work_waiting(st) ? 0 : TCP_SLEEP_MS;
        nfds_t count = hot_pollfds(st, st->sleep_pfds, NULL);
        gp_mutex_unlock(&st->progress_lock);
        while (poll(st->sleep_pfds, count, sleep_ms) < 0 && errno == EINTR)
            ;
        gp_mutex_lock(&st->progress_lock);
        st->sleeper_busy = 0;
    }
    tcp_progress_locked(st);
    gp_mutex_unlock(&st->progress_lock);
    if (conn != NULL)
        gp_mutex_lock(&conn->lock);
}

void tcp_state_progress(struct tcp_state *st)
{
    /* Lazy: the listener is served from the start, peers dial in any time. */
    if (st->conns == NULL ||
        (__atomic_load_n(&st->peers_up, __ATOMIC_RELAXED) == 0 && !st->serving))
        return;
    /* Another thread moving data now is as good as this one doing it. */
    if (gp_mutex_trylock(&st->progress_lock) != 0)
        return;
    tcp_progress_locked(st);
    gp_mutex_unlock(&st->progress_lock);
    /* Here, holding no lock: a pass may have found a peer vanished with operations unanswered. */
    tcp_raise_if_failed(st);
}

/* ---- the state ------------------------------------------------------------------ */

void tcp_state_free(struct tcp_state *st)
{
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++) {
        tcp_conn_free_queues(&st->conns[rank]);
        gp_mutex_destroy(&st->conns[rank].lock);
    }
    free(st->conns);
    free(st->pfds);
    free(st->staged);
    free(st->staged_work);
    free(st->dirty);
    free(st->scratch);
    free(st->peer_addr);
    if (st->epfd >= 0)
        close(st->epfd);
    gp_mutex_destroy(&st->progress_lock);
    gp_mutex_destroy(&st->small_lock);
    free(st);
}

struct tcp_state *tcp_state_new(struct nal_ni *ni)
{
    struct tcp_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    gp_mutex_init(&st->progress_lock);
    gp_mutex_init(&st->small_lock);
    st->ni = ni;
    st->listen_fd = -1;
    st->epfd = -1;
    st->pass = 1; /* connections start at direct_pass 0: their first request goes at once */
    st->lazy = tcp_cfg.gp_tcp_connect == NULL || strcmp(tcp_cfg.gp_tcp_connect, "eager") != 0;
    /* Seed 003's per-node cap on operations in flight; 0: only the per-peer tables' depth.
     * An ibv row that tcp reads too: by name, through the table. */
    int64_t depth_total = gp_config_int("GASNET_NETWORKDEPTH_TOTAL");
    st->budget.cap = depth_total > 0 && depth_total < UINT32_MAX ? (unsigned)depth_total : 0;
    for (int k = 0; k < TCP_MAX_PENDING; k++)
        st->pending[k].fd = -1;
    return st;
}

static int alloc_connections(struct tcp_state *st)
{
    int size = st->ni->size;
    st->conns = calloc((size_t)size, sizeof *st->conns);
    st->pfds = calloc(1 + TCP_MAX_PENDING, sizeof *st->pfds);
    st->staged = calloc((size_t)size, sizeof *st->staged);
    st->staged_work = calloc((size_t)size, sizeof *st->staged_work);
    st->dirty = calloc((size_t)size, sizeof *st->dirty);
    st->scratch = malloc(TCP_SCRATCH_BYTES);
    if (st->conns == NULL || st->pfds == NULL || st->staged == NULL || st->staged_work == NULL ||
        st->dirty == NULL || st->scratch == NULL)
        return PTL_NO_SPACE;
    st->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (st->epfd < 0) {
        gp_error("tcp", "epoll_create1 failed: %m");
        return PTL_FAIL;
    }
    for (int rank = 0; rank < size; rank++) {
        gp_mutex_init(&st->conns[rank].lock);
        st->conns[rank].fd = -1;
        st->conns[rank].rank = rank;
        if (!st->lazy && tcp_wanted(st, rank) &&
            tcp_conn_alloc_queues(&st->conns[rank], &st->budget) != PTL_OK)
            return PTL_NO_SPACE;
    }
    return PTL_OK;
}

int tcp_state_connect(struct tcp_state *st, const uint8_t *wanted)
{
    st->wanted = wanted;
    int rc = alloc_connections(st);
    if (rc != PTL_OK)
        return rc;
    /* Collective: a rank with no tcp peer still takes part in the address
     * exchange, so every rank of the job calls it or none does. */
    rc = tcp_conn_setup(st);
    return rc == PTL_OK ? tcp_rcv_start(st) : rc;
}

int tcp_state_put(struct tcp_state *st, const struct nal_op *op)
{
    return tcp_send_put(st, op);
}

int tcp_state_get(struct tcp_state *st, const struct nal_op *op)
{
    return tcp_send_get(st, op);
}

void tcp_state_close(struct tcp_state *st)
{
    tcp_rcv_stop(st);
    /* Best effort: answers still queued go out if the socket takes them now. */
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++) {
        struct tcp_conn *conn = &st->conns[rank];
        gp_mutex_lock(&conn->lock);
        if (conn->status == TCP_CONN_UP)
            tcp_flush(st, conn);
        gp_mutex_unlock(&conn->lock);
    }

    tcp_conn_close_all(st);
}

/* ---- the ops -------------------------------------------------------------------- */

static int tcp_progress(struct nal_ni *ni)
{
    tcp_state_progress(tcp_state_of(ni));
    return PTL_OK;
}

static int tcp_region_create(struct nal_ni *ni, uint64_t bytes)
{
    struct tcp_state *st = tcp_state_new(ni);
    if (st == NULL)
        return PTL_NO_SPACE;
    ni->nal_state = st;
    /* Private memory: peers reach it only through this process's progress engine. */
    if (nal_private_region(ni, bytes, 0, "tcp") != PTL_OK) {
        tcp_state_free(st);
        ni->nal_state = NULL;
        return PTL_NO_SPACE;
    }
    return PTL_OK;
}

static int tcp_connect(struct nal_ni *ni)
{
    if (nal_own_region_only(ni) != PTL_OK)
        return PTL_NO_SPACE;
    if (ni->size == 1) {
        gp_debug("tcp", "a one-process job: no sockets");
        return PTL_OK;
    }
    return tcp_state_connect(tcp_state_of(ni), NULL);
}

static int tcp_put(struct nal_ni *ni, const struct nal_op *op)
{
    if (op->target == (unsigned)ni->rank)
        return ptl_direct_put(ni, ni->region, op);
    return tcp_send_put(tcp_state_of(ni), op);
}

/* Every put leaves the source buffer before it returns (tcp_send.c): each may be counted. */
static int tcp_counts_puts(struct nal_ni *ni, unsigned target)
{
    (void)ni;
    (void)target;
    return 1;
}

static int tcp_get(struct nal_ni *ni, const struct nal_op *op)
{
    if (op->target == (unsigned)ni->rank)
        return ptl_direct_get(ni, ni->region, op);
    return tcp_send_get(tcp_state_of(ni), op);
}

void tcp_state_report(struct tcp_state *st)
{
    /* The exit may come from a signal while this thread holds a lock: then no report. */
    if (gp_mutex_trylock(&st->small_lock) != 0)
        return;
    unsigned peak = st->budget.peak;
    gp_mutex_unlock(&st->small_lock);
    uint64_t frames = 0, writes = 0, acks = 0, ack_frames = 0;
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++) {
        struct tcp_conn *conn = &st->conns[rank];
        if (gp_mutex_trylock(&conn->lock) != 0)
            return;
        frames += conn->frames_written;
        writes += conn->writes;
        acks += conn->acks_written;
        ack_frames += conn->ack_frames_written;
        gp_mutex_unlock(&conn->lock);
    }
    gp_debug("tcp", "at most %u operations awaited an answer at once (GASNET_NETWORKDEPTH_TOTAL=%u)",
             peak, st->budget.cap);
    gp_debug("tcp", "%d connections (%d dialled on first use, GP_TCP_CONNECT=%s)",
             __atomic_load_n(&st->peers_up, __ATOMIC_RELAXED),
             __atomic_load_n(&st->dialled, __ATOMIC_RELAXED), st->lazy ? "lazy" : "eager");
    gp_debug("tcp", "wrote %llu frames in %llu sendmsg calls; %llu ACKs in %llu frames",
             (unsigned long long)frames, (unsigned long long)writes, (unsigned long long)acks,
             (unsigned long long)ack_frames);
    gp_debug("tcp", "progress: %llu passes polled first, %llu read first (%llu of their reads "
             "found data)", (unsigned long long)st->passes_polled,
             (unsigned long long)st->passes_read_first, (unsigned long long)st->reads_first_found);
}

static void tcp_report(struct nal_ni *ni)
{
    if (tcp_state_of(ni) != NULL)
        tcp_state_report(tcp_state_of(ni));
}

static void tcp_fini(struct nal_ni *ni)
{
    struct tcp_state *st = tcp_state_of(ni);
    if (st != NULL) {
        tcp_state_close(st);
        tcp_state_free(st);
    }
    ni->nal_state = NULL;
    nal_private_region_free(ni);
}

/* ---- serving the peers the hybrid routes here (nal_peer_ops) -------------------- */

static int tcp_host_may_serve(enum nal_serving how)
{
    (void)how;
    return 1; /* every host has sockets */
}

static void *tcp_peers_open(struct nal_ni *ni, enum nal_serving how)
{
    (void)how; /* a rank that reaches nobody by tcp still listens for the set-up */
    return tcp_state_new(ni);
}

static int tcp_peers_connect(void *st, const uint8_t *wanted) { return tcp_state_connect(st, wanted); }
static int tcp_peers_put(void *st, const struct nal_op *op) { return tcp_state_put(st, op); }
static int tcp_peers_get(void *st, const struct nal_op *op) { return tcp_state_get(st, op); }
static void tcp_peers_progress(void *st) { tcp_state_progress(st); }
static void tcp_peers_close(void *st) { tcp_state_close(st); }
static void tcp_peers_free(void *st) { tcp_state_free(st); }
static void tcp_peers_report(void *st) { tcp_state_report(st); }

static const struct nal_peer_ops tcp_peer_ops = {
    .host_may_serve = tcp_host_may_serve,
    .open = tcp_peers_open,
    .connect = tcp_peers_connect,
    .put = tcp_peers_put,
    .get = tcp_peers_get,
    .counts_puts = 1,
    .progress = tcp_peers_progress,
    .close = tcp_peers_close,
    .free = tcp_peers_free,
    .report = tcp_peers_report,
};

const struct nal_ops nal_tcp_ops = {
    .name = "tcp",
    .title = "TCP",
    .config_group = &tcp_cfg_group,
    .user_selectable = 1,
    .peers = &tcp_peer_ops,
    .region_create = tcp_region_create,
    .connect = tcp_connect,
    .put = tcp_put,
    .get = tcp_get,
    .counts_puts = tcp_counts_puts,
    .progress = tcp_progress,
    .fini = tcp_fini,
    .report = tcp_report,
};
