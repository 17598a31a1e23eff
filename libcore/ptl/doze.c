/*
 * Dozing (ptl.h): a futex on a word in this process's region header, which
 * every peer that maps the region can read and wake.
 *
 * A wake-up must not be lost between the dozer's last look and its sleep.
 * The dozer stores 1 and then looks at what it waits for; the poster
 * publishes a message and then loads the word.  Each side stores one word
 * and loads the other's (the store-buffering pattern), so the dozer puts a
 * full fence between its store and its look.  The poster, on the fast path
 * of every message, does not: its load may pass its own publishing store
 * (x86's store buffer, or a weakly ordered CPU), so a post in that window
 * of a few nanoseconds can see 0 while the dozer's look misses the message.
 * max_us bounds what such a miss costs, and a message never waits longer:
 * the futex sleep ends by then whatever happens.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ptl/ni.h"
#include "ptl/shared.h"

int ptl_doze_possible(struct ptl_ni *ni)
{
    if (ni == NULL || ni->base.peer_region == NULL)
        return 0;
    for (int rank = 0; rank < ni->base.size; rank++)
        if (rank != ni->base.rank && ni->base.peer_region[rank] == NULL)
            return 0;
    return 1;
}

void ptl_doze_announce(struct ptl_ni *ni)
{
    __atomic_store_n(&ni->hdr->doze, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the store before the last look: see above */
}

int ptl_doze(struct ptl_ni *ni, unsigned max_us)
{
    struct timespec limit = { .tv_sec = max_us / 1000000, .tv_nsec = (long)(max_us % 1000000) * 1000 };
    /* Not FUTEX_PRIVATE: the word lies in memory other processes map and wake through. */
    long rc = syscall(SYS_futex, &ni->hdr->doze, FUTEX_WAIT, 1, &limit, NULL, 0);
    return !(rc == -1 && errno == ETIMEDOUT);
}

void ptl_doze_end(struct ptl_ni *ni)
{
#if GP_PAR
    /* Another thread may doze on the word still: the next waker's exchange clears it (one
     * wake-up call too many, where a cleared word could leave that thread asleep). */
    (void)ni;
#else
    __atomic_store_n(&ni->hdr->doze, 0, __ATOMIC_RELAXED);
#endif
}

uint32_t *ptl_doze_word(struct ptl_ni *ni, unsigned rank)
{
    if (ni == NULL || rank >= (unsigned)ni->base.size)
        return NULL;
    if (rank == (unsigned)ni->base.rank)
        return &ni->hdr->doze;
    if (ni->base.peer_region == NULL || ni->base.peer_region[rank] == NULL)
        return NULL;
    return &((struct ptl_region_header *)ni->base.peer_region[rank])->doze;
}

void ptl_wake_slow(uint32_t *doze_word)
{
    /* One waker of the many posters makes the system call: the one that takes the 1. */
    if (__atomic_exchange_n(doze_word, 0, __ATOMIC_RELAXED) != 0)
        syscall(SYS_futex, doze_word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
