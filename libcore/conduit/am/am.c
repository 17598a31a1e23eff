/*
 * Active messages with the Portals-conduit protocol of seed 000 ("The
 * Implemention of GASNet Active Messages").
 *
 * A request, read top to bottom in gpc_am_request: take credits for the
 * target (1 per 256 bytes of body; Short 1, unpacked Long 2), send tickets
 * (2 for an unpacked Long with data), a ReqSB chunk, and a TMPMD ticket when
 * an unpacked payload lies outside the segment -- polling while any is
 * short; pack arguments, Long header and (Medium, packed Long) payload into
 * the chunk; put it into the target's ReqRB, and an unpacked payload into
 * its RARAM.
 *
 * The target takes the request from its AM_EQ holding the resources of a
 * reply (progress.c), runs the handler with a token, and sends a no-op reply
 * if the handler did not reply.  The reply lands in the requester's ReqSB
 * chunk: its handler runs there, its credit byte returns the credits, and
 * the chunk is freed.  Unpacked Longs are joined through the LID cache.
 * Messages to self take none of this: loopback.c runs them in the call.
 */
#include <string.h>

#include "conduit/am/am.h"
#include "conduit/am/am_ring.h"
#include "conduit/am/am_wire.h"
#include "conduit/am/chunks.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/am/lid.h"
#include "conduit/core/md_role.h"
#include "conduit/core/progress.h"
#include "conduit/am/reqrb.h"
#include "conduit/rma/rma_ops.h"
#include "conduit/attach/segment_range.h"
#include "conduit/core/state.h"
#include "ptl/ptl.h"
#include "util/counter.h"
#include "util/log.h"
#include "util/slowwait.h"

static unsigned credits_for(unsigned category, unsigned nargs, int packed, uint64_t nbytes)
{
    if (category == GPC_SHORT)
        return 1;
    if (category == GPC_LONG && !packed)
        return 2; /* the header, and the data's PUT_END on the target's AM_EQ */
    uint64_t body = gpc_body_bytes(category, nargs, packed, nbytes);
    unsigned credits = (unsigned)((body + GPC_CREDIT_BYTES - 1) / GPC_CREDIT_BYTES);
    return credits ? credits : 1;
}

static int is_packed(unsigned category, unsigned nargs, uint64_t nbytes)
{
    return category == GPC_LONG && gpc.packed_long_enabled && nbytes <= gpc.packed_long_limit &&
           gpc_body_bytes(GPC_LONG, nargs, 1, nbytes) <= GPC_CHUNK_BYTES;
}

/* Credits for the target; polls while short (seed 000: the sender stalls, and
 * its next request asks the target for the credits it was short).  The
 * credits come back with the target's replies: a target that does not poll
 * holds them, and a long wait says so. */
static uint8_t take_credits(gasnet_node_t dest, unsigned ncredit)
{
    struct credit_wait wait = { 0, 0 };
    struct gp_slow_wait slow = GP_SLOW_WAIT_INIT;
    uint8_t byte;
    while (!credit_take(&gpc.credit_node, dest, ncredit, &wait, &byte)) {
        gpc_wait_turn();
        gp_slow_wait_check(&slow, "am", "%u credit(s) to send to node %u (node %u has not "
                           "answered the requests holding them: is it polling?)", ncredit, dest,
                           dest);
    }
    return byte;
}

/* Packs the body of a message into a chunk; returns its length. */
static uint64_t pack_body(char *chunk, unsigned category, int packed, const void *source,
                          uint64_t nbytes, uint64_t dest_offset, int nargs,
                          const gasnet_handlerarg_t *args)
{
    char *at = chunk;
    memcpy(at, args, (size_t)nargs * sizeof *args);
    at += gpc_args_bytes((unsigned)nargs);
    if (category == GPC_LONG) {
        uint64_t long_header[2] = { dest_offset, nbytes };
        memcpy(at, long_header, sizeof long_header);
        at += GPC_LONG_HEADER;
    }
    if ((category == GPC_MEDIUM || packed) && nbytes > 0) {
        memcpy(at, source, nbytes);
        at += nbytes;
    }
    return (uint64_t)(at - chunk);
}

/*
 * Which half of an unpacked Long goes first.  On a network either may
 * arrive first; on shm arrival follows sending order, so alternating by LID
 * keeps both paths through the LID cache in use on every run.
 */
