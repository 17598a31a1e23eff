/*
 * The shared-memory check.  Every process of a job on this host keeps its
 * registered region -- the segment plus the conduit's buffers -- in one
 * object in /dev/shm (the shm and default hybrid transports).  The object
 * is sized, not reserved: tmpfs commits its pages as they are first
 * touched, so a job holds what it uses, and a /dev/shm that runs out later
 * ends the job with a fatal SIGBUS line naming the segment.  libgp bounds
 * the segment a process may ask for by the smallest of GASNET_MAX_SEGSIZE,
 * GASNET_PHYSMEM_PINNABLE_RATIO of physical memory and /dev/shm's free
 * space, the last two shared among the job's processes on this host, less
 * an allowance for the buffers (conduit/attach/sizing.c).  This check applies the
 * same arithmetic to the processes per host gp-check assumes (-n):
 *
 *   FAIL  /dev/shm is missing, not writable, or leaves a process less than
 *         a 1 MiB segment (the size gp's own tests and demo ask for);
 *   warn  N segments of the size GASNET_MAX_SEGSIZE and physical memory
 *         allow, with their buffers, exceed /dev/shm's free space: the
 *         segments are cut to each process's share of it, and a job that
 *         fills them competes with every other user of /dev/shm;
 *   ok    otherwise.
 */
#include "gp_check.h"

#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The smallest segment worth having: what gp's tests and gp-demo ask for. */
#define SMALLEST_SEGMENT ((uint64_t)1 << 20)

/* GASNET_PHYSMEM_PINNABLE_RATIO of physical memory, per process. */
static uint64_t pinnable_share(int nprocs)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return UINT64_MAX;
    return (uint64_t)((double)pages * (double)page * gp_cfg.physmem_pinnable_ratio / nprocs);
}

uint64_t check_segment_limit(int nprocs)
{
    uint64_t pinnable = pinnable_share(nprocs);
    return gp_cfg.max_segsize < pinnable ? gp_cfg.max_segsize : pinnable;
}

/* Can a process create an object there?  0, or an errno value. */
static int writable(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/gp-check-%ld", dir, (long)getpid());
    int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return errno;
    close(fd);
    unlink(path);
    return 0;
}

/* A size for "mount -o size=": whole megabytes, or whole gigabytes from 1G, rounded up. */
static void mount_size(uint64_t bytes, char *buf, size_t len)
{
    const uint64_t mib = (uint64_t)1 << 20, gib = (uint64_t)1 << 30;
    if (bytes >= gib)
        snprintf(buf, len, "%lluG", (unsigned long long)((bytes + gib - 1) / gib));
    else
        snprintf(buf, len, "%lluM", (unsigned long long)((bytes + mib - 1) / mib));
}

static void report_space(const char *dir, uint64_t free_bytes, int nprocs)
{
    char free_text[32], share_text[32], seg_text[32], want_text[32], total_text[32];
    char need[32], fix[512];
    const char *plural = nprocs == 1 ? "" : "es";
    uint64_t share = free_bytes / (uint64_t)nprocs;
    uint64_t segment = share > CHECK_CONDUIT_BYTES ? share - CHECK_CONDUIT_BYTES : 0;
    uint64_t wanted = check_segment_limit(nprocs);
    /* What N processes filling the segments they may ask for would hold there. */
    uint64_t total = (wanted + CHECK_CONDUIT_BYTES) * (uint64_t)nprocs;
    check_format_bytes(free_bytes, free_text, sizeof free_text);
    check_format_bytes(share, share_text, sizeof share_text);
    check_format_bytes(segment, seg_text, sizeof seg_text);
    check_format_bytes(wanted, want_text, sizeof want_text);
    check_format_bytes(total, total_text, sizeof total_text);
    if (segment < SMALLEST_SEGMENT) {
        char buffers[32], smallest[32];
        check_format_bytes(CHECK_CONDUIT_BYTES, buffers, sizeof buffers);
        check_format_bytes(SMALLEST_SEGMENT, smallest, sizeof smallest);
        mount_size((SMALLEST_SEGMENT + CHECK_CONDUIT_BYTES) * (uint64_t)nprocs, need,
                   sizeof need);
        snprintf(fix, sizeof fix, "give %s at least %s, e.g. mount -o remount,size=%s %s; "
                 "or run fewer processes per host", dir, need, need, dir);
        check_report(CHECK_FAIL, "shm", fix, "%s has %s free: %s for each of %d process%s, "
                     "less than the %s of buffers and the %s segment each needs", dir,
                     free_text, share_text, nprocs, plural, buffers, smallest);
    } else if (total > free_bytes) {
        mount_size(total, need, sizeof need);
        snprintf(fix, sizeof fix, "enlarge %s to %s (mount -o remount,size=%s %s), set "
                 "GASNET_MAX_SEGSIZE to %s or less, or run fewer processes per host", dir, need,
                 need, dir, seg_text);
        check_report(CHECK_WARN, "shm", fix, "%d process%s x (%s segment + buffers) = %s, more "
                     "than the %s free in %s: segments are cut to %s each, and pages are "
                     "committed as they are touched, so other users of %s can still fill it "
                     "under a job (which then ends with a SIGBUS line naming the segment)",
                     nprocs, plural, want_text, total_text, free_text, dir, seg_text, dir);
    } else {
        const char *bound = wanted == gp_cfg.max_segsize
                            ? "GASNET_MAX_SEGSIZE" : "GASNET_PHYSMEM_PINNABLE_RATIO of physical memory";
        check_ok("shm", "%s has %s free: %d process%s x (%s segment + buffers) = %s fit; "
                 "segments bounded by %s, committed as touched", dir, free_text, nprocs, plural,
                 want_text, total_text, bound);
    }
}

void check_shm(const struct check_opts *opts)
{
    const char *dir = opts->shm_dir != NULL ? opts->shm_dir : CHECK_SHM_DIR;
    struct statvfs vfs;
    int err;
    if (statvfs(dir, &vfs) != 0) {
        check_report(CHECK_FAIL, "shm", "mount a tmpfs there: mount -t tmpfs tmpfs /dev/shm",
                     "cannot examine %s: %s", dir, strerror(errno));
        return;
    }
    if ((err = writable(dir)) != 0) {
        check_report(CHECK_FAIL, "shm", "every user must be able to create objects there: "
                     "chmod 1777 /dev/shm", "cannot create an object in %s: %s", dir,
                     strerror(err));
        return;
    }
    report_space(dir, (uint64_t)vfs.f_bavail * vfs.f_frsize, check_system_nprocs(opts));
}
