/*
 * Leaving the job: gp_boot_abort (take the whole job down now) and
 * gp_boot_fini (this process is done).
 *
 * Abort may run from any state -- before init, from the fatal hook, from a
 * signal handler, while another thread is stuck in a collective -- so it
 * allocates nothing, takes the send lock only if it can get it within a
 * second, and bounds every wait.  It waits briefly for gp-run's ABORT_ACK
 * (or for gp-run to close the channel) before exiting so that gp-run reads
 * the ABORT, with its exit code and reason, before it sees this process
 * exit; otherwise the exit could be taken for an ordinary failure.
 *
 * Under PMIx the same two are PMIx_Abort (the launcher ends every rank and
 * reports the code) and PMIx_Finalize (boot/pmix.c).
 */
#include "boot/bootint.h"

#include "boot/wire.h"
#include "util/log.h"

#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_flag abort_started = ATOMIC_FLAG_INIT;

/* The send lock, or 0 if another thread holds it for more than a second. */
static int take_send_lock_briefly(void)
{
    struct timespec pause_10ms = { 0, 10 * 1000 * 1000 };
    for (int tries = 0; tries < 100; tries++) {
        if (gp_boot_send_trylock())
            return 1;
        nanosleep(&pause_10ms, NULL);
    }
    return 0;
}

/* Sends ABORT (code, reason) and waits a little for gp-run to take it. */
static void tell_launcher(int exit_code, const char *why)
{
    uint8_t msg[GP_WIRE_HDR_LEN + 4 + GP_WIRE_MAX_TEXT];
    size_t why_len = why ? strnlen(why, GP_WIRE_MAX_TEXT) : 0;
    gp_wire_pack_hdr(msg, GP_WIRE_ABORT, (uint32_t)(4 + why_len));
    gp_wire_put32(msg + GP_WIRE_HDR_LEN, (uint32_t)exit_code);
    if (why_len > 0)
        memcpy(msg + GP_WIRE_HDR_LEN + 4, why, why_len);
    int locked = take_send_lock_briefly();
    int status = gp_wire_write_full(gp_boot.fd, msg, GP_WIRE_HDR_LEN + 4 + why_len, NULL, 0);
    if (locked)
        gp_boot_send_unlock();
    if (status != GP_WIRE_OK)
        return;
    /* ABORT_ACK, or the close that follows it, both make the socket readable. */
    struct pollfd pfd = { .fd = gp_boot.fd, .events = POLLIN };
    while (poll(&pfd, 1, GP_BOOT_ACK_MS) < 0 && errno == EINTR)
        ;
}

_Noreturn void gp_boot_abort(int exit_code, const char *why)
{
    if (atomic_flag_test_and_set(&abort_started)) {
        /* Another thread is aborting; it will end the process. */
        for (;;)
            pause();
    }
    if (gp_boot.fd >= 0 && !gp_boot.finished)
        tell_launcher(exit_code, why);
    else if (!gp_boot.finished && gp_boot_pmix_up())
        gp_boot_pmix_abort(exit_code, why); /* returns only if the server is gone */
    else if (why != NULL)
        gp_error("boot", "aborting (exit code %d): %s", exit_code, why);
    _exit(exit_code);
}

int gp_boot_fini(int exit_code)
{
    if (!gp_boot.initialized || gp_boot.finished)
        return gp_boot.initialized ? GP_BOOT_OK : GP_BOOT_ERR_NOT_INIT;
    gp_boot.finished = 1;
    if (gp_boot.pmix)
        return gp_boot_pmix_fini();
    if (gp_boot.fd < 0)
        return GP_BOOT_OK;
    uint8_t code[4], reply[16];
    struct gp_wire_hdr hdr;
    gp_wire_put32(code, (uint32_t)exit_code);
    int status = gp_boot_channel_send(GP_WIRE_FINI, code, sizeof code);
    if (status == GP_WIRE_OK)
        status = gp_wire_recv(gp_boot.fd, &hdr, reply, sizeof reply, GP_BOOT_ACK_MS);
    if (status == GP_WIRE_OK && hdr.type != GP_WIRE_FINI_ACK)
        status = GP_WIRE_BAD;
    close(gp_boot.fd);
    gp_boot.fd = -1;
    if (status != GP_WIRE_OK) {
        gp_warn("boot", "gp-run did not acknowledge the end of this process: %s",
                gp_wire_status_str(status));
        return GP_BOOT_ERR_RESOURCE;
    }
    return GP_BOOT_OK;
}
