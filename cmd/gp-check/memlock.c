/*
 * The locked-memory check.  Over InfiniBand verbs every process registers
 * (pins) its segment and the conduit's buffers, and the kernel refuses to
 * pin more than RLIMIT_MEMLOCK ("ulimit -l").  The need per process is the
 * segment the job would get (check_segment_limit) plus the buffers'
 * allowance.  A short limit is a FAIL on a host with RDMA devices, where
 * ibv would run into it, and a warning elsewhere: shm and tcp pin nothing.
 */
#include "gp_check.h"

#include <stdio.h>
#include <sys/resource.h>

#include "nal/nal.h"

/* Whether ibv, the transport that pins, would find a verbs device here: its own first guess
 * (the hybrid's), which loads no library. */
static int rdma_devices_present(void)
{
    const struct nal_ops *ibv = nal_find("ibv");
    return ibv != NULL && ibv->peers != NULL && ibv->peers->host_may_serve(NAL_SERVE);
}

void check_memlock(const struct check_opts *opts)
{
    struct rlimit limit;
    char have[32], need[32], seg[32];
    int nprocs = check_system_nprocs(opts);
    uint64_t segment = check_segment_limit(nprocs);
    uint64_t wanted = segment + CHECK_CONDUIT_BYTES;
    if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) {
        check_report(CHECK_WARN, "memlock", "check ulimit -l by hand",
                     "cannot read the locked-memory limit: %m");
        return;
    }
    check_format_bytes(wanted, need, sizeof need);
    check_format_bytes(segment, seg, sizeof seg);
    if (limit.rlim_cur == RLIM_INFINITY) {
        check_ok("memlock", "ulimit -l is unlimited; ibv may pin the %s each "
                 "process needs", need);
        return;
    }
    check_format_bytes((uint64_t)limit.rlim_cur, have, sizeof have);
    if ((uint64_t)limit.rlim_cur >= wanted) {
        check_ok("memlock", "ulimit -l is %s, enough for the %s each process "
                 "pins over ibv", have, need);
        return;
    }
    int devices = rdma_devices_present();
    check_report(devices ? CHECK_FAIL : CHECK_WARN, "memlock",
                 "raise it: ulimit -l unlimited, or '* - memlock unlimited' in "
                 "/etc/security/limits.conf (LimitMEMLOCK=infinity for a systemd service)",
                 "ulimit -l is %s, less than the %s each process would pin over ibv (a %s "
                 "segment and the conduit's buffers)%s", have, need, seg,
                 devices ? "" : "; only ibv needs it, and this host has no RDMA device");
}
