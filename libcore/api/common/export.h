/* GP_EXPORT for the public API, and the API layer's one way of refusing an argument. */
#ifndef GP_API_EXPORT_H
#define GP_API_EXPORT_H
#include "util/export.h"

/* Logs why an argument is refused (one line) and returns GASNET_ERR_BAD_ARG. */
int gp_api_bad_arg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define BAD_ARG(...) gp_api_bad_arg(__VA_ARGS__)
/* 0 silences BAD_ARG's line, never its return (gex_System_SetVerboseErrors). */
extern int gp_api_verbose_errors;

#include <stddef.h>
/* am_checks.c: an AM's payload against the limits and, for a Long, the
 * target's segment; GASNET_OK or BAD_ARG's code.  category: GPC_SHORT...
 * (conduit/am/am_wire.h); node must exist and the segments be attached. */
int gp_api_check_am_payload(const char *call, unsigned category, unsigned node,
                            const void *source, size_t nbytes, const void *dest_addr);
struct gpc_token;
/* A reply: a request handler's token that has not replied yet, a handler index, the payload. */
int gp_api_check_reply(const char *call, unsigned category, const struct gpc_token *token,
                       unsigned handler, const void *source, size_t nbytes, const void *dest_addr);
#endif
