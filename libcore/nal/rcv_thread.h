/*
 * The receive thread's life cycle (GASNET_RCV_THREAD=1, seed 003), one for
 * every transport that runs one (tcp, ibv, ofi).  The thread sleeps in
 * poll() on what its transport names, plus an eventfd of its own that tells
 * it to stop, at most a second at a time; when something is ready it asks
 * its transport for a progress pass, then, outside the transport's locks,
 * hands itself to the layer above (ptl_ni_rcv_poll), which runs the AM
 * handlers of what the pass queued.  A process that computes for a long
 * time between calls into the library so never stalls its peers.
 *
 * It lives in nal/, not ptl/, because transports call it and the include
 * rule (tools/check-layers.sh) lets nal/ include only what is below it.
 *
 * PAR builds only: a SEQ process promises that one thread runs inside the
 * library, and its ptl and conduit state carry no locks for a second one;
 * there the variable is refused with a warning naming the transport.  A
 * poll() that fails ends the job (gp_fatal, holding no lock: in a PAR build
 * the graceful exit may start on any thread): a thread that quietly stopped
 * would leave peers' operations unserved while this process computes.
 */
#ifndef GP_NAL_RCV_THREAD_H
#define GP_NAL_RCV_THREAD_H

#include <poll.h>
#include <pthread.h>

struct nal_ni;

/* The most descriptors a transport asks the thread to wait on. */
#define NAL_RCV_FDS_MAX 16

/* What differs between transports: what to wait on, and what a pass does. */
struct nal_rcv_ops {
    /* Fills pfds (room entries at most) with what to wait on and returns how many.  Sets
     * *busy when work is already waiting (read but not yet handled): no sleep then.
     * Called before each sleep, so the set may change between them. */
    unsigned (*wait_on)(void *transport, struct pollfd *pfds, unsigned room, int *busy);
    /* One progress pass, after poll() said pfds[0..count) (revents set) or after *busy;
     * takes and drops the transport's own locks. */
    void (*pass)(void *transport, const struct pollfd *pfds, unsigned count);
};

/* One transport's thread: zeroed means none runs (stop is then a no-op). */
struct nal_rcv_thread {
    const char *transport;          /* its name, for the messages */
    const struct nal_rcv_ops *ops;
    void *state;                    /* the transport's, handed to ops */
    struct nal_ni *ni;              /* whose layer above takes the pass's events */
    pthread_t thread;
    int wake_fd;                    /* eventfd: tells the thread to stop */
    int running;
};

/* Whether this process runs a receive thread for the transport named: GASNET_RCV_THREAD=1
 * in a PAR build.  In a SEQ build the variable is refused with a warning naming it. */
int nal_rcv_thread_wanted(const char *transport);

/* Starts the thread (the caller asked nal_rcv_thread_wanted first); PTL_OK, or an error
 * already reported, naming the transport and GASNET_RCV_THREAD. */
int nal_rcv_thread_start(struct nal_rcv_thread *rt, const char *transport,
                         const struct nal_rcv_ops *ops, void *state, struct nal_ni *ni);

/* Wakes the thread, joins it and forgets it; before what it waits on goes away. */
void nal_rcv_thread_stop(struct nal_rcv_thread *rt);

#endif
