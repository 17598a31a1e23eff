/*
 * reqrb.c: the ReqRB chain where AM request headers land, each buffer
 * recycled once every request in it is processed, and the catch basin (CB)
 * behind the last one.
 */
#ifndef GP_CONDUIT_REQRB_H
#define GP_CONDUIT_REQRB_H

#include <stdint.h>

#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/thread.h"

struct gpc_reqrb_buffer {
    char *start;
    ptl_handle_md_t md;
    gp_count_t processed;    /* requests handled since the buffer was linked */
    gp_count_t unlink_count; /* from its UNLINK event: requests it took; -1 before */
};

struct gpc_reqrb {
    gp_mutex_t lock;         /* PAR: the processed / unlinked bookkeeping */
    uint32_t buffers;
    uint32_t buffer_bytes;
    struct gpc_reqrb_buffer *buffer;
    ptl_handle_md_t cb_md;
    uint64_t space_bytes;
};

int gpc_reqrb_setup(void);
void gpc_reqrb_processed(const struct ptl_event *event);
void gpc_reqrb_unlinked(const struct ptl_event *event);

#endif
