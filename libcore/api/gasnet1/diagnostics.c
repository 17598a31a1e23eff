/*
 * gasnett_run_diagnostics: a self-test of this library that a client runs
 * after attach, collectively (every node calls it with the same arguments,
 * from one thread each).  GASNet's testinternal runs it; a site runs it to
 * see that an installation works.  It returns the number of failures seen
 * on this node, after saying what failed, one line each.
 *
 * testsections chooses the sections by letter (NULL or "" runs all):
 *   A  AMs: Short (3 and 16 arguments), Medium and Long requests with
 *      replies, to a peer and to this node, payloads checked byte by byte
 *      (needs the handlers of gasnett_diagnostic_gethandlers registered)
 *   B  put / get / memset, blocking, explicit and implicit, value forms
 *   C  barriers: named, anonymous, split-phase with try
 *   D  atomics: every operation of gasnett_atomic_t and gasnett_atomic64_t
 *   E  handler-safe locks
 *   F  threads (PAR builds, threadcnt > 1): atomics, an HSL-held counter
 *      and Short AM round trips from threadcnt threads at once
 * seginfo is every node's segment as gasnet_getSegmentInfo gives it (NULL:
 * the call asks for it); the diagnostics overwrite the first
 * 2 * nodes * 4 KiB (or less on a small segment) of each.
 */
#include "api/gasnet1/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/common/export.h"
#include "conduit/am/am.h"
#include "conduit/core/state.h"
#include "util/log.h"

#if GP_PAR
#include <pthread.h>
#endif

#define SLOT_MAX 4096u

void diag_fail(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gp_error("diagnostics", "node %u: %s", gasnet_mynode(), line);
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* B: each node writes its pattern into its slot on the next node, reads
 * it back, and checks what the previous node wrote here. */
static int rma_section(const struct diag_layout *lay, int iters)
{
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
    gasnet_node_t peer = (me + 1) % n, left = (me + n - 1) % n;
    size_t len = lay->slot;
    unsigned char *mine = malloc(len), *back = malloc(len);
    int failed = 0;
    if (mine == NULL || back == NULL) {
        free(mine);
        free(back);
        DIAG_FAIL("put/get: no memory for %zu bytes", len);
        return 1;
    }
    char *there = diag_slot(lay, peer, me), *here = diag_slot(lay, me, left);
    for (int iter = 0; iter < iters; iter++) {
        for (size_t i = 0; i < len; i++)
            mine[i] = diag_byte(me, iter, i);
        switch (iter % 3) { /* blocking, explicit and implicit forms in turn */
        case 0: gasnet_put(peer, there, mine, len); break;
        case 1: gasnet_wait_syncnb(gasnet_put_nb_bulk(peer, there, mine, len)); break;
        default: gasnet_put_nbi(peer, there, mine, len); gasnet_wait_syncnbi_puts(); break;
        }
        barrier();
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)here[i] != diag_byte(left, iter, i)) {
                DIAG_FAIL("put: byte %zu from node %u is wrong (iteration %d)", i, left, iter);
                failed++;
                break;
            }
        barrier(); /* the next node has checked its slot before it is overwritten */
        memset(back, 0, len);
        if (iter % 2)
            gasnet_get_bulk(back, peer, there, len);
        else
            gasnet_wait_syncnb(gasnet_get_nb(back, peer, there, len));
        if (memcmp(back, mine, len) != 0) {
            DIAG_FAIL("get: what came back from node %u differs (iteration %d)", peer, iter);
            failed++;
        }
        gasnet_memset(peer, there, iter & 0xff, len / 2);
        gasnet_get(back, peer, there, len);
        for (size_t i = 0; i < len; i++)
            if (back[i] != (i < len / 2 ? (unsigned char)(iter & 0xff) : mine[i])) {
                DIAG_FAIL("memset: byte %zu on node %u is wrong (iteration %d)", i, peer, iter);
                failed++;
                break;
            }
        gasnet_register_value_t value = 0x5a5a0000u + (unsigned)iter;
        gasnet_put_val(peer, there, value, sizeof value);
        if (gasnet_get_val(peer, there, sizeof value) != value) {
            DIAG_FAIL("put_val / get_val: node %u (iteration %d)", peer, iter);
            failed++;
        }
        barrier();
    }
    free(mine);
    free(back);
    return failed;
}

