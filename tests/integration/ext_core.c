/*
 * The extended API end to end with real processes: every put, get and
 * memset form for sizes 0, 1, 7, 8, 63, 1023, 1024, 1025, 4 KiB, 1 MiB and
 * 16 MiB, local buffers in and out of the segment, to self and peers, each
 * byte checked where it lands; source overwrite right after non-bulk
 * initiation; value puts and gets; more outstanding operations than there
 * are tickets and TMPMDs; access regions in loops; barriers named,
 * anonymous, mixed and mismatched.  Public API only.
 *
 * Usage: ext_core [BARRIERS [MAX_SIZE]]
 * MAX_SIZE leaves out the sizes above it (the ibv suite runs under emulation,
 * where 16 MiB transfers take minutes); the last line then says so.
 */
#include <string.h>

#include "amtest.h"

#define BIG (16u << 20)
#define MANY 3000
#define SMALL_TESTS_BYTES (64u << 10) /* memsets' 8001, many_outstanding's 8 x MANY */

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
/* One slot of the segment's layout: the largest transfer, and room for the small tests'
 * 24,000 bytes; sized by MAX_SIZE, since registering a segment of 16 MiB slots is most of a
 * short run's time under emulation. */
static size_t slot_bytes;
static unsigned char *private_buf, *private_check;

static const size_t sizes[] = { 0, 1, 7, 8, 63, 1023, 1024, 1025, 4096, 1u << 20, BIG };
#define NSIZES (sizeof sizes / sizeof sizes[0])

enum form { BLOCKING, BULK, NB, NB_BULK, NBI, NBI_BULK, FORMS };

static unsigned char pattern(gasnet_node_t src, size_t size, int form, int local_in_seg, size_t i)
{
    return (unsigned char)(src * 31 + size * 7 + (size_t)form * 13 + (size_t)local_in_seg * 97 +
                           i * 11 + (i >> 8));
}

/* The pattern a block of 256 bytes at a time: within block b (i = 256 b + j) byte j is
 * pattern(..., 256 b) + 11 j, since 256 x 11 vanishes mod 256: a block is filled by a loop
 * the compiler vectorizes and checked with memcmp, not a formula and a branch per byte. */
static void pattern_block(unsigned char *block, unsigned char first, size_t len)
{
    for (size_t j = 0; j < len; j++)
        block[j] = (unsigned char)(first + j * 11);
}

static void fill_pattern(unsigned char *buf, gasnet_node_t src, size_t n, int form, int in_seg)
{
    for (size_t at = 0; at < n; at += 256)
        pattern_block(buf + at, pattern(src, n, form, in_seg, at), n - at < 256 ? n - at : 256);
}

/* The index of the first byte of buf that is not the pattern, or n when all are. */
static size_t pattern_mismatch(const unsigned char *buf, gasnet_node_t src, size_t n, int form,
                               int in_seg)
{
    unsigned char want[256];
    for (size_t at = 0; at < n; at += 256) {
        size_t len = n - at < 256 ? n - at : 256;
        pattern_block(want, pattern(src, n, form, in_seg, at), len);
        if (memcmp(buf + at, want, len) != 0)
            for (size_t j = 0;; j++)
                if (buf[at + j] != want[j])
                    return at + j;
    }
    return n;
}

