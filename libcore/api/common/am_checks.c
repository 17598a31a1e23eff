/*
 * The rules both faces' AM calls share: size limits, a source for the
 * bytes, a Long's destination inside the target's segment, and who may
 * reply with a token.
 */
#include <gasnet.h>

#include "api/common/export.h"
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"

int gp_api_check_am_payload(const char *call, unsigned category, gasnet_node_t node,
                            const void *source, size_t nbytes, const void *dest_addr)
{
    if (category == GPC_MEDIUM && nbytes > GPC_MAX_MEDIUM)
        return BAD_ARG("%s: %zu bytes exceed the Medium limit of %d (gasnet_AMMaxMedium(), "
                       "gex_AM_LUB*Medium())", call, nbytes, GPC_MAX_MEDIUM);
    if (category == GPC_LONG && nbytes > GPC_MAX_LONG)
        return BAD_ARG("%s: %zu bytes exceed the Long limit of %u (gasnet_AMMaxLong*(), "
                       "gex_AM_LUB*Long())", call, nbytes, GPC_MAX_LONG);
    if (nbytes > 0 && source == NULL)
        return BAD_ARG("%s: NULL source for %zu bytes", call, nbytes);
    if (category == GPC_LONG && nbytes > 0 &&
        !gpc_segment_holds(gpc.seginfo[node].addr, gpc.seginfo[node].size, dest_addr, nbytes))
        return BAD_ARG("%s: destination %p + %zu bytes is outside node %u's segment [%p, +%lu)",
                       call, dest_addr, nbytes, node, gpc.seginfo[node].addr,
                       (unsigned long)gpc.seginfo[node].size);
    return GASNET_OK;
}

int gp_api_check_reply(const char *call, unsigned category, const struct gpc_token *token,
                       unsigned handler, const void *source, size_t nbytes, const void *dest_addr)
{
    if (token == NULL)
        return BAD_ARG("%s: NULL token", call);
    if (!token->is_request)
        return BAD_ARG("%s called from a reply handler (only request handlers may reply)", call);
    if (token->replied)
        return BAD_ARG("%s: this request handler already replied (at most one reply)", call);
    if (handler == 0)
        return BAD_ARG("%s: handler index 0 is reserved", call);
    return gp_api_check_am_payload(call, category, token->source, source, nbytes, dest_addr);
}
