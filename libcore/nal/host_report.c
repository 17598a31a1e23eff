/*
 * Filling a transport's gp-check line (nal_ops.host_report): one call per
 * line, so each transport's report reads as the verdicts it can reach.
 */
#include "nal/nal.h"

#include <stdarg.h>
#include <stdio.h>

void nal_host_say(struct nal_host_report *out, enum nal_host_verdict verdict, const char *check,
                  const char *fix, const char *fmt, ...)
{
    out->verdict = verdict;
    out->check = check;
    out->fix = verdict == NAL_HOST_OK ? NULL : fix;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->finding, sizeof out->finding, fmt, ap);
    va_end(ap);
}
