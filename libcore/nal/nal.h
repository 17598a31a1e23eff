/*
 * The transport ops table.  A transport (network abstraction layer, in the
 * seed's Portals vocabulary) moves bytes between registered regions; it
 * knows nothing of AMs or credits.  Every transport fills every slot: an
 * operation it cannot do points at nal_unsupported_*, never at NULL.
 */
#ifndef GP_NAL_NAL_H
#define GP_NAL_NAL_H

#include <stdint.h>

#include "ptl/ptl.h"

struct ptl_ni;
struct ptl_md_local;

/* One put or get as the ptl layer hands it to a transport. */
struct nal_op {
    unsigned target;
    unsigned pt_index;
    uint64_t match_bits;
    uint64_t remote_offset;
    uint64_t hdr_data;
    uint64_t length;
    void *local_addr;           /* source of a put, destination of a get */
    uint64_t local_offset;      /* from the local MD's start, for events */
    ptl_handle_md_t md;
    struct ptl_md_local *md_local;
    int ack_req;                /* PTL_ACK_DEFER arrives as PTL_ACK_REQ with hold set */
    int hold;                   /* PTL_*_DEFER: may wait for the transport's next pass */
};

struct nal_ops {
    const char *name;
    /* 1: GP_TRANSPORT may name it for every peer of a job (shm, tcp, ibv); the
     * hybrid is what GP_TRANSPORT unset means, and loop is the test double. */
    int user_selectable;
    /* 1: this process's region is a /dev/shm object (shm_open), so /dev/shm's
     * free space bounds the segment and a page it cannot supply is a SIGBUS. */
    int region_in_dev_shm;
    /* Creates this process's registered region of the given size: sets ni->region. */
    int (*region_create)(struct ptl_ni *ni, uint64_t bytes);
    /* Collective: learns every peer's region (shm maps them) and makes itself reachable. */
    int (*connect)(struct ptl_ni *ni);
    int (*put)(struct ptl_ni *ni, const struct nal_op *op);
    int (*get)(struct ptl_ni *ni, const struct nal_op *op);
    int (*progress)(struct ptl_ni *ni);
    /* Collective: releases the region and every mapping. */
    void (*fini)(struct ptl_ni *ni);
    /* At the job's end (the process exits without fini): the transport's own
     * summary lines, when asked for (GASNET_FIREHOSE_VERBOSE). */
    void (*report)(struct ptl_ni *ni);
};

/* The transports, in one explicit list (registry.c). */
const struct nal_ops *nal_find(const char *name);
/* Names of the transports built in, in the registry's order, separated by '|'
 * ("hybrid|shm|tcp|ibv|loop"): for error messages. */
const char *nal_names(void);
/* The names GP_TRANSPORT accepts (user_selectable), the same way ("shm|tcp|ibv"):
 * the configuration row's choices, gp-check's --transport, their messages. */
const char *nal_selectable_names(void);

int nal_unsupported_op(struct ptl_ni *ni, const struct nal_op *op);
int nal_no_progress(struct ptl_ni *ni);
void nal_no_report(struct ptl_ni *ni);

extern const struct nal_ops nal_hybrid_ops;
extern const struct nal_ops nal_shm_ops;
extern const struct nal_ops nal_tcp_ops;
extern const struct nal_ops nal_ibv_ops;
extern const struct nal_ops nal_ofi_ops;
extern const struct nal_ops nal_loop_ops;

#endif
