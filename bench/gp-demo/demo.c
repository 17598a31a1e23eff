/*
 * gp-demo: the project's main job until gp-bench exists.  Run under gp-run,
 * ranks pair up (i with i + N/2) and measure, through the ptl layer:
 *
 *  - AM-style ping-pong: a put deposited into the partner's locally managed
 *    receive buffer (the ReqRB of seed 000), noticed by its PUT_END event,
 *    answered the same way; reported as half the round trip;
 *  - put bandwidth: puts into the partner's segment, each completed by its
 *    ACK event.
 *
 * Every payload is checked on arrival, so the demo also proves the data
 * path.  Usage: gp-run -n N gp-demo [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boot/boot.h"
#include "conduit/runtime.h"
#include "ptl/ptl.h"

#define SEGMENT (4u << 20)
#define PT_RAR 0
#define PT_REQRB 1
#define REQRB_BUFFERS 4
#define REQRB_BYTES (64u << 10)
#define MAX_DEPOSIT 1024

static struct ptl_ni *ni;
static ptl_handle_eq_t safe_eq, am_eq;
static unsigned char *segment, *reqrb;
static ptl_handle_md_t basin;
static int rank, size;

static void die(const char *what, int rc)
{
    fprintf(stderr, "gp-demo rank %d: %s: %s\n", rank, what, ptl_strerror(rc));
    gp_boot_abort(1, what);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void attach_reqrb(int index)
{
    struct ptl_md_desc desc = { .start = reqrb + (size_t)index * REQRB_BYTES, .length = REQRB_BYTES,
                                .threshold = PTL_MD_THRESH_INF, .max_size = MAX_DEPOSIT + 8,
                                .options = PTL_MD_OP_PUT, .eq = am_eq,
                                .user_ptr = (void *)(intptr_t)index };
    ptl_handle_md_t md;
    int rc = ptl_md_attach(ni, PT_REQRB, 0, 0, &desc, PTL_UNLINK, PTL_INS_BEFORE, basin, &md);
    if (rc != PTL_OK)
        die("attach ReqRB", rc);
}

static void setup(void)
{
    struct ptl_ni_params params = { .transport = "shm", .max_pt = 2, .max_me_per_pt = 8,
                                    .max_eq = 2, .max_md = 16,
                                    .region_bytes = SEGMENT + REQRB_BUFFERS * REQRB_BYTES +
                                                    2 * ptl_eq_bytes(1024) + 4096 };
    int rc = ptl_ni_init(&params, &ni);
    if (rc != PTL_OK)
        die("ptl_ni_init", rc);
    ptl_eq_alloc(ni, 1024, &safe_eq);
    ptl_eq_alloc(ni, 1024, &am_eq);
    segment = ptl_region_alloc(ni, SEGMENT, 4096);
    reqrb = ptl_region_alloc(ni, REQRB_BUFFERS * REQRB_BYTES, 64);
    struct ptl_md_desc rar = { .start = segment, .length = SEGMENT, .threshold = PTL_MD_THRESH_INF,
                               .options = PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE };
    struct ptl_md_desc cb = { .start = reqrb, .length = 0, .threshold = PTL_MD_THRESH_INF,
                              .options = PTL_MD_OP_PUT | PTL_MD_TRUNCATE, .eq = am_eq,
                              .user_ptr = (void *)(intptr_t)-1 };
    ptl_handle_md_t rar_md;
    if ((rc = ptl_md_attach(ni, PT_RAR, 0, 0, &rar, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE,
                            &rar_md)) != PTL_OK ||
        (rc = ptl_md_attach(ni, PT_REQRB, 0, 0, &cb, PTL_RETAIN, PTL_INS_AFTER, PTL_INVALID_HANDLE,
                            &basin)) != PTL_OK)
        die("attach", rc);
    for (int i = 0; i < REQRB_BUFFERS; i++)
        attach_reqrb(i);
    gp_boot_barrier();
}

/* Waits for the next deposit, relinking full buffers; returns its event. */
static void wait_deposit(struct ptl_event *event)
{
    for (;;) {
        int rc = ptl_eq_get(ni, am_eq, event);
        if (rc == PTL_EQ_EMPTY)
            continue;
        if (rc != PTL_OK)
            die("AM_EQ", rc);
        if (event->type == PTL_EVENT_UNLINK) {
            attach_reqrb((int)(intptr_t)event->md_user_ptr);
            continue;
        }
        if ((intptr_t)event->md_user_ptr == -1)
            die("deposit reached the catch basin", PTL_FAIL);
        return;
    }
}

