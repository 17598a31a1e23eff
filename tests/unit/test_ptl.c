/*
 * Unit tests of the ptl layer on the loopback transport (one process,
 * target == initiator): matching order, ignore bits, locally managed
 * packing and auto-unlink, truncation, thresholds, events and their fields,
 * EQ overflow, handle checks, and concurrent deposits into one MD.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "ptl/ni.h"
#include "ptl/ptl.h"
#include "ptl/ring.h"
#include "test.h"

#define REGION (1u << 20)

static struct ptl_ni *open_ni(void)
{
    struct ptl_ni_params params = {
        .transport = "loop", .region_bytes = REGION, .max_pt = 4, .max_me_per_pt = 16,
        .max_eq = 4, .max_md = 64,
    };
    struct ptl_ni *ni = NULL;
    CHECK_EQ(ptl_ni_init(&params, &ni), PTL_OK);
    CHECK(ni != NULL);
    return ni;
}

static ptl_handle_eq_t new_eq(struct ptl_ni *ni, unsigned count)
{
    ptl_handle_eq_t eq;
    CHECK_EQ(ptl_eq_alloc(ni, count, &eq), PTL_OK);
    return eq;
}

/* A bound source MD over a private buffer, with events on eq. */
static ptl_handle_md_t bind_source(struct ptl_ni *ni, void *buf, uint64_t len, ptl_handle_eq_t eq)
{
    struct ptl_md_desc desc = { .start = buf, .length = len, .threshold = PTL_MD_THRESH_INF,
                                .eq = eq };
    ptl_handle_md_t md;
    CHECK_EQ(ptl_md_bind(ni, &desc, &md), PTL_OK);
    return md;
}

static ptl_handle_md_t attach(struct ptl_ni *ni, unsigned pt, uint64_t match, uint64_t ignore,
                              void *start, uint64_t len, unsigned options, uint64_t max_size,
                              ptl_handle_eq_t eq, enum ptl_unlink_op unlink_op, int threshold)
{
    struct ptl_md_desc desc = { .start = start, .length = len, .threshold = threshold,
                                .max_size = max_size, .options = options, .eq = eq,
                                .user_ptr = start };
    ptl_handle_md_t md;
    CHECK_EQ(ptl_md_attach(ni, pt, match, ignore, &desc, unlink_op, PTL_INS_AFTER,
                           PTL_INVALID_HANDLE, &md), PTL_OK);
    return md;
}

static void expect_event(struct ptl_ni *ni, ptl_handle_eq_t eq, int type, struct ptl_event *out)
{
    struct ptl_event event;
    int rc = ptl_eq_get(ni, eq, &event);
    if (rc != PTL_OK)
        gp_test_fail(__FILE__, __LINE__, "expected %s, ptl_eq_get returned %s",
                     ptl_event_kind_str(type), ptl_strerror(rc));
    if ((int)event.type != type)
        gp_test_fail(__FILE__, __LINE__, "expected %s, got %s", ptl_event_kind_str(type),
                     ptl_event_kind_str((int)event.type));
    if (out)
        *out = event;
}

static void expect_empty(struct ptl_ni *ni, ptl_handle_eq_t eq)
{
    struct ptl_event event;
    int rc = ptl_eq_get(ni, eq, &event);
    if (rc != PTL_EQ_EMPTY)
        gp_test_fail(__FILE__, __LINE__, "expected an empty EQ, got %s (event %s)",
                     ptl_strerror(rc), ptl_event_kind_str((int)event.type));
}

