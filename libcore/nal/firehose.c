/*
 * Firehose's local pool (see firehose.h for the contract).
 *
 * Address space is cut into blocks of max_region_bytes, aligned on
 * multiples of that size, and every region lies inside one block: the
 * whole block when it can be registered, else just the pages asked for
 * (a block can reach past the end of a mapping, where registration fails).
 * A hash on the block number finds the few regions of a block, so a lookup
 * costs one bucket walk however many regions are cached.
 *
 * Regions nobody holds sit on an LRU list, newest at the head; making room
 * takes from the tail.  The pool never evicts a region in use: when the
 * limits leave no room and nothing is idle, the acquire fails and the
 * transport bounces the data instead, which is slower but always works.
 */
#include "nal/firehose.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

struct firehose_region {
    uintptr_t base;
    size_t len;
    void *handle;
    unsigned long refs;
    int doomed;                               /* invalidated while busy: drop at release */
    struct firehose_region *hash_next;
    struct firehose_region *lru_prev, *lru_next;  /* on the LRU list while refs == 0 */
};

struct firehose {
    struct firehose_limits lim;
    struct firehose_ops ops;
    uintptr_t page;
    struct firehose_region **buckets;
    size_t bucket_mask;
    struct firehose_region *lru_head, *lru_tail;
    struct firehose_stats stats;
    uint64_t peak_bytes, peak_regions;
    int reported;                 /* the verbose summary is out: firehose_free says nothing more */
};

#define MIN_BUCKETS 64u
#define MAX_BUCKETS (1u << 20)

/* ---- the hash on block numbers ---- */

static size_t bucket_of(const struct firehose *fh, uintptr_t block)
{
    /* Fibonacci hashing: consecutive blocks spread over the table. */
    return (size_t)(((uint64_t)block * 11400714819323198485u) >> 32) & fh->bucket_mask;
}

static uintptr_t block_of(const struct firehose *fh, uintptr_t addr)
{
    return addr / (uintptr_t)fh->lim.max_region_bytes;
}

static void hash_insert(struct firehose *fh, struct firehose_region *r)
{
    struct firehose_region **head = &fh->buckets[bucket_of(fh, block_of(fh, r->base))];
    r->hash_next = *head;
    *head = r;
}

static void hash_remove(struct firehose *fh, struct firehose_region *r)
{
    struct firehose_region **link = &fh->buckets[bucket_of(fh, block_of(fh, r->base))];
    while (*link != r)
        link = &(*link)->hash_next;
    *link = r->hash_next;
}

/* A live region of the block holding all of [start, end). */
static struct firehose_region *lookup(const struct firehose *fh, uintptr_t start, uintptr_t end)
{
    uintptr_t block = block_of(fh, start);
    for (struct firehose_region *r = fh->buckets[bucket_of(fh, block)]; r; r = r->hash_next)
        if (!r->doomed && r->base <= start && end <= r->base + r->len)
            return r;
    return NULL;
}

/* ---- the LRU list of idle regions ---- */

static void lru_push_head(struct firehose *fh, struct firehose_region *r)
{
    r->lru_prev = NULL;
    r->lru_next = fh->lru_head;
    if (fh->lru_head != NULL)
        fh->lru_head->lru_prev = r;
    else
        fh->lru_tail = r;
    fh->lru_head = r;
}

static void lru_unlink(struct firehose *fh, struct firehose_region *r)
{
    if (r->lru_prev != NULL)
        r->lru_prev->lru_next = r->lru_next;
    else
        fh->lru_head = r->lru_next;
    if (r->lru_next != NULL)
        r->lru_next->lru_prev = r->lru_prev;
    else
        fh->lru_tail = r->lru_prev;
    r->lru_prev = r->lru_next = NULL;
}

/* ---- registering and dropping ---- */

/* Deregisters and frees a region that is on neither list's hands any more. */
static void drop(struct firehose *fh, struct firehose_region *r)
{
    int rc;
    hash_remove(fh, r);
    fh->stats.pinned_bytes -= r->len;
    fh->stats.pinned_regions--;
    rc = fh->ops.dereg(fh->ops.ctx, r->handle);
    if (rc != 0)
        gp_error("firehose", "deregistering %zu bytes at %p failed: %s", r->len,
                 (void *)r->base, strerror(rc));
    free(r);
}

