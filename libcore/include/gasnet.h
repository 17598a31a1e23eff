/*
 * gasnet.h: the GASNet-1 API (specification 1.8) as implemented by libgp.
 *
 * Clients define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR
 * before including this header (pkg-config's "gp" gives -DGASNET_SEQ,
 * "gp-par" gives -DGASNET_PAR).  Nothing internal to gp is declared here.
 */
/* GASNet's test harness reads this name as "a GASNet-1 client": defined by
 * every include of this header but the one gasnetex.h makes for an EX client. */
#ifndef _GEX_BRINGS_GASNET_H
#undef _INCLUDED_GASNET_H
#define _INCLUDED_GASNET_H
#endif
#ifndef _GASNET_H
#define _GASNET_H

/* The standard headers GASNet 1.29.3's gasnet.h brings in: clients rely on
 * them without including them (memcpy, malloc, printf, PRIu64, INT_MAX, ...). */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR) > 1
#error "define at most one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR"
#endif
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_SEQ 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

#include "gasnet_config.h"
#include "gasnet_portable_platform.h"

/* Compile-time constants (spec 2.6); the release numbers are in gasnet_config.h. */
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR
/*
 * The GASNet-EX specification version gp answers to: 0.19, the signatures of
 * gasnetex.h (0.19's additions over 0.18, AM Cancel and the Commit _v2 forms,
 * are there).  gasnetex.h implements part of it; doc/clients.md says which part.
 */
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 19
#define GASNET_MAXNODES 0x7FFFFFFFu
#define GASNET_PAGESIZE 4096
/* Every process maps its own segment where the kernel chooses. */
#define GASNET_ALIGNED_SEGMENTS 0
/* 64 bits on every platform, as GASNet-EX's, so that it is gex_RMA_Value_t. */
#define SIZEOF_GASNET_REGISTER_VALUE_T 8
#define GASNET_NULL_ARGV_OK 1

/*
 * Which conduit and build this is (spec 5.3).  Core and extended API are
 * both gp's own implementation of the Portals-conduit design, so both are
 * named PORTALS with gp's package version.  GASNET_PSHM and the config
 * string's "pshm": on the shm transport (the default) the processes of a
 * host map each other's segments (gasnet_getNodeInfo).
 */
#define GASNET_CONDUIT_NAME PORTALS
#define GASNET_CONDUIT_NAME_STR "PORTALS"
#define GASNET_CORE_NAME PORTALS
#define GASNET_CORE_NAME_STR "PORTALS"
#define GASNET_CORE_VERSION 0.1
#define GASNET_CORE_VERSION_STR "0.1"
#define GASNET_EXTENDED_NAME PORTALS
#define GASNET_EXTENDED_NAME_STR "PORTALS"
#define GASNET_EXTENDED_VERSION 0.1
#define GASNET_EXTENDED_VERSION_STR "0.1"
/* The installed libraries are optimized builds without tracing or statistics. */
#define GASNET_NDEBUG 1

#if defined(GASNET_PAR)
#define _GASNET_THREADMODEL_STR "PAR"
#elif defined(GASNET_PARSYNC)
#define _GASNET_THREADMODEL_STR "PARSYNC"
#else
#define _GASNET_THREADMODEL_STR "SEQ"
#endif
#if __SIZEOF_POINTER__ == 8
#define _GASNET_PTR_STR "64bit"
#else
#define _GASNET_PTR_STR "32bit"
#endif
#define _GASNET_STR_HELPER(x) #x
#define _GASNET_STR(x) _GASNET_STR_HELPER(x)
#define GASNET_CONFIG_STRING                                                              \
    "RELEASE=" _GASNET_STR(GASNET_RELEASE_VERSION_MAJOR) "." _GASNET_STR(                 \
        GASNET_RELEASE_VERSION_MINOR) "." _GASNET_STR(GASNET_RELEASE_VERSION_PATCH)       \
    ",SPEC=" _GASNET_STR(GASNET_SPEC_VERSION_MAJOR) "." _GASNET_STR(                      \
        GASNET_SPEC_VERSION_MINOR) ",CONDUIT=PORTALS(PORTALS-" GASNET_CORE_VERSION_STR     \
    "/PORTALS-" GASNET_EXTENDED_VERSION_STR "),THREADMODEL=" _GASNET_THREADMODEL_STR      \
    ",SEGMENT=FAST,PTR=" _GASNET_PTR_STR ",noalign,pshm,nodebug,notrace,nostats,"          \
    "nodebugmalloc,nosrclines,timers_native,membars_native,atomics_native,"               \
    "atomic32_native,atomic64_native"
