/*
 * A transport's first failure: a completion that failed, a peer that broke
 * the protocol.  It is found under the transport's lock, deep in progress,
 * where ending the job would run the exit under that lock; so the text is
 * kept and the job's graceful exit starts once the lock is dropped.
 */
#include <stdio.h>

#include "nal/msg/msg.h"
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
