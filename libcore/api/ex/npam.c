/*
 * Negotiated-payload AMs (spec §8): Prepare grants a buffer, Commit sends
 * it through the same injection step as the fixed-payload AMs (am.c), so an
 * NPAM costs a fixed-payload AM plus the client's fill.  A copying
 * implementation: the conduit has taken the payload when Commit returns,
 * so local completion is reached there (a leaf event is GEX_EVENT_INVALID)
 * and Prepare never declines (never GEX_AM_SRCDESC_NO_OP).
 *
 * Each thread holds two descriptors, one for a Request and one for a Reply:
 * a Request's Commit may run handlers while it waits to send, and one of
 * them may prepare its Reply.  Each has a buffer of the Medium limit for
 * Prepare without a client buffer; only a Long asking for more than that
 * gets a malloc'd one, freed at Commit or Cancel.
 */
#include <gasnetex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "api/ex/am_inject.h"
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "util/log.h"

struct _gex_srcdesc {
    int live;                    /* between Prepare and Commit or Cancel */
    unsigned category;           /* GPC_MEDIUM or GPC_LONG */
    gasnet_node_t jobrank;       /* a Request's destination */
    struct gpc_token *token;     /* a Reply's token */
    char *addr;
    size_t least, size;
    unsigned numargs;
    gex_Event_t *lc_opt;         /* NOW when gp owns the buffer */
    char *owned;                 /* a malloc'd Long buffer, freed on release */
    union {
        max_align_t align;       /* handlers and clients store any scalar through it */
        char bytes[GPC_MAX_MEDIUM];
    } buf;
};

static _Thread_local struct _gex_srcdesc request_sd, reply_sd;

static const char *const prepare_names[2][2] = {
    { "gex_AM_PrepareRequestMedium", "gex_AM_PrepareRequestLong" },
    { "gex_AM_PrepareReplyMedium", "gex_AM_PrepareReplyLong" },
};
static const char *const commit_names[2][2] = {
    { "gex_AM_CommitRequestMedium", "gex_AM_CommitRequestLong" },
    { "gex_AM_CommitReplyMedium", "gex_AM_CommitReplyLong" },
};
static const char *const cancel_names[2][2] = {
    { "gex_AM_CancelRequestMedium", "gex_AM_CancelRequestLong" },
    { "gex_AM_CancelReplyMedium", "gex_AM_CancelReplyLong" },
};

static int is_long(unsigned category)
{
    return category == GPC_LONG;
}

/* With a client buffer lc_opt is a Request's NOW, GROUP or pointer, a Reply's NOW; with
 * gp's buffer it must be NULL (the client has nothing to wait for). */
static void check_lc(const char *call, const void *client_buf, gex_Event_t *lc_opt, int reply)
{
    if (client_buf == NULL) {
        if (lc_opt != NULL)
            gp_fatal("%s: lc_opt %p with client_buf NULL; gp's buffer takes lc_opt NULL", call,
                     (void *)lc_opt);
        return;
    }
    if (lc_opt == GEX_EVENT_NOW)
        return;
    if (reply)
        gp_fatal("%s: lc_opt must be GEX_EVENT_NOW for a reply from a client buffer", call);
    if (lc_opt == NULL || lc_opt == GEX_EVENT_DEFER)
        gp_fatal("%s: lc_opt %s with a client buffer; accepted are GEX_EVENT_NOW, "
                 "GEX_EVENT_GROUP or a gex_Event_t pointer", call,
                 lc_opt == NULL ? "is NULL" : "GEX_EVENT_DEFER");
}

/* The granted size: most, capped at the category's limit; gp's buffer for a Long holds at
 * least least_payload, else as much of most as the descriptor's own buffer holds. */