static void test_put_remote_managed_events(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t src_eq = new_eq(ni, 16), tgt_eq = new_eq(ni, 16);
    char *target = ptl_region_alloc(ni, 4096, 64);
    CHECK(target != NULL);
    memset(target, 0, 4096);
    ptl_handle_md_t tgt = attach(ni, 1, 0x5, 0, target, 4096,
                                 PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
                                 PTL_RETAIN, PTL_MD_THRESH_INF);
    char source[300];
    for (unsigned i = 0; i < sizeof source; i++)
        source[i] = (char)(i * 7 + 1);
    ptl_handle_md_t src = bind_source(ni, source, sizeof source, src_eq);
    CHECK_EQ(ptl_put_region(ni, src, 10, 200, PTL_ACK_REQ, 0, 1, 0x5, 1000, 0xfeedbeefull),
             PTL_OK);
    CHECK(memcmp(target + 1000, source + 10, 200) == 0);
    CHECK_EQ(target[999], 0);
    CHECK_EQ(target[1200], 0);

    struct ptl_event event;
    expect_event(ni, tgt_eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, tgt);
    CHECK_EQ(event.match_bits, 0x5);
    CHECK_EQ(event.hdr_data, 0xfeedbeefull);
    CHECK_EQ(event.rlength, 200);
    CHECK_EQ(event.mlength, 200);
    CHECK_EQ(event.offset, 1000);
    CHECK_EQ(event.initiator, 0);
    CHECK(event.md_user_ptr == target);
    expect_empty(ni, tgt_eq);

    expect_event(ni, src_eq, PTL_EVENT_SEND_END, &event);
    CHECK_EQ(event.offset, 10);
    expect_event(ni, src_eq, PTL_EVENT_ACK, &event);
    CHECK_EQ(event.md_handle, src);
    CHECK_EQ(event.mlength, 200);
    CHECK_EQ(event.offset, 1000);
    CHECK_EQ(event.match_bits, 0x5);
    expect_empty(ni, src_eq);
    ptl_ni_fini(ni);
}

static void test_get_events(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t src_eq = new_eq(ni, 16), tgt_eq = new_eq(ni, 16);
    char *target = ptl_region_alloc(ni, 4096, 64);
    for (unsigned i = 0; i < 4096; i++)
        target[i] = (char)(i ^ 0x5a);
    attach(ni, 0, 0, 0, target, 4096, PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
           PTL_RETAIN, PTL_MD_THRESH_INF);
    char dest[512] = { 0 };
    ptl_handle_md_t dst = bind_source(ni, dest, sizeof dest, src_eq);
    CHECK_EQ(ptl_get_region(ni, dst, 12, 256, 0, 0, 0, 3000), PTL_OK);
    CHECK(memcmp(dest + 12, target + 3000, 256) == 0);
    CHECK_EQ(dest[11], 0);
    struct ptl_event event;
    expect_event(ni, src_eq, PTL_EVENT_REPLY_END, &event);
    CHECK_EQ(event.mlength, 256);
    CHECK_EQ(event.offset, 12);
    expect_event(ni, tgt_eq, PTL_EVENT_GET_END, &event);
    CHECK_EQ(event.offset, 3000);
    CHECK_EQ(event.mlength, 256);
    /* A put into a get-only MD matches nothing and is counted as dropped. */
    CHECK_EQ(ptl_put_region(ni, dst, 0, 8, PTL_ACK_REQ, 0, 0, 0, 0, 0), PTL_OK);
    CHECK_EQ(ptl_ni_dropped(ni), 1);
    expect_event(ni, src_eq, PTL_EVENT_SEND_END, NULL);
    expect_empty(ni, src_eq); /* no ACK for a dropped put */
    ptl_ni_fini(ni);
}

static void test_match_order_and_ignore_bits(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t eq = new_eq(ni, 32);
    char *buf = ptl_region_alloc(ni, 3 * 256, 64);
    unsigned opts = PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE;
    /* A matches 0x10 exactly; B matches 0x1? (low nibble ignored); C matches anything. */
    ptl_handle_md_t a = attach(ni, 2, 0x10, 0, buf, 256, opts, 0, eq, PTL_RETAIN, PTL_MD_THRESH_INF);
    ptl_handle_md_t b = attach(ni, 2, 0x10, 0xf, buf + 256, 256, opts, 0, eq, PTL_RETAIN,
                               PTL_MD_THRESH_INF);
    ptl_handle_md_t c = attach(ni, 2, 0, ~0ull, buf + 512, 256, opts, 0, eq, PTL_RETAIN,
                               PTL_MD_THRESH_INF);
    char byte = 1;
    ptl_handle_md_t src = bind_source(ni, &byte, 1, PTL_EQ_NONE);
    struct ptl_event event;
    CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 2, 0x10, 0, 0), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, a);
    CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 2, 0x1f, 0, 0), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, b);
    CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 2, 0x20, 0, 0), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, c);

    /* An MD inserted before A takes 0x10 from now on. */
    struct ptl_md_desc desc = { .start = buf, .length = 256, .threshold = PTL_MD_THRESH_INF,
                                .options = opts, .eq = eq };
    ptl_handle_md_t first;
    CHECK_EQ(ptl_md_attach(ni, 2, 0x10, 0, &desc, PTL_RETAIN, PTL_INS_BEFORE, a, &first), PTL_OK);
    CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 2, 0x10, 0, 0), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, first);
    /* Unlinking it gives 0x10 back to A. */
    CHECK_EQ(ptl_md_unlink(ni, first), PTL_OK);
    CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 2, 0x10, 0, 0), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, a);
    CHECK_EQ(ptl_md_unlink(ni, first), PTL_MD_INVALID); /* stale handle */
    ptl_ni_fini(ni);
}

