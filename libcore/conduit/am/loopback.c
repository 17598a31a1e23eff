/*
 * Active messages a node sends to itself, run inside the request call (as
 * GASNet 1.29.3 does everywhere; spec extensions 4.3).
 *
 * Deferring them to the next poll looks harmless but is not: a thread that
 * spins on a flag such a handler sets, while doing only direct puts to
 * mapped peers (which never poll), would spin forever.  So the handler runs
 * before gasnet_AMRequest* returns, with full handler context: the token
 * names this node as the source and allows one reply, a Long's payload is
 * in place first, and a reply it sends runs its reply handler nested inside
 * gasnet_AMReply*.  No credits, tickets or chunks are taken -- nothing
 * travels -- so flow control cannot deadlock on messages to self.
 */
#include <stddef.h>
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/core/state.h"

/* A Medium's payload in a buffer of its own, aligned as GASNet aligns
 * Medium buffers: the handler may keep neither the sender's buffer nor
 * write into it. */
union medium_buffer {
    char bytes[GPC_MAX_MEDIUM];
    max_align_t align;   /* 16 bytes on x86-64 and aarch64: a uint64_t gave 8 under clang */
};

/* Runs handler as a message of category from this node; buf and nbytes
 * are where a Long's payload now lies (NULL/0 for Short and Medium). */
static void deliver(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                    void *source, size_t nbytes, void *dest_addr, int nargs,
                    const gasnet_handlerarg_t *args)
{
    union medium_buffer copy;
    void *buf = NULL;
    if (category == GPC_MEDIUM) {
        if (nbytes > 0)
            memcpy(copy.bytes, source, nbytes);
        buf = copy.bytes;
    } else if (category == GPC_LONG) {
        if (nbytes > 0 && source != dest_addr)
            memmove(dest_addr, source, nbytes);
        buf = dest_addr;
    }
    gpc_run_handler(token, handler, category, buf, nbytes, (unsigned)nargs, args);
}

int gpc_am_loopback_request(unsigned category, gasnet_handler_t handler, void *source,
                            size_t nbytes, void *dest_addr, int nargs,
                            const gasnet_handlerarg_t *args)
{
    struct gpc_token token = { .source = gpc.rank, .is_request = 1, .loopback = 1 };
    deliver(&token, category, handler, source, nbytes, dest_addr, nargs, args);
    return GASNET_OK;
}

int gpc_am_loopback_reply(struct gpc_token *request, unsigned category, gasnet_handler_t handler,
                          void *source, size_t nbytes, void *dest_addr, int nargs,
                          const gasnet_handlerarg_t *args)
{
    request->replied = 1;
    struct gpc_token token = { .source = gpc.rank, .is_request = 0, .loopback = 1 };
    deliver(&token, category, handler, source, nbytes, dest_addr, nargs, args);
    return GASNET_OK;
}
