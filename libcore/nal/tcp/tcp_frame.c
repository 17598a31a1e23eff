/*
 * The tcp transport's frame header (doc/wire-tcp.md): six 64-bit words,
 * 48 bytes, little-endian, so a frame means the same on any pair of hosts.
 *
 *   word 0  magic "gpt2" (bytes 0-3), type (4), flags (5), reserved 0 (6-7)
 *   word 1  pt_index (bytes 8-11), op_id (12-15)
 *   word 2  match_bits   word 3  offset   word 4  hdr_data   word 5  length
 *
 * Whole words because a small put is mostly header: on a little-endian
 * host encoding is six stores and decoding six loads (the byte-at-a-time
 * shifts of the 56-byte header it replaced showed in the put-rate profile),
 * and 8 fewer bytes cross the wire per frame.
 *
 * An ACK_RUN acknowledges `length` ACK_REQ puts at once, the oldest ones
 * awaiting an ACK on the connection, op_id naming the last: each was taken
 * whole at the offset it asked for, so the initiator rebuilds every ACK
 * event from its own record.  Its other fields must be zero.
 *
 * Decoding checks everything that can be checked without the NI: the magic
 * (a stream that lost its framing is caught at the next header), the type,
 * the flags a type may carry and the reserved bytes.  Offsets and lengths
 * are checked against the MD by ptl_target_match, and op ids against the
 * in-flight table, by the callers.
 */
#include "nal/tcp/tcp.h"

#include <string.h>

_Static_assert(TCP_INFLIGHT_PER_PEER == 128, "the ACK_RUN check's message names the limit");
_Static_assert(TCP_FRAME_HDR_LEN == 6 * sizeof(uint64_t), "the header is six words");

static uint64_t word_le(uint64_t value)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(value);
#else
    return value;
#endif
}

void tcp_frame_encode(const struct tcp_frame *frame, uint8_t out[TCP_FRAME_HDR_LEN])
{
    uint64_t word[6] = {
        word_le(TCP_FRAME_MAGIC | (uint64_t)frame->type << 32 | (uint64_t)frame->flags << 40),
        word_le(frame->pt_index | (uint64_t)frame->op_id << 32),
        word_le(frame->match_bits),
        word_le(frame->offset),
        word_le(frame->hdr_data),
        word_le(frame->length),
    };
    memcpy(out, word, sizeof word);
}

/* The flags each type may carry. */
static const uint8_t allowed_flags[TCP_FRAME_TYPE_END] = {
    [TCP_FRAME_PUT] = TCP_FLAG_ACK_REQ,
    [TCP_FRAME_ACK] = TCP_FLAG_EVENT,
    [TCP_FRAME_GET] = 0,
    [TCP_FRAME_REPLY] = TCP_FLAG_EVENT,
    [TCP_FRAME_ACK_RUN] = TCP_FLAG_EVENT,
};

int tcp_frame_decode(const uint8_t in[TCP_FRAME_HDR_LEN], struct tcp_frame *frame,
                     const char **why)
{
    uint64_t word[6];
    memcpy(word, in, sizeof word);
    uint64_t head = word_le(word[0]);
    if ((uint32_t)head != TCP_FRAME_MAGIC) {
        *why = "bad magic (not a gp tcp frame of this version, or the stream lost its framing)";
        return -1;
    }
    uint8_t type = (uint8_t)(head >> 32), flags = (uint8_t)(head >> 40);
    if (type == 0 || type >= TCP_FRAME_TYPE_END) {
        *why = "unknown frame type";
        return -1;
    }
    if ((flags & ~allowed_flags[type]) != 0 || (head >> 48) != 0) {
        *why = "flags or reserved bytes not allowed for this frame type";
        return -1;
    }
    uint64_t ids = word_le(word[1]);
    frame->type = type;
    frame->flags = flags;
    frame->pt_index = (uint32_t)ids;
    frame->op_id = (uint32_t)(ids >> 32);
    frame->match_bits = word_le(word[2]);
    frame->offset = word_le(word[3]);
    frame->hdr_data = word_le(word[4]);
    frame->length = word_le(word[5]);
    if ((type == TCP_FRAME_REPLY && !(flags & TCP_FLAG_EVENT) && frame->length != 0)) {
        *why = "a REPLY without data carries data";
        return -1;
    }
    if (type == TCP_FRAME_ACK_RUN &&
        (frame->length < 2 || frame->length > TCP_INFLIGHT_PER_PEER || frame->pt_index != 0 ||
         frame->match_bits != 0 || frame->offset != 0 || frame->hdr_data != 0)) {
        *why = "an ACK_RUN must count 2 to 128 ACKs and carry nothing else";
        return -1;
    }
    return 0;
}

const char *tcp_frame_type_str(unsigned type)
{
    switch (type) {
    case TCP_FRAME_PUT: return "PUT";
    case TCP_FRAME_ACK: return "ACK";
    case TCP_FRAME_GET: return "GET";
    case TCP_FRAME_REPLY: return "REPLY";
    case TCP_FRAME_ACK_RUN: return "ACK_RUN";
    default: return "unknown";
    }
}