/* The same string for the library's build, found by strings(1) in a static binary. */
extern const char _gasnet_config_string[];

/* Error codes (spec 2.3): base 10000, as the RDMA conduits number them. */
#define _GASNET_ERR_BASE 10000
#define GASNET_OK 0
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

/* Barrier flags (spec 2.5). */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
#define GASNET_BARRIERFLAG_IMAGES 4
#define GASNET_BARRIERFLAG_UNNAMED (GASNET_BARRIERFLAG_ANONYMOUS | 8)

/* Wait modes (spec 2.8). */
#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2

/* Scalar types (spec 2.1). */
typedef uint32_t gasnet_node_t;
/* GASNet-EX's name of a job rank: the same type, so pointers to either mix (Realm); defined
 * once with gasnet_fwd.h, for C99 clients, which may not repeat a typedef. */
#ifndef _GEX_RANK_T
#define _GEX_RANK_T
typedef gasnet_node_t gex_Rank_t;
#endif
typedef uint8_t gasnet_handler_t;
typedef int32_t gasnet_handlerarg_t;
typedef uint64_t gasnet_register_value_t;
typedef void *gasnet_threadinfo_t;
typedef struct _gasnet_valget_op *gasnet_valget_handle_t;

typedef void *gasnet_token_t;
typedef void *gasnet_handle_t;
#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)

typedef struct {
    void *addr;
    uintptr_t size;
} gasnet_seginfo_t;

/* One piece of a VIS vector list (gasnet_vis.h): len 0 is an empty entry whose
 * addr is never read.  The guard lets other headers define it too. */
#ifndef _GASNET_MEMVEC_T
#define _GASNET_MEMVEC_T
typedef struct {
    void *addr;
    size_t len;
} gasnet_memvec_t;
#endif

typedef struct {
    gasnet_handler_t index; /* 0: "don't care", attach fills in the index it chose */
#ifdef GASNET_USE_STRICT_PROTOTYPES
    void *fnptr;
#else
#ifndef __cplusplus /* the warning, and its pragma, are C-only */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
    void (*fnptr)();        /* unprototyped, so handlers of every prototype fit */
#ifndef __cplusplus
#pragma GCC diagnostic pop
#endif
#endif
} gasnet_handlerentry_t;

/* Handler-safe locks (spec 3.19): a real lock in PAR builds, nothing in SEQ. */
#if defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#include <pthread.h>
typedef struct {
    pthread_mutex_t lock;
} gasnet_hsl_t;
#define GASNET_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER }
#else
typedef struct {
    char unused;
} gasnet_hsl_t;
#define GASNET_HSL_INITIALIZER { 0 }
#endif


/* AM size limits (spec 3.10): compile-time constants, callable any time. */
#define GASNET_MAXARGS 16
/* Real functions too, so that clients may #undef the macros (spec 5.7). */
extern size_t gasnet_AMMaxArgs(void);
extern size_t gasnet_AMMaxMedium(void);
extern size_t gasnet_AMMaxLongRequest(void);
extern size_t gasnet_AMMaxLongReply(void);
#define gasnet_AMMaxArgs() ((size_t)16)
#define gasnet_AMMaxMedium() ((size_t)960)
#define gasnet_AMMaxLongRequest() ((size_t)0x7fffffff)
#define gasnet_AMMaxLongReply() ((size_t)0x7fffffff)

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* Core API (spec 3). */
extern int gasnet_init(int *argc, char ***argv);
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);
extern void gasnet_exit(int exitcode) __attribute__((noreturn));
extern gasnet_node_t gasnet_mynode(void);
extern gasnet_node_t gasnet_nodes(void);
/* GASNet's internal name for this process's jobrank, which GASNet's own tests read. */
#define gasneti_mynode (gasnet_mynode())
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
extern char *gasnet_getenv(const char *name);
extern int gasnet_AMPoll(void);
extern int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);

