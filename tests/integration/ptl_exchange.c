/*
 * Every process of a job exchanges data with every other through the ptl
 * layer over shm, and checks every byte:
 *
 *  1. puts: each rank writes a pattern into every peer's segment (its own
 *     slice), with an ACK per put;
 *  2. gets: each rank reads its slices back from every peer;
 *  3. deposits: rounds of variable-length messages into every peer's chain
 *     of locally managed buffers (the ReqRB pattern of seed 000), which the
 *     owner relinks when their UNLINK event comes; a catch basin (CB) at the
 *     end of the chain turns an overflow into a test failure.
 *
 * Usage: ptl_exchange [--die-rank R]   (rank R SIGKILLs itself mid-job)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot.h"
#include "conduit/attach/runtime.h"
#include "ptl/ptl.h"

#define SEGMENT (1u << 20)
#define PT_RAR 0
#define PT_REQRB 1
#define REQRB_BUFFERS 4
#define REQRB_BYTES 8192
#define MAX_MESSAGE 240
#define ROUNDS 20
#define MESSAGES 6

static int rank, size;
static struct ptl_ni *ni;
static ptl_handle_eq_t safe_eq, am_eq;
static unsigned char *segment, *reqrb;
static ptl_handle_md_t reqrb_md[REQRB_BUFFERS + 1]; /* the buffers, then the CB */

#define FAIL(...)                                                       \
    do {                                                                \
        fprintf(stderr, "ptl_exchange rank %d: ", rank);                \
        fprintf(stderr, __VA_ARGS__);                                   \
        fputc('\n', stderr);                                            \
        exit(1);                                                        \
    } while (0)

static unsigned char pattern(int writer, int owner, uint64_t i)
{
    return (unsigned char)(writer * 31 + owner * 7 + i * 13 + (i >> 8));
}

static void expect_ok(int rc, const char *what)
{
    if (rc != PTL_OK)
        FAIL("%s: %s", what, ptl_strerror(rc));
}

static void next_event(ptl_handle_eq_t eq, struct ptl_event *event)
{
    int rc;
    while ((rc = ptl_eq_get(ni, eq, event)) == PTL_EQ_EMPTY)
        ptl_progress(ni);
    if (rc != PTL_OK)
        FAIL("event queue: %s", ptl_strerror(rc));
}

static ptl_handle_md_t attach_reqrb(int index)
{
    struct ptl_md_desc desc = {
        .start = reqrb + (size_t)index * REQRB_BYTES, .length = REQRB_BYTES,
        .threshold = PTL_MD_THRESH_INF, .max_size = MAX_MESSAGE + 8, .options = PTL_MD_OP_PUT,
        .eq = am_eq, .user_ptr = (void *)(intptr_t)index,
    };
    ptl_handle_md_t md;
    /* Relinked buffers go to the end of the chain, just before the CB. */
    expect_ok(ptl_md_attach(ni, PT_REQRB, 0, 0, &desc, PTL_UNLINK, PTL_INS_BEFORE,
                            reqrb_md[REQRB_BUFFERS] /* the CB */, &md), "attach ReqRB");
    return md;
}

