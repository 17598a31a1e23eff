/*
 * The AM protocol's entry points inside the conduit: am.c (requests and
 * replies over Portals), loopback.c (messages to self) and handlers.c
 * (calling a handler), with the token handed to handlers and what a thread
 * holds while it may poll the AM_EQ.  am_ring.h has the on-node rings.
 */
#ifndef GP_CONDUIT_AM_H
#define GP_CONDUIT_AM_H

#include <gasnet.h>
#include <stddef.h>
#include <stdint.h>

#include "ptl/ptl.h"

/* What a thread holds while it may poll the AM_EQ (seed 000). */
struct gpc_am_reserve {
    int64_t rplsb_chunk;     /* -1 once used */
    int send_tickets;
    int tmpmd_tickets;
};

/* The token handed to handlers. */
struct gpc_token {
    gasnet_node_t source;
    uint8_t is_request;
    uint8_t replied;
    uint8_t credit_byte;     /* for the reply: credits returned, any granted, epoch bit */
    uint8_t via_ring;        /* came through an AM ring (am_ring.c): so does the reply */
    uint8_t loopback;        /* a message to self, run inside the call (loopback.c) */
    uint8_t handler;         /* set when its handler runs: gex_Token_Info reads them */
    uint8_t category;
    uint32_t reqsb_chunk;
    struct gpc_am_reserve *reserve;
};

/* Unprototyped on purpose: handlers of every prototype are stored here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
typedef void (*gpc_handler_fn)();
#pragma GCC diagnostic pop

/* Set while this thread runs a handler (the extended API and reply rules check it). */
extern _Thread_local int gpc_in_handler;

/* am.c */
int gpc_am_request(gasnet_node_t dest, unsigned category, gasnet_handler_t handler,
                   void *source, size_t nbytes, void *dest_addr, int nargs,
                   const gasnet_handlerarg_t *args);
int gpc_am_reply(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                 void *source, size_t nbytes, void *dest_addr, int nargs,
                 const gasnet_handlerarg_t *args);
void gpc_am_event(const struct ptl_event *event, struct gpc_am_reserve *reserve);
/* Sends the no-op replies gathered while this thread took AM events (am.c):
 * the poll that took them calls it when it is done. */
void gpc_am_noop_flush(void);
void gpc_safe_event(const struct ptl_event *event);

/* loopback.c: messages to self, handled inside the request (or reply) call */
int gpc_am_loopback_request(unsigned category, gasnet_handler_t handler, void *source,
                            size_t nbytes, void *dest_addr, int nargs,
                            const gasnet_handlerarg_t *args);
int gpc_am_loopback_reply(struct gpc_token *request, unsigned category, gasnet_handler_t handler,
                          void *source, size_t nbytes, void *dest_addr, int nargs,
                          const gasnet_handlerarg_t *args);

/* handlers.c */
/* Registers EX handler entries (keeping a copy of each for gex_Token_Info):
 * fixed indices first, then each index 0 gets the highest free one, written back. */
int gpc_register_entries(gex_AM_Entry_t *table, size_t numentries);
void gpc_run_handler(struct gpc_token *token, gasnet_handler_t handler, unsigned category,
                     void *buf, size_t nbytes, unsigned nargs, const gasnet_handlerarg_t *args);

#endif
