/*
 * The AM part of gasnett_run_diagnostics: its handler table and the AM
 * section.  Each request handler checks what it received (arguments, the
 * source, the payload byte by byte, a Long's address) and replies with the
 * same kind of message, which the reply handler checks again.  Failures
 * seen in handlers are counted in an atomic and collected by the section.
 */
#include "api/gasnet1/diag.h"

#include <string.h>

#include "api/common/export.h"
#include "util/log.h"
#include "conduit/am/am.h"
#include "conduit/core/state.h"

#define MAGIC 0x6770 /* "gp" */

static gasnett_atomic_t replies = gasnett_atomic_init(0);
static gasnett_atomic_t handler_failures = gasnett_atomic_init(0);
/* Reply bytes checked, kept under an HSL: handlers take it too. */
static gasnet_hsl_t bytes_lock = GASNET_HSL_INITIALIZER;
static uint64_t bytes_checked;
static struct diag_layout layout;

static void handler_fail(const char *what, gasnet_token_t token)
{
    gasnet_node_t src = (gasnet_node_t)-1;
    gasnet_AMGetMsgSource(token, &src);
    DIAG_FAIL("%s from node %u: wrong", what, src);
    gasnett_atomic_increment(&handler_failures, 0);
}

static int bytes_ok(const void *buf, size_t nbytes, gasnet_node_t src, int iter)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < nbytes; i++)
        if (b[i] != diag_byte(src, iter, i))
            return 0;
    return 1;
}

static void count_reply(size_t nbytes)
{
    gasnet_hsl_lock(&bytes_lock);
    bytes_checked += nbytes;
    gasnet_hsl_unlock(&bytes_lock);
    gasnett_atomic_increment(&replies, GASNETT_ATOMIC_REL);
}

static void short_req(gasnet_token_t token, gasnet_handlerarg_t magic, gasnet_handlerarg_t src,
                      gasnet_handlerarg_t iter)
{
    gasnet_node_t from;
    gasnet_AMGetMsgSource(token, &from);
    if (magic != MAGIC || (gasnet_node_t)src != from)
        handler_fail("Short request arguments", token);
    gasnet_AMReplyShort2(token, DIAG_H_SHORT_REP, MAGIC + 1, iter + 1);
}

static void short_rep(gasnet_token_t token, gasnet_handlerarg_t magic, gasnet_handlerarg_t next)
{
    (void)next;
    if (magic != MAGIC + 1)
        handler_fail("Short reply arguments", token);
    count_reply(0);
}

static void medium_req(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t iter)
{
    gasnet_node_t from;
    gasnet_AMGetMsgSource(token, &from);
    if (!bytes_ok(buf, nbytes, from, iter))
        handler_fail("Medium request payload", token);
    gasnet_AMReplyMedium1(token, DIAG_H_MEDIUM_REP, buf, nbytes, iter);
}

static void medium_rep(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t iter)
{
    if (!bytes_ok(buf, nbytes, gasnet_mynode(), iter))
        handler_fail("Medium reply payload", token);
    count_reply(nbytes);
}

static void long_req(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t iter)
{
    gasnet_node_t from;
    gasnet_AMGetMsgSource(token, &from);
    if (buf != diag_slot(&layout, gasnet_mynode(), from) || !bytes_ok(buf, nbytes, from, iter))
        handler_fail("Long request payload or address", token);
    gasnet_AMReplyLong1(token, DIAG_H_LONG_REP, buf, nbytes,
                        diag_slot(&layout, from, gasnet_nodes() + gasnet_mynode()), iter);
}

static void long_rep(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t iter)
{
    gasnet_node_t from;
    gasnet_AMGetMsgSource(token, &from);
    if (buf != diag_slot(&layout, gasnet_mynode(), gasnet_nodes() + from) ||
        !bytes_ok(buf, nbytes, gasnet_mynode(), iter))
        handler_fail("Long reply payload or address", token);
    count_reply(nbytes);
}

#define A16 gasnet_handlerarg_t a0, gasnet_handlerarg_t a1, gasnet_handlerarg_t a2, \
    gasnet_handlerarg_t a3, gasnet_handlerarg_t a4, gasnet_handlerarg_t a5,          \
    gasnet_handlerarg_t a6, gasnet_handlerarg_t a7, gasnet_handlerarg_t a8,          \
    gasnet_handlerarg_t a9, gasnet_handlerarg_t a10, gasnet_handlerarg_t a11,        \
    gasnet_handlerarg_t a12, gasnet_handlerarg_t a13, gasnet_handlerarg_t a14,       \
    gasnet_handlerarg_t a15

static int args16_ok(gasnet_handlerarg_t base, const gasnet_handlerarg_t *a)
{
    for (int k = 0; k < 16; k++)
        if (a[k] != base + k)
            return 0;
    return 1;
}

static void args16_req(gasnet_token_t token, A16)
{
    gasnet_handlerarg_t a[16] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 };
    if (!args16_ok(a0, a))
        handler_fail("16-argument request", token);
    gasnet_AMReplyShort16(token, DIAG_H_ARGS16_REP, a0 + 1, a0 + 2, a0 + 3, a0 + 4, a0 + 5,
                          a0 + 6, a0 + 7, a0 + 8, a0 + 9, a0 + 10, a0 + 11, a0 + 12, a0 + 13,
                          a0 + 14, a0 + 15, a0 + 16);
}

static void args16_rep(gasnet_token_t token, A16)
{
    gasnet_handlerarg_t a[16] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 };
    if (!args16_ok(a0, a))
        handler_fail("16-argument reply", token);
    count_reply(0);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
typedef void (*any_handler)();
#pragma GCC diagnostic pop

