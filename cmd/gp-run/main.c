/*
 * gp-run: launch a gp job.
 *
 * The order of things: read the command line (--spawner=pmix hands the
 * job to srun or mpirun there and then); read the GASNET_* settings
 * gp-run itself obeys (the exit timeout); make the job's id and key;
 * listen; start the processes; serve the control channel until every
 * process has been reaped; remove the job's leftover shared memory; exit
 * with the job's status.  The pieces are described in gp_run.h; the exit
 * policy at the top of job.c and in gp-run(1).
 */
#include "gp_run.h"

#include "config/config.h"
#include "gasnet.h"

#include <stdio.h>
#include <string.h>

/* GP_BOOT_TIMEOUT (checked by gp_config_load); unset under GASNET_FREEZE: no limit,
 * since a debugger holds the frozen ranks out of the first round on purpose. */
static double boot_timeout(void)
{
    const char *text = gp_config_getenv("GP_BOOT_TIMEOUT");
    double seconds = 0;
    if (text == NULL && gp_cfg.freeze)
        return 0;
    if (text == NULL)
        text = gp_config_find("GP_BOOT_TIMEOUT")->default_text;
    return gp_config_parse_double(text, &seconds) == 0 ? seconds : 0;
}

/* GASNET_EXITTIMEOUT, or min(MAX, MIN + FACTOR * nprocs) when it is unset. */
static int exit_timeout(int nprocs, double *seconds)
{
    char why[512] = "";
    if (gp_config_load(why, sizeof why) != GASNET_OK) {
        run_say("%s", why);
        return -1;
    }
    double derived = gp_cfg.exittimeout_min + gp_cfg.exittimeout_factor * nprocs;
    if (derived > gp_cfg.exittimeout_max)
        derived = gp_cfg.exittimeout_max;
    *seconds = gp_cfg.exittimeout > 0 ? gp_cfg.exittimeout : derived;
    return 0;
}

static int run_job(struct run_job *job, const struct run_opts *opts)
{
    struct run_server srv;
    sigset_t child_mask;
    if (server_open(&srv, job, &child_mask, opts->spawner == SPAWN_SSH) != 0) {
        server_close(&srv);
        return 1;
    }
    int started;
    if (opts->spawner == SPAWN_SSH) {
        started = spawn_ssh(&srv, opts, &child_mask);
    } else {
        spawn_describe(job, opts, srv.addr);
        started = spawn_local(job, opts, srv.addr, &child_mask);
    }
    if (started != 0)
        job_fail(&srv, 1, "the job could not be started in full");
    server_run(&srv);
    server_close(&srv);
    hosts_close(job);
    shm_cleanup(job->jobid, opts->keep);
    int status = job_exit_status(job);
    run_note("job %s ended with exit status %d", job->jobid, status);
    return status;
}

int main(int argc, char **argv)
{
    struct run_opts opts;
    struct run_job job;
    double timeout = 0;
    memset(&opts, 0, sizeof opts);
    int status = run_parse_options(argc, (const char **)argv, &opts);
    if (status == RUN_CONTINUE && opts.sweep_jobid != NULL) {
        shm_cleanup(opts.sweep_jobid, 0);
        run_free_options(&opts);
        return 0;
    }
    if (status == RUN_CONTINUE && opts.agent) {
        run_free_options(&opts);
        return agent_main();
    }
    if (status == RUN_CONTINUE && opts.spawner == SPAWN_PMIX) {
        /* The launcher makes the job and its PMIx server hands out rank, size and key. */
        run_verbose = opts.verbose;
        status = spawn_pmix(&opts);
    }
    if (status == RUN_CONTINUE) {
        run_verbose = opts.verbose;
        status = exit_timeout(opts.nprocs, &timeout) != 0 ? RUN_EXIT_USAGE : RUN_CONTINUE;
    }
    if (status == RUN_CONTINUE && job_init(&job, opts.nprocs, timeout) != 0) {
        run_say("cannot set up the job (memory, or getrandom for its id and key): %m");
        job_free(&job);
        status = 1;
    }
    if (status == RUN_CONTINUE)
        job.boot_timeout = boot_timeout();
    if (status == RUN_CONTINUE) {
        if (opts.test_only && opts.spawner == SPAWN_SSH)
            status = spawn_ssh_describe(&job, &opts);
        else if (opts.test_only)
            spawn_describe(&job, &opts, NULL), status = 0;
        else
            status = run_job(&job, &opts);
        job_free(&job);
    }
    run_free_options(&opts);
    return status;
}
