/*
 * The table: the groups of rows in their order (the conduit's, the
 * transport layer's as its registry lists them, boot's), concatenated
 * once; lookup by name; the check that every row is well formed (a bad row is a
 * programming error, found by the first load); and the warning for unknown
 * GASNET_* / GP_* variables, with the closest known name.
 *
 * The table is the allow-list for that warning: a layer that reads a new
 * variable adds a row to its group and nothing else.
 */
#include "config/internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

/* The groups, gathered once: the conduit's, the transport layer's (its registry's), boot's. */
static const struct gp_cfg_group *groups[GP_CFG_MAX_GROUPS];
static size_t group_count;

static struct gp_cfg_row table[GP_CFG_MAX_ROWS];
static unsigned char table_group[GP_CFG_MAX_ROWS];   /* the index in groups[] of each row's group */
static size_t table_count;
static const char *table_overflow;   /* what did not fit, for the table check to say */
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void add_group(const struct gp_cfg_group *group)
{
    if (group_count == GP_CFG_MAX_GROUPS) {
        table_overflow = "groups than GP_CFG_MAX_GROUPS";
        return;
    }
    groups[group_count++] = group;
}

/* Groups that keep their values in one object (gp_cfg) must agree on its size. */
static int shares_values_unlike(size_t g)
{
    for (size_t h = 0; h < g; h++)
        if (groups[h]->values == groups[g]->values &&
            groups[h]->values_size != groups[g]->values_size)
            return 1;
    return 0;
}

static void gather_groups(void)
{
    const struct gp_cfg_group *group;
    add_group(&gp_cfg_group_conduit);
    for (unsigned i = 0; table_overflow == NULL && (group = nal_config_group(i)) != NULL; i++)
        add_group(group);
    add_group(&gp_cfg_group_boot);
}

static void concatenate_groups(void)
{
    gather_groups();
    for (size_t g = 0; g < group_count; g++)
        for (size_t i = 0; i < groups[g]->count; i++) {
            if (table_count == GP_CFG_MAX_ROWS) {
                table_overflow = "rows than GP_CFG_MAX_ROWS";
                return;
            }
            table[table_count] = groups[g]->rows[i];
            if (table[table_count].choices_from != NULL)
                table[table_count].choices = table[table_count].choices_from();
            table_group[table_count] = (unsigned char)g;
            table_count++;
        }
}

const struct gp_cfg_row *gp_cfg_table(void)
{
    pthread_once(&table_once, concatenate_groups);
    return table;
}

size_t gp_cfg_table_count(void)
{
    pthread_once(&table_once, concatenate_groups);
    return table_count;
}

const struct gp_cfg_group *const *gp_cfg_groups(size_t *count)
{
    pthread_once(&table_once, concatenate_groups);
    *count = group_count;
    return groups;
}

size_t gp_cfg_row_group(size_t index)
{
    pthread_once(&table_once, concatenate_groups);
    return table_group[index];
}

/* ------------------------------------------------------------------ */
/* Rows: lookup                                                        */
/* ------------------------------------------------------------------ */

static const struct gp_cfg_row *find_row_n(const char *name, size_t len)
{
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (strncmp(ROWS[i].name, name, len) == 0 && ROWS[i].name[len] == '\0')
            return &ROWS[i];
    return NULL;
}

const struct gp_cfg_row *gp_config_find(const char *name)
{
    return name == NULL ? NULL : find_row_n(name, strlen(name));
}

const struct gp_cfg_row *gp_config_rows(size_t *count)
{
    if (count != NULL)
        *count = ROW_COUNT;
    return ROWS;
}

long gp_cfg_row_index(const struct gp_cfg_row *row)
{
    if (row < ROWS || row >= ROWS + ROW_COUNT)
        return -1;
    return (long)(row - ROWS);
}

/* ------------------------------------------------------------------ */
/* The table check: a bad row is a programming error                  */
/* ------------------------------------------------------------------ */

static int has_known_prefix(const char *name, size_t len)
{
    return (len > 7 && strncmp(name, "GASNET_", 7) == 0) ||
           (len > 3 && strncmp(name, "GP_", 3) == 0);
}

/* "all", "launcher", or a transport GP_TRANSPORT may name (its choices are the transport
 * registry's: a transport's rows need no line here). */