/* Deposits into a chain of two locally managed MDs, then the auto-unlink. */
static void test_locally_managed_packing_and_unlink(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t eq = new_eq(ni, 64);
    char *buf = ptl_region_alloc(ni, 2048, 64);
    ptl_handle_md_t first = attach(ni, 3, 7, 0, buf, 1024, PTL_MD_OP_PUT, 256, eq, PTL_UNLINK,
                                   PTL_MD_THRESH_INF);
    ptl_handle_md_t second = attach(ni, 3, 7, 0, buf + 1024, 1024, PTL_MD_OP_PUT, 256, eq,
                                    PTL_UNLINK, PTL_MD_THRESH_INF);
    char msg[100];
    ptl_handle_md_t src = bind_source(ni, msg, sizeof msg, PTL_EQ_NONE);
    /* 100-byte deposits take 112 bytes each: offsets 0, 112, ..., 672; after the
     * seventh (ends at 784) fewer than 256 bytes remain, so the MD is full. */
    struct ptl_event event;
    for (int i = 0; i < 8; i++) {
        memset(msg, 'a' + i, sizeof msg);
        CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 3, 7, 0, (uint64_t)i), PTL_OK);
    }
    for (int i = 0; i < 7; i++) {
        expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
        CHECK_EQ(event.md_handle, first);
        CHECK_EQ(event.offset, (uint64_t)i * 112);
        CHECK_EQ(event.offset % 16, 0);
        CHECK_EQ(event.hdr_data, (uint64_t)i);
        CHECK_EQ(buf[event.offset], 'a' + i);
        CHECK_EQ(buf[event.offset + 99], 'a' + i);
    }
    /* UNLINK comes right after the full MD's last PUT_END, ahead of the eighth
     * deposit's PUT_END (which went to the second MD). */
    expect_event(ni, eq, PTL_EVENT_UNLINK, &event);
    CHECK_EQ(event.md_handle, first);
    CHECK(event.md_user_ptr == buf);
    CHECK_EQ(event.mlength, 7);   /* deposits it took */
    CHECK_EQ(event.offset, 784);  /* bytes they used */
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, second);
    CHECK_EQ(event.offset, 0);
    CHECK_EQ(buf[1024], 'a' + 7);
    expect_empty(ni, eq);
    struct ptl_md_desc query;
    CHECK_EQ(ptl_md_query(ni, first, &query), PTL_MD_INVALID);

    /* Relinked at the end (after the second), the first buffer is used after it. */
    ptl_handle_md_t again = attach(ni, 3, 7, 0, buf, 1024, PTL_MD_OP_PUT, 256, eq, PTL_UNLINK,
                                   PTL_MD_THRESH_INF);
    for (int i = 0; i < 7; i++)
        CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 3, 7, 0, 0), PTL_OK);
    for (int i = 0; i < 6; i++) {
        expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
        CHECK_EQ(event.md_handle, second);
    }
    expect_event(ni, eq, PTL_EVENT_UNLINK, &event);
    CHECK_EQ(event.md_handle, second);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, again);
    CHECK_EQ(event.offset, 0);
    expect_empty(ni, eq);
    ptl_ni_fini(ni);
}

