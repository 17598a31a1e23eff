/*
 * gp-check --env --man: the gp-env(7) man page, generated from the
 * configuration table, so that every variable gp reads is documented with
 * the type, default and range the parser enforces.  The page in
 * man/man7/gp-env.7 is this output; "make env-man" rewrites it, and a test
 * fails when a row changes without it.  The output depends on the table
 * alone -- not on the environment, the version or the date -- so that it
 * only changes when the table does.
 */
#include "gp_check.h"

#include "config/config.h"
#include "nal/nal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The launcher's section, after the transports'. */
static const char launcher_intro[] =
    "The GP_BOOT_ADDR, GP_RANK, GP_SIZE, GP_JOBID and GP_BOOT_KEY_FD variables are set "
    "by gp-run(1) for each process and should not be set by hand.  The GASNET_SPAWNER, "
    "GASNET_SSH_* and MPIRUN_CMD variables are those of GASNet's spawner; gp-check(1) uses "
    "the host lists to check ssh access.";

/* Text in a roman line: backslashes escaped, a leading dot or quote defused. */
static void put_text(FILE *out, const char *text)
{
    if (text[0] == '.' || text[0] == '\'')
        fputs("\\&", out);
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-' && (p == text || p[-1] == ' '))
            fputs("\\-", out);   /* a leading minus: a sign or an option, not a hyphen */
        else
            fputc(*p, out);
    }
}

/* Sizes with the largest exact binary suffix, as the parser accepts them. */
static void size_text(double bytes, char *buf, size_t len)
{
    static const char suffixes[] = "KMGT";
    unsigned long long value = (unsigned long long)bytes;
    int power = 0;
    while (power < 4 && value != 0 && value % 1024 == 0) {
        value /= 1024;
        power++;
    }
    if (power == 0)
        snprintf(buf, len, "%llu", value);
    else
        snprintf(buf, len, "%llu%c", value, suffixes[power - 1]);
}

static void bound_text(const struct gp_cfg_row *row, double bound, char *buf, size_t len)
{
    if (row->type == GP_CFG_SIZE)
        size_text(bound, buf, len);
    else if (row->type == GP_CFG_INT)
        snprintf(buf, len, "%.0f", bound);
    else
        snprintf(buf, len, "%g", bound);
}

