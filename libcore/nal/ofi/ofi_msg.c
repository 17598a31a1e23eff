/*
 * Messages over fi_send / fi_recv (doc/wire-ofi.md): requests (PUT,
 * PUT_RNDV, GET), answers (ACK, REPLY) and CREDIT, each one header and, for
 * a small put or a small get's reply, its data, in one 8 KiB buffer.
 *
 * Credit flow: a process may have credits_pp requests to a peer that the
 * peer has not said it handled; every message carries back the count of
 * the receiver's requests handled here since the last one said so, and a
 * CREDIT message carries it when half the grant is owed and nothing else
 * went that way.  The receive buffers each process posts cover it all: per
 * peer credits_pp requests, depth_pp answers (one per operation record,
 * which is what an answer needs) and the two CREDIT messages that can be
 * in flight at once.  A buffer is re-posted as soon as its message is
 * handled, whatever the message was (the conduit's recycling rule for
 * ReqRB / RplSB is on top of this, in ptl's MDs).
 *
 * Large puts go by rendezvous: the target reads the source (PUT_RNDV names
 * its RMA address and key), and the put returns at the ACK, since the
 * conduit reuses the source once a put returns.  Large gets name the
 * destination; the target writes it and then replies.
 *
 * Those steps are nal/msg/'s (msg_request.c, msg_received.c), and so are the
 * credits' counts and the CREDIT messages of the peers owed (msg_credit.c),
 * run over the primitives here (ofi_msg_nic); what stays here is ofi's: the
 * header's layout, the tx buffers and posts, a request's wait for a credit
 * and the receive buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "nal/ofi/ofi.h"
#include "nal/ofi/ofi_config.h"
#include "util/log.h"
#include "util/slowwait.h"

/* ---- sending ----------------------------------------------------------------------------- */

struct send_args {
    int tx;
    size_t len;
    struct ofi_ctx *ctx;
    fi_addr_t dest;
};

static ssize_t post_send(struct ofi_state *st, void *arg)
{
    struct send_args *a = arg;
    return fi_send(st->ep, ofi_buf_addr(st, ofi_tx_index(st, a->tx)), a->len, st->buf_desc,
                   a->dest, a->ctx);
}

/* Any message: the credits owed to the peer go with it. */
static int send_msg(struct ofi_state *st, int rank, struct ofi_msg_hdr *hdr, const void *data,
                    uint64_t len)
{
    struct ofi_peer *peer = &st->peers[rank];
    if (peer->failed || st->fatal.pending)
        return PTL_FAIL;
    int tx = ofi_tx_take(st);
    if (tx < 0)
        return PTL_FAIL;
    struct ofi_ctx *ctx = ofi_ctx_take(st);
    if (ctx == NULL) { /* as many contexts as buffers plus parts: only a bug gets here */
        ofi_tx_put(st, tx);
        msg_fail(&st->proto, rank, "aborting: no send context left for a message to node %d", rank);
        return PTL_FAIL;
    }
    ctx->kind = OFI_CTX_SEND;
    ctx->peer = rank;
    ctx->buf = tx;
    hdr->src = (uint32_t)st->ni->rank;
    hdr->credits = msg_credits_told(&peer->credits);
    uint8_t *buf = ofi_buf_addr(st, ofi_tx_index(st, tx));
    memcpy(buf, hdr, sizeof *hdr);
    if (len > 0)
        memcpy(buf + sizeof *hdr, data, len);
    struct send_args args = { tx, sizeof *hdr + len, ctx, peer->addr };
    if (ofi_post_retry(st, rank, "message", post_send, &args) != PTL_OK) {
        ofi_tx_put(st, tx);
        ofi_ctx_put(st, ctx);
        return PTL_FAIL;
    }
    st->messages_sent++;
    return PTL_OK;
}

/* A request: waits (with progress) for a credit first. */
static int send_request(struct ofi_state *st, int rank, struct ofi_msg_hdr *hdr, const void *data,
                        uint64_t len)
{
    struct ofi_peer *peer = &st->peers[rank];
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    if (peer->credits.send == 0)
        st->credit_waits++;
    while (peer->credits.send == 0) {
        if (peer->failed || st->fatal.pending)
            return PTL_FAIL;
        ofi_progress_locked(st);
        ofi_wait_yield(st);
        gp_slow_wait_check(&wait, "ofi", "a credit of node %d (all %d are spent: it has not "
                           "handled this process's requests yet)", rank, st->credits_pp);
    }
    peer->credits.send--;
    int rc = send_msg(st, rank, hdr, data, len);
    if (rc != PTL_OK)
        peer->credits.send++;
    return rc;
}

