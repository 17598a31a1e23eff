/*
 * The Portals-conduit wire format of seed 000: the portal table entries, the
 * AM message header carried in hdr_data, the chunk and credit sizes, and the
 * handler indices the conduit keeps for itself.  What every node must agree
 * on, and nothing else.
 *
 * Portal table entries, one MD role each (all ignore their match bits, so
 * the match bits are free to carry protocol data, as the seed does):
 *
 *   PT_RAR      RAR: the segment; target of puts/gets; ACKs, no EQ
 *   PT_RARAM    RARAM: the segment; data of unpacked Long requests; AM_EQ
 *   PT_RARSAFE  the segment; data of unpacked Long replies; SAFE_EQ
 *               (also the source MD of Long payloads that lie in the segment)
 *   PT_REQRB    the ReqRB chain, CB last; AM request headers; AM_EQ
 *   PT_REQSB    ReqSB: request chunks, where replies land; SAFE_EQ
 *   PT_SYS      SYSMD: zero-length system messages (shutdown); SYS_EQ
 *   PT_MBOX     the AM rings' mailbox: a plain MD peers that map this region
 *               find with ptl_direct_address (am_ring.c); no events
 *
 * An AM message (request or reply) is a put whose hdr_data carries:
 *   bits  0-7  handler index
 *   bits  8-9  category (Short, Medium, Long)
 *   bits 10-14 argument count
 *   bit  15    unpacked Long: the payload travels as a second put, joined
 *              with the header through the LID in the match bits
 *   bits 16-23 the credit byte EXXXNNNN
 *   bits 24-47 the requester's ReqSB chunk index
 *   bit  48    no-op reply (only returns credits and frees the chunk); its
 *              body, if any, answers further requests of the same
 *              requester, one 32-bit word each: the ReqSB chunk index in
 *              bits 0-23, the credit byte in bits 24-31
 * and whose body (in the chunk) is: the arguments (4 bytes each, padded to
 * 16), for a Long the destination offset and length (16 bytes), then the
 * payload of a Medium or packed Long.
 */
#ifndef GP_CONDUIT_AM_WIRE_H
#define GP_CONDUIT_AM_WIRE_H

#include <gasnet.h>
#include <stdint.h>

#define GPC_CHUNK_BYTES 1024     /* doc/decisions.md: 4 credits carry a full Medium */
#define GPC_CREDIT_BYTES 256     /* one credit: 256 bytes of ReqRB and one AM_EQ event */
#define GPC_MIN_CREDITS 4u
#define GPC_MAX_ARGS 16
#define GPC_LONG_HEADER 16
#define GPC_MAX_MEDIUM 960       /* a chunk less the largest argument block */
#define GPC_MAX_LONG 0x7fffffffu

enum gpc_pt { PT_RAR, PT_RARAM, PT_RARSAFE, PT_REQRB, PT_REQSB, PT_SYS, PT_MBOX, PT_COUNT };
enum gpc_category { GPC_SHORT = 0, GPC_MEDIUM = 1, GPC_LONG = 2 };

/* hdr_data fields */
#define HDR_HANDLER(h) ((gasnet_handler_t)((h) & 0xff))
#define HDR_CATEGORY(h) ((unsigned)(((h) >> 8) & 0x3))
#define HDR_NARGS(h) ((unsigned)(((h) >> 10) & 0x1f))
#define HDR_UNPACKED(h) ((unsigned)(((h) >> 15) & 0x1))
#define HDR_CREDIT_BYTE(h) ((uint8_t)(((h) >> 16) & 0xff))
#define HDR_CHUNK(h) ((uint32_t)(((h) >> 24) & 0xffffff))
#define HDR_NOOP(h) ((unsigned)(((h) >> 48) & 0x1))
#define HDR_NOOP_BIT (1ull << 48)

static inline uint64_t gpc_hdr_make(gasnet_handler_t handler, unsigned category, unsigned nargs,
                                    unsigned unpacked, uint8_t credit_byte, uint32_t chunk)
{
    return (uint64_t)handler | ((uint64_t)category << 8) | ((uint64_t)nargs << 10) |
           ((uint64_t)unpacked << 15) | ((uint64_t)credit_byte << 16) |
           ((uint64_t)(chunk & 0xffffff) << 24);
}

static inline unsigned gpc_args_bytes(unsigned nargs)
{
    return (nargs * 4u + 15u) & ~15u;
}

/* Bytes of the message that travel in the chunk. */
static inline uint64_t gpc_body_bytes(unsigned category, unsigned nargs, int packed_payload,
                                      uint64_t nbytes)
{
    uint64_t bytes = gpc_args_bytes(nargs);
    if (category == GPC_LONG)
        bytes += GPC_LONG_HEADER;
    if (category == GPC_MEDIUM || packed_payload)
        bytes += nbytes;
    return bytes;
}

/* Handler indices the conduit keeps for itself (1..127 are GASNet's). */
enum gpc_internal_handler {
    GPC_H_MEMSET = 10,       /* memset on the target, then GPC_H_MEMSET_DONE */
    GPC_H_MEMSET_DONE = 11,
    GPC_H_BARRIER = 12,      /* one round of a team's dissemination barrier */
    GPC_H_COLL_DATA = 13,    /* a piece of a collective's message (coll.c) */
    GPC_H_VIS_PUT = 15,      /* VIS: packed put data to unpack (vis.c), then _PUT_DONE */
    GPC_H_VIS_PUT_DONE = 16,
    GPC_H_VIS_GET = 17,      /* VIS: pieces to pack and send back in _GET_DONE */
    GPC_H_VIS_GET_DONE = 18,
    GPC_H_ATOMIC = 19,       /* a remote atomic applied on the target (atomic.c), then _DONE */
    GPC_H_ATOMIC_DONE = 20,  /* with the old value */
    GPC_H_VIS_PEER = 21,     /* a VIS put's peer-completion notice (vis_peer.c) */
};

/*
 * A Long's destination travels as its offset in the target's segment.  A
 * zero-byte Long may name any address, in no segment at all (NULL, ~0), and
 * its handler still gets exactly that address: integer arithmetic, which
 * wraps, where pointer arithmetic outside an object would be undefined.
 */
static inline uint64_t gpc_long_offset(const void *dest_addr, const void *segment)
{
    return (uint64_t)((uintptr_t)dest_addr - (uintptr_t)segment);
}

static inline void *gpc_long_at(void *segment, uint64_t offset)
{
    return (void *)((uintptr_t)segment + (uintptr_t)offset);
}

#endif
