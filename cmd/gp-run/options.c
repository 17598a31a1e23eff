/*
 * gp-run's command line, in the form of GASNet's gasnetrun (seed 003):
 *
 *   gp-run -n N[:M] [-N M] [--hostfile FILE] [-E VAR1,VAR2] [-v] [-t] [-k]
 *          [--spawner=local|ssh|pmix|mpi] [--tag-output] [--] prog [args]
 *
 * Options end at the program name (POSIXLY_CORRECT parsing), so the
 * program's own options are never taken for gp-run's.  Every mistake is
 * caught here, before anything is started, and named with what is
 * accepted; the program is looked up in PATH now so that a typo fails once
 * rather than N times.
 */
#include "gp_run.h"

#include "config/config.h"
#include "util/count.h"

#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_NPROCS = 1, OPT_NHOSTS, OPT_ENV, OPT_VERBOSE, OPT_TEST, OPT_KEEP, OPT_SPAWNER,
       OPT_HOSTFILE, OPT_TAG, OPT_AGENT, OPT_SWEEP, OPT_HELP, OPT_VERSION };

static const struct poptOption option_table[] = {
    { "np", 'n', POPT_ARG_STRING, NULL, OPT_NPROCS,
      "number of processes to run (required); N:M also says the number of hosts", "N[:M]" },
    { "nodes", 'N', POPT_ARG_STRING, NULL, OPT_NHOSTS,
      "number of hosts to run on (ssh spawner; default: one per process, at most the list)",
      "M" },
    { "hostfile", '\0', POPT_ARG_STRING, NULL, OPT_HOSTFILE,
      "hosts to run on, one per line (else GASNET_SSH_NODEFILE, then GASNET_SSH_SERVERS); "
      "implies --spawner=ssh unless pmix is chosen", "FILE" },
    { "tag-output", '\0', POPT_ARG_NONE, NULL, OPT_TAG,
      "prefix every line the processes print with [rank] (ssh and pmix spawners)", NULL },
    { "agent", '\0', POPT_ARG_NONE | POPT_ARGFLAG_DOC_HIDDEN, NULL, OPT_AGENT,
      "run as gp-run's agent on a host (started by gp-run over ssh)", NULL },
    { "agent-sweep", '\0', POPT_ARG_STRING | POPT_ARGFLAG_DOC_HIDDEN, NULL, OPT_SWEEP,
      "remove what job JOBID left in /dev/shm here (run over ssh after its agent was lost)",
      "JOBID" },
    { NULL, 'E', POPT_ARG_STRING, NULL, OPT_ENV,
      "environment variables to propagate (the local spawner propagates all of them)",
      "VAR1[,VAR2...]" },
    { "verbose", 'v', POPT_ARG_NONE, NULL, OPT_VERBOSE,
      "say what is happening: command lines, environment added, exits", NULL },
    { "test", 't', POPT_ARG_NONE, NULL, OPT_TEST,
      "test only: print what would be run and run nothing (implies -v)", NULL },
    { "keep", 'k', POPT_ARG_NONE, NULL, OPT_KEEP,
      "keep the job's temporary files (its /dev/shm objects) (implies -v)", NULL },
    { "spawner", '\0', POPT_ARG_STRING | POPT_ARGFLAG_ONEDASH, NULL, OPT_SPAWNER,
      "how to start the processes: local (this host, the default), ssh (the hosts of "
      "--hostfile, GASNET_SSH_NODEFILE or GASNET_SSH_SERVERS), or pmix (hand the job to srun "
      "inside a Slurm allocation, else to mpirun; mpi is the same)", "local|ssh|pmix|mpi" },
    { "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
    { "version", '\0', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
    POPT_TABLEEND
};

/* A count in [1, max] (util/count.h), else a line naming the option and what it accepts. */
static int parse_count(const char *option, const char *text, long max, int *out)
{
    long value;
    if (gp_parse_count(text, 1, max, &value) != 0) {
        run_say("%s '%s': expected a whole number from 1 to %ld", option, text, max);
        return -1;
    }
    *out = (int)value;
    return 0;
}

/* -E VAR1,VAR2: each an environment variable name. */
static int check_env_list(const char *text)
{
    const char *p = text;
    for (;;) {
        size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
        if (len == 0 || (*p >= '0' && *p <= '9') || (p[len] != ',' && p[len] != '\0')) {
            run_say("-E '%s': expected a comma-separated list of variable names "
                    "such as GASNET_BACKTRACE,OMP_NUM_THREADS", text);
            return -1;
        }
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* "mpi" is seed 003's name for starting through the MPI launcher; here that
 * launcher is reached through PMIx, so it means the same as "pmix". */
static int check_spawner(const char *where, const char *name, struct run_opts *opts)
{
    static const struct { const char *name; int spawner; } known[] = {
        { "local", SPAWN_LOCAL }, { "ssh", SPAWN_SSH }, { "pmix", SPAWN_PMIX },
        { "mpi", SPAWN_PMIX },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i].name) == 0) {
            opts->spawner = known[i].spawner;
            return 0;
        }
    run_say("%s=%s: unknown spawner; accepted: local, ssh, pmix, mpi (the same as pmix)",
            where, name);
    return -1;
}

/* -n N or -n N:M (seed 004: N processes over M hosts). */
static int parse_nprocs(const char *text, struct run_opts *opts)
{
    const char *colon = strchr(text, ':');
    if (colon == NULL)
        return parse_count("-n", text, RUN_MAX_PROCS, &opts->nprocs);
    char count[32];
    if ((size_t)(colon - text) >= sizeof count) {
        run_say("-n '%s': expected N or N:M, whole numbers", text);
        return -1;
    }
    memcpy(count, text, (size_t)(colon - text));
    count[colon - text] = '\0';
    if (parse_count("-n", count, RUN_MAX_PROCS, &opts->nprocs) != 0 ||
        parse_count("-n N:M, M", colon + 1, RUN_MAX_PROCS, &opts->nhosts) != 0)
        return -1;
    return 0;
}

/* path is an executable regular file: 0, or an errno value. */
static int executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EISDIR;
    return access(path, X_OK) == 0 ? 0 : errno;
}

/* The program as a path: given with a '/', or the first hit in PATH. */
static char *resolve_program(const char *name)
{
    int err;
    if (strchr(name, '/') != NULL) {
        if ((err = executable(name)) == 0)
            return strdup(name);
        run_say("program %s: %s", name, err == EISDIR ? "not a regular file" : strerror(err));
        return NULL;
    }
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = path; ; dir = strchr(dir, ':') + 1) {
        size_t dir_len = strcspn(dir, ":");
        char *candidate = NULL;
        if (asprintf(&candidate, "%.*s%s%s", (int)dir_len, dir, dir_len ? "/" : "", name) < 0)
            return NULL;
        if (executable(candidate) == 0)
            return candidate;
        free(candidate);
        if (dir[dir_len] == '\0')
            break;
    }
    run_say("program '%s' not found in PATH (%s)", name, path);
    return NULL;
}

