/*
 * Whole-block byte scans: GASNet's checksum and the zero-byte counters.
 * Test programs compare the checksum across nodes, so it is GASNet's own
 * function, bit for bit: rotate the 64-bit sum left by one byte, then xor
 * in the next byte.
 */
#include <gasnet_tools.h>

#include <string.h>

#include "util/export.h"

GP_EXPORT uint64_t gasnett_checksum(const void *p, int numbytes)
{
    const uint8_t *byte = p;
    uint64_t sum = 0;
    for (int i = 0; i < numbytes; i++)
        sum = ((sum << 8) | (sum >> 56)) ^ byte[i];
    return sum;
}

GP_EXPORT size_t gasnett_count0s(const void *src, size_t bytes)
{
    const uint8_t *byte = src;
    size_t zeros = 0;
    for (size_t i = 0; i < bytes; i++)
        zeros += byte[i] == 0;
    return zeros;
}

GP_EXPORT size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                                      size_t bytes)
{
    memcpy(dst, src, bytes);
    return gasnett_count0s(dst, bytes);
}
