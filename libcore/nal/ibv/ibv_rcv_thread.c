/*
 * What the ibv transport's receive thread (GASNET_RCV_THREAD=1; its life
 * cycle is nal/rcv_thread.c) waits on and does: it sleeps on the HCAs'
 * completion channels.  When a completion arrives -- a message from a
 * peer, the end of a rendezvous read -- it makes a progress pass, so a
 * process that computes for a long time between calls into the library
 * still matches its peers' messages, serves their gets and deposits their
 * AMs.  (Operations on a window need no thread at all: the HCA serves them.)
 *
 * A failure a pass sees is raised at the application's next progress call.
 * Failing to re-arm a CQ's notification, without which the thread would
 * sleep for ever, ends the job with gp_fatal, called holding no lock (in a
 * PAR build the graceful exit may start on any thread).
 */
#include <fcntl.h>
#include <string.h>

#include "nal/ibv/ibv.h"
#include "nal/rcv_thread.h"
#include "util/log.h"

_Static_assert(IBV_MAX_HCAS <= NAL_RCV_FDS_MAX, "the receive thread waits on every HCA");

int ibv_rcv_prepare(struct ibv_state *st)
{
    if (!nal_rcv_thread_wanted("ibv"))
        return PTL_OK;
    for (unsigned h = 0; h < st->nhcas; h++) {
        st->hca[h].channel = ibv_create_comp_channel(st->hca[h].ctx);
        if (st->hca[h].channel == NULL) {
            gp_error("ibv", "GASNET_RCV_THREAD=1: no completion channel on %s: %m",
                     st->hca[h].name);
            return PTL_FAIL;
        }
    }
    st->rcv_wanted = 1;
    return PTL_OK;
}

/* The thread drains a channel without blocking: poll() said when to look. */
static int fcntl_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* 0, or the error of the first CQ that could not be armed (its HCA in *failed). */
static int arm(struct ibv_state *st, unsigned *failed)
{
    for (unsigned h = 0; h < st->nhcas; h++) {
        int err = ibv_req_notify_cq(st->hca[h].recv_cq, 0);
        if (err == 0)
            err = ibv_req_notify_cq(st->hca[h].send_cq, 0);
        if (err != 0) {
            *failed = h;
            return err;
        }
    }
    return 0;
}

/* Takes the events the channel holds (each must be acknowledged before its CQ is destroyed). */
static void drain_channel(struct ibv_hca *hca)
{
    struct ibv_cq *cq;
    void *ctx;
    while (ibv_get_cq_event(hca->channel, &cq, &ctx) == 0)
        ibv_ack_cq_events(cq, 1);
}

static unsigned ibv_rcv_wait_on(void *state, struct pollfd *pfds, unsigned room, int *busy)
{
    struct ibv_state *st = state;
    (void)room;
    *busy = 0;
    for (unsigned h = 0; h < st->nhcas; h++)
        pfds[h] = (struct pollfd){ .fd = st->hca[h].channel->fd, .events = POLLIN };
    return st->nhcas;
}

static void ibv_rcv_pass(void *state, const struct pollfd *pfds, unsigned count)
{
    struct ibv_state *st = state;
    for (unsigned h = 0; h < count; h++)
        if (pfds[h].revents)
            drain_channel(&st->hca[h]);
    /* Re-armed before the pass: a completion after it wakes us again. */
    unsigned failed = 0;
    gp_mutex_lock(&st->lock);
    int err = arm(st, &failed);
    if (!st->fatal.pending) {
        ibv_msg_flush_credits(st);
        while (ibv_cq_poll(st) > 0 && !st->fatal.pending)
            ;
    }
    gp_mutex_unlock(&st->lock);
    if (err != 0)
        gp_fatal("ibv receive thread: cannot re-arm the completion notification of %s: %s "
                 "(the thread would sleep for ever)", st->hca[failed].name, strerror(err));
}

static const struct nal_rcv_ops ibv_rcv_ops = {
    .wait_on = ibv_rcv_wait_on,
    .pass = ibv_rcv_pass,
};

int ibv_rcv_start(struct ibv_state *st)
{
    if (!st->rcv_wanted)
        return PTL_OK;
    for (unsigned h = 0; h < st->nhcas; h++) {
        if (fcntl_nonblock(st->hca[h].channel->fd) != 0) {
            gp_error("ibv", "GASNET_RCV_THREAD=1: cannot set up the completion channel: %m");
            return PTL_FAIL;
        }
    }
    unsigned failed = 0;
    gp_mutex_lock(&st->lock);
    int err = arm(st, &failed);
    gp_mutex_unlock(&st->lock);
    if (err != 0) {
        gp_error("ibv", "GASNET_RCV_THREAD=1: cannot arm the completion notification of %s: %s",
                 st->hca[failed].name, strerror(err));
        return PTL_FAIL;
    }
    return nal_rcv_thread_start(&st->rcv, "ibv", &ibv_rcv_ops, st, st->ni);
}

void ibv_rcv_stop(struct ibv_state *st)
{
    nal_rcv_thread_stop(&st->rcv);
    for (unsigned h = 0; h < st->nhcas; h++)
        if (st->hca[h].channel)
            drain_channel(&st->hca[h]);
}
