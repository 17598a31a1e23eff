/*
 * The target side of puts and gets: matching an incoming operation against a
 * portal table entry's list, reserving room in a locally managed MD, and the
 * PUT_END / GET_END events.  On shm and loop the initiator runs this code on
 * the target's mapped region, so it reads the list under the entry's seqlock
 * and changes an MD only by CAS on its state word (see shared.h).
 *
 * Deposits into a locally managed MD start 16-byte aligned (any C type can
 * be read in place, as GASNet promises for Medium payloads) and take at least
 * 16 bytes (ptl_deposit_span), so that a zero-length deposit still counts
 * when the owner decides that every deposit of a full MD has been reported.
 */
#include "ptl/ni.h"

#include <string.h>

#include "util/fence.h"
#include "util/log.h"

static int slot_accepts(const struct ptl_me_slot *slot, uint32_t options, enum ptl_op_kind op,
                        uint64_t match_bits)
{
    uint64_t ignore = SHARED_LOAD(slot->ignore_bits);
    if (((match_bits ^ SHARED_LOAD(slot->match_bits)) & ~ignore) != 0)
        return 0;
    return (op == PTL_OP_PUT) ? (options & PTL_MD_OP_PUT) != 0 : (options & PTL_MD_OP_GET) != 0;
}

/*
 * Tries one MD: computes where the data goes and claims it with a CAS on the
 * state word when the MD is locally managed or has a finite threshold.
 * Returns 1 if claimed, 0 if this MD does not take the message, -1 if the
 * state moved under us (the caller re-reads the list).
 */
static int try_claim(struct ptl_me_slot *slot, uint64_t state, uint32_t options,
                     uint64_t remote_offset, uint64_t length, struct ptl_match *match)
{
    uint64_t md_length = SHARED_LOAD(slot->length);
    int local = !(options & PTL_MD_MANAGE_REMOTE);
    uint64_t offset = local ? md_state_offset(state) : remote_offset;
    uint64_t ops = md_state_ops(state);
    if (state & MD_STATE_INACTIVE)
        return 0;
    if (offset > md_length)
        return 0;
    uint64_t mlength = length;
    if (length > md_length - offset) {
        if (!(options & PTL_MD_TRUNCATE))
            return 0;
        mlength = md_length - offset;
    }
    match->md_offset = offset;
    match->mlength = mlength;
    if (!local && ops == MD_STATE_OPS_INF)
        return 1; /* nothing shared to change: the common RAR case costs no atomic */

    uint64_t new_state = state;
    if (ops != MD_STATE_OPS_INF) {
        new_state = (new_state & ~(MD_STATE_OPS_MASK << MD_STATE_OPS_SHIFT)) |
                    ((ops - 1) << MD_STATE_OPS_SHIFT);
        if (ops - 1 == 0)
            new_state |= MD_STATE_INACTIVE;
    }
    if (local) {
        uint64_t next = offset + ptl_deposit_span(mlength, offset, md_length);
        new_state = (new_state & ~MD_STATE_OFFSET_MASK) | next;
        if (md_length - next < SHARED_LOAD(slot->max_size) || next == md_length)
            new_state |= MD_STATE_INACTIVE;
    }
    return atomic_compare_exchange_strong(&slot->state, &state, new_state) ? 1 : -1;
}

static void fill_match(struct ptl_me_slot *slot, uint32_t options, struct ptl_match *match)
{
    match->slot = slot;
    match->options = options;
    match->data_offset = SHARED_LOAD(slot->region_offset); /* + md_offset once claimed */
    match->eq_index = SHARED_LOAD(slot->eq_index);
    match->md_handle = SHARED_LOAD(slot->md_handle);
    match->md_start = SHARED_LOAD(slot->md_start);
    match->user_ptr = SHARED_LOAD(slot->user_ptr);
}

