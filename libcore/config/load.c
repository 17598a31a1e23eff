/*
 * Loading: every row parsed from the environment into a scratch copy of
 * the values of its group (gp_cfg, or its layer's own struct), the rules
 * for rows derived from others, the checks between rows, and only then the
 * commit of every group's values at once, so a failed reload leaves the
 * previous configuration intact.  The scratch copies are allocated per load
 * (not a fast path) and freed by it.  The machinery reports; the caller
 * decides that an error is fatal.
 *
 * Some variables have no constant default: the credit variables are
 * derived from the job size at attach (gp_config_set_derived, print.c),
 * the PUT/GET bounce limits take GASNET_PORTAL_PUTGET_BOUNCE_LIMIT's value,
 * the firehose victim pool is R regions of MAXREGION_SIZE (nal/firehose_config.c),
 * and the exit timeout follows GASNet's formula over the node count.  Such
 * rows have a NULL default_text and an `unset_means` sentence, and the
 * echo labels them "derived".
 */
#include "config/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

struct gp_config gp_cfg;
enum gp_cfg_source gp_cfg_row_source[GP_CFG_MAX_ROWS];
unsigned char gp_cfg_row_known[GP_CFG_MAX_ROWS];

/* ------------------------------------------------------------------ */
/* Storing values into a group's values                                */
/* ------------------------------------------------------------------ */

void gp_config_error(char *errbuf, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (errbuf == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
}

size_t gp_cfg_type_size(enum gp_cfg_type type)
{
    switch (type) {
    case GP_CFG_BOOL:   return sizeof(int);
    case GP_CFG_INT:    return sizeof(int64_t);
    case GP_CFG_SIZE:   return sizeof(uint64_t);
    case GP_CFG_DOUBLE: return sizeof(double);
    case GP_CFG_STRING: return sizeof(char *);
    }
    return 0;
}

void *gp_cfg_field_of(void *values, const struct gp_cfg_row *row)
{
    return (char *)values + row->offset;
}

void *gp_cfg_committed_field(size_t index)
{
    size_t ngroups;
    const struct gp_cfg_group *group = gp_cfg_groups(&ngroups)[gp_cfg_row_group(index)];
    if (ROWS[index].offset == GP_CFG_NO_FIELD || group->values == NULL)
        return NULL;
    return gp_cfg_field_of(group->values, &ROWS[index]);
}

/*
 * A load works on a set of values: one object per group (indexed like
 * gp_cfg_groups()), either the scratch copies being built or the groups'
 * committed ones.  The field of the table's index'th row in such a set:
 */
static void *field_in(void *const *values, size_t index)
{
    return gp_cfg_field_of(values[gp_cfg_row_group(index)], &ROWS[index]);
}

/* Strings are owned copies: freed when the values holding them are dropped or replaced. */
static void free_strings(void *const *values)
{
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (ROWS[i].type != GP_CFG_STRING || ROWS[i].offset == GP_CFG_NO_FIELD)
            continue;
        char **slot = field_in(values, i);
        free(*slot);
        *slot = NULL;
    }
}

int gp_cfg_store_value(void *field, const struct gp_cfg_row *row, const union cfg_value *value)
{
    char *copy;
    if (row->offset == GP_CFG_NO_FIELD)
        return GP_CFG_OK;
    switch (row->type) {
    case GP_CFG_BOOL:   memcpy(field, &value->flag, sizeof value->flag); break;
    case GP_CFG_INT:    memcpy(field, &value->integer, sizeof value->integer); break;
    case GP_CFG_SIZE:   memcpy(field, &value->bytes, sizeof value->bytes); break;
    case GP_CFG_DOUBLE: memcpy(field, &value->real, sizeof value->real); break;
    case GP_CFG_STRING:
        /* A private copy: a later setenv() may free the environment's. */
        copy = strndup(value->text.start, value->text.len);
        if (copy == NULL)
            return GP_CFG_ERR_TABLE;
        memcpy(field, &copy, sizeof copy);
        break;
    }
    return GP_CFG_OK;
}