static int header_first(uint64_t lid)
{
    return (int)(lid & 1);
}

static int outside_segment(const char *source, uint64_t nbytes)
{
    return !gpc_segment_holds(gpc.segment, gpc.segsize, source, nbytes);
}

/*
 * Sends the data of an unpacked Long to the target's segment at
 * dest_offset: straight from the segment MD when the source is in the
 * segment, else through a temporary MD (TMPMD) whose ticket the caller holds.
 */
static void send_long_data(gasnet_node_t dest, unsigned pt, const void *source, uint64_t nbytes,
                           uint64_t dest_offset, uint64_t lid, uint64_t hdr)
{
    const char *src = source;
    int rc;
    if (!outside_segment(src, nbytes)) {
        rc = ptl_put_region(gpc.ni, gpc.rarsafe_md, (uint64_t)(src - gpc.segment), nbytes,
                            PTL_NOACK_REQ, dest, pt, lid, dest_offset, hdr);
    } else {
        struct ptl_md_desc desc = { .start = (void *)src, .length = nbytes, .threshold = 1,
                                    .options = 0, .eq = gpc.safe_eq,
                                    .user_ptr = gpc_md_tag_role(ROLE_TMPMD) };
        ptl_handle_md_t tmpmd;
        rc = ptl_md_bind(gpc.ni, &desc, &tmpmd);
        if (rc == PTL_OK)
            rc = ptl_put(gpc.ni, tmpmd, PTL_NOACK_REQ, dest, pt, lid, dest_offset, hdr);
    }
    if (rc != PTL_OK)
        gp_fatal("AM Long data to node %u failed: %s", dest, ptl_strerror(rc));
}

int gpc_am_request(gasnet_node_t dest, unsigned category, gasnet_handler_t handler,
                   void *source, size_t nbytes, void *dest_addr, int nargs,
                   const gasnet_handlerarg_t *args)
{
    if (dest == gpc.rank) /* run here and now, as GASNet does (loopback.c) */
        return gpc_am_loopback_request(category, handler, source, nbytes, dest_addr, nargs, args);
    if (gpc_ring_request(dest, category, handler, source, nbytes, dest_addr, nargs, args))
        return GASNET_OK;
    int packed = is_packed(category, (unsigned)nargs, nbytes);
    int data_put = category == GPC_LONG && !packed && nbytes > 0;
    unsigned ncredit = credits_for(category, (unsigned)nargs, packed, nbytes);
    int need_tmpmd = data_put && outside_segment(source, nbytes);
    uint64_t dest_offset = category == GPC_LONG ?
        gpc_long_offset(dest_addr, gpc.seginfo[dest].addr) : 0;

    uint8_t credit = take_credits(dest, ncredit);
    gpc_take_tickets(dest, data_put ? 2 : 1, need_tmpmd);
    uint32_t chunk = gpc_chunk_wait(&gpc.reqsb_chunks, "ReqSB", dest);

    char *body = gpc_chunk_addr(&gpc.reqsb_chunks, chunk);
    uint64_t body_bytes = pack_body(body, category, packed, source, nbytes, dest_offset, nargs, args);
    uint64_t lid = data_put ? (uint64_t)(uint32_t)gp_count_fetch_add(&gpc.next_lid, 1) : 0;
    uint64_t hdr = gpc_hdr_make(handler, category, (unsigned)nargs, (unsigned)data_put,
                                credit, chunk);
    if (data_put && !header_first(lid))
        send_long_data(dest, PT_RARAM, source, nbytes, dest_offset, lid, hdr);
    int rc = ptl_put_region(gpc.ni, gpc.reqsb_md, (uint64_t)chunk * GPC_CHUNK_BYTES, body_bytes,
                            PTL_NOACK_REQ, dest, PT_REQRB, lid, 0, hdr);
    if (rc != PTL_OK)
        gp_fatal("AM request to node %u failed: %s", dest, ptl_strerror(rc));
    if (data_put && header_first(lid))
        send_long_data(dest, PT_RARAM, source, nbytes, dest_offset, lid, hdr);
    return GASNET_OK;
}