/* The RMA address and key a peer uses for [addr, addr+len) of this process (access FI_REMOTE_*). */
static int remote_key(struct ofi_state *st, struct ofi_inflight *rec, void *addr, uint64_t len,
                      uint64_t access, uint64_t *rma_addr, uint64_t *key)
{
    int in_region;
    ofi_region_desc(st, addr, len, &in_region);
    if (in_region) {
        *rma_addr = ofi_rma_addr(st, addr, st->ni->region);
        *key = st->region_key;
        return PTL_OK;
    }
    void *base;
    struct fid_mr *mr = ofi_mr_pin(st, rec, addr, len, access, &base);
    if (mr == NULL)
        return PTL_FAIL;
    *rma_addr = ofi_rma_addr(st, addr, base);
    *key = fi_mr_key(mr);
    return PTL_OK;
}

int ofi_msg_put(struct ofi_state *st, const struct nal_op *op)
{
    return msg_put(&st->proto, op);
}

int ofi_msg_get(struct ofi_state *st, const struct nal_op *op)
{
    return msg_get(&st->proto, op);
}

/* ---- the target side ------------------------------------------------------------------------ */

/* Listed for a CREDIT message at the pass's end once half the grant is owed. */
static void owe_credit(struct ofi_state *st, int rank)
{
    struct ofi_peer *peer = &st->peers[rank];
    if (msg_credit_owe(&peer->credits, st->credits_pp))
        msg_owing_add(&st->owing, &peer->credits, rank);
}

struct rma_args {
    int is_read;
    void *local;
    size_t len;
    fi_addr_t peer;
    uint64_t addr, key;
    struct ofi_ctx *ctx;
};

static ssize_t post_region_rma(struct ofi_state *st, void *arg)
{
    struct rma_args *a = arg;
    if (a->is_read)
        return fi_read(st->ep, a->local, a->len, st->region_desc, a->peer, a->addr, a->key, a->ctx);
    return fi_write(st->ep, a->local, a->len, st->region_desc, a->peer, a->addr, a->key, a->ctx);
}

/*
 * Moves a served op's bytes between the region and the initiator's buffer, in parts of
 * at most max_msg; served is answered when the last part completes.
 */
static void region_transfer(struct ofi_state *st, int rank, struct ofi_served *served,
                            uint64_t remote_addr, uint64_t key)
{
    char *local = (char *)st->ni->region + served->req.match.data_offset;
    uint64_t left = served->req.match.mlength, done = 0;
    served->parts_left = 1; /* the posting's own count: parts may complete meanwhile */
    while (left > 0) {
        uint64_t chunk = left < st->max_msg ? left : st->max_msg;
        struct ofi_ctx *ctx = ofi_ctx_take(st);
        if (ctx == NULL) {
            msg_fail(&st->proto, rank, "aborting: no context left for an RMA part to node %d", rank);
            served->failed = 1;
            break;
        }
        ctx->kind = served->is_read ? OFI_CTX_RNDV_READ : OFI_CTX_GET_WRITE;
        ctx->peer = rank;
        ctx->served = served;
        struct rma_args args = { served->is_read, local + done, chunk, st->peers[rank].addr,
                                 remote_addr + done, ofi_fault_key(st, key), ctx };
        served->parts_left++;
        if (ofi_post_retry(st, rank, served->is_read ? "rendezvous read" : "get's write",
                           post_region_rma, &args) != PTL_OK) {
            served->parts_left--;
            served->failed = 1;
            ofi_ctx_put(st, ctx);
            break;
        }
        left -= chunk;
        done += chunk;
    }
    if (--served->parts_left == 0)
        ofi_msg_served(st, served);
}

void ofi_msg_served(struct ofi_state *st, struct ofi_served *s)
{
    if (!s->failed && !st->peers[s->peer].failed)
        msg_served_done(&st->proto, s->peer, &s->req, s->is_read, 0);
    free(s);
}

static struct ofi_served *served_new(struct ofi_state *st, int rank, const struct msg_served *req,
                                     int is_read)
{
    struct ofi_served *s = calloc(1, sizeof *s);
    if (s == NULL) {
        msg_fail(&st->proto, rank, "aborting: out of memory serving a %s from node %d",
                 is_read ? "rendezvous put" : "get", rank);
        return NULL;
    }
    s->req = *req;
    s->is_read = (uint8_t)is_read;
    s->peer = rank;
    return s;
}

/* ---- the NIC primitives nal/msg/ runs the protocol through ------------------------------- */

static int nic_send(void *nic, int rank, const struct msg_fields *f,
                    const struct msg_remote *remote, const void *data, uint64_t len,
                    int is_request)
{
    struct ofi_state *st = nic;
    struct ofi_msg_hdr hdr = MSG_HDR_OF(struct ofi_msg_hdr, f);
    if (remote != NULL) {
        hdr.addr = remote->addr;
        hdr.key = remote->key;
    }
    if (is_request)
        return send_request(st, rank, &hdr, data, len);
    int rc = send_msg(st, rank, &hdr, data, len);
    if (rc == PTL_OK && f->type == MSG_CREDIT)
        st->credit_messages++;
    return rc;
}