static gex_AM_SrcDesc_t prepare(struct _gex_srcdesc *sd, const char *call, unsigned category,
                                const void *client_buf, size_t least, size_t most,
                                gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs,
                                int reply)
{
    gpx_am_check_flags(call, flags, numargs > GPC_MAX_ARGS ? -1 : (int)numargs);
    if (sd->live)
        gp_fatal("%s: this thread already holds a prepared %s (commit or cancel it first)",
                 call, reply ? "reply" : "request");
    size_t limit = is_long(category) ? GPC_MAX_LONG : GPC_MAX_MEDIUM;
    if (least > most)
        gp_fatal("%s: least_payload %zu exceeds most_payload %zu", call, least, most);
    if (least > limit)
        gp_fatal("%s: least_payload %zu exceeds the %s limit of %zu (gex_AM_Max%s%s())", call,
                 least, is_long(category) ? "Long" : "Medium", limit, reply ? "Reply" : "Request",
                 is_long(category) ? "Long" : "Medium");
    check_lc(call, client_buf, lc_opt, reply);
    size_t size = most < limit ? most : limit;
    sd->owned = NULL;
    if (client_buf != NULL) {
        sd->addr = (char *)client_buf;
    } else {
        if (size > sizeof sd->buf.bytes)
            size = least > sizeof sd->buf.bytes ? least : sizeof sd->buf.bytes;
        if (size > sizeof sd->buf.bytes) { /* a large gp-buffer Long: no fast path to keep */
            sd->owned = malloc(size);
            if (sd->owned == NULL)
                gp_fatal("%s: no memory for a %zu-byte payload buffer", call, size);
        }
        sd->addr = sd->owned != NULL ? sd->owned : sd->buf.bytes;
        lc_opt = GEX_EVENT_NOW;
    }
    sd->category = category;
    sd->least = least;
    sd->size = size;
    sd->numargs = numargs;
    sd->lc_opt = lc_opt;
    sd->live = 1;
    return sd;
}

static gex_AM_SrcDesc_t prepare_request(unsigned category, gex_TM_t tm, gex_Rank_t rank,
                                        const void *client_buf, size_t least, size_t most,
                                        gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs)
{
    const char *call = prepare_names[0][is_long(category)];
    gpx_check_callable(call);
    gasnet_node_t jobrank = gpx_tm_jobrank(call, tm, rank);
    gex_AM_SrcDesc_t sd = prepare(&request_sd, call, category, client_buf, least, most, lc_opt,
                                  flags, numargs, 0);
    sd->jobrank = jobrank;
    return sd;
}

/* A Reply Prepare does not spend the token's one reply: Cancel gives it back untouched. */
static gex_AM_SrcDesc_t prepare_reply(unsigned category, gex_Token_t token, const void *client_buf,
                                      size_t least, size_t most, gex_Event_t *lc_opt,
                                      gex_Flags_t flags, unsigned numargs)
{
    const char *call = prepare_names[1][is_long(category)];
    struct gpc_token *t = (struct gpc_token *)token;
    if (t == NULL)
        gp_fatal("%s: NULL token", call);
    if (!t->is_request)
        gp_fatal("%s called from a reply handler (only request handlers may reply)", call);
    if (t->replied)
        gp_fatal("%s: this request handler already replied (at most one reply)", call);
    gex_AM_SrcDesc_t sd = prepare(&reply_sd, call, category, client_buf, least, most, lc_opt,
                                  flags, numargs, 1);
    sd->token = t;
    return sd;
}

GP_EXPORT gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                       const void *client_buf,
                                                       size_t least_payload, size_t most_payload,
                                                       gex_Event_t *lc_opt, gex_Flags_t flags,
                                                       unsigned int numargs)
{
    return prepare_request(GPC_MEDIUM, tm, rank, client_buf, least_payload, most_payload, lc_opt,
                           flags, numargs);
}

GP_EXPORT gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                     const void *client_buf, size_t least_payload,
                                                     size_t most_payload, void *dest_addr,
                                                     gex_Event_t *lc_opt, gex_Flags_t flags,
                                                     unsigned int numargs)
{
    (void)dest_addr; /* Commit names the destination (§8.1: its value is the one used) */
    return prepare_request(GPC_LONG, tm, rank, client_buf, least_payload, most_payload, lc_opt,
                           flags, numargs);
}

GP_EXPORT gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                     size_t least_payload, size_t most_payload,
                                                     gex_Event_t *lc_opt, gex_Flags_t flags,
                                                     unsigned int numargs)
{
    return prepare_reply(GPC_MEDIUM, token, client_buf, least_payload, most_payload, lc_opt,
                         flags, numargs);
}

GP_EXPORT gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                   size_t least_payload, size_t most_payload,
                                                   void *dest_addr, gex_Event_t *lc_opt,
                                                   gex_Flags_t flags, unsigned int numargs)
{
    (void)dest_addr;
    return prepare_reply(GPC_LONG, token, client_buf, least_payload, most_payload, lc_opt, flags,
                         numargs);
}

