/*
 * gasnet_tools.h: GASNet's communication-independent tools (tools spec 1.9)
 * as provided by libgp.
 *
 * The header stands alone: a program may include it with or without
 * gasnet.h (either order), call everything here without gasnet_init, and
 * link libgp.  Only the gasnett_ / GASNETT_ / _gasnett_ prefixes are used,
 * plus the PLATFORM_* detection macros and _STRINGIFY, which GASNet
 * clients expect from this header.
 *
 * Thread safety does not follow GASNET_SEQ: the locks are always real
 * pthread locks and the atomics always atomic, so a SEQ client that runs
 * threads of its own may still use them (GASNETT_THREAD_SAFE is defined).
 * Tracing and statistics are not built into libgp; their macros compile to
 * nothing (see doc/gasnet_tools.md).  Constants a client may test in #if
 * are plain integers.
 */
#ifndef _GASNET_TOOLS_H
#define _GASNET_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

/* GASNet's tools header reads the configuration too (HAVE_PTHREAD_H, SIZEOF_*). */
#include "gasnet_config.h"

/* ---- versions and configuration (tools spec 1.9) ---- */

#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 9
/* gp's own numbering, chosen above the GASNet-1 releases whose tools gp
 * provides; kept equal to GASNET_RELEASE_VERSION_* (see doc/gasnet_tools.md). */
#define GASNETT_RELEASE_VERSION_MAJOR 1
#define GASNETT_RELEASE_VERSION_MINOR 30
#define GASNETT_RELEASE_VERSION_PATCH 0

#ifndef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#endif

/* ---- portability macros ---- */

#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif

#ifdef __cplusplus
#define GASNETT_EXTERNC extern "C"
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#else
#define GASNETT_EXTERNC extern
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#endif

/* GASNETT_INLINE(fn) int fn(...) { ... }: a static inline definition. */
#define GASNETT_INLINE(fnname) static __inline__
#define GASNETT_NEVER_INLINE(fnname, declarator) __attribute__((__noinline__)) declarator
#define GASNETT_NORETURN __attribute__((__noreturn__))
#define GASNETT_NORETURNP(fnptr)
#define GASNETT_MALLOC __attribute__((__malloc__))
#define GASNETT_RESTRICT __restrict__
#define GASNETT_CURRENT_FUNCTION __func__
/* GASNETT_FORMAT_PRINTF(fn, fmtarg, firstvararg, declaration); */
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, ...) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) __VA_ARGS__
/* GASNETT_IDENT(name, "text"); embeds the string in the object file. */
#ifdef __cplusplus
#define _GASNETT_EXTERNC_DEF extern "C"
#else
#define _GASNETT_EXTERNC_DEF
#endif
#define GASNETT_IDENT(identName, identText)  \
    GASNETT_EXTERNC const char identName[]; \
    _GASNETT_EXTERNC_DEF const char identName[] __attribute__((__used__)) = identText

#define GASNETT_PREDICT_TRUE(exp) __builtin_expect(!!(exp), 1)
#define GASNETT_PREDICT_FALSE(exp) __builtin_expect(!!(exp), 0)
#ifndef if_pt
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif
#ifndef if_pf
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif

/* ---- platform constants ---- */

#if defined(__powerpc64__) || (defined(__aarch64__) && defined(__APPLE__))
#define GASNETT_CACHE_LINE_BYTES 128
#else
#define GASNETT_CACHE_LINE_BYTES 64
#endif
#define GASNETT_PAGESIZE 4096 /* equals GASNET_PAGESIZE */
#define GASNETT_PAGESHIFT 12
/* gp keeps no per-thread table, so this is only the size clients plan for; a
 * plain integer, as GASNet's test.h sizes TEST_MAXTHREADS with it in #if. */
#define GASNETT_MAX_THREADS 256
/* GASNet's internal name of the same limit, which Chapel's GASNet layer reads. */
#define GASNETI_MAX_THREADS GASNETT_MAX_THREADS

/* PLATFORM_*: gasnet_portable_platform.h (gasnet.h includes it too). */
#include "gasnet_portable_platform.h"

#ifndef _GASNETT_ARCH_STR
#define _GASNETT_ARCH_STR "unknown"
#define _GASNETT_OS_STR "unknown-unknown"
#endif
#define GASNETT_SYSTEM_TUPLE _GASNETT_ARCH_STR "-" _GASNETT_OS_STR

