/*
 * The tcp transport's frame header (doc/wire-tcp.md): 56 bytes, every
 * integer little-endian, so a frame means the same on any pair of hosts.
 *
 *   0  magic "gpt1"   4  type   5  flags   6  reserved (0, 2 bytes)
 *   8  pt_index      12  op_id
 *  16  match_bits    24  offset   32  hdr_data   40  length   48  reserved (0, 8 bytes)
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
#include "nal/tcp.h"

#include <string.h>

_Static_assert(TCP_INFLIGHT_PER_PEER == 128, "the ACK_RUN check's message names the limit");

static void put_le32(uint8_t *out, uint32_t value)
{
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(value >> (8 * i));
}

static void put_le64(uint8_t *out, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(value >> (8 * i));
}

static uint32_t get_le32(const uint8_t *in)
{
    uint32_t value = 0;
    for (int i = 3; i >= 0; i--)
        value = (value << 8) | in[i];
    return value;
}

static uint64_t get_le64(const uint8_t *in)
{
    uint64_t value = 0;
    for (int i = 7; i >= 0; i--)
        value = (value << 8) | in[i];
    return value;
}

void tcp_frame_encode(const struct tcp_frame *frame, uint8_t out[TCP_FRAME_HDR_LEN])
{
    memset(out, 0, TCP_FRAME_HDR_LEN);
    put_le32(out, TCP_FRAME_MAGIC);
    out[4] = frame->type;
    out[5] = frame->flags;
    put_le32(out + 8, frame->pt_index);
    put_le32(out + 12, frame->op_id);
    put_le64(out + 16, frame->match_bits);
    put_le64(out + 24, frame->offset);
    put_le64(out + 32, frame->hdr_data);
    put_le64(out + 40, frame->length);
}

/* The flags each type may carry. */
static const uint8_t allowed_flags[TCP_FRAME_TYPE_END] = {
    [TCP_FRAME_PUT] = TCP_FLAG_ACK_REQ,
    [TCP_FRAME_ACK] = TCP_FLAG_EVENT,
    [TCP_FRAME_GET] = 0,
    [TCP_FRAME_REPLY] = TCP_FLAG_EVENT,
    [TCP_FRAME_ACK_RUN] = TCP_FLAG_EVENT,
};

static int all_zero(const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (bytes[i] != 0)
            return 0;
    return 1;
}

int tcp_frame_decode(const uint8_t in[TCP_FRAME_HDR_LEN], struct tcp_frame *frame,
                     const char **why)
{
    if (get_le32(in) != TCP_FRAME_MAGIC) {
        *why = "bad magic (not a gp tcp frame, or the stream lost its framing)";
        return -1;
    }
    uint8_t type = in[4], flags = in[5];
    if (type == 0 || type >= TCP_FRAME_TYPE_END) {
        *why = "unknown frame type";
        return -1;
    }
    if ((flags & ~allowed_flags[type]) != 0 || !all_zero(in + 6, 2) || !all_zero(in + 48, 8)) {
        *why = "flags or reserved bytes not allowed for this frame type";
        return -1;
    }
    frame->type = type;
    frame->flags = flags;
    frame->pt_index = get_le32(in + 8);
    frame->op_id = get_le32(in + 12);
    frame->match_bits = get_le64(in + 16);
    frame->offset = get_le64(in + 24);
    frame->hdr_data = get_le64(in + 32);
    frame->length = get_le64(in + 40);
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