/* The catch basin: a zero-length truncating MD accepts anything, keeping nothing. */
static void test_truncate_catch_basin(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t eq = new_eq(ni, 8);
    char *buf = ptl_region_alloc(ni, 64, 64);
    ptl_handle_md_t small = attach(ni, 1, 0, 0, buf, 64, PTL_MD_OP_PUT, 64, eq, PTL_UNLINK,
                                   PTL_MD_THRESH_INF);
    ptl_handle_md_t basin = attach(ni, 1, 0, 0, buf, 0, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, 0, eq,
                                   PTL_RETAIN, PTL_MD_THRESH_INF);
    char msg[100] = { 0 };
    ptl_handle_md_t src = bind_source(ni, msg, sizeof msg, PTL_EQ_NONE);
    CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 1, 0, 0, 42), PTL_OK);
    struct ptl_event event;
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, basin); /* 100 bytes do not fit in 64 */
    CHECK_EQ(event.rlength, 100);
    CHECK_EQ(event.mlength, 0);
    CHECK_EQ(event.hdr_data, 42);
    CHECK_EQ(ptl_put_region(ni, src, 0, 64, PTL_NOACK_REQ, 0, 1, 0, 0, 43), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    CHECK_EQ(event.md_handle, small);
    expect_event(ni, eq, PTL_EVENT_UNLINK, &event);
    CHECK_EQ(ptl_ni_dropped(ni), 0);
    ptl_ni_fini(ni);
}

static void test_threshold(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t eq = new_eq(ni, 8);
    char *buf = ptl_region_alloc(ni, 64, 64);
    ptl_handle_md_t md = attach(ni, 0, 0, 0, buf, 64, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, 0, eq,
                                PTL_UNLINK, 2);
    char byte = 9;
    ptl_handle_md_t src = bind_source(ni, &byte, 1, PTL_EQ_NONE);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 0, 0, (uint64_t)i, 0), PTL_OK);
    struct ptl_event event;
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    expect_event(ni, eq, PTL_EVENT_PUT_END, &event);
    expect_event(ni, eq, PTL_EVENT_UNLINK, &event);
    CHECK_EQ(event.md_handle, md);
    expect_empty(ni, eq);
    CHECK_EQ(ptl_ni_dropped(ni), 1);
    CHECK_EQ(buf[2], 0);

    /* A bound MD with threshold 1 serves one operation. */
    struct ptl_md_desc desc = { .start = &byte, .length = 1, .threshold = 1 };
    ptl_handle_md_t once;
    CHECK_EQ(ptl_md_bind(ni, &desc, &once), PTL_OK);
    CHECK_EQ(ptl_put(ni, once, PTL_NOACK_REQ, 0, 0, 0, 0, 0), PTL_OK);
    CHECK_EQ(ptl_put(ni, once, PTL_NOACK_REQ, 0, 0, 0, 0, 0), PTL_MD_INVALID);
    ptl_ni_fini(ni);
}

static void test_event_options(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t eq = new_eq(ni, 8), tgt_eq = new_eq(ni, 8);
    char *buf = ptl_region_alloc(ni, 64, 64);
    attach(ni, 0, 0, 0, buf, 64, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE | PTL_MD_ACK_DISABLE, 0,
           tgt_eq, PTL_RETAIN, PTL_MD_THRESH_INF);
    attach(ni, 1, 0, 0, buf, 64, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_DISABLE, 0,
           tgt_eq, PTL_RETAIN, PTL_MD_THRESH_INF);
    char byte = 1;
    struct ptl_md_desc desc = { .start = &byte, .length = 1, .threshold = PTL_MD_THRESH_INF,
                                .options = PTL_MD_SEND_END_DISABLE, .eq = eq };
    ptl_handle_md_t src;
    CHECK_EQ(ptl_md_bind(ni, &desc, &src), PTL_OK);
    CHECK_EQ(ptl_put(ni, src, PTL_ACK_REQ, 0, 0, 0, 0, 0), PTL_OK);
    expect_empty(ni, eq); /* no SEND_END (disabled), no ACK (target disabled it) */
    expect_event(ni, tgt_eq, PTL_EVENT_PUT_END, NULL);
    CHECK_EQ(ptl_put(ni, src, PTL_ACK_REQ, 0, 1, 0, 0, 0), PTL_OK);
    expect_event(ni, eq, PTL_EVENT_ACK, NULL);
    expect_empty(ni, tgt_eq); /* target MD has events disabled */
    ptl_ni_fini(ni);
}

