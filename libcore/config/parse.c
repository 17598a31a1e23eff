/*
 * Parsing values: the GASNet forms of booleans, integers, sizes with their
 * K/M/G/T suffixes and doubles, and a row's value checked against its
 * range, flags and choices.  Parsing is strict in the way GASNet is
 * strict: a value that is not exactly of the row's form, or lies outside
 * [min, max], is an error that names the variable, the value and the
 * accepted form.  Nothing is clamped, because a silently clamped knob makes
 * a tuning experiment measure something other than what the user asked for.
 */
#include "config/internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* Parsers                                                             */
/* ------------------------------------------------------------------ */

int gp_config_parse_bool(const char *text, int *out)
{
    static const char *const yes_words[] = { "1", "y", "yes", "true" };
    static const char *const no_words[] = { "0", "n", "no", "false" };
    if (text == NULL)
        return GP_CFG_ERR_BAD_ARG;
    for (size_t i = 0; i < sizeof yes_words / sizeof yes_words[0]; i++) {
        if (strcasecmp(text, yes_words[i]) == 0) {
            *out = 1;
            return GP_CFG_OK;
        }
        if (strcasecmp(text, no_words[i]) == 0) {
            *out = 0;
            return GP_CFG_OK;
        }
    }
    return GP_CFG_ERR_BAD_ARG;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return 99;
}

/*
 * At least one digit, stopping at the first non-digit.  Hand-rolled
 * because strtoull skips spaces, accepts a sign and, in base 16, a second
 * "0x", all of which strict parsing must reject.
 */
static int read_digits(const char **cursor, unsigned base, uint64_t *out)
{
    const char *p = *cursor;
    uint64_t total = 0;
    int digit;
    if ((unsigned)digit_value(*p) >= base)
        return GP_CFG_ERR_BAD_ARG;
    while ((unsigned)(digit = digit_value(*p)) < base) {
        if (total > (UINT64_MAX - (uint64_t)digit) / base)
            return GP_CFG_ERR_BAD_ARG;
        total = total * base + (uint64_t)digit;
        p++;
    }
    *cursor = p;
    *out = total;
    return GP_CFG_OK;
}

int gp_config_parse_int(const char *text, int64_t *out)
{
    const char *p = text;
    int negative = 0;
    unsigned base = 10;
    uint64_t magnitude;
    if (text == NULL)
        return GP_CFG_ERR_BAD_ARG;
    if (*p == '+' || *p == '-')
        negative = (*p++ == '-');
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (read_digits(&p, base, &magnitude) != GP_CFG_OK || *p != '\0')
        return GP_CFG_ERR_BAD_ARG;
    if (magnitude > (uint64_t)INT64_MAX + (negative ? 1u : 0u))
        return GP_CFG_ERR_BAD_ARG;
    if (negative)
        *out = magnitude == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)magnitude;
    else
        *out = (int64_t)magnitude;
    return GP_CFG_OK;
}

/* K M G T, optionally followed by B, any case; none means bare_unit. */
static int size_suffix_unit(const char *suffix, uint64_t bare_unit, uint64_t *unit)
{
    static const char letters[] = "KMGT";
    const char *hit;
    if (*suffix == '\0') {
        *unit = bare_unit;
        return GP_CFG_OK;
    }
    hit = strchr(letters, toupper((unsigned char)*suffix));
    if (hit == NULL)
        return GP_CFG_ERR_BAD_ARG;
    suffix++;
    if (*suffix == 'b' || *suffix == 'B')
        suffix++;
    if (*suffix != '\0')
        return GP_CFG_ERR_BAD_ARG;
    *unit = (uint64_t)1 << (10 * (hit - letters + 1));
    return GP_CFG_OK;
}

static int parse_size_with_unit(const char *text, uint64_t bare_unit, uint64_t *out)
{
    const char *p = text;
    uint64_t count, unit;
    if (text == NULL || read_digits(&p, 10, &count) != GP_CFG_OK)
        return GP_CFG_ERR_BAD_ARG;
    if (size_suffix_unit(p, bare_unit, &unit) != GP_CFG_OK)
        return GP_CFG_ERR_BAD_ARG;
    if (count > UINT64_MAX / unit)
        return GP_CFG_ERR_BAD_ARG;
    *out = count * unit;
    return GP_CFG_OK;
}

int gp_config_parse_size(const char *text, uint64_t *out)
{
    return parse_size_with_unit(text, 1, out);
}

int gp_config_parse_double(const char *text, double *out)
{
    char *end;
    double value;
    if (text == NULL || *text == '\0' || isspace((unsigned char)*text))
        return GP_CFG_ERR_BAD_ARG;
    errno = 0;
    value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(value))
        return GP_CFG_ERR_BAD_ARG;
    *out = value;
    return GP_CFG_OK;
}

/* Exact for every integer a SIZE or INT row can hold below 2^53, which covers their ranges. */
static int is_power_of_two(double value)
{
    uint64_t integer;
    if (!(value >= 1 && value < 18446744073709551616.0))
        return 0;
    integer = (uint64_t)value;
    return (double)integer == value && (integer & (integer - 1)) == 0;
}

