/*
 * What the ofi transport's receive thread (GASNET_RCV_THREAD=1, PAR builds;
 * its life cycle is nal/rcv_thread.c) waits on and does.  It sleeps on the
 * wait descriptors of the two CQs (FI_WAIT_FD, fi_control FI_GETWAIT),
 * after fi_trywait said that sleeping is safe: under manual progress a
 * provider moves data only when asked, so the fd may show nothing while
 * completions wait to be read, and fi_trywait says so (-FI_EAGAIN: a pass
 * first).  A pass is the application's progress pass: the CQs, finished
 * served operations, credits.  A failure a pass sees is raised at the
 * application's next progress call, as on ibv.
 *
 * Not every provider has a descriptor to offer (the CQ is then opened with
 * no wait object, as without the thread): the variable is then ignored with
 * a warning naming the provider and GASNET_RCV_THREAD, and progress comes
 * from the application's calls alone.
 */
#include "nal/ofi/ofi.h"

#include "nal/rcv_thread.h"
#include "util/log.h"

/* The thread is ignored on this provider: why, in words. */
static void not_here(struct ofi_state *st, const char *why, int rc)
{
    gp_warn("ofi", "GASNET_RCV_THREAD=1 ignored: provider %s %s (%s); progress comes only "
            "from the application's calls", st->info->fabric_attr->prov_name, why,
            fi_strerror(rc < 0 ? -rc : rc));
    st->rcv_wanted = 0;
}

void ofi_rcv_prepare(struct ofi_state *st)
{
    st->rcv_wanted = nal_rcv_thread_wanted("ofi");
}

int ofi_rcv_cq_open(struct ofi_state *st, struct fi_cq_attr *attr, struct fid_cq **cq)
{
    attr->wait_obj = FI_WAIT_NONE;
    if (st->rcv_wanted) {
        attr->wait_obj = FI_WAIT_FD;
        int rc = fi_cq_open(st->domain, attr, cq, NULL);
        if (rc == 0)
            return 0;
        not_here(st, "opens no completion queue with a file descriptor to wait on (FI_WAIT_FD)",
                 rc);
        attr->wait_obj = FI_WAIT_NONE;
    }
    return fi_cq_open(st->domain, attr, cq, NULL);
}

static unsigned ofi_rcv_wait_on(void *state, struct pollfd *pfds, unsigned room, int *busy)
{
    struct ofi_state *st = state;
    (void)room;
    struct fid *fids[2] = { &st->tx_cq->fid, &st->rx_cq->fid };
    gp_mutex_lock(&st->lock);
    /* -FI_EAGAIN: completions (or provider work) wait already; the fds may not show them.
     * Nor do receives a wait for a buffer read from the CQ and left for the next pass
     * (ofi_cq.c): those are a pass's work too. */
    *busy = st->received_count > 0 || fi_trywait(st->fabric, fids, 2) != FI_SUCCESS;
    gp_mutex_unlock(&st->lock);
    for (unsigned i = 0; i < 2; i++)
        pfds[i] = (struct pollfd){ .fd = st->rcv_fds[i], .events = POLLIN };
    return 2;
}

static void ofi_rcv_pass(void *state, const struct pollfd *pfds, unsigned count)
{
    struct ofi_state *st = state;
    (void)pfds;
    (void)count;
    gp_mutex_lock(&st->lock);
    ofi_progress_locked(st);
    gp_mutex_unlock(&st->lock);
}

static const struct nal_rcv_ops ofi_rcv_ops = {
    .wait_on = ofi_rcv_wait_on,
    .pass = ofi_rcv_pass,
};

int ofi_rcv_start(struct ofi_state *st)
{
    if (!st->rcv_wanted || st->ep == NULL)
        return PTL_OK;
    struct fid_cq *cqs[2] = { st->tx_cq, st->rx_cq };
    for (unsigned i = 0; i < 2; i++) {
        int rc = fi_control(&cqs[i]->fid, FI_GETWAIT, &st->rcv_fds[i]);
        if (rc != 0) {
            not_here(st, "gives no file descriptor for its completion queue (FI_GETWAIT)", rc);
            return PTL_OK;
        }
    }
    /* A provider whose trywait cannot say "sleep" would keep the thread spinning. */
    struct fid *fids[2] = { &st->tx_cq->fid, &st->rx_cq->fid };
    gp_mutex_lock(&st->lock);
    int rc = fi_trywait(st->fabric, fids, 2);
    gp_mutex_unlock(&st->lock);
    if (rc != FI_SUCCESS && rc != -FI_EAGAIN) {
        not_here(st, "cannot say when sleeping on its completion queues is safe (fi_trywait)", rc);
        return PTL_OK;
    }
    return nal_rcv_thread_start(&st->rcv, "ofi", &ofi_rcv_ops, st, st->ni);
}

void ofi_rcv_stop(struct ofi_state *st)
{
    nal_rcv_thread_stop(&st->rcv);
}
