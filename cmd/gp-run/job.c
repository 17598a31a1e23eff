/*
 * The job's processes and the exit policy.
 *
 * The job's exit status is decided by the first thing that goes wrong, as
 * gp-run observes it, and by nothing that happens after: the first
 * non-zero exit code, the first death by a signal (128+signal), an ABORT's
 * code, or an error gp-run itself finds (1).  If nothing goes wrong it is
 * 0, or 128+signal when gp-run was interrupted and every process exited 0.
 *
 * How the rest are stopped depends on what went wrong:
 *   - a non-zero exit: the others get GASNET_EXITTIMEOUT seconds to finish
 *     on their own (a GASNet program that calls gasnet_exit(3) on one node
 *     takes the others down through the conduit's exit protocol, and they
 *     should be let to), then SIGTERM, then SIGKILL after the timeout again;
 *   - a death by a signal, an ABORT, or an error of gp-run's: SIGTERM now,
 *     SIGKILL after GASNET_EXITTIMEOUT (a crashed process can't take part
 *     in any exit protocol; a libgp process outside the library ends on the
 *     SIGTERM within 0.2 s, so SIGKILL is for stopped or wedged ones);
 *   - SIGINT, SIGTERM or SIGHUP to gp-run: passed on once to the job's
 *     process group, SIGKILL after the timeout; a second one kills at once.
 * Signals go to the job's process group, so what a rank starts goes too.
 */
#include "gp_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int job_init(struct run_job *job, int nprocs, double exit_timeout)
{
    uint8_t id[GP_BOOT_JOBID_LEN / 2];
    memset(job, 0, sizeof *job);
    job->nprocs = nprocs;
    job->code = -1;
    job->exit_timeout = exit_timeout;
    job->procs = calloc((size_t)nprocs, sizeof *job->procs);
    if (job->procs == NULL)
        return -1;
    for (int rank = 0; rank < nprocs; rank++)
        job->procs[rank].conn = -1;
    if (gp_wire_random(id, sizeof id) != GP_WIRE_OK ||
        gp_wire_random(job->key, sizeof job->key) != GP_WIRE_OK)
        return -1;
    gp_wire_hex(id, sizeof id, job->jobid);
    return 0;
}

void job_free(struct run_job *job)
{
    memset(job->key, 0, sizeof job->key);
    free(job->procs);
    job->procs = NULL;
}

int job_rank_of(const struct run_job *job, pid_t pid)
{
    for (int rank = 0; rank < job->nprocs; rank++)
        if (job->procs[rank].pid == pid)
            return rank;
    return -1;
}

static const char *sig_name(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev != NULL)
        snprintf(buf, sizeof buf, "SIG%s", abbrev);
    else
        snprintf(buf, sizeof buf, "signal %d", sig);
    return buf;
}

/* "0, 2, 5" for the ranks still running (cut short for large jobs). */
static const char *running_ranks(const struct run_job *job)
{
    static char buf[256];
    size_t used = 0;
    buf[0] = '\0';
    for (int rank = 0; rank < job->nprocs && used < sizeof buf - 16; rank++)
        if (job->procs[rank].running)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%d", used ? ", " : "",
                                     rank);
    if (used >= sizeof buf - 16)
        snprintf(buf + used, sizeof buf - used, ", ...");
    return buf;
}

/*
 * Sends sig to the job: to its process group while one of our children is
 * still in it (then the group can't have been recycled), and to each child
 * that left the group.  Nobody gets it twice.
 */
static void signal_job(struct run_job *job, int sig)
{
    if (job->hosts != NULL) {
        /* The agents pass it on to their hosts' process groups. */
        hosts_signal(job, sig);
        if (sig < 64)
            job->sent_signals |= UINT64_C(1) << sig;
        return;
    }
    int in_group = 0;
    for (int rank = 0; rank < job->nprocs; rank++)
        if (job->procs[rank].running && getpgid(job->procs[rank].pid) == job->pgid)
            in_group = 1;
    if (in_group)
        kill(-job->pgid, sig);
    for (int rank = 0; rank < job->nprocs; rank++) {
        pid_t pid = job->procs[rank].pid;
        if (job->procs[rank].running && (!in_group || getpgid(pid) != job->pgid))
            kill(pid, sig);
    }
    if (sig < 64)
        job->sent_signals |= UINT64_C(1) << sig;
}

static void start_phase(struct run_job *job, enum run_phase phase)
{
    job->phase = phase;
    job->deadline = phase == PHASE_KILL ? 0 : run_now() + job->exit_timeout;
    if (phase == PHASE_TERM)
        signal_job(job, SIGTERM);
    else if (phase == PHASE_KILL)
        signal_job(job, SIGKILL);
}

/* Records the job's status if nothing was decided yet. */
static void decide(struct run_job *job, int code)
{
    if (job->code < 0)
        job->code = code;
}

/*
 * A rank that joined the job and ended with code 0 without saying FINI left
 * without gasnet_exit (an _exit, an exec): it vanished, and its peers' puts
 * into its mapped segment would report completion with nobody there, or
 * their requests wait for ever.  Such a job fails, naming the rank, its
 * host and the cause, rather than ending 0 or hanging.
 */