static void setup(void)
{
    /* GP_TRANSPORT picks the transport, as for a GASNet program (unset: hybrid). */
    const char *transport = getenv("GP_TRANSPORT");
    struct ptl_ni_params params = {
        .transport = transport != NULL && *transport != '\0' ? transport : NULL, .max_pt = 2, .max_me_per_pt = 8, .max_eq = 2, .max_md = 64,
        .region_bytes = SEGMENT + REQRB_BUFFERS * REQRB_BYTES + 2 * ptl_eq_bytes(4096) + 4096,
    };
    expect_ok(ptl_ni_init(&params, &ni), "ptl_ni_init");
    expect_ok(ptl_eq_alloc(ni, 4096, &safe_eq), "SAFE_EQ");
    expect_ok(ptl_eq_alloc(ni, 4096, &am_eq), "AM_EQ");
    segment = ptl_region_alloc(ni, SEGMENT, 4096);
    reqrb = ptl_region_alloc(ni, REQRB_BUFFERS * REQRB_BYTES, 64);
    if (segment == NULL || reqrb == NULL)
        FAIL("registered region too small");
    memset(segment, 0, SEGMENT);
    struct ptl_md_desc rar = { .start = segment, .length = SEGMENT, .threshold = PTL_MD_THRESH_INF,
                               .options = PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE };
    ptl_handle_md_t rar_md;
    expect_ok(ptl_md_attach(ni, PT_RAR, 0, 0, &rar, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE,
                            &rar_md), "attach RAR");
    struct ptl_md_desc cb = { .start = reqrb, .length = 0, .threshold = PTL_MD_THRESH_INF,
                              .options = PTL_MD_OP_PUT | PTL_MD_TRUNCATE, .eq = am_eq,
                              .user_ptr = (void *)(intptr_t)-1 };
    expect_ok(ptl_md_attach(ni, PT_REQRB, 0, 0, &cb, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE,
                            &reqrb_md[REQRB_BUFFERS]), "attach CB");
    for (int i = 0; i < REQRB_BUFFERS; i++)
        reqrb_md[i] = attach_reqrb(i);
    if (gp_boot_barrier() != 0)
        FAIL("barrier after setup");
}

static void check_names_unlinked(void)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm/gp-%s-%d", gp_boot_jobid(), rank);
    if (stat(path, &st) == 0)
        FAIL("%s still exists after every peer mapped it", path);
}

static void put_phase(void)
{
    uint64_t slice = SEGMENT / (uint64_t)size;
    unsigned char *source = malloc(slice);
    struct ptl_md_desc desc = { .start = source, .length = slice, .threshold = PTL_MD_THRESH_INF,
                                .options = PTL_MD_SEND_END_DISABLE, .eq = safe_eq };
    ptl_handle_md_t md;
    expect_ok(ptl_md_bind(ni, &desc, &md), "bind put source");
    for (int peer = 0; peer < size; peer++) {
        for (uint64_t i = 0; i < slice; i++)
            source[i] = pattern(rank, peer, i);
        expect_ok(ptl_put(ni, md, PTL_ACK_REQ, (unsigned)peer, PT_RAR, 0, rank * slice, 0), "put");
        struct ptl_event event;
        next_event(safe_eq, &event); /* the copy is done once the ACK is in */
        if (event.type != PTL_EVENT_ACK || event.mlength != slice)
            FAIL("put to %d: expected ACK of %llu bytes, got %s of %llu", peer,
                 (unsigned long long)slice, ptl_event_kind_str((int)event.type),
                 (unsigned long long)event.mlength);
    }
    if (gp_boot_barrier() != 0)
        FAIL("barrier after puts");
    for (int writer = 0; writer < size; writer++)
        for (uint64_t i = 0; i < slice; i++)
            if (segment[writer * slice + i] != pattern(writer, rank, i))
                FAIL("byte %llu of rank %d's slice is %u, expected %u", (unsigned long long)i,
                     writer, segment[writer * slice + i], pattern(writer, rank, i));
    ptl_md_unlink(ni, md);
    free(source);
}

static void get_phase(void)
{
    uint64_t slice = SEGMENT / (uint64_t)size;
    unsigned char *dest = malloc(slice);
    struct ptl_md_desc desc = { .start = dest, .length = slice, .threshold = PTL_MD_THRESH_INF,
                                .eq = safe_eq };
    ptl_handle_md_t md;
    expect_ok(ptl_md_bind(ni, &desc, &md), "bind get destination");
    for (int peer = 0; peer < size; peer++) {
        memset(dest, 0xff, slice);
        expect_ok(ptl_get(ni, md, (unsigned)peer, PT_RAR, 0, rank * slice), "get");
        struct ptl_event event;
        next_event(safe_eq, &event);
        if (event.type != PTL_EVENT_REPLY_END || event.mlength != slice)
            FAIL("get from %d: expected REPLY_END, got %s", peer, ptl_event_kind_str((int)event.type));
        for (uint64_t i = 0; i < slice; i++)
            if (dest[i] != pattern(rank, peer, i))
                FAIL("get from %d: byte %llu is %u, expected %u", peer, (unsigned long long)i,
                     dest[i], pattern(rank, peer, i));
    }
    ptl_md_unlink(ni, md);
    free(dest);
    if (gp_boot_barrier() != 0)
        FAIL("barrier after gets");
}