static int known_transport(const char *transport)
{
    if (transport == NULL)
        return 0;
    if (strcmp(transport, "all") == 0 || strcmp(transport, "launcher") == 0)
        return 1;
    const struct gp_cfg_row *selector = gp_config_find("GP_TRANSPORT");
    const char *word = selector != NULL ? selector->choices : NULL;
    size_t len = strlen(transport);
    for (; word != NULL && *word != '\0'; word += strcspn(word, "|"), word += *word == '|')
        if (strncmp(word, transport, len) == 0 && (word[len] == '|' || word[len] == '\0'))
            return 1;
    return 0;
}

static const char *fallback_problem(const struct gp_cfg_row *row)
{
    const struct gp_cfg_row *target = gp_config_find(row->fallback);
    if (target == NULL)
        return "its fallback is not in the table";
    if (target->type != row->type || target->type == GP_CFG_STRING)
        return "its fallback is not a numeric row of the same type";
    if (target->fallback != NULL || target->offset == GP_CFG_NO_FIELD)
        return "its fallback must be a stored row without a fallback of its own";
    if (row->default_text != NULL || row->offset == GP_CFG_NO_FIELD)
        return "a row with a fallback must be stored and have no default";
    return NULL;
}

/* An older name is only a name: everything else is its newer row's. */
static const char *older_name_problem(const struct gp_cfg_row *row)
{
    const struct gp_cfg_row *newer = gp_config_find(row->newer);
    if (newer == NULL)
        return "the row it is an older name of is not in the table";
    if (newer->newer != NULL)
        return "it is an older name of an older name";
    if (row->type != newer->type || strcmp(row->transport, newer->transport) != 0)
        return "an older name must have its newer row's type and transport";
    if (row->offset != GP_CFG_NO_FIELD || row->default_text != NULL || row->fallback != NULL ||
        row->choices != NULL || row->flags != 0)
        return "an older name must be unstored, without default, fallback, choices or flags";
    return NULL;
}

/* A stored row's value must lie whole inside its group's values. */
static const char *field_problem(const struct gp_cfg_row *row, const struct gp_cfg_group *group)
{
    if (group->values == NULL)
        return "it is stored but its group has no values";
    if (row->offset > group->values_size ||
        group->values_size - row->offset < gp_cfg_type_size(row->type))
        return "its offset lies outside its group's values";
    return NULL;
}

static const char *row_problem(const struct gp_cfg_row *row, size_t index)
{
    /* Launcher rows may keep another program's name (MPIRUN_CMD is mpirun's, in GASNet). */
    if (row->name == NULL || (!has_known_prefix(row->name, strlen(row->name)) &&
                              (row->transport == NULL || strcmp(row->transport, "launcher") != 0)))
        return "the name must start with GASNET_ or GP_";
    for (size_t j = 0; j < index; j++)
        if (strcmp(ROWS[j].name, row->name) == 0)
            return "the name appears twice";
    if (row->doc == NULL || row->doc[0] == '\0')
        return "it has no documentation";
    if (!known_transport(row->transport))
        return "its transport is not all, launcher or a name GP_TRANSPORT accepts";
    if ((row->type == GP_CFG_INT || row->type == GP_CFG_SIZE || row->type == GP_CFG_DOUBLE) &&
        !(row->min <= row->max))
        return "its min exceeds its max";
    if ((row->choices != NULL || row->choices_from != NULL) && row->type != GP_CFG_STRING)
        return "only string rows may list choices";
    if (row->choices != NULL && row->choices[0] == '\0')
        return "its list of choices is empty";
    if ((row->flags & (GP_CFG_F_POWER_OF_TWO | GP_CFG_F_ZERO_OK)) &&
        row->type != GP_CFG_INT && row->type != GP_CFG_SIZE)
        return "only integer and size rows may be powers of two or accept 0 apart";
    if (row->type == GP_CFG_SIZE && row->unset_value < 0)
        return "a size row cannot stand for a negative value while unset";
    if (row->offset != GP_CFG_NO_FIELD && field_problem(row, groups[table_group[index]]))
        return field_problem(row, groups[table_group[index]]);
    if ((row->flags & GP_CFG_F_NOT_YET) && !(row->flags & GP_CFG_F_NO_EFFECT))
        return "only a row without effect can be without effect yet";
    if (row->newer != NULL)
        return older_name_problem(row);
    if (row->fallback != NULL)
        return fallback_problem(row);
    return NULL;
}

