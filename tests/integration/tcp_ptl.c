/*
 * The ptl semantics of tests/unit/test_ptl.c, between two processes over a
 * real transport: run once with shm and once with tcp, the same program
 * must see the same events with the same fields.  Rank 0 is the initiator,
 * rank 1 the target of each case:
 *
 *   put_events   remote-managed put with ACK: data, PUT_END / SEND_END / ACK fields
 *   get_events   get: data, REPLY_END / GET_END fields; a put into a get-only
 *                MD is dropped and counted, with SEND_END and no ACK
 *   deposits     locally managed packing (16-byte aligned), auto-unlink,
 *                UNLINK after the last PUT_END with its counts
 *   truncation   a catch basin (zero-length, truncating) and a partial
 *                truncation, followed at once by more traffic
 *   threshold    an MD that takes two puts, then unlinks; the third is dropped
 *   options      ACK_DISABLE, EVENT_DISABLE, SEND_END_DISABLE
 *   gets_dropped a get that matches nothing (no event), then one that does
 *   self         puts and gets to this process itself
 *   both_ways    8 MiB puts in both directions at once (no deadlock), read back
 *
 * Each case ends with a fence: each rank puts to the other's fence MD with
 * an ACK and progresses until its ACK and the peer's fence have arrived, so
 * every earlier frame has been handled on both sides.  The bootstrap
 * barrier between cases only runs when nobody needs the other's progress.
 *
 * Usage: tcp_ptl shm|tcp   (gp-run -n 2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boot/boot.h"
#include "conduit/attach/runtime.h"
#include "ptl/ptl.h"

#define PT_CASE 1
#define PT_BIG 2
#define PT_FENCE 3
#define MATCH_FENCE 0xfe
#define BIG (8u << 20)
#define WAIT_SECONDS 30

static int rank;
static struct ptl_ni *ni;
static ptl_handle_eq_t ev_eq, tgt_eq, ctl_eq;
static ptl_handle_md_t fence_src;
static uint64_t dropped_expected;
static const char *case_name = "setup";

#define FAIL(...)                                                       \
    do {                                                                \
        fprintf(stderr, "tcp_ptl rank %d, case %s, line %d: ", rank,   \
                case_name, __LINE__);                                   \
        fprintf(stderr, __VA_ARGS__);                                   \
        fputc('\n', stderr);                                            \
        exit(1);                                                        \
    } while (0)
#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_)                                                               \
            FAIL("%s is %llu (0x%llx), expected %llu", #a, a_, a_, b_);             \
    } while (0)
#define OK(call) CHECK_EQ(call, PTL_OK)

static void next_event(ptl_handle_eq_t eq, struct ptl_event *event, int line)
{
    time_t until = time(NULL) + WAIT_SECONDS;
    int rc;
    while ((rc = ptl_eq_get(ni, eq, event)) == PTL_EQ_EMPTY) {
        if (time(NULL) > until)
            FAIL("line %d: no event within %d s", line, WAIT_SECONDS);
        ptl_progress(ni);
    }
    if (rc != PTL_OK)
        FAIL("line %d: ptl_eq_get: %s", line, ptl_strerror(rc));
}

static struct ptl_event expect_line(ptl_handle_eq_t eq, int type, int line)
{
    struct ptl_event event;
    next_event(eq, &event, line);
    if ((int)event.type != type)
        FAIL("line %d: expected %s, got %s", line, ptl_event_kind_str(type),
             ptl_event_kind_str((int)event.type));
    return event;
}
#define EXPECT(eq, type) expect_line((eq), (type), __LINE__)

static void expect_empty_line(ptl_handle_eq_t eq, int line)
{
    struct ptl_event event;
    int rc = ptl_eq_get(ni, eq, &event);
    if (rc != PTL_EQ_EMPTY)
        FAIL("line %d: expected an empty EQ, got %s (event %s)", line, ptl_strerror(rc),
             ptl_event_kind_str((int)event.type));
}
#define EXPECT_EMPTY(eq) expect_empty_line((eq), __LINE__)

static ptl_handle_md_t bind(void *buf, uint64_t len, unsigned options, ptl_handle_eq_t eq)
{
    struct ptl_md_desc desc = { .start = buf, .length = len, .threshold = PTL_MD_THRESH_INF,
                                .options = options, .eq = eq };
    ptl_handle_md_t md;
    OK(ptl_md_bind(ni, &desc, &md));
    return md;
}

static ptl_handle_md_t attach(unsigned pt, uint64_t match, void *start, uint64_t len,
                              unsigned options, uint64_t max_size, ptl_handle_eq_t eq,
                              enum ptl_unlink_op unlink_op, int threshold)
{
    struct ptl_md_desc desc = { .start = start, .length = len, .threshold = threshold,
                                .max_size = max_size, .options = options, .eq = eq,
                                .user_ptr = start };
    ptl_handle_md_t md;
    OK(ptl_md_attach(ni, pt, match, 0, &desc, unlink_op, PTL_INS_AFTER, PTL_INVALID_HANDLE, &md));
    return md;
}

/* Both ranks: every frame sent before it has been handled on both sides. */
static void fence(void)
{
    int peer = 1 - rank, acked = 0, arrived = 0;
    OK(ptl_put(ni, fence_src, PTL_ACK_REQ, (unsigned)peer, PT_FENCE, MATCH_FENCE, 0, 0));
    while (!acked || !arrived) {
        struct ptl_event event;
        next_event(ctl_eq, &event, __LINE__);
        acked += event.type == PTL_EVENT_ACK;
        arrived += event.type == PTL_EVENT_PUT_END;
    }
    if (rank == 1)
        CHECK_EQ(ptl_ni_dropped(ni), dropped_expected);
}

