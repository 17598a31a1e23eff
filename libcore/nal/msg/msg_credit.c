/*
 * Request credits at the NIC level: a peer may have as many requests
 * unhandled here as it was granted (what this process's receive buffers
 * cover); each handled one is owed back, in the header of the next message
 * to it or, when none goes that way, in a CREDIT message.  When a credit is
 * owed (ofi: once the request is handled; ibv: once the shared receive queue
 * holds its buffer's replacement) and how a request waits for one stay the
 * transport's; the list of peers owed and its flush are here.
 */
#include "nal/msg/msg.h"

void msg_credits_flush(const struct msg_proto *p, struct msg_owing *o, int slack)
{
    const struct msg_nic *nic = p->nic;
    unsigned kept = 0, seen = o->count;
    for (unsigned i = 0; i < seen; i++) {
        int rank = o->ranks[i], live;
        struct msg_credits *c = nic->credits(p->nic_state, rank, &live);
        if (live && c->owed > slack) {
            struct msg_fields credit = { .type = MSG_CREDIT };
            nic->send(p->nic_state, rank, &credit, NULL, NULL, 0, 0);
            nic->credits(p->nic_state, rank, &live);
        }
        if (live && c->owed > 0)
            o->ranks[kept++] = rank;
        else
            c->listed = 0;
    }
    for (unsigned i = seen; i < o->count; i++)
        o->ranks[kept++] = o->ranks[i];
    o->count = kept;
}
