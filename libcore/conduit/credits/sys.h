/*
 * sys.c: the SYS queue of seed 000: zero-length system messages whose type,
 * argument and data travel in the match bits and hdr_data, polled before
 * any other queue.
 */
#ifndef GP_CONDUIT_SYS_H
#define GP_CONDUIT_SYS_H

#include <gasnet.h>
#include <stdint.h>

#include "conduit/credits/credit_flow.h"

enum gpc_sys_type {
    SYS_EXIT_ELECT = 1,   /* to node 0: may I coordinate the exit? */
    SYS_EXIT_ROLE,        /* node 0's answer: arg 1 = master, 0 = slave */
    SYS_EXIT_REQUEST,     /* master to all: exit with code (data) */
    SYS_EXIT_ACK,         /* to the master: request received */
    SYS_CREDIT_REVOKE,    /* lender to borrower: give back what you don't use (arg: E bit) */
    SYS_CREDIT_RETURN,    /* borrower to lender: arg credits returned, data E bit */
    SYS_CREDIT_ASK,       /* borrower to lender: arg credits wanted (it holds fewer than a
                           * message takes) */
    SYS_CREDIT_GRANT,     /* lender to borrower: arg credits, data 1 = lent for good, 0 =
                           * admitted for single requests */
};

int gpc_sys_setup(void);
void gpc_sys_send(gasnet_node_t node, enum gpc_sys_type type, uint32_t arg, uint64_t data);
int gpc_poll_sys(void);
/* The credit algorithm's send callback (credit_flow.h): its messages as SYS messages. */
void gpc_sys_send_credit(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                         int end_of_epoch);

#endif
