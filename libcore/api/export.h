/* Marks the functions of the public API; everything else stays hidden in libgp.so. */
#ifndef GP_API_EXPORT_H
#define GP_API_EXPORT_H
#define GP_EXPORT __attribute__((visibility("default")))
#endif
