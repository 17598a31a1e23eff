/*
 * What the table says back: values derived at attach and where each value
 * came from, a value as text, the GASNET_VERBOSEENV echo, the one getenv
 * door, and the exit timeout's alarm.
 */
#include "config/internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

/* ------------------------------------------------------------------ */
/* Derived values, sources, the echo                                   */
/* ------------------------------------------------------------------ */

/* NULL (after logging why) when a derived value cannot go into this row. */
static const struct gp_cfg_row *derivable_row(const char *name)
{
    const struct gp_cfg_row *row = gp_config_find(name);
    if (row == NULL || row->offset == GP_CFG_NO_FIELD || row->type == GP_CFG_STRING) {
        gp_error("config", "gp_config_set_derived(%s): not a stored numeric row of the table",
                 name ? name : "(null)");
        return NULL;
    }
    if (gp_cfg_row_source[gp_cfg_row_index(row)] == GP_CFG_FROM_ENV) {
        gp_debug("config", "%s was set by the user; the derived value is not used", row->name);
        return NULL;
    }
    return row;
}

static void record_derived(const struct gp_cfg_row *row, const union cfg_value *value)
{
    /* numeric: cannot fail */
    gp_cfg_store_value(gp_cfg_committed_field((size_t)gp_cfg_row_index(row)), row, value);
    gp_cfg_row_source[gp_cfg_row_index(row)] = GP_CFG_FROM_JOBSIZE;
    gp_cfg_row_known[gp_cfg_row_index(row)] = 1;
}

void gp_config_set_derived(const char *name, int64_t value)
{
    const struct gp_cfg_row *row = derivable_row(name);
    union cfg_value parsed;
    if (row == NULL)
        return;
    if (row->type == GP_CFG_SIZE && value < 0) {
        gp_error("config", "gp_config_set_derived(%s, %lld): a size cannot be negative",
                 row->name, (long long)value);
        return;
    }
    parsed.flag = (int)value;
    if (row->type == GP_CFG_INT)
        parsed.integer = value;
    else if (row->type == GP_CFG_SIZE)
        parsed.bytes = (uint64_t)value;
    else if (row->type == GP_CFG_DOUBLE)
        parsed.real = (double)value;
    record_derived(row, &parsed);
}

void gp_config_set_derived_double(const char *name, double value)
{
    const struct gp_cfg_row *row = derivable_row(name);
    union cfg_value parsed;
    if (row == NULL)
        return;
    if (row->type != GP_CFG_DOUBLE) {
        gp_config_set_derived(name, (int64_t)value);
        return;
    }
    parsed.real = value;
    record_derived(row, &parsed);
}

enum gp_cfg_source gp_config_source(const struct gp_cfg_row *row)
{
    long index = gp_cfg_row_index(row);
    return index < 0 ? GP_CFG_FROM_DEFAULT : gp_cfg_row_source[index];
}

static void format_field(const struct gp_cfg_row *row, char *buf, size_t len)
{
    const void *slot = gp_config_value_of(row);
    int flag;
    int64_t integer;
    uint64_t bytes;
    double real;
    const char *text;
    switch (row->type) {
    case GP_CFG_BOOL:
        memcpy(&flag, slot, sizeof flag);
        snprintf(buf, len, "%s", flag ? "yes" : "no");
        break;
    case GP_CFG_INT:
        memcpy(&integer, slot, sizeof integer);
        snprintf(buf, len, "%lld", (long long)integer);
        break;
    case GP_CFG_SIZE:
        memcpy(&bytes, slot, sizeof bytes);
        gp_config_format_size(bytes, buf, len);
        break;
    case GP_CFG_DOUBLE:
        memcpy(&real, slot, sizeof real);
        snprintf(buf, len, "%g", real);
        break;
    case GP_CFG_STRING:
        memcpy(&text, slot, sizeof text);
        if (text != NULL)
            snprintf(buf, len, "%s", text);
        else
            snprintf(buf, len, "(%s)", row->unset_means ? row->unset_means : "not set");
        break;
    }
}

