/*
 * What the tcp transport's receive thread (GASNET_RCV_THREAD=1; its life
 * cycle is nal/rcv_thread.c) waits on and does.  It sleeps on the hot
 * sockets and the epoll set (readable when another socket is ready); a
 * pass serves peers' puts and gets on this process's region, lands AM
 * deposits in the ReqRB with their events queued and sends the ACKs and
 * replies back.
 */
#include "nal/tcp/tcp.h"

#include "nal/rcv_thread.h"

_Static_assert(TCP_HOT_MAX + 1 <= NAL_RCV_FDS_MAX, "the receive thread waits on every hot socket");

static unsigned tcp_rcv_wait_on(void *state, struct pollfd *pfds, unsigned room, int *busy)
{
    struct tcp_state *st = state;
    (void)room;
    gp_mutex_lock(&st->progress_lock);
    /* Frames already read into a stage, or held back, are work now: no sleep then. */
    *busy = tcp_work_waiting(st);
    nfds_t count = tcp_sleep_pollfds(st, pfds);
    gp_mutex_unlock(&st->progress_lock);
    return (unsigned)count;
}

static void tcp_rcv_pass(void *state, const struct pollfd *pfds, unsigned count)
{
    struct tcp_state *st = state;
    (void)pfds;
    (void)count;
    /* The pass holds one connection's lock at a time: senders to the
     * others go on while it services a socket (tcp.h, locking). */
    gp_mutex_lock(&st->progress_lock);
    tcp_progress_locked(st);
    gp_mutex_unlock(&st->progress_lock);
}

static const struct nal_rcv_ops tcp_rcv_ops = {
    .wait_on = tcp_rcv_wait_on,
    .pass = tcp_rcv_pass,
};

int tcp_rcv_start(struct tcp_state *st)
{
    if (!nal_rcv_thread_wanted("tcp"))
        return PTL_OK;
    return nal_rcv_thread_start(&st->rcv, "tcp", &tcp_rcv_ops, st, st->ni);
}

void tcp_rcv_stop(struct tcp_state *st)
{
    nal_rcv_thread_stop(&st->rcv);
}
