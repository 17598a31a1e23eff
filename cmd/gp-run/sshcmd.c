/*
 * The remote shell's command line, as seed 003 says: GASNET_SSH_CMD (default
 * "ssh", found in PATH), then the words of GASNET_SSH_OPTIONS (split the way
 * sh would split them, quotes and backslashes honoured, so
 * "-o 'StrictHostKeyChecking no'" is two words), then the host, then the
 * command the remote shell runs.
 */
#include "gp_run.h"

#include "config/config.h"
#include "util/words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sshcmd_free(char **argv)
{
    gp_words_free(argv);
}

char *sshcmd_quote(const char *word)
{
    size_t len = 2;
    for (const char *p = word; *p; p++)
        len += *p == '\'' ? 4 : 1;
    char *out = malloc(len + 1), *q = out;
    if (out == NULL)
        return NULL;
    *q++ = '\'';
    for (const char *p = word; *p; p++) {
        if (*p == '\'') {
            memcpy(q, "'\\''", 4);
            q += 4;
        } else {
            *q++ = *p;
        }
    }
    *q++ = '\'';
    *q = '\0';
    return out;
}

/* GASNET_SSH_CMD as a path: given with a '/', else the first hit in PATH. */
static char *resolve_cmd(const char *name)
{
    struct stat st;
    if (strchr(name, '/') != NULL)
        return stat(name, &st) == 0 && access(name, X_OK) == 0 ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = path;; dir = strchr(dir, ':') + 1) {
        size_t dir_len = strcspn(dir, ":");
        char *candidate = NULL;
        if (asprintf(&candidate, "%.*s/%s", (int)dir_len, dir, name) < 0)
            return NULL;
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
            return candidate;
        free(candidate);
        if (dir[dir_len] == '\0')
            return NULL;
    }
}

char **sshcmd_build(const char *host, const char *remote_cmd)
{
    const char *cmd = gp_config_getenv("GASNET_SSH_CMD");
    const char *options = gp_config_getenv("GASNET_SSH_OPTIONS");
    if (cmd == NULL || *cmd == '\0')
        cmd = "ssh";
    char *cmd_path = resolve_cmd(cmd);
    if (cmd_path == NULL) {
        run_say("GASNET_SSH_CMD: '%s' is not an executable file%s (set it to the remote shell, "
                "such as ssh or /usr/bin/rsh)", cmd, strchr(cmd, '/') ? "" : " in PATH");
        return NULL;
    }
    const char *why = NULL;
    char **words = gp_words_split(options != NULL ? options : "", &why);
    if (words == NULL) {
        run_say("GASNET_SSH_OPTIONS='%s': %s (options are split like a shell command line, "
                "for example -o 'StrictHostKeyChecking no')", options, why);
        free(cmd_path);
        return NULL;
    }
    char **argv = calloc(1, sizeof *argv);
    size_t count = 0;
    int rc = argv == NULL ? -1 : gp_words_push(&argv, &count, cmd_path);
    for (size_t i = 0; rc == 0 && words[i] != NULL; i++) {
        rc = gp_words_push(&argv, &count, words[i]);
        words[i] = NULL;
    }
    if (rc == 0)
        rc = gp_words_push(&argv, &count, strdup(host));
    if (rc == 0)
        rc = gp_words_push(&argv, &count, strdup(remote_cmd));
    gp_words_free(words);
    if (rc != 0 || argv[count - 1] == NULL) {
        sshcmd_free(argv);
        run_say("out of memory building the ssh command line");
        return NULL;
    }
    return argv;
}
