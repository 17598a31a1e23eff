/*
 * Memory descriptors: binding (free floating), attaching to a portal table
 * entry's match list, unlinking, and the handle table behind them.
 *
 * Attaching publishes the MD in the shared region under the entry's seqlock
 * so that peers matching against the list (shm initiators) always see either
 * the old list or the new one.  A slot's state word gets a fresh generation
 * each time the slot is reused, so an initiator that matched the old MD can
 * never reserve space in the new one.  The handle's own generation is 48
 * bits (ptl_md_handle_make), so a handle kept past its MD's unlink -- by a
 * transport's operation in flight, or by a careless caller -- never names
 * the slot's next MD, however often the slot is reused.
 */
#include "ptl/ni.h"

#include <string.h>

#include "util/fence.h"

struct ptl_md_local *ptl_md_lookup(struct ptl_ni *ni, ptl_handle_md_t handle)
{
    unsigned index = ptl_md_handle_index(handle);
    if (handle == PTL_INVALID_HANDLE || index >= ni->max_md)
        return NULL;
    struct ptl_md_local *md = &ni->mds[index];
    if (!md->in_use || md->gen != ptl_md_handle_gen(handle))
        return NULL;
    return md;
}

int ptl_md_still_valid(struct nal_ni *base, const struct nal_op *op)
{
    return ptl_md_lookup(ptl_ni_of(base), op->md) == op->md_local;
}

static struct ptl_md_local *md_alloc(struct ptl_ni *ni, ptl_handle_md_t *handle)
{
    if (ni->md_free_head == 0)
        return NULL;
    unsigned index = ni->md_free_head - 1;
    struct ptl_md_local *md = &ni->mds[index];
    ni->md_free_head = md->next_free;
    md->in_use = 1;
    md->attached = 0;
    atomic_store(&md->bytes_seen, 0);
    atomic_store(&md->ops_seen, 0);
    *handle = ptl_md_handle_make(md->gen, index);
    return md;
}

static void md_free(struct ptl_ni *ni, struct ptl_md_local *md)
{
    md->in_use = 0;
    md->gen = (md->gen + 1) & PTL_MD_GEN_MASK; /* 2^48 reuses: never in practice */
    md->next_free = ni->md_free_head;
    ni->md_free_head = (unsigned)(md - ni->mds) + 1;
}

static int check_desc(struct ptl_ni *ni, const struct ptl_md_desc *desc)
{
    if (desc->threshold != PTL_MD_THRESH_INF &&
        (desc->threshold < 0 || desc->threshold > PTL_MD_THRESH_MAX))
        return PTL_MD_ILLEGAL;
    if (desc->length > 0 && desc->start == NULL)
        return PTL_MD_ILLEGAL;
    if (desc->eq != PTL_EQ_NONE && ptl_eq_lookup(ni, desc->eq) == NULL)
        return PTL_EQ_INVALID;
    return PTL_OK;
}

int ptl_md_bind(struct ptl_ni *ni, const struct ptl_md_desc *desc, ptl_handle_md_t *md_out)
{
    int rc = check_desc(ni, desc);
    if (rc != PTL_OK)
        return rc;
    gp_mutex_lock(&ni->lock);
    ptl_handle_md_t handle;
    struct ptl_md_local *md = md_alloc(ni, &handle);
    if (md != NULL) {
        md->desc = *desc;
        atomic_store(&md->ops_left, desc->threshold);
    }
    gp_mutex_unlock(&ni->lock);
    if (md == NULL)
        return PTL_NO_SPACE;
    *md_out = handle;
    return PTL_OK;
}

/* An attached MD's memory must be reachable by peers: inside the region. */
static int check_attach(struct ptl_ni *ni, unsigned pt_index, const struct ptl_md_desc *desc)
{
    if (pt_index >= ni->hdr->max_pt)
        return PTL_PT_INDEX_INVALID;
    int rc = check_desc(ni, desc);
    if (rc != PTL_OK)
        return rc;
    char *region = ni->base.region;
    char *start = desc->start;
    if (desc->length > 0 && (start < region || start > region + ni->base.region_bytes ||
                             desc->length > (uint64_t)(region + ni->base.region_bytes - start)))
        return PTL_MD_ILLEGAL;
    if (!(desc->options & PTL_MD_MANAGE_REMOTE) && desc->length > MD_STATE_OFFSET_MASK)
        return PTL_MD_ILLEGAL;
    if (!(desc->options & (PTL_MD_OP_PUT | PTL_MD_OP_GET)))
        return PTL_MD_ILLEGAL;
    return PTL_OK;
}

