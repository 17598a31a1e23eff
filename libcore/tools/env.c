/*
 * Environment lookups for clients: gasnett_getenv and its typed forms with
 * defaults, setenv/unsetenv, and gasnett_verboseenv.
 *
 * These read whatever names the client asks for, so they call getenv
 * directly.  The project rule that GASNET_* and GP_* variables are read only
 * through the configuration table (libcore/config/) is about the variables gp itself reads; this is
 * the client's own door, like gasnet_getenv.  The one variable these tools
 * read for themselves, GASNET_VERBOSEENV, goes through that table and its
 * boolean parser, so it means here what it means to gp.
 *
 * A value that does not parse is a fatal error naming the variable, the
 * value and the accepted form, in the same sentence gp uses for its own.
 */
#include <gasnet_tools.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gasnet.h>

#include "util/export.h"
#include "boot/boot.h"
#include "config/config.h"
#include "tools/tools.h"
#include "util/log.h"

#define BOOL_FORM "one of 0, 1, y, n, yes, no, true, false (any case)"
#define DOUBLE_FORM "a number, or a fraction like 3/8"

_Noreturn static void bad_value(const char *keyname, const char *text, const char *form)
{
    gp_fatal("%s='%.64s%s' is not valid: expected %s", keyname, text,
             strlen(text) > 64 ? "..." : "", form);
}

/* ---- GASNET_VERBOSEENV and the echo ---- */

static int verbose_parsed = -1; /* -1 until read; the variable is read once */

GP_EXPORT int gasnett_verboseenv(void)
{
    int on = __atomic_load_n(&verbose_parsed, __ATOMIC_ACQUIRE);
    if (on < 0) {
        const char *text = gp_config_getenv("GASNET_VERBOSEENV");
        on = 0;
        if (text != NULL && gp_config_parse_bool(text, &on) != GASNET_OK)
            bad_value("GASNET_VERBOSEENV", text, BOOL_FORM);
        __atomic_store_n(&verbose_parsed, on, __ATOMIC_RELEASE);
    }
    /* Node 0 reports, as gp's own echo does; before gasnet_init every process is node 0. */
    return on && gp_boot_rank() == 0;
}

struct echoed {
    struct echoed *next;
    char name[];
};

static pthread_mutex_t echo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct echoed *echoed_names;

/* True the first time a name is seen (each variable is echoed once). */
static int first_echo(const char *keyname)
{
    int first = 1;
    pthread_mutex_lock(&echo_lock);
    for (struct echoed *e = echoed_names; e != NULL; e = e->next)
        if (strcmp(e->name, keyname) == 0)
            first = 0;
    if (first) {
        struct echoed *e = malloc(sizeof *e + strlen(keyname) + 1);
        if (e != NULL) {
            strcpy(e->name, keyname);
            e->next = echoed_names;
            echoed_names = e;
        }
    }
    pthread_mutex_unlock(&echo_lock);
    return first;
}

/* The GASNET_VERBOSEENV line, in the format of gp's own echo. */
static void echo(const char *keyname, const char *shown, int from_env)
{
    if (!gasnett_verboseenv() || !first_echo(keyname))
        return;
    fprintf(stderr, "ENV parameter: %-24s = %-16s   (%s)\n", keyname, shown,
            from_env ? "set" : "default");
    fflush(stderr);
}

/* ---- lookups ---- */

GP_EXPORT char *gasnett_getenv(const char *keyname)
{
    return keyname != NULL ? getenv(keyname) : NULL;
}

GP_EXPORT int gasnett_setenv(const char *key, const char *value)
{
    return setenv(key, value, 1);
}

GP_EXPORT int gasnett_unsetenv(const char *key)
{
    return unsetenv(key);
}

GP_EXPORT char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval)
{
    const char *text = gasnett_getenv(keyname);
    const char *value = text != NULL ? text : defaultval;
    echo(keyname, value != NULL ? value : "(unset)", text != NULL);
    return (char *)value;
}

GP_EXPORT int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval)
{
    const char *text = gasnett_getenv(keyname);
    int value = defaultval != 0;
    if (text != NULL && gp_config_parse_bool(text, &value) != GASNET_OK)
        bad_value(keyname, text, BOOL_FORM);
    echo(keyname, value ? "YES" : "NO", text != NULL);
    return value;
}

GP_EXPORT int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                                 uint64_t mem_size_multiplier)
{
    const char *text = gasnett_getenv(keyname);
    int64_t value = defaultval;
    char shown[64];
    if (text != NULL && gp_tools_parse_int(text, mem_size_multiplier, &value) != GASNET_OK) {
        char form[160];
        gp_tools_int_form(mem_size_multiplier, form, sizeof form);
        bad_value(keyname, text, form);
    }
    echo(keyname, gasnett_format_number(value, shown, sizeof shown, mem_size_multiplier != 0),
         text != NULL);
    return value;
}

/* A number, or a fraction "a/b" of two numbers with b not zero. */
static int parse_dbl(const char *text, double *out)
{
    const char *slash = strchr(text, '/');
    double numerator, denominator;
    char head[64];
    if (slash == NULL)
        return gp_config_parse_double(text, out) == GP_CFG_OK ? GASNET_OK : GASNET_ERR_BAD_ARG;
    if ((size_t)(slash - text) >= sizeof head)
        return GASNET_ERR_BAD_ARG;
    memcpy(head, text, (size_t)(slash - text));
    head[slash - text] = '\0';
    if (gp_config_parse_double(head, &numerator) != GASNET_OK ||
        gp_config_parse_double(slash + 1, &denominator) != GASNET_OK || denominator == 0.0)
        return GASNET_ERR_BAD_ARG;
    *out = numerator / denominator;
    return GASNET_OK;
}

GP_EXPORT double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval)
{
    const char *text = gasnett_getenv(keyname);
    double value = defaultval;
    char shown[64];
    if (text != NULL && parse_dbl(text, &value) != GASNET_OK)
        bad_value(keyname, text, DOUBLE_FORM);
    snprintf(shown, sizeof shown, "%g", value);
    echo(keyname, shown, text != NULL);
    return value;
}