static void begin(const char *name)
{
    case_name = name;
    if (gp_boot_barrier() != 0)
        FAIL("barrier");
}

static void setup(const char *transport)
{
    struct ptl_ni_params params = {
        .transport = transport, .max_pt = 4, .max_me_per_pt = 16, .max_eq = 4, .max_md = 64,
        .region_bytes = BIG + (1u << 20) + 3 * ptl_eq_bytes(64),
    };
    OK(ptl_ni_init(&params, &ni));
    OK(ptl_eq_alloc(ni, 64, &ev_eq));
    OK(ptl_eq_alloc(ni, 64, &tgt_eq));
    OK(ptl_eq_alloc(ni, 64, &ctl_eq));
    void *fence_buf = ptl_region_alloc(ni, 64, 64);
    attach(PT_FENCE, MATCH_FENCE, fence_buf, 16, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, 0, ctl_eq,
           PTL_RETAIN, PTL_MD_THRESH_INF);
    static char fence_byte;
    fence_src = bind(&fence_byte, 1, 0, ctl_eq);
}

static void case_put_events(void)
{
    char *target = ptl_region_alloc(ni, 4096, 64);
    ptl_handle_md_t tgt = PTL_INVALID_HANDLE;
    memset(target, 0, 4096);
    if (rank == 1)
        tgt = attach(PT_CASE, 0x5, target, 4096,
                     PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0, tgt_eq, PTL_RETAIN,
                     PTL_MD_THRESH_INF);
    begin("put_events");
    char source[300];
    for (unsigned i = 0; i < sizeof source; i++)
        source[i] = (char)(i * 7 + 1);
    if (rank == 0) {
        ptl_handle_md_t src = bind(source, sizeof source, 0, ev_eq);
        OK(ptl_put_region(ni, src, 10, 200, PTL_ACK_REQ, 1, PT_CASE, 0x5, 1000, 0xfeedbeefull));
        struct ptl_event event = EXPECT(ev_eq, PTL_EVENT_SEND_END);
        CHECK_EQ(event.offset, 10);
        event = EXPECT(ev_eq, PTL_EVENT_ACK);
        CHECK_EQ(event.md_handle, src);
        CHECK_EQ(event.mlength, 200);
        CHECK_EQ(event.offset, 1000);
        CHECK_EQ(event.match_bits, 0x5);
        CHECK_EQ(event.hdr_data, 0xfeedbeefull);
    }
    fence();
    if (rank == 1) {
        if (memcmp(target + 1000, source + 10, 200) != 0 || target[999] != 0 || target[1200] != 0)
            FAIL("the put's bytes are not where they belong");
        struct ptl_event event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        CHECK_EQ(event.md_handle, tgt);
        CHECK_EQ(event.match_bits, 0x5);
        CHECK_EQ(event.hdr_data, 0xfeedbeefull);
        CHECK_EQ(event.rlength, 200);
        CHECK_EQ(event.mlength, 200);
        CHECK_EQ(event.offset, 1000);
        CHECK_EQ(event.initiator, 0);
        CHECK_EQ(event.pt_index, PT_CASE);
        if (event.md_user_ptr != target || event.md_start != target)
            FAIL("PUT_END does not name the target MD's start and user pointer");
        OK(ptl_md_unlink(ni, tgt));
    }
    EXPECT_EMPTY(ev_eq);
    EXPECT_EMPTY(tgt_eq);
}

