/*
 * loop: the smallest transport, a one-process world.  It is the model for
 * the others' file skeleton and the double the ptl unit tests run on: the
 * region is private memory and every operation targets rank 0, itself.
 */
#include "nal/private_region.h"
#include "nal/upcalls.h"

static int loop_region_create(struct nal_ni *ni, uint64_t bytes)
{
    return nal_private_region(ni, bytes, 0, "loop");
}

static int loop_connect(struct nal_ni *ni)
{
    return nal_own_region_only(ni);
}

static int loop_put(struct nal_ni *ni, const struct nal_op *op)
{
    return ptl_direct_put(ni, ni->peer_region[op->target], op);
}

static int loop_get(struct nal_ni *ni, const struct nal_op *op)
{
    return ptl_direct_get(ni, ni->peer_region[op->target], op);
}

static void loop_fini(struct nal_ni *ni)
{
    nal_private_region_free(ni);
}

const struct nal_ops nal_loop_ops = {
    .name = "loop",
    .maps_peer_regions = NAL_MAPS_EVERY_PEER,
    .one_process_world = 1,
    .region_create = loop_region_create,
    .connect = loop_connect,
    .put = loop_put,
    .get = loop_get,
    .counts_puts = nal_counts_no_puts,
    .progress = nal_no_progress,
    .fini = loop_fini,
    .report = nal_no_report,
};
