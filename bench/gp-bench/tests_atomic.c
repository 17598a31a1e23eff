/*
 * The remote-atomic tests (GASNet-EX only: GASNet-1 has no twin, so --api
 * does not change them), on the initiator of a pair against an 8-byte
 * counter at the start of its partner's target area:
 *
 *   fadd-lat   gex_AD_OpNB_U64 with GEX_OP_FADD, waited with gex_Event_Wait:
 *              the time of one fetch-add (to a mapped peer a CPU atomic on
 *              its segment, complete on return; else an AM round trip);
 *   fadd-rate  a window of --window gex_AD_OpNBI_U64 fetch-adds, then
 *              gex_NBI_Wait(GEX_EC_RMW), repeated: operations per second.
 *
 * The domain (GEX_DT_U64, FADD) is made once, by every node, at start-up.
 */
#include "bench.h"

#include <gasnet.h>
#include <gasnet_ratomic.h>

static gex_AD_t ad;
static uint64_t fetched; /* every fetched value lands here: only the time is measured */

void atomic_setup(void *tm)
{
    gex_AD_Create(&ad, (gex_TM_t)tm, GEX_DT_U64, GEX_OP_FADD, 0);
}

static void fadd_blocking(const struct bench_ctx *c, size_t size, long n)
{
    (void)size;
    for (long i = 0; i < n; i++)
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &fetched, c->peer, c->target, GEX_OP_FADD, 1, 0, 0));
}

static void fadd_window(const struct bench_ctx *c, size_t size, long n)
{
    (void)size;
    for (long i = 0; i < n; i++) {
        gex_AD_OpNBI_U64(ad, &fetched, c->peer, c->target, GEX_OP_FADD, 1, 0, 0);
        if ((i + 1) % c->window == 0)
            gex_NBI_Wait(GEX_EC_RMW, 0);
    }
    gex_NBI_Wait(GEX_EC_RMW, 0);
}

void run_atomic(const struct bench_ctx *c, const struct bench_point *p, struct pair_result *r)
{
    if (p->test == T_FADD_LAT)
        measure_latency(c, 0, fadd_blocking, r);
    else
        measure_bandwidth(c, 0, fadd_window, r);
}