static void case_get_events(void)
{
    char *target = ptl_region_alloc(ni, 4096, 64);
    for (unsigned i = 0; i < 4096; i++)
        target[i] = (char)(i ^ 0x5a);
    ptl_handle_md_t tgt = PTL_INVALID_HANDLE;
    if (rank == 1)
        tgt = attach(PT_CASE, 0, target, 4096, PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
                     PTL_RETAIN, PTL_MD_THRESH_INF);
    begin("get_events");
    if (rank == 0) {
        char dest[512] = { 0 };
        ptl_handle_md_t dst = bind(dest, sizeof dest, 0, ev_eq);
        OK(ptl_get_region(ni, dst, 12, 256, 1, PT_CASE, 0, 3000));
        struct ptl_event event = EXPECT(ev_eq, PTL_EVENT_REPLY_END);
        CHECK_EQ(event.mlength, 256);
        CHECK_EQ(event.offset, 12);
        CHECK_EQ(event.md_handle, dst);
        if (memcmp(dest + 12, target + 3000, 256) != 0 || dest[11] != 0 || dest[268] != 0)
            FAIL("the got bytes are not where they belong");
        /* A put into a get-only MD matches nothing: dropped, SEND_END, no ACK. */
        OK(ptl_put_region(ni, dst, 0, 8, PTL_ACK_REQ, 1, PT_CASE, 0, 0, 0));
        EXPECT(ev_eq, PTL_EVENT_SEND_END);
    }
    dropped_expected++;
    fence();
    if (rank == 1) {
        struct ptl_event event = EXPECT(tgt_eq, PTL_EVENT_GET_END);
        CHECK_EQ(event.offset, 3000);
        CHECK_EQ(event.mlength, 256);
        CHECK_EQ(event.rlength, 256);
        CHECK_EQ(event.initiator, 0);
        CHECK_EQ(event.md_handle, tgt);
        OK(ptl_md_unlink(ni, tgt));
    }
    EXPECT_EMPTY(ev_eq);
    EXPECT_EMPTY(tgt_eq);
}