static int in_range(const struct gp_cfg_row *row, double value)
{
    if (value == 0 && (row->flags & GP_CFG_F_ZERO_OK))
        return 1;
    if (value > row->max)
        return 0;
    if ((row->flags & GP_CFG_F_POWER_OF_TWO) && !is_power_of_two(value))
        return 0;
    if (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
        return value > row->min;
    return value >= row->min;
}

static uint64_t bare_unit_of(const struct gp_cfg_row *row)
{
    return (row->flags & GP_CFG_F_BARE_MEGABYTES) ? (uint64_t)1 << 20 : 1;
}

/* Sizes print with the largest exact suffix, so "131072" reads "128K". */
void gp_config_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char suffixes[] = "KMGT";
    int power = 0;
    while (power < 4 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        power++;
    }
    if (power == 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)bytes, suffixes[power - 1]);
}

static void format_bound(const struct gp_cfg_row *row, double bound, char *buf, size_t len)
{
    if (row->type == GP_CFG_SIZE)
        gp_config_format_size((uint64_t)bound, buf, len);
    else if (row->type == GP_CFG_INT)
        snprintf(buf, len, "%.0f", bound);
    else
        snprintf(buf, len, "%g", bound);
}

/* What the row accepts, completing "expected ...". */
void gp_cfg_describe_accepted(const struct gp_cfg_row *row, char *buf, size_t len)
{
    char low[32], high[32];
    format_bound(row, row->min, low, sizeof low);
    format_bound(row, row->max, high, sizeof high);
    const char *zero = (row->flags & GP_CFG_F_ZERO_OK) ? "0 or " : "";
    int power = (row->flags & GP_CFG_F_POWER_OF_TWO) != 0;
    switch (row->type) {
    case GP_CFG_BOOL:
        snprintf(buf, len, "one of 0, 1, y, n, yes, no, true, false (any case)");
        break;
    case GP_CFG_INT:
        snprintf(buf, len, "%s%s from %s to %s", zero, power ? "a power of two" : "an integer",
                 low, high);
        break;
    case GP_CFG_SIZE:
        snprintf(buf, len, "%s%s from %s to %s: digits with an optional K, M, G or T suffix%s",
                 zero, power ? "a power of two" : "a size", low, high,
                 (row->flags & GP_CFG_F_BARE_MEGABYTES) ? " (a bare number means megabytes)"
                                                        : "");
        break;
    case GP_CFG_DOUBLE:
        if (isinf(row->max))
            snprintf(buf, len, "a number %s %s", (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
                                                     ? "greater than" : "of at least", low);
        else if (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
            snprintf(buf, len, "a number greater than %s and at most %s", low, high);
        else
            snprintf(buf, len, "a number from %s to %s", low, high);
        break;
    case GP_CFG_STRING:
        snprintf(buf, len, "one of %s", row->choices ? row->choices : "(any text)");
        break;
    }
}

/* Finds text among the '|'-separated choices, any case. */
static int match_choice(const char *choices, const char *text, union cfg_value *value)
{
    size_t text_len = strlen(text);
    const char *word = choices;
    while (*word != '\0') {
        size_t word_len = strcspn(word, "|");
        if (word_len == text_len && strncasecmp(word, text, word_len) == 0) {
            value->text.start = word;
            value->text.len = word_len;
            return GP_CFG_OK;
        }
        word += word_len;
        if (*word == '|')
            word++;
    }
    return GP_CFG_ERR_BAD_ARG;
}

int gp_cfg_parse_row_value(const struct gp_cfg_row *row, const char *text, union cfg_value *value)
{
    switch (row->type) {
    case GP_CFG_BOOL:
        return gp_config_parse_bool(text, &value->flag);
    case GP_CFG_INT:
        if (gp_config_parse_int(text, &value->integer) != GP_CFG_OK)
            return GP_CFG_ERR_BAD_ARG;
        return in_range(row, (double)value->integer) ? GP_CFG_OK : GP_CFG_ERR_BAD_ARG;
    case GP_CFG_SIZE:
        if (parse_size_with_unit(text, bare_unit_of(row), &value->bytes) != GP_CFG_OK)
            return GP_CFG_ERR_BAD_ARG;
        return in_range(row, (double)value->bytes) ? GP_CFG_OK : GP_CFG_ERR_BAD_ARG;
    case GP_CFG_DOUBLE:
        if (gp_config_parse_double(text, &value->real) != GP_CFG_OK)
            return GP_CFG_ERR_BAD_ARG;
        return in_range(row, value->real) ? GP_CFG_OK : GP_CFG_ERR_BAD_ARG;
    case GP_CFG_STRING:
        if (row->choices != NULL)
            return match_choice(row->choices, text, value);
        value->text.start = text;
        value->text.len = strlen(text);
        return GP_CFG_OK;
    }
    return GP_CFG_ERR_BAD_ARG;
}