#if __SIZEOF_POINTER__ == 8
#define _GASNETT_PTR_STR "64bit"
#else
#define _GASNETT_PTR_STR "32bit"
#endif
#define GASNETT_CONFIG_STRING                                                            \
    "RELEASE=" _STRINGIFY(GASNETT_RELEASE_VERSION_MAJOR) "." _STRINGIFY(              \
        GASNETT_RELEASE_VERSION_MINOR) "." _STRINGIFY(GASNETT_RELEASE_VERSION_PATCH)   \
    ",SPEC=" _STRINGIFY(GASNETT_SPEC_VERSION_MAJOR) "." _STRINGIFY(                   \
        GASNETT_SPEC_VERSION_MINOR) ",PTR=" _GASNETT_PTR_STR                            \
    ",threadsafe,nodebug,notrace,nostats,nodebugmalloc,nosrclines,timers_native,"      \
    "membars_native,atomics_native,atomic32_native,atomic64_native"

GASNETT_BEGIN_EXTERNC

/* ---- timers: ticks are nanoseconds of CLOCK_MONOTONIC ---- */

typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN 0
#define GASNETT_TICK_MAX UINT64_MAX

extern gasnett_tick_t gasnett_ticks_now(void);
GASNETT_INLINE(gasnett_ticks_to_ns) uint64_t gasnett_ticks_to_ns(gasnett_tick_t _gasnett_t)
{
    return (uint64_t)_gasnett_t;
}
GASNETT_INLINE(gasnett_ticks_to_us) uint64_t gasnett_ticks_to_us(gasnett_tick_t _gasnett_t)
{
    return (uint64_t)_gasnett_t / 1000u;
}
/* Smallest observable non-zero tick interval and the cost of one read, in us. */
extern double gasnett_tick_granularityus(void);
extern double gasnett_tick_overheadus(void);
/* Wall-clock microseconds since the epoch (gettimeofday). */
extern uint64_t gasnett_gettimeofday_us(void);

/* ---- memory barriers ---- */

/* The compiler keeps memory accesses on their side of this point. */
#define gasnett_compiler_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
/* Full fence: earlier loads and stores before later loads and stores. */
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
/* Write fence: earlier stores (and loads) before later stores. */
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
/* Read fence: earlier loads before later loads (and stores). */
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* The weak forms matter only in non-threaded builds; gp's tools are always threaded. */
#define gasnett_weak_mb() gasnett_local_mb()
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()

#if defined(__x86_64__) || defined(__i386__)
#define gasnett_spinloop_hint() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ---- atomics ---- */

/* Fence flags, OR-ed into the flags argument; gp may fence more, never less. */
#define GASNETT_ATOMIC_NONE 0x00
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_MB_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_MB_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE

#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1
/* GASNETT_USING_GENERIC_ATOMICOPS is not defined: every atomic is a native instruction. */

typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
typedef uint32_t gasnett_strongatomic_val_t;
typedef int32_t gasnett_strongatomic_sval_t;
#define GASNETT_ATOMIC_MAX 0xFFFFFFFFu
#define GASNETT_ATOMIC_SIGNED_MIN (-0x7FFFFFFF - 1)
#define GASNETT_ATOMIC_SIGNED_MAX 0x7FFFFFFF
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(gasnett_atomic_val_t)(v))
#define gasnett_strongatomic_signed(v) ((gasnett_strongatomic_sval_t)(gasnett_strongatomic_val_t)(v))

/* Plain integer members: the __atomic builtins do every access. */
typedef struct { uint32_t _gasnett_ctr; } gasnett_atomic_t;
typedef struct { uint32_t _gasnett_ctr; } gasnett_atomic32_t;
typedef struct { uint64_t _gasnett_ctr __attribute__((__aligned__(8))); } gasnett_atomic64_t;
typedef struct { uint32_t _gasnett_ctr; } gasnett_strongatomic_t;
typedef struct { uint32_t _gasnett_ctr; } gasnett_strongatomic32_t;
typedef struct { uint64_t _gasnett_ctr __attribute__((__aligned__(8))); } gasnett_strongatomic64_t;
#define gasnett_atomic_init(v) { (v) }
#define gasnett_atomic32_init(v) { (v) }
#define gasnett_atomic64_init(v) { (v) }
#define gasnett_strongatomic_init(v) { (v) }
#define gasnett_strongatomic32_init(v) { (v) }
#define gasnett_strongatomic64_init(v) { (v) }

