/*
 * The transports' own lines ("rdma" for ibv, "libfabric" for ofi): each
 * transport that has something to say about this host fills its report
 * (nal_ops.host_report), printed here in the registry's order.  gp-check
 * names no transport, so one added to the registry brings its check along.
 */
#include "gp_check.h"

#include "nal/nal.h"

void check_transports(void)
{
    static const enum check_verdict verdicts[] = {
        [NAL_HOST_OK] = CHECK_OK,
        [NAL_HOST_WARN] = CHECK_WARN,
        [NAL_HOST_FAIL] = CHECK_FAIL,
    };
    const struct nal_ops *nal;
    for (unsigned i = 0; (nal = nal_at(i)) != NULL; i++) {
        if (nal->host_report == NULL)
            continue;
        struct nal_host_report report = { .verdict = NAL_HOST_OK };
        nal->host_report(&report);
        check_report(verdicts[report.verdict], report.check, report.fix, "%s", report.finding);
    }
}
