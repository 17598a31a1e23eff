/*
 * The receive thread of the tcp transport (GASNET_RCV_THREAD=1, seed 003):
 * a thread that sleeps in poll() on the transport's hot sockets, its epoll
 * set (readable when another socket is ready) and its own wake-up eventfd
 * and, whenever
 * one is ready, makes a progress pass: peers' puts and gets on this
 * process's region are served, AM deposits land in the ReqRB with their
 * events queued, ACKs and replies go back.  Then, outside the transport's
 * locks, it hands itself to the layer above (ptl_ni_rcv_poll), which takes
 * the queued events and runs their AM handlers on this thread.  A process
 * that computes for a long time between calls into the library so never
 * stalls a peer's RMA, and never leaves a peer's AM unanswered.
 *
 * PAR builds only: a SEQ process promises that one thread runs inside the
 * library, and its ptl and conduit state carry no locks for a second one.
 * There the variable is refused with a warning.  The cost the seed warns
 * of is real: every wake-up competes for a core with the application.
 *
 * A poll() that fails ends the job (gp_fatal, holding no lock: in a PAR
 * build the graceful exit may start on any thread): a thread that quietly
 * stopped would leave peers' operations unserved while this process
 * computes, and nobody would know why.
 */
#include "nal/tcp/tcp.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "config/config.h"
#include "util/log.h"

#if GP_PAR
static void *rcv_main(void *arg)
{
    struct tcp_state *st = arg;
    for (;;) {
        struct pollfd pfds[TCP_HOT_MAX + 2];
        gp_mutex_lock(&st->progress_lock);
        int staged = tcp_work_waiting(st);
        nfds_t count = tcp_sleep_pollfds(st, pfds);
        gp_mutex_unlock(&st->progress_lock);
        pfds[count] = (struct pollfd){ .fd = st->rcv_wake_fd, .events = POLLIN };
        /* A second's sleep at most: a listener full of pending peers is not watched.
         * Frames already read into a stage, or held back, are work now: no sleep then. */
        int ready = poll(pfds, count + 1, staged ? 0 : 1000);
        if (staged && ready == 0)
            ready = 1;
        if (ready < 0 && errno != EINTR)
            gp_fatal("tcp receive thread: poll on %u sockets failed: %s", (unsigned)count + 1,
                     strerror(errno));
        if (pfds[count].revents != 0)
            break;
        if (ready <= 0)
            continue;
        /* The pass holds one connection's lock at a time: senders to the
         * others go on while it services a socket (tcp.h, locking). */
        gp_mutex_lock(&st->progress_lock);
        tcp_progress_locked(st);
        gp_mutex_unlock(&st->progress_lock);
        ptl_ni_rcv_poll(st->ni); /* the layer above takes what the pass queued */
    }
    return NULL;
}
#endif

int tcp_rcv_start(struct tcp_state *st)
{
    st->rcv_wake_fd = -1;
    if (!gp_cfg.rcv_thread)
        return PTL_OK;
#if GP_PAR
    st->rcv_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (st->rcv_wake_fd < 0) {
        gp_error("tcp", "GASNET_RCV_THREAD=1: cannot set up the receive thread: %m");
        return PTL_NO_SPACE;
    }
    int err = pthread_create(&st->rcv_thread, NULL, rcv_main, st);
    if (err != 0) {
        gp_error("tcp", "GASNET_RCV_THREAD=1: cannot start the receive thread: %s",
                 strerror(err));
        return PTL_FAIL;
    }
    st->rcv_running = 1;
    gp_debug("tcp", "receive thread started (GASNET_RCV_THREAD=1)");
#else
    gp_warn("tcp", "GASNET_RCV_THREAD=1 ignored: a receive thread needs the thread-safe "
            "library (GASNET_PAR, libgp-par); this process uses the SEQ one");
#endif
    return PTL_OK;
}

void tcp_rcv_stop(struct tcp_state *st)
{
    if (st->rcv_running) {
        uint64_t one = 1;
        if (write(st->rcv_wake_fd, &one, sizeof one) != (ssize_t)sizeof one)
            gp_warn("tcp", "cannot wake the receive thread: %m");
        pthread_join(st->rcv_thread, NULL);
        st->rcv_running = 0;
    }
    if (st->rcv_wake_fd >= 0)
        close(st->rcv_wake_fd);
    st->rcv_wake_fd = -1;
}