int gpc_am_reply(struct gpc_token *token, unsigned category, gasnet_handler_t handler,
                 void *source, size_t nbytes, void *dest_addr, int nargs,
                 const gasnet_handlerarg_t *args)
{
    if (token->loopback)
        return gpc_am_loopback_reply(token, category, handler, source, nbytes, dest_addr, nargs,
                                     args);
    if (token->via_ring)
        return gpc_ring_reply(token, category, handler, source, nbytes, dest_addr, nargs, args);
    struct gpc_am_reserve *reserve = token->reserve;
    gasnet_node_t dest = token->source;
    int packed = is_packed(category, (unsigned)nargs, nbytes);
    int data_put = category == GPC_LONG && !packed && nbytes > 0;
    uint64_t dest_offset = category == GPC_LONG ?
        gpc_long_offset(dest_addr, gpc.seginfo[dest].addr) : 0;
    /* The resources were taken before the request was polled: nothing blocks here. */
    uint32_t chunk = (uint32_t)reserve->rplsb_chunk;
    reserve->rplsb_chunk = -1;
    reserve->send_tickets -= data_put ? 2 : 1;
    if (data_put && outside_segment(source, nbytes))
        reserve->tmpmd_tickets--;
    token->replied = 1;

    char *body = gpc_chunk_addr(&gpc.rplsb_chunks, chunk);
    uint64_t body_bytes = pack_body(body, category, packed, source, nbytes, dest_offset, nargs, args);
    uint64_t lid = data_put ? (uint64_t)(uint32_t)gp_count_fetch_add(&gpc.next_lid, 1) : 0;
    uint64_t hdr = gpc_hdr_make(handler, category, (unsigned)nargs, (unsigned)data_put,
                                token->credit_byte, token->reqsb_chunk);
    if (data_put && !header_first(lid))
        send_long_data(dest, PT_RARSAFE, source, nbytes, dest_offset, lid, hdr);
    int rc = ptl_put_region(gpc.ni, gpc.rplsb_md, (uint64_t)chunk * GPC_CHUNK_BYTES, body_bytes,
                            PTL_NOACK_REQ, dest, PT_REQSB,
                            lid, (uint64_t)token->reqsb_chunk * GPC_CHUNK_BYTES, hdr);
    if (rc != PTL_OK)
        gp_fatal("AM reply to node %u failed: %s", dest, ptl_strerror(rc));
    if (data_put && header_first(lid))
        send_long_data(dest, PT_RARSAFE, source, nbytes, dest_offset, lid, hdr);
    return GASNET_OK;
}

/*
 * The replies request handlers did not send (no-op replies: they return the
 * request's credits and free its ReqSB chunk) are gathered per requester
 * while one poll takes AM events, and leave as one message per requester
 * when it ends (gpc_am_noop_flush): the first request's chunk and credit
 * byte in the header, as a lone no-op reply carries them, the others in
 * the body, one word each.  A one-way flood then costs the target one
 * reply message per poll instead of one per request, and the requester one
 * SAFE event; a lone request's credits still come back at the end of the
 * poll that took it.  The batch is built in the RplSB chunk of its first
 * request's reserve, which the batch keeps with one send ticket (what a
 * lone no-op reply took); the later requests' reserves go back unused.
 * Per thread: the batches of one poll, which ends them.
 */
#define NOOP_BATCH_PEERS 4
#define NOOP_BATCH_MAX (1 + GPC_CHUNK_BYTES / sizeof(uint32_t))

struct noop_batch {
    gasnet_node_t source;
    uint32_t rplsb_chunk;    /* where the body is built (the reply's source) */
    uint32_t reqsb_chunk;    /* the first request's: where the reply lands */
    uint8_t credit_byte;     /* the first request's */
    uint32_t count;          /* requests answered, the first included */
};
static _Thread_local struct noop_batch noop_batches[NOOP_BATCH_PEERS];
static _Thread_local unsigned noop_open;

static void noop_send(const struct noop_batch *batch)
{
    uint64_t hdr = gpc_hdr_make(0, GPC_SHORT, 0, 0, batch->credit_byte, batch->reqsb_chunk) |
                   HDR_NOOP_BIT;
    /* Deferrable: it only returns resources, and over tcp it then leaves with
     * this process's next message (a request-request ping-pong's next request). */
    int rc = ptl_put_region(gpc.ni, gpc.rplsb_md, (uint64_t)batch->rplsb_chunk * GPC_CHUNK_BYTES,
                            (uint64_t)(batch->count - 1) * sizeof(uint32_t), PTL_NOACK_DEFER,
                            batch->source, PT_REQSB, 0,
                            (uint64_t)batch->reqsb_chunk * GPC_CHUNK_BYTES, hdr);
    if (rc != PTL_OK)
        gp_fatal("AM reply to node %u failed: %s", batch->source, ptl_strerror(rc));
}

