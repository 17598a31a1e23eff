/*
 * progress.c: the poll loop (the AM rings, then SYS, SAFE and AM), blocking
 * waits, and the send and TMPMD tickets a message holds while in flight.
 */
#ifndef GP_CONDUIT_PROGRESS_H
#define GP_CONDUIT_PROGRESS_H

#include <stdint.h>

/* The whole pass: every queue this node receives on (a barrier's or a collective's try). */
int gpc_poll(void);
/* gasnet_AMPoll: a ring look, or the whole pass when one is due (progress.c says where). */
int gpc_client_poll(void);
/* Progress owed by a call that may end without waiting (an AM request, an RMA to
 * a mapped peer, a sync of what is done): a ring look, the whole pass when due. */
void gpc_call_progress(void);
/* An AM request's share of that: a call turn every GPC_REQUESTS_PER_CALL_TURN-th request
 * of a thread (doc/progress.md).  Inline, so that the other 255 cost an increment and a
 * branch in the request itself, not a call: a one-way flood of ring requests pays for
 * everything on this path. */
#define GPC_REQUESTS_PER_CALL_TURN 256u
extern _Thread_local unsigned gpc_requests_made;   /* this thread's, in PAR builds */
static inline void gpc_request_progress(void)
{
    if (__builtin_expect(++gpc_requests_made % GPC_REQUESTS_PER_CALL_TURN == 0, 0))
        gpc_call_progress();
}
/* Once the SYS, SAFE and AM queues exist (attach): the pass looks at them through probes
 * (ptl_eq_probe); until then it sees them empty. */
void gpc_progress_watch_queues(void);
/* One turn of a blocking wait: polls, and yields the CPU when asked to or overcommitted;
 * in GASNET_WAIT_BLOCK, after many turns that found nothing, dozes (sleeps until a peer
 * posts to this node, GP_DOZE_MAX_US at most). */
void gpc_wait_turn(void);
/* The same, never dozing: for a wait whose end comes by a peer's plain store, not a
 * message (a ring slot the receiver frees), which wakes nobody. */
void gpc_wait_turn_awake(void);
/* Dozes so far, those a peer's post woke, and those that slept the whole GP_DOZE_MAX_US. */
void gpc_doze_counts(uint64_t *dozes, uint64_t *woken, uint64_t *capped_sleeps);
/* At the end of attach: a transport's receive thread polls too (GASNET_RCV_THREAD). */
void gpc_rcv_poll_setup(void);
/* Polls until the tickets are free; a long wait says so, naming node dest. */
void gpc_take_tickets(uint32_t dest, int send_tickets, int tmpmd_tickets);
void gpc_give_tickets(int send_tickets, int tmpmd_tickets);

#endif