static void case_deposits(void)
{
    char *buf = ptl_region_alloc(ni, 2048, 64);
    ptl_handle_md_t first = PTL_INVALID_HANDLE, second = PTL_INVALID_HANDLE;
    if (rank == 1) {
        first = attach(PT_CASE, 7, buf, 1024, PTL_MD_OP_PUT, 256, tgt_eq, PTL_UNLINK,
                       PTL_MD_THRESH_INF);
        second = attach(PT_CASE, 7, buf + 1024, 1024, PTL_MD_OP_PUT, 256, tgt_eq, PTL_UNLINK,
                        PTL_MD_THRESH_INF);
    }
    begin("deposits");
    if (rank == 0) {
        char msg[100];
        ptl_handle_md_t src = bind(msg, sizeof msg, 0, PTL_EQ_NONE);
        /* The buffer is rewritten as soon as each put returns: it must have left. */
        for (int i = 0; i < 8; i++) {
            memset(msg, 'a' + i, sizeof msg);
            OK(ptl_put(ni, src, PTL_NOACK_REQ, 1, PT_CASE, 7, 0, (uint64_t)i));
        }
    }
    fence();
    if (rank == 1) {
        struct ptl_event event;
        for (int i = 0; i < 7; i++) {
            event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
            CHECK_EQ(event.md_handle, first);
            CHECK_EQ(event.offset, (uint64_t)i * 112);
            CHECK_EQ(event.hdr_data, (uint64_t)i);
            CHECK_EQ(buf[event.offset], 'a' + i);
            CHECK_EQ(buf[event.offset + 99], 'a' + i);
        }
        /* UNLINK right after the full MD's last PUT_END, ahead of the eighth
         * deposit's PUT_END (which went to the second MD). */
        event = EXPECT(tgt_eq, PTL_EVENT_UNLINK);
        CHECK_EQ(event.md_handle, first);
        CHECK_EQ(event.mlength, 7);
        CHECK_EQ(event.offset, 784);
        event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        CHECK_EQ(event.md_handle, second);
        CHECK_EQ(event.offset, 0);
        CHECK_EQ(buf[1024], 'a' + 7);
        OK(ptl_md_unlink(ni, second));
    }
    EXPECT_EMPTY(tgt_eq);
}

static void case_truncation(void)
{
    char *buf = ptl_region_alloc(ni, 256, 64);
    ptl_handle_md_t small = 0, basin = 0, partial = 0;
    memset(buf, 0, 256);
    if (rank == 1) {
        small = attach(PT_CASE, 0x40, buf, 64, PTL_MD_OP_PUT, 64, tgt_eq, PTL_UNLINK,
                       PTL_MD_THRESH_INF);
        basin = attach(PT_CASE, 0x40, buf, 0, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, 0, tgt_eq,
                       PTL_RETAIN, PTL_MD_THRESH_INF);
        partial = attach(PT_CASE, 0x41, buf + 128, 64,
                         PTL_MD_OP_PUT | PTL_MD_TRUNCATE | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
                         PTL_RETAIN, PTL_MD_THRESH_INF);
    }
    begin("truncation");
    char msg[100];
    for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (char)(i + 1);
    if (rank == 0) {
        ptl_handle_md_t src = bind(msg, sizeof msg, 0, ev_eq);
        OK(ptl_put(ni, src, PTL_NOACK_REQ, 1, PT_CASE, 0x40, 0, 42));
        OK(ptl_put_region(ni, src, 0, 64, PTL_NOACK_REQ, 1, PT_CASE, 0x40, 0, 43));
        OK(ptl_put(ni, src, PTL_ACK_REQ, 1, PT_CASE, 0x41, 0, 44));
        EXPECT(ev_eq, PTL_EVENT_SEND_END);
        EXPECT(ev_eq, PTL_EVENT_SEND_END);
        EXPECT(ev_eq, PTL_EVENT_SEND_END);
        struct ptl_event event = EXPECT(ev_eq, PTL_EVENT_ACK);
        CHECK_EQ(event.mlength, 64);
    }
    fence();
    if (rank == 1) {
        struct ptl_event event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        CHECK_EQ(event.md_handle, basin); /* 100 bytes do not fit in 64 */
        CHECK_EQ(event.rlength, 100);
        CHECK_EQ(event.mlength, 0);
        CHECK_EQ(event.hdr_data, 42);
        event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        CHECK_EQ(event.md_handle, small);
        CHECK_EQ(EXPECT(tgt_eq, PTL_EVENT_UNLINK).md_handle, small); /* next, as in Portals */
        event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        CHECK_EQ(event.md_handle, partial);
        CHECK_EQ(event.rlength, 100);
        CHECK_EQ(event.mlength, 64);
        if (memcmp(buf + 128, msg, 64) != 0 || buf[192] != 0)
            FAIL("the truncated put's bytes are wrong");
        OK(ptl_md_unlink(ni, basin));
        OK(ptl_md_unlink(ni, partial));
    }
    EXPECT_EMPTY(ev_eq);
    EXPECT_EMPTY(tgt_eq);
}