/* The placeholder of a row with no default, numeric types only. */
static void store_unset(void *field, const struct gp_cfg_row *row)
{
    union cfg_value value;
    switch (row->type) {
    case GP_CFG_BOOL:   value.flag = (int)row->unset_value; break;
    case GP_CFG_INT:    value.integer = (int64_t)row->unset_value; break;
    case GP_CFG_SIZE:   value.bytes = (uint64_t)row->unset_value; break;
    case GP_CFG_DOUBLE: value.real = row->unset_value; break;
    case GP_CFG_STRING: return; /* stays NULL */
    }
    gp_cfg_store_value(field, row, &value);
}

/* A numeric row takes another's value (of the same type, perhaps in another group). */
static void copy_field(void *const *values, size_t to, size_t from)
{
    memcpy(field_in(values, to), field_in(values, from), gp_cfg_type_size(ROWS[to].type));
}

/*
 * The group before g that keeps its values in the same object, whose
 * scratch copy g shares (the conduit's, nal's and boot's rows all fill
 * gp_cfg); g itself when none does.
 */
static size_t first_sharing(const struct gp_cfg_group *const *groups, size_t g)
{
    for (size_t h = 0; h < g; h++)
        if (groups[h]->values == groups[g]->values)
            return h;
    return g;
}

/*
 * The scratch copies a load builds, zeroed: one per object that groups
 * keep their values in (NULL for a group that stores none); freed with
 * release_next once committed or dropped.
 */
static int alloc_next(void **next, const struct gp_cfg_group *const *groups, size_t ngroups)
{
    for (size_t g = 0; g < ngroups; g++) {
        size_t owner = first_sharing(groups, g);
        if (owner != g || groups[g]->values == NULL) {
            next[g] = groups[g]->values != NULL ? next[owner] : NULL;
            continue;
        }
        next[g] = calloc(1, groups[g]->values_size);
        if (next[g] == NULL) {
            while (g-- > 0)
                if (first_sharing(groups, g) == g)
                    free(next[g]);
            return GP_CFG_ERR_TABLE;
        }
    }
    return GP_CFG_OK;
}

static void release_next(void **next, const struct gp_cfg_group *const *groups, size_t ngroups)
{
    for (size_t g = 0; g < ngroups; g++)
        if (first_sharing(groups, g) == g)
            free(next[g]);
}

/* Every group's values replaced by its scratch copy at once; the strings they held freed. */
static void commit_next(void *const *next, const struct gp_cfg_group *const *groups,
                        size_t ngroups)
{
    void *committed[GP_CFG_MAX_GROUPS] = { NULL };
    for (size_t g = 0; g < ngroups; g++)
        committed[g] = groups[g]->values;
    free_strings(committed);
    for (size_t g = 0; g < ngroups; g++)
        if (groups[g]->values != NULL && first_sharing(groups, g) == g)
            memcpy(groups[g]->values, next[g], groups[g]->values_size);
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

/* name: the variable the text came from (the row's, or an older name's). */
static void report_bad_value(const struct gp_cfg_row *row, const char *name, const char *text,
                             char *errbuf, size_t errlen)
{
    char accepted[256];
    int shown = (int)strlen(text) > 64 ? 64 : (int)strlen(text);
    gp_cfg_describe_accepted(row, accepted, sizeof accepted);
    gp_config_error(errbuf, errlen, "%s='%.*s%s' is not valid: expected %s", name, shown, text,
              (int)strlen(text) > shown ? "..." : "", accepted);
}

/*
 * The text a row takes from the environment: its own name's, else that of
 * the first older name of it that is set.  *from names the variable read.
 */
const char *gp_config_row_text(const struct gp_cfg_row *row, const char **from)
{
    const char *text = getenv(row->name);
    *from = row->name;
    for (size_t i = 0; text == NULL && i < ROW_COUNT; i++) {
        if (ROWS[i].newer == NULL || strcmp(ROWS[i].newer, row->name) != 0)
            continue;
        text = getenv(ROWS[i].name);
        if (text != NULL)
            *from = ROWS[i].name;
    }
    return text;
}

/* The note that an older name was read, once per name. */
void gp_cfg_note_older_name(const char *from, const struct gp_cfg_row *row, const char *text)
{
    if (strcmp(from, row->name) == 0 || !gp_cfg_first_warning_for(from, strlen(from)))
        return;
    gp_warn("config", "%s=%.64s is read as %s, its newer name (see gp-env(7))", from, text,
            row->name);
}

/* Every name of a variable that is set must say the same. */
static int check_older_names(char *errbuf, size_t errlen)
{
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const char *older = ROWS[i].newer != NULL ? getenv(ROWS[i].name) : NULL, *from, *text;
        if (older == NULL)
            continue;
        text = gp_config_row_text(gp_config_find(ROWS[i].newer), &from);
        if (strcmp(from, ROWS[i].name) == 0 || strcmp(text, older) == 0)
            continue;
        if (strcmp(from, ROWS[i].newer) == 0)
            gp_config_error(errbuf, errlen, "%s='%.64s' and %s='%.64s' disagree: expected only %s "
                      "(%s is its older name), or both the same", from, text, ROWS[i].name,
                      older, from, ROWS[i].name);
        else
            gp_config_error(errbuf, errlen, "%s='%.64s' and %s='%.64s' disagree: both are older "
                      "names of %s; expected one of them, or both the same", from, text,
                      ROWS[i].name, older, ROWS[i].newer);
        return GP_CFG_ERR_BAD_ARG;
    }
    return GP_CFG_OK;
}