static int find_free_slot(const struct ptl_region_header *hdr, struct ptl_pte_shared *pte)
{
    for (unsigned slot = 0; slot < hdr->max_me; slot++)
        if (atomic_load_explicit(&pte_slot(hdr, pte, slot)->state, memory_order_relaxed) == 0)
            return (int)slot;
    return -1;
}

/* Position in order[] where the new entry goes; -1 if base is not on this list. */
static int insert_position(struct ptl_ni *ni, unsigned pt_index, struct ptl_pte_shared *pte,
                           enum ptl_ins_pos position, ptl_handle_md_t base)
{
    uint32_t count = pte->count;
    if (base == PTL_INVALID_HANDLE)
        return position == PTL_INS_BEFORE ? 0 : (int)count;
    struct ptl_md_local *base_md = ptl_md_lookup(ni, base);
    if (base_md == NULL || !base_md->attached || base_md->pt_index != pt_index)
        return -1;
    uint16_t *order = pte_order(ni->hdr, pte);
    for (uint32_t i = 0; i < count; i++)
        if (order[i] == base_md->slot)
            return position == PTL_INS_BEFORE ? (int)i : (int)i + 1;
    return -1;
}

static void seqlock_begin(struct ptl_pte_shared *pte)
{
    uint32_t version = atomic_load_explicit(&pte->version, memory_order_relaxed);
    atomic_store_explicit(&pte->version, version + 1, memory_order_relaxed);
    /* The odd version before the slot and list stores that follow: a reader that sees any of
     * them (its loads before its acquire fence in target.c) then sees the version odd or moved
     * on when it looks again, and retries.  A release fence and not a store fence: it is also
     * the C11 fence that synchronizes with the readers' acquire fences. */
    gp_fence_release();
}

static void seqlock_end(struct ptl_pte_shared *pte)
{
    uint32_t version = atomic_load_explicit(&pte->version, memory_order_relaxed);
    atomic_store_explicit(&pte->version, version + 1, memory_order_release);
}

static void publish_slot(struct ptl_ni *ni, struct ptl_me_slot *slot, struct ptl_md_local *md,
                         ptl_handle_md_t handle, uint64_t match_bits, uint64_t ignore_bits,
                         enum ptl_unlink_op unlink_op)
{
    const struct ptl_md_desc *desc = &md->desc;
    uint64_t ops = desc->threshold == PTL_MD_THRESH_INF ? MD_STATE_OPS_INF : (uint64_t)desc->threshold;
    uint32_t gen = slot->last_gen % MD_STATE_GEN_MASK + 1; /* 1..GEN_MASK: never 0 */
    slot->last_gen = gen;
    SHARED_STORE(slot->match_bits, match_bits);
    SHARED_STORE(slot->ignore_bits, ignore_bits);
    SHARED_STORE(slot->region_offset, (uint64_t)((char *)desc->start - (char *)ni->base.region));
    SHARED_STORE(slot->length, desc->length);
    SHARED_STORE(slot->max_size, desc->max_size);
    SHARED_STORE(slot->md_start, (uint64_t)(uintptr_t)desc->start);
    SHARED_STORE(slot->user_ptr, (uint64_t)(uintptr_t)desc->user_ptr);
    SHARED_STORE(slot->options, desc->options);
    SHARED_STORE(slot->eq_index, desc->eq == PTL_EQ_NONE ? 0u : ptl_handle_index(desc->eq) + 1);
    SHARED_STORE(slot->md_handle, handle);
    SHARED_STORE(slot->unlink_op, (uint32_t)unlink_op);
    md->start_state = md_state_make(gen, ops, 0);
    if (desc->threshold == 0)
        md->start_state |= MD_STATE_INACTIVE;
    atomic_store_explicit(&slot->state, md->start_state, memory_order_relaxed);
}

