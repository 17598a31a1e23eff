/*
 * The LID cache of seed 000: an unpacked Long arrives as two messages, a
 * header (to ReqRB or ReqSB) and the data (to the segment), in either
 * order.  Both carry the sender's Long ID; whichever half comes first is
 * recorded here under (source, LID), and the second one takes the entry
 * and runs the handler.  Entries come from a pool sized at attach, so an
 * arrival never allocates.
 */
#include <stdlib.h>
#include <string.h>

#include "conduit/am/lid.h"
#include "util/log.h"
#include "util/thread.h"

int gpc_lid_cache_init(struct gpc_lid_cache *cache, uint32_t capacity)
{
    uint32_t buckets = 16;
    while (buckets < capacity)
        buckets <<= 1;
    cache->entries = calloc(capacity, sizeof *cache->entries);
    cache->buckets = calloc(buckets, sizeof *cache->buckets);
    if (cache->entries == NULL || cache->buckets == NULL)
        return GASNET_ERR_RESOURCE;
    cache->bucket_mask = buckets - 1;
    cache->free_list = NULL;
    for (uint32_t i = capacity; i-- > 0;) {
        cache->entries[i].next = cache->free_list;
        cache->free_list = &cache->entries[i];
    }
    gp_mutex_init(&cache->lock);
    return GASNET_OK;
}

static uint32_t bucket_of(const struct gpc_lid_cache *cache, uint32_t source, uint32_t lid)
{
    return (lid * 2654435761u ^ source * 40503u) & cache->bucket_mask;
}

static struct gpc_lid_entry *take_matching(struct gpc_lid_cache *cache, uint32_t bucket,
                                           uint32_t source, uint32_t lid)
{
    for (struct gpc_lid_entry **link = &cache->buckets[bucket]; *link; link = &(*link)->next) {
        struct gpc_lid_entry *entry = *link;
        if (entry->source == source && entry->lid == lid) {
            *link = entry->next;
            return entry;
        }
    }
    return NULL;
}

struct gpc_lid_entry *gpc_lid_arrive(struct gpc_lid_cache *cache, uint32_t source, uint32_t lid,
                                     const struct gpc_lid_entry *header)
{
    uint32_t bucket = bucket_of(cache, source, lid);
    gp_mutex_lock(&cache->lock);
    struct gpc_lid_entry *entry = take_matching(cache, bucket, source, lid);
    if (entry != NULL) {
        /* The other half was waiting: hand over a complete entry. */
        if (header != NULL)
            *entry = *header;
        entry->source = source;
        entry->lid = lid;
        entry->in_use = 1;
        entry->next = NULL;
        entry->have_header = entry->have_data = 1;
        gp_mutex_unlock(&cache->lock);
        return entry;
    }
    entry = cache->free_list;
    if (entry == NULL) {
        gp_mutex_unlock(&cache->lock);
        /* Each waiting half holds credits or a chunk, which bound how many can wait. */
        gp_fatal("LID cache full: more unpacked AM Longs half-arrived than credits allow "
                 "(node %u, LID %u)", source, lid);
    }
    cache->free_list = entry->next;
    if (header != NULL)
        *entry = *header;
    else
        memset(entry, 0, sizeof *entry);
    entry->source = source;
    entry->lid = lid;
    entry->have_header = header != NULL;
    entry->have_data = header == NULL;
    entry->in_use = 1;
    entry->next = cache->buckets[bucket];
    cache->buckets[bucket] = entry;
    gp_mutex_unlock(&cache->lock);
    return NULL;
}

void gpc_lid_release(struct gpc_lid_cache *cache, struct gpc_lid_entry *entry)
{
    gp_mutex_lock(&cache->lock);
    entry->in_use = 0;
    entry->next = cache->free_list;
    cache->free_list = entry;
    gp_mutex_unlock(&cache->lock);
}