/* A peer that failed meanwhile fails the op: the put's data may not have been read. */
int ofi_record_wait(void *nic, int rank, uint32_t id)
{
    struct ofi_state *st = nic;
    ofi_inflight_wait(st, rank, id);
    return st->peers[rank].failed ? PTL_FAIL : PTL_OK;
}

static int nic_remote_key(void *nic, int rank, struct nal_inflight_rec *rec, int peer_writes,
                          struct msg_remote *remote)
{
    (void)rank;
    return remote_key(nic, (struct ofi_inflight *)rec, rec->op.local_addr, rec->op.length,
                      peer_writes ? FI_REMOTE_WRITE : FI_REMOTE_READ, &remote->addr,
                      &remote->key);
}

static void nic_read_source(void *nic, int rank, const struct msg_served *req,
                            const struct msg_remote *source)
{
    struct ofi_served *s = served_new(nic, rank, req, 1);
    if (s != NULL)
        region_transfer(nic, rank, s, source->addr, source->key);
}

/* The REPLY goes once every write has completed (ofi_msg_served). */
static void nic_write_get(void *nic, int rank, const struct msg_served *req,
                          const struct msg_fields *reply, const struct msg_remote *dest)
{
    (void)reply;
    struct ofi_served *s = served_new(nic, rank, req, 0);
    if (s != NULL)
        region_transfer(nic, rank, s, dest->addr, dest->key);
}

static void nic_peer_failed(void *nic, int peer)
{
    ((struct ofi_state *)nic)->peers[peer].failed = 1;
}

static struct msg_credits *nic_credits(void *nic, int rank, int *live)
{
    struct ofi_peer *peer = &((struct ofi_state *)nic)->peers[rank];
    *live = !peer->failed;
    return &peer->credits;
}

const struct msg_nic ofi_msg_nic = {
    .send = nic_send,
    .record_take = ofi_record_take,
    .record_release = ofi_record_release,
    .record_wait = ofi_record_wait,
    .remote_key = nic_remote_key,
    .read_source = nic_read_source,
    .write_get = nic_write_get,
    .peer_failed = nic_peer_failed,
    .credits = nic_credits,
};

/* ---- receiving ------------------------------------------------------------------------------ */

struct recv_args {
    unsigned index;
};

static ssize_t post_recv(struct ofi_state *st, void *arg)
{
    unsigned index = ((struct recv_args *)arg)->index;
    return fi_recv(st->ep, ofi_buf_addr(st, index), OFI_BUF_BYTES, st->buf_desc, FI_ADDR_UNSPEC,
                   &st->rx_ctx[index]);
}

int ofi_msg_repost(struct ofi_state *st, unsigned index)
{
    struct recv_args args = { index };
    st->rx_ctx[index].kind = OFI_CTX_RECV;
    st->rx_ctx[index].buf = (int)index;
    st->rx_ctx[index].peer = -1;
    return ofi_post_retry(st, -1, "receive buffer", post_recv, &args);
}

int ofi_msg_post_receives(struct ofi_state *st)
{
    for (unsigned i = 0; i < st->rx_count; i++)
        if (ofi_msg_repost(st, i) != PTL_OK)
            return PTL_FAIL;
    return PTL_OK;
}

void ofi_msg_received(struct ofi_state *st, unsigned index, uint64_t bytes)
{
    const uint8_t *buf = ofi_buf_addr(st, index);
    struct ofi_msg_hdr hdr;
    if (bytes < sizeof hdr) {
        msg_fail(&st->proto, -1, "aborting: a message of %llu bytes arrived, shorter than a header (%zu)",
                 (unsigned long long)bytes, sizeof hdr);
        return;
    }
    memcpy(&hdr, buf, sizeof hdr);
    int rank = (int)hdr.src;
    if (hdr.src >= (uint32_t)st->ni->size || !ofi_wants(st, rank) || hdr.type == 0 ||
        hdr.type >= MSG_TYPE_END) {
        msg_fail(&st->proto, -1, "aborting: a message with type %u from rank %u arrived (a job of %d "
                 "nodes, of which this process reaches %u through ofi; types 1 to %d)",
                 hdr.type, hdr.src, st->ni->size, st->peers_reached, MSG_TYPE_END - 1);
        return;
    }
    struct msg_in in = { MSG_FIELDS_OF(&hdr), { hdr.addr, hdr.key }, buf + sizeof hdr,
                         bytes - sizeof hdr };
    struct ofi_peer *peer = &st->peers[rank];
    peer->credits.send += hdr.credits;
    if (msg_is_request(hdr.type))
        owe_credit(st, rank); /* the answer, if any, carries it back */
    msg_received(&st->proto, rank, &peer->inflight, peer->window, &in);
    ofi_msg_repost(st, index);
}
