/*
 * Plain verbs, no gp: proves that a program built on the host against
 * Debian's libibverbs finds a working RDMA device where it runs (the VM of
 * tests/ibv/vm), so that a failing gp job over ibv is gp's fault and not
 * the harness's.  Two RC queue pairs in this one process, connected to each
 * other through the device's GID: an RDMA WRITE, an RDMA READ and a
 * SEND/RECV of 64 KiB, every byte checked.
 *
 * Usage: verbs_smoke [DEVICE [GID_INDEX]]     (defaults: the first device, GID 1)
 * GID 1 on rxe is the IPv4-mapped address of the netdev, the one RoCE v2
 * routes over; 0 is the link-local one.
 */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 65536
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "verbs_smoke: %s failed: ", #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static struct ibv_cq *cq;

/* Busy-polls one completion: this program has nothing else to do. */
static void wait_completion(const char *what)
{
    struct ibv_wc wc;
    int n;
    do
        n = ibv_poll_cq(cq, 1, &wc);
    while (n == 0);
    CHECK(n == 1, "ibv_poll_cq returned %d during %s", n, what);
    CHECK(wc.status == IBV_WC_SUCCESS, "%s completed with %s", what, ibv_wc_status_str(wc.status));
}

/* INIT -> RTR -> RTS towards the queue pair DEST_QPN at GID; the retry
 * counts are the largest, because emulated rxe can be slow to answer. */
static void connect_qp(struct ibv_qp *qp, uint32_t dest_qpn, const union ibv_gid *gid, int gid_index)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                             .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                                IBV_ACCESS_REMOTE_READ };
    CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                    IBV_QP_ACCESS_FLAGS) == 0, "to INIT");
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest_qpn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = *gid;
    a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.port_num = 1;
    CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                    IBV_QP_MIN_RNR_TIMER) == 0, "to RTR");
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0,
          "to RTS");
}

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : NULL;
    int gid_index = argc > 2 ? atoi(argv[2]) : 1, count = 0;
    struct ibv_device **list = ibv_get_device_list(&count);
    CHECK(list != NULL && count > 0, "no RDMA device (is rdma_rxe loaded and rxe0 added?)");
    struct ibv_device *dev = NULL;
    for (int i = 0; i < count && !dev; i++)
        if (!want || strcmp(ibv_get_device_name(list[i]), want) == 0)
            dev = list[i];
    CHECK(dev != NULL, "no device named %s among %d", want, count);
    char name[IBV_SYSFS_NAME_MAX];
    snprintf(name, sizeof name, "%s", ibv_get_device_name(dev)); /* the list is freed before the end */

    struct ibv_context *ctx = ibv_open_device(dev);
    CHECK(ctx != NULL, "cannot open %s", name);
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    CHECK(pd != NULL, "protection domain");
    unsigned char *a = calloc(1, LEN), *b = calloc(1, LEN);
    CHECK(a && b, "out of memory");
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    struct ibv_mr *ma = ibv_reg_mr(pd, a, LEN, access), *mb = ibv_reg_mr(pd, b, LEN, access);
    CHECK(ma && mb, "memory registration (locked memory limit?)");
    cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    CHECK(cq != NULL, "completion queue");
    struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                   .cap = { .max_send_wr = 8, .max_recv_wr = 8,
                                            .max_send_sge = 1, .max_recv_sge = 1 } };
    struct ibv_qp *q1 = ibv_create_qp(pd, &qa), *q2 = ibv_create_qp(pd, &qa);
    CHECK(q1 && q2, "queue pairs");
    union ibv_gid gid;
    CHECK(ibv_query_gid(ctx, 1, gid_index, &gid) == 0, "GID %d of %s port 1", gid_index, name);
    connect_qp(q1, q2->qp_num, &gid, gid_index);
    connect_qp(q2, q1->qp_num, &gid, gid_index);

    for (int i = 0; i < LEN; i++)
        a[i] = (unsigned char)(i * 7 + 3 + (i >> 8));
    struct ibv_sge sge = { .addr = (uintptr_t)a, .length = LEN, .lkey = ma->lkey };
    struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                              .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = { .remote_addr = (uintptr_t)b, .rkey = mb->rkey } };
    struct ibv_send_wr *bad_wr;
    CHECK(ibv_post_send(q1, &wr, &bad_wr) == 0, "post RDMA WRITE");
    wait_completion("RDMA WRITE");
    CHECK(memcmp(a, b, LEN) == 0, "RDMA WRITE: the bytes differ");

    memset(a, 0, LEN);
    wr.opcode = IBV_WR_RDMA_READ;
    CHECK(ibv_post_send(q1, &wr, &bad_wr) == 0, "post RDMA READ");
    wait_completion("RDMA READ");
    CHECK(memcmp(a, b, LEN) == 0, "RDMA READ: the bytes differ");

    struct ibv_sge rsge = { .addr = (uintptr_t)b, .length = LEN, .lkey = mb->lkey };
    struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_rwr;
    CHECK(ibv_post_recv(q2, &rwr, &bad_rwr) == 0, "post RECV");
    memset(b, 0, LEN);
    for (int i = 0; i < LEN; i++)
        a[i] = (unsigned char)(i * 13 + 5);
    wr.opcode = IBV_WR_SEND;
    CHECK(ibv_post_send(q1, &wr, &bad_wr) == 0, "post SEND");
    wait_completion("SEND/RECV");
    wait_completion("SEND/RECV");
    CHECK(memcmp(a, b, LEN) == 0, "SEND/RECV: the bytes differ");

    ibv_destroy_qp(q1);
    ibv_destroy_qp(q2);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(ma);
    ibv_dereg_mr(mb);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    free(a);
    free(b);
    printf("verbs_smoke: RDMA WRITE, RDMA READ and SEND/RECV of %d bytes over %s verified\n", LEN,
           name);
    return 0;
}
