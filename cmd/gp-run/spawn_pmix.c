/*
 * The pmix spawner (--spawner=pmix, or its alias mpi): hand the job to the
 * cluster's own launcher, which starts every process with a PMIx server
 * beside it; libgp then boots from PMIx (libcore/boot/pmix.c) instead of
 * from gp-run's control channel.
 *
 * The launcher is Slurm's srun when gp-run runs inside a Slurm allocation
 * (SLURM_JOB_ID is set), else Open MPI's mpirun.  gp-run replaces itself
 * with it (exec), so the launcher's exit status is the job's, signals from
 * the terminal reach the launcher directly, and gp-run keeps no state that
 * could outlive it.  The gasnetrun options map as follows:
 *
 *   option          srun                          mpirun
 *   -n N            -n N                          -n N
 *   -N M, -n N:M    -N M                          --map-by ppr:ceil(N/M):node
 *   -E A,B          (srun passes the whole        -x A -x B
 *                   environment already)
 *   --hostfile F    --nodefile=F                  --hostfile F
 *   --tag-output    --label                       --tag-output
 *   -v, -t          gp-run prints the command line (-t: and runs nothing)
 *
 * srun also gets --mpi=pmix (its PMIx plugin) and --kill-on-bad-exit=1: a
 * rank that fails takes the job down, as under gp-run; mpirun does that by
 * itself.  gp-run's own launcher variables (GP_BOOT_ADDR and the rest) are
 * removed from the environment first: left in place, they would send the
 * processes to a gp-run that isn't there.
 */
#include "gp_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Words of the launcher's command line. */
struct words {
    char **v;
    size_t count, cap;
    int failed;         /* out of memory */
};

static void add(struct words *w, const char *word)
{
    if (w->failed)
        return;
    if (w->count + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 32;
        char **grown = realloc(w->v, cap * sizeof *grown);
        if (grown == NULL) {
            w->failed = 1;
            return;
        }
        w->v = grown;
        w->cap = cap;
    }
    w->v[w->count] = strdup(word);
    if (w->v[w->count] == NULL) {
        w->failed = 1;
        return;
    }
    w->v[++w->count] = NULL;
}

static void add_int(struct words *w, const char *fmt, int value)
{
    char text[64];
    snprintf(text, sizeof text, fmt, value);
    add(w, text);
}

static void free_words(struct words *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->v[i]);
    free(w->v);
}

/* -E A,B: one -x per name (mpirun). */
static void add_env_list(struct words *w, const char *list)
{
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        add(w, "-x");
        add(w, name);
        p += len + (p[len] == ',');
    }
}

static void build(struct words *w, const struct run_opts *opts, int slurm)
{
    if (slurm) {
        add(w, "srun");
        add(w, "--mpi=pmix");
        add(w, "--kill-on-bad-exit=1");
        add_int(w, "--ntasks=%d", opts->nprocs);
        if (opts->nhosts > 0)
            add_int(w, "--nodes=%d", opts->nhosts);
        if (opts->hostfile != NULL) {
            char *option = NULL;
            if (asprintf(&option, "--nodefile=%s", opts->hostfile) < 0)
                w->failed = 1;
            else
                add(w, option);
            free(option);
        }
        if (opts->tag_output)
            add(w, "--label");
    } else {
        add(w, "mpirun");
        add(w, "-n");
        add_int(w, "%d", opts->nprocs);
        if (opts->nhosts > 0) {
            /* Blocks of ceil(N/M) ranks per host, as gp-run's ssh spawner places them. */
            add(w, "--map-by");
            add_int(w, "ppr:%d:node", (opts->nprocs + opts->nhosts - 1) / opts->nhosts);
        }
        if (opts->env_list != NULL)
            add_env_list(w, opts->env_list);
        if (opts->hostfile != NULL) {
            add(w, "--hostfile");
            add(w, opts->hostfile);
        }
        if (opts->tag_output)
            add(w, "--tag-output");
    }
    add(w, opts->prog_path);
    for (size_t i = 1; opts->argv[i] != NULL; i++)
        add(w, opts->argv[i]);
}

/* The command line as a shell would read it, for -v and -t. */
static void describe(const struct words *w, const struct run_opts *opts, int slurm)
{
    size_t len = 0;
    for (size_t i = 0; i < w->count; i++)
        len += 3 + 4 * strlen(w->v[i]);
    char *line = malloc(len + 1);
    if (line == NULL)
        return;
    line[0] = '\0';
    for (size_t i = 0; i < w->count; i++) {
        char *quoted = sshcmd_quote(w->v[i]);
        if (quoted == NULL)
            break;
        if (i > 0)
            strcat(line, " ");
        strcat(line, quoted);
        free(quoted);
    }
    if (slurm)
        run_say("pmix spawner: srun, inside Slurm allocation %s (SLURM_JOB_ID); the processes "
                "boot from its PMIx server", getenv("SLURM_JOB_ID"));
    else
        run_say("pmix spawner: mpirun (SLURM_JOB_ID is not set); the processes boot from its "
                "PMIx server");
    if (slurm && opts->env_list != NULL)
        run_say("-E %s: nothing to add, srun passes the whole environment", opts->env_list);
    run_say("%s: %s", opts->test_only ? "would run" : "running", line);
    free(line);
}

int spawn_pmix(const struct run_opts *opts)
{
    static const char *const own_vars[] = {
        "GP_BOOT_ADDR", "GP_RANK", "GP_SIZE", "GP_JOBID", "GP_BOOT_KEY_FD"
    };
    const char *slurm_job = getenv("SLURM_JOB_ID");
    int slurm = slurm_job != NULL && *slurm_job != '\0';
    struct words w = { 0 };
    build(&w, opts, slurm);
    if (w.failed) {
        run_say("out of memory building the %s command line", slurm ? "srun" : "mpirun");
        free_words(&w);
        return 1;
    }
    if (opts->verbose)
        describe(&w, opts, slurm);
    if (opts->test_only) {
        free_words(&w);
        return 0;
    }
    for (size_t i = 0; i < sizeof own_vars / sizeof own_vars[0]; i++)
        unsetenv(own_vars[i]);
    fflush(NULL);
    execvp(w.v[0], w.v);
    int err = errno;
    run_say("--spawner=pmix: cannot run %s: %s%s", w.v[0], strerror(err),
            err != ENOENT ? ""
            : slurm ? " (SLURM_JOB_ID is set, so srun is expected in PATH)"
                    : " (install Open MPI's mpirun, or run inside a Slurm allocation to use srun)");
    free_words(&w);
    return err == ENOENT ? 127 : 126;
}
