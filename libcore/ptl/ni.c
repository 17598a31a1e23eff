/*
 * The network interface: its registered region, the bump allocator that
 * carves the conduit's buffers and EQ rings out of it, and the handle tables.
 *
 * Region layout (offsets from the region base, see shared.h):
 *   header | portal table (max_pt entries, each: version, count, order[],
 *   slot[]) | EQ table (ring offsets) | arena (ptl_region_alloc)
 */
#include "ptl/ni.h"

#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "util/log.h"

#define ALIGN_UP(value, align) (((value) + (align) - 1) & ~((uint64_t)(align) - 1))

static const char *const status_names[] = {
    [PTL_OK] = "PTL_OK",
    [PTL_FAIL] = "PTL_FAIL (transport failure)",
    [PTL_NO_SPACE] = "PTL_NO_SPACE (table or registered region full)",
    [PTL_EQ_EMPTY] = "PTL_EQ_EMPTY",
    [PTL_EQ_DROPPED] = "PTL_EQ_DROPPED (events were lost to a full event queue)",
    [PTL_EQ_INVALID] = "PTL_EQ_INVALID (bad event queue handle)",
    [PTL_MD_INVALID] = "PTL_MD_INVALID (stale or unknown memory descriptor)",
    [PTL_MD_ILLEGAL] = "PTL_MD_ILLEGAL (memory descriptor description not allowed)",
    [PTL_MD_IN_USE] = "PTL_MD_IN_USE (memory descriptor has operations pending)",
    [PTL_PT_INDEX_INVALID] = "PTL_PT_INDEX_INVALID (no such portal table entry)",
    [PTL_PROCESS_INVALID] = "PTL_PROCESS_INVALID (no such rank)",
    [PTL_SEGV] = "PTL_SEGV (offset or length outside the memory descriptor)",
    [PTL_NO_INIT] = "PTL_NO_INIT",
};

const char *ptl_strerror(int status)
{
    if (status < 0 || status >= (int)(sizeof status_names / sizeof status_names[0]) ||
        status_names[status] == NULL)
        return "unknown ptl status";
    return status_names[status];
}

const char *ptl_event_kind_str(int kind)
{
    switch (kind) {
    case PTL_EVENT_SEND_END: return "SEND_END";
    case PTL_EVENT_ACK: return "ACK";
    case PTL_EVENT_PUT_END: return "PUT_END";
    case PTL_EVENT_GET_END: return "GET_END";
    case PTL_EVENT_REPLY_END: return "REPLY_END";
    case PTL_EVENT_UNLINK: return "UNLINK";
    default: return "unknown event";
    }
}

static uint64_t pte_stride(unsigned max_me)
{
    uint64_t order_bytes = ALIGN_UP((uint64_t)max_me * sizeof(uint16_t), 8);
    return ALIGN_UP(sizeof(struct ptl_pte_shared), 8) + order_bytes +
           (uint64_t)max_me * sizeof(struct ptl_me_slot);
}

static uint64_t tables_bytes(const struct ptl_ni_params *params)
{
    uint64_t bytes = ALIGN_UP(sizeof(struct ptl_region_header), 64);
    bytes += ALIGN_UP(pte_stride(params->max_me_per_pt) * params->max_pt, 64);
    bytes += ALIGN_UP((uint64_t)params->max_eq * sizeof(uint64_t), 64);
    return bytes;
}

int ptl_region_format(struct ptl_ni *ni, const struct ptl_ni_params *params)
{
    struct ptl_region_header *hdr = ni->base.region;
    uint64_t at = ALIGN_UP(sizeof *hdr, 64);
    memset(hdr, 0, sizeof *hdr);
    hdr->rank = (uint32_t)ni->base.rank;
    hdr->size = (uint32_t)ni->base.size;
    hdr->region_bytes = ni->base.region_bytes;
    hdr->max_pt = params->max_pt;
    hdr->max_me = params->max_me_per_pt;
    hdr->max_eq = params->max_eq;
    hdr->pte_stride = pte_stride(params->max_me_per_pt);
    hdr->me_order_offset = ALIGN_UP(sizeof(struct ptl_pte_shared), 8);
    hdr->me_slot_offset = hdr->me_order_offset +
                          ALIGN_UP((uint64_t)params->max_me_per_pt * sizeof(uint16_t), 8);
    hdr->pt_table_offset = at;
    at += ALIGN_UP(hdr->pte_stride * params->max_pt, 64);
    hdr->eq_table_offset = at;
    at += ALIGN_UP((uint64_t)params->max_eq * sizeof(uint64_t), 64);
    hdr->arena_offset = at;
    atomic_init(&hdr->dropped, 0);
    memset((char *)ni->base.region + hdr->pt_table_offset, 0, at - hdr->pt_table_offset);
    ni->arena_next = at;
    ni->hdr = hdr;
    /* Written last: a peer that sees the magic sees a formatted region. */
    __atomic_store_n(&hdr->magic, PTL_REGION_MAGIC, __ATOMIC_RELEASE);
    return PTL_OK;
}

