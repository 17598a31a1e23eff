/*
 * gasnet_tools.h, used the way a tools-only client uses it: these tests
 * include no gasnet.h and never call gasnet_init, so they also prove the
 * header and the library stand alone.  This file: timers, atomics, memory
 * barriers, locks and thread keys (test_tools_env.c and test_tools_macros.c
 * hold the rest).  Timer checks are generous on purpose: they check units
 * and order, never speed.
 */
#include <gasnet_tools.h>

#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/test.h"
#include "util/log.h"

#define CHECK_U(a, b)                                                                    \
    do {                                                                                 \
        unsigned long long check_a_ = (unsigned long long)(a);                           \
        unsigned long long check_b_ = (unsigned long long)(b);                           \
        if (check_a_ != check_b_)                                                        \
            gp_test_fail(__FILE__, __LINE__, "%s == %llu (0x%llx), expected %llu (0x%llx)", \
                         #a, check_a_, check_a_, check_b_, check_b_);                    \
    } while (0)

static uint64_t monotonic_ns(void)
{
    struct timespec now;
    CHECK_EQ(clock_gettime(CLOCK_MONOTONIC, &now), 0);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* ---- timers ---- */

static void test_ticks(void)
{
    gasnett_tick_t last = gasnett_ticks_now();
    for (int i = 0; i < 100000; i++) {
        gasnett_tick_t now = gasnett_ticks_now();
        CHECK(now >= last);
        last = now;
    }
    /* 50 ms of sleep measured both ways: the same interval within wide bounds. */
    uint64_t c0 = monotonic_ns();
    gasnett_tick_t t0 = gasnett_ticks_now();
    struct timespec nap = { 0, 50 * 1000 * 1000 };
    while (nanosleep(&nap, &nap) != 0)
        CHECK_EQ(errno, EINTR);
    gasnett_tick_t t1 = gasnett_ticks_now();
    uint64_t c1 = monotonic_ns();
    uint64_t tick_ns = gasnett_ticks_to_ns(t1 - t0), clock_ns = c1 - c0;
    if (tick_ns < 40 * 1000 * 1000 || tick_ns > 2 * clock_ns + 100 * 1000 * 1000)
        gp_test_fail(__FILE__, __LINE__, "ticks say %llu ns, clock_gettime says %llu ns",
                     (unsigned long long)tick_ns, (unsigned long long)clock_ns);
    CHECK_U(gasnett_ticks_to_us(t1 - t0), gasnett_ticks_to_ns(t1 - t0) / 1000);
    CHECK_U(gasnett_ticks_to_us(0), 0);
    CHECK_U(GASNETT_TICK_MIN, 0);
    CHECK_U(GASNETT_TICK_MAX, UINT64_MAX);

    double granularity = gasnett_tick_granularityus(), overhead = gasnett_tick_overheadus();
    CHECK(granularity > 0.0 && granularity < 1e6);
    CHECK(overhead >= 0.0 && overhead < 1e6);
    CHECK(gasnett_tick_granularityus() == granularity); /* measured once */

    uint64_t wall = gasnett_gettimeofday_us();
    uint64_t epoch_us = (uint64_t)time(NULL) * 1000000u;
    CHECK(wall + 10000000u > epoch_us && wall < epoch_us + 10000000u);
}

/* ---- atomics: every operation of every family, under every fence flag ---- */

/*
 * One checker per family (the families differ only in type), run with each
 * combination of the GASNETT_ATOMIC_* flags: fences must never change values.
 */
#define DEFINE_FAMILY_CHECK(FAM, T, MAXV)                                                \
    static void check_##FAM(int f)                                                       \
    {                                                                                    \
        gasnett_##FAM##_t a = gasnett_##FAM##_init(5);                                   \
        CHECK_U(gasnett_##FAM##_read(&a, f), 5);                                         \
        gasnett_##FAM##_set(&a, 7, f);                                                   \
        CHECK_U(gasnett_##FAM##_read(&a, f), 7);                                         \
        gasnett_##FAM##_increment(&a, f);                                                \
        CHECK_U(gasnett_##FAM##_read(&a, f), 8);                                         \
        gasnett_##FAM##_decrement(&a, f);                                                \
        CHECK_U(gasnett_##FAM##_read(&a, f), 7);                                         \
        CHECK_U(gasnett_##FAM##_add(&a, 3, f), 10);                                      \
        CHECK_U(gasnett_##FAM##_read(&a, f), 10);                                        \
        CHECK_U(gasnett_##FAM##_subtract(&a, 4, f), 6);                                  \
        CHECK_U(gasnett_##FAM##_read(&a, f), 6);                                         \
        /* decrement_and_test: true only when the new value is 0 */                      \
        gasnett_##FAM##_set(&a, 2, f);                                                   \
        CHECK(!gasnett_##FAM##_decrement_and_test(&a, f));                               \
        CHECK(gasnett_##FAM##_decrement_and_test(&a, f));                                \
        CHECK_U(gasnett_##FAM##_read(&a, f), 0);                                         \
        /* wraparound both ways */                                                       \
        gasnett_##FAM##_decrement(&a, f);                                                \
        CHECK_U(gasnett_##FAM##_read(&a, f), MAXV);                                      \
        CHECK_U(gasnett_##FAM##_add(&a, 1, f), 0);                                       \
        CHECK_U(gasnett_##FAM##_subtract(&a, 1, f), MAXV);                               \
        gasnett_##FAM##_increment(&a, f);                                                \
        CHECK_U(gasnett_##FAM##_read(&a, f), 0);                                         \
        gasnett_##FAM##_set(&a, MAXV, f);                                                \
        CHECK_U(gasnett_##FAM##_add(&a, 2, f), 1);                                       \
        CHECK(gasnett_##FAM##_decrement_and_test(&a, f) != 0); /* 1 -> 0 */              \
        CHECK(gasnett_##FAM##_decrement_and_test(&a, f) == 0); /* 0 -> MAX */            \
        CHECK_U(gasnett_##FAM##_read(&a, f), MAXV);                                      \
        /* compare-and-swap: success stores, failure leaves the value alone */           \
        gasnett_##FAM##_set(&a, 10, f);                                                  \
        CHECK(gasnett_##FAM##_compare_and_swap(&a, 10, 20, f) != 0);                     \
        CHECK_U(gasnett_##FAM##_read(&a, f), 20);                                        \
        CHECK(gasnett_##FAM##_compare_and_swap(&a, 10, 30, f) == 0);                     \
        CHECK_U(gasnett_##FAM##_read(&a, f), 20);                                        \
        CHECK(gasnett_##FAM##_compare_and_swap(&a, 20, MAXV, f) != 0);                   \
        CHECK_U(gasnett_##FAM##_read(&a, f), MAXV);                                      \
        /* swap returns the old value */                                                 \
        CHECK_U(gasnett_##FAM##_swap(&a, 99, f), MAXV);                                  \
        CHECK_U(gasnett_##FAM##_swap(&a, 100, f), 99);                                   \
        CHECK_U(gasnett_##FAM##_read(&a, f), 100);                                       \
        /* negative operands are values modulo 2^N */                                    \
        CHECK_U(gasnett_##FAM##_add(&a, (T)-101, f), MAXV);                              \
        CHECK_U(gasnett_##FAM##_subtract(&a, (T)-3, f), 2);                              \
    }

DEFINE_FAMILY_CHECK(atomic, gasnett_atomic_val_t, GASNETT_ATOMIC_MAX)
DEFINE_FAMILY_CHECK(atomic32, uint32_t, UINT32_MAX)
DEFINE_FAMILY_CHECK(atomic64, uint64_t, UINT64_MAX)
DEFINE_FAMILY_CHECK(strongatomic, gasnett_strongatomic_val_t, GASNETT_ATOMIC_MAX)
DEFINE_FAMILY_CHECK(strongatomic32, uint32_t, UINT32_MAX)
DEFINE_FAMILY_CHECK(strongatomic64, uint64_t, UINT64_MAX)

static const int fence_flags[] = {
    GASNETT_ATOMIC_NONE,         GASNETT_ATOMIC_RMB_PRE,          GASNETT_ATOMIC_WMB_PRE,
    GASNETT_ATOMIC_MB_PRE,       GASNETT_ATOMIC_RMB_POST,         GASNETT_ATOMIC_WMB_POST,
    GASNETT_ATOMIC_MB_POST,      GASNETT_ATOMIC_RMB_POST_IF_TRUE, GASNETT_ATOMIC_RMB_POST_IF_FALSE,
    GASNETT_ATOMIC_REL,          GASNETT_ATOMIC_ACQ,              GASNETT_ATOMIC_ACQ_IF_TRUE,
    GASNETT_ATOMIC_ACQ_IF_FALSE, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST,
};

static void test_atomic_ops(void)
{
    for (size_t i = 0; i < sizeof fence_flags / sizeof fence_flags[0]; i++) {
        check_atomic(fence_flags[i]);
        check_atomic32(fence_flags[i]);
        check_atomic64(fence_flags[i]);
        check_strongatomic(fence_flags[i]);
        check_strongatomic32(fence_flags[i]);
        check_strongatomic64(fence_flags[i]);
    }
}

static void test_atomic_constants(void)
{
#if !GASNETT_HAVE_ATOMIC_CAS || !GASNETT_HAVE_ATOMIC_ADD_SUB || \
    !GASNETT_HAVE_STRONGATOMIC_CAS || !GASNETT_HAVE_STRONGATOMIC_ADD_SUB
#error "gp provides the full atomic operation set"
#endif
#if GASNETT_ATOMIC_MAX != 0xFFFFFFFF || GASNETT_ATOMIC_SIGNED_MAX != 0x7FFFFFFF || \
    GASNETT_ATOMIC_SIGNED_MIN != -0x7FFFFFFF - 1 || GASNETT_ATOMIC_NONE != 0
#error "atomic range constants must be #if-able integers"
#endif
#ifdef GASNETT_USING_GENERIC_ATOMICOPS
#error "gp's atomics are native"
#endif
    CHECK_EQ(GASNETT_ATOMIC_MB_PRE, GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE);
    CHECK_EQ(GASNETT_ATOMIC_MB_POST, GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST);
    CHECK_EQ(GASNETT_ATOMIC_REL, GASNETT_ATOMIC_WMB_PRE);
    CHECK_EQ(GASNETT_ATOMIC_ACQ, GASNETT_ATOMIC_RMB_POST);
    CHECK_EQ(GASNETT_ATOMIC_ACQ_IF_TRUE, GASNETT_ATOMIC_RMB_POST_IF_TRUE);
    CHECK_EQ(GASNETT_ATOMIC_ACQ_IF_FALSE, GASNETT_ATOMIC_RMB_POST_IF_FALSE);

    /* Signed views of the unsigned counters. */
    gasnett_atomic_t a = gasnett_atomic_init(0);
    gasnett_atomic_set(&a, (gasnett_atomic_val_t)-5, 0);
    CHECK_EQ(gasnett_atomic_signed(gasnett_atomic_read(&a, 0)), -5);
    CHECK_EQ(gasnett_atomic_signed(gasnett_atomic_add(&a, (gasnett_atomic_val_t)-3, 0)), -8);
    CHECK_EQ(gasnett_atomic_signed(gasnett_atomic_subtract(&a, (gasnett_atomic_val_t)-10, 0)), 2);
    CHECK_EQ(gasnett_atomic_signed(0x80000000u), GASNETT_ATOMIC_SIGNED_MIN);
    CHECK_EQ(gasnett_atomic_signed(0x7FFFFFFFu), GASNETT_ATOMIC_SIGNED_MAX);
    CHECK_EQ(gasnett_atomic_signed(GASNETT_ATOMIC_MAX), -1);
    gasnett_strongatomic_t s = gasnett_strongatomic_init(0);
    CHECK_EQ(gasnett_strongatomic_signed(gasnett_strongatomic_subtract(&s, 1, 0)), -1);

    /* 64-bit values above 32 bits, and the natural alignment casts rely on. */
    gasnett_atomic64_t w = gasnett_atomic64_init(0);
    gasnett_atomic64_set(&w, (uint64_t)1 << 40, 0);
    CHECK_U(gasnett_atomic64_add(&w, (uint64_t)3 << 40, 0), (uint64_t)1 << 42);
    CHECK_U(gasnett_atomic64_subtract(&w, (uint64_t)1 << 42, 0), 0);
    CHECK(gasnett_atomic64_compare_and_swap(&w, 0, (uint64_t)0xDEADBEEF << 24, 0));
    CHECK_U(gasnett_atomic64_read(&w, 0), (uint64_t)0xDEADBEEF << 24);
    CHECK_EQ(sizeof(gasnett_atomic32_t), 4);
    CHECK_EQ(sizeof(gasnett_atomic64_t), 8);
    CHECK_EQ(_Alignof(gasnett_atomic64_t), 8);
}

/* ---- atomics under threads ---- */

#define THREADS 4
#define ROUNDS 100000

static gasnett_atomic_t shared_count = gasnett_atomic_init(0);
static gasnett_atomic32_t shared_cas = gasnett_atomic32_init(0);
static gasnett_atomic64_t shared_wide = gasnett_atomic64_init(0);
static gasnett_strongatomic_t shared_down = gasnett_strongatomic_init(THREADS * ROUNDS);
static gasnett_atomic_t zero_seen = gasnett_atomic_init(0);

static void *atomic_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        gasnett_atomic_increment(&shared_count, 0);
        uint32_t old;
        do {
            old = gasnett_atomic32_read(&shared_cas, 0);
        } while (!gasnett_atomic32_compare_and_swap(&shared_cas, old, old + 1, GASNETT_ATOMIC_ACQ));
        gasnett_atomic64_add(&shared_wide, (uint64_t)1 << 33, GASNETT_ATOMIC_REL);
        if (gasnett_strongatomic_decrement_and_test(&shared_down, GASNETT_ATOMIC_ACQ_IF_TRUE))
            gasnett_atomic_increment(&zero_seen, 0);
    }
    return NULL;
}

static void test_atomic_threads(void)
{
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&threads[i], NULL, atomic_worker, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_join(threads[i], NULL), 0);
    CHECK_U(gasnett_atomic_read(&shared_count, GASNETT_ATOMIC_ACQ), THREADS * ROUNDS);
    CHECK_U(gasnett_atomic32_read(&shared_cas, 0), THREADS * ROUNDS);
    CHECK_U(gasnett_atomic64_read(&shared_wide, 0), (uint64_t)THREADS * ROUNDS << 33);
    CHECK_U(gasnett_strongatomic_read(&shared_down, 0), 0);
    CHECK_U(gasnett_atomic_read(&zero_seen, 0), 1); /* exactly one thread saw zero */
}

/* ---- memory barriers: callable, and a message handed over with wmb/rmb ---- */

static volatile int mailbox_data;
static volatile int mailbox_flag;

static void *mailbox_writer(void *arg)
{
    (void)arg;
    mailbox_data = 42;
    gasnett_local_wmb();
    mailbox_flag = 1;
    return NULL;
}

static void test_barriers(void)
{
    pthread_t writer;
    CHECK_EQ(pthread_create(&writer, NULL, mailbox_writer, NULL), 0);
    while (!mailbox_flag)
        gasnett_spinloop_hint();
    gasnett_local_rmb();
    CHECK_EQ(mailbox_data, 42);
    CHECK_EQ(pthread_join(writer, NULL), 0);
    gasnett_local_mb();
    gasnett_weak_mb();
    gasnett_weak_rmb();
    gasnett_weak_wmb();
    gasnett_compiler_fence();
}

/* ---- mutexes, condition variables, rwlocks ---- */

static gasnett_mutex_t count_lock = GASNETT_MUTEX_INITIALIZER;
static long plain_count;

static void *mutex_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_EQ(gasnett_mutex_lock(&count_lock), 0);
        plain_count++;
        CHECK_EQ(gasnett_mutex_unlock(&count_lock), 0);
    }
    return NULL;
}

static void *try_count_lock(void *arg)
{
    return (void *)(intptr_t)gasnett_mutex_trylock((gasnett_mutex_t *)arg);
}

static void test_mutex(void)
{
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&threads[i], NULL, mutex_worker, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_join(threads[i], NULL), 0);
    CHECK_EQ(plain_count, THREADS * ROUNDS);

    /* trylock: EBUSY while another thread holds it, 0 once free. */
    gasnett_mutex_t m;
    void *result;
    pthread_t other;
    CHECK_EQ(gasnett_mutex_init(&m), 0);
    CHECK_EQ(gasnett_mutex_lock(&m), 0);
    CHECK_EQ(pthread_create(&other, NULL, try_count_lock, &m), 0);
    CHECK_EQ(pthread_join(other, &result), 0);
    CHECK_EQ((intptr_t)result, EBUSY);
    CHECK_EQ(gasnett_mutex_unlock(&m), 0);
    CHECK_EQ(gasnett_mutex_trylock(&m), 0);
    CHECK_EQ(gasnett_mutex_unlock(&m), 0);
    CHECK_EQ(gasnett_mutex_destroy(&m), 0);
}

static gasnett_mutex_t cond_lock = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t cond_changed = GASNETT_COND_INITIALIZER;
static int cond_stage;
static int cond_woken;

static void *cond_waiter(void *arg)
{
    int wanted = (int)(intptr_t)arg;
    gasnett_mutex_lock(&cond_lock);
    while (cond_stage < wanted)
        gasnett_cond_wait(&cond_changed, &cond_lock);
    cond_woken++;
    gasnett_cond_broadcast(&cond_changed);
    gasnett_mutex_unlock(&cond_lock);
    return NULL;
}

static void test_cond(void)
{
    pthread_t threads[3];
    /* One waiter woken by signal, then three by broadcast. */
    CHECK_EQ(pthread_create(&threads[0], NULL, cond_waiter, (void *)1), 0);
    gasnett_mutex_lock(&cond_lock);
    cond_stage = 1;
    gasnett_cond_signal(&cond_changed);
    while (cond_woken < 1)
        gasnett_cond_wait(&cond_changed, &cond_lock);
    gasnett_mutex_unlock(&cond_lock);
    CHECK_EQ(pthread_join(threads[0], NULL), 0);

    for (int i = 0; i < 3; i++)
        CHECK_EQ(pthread_create(&threads[i], NULL, cond_waiter, (void *)2), 0);
    gasnett_mutex_lock(&cond_lock);
    cond_stage = 2;
    gasnett_cond_broadcast(&cond_changed);
    while (cond_woken < 4)
        gasnett_cond_wait(&cond_changed, &cond_lock);
    gasnett_mutex_unlock(&cond_lock);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(pthread_join(threads[i], NULL), 0);

    gasnett_cond_t c;
    CHECK_EQ(gasnett_cond_init(&c), 0);
    CHECK_EQ(gasnett_cond_destroy(&c), 0);
}

static gasnett_rwlock_t table_lock = GASNETT_RWLOCK_INITIALIZER;

static void *try_read(void *arg)
{
    (void)arg;
    int rc = gasnett_rwlock_tryrdlock(&table_lock);
    if (rc == 0)
        gasnett_rwlock_unlock(&table_lock);
    return (void *)(intptr_t)rc;
}

static void *try_write(void *arg)
{
    (void)arg;
    int rc = gasnett_rwlock_trywrlock(&table_lock);
    if (rc == 0)
        gasnett_rwlock_unlock(&table_lock);
    return (void *)(intptr_t)rc;
}

static intptr_t in_thread(void *(*fn)(void *))
{
    pthread_t thread;
    void *result;
    CHECK_EQ(pthread_create(&thread, NULL, fn, NULL), 0);
    CHECK_EQ(pthread_join(thread, &result), 0);
    return (intptr_t)result;
}

static void test_rwlock(void)
{
    /* Readers share, a writer waits for them; a writer excludes everyone. */
    CHECK_EQ(gasnett_rwlock_rdlock(&table_lock), 0);
    CHECK_EQ(in_thread(try_read), 0);
    CHECK_EQ(in_thread(try_write), EBUSY);
    CHECK_EQ(gasnett_rwlock_unlock(&table_lock), 0);
    CHECK_EQ(gasnett_rwlock_wrlock(&table_lock), 0);
    CHECK_EQ(in_thread(try_read), EBUSY);
    CHECK_EQ(in_thread(try_write), EBUSY);
    CHECK_EQ(gasnett_rwlock_unlock(&table_lock), 0);
    CHECK_EQ(in_thread(try_write), 0);

    gasnett_rwlock_t dynamic;
    CHECK_EQ(gasnett_rwlock_init(&dynamic), 0);
    CHECK_EQ(gasnett_rwlock_wrlock(&dynamic), 0);
    CHECK_EQ(gasnett_rwlock_unlock(&dynamic), 0);
    CHECK_EQ(gasnett_rwlock_destroy(&dynamic), 0);
}

/* ---- thread keys ---- */

GASNETT_THREADKEY_DEFINE(slot);
GASNETT_THREADKEY_DECLARE(slot); /* a header's declaration after the definition is fine */

static gasnett_atomic_t slot_ready = gasnett_atomic_init(0);

static void *slot_worker(void *arg)
{
    gasnett_threadkey_init(slot);
    if (gasnett_threadkey_get(slot) != NULL)
        return (void *)"a new thread's key was not NULL";
    gasnett_threadkey_set(slot, arg);
    /* Wait until every thread has set its own value, then read ours back. */
    gasnett_atomic_increment(&slot_ready, GASNETT_ATOMIC_REL);
    while (gasnett_atomic_read(&slot_ready, GASNETT_ATOMIC_ACQ) < THREADS)
        gasnett_sched_yield();
    if (gasnett_threadkey_get(slot) != arg || gasnett_threadkey_get_noinit(slot) != arg)
        return (void *)"a thread saw another thread's value";
    gasnett_threadkey_set_noinit(slot, NULL);
    return gasnett_threadkey_get(slot) == NULL ? NULL : (void *)"set_noinit did not store";
}

static void test_threadkeys(void)
{
    static int values[THREADS];
    pthread_t threads[THREADS];
    gasnett_threadkey_set(slot, &values);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&threads[i], NULL, slot_worker, &values[i]), 0);
    for (int i = 0; i < THREADS; i++) {
        void *why;
        CHECK_EQ(pthread_join(threads[i], &why), 0);
        if (why != NULL)
            gp_test_fail(__FILE__, __LINE__, "%s", (const char *)why);
    }
    CHECK(gasnett_threadkey_get(slot) == (void *)&values);
}

/* ---- gasnett_mmap ---- */

/* A page-aligned, zero-filled, writable mapping that munmap takes back. */
static void test_mmap(void)
{
    uintptr_t size = 2 * GASNETT_PAGESIZE + 17;
    unsigned char *p = gasnett_mmap(size);
    CHECK(p != NULL);
    CHECK_EQ((uintptr_t)p % GASNETT_PAGESIZE, 0);
    size_t nonzero = 0;
    for (uintptr_t i = 0; i < size; i++)
        nonzero += p[i] != 0;
    CHECK_EQ(nonzero, 0);
    memset(p, 0xa5, size);
    CHECK_EQ(p[size - 1], 0xa5);
    CHECK_EQ(munmap(p, size), 0);
}

/* exit status of a child that calls gasnett_mmap(size), stderr in buf. */
static int mmap_child(uintptr_t size, char *buf, size_t bufsz)
{
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        (void)gasnett_mmap(size);
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < bufsz && (n = read(fds[0], buf + got, bufsz - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    close(fds[0]);
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* It never returns a failure: size 0 and a size no process can map are fatal, named. */
static void test_mmap_fatal(void)
{
    char buf[1024];
    CHECK(mmap_child(0, buf, sizeof buf) != 0);
    CHECK_STR_CONTAINS(buf, "gasnett_mmap: size 0 (accepted: 1 byte or more");
    CHECK(mmap_child((uintptr_t)1 << 62, buf, sizeof buf) != 0);
    CHECK_STR_CONTAINS(buf, "gasnett_mmap: cannot map 4611686018427387904 bytes of anonymous memory");
}

/* The names Legion's Realm takes the address of: they exist, and the key works. */
static void test_realm_names(void)
{
    void (*init)(pthread_key_t *) = _gasneti_threadkey_init;
    void (*trace)(const char *, ...) = _gasnett_trace_printf_noop;
    pthread_key_t key;
    int value = 7;
    init(&key);
    CHECK_EQ(pthread_setspecific(key, &value), 0);
    CHECK(pthread_getspecific(key) == &value);
    CHECK_EQ(pthread_key_delete(key), 0);
    trace("nothing %d", value);
}

/* The signal handler's line builder: numbers by hand, never past the buffer. */
static void test_sigsafe_line(void)
{
    char buf[32];
    size_t len = gp_sigsafe_append(buf, 0, sizeof buf, "signal ");
    len = gp_sigsafe_append_uint(buf, len, sizeof buf, 0);
    len = gp_sigsafe_append(buf, len, sizeof buf, " ");
    len = gp_sigsafe_append_uint(buf, len, sizeof buf, 18446744073709551615ul);
    CHECK_STR_CONTAINS(buf, "signal 0 18446744073709551615");
    CHECK_EQ(len, strlen(buf));
    char small[8];
    len = gp_sigsafe_append(small, 0, sizeof small, "abc");
    len = gp_sigsafe_append_uint(small, len, sizeof small, 123456789);
    CHECK_EQ(len, 7);
    CHECK(strcmp(small, "abc1234") == 0);
    errno = ERANGE;
    gp_sigsafe_write(STDERR_FILENO, "", 0);
    CHECK_EQ(errno, ERANGE);
}

static const struct gp_test tests[] = {
    { "sigsafe_line", test_sigsafe_line, 0 },
    { "ticks", test_ticks, 0 },
    { "atomic_ops", test_atomic_ops, 0 },
    { "atomic_constants", test_atomic_constants, 0 },
    { "atomic_threads", test_atomic_threads, 0 },
    { "barriers", test_barriers, 0 },
    { "mutex", test_mutex, 0 },
    { "cond", test_cond, 0 },
    { "rwlock", test_rwlock, 0 },
    { "threadkeys", test_threadkeys, 0 },
    { "mmap", test_mmap, 0 },
    { "mmap_fatal", test_mmap_fatal, 0 },
    { "realm_names", test_realm_names, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "tools", tests);
}