extern void gasnet_hold_interrupts(void);
extern void gasnet_resume_interrupts(void);

extern void gasnet_hsl_init(gasnet_hsl_t *hsl);
extern void gasnet_hsl_destroy(gasnet_hsl_t *hsl);
extern void gasnet_hsl_lock(gasnet_hsl_t *hsl);
extern void gasnet_hsl_unlock(gasnet_hsl_t *hsl);
extern int gasnet_hsl_trylock(gasnet_hsl_t *hsl) __attribute__((warn_unused_result));

/*
 * Waits, servicing the network, until cond holds (spec 3.15).  The
 * acquire (load) fence makes what the handler wrote before setting the
 * condition visible to the code after the wait: the condition's loads
 * before the caller's later loads (doc/memory-model.md; _gp_fence_load is
 * in gasnet_rma_inline.h).
 */
#define GASNET_BLOCKUNTIL(cond)                                     \
    do {                                                            \
        while (!(cond))                                             \
            _gasnet_wait_turn();                                    \
        _gp_fence_load();                                           \
    } while (0)
/* One turn of GASNET_BLOCKUNTIL: polls, then yields the CPU unless the wait
 * mode is GASNET_WAIT_SPIN on a host with a core for every process. */
extern void _gasnet_wait_turn(void);

/* Extended API (spec 4): errors are fatal; there are no error returns. */
extern void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);

extern gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);

extern void gasnet_wait_syncnb(gasnet_handle_t handle);
extern int gasnet_try_syncnb(gasnet_handle_t handle);
extern void gasnet_wait_syncnb_all(gasnet_handle_t *handles, size_t numhandles);
extern int gasnet_try_syncnb_all(gasnet_handle_t *handles, size_t numhandles);
extern void gasnet_wait_syncnb_some(gasnet_handle_t *handles, size_t numhandles);
extern int gasnet_try_syncnb_some(gasnet_handle_t *handles, size_t numhandles);

extern void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

extern void gasnet_wait_syncnbi_gets(void);
extern void gasnet_wait_syncnbi_puts(void);
extern void gasnet_wait_syncnbi_all(void);
extern int gasnet_try_syncnbi_gets(void);
extern int gasnet_try_syncnbi_puts(void);
extern int gasnet_try_syncnbi_all(void);

extern void gasnet_begin_nbi_accessregion(void);
extern gasnet_handle_t gasnet_end_nbi_accessregion(void);

extern void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                           size_t nbytes);
extern gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                         gasnet_register_value_t value, size_t nbytes);
extern void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                               size_t nbytes);
extern gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

/* Puts and gets to a peer mapped here, inline (GP_NO_INLINE_RMA: always the functions above). */
#include "gasnet_rma_inline.h"

extern void gasnet_barrier_notify(int id, int flags);
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
extern int gasnet_barrier(int id, int flags);
/* The last completed phase (5.4.2): non-zero if anonymous, else 0 and its name in *id. */
extern int gasnet_barrier_result(int *id);

/*
 * Locality (5.4.5): nodes on one host share a host id; nodes that map each
 * other's segments (the shm transport) share a supernode id.  offset is
 * what to add to an address in that node's segment to reach it here; 0
 * where this process does not map it (and everywhere before attach).
 * Callable any time after gasnet_init, as in GASNet.
 */
typedef struct {
    gasnet_node_t host;
    gasnet_node_t supernode;
#if GASNET_PSHM
    uintptr_t offset;
#endif
} gasnet_nodeinfo_t;
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);

extern int gasnet_set_waitmode(int wait_mode);

/*
 * GASNet's client-settable variables.  gasnet_max_segsize, set before
 * gasnet_init, bounds gasnet_getMaxLocalSegmentSize() (0: no bound of the
 * client's).  gasnet_client_attach_hook, when set, is called at the end of
 * gasnet_attach with this node's segment.
 */
extern uintptr_t gasnet_max_segsize;
extern void (*gasnet_client_attach_hook)(void *segbase, uintptr_t segsize);