/*
 * One fence before or after an operation.  On x86 a read-modify-write is a
 * locked instruction, already a full fence, so only the compiler is held.
 */
GASNETT_INLINE(_gasnett_atomic_fence) void _gasnett_atomic_fence(int _gasnett_rmb, int _gasnett_wmb,
                                                                 int _gasnett_locked)
{
#if defined(__x86_64__) || defined(__i386__)
    if (_gasnett_locked) {
        if (_gasnett_rmb || _gasnett_wmb)
            gasnett_compiler_fence();
        return;
    }
#else
    (void)_gasnett_locked;
#endif
    if (_gasnett_rmb && _gasnett_wmb)
        gasnett_local_mb();
    else if (_gasnett_wmb)
        gasnett_local_wmb();
    else if (_gasnett_rmb)
        gasnett_local_rmb();
}
#define _GASNETT_PRE(f, locked) \
    _gasnett_atomic_fence((f) & GASNETT_ATOMIC_RMB_PRE, (f) & GASNETT_ATOMIC_WMB_PRE, locked)
#define _GASNETT_POST(f, locked) \
    _gasnett_atomic_fence((f) & GASNETT_ATOMIC_RMB_POST, (f) & GASNETT_ATOMIC_WMB_POST, locked)
/* The post fence of an operation with a truth value (CAS, decrement_and_test). */
#define _GASNETT_POST_IF(f, result)                                                       \
    _gasnett_atomic_fence((f) & (GASNETT_ATOMIC_RMB_POST |                                 \
                                 ((result) ? GASNETT_ATOMIC_RMB_POST_IF_TRUE               \
                                           : GASNETT_ATOMIC_RMB_POST_IF_FALSE)),           \
                          (f) & GASNETT_ATOMIC_WMB_POST, 1)