int ptl_region_formatted(const void *region, unsigned rank)
{
    const struct ptl_region_header *hdr = region;
    return __atomic_load_n(&hdr->magic, __ATOMIC_ACQUIRE) == PTL_REGION_MAGIC &&
           hdr->rank == (uint32_t)rank;
}

uint64_t ptl_region_length(const void *region)
{
    return ((const struct ptl_region_header *)region)->region_bytes;
}

static int check_params(const struct ptl_ni_params *params)
{
    if (params->max_pt == 0 || params->max_pt > 64 || params->max_me_per_pt == 0 ||
        params->max_me_per_pt > 4096 || params->max_eq == 0 || params->max_eq > 1024 ||
        params->max_md == 0 || params->max_md > 65000) {
        gp_error("ptl", "NI limits out of range: max_pt=%u (1-64) max_me_per_pt=%u (1-4096) "
                 "max_eq=%u (1-1024) max_md=%u (1-65000)", params->max_pt, params->max_me_per_pt,
                 params->max_eq, params->max_md);
        return PTL_MD_ILLEGAL;
    }
    return PTL_OK;
}

static int alloc_tables(struct ptl_ni *ni, const struct ptl_ni_params *params)
{
    ni->max_md = params->max_md;
    ni->max_eq = params->max_eq;
    ni->mds = calloc(ni->max_md, sizeof *ni->mds);
    ni->eqs = calloc(ni->max_eq, sizeof *ni->eqs);
    if (ni->mds == NULL || ni->eqs == NULL)
        return PTL_NO_SPACE;
    for (unsigned i = 0; i < ni->max_md; i++) {
        ni->mds[i].gen = 1;
        ni->mds[i].next_free = i + 2 <= ni->max_md ? i + 2 : 0;
    }
    ni->md_free_head = 1;
    for (unsigned i = 0; i < ni->max_eq; i++)
        ni->eqs[i].gen = 1;
    return PTL_OK;
}

static void free_ni(struct ptl_ni *ni)
{
    free(ni->mds);
    free(ni->eqs);
    free(ni->base.peer_region);
    gp_mutex_destroy(&ni->lock);
    free(ni);
}

/* A peer may need this process's progress engine to reach the same boot collective. */
static void progress_while_waiting(void *ni)
{
    ptl_progress(ni);
}

int ptl_ni_init(const struct ptl_ni_params *params, struct ptl_ni **ni_out)
{
    const char *transport = params->transport ? params->transport : "hybrid";
    const struct nal_ops *nal = nal_find(transport);
    if (nal == NULL) {
        gp_error("ptl", "transport '%s' is not built in (available: %s)", transport, nal_names());
        return PTL_FAIL;
    }
    int rc = check_params(params);
    if (rc != PTL_OK)
        return rc;
    struct ptl_ni *ni = calloc(1, sizeof *ni);
    if (ni == NULL)
        return PTL_NO_SPACE;
    gp_mutex_init(&ni->lock);
    ni->nal = nal;
    /* A one-process world (the loopback test double) needs no launcher. */
    ni->base.rank = nal->one_process_world ? 0 : gp_boot_rank();
    ni->base.size = nal->one_process_world ? 1 : gp_boot_size();
    rc = alloc_tables(ni, params);
    if (rc != PTL_OK)
        goto err_free;
    ni->base.region_bytes = tables_bytes(params) + ALIGN_UP(params->region_bytes, 64);
    rc = nal->region_create(&ni->base, ni->base.region_bytes);
    if (rc != PTL_OK)
        goto err_free;
    ptl_region_format(ni, params);
    rc = nal->connect(&ni->base);
    if (rc != PTL_OK)
        goto err_fini;
    if (nal->progress != nal_no_progress)
        gp_boot_set_wait_hook(progress_while_waiting, ni);
    *ni_out = ni;
    return PTL_OK;

err_fini:
    nal->fini(&ni->base);
err_free:
    free_ni(ni);
    return rc;
}

