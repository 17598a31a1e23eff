/*
 * Firehose: a cache of registrations of local memory outside the registered
 * segment (seed 000 "Firehose configuration", the local "victim" pool of
 * Bell and Bonachea's algorithm).  A put from, or get into, such memory
 * borrows a pinned region here instead of bouncing through buffers.
 *
 * Registration goes through callbacks, so this file knows nothing of verbs or
 * libfabric: the ibv transport registers with ibv_reg_mr, the ofi transport
 * with fi_mr_reg, and the unit tests drive it with fakes.  Regions are whole pages, at most
 * max_region_bytes long, and cut at multiples of max_region_bytes so that
 * neighbouring requests land on the same region.  A released region stays
 * registered on a least-recently-used list; when the pool's bytes or region
 * count would pass their limits, the oldest unreferenced regions are
 * deregistered first.  A region in use is never evicted.
 *
 * No locking inside: the transport calls these with its own lock held (in
 * PAR builds), and the SEQ build needs none.
 *
 * Caveat, shared with GASNet's firehose: a registration pins the pages that
 * were mapped when it was made.  If the application (or the library: VIS
 * packs through malloc'ed buffers) frees that memory and the allocator maps
 * new pages at the same address, a cached region names the old pages, and
 * a later transfer through it moves the wrong bytes.  Nothing here can see
 * a free, so by default (limits.drop_idle) a region lives only while some
 * transfer holds it; keeping idle regions (GP_FIREHOSE_KEEP=1) is for
 * programs that never give transferred memory back.  firehose_invalidate
 * drops the registrations of a range known to be unmapped or remapped.
 */
#ifndef GP_NAL_FIREHOSE_H
#define GP_NAL_FIREHOSE_H

#include <stddef.h>
#include <stdint.h>

struct firehose_ops {
    /* Registers [addr, addr+len), page aligned; returns an opaque handle (such
     * as a struct ibv_mr *), or NULL with errno set. */
    void *(*reg)(void *ctx, void *addr, size_t len);
    /* Deregisters what reg returned; 0 on success, else an errno value. */
    int (*dereg)(void *ctx, void *handle);
    void *ctx;
};

struct firehose_limits {
    uint64_t max_region_bytes;    /* a multiple of the page size (GASNET_FIREHOSE_MAXREGION_SIZE) */
    uint64_t max_victim_bytes;    /* registered bytes at most (GASNET_FIREHOSE_MAXVICTIM_M) */
    uint64_t max_victim_regions;  /* regions at most (GASNET_FIREHOSE_MAXVICTIM_R) */
    int verbose;                  /* GASNET_FIREHOSE_VERBOSE: a summary line at firehose_free */
    int drop_idle;                /* deregister a region at its last release (GP_FIREHOSE_KEEP=0) */
};

struct firehose;
struct firehose_region;

/* NULL with errno EINVAL when a limit is 0 or the region size is not whole
 * pages, ENOMEM when out of memory. */
struct firehose *firehose_new(const struct firehose_limits *lim, const struct firehose_ops *ops);

/*
 * Pins a region covering [addr, addr+len) or a prefix of it, and takes a
 * reference on it.  *covered is set to the bytes from addr it covers: at
 * least 1 (len 0 counts as 1), less than len when the range crosses a
 * multiple of max_region_bytes, in which case the caller loops on the rest.
 * NULL when nothing can be pinned (every region busy, or reg failed): the
 * caller falls back to bounce buffers.  Release every region acquired.
 */
struct firehose_region *firehose_acquire(struct firehose *fh, const void *addr, size_t len,
                                         size_t *covered);

/* What reg returned for the region (the memory region to put in a work request). */
void *firehose_handle(const struct firehose_region *r);
/* Where the region's registration starts (RMA offsets are counted from there where the
 * fabric does not address by virtual address). */
void *firehose_base(const struct firehose_region *r);

/* Drops the reference; the region stays cached until evicted or invalidated. */
void firehose_release(struct firehose *fh, struct firehose_region *r);

/*
 * Forgets every registration overlapping [addr, addr+len): unreferenced ones
 * are deregistered now, busy ones at their last release (and are not handed
 * out again meanwhile).  For memory the application unmapped or remapped.
 */
void firehose_invalidate(struct firehose *fh, const void *addr, size_t len);

struct firehose_stats {
    uint64_t hits;            /* acquires served by a cached region */
    uint64_t misses;          /* acquires that had to register */
    uint64_t pinned_bytes;    /* registered now */
    uint64_t pinned_regions;  /* registered now */
    uint64_t evictions;       /* regions deregistered to make room */
    uint64_t fallbacks;       /* acquires that returned NULL */
};
void firehose_get_stats(const struct firehose *fh, struct firehose_stats *out);

/* Deregisters everything (regions still referenced too) and frees fh; NULL is fine. */
/* The GASNET_FIREHOSE_VERBOSE summary line, once (firehose_free prints it if nobody did). */
void firehose_report(struct firehose *fh);
void firehose_free(struct firehose *fh);

#endif
