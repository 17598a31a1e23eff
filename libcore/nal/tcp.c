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
 * pass polls every socket without waiting, reads what is there, and writes
 * what is queued.  With GASNET_RCV_THREAD=1 a receive thread (tcp_rcv.c)
 * also makes passes whenever a socket is ready, while the application
 * computes.
 *
 * Operations to this process itself take the shortcut shm takes for every
 * peer: ptl_direct_put / ptl_direct_get on its own region, no socket.
 */
#include "nal/tcp.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "conduit/config.h"
#include "util/log.h"

/* Longest sleep in poll() while waiting; a wake-up only re-checks. */
#define TCP_SLEEP_MS 10

int64_t tcp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- progress ----------------------------------------------------------------- */

/* Listener, pending handshakes, live connections; owner[i] says whose pfds[i] is. */
nfds_t tcp_build_pollfds(struct tcp_state *st, struct pollfd *pfds, int *owner)
{
    nfds_t count = 0;
    /* Not polled while every pending slot is busy: it would stay readable. */
    short listen_events = tcp_conn_free_pending(st) != NULL ? POLLIN : 0;
    pfds[count] = (struct pollfd){ .fd = st->listen_fd, .events = listen_events };
    if (owner)
        owner[count] = -1;
    count++;
    for (int k = 0; k < TCP_MAX_PENDING; k++) {
        if (st->pending[k].fd < 0)
            continue;
        pfds[count] = (struct pollfd){ .fd = st->pending[k].fd, .events = POLLIN };
        if (owner)
            owner[count] = -2 - k;
        count++;
    }
    for (int rank = 0; rank < st->ni->size; rank++) {
        struct tcp_conn *conn = &st->conns[rank];
        if (conn->status != TCP_CONN_UP)
            continue;
        int readable = st->put_body_rank < 0 || st->put_body_rank == rank;
        short events = (short)((readable ? POLLIN : 0) |
                               (conn->out_tail != conn->out_head ? POLLOUT : 0));
        pfds[count] = (struct pollfd){ .fd = conn->fd, .events = events };
        if (owner)
            owner[count] = rank;
        count++;
    }
    return count;
}

static void service(struct tcp_state *st, nfds_t count)
{
    for (nfds_t i = 0; i < count; i++) {
        short revents = st->pfds[i].revents;
        int owner = st->pfd_owner[i];
        if (revents == 0)
            continue;
        if (owner == -1) {
            tcp_conn_accept(st);
        } else if (owner <= -2) {
            tcp_conn_pending_step(st, -2 - owner);
        } else {
            struct tcp_conn *conn = &st->conns[owner];
            if (revents & (POLLIN | POLLHUP | POLLERR))
                tcp_recv(st, conn);
            if (conn->status == TCP_CONN_UP && (revents & POLLOUT))
                tcp_flush(st, conn);
        }
    }
}

/* Connections whose stage holds frames already read: no poll() will report them. */
static int serve_staged(struct tcp_state *st)
{
    int any = 0;
    for (int rank = 0; rank < st->ni->size; rank++) {
        struct tcp_conn *conn = &st->conns[rank];
        if (tcp_recv_staged(conn)) {
            tcp_recv(st, conn);
            any = 1;
        }
    }
    return any;
}

void tcp_progress_locked(struct tcp_state *st)
{
    st->pass++; /* the next request to each peer is written at once again */
    nfds_t count = tcp_build_pollfds(st, st->pfds, st->pfd_owner);
    if (poll(st->pfds, count, 0) > 0)
        service(st, count);
    serve_staged(st);
    /* Answers queued by what was just read, and requests held back since the
     * last pass, go out now. */
    for (int rank = 0; rank < st->ni->size; rank++) {
        struct tcp_conn *conn = &st->conns[rank];
        if (conn->status == TCP_CONN_UP && conn->out_tail != conn->out_head)
            tcp_flush(st, conn);
    }
    tcp_conn_pending_expire(st);
}

void tcp_wait_locked(struct tcp_state *st)
{
    if (st->sleeper_busy) {
        /* PAR: another thread sleeps on the sockets; it, or we next time, will progress. */
        gp_mutex_unlock(&st->lock);
        sched_yield();
        gp_mutex_lock(&st->lock);
    } else {
        st->sleeper_busy = 1;
        nfds_t count = tcp_build_pollfds(st, st->sleep_pfds, NULL);
        /* Staged frames are work to do now: no sleep then. */
        int sleep_ms = TCP_SLEEP_MS;
        for (int rank = 0; rank < st->ni->size && sleep_ms > 0; rank++)
            if (tcp_recv_staged(&st->conns[rank]))
                sleep_ms = 0;
        gp_mutex_unlock(&st->lock);
        while (poll(st->sleep_pfds, count, sleep_ms) < 0 && errno == EINTR)
            ;
        gp_mutex_lock(&st->lock);
        st->sleeper_busy = 0;
    }
    tcp_progress_locked(st);
}

void tcp_state_progress(struct tcp_state *st)
{
    if (st->conns == NULL || st->peers_up == 0)
        return;
    /* Another thread moving data now is as good as this one doing it. */
    if (gp_mutex_trylock(&st->lock) != 0)
        return;
    tcp_progress_locked(st);
    gp_mutex_unlock(&st->lock);
}

/* ---- the state ------------------------------------------------------------------ */

