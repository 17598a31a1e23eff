/*
 * The receive thread's life cycle (rcv_thread.h): start, the sleep, the
 * stop.  The transports say what to wait on and what a pass does.
 */
#include "nal/rcv_thread.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "config/config.h"
#include "nal/upcalls.h"
#include "util/log.h"

int nal_rcv_thread_wanted(const char *transport)
{
    if (!gp_cfg.rcv_thread)
        return 0;
#if GP_PAR
    (void)transport;
    return 1;
#else
    gp_warn(transport, "GASNET_RCV_THREAD=1 ignored: a receive thread needs the thread-safe "
            "library (GASNET_PAR, libgp-par); this process uses the SEQ one");
    return 0;
#endif
}

#if GP_PAR
static void *rcv_main(void *arg)
{
    struct nal_rcv_thread *rt = arg;
    for (;;) {
        struct pollfd pfds[NAL_RCV_FDS_MAX + 1];
        int busy = 0;
        unsigned count = rt->ops->wait_on(rt->state, pfds, NAL_RCV_FDS_MAX, &busy);
        pfds[count] = (struct pollfd){ .fd = rt->wake_fd, .events = POLLIN };
        /* A second's sleep at most: not everything a transport owes work to has a
         * descriptor (tcp's listener full of pending peers is not watched). */
        int ready = poll(pfds, count + 1, busy ? 0 : 1000);
        if (ready < 0 && errno != EINTR)
            gp_fatal("%s receive thread: poll on %u descriptors failed: %s", rt->transport,
                     count + 1, strerror(errno));
        if (ready > 0 && pfds[count].revents != 0)
            break;
        if (ready <= 0 && !busy)
            continue;
        rt->ops->pass(rt->state, pfds, count);
        ptl_ni_rcv_poll(rt->ni); /* the layer above takes what the pass queued */
    }
    return NULL;
}
#endif

int nal_rcv_thread_start(struct nal_rcv_thread *rt, const char *transport,
                         const struct nal_rcv_ops *ops, void *state, struct nal_ni *ni)
{
    *rt = (struct nal_rcv_thread){ .transport = transport, .ops = ops, .state = state,
                                   .ni = ni, .wake_fd = -1 };
#if GP_PAR
    rt->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (rt->wake_fd < 0) {
        gp_error(transport, "GASNET_RCV_THREAD=1: cannot set up the receive thread: %m");
        return PTL_NO_SPACE;
    }
    int err = pthread_create(&rt->thread, NULL, rcv_main, rt);
    if (err != 0) {
        gp_error(transport, "GASNET_RCV_THREAD=1: cannot start the receive thread: %s",
                 strerror(err));
        close(rt->wake_fd);
        rt->wake_fd = -1;
        return PTL_FAIL;
    }
    rt->running = 1;
    gp_debug(transport, "receive thread started (GASNET_RCV_THREAD=1)");
    return PTL_OK;
#else
    gp_error(transport, "GASNET_RCV_THREAD=1: a receive thread needs the thread-safe library");
    return PTL_FAIL;
#endif
}

void nal_rcv_thread_stop(struct nal_rcv_thread *rt)
{
    if (!rt->running)
        return;
    uint64_t one = 1;
    if (write(rt->wake_fd, &one, sizeof one) != (ssize_t)sizeof one)
        gp_warn(rt->transport, "cannot wake the receive thread: %m");
    pthread_join(rt->thread, NULL);
    close(rt->wake_fd);
    rt->wake_fd = -1;
    rt->running = 0;
}
