/* Marks the functions of the public API, of libgp and of the tools-only
 * library alike: everything else stays hidden in the shared library. */
#ifndef GP_UTIL_EXPORT_H
#define GP_UTIL_EXPORT_H
#define GP_EXPORT __attribute__((visibility("default")))
#endif
