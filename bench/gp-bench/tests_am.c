/*
 * The Active Message tests and the barrier test.
 *
 *   am-lat-short   a Short request (no arguments) whose handler replies
 *                  Short: one round trip per operation;
 *   am-lat-medium  a Medium request of SIZE bytes answered by a Medium
 *                  reply of the same bytes (a ping-pong);
 *   am-lat-long    a Long request of SIZE bytes into the partner's target
 *                  area, answered by a Long reply of those bytes into ours;
 *   am-lat-reqreq  a Short request whose handler only counts it; the
 *                  partner's serving loop answers with a Short request of
 *                  its own (GASNet testam's request-request ping-pong: the
 *                  implicit replies and the main loops are in the path);
 *   am-bw-medium,  a stream of Medium (Long) requests of SIZE bytes, each
 *   am-bw-long     acknowledged by a Short reply, at most --window of them
 *                  unacknowledged;
 *   am-rate-short, a one-way flood: Short requests (Medium requests of SIZE
 *   am-rate-medium bytes) sent back to back, none answered (the library
 *                  returns its credits with the implicit replies); the
 *                  partner's handler counts them, and a chunk of them ends
 *                  with a flush request that is answered once the count
 *                  has reached every request sent, so the time covers their
 *                  handling, not only their sending.  The library's flow
 *                  control alone bounds what is in flight, not --window;
 *   am-rate-medium-poll  the Medium flood with a gasnet_AMPoll() before each
 *                  request: what graph and irregular codes do, one small
 *                  message per edge with a poll before each send;
 *   poll-lat       gasnet_AMPoll() with nothing to take (the partner sends
 *                  nothing meanwhile): what every such poll costs;
 *   barrier-lat    gasnet_barrier_notify + gasnet_barrier_wait on every
 *                  node; each barrier timed alone.
 *
 * With --api ex every request and reply is its gex_AM_ twin (team, flags and,
 * for payloads, lc_opt GEX_EVENT_NOW: the GASNet-1 calls' semantics) and the
 * barrier is gex_Coll_BarrierBlocking; the handlers are the same, so the
 * two APIs differ only in the calls.  (poll-lat is gasnet_AMPoll either
 * way: GASNet-EX polls with it too.)
 *
 * Waiting uses GASNET_BLOCKUNTIL, which polls and, on a host with fewer
 * cores than processes, yields the CPU to the partner it waits for.
 */
#include "bench.h"

#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdlib.h>

#define H_SHORT_REQ 150
#define H_MEDIUM_REQ 151
#define H_LONG_REQ 152
#define H_STREAM_REQ 153
#define H_ACK 154
#define H_MEDIUM_ACK 155
#define H_LONG_ACK 156
#define H_DONE 157
#define H_FLOOD 158
#define H_FLOOD_MEDIUM 159
#define H_FLUSH 160
#define H_PING 161
#define H_PONG 162

#define BARRIER_ITERS 10000
#define BARRIER_WARMUP 100

static volatile long acks;
static volatile int partner_done;
static const gasnet_seginfo_t *segs;
/* The flood's counts since the start: requests this initiator sent, and
 * requests this partner's handlers counted (each partner has one initiator).
 * A flush that arrives before the requests it covers is left pending and
 * answered by the handler of the last of them. */
static uint64_t flood_sent, flood_counted, flush_want;
static int flush_pending;
static size_t target_off;
/* am-lat-reqreq: pings taken by the partner's handler and not yet answered, their
 * sender, and the answers the initiator has had. */
static volatile long pings, pongs;
static gasnet_node_t ping_source;
static int use_ex;       /* --api ex */
static gex_TM_t tm;      /* the primordial team, for --api ex */

/* The request and reply calls of both APIs, with no arguments but a flush's. */
static void request_short(gasnet_node_t node, gasnet_handler_t h)
{
    if (use_ex)
        gex_AM_RequestShort0(tm, node, h, 0);
    else
        gasnet_AMRequestShort0(node, h);
}

static void request_medium(gasnet_node_t node, gasnet_handler_t h, void *buf, size_t n)
{
    if (use_ex)
        gex_AM_RequestMedium0(tm, node, h, buf, n, GEX_EVENT_NOW, 0);
    else
        gasnet_AMRequestMedium0(node, h, buf, n);
}

static void request_long(gasnet_node_t node, gasnet_handler_t h, void *buf, size_t n, void *dest)
{
    if (use_ex)
        gex_AM_RequestLong0(tm, node, h, buf, n, dest, GEX_EVENT_NOW, 0);
    else
        gasnet_AMRequestLong0(node, h, buf, n, dest);
}

static void reply_short(gasnet_token_t token, gasnet_handler_t h)
{
    if (use_ex)
        gex_AM_ReplyShort0(token, h, 0);
    else
        gasnet_AMReplyShort0(token, h);
}

static void short_req(gasnet_token_t token)
{
    reply_short(token, H_ACK);
}