static void print_help(poptContext ctx)
{
    printf("gp-run: launch a gp (GASNet) job\n\n");
    poptPrintHelp(ctx, stdout, 0);
    printf("\nThe exit status is the job's: see gp-run(1), EXIT STATUS.\n");
}

/* One option; returns RUN_CONTINUE, or an exit status to stop with. */
static int take_option(poptContext ctx, int which, const char *arg, struct run_opts *opts,
                       int *spawner_given)
{
    switch (which) {
    case OPT_NPROCS:
        return parse_nprocs(arg, opts) ? RUN_EXIT_USAGE : RUN_CONTINUE;
    case OPT_HOSTFILE:
        free(opts->hostfile);
        opts->hostfile = strdup(arg);
        return RUN_CONTINUE;
    case OPT_TAG: opts->tag_output = 1; return RUN_CONTINUE;
    case OPT_AGENT: opts->agent = 1; return RUN_CONTINUE;
    case OPT_SWEEP:
        if (arg == NULL || *arg == '\0' || strlen(arg) != GP_BOOT_JOBID_LEN ||
            strspn(arg, "0123456789abcdef") != strlen(arg)) {
            run_say("--agent-sweep '%s': not a job id (hexadecimal digits)", arg ? arg : "");
            return RUN_EXIT_USAGE;
        }
        free(opts->sweep_jobid);
        opts->sweep_jobid = strdup(arg);
        return RUN_CONTINUE;
    case OPT_NHOSTS:
        return parse_count("-N", arg, RUN_MAX_PROCS, &opts->nhosts) ? RUN_EXIT_USAGE
                                                                     : RUN_CONTINUE;
    case OPT_VERBOSE: opts->verbose = 1; return RUN_CONTINUE;
    case OPT_TEST: opts->test_only = opts->verbose = 1; return RUN_CONTINUE;
    case OPT_KEEP: opts->keep = opts->verbose = 1; return RUN_CONTINUE;
    case OPT_ENV:
        if (check_env_list(arg) != 0)
            return RUN_EXIT_USAGE;
        free(opts->env_list);
        opts->env_list = strdup(arg);
        return RUN_CONTINUE;
    case OPT_SPAWNER:
        *spawner_given = 1;
        return check_spawner("--spawner", arg, opts) ? RUN_EXIT_USAGE : RUN_CONTINUE;
    case OPT_HELP: print_help(ctx); return 0;
    case OPT_VERSION: printf("gp-run (gp) " GP_VERSION "\n"); return 0;
    default: return RUN_EXIT_USAGE;
    }
}