int gp_cfg_check_table(char *errbuf, size_t errlen)
{
    char accepted[256];
    union cfg_value scratch;
    if (table_overflow != NULL) {
        gp_config_error(errbuf, errlen, "the configuration has more %s (config/internal.h)",
                        table_overflow);
        return GP_CFG_ERR_TABLE;
    }
    for (size_t g = 0; g < group_count; g++)
        if (shares_values_unlike(g)) {
            gp_config_error(errbuf, errlen, "configuration group %s is broken: it shares its "
                            "values with an earlier group but not their size", groups[g]->layer);
            return GP_CFG_ERR_TABLE;
        }
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const struct gp_cfg_row *row = &ROWS[i];
        const char *problem = row_problem(row, i);
        if (problem != NULL) {
            gp_config_error(errbuf, errlen, "configuration table row %s is broken: %s",
                      row->name ? row->name : "(unnamed)", problem);
            return GP_CFG_ERR_TABLE;
        }
        if (row->default_text == NULL ||
            gp_cfg_parse_row_value(row, row->default_text, &scratch) == GP_CFG_OK)
            continue;
        gp_cfg_describe_accepted(row, accepted, sizeof accepted);
        gp_config_error(errbuf, errlen, "configuration table row %s is broken: its default '%s' "
                  "is not %s", row->name, row->default_text, accepted);
        return GP_CFG_ERR_TABLE;
    }
    return GP_CFG_OK;
}

/* ------------------------------------------------------------------ */
/* Unknown variables                                                   */
/* ------------------------------------------------------------------ */

#define DISTANCE_MAX_LEN 64

/* Levenshtein distance over the first DISTANCE_MAX_LEN characters. */
static size_t edit_distance(const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b);
    size_t prev[DISTANCE_MAX_LEN + 1], cur[DISTANCE_MAX_LEN + 1];
    if (a_len > DISTANCE_MAX_LEN)
        a_len = DISTANCE_MAX_LEN;
    if (b_len > DISTANCE_MAX_LEN)
        b_len = DISTANCE_MAX_LEN;
    for (size_t j = 0; j <= b_len; j++)
        prev[j] = j;
    for (size_t i = 1; i <= a_len; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= b_len; j++) {
            size_t replace = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t drop = prev[j] + 1, insert = cur[j - 1] + 1;
            size_t best = replace < drop ? replace : drop;
            cur[j] = best < insert ? best : insert;
        }
        memcpy(prev, cur, (b_len + 1) * sizeof prev[0]);
    }
    return prev[b_len];
}

static const struct gp_cfg_row *closest_row(const char *name, size_t len)
{
    const struct gp_cfg_row *best = &ROWS[0];
    size_t best_distance = (size_t)-1;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        size_t distance = edit_distance(name, len, ROWS[i].name);
        if (distance < best_distance) {
            best_distance = distance;
            best = &ROWS[i];
        }
    }
    return best;
}

const struct gp_cfg_row *gp_config_closest(const char *name)
{
    return closest_row(name, strlen(name));
}

/*
 * Names already warned about, as hashes, so a reload does not repeat the
 * warning.  Past the array's end a name is warned about again: noise, but
 * never silence.
 */
static uint64_t warned_hashes[64];
static size_t warned_count;

int gp_cfg_first_warning_for(const char *name, size_t len)
{
    uint64_t hash = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ (unsigned char)name[i]) * 1099511628211u;
    for (size_t i = 0; i < warned_count; i++)
        if (warned_hashes[i] == hash)
            return 0;
    if (warned_count < sizeof warned_hashes / sizeof warned_hashes[0])
        warned_hashes[warned_count++] = hash;
    return 1;
}

void gp_cfg_warn_unknown(void)
{
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++) {
        const char *name = *entry;
        const char *equals = strchr(name, '=');
        size_t len = equals ? (size_t)(equals - name) : strlen(name);
        if (!has_known_prefix(name, len) || find_row_n(name, len) != NULL)
            continue;
        if (!gp_cfg_first_warning_for(name, len))
            continue;
        gp_warn("config", "unknown variable %.*s; did you mean %s?", (int)len, name,
                closest_row(name, len)->name);
    }
}

