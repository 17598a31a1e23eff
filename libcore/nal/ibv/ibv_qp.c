/*
 * Queue pairs: one reliable-connected QP per peer per rail (GASNET_NUM_QPS,
 * round robin over the ports), created here, described to every peer
 * through the bootstrap (which proved the job key: a QP number from it is
 * trusted), and brought to RTS with seed 003's timeout, retry and RDMA-read
 * settings.  Messages use QP 0 of a peer only, so they stay in order; RDMA
 * operations stripe over all of them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "nal/ibv/ibv.h"
#include "util/log.h"

#define IBV_WIRE_MAGIC 0x32766267u /* "gbv2": with the credits each peer is granted */
#define IBV_RNR_TIMER 12           /* 0.64 ms before a sender retries a full receive queue */

/* What each process tells every other, before the QP numbers. */
struct ibv_wire_head {
    uint32_t magic;
    uint32_t nqps;          /* 0: no usable device here */
    uint32_t nports;
    uint32_t psn;
    uint32_t credits;       /* requests each peer may have in flight to this process */
    uint32_t reserved;
    uint64_t region_base;
    uint64_t pin_maxsz;
    struct ibv_port_wire port[IBV_MAX_PORTS];
};

/* QP 0 of a peer takes its messages from the SRQ; the others receive nothing (1-deep RQ). */
static struct ibv_qp *create_qp(struct ibv_state *st, unsigned q)
{
    const struct ibv_port *port = &st->port[q % st->nports];
    struct ibv_hca *hca = &st->hca[port->hca];
    struct ibv_srq *srq = q == 0 ? hca->srq : NULL;
    for (;;) {
        struct ibv_qp_init_attr attr = {
            .send_cq = hca->send_cq,
            .recv_cq = hca->recv_cq,
            .srq = srq,
            .cap = { .max_send_wr = st->sq_depth, .max_recv_wr = srq ? 0 : 1,
                     .max_send_sge = 1, .max_recv_sge = 1,
                     .max_inline_data = (uint32_t)st->inline_limit },
            .qp_type = IBV_QPT_RC,
            .sq_sig_all = 1,
        };
        struct ibv_qp *qp = ibv_create_qp(hca->pd, &attr);
        if (qp != NULL) {
            if ((int)attr.cap.max_inline_data < st->inline_limit)
                st->inline_limit = (int)attr.cap.max_inline_data;
            /* qp is the library's object, not attr: cppcheck cannot see through the verbs
             * table's function pointer (ibv_verbs.h) and fears the result points into attr. */
            // cppcheck-suppress returnDanglingLifetime
            return qp;
        }
        /* GASNET_INLINESEND_LIMIT=-1 means the device's maximum, which verbs only tells by refusing */
        if (st->set.inline_limit < 0 && st->inline_limit > 0) {
            st->inline_limit /= 2;
            continue;
        }
        gp_error("ibv", "cannot create a queue pair on %s (send depth %u, %s, inline %d): %m; "
                 "lower GASNET_NETWORKDEPTH_PP or GASNET_AM_CREDITS_PP", hca->name, st->sq_depth,
                 srq ? "on the shared receive queue" : "no receives", st->inline_limit);
        return NULL;
    }
}

static int to_init(struct ibv_state *st, struct ibv_qp *qp, unsigned q)
{
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = st->port[q % st->nports].num,
        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE,
    };
    return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                        IBV_QP_ACCESS_FLAGS);
}