/*
 * GASNet's self-test (declared here so that gasnet_tools.h need not come
 * second).  gasnett_diagnostic_gethandlers(&table, &count) gives the table
 * of its AM handlers (fixed indices 200..207) and the number of entries, to
 * pass to gasnet_attach, as GASNet's does (testinternal calls it so); the
 * table also ends with a NULL fnptr, and count may be NULL.
 * gasnett_run_diagnostics, called by every node after attach, runs AMs of
 * every category, put/get/memset, barriers, atomics, HSLs and (PAR)
 * threadcnt threads, iters rounds each, in the first bytes of the segments
 * of seginfo (NULL: gasnet_getSegmentInfo's), and returns this node's
 * failures.  testsections picks sections "A".."F" (NULL: all; man page).
 */
extern void gasnett_diagnostic_gethandlers(gasnet_handlerentry_t **table, int *count);
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   gasnet_seginfo_t const *seginfo);
/*
 * gp's first form took no arguments and returned the table: the macro keeps
 * such calls compiling, choosing by the number of arguments (none: that
 * form, which returns the table; two: GASNet's).  (gasnett_diagnostic_gethandlers) in
 * parentheses, or its address, is always GASNet's function.
 */
static inline gasnet_handlerentry_t *_gasnett_diagnostic_table(void)
{
    gasnet_handlerentry_t *_gasnett_table = 0;   /* set by the call; 0 keeps cppcheck from reading it unset */
    (gasnett_diagnostic_gethandlers)(&_gasnett_table, NULL);
    return _gasnett_table;
}
#define _GASNETT_DIAG_PICK(_gasnett_a, _gasnett_b, _gasnett_fn, ...) _gasnett_fn
#define gasnett_diagnostic_gethandlers(...)                                              \
    _GASNETT_DIAG_PICK(__VA_ARGS__, (gasnett_diagnostic_gethandlers), _gasnett_diagnostic_table, \
                       ~)(__VA_ARGS__)

/*
 * Thread information (spec 4.11.1).  gp finds its per-thread state in
 * thread-local storage, so there is nothing to amortize: the macros expand
 * to an unused declaration, as the spec requires of their placement.
 */
extern gasnet_threadinfo_t _gasnet_threadinfo(void);
#define GASNET_GET_THREADINFO() (_gasnet_threadinfo())
#define GASNET_POST_THREADINFO(info) \
    gasnet_threadinfo_t _gasnet_threadinfo_posted __attribute__((unused)) = (info)
#define GASNET_BEGIN_FUNCTION() GASNET_POST_THREADINFO(GASNET_GET_THREADINFO())

/*
 * The fixed-arity AM entry points (spec 3.12-3.13): each is a macro that
 * converts its arguments to gasnet_handlerarg_t and calls one variadic
 * function per category with the count.
 */
extern int _gasnet_AMRequestShortM(gasnet_node_t dest, gasnet_handler_t handler, int numargs, ...);
extern int _gasnet_AMRequestMediumM(gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,
                                    size_t nbytes, int numargs, ...);
extern int _gasnet_AMRequestLongM(gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,
                                  size_t nbytes, void *dest_addr, int numargs, ...);
extern int _gasnet_AMRequestLongAsyncM(gasnet_node_t dest, gasnet_handler_t handler,
                                       void *source_addr, size_t nbytes, void *dest_addr,
                                       int numargs, ...);
extern int _gasnet_AMReplyShortM(gasnet_token_t token, gasnet_handler_t handler, int numargs, ...);
extern int _gasnet_AMReplyMediumM(gasnet_token_t token, gasnet_handler_t handler, void *source_addr,
                                  size_t nbytes, int numargs, ...);
extern int _gasnet_AMReplyLongM(gasnet_token_t token, gasnet_handler_t handler, void *source_addr,
                                size_t nbytes, void *dest_addr, int numargs, ...);

/*
 * The variable-argument forms (5.4.4): numargs handler arguments follow,
 * each a gasnet_handlerarg_t; numargs outside 0..16 is refused with
 * GASNET_ERR_BAD_ARG.  Same checks and delivery as the fixed-arity forms.
 */
extern int gasnet_AMRequestShort(gasnet_node_t dest, gasnet_handler_t handler, int numargs, ...);
extern int gasnet_AMRequestMedium(gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,
                                  size_t nbytes, int numargs, ...);
extern int gasnet_AMRequestLong(gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,
                                size_t nbytes, void *dest_addr, int numargs, ...);
