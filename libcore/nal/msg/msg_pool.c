/*
 * Pools of numbered buffers (msg.h): the bounce buffers a message or a
 * bounced RDMA / RMA part is copied into, ofi's tx buffers.
 */
#include <stdlib.h>

#include "nal/msg/msg.h"

int msg_pool_init(struct msg_pool *pool, unsigned size)
{
    pool->free = calloc(size ? size : 1, sizeof *pool->free);
    if (pool->free == NULL)
        return PTL_NO_SPACE;
    for (unsigned i = 0; i < size; i++) /* the lowest number on top */
        pool->free[i] = (int)(size - 1 - i);
    pool->free_count = size;
    pool->size = size;
    return PTL_OK;
}

void msg_pool_fini(struct msg_pool *pool)
{
    free(pool->free);
    *pool = (struct msg_pool){ 0 };
}
