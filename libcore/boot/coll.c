/*
 * Collectives over gp-run's control channel: allgather, barrier and
 * broadcast.
 *
 * Each is one round trip: the process sends a COLL message (kind, root,
 * length, and its contribution), gp-run waits until every rank has sent
 * one, checks that they agree, and answers each with COLL_RESULT.  They
 * are meant for start-up and shutdown, not for speed.  The process waits
 * without a deadline of its own: gp-run bounds a round (GP_BOOT_TIMEOUT,
 * gather.c) and ends the job, naming the ranks that never joined, so that
 * the answer here is the job's end rather than a silent hang.  A channel
 * that closes while we wait is fatal: gp-run is gone, and with it any
 * chance of completing the job.
 *
 * While a round waits, the transports keep moving (the wait hook): a peer
 * may be waiting for this process to serve its put or get over tcp before
 * it can reach the same round.
 */
#include "boot/bootint.h"

#include "boot/wire.h"
#include "util/log.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Work to do while a round waits (see gp_boot_set_wait_hook). */
static void (*wait_hook)(void *);
static void *wait_hook_arg;

void gp_boot_set_wait_hook(void (*hook)(void *arg), void *arg)
{
    wait_hook_arg = arg;
    wait_hook = hook;
}

int gp_boot_wait_hook_pending(void)
{
    return wait_hook != NULL;
}

void gp_boot_wait_hook_run(void)
{
    if (wait_hook != NULL)
        wait_hook(wait_hook_arg);
}

/* Waits until the answer starts to arrive, running the wait hook meanwhile. */
static void await_readable(void)
{
    if (wait_hook == NULL)
        return; /* the blocking read below waits */
    struct pollfd pfd = { .fd = gp_boot.fd, .events = POLLIN };
    for (;;) {
        wait_hook(wait_hook_arg);
        int n = poll(&pfd, 1, 1);
        if (n > 0 || (n < 0 && errno != EINTR))
            return;
    }
}

/* Fatal: gp-run broke off the round, or vanished. */
static _Noreturn void round_lost(uint32_t kind, int status)
{
    if (status == GP_WIRE_EOF)
        gp_fatal("lost the control channel to gp-run while waiting in %s "
                 "(gp-run exited or was killed)", gp_wire_coll_str(kind));
    gp_fatal("control channel to gp-run failed during %s: %s", gp_wire_coll_str(kind),
             gp_wire_status_str(status));
}

/* Reads the answer to a round: COLL_RESULT of exactly result_len bytes. */
static void await_result(uint32_t kind, void *result, uint32_t result_len)
{
    uint8_t raw[GP_WIRE_HDR_LEN];
    struct gp_wire_hdr hdr;
    await_readable();
    int status = gp_wire_read_full(gp_boot.fd, raw, sizeof raw, -1);
    if (status != GP_WIRE_OK)
        round_lost(kind, status);
    gp_wire_unpack_hdr(raw, &hdr);
    if (hdr.type == GP_WIRE_ERROR && hdr.len <= GP_WIRE_MAX_TEXT) {
        char text[GP_WIRE_MAX_TEXT + 1];
        status = gp_wire_read_full(gp_boot.fd, text, hdr.len, -1);
        text[status == GP_WIRE_OK ? hdr.len : 0] = '\0';
        gp_fatal("gp-run ended the %s: %s", gp_wire_coll_str(kind), text);
    }
    if (hdr.type != GP_WIRE_COLL_RESULT || hdr.len != result_len)
        gp_fatal("gp-run answered %s with %s of %u bytes, expected %u bytes",
                 gp_wire_coll_str(kind), gp_wire_type_str(hdr.type), hdr.len, result_len);
    status = gp_wire_read_full(gp_boot.fd, result, result_len, -1);
    if (status != GP_WIRE_OK)
        round_lost(kind, status == GP_WIRE_EOF ? GP_WIRE_BAD : status);
}

