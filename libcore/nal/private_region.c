/* Private regions: see private_region.h. */
#include "nal/private_region.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "util/log.h"

int nal_private_region(struct nal_ni *ni, uint64_t bytes, int populate, const char *transport)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0);
    void *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (region == MAP_FAILED) {
        gp_error(transport, "mmap of %llu bytes for the registered region failed: %m",
                 (unsigned long long)bytes);
        return PTL_NO_SPACE;
    }
    ni->region = region;
    ni->region_bytes = bytes;
    return PTL_OK;
}

void nal_private_region_free(struct nal_ni *ni)
{
    if (ni->region != NULL)
        munmap(ni->region, ni->region_bytes);
    ni->region = NULL;
}

int nal_own_region_only(struct nal_ni *ni)
{
    ni->peer_region = calloc((size_t)ni->size, sizeof *ni->peer_region);
    if (ni->peer_region == NULL)
        return PTL_NO_SPACE;
    ni->peer_region[ni->rank] = ni->region;
    return PTL_OK;
}