void gpc_am_noop_flush(void)
{
    for (unsigned i = 0; i < noop_open; i++)
        noop_send(&noop_batches[i]);
    noop_open = 0;
}

static void send_noop_reply(struct gpc_token *token)
{
    struct noop_batch *batch = NULL;
    for (unsigned i = 0; i < noop_open; i++)
        if (noop_batches[i].source == token->source)
            batch = &noop_batches[i];
    if (batch != NULL) {
        uint32_t *body = (uint32_t *)gpc_chunk_addr(&gpc.rplsb_chunks, batch->rplsb_chunk);
        body[batch->count - 1] = (token->reqsb_chunk & 0xffffffu) |
                                 ((uint32_t)token->credit_byte << 24);
        if (++batch->count == NOOP_BATCH_MAX) {
            noop_send(batch);
            *batch = noop_batches[--noop_open];
        }
        return; /* this request's reserve goes back unused */
    }
    if (noop_open == NOOP_BATCH_PEERS) { /* the oldest leaves now */
        noop_send(&noop_batches[0]);
        noop_batches[0] = noop_batches[--noop_open];
    }
    struct gpc_am_reserve *reserve = token->reserve;
    batch = &noop_batches[noop_open++];
    *batch = (struct noop_batch){ .source = token->source,
                                  .rplsb_chunk = (uint32_t)reserve->rplsb_chunk,
                                  .reqsb_chunk = token->reqsb_chunk,
                                  .credit_byte = token->credit_byte, .count = 1 };
    reserve->rplsb_chunk = -1;
    reserve->send_tickets--;
}

/* The fields of a message body, as the handler will see them. */
struct am_message {
    gasnet_handler_t handler;
    unsigned category;
    unsigned nargs;
    uint8_t credit_byte;
    uint32_t chunk;
    gasnet_handlerarg_t args[GPC_MAX_ARGS];
    void *buf;
    uint64_t nbytes;
    uint64_t dest_offset;
};

/* Unpacks hdr_data and body; copies a packed Long's payload into the segment. */
static void unpack_message(const struct ptl_event *event, const char *body, struct am_message *msg)
{
    uint64_t hdr = event->hdr_data;
    msg->handler = HDR_HANDLER(hdr);
    msg->category = HDR_CATEGORY(hdr);
    msg->nargs = HDR_NARGS(hdr);
    msg->credit_byte = HDR_CREDIT_BYTE(hdr);
    msg->chunk = HDR_CHUNK(hdr);
    memcpy(msg->args, body, msg->nargs * sizeof msg->args[0]);
    const char *at = body + gpc_args_bytes(msg->nargs);
    msg->buf = NULL;
    msg->nbytes = 0;
    msg->dest_offset = 0;
    if (msg->category == GPC_MEDIUM) {
        msg->buf = (void *)at;
        msg->nbytes = event->mlength - gpc_args_bytes(msg->nargs);
    } else if (msg->category == GPC_LONG) {
        uint64_t long_header[2];
        memcpy(long_header, at, sizeof long_header);
        msg->dest_offset = long_header[0];
        msg->nbytes = long_header[1];
        msg->buf = gpc_long_at(gpc.segment, msg->dest_offset);
        if (!HDR_UNPACKED(hdr) && msg->nbytes > 0)
            memcpy(msg->buf, at + GPC_LONG_HEADER, msg->nbytes);
    }
}

static void lid_header_from(const struct am_message *msg, struct gpc_lid_entry *header)
{
    memset(header, 0, sizeof *header);
    header->handler = msg->handler;
    header->nargs = (uint8_t)msg->nargs;
    header->credit_byte = msg->credit_byte;
    header->chunk = msg->chunk;
    header->dest_offset = msg->dest_offset;
    header->nbytes = msg->nbytes;
    memcpy(header->args, msg->args, sizeof header->args);
}

