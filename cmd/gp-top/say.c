/*
 * gp-top's own messages: "gp-top: ..." on stderr, one line each.
 */
#include "gp_top.h"

#include <stdarg.h>
#include <stdio.h>

void top_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gp-top: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