void tcp_state_free(struct tcp_state *st)
{
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++)
        tcp_conn_free_queues(&st->conns[rank]);
    free(st->conns);
    free(st->pfds);
    free(st->sleep_pfds);
    free(st->pfd_owner);
    free(st->scratch);
    free(st->rcv_pfds);
    gp_mutex_destroy(&st->lock);
    free(st);
}

struct tcp_state *tcp_state_new(struct ptl_ni *ni)
{
    struct tcp_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    gp_mutex_init(&st->lock);
    st->ni = ni;
    st->listen_fd = -1;
    st->put_body_rank = -1;
    st->pass = 1; /* connections start at direct_pass 0: their first request goes at once */
    /* Seed 003's per-node cap on operations in flight; 0: only the per-peer tables' depth. */
    st->budget.cap = gp_cfg.networkdepth_total > 0 && gp_cfg.networkdepth_total < UINT32_MAX
                         ? (unsigned)gp_cfg.networkdepth_total : 0;
    for (int k = 0; k < TCP_MAX_PENDING; k++)
        st->pending[k].fd = -1;
    return st;
}

static int alloc_connections(struct tcp_state *st)
{
    int size = st->ni->size;
    size_t slots = (size_t)size + 1 + TCP_MAX_PENDING;
    st->conns = calloc((size_t)size, sizeof *st->conns);
    st->pfds = calloc(slots, sizeof *st->pfds);
    st->sleep_pfds = calloc(slots, sizeof *st->sleep_pfds);
    st->pfd_owner = calloc(slots, sizeof *st->pfd_owner);
    st->scratch = malloc(TCP_SCRATCH_BYTES);
    if (st->conns == NULL || st->pfds == NULL || st->sleep_pfds == NULL ||
        st->pfd_owner == NULL || st->scratch == NULL)
        return PTL_NO_SPACE;
    for (int rank = 0; rank < size; rank++) {
        st->conns[rank].fd = -1;
        st->conns[rank].rank = rank;
        if (tcp_wanted(st, rank) && tcp_conn_alloc_queues(&st->conns[rank], &st->budget) != PTL_OK)
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
    for (int rank = 0; st->conns != NULL && rank < st->ni->size; rank++)
        if (st->conns[rank].status == TCP_CONN_UP)
            tcp_flush(st, &st->conns[rank]);
    tcp_conn_close_all(st);
}

/* ---- the ops -------------------------------------------------------------------- */

static int tcp_progress(struct ptl_ni *ni)
{
    tcp_state_progress(tcp_state_of(ni));
    return PTL_OK;
}

static int tcp_region_create(struct ptl_ni *ni, uint64_t bytes)
{
    struct tcp_state *st = tcp_state_new(ni);
    if (st == NULL)
        return PTL_NO_SPACE;
    ni->nal_state = st;
    /* Private memory: peers reach it only through this process's progress engine. */
    void *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        gp_error("tcp", "mmap of %llu bytes for the registered region failed: %m",
                 (unsigned long long)bytes);
        tcp_state_free(st);
        ni->nal_state = NULL;
        return PTL_NO_SPACE;
    }
    ni->region = region;
    return PTL_OK;
}

static int tcp_connect(struct ptl_ni *ni)
{
    /* Only this process's own region is addressable here (ptl_direct_address). */
    ni->peer_region = calloc((size_t)ni->size, sizeof *ni->peer_region);
    if (ni->peer_region == NULL)
        return PTL_NO_SPACE;
    ni->peer_region[ni->rank] = ni->region;
    if (ni->size == 1) {
        gp_debug("tcp", "a one-process job: no sockets");
        return PTL_OK;
    }
    return tcp_state_connect(tcp_state_of(ni), NULL);
}

static int tcp_put(struct ptl_ni *ni, const struct nal_op *op)
{
    if (op->target == (unsigned)ni->rank)
        return ptl_direct_put(ni, ni->region, op);
    return tcp_send_put(tcp_state_of(ni), op);
}

static int tcp_get(struct ptl_ni *ni, const struct nal_op *op)
{
    if (op->target == (unsigned)ni->rank)
        return ptl_direct_get(ni, ni->region, op);
    return tcp_send_get(tcp_state_of(ni), op);
}

void tcp_state_report(struct tcp_state *st)
{
    /* The exit may come from a signal while this thread holds the lock: then no report. */
    if (gp_mutex_trylock(&st->lock) != 0)
        return;
    gp_debug("tcp", "at most %u operations awaited an answer at once (GASNET_NETWORKDEPTH_TOTAL=%u)",
             st->budget.peak, st->budget.cap);
    gp_mutex_unlock(&st->lock);
}

static void tcp_report(struct ptl_ni *ni)
{
    if (tcp_state_of(ni) != NULL)
        tcp_state_report(tcp_state_of(ni));
}

static void tcp_fini(struct ptl_ni *ni)
{
    struct tcp_state *st = tcp_state_of(ni);
    if (st != NULL) {
        tcp_state_close(st);
        tcp_state_free(st);
    }
    ni->nal_state = NULL;
    if (ni->region != NULL)
        munmap(ni->region, ni->region_bytes);
    ni->region = NULL;
}

const struct nal_ops nal_tcp_ops = {
    .name = "tcp",
    .region_create = tcp_region_create,
    .connect = tcp_connect,
    .put = tcp_put,
    .get = tcp_get,
    .progress = tcp_progress,
    .fini = tcp_fini,
    .report = tcp_report,
};
