/*
 * The put and get tests, measured on the initiator of a pair against its
 * partner's target area.
 *
 *   put-lat, get-lat  gasnet_put / gasnet_get: each call returns once the
 *                     data is at its destination, so one call is one
 *                     blocking operation (for a peer on this host a copy
 *                     into or out of its mapped segment; over tcp a round
 *                     trip); the figure is the time of one call, not half
 *                     of a ping-pong.  To a mapped peer these are gasnet.h's
 *                     inline copies; --library-rma calls libgp's exported
 *                     functions instead, the path of a GP_NO_INLINE_RMA client;
 *   put-bw, get-bw    a window of --window implicit-handle bulk operations,
 *                     then gasnet_wait_syncnbi_puts/gets, repeated;
 *   puts-bw           a window of strided gasnet_puts_nbi_bulk: the size in
 *                     rows of PUTS_ROW bytes, contiguous here and a row apart
 *                     on the target (VIS packs them into few messages where
 *                     the peer is not mapped), then gasnet_wait_syncnbi_puts;
 *   put-rate          the same with the non-bulk gasnet_put_nbi, for small
 *                     sizes: the rate at which one process can issue puts.
 *
 * With --api ex each issues its gex_ twin: gex_RMA_PutBlocking/GetBlocking,
 * gex_RMA_PutNBI (lc_opt GEX_EVENT_DEFER for the bulk window, GEX_EVENT_NOW
 * for put-rate) and GetNBI synced by gex_NBI_Wait(GEX_EC_PUT/GET), and
 * gex_VIS_StridedPutNBI with elemsz the row.
 *
 * Every operation of a window targets the same remote bytes, as the usual
 * benchmarks do: the point is the transfer, not the footprint.
 */
#include "bench.h"

#include <gasnet.h>
#include <gasnet_vis.h>

static void ex_put_blocking(const struct bench_ctx *c, size_t size, long n)
{
    gex_TM_t tm = c->tm;
    if (c->library_rma) {
        for (long i = 0; i < n; i++)
            (gex_RMA_PutBlocking)(tm, c->peer, c->target, c->local, size, 0);
        return;
    }
    for (long i = 0; i < n; i++)
        gex_RMA_PutBlocking(tm, c->peer, c->target, c->local, size, 0);
}

static void ex_get_blocking(const struct bench_ctx *c, size_t size, long n)
{
    gex_TM_t tm = c->tm;
    if (c->library_rma) {
        for (long i = 0; i < n; i++)
            (gex_RMA_GetBlocking)(tm, c->local, c->peer, c->target, size, 0);
        return;
    }
    for (long i = 0; i < n; i++)
        gex_RMA_GetBlocking(tm, c->local, c->peer, c->target, size, 0);
}

