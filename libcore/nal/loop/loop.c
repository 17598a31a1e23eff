/*
 * loop: the smallest transport, a one-process world.  It is the model for
 * the others' file skeleton and the double the ptl unit tests run on: the
 * region is private memory and every operation targets rank 0, itself.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "ptl/ni.h"
#include "util/log.h"

static int loop_region_create(struct ptl_ni *ni, uint64_t bytes)
{
    void *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        gp_error("loop", "mmap of %llu bytes for the registered region failed: %m",
                 (unsigned long long)bytes);
        return PTL_NO_SPACE;
    }
    ni->region = region;
    return PTL_OK;
}

static int loop_connect(struct ptl_ni *ni)
{
    ni->peer_region = calloc(1, sizeof *ni->peer_region);
    if (ni->peer_region == NULL)
        return PTL_NO_SPACE;
    ni->peer_region[0] = ni->region;
    return PTL_OK;
}

static int loop_put(struct ptl_ni *ni, const struct nal_op *op)
{
    return ptl_direct_put(ni, ni->peer_region[op->target], op);
}

static int loop_get(struct ptl_ni *ni, const struct nal_op *op)
{
    return ptl_direct_get(ni, ni->peer_region[op->target], op);
}

static void loop_fini(struct ptl_ni *ni)
{
    if (ni->region != NULL)
        munmap(ni->region, ni->region_bytes);
    ni->region = NULL;
}

const struct nal_ops nal_loop_ops = {
    .name = "loop",
    .region_create = loop_region_create,
    .connect = loop_connect,
    .put = loop_put,
    .get = loop_get,
    .progress = nal_no_progress,
    .fini = loop_fini,
    .report = nal_no_report,
};
