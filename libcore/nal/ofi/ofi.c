/*
 * The ofi transport: gp over libfabric (GP_TRANSPORT=ofi), one FI_EP_RDM
 * endpoint per process on the provider GP_OFI_PROVIDER or FI_PROVIDER
 * names (ofi_info.c).  This file is the ops table and the state's life.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nal/ofi/ofi.h"
#include "nal/ofi/ofi_config.h"
#include "nal/private_region.h"
#include "util/log.h"

/* Receive buffers beyond the per-peer sums: a credit may go back while its buffer is
 * still being handled (ofi_msg.c). */
#define OFI_RX_SLACK 4
/* How long fini lets queued sends drain before closing the endpoint. */
#define OFI_DRAIN_NS (2ull * 1000 * 1000 * 1000)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Some providers' libraries install handlers for fatal signals when libfabric
 * initializes them (libpsm2 prints a backtrace and exits with 1 on SIGSEGV), which
 * would take the job's exit on a fatal signal (seed 003: the signal's own code) from
 * the conduit.  The handlers gp had are put back after every call that may load one.
 */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM,
                                     SIGQUIT, SIGHUP };
#define FATAL_SIGNALS (sizeof fatal_signals / sizeof fatal_signals[0])

static void signals_save(struct sigaction *saved)
{
    for (size_t i = 0; i < FATAL_SIGNALS; i++)
        sigaction(fatal_signals[i], NULL, &saved[i]);
}

static void signals_restore(const struct sigaction *saved)
{
    for (size_t i = 0; i < FATAL_SIGNALS; i++)
        sigaction(fatal_signals[i], &saved[i], NULL);
}

void ofi_state_free(struct ofi_state *st)
{
    ofi_rcv_stop(st); /* the hybrid's route frees without fini */
    for (int rank = 0; st->peers != NULL && rank < st->ni->size; rank++) {
        struct nal_inflight *table = &st->peers[rank].inflight;
        for (unsigned i = 0; table->records != NULL && i < table->depth; i++) {
            struct ofi_inflight *rec = (struct ofi_inflight *)nal_inflight_at(table, i);
            if (rec->m.rec.kind != NAL_INFLIGHT_FREE)
                ofi_mr_unpin(st, rec);
        }
        nal_inflight_fini(table);
    }
    ofi_mr_cache_stop(st);
    ofi_ep_close(st);
    if (st->info != NULL)
        fi_freeinfo(st->info);
    free(st->peers);
    free(st->bufs);
    free(st->rx_ctx);
    free(st->received);
    ofi_rma_late_free(st);
    free(st->ctx);
    free(st->done_served);
    free(st->owing.ranks);
    msg_pool_fini(&st->tx);
    msg_pool_fini(&st->bounce);
    gp_mutex_destroy(&st->lock);
    free(st);
}

/*
 * The pools, sized from the peers reached and the rows (ofi_msg.c says what the receive
 * buffers cover).  A rank with no provider (it only joins the exchange) needs the peer
 * table alone.
 */
static int alloc_pools(struct ofi_state *st)
{
    unsigned peers = 0;
    for (int rank = 0; rank < st->ni->size; rank++)
        peers += (unsigned)ofi_wants(st, rank);
    st->peers_reached = peers;
    st->peers = calloc((size_t)st->ni->size, sizeof *st->peers);
    if (st->info == NULL)
        return st->peers != NULL ? PTL_OK : PTL_NO_SPACE;
    st->credits_pp = (int)ofi_cfg.ofi_credits_pp;
    st->depth_pp = (unsigned)ofi_cfg.ofi_depth_pp;
    st->rx_count = peers * ((unsigned)st->credits_pp + st->depth_pp + 2) + OFI_RX_SLACK;
    st->ctx_count = OFI_TX_BUFS + 2 * peers * ((unsigned)st->credits_pp + st->depth_pp) + 256;
    st->rx_ctx = calloc(st->rx_count, sizeof *st->rx_ctx);
    ofi_cq_alloc(st);
    st->ctx = calloc(st->ctx_count, sizeof *st->ctx);
    st->done_served = calloc(st->ctx_count, sizeof *st->done_served);
    st->owing.ranks = calloc((size_t)st->ni->size, sizeof *st->owing.ranks);
    size_t bytes = ofi_bufs_bytes(st);
    /* Allocated and touched: FI_MR_ALLOCATED providers register only backed memory. */
    st->bufs = aligned_alloc(4096, bytes);
    if (st->peers == NULL || st->rx_ctx == NULL || st->received == NULL || st->ctx == NULL ||
        st->done_served == NULL || st->owing.ranks == NULL || st->bufs == NULL) {
        gp_error("ofi", "out of memory for %u receive buffers and %u contexts", st->rx_count,
                 st->ctx_count);
        return PTL_NO_SPACE;
    }
    memset(st->bufs, 0, bytes);
    st->done_cap = st->ctx_count;
    for (unsigned i = 0; i < st->ctx_count; i++)
        st->ctx[i].next_free = i + 1 < st->ctx_count ? i + 2 : 0;
    st->ctx_free = 1;
    /* Fewer than the arrays hold where the rows say so (tests: waits for buffers). */
    if (msg_pool_init(&st->tx, (unsigned)ofi_cfg.ofi_tx_bufs) != PTL_OK ||
        msg_pool_init(&st->bounce, (unsigned)ofi_cfg.ofi_bounce_bufs) != PTL_OK)
        return PTL_NO_SPACE;
    for (int rank = 0; rank < st->ni->size; rank++) {
        st->peers[rank].credits.send = st->credits_pp;
        if (ofi_wants(st, rank) &&
            nal_inflight_init(&st->peers[rank].inflight, st->depth_pp, sizeof(struct ofi_inflight),
                              NULL) != PTL_OK)
            return PTL_NO_SPACE;
    }
    return PTL_OK;
}