/* The full operation set of one atomic family FAM over the value type T. */
#define _GASNETT_ATOMIC_OPS(FAM, T)                                                               \
    GASNETT_INLINE(gasnett_##FAM##_set)                                                           \
    void gasnett_##FAM##_set(gasnett_##FAM##_t *_gasnett_p, T _gasnett_v, int _gasnett_f)         \
    {                                                                                             \
        _GASNETT_PRE(_gasnett_f, 0);                                                              \
        __atomic_store_n(&_gasnett_p->_gasnett_ctr, _gasnett_v, __ATOMIC_RELAXED);                \
        _GASNETT_POST(_gasnett_f, 0);                                                             \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_read)                                                          \
    T gasnett_##FAM##_read(const gasnett_##FAM##_t *_gasnett_p, int _gasnett_f)                   \
    {                                                                                             \
        T _gasnett_r;                                                                             \
        _GASNETT_PRE(_gasnett_f, 0);                                                              \
        _gasnett_r = __atomic_load_n(&_gasnett_p->_gasnett_ctr, __ATOMIC_RELAXED);                \
        _GASNETT_POST(_gasnett_f, 0);                                                             \
        return _gasnett_r;                                                                        \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_add)                                                           \
    T gasnett_##FAM##_add(gasnett_##FAM##_t *_gasnett_p, T _gasnett_v, int _gasnett_f)            \
    {                                                                                             \
        T _gasnett_r;                                                                             \
        _GASNETT_PRE(_gasnett_f, 1);                                                              \
        _gasnett_r = __atomic_add_fetch(&_gasnett_p->_gasnett_ctr, _gasnett_v, __ATOMIC_SEQ_CST); \
        _GASNETT_POST(_gasnett_f, 1);                                                             \
        return _gasnett_r;                                                                        \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_subtract)                                                      \
    T gasnett_##FAM##_subtract(gasnett_##FAM##_t *_gasnett_p, T _gasnett_v, int _gasnett_f)       \
    {                                                                                             \
        T _gasnett_r;                                                                             \
        _GASNETT_PRE(_gasnett_f, 1);                                                              \
        _gasnett_r = __atomic_sub_fetch(&_gasnett_p->_gasnett_ctr, _gasnett_v, __ATOMIC_SEQ_CST); \
        _GASNETT_POST(_gasnett_f, 1);                                                             \
        return _gasnett_r;                                                                        \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_increment)                                                     \
    void gasnett_##FAM##_increment(gasnett_##FAM##_t *_gasnett_p, int _gasnett_f)                 \
    {                                                                                             \
        (void)gasnett_##FAM##_add(_gasnett_p, 1, _gasnett_f);                                     \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_decrement)                                                     \
    void gasnett_##FAM##_decrement(gasnett_##FAM##_t *_gasnett_p, int _gasnett_f)                 \
    {                                                                                             \
        (void)gasnett_##FAM##_subtract(_gasnett_p, 1, _gasnett_f);                                \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_decrement_and_test)                                            \
    int gasnett_##FAM##_decrement_and_test(gasnett_##FAM##_t *_gasnett_p, int _gasnett_f)         \
    {                                                                                             \
        int _gasnett_r;                                                                           \
        _GASNETT_PRE(_gasnett_f, 1);                                                              \
        _gasnett_r = __atomic_sub_fetch(&_gasnett_p->_gasnett_ctr, 1, __ATOMIC_SEQ_CST) == 0;     \
        _GASNETT_POST_IF(_gasnett_f, _gasnett_r);                                                 \
        return _gasnett_r;                                                                        \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_compare_and_swap)                                              \
    int gasnett_##FAM##_compare_and_swap(gasnett_##FAM##_t *_gasnett_p, T _gasnett_old,           \
                                         T _gasnett_new, int _gasnett_f)                          \
    {                                                                                             \
        int _gasnett_r;                                                                           \
        _GASNETT_PRE(_gasnett_f, 1);                                                              \
        _gasnett_r = __atomic_compare_exchange_n(&_gasnett_p->_gasnett_ctr, &_gasnett_old,        \
                                                 _gasnett_new, 0, __ATOMIC_SEQ_CST,               \
                                                 __ATOMIC_SEQ_CST);                               \
        _GASNETT_POST_IF(_gasnett_f, _gasnett_r);                                                 \
        return _gasnett_r;                                                                        \
    }                                                                                             \
    GASNETT_INLINE(gasnett_##FAM##_swap)                                                          \
    T gasnett_##FAM##_swap(gasnett_##FAM##_t *_gasnett_p, T _gasnett_v, int _gasnett_f)           \
    {                                                                                             \
        T _gasnett_r;                                                                             \
        _GASNETT_PRE(_gasnett_f, 1);                                                              \
        _gasnett_r = __atomic_exchange_n(&_gasnett_p->_gasnett_ctr, _gasnett_v, __ATOMIC_SEQ_CST);\
        _GASNETT_POST(_gasnett_f, 1);                                                             \
        return _gasnett_r;                                                                        \
    }

_GASNETT_ATOMIC_OPS(atomic, gasnett_atomic_val_t)
_GASNETT_ATOMIC_OPS(atomic32, uint32_t)
_GASNETT_ATOMIC_OPS(atomic64, uint64_t)
_GASNETT_ATOMIC_OPS(strongatomic, gasnett_strongatomic_val_t)
_GASNETT_ATOMIC_OPS(strongatomic32, uint32_t)
_GASNETT_ATOMIC_OPS(strongatomic64, uint64_t)

/* ---- mutexes, condition variables, reader/writer locks ---- */

/* Plain (non-recursive, process-private) pthread objects. */
typedef pthread_mutex_t gasnett_mutex_t;
typedef pthread_cond_t gasnett_cond_t;
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define GASNETT_COND_INITIALIZER PTHREAD_COND_INITIALIZER

#define gasnett_mutex_init(pl) pthread_mutex_init((pl), NULL)
#define gasnett_mutex_destroy(pl) pthread_mutex_destroy(pl)
#define gasnett_mutex_lock(pl) pthread_mutex_lock(pl)
#define gasnett_mutex_unlock(pl) pthread_mutex_unlock(pl)
/* 0, or EBUSY when another thread holds it. */
#define gasnett_mutex_trylock(pl) pthread_mutex_trylock(pl)

#define gasnett_cond_init(pc) pthread_cond_init((pc), NULL)
#define gasnett_cond_destroy(pc) pthread_cond_destroy(pc)
#define gasnett_cond_signal(pc) pthread_cond_signal(pc)
#define gasnett_cond_broadcast(pc) pthread_cond_broadcast(pc)
/* Does not poll GASNet; wakeups may be spurious. */
#define gasnett_cond_wait(pc, pl) pthread_cond_wait((pc), (pl))

#ifdef PTHREAD_RWLOCK_INITIALIZER
typedef pthread_rwlock_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
#define gasnett_rwlock_init(pl) pthread_rwlock_init((pl), NULL)
#define gasnett_rwlock_destroy(pl) pthread_rwlock_destroy(pl)
#define gasnett_rwlock_rdlock(pl) pthread_rwlock_rdlock(pl)
#define gasnett_rwlock_wrlock(pl) pthread_rwlock_wrlock(pl)
#define gasnett_rwlock_unlock(pl) pthread_rwlock_unlock(pl)
#define gasnett_rwlock_tryrdlock(pl) pthread_rwlock_tryrdlock(pl)
#define gasnett_rwlock_trywrlock(pl) pthread_rwlock_trywrlock(pl)
#else
/*
 * A strict ISO mode (-std=c99 with no feature macro) hides POSIX rwlocks.
 * A mutex is then the reader/writer lock: correct, but readers take turns.
 * Build every file that shares a gasnett_rwlock_t in the same mode.
 */
typedef pthread_mutex_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define gasnett_rwlock_init(pl) pthread_mutex_init((pl), NULL)
#define gasnett_rwlock_destroy(pl) pthread_mutex_destroy(pl)
#define gasnett_rwlock_rdlock(pl) pthread_mutex_lock(pl)
#define gasnett_rwlock_wrlock(pl) pthread_mutex_lock(pl)
#define gasnett_rwlock_unlock(pl) pthread_mutex_unlock(pl)
#define gasnett_rwlock_tryrdlock(pl) pthread_mutex_trylock(pl)
#define gasnett_rwlock_trywrlock(pl) pthread_mutex_trylock(pl)
#endif

/* ---- thread keys: one void * per thread, NULL until set ---- */

#define GASNETT_THREADKEY_DECLARE(key) extern __thread void *_gasnett_threadkey_##key
#define GASNETT_THREADKEY_DEFINE(key) __thread void *_gasnett_threadkey_##key = NULL
#define gasnett_threadkey_init(key) ((void)0)
#define gasnett_threadkey_get(key) (_gasnett_threadkey_##key)
#define gasnett_threadkey_set(key, val) ((void)(_gasnett_threadkey_##key = (void *)(val)))
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, val) gasnett_threadkey_set(key, val)

/* ---- environment and number formatting ---- */

/* The process environment (gp-run gives every process the launcher's). */
extern char *gasnett_getenv(const char *keyname);
extern int gasnett_setenv(const char *key, const char *value);
extern int gasnett_unsetenv(const char *key);
/*
 * Typed lookups with defaults; a value that does not parse is a fatal
 * error naming the variable.  With GASNET_VERBOSEENV on this node each
 * variable is echoed once with its value and source.
 */
extern char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
extern int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
extern int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                              uint64_t mem_size_multiplier);
extern double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
/* Non-zero when GASNET_VERBOSEENV reporting is on for this node. */
extern int gasnett_verboseenv(void);
/*
 * Integers: decimal or 0x hex.  With a non-zero multiplier, a memory size:
 * a number (fractions allowed) with an optional B, K(B), M(B), G(B) or T(B)
 * suffix, a bare number counting in units of the multiplier.  Bad text is a
 * fatal error.
 */
extern int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
/* Formats val into buf (exactly, with a B/KB/MB/GB/TB suffix if is_mem_size); returns buf. */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);