static void send_deposit(ptl_handle_md_t md, uint64_t length, int peer, uint64_t tag)
{
    int rc = ptl_put_region(ni, md, 0, length, PTL_NOACK_REQ, (unsigned)peer, PT_REQRB, 0, 0, tag);
    if (rc != PTL_OK)
        die("deposit", rc);
}

static double pingpong(int peer, int initiator, uint64_t length, int iters)
{
    static unsigned char message[MAX_DEPOSIT];
    struct ptl_md_desc desc = { .start = message, .length = MAX_DEPOSIT,
                                .threshold = PTL_MD_THRESH_INF };
    ptl_handle_md_t md;
    ptl_md_bind(ni, &desc, &md);
    struct ptl_event event;
    double start = 0;
    for (int i = -iters / 10; i < iters; i++) { /* the first tenth warms up */
        if (i == 0)
            start = now_us();
        memset(message, (unsigned char)i, length);
        if (initiator)
            send_deposit(md, length, peer, (uint64_t)i);
        wait_deposit(&event);
        const unsigned char *got = (const unsigned char *)event.md_start + event.offset;
        if (event.hdr_data != (uint64_t)i || event.mlength != length ||
            (length && got[length - 1] != (unsigned char)i))
            die("ping-pong payload check", PTL_FAIL);
        if (!initiator)
            send_deposit(md, length, peer, (uint64_t)i);
    }
    double elapsed = now_us() - start;
    ptl_md_unlink(ni, md);
    return elapsed / iters / 2;
}

static double put_bandwidth(int peer, uint64_t length, int iters)
{
    unsigned char *source = malloc(length);
    memset(source, 0xa5, length);
    struct ptl_md_desc desc = { .start = source, .length = length, .threshold = PTL_MD_THRESH_INF,
                                .options = PTL_MD_SEND_END_DISABLE, .eq = safe_eq };
    ptl_handle_md_t md;
    ptl_md_bind(ni, &desc, &md);
    struct ptl_event event;
    double start = now_us();
    for (int i = 0; i < iters; i++) {
        int rc = ptl_put(ni, md, PTL_ACK_REQ, (unsigned)peer, PT_RAR, 0, 0, 0);
        if (rc != PTL_OK)
            die("put", rc);
        while ((rc = ptl_eq_get(ni, safe_eq, &event)) == PTL_EQ_EMPTY)
            ;
        if (rc != PTL_OK || event.type != PTL_EVENT_ACK)
            die("put ACK", rc);
    }
    double elapsed = now_us() - start;
    ptl_md_unlink(ni, md);
    free(source);
    return (double)length * iters / elapsed; /* bytes per microsecond = MB/s */
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    if (iters <= 0) {
        fprintf(stderr, "gp-demo: iterations must be a positive integer, got '%s'\n", argv[1]);
        return 2;
    }
    if (gp_runtime_init() != 0)
        return 1;
    rank = gp_boot_rank();
    size = gp_boot_size();
    setup();
    int half = size / 2;
    int peer = size == 1 ? 0 : (rank < half ? rank + half : rank - half);
    int active = size == 1 || rank < 2 * half; /* an odd last rank sits out */
    int initiator = size == 1 || rank < half;
    static const uint64_t sizes[] = { 8, 1024 };
    double lat[2] = { 0 }, bw = 0;
    for (int s = 0; s < 2 && active; s++)
        lat[s] = pingpong(peer, initiator, sizes[s], iters);
    gp_boot_barrier();
    if (active && initiator)
        bw = put_bandwidth(peer, 1u << 20, iters / 100 + 10);
    gp_boot_barrier();
    if (rank == 0) {
        printf("gp-demo: %d processes over %s, %d pairs, rank 0 <-> rank %d\n", size,
               ptl_ni_transport(ni), size == 1 ? 1 : half, peer);
        printf("  AM-style deposit ping-pong, 8 bytes:    %8.3f us one way\n", lat[0]);
        printf("  AM-style deposit ping-pong, 1024 bytes: %8.3f us one way\n", lat[1]);
        printf("  put bandwidth, 1 MiB puts with ACK:     %8.0f MB/s\n", bw);
        printf("  every payload verified\n");
    }
    ptl_ni_fini(ni);
    gp_boot_fini(0);
    return 0;
}