static void run_request(gasnet_node_t source, const struct am_message *msg,
                        struct gpc_am_reserve *reserve)
{
    struct gpc_token token = { .source = source, .is_request = 1, .reqsb_chunk = msg->chunk,
                               .reserve = reserve };
    /* The reply carries back the credits used, any granted, and our epoch bit. */
    token.credit_byte = credit_request_arrived(&gpc.credit_node, source, msg->credit_byte);
    gpc_run_handler(&token, msg->handler, msg->category, msg->buf, msg->nbytes, msg->nargs,
                    msg->args);
    if (!token.replied)
        send_noop_reply(&token);
}

static void run_joined_request(struct gpc_lid_entry *entry, struct gpc_am_reserve *reserve)
{
    struct am_message msg = { .handler = entry->handler, .category = GPC_LONG,
                              .nargs = entry->nargs, .credit_byte = entry->credit_byte,
                              .chunk = entry->chunk, .nbytes = entry->nbytes,
                              .dest_offset = entry->dest_offset };
    memcpy(msg.args, entry->args, sizeof msg.args);
    msg.buf = gpc_long_at(gpc.segment, entry->dest_offset);
    gasnet_node_t source = entry->source;
    gpc_lid_release(&gpc.request_lids, entry);
    run_request(source, &msg, reserve);
    /* both halves' events are taken and the header's space released already */
    credit_request_released(&gpc.credit_node, source, msg.credit_byte);
}

_Noreturn static void catch_basin_hit(const struct ptl_event *event)
{
    gp_count_add(&gpc.catch_basin_hits, 1);
    gp_fatal("an AM request of %llu bytes from node %u overflowed this node's ReqRB space "
             "(%llu bytes in %u buffers) into the catch basin (hint: keep "
             "GASNET_PORTAL_FLOW_CONTROL on, or raise GASNET_PORTAL_AMRECV_SPACE)",
             (unsigned long long)event->rlength, event->initiator,
             (unsigned long long)gpc.reqrb.space_bytes, gpc.reqrb.buffers);
}

void gpc_am_event(const struct ptl_event *event, struct gpc_am_reserve *reserve)
{
    enum gpc_md_role role = gpc_md_role_of(event);
    if (role == ROLE_CB)
        catch_basin_hit(event);
    if (role == ROLE_RARAM) { /* the data half of an unpacked Long request */
        struct gpc_lid_entry *entry =
            gpc_lid_arrive(&gpc.request_lids, event->initiator, (uint32_t)event->match_bits, NULL);
        if (entry != NULL)
            run_joined_request(entry, reserve);
        return;
    }
    if (event->type == PTL_EVENT_UNLINK) {
        gpc_reqrb_unlinked(event);
        return;
    }
    struct am_message msg;
    unpack_message(event, (const char *)event->md_start + event->offset, &msg);
    if (!HDR_UNPACKED(event->hdr_data)) {
        run_request(event->initiator, &msg, reserve);
        gpc_reqrb_processed(event); /* only now may the buffer be reused */
        /* and only now may credits it was admitted with be granted again */
        credit_request_released(&gpc.credit_node, event->initiator, msg.credit_byte);
        return;
    }
    struct gpc_lid_entry header;
    lid_header_from(&msg, &header);
    gpc_reqrb_processed(event); /* the header lives on in the LID cache */
    struct gpc_lid_entry *entry =
        gpc_lid_arrive(&gpc.request_lids, event->initiator, (uint32_t)event->match_bits, &header);
    if (entry != NULL)
        run_joined_request(entry, reserve);
}

static void run_reply(gasnet_node_t source, const struct am_message *msg)
{
    struct gpc_token token = { .source = source, .is_request = 0 };
    gpc_run_handler(&token, msg->handler, msg->category, msg->buf, msg->nbytes, msg->nargs,
                    msg->args);
}

static void run_joined_reply(struct gpc_lid_entry *entry)
{
    struct am_message msg = { .handler = entry->handler, .category = GPC_LONG,
                              .nargs = entry->nargs, .nbytes = entry->nbytes };
    memcpy(msg.args, entry->args, sizeof msg.args);
    msg.buf = gpc_long_at(gpc.segment, entry->dest_offset);
    gasnet_node_t source = entry->source;
    gpc_lid_release(&gpc.reply_lids, entry);
    run_reply(source, &msg);
}

