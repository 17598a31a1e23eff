/*
 * The ReqRB chain of seed 000 ("Refresh of ReqRB buffers"): several locally
 * managed buffers on PT_REQRB, with the catch basin (CB) last.  Requests
 * fill the first buffer; when less than a chunk remains it is full and ptl
 * unlinks it.  Once every request it took has been processed (its handler
 * has run, or an unpacked Long's header was copied to the LID cache) the
 * buffer is relinked, empty, at the end of the chain just before the CB.
 * A request that reaches the CB is a fatal error.
 */
#include <stdlib.h>

#include "conduit/am/am_wire.h"
#include "conduit/core/md_role.h"
#include "conduit/am/reqrb.h"
#include "conduit/core/state.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/log.h"
#include "util/thread.h"

static int link_buffer(struct gpc_reqrb_buffer *buffer)
{
    struct ptl_md_desc desc = {
        .start = buffer->start, .length = gpc.reqrb.buffer_bytes, .threshold = PTL_MD_THRESH_INF,
        .max_size = GPC_CHUNK_BYTES, .options = PTL_MD_OP_PUT, .eq = gpc.am_eq,
        .user_ptr = gpc_md_tag_reqrb_buffer(buffer),
    };
    gp_count_set(&buffer->processed, 0);
    gp_count_set(&buffer->unlink_count, -1);
    int rc = ptl_md_attach(gpc.ni, PT_REQRB, 0, ~0ull, &desc, PTL_UNLINK, PTL_INS_BEFORE,
                           gpc.reqrb.cb_md, &buffer->md);
    if (rc != PTL_OK)
        gp_fatal("cannot link a ReqRB buffer: %s", ptl_strerror(rc));
    return GASNET_OK;
}

int gpc_reqrb_setup(void)
{
    struct gpc_reqrb *reqrb = &gpc.reqrb;
    gp_mutex_init(&reqrb->lock);
    reqrb->buffers = gpc.credit_plan.reqrb_buffers;
    reqrb->buffer_bytes = gpc.credit_plan.reqrb_buffer_bytes;
    reqrb->space_bytes = (uint64_t)reqrb->buffers * reqrb->buffer_bytes;
    reqrb->buffer = calloc(reqrb->buffers, sizeof *reqrb->buffer);
    char *space = ptl_region_alloc(gpc.ni, reqrb->space_bytes, 64);
    if (reqrb->buffer == NULL || space == NULL)
        return GASNET_ERR_RESOURCE;
    /* The catch basin: takes any message, keeps none of it, reports it. */
    struct ptl_md_desc cb = { .start = space, .length = 0, .threshold = PTL_MD_THRESH_INF,
                              .options = PTL_MD_OP_PUT | PTL_MD_TRUNCATE | PTL_MD_MANAGE_REMOTE,
                              .eq = gpc.am_eq,
                              .user_ptr = gpc_md_tag_role(ROLE_CB) };
    int rc = ptl_md_attach(gpc.ni, PT_REQRB, 0, ~0ull, &cb, PTL_RETAIN, PTL_INS_AFTER,
                           PTL_INVALID_HANDLE, &reqrb->cb_md);
    if (rc != PTL_OK)
        return GASNET_ERR_RESOURCE;
    for (uint32_t i = 0; i < reqrb->buffers; i++) {
        reqrb->buffer[i].start = space + (uint64_t)i * reqrb->buffer_bytes;
        link_buffer(&reqrb->buffer[i]);
    }
    return GASNET_OK;
}

/* Relinks the buffer if it is unlinked and all it took is processed. */
static void recycle_if_done(struct gpc_reqrb_buffer *buffer)
{
    int64_t took = gp_count_get(&buffer->unlink_count);
    if (took >= 0 && gp_count_get(&buffer->processed) == took)
        link_buffer(buffer);
}

/* The buffer an AM_EQ event on PT_REQRB came from (the catch basin's are handled before). */
static struct gpc_reqrb_buffer *event_buffer(const struct ptl_event *event)
{
    struct gpc_reqrb_buffer *buffer = gpc_md_reqrb_buffer(event);
    if (buffer == NULL)
        gp_fatal("an AM_EQ event (type %d) on an MD of role %d, not a ReqRB buffer",
                 (int)event->type, (int)gpc_md_role_of(event));
    return buffer;
}

void gpc_reqrb_processed(const struct ptl_event *event)
{
    struct gpc_reqrb_buffer *buffer = event_buffer(event);
    gp_mutex_lock(&gpc.reqrb.lock);
    gp_count_add(&buffer->processed, 1);
    recycle_if_done(buffer);
    gp_mutex_unlock(&gpc.reqrb.lock);
}

void gpc_reqrb_unlinked(const struct ptl_event *event)
{
    struct gpc_reqrb_buffer *buffer = event_buffer(event);
    gp_mutex_lock(&gpc.reqrb.lock);
    gp_count_set(&buffer->unlink_count, (int64_t)event->mlength);
    recycle_if_done(buffer);
    gp_mutex_unlock(&gpc.reqrb.lock);
}
