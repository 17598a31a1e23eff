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
 * itself.
 *
 * Outside Slurm, MPIRUN_CMD (GASNet's variable, seed 003) replaces the
 * mpirun command line: a template such as "mpirun -np %N %P %A", split at
 * white space, with %N the process count, %P the program, %A its
 * arguments, %C the same as "%P %A" and %% a percent sign.  %A and %C are
 * words of their own, so an argument with spaces stays one word and no
 * shell reads the line.  gp-run's mapping of -N, -E, --hostfile and
 * --tag-output has no place in someone else's template: with MPIRUN_CMD
 * they are refused, and the template carries mpirun's own options.
 *
 * gp-run's own launcher variables (GP_BOOT_ADDR and the rest) are removed
 * from the environment first: left in place, they would send the processes
 * to a gp-run that isn't there.
 */
#include "gp_run.h"

#include "config/config.h"

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

/* Inside run_say's format, hence the doubled percent signs. */
#define TEMPLATE_ACCEPTS "%%N (processes), %%P (program), %%A (its arguments), %%C (the same " \
                         "as \"%%P %%A\"), %%%% (a percent sign)"

/* One word of MPIRUN_CMD with %N, %P and %% replaced; 0, or -1 after saying why. */
static int expand_word(struct words *w, const struct run_opts *opts, const char *tmpl,
                       const char *word, size_t len)
{
    char *text = malloc(len + 1 + strlen(opts->prog_path) * len + 16 * len), *out = text;
    if (text == NULL) {
        w->failed = 1;
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        char next = i + 1 < len ? word[i + 1] : '\0';
        if (word[i] != '%') {
            *out++ = word[i];
            continue;
        }
        i++;
        if (next == '%') {
            *out++ = '%';
        } else if (next == 'N') {
            out += sprintf(out, "%d", opts->nprocs);
        } else if (next == 'P') {
            out = stpcpy(out, opts->prog_path);
        } else {
            run_say("MPIRUN_CMD='%s': '%.*s' %s; accepted: " TEMPLATE_ACCEPTS ", with %%A and "
                    "%%C as words of their own", tmpl, (int)len, word,
                    next == 'A' || next == 'C' ? "puts %A or %C inside a word"
                                               : "holds an unknown placeholder");
            free(text);
            return -1;
        }
    }
    *out = '\0';
    add(w, text);
    free(text);
    return 0;
}

static void add_args(struct words *w, const struct run_opts *opts)
{
    for (size_t i = 1; opts->argv[i] != NULL; i++)
        add(w, opts->argv[i]);
}

/* MPIRUN_CMD's words, expanded; 0, or -1 after saying what is wrong. */
static int build_from_template(struct words *w, const struct run_opts *opts, const char *tmpl)
{
    static const char blanks[] = " \t\n";
    int has_program = 0;
    if (opts->nhosts > 0 || opts->env_list != NULL || opts->hostfile != NULL ||
        opts->tag_output) {
        run_say("MPIRUN_CMD is set: gp-run cannot place -N, -E, --hostfile or --tag-output in "
                "its command line; put mpirun's own options into MPIRUN_CMD instead");
        return -1;
    }
    for (const char *p = tmpl + strspn(tmpl, blanks); *p != '\0'; p += strspn(p, blanks)) {
        size_t len = strcspn(p, blanks);
        if (len == 2 && (strncmp(p, "%A", 2) == 0 || strncmp(p, "%C", 2) == 0)) {
            if (p[1] == 'C')
                add(w, opts->prog_path);
            add_args(w, opts);
            has_program |= p[1] == 'C';
        } else {
            if (expand_word(w, opts, tmpl, p, len) != 0)
                return -1;
            for (size_t i = 0; i + 1 < len; i++) {
                has_program |= p[i] == '%' && p[i + 1] == 'P';
                i += p[i] == '%';   /* %%P is a percent sign and a P */
            }
        }
        p += len;
    }
    if (!has_program) {
        run_say("MPIRUN_CMD='%s': expected a template that names the program with %%P or %%C, "
                "such as 'mpirun -np %%N %%P %%A'; accepted: " TEMPLATE_ACCEPTS, tmpl);
        return -1;
    }
    return 0;
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
    add_args(w, opts);
}

/* The command line as a shell would read it, for -v and -t. */
static void describe(const struct words *w, const struct run_opts *opts, int slurm,
                     const char *tmpl)
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
    else if (tmpl != NULL)
        run_say("pmix spawner: MPIRUN_CMD's command line (SLURM_JOB_ID is not set); the "
                "processes boot from its PMIx server");
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
    const char *tmpl = slurm ? NULL : gp_config_getenv("MPIRUN_CMD");
    if (tmpl != NULL && *tmpl == '\0')
        tmpl = NULL;   /* empty is unset, as in GASNet */
    struct words w = { 0 };
    if (tmpl != NULL) {
        if (build_from_template(&w, opts, tmpl) != 0) {
            free_words(&w);
            return RUN_EXIT_USAGE;
        }
    } else {
        build(&w, opts, slurm);
    }
    if (w.failed) {
        run_say("out of memory building the %s command line", slurm ? "srun" : "mpirun");
        free_words(&w);
        return 1;
    }
    if (opts->verbose)
        describe(&w, opts, slurm, tmpl);
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
            : tmpl != NULL ? " (the first word of MPIRUN_CMD)"
                    : " (install Open MPI's mpirun, or run inside a Slurm allocation to use srun)");
    free_words(&w);
    return err == ENOENT ? 127 : 126;
}
