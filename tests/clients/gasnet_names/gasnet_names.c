/*
 * What GASNet 1.29.3's last five classic test programs (testgasnet, testcxx,
 * testtools, testtoolscxx, testinternal) need of gp beyond the rest of the
 * suite, and what Legion's Realm gasnet1 module checks, from the installed
 * tree only.  C and C++ (the Makefile builds it both ways, as testcxx and
 * testtoolscxx are C++ builds of the C tests).
 *
 *   gasnet_names           every node: GASNETT_MAX_THREADS as test.h uses it,
 *                          gasnett_mmap, the GASNet-EX markers, then
 *                          testinternal's sequence: the diagnostics' table by
 *                          gasnett_diagnostic_gethandlers(&table, &count),
 *                          attached, and gasnett_run_diagnostics; prints
 *                          "gasnet_names: node I of N ok (MODE, ...)"
 *   gasnet_names mmap_fail a mapping the system must refuse: a fatal error
 *                          naming gasnett_mmap and the size
 */
#include <gasnet.h>
#include <gasnet_tools.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* test.h sizes its per-thread tables with TEST_MAXTHREADS, derived from
 * GASNETT_MAX_THREADS in #if and in array bounds. */
#ifndef GASNETT_MAX_THREADS
#error "gasnet_tools.h does not define GASNETT_MAX_THREADS"
#endif
#if GASNETT_MAX_THREADS < 1
#error "GASNETT_MAX_THREADS must be a positive integer constant"
#endif
#if !defined(GASNETI_MAX_THREADS) || GASNETI_MAX_THREADS != GASNETT_MAX_THREADS
#error "GASNETI_MAX_THREADS (Chapel reads it) must equal GASNETT_MAX_THREADS"
#endif
#if GASNETT_MAX_THREADS < 256
#define TEST_MAXTHREADS GASNETT_MAX_THREADS
#else
#define TEST_MAXTHREADS 256
#endif
static int thread_slots[TEST_MAXTHREADS];

/* Realm's gasnet1 module: #error unless the EX spec version is at least 0.5. */
#if !defined(GEX_SPEC_VERSION_MAJOR) || !defined(GEX_SPEC_VERSION_MINOR)
#error "gasnet.h does not say which GASNet-EX spec version it implements"
#endif
#if GEX_SPEC_VERSION_MAJOR == 0 && GEX_SPEC_VERSION_MINOR < 5
#error "GEX_SPEC_VERSION below 0.5: Realm refuses it"
#endif

static int failures;
#define CHECK(cond, ...)                                               \
    do {                                                               \
        if (!(cond)) {                                                 \
            printf("gasnet_names: node %u: ", gasnet_mynode());        \
            printf(__VA_ARGS__);                                       \
            printf("\n");                                              \
            failures++;                                                \
        }                                                              \
    } while (0)

/* Realm keeps these two addresses to silence warnings; taking them must
 * compile and link, and calling them must work. */
static void (*const threadkey_init)(pthread_key_t *) = _gasneti_threadkey_init;
static void (*const trace_noop)(const char *, ...) = _gasnett_trace_printf_noop;

static void check_markers(void)
{
    gex_Rank_t rank = gasnet_mynode();
    gasnet_node_t *as_node = &rank; /* the same type: no cast */
    CHECK(*as_node == gasnet_mynode() && sizeof(gex_Rank_t) == sizeof(gasnet_node_t),
          "gex_Rank_t is not gasnet_node_t");
    pthread_key_t key;
    threadkey_init(&key);
    CHECK(pthread_setspecific(key, &rank) == 0 && pthread_getspecific(key) == &rank,
          "the key of _gasneti_threadkey_init does not hold a value");
    pthread_key_delete(key);
    trace_noop("ignored %d", 1);
    GASNETT_TRACE_PRINTF("ignored %d", 2);
}

static void check_mmap(void)
{
    uintptr_t size = 3 * GASNETT_PAGESIZE + 1;
    char *p = (char *)gasnett_mmap(size);
    CHECK(p != NULL && ((uintptr_t)p % GASNETT_PAGESIZE) == 0, "gasnett_mmap: %p is not page-aligned",
          (void *)p);
    int zero = 1;
    for (uintptr_t i = 0; i < size; i++)
        zero &= p[i] == 0;
    CHECK(zero, "gasnett_mmap: the mapping is not zero-filled");
    memset(p, 0x5a, size);
    CHECK(p[size - 1] == 0x5a, "gasnett_mmap: the last byte is not writable");
    CHECK(munmap(p, size) == 0, "munmap of gasnett_mmap's mapping failed");
}

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK)
        return 2;
    int mmap_fail = argc > 1 && strcmp(argv[1], "mmap_fail") == 0;

    /* testinternal: the diagnostics' own table, attached as it comes. */
    gasnet_handlerentry_t *htable = NULL;
    int htable_cnt = -1;
    gasnett_diagnostic_gethandlers(&htable, &htable_cnt);
    if (htable == NULL || htable_cnt < 1)
        return 3;
    if (gasnet_attach(htable, htable_cnt, 64 * GASNETT_PAGESIZE, 0) != GASNET_OK)
        return 4;
    /* gp's first form still compiles and gives the same table, NULL-ended. */
    gasnet_handlerentry_t *old = gasnett_diagnostic_gethandlers();
    CHECK(old == htable && old[htable_cnt].fnptr == NULL,
          "the argument-less form gives another table, or one not ended at count %d", htable_cnt);

    if (mmap_fail) {
        gasnett_mmap((uintptr_t)1 << 62);
        printf("gasnet_names: gasnett_mmap returned from an impossible mapping\n");
        gasnet_exit(5);
    }
    thread_slots[TEST_MAXTHREADS - 1] = 1;
    check_markers();
    check_mmap();
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
#if defined(GASNET_PAR) || defined(GASNET_PARSYNC)
    int threads = 2;
#else
    int threads = 1;
#endif
    int diag = gasnett_run_diagnostics(2, threads, NULL, NULL);
    CHECK(diag == 0, "gasnett_run_diagnostics: %d failures", diag);
    if (failures == 0)
        printf("gasnet_names: node %u of %u ok (%s, %s, TEST_MAXTHREADS=%d, GEX %d.%d, %d handlers)\n",
               gasnet_mynode(), gasnet_nodes(), _GASNET_THREADMODEL_STR,
#ifdef __cplusplus
               "C++",
#else
               "C",
#endif
               TEST_MAXTHREADS, GEX_SPEC_VERSION_MAJOR, GEX_SPEC_VERSION_MINOR, htable_cnt);
    fflush(stdout);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(failures ? 1 : 0);
    return 0;
}