/* After the options: -n given, -N acceptable, a program that exists. */
static int finish(poptContext ctx, struct run_opts *opts, int spawner_given)
{
    if (opts->agent || opts->sweep_jobid != NULL)
        return RUN_CONTINUE; /* the job comes over the link; a sweep needs nothing more */
    const char *env_spawner = gp_config_getenv("GASNET_SPAWNER");
    if (!spawner_given && env_spawner != NULL && *env_spawner != '\0' &&
        check_spawner("GASNET_SPAWNER", env_spawner, opts))
        return RUN_EXIT_USAGE;
    /* A host list means ssh unless the launcher was chosen: pmix hands the list on. */
    if (!spawner_given && opts->hostfile != NULL && opts->spawner != SPAWN_PMIX)
        opts->spawner = SPAWN_SSH;
    if (opts->spawner == SPAWN_LOCAL && opts->hostfile != NULL) {
        run_say("--hostfile %s: the local spawner runs everything on this host; use "
                "--spawner=ssh (or drop --spawner=local)", opts->hostfile);
        return RUN_EXIT_USAGE;
    }
    if (opts->spawner == SPAWN_LOCAL && opts->nhosts > 1) {
        run_say("-N %d: the local spawner runs on this host only; use --spawner=ssh with "
                "--hostfile, GASNET_SSH_NODEFILE or GASNET_SSH_SERVERS", opts->nhosts);
        return RUN_EXIT_USAGE;
    }
    if (opts->spawner == SPAWN_SSH) {
        /* The host list and the remote shell's command line, checked before anything runs. */
        struct host_list list;
        int hosts_ok = hosts_load(opts, &list) == 0 && hosts_use(opts, &list) > 0;
        host_list_free(&list);
        char **shell = hosts_ok ? sshcmd_build("host", "true") : NULL;
        sshcmd_free(shell);
        if (shell == NULL)
            return RUN_EXIT_USAGE;
    }
    if (opts->spawner == SPAWN_PMIX && opts->keep) {
        run_say("-k: under the pmix spawner the launcher owns the job and gp-run leaves "
                "before it ends, so there is nothing for gp-run to keep (drop -k)");
        return RUN_EXIT_USAGE;
    }
    if (opts->spawner == SPAWN_LOCAL && opts->tag_output) {
        run_say("--tag-output: only the ssh spawner relays the processes' output (the local "
                "spawner lets them write to the terminal directly)");
        return RUN_EXIT_USAGE;
    }
    const char **rest = poptGetArgs(ctx);
    if (rest == NULL || rest[0] == NULL) {
        run_say("no program given: usage: gp-run -n N [options] [--] prog [args] (see --help)");
        return RUN_EXIT_USAGE;
    }
    if (opts->nprocs == 0) {
        run_say("-n N, the number of processes, is required (see --help)");
        return RUN_EXIT_USAGE;
    }
    size_t count = 0;
    while (rest[count] != NULL)
        count++;
    opts->argv = calloc(count + 1, sizeof *opts->argv);
    for (size_t i = 0; opts->argv != NULL && i < count; i++)
        opts->argv[i] = strdup(rest[i]);
    if (opts->argv == NULL || opts->argv[count - 1] == NULL) {
        run_say("out of memory reading the command line");
        return 1;
    }
    opts->prog_path = resolve_program(opts->argv[0]);
    return opts->prog_path == NULL ? RUN_EXIT_USAGE : RUN_CONTINUE;
}

int run_parse_options(int argc, const char **argv, struct run_opts *opts)
{
    int spawner_given = 0, result = RUN_CONTINUE, which = 0;
    poptContext ctx = poptGetContext("gp-run", argc, argv, option_table,
                                     POPT_CONTEXT_POSIXMEHARDER);
    poptSetOtherOptionHelp(ctx, "-n N [options] [--] prog [program args]");
    while (result == RUN_CONTINUE && (which = poptGetNextOpt(ctx)) > 0) {
        char *arg = poptGetOptArg(ctx);
        result = take_option(ctx, which, arg, opts, &spawner_given);
        free(arg);
    }
    if (result == RUN_CONTINUE && which < -1) {
        run_say("%s: %s (see --help)", poptBadOption(ctx, POPT_BADOPTION_NOALIAS),
                poptStrerror(which));
        result = RUN_EXIT_USAGE;
    }
    if (result == RUN_CONTINUE)
        result = finish(ctx, opts, spawner_given);
    poptFreeContext(ctx);
    return result;
}

void run_free_options(struct run_opts *opts)
{
    for (size_t i = 0; opts->argv != NULL && opts->argv[i] != NULL; i++)
        free(opts->argv[i]);
    free(opts->argv);
    free(opts->prog_path);
    free(opts->env_list);
    free(opts->hostfile);
    free(opts->sweep_jobid);
}