/* One round: send our part, wait for the result. */
static int round_trip(uint32_t kind, int root, uint32_t len, const void *mine, uint32_t mine_len,
                      void *result, uint32_t result_len)
{
    uint8_t *msg = malloc(GP_WIRE_COLL_FIXED + (size_t)mine_len);
    if (msg == NULL) {
        gp_error("boot", "%s: no memory for a %u-byte message", gp_wire_coll_str(kind), mine_len);
        return GP_BOOT_ERR_RESOURCE;
    }
    gp_wire_put32(msg, kind);
    gp_wire_put32(msg + 4, (uint32_t)root);
    gp_wire_put32(msg + 8, len);
    if (mine_len > 0)
        memcpy(msg + GP_WIRE_COLL_FIXED, mine, mine_len);
    gp_boot_round_lock();
    int status = gp_boot_channel_send(GP_WIRE_COLL, msg, GP_WIRE_COLL_FIXED + mine_len);
    free(msg);
    if (status != GP_WIRE_OK)
        round_lost(kind, status == GP_WIRE_ERR ? GP_WIRE_EOF : status);
    await_result(kind, result, result_len);
    gp_boot_round_unlock();
    return GP_BOOT_OK;
}

/* GP_BOOT_OK if the channel can run a collective now. */
static int usable(const char *what)
{
    if (!gp_boot.initialized || gp_boot.finished) {
        gp_error("boot", "%s called %s", what,
                 gp_boot.finished ? "after gp_boot_fini" : "before gp_boot_init");
        return GP_BOOT_ERR_NOT_INIT;
    }
    return GP_BOOT_OK;
}

int gp_boot_allgather(const void *mine, void *all, size_t len)
{
    int rc = usable("gp_boot_allgather");
    if (rc != GP_BOOT_OK)
        return rc;
    if (len > GP_WIRE_MAX_PAYLOAD / (size_t)gp_boot.size) {
        gp_error("boot", "gp_boot_allgather of %zu bytes per rank: at most %u bytes in all "
                 "(%u per rank at %d ranks)", len, GP_WIRE_MAX_PAYLOAD,
                 GP_WIRE_MAX_PAYLOAD / (unsigned)gp_boot.size, gp_boot.size);
        return GP_BOOT_ERR_BAD_ARG;
    }
    if (gp_boot.singleton) {
        memmove(all, mine, len);
        return GP_BOOT_OK;
    }
    if (gp_boot.pmix)
        return gp_boot_pmix_allgather(mine, all, len);
    return round_trip(GP_WIRE_COLL_ALLGATHER, 0, (uint32_t)len, mine, (uint32_t)len, all,
                      (uint32_t)(len * (size_t)gp_boot.size));
}

int gp_boot_barrier(void)
{
    int rc = usable("gp_boot_barrier");
    if (rc != GP_BOOT_OK || gp_boot.singleton)
        return rc;
    if (gp_boot.pmix)
        return gp_boot_pmix_barrier();
    return round_trip(GP_WIRE_COLL_BARRIER, 0, 0, NULL, 0, NULL, 0);
}

int gp_boot_broadcast(void *buf, size_t len, int root)
{
    int rc = usable("gp_boot_broadcast");
    if (rc != GP_BOOT_OK)
        return rc;
    if (root < 0 || root >= gp_boot.size || len > GP_WIRE_MAX_PAYLOAD) {
        gp_error("boot", "gp_boot_broadcast: root %d must be in [0, %d] and len %zu at most %u",
                 root, gp_boot.size - 1, len, GP_WIRE_MAX_PAYLOAD);
        return GP_BOOT_ERR_BAD_ARG;
    }
    if (gp_boot.singleton)
        return GP_BOOT_OK;
    if (gp_boot.pmix)
        return gp_boot_pmix_broadcast(buf, len, root);
    uint32_t mine_len = root == gp_boot.rank ? (uint32_t)len : 0;
    return round_trip(GP_WIRE_COLL_BROADCAST, root, (uint32_t)len, buf, mine_len, buf,
                      (uint32_t)len);
}
