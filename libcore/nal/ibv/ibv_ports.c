/*
 * The GASNET_IBV_PORTS filter (see ibv_ports.h for the syntax).
 *
 * Entries for the same HCA are merged as they are parsed, so a lookup is
 * one pass over the distinct HCAs named (a handful) and duplicates cost
 * nothing.  Each HCA keeps a bitmap of its allowed ports and a flag for
 * "any port": "x+x:1" allows every port of x, since a filter entry without
 * a port list already lets x's first active port through.
 *
 * The parser is strict: an empty HCA name, a port of 0, above 255 or not
 * decimal, an empty port list and a stray separator are all errors, because
 * a typo in this variable would otherwise quietly pick other hardware.
 */
#include "nal/ibv/ibv_ports.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PORT_WORDS ((IBV_PORT_FILTER_MAX_PORT + 1) / 64)

struct hca_entry {
    char *name;
    int any_port;
    uint64_t ports[PORT_WORDS];   /* bit p: port p allowed */
};

struct ibv_port_filter {
    struct hca_entry *hcas;
    size_t count;
};

#define SYNTAX "HCA[:PORT[,PORT...]][+HCA[:PORT[,PORT...]]...] with ports from 1 to 255, " \
               "such as mlx5_0+mlx5_1:2"

static void syntax_error(char *errbuf, size_t errlen, const char *varname, const char *text,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void syntax_error(char *errbuf, size_t errlen, const char *varname, const char *text,
                         const char *fmt, ...)
{
    char why[128];
    va_list ap;
    if (errbuf == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(errbuf, errlen, "%s='%.64s%s' is not valid: %s; expected %s",
             varname ? varname : "GASNET_IBV_PORTS", text, strlen(text) > 64 ? "..." : "", why,
             SYNTAX);
}

static struct hca_entry *find_hca(const struct ibv_port_filter *f, const char *name, size_t len)
{
    for (size_t i = 0; i < f->count; i++)
        if (strncmp(f->hcas[i].name, name, len) == 0 && f->hcas[i].name[len] == '\0')
            return &f->hcas[i];
    return NULL;
}

/* The entry for name, added if new; NULL when out of memory. */
static struct hca_entry *entry_for(struct ibv_port_filter *f, const char *name, size_t len)
{
    struct hca_entry *entry = find_hca(f, name, len), *grown;
    if (entry != NULL)
        return entry;
    grown = realloc(f->hcas, (f->count + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    f->hcas = grown;
    entry = &f->hcas[f->count];
    memset(entry, 0, sizeof *entry);
    entry->name = strndup(name, len);
    if (entry->name == NULL)
        return NULL;
    f->count++;
    return entry;
}

/* Characters that end an HCA name; names themselves are device names like mlx5_0. */
static int ends_name(char c)
{
    return c == '\0' || c == '+' || c == ':' || c == ',' || c == ' ' || c == '\t' || c == '\n';
}

/* Parses "1,2" at *cursor into entry's bitmap; stops at '+' or the end. */
static int parse_ports(const char **cursor, struct hca_entry *entry, const char *varname,
                       const char *text, char *errbuf, size_t errlen)
{
    const char *p = *cursor;
    for (;;) {
        unsigned long port = 0;
        const char *start = p;
        for (; *p >= '0' && *p <= '9'; p++)
            if (port <= IBV_PORT_FILTER_MAX_PORT)   /* saturate: "99999..." is still too big */
                port = port * 10 + (unsigned long)(*p - '0');
        if (p == start) {
            syntax_error(errbuf, errlen, varname, text, "a port number was expected at offset %d",
                         (int)(p - text));
            return -1;
        }
        if (*p != '\0' && *p != ',' && *p != '+') {
            syntax_error(errbuf, errlen, varname, text, "unexpected '%c' at offset %d", *p,
                         (int)(p - text));
            return -1;
        }
        if (port == 0 || port > IBV_PORT_FILTER_MAX_PORT) {
            syntax_error(errbuf, errlen, varname, text, "port %.*s is outside 1 to 255",
                         (int)(p - start), start);
            return -1;
        }
        entry->ports[port / 64] |= (uint64_t)1 << (port % 64);
        if (*p != ',')
            break;
        p++;
    }
    *cursor = p;
    return 0;
}

/* One HCA[:ports] at *cursor; leaves *cursor at the '+' or the end. */
static int parse_spec(const char **cursor, struct ibv_port_filter *f, const char *varname,
                      const char *text, char *errbuf, size_t errlen)
{
    const char *name = *cursor, *p = name;
    struct hca_entry *entry;
    while (!ends_name(*p))
        p++;
    if (p == name && (*p == '\0' || *p == '+' || *p == ':')) {
        syntax_error(errbuf, errlen, varname, text, "an HCA name was expected at offset %d",
                     (int)(name - text));
        return -1;
    }
    if (*p != '\0' && *p != '+' && *p != ':') {
        syntax_error(errbuf, errlen, varname, text, "unexpected '%c' at offset %d", *p,
                     (int)(p - text));
        return -1;
    }
    entry = entry_for(f, name, (size_t)(p - name));
    if (entry == NULL) {
        syntax_error(errbuf, errlen, varname, text, "out of memory");
        return -1;
    }
    if (*p != ':') {
        entry->any_port = 1;
    } else {
        p++;
        if (parse_ports(&p, entry, varname, text, errbuf, errlen) != 0)
            return -1;
    }
    *cursor = p;
    return 0;
}

int ibv_port_filter_parse(const char *varname, const char *text,
                          struct ibv_port_filter **out, char *errbuf, size_t errlen)
{
    struct ibv_port_filter *f = calloc(1, sizeof *f);
    const char *p = text;
    if (f == NULL) {
        syntax_error(errbuf, errlen, varname, text ? text : "", "out of memory");
        return -1;
    }
    while (p != NULL && *p != '\0') {
        if (parse_spec(&p, f, varname, text, errbuf, errlen) != 0) {
            ibv_port_filter_free(f);
            return -1;
        }
        if (*p == '+' && *++p == '\0') {
            syntax_error(errbuf, errlen, varname, text, "nothing after the last '+'");
            ibv_port_filter_free(f);
            return -1;
        }
    }
    *out = f;
    return 0;
}

static int port_bit(const struct hca_entry *entry, unsigned port)
{
    if (port == 0 || port > IBV_PORT_FILTER_MAX_PORT)
        return 0;
    return (entry->ports[port / 64] >> (port % 64)) & 1;
}

int ibv_port_filter_is_empty(const struct ibv_port_filter *f)
{
    return f == NULL || f->count == 0;
}

int ibv_port_filter_allows(const struct ibv_port_filter *f, const char *hca, unsigned port)
{
    const struct hca_entry *entry;
    if (ibv_port_filter_is_empty(f))
        return port >= 1 && port <= IBV_PORT_FILTER_MAX_PORT;
    entry = hca ? find_hca(f, hca, strlen(hca)) : NULL;
    if (entry == NULL)
        return 0;
    return entry->any_port ? port >= 1 && port <= IBV_PORT_FILTER_MAX_PORT
                           : port_bit(entry, port);
}

int ibv_port_filter_mentions(const struct ibv_port_filter *f, const char *hca)
{
    if (ibv_port_filter_is_empty(f))
        return 1;
    return hca != NULL && find_hca(f, hca, strlen(hca)) != NULL;
}

int ibv_port_filter_has_port_list(const struct ibv_port_filter *f, const char *hca)
{
    const struct hca_entry *entry;
    if (ibv_port_filter_is_empty(f) || hca == NULL)
        return 0;
    entry = find_hca(f, hca, strlen(hca));
    return entry != NULL && !entry->any_port;
}

void ibv_port_filter_free(struct ibv_port_filter *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->count; i++)
        free(f->hcas[i].name);
    free(f->hcas);
    free(f);
}
