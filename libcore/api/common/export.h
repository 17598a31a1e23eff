/* GP_EXPORT for the public API, and the API layer's one way of refusing an argument. */
#ifndef GP_API_EXPORT_H
#define GP_API_EXPORT_H
#include "util/export.h"

/* Logs why an argument is refused (one line) and returns GASNET_ERR_BAD_ARG. */
int gp_api_bad_arg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define BAD_ARG(...) gp_api_bad_arg(__VA_ARGS__)
#endif
