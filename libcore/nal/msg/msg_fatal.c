/*
 * A transport's first failure: a completion that failed, a peer that broke
 * the protocol.  It is found under the transport's lock, deep in progress,
 * where ending the job would run the exit under that lock; so the text is
 * kept and the job's graceful exit starts once the lock is dropped.
 */
#include <stdarg.h>
#include <stdio.h>

#include "nal/msg/msg.h"
#include "nal/nal.h"
#include "util/log.h"

void msg_fatal_vset(struct msg_fatal *f, const char *fmt, va_list ap)
{
    if (f->pending)
        return;
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    __atomic_store_n(&f->pending, 1, __ATOMIC_RELEASE);
}

void msg_fatal_raise(struct msg_fatal *f)
{
    if (!__atomic_load_n(&f->pending, __ATOMIC_ACQUIRE) ||
        __atomic_exchange_n(&f->raised, 1, __ATOMIC_ACQ_REL))
        return;
    gp_fatal("%s", f->text);
}

void msg_fatal_vset_peer(struct msg_fatal *f, const char *tag, int peer, const char *fmt,
                         va_list ap)
{
    if (peer < 0 || !nal_job_ending()) {
        msg_fatal_vset(f, fmt, ap);
        return;
    }
    /* The job's exit is under way: the peer left in it, which is no news (as tcp's
     * tcp_conn_gone); what is sent to it fails quietly from now on (its failed flag). */
    char text[sizeof f->text];
    vsnprintf(text, sizeof text, fmt, ap);
    gp_debug(tag, "node %d has left in the job's exit: %s", peer, text);
}

static void fail_v(const struct msg_proto *p, int peer, int an_operation, const char *fmt,
                   va_list ap)
{
    if (peer >= 0 && peer < p->ni->size)
        p->nic->peer_failed(p->nic_state, peer);
    if (an_operation)
        msg_fatal_vset_peer(p->fatal, p->nal, peer, fmt, ap);
    else
        msg_fatal_vset(p->fatal, fmt, ap);
}

void msg_fail(const struct msg_proto *p, int peer, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(p, peer, 0, fmt, ap);
    va_end(ap);
}

void msg_fail_op(const struct msg_proto *p, int peer, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(p, peer, 1, fmt, ap);
    va_end(ap);
}
