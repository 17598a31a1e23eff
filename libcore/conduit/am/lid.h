/*
 * lid.c: the LID cache, where the two halves of an unpacked Long (header
 * and data, sent as separate puts joined by the LID in their match bits)
 * wait for each other.
 */
#ifndef GP_CONDUIT_LID_H
#define GP_CONDUIT_LID_H

#include <gasnet.h>
#include <stdint.h>

#include "conduit/am/am_wire.h"
#include "util/thread.h"

struct gpc_lid_entry {
    uint32_t source;
    uint32_t lid;
    uint8_t have_header;
    uint8_t have_data;
    uint8_t in_use;
    gasnet_handler_t handler;
    uint8_t nargs;
    uint8_t credit_byte;
    uint32_t chunk;          /* requester's ReqSB chunk (requests) */
    uint64_t dest_offset;
    uint64_t nbytes;
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    struct gpc_lid_entry *next;
};

struct gpc_lid_cache {
    struct gpc_lid_entry *entries;
    struct gpc_lid_entry **buckets;
    struct gpc_lid_entry *free_list;
    uint32_t bucket_mask;
    gp_mutex_t lock;
};

int gpc_lid_cache_init(struct gpc_lid_cache *cache, uint32_t capacity);
/*
 * Records one half of an unpacked Long.  Returns NULL while the other half
 * is missing; once both are in, returns the entry (with the header's fields),
 * removed from the cache: the caller runs the handler and then releases it.
 */
struct gpc_lid_entry *gpc_lid_arrive(struct gpc_lid_cache *cache, uint32_t source, uint32_t lid,
                                     const struct gpc_lid_entry *header);
void gpc_lid_release(struct gpc_lid_cache *cache, struct gpc_lid_entry *entry);

#endif
