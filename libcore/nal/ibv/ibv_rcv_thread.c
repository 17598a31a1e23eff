/*
 * The receive thread of the ibv transport (GASNET_RCV_THREAD=1, seed 003):
 * a thread asleep on the HCAs' completion channels.  When a completion
 * arrives -- a message from a peer, the end of a rendezvous read -- it
 * wakes and makes a progress pass, so a process that computes for a long
 * time between calls into the library still matches its peers' messages,
 * serves their gets and deposits their AMs.  (Operations on a window need
 * no thread at all: the HCA serves them.)
 *
 * As on tcp, after each pass it hands itself to the layer above outside
 * the transport's lock (ptl_ni_rcv_poll), which runs the AM handlers of
 * what arrived on this thread.  A failure a pass sees is raised at the
 * application's next progress call.  PAR builds only; SEQ refuses the
 * variable with a warning.  A failure of the thread's own -- poll(), or
 * re-arming a CQ's notification, without which it would sleep for ever --
 * ends the job with gp_fatal, called holding no lock (in a PAR build the
 * graceful exit may start on any thread).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "config/config.h"
#include "nal/ibv/ibv.h"
#include "util/log.h"

int ibv_rcv_prepare(struct ibv_state *st)
{
    st->rcv_wake_fd = -1;
    if (!gp_cfg.rcv_thread)
        return PTL_OK;
#if GP_PAR
    for (unsigned h = 0; h < st->nhcas; h++) {
        st->hca[h].channel = ibv_create_comp_channel(st->hca[h].ctx);
        if (st->hca[h].channel == NULL) {
            gp_error("ibv", "GASNET_RCV_THREAD=1: no completion channel on %s: %m",
                     st->hca[h].name);
            return PTL_FAIL;
        }
    }
    st->rcv_wanted = 1;
#else
    gp_warn("ibv", "GASNET_RCV_THREAD=1 ignored: a receive thread needs the thread-safe "
            "library (GASNET_PAR, libgp-par); this process uses the SEQ one");
#endif
    return PTL_OK;
}

#if GP_PAR
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

static void *rcv_main(void *arg)
{
    struct ibv_state *st = arg;
    struct pollfd pfds[IBV_MAX_HCAS + 1];
    for (unsigned h = 0; h < st->nhcas; h++)
        pfds[h] = (struct pollfd){ .fd = st->hca[h].channel->fd, .events = POLLIN };
    pfds[st->nhcas] = (struct pollfd){ .fd = st->rcv_wake_fd, .events = POLLIN };
    for (;;) {
        int ready = poll(pfds, st->nhcas + 1, 1000);
        if (ready < 0 && errno != EINTR)
            gp_fatal("ibv receive thread: poll on the completion channels failed: %s",
                     strerror(errno));
        if (pfds[st->nhcas].revents != 0)
            break;
        if (ready <= 0)
            continue;
        for (unsigned h = 0; h < st->nhcas; h++)
            if (pfds[h].revents)
                drain_channel(&st->hca[h]);
        /* Re-armed before the pass: a completion after it wakes us again. */
        unsigned failed = 0;
        gp_mutex_lock(&st->lock);
        int err = arm(st, &failed);
        if (!st->fatal_pending) {
            ibv_msg_flush_credits(st);
            while (ibv_cq_poll(st) > 0 && !st->fatal_pending)
                ;
        }
        gp_mutex_unlock(&st->lock);
        if (err != 0)
            gp_fatal("ibv receive thread: cannot re-arm the completion notification of %s: %s "
                     "(the thread would sleep for ever)", st->hca[failed].name, strerror(err));
        ptl_ni_rcv_poll(st->ni); /* the layer above takes what the pass queued */
    }
    return NULL;
}
#endif

int ibv_rcv_start(struct ibv_state *st)
{
    if (!st->rcv_wanted)
        return PTL_OK;
#if GP_PAR
    for (unsigned h = 0; h < st->nhcas; h++) {
        int flags = fcntl_nonblock(st->hca[h].channel->fd);
        if (flags != 0) {
            gp_error("ibv", "GASNET_RCV_THREAD=1: cannot set up the completion channel: %m");
            return PTL_FAIL;
        }
    }
    st->rcv_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (st->rcv_wake_fd < 0) {
        gp_error("ibv", "GASNET_RCV_THREAD=1: cannot set up the receive thread: %m");
        return PTL_NO_SPACE;
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
    err = pthread_create(&st->rcv_thread, NULL, rcv_main, st);
    if (err != 0) {
        gp_error("ibv", "GASNET_RCV_THREAD=1: cannot start the receive thread: %s", strerror(err));
        return PTL_FAIL;
    }
    st->rcv_running = 1;
    gp_debug("ibv", "receive thread started (GASNET_RCV_THREAD=1)");
#endif
    return PTL_OK;
}

void ibv_rcv_stop(struct ibv_state *st)
{
#if GP_PAR
    if (st->rcv_running) {
        uint64_t one = 1;
        if (write(st->rcv_wake_fd, &one, sizeof one) != (ssize_t)sizeof one)
            gp_warn("ibv", "cannot wake the receive thread: %m");
        pthread_join(st->rcv_thread, NULL);
        st->rcv_running = 0;
    }
    for (unsigned h = 0; h < st->nhcas; h++)
        if (st->hca[h].channel)
            drain_channel(&st->hca[h]);
#endif
    if (st->rcv_wake_fd >= 0)
        close(st->rcv_wake_fd);
    st->rcv_wake_fd = -1;
}
