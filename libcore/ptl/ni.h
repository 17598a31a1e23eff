/*
 * The NI as the ptl files see it (not the conduit; a transport sees only
 * its struct nal_ni, and calls up through nal/upcalls.h).
 */
#ifndef GP_PTL_NI_H
#define GP_PTL_NI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nal/nal.h"
#include "nal/upcalls.h"
#include "ptl/ptl.h"
#include "ptl/ring.h"
#include "ptl/shared.h"
#include "util/thread.h"

/* This process's record of one MD, bound or attached. */
struct ptl_md_local {
    uint64_t gen;              /* handle generation (48 bits): stale handles are refused */
    uint8_t in_use;
    uint8_t attached;
    struct ptl_md_desc desc;
    unsigned pt_index;         /* attached: where it is published */
    unsigned slot;
    uint64_t start_state;      /* attached: the state word it was published with */
    _Atomic int ops_left;      /* bound: operations left, -1 for infinite */
    _Atomic uint64_t bytes_seen;  /* attached, locally managed: deposits whose event was taken */
    _Atomic uint64_t ops_seen;    /* attached: operations whose event was taken */
    unsigned next_free;
};

#define PTL_EQ_PENDING 64

/* A claimed ring cell that ended up carrying no event: consumers skip it. */
#define PTL_EVENT_NOTHING 100u

struct ptl_eq_local {
    struct ptl_ring *ring;
    uint16_t gen;
    uint8_t in_use;
    /* UNLINK events made by the owner, handed out before the ring's next event */
    unsigned pending_count;
    struct ptl_event pending[PTL_EQ_PENDING];
    gp_mutex_t pending_lock;
    /*
     * PAR: serializes account_target_event among the threads taking events
     * from this EQ, so that counting a deposit, deciding that it was the last
     * one and unlinking the MD are one step (eq.c says why).
     */
    gp_mutex_t account_lock;
};

struct ptl_ni {
    struct nal_ni base;             /* the transport's part; first, for ptl_ni_of */
    const struct nal_ops *nal;
    struct ptl_region_header *hdr;
    uint64_t arena_next;            /* bump allocator inside the region */
    gp_count_t counted_done;        /* counted puts completed, not yet seen by ptl_counted_taken */
    struct ptl_md_local *mds;
    unsigned max_md;
    unsigned md_free_head;          /* index + 1, 0 = none */
    struct ptl_eq_local *eqs;
    unsigned max_eq;
    gp_mutex_t lock;                /* tables, list edits, arena; PAR builds only */
    /* ptl_ni_set_rcv_poll: read by a transport's receive thread, so atomic */
    _Atomic(ptl_rcv_poll_fn) rcv_poll;
    void *_Atomic rcv_poll_arg;
};

/* The NI whose transport part a transport hands back (an upcall's argument). */
static inline struct ptl_ni *ptl_ni_of(struct nal_ni *base)
{
    _Static_assert(offsetof(struct ptl_ni, base) == 0, "struct ptl_ni begins with its nal_ni");
    return (struct ptl_ni *)(void *)base;
}

/* Handle encoding: generation in the high half, index + 1 in the low half. */
static inline uint32_t ptl_handle_make(uint16_t gen, unsigned index)
{
    return ((uint32_t)gen << 16) | (uint32_t)(index + 1);
}
static inline unsigned ptl_handle_index(uint32_t handle) { return (handle & 0xffffu) - 1; }
static inline uint16_t ptl_handle_gen(uint32_t handle) { return (uint16_t)(handle >> 16); }

/* MD handles: a 48-bit generation above index + 1 in the low 16 bits. */
#define PTL_MD_GEN_MASK ((UINT64_C(1) << 48) - 1)
static inline ptl_handle_md_t ptl_md_handle_make(uint64_t gen, unsigned index)
{
    return (gen & PTL_MD_GEN_MASK) << 16 | (uint64_t)(index + 1);
}
static inline unsigned ptl_md_handle_index(ptl_handle_md_t handle)
{
    return (unsigned)(handle & 0xffffu) - 1;
}
static inline uint64_t ptl_md_handle_gen(ptl_handle_md_t handle) { return handle >> 16; }

/* Lookups that check the handle; NULL if stale or unknown. */
struct ptl_md_local *ptl_md_lookup(struct ptl_ni *ni, ptl_handle_md_t handle);
struct ptl_eq_local *ptl_eq_lookup(struct ptl_ni *ni, ptl_handle_eq_t handle);

/* Owner side of an auto-unlink; the caller holds ni->lock. */
void ptl_md_detach_locked(struct ptl_ni *ni, struct ptl_md_local *md);
void ptl_md_release_locked(struct ptl_ni *ni, struct ptl_md_local *md);

/* Bytes a deposit of mlength at md_offset takes in a locally managed MD. */
static inline uint64_t ptl_deposit_span(uint64_t mlength, uint64_t md_offset, uint64_t md_length)
{
    uint64_t span = ((mlength ? mlength : 1) + 15) & ~(uint64_t)15;
    uint64_t room = md_length - md_offset;
    return span < room ? span : room;
}

/* Lays out an empty region header (used by ptl_ni_init on the nal's memory). */
int ptl_region_format(struct ptl_ni *ni, const struct ptl_ni_params *params);

#endif