static struct _gex_srcdesc *live_sd(const char *call, gex_AM_SrcDesc_t sd, unsigned category,
                                    int reply)
{
    struct _gex_srcdesc *mine = reply ? &reply_sd : &request_sd;
    if (sd == GEX_AM_SRCDESC_NO_OP)
        gp_fatal("%s: sd is GEX_AM_SRCDESC_NO_OP (a declined Prepare has nothing to send)", call);
    if (sd != mine || !mine->live || mine->category != category)
        gp_fatal("%s: sd %p is not this thread's live descriptor from %s (committed or "
                 "cancelled already, or prepared by another call)", call, (void *)sd,
                 prepare_names[reply][is_long(category)]);
    return mine;
}

static void release(struct _gex_srcdesc *sd)
{
    sd->live = 0;
    free(sd->owned);
    sd->owned = NULL;
}

static int commit(unsigned category, int reply, gex_AM_SrcDesc_t desc, gex_AM_Index_t handler,
                  size_t nbytes, void *dest_addr, gex_Flags_t commit_flags, int nargs, va_list ap)
{
    const char *call = commit_names[reply][is_long(category)];
    struct _gex_srcdesc *sd = live_sd(call, desc, category, reply);
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    if (commit_flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE)
        gp_fatal("%s: commit_flags 0x%x; accepted are 0 and GEX_FLAG_IMMEDIATE", call,
                 (unsigned)commit_flags);
    if (nargs < 0 || (unsigned)nargs != sd->numargs)
        gp_fatal("%s: %d handler arguments, but its Prepare announced %u", call, nargs,
                 sd->numargs);
    if (nbytes < sd->least || nbytes > sd->size)
        gp_fatal("%s: nbytes %zu is outside [least_payload %zu, granted size %zu]", call, nbytes,
                 sd->least, sd->size);
    for (int i = 0; i < nargs; i++)
        args[i] = va_arg(ap, gasnet_handlerarg_t);
    if (reply)
        gpx_am_reply(call, category, sd->token, handler, sd->addr, nbytes, dest_addr, sd->lc_opt,
                     nargs, args);
    else
        gpx_am_request(call, category, sd->jobrank, handler, sd->addr, nbytes, dest_addr,
                       sd->lc_opt, nargs, args);
    release(sd);
    return 0;
}

GP_EXPORT int _gex_AM_CommitRequestMediumM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                           size_t nbytes, gex_Flags_t commit_flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = commit(GPC_MEDIUM, 0, sd, handler, nbytes, NULL, commit_flags, nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_CommitReplyMediumM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                         size_t nbytes, gex_Flags_t commit_flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = commit(GPC_MEDIUM, 1, sd, handler, nbytes, NULL, commit_flags, nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_CommitRequestLongM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                         size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                         int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = commit(GPC_LONG, 0, sd, handler, nbytes, dest_addr, commit_flags, nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_CommitReplyLongM(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                       size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                       int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = commit(GPC_LONG, 1, sd, handler, nbytes, dest_addr, commit_flags, nargs, ap);
    va_end(ap);
    return rc;
}

static int cancel(unsigned category, int reply, gex_AM_SrcDesc_t desc, gex_Flags_t flags)
{
    const char *call = cancel_names[reply][is_long(category)];
    struct _gex_srcdesc *sd = live_sd(call, desc, category, reply);
    if (flags != 0)
        gp_fatal("%s: flags 0x%x; it takes 0", call, (unsigned)flags);
    release(sd);
    return GASNET_OK;
}

GP_EXPORT int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return cancel(GPC_MEDIUM, 0, sd, flags);
}

GP_EXPORT int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return cancel(GPC_MEDIUM, 1, sd, flags);
}

GP_EXPORT int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return cancel(GPC_LONG, 0, sd, flags);
}

GP_EXPORT int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return cancel(GPC_LONG, 1, sd, flags);
}

static const struct _gex_srcdesc *query_sd(const char *call, gex_AM_SrcDesc_t sd)
{
    if (sd == GEX_AM_SRCDESC_NO_OP || !sd->live)
        gp_fatal("%s: sd %p is not a live descriptor (GEX_AM_SRCDESC_NO_OP, or committed or "
                 "cancelled)", call, (void *)sd);
    return sd;
}

GP_EXPORT void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd)
{
    return query_sd("gex_AM_SrcDescAddr", sd)->addr;
}

GP_EXPORT size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd)
{
    return query_sd("gex_AM_SrcDescSize", sd)->size;
}
