/*
 * The local spawner: fork and exec the job's processes on this host.
 *
 * Each process gets gp-run's whole environment (so -E has nothing to add),
 * minus any launcher variables gp-run itself inherited, plus its own:
 * GP_BOOT_ADDR, GP_RANK, GP_SIZE, GP_JOBID and GP_BOOT_KEY_FD.  The key
 * travels on a pipe whose read end is the only descriptor the process
 * inherits from gp-run; it is never on a command line or in the
 * environment, where ps(1) or /proc would show it.
 *
 * The processes share one process group of their own, so that the
 * terminal's Ctrl-C reaches gp-run only and gp-run passes it on exactly
 * once (see job.c).  Each asks the kernel for SIGKILL when gp-run dies
 * (PR_SET_PDEATHSIG), and checks that gp-run did not die before it asked.
 * stdin is /dev/null for every rank except rank 0, which shares gp-run's
 * stdin unless that is a terminal (a process outside the terminal's
 * foreground group that reads it would be stopped).
 */
#include "gp_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;

enum { ENV_ADDR, ENV_RANK, ENV_SIZE, ENV_JOBID, ENV_KEY_FD, ENV_COUNT };

static const char *const launcher_vars[ENV_COUNT] = {
    "GP_BOOT_ADDR", "GP_RANK", "GP_SIZE", "GP_JOBID", "GP_BOOT_KEY_FD"
};

/* The job's variables as NAME=value strings. */
struct job_env {
    char text[ENV_COUNT][96];
};

static void fill_env(struct job_env *env, const char *jobid, int nprocs, const char *addr,
                     int rank, const char *key_fd)
{
    memset(env, 0, sizeof *env);
    snprintf(env->text[ENV_ADDR], sizeof env->text[0], "GP_BOOT_ADDR=%s", addr);
    snprintf(env->text[ENV_RANK], sizeof env->text[0], "GP_RANK=%d", rank);
    snprintf(env->text[ENV_SIZE], sizeof env->text[0], "GP_SIZE=%d", nprocs);
    snprintf(env->text[ENV_JOBID], sizeof env->text[0], "GP_JOBID=%s", jobid);
    snprintf(env->text[ENV_KEY_FD], sizeof env->text[0], "GP_BOOT_KEY_FD=%s", key_fd);
}

static void fill_job_env(struct job_env *env, const struct run_job *job, const char *addr,
                         int rank, const char *key_fd)
{
    fill_env(env, job->jobid, job->nprocs, addr, rank, key_fd);
}

static int is_launcher_var(const char *entry)
{
    for (int i = 0; i < ENV_COUNT; i++) {
        size_t len = strlen(launcher_vars[i]);
        if (strncmp(entry, launcher_vars[i], len) == 0 && entry[len] == '=')
            return 1;
    }
    return 0;
}

static int is_denied(const char *entry, char *const *deny)
{
    for (size_t i = 0; deny != NULL && deny[i] != NULL; i++) {
        size_t len = strlen(deny[i]);
        if (strncmp(entry, deny[i], len) == 0 && entry[len] == '=')
            return 1;
    }
    return 0;
}

/* environ without launcher variables (and those named in extra_deny), with
 * ENV_COUNT slots and a NULL after. */
char **spawn_base_env(size_t *base, char *const *extra_deny)
{
    size_t count = 0, kept = 0;
    while (environ[count] != NULL)
        count++;
    char **envp = calloc(count + ENV_COUNT + 1, sizeof *envp);
    if (envp == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++)
        if (!is_launcher_var(environ[i]) && !is_denied(environ[i], extra_deny))
            envp[kept++] = environ[i];
    *base = kept;
    return envp;
}

/* A command line being written out for -v, cut short if it gets long. */
struct shown_line {
    char text[1800];
    size_t used;
    int cut;
};

static void add_char(struct shown_line *line, char ch)
{
    if (line->used + 1 < sizeof line->text)
        line->text[line->used++] = ch;
    else
        line->cut = 1;
    line->text[line->used] = '\0';
}

static void add_string(struct shown_line *line, const char *text)
{
    while (*text != '\0')
        add_char(line, *text++);
}

/* One word, single-quoted when a shell would need it, so it can be pasted. */
static void add_word(struct shown_line *line, const char *word)
{
    static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                      "0123456789_./=:,+-@%<>";
    if (line->used > 0)
        add_char(line, ' ');
    if (*word != '\0' && strspn(word, plain_chars) == strlen(word)) {
        add_string(line, word);
        return;
    }
    add_char(line, '\'');
    for (const char *p = word; *p != '\0'; p++) {
        if (*p == '\'')
            add_string(line, "'\\''");
        else
            add_char(line, *p);
    }
    add_char(line, '\'');
}

/* "rank R: VAR=... prog args", as -v and -t show it; never the key. */
static void describe_rank(const struct job_env *env, const struct run_opts *opts, int rank)
{
    struct shown_line line = { .used = 0 };
    for (int i = 0; i < ENV_COUNT; i++)
        add_word(&line, env->text[i]);
    add_word(&line, opts->prog_path);
    for (size_t i = 1; opts->argv[i] != NULL; i++)
        add_word(&line, opts->argv[i]);
    run_say("rank %d: %s%s", rank, line.text, line.cut ? " ..." : "");
}