/* lc_opt DEFER: a bulk put (source left alone until the sync); NOW: put_nbi's semantics. */
static void ex_put_window_lc(const struct bench_ctx *c, size_t size, long n, gex_Event_t *lc)
{
    gex_TM_t tm = c->tm;
    for (long i = 0; i < n; i++) {
        gex_RMA_PutNBI(tm, c->peer, c->target, c->local, size, lc, 0);
        if ((i + 1) % c->window == 0)
            gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
}

static void ex_put_window(const struct bench_ctx *c, size_t size, long n)
{
    ex_put_window_lc(c, size, n, GEX_EVENT_DEFER);
}

static void ex_put_rate_window(const struct bench_ctx *c, size_t size, long n)
{
    ex_put_window_lc(c, size, n, GEX_EVENT_NOW);
}

static void ex_get_window(const struct bench_ctx *c, size_t size, long n)
{
    gex_TM_t tm = c->tm;
    for (long i = 0; i < n; i++) {
        gex_RMA_GetNBI(tm, c->local, c->peer, c->target, size, 0);
        if ((i + 1) % c->window == 0)
            gex_NBI_Wait(GEX_EC_GET, 0);
    }
    gex_NBI_Wait(GEX_EC_GET, 0);
}

static void ex_puts_window(const struct bench_ctx *c, size_t size, long n)
{
    gex_TM_t tm = c->tm;
    size_t row = size < PUTS_ROW ? size : PUTS_ROW;
    size_t count[1] = { size / row };
    ptrdiff_t dst_strides[1] = { (ptrdiff_t)(2 * row) }, src_strides[1] = { (ptrdiff_t)row };
    for (long i = 0; i < n; i++) {
        gex_VIS_StridedPutNBI(tm, c->peer, c->target, dst_strides, c->local, src_strides, row,
                              count, 1, 0);
        if ((i + 1) % c->window == 0)
            gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
}

/* (gasnet_put) names the exported function, not gasnet.h's macro. */
static void put_blocking(const struct bench_ctx *c, size_t size, long n)
{
    if (c->library_rma) {
        for (long i = 0; i < n; i++)
            (gasnet_put)(c->peer, c->target, c->local, size);
        return;
    }
    for (long i = 0; i < n; i++)
        gasnet_put(c->peer, c->target, c->local, size);
}

static void get_blocking(const struct bench_ctx *c, size_t size, long n)
{
    if (c->library_rma) {
        for (long i = 0; i < n; i++)
            (gasnet_get)(c->local, c->peer, c->target, size);
        return;
    }
    for (long i = 0; i < n; i++)
        gasnet_get(c->local, c->peer, c->target, size);
}

static void put_window(const struct bench_ctx *c, size_t size, long n)
{
    for (long i = 0; i < n; i++) {
        gasnet_put_nbi_bulk(c->peer, c->target, c->local, size);
        if ((i + 1) % c->window == 0)
            gasnet_wait_syncnbi_puts();
    }
    gasnet_wait_syncnbi_puts();
}

static void get_window(const struct bench_ctx *c, size_t size, long n)
{
    for (long i = 0; i < n; i++) {
        gasnet_get_nbi_bulk(c->local, c->peer, c->target, size);
        if ((i + 1) % c->window == 0)
            gasnet_wait_syncnbi_gets();
    }
    gasnet_wait_syncnbi_gets();
}

static void put_rate_window(const struct bench_ctx *c, size_t size, long n)
{
    for (long i = 0; i < n; i++) {
        gasnet_put_nbi(c->peer, c->target, c->local, size);
        if ((i + 1) % c->window == 0)
            gasnet_wait_syncnbi_puts();
    }
    gasnet_wait_syncnbi_puts();
}

static void puts_window(const struct bench_ctx *c, size_t size, long n)
{
    size_t row = size < PUTS_ROW ? size : PUTS_ROW;
    size_t count[2] = { row, size / row };
    size_t dst_strides[1] = { 2 * row }, src_strides[1] = { row };
    for (long i = 0; i < n; i++) {
        gasnet_puts_nbi_bulk(c->peer, c->target, dst_strides, c->local, src_strides, count, 1);
        if ((i + 1) % c->window == 0)
            gasnet_wait_syncnbi_puts();
    }
    gasnet_wait_syncnbi_puts();
}

void run_rma(const struct bench_ctx *c, const struct bench_point *p, struct pair_result *r)
{
    if (c->ex) {
        switch (p->test) {
        case T_PUT_LAT: measure_latency(c, p->size, ex_put_blocking, r); break;
        case T_GET_LAT: measure_latency(c, p->size, ex_get_blocking, r); break;
        case T_PUT_BW: measure_bandwidth(c, p->size, ex_put_window, r); break;
        case T_GET_BW: measure_bandwidth(c, p->size, ex_get_window, r); break;
        case T_PUT_RATE: measure_bandwidth(c, p->size, ex_put_rate_window, r); break;
        case T_PUTS_BW: measure_bandwidth(c, p->size, ex_puts_window, r); break;
        default: break;
        }
        return;
    }
    switch (p->test) {
    case T_PUT_LAT: measure_latency(c, p->size, put_blocking, r); break;
    case T_GET_LAT: measure_latency(c, p->size, get_blocking, r); break;
    case T_PUT_BW: measure_bandwidth(c, p->size, put_window, r); break;
    case T_GET_BW: measure_bandwidth(c, p->size, get_window, r); break;
    case T_PUT_RATE: measure_bandwidth(c, p->size, put_rate_window, r); break;
    case T_PUTS_BW: measure_bandwidth(c, p->size, puts_window, r); break;
    default: break;
    }
}
