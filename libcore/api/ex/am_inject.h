/*
 * The injection step the EX face's fixed-payload AMs (am.c) and its
 * negotiated-payload AMs (npam.c) share: payload rules, local completion,
 * then the conduit's request or reply.  Errors are fatal, naming call.
 */
#ifndef GP_API_EX_AM_INJECT_H
#define GP_API_EX_AM_INJECT_H
#include <gasnetex.h>

struct gpc_token;

/* Fatal on offset-addressing flags and on nargs outside 0..GPC_MAX_ARGS. */
void gpx_am_check_flags(const char *call, gex_Flags_t flags, int nargs);
/* jobrank is already translated from the team; lc_opt as the Request took it. */
void gpx_am_request(const char *call, unsigned category, gasnet_node_t jobrank,
                    gex_AM_Index_t handler, const void *source, size_t nbytes, void *dest_addr,
                    gex_Event_t *lc_opt, int nargs, const gasnet_handlerarg_t *args);
void gpx_am_reply(const char *call, unsigned category, struct gpc_token *t,
                  gex_AM_Index_t handler, const void *source, size_t nbytes, void *dest_addr,
                  gex_Event_t *lc_opt, int nargs, const gasnet_handlerarg_t *args);
#endif
