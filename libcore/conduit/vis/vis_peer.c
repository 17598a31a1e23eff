/*
 * Peer completion of a VIS put (GASNet-EX §11.5): once the put's bytes are
 * in place at the target, a Medium request carries the client's payload
 * there, and its handler runs the client's handler as a reply would run:
 * a token that says "reply" (gex_Token_Info's is_req 0, so the handler may
 * not answer), the client's index and entry, no arguments.
 */
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/vis/vis.h"
#include "util/log.h"

void gpc_vis_peer_notify(gasnet_node_t node, gasnet_handler_t handler, const void *payload,
                         size_t nbytes)
{
    gasnet_handlerarg_t arg = handler;
    int rc = gpc_am_request(node, GPC_MEDIUM, GPC_H_VIS_PEER, (void *)payload, nbytes, NULL, 1,
                            &arg);
    if (rc != GASNET_OK)
        gp_fatal("a VIS put's peer-completion notice to node %u failed (error %d)", node, rc);
}

void gpc_vis_peer_handler(gasnet_token_t token, void *buf, size_t nbytes,
                          gasnet_handlerarg_t handler)
{
    struct gpc_token notice = *(struct gpc_token *)token;
    notice.is_request = 0;
    gpc_run_handler(&notice, (gasnet_handler_t)handler, GPC_MEDIUM, buf, nbytes, 0, NULL);
}