/* Each node's segment: [inbox: one slot per source][source staging][get area]. */
static char *inbox(gasnet_node_t owner, gasnet_node_t src)
{
    return (char *)seg[owner].addr + (size_t)src * slot_bytes;
}
static unsigned char *staging(void) { return (unsigned char *)seg[me].addr + (size_t)nodes * slot_bytes; }
static char *published(gasnet_node_t owner)
{
    return (char *)seg[owner].addr + (size_t)(nodes + 1) * slot_bytes + GASNET_PAGESIZE; /* a guard byte before */
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

static void put_form(int form, gasnet_node_t node, void *dest, unsigned char *src, size_t n)
{
    gasnet_handle_t handle = GASNET_INVALID_HANDLE;
    switch (form) {
    case BLOCKING: gasnet_put(node, dest, src, n); return;
    case BULK: gasnet_put_bulk(node, dest, src, n); return;
    case NB: handle = gasnet_put_nb(node, dest, src, n); break;
    case NB_BULK: handle = gasnet_put_nb_bulk(node, dest, src, n); break;
    case NBI: gasnet_put_nbi(node, dest, src, n); break;
    default: gasnet_put_nbi_bulk(node, dest, src, n); break;
    }
    if (form == NB || form == NBI) /* non-bulk: the source is ours again on return */
        memset(src, 0xcc, n);
    if (form == NB || form == NB_BULK)
        gasnet_wait_syncnb(handle);
    else
        gasnet_wait_syncnbi_puts();
}

static void get_form(int form, void *dest, gasnet_node_t node, void *src, size_t n)
{
    switch (form) {
    case BLOCKING: gasnet_get(dest, node, src, n); break;
    case BULK: gasnet_get_bulk(dest, node, src, n); break;
    case NB: gasnet_wait_syncnb(gasnet_get_nb(dest, node, src, n)); break;
    case NB_BULK: {
        gasnet_handle_t handle = gasnet_get_nb_bulk(dest, node, src, n);
        while (gasnet_try_syncnb(handle) != GASNET_OK)
            ;
        break;
    }
    case NBI: gasnet_get_nbi(dest, node, src, n); gasnet_wait_syncnbi_gets(); break;
    default:
        gasnet_get_nbi_bulk(dest, node, src, n);
        while (gasnet_try_syncnbi_all() != GASNET_OK)
            ;
        break;
    }
}

/* Every put form: node me writes to (me + shift)'s inbox slot for me; the owner checks. */
static void puts_of_size(size_t n, gasnet_node_t shift)
{
    gasnet_node_t target = (me + shift) % nodes, source = (me + nodes - shift) % nodes;
    for (int form = 0; form < FORMS; form++) {
        for (int in_seg = 0; in_seg < 2; in_seg++) {
            unsigned char *src = in_seg ? staging() : private_buf;
            fill_pattern(src, me, n, form, in_seg);
            put_form(form, target, inbox(target, me), src, n);
            barrier();
            const unsigned char *got = (const unsigned char *)inbox(me, source);
            size_t bad = pattern_mismatch(got, source, n, form, in_seg);
            CHECK(bad == n, "put form %d size %zu from node %u (local %s): byte %zu is %u", form, n,
                  source, in_seg ? "in segment" : "private", bad, bad < n ? got[bad] : 0);
            barrier();
        }
    }
}

/* Every get form: read (me + shift)'s published area into local memory. */
static void gets_of_size(size_t n, gasnet_node_t shift)
{
    gasnet_node_t target = (me + shift) % nodes;
    fill_pattern((unsigned char *)published(me), me, n, 0, 0);
    barrier();
    for (int form = 0; form < FORMS; form++) {
        for (int in_seg = 0; in_seg < 2; in_seg++) {
            unsigned char *dest = in_seg ? staging() : private_check;
            memset(dest, 0, n + 1);
            get_form(form, dest, target, published(target), n);
            size_t bad = pattern_mismatch(dest, target, n, 0, 0);
            CHECK(bad == n, "get form %d size %zu from node %u (local %s): byte %zu is %u", form, n,
                  target, in_seg ? "in segment" : "private", bad, bad < n ? dest[bad] : 0);
            CHECK(dest[n] == 0, "get of %zu bytes wrote past the end", n);
        }
    }
    barrier();
}

static void memsets(void)
{
    gasnet_node_t target = (me + 1) % nodes;
    char *slot = inbox(target, me);
    gasnet_memset(target, slot, 0x11, 5000);
    gasnet_wait_syncnb(gasnet_memset_nb(target, slot + 5000, 0x22, 3000));
    gasnet_memset_nbi(target, slot + 8000, 0x33, 1);
    gasnet_wait_syncnbi_puts();
    gasnet_get(private_check, target, slot, 8001);
    for (size_t i = 0; i < 8001; i++)
        CHECK(private_check[i] == (i < 5000 ? 0x11 : i < 8000 ? 0x22 : 0x33), "memset byte %zu", i);
}

static void values(void)
{
    gasnet_node_t target = (me + 1) % nodes;
    char *slot = inbox(target, me);
    gasnet_put_val(target, slot, 0x1122334455667788ull, 8);
    gasnet_wait_syncnb(gasnet_put_nb_val(target, slot + 8, 0xabcd, sizeof(int)));
    gasnet_put_nbi_val(target, slot + 16, 0x7f, 1);
    gasnet_wait_syncnbi_puts();
    CHECK(gasnet_get_val(target, slot, 8) == 0x1122334455667788ull, "value put/get of 8 bytes");
    CHECK(gasnet_get_val(target, slot + 8, sizeof(int)) == 0xabcd, "int value");
    CHECK(gasnet_get_val(target, slot + 16, 1) == 0x7f, "byte value");
    CHECK(gasnet_get_val(target, slot + 4, 4) == 0x11223344ull, "zero-extended high half");
    gasnet_valget_handle_t handles[100];
    for (int i = 0; i < 100; i++)
        handles[i] = gasnet_get_nb_val(target, slot + (i % 2) * 8, 2);
    for (int i = 0; i < 100; i++)
        CHECK(gasnet_wait_syncnb_valget(handles[i]) == ((i % 2) ? 0xabcdu : 0x7788u), "valget %d", i);
}

/* More outstanding operations than tickets (250) and TMPMDs (1024) by default. */
static void many_outstanding(void)
{
    static gasnet_handle_t handles[MANY];
    gasnet_node_t target = (me + 1) % nodes;
    uint64_t *words = (uint64_t *)private_buf;
    for (int i = 0; i < MANY; i++) {
        words[i] = ((uint64_t)me << 32) | (uint64_t)i;
        handles[i] = gasnet_put_nb_bulk(target, inbox(target, me) + 8 * i, &words[i], 8);
    }
    (void)gasnet_try_syncnb_some(handles, MANY); /* retires what is done, keeps the rest */
    gasnet_wait_syncnb_all(handles, MANY);
    for (int i = 0; i < MANY; i++)
        CHECK(handles[i] == GASNET_INVALID_HANDLE, "wait_all left handle %d", i);
    for (int i = 0; i < MANY; i++)
        gasnet_get_nbi_bulk(private_check + 8 * i, target, inbox(target, me) + 8 * i, 8);
    gasnet_wait_syncnbi_gets();
    CHECK(memcmp(private_check, private_buf, 8 * MANY) == 0, "many puts then gets");
    CHECK(gasnet_try_syncnbi_all() == GASNET_OK, "nothing left");
}

static void access_regions(void)
{
    gasnet_node_t target = (me + 1) % nodes;
    gasnet_handle_t regions[10];
    for (int r = 0; r < 10; r++) {
        gasnet_begin_nbi_accessregion();
        for (int i = 0; i < 100; i++)
            gasnet_put_nbi_val(target, inbox(target, me) + 8 * (r * 100 + i),
                               (gasnet_register_value_t)(r * 1000 + i), 8);
        gasnet_handle_t outside = gasnet_get_nb(private_check, target, inbox(target, me), 8);
        gasnet_wait_syncnb(outside);
        regions[r] = gasnet_end_nbi_accessregion();
        CHECK(regions[r] != GASNET_INVALID_HANDLE, "a region gives a real handle");
    }
    gasnet_begin_nbi_accessregion();
    gasnet_handle_t empty = gasnet_end_nbi_accessregion();
    CHECK(empty != GASNET_INVALID_HANDLE, "an empty region gives a real handle");
    gasnet_wait_syncnb(empty);
    gasnet_wait_syncnb_all(regions, 10);
    gasnet_get(private_check, target, inbox(target, me), 8000);
    for (int i = 0; i < 1000; i++)
        CHECK(((uint64_t *)private_check)[i] == (uint64_t)((i / 100) * 1000 + i % 100), "region %d", i);
}

static void barriers(int count)
{
    for (int i = 0; i < count; i++) {
        int named = i % 3 != 0;
        int flags = named ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
        gasnet_barrier_notify(i, flags);
        CHECK(gasnet_barrier_wait(i, flags) == GASNET_OK, "barrier %d", i);
    }
    /* Anonymous on even nodes, named on odd ones: one name, so all match. */
    int flags = me % 2 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
    gasnet_barrier_notify(77, flags);
    CHECK(gasnet_barrier_wait(77, flags) == GASNET_OK, "mixed anonymous and named");
    /* Node 0 names a different value: every node sees the mismatch. */
    if (nodes > 1) {
        gasnet_barrier_notify(me == 0 ? 5 : 6, 0);
        int rc;
        while ((rc = gasnet_barrier_try(me == 0 ? 5 : 6, 0)) == GASNET_ERR_NOT_READY)
            ;
        CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "different names: %s", gasnet_ErrorName(rc));
    }
    /* One node forces a mismatch. */
    flags = me == nodes - 1 ? GASNET_BARRIERFLAG_MISMATCH : GASNET_BARRIERFLAG_ANONYMOUS;
    gasnet_barrier_notify(0, flags);
    CHECK(gasnet_barrier_wait(0, flags) == GASNET_ERR_BARRIER_MISMATCH, "forced mismatch");
    /* Waiting with a different name than notified. */
    gasnet_barrier_notify(1, 0);
    CHECK(gasnet_barrier_wait(2, 0) == GASNET_ERR_BARRIER_MISMATCH, "wait name differs");
    CHECK(gasnet_barrier(3, 0) == GASNET_OK, "blocking gasnet_barrier");
}