static int fits(const struct firehose *fh, size_t len)
{
    return fh->stats.pinned_bytes + len <= fh->lim.max_victim_bytes &&
           fh->stats.pinned_regions + 1 <= fh->lim.max_victim_regions;
}

/* Evicts idle regions, oldest first, until len more bytes fit; 0 if they can't. */
static int make_room(struct firehose *fh, size_t len)
{
    if (len > fh->lim.max_victim_bytes)
        return 0;
    while (!fits(fh, len)) {
        struct firehose_region *victim = fh->lru_tail;
        if (victim == NULL)
            return 0;
        lru_unlink(fh, victim);
        drop(fh, victim);
        fh->stats.evictions++;
    }
    return 1;
}

static struct firehose_region *pin(struct firehose *fh, uintptr_t base, size_t len)
{
    struct firehose_region *r;
    if (!make_room(fh, len))
        return NULL;
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->handle = fh->ops.reg(fh->ops.ctx, (void *)base, len);
    if (r->handle == NULL) {
        gp_debug("firehose", "registering %zu bytes at %p failed: %m", len, (void *)base);
        free(r);
        return NULL;
    }
    r->base = base;
    r->len = len;
    hash_insert(fh, r);
    fh->stats.pinned_bytes += len;
    fh->stats.pinned_regions++;
    if (fh->stats.pinned_bytes > fh->peak_bytes)
        fh->peak_bytes = fh->stats.pinned_bytes;
    if (fh->stats.pinned_regions > fh->peak_regions)
        fh->peak_regions = fh->stats.pinned_regions;
    return r;
}

/* ---- the interface ---- */

static size_t buckets_for(uint64_t regions)
{
    size_t count = MIN_BUCKETS;
    while (count < MAX_BUCKETS && count < 2 * regions)
        count *= 2;
    return count;
}

struct firehose *firehose_new(const struct firehose_limits *lim, const struct firehose_ops *ops)
{
    long page = sysconf(_SC_PAGESIZE);
    struct firehose *fh;
    size_t buckets;
    if (lim == NULL || ops == NULL || ops->reg == NULL || ops->dereg == NULL || page <= 0 ||
        lim->max_region_bytes == 0 || lim->max_region_bytes % (uint64_t)page != 0 ||
        lim->max_victim_bytes == 0 || lim->max_victim_regions == 0) {
        errno = EINVAL;
        return NULL;
    }
    fh = calloc(1, sizeof *fh);
    buckets = buckets_for(lim->max_victim_regions);
    if (fh == NULL || (fh->buckets = calloc(buckets, sizeof *fh->buckets)) == NULL) {
        free(fh);
        errno = ENOMEM;
        return NULL;
    }
    fh->lim = *lim;
    fh->ops = *ops;
    fh->page = (uintptr_t)page;
    fh->bucket_mask = buckets - 1;
    return fh;
}

struct firehose_region *firehose_acquire(struct firehose *fh, const void *addr, size_t len,
                                         size_t *covered)
{
    uintptr_t start = (uintptr_t)addr, block_start, block_end, first, last;
    struct firehose_region *r;
    size_t prefix;
    block_start = block_of(fh, start) * (uintptr_t)fh->lim.max_region_bytes;
    block_end = block_start + (uintptr_t)fh->lim.max_region_bytes;
    prefix = len == 0 ? 1 : len;
    if (prefix > block_end - start)
        prefix = block_end - start;
    first = start & ~(fh->page - 1);
    last = (start + prefix + fh->page - 1) & ~(fh->page - 1);
    r = lookup(fh, first, last);
    if (r != NULL) {
        fh->stats.hits++;
        if (r->refs++ == 0)
            lru_unlink(fh, r);
        *covered = prefix;
        return r;
    }
    fh->stats.misses++;
    /* The whole block serves its neighbours later; the pages alone are the fallback. */
    r = pin(fh, block_start, (size_t)fh->lim.max_region_bytes);
    if (r == NULL && (first != block_start || last != block_end))
        r = pin(fh, first, (size_t)(last - first));
    if (r == NULL) {
        fh->stats.fallbacks++;
        return NULL;
    }
    r->refs = 1;
    *covered = prefix;
    return r;
}

