/*
 * What the two files of gasnett_run_diagnostics share (diagnostics.c: the
 * driver and the RMA, barrier, atomic, lock and thread sections; diag_am.c:
 * the AM handlers and the AM section).  Nothing here is exported.
 */
#ifndef GP_API_DIAG_H
#define GP_API_DIAG_H

#include <gasnet.h>
#include <gasnet_tools.h>

/*
 * The handler indices of gasnett_diagnostic_gethandlers, in the client
 * range (128..255) as GASNet's are: a client that runs the diagnostics
 * registers this table and keeps its own handlers off these indices.
 */
enum diag_handler {
    DIAG_H_SHORT_REQ = 200,
    DIAG_H_SHORT_REP,
    DIAG_H_MEDIUM_REQ,
    DIAG_H_MEDIUM_REP,
    DIAG_H_LONG_REQ,
    DIAG_H_LONG_REP,
    DIAG_H_ARGS16_REQ,
    DIAG_H_ARGS16_REP,
    DIAG_H_END
};

/* The scratch area of every node's segment: 2 * nodes slots of slot bytes.
 * Slot k is what node k writes here; slot nodes + k the replies from k. */
struct diag_layout {
    gasnet_seginfo_t *seg;    /* every node's segment */
    uintptr_t slot;
};

/* The pattern byte at offset i of a message from node src, iteration iter. */
static inline unsigned char diag_byte(gasnet_node_t src, int iter, size_t i)
{
    return (unsigned char)(src * 31u + (unsigned)iter * 7u + i * 13u + 1u);
}

static inline char *diag_slot(const struct diag_layout *lay, gasnet_node_t node, unsigned index)
{
    return (char *)lay->seg[node].addr + (uintptr_t)index * lay->slot;
}

/* Where the handlers find the slots: before any node may send. */
void diag_am_setup(const struct diag_layout *lay);
/* The AM section: every category to a peer and to this node; failures. */
int diag_am_section(const struct diag_layout *lay, int iters);
/* Short round trips from each of threads threads at once (PAR); failures. */
int diag_am_short_burst(int iters);
/* Replies counted so far, and a wait until there are want of them. */
uint32_t diag_am_replies(void);
void diag_am_wait(uint32_t want);
/* 1 if the client registered every diagnostic handler at its index. */
int diag_handlers_registered(void);

#define DIAG_FAIL(...) diag_fail(__VA_ARGS__)
void diag_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
