/*
 * The tools-only library reads variables through the configuration table,
 * whose GP_TRANSPORT row asks the transport registry for its choices and
 * whose GP_HYBRID_ORDER check asks it for the routable transports; that
 * library has no transports, so it names none (it never loads the table,
 * where an empty list would be reported).  In libgp, nal/registry.c
 * answers.  Outside the libcore/DIR/ files that make libgp, on purpose.
 */
#include <stddef.h>
#include <stdio.h>

/* nal/nal.h's declarations: the tools layer includes nothing of the transports' layer above it. */
struct nal_ops;
const char *nal_selectable_names(void);
int nal_route_order(const char *variable, const char *text, const struct nal_ops **out,
                    char *errbuf, size_t errlen);

const char *nal_selectable_names(void)
{
    return "";
}

int nal_route_order(const char *variable, const char *text, const struct nal_ops **out,
                    char *errbuf, size_t errlen)
{
    (void)out;
    snprintf(errbuf, errlen, "%s='%s' is not valid: the tools-only library has no transports",
             variable, text != NULL ? text : "");
    return -1;
}
