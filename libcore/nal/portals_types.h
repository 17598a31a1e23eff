/*
 * The plain Portals values a transport speaks: status codes, event kinds,
 * handles, MD options and acknowledgement requests.  They live here, below
 * ptl, because transports return and read them while ptl defines the
 * objects they belong to; ptl/ptl.h includes this, so the conduit sees one
 * Portals interface.
 */
#ifndef GP_NAL_PORTALS_TYPES_H
#define GP_NAL_PORTALS_TYPES_H

#include <stdint.h>

enum ptl_status {
    PTL_OK = 0,
    PTL_FAIL,             /* a transport or system failure, already logged */
    PTL_NO_SPACE,         /* a fixed-size table or the registered region is full */
    PTL_EQ_EMPTY,         /* no event waiting */
    PTL_EQ_DROPPED,       /* an event was returned, but at least one was lost before it */
    PTL_EQ_INVALID,
    PTL_MD_INVALID,       /* stale or unknown MD handle */
    PTL_MD_ILLEGAL,       /* bad MD description (e.g. attached memory outside the region) */
    PTL_MD_IN_USE,        /* unlink of an MD that still has operations pending */
    PTL_PT_INDEX_INVALID,
    PTL_PROCESS_INVALID,  /* target rank out of range */
    PTL_SEGV,             /* local offset/length outside the MD */
    PTL_NO_INIT
};

enum ptl_event_kind {
    PTL_EVENT_SEND_END = 1,
    PTL_EVENT_ACK,
    PTL_EVENT_PUT_END,
    PTL_EVENT_GET_END,
    PTL_EVENT_REPLY_END,
    PTL_EVENT_UNLINK
};

/* Handles are an index and a generation, so a stale handle is detected.  An
 * MD slot is reused for every TMPMD, so its generation is 48 bits wide: it
 * does not come round again in the life of any job (a 16-bit one did after
 * 65,536 binds, and a stale handle then named the new MD). */
typedef uint64_t ptl_handle_md_t;
typedef uint32_t ptl_handle_eq_t;
#define PTL_INVALID_HANDLE ((uint32_t)0)
#define PTL_EQ_NONE ((ptl_handle_eq_t)0)

/* MD options (Portals 3.3 names where Portals has one). */
#define PTL_MD_OP_PUT           0x0001u  /* accepts remote puts */
#define PTL_MD_OP_GET           0x0002u  /* accepts remote gets */
#define PTL_MD_MANAGE_REMOTE    0x0004u  /* initiator's offset is used; default is locally managed */
#define PTL_MD_TRUNCATE         0x0008u  /* accept a too-long message, keeping what fits */
#define PTL_MD_ACK_DISABLE      0x0010u  /* never send an ACK for puts into this MD */
#define PTL_MD_SEND_END_DISABLE 0x0020u  /* no SEND_END for operations from this MD */
#define PTL_MD_EVENT_DISABLE    0x0040u  /* no events at all except UNLINK */
/* gp's own: the MD stays attached, unchanged, until ptl_ni_fini, so a
 * transport may tell initiators where it lies once and let them reach it
 * by RDMA from then on (ibv: ptl_target_window). */
#define PTL_MD_PERMANENT        0x0080u

/*
 * PTL_NOACK_DEFER is PTL_NOACK_REQ with a hint beyond Portals: nothing
 * waits on this put, so a message transport may hold it back until its next
 * progress pass and send it with whatever follows (the tcp transport does;
 * the others treat it as PTL_NOACK_REQ).  The conduit's implicit replies
 * use it: they only return resources.  PTL_ACK_DEFER is PTL_ACK_REQ with
 * the same hint: the caller waits for the ACK of a batch, not of this put
 * alone, so the put may go with those that follow it (the conduit's
 * non-blocking implicit-handle puts: a burst leaves in one write).
 */
enum ptl_ack_req { PTL_NOACK_REQ = 0, PTL_ACK_REQ = 1, PTL_NOACK_DEFER = 2, PTL_ACK_DEFER = 3 };

#endif