static gasnet_handlerentry_t table[] = { AMTEST_HANDLERS };

int main(int argc, char **argv)
{
    amtest_name = "ext_core";
    int barrier_count = argc > 1 ? atoi(argv[1]) : 10000;
    size_t max_size = BIG;
    if (argc > 2) {
        char *unit;
        max_size = (size_t)strtoull(argv[2], &unit, 10);
        max_size <<= *unit == 'K' ? 10 : *unit == 'M' ? 20 : 0;
    }
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    slot_bytes = (max_size + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    if (slot_bytes < SMALL_TESTS_BYTES)
        slot_bytes = SMALL_TESTS_BYTES;
    if (slot_bytes > BIG)
        slot_bytes = BIG;
    uintptr_t segsize = (uintptr_t)(nodes + 2) * slot_bytes + 2 * GASNET_PAGESIZE;
    CHECK(gasnet_attach(table, 2, segsize, 0) == GASNET_OK, "attach");
    seg = calloc(nodes, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)nodes);
    private_buf = malloc(slot_bytes + 1);
    private_check = malloc(slot_bytes + 1);
    barrier();
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        if (n > max_size)
            break;
        /* large sizes to one peer and self; small ones to every node */
        gasnet_node_t shifts = n >= (1u << 20) ? (nodes > 1 ? 2 : 1) : nodes;
        for (gasnet_node_t shift = 0; shift < shifts; shift++) {
            puts_of_size(n, shift);
            gets_of_size(n, shift);
        }
    }
    memsets();
    values();
    many_outstanding();
    access_regions();
    barrier();
    barriers(barrier_count);
    /* Print before the last barrier: once a node is past it, its exit may end this one. */
    if (me == 0 && max_size < BIG)
        printf("ext_core: %u nodes, every put/get/memset form verified, %d barriers, "
               "sizes up to %zu bytes\n", nodes, barrier_count, max_size);
    else if (me == 0)
        printf("ext_core: %u nodes, every put/get/memset form verified, %d barriers\n", nodes,
               barrier_count);
    fflush(stdout);
    barrier();
    gasnet_exit(0);
}
