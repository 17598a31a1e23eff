/*
 * The environment check: every GASNET_* / GP_* variable set is judged by
 * libgp's own configuration table, so gp-check and a job can never
 * disagree about a value.
 *
 * gp_config_load stops at the first bad value, and a job would too; a
 * check should name them all.  Every refusal of the table is one sentence
 * that starts with the variable it refuses ("VAR='value' is not valid:
 * expected ..."), checks between variables included (a
 * GASNET_PORTAL_CRED_PER_NODE above GASNET_PORTAL_MAX_CRED_PER_NODE names
 * the former).  So gp-check loads the environment as a job would, sets the
 * variable named aside with its sentence, and loads again until the table
 * accepts the rest.  The environment is then put back as it was, and gp_cfg
 * is left holding the configuration of the accepted variables, which the
 * later checks measure against.
 *
 * Names the table does not know, and rows that have no effect, are warned
 * about by gp_config_load itself (the closest known name comes from
 * gp_config_closest); gp-check captures those warnings from stderr while
 * it loads and turns each into a report line, so that what it reports is
 * exactly what a job would print.
 */
#include "gp_check.h"

#include "config/config.h"
#include "gasnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct env_var {
    char *name;
    char *value;
    int known;          /* a row of the table */
    char *why;          /* its sentence when the table refuses it */
};

struct env_set {
    struct env_var *vars;
    size_t count;
    size_t known;
};

static int gp_named(const char *name, size_t len)
{
    return (len > 7 && strncmp(name, "GASNET_", 7) == 0) ||
           (len > 3 && strncmp(name, "GP_", 3) == 0);
}

/* Copies of the GASNET_* / GP_* entries of the environment. */
static int collect(struct env_set *set)
{
    size_t total = 0;
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++)
        total++;
    set->vars = calloc(total + 1, sizeof *set->vars);
    if (set->vars == NULL)
        return -1;
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++) {
        const char *equals = strchr(*entry, '=');
        size_t len = equals ? (size_t)(equals - *entry) : strlen(*entry);
        if (!gp_named(*entry, len))
            continue;
        struct env_var *var = &set->vars[set->count++];
        var->name = strndup(*entry, len);
        var->value = strdup(equals ? equals + 1 : "");
        if (var->name == NULL || var->value == NULL)
            return -1;
        var->known = gp_config_find(var->name) != NULL;
        set->known += (size_t)var->known;
    }
    return 0;
}

static void release(struct env_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        free(set->vars[i].name);
        free(set->vars[i].value);
        free(set->vars[i].why);
    }
    free(set->vars);
}

/* Sets (on != 0) or unsets the known variables. */
static void apply(const struct env_set *set, int on)
{
    for (size_t i = 0; i < set->count; i++) {
        const struct env_var *var = &set->vars[i];
        if (!var->known)
            continue;
        if (on)
            setenv(var->name, var->value, 1);
        else
            unsetenv(var->name);
    }
}

/* stderr redirected into a temporary file while the table loads. */
struct capture {
    FILE *file;
    int saved_fd;
};

static void capture_start(struct capture *cap)
{
    fflush(stderr);
    cap->saved_fd = -1;
    cap->file = tmpfile();
    if (cap->file == NULL)
        return;
    cap->saved_fd = dup(STDERR_FILENO);
    if (cap->saved_fd < 0 || dup2(fileno(cap->file), STDERR_FILENO) < 0) {
        if (cap->saved_fd >= 0)
            close(cap->saved_fd);
        fclose(cap->file);
        cap->file = NULL;
    }
}

static void capture_stop(struct capture *cap)
{
    if (cap->file == NULL)
        return;
    fflush(stderr);
    dup2(cap->saved_fd, STDERR_FILENO);
    close(cap->saved_fd);
    rewind(cap->file);
}

