/*
 * ReqSB and RplSB chunk pools (seed 000): fixed 1024-byte chunks carved
 * from the registered region, handed out from a stack of free indices.
 * The stack lives in private memory allocated once at attach; taking and
 * returning a chunk never allocates.  PAR builds guard it with a mutex.
 */
#include <stdlib.h>

#include "conduit/am/chunks.h"
#include "conduit/core/progress.h"
#include "util/slowwait.h"
#include "util/thread.h"

int gpc_chunk_pool_init(struct gpc_chunk_pool *pool, char *base, uint32_t count)
{
    pool->base = base;
    pool->count = count;
    pool->free_stack = malloc(sizeof *pool->free_stack * count);
    if (pool->free_stack == NULL)
        return GASNET_ERR_RESOURCE;
    /* Lowest index on top: the first chunks handed out are the first in memory. */
    for (uint32_t i = 0; i < count; i++)
        pool->free_stack[i] = count - 1 - i;
    pool->free_top = count;
    gp_mutex_init(&pool->lock);
    return GASNET_OK;
}

int64_t gpc_chunk_get(struct gpc_chunk_pool *pool)
{
    int64_t index = -1;
    gp_mutex_lock(&pool->lock);
    if (pool->free_top > 0)
        index = pool->free_stack[--pool->free_top];
    gp_mutex_unlock(&pool->lock);
    return index;
}

void gpc_chunk_put(struct gpc_chunk_pool *pool, uint32_t index)
{
    gp_mutex_lock(&pool->lock);
    pool->free_stack[pool->free_top++] = index;
    gp_mutex_unlock(&pool->lock);
}

uint32_t gpc_chunk_free_count(struct gpc_chunk_pool *pool)
{
    return pool->free_top;
}

uint32_t gpc_chunk_wait(struct gpc_chunk_pool *pool, const char *pool_name, uint32_t dest)
{
    struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
    int64_t chunk;
    while ((chunk = gpc_chunk_get(pool)) < 0) {
        gpc_wait_turn();
        gp_slow_wait_check(&slow, "am", "a free %s chunk for a message to node %u (all %u in "
                           "use; each comes back with its peer's answer)", pool_name, dest,
                           pool->count);
    }
    return (uint32_t)chunk;
}