static void medium_req(gasnet_token_t token, void *buf, size_t nbytes)
{
    if (use_ex)
        gex_AM_ReplyMedium0(token, H_MEDIUM_ACK, buf, nbytes, GEX_EVENT_NOW, 0);
    else
        gasnet_AMReplyMedium0(token, H_MEDIUM_ACK, buf, nbytes);
}

/* Replies with the bytes that just landed, into the requester's target area. */
static void long_req(gasnet_token_t token, void *buf, size_t nbytes)
{
    if (use_ex) {
        gex_Token_Info_t info;
        gex_Token_Info(token, &info, GEX_TI_SRCRANK);
        gex_AM_ReplyLong0(token, H_LONG_ACK, buf, nbytes,
                          (char *)segs[info.gex_srcrank].addr + target_off, GEX_EVENT_NOW, 0);
        return;
    }
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    gasnet_AMReplyLong0(token, H_LONG_ACK, buf, nbytes, (char *)segs[src].addr + target_off);
}

static void stream_req(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)buf;
    (void)nbytes;
    reply_short(token, H_ACK);
}

static void ack(gasnet_token_t token)
{
    (void)token;
    acks++;
}

static void payload_ack(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)token;
    (void)buf;
    (void)nbytes;
    acks++;
}

static void ping(gasnet_token_t token)
{
    gasnet_AMGetMsgSource(token, &ping_source); /* bookkeeping, not the measured call */
    pings++;
}

static void pong(gasnet_token_t token)
{
    (void)token;
    pongs++;
}

static void done(gasnet_token_t token)
{
    (void)token;
    partner_done = 1;
}

static void flood_count(gasnet_token_t token)
{
    flood_counted++;
    if (flush_pending && flood_counted >= flush_want) {
        flush_pending = 0;
        reply_short(token, H_ACK);
    }
}

static void flood(gasnet_token_t token)
{
    flood_count(token);
}

static void flood_medium(gasnet_token_t token, void *buf, size_t nbytes)
{
    (void)buf;
    (void)nbytes;
    flood_count(token);
}

static void flush(gasnet_token_t token, gasnet_handlerarg_t lo, gasnet_handlerarg_t hi)
{
    uint64_t want = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
    if (flood_counted >= want) {
        reply_short(token, H_ACK);
    } else {
        flush_want = want;
        flush_pending = 1;
    }
}

static gasnet_handlerentry_t handlers[] = {
    { H_SHORT_REQ, short_req }, { H_MEDIUM_REQ, medium_req }, { H_LONG_REQ, long_req },
    { H_STREAM_REQ, stream_req }, { H_ACK, ack }, { H_MEDIUM_ACK, payload_ack },
    { H_LONG_ACK, payload_ack }, { H_DONE, done },
    { H_FLOOD, flood }, { H_FLOOD_MEDIUM, flood_medium },
    { H_FLUSH, flush }, { H_PING, ping }, { H_PONG, pong },
};
void *am_handlers = handlers;
int am_nhandlers = (int)(sizeof handlers / sizeof handlers[0]);

void am_setup(const void *seginfo, size_t own_target_off, int ex)
{
    segs = seginfo;
    target_off = own_target_off;
    use_ex = ex;
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
}

/* The passive side of a pair polls until its initiator is done, as the
 * servers of other benchmarks do (ucx_perftest's responder, an MPI rank in
 * MPI_Recv), so what it serves does not depend on how the barrier waits. */
void am_serve_until_done(void)
{
    for (;;) {
        GASNET_BLOCKUNTIL(partner_done || pings > 0);
        if (pings == 0)
            break;
        pings--; /* a request may not be sent from a handler: the main loop answers */
        request_short(ping_source, H_PONG);
    }
    partner_done = 0;
}

void am_signal_done(unsigned peer)
{
    gasnet_AMRequestShort0((gasnet_node_t)peer, H_DONE);
}

static void wait_acks(long want)
{
    GASNET_BLOCKUNTIL(acks >= want);
}

static void short_rt(const struct bench_ctx *c, size_t size, long n)
{
    (void)size;
    for (long i = 0; i < n; i++) {
        long want = acks + 1;
        request_short(c->peer, H_SHORT_REQ);
        wait_acks(want);
    }
}

static void medium_rt(const struct bench_ctx *c, size_t size, long n)
{
    for (long i = 0; i < n; i++) {
        long want = acks + 1;
        request_medium(c->peer, H_MEDIUM_REQ, c->local, size);
        wait_acks(want);
    }
}

static void long_rt(const struct bench_ctx *c, size_t size, long n)
{
    for (long i = 0; i < n; i++) {
        long want = acks + 1;
        request_long(c->peer, H_LONG_REQ, c->local, size, c->target);
        wait_acks(want);
    }
}

static void reqreq_rt(const struct bench_ctx *c, size_t size, long n)
{
    (void)size;
    for (long i = 0; i < n; i++) {
        long want = pongs + 1;
        request_short(c->peer, H_PING);
        GASNET_BLOCKUNTIL(pongs >= want);
    }
}