void spawn_describe(const struct run_job *job, const struct run_opts *opts, const char *addr)
{
    if (!opts->verbose)
        return;
    run_say("job %s: %d process%s of %s on this host (local spawner); exit timeout %.15g s",
            job->jobid, job->nprocs, job->nprocs == 1 ? "" : "es", opts->prog_path,
            job->exit_timeout);
    if (opts->env_list != NULL)
        run_say("-E %s: nothing to add, the local spawner passes the whole environment",
                opts->env_list);
    if (addr != NULL) {
        run_say("control channel %s; the job key goes to each process on a pipe", addr);
        return;
    }
    run_say("test only (-t): nothing is run; the port and key descriptor are chosen at launch");
    for (int rank = 0; rank < job->nprocs; rank++) {
        struct job_env env;
        fill_job_env(&env, job, "127.0.0.1:<port>", rank, "<fd>");
        describe_rank(&env, opts, rank);
    }
}

static _Noreturn void exec_child(const char *prog_path, char *const *argv, char **envp,
                                 int rank, int key_fd, pid_t pgid, pid_t launcher,
                                 const sigset_t *child_mask, const int stdio[3])
{
    setpgid(0, pgid);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
        _exit(127); /* the launcher is already gone: don't start an orphan */
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, child_mask, NULL);
    for (int i = 0; i < 3; i++)
        if (stdio[i] >= 0 && stdio[i] != i)
            dup2(stdio[i], i);
    if (stdio[0] < 0 && (rank != 0 || isatty(STDIN_FILENO))) {
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd > 0) {
            dup2(null_fd, STDIN_FILENO);
            close(null_fd);
        }
    }
    fcntl(key_fd, F_SETFD, 0);
    execve(prog_path, argv, envp);
    run_say("rank %d: cannot execute %s: %m", rank, prog_path);
    _exit(127);
}

int spawn_key_pipe(const uint8_t key[GP_KEY_LEN])
{
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0)
        return -1;
    /* 32 bytes fit in any pipe's buffer, so this write never blocks. */
    int status = gp_wire_write_full(ends[1], key, GP_KEY_LEN, NULL, 0);
    close(ends[1]);
    if (status != GP_WIRE_OK) {
        close(ends[0]);
        return -1;
    }
    return ends[0];
}

pid_t spawn_rank(const char *prog_path, char *const *argv, char **envp, size_t base,
                 const char *addr, const char *jobid, int nprocs, int rank, int key_fd,
                 pid_t *pgid, const sigset_t *child_mask, int stdin_fd, int stdout_fd,
                 int stderr_fd)
{
    struct job_env env;
    char key_fd_text[16];
    snprintf(key_fd_text, sizeof key_fd_text, "%d", key_fd);
    fill_env(&env, jobid, nprocs, addr, rank, key_fd_text);
    for (int i = 0; i < ENV_COUNT; i++)
        envp[base + (size_t)i] = env.text[i];
    const int stdio[3] = { stdin_fd, stdout_fd, stderr_fd };
    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(prog_path, argv, envp, rank, key_fd, *pgid, launcher, child_mask, stdio);
    int fork_errno = errno;
    if (pid < 0) {
        run_say("cannot start rank %d: fork: %s", rank, strerror(fork_errno));
        return -1;
    }
    if (*pgid == 0)
        *pgid = pid;
    /* Also here, so the group is right whichever of parent and child runs first. */
    setpgid(pid, *pgid);
    return pid;
}

static int spawn_one(struct run_job *job, const struct run_opts *opts, const char *addr,
                     char **envp, size_t base, int rank, const sigset_t *child_mask)
{
    int key_fd = spawn_key_pipe(job->key);
    if (key_fd < 0) {
        run_say("cannot start rank %d: no pipe for the job key: %m", rank);
        return -1;
    }
    if (opts->verbose) {
        struct job_env env;
        char key_fd_text[16];
        snprintf(key_fd_text, sizeof key_fd_text, "%d", key_fd);
        fill_job_env(&env, job, addr, rank, key_fd_text);
        describe_rank(&env, opts, rank);
    }
    pid_t pid = spawn_rank(opts->prog_path, opts->argv, envp, base, addr, job->jobid,
                           job->nprocs, rank, key_fd, &job->pgid, child_mask, -1, -1, -1);
    close(key_fd);
    if (pid < 0)
        return -1;
    /* -v names every pid as it starts: a test checks that exactly these end. */
    run_note("rank %d started as pid %d", rank, (int)pid);
    job->procs[rank].pid = pid;
    job->procs[rank].running = 1;
    job->running++;
    return 0;
}

int spawn_local(struct run_job *job, const struct run_opts *opts, const char *addr,
                const sigset_t *child_mask)
{
    size_t base;
    char **envp = spawn_base_env(&base, NULL);
    if (envp == NULL) {
        run_say("out of memory building the job's environment");
        return -1;
    }
    int rc = 0;
    for (int rank = 0; rank < job->nprocs && rc == 0; rank++)
        rc = spawn_one(job, opts, addr, envp, base, rank, child_mask);
    free(envp);
    return rc;
}
