/*
 * Whether the job's exit is known to this process (nal.h, nal_job_ending).
 *
 * A transport learns that a peer is gone from the operating system (a
 * refused, reset or closed connection); only the layer above knows whether
 * the job is ending, and so whether that peer left in the job's exit or
 * vanished in the middle of it.  One flag, set once and never cleared:
 * written by the exit path (possibly from a signal handler's poll), read by
 * any transport thread.
 */
#include "nal/nal.h"

static int job_ending;

void nal_note_job_ending(void)
{
    __atomic_store_n(&job_ending, 1, __ATOMIC_RELEASE);
}

int nal_job_ending(void)
{
    return __atomic_load_n(&job_ending, __ATOMIC_ACQUIRE);
}