static int attach_locked(struct ptl_ni *ni, unsigned pt_index, uint64_t match_bits,
                         uint64_t ignore_bits, const struct ptl_md_desc *desc,
                         enum ptl_unlink_op unlink_op, enum ptl_ins_pos position,
                         ptl_handle_md_t base, ptl_handle_md_t *md_out)
{
    struct ptl_pte_shared *pte = region_pte(ni->base.region, pt_index);
    int at = insert_position(ni, pt_index, pte, position, base);
    if (at < 0)
        return PTL_MD_INVALID;
    int slot_index = find_free_slot(ni->hdr, pte);
    if (slot_index < 0)
        return PTL_NO_SPACE;
    ptl_handle_md_t handle;
    struct ptl_md_local *md = md_alloc(ni, &handle);
    if (md == NULL)
        return PTL_NO_SPACE;
    md->desc = *desc;
    md->attached = 1;
    md->pt_index = pt_index;
    md->slot = (unsigned)slot_index;
    atomic_store(&md->ops_left, desc->threshold);

    uint16_t *order = pte_order(ni->hdr, pte);
    seqlock_begin(pte);
    publish_slot(ni, pte_slot(ni->hdr, pte, (unsigned)slot_index), md, handle, match_bits,
                 ignore_bits, unlink_op);
    for (int i = (int)pte->count; i > at; i--)
        SHARED_STORE(order[i], order[i - 1]);
    SHARED_STORE(order[at], (uint16_t)slot_index);
    SHARED_STORE(pte->count, pte->count + 1);
    seqlock_end(pte);
    *md_out = handle;
    return PTL_OK;
}

int ptl_md_attach(struct ptl_ni *ni, unsigned pt_index, uint64_t match_bits, uint64_t ignore_bits,
                  const struct ptl_md_desc *desc, enum ptl_unlink_op unlink_op,
                  enum ptl_ins_pos position, ptl_handle_md_t base, ptl_handle_md_t *md_out)
{
    int rc = check_attach(ni, pt_index, desc);
    if (rc != PTL_OK)
        return rc;
    gp_mutex_lock(&ni->lock);
    rc = attach_locked(ni, pt_index, match_bits, ignore_bits, desc, unlink_op, position, base,
                       md_out);
    gp_mutex_unlock(&ni->lock);
    return rc;
}

/* Takes an attached MD off its list and frees its slot; caller holds ni->lock. */
void ptl_md_detach_locked(struct ptl_ni *ni, struct ptl_md_local *md)
{
    struct ptl_pte_shared *pte = region_pte(ni->base.region, md->pt_index);
    uint16_t *order = pte_order(ni->hdr, pte);
    uint32_t count = pte->count;
    seqlock_begin(pte);
    for (uint32_t i = 0, out = 0; i < count; i++)
        if (order[i] != md->slot)
            SHARED_STORE(order[out++], order[i]);
    SHARED_STORE(pte->count, count - 1);
    atomic_store_explicit(&pte_slot(ni->hdr, pte, md->slot)->state, 0, memory_order_relaxed);
    seqlock_end(pte);
}

int ptl_md_unlink(struct ptl_ni *ni, ptl_handle_md_t handle)
{
    int rc = PTL_OK;
    gp_mutex_lock(&ni->lock);
    struct ptl_md_local *md = ptl_md_lookup(ni, handle);
    if (md == NULL) {
        rc = PTL_MD_INVALID;
    } else if (md->attached) {
        struct ptl_pte_shared *pte = region_pte(ni->base.region, md->pt_index);
        struct ptl_me_slot *slot = pte_slot(ni->hdr, pte, md->slot);
        uint64_t state = atomic_load(&slot->state);
        /* Deposits reserved but not yet reported would land in a reused slot. */
        if (!(md->desc.options & PTL_MD_MANAGE_REMOTE) &&
            md_state_offset(state) != atomic_load(&md->bytes_seen) &&
            md->desc.eq != PTL_EQ_NONE && !(md->desc.options & PTL_MD_EVENT_DISABLE))
            rc = PTL_MD_IN_USE;
        else
            ptl_md_detach_locked(ni, md);
    }
    if (rc == PTL_OK && md != NULL)
        md_free(ni, md);
    gp_mutex_unlock(&ni->lock);
    return rc;
}

void ptl_md_release_locked(struct ptl_ni *ni, struct ptl_md_local *md)
{
    md_free(ni, md);
}

int ptl_md_query(struct ptl_ni *ni, ptl_handle_md_t handle, struct ptl_md_desc *desc_out)
{
    struct ptl_md_local *md = ptl_md_lookup(ni, handle);
    if (md == NULL)
        return PTL_MD_INVALID;
    *desc_out = md->desc;
    return PTL_OK;
}