void gp_config_format_value(const struct gp_cfg_row *row, char *buf, size_t len)
{
    long index = gp_cfg_row_index(row);
    const char *raw;
    if (buf == NULL || len == 0)
        return;
    if (index < 0) {
        snprintf(buf, len, "(not a row of the table)");
    } else if (row->offset == GP_CFG_NO_FIELD) {
        const char *from;
        raw = row->newer != NULL ? getenv(row->name) : gp_config_row_text(row, &from);
        if (raw != NULL)
            snprintf(buf, len, "%s", raw);
        else
            snprintf(buf, len, "(%s)", row->unset_means ? row->unset_means : "not set");
    } else if (!gp_cfg_row_known[index]) {
        snprintf(buf, len, "(%s)", row->unset_means ? row->unset_means : "not set");
    } else {
        format_field(row, buf, len);
    }
}

const void *gp_config_value_of(const struct gp_cfg_row *row)
{
    long index = gp_cfg_row_index(row);
    return index < 0 ? NULL : gp_cfg_committed_field((size_t)index);
}

int64_t gp_config_int(const char *name)
{
    const struct gp_cfg_row *row = gp_config_find(name);
    const void *slot = gp_config_value_of(row);
    int64_t value = 0;
    if (slot == NULL || row->type != GP_CFG_INT)
        gp_error("config", "gp_config_int(%s): not a stored integer row of the table",
                 name ? name : "(null)");
    else
        memcpy(&value, slot, sizeof value);
    return value;
}

/* A default given as a rule rather than a constant is shown as derived. */
static const char *source_label(const struct gp_cfg_row *row)
{
    switch (gp_config_source(row)) {
    case GP_CFG_FROM_ENV:
        return "set";
    case GP_CFG_FROM_JOBSIZE:
        return "derived";
    case GP_CFG_FROM_DEFAULT:
        break;
    }
    return row->default_text == NULL && row->unset_means != NULL ? "derived" : "default";
}

#define ECHO_VALUE_COLUMN 24

void gp_config_print(FILE *out)
{
    char value[256];
    int name_width = 0, value_width = 0;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        int name_len = (int)strlen(ROWS[i].name);
        gp_config_format_value(&ROWS[i], value, sizeof value);
        if (name_len > name_width)
            name_width = name_len;
        /* A long rule (the exit timeout's) overflows its column rather than widen all. */
        if ((int)strlen(value) > value_width && strlen(value) <= ECHO_VALUE_COLUMN)
            value_width = (int)strlen(value);
    }
    for (size_t i = 0; i < ROW_COUNT; i++) {
        gp_config_format_value(&ROWS[i], value, sizeof value);
        fprintf(out, "ENV parameter: %-*s = %-*s   (%s)\n", name_width, ROWS[i].name,
                value_width, value, source_label(&ROWS[i]));
    }
    fflush(out);
}

const char *gp_config_getenv(const char *name)
{
    const struct gp_cfg_row *row = gp_config_find(name);
    const char *from, *text;
    if (row == NULL) {
        gp_error("config", "gp_config_getenv(%s): not in the configuration table; add a row",
                 name ? name : "(null)");
        return NULL;
    }
    if (row->newer != NULL)
        return getenv(name);
    text = gp_config_row_text(row, &from);
    if (text != NULL)
        gp_cfg_note_older_name(from, row, text);
    return text;
}

/* Past this, alarm()'s seconds (and a 32-bit time_t deadline) would overflow. */
#define ALARM_SECONDS_MAX 2147483647.0

unsigned gp_config_exit_alarm(double timeout)
{
    double seconds = ceil(timeout) + 2;   /* a little beyond the exit's own deadline */
    if (!(seconds < ALARM_SECONDS_MAX))
        return 0;
    return seconds < 1 ? 1 : (unsigned)seconds;
}