/* ---- system utilities ---- */

extern const char *gasnett_gethostname(void);
extern int gasnett_cpu_count(void); /* 0 if unknown */
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
extern int gasnett_sched_yield(void);
/* Binds the calling thread to one processor, chosen by rank; 0 when bound, else
 * non-zero and the thread stays where it was (GASNETT_SET_AFFINITY_SUPPORT is left
 * undefined: binding is best effort). */
extern int gasnett_set_affinity(int rank);
/* Sleeps at least ns nanoseconds (a signal does not cut it short). */
extern void gasnett_nsleep(uint64_t ns);
extern void gasnett_flush_streams(void);
/* Raises soft resource limits to their hard limits; non-zero if all were raised. */
extern int gasnett_maximize_rlimits(void);
/* Ends this process now: all threads, no atexit handlers. */
extern void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
/* "" in an optimized build, else a warning naming what slows this libgp down. */
extern const char *gasnett_performance_warning_str(void);
/*
 * A page-aligned, zero-filled private anonymous mapping of size bytes (GASNet's
 * gasnett_mmap, which testgasnet calls).  As in GASNet it does not return on
 * failure: a size of 0 or a mapping the system
 * refuses is a fatal error naming the size.  Release it with munmap.
 */
extern void *gasnett_mmap(uintptr_t size);

