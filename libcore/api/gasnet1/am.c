/*
 * The AM entry points behind gasnet.h's fixed-arity macros (spec 3.12 and
 * 3.13) and the variable-argument forms of 5.4.4, which take the same
 * arguments and share the same two paths: collect the arguments, check every rule the spec gives for the
 * call, and hand the message to the conduit.
 */
#include <gasnet.h>
#include <stdarg.h>

#include "api/common/export.h"
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/core/progress.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "util/log.h"

/* Call names for messages, built once: no formatting on the way of a good call. */
static const char *const request_names[] = { "gasnet_AMRequestShort", "gasnet_AMRequestMedium",
                                             "gasnet_AMRequestLong" };
static const char *const reply_names[] = { "gasnet_AMReplyShort", "gasnet_AMReplyMedium",
                                           "gasnet_AMReplyLong" };

static void collect_args(va_list ap, int numargs, gasnet_handlerarg_t *args)
{
    for (int i = 0; i < numargs; i++)
        args[i] = va_arg(ap, gasnet_handlerarg_t);
}

static int check_request(unsigned category, gasnet_node_t dest, gasnet_handler_t handler,
                         void *source, size_t nbytes, void *dest_addr)
{
    const char *call = request_names[category];
    if (!gpc.attached) {
        gp_error("api", "%s before gasnet_attach", call);
        return GASNET_ERR_NOT_INIT;
    }
    if (gpc_in_handler)
        return BAD_ARG("%s called inside an AM handler (handlers may only reply)", call);
    if (dest >= gpc.nodes)
        return BAD_ARG("%s: node %u does not exist (the job has %u nodes)", call, dest, gpc.nodes);
    if (handler == 0)
        return BAD_ARG("%s: handler index 0 is reserved", call);
    return gp_api_check_am_payload(call, category, dest, source, nbytes, dest_addr);
}

static int request(unsigned category, gasnet_node_t dest, gasnet_handler_t handler, void *source,
                   size_t nbytes, void *dest_addr, int numargs, va_list ap)
{
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    if (numargs < 0 || numargs > GPC_MAX_ARGS)
        return BAD_ARG("%s: numargs is %d; AM calls take 0 to %d handler arguments",
                       request_names[category], numargs, GPC_MAX_ARGS);
    int rc = check_request(category, dest, handler, source, nbytes, dest_addr);
    if (rc != GASNET_OK)
        return rc;
    collect_args(ap, numargs, args);
    gpc_request_progress(); /* a client may loop on requests alone (doc/progress.md) */
    return gpc_am_request(dest, category, handler, source, nbytes, dest_addr, numargs, args);
}

static int reply(unsigned category, gasnet_token_t token, gasnet_handler_t handler, void *source,
                 size_t nbytes, void *dest_addr, int numargs, va_list ap)
{
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    if (numargs < 0 || numargs > GPC_MAX_ARGS)
        return BAD_ARG("%s: numargs is %d; AM calls take 0 to %d handler arguments",
                       reply_names[category], numargs, GPC_MAX_ARGS);
    int rc = gp_api_check_reply(reply_names[category], category, (struct gpc_token *)token,
                                handler, source, nbytes, dest_addr);
    if (rc != GASNET_OK)
        return rc;
    collect_args(ap, numargs, args);
    return gpc_am_reply(token, category, handler, source, nbytes, dest_addr, numargs, args);
}

GP_EXPORT int _gasnet_AMRequestShortM(gasnet_node_t dest, gasnet_handler_t handler, int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = request(GPC_SHORT, dest, handler, NULL, 0, NULL, numargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gasnet_AMRequestMediumM(gasnet_node_t dest, gasnet_handler_t handler,
                                       void *source_addr, size_t nbytes, int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = request(GPC_MEDIUM, dest, handler, source_addr, nbytes, NULL, numargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gasnet_AMRequestLongM(gasnet_node_t dest, gasnet_handler_t handler,
                                     void *source_addr, size_t nbytes, void *dest_addr,
                                     int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = request(GPC_LONG, dest, handler, source_addr, nbytes, dest_addr, numargs, ap);
    va_end(ap);
    return rc;
}

/* The payload is copied (or put) before the call returns, so the Async form
 * can share the Long path: its looser rule on the source buffer holds. */
GP_EXPORT int _gasnet_AMRequestLongAsyncM(gasnet_node_t dest, gasnet_handler_t handler,
                                          void *source_addr, size_t nbytes, void *dest_addr,
                                          int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = request(GPC_LONG, dest, handler, source_addr, nbytes, dest_addr, numargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gasnet_AMReplyShortM(gasnet_token_t token, gasnet_handler_t handler, int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = reply(GPC_SHORT, token, handler, NULL, 0, NULL, numargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gasnet_AMReplyMediumM(gasnet_token_t token, gasnet_handler_t handler,
                                     void *source_addr, size_t nbytes, int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = reply(GPC_MEDIUM, token, handler, source_addr, nbytes, NULL, numargs, ap);
    va_end(ap);
    return rc;
}

GP_EXPORT int _gasnet_AMReplyLongM(gasnet_token_t token, gasnet_handler_t handler,
                                   void *source_addr, size_t nbytes, void *dest_addr,
                                   int numargs, ...)
{
    va_list ap;
    va_start(ap, numargs);
    int rc = reply(GPC_LONG, token, handler, source_addr, nbytes, dest_addr, numargs, ap);
    va_end(ap);
    return rc;
}

/*
 * The variable-argument forms (5.4.4) are the same calls under GASNet's later
 * names, with the same signatures: aliases of the entry points above, not
 * copies of them.
 */
#define AM_ALIAS(name, target) \
    GP_EXPORT __typeof__(target) name __attribute__((alias(#target)))
AM_ALIAS(gasnet_AMRequestShort, _gasnet_AMRequestShortM);
AM_ALIAS(gasnet_AMRequestMedium, _gasnet_AMRequestMediumM);
AM_ALIAS(gasnet_AMRequestLong, _gasnet_AMRequestLongM);
AM_ALIAS(gasnet_AMRequestLongAsync, _gasnet_AMRequestLongAsyncM);
AM_ALIAS(gasnet_AMReplyShort, _gasnet_AMReplyShortM);
AM_ALIAS(gasnet_AMReplyMedium, _gasnet_AMReplyMediumM);
AM_ALIAS(gasnet_AMReplyLong, _gasnet_AMReplyLongM);

/* The AM limits as functions, for clients that #undef gasnet.h's macros. */
GP_EXPORT size_t (gasnet_AMMaxArgs)(void)
{
    return GPC_MAX_ARGS;
}

GP_EXPORT size_t (gasnet_AMMaxMedium)(void)
{
    return GPC_MAX_MEDIUM;
}

GP_EXPORT size_t (gasnet_AMMaxLongRequest)(void)
{
    return GPC_MAX_LONG;
}

GP_EXPORT size_t (gasnet_AMMaxLongReply)(void)
{
    return GPC_MAX_LONG;
}
