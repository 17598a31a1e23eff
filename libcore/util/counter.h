/*
 * Counters of resources shared between threads in PAR builds (tickets,
 * credits in use): atomic there, plain integers in SEQ builds, where the
 * client promises a single thread and even an atomic RMW is wasted work.
 */
#ifndef GP_UTIL_COUNTER_H
#define GP_UTIL_COUNTER_H

#include <stdint.h>

#ifndef GP_PAR
#error "GP_PAR must be defined to 0 or 1 by the build"
#endif

#if GP_PAR
/* Plain storage, always accessed through the __atomic builtins. */
typedef int64_t gp_count_t;
static inline int64_t gp_count_get(gp_count_t *count)
{
    return __atomic_load_n(count, __ATOMIC_RELAXED);
}
static inline void gp_count_set(gp_count_t *count, int64_t value)
{
    __atomic_store_n(count, value, __ATOMIC_RELAXED);
}
static inline void gp_count_add(gp_count_t *count, int64_t delta)
{
    __atomic_fetch_add(count, delta, __ATOMIC_ACQ_REL);
}
static inline int64_t gp_count_fetch_add(gp_count_t *count, int64_t delta)
{
    return __atomic_fetch_add(count, delta, __ATOMIC_ACQ_REL);
}
/* Takes n if at least n are there; 1 if taken. */
static inline int gp_count_take(gp_count_t *count, int64_t n)
{
    int64_t have = __atomic_load_n(count, __ATOMIC_RELAXED);
    while (have >= n)
        if (__atomic_compare_exchange_n(count, &have, have - n, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return 1;
    return 0;
}
/* Takes n if at least n + keep are there; 1 if taken. */
static inline int gp_count_take_leaving(gp_count_t *count, int64_t n, int64_t keep)
{
    int64_t have = __atomic_load_n(count, __ATOMIC_RELAXED);
    while (have >= n + keep)
        if (__atomic_compare_exchange_n(count, &have, have - n, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return 1;
    return 0;
}
#else
typedef int64_t gp_count_t;
static inline int64_t gp_count_get(gp_count_t *count) { return *count; }
static inline void gp_count_set(gp_count_t *count, int64_t value) { *count = value; }
static inline void gp_count_add(gp_count_t *count, int64_t delta) { *count += delta; }
static inline int64_t gp_count_fetch_add(gp_count_t *count, int64_t delta)
{
    int64_t old = *count;
    *count += delta;
    return old;
}
static inline int gp_count_take(gp_count_t *count, int64_t n)
{
    if (*count < n)
        return 0;
    *count -= n;
    return 1;
}
static inline int gp_count_take_leaving(gp_count_t *count, int64_t n, int64_t keep)
{
    if (*count < n + keep)
        return 0;
    *count -= n;
    return 1;
}
#endif

#endif
