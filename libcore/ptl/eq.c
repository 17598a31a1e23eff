/*
 * Event queues: rings in the registered region (so peers can post to them)
 * plus the owner's bookkeeping that turns "every deposit of a full, auto-
 * unlinking MD has been reported" into the UNLINK event, which Portals
 * delivers after the last PUT_END of that MD: it is the very next event
 * ptl_eq_get returns, ahead of what the ring holds.
 */
#include "ptl/ni.h"

struct ptl_eq_local *ptl_eq_lookup(struct ptl_ni *ni, ptl_handle_eq_t handle)
{
    unsigned index = ptl_handle_index(handle);
    if (handle == PTL_EQ_NONE || index >= ni->max_eq)
        return NULL;
    struct ptl_eq_local *eq = &ni->eqs[index];
    if (!eq->in_use || eq->gen != ptl_handle_gen(handle))
        return NULL;
    return eq;
}

int ptl_eq_alloc(struct ptl_ni *ni, unsigned count, ptl_handle_eq_t *eq_out)
{
    if (count == 0 || count > (1u << 24))
        return PTL_MD_ILLEGAL;
    struct ptl_ring *ring = ptl_region_alloc(ni, ptl_ring_bytes(count), 64);
    if (ring == NULL)
        return PTL_NO_SPACE;
    ptl_ring_init(ring, count);
    int rc = PTL_NO_SPACE;
    gp_mutex_lock(&ni->lock);
    for (unsigned i = 0; i < ni->max_eq; i++) {
        struct ptl_eq_local *eq = &ni->eqs[i];
        if (eq->in_use)
            continue;
        eq->in_use = 1;
        eq->ring = ring;
        eq->pending_count = 0;
        gp_mutex_init(&eq->pending_lock);
        gp_mutex_init(&eq->account_lock);
        /* Peers find the ring through the EQ table; publish it last. */
        __atomic_store_n(&region_eq_table(ni->base.region)[i],
                         (uint64_t)((char *)ring - (char *)ni->base.region), __ATOMIC_RELEASE);
        *eq_out = ptl_handle_make(eq->gen, i);
        rc = PTL_OK;
        break;
    }
    gp_mutex_unlock(&ni->lock);
    return rc;
}

/*
 * Accounts a PUT_END / GET_END taken from an EQ against its attached MD.
 * When the MD is inactive and every operation it accepted has been
 * reported, it leaves the list and an UNLINK event is queued behind.
 * The caller holds eq->account_lock (PAR builds; see ptl_eq_get).
 */
static void account_target_event_locked(struct ptl_ni *ni, struct ptl_eq_local *eq,
                                        const struct ptl_event *event)
{
    struct ptl_md_local *md = ptl_md_lookup(ni, event->md_handle);
    if (md == NULL || !md->attached)
        return;
    struct ptl_pte_shared *pte = region_pte(ni->base.region, md->pt_index);
    struct ptl_me_slot *slot = pte_slot(ni->hdr, pte, md->slot);
    if (SHARED_LOAD(slot->unlink_op) != PTL_UNLINK)
        return;
    int local = !(md->desc.options & PTL_MD_MANAGE_REMOTE);
    uint64_t span = local ? ptl_deposit_span(event->mlength, event->offset, md->desc.length) : 0;
    uint64_t bytes = atomic_fetch_add(&md->bytes_seen, span) + span;
    uint64_t ops = atomic_fetch_add(&md->ops_seen, 1) + 1;
    uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
    if (!(state & MD_STATE_INACTIVE))
        return;
    if (local && bytes != md_state_offset(state))
        return;
    uint64_t start_ops = md_state_ops(md->start_state);
    if (start_ops != MD_STATE_OPS_INF && ops != start_ops - md_state_ops(state))
        return;
    struct ptl_event unlink = *event;
    unlink.type = PTL_EVENT_UNLINK;
    unlink.rlength = 0;
    unlink.mlength = ops;                   /* operations the MD accepted */
    unlink.offset = md_state_offset(state); /* bytes of it they used */
    gp_mutex_lock(&ni->lock);
    ptl_md_detach_locked(ni, md);
    ptl_md_release_locked(ni, md);
    gp_mutex_unlock(&ni->lock);
    /* Next in line, not behind what the ring holds: the owner learns that the
     * MD is off the list as soon as it has seen everything that went into it. */
    gp_mutex_lock(&eq->pending_lock);
    int queued = eq->pending_count < PTL_EQ_PENDING;
    if (queued)
        eq->pending[eq->pending_count++] = unlink;
    gp_mutex_unlock(&eq->pending_lock);
    if (!queued)
        ptl_ring_push(eq->ring, &unlink);
}