/* A reply landed in one of our ReqSB chunks. */
static void reply_arrived(const struct ptl_event *event)
{
    uint32_t chunk = (uint32_t)(event->offset / GPC_CHUNK_BYTES);
    uint64_t hdr = event->hdr_data;
    credit_reply_arrived(&gpc.credit_node, event->initiator, HDR_CREDIT_BYTE(hdr));
    if (HDR_NOOP(hdr)) {
        /* Further requests answered by the same no-op reply: a word each. */
        const uint32_t *more = (const uint32_t *)gpc_chunk_addr(&gpc.reqsb_chunks, chunk);
        uint64_t count = event->mlength / sizeof *more;
        for (uint64_t i = 0; i < count; i++) {
            uint32_t word = more[i];
            if ((word & 0xffffffu) >= gpc.reqsb_chunks.count)
                gp_fatal("node %u answered ReqSB chunk %u, beyond the %u this node has",
                         event->initiator, word & 0xffffffu, gpc.reqsb_chunks.count);
            credit_reply_arrived(&gpc.credit_node, event->initiator, (uint8_t)(word >> 24));
            gpc_chunk_put(&gpc.reqsb_chunks, word & 0xffffffu);
        }
        gpc_chunk_put(&gpc.reqsb_chunks, chunk); /* after the words: they lie in it */
        return;
    }
    struct am_message msg;
    unpack_message(event, gpc_chunk_addr(&gpc.reqsb_chunks, chunk), &msg);
    if (!HDR_UNPACKED(hdr)) {
        run_reply(event->initiator, &msg);
        gpc_chunk_put(&gpc.reqsb_chunks, chunk); /* after the handler: buf points into it */
        return;
    }
    struct gpc_lid_entry header;
    lid_header_from(&msg, &header);
    gpc_chunk_put(&gpc.reqsb_chunks, chunk);
    struct gpc_lid_entry *entry =
        gpc_lid_arrive(&gpc.reply_lids, event->initiator, (uint32_t)event->match_bits, &header);
    if (entry != NULL)
        run_joined_reply(entry);
}

/* A TMPMD's operation is over: unlink it, or its slot of the MD table leaks
 * (a bound MD is never unlinked for us, so failure is a bug, not a race). */
static void release_tmpmd(const struct ptl_event *event, const char *what)
{
    int rc = ptl_md_unlink(gpc.ni, event->md_handle);
    if (rc != PTL_OK)
        gp_fatal("cannot unlink the temporary MD of a finished %s: %s (its slot in the MD "
                 "table would be lost)", what, ptl_strerror(rc));
}

static void send_completed(const struct ptl_event *event, enum gpc_md_role role)
{
    switch (role) {
    case ROLE_RPLSB:
        gpc_chunk_put(&gpc.rplsb_chunks, (uint32_t)(event->offset / GPC_CHUNK_BYTES));
        gpc_give_tickets(1, 0);
        break;
    case ROLE_TMPMD:
        if (event->pt_index == PT_RAR) { /* an RMA put: the TMPMD goes with its ACK */
            gpc_give_tickets(1, 0);
            break;
        }
        release_tmpmd(event, "AM Long");
        gpc_give_tickets(1, 1);
        break;
    default: /* ReqSB (the chunk waits for its reply) and the segment */
        gpc_give_tickets(1, 0);
        break;
    }
}

void gpc_safe_event(const struct ptl_event *event)
{
    enum gpc_md_role role = gpc_md_role_of(event);
    switch (event->type) {
    case PTL_EVENT_SEND_END:
        send_completed(event, role);
        break;
    case PTL_EVENT_PUT_END:
        if (role == ROLE_REQSB) {
            reply_arrived(event);
        } else if (role == ROLE_RARSAFE) { /* the data half of an unpacked Long reply */
            struct gpc_lid_entry *entry = gpc_lid_arrive(&gpc.reply_lids, event->initiator,
                                                         (uint32_t)event->match_bits, NULL);
            if (entry != NULL)
                run_joined_reply(entry);
        }
        break;
    case PTL_EVENT_ACK:
    case PTL_EVENT_REPLY_END:
        gpc_rma_event(event);
        break;
    default:
        break;
    }
}
