/*
 * Integers as people write them in environment variables, and back.
 *
 * A plain integer goes through the configuration table's own parser
 * (decimal or 0x hex, nothing else), so gp reads "42" the same way
 * everywhere.  A memory size is a decimal number, fractions allowed, with an
 * optional B, K, M, G or T suffix (powers of 1024, a trailing B optional, any
 * case); a bare number counts in units of the caller's multiplier, as GASNet
 * does.  format_number writes the exact inverse.
 */
#include <gasnet_tools.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <gasnet.h>

#include "util/export.h"
#include "config/config.h"
#include "tools/tools.h"
#include "util/log.h"

static const char unit_letters[] = "BKMGT"; /* 1024^0 .. 1024^4 */

/* "", "B", or one of K M G T optionally followed by B (any case); 0 if none fits. */
static uint64_t suffix_unit(const char *suffix, uint64_t bare_unit)
{
    if (*suffix == '\0')
        return bare_unit;
    for (int i = 0; unit_letters[i] != '\0'; i++) {
        if (toupper((unsigned char)suffix[0]) != unit_letters[i])
            continue;
        const char *rest = suffix + 1;
        if (i > 0 && (*rest == 'b' || *rest == 'B'))
            rest++;
        return *rest == '\0' ? (uint64_t)1 << (10 * i) : 0;
    }
    return 0;
}

static int parse_mem_size(const char *text, uint64_t multiplier, int64_t *out)
{
    const char *p = text;
    int negative = 0;
    uint64_t whole = 0;
    double fraction = 0.0;
    if (*p == '-' || *p == '+')
        negative = (*p++ == '-');
    if (!isdigit((unsigned char)*p))
        return GASNET_ERR_BAD_ARG;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return GASNET_ERR_BAD_ARG;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        const char *start = p++;
        while (isdigit((unsigned char)*p))
            p++;
        fraction = strtod(start, NULL); /* digits only, so it cannot fail */
    }
    uint64_t unit = suffix_unit(p, multiplier);
    if (unit == 0 || whole > (uint64_t)INT64_MAX / unit)
        return GASNET_ERR_BAD_ARG;
    double extra = fraction * (double)unit + 0.5; /* rounded to the nearest byte below */
    uint64_t bytes = whole * unit;
    if (extra >= 9.0e18 || (uint64_t)extra > (uint64_t)INT64_MAX - bytes)
        return GASNET_ERR_BAD_ARG;
    bytes += (uint64_t)extra;
    *out = negative ? -(int64_t)bytes : (int64_t)bytes;
    return GASNET_OK;
}

int gp_tools_parse_int(const char *text, uint64_t mem_size_multiplier, int64_t *out)
{
    if (text == NULL)
        return GASNET_ERR_BAD_ARG;
    if (mem_size_multiplier == 0)
        return gp_config_parse_int(text, out) == GP_CFG_OK ? GASNET_OK : GASNET_ERR_BAD_ARG;
    return parse_mem_size(text, mem_size_multiplier, out);
}

void gp_tools_int_form(uint64_t mem_size_multiplier, char *buf, size_t len)
{
    char unit[64] = "bytes";
    if (mem_size_multiplier == 0) {
        snprintf(buf, len, "an integer (decimal, or hex with 0x)");
        return;
    }
    if (mem_size_multiplier > 1)
        snprintf(unit, sizeof unit, "units of %" PRIu64 " bytes", mem_size_multiplier);
    snprintf(buf, len,
             "a memory size: a number with an optional B, KB, MB, GB or TB suffix "
             "(a bare number counts %s)", unit);
}

GP_EXPORT int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier)
{
    int64_t value;
    char form[160];
    if (gp_tools_parse_int(str, mem_size_multiplier, &value) == GASNET_OK)
        return value;
    gp_tools_int_form(mem_size_multiplier, form, sizeof form);
    gp_fatal("gasnett_parse_int: '%.64s' is not valid: expected %s", str ? str : "(null)", form);
}

GP_EXPORT char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size)
{
    static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
    if (buf == NULL || bufsz == 0)
        return buf;
    if (!is_mem_size) {
        snprintf(buf, bufsz, "%" PRId64, val);
        return buf;
    }
    /* The largest unit that divides the size exactly, so parse_int reads back the same number. */
    uint64_t magnitude = val < 0 ? (uint64_t)0 - (uint64_t)val : (uint64_t)val;
    int unit = 0;
    while (magnitude != 0 && magnitude % 1024 == 0 && unit < 4) {
        magnitude /= 1024;
        unit++;
    }
    snprintf(buf, bufsz, "%s%" PRIu64 "%s", val < 0 ? "-" : "", magnitude, units[unit]);
    return buf;
}