static void test_eq_overflow_is_reported(void)
{
    struct ptl_ni *ni = open_ni();
    ptl_handle_eq_t eq = new_eq(ni, 4);
    char *buf = ptl_region_alloc(ni, 64, 64);
    attach(ni, 0, 0, 0, buf, 64, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, 0, eq, PTL_RETAIN,
           PTL_MD_THRESH_INF);
    char byte = 1;
    ptl_handle_md_t src = bind_source(ni, &byte, 1, PTL_EQ_NONE);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(ptl_put(ni, src, PTL_NOACK_REQ, 0, 0, 0, 0, (uint64_t)i), PTL_OK);
    CHECK_EQ(ptl_eq_count(ni, eq), 4);
    struct ptl_event event;
    CHECK_EQ(ptl_eq_get(ni, eq, &event), PTL_EQ_DROPPED);
    CHECK_EQ(event.hdr_data, 0);
    for (int i = 1; i < 4; i++) {
        CHECK_EQ(ptl_eq_get(ni, eq, &event), PTL_OK);
        CHECK_EQ(event.hdr_data, (uint64_t)i);
    }
    expect_empty(ni, eq);
    ptl_ni_fini(ni);
}

/* A loss noticed only after the ring drained is still reported, once. */
static void test_ring_drop_without_event(void)
{
    static union {
        struct ptl_ring ring;
        char bytes[4096];
    } storage;
    CHECK(ptl_ring_bytes(3) <= sizeof storage);
    ptl_ring_init(&storage.ring, 3);
    CHECK_EQ(storage.ring.mask, 3);
    struct ptl_event event = { .type = PTL_EVENT_ACK, .hdr_data = 5 };
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ptl_ring_push(&storage.ring, &event), 0);
    CHECK_EQ(ptl_ring_push(&storage.ring, &event), -1);
    CHECK_EQ(ptl_ring_count(&storage.ring), 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ptl_ring_pop(&storage.ring, &event), i == 0 ? PTL_EQ_DROPPED : PTL_OK);
    atomic_store(&storage.ring.dropped, 1); /* as if a producer lost one just now */
    CHECK_EQ(ptl_ring_pop(&storage.ring, &event), PTL_EQ_DROPPED);
    CHECK_EQ(event.type, 0);
    CHECK_EQ(ptl_ring_pop(&storage.ring, &event), PTL_EQ_EMPTY);
}

/*
 * A consumer descheduled between taking an event and releasing its cell: the
 * ring has room (every other event was taken), so the producer that comes
 * round to that cell waits for the release; it must not count a drop.
 */
static struct ptl_ring *stalled_ring;
static _Atomic int stalled_push_done;

static void *push_past_stalled_consumer(void *arg)
{
    (void)arg;
    struct ptl_event event = { .type = PTL_EVENT_ACK, .hdr_data = 99 };
    intptr_t rc = ptl_ring_push(stalled_ring, &event);
    atomic_store(&stalled_push_done, 1);
    return (void *)rc;
}

static void test_ring_consumer_between_steps(void)
{
    static union {
        struct ptl_ring ring;
        char bytes[4096];
    } storage;
    stalled_ring = &storage.ring;
    ptl_ring_init(stalled_ring, 4);
    struct ptl_event event = { .type = PTL_EVENT_ACK };
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ptl_ring_push(stalled_ring, &event), 0);
    /* The first step of a pop of cell 0: the tail moves on, the cell is not yet released. */
    uint64_t expected = 0;
    CHECK(atomic_compare_exchange_strong(&stalled_ring->tail, &expected, 1));
    for (int i = 1; i < 4; i++)
        CHECK_EQ(ptl_ring_pop(stalled_ring, &event), PTL_OK);
    pthread_t pusher;
    CHECK_EQ(pthread_create(&pusher, NULL, push_past_stalled_consumer, NULL), 0);
    struct timespec pause = { 0, 20 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    CHECK_EQ(atomic_load(&stalled_push_done), 0); /* still waiting for the cell */
    /* The second step: the consumer releases cell 0 for position 4. */
    atomic_store_explicit(&stalled_ring->cells[0].seq, 4, memory_order_release);
    void *result;
    CHECK_EQ(pthread_join(pusher, &result), 0);
    CHECK(result == (void *)0);
    CHECK_EQ(atomic_load(&stalled_ring->dropped), 0);
    CHECK_EQ(ptl_ring_pop(stalled_ring, &event), PTL_OK);
    CHECK_EQ(event.hdr_data, 99);
    CHECK_EQ(ptl_ring_pop(stalled_ring, &event), PTL_EQ_EMPTY);
}

