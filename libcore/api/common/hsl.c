/*
 * Handler-safe locks (spec 3.19): a mutex in PAR builds.  In SEQ builds one
 * thread runs both the client and every handler, and handlers run only
 * inside GASNet calls, so the lock has nothing to exclude and compiles to
 * nothing.
 */
#include <gasnet.h>

#include "api/common/export.h"
#include "util/log.h"

#if GP_PAR
#include <errno.h>
#include <string.h>

GP_EXPORT void gasnet_hsl_init(gasnet_hsl_t *hsl)
{
    int rc = pthread_mutex_init(&hsl->lock, NULL);
    if (rc != 0)
        gp_fatal("gasnet_hsl_init: %s", strerror(rc));
}

GP_EXPORT void gasnet_hsl_destroy(gasnet_hsl_t *hsl)
{
    int rc = pthread_mutex_destroy(&hsl->lock);
    if (rc != 0)
        gp_fatal("gasnet_hsl_destroy: %s (is the lock held?)", strerror(rc));
}

GP_EXPORT void gasnet_hsl_lock(gasnet_hsl_t *hsl)
{
    int rc = pthread_mutex_lock(&hsl->lock);
    if (rc != 0)
        gp_fatal("gasnet_hsl_lock: %s", strerror(rc));
}

GP_EXPORT void gasnet_hsl_unlock(gasnet_hsl_t *hsl)
{
    int rc = pthread_mutex_unlock(&hsl->lock);
    if (rc != 0)
        gp_fatal("gasnet_hsl_unlock: %s (not held by this thread?)", strerror(rc));
}

GP_EXPORT int gasnet_hsl_trylock(gasnet_hsl_t *hsl)
{
    int rc = pthread_mutex_trylock(&hsl->lock);
    if (rc == 0)
        return GASNET_OK;
    if (rc != EBUSY)
        gp_fatal("gasnet_hsl_trylock: %s", strerror(rc));
    return GASNET_ERR_NOT_READY;
}
#else
GP_EXPORT void gasnet_hsl_init(gasnet_hsl_t *hsl) { (void)hsl; }
GP_EXPORT void gasnet_hsl_destroy(gasnet_hsl_t *hsl) { (void)hsl; }
GP_EXPORT void gasnet_hsl_lock(gasnet_hsl_t *hsl) { (void)hsl; }
GP_EXPORT void gasnet_hsl_unlock(gasnet_hsl_t *hsl) { (void)hsl; }
GP_EXPORT int gasnet_hsl_trylock(gasnet_hsl_t *hsl)
{
    (void)hsl;
    return GASNET_OK;
}
#endif