static gasnet_handlerentry_t table[] = {
    { DIAG_H_SHORT_REQ, (any_handler)short_req },   { DIAG_H_SHORT_REP, (any_handler)short_rep },
    { DIAG_H_MEDIUM_REQ, (any_handler)medium_req }, { DIAG_H_MEDIUM_REP, (any_handler)medium_rep },
    { DIAG_H_LONG_REQ, (any_handler)long_req },     { DIAG_H_LONG_REP, (any_handler)long_rep },
    { DIAG_H_ARGS16_REQ, (any_handler)args16_req }, { DIAG_H_ARGS16_REP, (any_handler)args16_rep },
    { 0, NULL },
};

/* GASNet's form: the table and its entries, which testinternal passes to
 * gasnet_attach as they are.  The count leaves out the NULL entry that ends
 * the table, kept for callers of gp's first form, which count up to it.
 * The name is in parentheses because gasnet.h's macro of the same name
 * chooses between the two forms. */
GP_EXPORT void (gasnett_diagnostic_gethandlers)(gasnet_handlerentry_t **htable, int *count)
{
    if (htable == NULL)
        gp_fatal("gasnett_diagnostic_gethandlers: the table pointer is NULL "
                 "(accepted: the address of a gasnet_handlerentry_t *; the count's may be NULL)");
    *htable = table;
    if (count != NULL)
        *count = (int)(sizeof table / sizeof table[0]) - 1;
}

void diag_am_setup(const struct diag_layout *lay)
{
    layout = *lay;
}

int diag_handlers_registered(void)
{
    for (int i = 0; table[i].fnptr != NULL; i++)
        if (gpc.handlers[table[i].index] != (gpc_handler_fn)table[i].fnptr)
            return 0;
    return 1;
}

static void wait_replies(uint32_t want)
{
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&replies, GASNETT_ATOMIC_ACQ) >= want);
}

uint32_t diag_am_replies(void)
{
    return gasnett_atomic_read(&replies, GASNETT_ATOMIC_ACQ);
}

void diag_am_wait(uint32_t want)
{
    wait_replies(want);
}

/* One node's sends of iteration iter to dest: each category once. */
static int send_all(const struct diag_layout *lay, gasnet_node_t dest, int iter, unsigned char *buf,
                    uint32_t *want)
{
    gasnet_node_t me = gasnet_mynode();
    size_t medium = 1 + (size_t)(iter * 97) % gasnet_AMMaxMedium();
    size_t len = 1 + (size_t)(iter * 1031) % lay->slot;
    for (size_t i = 0; i < len || i < medium; i++)
        buf[i] = diag_byte(me, iter, i);
    int rc = gasnet_AMRequestShort3(dest, DIAG_H_SHORT_REQ, MAGIC, me, iter);
    rc |= gasnet_AMRequestMedium1(dest, DIAG_H_MEDIUM_REQ, buf, medium, iter);
    rc |= gasnet_AMRequestLong1(dest, DIAG_H_LONG_REQ, buf, len, diag_slot(lay, dest, me), iter);
    gasnet_handlerarg_t b = iter * 100;
    rc |= gasnet_AMRequestShort16(dest, DIAG_H_ARGS16_REQ, b, b + 1, b + 2, b + 3, b + 4, b + 5,
                                  b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13,
                                  b + 14, b + 15);
    *want += 4;
    /* Each Long waits for its reply: the next one reuses the slots. */
    wait_replies(*want);
    if (rc != GASNET_OK) {
        DIAG_FAIL("AM: a request to node %u failed", dest);
        return 1;
    }
    return 0;
}

int diag_am_section(const struct diag_layout *lay, int iters)
{
    gasnet_node_t me = gasnet_mynode(), peer = (me + 1) % gasnet_nodes();
    size_t bufsize = lay->slot > gasnet_AMMaxMedium() ? lay->slot : gasnet_AMMaxMedium();
    unsigned char *buf = malloc(bufsize);
    if (buf == NULL) {
        DIAG_FAIL("AM: no memory for a %zu-byte buffer", bufsize);
        return 1;
    }
    uint32_t failures = gasnett_atomic_read(&handler_failures, 0);
    uint32_t want = gasnett_atomic_read(&replies, GASNETT_ATOMIC_ACQ);
    uint64_t bytes_before = bytes_checked;
    int failed = 0;
    for (int iter = 0; iter < iters; iter++) {
        failed += send_all(lay, peer, iter, buf, &want);
        failed += send_all(lay, me, iter, buf, &want); /* loopback */
    }
    free(buf);
    gasnet_hsl_lock(&bytes_lock);
    int no_bytes = bytes_checked == bytes_before;
    gasnet_hsl_unlock(&bytes_lock);
    if (no_bytes && iters > 0) {
        DIAG_FAIL("AM: replies arrived, but no payload bytes were counted");
        failed++;
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    return failed + (int)(gasnett_atomic_read(&handler_failures, 0) - failures);
}

int diag_am_short_burst(int iters)
{
    gasnet_node_t me = gasnet_mynode(), peer = (me + 1) % gasnet_nodes();
    int failed = 0;
    for (int iter = 0; iter < iters; iter++) {
        uint32_t before = gasnett_atomic_read(&replies, GASNETT_ATOMIC_ACQ);
        gasnet_node_t dest = iter % 2 ? me : peer;
        if (gasnet_AMRequestShort3(dest, DIAG_H_SHORT_REQ, MAGIC, me, iter) != GASNET_OK)
            failed++;
        /* Other threads' replies count too: at least one more than before. */
        wait_replies(before + 1);
    }
    return failed;
}