extern int gasnet_AMRequestLongAsync(gasnet_node_t dest, gasnet_handler_t handler,
                                     void *source_addr, size_t nbytes, void *dest_addr,
                                     int numargs, ...);
extern int gasnet_AMReplyShort(gasnet_token_t token, gasnet_handler_t handler, int numargs, ...);
extern int gasnet_AMReplyMedium(gasnet_token_t token, gasnet_handler_t handler, void *source_addr,
                                size_t nbytes, int numargs, ...);
extern int gasnet_AMReplyLong(gasnet_token_t token, gasnet_handler_t handler, void *source_addr,
                              size_t nbytes, void *dest_addr, int numargs, ...);

/* Each fixed-arity name is a real function as well (declared here, before
 * its macro), so that a client may #undef and wrap it (spec 5.7). */
#include "gasnet_am_fixed.h"

#define gasnet_AMRequestShort0(dest, handler) \
    _gasnet_AMRequestShortM(dest, handler, 0)
#define gasnet_AMRequestShort1(dest, handler, a0) \
    _gasnet_AMRequestShortM(dest, handler, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMRequestShort2(dest, handler, a0, a1) \
    _gasnet_AMRequestShortM(dest, handler, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMRequestShort3(dest, handler, a0, a1, a2) \
    _gasnet_AMRequestShortM(dest, handler, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMRequestShort4(dest, handler, a0, a1, a2, a3) \
    _gasnet_AMRequestShortM(dest, handler, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMRequestShort5(dest, handler, a0, a1, a2, a3, a4) \
    _gasnet_AMRequestShortM(dest, handler, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMRequestShort6(dest, handler, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMRequestShortM(dest, handler, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMRequestShort7(dest, handler, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMRequestShortM(dest, handler, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMRequestShort8(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMRequestShortM(dest, handler, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMRequestShort9(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMRequestShortM(dest, handler, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMRequestShort10(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMRequestShortM(dest, handler, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMRequestShort11(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMRequestShortM(dest, handler, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMRequestShort12(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMRequestShortM(dest, handler, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMRequestShort13(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMRequestShortM(dest, handler, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMRequestShort14(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMRequestShortM(dest, handler, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMRequestShort15(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMRequestShortM(dest, handler, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMRequestShort16(dest, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMRequestShortM(dest, handler, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#define gasnet_AMRequestMedium0(dest, handler, source_addr, nbytes) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 0)
#define gasnet_AMRequestMedium1(dest, handler, source_addr, nbytes, a0) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMRequestMedium2(dest, handler, source_addr, nbytes, a0, a1) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMRequestMedium3(dest, handler, source_addr, nbytes, a0, a1, a2) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMRequestMedium4(dest, handler, source_addr, nbytes, a0, a1, a2, a3) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMRequestMedium5(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMRequestMedium6(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMRequestMedium7(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMRequestMedium8(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMRequestMedium9(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMRequestMedium10(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMRequestMedium11(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMRequestMedium12(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMRequestMedium13(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMRequestMedium14(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMRequestMedium15(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMRequestMedium16(dest, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMRequestMediumM(dest, handler, source_addr, nbytes, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#define gasnet_AMRequestLong0(dest, handler, source_addr, nbytes, dest_addr) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 0)
#define gasnet_AMRequestLong1(dest, handler, source_addr, nbytes, dest_addr, a0) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMRequestLong2(dest, handler, source_addr, nbytes, dest_addr, a0, a1) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMRequestLong3(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMRequestLong4(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMRequestLong5(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMRequestLong6(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMRequestLong7(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMRequestLong8(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMRequestLong9(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMRequestLong10(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMRequestLong11(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMRequestLong12(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMRequestLong13(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMRequestLong14(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMRequestLong15(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMRequestLong16(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMRequestLongM(dest, handler, source_addr, nbytes, dest_addr, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#define gasnet_AMRequestLongAsync0(dest, handler, source_addr, nbytes, dest_addr) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 0)
#define gasnet_AMRequestLongAsync1(dest, handler, source_addr, nbytes, dest_addr, a0) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMRequestLongAsync2(dest, handler, source_addr, nbytes, dest_addr, a0, a1) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMRequestLongAsync3(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMRequestLongAsync4(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMRequestLongAsync5(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMRequestLongAsync6(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMRequestLongAsync7(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMRequestLongAsync8(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMRequestLongAsync9(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMRequestLongAsync10(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMRequestLongAsync11(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMRequestLongAsync12(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMRequestLongAsync13(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMRequestLongAsync14(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMRequestLongAsync15(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMRequestLongAsync16(dest, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMRequestLongAsyncM(dest, handler, source_addr, nbytes, dest_addr, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#define gasnet_AMReplyShort0(token, handler) \
    _gasnet_AMReplyShortM(token, handler, 0)
#define gasnet_AMReplyShort1(token, handler, a0) \
    _gasnet_AMReplyShortM(token, handler, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMReplyShort2(token, handler, a0, a1) \
    _gasnet_AMReplyShortM(token, handler, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMReplyShort3(token, handler, a0, a1, a2) \
    _gasnet_AMReplyShortM(token, handler, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMReplyShort4(token, handler, a0, a1, a2, a3) \
    _gasnet_AMReplyShortM(token, handler, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMReplyShort5(token, handler, a0, a1, a2, a3, a4) \
    _gasnet_AMReplyShortM(token, handler, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMReplyShort6(token, handler, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMReplyShortM(token, handler, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMReplyShort7(token, handler, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMReplyShortM(token, handler, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMReplyShort8(token, handler, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMReplyShortM(token, handler, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMReplyShort9(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMReplyShortM(token, handler, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMReplyShort10(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMReplyShortM(token, handler, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMReplyShort11(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMReplyShortM(token, handler, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMReplyShort12(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMReplyShortM(token, handler, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMReplyShort13(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMReplyShortM(token, handler, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMReplyShort14(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMReplyShortM(token, handler, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMReplyShort15(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMReplyShortM(token, handler, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMReplyShort16(token, handler, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMReplyShortM(token, handler, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#define gasnet_AMReplyMedium0(token, handler, source_addr, nbytes) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 0)
#define gasnet_AMReplyMedium1(token, handler, source_addr, nbytes, a0) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMReplyMedium2(token, handler, source_addr, nbytes, a0, a1) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMReplyMedium3(token, handler, source_addr, nbytes, a0, a1, a2) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMReplyMedium4(token, handler, source_addr, nbytes, a0, a1, a2, a3) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMReplyMedium5(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMReplyMedium6(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMReplyMedium7(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMReplyMedium8(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMReplyMedium9(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMReplyMedium10(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMReplyMedium11(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMReplyMedium12(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMReplyMedium13(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMReplyMedium14(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMReplyMedium15(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMReplyMedium16(token, handler, source_addr, nbytes, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMReplyMediumM(token, handler, source_addr, nbytes, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#define gasnet_AMReplyLong0(token, handler, source_addr, nbytes, dest_addr) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 0)
#define gasnet_AMReplyLong1(token, handler, source_addr, nbytes, dest_addr, a0) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 1, (gasnet_handlerarg_t)(a0))
#define gasnet_AMReplyLong2(token, handler, source_addr, nbytes, dest_addr, a0, a1) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 2, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1))
#define gasnet_AMReplyLong3(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 3, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2))
#define gasnet_AMReplyLong4(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 4, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3))
#define gasnet_AMReplyLong5(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 5, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4))
#define gasnet_AMReplyLong6(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 6, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5))
#define gasnet_AMReplyLong7(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 7, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6))
#define gasnet_AMReplyLong8(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 8, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7))
#define gasnet_AMReplyLong9(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 9, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8))
#define gasnet_AMReplyLong10(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 10, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9))
#define gasnet_AMReplyLong11(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 11, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10))
#define gasnet_AMReplyLong12(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 12, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11))
#define gasnet_AMReplyLong13(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 13, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12))
#define gasnet_AMReplyLong14(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 14, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13))
#define gasnet_AMReplyLong15(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 15, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14))
#define gasnet_AMReplyLong16(token, handler, source_addr, nbytes, dest_addr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _gasnet_AMReplyLongM(token, handler, source_addr, nbytes, dest_addr, 16, (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3), (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7), (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11), (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15))

#ifdef __cplusplus
}
#endif

/* GASNet-1's collectives come with gasnet.h, as they did there. */
#include "gasnet_coll.h"
/* And the EX API, whose types are these types' twins. */
#include "gasnetex.h"

#endif
