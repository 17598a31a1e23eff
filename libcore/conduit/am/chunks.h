/*
 * chunks.c: the pools of fixed-size chunks the AM protocol sends from and
 * receives replies into (ReqSB, RplSB): a stack of free indices over a slice
 * of the registered region.
 */
#ifndef GP_CONDUIT_CHUNKS_H
#define GP_CONDUIT_CHUNKS_H

#include <stdint.h>

#include "conduit/am/am_wire.h"
#include "util/thread.h"

struct gpc_chunk_pool {
    char *base;
    uint32_t count;
    uint32_t *free_stack;
    uint32_t free_top;
    gp_mutex_t lock;
};

int gpc_chunk_pool_init(struct gpc_chunk_pool *pool, char *base, uint32_t count);
/* A chunk index, or -1 when none is free (the caller polls and retries). */
int64_t gpc_chunk_get(struct gpc_chunk_pool *pool);
/* A chunk index, polling until one is free (saying so after a long wait for
 * a message to node dest; pool_name names the pool: "ReqSB"). */
uint32_t gpc_chunk_wait(struct gpc_chunk_pool *pool, const char *pool_name, uint32_t dest);
void gpc_chunk_put(struct gpc_chunk_pool *pool, uint32_t index);
static inline char *gpc_chunk_addr(const struct gpc_chunk_pool *pool, uint32_t index)
{
    return pool->base + (uint64_t)index * GPC_CHUNK_BYTES;
}
uint32_t gpc_chunk_free_count(struct gpc_chunk_pool *pool);

#endif
