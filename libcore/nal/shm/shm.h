/*
 * The pieces of the shm transport that the hybrid transport (hybrid.c)
 * reuses for the peers on its own host: the region as a shared-memory
 * object, and mapping a peer's object.  Nothing outside libcore/nal
 * includes this.
 */
#ifndef GP_NAL_SHM_H
#define GP_NAL_SHM_H

#include <stdint.h>

#include "nal/upcalls.h"

struct shm_object {
    char name[64];
    int unlinked;
};

/* Creates, reserves and maps this process's object; sets ni->region. */
int shm_object_create(struct nal_ni *ni, struct shm_object *object);
/* Removes the name (every peer that needs it has mapped it by now). */
void shm_object_unlink(struct shm_object *object);
/* Maps peer rank's object, announced as bytes long; NULL after saying why. */
void *shm_map_peer(int rank, uint64_t bytes);
/* Unmaps every peer region and this process's own; unlinks if still named. */
void shm_unmap_all(struct nal_ni *ni, struct shm_object *object);

#endif