static int vanished(struct run_job *job, int rank)
{
    const struct run_proc *proc = &job->procs[rank];
    if (!proc->joined || proc->finished || job->phase != PHASE_RUNNING)
        return 0;
    const char *host = hosts_rank_host(job, rank);
    char here[256];
    if (host == NULL) {
        if (gethostname(here, sizeof here) != 0)
            snprintf(here, sizeof here, "this host");
        here[sizeof here - 1] = '\0';
        host = here;
    }
    decide(job, 1);
    run_say("rank %d (pid %d) on %s ended with code 0 without gasnet_exit: its peers can no "
            "longer reach it; the other processes have %.15g s (GASNET_EXITTIMEOUT) to finish "
            "before they are terminated", rank, (int)proc->pid, host, job->exit_timeout);
    /* As after a non-zero exit: a peer's transport may see the loss first and say how. */
    if (job->running > 0)
        start_phase(job, PHASE_GRACE);
    return 1;
}

static void exited(struct run_job *job, int rank, int code)
{
    int pid = (int)job->procs[rank].pid;
    if (code == 0 && vanished(job, rank))
        return;
    int deciding = code != 0 && job->code < 0;
    if (!deciding) {
        run_note("rank %d (pid %d) exited with code %d", rank, pid, code);
        return;
    }
    decide(job, code);
    if (job->phase != PHASE_RUNNING || job->running == 0) {
        run_say("rank %d (pid %d) exited with code %d", rank, pid, code);
        return;
    }
    run_say("rank %d (pid %d) exited with code %d; the other processes have %.15g s "
            "(GASNET_EXITTIMEOUT) to finish before they are terminated", rank, pid, code,
            job->exit_timeout);
    start_phase(job, PHASE_GRACE);
}

static void killed(struct run_job *job, int rank, int sig)
{
    int ours = sig < 64 && (job->sent_signals & (UINT64_C(1) << sig));
    decide(job, 128 + sig);
    if (ours) {
        run_note("rank %d (pid %d) ended by %s", rank, (int)job->procs[rank].pid, sig_name(sig));
        return;
    }
    run_say("rank %d (pid %d) was killed by signal %d (%s)%s", rank, (int)job->procs[rank].pid,
            sig, sig_name(sig), job->running > 0 && job->phase < PHASE_TERM ?
            "; terminating the job" : "");
    if (job->running > 0 && job->phase < PHASE_TERM)
        start_phase(job, PHASE_TERM);
}

void job_reaped(struct run_server *srv, pid_t pid, int status)
{
    if (srv->job->hosts != NULL) {
        hosts_reaped(srv, pid, status);
        return;
    }
    job_rank_ended(srv, job_rank_of(srv->job, pid), status);
}

void job_rank_lost(struct run_server *srv, int rank)
{
    struct run_job *job = srv->job;
    if (rank < 0 || !job->procs[rank].running)
        return;
    job->procs[rank].running = 0;
    job->running--;
    decide(job, 1);
    gather_check_stuck(srv);
}

void job_rank_ended(struct run_server *srv, int rank, int status)
{
    struct run_job *job = srv->job;
    if (rank < 0 || !job->procs[rank].running)
        return;
    /* An ABORT sent just before the exit must count before the exit does. */
    if (job->procs[rank].conn >= 0)
        conn_service(srv, job->procs[rank].conn);
    job->procs[rank].running = 0;
    job->running--;
    if (WIFEXITED(status))
        exited(job, rank, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        killed(job, rank, WTERMSIG(status));
    gather_check_stuck(srv);
}

void job_fail(struct run_server *srv, int code, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    struct run_job *job = srv->job;
    decide(job, code);
    if (job->running > 0 && job->phase < PHASE_TERM) {
        run_say("%s; terminating the job", why);
        start_phase(job, PHASE_TERM);
    } else {
        run_say("%s", why);
    }
}

void job_abort(struct run_server *srv, int code)
{
    struct run_job *job = srv->job;
    decide(job, code);
    if (job->running > 0 && job->phase < PHASE_TERM)
        start_phase(job, PHASE_TERM);
}

void job_interrupt(struct run_job *job, int sig)
{
    if (job->phase >= PHASE_TERM) {
        run_say("got %s while the job is ending: killing it now (SIGKILL)", sig_name(sig));
        start_phase(job, PHASE_KILL);
        return;
    }
    job->interrupt_sig = sig;
    run_say("got %s: passing it on to the job's processes (another one kills them at once)",
            sig_name(sig));
    signal_job(job, sig);
    job->phase = PHASE_TERM;
    job->deadline = run_now() + job->exit_timeout;
}

void job_stop(struct run_job *job, int stopped)
{
    if (job->hosts != NULL) {
        hosts_signal(job, stopped ? SIGTSTP : SIGCONT);
        if (stopped)
            kill(getpid(), SIGSTOP);
        return;
    }
    /* The job has its own process group, so the terminal's stop and
     * continue reach only gp-run: carry them over. */
    if (job->pgid > 0)
        kill(-job->pgid, stopped ? SIGTSTP : SIGCONT);
    if (stopped)
        kill(getpid(), SIGSTOP);
}

void job_tick(struct run_job *job, double now)
{
    if (job->deadline == 0 || now < job->deadline || job->running == 0)
        return;
    if (job->phase == PHASE_GRACE) {
        run_say("ranks %s still running %.15g s after the first failure: sending SIGTERM",
                running_ranks(job), job->exit_timeout);
        start_phase(job, PHASE_TERM);
    } else if (job->phase == PHASE_TERM) {
        run_say("ranks %s still running %.15g s after being told to stop: sending SIGKILL",
                running_ranks(job), job->exit_timeout);
        start_phase(job, PHASE_KILL);
    }
}

int job_exit_status(const struct run_job *job)
{
    if (job->code >= 0)
        return job->code;
    return job->interrupt_sig ? 128 + job->interrupt_sig : 0;
}
