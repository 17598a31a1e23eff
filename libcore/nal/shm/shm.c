/*
 * shm: processes on one host.  Each process's registered region is a POSIX
 * shared-memory object that every peer maps, so a put or get is a memcpy by
 * the initiator straight into or out of the target's memory, and the target
 * does no work unless its MD asks for an event (ptl_direct_put / _get run
 * the target side on the mapped region).  No syscall, malloc or lock is on
 * that path.
 *
 * Objects are named /gp-<jobid>-<rank>, created 0600 with O_EXCL, sized
 * with ftruncate (pages are committed as they are touched), and unlinked
 * as soon as every peer has mapped them (after a bootstrap barrier), so a
 * job that dies later leaves nothing in /dev/shm; gp-run removes what a
 * job that died earlier left.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot.h"
#include "nal/shm/shm.h"
#include "util/log.h"

struct shm_address {
    uint64_t region_bytes;
    uint64_t pid;
};


static void object_name(char *buf, size_t len, int rank)
{
    snprintf(buf, len, "/gp-%s-%d", gp_boot_jobid(), rank);
}

/*
 * Sized, not reserved: tmpfs gives the object pages as they are first
 * touched, so a process that attaches a large segment and uses a few
 * megabytes of it holds a few megabytes (GASNet's shared segments behave
 * the same).  Should /dev/shm run out later, the touch raises SIGBUS, and
 * the conduit's handler names the segment, its size and /dev/shm's free
 * space (conduit/exit/exit.c, ptl_region_hit).
 */
static int size_object(int fd, const char *name, uint64_t bytes)
{
    if (ftruncate(fd, (off_t)bytes) == 0)
        return PTL_OK;
    gp_error("shm", "cannot size /dev/shm%s to %llu bytes: %m", name, (unsigned long long)bytes);
    return PTL_NO_SPACE;
}

int shm_object_create(struct nal_ni *ni, struct shm_object *state)
{
    uint64_t bytes = ni->region_bytes;
    object_name(state->name, sizeof state->name, ni->rank);
    int fd = shm_open(state->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        gp_error("shm", "shm_open(%s) failed: %m", state->name);
        return PTL_FAIL;
    }
    int rc = size_object(fd, state->name, bytes);
    void *region = MAP_FAILED;
    if (rc == PTL_OK) {
        region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (region == MAP_FAILED) {
            gp_error("shm", "mmap of %s (%llu bytes) failed: %m", state->name,
                     (unsigned long long)bytes);
            rc = PTL_NO_SPACE;
        }
    }
    close(fd);
    if (rc != PTL_OK) {
        shm_unlink(state->name);
        state->unlinked = 1;
        return rc;
    }
    ni->region = region;
    return PTL_OK;
}

void shm_object_unlink(struct shm_object *object)
{
    if (!object->unlinked)
        shm_unlink(object->name);
    object->unlinked = 1;
}

static int shm_region_create(struct nal_ni *ni, uint64_t bytes)
{
    struct shm_object *state = calloc(1, sizeof *state);
    if (state == NULL)
        return PTL_NO_SPACE;
    ni->nal_state = state;
    ni->region_bytes = bytes;
    return shm_object_create(ni, state);
}

void *shm_map_peer(int rank, uint64_t bytes)
{
    char name[64];
    object_name(name, sizeof name, rank);
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        gp_error("shm", "cannot open node %d's region %s: %m", rank, name);
        return NULL;
    }
    struct stat st;
    void *region = MAP_FAILED;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != bytes)
        gp_error("shm", "node %d's region %s has %lld bytes, it announced %llu", rank, name,
                 (long long)st.st_size, (unsigned long long)bytes);
    else
        region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (region == MAP_FAILED && (uint64_t)st.st_size == bytes)
        gp_error("shm", "mmap of node %d's region %s failed: %m", rank, name);
    close(fd);
    if (region == MAP_FAILED)
        return NULL;
    if (!ptl_region_formatted(region, (unsigned)rank)) {
        gp_error("shm", "node %d's region %s is not a formatted gp region", rank, name);
        munmap(region, bytes);
        return NULL;
    }
    return region;
}

static int map_peers(struct nal_ni *ni, const struct shm_address *addresses)
{
    for (int rank = 0; rank < ni->size; rank++) {
        if (rank == ni->rank) {
            ni->peer_region[rank] = ni->region;
            continue;
        }
        ni->peer_region[rank] = shm_map_peer(rank, addresses[rank].region_bytes);
        if (ni->peer_region[rank] == NULL)
            return PTL_FAIL;
    }
    return PTL_OK;
}

static int shm_connect(struct nal_ni *ni)
{
    struct shm_object *state = ni->nal_state;
    struct shm_address mine = { .region_bytes = ni->region_bytes, .pid = (uint64_t)getpid() };
    struct shm_address *all = calloc((size_t)ni->size, sizeof *all);
    ni->peer_region = calloc((size_t)ni->size, sizeof *ni->peer_region);
    int rc = (all == NULL || ni->peer_region == NULL) ? PTL_NO_SPACE : PTL_OK;
    if (rc == PTL_OK && gp_boot_allgather(&mine, all, sizeof mine) != 0)
        rc = PTL_FAIL;
    if (rc == PTL_OK)
        rc = map_peers(ni, all);
    free(all);
    /* Everyone has mapped everyone (or failed): the names are no longer needed. */
    if (gp_boot_barrier() != 0 && rc == PTL_OK)
        rc = PTL_FAIL;
    shm_object_unlink(state);
    return rc;
}

static int shm_put(struct nal_ni *ni, const struct nal_op *op)
{
    return ptl_direct_put(ni, ni->peer_region[op->target], op);
}

static int shm_get(struct nal_ni *ni, const struct nal_op *op)
{
    return ptl_direct_get(ni, ni->peer_region[op->target], op);
}

void shm_unmap_all(struct nal_ni *ni, struct shm_object *state)
{
    if (ni->peer_region != NULL) {
        for (int rank = 0; rank < ni->size; rank++) {
            void *region = ni->peer_region[rank];
            if (region != NULL && region != ni->region)
                munmap(region, ptl_region_length(region));
        }
    }
    if (ni->region != NULL)
        munmap(ni->region, ni->region_bytes);
    ni->region = NULL;
    if (state != NULL)
        shm_object_unlink(state);
}

static void shm_fini(struct nal_ni *ni)
{
    struct shm_object *state = ni->nal_state;
    shm_unmap_all(ni, state);
    free(state);
    ni->nal_state = NULL;
}

const struct nal_ops nal_shm_ops = {
    .name = "shm",
    .title = "Shared memory",
    .user_selectable = 1,
    .region_in_dev_shm = 1,
    .maps_peer_regions = NAL_MAPS_EVERY_PEER,
    .region_create = shm_region_create,
    .connect = shm_connect,
    .put = shm_put,
    .get = shm_get,
    .counts_puts = nal_counts_no_puts,
    .progress = nal_no_progress,
    .fini = shm_fini,
    .report = nal_no_report,
};