/* One pass over the list; -1 means the list or a state changed: start again. */
static int match_once(void *region, struct ptl_pte_shared *pte, enum ptl_op_kind op,
                      uint64_t match_bits, uint64_t remote_offset, uint64_t length,
                      struct ptl_match *match)
{
    const struct ptl_region_header *hdr = region;
    uint32_t version = atomic_load_explicit(&pte->version, memory_order_acquire);
    if (version & 1)
        return -1;
    uint32_t count = SHARED_LOAD(pte->count);
    uint16_t *order = pte_order(hdr, pte);
    for (uint32_t i = 0; i < count && i < hdr->max_me; i++) {
        struct ptl_me_slot *slot = pte_slot(hdr, pte, SHARED_LOAD(order[i]) % hdr->max_me);
        uint32_t options = SHARED_LOAD(slot->options);
        if (!slot_accepts(slot, options, op, match_bits))
            continue;
        uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
        struct ptl_match candidate;
        fill_match(slot, options, &candidate);
        /* The seqlock's reader (md.c, seqlock_begin/end): the slot's loads above before the
         * version's second look, so a change begun while they ran is seen; pairs with the
         * writer's release fence after its odd version. */
        gp_fence_load();
        if (atomic_load_explicit(&pte->version, memory_order_relaxed) != version)
            return -1;
        int claimed = try_claim(slot, state, options, remote_offset, length, &candidate);
        if (claimed < 0)
            return -1;
        if (claimed > 0) {
            candidate.data_offset += candidate.md_offset;
            *match = candidate;
            return 1;
        }
    }
    return 0;
}

int ptl_target_match(void *region, unsigned pt_index, enum ptl_op_kind op, uint64_t match_bits,
                     uint64_t remote_offset, uint64_t length, struct ptl_match *match)
{
    struct ptl_region_header *hdr = region;
    if (pt_index >= hdr->max_pt)
        goto dropped;
    struct ptl_pte_shared *pte = region_pte(region, pt_index);
    for (;;) {
        int found = match_once(region, pte, op, match_bits, remote_offset, length, match);
        if (found > 0)
            return PTL_OK;
        if (found == 0)
            break;
    }
dropped:
    atomic_fetch_add_explicit(&hdr->dropped, 1, memory_order_relaxed);
    return PTL_FAIL;
}

static struct ptl_ring *region_ring(void *region, uint32_t eq_index)
{
    struct ptl_region_header *hdr = region;
    if (eq_index == 0 || eq_index > hdr->max_eq)
        return NULL;
    uint64_t offset = region_eq_table(region)[eq_index - 1];
    return offset ? (struct ptl_ring *)((char *)region + offset) : NULL;
}

static void fill_target_event(struct ptl_event *event_out, const struct ptl_match *match,
                              enum ptl_event_kind kind, unsigned initiator, uint64_t match_bits,
                              uint64_t hdr_data, uint64_t rlength, unsigned pt_index)
{
    struct ptl_event event = {
        .type = kind,
        .initiator = initiator,
        .pt_index = pt_index,
        .md_handle = match->md_handle,
        .match_bits = match_bits,
        .hdr_data = hdr_data,
        .rlength = rlength,
        .mlength = match->mlength,
        .offset = match->md_offset,
        .md_start = (void *)(uintptr_t)match->md_start,
        .md_user_ptr = (void *)(uintptr_t)match->user_ptr,
    };
    *event_out = event;
}

/* The region's owner may doze (doze.c) waiting for the event just posted.  The event's
 * release store (ptl_ring_publish) comes before this plain load with no fence: doze.c says
 * what a load that passes it costs. */
static void wake_owner(void *region)
{
    ptl_wake(&((struct ptl_region_header *)region)->doze);
}

void ptl_target_event(void *region, const struct ptl_match *match, enum ptl_event_kind kind,
                      unsigned initiator, uint64_t match_bits, uint64_t hdr_data, uint64_t rlength,
                      unsigned pt_index)
{
    if (match->options & PTL_MD_EVENT_DISABLE)
        return;
    struct ptl_ring *ring = region_ring(region, match->eq_index);
    if (ring == NULL)
        return;
    struct ptl_event event;
    fill_target_event(&event, match, kind, initiator, match_bits, hdr_data, rlength, pt_index);
    ptl_ring_push(ring, &event);
    wake_owner(region);
}

/* The EQ of the first MD on the list that could take a put with these bits, or 0. */
static uint32_t likely_eq(void *region, unsigned pt_index, uint64_t match_bits)
{
    const struct ptl_region_header *hdr = region;
    if (pt_index >= hdr->max_pt)
        return 0;
    struct ptl_pte_shared *pte = region_pte(region, pt_index);
    uint32_t count = SHARED_LOAD(pte->count);
    uint16_t *order = pte_order(hdr, pte);
    for (uint32_t i = 0; i < count && i < hdr->max_me; i++) {
        struct ptl_me_slot *slot = pte_slot(hdr, pte, SHARED_LOAD(order[i]) % hdr->max_me);
        uint32_t options = SHARED_LOAD(slot->options);
        if (slot_accepts(slot, options, PTL_OP_PUT, match_bits) &&
            !(atomic_load_explicit(&slot->state, memory_order_relaxed) & MD_STATE_INACTIVE))
            return (options & PTL_MD_EVENT_DISABLE) ? 0 : SHARED_LOAD(slot->eq_index);
    }
    return 0;
}

