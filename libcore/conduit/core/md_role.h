/*
 * What an MD is, told by the user_ptr it hands back in every event.  The
 * pointer is a tagged one: it holds either one of the small role numbers
 * below, or, for a ReqRB buffer, the address of that buffer's record
 * (struct gpc_reqrb_buffer), which reqrb.c needs to recycle the buffer.
 * No record lies in the first page of memory, so a value below ROLE_LAST is
 * a role and anything else is a ReqRB buffer's record.  Tag an MD and read
 * an event's tag only through these functions.
 */
#ifndef GP_CONDUIT_MD_ROLE_H
#define GP_CONDUIT_MD_ROLE_H

#include <stdint.h>

#include "ptl/ptl.h"

enum gpc_md_role {
    ROLE_NONE = 0,       /* an MD without an event queue (the RAR segment, SYSMD) */
    ROLE_REQSB,          /* request chunks, where replies land */
    ROLE_RPLSB,          /* reply chunks */
    ROLE_RARSAFE,        /* the segment on PT_RARSAFE: unpacked Long reply data, Long sources */
    ROLE_RARAM,          /* the segment on PT_RARAM: unpacked Long request data */
    ROLE_CB,             /* the catch basin behind the ReqRB chain */
    ROLE_TMPMD,          /* a temporary MD over a client buffer */
    ROLE_LAST,
    ROLE_REQRB_BUFFER = ROLE_LAST,   /* a ReqRB buffer: the tag is its record */
};

struct gpc_reqrb_buffer;

/* The user_ptr of an MD with this role. */
static inline void *gpc_md_tag_role(enum gpc_md_role role)
{
    return (void *)(uintptr_t)role;
}

/* The user_ptr of a ReqRB buffer's MD: the buffer's record. */
static inline void *gpc_md_tag_reqrb_buffer(struct gpc_reqrb_buffer *buffer)
{
    return buffer;
}

/* The role of the MD an event happened on. */
static inline enum gpc_md_role gpc_md_role_of(const struct ptl_event *event)
{
    uintptr_t tag = (uintptr_t)event->md_user_ptr;
    return tag < ROLE_LAST ? (enum gpc_md_role)tag : ROLE_REQRB_BUFFER;
}

/* The record of the ReqRB buffer an event happened on, NULL for any other MD. */
static inline struct gpc_reqrb_buffer *gpc_md_reqrb_buffer(const struct ptl_event *event)
{
    return gpc_md_role_of(event) == ROLE_REQRB_BUFFER ? event->md_user_ptr : NULL;
}

#endif