void *firehose_handle(const struct firehose_region *r)
{
    return r->handle;
}

void *firehose_base(const struct firehose_region *r)
{
    return (void *)r->base;
}

void firehose_release(struct firehose *fh, struct firehose_region *r)
{
    if (r->refs == 0) {
        gp_error("firehose", "release of the region at %p that nobody holds", (void *)r->base);
        return;
    }
    if (--r->refs != 0)
        return;
    if (r->doomed || fh->lim.drop_idle)
        drop(fh, r);
    else
        lru_push_head(fh, r);
}

static int overlaps(const struct firehose_region *r, uintptr_t start, uintptr_t end)
{
    return r->base < end && start < r->base + r->len;
}

/* Drops r now if idle, else at its last release. */
static void forget(struct firehose *fh, struct firehose_region *r)
{
    if (r->refs != 0) {
        r->doomed = 1;
        return;
    }
    lru_unlink(fh, r);
    drop(fh, r);
}

static void invalidate_bucket(struct firehose *fh, size_t bucket, uintptr_t start, uintptr_t end)
{
    struct firehose_region *r = fh->buckets[bucket], *next;
    for (; r != NULL; r = next) {
        next = r->hash_next;
        if (overlaps(r, start, end) && !r->doomed)
            forget(fh, r);
    }
}

void firehose_invalidate(struct firehose *fh, const void *addr, size_t len)
{
    uintptr_t start = (uintptr_t)addr, end = start + len, first_block, last_block;
    if (len == 0)
        return;
    if (end < start)
        end = UINTPTR_MAX;
    first_block = block_of(fh, start);
    last_block = block_of(fh, end - 1);
    /* A range of more blocks than buckets is cheaper to sweep table-wide. */
    if (last_block - first_block > fh->bucket_mask) {
        for (size_t b = 0; b <= fh->bucket_mask; b++)
            invalidate_bucket(fh, b, start, end);
        return;
    }
    for (uintptr_t block = first_block;; block++) {
        invalidate_bucket(fh, bucket_of(fh, block), start, end);
        if (block == last_block)
            break;
    }
}

void firehose_get_stats(const struct firehose *fh, struct firehose_stats *out)
{
    *out = fh->stats;
}

void firehose_report(struct firehose *fh)
{
    if (fh == NULL || !fh->lim.verbose || fh->reported)
        return;
    fh->reported = 1;
    const struct firehose_stats *s = &fh->stats;
    uint64_t total = s->hits + s->misses;
    gp_log_emit(GP_LOG_INFO, "firehose", "%llu acquires: %llu hits (%.1f%%), %llu misses, "
                "%llu evictions, %llu fallbacks to bounce buffers; peak %llu bytes pinned "
                "in %llu regions", (unsigned long long)total, (unsigned long long)s->hits,
                total ? 100.0 * (double)s->hits / (double)total : 0.0,
                (unsigned long long)s->misses, (unsigned long long)s->evictions,
                (unsigned long long)s->fallbacks, (unsigned long long)fh->peak_bytes,
                (unsigned long long)fh->peak_regions);
}

void firehose_free(struct firehose *fh)
{
    uint64_t busy = 0;
    if (fh == NULL)
        return;
    firehose_report(fh);
    for (size_t b = 0; b <= fh->bucket_mask; b++) {
        while (fh->buckets[b] != NULL) {
            struct firehose_region *r = fh->buckets[b];
            busy += r->refs != 0;
            drop(fh, r);
        }
    }
    if (busy != 0)
        gp_warn("firehose", "%llu regions were still held at shutdown",
                (unsigned long long)busy);
    free(fh->buckets);
    free(fh);
}