static void case_threshold(void)
{
    char *buf = ptl_region_alloc(ni, 64, 64);
    memset(buf, 0, 64);
    ptl_handle_md_t md = 0;
    if (rank == 1)
        md = attach(PT_CASE, 0x50, buf, 64, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
                    PTL_UNLINK, 2);
    begin("threshold");
    if (rank == 0) {
        static char byte = 9;
        ptl_handle_md_t src = bind(&byte, 1, 0, PTL_EQ_NONE);
        for (int i = 0; i < 3; i++)
            OK(ptl_put(ni, src, PTL_NOACK_REQ, 1, PT_CASE, 0x50, (uint64_t)i, 0));
    }
    dropped_expected++;
    fence();
    if (rank == 1) {
        EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        EXPECT(tgt_eq, PTL_EVENT_PUT_END);
        struct ptl_event event = EXPECT(tgt_eq, PTL_EVENT_UNLINK);
        CHECK_EQ(event.md_handle, md);
        CHECK_EQ(buf[2], 0);
    }
    EXPECT_EMPTY(tgt_eq);
}

static void case_options(void)
{
    char *buf = ptl_region_alloc(ni, 64, 64);
    ptl_handle_md_t quiet = 0, silent = 0;
    if (rank == 1) {
        quiet = attach(PT_CASE, 0x60, buf, 64,
                       PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE | PTL_MD_ACK_DISABLE, 0, tgt_eq,
                       PTL_RETAIN, PTL_MD_THRESH_INF);
        silent = attach(PT_CASE, 0x61, buf, 64,
                        PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_DISABLE, 0, tgt_eq,
                        PTL_RETAIN, PTL_MD_THRESH_INF);
    }
    begin("options");
    if (rank == 0) {
        static char byte = 1;
        ptl_handle_md_t src = bind(&byte, 1, PTL_MD_SEND_END_DISABLE, ev_eq);
        OK(ptl_put(ni, src, PTL_ACK_REQ, 1, PT_CASE, 0x60, 0, 0)); /* no ACK: target disabled it */
        OK(ptl_put(ni, src, PTL_ACK_REQ, 1, PT_CASE, 0x61, 0, 0));
        EXPECT(ev_eq, PTL_EVENT_ACK);
    }
    fence();
    if (rank == 1) {
        EXPECT(tgt_eq, PTL_EVENT_PUT_END); /* the silent MD posts nothing */
        OK(ptl_md_unlink(ni, quiet));
        OK(ptl_md_unlink(ni, silent));
    }
    EXPECT_EMPTY(ev_eq);
    EXPECT_EMPTY(tgt_eq);
}

static void case_gets_dropped(void)
{
    char *buf = ptl_region_alloc(ni, 64, 64);
    for (int i = 0; i < 64; i++)
        buf[i] = (char)(100 + i);
    ptl_handle_md_t md = 0;
    if (rank == 1)
        md = attach(PT_CASE, 0x70, buf, 64, PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
                    PTL_RETAIN, PTL_MD_THRESH_INF);
    begin("gets_dropped");
    if (rank == 0) {
        char dest[64] = { 0 };
        ptl_handle_md_t dst = bind(dest, sizeof dest, 0, ev_eq);
        OK(ptl_get(ni, dst, 1, PT_CASE, 0x71, 0)); /* matches nothing: no event at all */
        OK(ptl_get_region(ni, dst, 0, 32, 1, PT_CASE, 0x70, 16));
        struct ptl_event event = EXPECT(ev_eq, PTL_EVENT_REPLY_END);
        CHECK_EQ(event.mlength, 32);
        if (memcmp(dest, buf + 16, 32) != 0)
            FAIL("the got bytes are wrong");
    }
    dropped_expected++;
    fence();
    if (rank == 1) {
        struct ptl_event event = EXPECT(tgt_eq, PTL_EVENT_GET_END);
        CHECK_EQ(event.offset, 16);
        OK(ptl_md_unlink(ni, md));
    }
    EXPECT_EMPTY(ev_eq);
    EXPECT_EMPTY(tgt_eq);
}

