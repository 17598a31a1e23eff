/*
 * The SYS queue of seed 000 ("The System Event Queue"): out-of-band
 * messages between nodes for shutdown, credit revocation and the asks of
 * peers that hold fewer credits than a message takes.
 * A message is a zero-length put from SYSMD into the peer's SYSMD on
 * PT_SYS; everything it says rides in the match bits and hdr_data, so it
 * needs no buffer, no ticket and no credit.  The poll loop takes all SYS
 * events before anything else.
 *
 * Match bits: bits 0-7 the message type, bits 8-39 a 32-bit argument;
 * hdr_data: a 64-bit argument.
 */
#include "conduit/am/am_wire.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/exit/exit.h"
#include "conduit/core/state.h"
#include "conduit/credits/sys.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/log.h"

#define SYS_TYPE(bits) ((unsigned)((bits) & 0xff))
#define SYS_ARG(bits) ((uint32_t)((bits) >> 8))

int gpc_sys_setup(void)
{
    /* A peer has at most 6 messages on their way to us: 2 of the exit (ELECT
     * and ACK to node 0 as master), and one credit message of each kind, since
     * each waits for its answer (REVOKE: SYS_MSG_INFLIGHT; ASK: asked), or
     * answers ours (RETURN, GRANT).  Lost events are fatal: room for all. */
    unsigned events = 6 * gpc.nodes + 64;
    if (ptl_eq_alloc(gpc.ni, events, &gpc.sys_eq) != PTL_OK)
        return GASNET_ERR_RESOURCE;
    struct ptl_md_desc target = { .start = gpc.reqsb_chunks.base, .length = 0,
                                  .threshold = PTL_MD_THRESH_INF,
                                  .options = PTL_MD_OP_PUT | PTL_MD_TRUNCATE | PTL_MD_MANAGE_REMOTE,
                                  .eq = gpc.sys_eq };
    struct ptl_md_desc source = { .start = gpc.reqsb_chunks.base, .length = 0,
                                  .threshold = PTL_MD_THRESH_INF,
                                  .options = PTL_MD_EVENT_DISABLE };
    ptl_handle_md_t target_md;
    if (ptl_md_attach(gpc.ni, PT_SYS, 0, ~0ull, &target, PTL_RETAIN, PTL_INS_AFTER,
                      PTL_INVALID_HANDLE, &target_md) != PTL_OK ||
        ptl_md_bind(gpc.ni, &source, &gpc.sys_md) != PTL_OK)
        return GASNET_ERR_RESOURCE;
    return GASNET_OK;
}

void gpc_sys_send(gasnet_node_t node, enum gpc_sys_type type, uint32_t arg, uint64_t data)
{
    uint64_t match = (uint64_t)type | ((uint64_t)arg << 8);
    gp_count_add(&gpc.sys_messages_sent, 1);
    int rc = ptl_put_region(gpc.ni, gpc.sys_md, 0, 0, PTL_NOACK_REQ, node, PT_SYS, match, 0, data);
    if (rc != PTL_OK)
        gp_error("sys", "system message %u to node %u failed: %s", type, node, ptl_strerror(rc));
}

static void sys_received(gasnet_node_t from, enum gpc_sys_type type, uint32_t arg, uint64_t data)
{
    switch (type) {
    case SYS_CREDIT_REVOKE:
        credit_revoke_arrived(&gpc.credit_node, from, (int)arg);
        break;
    case SYS_CREDIT_RETURN:
        credit_return_arrived(&gpc.credit_node, from, arg, (int)data);
        break;
    case SYS_CREDIT_ASK:
        credit_ask_arrived(&gpc.credit_node, from, arg);
        break;
    case SYS_CREDIT_GRANT:
        credit_grant_arrived(&gpc.credit_node, from, arg, data != 0);
        break;
    default:
        gpc_exit_sys_received(from, type, arg, data);
        break;
    }
}

/* The credit algorithm's way of sending (credit_flow.h). */
void gpc_sys_send_credit(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                         int end_of_epoch)
{
    (void)context;
    switch (type) {
    case CREDIT_SYS_REVOKE:
        gpc_sys_send(to, SYS_CREDIT_REVOKE, (uint32_t)end_of_epoch, 0);
        break;
    case CREDIT_SYS_RETURN:
        gpc_sys_send(to, SYS_CREDIT_RETURN, credits, (uint64_t)end_of_epoch);
        break;
    case CREDIT_SYS_ASK:
        gpc_sys_send(to, SYS_CREDIT_ASK, credits, 0);
        break;
    case CREDIT_SYS_ADMIT:
    case CREDIT_SYS_LEND:
        gpc_sys_send(to, SYS_CREDIT_GRANT, credits, type == CREDIT_SYS_LEND);
        break;
    }
}

int gpc_poll_sys(void)
{
    struct ptl_event event;
    int taken = 0;
    while (gpc.sys_events_per_poll == 0 || taken < gpc.sys_events_per_poll) {
        int rc = ptl_eq_get(gpc.ni, gpc.sys_eq, &event);
        if (rc == PTL_EQ_EMPTY)
            break;
        if (rc == PTL_EQ_DROPPED)
            gp_fatal("the SYS event queue overflowed and system messages were lost");
        taken++;
        gp_count_add(&gpc.sys_events_taken, 1);
        sys_received(event.initiator, (enum gpc_sys_type)SYS_TYPE(event.match_bits),
                         SYS_ARG(event.match_bits), event.hdr_data);
    }
    return taken;
}