/* "Integer from 1 to 65535", "One of shm, tcp, ibv (any case)", ... */
static void form_text(const struct gp_cfg_row *row, char *buf, size_t len)
{
    char low[32], high[32], choices[128];
    const char *zero = (row->flags & GP_CFG_F_ZERO_OK) ? "0, or " : "";
    const char *power = (row->flags & GP_CFG_F_POWER_OF_TWO) ? " (a power of two)" : "";
    bound_text(row, row->min, low, sizeof low);
    bound_text(row, row->max, high, sizeof high);
    switch (row->type) {
    case GP_CFG_BOOL:
        snprintf(buf, len, "Boolean");
        break;
    case GP_CFG_INT:
        snprintf(buf, len, "%s%s from %s to %s%s", zero, *zero ? "integer" : "Integer", low,
                 high, power);
        break;
    case GP_CFG_SIZE:
        snprintf(buf, len, "%s%s from %s to %s%s%s", zero, *zero ? "size" : "Size", low, high,
                 power, (row->flags & GP_CFG_F_BARE_MEGABYTES)
                            ? " (a bare number means megabytes)" : "");
        break;
    case GP_CFG_DOUBLE:
        if (isinf(row->max))
            snprintf(buf, len, "Number %s %s", (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
                                                   ? "greater than" : "of at least", low);
        else if (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
            snprintf(buf, len, "Number greater than %s, at most %s", low, high);
        else
            snprintf(buf, len, "Number from %s to %s", low, high);
        break;
    case GP_CFG_STRING:
        if (row->choices == NULL) {
            snprintf(buf, len, "Text");
            break;
        }
        choices[0] = '\0';
        for (const char *word = row->choices; *word != '\0';) {
            size_t word_len = strcspn(word, "|"), used = strlen(choices);
            snprintf(choices + used, sizeof choices - used, "%s%.*s", used ? ", " : "",
                     (int)word_len, word);
            word += word_len + (word[word_len] == '|');
        }
        snprintf(buf, len, "One of %s (any case)", choices);
        break;
    }
}

static void default_text(const struct gp_cfg_row *row, char *buf, size_t len)
{
    if (row->default_text != NULL)
        snprintf(buf, len, "default %s", row->default_text);
    else if (row->fallback != NULL)
        snprintf(buf, len, "when unset, the value of %s", row->fallback);
    else if (row->unset_means != NULL)
        snprintf(buf, len, "when unset, %s", row->unset_means);
    else
        snprintf(buf, len, "unset by default");
}

/* An older name: its newer row says the rest. */
static void put_older_name(FILE *out, const struct gp_cfg_row *row)
{
    fprintf(out, ".TP\n.B %s\nOlder name of\n.BR %s :\nread, with a note, when that is "
            "unset; both set to different values is an error.\n.br\n", row->name, row->newer);
    char first[2] = { (char)toupper((unsigned char)row->doc[0]), '\0' };
    put_text(out, first);
    put_text(out, row->doc + 1);
    fputs(row->doc[strlen(row->doc) - 1] == '.' ? "\n" : ".\n", out);
}

static void put_row(FILE *out, const struct gp_cfg_row *row)
{
    char form[256], dflt[256];
    if (row->newer != NULL) {
        put_older_name(out, row);
        return;
    }
    form_text(row, form, sizeof form);
    default_text(row, dflt, sizeof dflt);
    fprintf(out, ".TP\n.B %s\n", row->name);
    put_text(out, form);
    fputs("; ", out);
    put_text(out, dflt);
    fputs(".\n.br\n", out);
    char first[2] = { (char)toupper((unsigned char)row->doc[0]), '\0' };
    put_text(out, first);
    put_text(out, row->doc + 1);
    fputs(row->doc[strlen(row->doc) - 1] == '.' ? "\n" : ".\n", out);
    if (row->flags & GP_CFG_F_NO_EFFECT)
        fprintf(out, "It has no effect%s in gp; setting it draws a warning.\n",
                (row->flags & GP_CFG_F_NOT_YET) ? " yet" : "");
}

static void put_header(FILE *out)
{
    fputs(".\\\" Generated by \"gp-check --env --man\" from libgp's configuration table\n"
          ".\\\" (libcore/config/ and each layer's rows).  Do not edit: run \"make env-man\".\n"
          ".TH GP-ENV 7 \"2024\" \"gp\" \"gp manual\"\n"
          ".nh\n"
          ".SH NAME\n"
          "gp-env \\- the environment variables of gp\n"
          ".SH DESCRIPTION\n"
          "Every environment variable that libgp, its programs and its commands read is a\n"
          "row of one table in libgp, and this page is generated from that table.\n"
          "Each value is parsed strictly: a value that is not of the variable's form, or\n"
          "lies outside its range, stops the program with an error that names the\n"
          "variable, the value and what is accepted, for example\n"
          ".PP\n.RS\n"
          "gp: FATAL ERROR on node 0/4: GASNET_PORTAL_MSG_LIMIT='abc' is not valid:\n"
          "expected an integer from 2 to 65535\n"
          ".RE\n.PP\n"
          "Nothing is clamped.\n"
          "A GASNET_* or GP_* variable that is not in the table draws a warning that names\n"
          "the closest known variable.\n"
          "With\n.B GASNET_VERBOSEENV=1\n"
          "a program prints every variable with its value and where the value came from;\n"
          ".B gp\\-check \\-\\-env\n"
          "prints the same without starting a job, and\n"
          ".B gp\\-check\n"
          "checks every variable that is set.\n"
          ".SS Forms of values\n"
          ".TP\n.I Boolean\n"
          "1, y, yes, true, or 0, n, no, false, in any case.\n"
          ".TP\n.I Integer\n"
          "Decimal digits with an optional sign, or hexadecimal after 0x.\n"
          ".TP\n.I Size\n"
          "Bytes: decimal digits with an optional K, M, G or T suffix (powers of 1024),\n"
          "which may be followed by B, in any case: 65536, 64K, 4G, 1TB.\n"
          ".TP\n.I Number\n"
          "A decimal floating-point number, such as 0.75 or 2.\n"
          ".TP\n.I Text\n"
          "Any text; where the entry lists the accepted words, one of them.\n"
          ".SH VARIABLES\n", out);
}

static void put_footer(FILE *out)
{
    fputs(".SH SEE ALSO\n"
          ".BR gp\\-check (1),\n"
          ".BR gp\\-run (1),\n"
          ".BR libgp (3)\n", out);
}

/* The rows of one transport (or "all", "launcher") under their title; nothing when it has none. */
static void put_section(const struct gp_cfg_row *rows, size_t count, const char *transport,
                        const char *title, const char *intro)
{
    int started = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(rows[i].transport, transport) != 0)
            continue;
        if (!started) {
            printf(".SS %s\n", title);
            if (intro != NULL)
                printf("%s\n", intro);
            started = 1;
        }
        put_row(stdout, &rows[i]);
    }
}

/*
 * The rows for every transport, then each transport's in the registry's order, titled from
 * its ops table, then the launcher's.  The table check admits no other transport names
 * (config/table.c), so every row has its section and a new transport needs no line here.
 */
void check_env_man(void)
{
    size_t count;
    const struct gp_cfg_row *rows = gp_config_rows(&count);
    put_header(stdout);
    put_section(rows, count, "all", "All transports", NULL);
    const struct nal_ops *nal;
    for (unsigned t = 0; (nal = nal_at(t)) != NULL; t++) {
        char title[128];
        snprintf(title, sizeof title, "%s (%s)", nal->title != NULL ? nal->title : "Transport",
                 nal->name);
        put_section(rows, count, nal->name, title, nal->rows_intro);
    }
    put_section(rows, count, "launcher", "Launcher", launcher_intro);
    put_footer(stdout);
}
