/* gasnet_ErrorName / gasnet_ErrorDesc (spec 3.20). */
#include <gasnet.h>

#include <stdarg.h>

#include "api/common/export.h"
#include "util/log.h"

struct error_text {
    int code;
    const char *name;
    const char *desc;
};

static const struct error_text error_texts[] = {
    { GASNET_OK, "GASNET_OK", "No error" },
    { GASNET_ERR_NOT_INIT, "GASNET_ERR_NOT_INIT", "GASNet message layer not initialized" },
    { GASNET_ERR_RESOURCE, "GASNET_ERR_RESOURCE", "Problem with requested resource" },
    { GASNET_ERR_BAD_ARG, "GASNET_ERR_BAD_ARG", "Invalid function parameter passed" },
    { GASNET_ERR_NOT_READY, "GASNET_ERR_NOT_READY", "Non-blocking operation not complete" },
    { GASNET_ERR_BARRIER_MISMATCH, "GASNET_ERR_BARRIER_MISMATCH", "Barrier id's mismatched" },
};

static const struct error_text *find_error(int code)
{
    for (unsigned i = 0; i < sizeof error_texts / sizeof error_texts[0]; i++)
        if (error_texts[i].code == code)
            return &error_texts[i];
    return NULL;
}

GP_EXPORT const char *gasnet_ErrorName(int errval)
{
    const struct error_text *text = find_error(errval);
    return text ? text->name : "*unknown*";
}

GP_EXPORT const char *gasnet_ErrorDesc(int errval)
{
    const struct error_text *text = find_error(errval);
    return text ? text->desc : "no description available";
}

/* gex_System_SetVerboseErrors: whether a refused argument is also reported. */
int gp_api_verbose_errors = 1;

int gp_api_bad_arg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (gp_api_verbose_errors && GP_LOG_ERROR <= gp_log_threshold)
        gp_log_vemit(GP_LOG_ERROR, "api", fmt, ap);
    va_end(ap);
    return GASNET_ERR_BAD_ARG;
}