static void test_argument_checks(void)
{
    struct ptl_ni *ni = open_ni();
    char outside[64];
    char *inside = ptl_region_alloc(ni, 64, 64);
    ptl_handle_md_t md;
    struct ptl_md_desc desc = { .start = outside, .length = 64, .threshold = PTL_MD_THRESH_INF,
                                .options = PTL_MD_OP_PUT };
    CHECK_EQ(ptl_md_attach(ni, 0, 0, 0, &desc, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE, &md),
             PTL_MD_ILLEGAL);
    desc.start = inside;
    CHECK_EQ(ptl_md_attach(ni, 9, 0, 0, &desc, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE, &md),
             PTL_PT_INDEX_INVALID);
    desc.options = 0;
    CHECK_EQ(ptl_md_attach(ni, 0, 0, 0, &desc, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE, &md),
             PTL_MD_ILLEGAL);
    desc.threshold = 5000;
    CHECK_EQ(ptl_md_bind(ni, &desc, &md), PTL_MD_ILLEGAL);
    desc.threshold = PTL_MD_THRESH_INF;
    desc.eq = 0x12345;
    CHECK_EQ(ptl_md_bind(ni, &desc, &md), PTL_EQ_INVALID);
    desc.eq = PTL_EQ_NONE;
    CHECK_EQ(ptl_md_bind(ni, &desc, &md), PTL_OK);
    CHECK_EQ(ptl_put_region(ni, md, 60, 8, PTL_NOACK_REQ, 0, 0, 0, 0, 0), PTL_SEGV);
    CHECK_EQ(ptl_put_region(ni, md, 0, 8, PTL_NOACK_REQ, 1, 0, 0, 0, 0), PTL_PROCESS_INVALID);
    CHECK_EQ(ptl_md_unlink(ni, md), PTL_OK);
    CHECK_EQ(ptl_put(ni, md, PTL_NOACK_REQ, 0, 0, 0, 0, 0), PTL_MD_INVALID);
    CHECK(ptl_region_alloc(ni, REGION * 2ull, 64) == NULL);
    CHECK(ptl_region_alloc(ni, 8, 3) == NULL);
    CHECK_STR_CONTAINS(ptl_strerror(PTL_SEGV), "outside");
    ptl_ni_fini(ni);
}

static void test_md_table_full(void)
{
    struct ptl_ni *ni = open_ni();
    char byte;
    struct ptl_md_desc desc = { .start = &byte, .length = 1, .threshold = PTL_MD_THRESH_INF };
    ptl_handle_md_t handles[64], extra;
    for (int i = 0; i < 64; i++)
        CHECK_EQ(ptl_md_bind(ni, &desc, &handles[i]), PTL_OK);
    CHECK_EQ(ptl_md_bind(ni, &desc, &extra), PTL_NO_SPACE);
    CHECK_EQ(ptl_md_unlink(ni, handles[10]), PTL_OK);
    CHECK_EQ(ptl_md_bind(ni, &desc, &extra), PTL_OK);
    CHECK(extra != handles[10]); /* same slot, new generation */
    ptl_ni_fini(ni);
}

/*
 * One slot bound and unlinked 70,000 times (a TMPMD's life, over and over):
 * the first handle never names any of its successors.  A 16-bit generation
 * came round after 65,535 reuses, and the stale handle then validated.
 */
