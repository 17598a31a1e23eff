/*
 * The tools-only library reads variables through the configuration table,
 * whose GP_TRANSPORT row asks the transport registry for its choices; that
 * library has no transports, so it names none (it never loads the table,
 * where an empty list would be reported).  In libgp, nal/registry.c
 * answers.  Outside the libcore/DIR/ files that make libgp, on purpose.
 */
/* nal/nal.h's declaration: the tools layer includes nothing of the transports' layer above it. */
const char *nal_selectable_names(void);

const char *nal_selectable_names(void)
{
    return "";
}
