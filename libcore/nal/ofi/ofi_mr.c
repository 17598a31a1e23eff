/*
 * Memory outside the region: a peer's RMA into or out of it (a rendezvous
 * put's source, a large get's destination) needs a key, and a provider that
 * demands FI_MR_LOCAL needs a descriptor for local buffers.  Such ranges
 * borrow a registration from the firehose cache the ibv transport uses
 * (nal/firehose.c: whole pages, at most GASNET_FIREHOSE_MAXREGION_SIZE, cut at
 * its multiples; idle regions kept only with GP_FIREHOSE_KEEP=1), registered
 * here with fi_mr_reg for local and remote access.  A range one cached region
 * cannot cover (it crosses a multiple of the region size, or every region the
 * pool may hold is busy) is registered for its operation alone, as every range
 * is with GASNET_USE_FIREHOSE=0.  The cache is used under the transport's lock.
 */
#include <errno.h>

#include "nal/firehose_config.h"
#include "nal/ofi/ofi.h"
#include "util/log.h"

#define OFI_MR_CACHE_ACCESS (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)

/* firehose_ops.reg: quiet, a failure only sends the range to its own registration. */
static void *cache_reg(void *ctx, void *addr, size_t len)
{
    struct ofi_state *st = ctx;
    struct fid_mr *mr = NULL;
    int rc = fi_mr_reg(st->domain, addr, len, OFI_MR_CACHE_ACCESS, 0, st->next_key++, 0, &mr,
                       NULL);
    if (rc == 0 && (st->mr_mode & FI_MR_ENDPOINT) &&
        (fi_mr_bind(mr, &st->ep->fid, 0) != 0 || fi_mr_enable(mr) != 0)) {
        fi_close(&mr->fid);
        rc = -FI_EINVAL;
    }
    if (rc != 0) {
        errno = rc < 0 ? -rc : rc;
        return NULL;
    }
    return mr;
}

static int cache_dereg(void *ctx, void *handle)
{
    (void)ctx;
    int rc = fi_close(&((struct fid_mr *)handle)->fid);
    return rc < 0 ? -rc : rc;
}

int ofi_mr_cache_start(struct ofi_state *st)
{
    if (!firehose_cfg.use_firehose)
        return PTL_OK;
    struct firehose_limits lim = {
        .max_region_bytes = firehose_cfg.firehose_maxregion_size,
        .max_victim_bytes = firehose_cfg.firehose_maxvictim_m,
        .max_victim_regions = (uint64_t)firehose_cfg.firehose_maxvictim_r,
        .verbose = firehose_cfg.firehose_verbose,
        .drop_idle = !firehose_cfg.firehose_keep,
    };
    struct firehose_ops ops = { cache_reg, cache_dereg, st };
    st->firehose = firehose_new(&lim, &ops);
    if (st->firehose == NULL) {
        gp_error("ofi", "cannot start the registration cache (GASNET_FIREHOSE_MAXREGION_SIZE "
                 "%llu, GASNET_FIREHOSE_MAXVICTIM_M %llu, GASNET_FIREHOSE_MAXVICTIM_R %lld): %s",
                 (unsigned long long)lim.max_region_bytes,
                 (unsigned long long)lim.max_victim_bytes,
                 (long long)firehose_cfg.firehose_maxvictim_r,
                 errno == ENOMEM ? "out of memory" : "a limit is 0 or not whole pages");
        return PTL_FAIL;
    }
    return PTL_OK;
}

/* Whether one cached region can hold [addr, addr+len): regions never cross a multiple of
 * the region size, and a peer's RMA names one key. */
static int one_region(uintptr_t addr, uint64_t len)
{
    uint64_t size = firehose_cfg.firehose_maxregion_size;
    return len > 0 && addr / size == (addr + len - 1) / size;
}

struct fid_mr *ofi_mr_pin(struct ofi_state *st, struct ofi_inflight *rec, void *addr,
                          uint64_t len, uint64_t access, void **base)
{
    if (st->firehose != NULL && one_region((uintptr_t)addr, len)) {
        size_t covered = 0;
        struct firehose_region *region = firehose_acquire(st->firehose, addr, len, &covered);
        if (region != NULL) {
            rec->pinned = region;
            *base = firehose_base(region);
            return firehose_handle(region);
        }
    }
    if (ofi_mr_one_op(st, addr, len, access, &rec->mr) != PTL_OK)
        return NULL;
    *base = addr;
    return rec->mr;
}

void ofi_mr_unpin(struct ofi_state *st, struct ofi_inflight *rec)
{
    if (rec->pinned != NULL) {
        firehose_release(st->firehose, rec->pinned);
        rec->pinned = NULL;
    }
    if (rec->mr != NULL) {
        fi_close(&rec->mr->fid);
        rec->mr = NULL;
    }
}

void ofi_mr_cache_stop(struct ofi_state *st)
{
    firehose_report(st->firehose);
    firehose_free(st->firehose);
    st->firehose = NULL;
}
