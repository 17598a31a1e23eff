/*
 * The EX AM entry points behind gasnetex_am.h's macros (§7): the team and
 * rank, the flags and the local-completion choice checked, then the same
 * conduit calls as GASNet-1's AMs.  Injection errors are fatal in EX (it
 * has no error returns there: non-zero means an IMMEDIATE call declined,
 * and gp never declines).  The conduit has copied a payload out of the
 * source when a request or reply returns, so local completion is always
 * reached before return: an lc_opt pointer receives GEX_EVENT_INVALID and
 * GEX_EVENT_GROUP has nothing to count.
 */
#include <gasnetex.h>
#include <stdarg.h>

#include "api/common/export.h"
#include "api/common/gex_objects.h"
#include "api/ex/am_inject.h"
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "util/log.h"

static const char *const request_names[] = { "gex_AM_RequestShort", "gex_AM_RequestMedium",
                                             "gex_AM_RequestLong" };
static const char *const reply_names[] = { "gex_AM_ReplyShort", "gex_AM_ReplyMedium",
                                           "gex_AM_ReplyLong" };

void gpx_am_check_flags(const char *call, gex_Flags_t flags, int nargs)
{
    gpx_check_addressing(call, flags);
    if (nargs < 0 || nargs > GPC_MAX_ARGS)
        gp_fatal("%s: %d handler arguments; AM calls take 0 to %d", call, nargs, GPC_MAX_ARGS);
}

/* Requests take NOW, GROUP or a pointer (DEFER has no root event to wait with); replies NOW. */
static void complete_lc(const char *call, gex_Event_t *lc_opt, int is_request)
{
    if (lc_opt == GEX_EVENT_NOW)
        return;
    if (!is_request)
        gp_fatal("%s: lc_opt must be GEX_EVENT_NOW for a reply", call);
    if (lc_opt == NULL || lc_opt == GEX_EVENT_DEFER)
        gp_fatal("%s: lc_opt %s; accepted are GEX_EVENT_NOW, GEX_EVENT_GROUP or a gex_Event_t "
                 "pointer", call, lc_opt == NULL ? "is NULL" : "GEX_EVENT_DEFER");
    if (lc_opt != GEX_EVENT_GROUP)
        *lc_opt = GEX_EVENT_INVALID;
}

/* Inline in this file's own requests and replies (one call layer less per AM, which is
 * what kept a gex_ AM dearer than its GASNet-1 twin); npam.c calls the functions below. */
static inline void inject_request(const char *call, unsigned category, gasnet_node_t jobrank,
                                  gex_AM_Index_t handler, const void *source, size_t nbytes,
                                  void *dest_addr, gex_Event_t *lc_opt, int nargs,
                                  const gasnet_handlerarg_t *args)
{
    if (handler == 0)
        gp_fatal("%s: handler index 0 is reserved", call);
    if (gp_api_check_am_payload(call, category, jobrank, source, nbytes, dest_addr) != GASNET_OK)
        gp_fatal("%s: refused (the line above says why)", call);
    if (category != GPC_SHORT)
        complete_lc(call, lc_opt, 1);
    gpc_request_progress(); /* a client may loop on requests alone (doc/progress.md) */
    int rc = gpc_am_request(jobrank, category, handler, (void *)source, nbytes, dest_addr, nargs,
                            args);
    if (rc != GASNET_OK)
        gp_fatal("%s: %s", call, gasnet_ErrorName(rc));
}

static inline void inject_reply(const char *call, unsigned category, struct gpc_token *t,
                                gex_AM_Index_t handler, const void *source, size_t nbytes,
                                void *dest_addr, gex_Event_t *lc_opt, int nargs,
                                const gasnet_handlerarg_t *args)
{
    if (gp_api_check_reply(call, category, t, handler, source, nbytes, dest_addr) != GASNET_OK)
        gp_fatal("%s: refused (the line above says why)", call);
    if (category != GPC_SHORT)
        complete_lc(call, lc_opt, 0);
    int rc = gpc_am_reply(t, category, handler, (void *)source, nbytes, dest_addr, nargs,
                          args);
    if (rc != GASNET_OK)
        gp_fatal("%s: %s", call, gasnet_ErrorName(rc));
}

void gpx_am_request(const char *call, unsigned category, gasnet_node_t jobrank,
                    gex_AM_Index_t handler, const void *source, size_t nbytes, void *dest_addr,
                    gex_Event_t *lc_opt, int nargs, const gasnet_handlerarg_t *args)
{
    inject_request(call, category, jobrank, handler, source, nbytes, dest_addr, lc_opt, nargs,
                   args);
}

void gpx_am_reply(const char *call, unsigned category, struct gpc_token *t,
                  gex_AM_Index_t handler, const void *source, size_t nbytes, void *dest_addr,
                  gex_Event_t *lc_opt, int nargs, const gasnet_handlerarg_t *args)
{
    inject_reply(call, category, t, handler, source, nbytes, dest_addr, lc_opt, nargs, args);
}

