/*
 * The layout of an NI's registered region, as every process sees it.
 *
 * On shm, peers map each other's region and run the target side of an
 * operation themselves: they read the target's match lists, reserve space in
 * its locally managed MDs, copy the data and push the event into its EQ ring.
 * So everything here is position independent (offsets from the region base,
 * never pointers into it) and every field a peer may read while the owner
 * writes it is accessed atomically:
 *
 *  - a portal table entry's list is published under a seqlock (version odd
 *    while the owner edits; a reader retries if the version moved);
 *  - an attached MD's mutable state (locally managed offset, operations left,
 *    generation, inactive bit) is one 64-bit word changed only by CAS, so a
 *    deposit is an atomic reservation and a recycled slot is never written
 *    through a stale match;
 *  - EQs are bounded multi-producer multi-consumer rings (ring.h).
 *
 * Nothing in this file is seen by the conduit.
 */
#ifndef GP_PTL_SHARED_H
#define GP_PTL_SHARED_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ptl/ptl.h"

#define PTL_REGION_MAGIC 0x32306c74702d7067ull /* "gp-ptl02" */

/* Relaxed access to plain fields that another process may read concurrently. */
#define SHARED_LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define SHARED_STORE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)

/* The attached MD's state word. */
#define MD_STATE_OFFSET_BITS 36
#define MD_STATE_OFFSET_MASK ((1ull << MD_STATE_OFFSET_BITS) - 1)
#define MD_STATE_OPS_SHIFT 36
#define MD_STATE_OPS_MASK 0xfffull
#define MD_STATE_OPS_INF 0xfffull
#define MD_STATE_GEN_SHIFT 48
#define MD_STATE_GEN_MASK 0x7fffull
#define MD_STATE_INACTIVE (1ull << 63)

static inline uint64_t md_state_offset(uint64_t state) { return state & MD_STATE_OFFSET_MASK; }
static inline uint64_t md_state_ops(uint64_t state) { return (state >> MD_STATE_OPS_SHIFT) & MD_STATE_OPS_MASK; }
static inline uint64_t md_state_gen(uint64_t state) { return (state >> MD_STATE_GEN_SHIFT) & MD_STATE_GEN_MASK; }
static inline uint64_t md_state_make(uint64_t gen, uint64_t ops, uint64_t offset)
{
    return ((gen & MD_STATE_GEN_MASK) << MD_STATE_GEN_SHIFT) |
           ((ops & MD_STATE_OPS_MASK) << MD_STATE_OPS_SHIFT) | (offset & MD_STATE_OFFSET_MASK);
}

/* One attached MD as peers see it. */
struct ptl_me_slot {
    uint64_t match_bits;
    uint64_t ignore_bits;
    uint64_t region_offset;   /* the MD's memory, from the region base */
    uint64_t length;
    uint64_t max_size;
    uint64_t md_start;        /* the owner's address of the MD, for its events */
    uint64_t user_ptr;
    uint32_t options;
    uint32_t eq_index;        /* owner's EQ slot + 1, 0 for none */
    uint64_t md_handle;
    uint32_t unlink_op;
    uint32_t last_gen;        /* owner only: the generation this slot last had */
    _Atomic uint64_t state;   /* 0 while the slot is free */
};

/* A portal table entry: the match list in order, as slot numbers. */
struct ptl_pte_shared {
    _Atomic uint32_t version;  /* seqlock */
    uint32_t count;
    /* followed by uint16_t order[max_me] and struct ptl_me_slot slot[max_me] */
};

struct ptl_region_header {
    uint64_t magic;
    uint32_t rank;
    uint32_t size;
    uint64_t region_bytes;
    uint32_t max_pt;
    uint32_t max_me;
    uint32_t max_eq;
    uint32_t reserved;
    uint64_t pt_table_offset;
    uint64_t pte_stride;
    uint64_t me_order_offset;  /* within a pte */
    uint64_t me_slot_offset;   /* within a pte */
    uint64_t eq_table_offset;  /* uint64_t[max_eq]: ring offsets, 0 = unused */
    uint64_t arena_offset;     /* first byte handed out by ptl_region_alloc */
    _Atomic uint64_t dropped;  /* messages that matched nothing */
    /* 1 while the owner dozes (doze.c); on a line of its own, which peers read after each
     * post and the owner writes only around a doze. */
    alignas(64) uint32_t doze;
};

static inline struct ptl_pte_shared *region_pte(void *base, unsigned index)
{
    struct ptl_region_header *hdr = base;
    return (struct ptl_pte_shared *)((char *)base + hdr->pt_table_offset + hdr->pte_stride * index);
}

static inline uint16_t *pte_order(const struct ptl_region_header *hdr, struct ptl_pte_shared *pte)
{
    return (uint16_t *)((char *)pte + hdr->me_order_offset);
}

static inline struct ptl_me_slot *pte_slot(const struct ptl_region_header *hdr,
                                           struct ptl_pte_shared *pte, unsigned slot)
{
    return (struct ptl_me_slot *)((char *)pte + hdr->me_slot_offset) + slot;
}

static inline uint64_t *region_eq_table(void *base)
{
    struct ptl_region_header *hdr = base;
    return (uint64_t *)((char *)base + hdr->eq_table_offset);
}

#endif
