/*
 * gasnet.h: the GASNet-1 API (specification 1.8) as implemented by libgp.
 *
 * Clients define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR
 * before including this header (pkg-config's "gp" gives -DGASNET_SEQ,
 * "gp-par" gives -DGASNET_PAR).  Nothing internal to gp is declared here.
 */
#ifndef _GASNET_H
#define _GASNET_H

#include <stddef.h>
#include <stdint.h>

#if defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR) > 1
#error "define at most one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR"
#endif
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_SEQ 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Compile-time constants (spec 2.6). */
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNET_RELEASE_VERSION_MAJOR 0
#define GASNET_RELEASE_VERSION_MINOR 1
#define GASNET_RELEASE_VERSION_PATCH 0
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR
#define GASNET_MAXNODES 0x7FFFFFFFu
#define GASNET_PAGESIZE 4096
#define GASNET_ALIGNED_SEGMENTS 0
#define SIZEOF_GASNET_REGISTER_VALUE_T 8
#define GASNET_SEGMENT_FAST 1

/* Error codes (spec 2.3): base 10000, as the RDMA conduits number them. */
#define _GASNET_ERR_BASE 10000
#define GASNET_OK 0
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

/* Scalar types (spec 2.1). */
typedef uint32_t gasnet_node_t;
typedef uint8_t gasnet_handler_t;
typedef int32_t gasnet_handlerarg_t;
typedef uintptr_t gasnet_register_value_t;

typedef struct {
    void *addr;
    uintptr_t size;
} gasnet_seginfo_t;

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

#ifdef __cplusplus
}
#endif

#endif