static uint64_t message_length(int sender, int round, int seq)
{
    return 1 + (uint64_t)(sender * 17 + round * 5 + seq * 29) % MAX_MESSAGE;
}

/* Takes one AM_EQ event: checks a deposit, or relinks a buffer that filled. */
static int take_deposit(int round, int *seen)
{
    struct ptl_event event;
    next_event(am_eq, &event);
    if (event.type == PTL_EVENT_UNLINK) {
        int index = (int)(intptr_t)event.md_user_ptr;
        reqrb_md[index] = attach_reqrb(index);
        return 0;
    }
    if (event.type != PTL_EVENT_PUT_END)
        FAIL("AM_EQ: unexpected %s", ptl_event_kind_str((int)event.type));
    if ((intptr_t)event.md_user_ptr == -1)
        FAIL("a message from rank %u reached the catch basin (ReqRB overflow)", event.initiator);
    int sender = (int)(event.hdr_data >> 32), seq = (int)(event.hdr_data & 0xffff);
    int msg_round = (int)((event.hdr_data >> 16) & 0xffff);
    if (msg_round != round || sender != (int)event.initiator || seq != seen[sender])
        FAIL("deposit from %u: round %d seq %d, expected round %d seq %d", event.initiator,
             msg_round, seq, round, seen[sender]);
    uint64_t length = message_length(sender, round, seq);
    if (event.mlength != length)
        FAIL("deposit from %d: %llu bytes, expected %llu", sender,
             (unsigned long long)event.mlength, (unsigned long long)length);
    const unsigned char *data = (const unsigned char *)event.md_start + event.offset;
    for (uint64_t i = 0; i < length; i++)
        if (data[i] != pattern(sender, rank, i + (uint64_t)seq))
            FAIL("deposit from %d seq %d: byte %llu wrong", sender, seq, (unsigned long long)i);
    seen[sender]++;
    return 1;
}

static void deposit_phase(void)
{
    unsigned char message[MAX_MESSAGE];
    int *seen = calloc((size_t)size, sizeof *seen);
    for (int round = 0; round < ROUNDS; round++) {
        for (int peer = 0; peer < size; peer++) {
            for (int seq = 0; seq < MESSAGES; seq++) {
                uint64_t length = message_length(rank, round, seq);
                for (uint64_t i = 0; i < length; i++)
                    message[i] = pattern(rank, peer, i + (uint64_t)seq);
                struct ptl_md_desc desc = { .start = message, .length = length, .threshold = 1 };
                ptl_handle_md_t md;
                expect_ok(ptl_md_bind(ni, &desc, &md), "bind message");
                uint64_t hdr = ((uint64_t)rank << 32) | ((uint64_t)round << 16) | (uint64_t)seq;
                expect_ok(ptl_put(ni, md, PTL_NOACK_REQ, (unsigned)peer, PT_REQRB, 0, 0, hdr), "deposit");
                ptl_md_unlink(ni, md);
            }
        }
        int expected = size * MESSAGES;
        for (int got = 0; got < expected;)
            got += take_deposit(round, seen);
        for (int peer = 0; peer < size; peer++)
            seen[peer] = 0;
        if (gp_boot_barrier() != 0)
            FAIL("barrier after round %d", round);
    }
    free(seen);
}

int main(int argc, char **argv)
{
    int die_rank = -1;
    if (argc == 3 && strcmp(argv[1], "--die-rank") == 0)
        die_rank = atoi(argv[2]);
    if (gp_runtime_init() != 0)
        return 2;
    rank = gp_boot_rank();
    size = gp_boot_size();
    setup();
    check_names_unlinked();
    if (rank == die_rank)
        raise(SIGKILL);
    put_phase();
    get_phase();
    deposit_phase();
    if (ptl_ni_dropped(ni) != 0)
        FAIL("%llu messages matched no MD", (unsigned long long)ptl_ni_dropped(ni));
    if (gp_boot_barrier() != 0)
        FAIL("final barrier");
    ptl_ni_fini(ni);
    if (rank == 0)
        printf("ptl_exchange: %d processes, every byte verified\n", size);
    gp_boot_fini(0);
    return 0;
}
