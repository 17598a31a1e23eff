/*
 * Operation records: a transport's operations awaiting an answer from the
 * peer (ACK, REPLY) or their own completions, one table per peer.
 *
 * The op id that travels on the wire in a request, and comes back in its
 * answer, is a record's index and generation.  Whatever comes back is the
 * peer's word, so a lookup checks the index against the table's depth and
 * the generation against the record's: an id out of range, or one naming a
 * record since released (and perhaps reused), is refused with a reason the
 * transport puts in its error.  Never trusted, never indexed blindly.
 *
 * The tables of one transport may share a budget: GASNET_NETWORKDEPTH_TOTAL,
 * seed 003's cap on a node's operations in flight across all its peers.  A
 * take fails when the peer's table is full (GASNET_NETWORKDEPTH_PP on ibv)
 * or the node's budget is spent; the transport then waits with progress,
 * saying so after 10 s (nal_inflight_wait_note).
 *
 * Records are the transport's own structs, each starting with a struct
 * nal_inflight_rec; the table only knows their size.  No locks: the
 * transport's lock guards its tables, as it guards the rest of its state.
 */
#ifndef GP_NAL_INFLIGHT_H
#define GP_NAL_INFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "nal/nal.h"
#include "util/slowwait.h"

/* The op id carries the index in its low 16 bits. */
#define NAL_INFLIGHT_MAX_DEPTH 0xffffu
#define NAL_INFLIGHT_FREE 0u

struct nal_inflight_rec {
    struct nal_op op;
    uint16_t gen;              /* bumped on every release: an old id is refused; never 0 */
    uint8_t kind;              /* the transport's kind; NAL_INFLIGHT_FREE when free */
    uint32_t next_free;        /* index + 1, 0 = none */
};

/* A node's operations in flight over all of a transport's tables. */
struct nal_inflight_budget {
    unsigned cap;              /* GASNET_NETWORKDEPTH_TOTAL; 0: no cap but the tables' */
    unsigned in_use;
    unsigned peak;             /* the most in flight at once: reported at close */
};

struct nal_inflight {
    unsigned char *records;
    size_t record_bytes;       /* each starts with a struct nal_inflight_rec */
    unsigned depth;
    unsigned used;
    unsigned free_head;        /* index + 1, 0 = none */
    struct nal_inflight_budget *budget;   /* NULL: none */
};

/* PTL_OK, PTL_NO_SPACE, or PTL_FAIL for a depth of 0 or past NAL_INFLIGHT_MAX_DEPTH. */
int nal_inflight_init(struct nal_inflight *table, unsigned depth, size_t record_bytes,
                      struct nal_inflight_budget *budget);
void nal_inflight_fini(struct nal_inflight *table);

static inline struct nal_inflight_rec *nal_inflight_at(const struct nal_inflight *table,
                                                       unsigned index)
{
    return (struct nal_inflight_rec *)(void *)(table->records + (size_t)index * table->record_bytes);
}

/* Whether a take would succeed now (a record free here, and the budget not spent). */
int nal_inflight_room(const struct nal_inflight *table);
/* A record for op, zeroed past its header, or NULL when there is no room (kind != FREE). */
struct nal_inflight_rec *nal_inflight_take(struct nal_inflight *table, unsigned kind,
                                           const struct nal_op *op);
void nal_inflight_release(struct nal_inflight *table, struct nal_inflight_rec *rec);
/* The id that names rec on the wire. */
uint32_t nal_inflight_id(const struct nal_inflight *table, const struct nal_inflight_rec *rec);

/*
 * The record an id from the wire names, if it is in flight and of this kind
 * (NAL_INFLIGHT_FREE: of any kind); else NULL and *why says what was wrong
 * with the id (out of range, stale, another kind of operation).
 */
struct nal_inflight_rec *nal_inflight_find(const struct nal_inflight *table, uint32_t id,
                                           unsigned kind, const char **why);
/* Whether the record this id named is still in flight (a waiter's test). */
int nal_inflight_live(const struct nal_inflight *table, uint32_t id);

/* One turn of a wait for room in table (to peer): the slow-wait line names both. */
void nal_inflight_wait_note(struct gp_slow_wait *wait, const char *subsys,
                            const struct nal_inflight *table, int peer);

#endif