/*
 * The target's event cell is claimed before the MD's space: the target then
 * takes events in the order space was claimed, so a full locally managed MD
 * is reported (and recycled) before deposits that went past it pile up --
 * even if this process is descheduled between claim and copy.
 */
static struct ptl_ring *claim_event_cell(void *region, const struct nal_op *op, int64_t *pos)
{
    uint32_t eq_index = likely_eq(region, op->pt_index, op->match_bits);
    struct ptl_ring *ring = eq_index ? region_ring(region, eq_index) : NULL;
    *pos = ring ? ptl_ring_claim(ring) : -1;
    return *pos >= 0 ? ring : NULL;
}

/* Fills the claimed cell with the event, or with nothing if it belongs elsewhere. */
static void post_put_end(void *region, struct ptl_ring *claimed, int64_t pos, int matched,
                         const struct ptl_match *match, unsigned initiator, const struct nal_op *op)
{
    struct ptl_ring *ring = matched && !(match->options & PTL_MD_EVENT_DISABLE)
                                ? region_ring(region, match->eq_index) : NULL;
    struct ptl_event event = { .type = PTL_EVENT_NOTHING };
    if (ring != NULL)
        fill_target_event(&event, match, PTL_EVENT_PUT_END, initiator, op->match_bits,
                          op->hdr_data, op->length, op->pt_index);
    if (claimed != NULL && (ring == claimed || ring == NULL)) {
        ptl_ring_publish(claimed, pos, &event);
        wake_owner(region);
        return;
    }
    if (claimed != NULL) {
        struct ptl_event nothing = { .type = PTL_EVENT_NOTHING };
        ptl_ring_publish(claimed, pos, &nothing);
    }
    if (ring != NULL)
        ptl_ring_push(ring, &event);
    wake_owner(region);
}

int ptl_direct_put(struct nal_ni *ni, void *target_region, const struct nal_op *op)
{
    struct ptl_match match;
    int64_t pos;
    struct ptl_ring *claimed = claim_event_cell(target_region, op, &pos);
    if (ptl_target_match(target_region, op->pt_index, PTL_OP_PUT, op->match_bits,
                         op->remote_offset, op->length, &match) != PTL_OK) {
        post_put_end(target_region, claimed, pos, 0, &match, (unsigned)ni->rank, op);
        gp_debug("ptl", "put of %llu bytes to rank %u pt %u match 0x%llx matched no MD: dropped",
                 (unsigned long long)op->length, op->target, op->pt_index,
                 (unsigned long long)op->match_bits);
        if (op->count_down != NULL)
            ptl_count_done(ni, op->count_down, 1);
        else
            ptl_initiator_event(ni, op, PTL_EVENT_SEND_END, 0, 0);
        return PTL_OK;
    }
    if (match.mlength > 0)
        memcpy((char *)target_region + match.data_offset, op->local_addr, match.mlength);
    post_put_end(target_region, claimed, pos, 1, &match, (unsigned)ni->rank, op);
    if (op->count_down != NULL) { /* a counted put: done, and nothing to post (ptl.h) */
        ptl_count_done(ni, op->count_down, 1);
        return PTL_OK;
    }
    ptl_initiator_event(ni, op, PTL_EVENT_SEND_END, match.mlength, match.md_offset);
    if (op->ack_req == PTL_ACK_REQ && !(match.options & PTL_MD_ACK_DISABLE))
        ptl_initiator_event(ni, op, PTL_EVENT_ACK, match.mlength, match.md_offset);
    return PTL_OK;
}

