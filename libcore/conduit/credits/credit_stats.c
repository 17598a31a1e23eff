/*
 * GASNET_PORTAL_CREDIT_STATS=1: at exit every node writes its credit
 * statistics to gp-credits.<jobid>.<rank> in its working directory (the
 * seeds name no file; gp-env(7) documents this one).  One line for the
 * node, then one per peer, as key=value pairs that scripts can grep:
 *
 *   node=R nodes=N banked=B epochs=E stalls=S extra_requested=X extra_granted=G
 *        revokes_sent=V revokes_received=W credits_returned=T credits_recovered=C
 *        zero_replies=Z revokes_overdue=O asks_sent=A asks_received=K asks_waited=W
 *        credits_admitted=D credits_lent_on_ask=L
 *   peer=P loan_credits=L send_credits=S send_inuse=U send_max=M send_stalls=T
 *        send_revoked=V loan_requested=Q loan_given=G flags=0xF
 *        ring_sent=R ring_received=D ring_stalls=W ring_rung=B asked=A admitted=D
 *        ask_want=K
 *
 * The ring_ keys count the AM rings to a peer whose region is mapped here
 * (am_ring.c): messages sent (requests and replies) and taken, requests
 * that waited for a slot -- the rings' credits -- and, on hosts whose rings
 * use a doorbell, the posts that rang the peer's (the others found that the
 * peer polls this node's rings directly, or its bit already set).  Those messages take no
 * credits of the Portals protocol, so the other keys do not see them.
 * asked and admitted: credits we asked the peer for and credits it admitted
 * us for single requests, not yet sent; ask_want: what the peer's ask that
 * waits for our bank wants (doc/credits.md, "Memory at scale").
 */
#include <stdio.h>

#include "boot/boot.h"
#include "config/config.h"
#include "conduit/am/am_ring.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/credits/credits.h"
#include "conduit/core/state.h"
#include "util/log.h"

static void write_node_line(FILE *out, const struct credit_node *node)
{
    const struct credit_stats *st = &node->stats;
    fprintf(out, "node=%u nodes=%u banked=%lld epochs=%llu stalls=%llu extra_requested=%llu "
            "extra_granted=%llu revokes_sent=%llu revokes_received=%llu credits_returned=%llu "
            "credits_recovered=%llu zero_replies=%llu revokes_overdue=%llu asks_sent=%llu "
            "asks_received=%llu asks_waited=%llu credits_admitted=%llu credits_lent_on_ask=%llu\n",
            node->rank, node->nodes,
            (long long)node->banked, (unsigned long long)st->epochs,
            (unsigned long long)st->stalls, (unsigned long long)st->extra_requested,
            (unsigned long long)st->extra_granted, (unsigned long long)st->revokes_sent,
            (unsigned long long)st->revokes_received, (unsigned long long)st->credits_returned,
            (unsigned long long)st->credits_recovered, (unsigned long long)st->zero_replies,
            (unsigned long long)st->revokes_overdue, (unsigned long long)st->asks_sent,
            (unsigned long long)st->asks_received, (unsigned long long)st->asks_waited,
            (unsigned long long)st->credits_admitted,
            (unsigned long long)st->credits_lent_on_ask);
}

void gpc_credit_stats_write(void)
{
    if (!gp_cfg.portal_credit_stats || !gpc.attached)
        return;
    char name[96];
    snprintf(name, sizeof name, "gp-credits.%s.%u", gp_boot_jobid(), gpc.rank);
    FILE *out = fopen(name, "w");
    if (out == NULL) {
        gp_warn("credits", "cannot write the credit statistics to %s: %m", name);
        return;
    }
    write_node_line(out, &gpc.credit_node);
    for (uint32_t peer = 0; peer < gpc.nodes; peer++) {
        struct credit_conn snapshot;
        const struct credit_conn *c = &snapshot;
        credit_conn_snapshot(&gpc.credit_node, peer, &snapshot);
        struct gpc_ring_stats ring;
        gpc_ring_peer_stats(peer, &ring);
        fprintf(out, "peer=%u loan_credits=%u send_credits=%u send_inuse=%u send_max=%u "
                "send_stalls=%u send_revoked=%u loan_requested=%u loan_given=%u flags=0x%02x "
                "ring_sent=%llu ring_received=%llu ring_stalls=%llu ring_rung=%llu asked=%u "
                "admitted=%u ask_want=%u\n",
                peer, c->loan_credits, c->send_credits, c->send_inuse, c->send_max,
                c->send_stalls, c->send_revoked, c->loan_requested, c->loan_given, c->flags,
                (unsigned long long)ring.sent, (unsigned long long)ring.received,
                (unsigned long long)ring.stalls, (unsigned long long)ring.rung, c->asked,
                c->admitted, c->ask_want);
    }
    if (fclose(out) != 0)
        gp_warn("credits", "writing the credit statistics to %s failed: %m", name);
}