/* A stream of n requests with at most a window of them unacknowledged. */
static void stream(const struct bench_ctx *c, size_t size, long n, int is_long)
{
    long base = acks;
    for (long sent = 0; sent < n; sent++) {
        wait_acks(base + sent - c->window + 1);
        if (is_long)
            request_long(c->peer, H_STREAM_REQ, c->local, size, c->target);
        else
            request_medium(c->peer, H_STREAM_REQ, c->local, size);
    }
    wait_acks(base + n);
}

static void medium_stream(const struct bench_ctx *c, size_t size, long n)
{
    stream(c, size, n, 0);
}

static void long_stream(const struct bench_ctx *c, size_t size, long n)
{
    stream(c, size, n, 1);
}

enum flood_kind { FLOOD_SHORT, FLOOD_MEDIUM, FLOOD_MEDIUM_POLLED };

/* n requests back to back, then a flush answered once the partner counted them all. */
static void flood_run(const struct bench_ctx *c, size_t size, long n, enum flood_kind kind)
{
    for (long i = 0; i < n; i++) {
        switch (kind) {
        case FLOOD_SHORT:
            request_short(c->peer, H_FLOOD);
            break;
        case FLOOD_MEDIUM_POLLED:
            gasnet_AMPoll();
            /* fall through */
        case FLOOD_MEDIUM:
            request_medium(c->peer, H_FLOOD_MEDIUM, c->local, size);
            break;
        }
    }
    flood_sent += (uint64_t)n;
    long want = acks + 1;
    gasnet_handlerarg_t lo = (gasnet_handlerarg_t)(uint32_t)flood_sent;
    gasnet_handlerarg_t hi = (gasnet_handlerarg_t)(uint32_t)(flood_sent >> 32);
    if (use_ex)
        gex_AM_RequestShort2(tm, c->peer, H_FLUSH, 0, lo, hi);
    else
        gasnet_AMRequestShort2(c->peer, H_FLUSH, lo, hi);
    wait_acks(want);
}

static void flood_short(const struct bench_ctx *c, size_t size, long n)
{
    flood_run(c, size, n, FLOOD_SHORT);
}

static void flood_medium_run(const struct bench_ctx *c, size_t size, long n)
{
    flood_run(c, size, n, FLOOD_MEDIUM);
}

static void flood_medium_polled(const struct bench_ctx *c, size_t size, long n)
{
    flood_run(c, size, n, FLOOD_MEDIUM_POLLED);
}

static void empty_polls(const struct bench_ctx *c, size_t size, long n)
{
    (void)c;
    (void)size;
    for (long i = 0; i < n; i++)
        gasnet_AMPoll();
}

void run_am(const struct bench_ctx *c, const struct bench_point *p, struct pair_result *r)
{
    switch (p->test) {
    case T_AM_LAT_SHORT: measure_latency(c, 0, short_rt, r); break;
    case T_AM_LAT_MEDIUM: measure_latency(c, p->size, medium_rt, r); break;
    case T_AM_LAT_LONG: measure_latency(c, p->size, long_rt, r); break;
    case T_AM_LAT_REQREQ: measure_latency(c, 0, reqreq_rt, r); break;
    case T_AM_BW_MEDIUM: measure_bandwidth(c, p->size, medium_stream, r); break;
    case T_AM_BW_LONG: measure_bandwidth(c, p->size, long_stream, r); break;
    case T_AM_RATE_SHORT: measure_bandwidth(c, 0, flood_short, r); break;
    case T_AM_RATE_MEDIUM: measure_bandwidth(c, p->size, flood_medium_run, r); break;
    case T_AM_RATE_MEDIUM_POLL: measure_bandwidth(c, p->size, flood_medium_polled, r); break;
    case T_POLL_LAT: measure_latency(c, 0, empty_polls, r); break;
    default: break;
    }
}

static void barrier_once(void)
{
    if (use_ex) {
        gex_Coll_BarrierBlocking(tm, 0);
        return;
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* Every node runs the same count of barriers, so the counts cannot adapt to
 * the warm-up as the pair tests do: --iters and --warmup, or fixed defaults. */
void run_barrier(const struct bench_ctx *c, struct pair_result *r)
{
    long warm = c->warmup >= 0 ? c->warmup : BARRIER_WARMUP;
    long iters = c->iters > 0 ? c->iters : BARRIER_ITERS;
    for (long i = 0; i < warm; i++)
        barrier_once();
    double *samples = malloc((size_t)iters * sizeof *samples);
    if (!samples) {
        fprintf(stderr, "gp-bench: out of memory for %ld barrier samples\n", iters);
        gasnet_exit(1);
    }
    for (long i = 0; i < iters; i++) {
        gasnett_tick_t t0 = gasnett_ticks_now();
        barrier_once();
        samples[i] = (double)gasnett_ticks_to_ns(gasnett_ticks_now() - t0) / 1e3;
    }
    stats_latency(samples, (size_t)iters, &r->lat);
    free(samples);
    r->iters = (uint64_t)iters;
}