static int load_row(void *const *values, size_t index, enum gp_cfg_source *source,
                    unsigned char *known, char *errbuf, size_t errlen)
{
    const struct gp_cfg_row *row = &ROWS[index];
    void *field = row->offset != GP_CFG_NO_FIELD ? field_in(values, index) : NULL;
    const char *from = row->name;
    const char *text = row->newer != NULL ? getenv(row->name) : gp_config_row_text(row, &from);
    union cfg_value value;
    *source = text != NULL ? GP_CFG_FROM_ENV : GP_CFG_FROM_DEFAULT;
    *known = 1;
    if (row->newer != NULL)
        return GP_CFG_OK;   /* read, parsed and stored as its newer row */
    if (text == NULL && row->default_text == NULL) {
        store_unset(field, row);
        /* Strings have NULL as a real value; numbers wait for their rule. */
        *known = row->type == GP_CFG_STRING || row->offset == GP_CFG_NO_FIELD;
        return GP_CFG_OK;
    }
    if (text == NULL) {
        text = row->default_text;
        from = row->name;
    }
    if (gp_cfg_parse_row_value(row, text, &value) != GP_CFG_OK) {
        report_bad_value(row, from, text, errbuf, errlen);
        return GP_CFG_ERR_BAD_ARG;
    }
    if (gp_cfg_store_value(field, row, &value) != GP_CFG_OK) {
        gp_config_error(errbuf, errlen, "out of memory storing %s", row->name);
        return GP_CFG_ERR_TABLE;
    }
    return GP_CFG_OK;
}

/* What a group's derive rule sees of the load being built. */
struct gp_cfg_derivation {
    const enum gp_cfg_source *source;
    unsigned char *known;
};

int gp_cfg_derive_unset(struct gp_cfg_derivation *derivation, const char *name)
{
    long index = gp_cfg_row_index(gp_config_find(name));
    if (index < 0) {
        gp_error("config", "a derive rule asked for %s, which is not in the table", name);
        return 0;
    }
    if (derivation->source[index] != GP_CFG_FROM_DEFAULT)
        return 0;
    derivation->known[index] = 1;
    return 1;
}

