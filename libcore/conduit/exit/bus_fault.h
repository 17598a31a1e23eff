/* bus_fault.c: what a SIGBUS inside a region mapped from /dev/shm means. */
#ifndef GP_CONDUIT_BUS_FAULT_H
#define GP_CONDUIT_BUS_FAULT_H

#include <stddef.h>

/* For the fatal-signal handler: appends to line what a SIGBUS at addr inside
 * a /dev/shm region means (whose segment, its size, /dev/shm's free space);
 * returns the new length, len unchanged elsewhere.  Async-signal-safe. */
size_t gpc_bus_fault_describe(char *line, size_t len, size_t size, const void *addr);

#endif