GASNETT_INLINE(gasnett_isLittleEndian) int gasnett_isLittleEndian(void)
{
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

/* ---- checksums and zero counts ---- */

/* GASNet's checksum: rotate the sum left a byte, xor in the next byte. */
extern uint64_t gasnett_checksum(const void *p, int numbytes);
extern size_t gasnett_count0s(const void *src, size_t bytes);
/* Copies bytes from src to dst and returns the number of zero bytes copied. */
extern size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                                   size_t bytes);
GASNETT_INLINE(gasnett_count0s_uint64_t) int gasnett_count0s_uint64_t(uint64_t _gasnett_x)
{
    int _gasnett_n = 0, _gasnett_i;
    for (_gasnett_i = 0; _gasnett_i < 8; _gasnett_i++, _gasnett_x >>= 8)
        _gasnett_n += (_gasnett_x & 0xFF) == 0;
    return _gasnett_n;
}
GASNETT_INLINE(gasnett_count0s_uint32_t) int gasnett_count0s_uint32_t(uint32_t _gasnett_x)
{
    return gasnett_count0s_uint64_t((uint64_t)_gasnett_x | 0xFFFFFFFF00000000ull);
}
GASNETT_INLINE(gasnett_count0s_uintptr_t) int gasnett_count0s_uintptr_t(uintptr_t _gasnett_x)
{
    return sizeof(uintptr_t) == 8 ? gasnett_count0s_uint64_t((uint64_t)_gasnett_x)
                                  : gasnett_count0s_uint32_t((uint32_t)_gasnett_x);
}

/* ---- fatal errors, signals, backtraces ---- */

/* Prints "gp: FATAL ERROR on node N/M: <message>" and ends the job. */
GASNETT_FORMAT_PRINTF(gasnett_fatalerror, 1, 2,
                      extern void gasnett_fatalerror(const char *msg, ...) GASNETT_NORETURN);
/* GASNet-EX's name for the same line without a source position, which gp's never has. */
#define gasnett_fatalerror_nopos gasnett_fatalerror

typedef void (*gasnett_sighandlerfn_t)(int);
/* Installs fp for sigtocatch (SIG_DFL and SIG_IGN allowed); returns the previous handler. */
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);

typedef struct {
    const char *name;
    int (*fnp)(int fd); /* writes a backtrace to fd; 0 on success */
    int threadsupport;
} gasnett_backtrace_type_t;
/* A client may define this to add its own mechanism, tried first; libgp's
 * definition is weak and empty. */
extern gasnett_backtrace_type_t gasnett_backtrace_user;
extern void gasnett_backtrace_init(const char *exename);
/* Writes the caller's stack to fd; 0 on success. */
extern int gasnett_print_backtrace(int fd);

/*
 * GASNet's headers define this helper (and _gasnett_trace_printf_noop below) as
 * static functions, and Legion's Realm takes the address of both, only to keep
 * the compiler quiet about them being unused: so both must exist under GASNet's
 * names, and as static functions each translation unit has its own copy to point
 * at.  gp's keys above are thread-locals and never call this; given a pthread key
 * it creates it, as GASNet's does for keys without compiler support.
 */
GASNETT_INLINE(_gasneti_threadkey_init) void _gasneti_threadkey_init(pthread_key_t *_gasneti_key)
{
    if (pthread_key_create(_gasneti_key, NULL) != 0)
        gasnett_fatalerror("_gasneti_threadkey_init: pthread_key_create found no free key "
                           "(PTHREAD_KEYS_MAX are in use)");
}

/* ---- tracing and statistics: not built into libgp, so these do nothing ---- */

GASNETT_FORMAT_PRINTF(_gasnett_trace_printf_noop, 1, 2,
                      GASNETT_INLINE(_gasnett_trace_printf_noop) void _gasnett_trace_printf_noop(
                          const char *_gasnett_fmt, ...));