struct ofi_state *ofi_state_new(struct nal_ni *ni)
{
    struct ofi_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    gp_mutex_init(&st->lock);
    st->ni = ni;
    st->proto = (struct msg_proto){ ni, "ofi", ofi_cfg.ofi_windows, OFI_EAGER_BYTES, &ofi_msg_nic,
                                    st, &st->fatal };
    return st;
}

int ofi_state_choose(struct ofi_state *st, const char *needed_by, int log_level)
{
    struct sigaction saved[FATAL_SIGNALS];
    signals_save(saved);
    if (ofi_fabric_load(needed_by, 0) == 0) {
        ofi_info_universe(st->ni->size);
        st->info = ofi_info_choose(log_level, &st->write_order_granted);
    }
    signals_restore(saved);
    return st->info != NULL ? PTL_OK : PTL_FAIL;
}

int ofi_state_connect(struct ofi_state *st, const uint8_t *wanted)
{
    st->wanted = wanted;
    int rc = alloc_pools(st);
    if (rc != PTL_OK)
        return rc;
    ofi_rcv_prepare(st);
    struct sigaction saved[FATAL_SIGNALS];
    signals_save(saved);
    /* Whatever failed here, the exchange below is collective: it tells the others. */
    if (st->info != NULL && (ofi_ep_open(st) != PTL_OK || ofi_ep_register(st) != PTL_OK ||
                             ofi_mr_cache_start(st) != PTL_OK ||
                             ofi_msg_post_receives(st) != PTL_OK)) {
        ofi_mr_cache_stop(st);
        ofi_ep_close(st);
    }
    signals_restore(saved);
    rc = ofi_ep_exchange(st);
    if (rc != PTL_OK || st->ep == NULL)
        return rc;
    gp_debug("ofi", "provider %s: %u receive buffers of %d bytes, %d credits and %u records "
             "per peer", st->info->fabric_attr->prov_name, st->rx_count, OFI_BUF_BYTES,
             st->credits_pp, st->depth_pp);
    return ofi_rcv_start(st);
}

static int ofi_region_create(struct nal_ni *ni, uint64_t bytes)
{
    struct sigaction saved[FATAL_SIGNALS];
    signals_save(saved);
    ofi_fabric_load("GP_TRANSPORT=ofi", 1);
    signals_restore(saved);
    struct ofi_state *st = ofi_state_new(ni);
    if (st == NULL)
        return PTL_NO_SPACE;
    ni->nal_state = st;
    /* Populated: the region is registered whole, and FI_MR_ALLOCATED wants it backed. */
    if (nal_private_region(ni, bytes, 1, "ofi") != PTL_OK) {
        ofi_state_free(st);
        ni->nal_state = NULL;
        return PTL_NO_SPACE;
    }
    return PTL_OK;
}

static int ofi_connect(struct nal_ni *ni)
{
    struct ofi_state *st = ofi_state_of(ni);
    if (nal_own_region_only(ni) != PTL_OK)
        return PTL_NO_SPACE;
    if (ni->size == 1) {
        gp_debug("ofi", "a one-process job: no endpoint");
        return PTL_OK;
    }
    /* A process without a provider still joins the exchange: the others then name it. */
    ofi_state_choose(st, "GP_TRANSPORT=ofi", GP_LOG_ERROR);
    return ofi_state_connect(st, NULL);
}

/* To this process itself a copy on its own region; else through the window, else by messages. */
int ofi_state_put(struct ofi_state *st, const struct nal_op *op)
{
    if (op->target == (unsigned)st->ni->rank)
        return ptl_direct_put(st->ni, st->ni->region, op);
    gp_mutex_lock(&st->lock);
    st->op_may_yield = 1;
    int rc = ofi_rma_put(st, op);
    if (rc == MSG_NO_WINDOW)
        rc = ofi_msg_put(st, op);
    st->op_may_yield = 0;
    gp_mutex_unlock(&st->lock);
    msg_fatal_raise(&st->fatal);
    return rc;
}

