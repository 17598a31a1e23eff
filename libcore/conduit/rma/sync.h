/*
 * Completing operations, for both faces: an explicit handle (GASNet-1) or
 * event (EX) is the operation record itself, and syncing it frees the
 * record; the implicit set is per thread; an access region gathers a
 * thread's implicit operations into one record.  A sync that finds its
 * operations done enters no wait, yet still makes a call turn
 * (gpc_call_progress, doc/progress.md), so a client may loop on it.
 * call names the API call in messages; misuse is fatal.
 */
#ifndef GP_CONDUIT_SYNC_H
#define GP_CONDUIT_SYNC_H
#include <gasnet.h>
#include <stddef.h>

int gpc_sync_try(gasnet_handle_t handle, const char *call);
void gpc_sync_wait(gasnet_handle_t handle, const char *call);
/* all: every handle must complete; else at least one (or none left live). */
int gpc_sync_try_array(gasnet_handle_t *handles, size_t numhandles, int all, const char *call);
void gpc_sync_wait_array(gasnet_handle_t *handles, size_t numhandles, int all, const char *call);
int gpc_sync_try_implicit(int puts, int gets, const char *call);
void gpc_sync_wait_implicit(int puts, int gets, const char *call);
void gpc_region_begin(const char *call);
gasnet_handle_t gpc_region_end(const char *call);
#endif
