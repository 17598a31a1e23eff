/*
 * gasnet_portable_platform.h: the PLATFORM_* detection macros GASNet
 * clients test (a subset of GASNet's portable_platform.h).  Both gasnet.h
 * and gasnet_tools.h include it, as GASNet's do, so a client may test
 * PLATFORM_ARCH_64 right after either.  Nothing here is gp-internal.
 */
#ifndef _GASNET_PORTABLE_PLATFORM_H
#define _GASNET_PORTABLE_PLATFORM_H

#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif

/* PLATFORM_*: a subset of GASNet's portable_platform.h, skipped if that header came first. */
#ifndef PLATFORM_HEADER_VERSION
#if defined(__x86_64__)
#define PLATFORM_ARCH_X86_64 1
#define PLATFORM_ARCH_FAMILYNAME X86_64
#define _GASNETT_ARCH_STR "x86_64"
#elif defined(__aarch64__)
#define PLATFORM_ARCH_AARCH64 1
#define PLATFORM_ARCH_FAMILYNAME AARCH64
#define _GASNETT_ARCH_STR "aarch64"
#elif defined(__i386__)
#define PLATFORM_ARCH_X86 1
#define PLATFORM_ARCH_FAMILYNAME X86
#define _GASNETT_ARCH_STR "i686"
#elif defined(__powerpc64__)
#define PLATFORM_ARCH_POWERPC 1
#define PLATFORM_ARCH_FAMILYNAME POWERPC
#define _GASNETT_ARCH_STR "powerpc64"
#elif defined(__riscv)
#define PLATFORM_ARCH_RISCV 1
#define PLATFORM_ARCH_FAMILYNAME RISCV
#define _GASNETT_ARCH_STR "riscv64"
#else
#define PLATFORM_ARCH_UNKNOWN 1
#define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#define _GASNETT_ARCH_STR "unknown"
#endif
#if __SIZEOF_POINTER__ == 8
#define PLATFORM_ARCH_64 1
#else
#define PLATFORM_ARCH_32 1
#endif
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLATFORM_ARCH_BIG_ENDIAN 1
#else
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

#if defined(__linux__)
#define PLATFORM_OS_LINUX 1
#define PLATFORM_OS_FAMILYNAME LINUX
#define _GASNETT_OS_STR "unknown-linux-gnu"
#elif defined(__APPLE__)
#define PLATFORM_OS_DARWIN 1
#define PLATFORM_OS_FAMILYNAME DARWIN
#define _GASNETT_OS_STR "apple-darwin"
#elif defined(__FreeBSD__)
#define PLATFORM_OS_FREEBSD 1
#define PLATFORM_OS_FAMILYNAME FREEBSD
#define _GASNETT_OS_STR "unknown-freebsd"
#else
#define PLATFORM_OS_UNKNOWN 1
#define PLATFORM_OS_FAMILYNAME UNKNOWN
#define _GASNETT_OS_STR "unknown-unknown"
#endif

#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) (((maj) << 16) | ((min) << 8) | (pat))
#if defined(__clang__)
#define PLATFORM_COMPILER_CLANG 1
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID 17
#define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__)
#define PLATFORM_COMPILER_VERSION_STR \
    _STRINGIFY(__clang_major__) "." _STRINGIFY(__clang_minor__) "." _STRINGIFY(__clang_patchlevel__)
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
#define PLATFORM_COMPILER_FAMILYNAME GNU
#define PLATFORM_COMPILER_FAMILYID 1
#define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#define PLATFORM_COMPILER_VERSION_STR \
    _STRINGIFY(__GNUC__) "." _STRINGIFY(__GNUC_MINOR__) "." _STRINGIFY(__GNUC_PATCHLEVEL__)
#else /* the atomics below need gcc's or clang's builtins; this is for analysis tools */
#define PLATFORM_COMPILER_UNKNOWN 1
#define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#define PLATFORM_COMPILER_FAMILYID 0
#define PLATFORM_COMPILER_VERSION 0
#define PLATFORM_COMPILER_VERSION_STR "unknown"
#endif
#ifdef __cplusplus
#define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#else
#define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#endif
#define PLATFORM_COMPILER_ID PLATFORM_COMPILER_FAMILYID
#define PLATFORM_COMPILER_IDSTR \
    _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME) " " PLATFORM_COMPILER_VERSION_STR
#endif /* PLATFORM_HEADER_VERSION */

#endif