int ofi_state_get(struct ofi_state *st, const struct nal_op *op)
{
    if (op->target == (unsigned)st->ni->rank)
        return ptl_direct_get(st->ni, st->ni->region, op);
    gp_mutex_lock(&st->lock);
    st->op_may_yield = 1;
    int rc = ofi_rma_get(st, op);
    if (rc == MSG_NO_WINDOW)
        rc = ofi_msg_get(st, op);
    st->op_may_yield = 0;
    gp_mutex_unlock(&st->lock);
    msg_fatal_raise(&st->fatal);
    return rc;
}

void ofi_state_progress(struct ofi_state *st)
{
    if (st == NULL || st->ep == NULL)
        return;
    /* Another thread moving data now is as good as this one doing it. */
    if (gp_mutex_trylock(&st->lock) != 0)
        return;
    ofi_progress_locked(st);
    gp_mutex_unlock(&st->lock);
    msg_fatal_raise(&st->fatal);
}

/* Messages still queued go out (a provider with manual progress, such as sockets, moves
 * them only when asked), for a bounded time: the peer may be gone. */
static void drain(struct ofi_state *st)
{
    uint64_t until = now_ns() + OFI_DRAIN_NS;
    while (st->ep != NULL &&
           (!msg_pool_all_free(&st->tx) || !msg_pool_all_free(&st->bounce)) &&
           !st->fatal.pending &&
           now_ns() < until)
        ofi_progress_locked(st);
}

void ofi_state_drain(struct ofi_state *st)
{
    if (st->ep == NULL || gp_mutex_trylock(&st->lock) != 0)
        return;
    drain(st);
    gp_mutex_unlock(&st->lock);
}

/* The job ends without fini (the exit's last step): drain, then the debug line. */
/*
 * libfabric's shm provider keeps its endpoint's region in /dev/shm under the pid's name and
 * removes it only when the endpoint closes.  The job ends without closing its transport
 * (doc/decisions.md), so every job left its regions behind, and a later process given one of
 * those pids failed fi_enable with EBUSY.  Closing the endpoint at the exit's last step costs
 * nothing: the exit is coordinated, and shm gives no receive thread that could be using it.
 */
static void release_named_region(struct ofi_state *st)
{
    if (strcmp(st->info->fabric_attr->prov_name, "shm") != 0 || st->rcv.running)
        return;
    fi_close(&st->ep->fid);
    st->ep = NULL;
}

void ofi_state_report(struct ofi_state *st)
{
    if (st == NULL || st->ep == NULL || gp_mutex_trylock(&st->lock) != 0)
        return;
    drain(st);
    gp_debug("ofi", "provider %s: %llu messages sent (%llu CREDIT), %llu puts and %llu gets "
             "straight into windows, %llu requests waited for a credit",
             st->info->fabric_attr->prov_name, (unsigned long long)st->messages_sent,
             (unsigned long long)st->credit_messages, (unsigned long long)st->rma_puts,
             (unsigned long long)st->rma_gets, (unsigned long long)st->credit_waits);
    firehose_report(st->firehose);
    release_named_region(st);
    gp_mutex_unlock(&st->lock);
}

static int ofi_put(struct nal_ni *ni, const struct nal_op *op)
{
    return ofi_state_put(ofi_state_of(ni), op);
}

static int ofi_get(struct nal_ni *ni, const struct nal_op *op)
{
    return ofi_state_get(ofi_state_of(ni), op);
}

static int ofi_progress(struct nal_ni *ni)
{
    ofi_state_progress(ofi_state_of(ni));
    return PTL_OK;
}

static void ofi_report(struct nal_ni *ni)
{
    ofi_state_report(ofi_state_of(ni));
}

static void ofi_fini(struct nal_ni *ni)
{
    struct ofi_state *st = ofi_state_of(ni);
    if (st != NULL) {
        ofi_rcv_stop(st);
        ofi_state_report(st); /* drains what is queued first */
        ofi_state_free(st);
    }
    ni->nal_state = NULL;
    nal_private_region_free(ni);
}

const struct nal_ops nal_ofi_ops = {
    .name = "ofi",
    .title = "libfabric",
    .rows_intro = "Read by the ofi transport (GP_TRANSPORT=ofi); FI_PROVIDER and the providers' "
                  "own FI_* variables are libfabric's and reach it unchanged.",
    .config_group = &ofi_cfg_group,
    .user_selectable = 1,
    .region_create = ofi_region_create,
    .connect = ofi_connect,
    .put = ofi_put,
    .get = ofi_get,
    .counts_puts = nal_counts_no_puts,
    .progress = ofi_progress,
    .fini = ofi_fini,
    .report = ofi_report,
    .peers = &ofi_peer_ops,
    .host_report = ofi_host_report,
};
