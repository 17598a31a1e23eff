/* Operation records: see inflight.h. */
#include "nal/inflight.h"

#include <stdlib.h>
#include <string.h>

#define ID_INDEX(id) ((id) & 0xffffu)
#define ID_GEN(id) ((uint16_t)((id) >> 16))

int nal_inflight_init(struct nal_inflight *table, unsigned depth, size_t record_bytes,
                      struct nal_inflight_budget *budget)
{
    memset(table, 0, sizeof *table);
    if (depth == 0 || depth > NAL_INFLIGHT_MAX_DEPTH || record_bytes < sizeof(struct nal_inflight_rec))
        return PTL_FAIL;
    table->records = calloc(depth, record_bytes);
    if (table->records == NULL)
        return PTL_NO_SPACE;
    table->record_bytes = record_bytes;
    table->depth = depth;
    table->budget = budget;
    for (unsigned i = 0; i < depth; i++) {
        struct nal_inflight_rec *rec = nal_inflight_at(table, i);
        rec->gen = 1;
        rec->next_free = i + 1 < depth ? i + 2 : 0;
    }
    table->free_head = 1;
    return PTL_OK;
}

void nal_inflight_fini(struct nal_inflight *table)
{
    /* Records still in flight leave the budget with the table. */
    if (table->budget != NULL && table->records != NULL)
        table->budget->in_use -= table->used;
    free(table->records);
    memset(table, 0, sizeof *table);
}

int nal_inflight_room(const struct nal_inflight *table)
{
    const struct nal_inflight_budget *budget = table->budget;
    return table->free_head != 0 && (budget == NULL || budget->cap == 0 || budget->in_use < budget->cap);
}

struct nal_inflight_rec *nal_inflight_take(struct nal_inflight *table, unsigned kind,
                                           const struct nal_op *op)
{
    if (kind == NAL_INFLIGHT_FREE || kind > 0xffu || !nal_inflight_room(table))
        return NULL;
    struct nal_inflight_rec *rec = nal_inflight_at(table, table->free_head - 1);
    table->free_head = rec->next_free;
    /* The header is written whole below: only the transport's part needs zeroing (a put's
     * record is all header on tcp, and this is on every put's path). */
    if (table->record_bytes > sizeof *rec)
        memset((unsigned char *)rec + sizeof *rec, 0, table->record_bytes - sizeof *rec);
    rec->kind = (uint8_t)kind;
    rec->next_free = 0;
    rec->op = *op;
    table->used++;
    struct nal_inflight_budget *budget = table->budget;
    if (budget != NULL && ++budget->in_use > budget->peak)
        budget->peak = budget->in_use;
    return rec;
}

void nal_inflight_release(struct nal_inflight *table, struct nal_inflight_rec *rec)
{
    if (rec->kind == NAL_INFLIGHT_FREE)
        return; /* released twice: the first release counted */
    rec->kind = NAL_INFLIGHT_FREE;
    uint16_t next = (uint16_t)(rec->gen + 1);
    rec->gen = next != 0 ? next : 1;
    unsigned index = (unsigned)(((unsigned char *)rec - table->records) / table->record_bytes);
    rec->next_free = table->free_head;
    table->free_head = index + 1;
    table->used--;
    if (table->budget != NULL)
        table->budget->in_use--;
}

uint32_t nal_inflight_id(const struct nal_inflight *table, const struct nal_inflight_rec *rec)
{
    unsigned index = (unsigned)(((const unsigned char *)rec - table->records) / table->record_bytes);
    return ((uint32_t)rec->gen << 16) | index;
}

struct nal_inflight_rec *nal_inflight_find(const struct nal_inflight *table, uint32_t id,
                                           unsigned kind, const char **why)
{
    unsigned index = ID_INDEX(id);
    if (table->records == NULL || index >= table->depth) {
        *why = "its index is out of range";
        return NULL;
    }
    struct nal_inflight_rec *rec = nal_inflight_at(table, index);
    if (rec->kind == NAL_INFLIGHT_FREE || rec->gen != ID_GEN(id)) {
        *why = "it is stale: no operation in flight has that index and generation";
        return NULL;
    }
    if (kind != NAL_INFLIGHT_FREE && rec->kind != kind) {
        *why = "it names another kind of operation";
        return NULL;
    }
    return rec;
}

int nal_inflight_live(const struct nal_inflight *table, uint32_t id)
{
    const char *why;
    return nal_inflight_find(table, id, NAL_INFLIGHT_FREE, &why) != NULL;
}

void nal_inflight_wait_note(struct gp_slow_wait *wait, const char *subsys,
                            const struct nal_inflight *table, int peer)
{
    const struct nal_inflight_budget *budget = table->budget;
    if (budget != NULL && budget->cap != 0 && budget->in_use >= budget->cap && table->free_head != 0)
        gp_slow_wait_check(wait, subsys, "operation records for rank %d (this node has %u in "
                           "flight, its cap: GASNET_NETWORKDEPTH_TOTAL=%u)", peer,
                           budget->in_use, budget->cap);
    else
        gp_slow_wait_check(wait, subsys, "operation records for rank %d (all %u in flight to it)",
                           peer, table->depth);
}
