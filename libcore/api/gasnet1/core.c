/*
 * The GASNet-1 core API entry points (spec section 3): argument and phase
 * checks, then a call into the conduit.  A misuse returns the spec's error
 * code and says, in one line, what was wrong.
 */
#include <gasnet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "api/common/export.h"
#include "boot/boot.h"
#include "conduit/am/am.h"
#include "conduit/attach/attach.h"
#include "conduit/coll/coll.h"
#include "conduit/exit/exit.h"
#include "conduit/core/progress.h"
#include "conduit/core/state.h"
#include "util/log.h"

/* GASNet's client-settable variables: a bound on the segment, read by
 * gasnet_init (0: none), and a function attach calls with the segment. */
GP_EXPORT uintptr_t gasnet_max_segsize = 0;
GP_EXPORT void (*gasnet_client_attach_hook)(void *segbase, uintptr_t segsize) = NULL;

GP_EXPORT int gasnet_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (gpc.initialized) {
        gp_error("api", "gasnet_init called twice");
        return GASNET_ERR_NOT_INIT;
    }
    return gpc_init();
}

GP_EXPORT int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                            uintptr_t minheapoffset)
{
    (void)minheapoffset; /* the segment is a shared-memory mapping, not carved from the heap */
    if (!gpc.initialized || gpc.attached) {
        gp_error("api", "gasnet_attach %s", gpc.attached ? "called twice" : "before gasnet_init");
        return GASNET_ERR_NOT_INIT;
    }
    if (numentries < 0 || (numentries > 0 && table == NULL))
        return BAD_ARG("gasnet_attach: table=%p with numentries=%d", (void *)table, numentries);
    if (segsize % GASNET_PAGESIZE != 0)
        return BAD_ARG("gasnet_attach: segsize %lu is not a multiple of GASNET_PAGESIZE (%d)",
                       (unsigned long)segsize, GASNET_PAGESIZE);
    if (segsize > gpc.max_local_segsize)
        return BAD_ARG("gasnet_attach: segsize %lu exceeds gasnet_getMaxLocalSegmentSize() = %lu "
                       "(hint: GASNET_MAX_SEGSIZE, GASNET_PHYSMEM_PINNABLE_RATIO, /dev/shm size)",
                       (unsigned long)segsize, (unsigned long)gpc.max_local_segsize);
    return gpc_attach(table, numentries, segsize);
}

GP_EXPORT void gasnet_exit(int exitcode)
{
    gpc_exit(exitcode);
}

GP_EXPORT gasnet_node_t gasnet_mynode(void)
{
    return gpc.rank;
}

GP_EXPORT gasnet_node_t gasnet_nodes(void)
{
    return gpc.nodes;
}

GP_EXPORT uintptr_t gasnet_getMaxLocalSegmentSize(void)
{
    return gpc.max_local_segsize;
}

GP_EXPORT uintptr_t gasnet_getMaxGlobalSegmentSize(void)
{
    return gpc.max_global_segsize;
}

GP_EXPORT int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries)
{
    if (!gpc.attached)
        return GASNET_ERR_NOT_INIT;
    if (numentries < 0 || (numentries > 0 && seginfo_table == NULL))
        return BAD_ARG("gasnet_getSegmentInfo: table=%p with numentries=%d",
                       (void *)seginfo_table, numentries);
    for (int node = 0; node < numentries && (gasnet_node_t)node < gpc.nodes; node++)
        seginfo_table[node] = gpc.seginfo[node];
    return GASNET_OK;
}

/* The launcher's environment: gp-run propagates it whole to every process. */
GP_EXPORT char *gasnet_getenv(const char *name)
{
    return name ? getenv(name) : NULL;
}

GP_EXPORT int gasnet_AMPoll(void)
{
    if (!gpc.attached)
        return GASNET_ERR_NOT_INIT;
    if (gpc_in_handler)
        return BAD_ARG("gasnet_AMPoll called inside an AM handler");
    int rc = gpc_client_poll();
    gpc_coll_progress(); /* collectives advance here too (spec: coll 2.1) */
    return rc;
}

GP_EXPORT void _gasnet_wait_turn(void)
{
    if (gpc.attached && !gpc_in_handler)
        gpc_wait_turn();
}

GP_EXPORT int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex)
{
    if (token == NULL || srcindex == NULL)
        return BAD_ARG("gasnet_AMGetMsgSource: token=%p srcindex=%p", token, (void *)srcindex);
    *srcindex = ((struct gpc_token *)token)->source;
    return GASNET_OK;
}

/* A polling implementation runs handlers only inside GASNet calls, so a
 * No-Interrupt Section needs no action (spec 3.18 allows no-ops). */
GP_EXPORT void gasnet_hold_interrupts(void) {}
GP_EXPORT void gasnet_resume_interrupts(void) {}