static void test_md_stale_handle_after_many_reuses(void)
{
    struct ptl_ni *ni = open_ni();
    char byte;
    struct ptl_md_desc desc = { .start = &byte, .length = 1, .threshold = PTL_MD_THRESH_INF };
    struct ptl_md_desc seen;
    ptl_handle_md_t old, cur;
    CHECK_EQ(ptl_md_bind(ni, &desc, &old), PTL_OK);
    CHECK_EQ(ptl_md_unlink(ni, old), PTL_OK);
    for (unsigned i = 0; i < 70000; i++) {
        CHECK_EQ(ptl_md_bind(ni, &desc, &cur), PTL_OK);
        CHECK_EQ(ptl_md_handle_index(cur), ptl_md_handle_index(old)); /* the same slot */
        if (cur == old || ptl_md_query(ni, old, &seen) != PTL_MD_INVALID)
            gp_test_fail(__FILE__, __LINE__, "after %u reuses the stale handle names the new MD",
                         i + 1);
        CHECK_EQ(ptl_md_query(ni, cur, &seen), PTL_OK);
        CHECK_EQ(ptl_md_unlink(ni, cur), PTL_OK);
    }
    CHECK_EQ(ptl_md_unlink(ni, old), PTL_MD_INVALID);
    CHECK_EQ(ptl_md_unlink(ni, cur), PTL_MD_INVALID);
    ptl_ni_fini(ni);
}

/* Several threads deposit into one locally managed MD: no two overlap. */
struct depositor {
    struct ptl_ni *ni;
    int id;
};

#define DEPOSITS 2000

static void *deposit_loop(void *arg)
{
    struct depositor *self = arg;
    uint32_t msg[8];
    struct ptl_md_desc desc = { .start = msg, .length = sizeof msg, .threshold = PTL_MD_THRESH_INF };
    ptl_handle_md_t src;
    if (ptl_md_bind(self->ni, &desc, &src) != PTL_OK)
        return (void *)1;
    for (uint32_t i = 0; i < DEPOSITS; i++) {
        uint64_t len = 4 * (1 + i % 8);
        for (unsigned w = 0; w < 8; w++)
            msg[w] = ((uint32_t)self->id << 24) | i;
        if (ptl_put_region(self->ni, src, 0, len, PTL_NOACK_REQ, 0, 0, 0, 0,
                           ((uint64_t)self->id << 32) | i) != PTL_OK)
            return (void *)1;
    }
    return NULL;
}

