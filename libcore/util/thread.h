/*
 * Locks that exist only in PAR builds.  In a SEQ build (GP_PAR == 0) the
 * client promises one thread, so every lock compiles to nothing: the seeds'
 * rule that SEQ paths take no lock is kept by construction, not by care.
 */
#ifndef GP_UTIL_THREAD_H
#define GP_UTIL_THREAD_H

#ifndef GP_PAR
#error "GP_PAR must be defined to 0 or 1 by the build"
#endif

#if GP_PAR
#include <pthread.h>
typedef pthread_mutex_t gp_mutex_t;
#define GP_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define gp_mutex_init(m) pthread_mutex_init((m), NULL)
#define gp_mutex_destroy(m) pthread_mutex_destroy(m)
#define gp_mutex_lock(m) pthread_mutex_lock(m)
#define gp_mutex_unlock(m) pthread_mutex_unlock(m)
#define gp_mutex_trylock(m) pthread_mutex_trylock(m)
#else
typedef struct { char unused; } gp_mutex_t;
#define GP_MUTEX_INITIALIZER { 0 }
#define gp_mutex_init(m) ((void)(m))
#define gp_mutex_destroy(m) ((void)(m))
#define gp_mutex_lock(m) ((void)(m))
#define gp_mutex_unlock(m) ((void)(m))
#define gp_mutex_trylock(m) ((void)(m), 0)
#endif

#endif