/* Rows whose default is another row's value, then each group's own rules on its values. */
static void apply_rules(void *const *next, const enum gp_cfg_source *source,
                        unsigned char *known)
{
    struct gp_cfg_derivation derivation = { source, known };
    size_t ngroups;
    const struct gp_cfg_group *const *groups = gp_cfg_groups(&ngroups);
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (ROWS[i].fallback == NULL || source[i] != GP_CFG_FROM_DEFAULT)
            continue;
        copy_field(next, i, (size_t)gp_cfg_row_index(gp_config_find(ROWS[i].fallback)));
        known[i] = 1;
    }
    for (size_t g = 0; g < ngroups; g++)
        if (groups[g]->derive != NULL)
            groups[g]->derive(next[g], &derivation);
}

/* Each group's checks between its rows, in the table's order. */
static int check_relations(void *const *next, char *errbuf, size_t errlen)
{
    size_t ngroups;
    const struct gp_cfg_group *const *groups = gp_cfg_groups(&ngroups);
    for (size_t g = 0; g < ngroups; g++) {
        int rc = groups[g]->check != NULL ? groups[g]->check(next[g], errbuf, errlen)
                                          : GP_CFG_OK;
        if (rc != GP_CFG_OK)
            return rc;
    }
    return GP_CFG_OK;
}

/* The notes for older names that were read, once each. */
static void note_older_names(void)
{
    const char *from, *text;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (ROWS[i].newer != NULL)
            continue;
        text = gp_config_row_text(&ROWS[i], &from);
        if (text != NULL)
            gp_cfg_note_older_name(from, &ROWS[i], text);
    }
}

/* Rows without an effect (yet): say once that setting them does nothing. */
static void warn_no_effect(void)
{
    static unsigned char warned[GP_CFG_MAX_ROWS];
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const char *text = getenv(ROWS[i].name);
        int on = 1;
        if (!(ROWS[i].flags & GP_CFG_F_NO_EFFECT) || text == NULL || warned[i])
            continue;
        if (ROWS[i].type == GP_CFG_BOOL && gp_config_parse_bool(text, &on) != GP_CFG_OK)
            continue;
        if (ROWS[i].type == GP_CFG_STRING && text[0] == '\0')
            continue;   /* seed 003: only a non-empty GASNET_HCA_ID draws the warning */
        if (!on)
            continue;
        warned[i] = 1;
        gp_warn("config", "%s=%s has no effect %sin gp (%s)", ROWS[i].name, text,
                (ROWS[i].flags & GP_CFG_F_NOT_YET) ? "yet " : "", ROWS[i].doc);
    }
}

int gp_config_load(char *errbuf, size_t errlen)
{
    void *next[GP_CFG_MAX_GROUPS];
    enum gp_cfg_source next_source[GP_CFG_MAX_ROWS];
    unsigned char next_known[GP_CFG_MAX_ROWS];
    size_t ngroups;
    const struct gp_cfg_group *const *groups = gp_cfg_groups(&ngroups);
    int rc = gp_cfg_check_table(errbuf, errlen);
    if (rc != GP_CFG_OK)
        return rc;
    gp_cfg_warn_unknown();
    if (alloc_next(next, groups, ngroups) != GP_CFG_OK) {
        gp_config_error(errbuf, errlen, "out of memory loading the configuration");
        return GP_CFG_ERR_TABLE;
    }
    rc = check_older_names(errbuf, errlen);
    for (size_t i = 0; i < ROW_COUNT && rc == GP_CFG_OK; i++)
        rc = load_row(next, i, &next_source[i], &next_known[i], errbuf, errlen);
    if (rc == GP_CFG_OK) {
        apply_rules(next, next_source, next_known);
        rc = check_relations(next, errbuf, errlen);
    }
    if (rc != GP_CFG_OK) {
        free_strings(next);
        release_next(next, groups, ngroups);
        return rc;
    }
    commit_next(next, groups, ngroups);
    release_next(next, groups, ngroups);
    memcpy(gp_cfg_row_source, next_source, sizeof gp_cfg_row_source);
    memcpy(gp_cfg_row_known, next_known, sizeof gp_cfg_row_known);
    note_older_names();
    warn_no_effect();
    return GP_CFG_OK;
}