int ptl_ni_fini(struct ptl_ni *ni)
{
    if (ni == NULL)
        return PTL_NO_INIT;
    gp_boot_set_wait_hook(NULL, NULL);
    ni->nal->fini(&ni->base);
    free_ni(ni);
    return PTL_OK;
}

void ptl_ni_report(struct ptl_ni *ni)
{
    if (ni != NULL)
        ni->nal->report(&ni->base);
}

void ptl_job_exit_known(void)
{
    nal_note_job_ending();
}

int ptl_ni_rank(const struct ptl_ni *ni) { return ni->base.rank; }
int ptl_ni_size(const struct ptl_ni *ni) { return ni->base.size; }
const char *ptl_ni_transport(const struct ptl_ni *ni) { return ni->nal->name; }

int ptl_transport_region_in_dev_shm(const char *transport)
{
    const struct nal_ops *nal = nal_find(transport != NULL ? transport : "hybrid");
    return nal != NULL && nal->region_in_dev_shm;
}

enum ptl_maps ptl_transport_maps_peers(const char *transport)
{
    const struct nal_ops *nal = nal_find(transport != NULL ? transport : "hybrid");
    if (nal == NULL || nal->maps_peer_regions == NAL_MAPS_NONE)
        return PTL_MAPS_NONE;
    return nal->maps_peer_regions == NAL_MAPS_HOST_PEERS ? PTL_MAPS_HOST_PEERS
                                                         : PTL_MAPS_EVERY_PEER;
}

int ptl_region_hit(const struct ptl_ni *ni, const void *addr, struct ptl_region_hit *hit)
{
    if (ni == NULL || !ni->nal->region_in_dev_shm)
        return 0;
    const char *at = addr;
    for (int rank = 0; rank < ni->base.size; rank++) {
        /* peer_region is filled during connect: until then only our own region is known */
        const char *base = ni->base.peer_region != NULL ? ni->base.peer_region[rank] : NULL;
        if (rank == ni->base.rank)
            base = ni->base.region;
        if (base == NULL)
            continue;
        /* A peer's header page was written by its owner before we mapped it. */
        uint64_t bytes = rank == ni->base.rank ? ni->base.region_bytes
                                          : ((const struct ptl_region_header *)base)->region_bytes;
        if (at >= base && (uint64_t)(at - base) < bytes) {
            hit->rank = (unsigned)rank;
            hit->offset = (uint64_t)(at - base);
            hit->region_bytes = bytes;
            return 1;
        }
    }
    return 0;
}

uint64_t ptl_ni_dropped(const struct ptl_ni *ni)
{
    return atomic_load_explicit(&ni->hdr->dropped, memory_order_relaxed);
}

void *ptl_region_alloc(struct ptl_ni *ni, uint64_t bytes, uint64_t align)
{
    void *where = NULL;
    if (align == 0 || (align & (align - 1)) != 0)
        return NULL;
    gp_mutex_lock(&ni->lock);
    uint64_t start = ALIGN_UP(ni->arena_next, align);
    if (start <= ni->base.region_bytes && bytes <= ni->base.region_bytes - start) {
        where = (char *)ni->base.region + start;
        ni->arena_next = start + bytes;
    }
    gp_mutex_unlock(&ni->lock);
    return where;
}

uint64_t ptl_region_free_bytes(const struct ptl_ni *ni)
{
    return ni->base.region_bytes - ni->arena_next;
}

uint64_t ptl_eq_bytes(unsigned count)
{
    return ptl_ring_bytes(count) + 64;
}

int ptl_progress(struct ptl_ni *ni)
{
    return ni->nal->progress(&ni->base);
}

void ptl_ni_set_rcv_poll(struct ptl_ni *ni, ptl_rcv_poll_fn fn, void *arg)
{
    /* The argument first: a thread that sees the function sees its argument. */
    atomic_store_explicit(&ni->rcv_poll_arg, arg, memory_order_relaxed);
    atomic_store_explicit(&ni->rcv_poll, fn, memory_order_release);
}

void ptl_ni_rcv_poll(struct nal_ni *base)
{
    struct ptl_ni *ni = ptl_ni_of(base);
    ptl_rcv_poll_fn fn = atomic_load_explicit(&ni->rcv_poll, memory_order_acquire);
    if (fn != NULL)
        fn(atomic_load_explicit(&ni->rcv_poll_arg, memory_order_relaxed));
}