static void test_concurrent_deposits(void)
{
    struct ptl_ni *ni = open_ni();
    enum { THREADS = 4 };
    ptl_handle_eq_t eq = new_eq(ni, THREADS * DEPOSITS);
    uint64_t len = THREADS * DEPOSITS * 40ull;
    char *buf = ptl_region_alloc(ni, len, 64);
    CHECK(buf != NULL);
    attach(ni, 0, 0, 0, buf, len, PTL_MD_OP_PUT, 0, eq, PTL_RETAIN, PTL_MD_THRESH_INF);
    pthread_t threads[THREADS];
    struct depositor args[THREADS];
    for (int t = 0; t < THREADS; t++) {
        args[t] = (struct depositor){ ni, t + 1 };
        CHECK_EQ(pthread_create(&threads[t], NULL, deposit_loop, &args[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        void *result;
        pthread_join(threads[t], &result);
        CHECK(result == NULL);
    }
    static uint32_t next_seq[THREADS + 1];
    struct ptl_event event;
    for (int n = 0; n < THREADS * DEPOSITS; n++) {
        CHECK_EQ(ptl_eq_get(ni, eq, &event), PTL_OK);
        uint32_t id = (uint32_t)(event.hdr_data >> 32), seq = (uint32_t)event.hdr_data;
        CHECK(id >= 1 && id <= THREADS);
        CHECK_EQ(seq, next_seq[id]); /* one thread's deposits arrive in order */
        next_seq[id]++;
        CHECK_EQ(event.mlength, 4 * (1 + seq % 8));
        const uint32_t *words = (const uint32_t *)(buf + event.offset);
        for (unsigned w = 0; w < event.mlength / 4; w++)
            CHECK_EQ(words[w], (id << 24) | seq);
    }
    expect_empty(ni, eq);
    ptl_ni_fini(ni);
}

/* Producers and consumers at once on one ring: every event taken exactly once. */
#define RING_ITEMS 200000
static struct ptl_ring *shared_ring;
static _Atomic int ring_taken[2 * RING_ITEMS];
static _Atomic int ring_consumed;

static void *ring_producer(void *arg)
{
    uint64_t base = (uint64_t)(uintptr_t)arg * RING_ITEMS;
    for (uint64_t i = 0; i < RING_ITEMS; i++) {
        struct ptl_event event = { .type = PTL_EVENT_PUT_END, .hdr_data = base + i };
        while (ptl_ring_push(shared_ring, &event) != 0)
            atomic_store(&shared_ring->dropped, 0); /* full: retry (a test-only back-off) */
    }
    return NULL;
}

static void *ring_consumer(void *arg)
{
    (void)arg;
    struct ptl_event event;
    while (atomic_load(&ring_consumed) < 2 * RING_ITEMS) {
        int rc = ptl_ring_pop(shared_ring, &event);
        if (rc == PTL_EQ_EMPTY || (rc == PTL_EQ_DROPPED && event.type == 0))
            continue;
        if (event.hdr_data >= 2 * RING_ITEMS)
            return (void *)1;
        atomic_fetch_add(&ring_taken[event.hdr_data], 1);
        atomic_fetch_add(&ring_consumed, 1);
    }
    return NULL;
}

static void test_ring_many_producers_and_consumers(void)
{
    shared_ring = malloc(ptl_ring_bytes(64));
    ptl_ring_init(shared_ring, 64);
    pthread_t threads[4];
    for (uintptr_t t = 0; t < 2; t++)
        CHECK_EQ(pthread_create(&threads[t], NULL, ring_producer, (void *)t), 0);
    for (int t = 2; t < 4; t++)
        CHECK_EQ(pthread_create(&threads[t], NULL, ring_consumer, NULL), 0);
    for (int t = 0; t < 4; t++) {
        void *result;
        pthread_join(threads[t], &result);
        CHECK(result == NULL);
    }
    for (int i = 0; i < 2 * RING_ITEMS; i++)
        if (atomic_load(&ring_taken[i]) != 1)
            gp_test_fail(__FILE__, __LINE__, "event %d taken %d times", i,
                         atomic_load(&ring_taken[i]));
    free(shared_ring);
}

static void test_unknown_transport(void)
{
    struct ptl_ni_params params = { .transport = "carrier-pigeon", .region_bytes = 4096,
                                    .max_pt = 1, .max_me_per_pt = 1, .max_eq = 1, .max_md = 1 };
    struct ptl_ni *ni = NULL;
    CHECK_EQ(ptl_ni_init(&params, &ni), PTL_FAIL);
    CHECK(ni == NULL);
    params.transport = "loop";
    params.max_pt = 0;
    CHECK_EQ(ptl_ni_init(&params, &ni), PTL_MD_ILLEGAL);
}

static const struct gp_test tests[] = {
    { "put_remote_managed_events", test_put_remote_managed_events, 0 },
    { "get_events", test_get_events, 0 },
    { "match_order_and_ignore_bits", test_match_order_and_ignore_bits, 0 },
    { "locally_managed_packing_and_unlink", test_locally_managed_packing_and_unlink, 0 },
    { "truncate_catch_basin", test_truncate_catch_basin, 0 },
    { "threshold", test_threshold, 0 },
    { "event_options", test_event_options, 0 },
    { "eq_overflow_is_reported", test_eq_overflow_is_reported, 0 },
    { "ring_drop_without_event", test_ring_drop_without_event, 0 },
    { "ring_consumer_between_steps", test_ring_consumer_between_steps, 0 },
    { "argument_checks", test_argument_checks, 0 },
    { "md_table_full", test_md_table_full, 0 },
    { "md_stale_handle_after_many_reuses", test_md_stale_handle_after_many_reuses, 0 },
    { "concurrent_deposits", test_concurrent_deposits, 0 },
    { "ring_many_producers_and_consumers", test_ring_many_producers_and_consumers, 120 },
    { "unknown_transport", test_unknown_transport, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "ptl", tests);
}