static int to_rtr_rts(struct ibv_state *st, struct ibv_peer *peer, unsigned q, uint32_t qpn,
                      uint32_t remote_psn, uint32_t my_psn)
{
    const struct ibv_port *mine = &st->port[q % st->nports];
    const struct ibv_port_wire *theirs = &peer->port[q];
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = mine->mtu < theirs->mtu ? mine->mtu : theirs->mtu,
        .dest_qp_num = qpn,
        .rq_psn = remote_psn,
        .max_dest_rd_atomic = (uint8_t)st->rd_atom,
        .min_rnr_timer = IBV_RNR_TIMER,
        .ah_attr = { .port_num = mine->num, .sl = 0 },
    };
    if (theirs->link_layer == IBV_LINK_LAYER_ETHERNET || mine->link_layer == IBV_LINK_LAYER_ETHERNET) {
        attr.ah_attr.is_global = 1;
        memcpy(attr.ah_attr.grh.dgid.raw, theirs->gid, 16);
        attr.ah_attr.grh.sgid_index = (uint8_t)mine->gid_index;
        attr.ah_attr.grh.hop_limit = 64;
    } else {
        attr.ah_attr.dlid = theirs->lid;
    }
    if (ibv_modify_qp(peer->qp[q], &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                              IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    struct ibv_qp_attr rts = {
        .qp_state = IBV_QPS_RTS,
        .timeout = (uint8_t)st->set.qp_timeout,
        .retry_cnt = (uint8_t)st->set.qp_retry_count,
        .rnr_retry = 7, /* infinite: a full receive queue only delays a message */
        .sq_psn = my_psn,
        .max_rd_atomic = (uint8_t)st->rd_atom,
    };
    return ibv_modify_qp(peer->qp[q], &rts, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                                IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                                IBV_QP_MAX_QP_RD_ATOMIC);
}

static int create_all(struct ibv_state *st)
{
    for (int rank = 0; rank < st->ni->size; rank++) {
        struct ibv_peer *peer = &st->peers[rank];
        if (!peer->reached)
            continue;
        for (unsigned q = 0; q < st->nqps; q++) {
            peer->qp[q] = create_qp(st, q);
            if (peer->qp[q] == NULL)
                return PTL_FAIL;
            if (to_init(st, peer->qp[q], q) != 0) {
                gp_error("ibv", "cannot bring the queue pair to rank %d to INIT: %m", rank);
                return PTL_FAIL;
            }
        }
    }
    return PTL_OK;
}

static uint32_t make_psn(int rank)
{
    return ((uint32_t)getpid() * 2654435761u + (uint32_t)rank) & 0xffffffu;
}

static int connect_all(struct ibv_state *st, const struct ibv_wire_head *heads,
                       const uint32_t *qpns, unsigned max_qps)
{
    int size = st->ni->size;
    uint32_t my_psn = heads[st->ni->rank].psn;
    for (int rank = 0; rank < size; rank++) {
        struct ibv_peer *peer = &st->peers[rank];
        if (!peer->reached)
            continue;
        const struct ibv_wire_head *head = &heads[rank];
        if (head->magic != IBV_WIRE_MAGIC || head->nqps == 0) {
            gp_error("ibv", "rank %d has no usable InfiniBand / RoCE port, but this one must "
                     "reach it by ibv (GP_TRANSPORT=ibv, or a device on this host only)", rank);
            return PTL_FAIL;
        }
        peer->nqps = st->nqps < head->nqps ? st->nqps : head->nqps;
        peer->region_base = head->region_base;
        peer->pin_maxsz = head->pin_maxsz;
        /* what its shared receive queue covers for this process */
        peer->credits.send = head->credits > 0 ? (int)head->credits : 1;
        free(peer->port);
        peer->port = calloc(peer->nqps ? peer->nqps : 1, sizeof *peer->port);
        if (peer->port == NULL)
            return PTL_NO_SPACE;
        for (unsigned q = 0; q < peer->nqps; q++) {
            peer->port[q] = head->port[q % head->nports];
            uint32_t qpn = qpns[((size_t)rank * size + st->ni->rank) * max_qps + q];
            if (to_rtr_rts(st, peer, q, qpn, head->psn, my_psn) != 0) {
                gp_error("ibv", "cannot connect queue pair %u to rank %d (its QP %u): %m", q,
                         rank, qpn);
                return PTL_FAIL;
            }
        }
        /* QPs beyond what the peer offers stay unused */
        for (unsigned q = peer->nqps; q < st->nqps; q++) {
            ibv_destroy_qp(peer->qp[q]);
            peer->qp[q] = NULL;
        }
    }
    return PTL_OK;
}

int ibv_qp_setup(struct ibv_state *st)
{
    int size = st->ni->size;
    int rc = st->nports ? create_all(st) : PTL_OK;
    struct ibv_wire_head mine;
    memset(&mine, 0, sizeof mine);
    mine.magic = IBV_WIRE_MAGIC;
    mine.nqps = rc == PTL_OK ? st->nqps : 0;
    mine.nports = st->nports;
    mine.psn = make_psn(st->ni->rank);
    mine.credits = (uint32_t)st->request_credits;
    mine.region_base = (uint64_t)(uintptr_t)st->ni->region;
    mine.pin_maxsz = st->set.pin_maxsz ? st->set.pin_maxsz : st->ni->region_bytes;
    for (unsigned p = 0; p < st->nports; p++)
        ibv_port_describe(st, p, &mine.port[p]);
    struct ibv_wire_head *heads = calloc((size_t)size, sizeof *heads);
    if (heads == NULL)
        rc = PTL_NO_SPACE;
    /* Every rank takes part in both exchanges, even after a local failure. */
    if (gp_boot_allgather(&mine, heads ? (void *)heads : (void *)&mine, heads ? sizeof mine : 0) != 0 &&
        rc == PTL_OK)
        rc = PTL_FAIL;
    unsigned max_qps = 1;
    for (int rank = 0; heads && rank < size; rank++)
        if (heads[rank].nqps > max_qps)
            max_qps = heads[rank].nqps;
    size_t row = (size_t)size * max_qps;
    uint32_t *my_qpns = calloc(row, sizeof *my_qpns);
    uint32_t *qpns = calloc(row * (size_t)size, sizeof *qpns);
    if (my_qpns == NULL || qpns == NULL) {
        rc = PTL_NO_SPACE;
    } else {
        for (int rank = 0; rank < size; rank++)
            for (unsigned q = 0; q < st->nqps && q < max_qps; q++)
                if (st->peers[rank].qp[q])
                    my_qpns[(size_t)rank * max_qps + q] = st->peers[rank].qp[q]->qp_num;
    }
    if (gp_boot_allgather(my_qpns, qpns, qpns ? row * sizeof *qpns : 0) != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    if (rc == PTL_OK)
        rc = connect_all(st, heads, qpns, max_qps);
    free(heads);
    free(my_qpns);
    free(qpns);
    return rc;
}

void ibv_qp_destroy_all(struct ibv_state *st)
{
    for (int rank = 0; st->peers && rank < st->ni->size; rank++)
        for (unsigned q = 0; q < IBV_MAX_QPS; q++)
            if (st->peers[rank].qp[q]) {
                ibv_destroy_qp(st->peers[rank].qp[q]);
                st->peers[rank].qp[q] = NULL;
            }
}