/* C: named barriers agree, anonymous ones match anything, try completes. */
static int barrier_section(int iters)
{
    int failed = 0;
    for (int iter = 0; iter < iters; iter++) {
        gasnet_barrier_notify(iter, 0);
        if (gasnet_barrier_wait(iter, 0) != GASNET_OK) {
            DIAG_FAIL("named barrier %d: mismatch reported", iter);
            failed++;
        }
        int anonymous = gasnet_mynode() % 2;
        gasnet_barrier_notify(iter, anonymous ? GASNET_BARRIERFLAG_ANONYMOUS : 0);
        int rc;
        while ((rc = gasnet_barrier_try(iter, anonymous ? GASNET_BARRIERFLAG_ANONYMOUS : 0)) ==
               GASNET_ERR_NOT_READY)
            gasnet_AMPoll();
        if (rc != GASNET_OK) {
            DIAG_FAIL("split barrier %d (some nodes anonymous): %s", iter, gasnet_ErrorName(rc));
            failed++;
        }
        if (gasnet_barrier(iter + 1, 0) != GASNET_OK) {
            DIAG_FAIL("gasnet_barrier %d: mismatch reported", iter + 1);
            failed++;
        }
    }
    return failed;
}

#define CHECK(cond, ...)              \
    do {                              \
        if (!(cond)) {                \
            DIAG_FAIL(__VA_ARGS__);   \
            failed++;                 \
        }                             \
    } while (0)

/* D: each operation's result and effect, 32 and 64 bits. */
static int atomic_section(void)
{
    int failed = 0;
    gasnett_atomic_t a = gasnett_atomic_init(5);
    CHECK(gasnett_atomic_read(&a, 0) == 5, "atomic: init / read");
    gasnett_atomic_set(&a, 10, GASNETT_ATOMIC_REL);
    CHECK(gasnett_atomic_add(&a, 5, 0) == 15, "atomic: add returns the new value");
    CHECK(gasnett_atomic_subtract(&a, 3, 0) == 12, "atomic: subtract returns the new value");
    gasnett_atomic_increment(&a, 0);
    gasnett_atomic_decrement(&a, 0);
    gasnett_atomic_decrement(&a, 0);
    CHECK(gasnett_atomic_read(&a, GASNETT_ATOMIC_ACQ) == 11, "atomic: increment / decrement");
    CHECK(!gasnett_atomic_compare_and_swap(&a, 10, 20, 0), "atomic: CAS with a wrong old value");
    CHECK(gasnett_atomic_compare_and_swap(&a, 11, 1, 0), "atomic: CAS with the right old value");
    CHECK(gasnett_atomic_decrement_and_test(&a, 0), "atomic: decrement_and_test to zero");
    CHECK(!gasnett_atomic_decrement_and_test(&a, 0), "atomic: decrement_and_test past zero");
    CHECK(gasnett_atomic_read(&a, 0) == GASNETT_ATOMIC_MAX, "atomic: wraps below zero");
    gasnett_atomic64_t b = gasnett_atomic64_init(1);
    CHECK(gasnett_atomic64_add(&b, 0xffffffffull, 0) == 0x100000000ull, "atomic64: add carries");
    CHECK(gasnett_atomic64_compare_and_swap(&b, 0x100000000ull, 7, 0) &&
          gasnett_atomic64_read(&b, 0) == 7, "atomic64: CAS");
    return failed;
}

/* E: lock / unlock / trylock, and the HSL the AM handlers take. */
static int hsl_section(void)
{
    int failed = 0;
    gasnet_hsl_t lock;
    gasnet_hsl_init(&lock);
    gasnet_hsl_lock(&lock);
    gasnet_hsl_unlock(&lock);
    CHECK(gasnet_hsl_trylock(&lock) == GASNET_OK, "hsl: trylock of a free lock");
    gasnet_hsl_unlock(&lock);
    gasnet_hsl_destroy(&lock);
    return failed;
}

#if GP_PAR
struct thread_arg {
    int iters;
    int am;
    int failed;
};
static gasnett_atomic_t thread_count = gasnett_atomic_init(0);
static gasnet_hsl_t thread_lock = GASNET_HSL_INITIALIZER;
static uint64_t locked_count;

