/*
 * A SIGBUS inside a segment: /dev/shm ran out of pages.
 *
 * A region that lives in /dev/shm (shm, hybrid) is sized, not reserved:
 * tmpfs commits a page when it is first touched (nal/shm/shm.c).  When /dev/shm
 * is full by then, the touching process -- the segment's owner, or a peer
 * copying into it -- gets SIGBUS at that address.  The fatal-signal handler
 * (exit.c) asks here whether the address lies in a region mapped here and,
 * if so, its line says whose segment it was, how large, and how much
 * /dev/shm has free, instead of a bare "bus error".
 *
 * Async-signal-safe: reads of state set up at init and attach, statfs(2),
 * and the gp_sigsafe_* builders; no stdio, no malloc.
 */
#include <sys/statfs.h>

#include "boot/boot.h"
#include "conduit/exit/bus_fault.h"
#include "conduit/attach/nodeinfo.h"
#include "conduit/core/state.h"
#include "ptl/ptl.h"
#include "util/log.h"

/* The peer's segment as mapped here (gpc_nodeinfo's offset), or NULL before attach. */
static const char *segment_here(unsigned node)
{
    if (!gpc.attached || gpc.seginfo == NULL)
        return NULL;
    if (node == gpc.rank)
        return gpc.segment;
    const gasnet_nodeinfo_t *info = gpc_nodeinfo();
    if (info == NULL || info[node].offset == 0)
        return NULL;
    return (const char *)gpc.seginfo[node].addr + info[node].offset;
}

size_t gpc_bus_fault_describe(char *line, size_t len, size_t size, const void *addr)
{
    struct ptl_region_hit hit;
    if (!ptl_region_hit(gpc.ni, addr, &hit))
        return len;
    const char *segment = segment_here(hit.rank);
    uint64_t segsize = gpc.seginfo != NULL ? gpc.seginfo[hit.rank].size : 0;
    int in_segment = segment != NULL && (const char *)addr >= segment &&
                     (uint64_t)((const char *)addr - segment) < segsize;
    len = gp_sigsafe_append(line, len, size, ": /dev/shm has no page left for node ");
    len = gp_sigsafe_append_uint(line, len, size, hit.rank);
    if (in_segment) {
        len = gp_sigsafe_append(line, len, size, "'s segment (");
        len = gp_sigsafe_append_uint(line, len, size, (unsigned long)segsize);
        len = gp_sigsafe_append(line, len, size, " bytes, byte ");
        len = gp_sigsafe_append_uint(line, len, size,
                                     (unsigned long)((const char *)addr - segment));
    } else {
        len = gp_sigsafe_append(line, len, size, "'s registered region (");
        len = gp_sigsafe_append_uint(line, len, size, (unsigned long)hit.region_bytes);
        len = gp_sigsafe_append(line, len, size, " bytes holding its ");
        len = gp_sigsafe_append_uint(line, len, size, (unsigned long)segsize);
        len = gp_sigsafe_append(line, len, size, "-byte segment and buffers, byte ");
        len = gp_sigsafe_append_uint(line, len, size, (unsigned long)hit.offset);
    }
    len = gp_sigsafe_append(line, len, size, " touched; object /dev/shm/gp-");
    len = gp_sigsafe_append(line, len, size, gp_boot_jobid());
    len = gp_sigsafe_append(line, len, size, "-");
    len = gp_sigsafe_append_uint(line, len, size, hit.rank);
    len = gp_sigsafe_append(line, len, size, ")");
    struct statfs shm;
    if (statfs("/dev/shm", &shm) == 0) {
        len = gp_sigsafe_append(line, len, size, ": /dev/shm has ");
        len = gp_sigsafe_append_uint(line, len, size,
                                     (unsigned long)shm.f_bavail * (unsigned long)shm.f_bsize);
        len = gp_sigsafe_append(line, len, size, " bytes free of ");
        len = gp_sigsafe_append_uint(line, len, size,
                                     (unsigned long)shm.f_blocks * (unsigned long)shm.f_bsize);
    }
    return gp_sigsafe_append(line, len, size, " (hint: segment memory is committed as it is "
                             "first touched; free or enlarge /dev/shm, e.g. mount -o "
                             "remount,size=..., or attach a smaller segment)");
}
