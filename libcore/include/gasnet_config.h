/*
 * gasnet_config.h: how this gp was configured, in the form GASNet users'
 * build systems grep for (configure scripts read the RELEASE lines below).
 *
 * The release numbers are gp's own numbering of the GASNet-1 interface it
 * provides, not a GASNet release: 1.30.0 means "every GASNet-1 feature a
 * client can test for with a release check up to 1.30 is here" --
 * gasnet_getNodeInfo and supernodes (1.18), the relaxed barrier flag
 * matching (1.20), gasnet_barrier, gasnet_barrier_result,
 * GASNET_BARRIERFLAG_UNNAMED and the variable-argument AM calls (1.22),
 * gasnet_coll_* on GASNET_TEAM_ALL, and gasnet_tools.h.  gp's own package
 * version (gp-run --version) is GP_PACKAGE_VERSION.
 */
#ifndef _GASNET_CONFIG_H
#define _GASNET_CONFIG_H

#define GASNET_RELEASE_VERSION_MAJOR 1
#define GASNET_RELEASE_VERSION_MINOR 30
#define GASNET_RELEASE_VERSION_PATCH 0

/* gp itself: the library and commands of this install. */
#define GP_PACKAGE_VERSION_MAJOR 0
#define GP_PACKAGE_VERSION_MINOR 1
#define GP_PACKAGE_VERSION_PATCH 0

/* The one conduit gp builds: the Portals-conduit design over gp's transports. */
#define GASNET_CONDUIT_PORTALS 1
#define GASNET_SEGMENT_FAST 1
#define GASNET_PSHM 1

/*
 * What GASNet 1.29.3's configure records about the platform, for clients
 * and test harnesses that test it (GASNet's test.h hides its pthread
 * helpers without HAVE_PTHREAD_H).  gp supports Linux with pthreads and
 * mmap; the sizes are integer literals (clients use them in #if and in
 * token pasting), chosen by the compiler's own sizes so that a -m32
 * compile still reads true values.
 */
#define HAVE_PTHREAD_H 1
#define HAVE_PTHREAD_SETCONCURRENCY 1
#define HAVE_MMAP 1
#define SIZEOF_CHAR 1
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_FLOAT 4
#define SIZEOF_DOUBLE 8
#define SIZEOF__BOOL 1
#define SIZEOF_FLOAT__COMPLEX 8
#if defined(__SIZEOF_INT__) && \
    (__SIZEOF_SHORT__ != 2 || __SIZEOF_INT__ != 4 || __SIZEOF_LONG_LONG__ != 8)
#error "gasnet_config.h: gp supports only ILP32 and LP64 platforms"
#endif
#if __SIZEOF_POINTER__ == 8
#define SIZEOF_VOID_P 8
#else
#define SIZEOF_VOID_P 4
#endif
#if __SIZEOF_LONG__ == 8
#define SIZEOF_LONG 8
#else
#define SIZEOF_LONG 4
#endif
#if __SIZEOF_SIZE_T__ == 8
#define SIZEOF_SIZE_T 8
#else
#define SIZEOF_SIZE_T 4
#endif
#if __SIZEOF_LONG_DOUBLE__ == 16
#define SIZEOF_LONG_DOUBLE 16
#elif __SIZEOF_LONG_DOUBLE__ == 12
#define SIZEOF_LONG_DOUBLE 12
#else
#define SIZEOF_LONG_DOUBLE 8
#endif

#endif