int ptl_direct_get(struct nal_ni *ni, void *target_region, const struct nal_op *op)
{
    struct ptl_match match;
    if (ptl_target_match(target_region, op->pt_index, PTL_OP_GET, op->match_bits,
                         op->remote_offset, op->length, &match) != PTL_OK) {
        gp_debug("ptl", "get of %llu bytes from rank %u pt %u match 0x%llx matched no MD: dropped",
                 (unsigned long long)op->length, op->target, op->pt_index,
                 (unsigned long long)op->match_bits);
        return PTL_OK;
    }
    if (match.mlength > 0)
        memcpy(op->local_addr, (char *)target_region + match.data_offset, match.mlength);
    ptl_target_event(target_region, &match, PTL_EVENT_GET_END, (unsigned)ni->rank, op->match_bits,
                     0, op->length, op->pt_index);
    ptl_initiator_event(ni, op, PTL_EVENT_REPLY_END, match.mlength, match.md_offset);
    return PTL_OK;
}

int ptl_target_window(void *region, unsigned pt_index, uint64_t match_bits,
                      uint64_t *region_offset, uint64_t *length)
{
    const struct ptl_region_header *hdr = region;
    if (pt_index >= hdr->max_pt)
        return 0;
    struct ptl_pte_shared *pte = region_pte(region, pt_index);
    uint32_t version = atomic_load_explicit(&pte->version, memory_order_acquire);
    if (version & 1)
        return 0;
    uint32_t count = SHARED_LOAD(pte->count);
    uint16_t *order = pte_order(hdr, pte);
    const unsigned wanted = PTL_MD_PERMANENT | PTL_MD_MANAGE_REMOTE | PTL_MD_OP_PUT | PTL_MD_OP_GET;
    int granted = 0;
    for (uint32_t i = 0; i < count && i < hdr->max_me; i++) {
        struct ptl_me_slot *slot = pte_slot(hdr, pte, SHARED_LOAD(order[i]) % hdr->max_me);
        uint32_t options = SHARED_LOAD(slot->options);
        if (!slot_accepts(slot, options, PTL_OP_PUT, match_bits))
            continue;
        uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
        granted = (options & wanted) == wanted && SHARED_LOAD(slot->ignore_bits) == ~0ull &&
                  md_state_ops(state) == MD_STATE_OPS_INF && !(state & MD_STATE_INACTIVE) &&
                  SHARED_LOAD(slot->eq_index) == 0;
        *region_offset = SHARED_LOAD(slot->region_offset);
        *length = SHARED_LOAD(slot->length);
        break;
    }
    gp_fence_load(); /* the slot's loads before the version's second look: as in match_once */
    return granted && atomic_load_explicit(&pte->version, memory_order_relaxed) == version;
}

void *ptl_direct_address(struct ptl_ni *ni, unsigned target, unsigned pt_index,
                         enum ptl_access access, uint64_t match_bits, uint64_t remote_offset,
                         uint64_t length)
{
    void **peer_region = ni->base.peer_region;
    if (peer_region == NULL || target >= (unsigned)ni->base.size || peer_region[target] == NULL)
        return NULL;
    void *region = peer_region[target];
    struct ptl_region_header *hdr = region;
    if (pt_index >= hdr->max_pt)
        return NULL;
    struct ptl_pte_shared *pte = region_pte(region, pt_index);
    uint32_t version = atomic_load_explicit(&pte->version, memory_order_acquire);
    if (version & 1)
        return NULL;
    enum ptl_op_kind kind = access == PTL_ACCESS_GET ? PTL_OP_GET : PTL_OP_PUT;
    uint32_t count = SHARED_LOAD(pte->count);
    uint16_t *order = pte_order(hdr, pte);
    void *where = NULL;
    for (uint32_t i = 0; i < count && i < hdr->max_me && where == NULL; i++) {
        struct ptl_me_slot *slot = pte_slot(hdr, pte, SHARED_LOAD(order[i]) % hdr->max_me);
        uint32_t options = SHARED_LOAD(slot->options);
        if (!slot_accepts(slot, options, kind, match_bits))
            continue;
        uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
        uint64_t md_length = SHARED_LOAD(slot->length);
        /* Only an MD a plain copy cannot disturb: remote offsets, no threshold, no events. */
        if (!(options & PTL_MD_MANAGE_REMOTE) || md_state_ops(state) != MD_STATE_OPS_INF ||
            (state & MD_STATE_INACTIVE) || SHARED_LOAD(slot->eq_index) != 0 ||
            remote_offset > md_length || length > md_length - remote_offset)
            break;
        where = (char *)region + SHARED_LOAD(slot->region_offset) + remote_offset;
    }
    gp_fence_load(); /* the slot's loads before the version's second look: as in match_once */
    if (atomic_load_explicit(&pte->version, memory_order_relaxed) != version)
        return NULL;
    return where;
}