/*
 * With several threads taking events from one EQ (PAR builds), the steps of
 * account_target_event_locked must not interleave between them:
 *
 *  - bytes_seen and ops_seen are two counters.  The thread whose deposit
 *    completes bytes_seen may read ops_seen before another thread, which
 *    already counted its bytes, counts its operation: the UNLINK then
 *    reports one operation too few.  The conduit relinks a ReqRB buffer
 *    when as many requests were processed as the UNLINK reports, so it
 *    reused the buffer while a request in it was still unread -- the next
 *    deposits overwrote that request's arguments and payload (wrong
 *    replies, corrupt Medium payloads, requests answered twice or never),
 *    and the late "processed" landed on the relinked buffer's count.
 *  - A thread that looked the MD up may be overtaken by the one that
 *    unlinks it; the MD entry is released and reused (the ReqRB buffer is
 *    relinked at once), and the slow thread would count its deposit against,
 *    or even unlink, the new MD.
 *
 * One lock per EQ makes the lookup, the counting and the decision a unit.
 * SEQ builds have one consumer, and the lock compiles to nothing.
 */
static void account_target_event(struct ptl_ni *ni, struct ptl_eq_local *eq,
                                 const struct ptl_event *event)
{
    gp_mutex_lock(&eq->account_lock);
    account_target_event_locked(ni, eq, event);
    gp_mutex_unlock(&eq->account_lock);
}

static int take_pending(struct ptl_eq_local *eq, struct ptl_event *event)
{
    if (__atomic_load_n(&eq->pending_count, __ATOMIC_ACQUIRE) == 0)
        return 0;
    int taken = 0;
    gp_mutex_lock(&eq->pending_lock);
    if (eq->pending_count > 0) {
        *event = eq->pending[0];
        eq->pending_count--;
        for (unsigned i = 0; i < eq->pending_count; i++)
            eq->pending[i] = eq->pending[i + 1];
        taken = 1;
    }
    gp_mutex_unlock(&eq->pending_lock);
    return taken;
}

int ptl_eq_get(struct ptl_ni *ni, ptl_handle_eq_t handle, struct ptl_event *event)
{
    struct ptl_eq_local *eq = ptl_eq_lookup(ni, handle);
    if (eq == NULL)
        return PTL_EQ_INVALID;
    if (take_pending(eq, event))
        return PTL_OK;
    int rc, lost = 0;
    while ((rc = ptl_ring_pop(eq->ring, event)) != PTL_EQ_EMPTY && event->type == PTL_EVENT_NOTHING)
        lost |= rc == PTL_EQ_DROPPED;
    if (lost && rc == PTL_OK)
        rc = PTL_EQ_DROPPED;
    if (lost && rc == PTL_EQ_EMPTY) {
        event->type = 0;
        rc = PTL_EQ_DROPPED;
    }
    if ((rc == PTL_OK || rc == PTL_EQ_DROPPED) &&
        (event->type == PTL_EVENT_PUT_END || event->type == PTL_EVENT_GET_END))
        account_target_event(ni, eq, event);
    return rc;
}

unsigned ptl_eq_count(struct ptl_ni *ni, ptl_handle_eq_t handle)
{
    struct ptl_eq_local *eq = ptl_eq_lookup(ni, handle);
    return eq ? ptl_ring_count(eq->ring) + __atomic_load_n(&eq->pending_count, __ATOMIC_ACQUIRE) : 0;
}

void ptl_eq_probe(struct ptl_ni *ni, ptl_handle_eq_t handle, struct ptl_eq_probe *probe)
{
    static const _Atomic uint64_t no_count;
    static const unsigned no_pending;
    struct ptl_eq_local *eq = ni != NULL ? ptl_eq_lookup(ni, handle) : NULL;
    if (eq == NULL) {
        *probe = (struct ptl_eq_probe){ .head = &no_count, .tail = &no_count,
                                        .dropped = &no_count, .pending_count = &no_pending };
        return;
    }
    *probe = (struct ptl_eq_probe){ .head = &eq->ring->head, .tail = &eq->ring->tail,
                                    .dropped = &eq->ring->dropped,
                                    .pending_count = &eq->pending_count };
}

int ptl_eq_idle(struct ptl_ni *ni, ptl_handle_eq_t handle)
{
    struct ptl_eq_local *eq = ptl_eq_lookup(ni, handle);
    return eq == NULL ||
           (ptl_ring_count(eq->ring) == 0 && __atomic_load_n(&eq->pending_count, __ATOMIC_ACQUIRE) == 0 &&
            atomic_load_explicit(&eq->ring->dropped, memory_order_relaxed) == 0);
}