static int request(unsigned category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                   const void *source, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                   gex_Flags_t flags, int nargs, va_list ap)
{
    const char *call = request_names[category];
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    gpx_am_check_flags(call, flags, nargs);
    gpx_check_callable(call);
    rank = gpx_tm_jobrank(call, tm, rank);
    for (int i = 0; i < nargs; i++)
        args[i] = va_arg(ap, gasnet_handlerarg_t);
    inject_request(call, category, rank, handler, source, nbytes, dest_addr, lc_opt, nargs, args);
    return 0;
}

static int reply(unsigned category, gex_Token_t token, gex_AM_Index_t handler,
                 const void *source, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                 gex_Flags_t flags, int nargs, va_list ap)
{
    const char *call = reply_names[category];
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    gpx_am_check_flags(call, flags, nargs);
    for (int i = 0; i < nargs; i++)
        args[i] = va_arg(ap, gasnet_handlerarg_t);
    inject_reply(call, category, (struct gpc_token *)token, handler, source, nbytes, dest_addr,
                 lc_opt, nargs, args);
    return 0;
}

GP_EXPORT int _gex_AM_RequestShortM(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    gex_Flags_t flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = request(GPC_SHORT, tm, rank, handler, NULL, 0, NULL, GEX_EVENT_NOW, flags, nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_RequestMediumM(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                     const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                                     gex_Flags_t flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = request(GPC_MEDIUM, tm, rank, handler, source_addr, nbytes, NULL, lc_opt, flags,
                     nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_RequestLongM(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                   const void *source_addr, size_t nbytes, void *dest_addr,
                                   gex_Event_t *lc_opt, gex_Flags_t flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = request(GPC_LONG, tm, rank, handler, source_addr, nbytes, dest_addr, lc_opt, flags,
                     nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_ReplyShortM(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                                  int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = reply(GPC_SHORT, token, handler, NULL, 0, NULL, GEX_EVENT_NOW, flags, nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_ReplyMediumM(gex_Token_t token, gex_AM_Index_t handler,
                                   const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                                   gex_Flags_t flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = reply(GPC_MEDIUM, token, handler, source_addr, nbytes, NULL, lc_opt, flags, nargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gex_AM_ReplyLongM(gex_Token_t token, gex_AM_Index_t handler,
                                 const void *source_addr, size_t nbytes, void *dest_addr,
                                 gex_Event_t *lc_opt, gex_Flags_t flags, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    int rc = reply(GPC_LONG, token, handler, source_addr, nbytes, dest_addr, lc_opt, flags,
                   nargs, ap);
    va_end(ap);
    return rc;
}

/* One limit for every destination, lc_opt, flag set and argument count: the LUBs. */
GP_EXPORT size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                         gex_Flags_t flags, unsigned int nargs)
{
    (void)tm, (void)rank, (void)lc_opt, (void)flags, (void)nargs;
    return gex_AM_LUBRequestMedium();
}

GP_EXPORT size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int nargs)
{
    (void)tm, (void)rank, (void)lc_opt, (void)flags, (void)nargs;
    return gex_AM_LUBReplyMedium();
}

GP_EXPORT size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int nargs)
{
    (void)tm, (void)rank, (void)lc_opt, (void)flags, (void)nargs;
    return gex_AM_LUBRequestLong();
}

GP_EXPORT size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                                     gex_Flags_t flags, unsigned int nargs)
{
    (void)tm, (void)rank, (void)lc_opt, (void)flags, (void)nargs;
    return gex_AM_LUBReplyLong();
}

GP_EXPORT size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                          gex_Flags_t flags, unsigned int nargs)
{
    (void)token, (void)lc_opt, (void)flags, (void)nargs;
    return gex_AM_LUBReplyMedium();
}

GP_EXPORT size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                                        gex_Flags_t flags, unsigned int nargs)
{
    (void)token, (void)lc_opt, (void)flags, (void)nargs;
    return gex_AM_LUBReplyLong();
}

GP_EXPORT gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask)
{
    const struct gpc_token *t = (const struct gpc_token *)token;
    if (t == NULL || info == NULL)
        gp_fatal("gex_Token_Info: token=%p info=%p; both are needed (inside a handler)",
                 token, (void *)info);
    if (mask & GEX_TI_SRCRANK)
        info->gex_srcrank = t->source;
    if (mask & GEX_TI_EP)
        info->gex_ep = &gpx_ep;
    if (mask & GEX_TI_ENTRY)
        info->gex_entry = &gpc.am_entries[t->handler];
    if (mask & GEX_TI_IS_REQ)
        info->gex_is_req = t->is_request;
    if (mask & GEX_TI_IS_LONG)
        info->gex_is_long = t->category == GPC_LONG;
    return mask & GEX_TI_ALL;
}