GASNETT_INLINE(_gasnett_trace_printf_noop) void _gasnett_trace_printf_noop(const char *_gasnett_fmt, ...)
{
    (void)_gasnett_fmt;
}
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_TRACE_PRINTF _gasnett_trace_printf_noop
#define GASNETT_TRACE_PRINTF_FORCE _gasnett_trace_printf_noop
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)(mask))
#define GASNETT_TRACE_GET_TRACELOCAL() 0
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)(val))
#define GASNETT_TRACE_SETSOURCELINE(filename, linenum) ((void)(filename), (void)(linenum))
#define GASNETT_TRACE_GETSOURCELINE(pfilename, plinenum) \
    ((void)(*(pfilename) = "", *(plinenum) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)(mask))
#define GASNETT_STATS_PRINTF_FORCE _gasnett_trace_printf_noop
#define GASNETT_STATS_DUMP(reset) ((void)(reset))

/* Each argument evaluated once and discarded, as an expression. */
#define GASNETT_UNUSED_ARGS1(a) ((void)(a))
#define GASNETT_UNUSED_ARGS2(a, b) ((void)(a), (void)(b))
#define GASNETT_UNUSED_ARGS3(a, b, c) ((void)(a), GASNETT_UNUSED_ARGS2(b, c))
#define GASNETT_UNUSED_ARGS4(a, b, c, d) ((void)(a), GASNETT_UNUSED_ARGS3(b, c, d))
#define GASNETT_UNUSED_ARGS5(a, b, c, d, e) ((void)(a), GASNETT_UNUSED_ARGS4(b, c, d, e))
#define GASNETT_UNUSED_ARGS6(a, b, c, d, e, f) ((void)(a), GASNETT_UNUSED_ARGS5(b, c, d, e, f))
#define GASNETT_UNUSED_ARGS7(a, b, c, d, e, f, g) \
    ((void)(a), GASNETT_UNUSED_ARGS6(b, c, d, e, f, g))
#define GASNETT_UNUSED_ARGS8(a, b, c, d, e, f, g, h) \
    ((void)(a), GASNETT_UNUSED_ARGS7(b, c, d, e, f, g, h))

GASNETT_END_EXTERNC

#endif /* _GASNET_TOOLS_H */

/*
 * VIS formatting helpers (extensions spec 1.7): the metadata of a VIS call
 * as text, for diagnostics.  They name gasnet.h's types, so they exist only
 * once gasnet.h is in (gasnet_vis.h includes this header again after it,
 * hence the block's own guard outside _GASNET_TOOLS_H).  The caller gives a
 * buffer of the matching _bufsz() bytes; the text always fits in it.
 */
#if defined(_GASNET_H) && defined(_INCLUDED_GASNETEX_H) && !defined(_GASNETT_VIS_FORMAT)
#define _GASNETT_VIS_FORMAT
#ifdef __cplusplus
extern "C" {
#endif
typedef struct {
    size_t minsz, maxsz;
    uintptr_t totalsz;
    void *minaddr, *maxaddr;
} gasnett_memveclist_stats_t;
typedef struct {
    void *minaddr, *maxaddr;
} gasnett_addrlist_stats_t;
extern size_t gasnett_format_memveclist_bufsz(size_t count);
/* list: gasnet_memvec_t or gex_Memvec_t entries, which share one layout. */
extern gasnett_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                            void const *list);
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern gasnett_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count,
                                                        void *const *list, size_t len);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
/* GASNet-EX's shape (gasnet_vis.h's gex_VIS_Strided*): stridelevels dimensions of
 * count[k] elements of elemsz bytes, signed byte strides.  pstats: NULL (no shape
 * statistics are kept); returns the total bytes. */
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels);
/* A GASNet-EX mask as its constants' names ("GEX_TI_SRCRANK|GEX_TI_ENTRY", "0" for
 * none): with buf NULL the bytes needed, NUL included; else writes them and returns
 * that count. */
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);
extern size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putvgetv(char *buf, gasnet_node_t node, size_t dstcount,
                                      gasnet_memvec_t const dstlist[], size_t srccount,
                                      gasnet_memvec_t const srclist[]);
extern size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putigeti(char *buf, gasnet_node_t node, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen);
extern size_t gasnett_format_strides_bufsz(size_t count);
extern void gasnett_format_strides(char *buf, size_t count, const size_t *list);
#ifdef __cplusplus
}
#endif
#endif
