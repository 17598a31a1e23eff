/*
 * The one test of whether a range of bytes lies in a segment, for every
 * check of an address the client, or a peer's message, names: written
 * without forming base + size or addr + nbytes, so that no sum can wrap.
 */
#ifndef GP_CONDUIT_SEGMENT_RANGE_H
#define GP_CONDUIT_SEGMENT_RANGE_H

#include <stddef.h>
#include <stdint.h>

/* [offset, +nbytes) inside a segment of size bytes? */
static inline int gpc_segment_holds_offset(uint64_t size, uint64_t offset, uint64_t nbytes)
{
    return nbytes <= size && offset <= size - nbytes;
}

/* [addr, +nbytes) inside [base, +size)?  A NULL base (no segment) holds nothing. */
static inline int gpc_segment_holds(const void *base, uint64_t size, const void *addr,
                                    uint64_t nbytes)
{
    uintptr_t from = (uintptr_t)base, at = (uintptr_t)addr;
    return base != NULL && at >= from && gpc_segment_holds_offset(size, at - from, nbytes);
}

#endif