static void *thread_main(void *p)
{
    struct thread_arg *arg = p;
    for (int i = 0; i < arg->iters * 100; i++) {
        gasnett_atomic_increment(&thread_count, 0);
        gasnet_hsl_lock(&thread_lock);
        locked_count++;
        gasnet_hsl_unlock(&thread_lock);
    }
    if (arg->am)
        arg->failed = diag_am_short_burst(arg->iters);
    return NULL;
}

/* F: threads at once; the counts must come out exact. */
static int thread_section(int threads, int iters, int am)
{
    pthread_t tid[64];
    struct thread_arg args[64];
    int failed = 0;
    if (threads > 64)
        threads = 64;
    gasnett_atomic_set(&thread_count, 0, 0);
    locked_count = 0;
    uint32_t replies_before = diag_am_replies();
    int started = 0;
    for (; started < threads; started++) {
        args[started] = (struct thread_arg){ iters, am, 0 };
        if (pthread_create(&tid[started], NULL, thread_main, &args[started]) != 0)
            break;
    }
    for (int t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        failed += args[t].failed;
    }
    if (am) /* every thread's last round trip is answered before the counts are read */
        diag_am_wait(replies_before + (uint32_t)(started * iters));
    uint64_t want = (uint64_t)started * (uint64_t)iters * 100;
    CHECK(started == threads, "threads: %d of %d threads started", started, threads);
    CHECK(gasnett_atomic_read(&thread_count, 0) == want, "threads: atomic count %u, want %llu",
          (unsigned)gasnett_atomic_read(&thread_count, 0), (unsigned long long)want);
    CHECK(locked_count == want, "threads: HSL-held count %llu, want %llu",
          (unsigned long long)locked_count, (unsigned long long)want);
    return failed;
}
#endif

static int wants(const char *sections, char letter)
{
    return sections == NULL || *sections == '\0' || strchr(sections, letter) != NULL ||
           strchr(sections, letter + ('a' - 'A')) != NULL;
}

/* The slot size every node can hold: 2 * nodes slots in the smallest segment. */
static uintptr_t slot_bytes(const gasnet_seginfo_t *seg)
{
    uintptr_t smallest = UINTPTR_MAX;
    for (gasnet_node_t node = 0; node < gasnet_nodes(); node++)
        if (seg[node].size < smallest)
            smallest = seg[node].size;
    uintptr_t slot = smallest / (2 * (uintptr_t)gasnet_nodes());
    slot = slot > SLOT_MAX ? SLOT_MAX : slot & ~(uintptr_t)7;
    return slot;
}

GP_EXPORT int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                      gasnet_seginfo_t const *seginfo)
{
    if (!gpc.attached || gpc_in_handler)
        gp_fatal("gasnett_run_diagnostics called %s (it is collective, after gasnet_attach, "
                 "from main-line code)", gpc.attached ? "inside an AM handler" : "before gasnet_attach");
    if (iters <= 0)
        iters = 10;
    struct diag_layout lay = { calloc(gasnet_nodes(), sizeof(gasnet_seginfo_t)), 0 };
    if (lay.seg == NULL)
        gp_fatal("gasnett_run_diagnostics: no memory for %u segment entries", gasnet_nodes());
    if (seginfo != NULL)
        memcpy(lay.seg, seginfo, gasnet_nodes() * sizeof *lay.seg);
    else
        gasnet_getSegmentInfo(lay.seg, (int)gasnet_nodes());
    lay.slot = slot_bytes(lay.seg);
    int am = diag_handlers_registered();
    int failed = 0;
    diag_am_setup(&lay);
    barrier(); /* every node knows the layout before the first request */
    if (wants(testsections, 'A') && am && lay.slot >= 8)
        failed += diag_am_section(&lay, iters);
    else if (wants(testsections, 'A') && gasnet_mynode() == 0)
        fprintf(stderr, "gasnett_run_diagnostics: AM section skipped (%s)\n",
                am ? "segments too small" : "gasnett_diagnostic_gethandlers() not registered");
    if (wants(testsections, 'B') && lay.slot >= 8)
        failed += rma_section(&lay, iters);
    if (wants(testsections, 'C'))
        failed += barrier_section(iters);
    if (wants(testsections, 'D'))
        failed += atomic_section();
    if (wants(testsections, 'E'))
        failed += hsl_section();
#if GP_PAR
    if (wants(testsections, 'F') && threadcnt > 1) {
        failed += thread_section(threadcnt, iters, am);
    }
#else
    (void)threadcnt;
#endif
    barrier();
    free(lay.seg);
    return failed;
}
