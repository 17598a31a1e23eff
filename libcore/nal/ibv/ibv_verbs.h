/*
 * The verbs libgp calls, reached through a table that ibv_verbs_load fills
 * from libibverbs.so.1 the first time a job wants verbs (util/dynlib.h):
 * a process that never crosses hosts over ibv maps neither libibverbs nor
 * libnl.  Included by ibv.h right after <infiniband/verbs.h>: each library
 * function the transport calls is redefined as a macro onto its slot, so
 * the code reads as plain verbs.  The data-path verbs (ibv_post_send,
 * ibv_post_recv, ibv_post_srq_recv, ibv_poll_cq, ibv_req_notify_cq) are inline dispatches
 * through the device's context and need no slot (tests/fuzz/fuzz_ibv_msg.c
 * drives them with a fake context and never loads the library).
 */
#ifndef GP_NAL_IBV_VERBS_H
#define GP_NAL_IBV_VERBS_H

#include <infiniband/verbs.h>
#include <string.h>

struct gp_verbs {
    struct ibv_device **(*get_device_list)(int *num_devices);
    void (*free_device_list)(struct ibv_device **list);
    const char *(*get_device_name)(struct ibv_device *device);
    struct ibv_context *(*open_device)(struct ibv_device *device);
    int (*close_device)(struct ibv_context *context);
    int (*query_device)(struct ibv_context *context, struct ibv_device_attr *device_attr);
    int (*query_port)(struct ibv_context *context, uint8_t port_num,
                      struct _compat_ibv_port_attr *port_attr);
    int (*query_gid)(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid);
    struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
    int (*dealloc_pd)(struct ibv_pd *pd);
    struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
    int (*dereg_mr)(struct ibv_mr *mr);
    struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *context);
    int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
    int (*get_cq_event)(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);
    void (*ack_cq_events)(struct ibv_cq *cq, unsigned int nevents);
    struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe, void *cq_context,
                                struct ibv_comp_channel *channel, int comp_vector);
    int (*destroy_cq)(struct ibv_cq *cq);
    struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);
    int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
    int (*destroy_qp)(struct ibv_qp *qp);
    struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr);
    int (*destroy_srq)(struct ibv_srq *srq);
    const char *(*wc_status_str)(enum ibv_wc_status status);
    const char *(*port_state_str)(enum ibv_port_state port_state);
};

extern struct gp_verbs gp_verbs;

/*
 * Loads libibverbs.so.1 once (later calls answer at once).  needed_by names
 * what wanted verbs ("GP_TRANSPORT=ibv").  0; or, when the library cannot be
 * loaded: with fatal set, ends the job naming the library, needed_by and the
 * loader's words; without, warns once the same way and returns -1 (the
 * hybrid transport then reaches other hosts over tcp).  needed_by NULL (and
 * fatal 0): returns -1 quietly, for a caller that says it (gp-check's line;
 * the once-only warning then counts as given).
 */
int ibv_verbs_load(const char *needed_by, int fatal);
/* After ibv_verbs_load failed: the loader's words (the names tried, the missing symbol). */
const char *ibv_verbs_why(void);

/*
 * 1 when this host shows a verbs device (/sys/class/infiniband_verbs, where
 * libibverbs itself looks), without loading anything: the hybrid
 * transport's first guess, before it knows whether the job crosses hosts.
 */
int ibv_verbs_devices_present(void);

#undef ibv_get_device_list
#define ibv_get_device_list(num) gp_verbs.get_device_list(num)
#define ibv_free_device_list(list) gp_verbs.free_device_list(list)
#define ibv_get_device_name(dev) gp_verbs.get_device_name(dev)
#define ibv_open_device(dev) gp_verbs.open_device(dev)
#define ibv_close_device(ctx) gp_verbs.close_device(ctx)
#define ibv_query_device(ctx, attr) gp_verbs.query_device(ctx, attr)
#undef ibv_query_port
#define ibv_query_port(ctx, port, attr) gp_ibv_query_port(ctx, port, attr)
#define ibv_query_gid(ctx, port, index, gid) gp_verbs.query_gid(ctx, port, index, gid)
#define ibv_alloc_pd(ctx) gp_verbs.alloc_pd(ctx)
#define ibv_dealloc_pd(pd) gp_verbs.dealloc_pd(pd)
/* verbs.h's ibv_reg_mr takes ibv_reg_mr_iova2 only for IBV_ACCESS_OPTIONAL_RANGE flags: gp sets none. */
#undef ibv_reg_mr
#define ibv_reg_mr(pd, addr, len, access) gp_verbs.reg_mr(pd, addr, len, (int)(access))
#define ibv_dereg_mr(mr) gp_verbs.dereg_mr(mr)
#define ibv_create_comp_channel(ctx) gp_verbs.create_comp_channel(ctx)
#define ibv_destroy_comp_channel(ch) gp_verbs.destroy_comp_channel(ch)
#define ibv_get_cq_event(ch, cq, cq_ctx) gp_verbs.get_cq_event(ch, cq, cq_ctx)
#define ibv_ack_cq_events(cq, n) gp_verbs.ack_cq_events(cq, n)
#define ibv_create_cq(ctx, cqe, cq_ctx, ch, vector) gp_verbs.create_cq(ctx, cqe, cq_ctx, ch, vector)
#define ibv_destroy_cq(cq) gp_verbs.destroy_cq(cq)
#define ibv_create_qp(pd, attr) gp_verbs.create_qp(pd, attr)
#define ibv_modify_qp(qp, attr, mask) gp_verbs.modify_qp(qp, attr, mask)
#define ibv_destroy_qp(qp) gp_verbs.destroy_qp(qp)
#define ibv_create_srq(pd, attr) gp_verbs.create_srq(pd, attr)
#define ibv_destroy_srq(srq) gp_verbs.destroy_srq(srq)
#define ibv_wc_status_str(status) gp_verbs.wc_status_str(status)
#define ibv_port_state_str(state) gp_verbs.port_state_str(state)

/*
 * verbs.h's own ibv_query_port, onto the table: the provider's extended
 * query when it has one, else the library's call with the older layout.
 */
static inline int gp_ibv_query_port(struct ibv_context *context, uint8_t port_num,
                                    struct ibv_port_attr *port_attr)
{
    struct verbs_context *vctx = verbs_get_ctx_op(context, query_port);
    if (vctx == NULL) {
        memset(port_attr, 0, sizeof *port_attr);
        return gp_verbs.query_port(context, port_num, (struct _compat_ibv_port_attr *)port_attr);
    }
    return vctx->query_port(context, port_num, port_attr, sizeof *port_attr);
}

#endif