/* One warning of the table ("gp[PID] warn config: MESSAGE") as a report line. */
static void report_warning(const char *line)
{
    static const char unknown[] = "unknown variable ", mean[] = "; did you mean ";
    const char *message = strstr(line, " config: ");
    char fix[256];
    message = message != NULL ? message + strlen(" config: ") : line;
    const char *suggestion = strstr(message, mean);
    if (strncmp(message, unknown, strlen(unknown)) == 0 && suggestion != NULL) {
        const char *name = message + strlen(unknown);
        int name_len = (int)(suggestion - name);
        const char *best = suggestion + strlen(mean);
        int best_len = (int)strcspn(best, "?");
        snprintf(fix, sizeof fix, "did you mean %.*s? correct or unset %.*s", best_len, best,
                 name_len, name);
        check_report(CHECK_WARN, "env", fix, "unknown variable %.*s, ignored by gp", name_len,
                     name);
    } else if (strstr(message, " has no effect") != NULL) {
        snprintf(fix, sizeof fix, "unset %.*s", (int)strcspn(message, "="), message);
        check_report(CHECK_WARN, "env", fix, "%s", message);
    } else {
        check_report(CHECK_WARN, "env", "see gp-env(7)", "%s", message);
    }
}

static void report_captured(struct capture *cap)
{
    char line[2048];
    if (cap->file == NULL)
        return;
    while (fgets(line, sizeof line, cap->file) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\0')
            report_warning(line);
    }
    fclose(cap->file);
}

/* The set variable a refusal names ("VAR='value' is not valid: ..."), or NULL. */
static struct env_var *named_by(struct env_set *set, const char *why)
{
    for (size_t i = 0; i < set->count; i++) {
        struct env_var *var = &set->vars[i];
        size_t len = strlen(var->name);
        if (var->known && var->why == NULL && strncmp(why, var->name, len) == 0 &&
            why[len] == '=')
            return var;
    }
    return NULL;
}

/*
 * Loads the table as a job would; each refusal names one variable, which
 * is set aside with its sentence before the next try.  A refusal that
 * names no variable set (a broken table) ends the loop.
 */
static void judge(struct env_set *set, char *other, size_t other_len)
{
    char why[512];
    for (size_t tries = 0; tries <= set->known; tries++) {
        if (gp_config_load(why, sizeof why) == GASNET_OK)
            return;
        struct env_var *culprit = named_by(set, why);
        if (culprit == NULL) {
            snprintf(other, other_len, "%s", why);
            apply(set, 0);
            gp_config_load(why, sizeof why);
            return;
        }
        culprit->why = strdup(why);
        unsetenv(culprit->name);
    }
}

static void report_good(const struct env_set *set, size_t bad)
{
    char names[1024] = "";
    size_t good = 0, used = 0;
    for (size_t i = 0; i < set->count; i++) {
        const struct env_var *var = &set->vars[i];
        if (!var->known || var->why != NULL)
            continue;
        good++;
        if (used < sizeof names - 1) {
            int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                             var->name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (set->count == 0)
        check_ok("env", "no GASNET_* or GP_* variable set; the defaults apply");
    else if (good > 0)
        check_ok("env", "%zu %svariable%s of the table set and valid: %s", good,
                 bad ? "other " : "", good == 1 ? "" : "s", names);
}

void check_env(void)
{
    struct env_set set = { NULL, 0, 0 };
    struct capture cap;
    char other[512] = "";
    if (collect(&set) != 0) {
        check_report(CHECK_FAIL, "env", NULL, "out of memory reading the environment");
        release(&set);
        return;
    }
    capture_start(&cap);
    judge(&set, other, sizeof other);
    capture_stop(&cap);
    apply(&set, 1);
    size_t bad = 0;
    for (size_t i = 0; i < set.count; i++) {
        if (set.vars[i].why == NULL)
            continue;
        char fix[256];
        snprintf(fix, sizeof fix, "give %s a value of that form, or unset it; see gp-env(7)",
                 set.vars[i].name);
        check_report(CHECK_FAIL, "env", fix, "%s", set.vars[i].why);
        bad++;
    }
    if (other[0] != '\0')
        check_report(CHECK_FAIL, "env", "rebuild and reinstall gp", "%s", other);
    report_captured(&cap);
    report_good(&set, bad + (other[0] != '\0'));
    release(&set);
}
