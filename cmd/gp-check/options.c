/*
 * gp-check's command line:
 *
 *   gp-check [-n N] [--shm-dir DIR] [--ssh-timeout S]     the system checks
 *   gp-check --env [-n N] [--man]                          the configuration table
 *   gp-check --run [-n N] [--transport T] [--quick]        the conformance programs
 *
 * Options that belong to another mode are refused rather than ignored, so
 * that "gp-check --quick" does not silently run the system checks.  Every
 * mistake exits 2 with a sentence saying what is accepted.
 */
#include "gp_check.h"
#include "nal/nal.h"
#include "util/count.h"

#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_RUN = 1, OPT_ENV, OPT_MAN, OPT_NPROCS, OPT_TRANSPORT, OPT_QUICK, OPT_SHM_DIR,
       OPT_SSH_TIMEOUT, OPT_HELP, OPT_VERSION };

/* Not const: --transport's argument names come from the transport registry (set_transport_names). */
static struct poptOption option_table[] = {
    { "run", '\0', POPT_ARG_NONE, NULL, OPT_RUN,
      "run the conformance programs through gp-run", NULL },
    { "env", '\0', POPT_ARG_NONE, NULL, OPT_ENV,
      "print every configuration variable with its effective value and source", NULL },
    { "man", '\0', POPT_ARG_NONE, NULL, OPT_MAN,
      "with --env: print the gp-env(7) man page generated from the table", NULL },
    { "np", 'n', POPT_ARG_STRING, NULL, OPT_NPROCS,
      "processes per job (--run: 4; system checks: one per CPU; "
      "--env: show the values derived for N)", "N" },
    { "transport", '\0', POPT_ARG_STRING, NULL, OPT_TRANSPORT,
      "with --run: the transport the programs use (sets GP_TRANSPORT)", NULL },
    { "quick", '\0', POPT_ARG_NONE, NULL, OPT_QUICK,
      "with --run: fewer programs with small arguments", NULL },
    { "shm-dir", '\0', POPT_ARG_STRING, NULL, OPT_SHM_DIR,
      "system checks: the shared-memory directory to check (default /dev/shm)", "DIR" },
    { "ssh-timeout", '\0', POPT_ARG_STRING, NULL, OPT_SSH_TIMEOUT,
      "system checks: seconds ssh may take to connect to a host (default 5)", "S" },
    { "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
    { "version", '\0', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
    POPT_TABLEEND
};

/* A count in [1, max] (util/count.h), else a line naming the option and what it accepts. */
static int parse_count(const char *option, const char *text, long max, int *out)
{
    long value;
    if (gp_parse_count(text, 1, max, &value) != 0) {
        check_say("%s '%s': expected a whole number from 1 to %ld", option, text, max);
        return -1;
    }
    *out = (int)value;
    return 0;
}

/* The names GP_TRANSPORT accepts, as the registry lists them (nal/registry.c). */
static int parse_transport(const char *text, char **out)
{
    const struct nal_ops *nal = nal_find(text);
    if (nal == NULL || !nal->user_selectable) {
        check_say("--transport '%s': expected one of %s", text, nal_selectable_names());
        return -1;
    }
    free(*out);
    *out = strdup(text);
    return 0;
}

static void print_help(poptContext ctx)
{
    printf("gp-check: check that gp works on this system\n\n");
    printf("  gp-check [-n N] [--shm-dir DIR] [--ssh-timeout S]   system checks\n");
    printf("  gp-check --env [-n N] [--man]                       configuration table\n");
    printf("  gp-check --run [-n N] [--transport T] [--quick]     conformance programs\n\n");
    poptPrintHelp(ctx, stdout, 0);
    printf("\nExit status: 0 when nothing failed, 1 when something did, 2 for a bad "
           "command line.\nSee gp-check(1).\n");
}

static int set_mode(struct check_opts *opts, enum check_mode mode, const char *option)
{
    if (opts->mode != MODE_SYSTEM && opts->mode != mode) {
        check_say("%s: --run and --env cannot be combined (see --help)", option);
        return -1;
    }
    opts->mode = mode;
    return 0;
}

/* One option; returns CHECK_CONTINUE, or an exit status to stop with. */
static int take_option(poptContext ctx, int which, const char *arg, struct check_opts *opts,
                       int *ssh_given)
{
    int bad = 0;
    switch (which) {
    case OPT_RUN: bad = set_mode(opts, MODE_RUN, "--run"); break;
    case OPT_ENV: bad = set_mode(opts, MODE_ENV, "--env"); break;
    case OPT_MAN: opts->man = 1; break;
    case OPT_QUICK: opts->quick = 1; break;
    case OPT_NPROCS: bad = parse_count("-n", arg, CHECK_MAX_PROCS, &opts->nprocs); break;
    case OPT_TRANSPORT: bad = parse_transport(arg, &opts->transport); break;
    case OPT_SSH_TIMEOUT:
        *ssh_given = 1;
        bad = parse_count("--ssh-timeout", arg, 600, &opts->ssh_timeout);
        break;
    case OPT_SHM_DIR:
        free(opts->shm_dir);
        opts->shm_dir = strdup(arg);
        break;
    case OPT_HELP: print_help(ctx); return 0;
    case OPT_VERSION: printf("gp-check (gp) " GP_VERSION "\n"); return 0;
    default: return CHECK_EXIT_USAGE;
    }
    return bad ? CHECK_EXIT_USAGE : CHECK_CONTINUE;
}

/* Options given for a mode other than the one chosen. */
static int check_combination(const struct check_opts *opts, int ssh_given)
{
    const char *stray = NULL, *owner = NULL;
    if (opts->mode != MODE_RUN && (opts->quick || opts->transport != NULL)) {
        stray = opts->quick ? "--quick" : "--transport";
        owner = "--run";
    } else if (opts->mode != MODE_ENV && opts->man) {
        stray = "--man";
        owner = "--env";
    } else if (opts->mode != MODE_SYSTEM && (opts->shm_dir != NULL || ssh_given)) {
        stray = opts->shm_dir != NULL ? "--shm-dir" : "--ssh-timeout";
        owner = "the system checks (no --run or --env)";
    }
    if (stray == NULL)
        return CHECK_CONTINUE;
    check_say("%s applies only to %s (see --help)", stray, owner);
    return CHECK_EXIT_USAGE;
}

static void set_transport_names(void)
{
    for (struct poptOption *option = option_table; option->longName != NULL ||
                                                   option->shortName != '\0'; option++)
        if (option->longName != NULL && strcmp(option->longName, "transport") == 0)
            option->argDescrip = nal_selectable_names();
}

int check_parse_options(int argc, const char **argv, struct check_opts *opts)
{
    int result = CHECK_CONTINUE, which = 0, ssh_given = 0;
    opts->ssh_timeout = CHECK_SSH_TIMEOUT_S;
    set_transport_names();
    poptContext ctx = poptGetContext("gp-check", argc, argv, option_table, 0);
    poptSetOtherOptionHelp(ctx, "[--run | --env] [options]");
    while (result == CHECK_CONTINUE && (which = poptGetNextOpt(ctx)) > 0) {
        char *arg = poptGetOptArg(ctx);
        result = take_option(ctx, which, arg, opts, &ssh_given);
        free(arg);
    }
    if (result == CHECK_CONTINUE && which < -1) {
        check_say("%s: %s (see --help)", poptBadOption(ctx, POPT_BADOPTION_NOALIAS),
                  poptStrerror(which));
        result = CHECK_EXIT_USAGE;
    }
    if (result == CHECK_CONTINUE && poptPeekArg(ctx) != NULL) {
        check_say("'%s': unexpected argument; gp-check takes options only (see --help)",
                  poptPeekArg(ctx));
        result = CHECK_EXIT_USAGE;
    }
    if (result == CHECK_CONTINUE)
        result = check_combination(opts, ssh_given);
    poptFreeContext(ctx);
    return result;
}

void check_free_options(struct check_opts *opts)
{
    free(opts->transport);
    free(opts->shm_dir);
}

int check_system_nprocs(const struct check_opts *opts)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (opts->nprocs > 0)
        return opts->nprocs;
    return cpus > 0 ? (int)(cpus < CHECK_MAX_PROCS ? cpus : CHECK_MAX_PROCS) : 1;
}