static void case_self(void)
{
    begin("self");
    char *buf = ptl_region_alloc(ni, 64, 64);
    memset(buf, 0, 64);
    ptl_handle_md_t md = attach(PT_CASE, 0x80, buf, 64,
                                PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0, tgt_eq,
                                PTL_RETAIN, PTL_MD_THRESH_INF);
    char msg[8] = "selfput", back[8] = { 0 };
    ptl_handle_md_t src = bind(msg, sizeof msg, 0, ev_eq), dst = bind(back, sizeof back, 0, ev_eq);
    OK(ptl_put(ni, src, PTL_ACK_REQ, (unsigned)rank, PT_CASE, 0x80, 8, 5));
    EXPECT(ev_eq, PTL_EVENT_SEND_END);
    CHECK_EQ(EXPECT(ev_eq, PTL_EVENT_ACK).offset, 8);
    struct ptl_event event = EXPECT(tgt_eq, PTL_EVENT_PUT_END);
    CHECK_EQ(event.initiator, rank);
    CHECK_EQ(event.hdr_data, 5);
    OK(ptl_get(ni, dst, (unsigned)rank, PT_CASE, 0x80, 8));
    EXPECT(ev_eq, PTL_EVENT_REPLY_END);
    EXPECT(tgt_eq, PTL_EVENT_GET_END);
    if (memcmp(back, "selfput", 8) != 0)
        FAIL("a put and get to self moved the wrong bytes");
    OK(ptl_md_unlink(ni, md));
    fence();
    EXPECT_EMPTY(ev_eq);
    EXPECT_EMPTY(tgt_eq);
}

static unsigned char pattern(int writer, uint64_t i)
{
    return (unsigned char)(writer * 77 + i * 13 + (i >> 12));
}

static void case_both_ways(void)
{
    unsigned char *big = ptl_region_alloc(ni, BIG, 4096);
    attach(PT_BIG, 0x90, big, BIG, PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, 0,
           PTL_EQ_NONE, PTL_RETAIN, PTL_MD_THRESH_INF);
    unsigned char *mine = malloc(BIG), *back = malloc(BIG);
    if (mine == NULL || back == NULL)
        FAIL("out of memory");
    for (uint64_t i = 0; i < BIG; i++)
        mine[i] = pattern(rank, i);
    begin("both_ways");
    /* Both block until their data has left: each must keep reading the other's. */
    ptl_handle_md_t src = bind(mine, BIG, 0, PTL_EQ_NONE), dst = bind(back, BIG, 0, ev_eq);
    OK(ptl_put(ni, src, PTL_NOACK_REQ, (unsigned)(1 - rank), PT_BIG, 0x90, 0, 0));
    fence();
    for (uint64_t i = 0; i < BIG; i++)
        if (big[i] != pattern(1 - rank, i))
            FAIL("byte %llu from the peer's put is wrong", (unsigned long long)i);
    OK(ptl_get(ni, dst, (unsigned)(1 - rank), PT_BIG, 0x90, 0));
    CHECK_EQ(EXPECT(ev_eq, PTL_EVENT_REPLY_END).mlength, BIG);
    if (memcmp(back, mine, BIG) != 0)
        FAIL("the 8 MiB read back differ from those put");
    fence();
    free(mine);
    free(back);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tcp_ptl shm|tcp  (under gp-run -n 2)\n");
        return 2;
    }
    if (gp_runtime_init() != 0)
        return 2;
    rank = gp_boot_rank();
    if (gp_boot_size() != 2) {
        fprintf(stderr, "tcp_ptl: needs exactly 2 processes\n");
        return 2;
    }
    setup(argv[1]);
    case_put_events();
    case_get_events();
    case_deposits();
    case_truncation();
    case_threshold();
    case_options();
    case_gets_dropped();
    case_self();
    case_both_ways();
    begin("fini");
    ptl_ni_fini(ni);
    if (rank == 0)
        printf("tcp_ptl: %s: every case as test_ptl.c describes it\n", argv[1]);
    gp_boot_fini(0);
    return 0;
}
