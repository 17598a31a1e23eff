/*
 * Oscillation: for every (lender, borrower) pair that ever moved credits,
 * the net direction of each measurement window (lent to the borrower, or
 * revoked from it).  A change of direction between two windows that moved
 * credits is a reversal; a pair with two reversals or more saw the same
 * credits go out, come back and go out again (or the reverse): it
 * oscillates.  An open-addressing hash table keyed by the pair.
 */
#include "sim.h"

#include <stdlib.h>

static uint64_t pair_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return key;
}

static struct sim_pair *lookup(struct sim_pair *slot, size_t cap, uint64_t key)
{
    size_t i = pair_hash(key) & (cap - 1);
    while (slot[i].key != 0 && slot[i].key != key)
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

static void grow(struct sim_pairs *pairs)
{
    size_t cap = pairs->cap ? pairs->cap * 2 : 1024;
    struct sim_pair *slot = calloc(cap, sizeof *slot);
    if (slot == NULL) {
        fprintf(stderr, "credit-sim: out of memory for %zu credit pairs\n", cap);
        exit(2);
    }
    for (size_t i = 0; i < pairs->cap; i++)
        if (pairs->slot[i].key != 0)
            *lookup(slot, cap, pairs->slot[i].key) = pairs->slot[i];
    free(pairs->slot);
    pairs->slot = slot;
    pairs->cap = cap;
}

/* The window the pair's net belongs to is over: note its direction. */
static void close_window(struct sim *sim, struct sim_pair *pair)
{
    int sign = pair->net > 0 ? 1 : pair->net < 0 ? -1 : 0;
    pair->net = 0;
    if (sign == 0)
        return;
    if (pair->last_sign != 0 && sign != pair->last_sign) {
        if (pair->reversals < UINT16_MAX)
            pair->reversals++;
        if (pair->reversals == 2)
            sim->pairs.oscillating++;
        sim->pairs.reversals++;
        if (pair->window >= (sim->nwin - 1) / 2)
            sim->pairs.late_reversals++;
        sim->win[pair->window].osc_pairs++;
    }
    pair->last_sign = (int8_t)sign;
}

void sim_pairs_move(struct sim *sim, uint32_t lender, uint32_t borrower, int32_t credits)
{
    struct sim_pairs *pairs = &sim->pairs;
    if ((pairs->used + 1) * 2 > pairs->cap)
        grow(pairs);
    uint64_t key = (((uint64_t)lender << 32) | borrower) + 1;
    struct sim_pair *pair = lookup(pairs->slot, pairs->cap, key);
    uint64_t window = (uint64_t)(sim_window_now(sim) - sim->win);
    if (pair->key == 0) {
        pair->key = key;
        pair->window = window;
        pairs->used++;
    } else if (pair->window != window) {
        close_window(sim, pair);
        pair->window = window;
    }
    pair->net += credits;
}

void sim_pairs_finish(struct sim *sim)
{
    for (size_t i = 0; i < sim->pairs.cap; i++)
        if (sim->pairs.slot[i].key != 0)
            close_window(sim, &sim->pairs.slot[i]);
}

void sim_pairs_free(struct sim_pairs *pairs)
{
    free(pairs->slot);
    pairs->slot = NULL;
    pairs->cap = pairs->used = 0;
}
