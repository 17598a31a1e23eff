/*
 * The VIS formatting helpers of gasnet_tools.h (extensions spec 1.7):
 * VIS metadata as text for diagnostics.  The caller's buffer has the
 * matching _bufsz() bytes and no length travels with it, so every writer
 * below is bounded by that same formula: the text is cut short rather than
 * overrun if an estimate were ever wrong.  Addresses print as two 8-digit hex
 * words on 64-bit systems (0x%08x on 32-bit), as GASNet prints them.
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/common/export.h"

struct text {
    char *buf;
    size_t size, used;
};

static void text_init(struct text *t, char *buf, size_t size)
{
    t->buf = buf;
    t->size = size;
    t->used = 0;
    if (size > 0)
        buf[0] = '\0';
}

__attribute__((format(printf, 2, 3))) static void add(struct text *t, const char *fmt, ...)
{
    if (t->used + 1 >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->size - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used = t->used + (size_t)n < t->size ? t->used + (size_t)n : t->size - 1;
}

static void add_addr(struct text *t, const void *addr)
{
    uint64_t v = (uint64_t)(uintptr_t)addr;
#if UINTPTR_MAX > 0xffffffffu
    add(t, "0x%08x %08x", (unsigned)(v >> 32), (unsigned)(v & 0xffffffffu));
#else
    add(t, "0x%08x", (unsigned)v);
#endif
}

GP_EXPORT size_t gasnett_format_memveclist_bufsz(size_t count)
{
    return 200 + 50 * count;
}

static gasnett_memveclist_stats_t memvec_stats(size_t count, gasnet_memvec_t const *list)
{
    gasnett_memveclist_stats_t s = { (size_t)-1, 0, 0, NULL, NULL };
    for (size_t i = 0; i < count; i++) {
        size_t len = list[i].len;
        s.minsz = len < s.minsz ? len : s.minsz;
        s.maxsz = len > s.maxsz ? len : s.maxsz;
        s.totalsz += len;
        if (len == 0)
            continue;
        char *lo = list[i].addr, *hi = lo + len - 1;
        if (s.minaddr == NULL || lo < (char *)s.minaddr)
            s.minaddr = lo;
        if (s.maxaddr == NULL || hi > (char *)s.maxaddr)
            s.maxaddr = hi;
    }
    if (count == 0)
        s.minsz = 0;
    return s;
}

static void add_memveclist(struct text *t, size_t count, gasnet_memvec_t const *list)
{
    gasnett_memveclist_stats_t s = memvec_stats(count, list);
    add(t, "count=%zu totalsz=%zu\nbounds=[", count, (size_t)s.totalsz);
    add_addr(t, s.minaddr);
    add(t, " ... ");
    add_addr(t, s.maxaddr);
    add(t, "]\nlist=[");
    for (size_t i = 0; i < count; i++) {
        add(t, "{");
        add_addr(t, list[i].addr);
        add(t, ",%zu}%s", list[i].len, i + 1 == count ? "" : (i % 4 == 3 ? ",\n " : ", "));
    }
    add(t, "]");
}

_Static_assert(sizeof(gex_Memvec_t) == sizeof(gasnet_memvec_t) &&
                   offsetof(gex_Memvec_t, gex_addr) == offsetof(gasnet_memvec_t, addr) &&
                   offsetof(gex_Memvec_t, gex_len) == offsetof(gasnet_memvec_t, len),
               "a gex_Memvec_t list reads as a gasnet_memvec_t one");

/* list holds gasnet_memvec_t or gex_Memvec_t entries (one layout); they are copied
 * out by bytes, so neither type is read through the other's name. */
GP_EXPORT gasnett_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                               void const *list)
{
    gasnet_memvec_t small[16] = { { NULL, 0 } };
    gasnet_memvec_t *copy = count <= 16 ? small : malloc(count * sizeof *copy);
    if (copy == NULL)
        count = 0; /* no room to read it: an empty list's text and statistics */
    else if (count > 0)
        memcpy(copy, list, count * sizeof *copy);
    struct text t;
    text_init(&t, buf, gasnett_format_memveclist_bufsz(count));
    add_memveclist(&t, count, copy);
    gasnett_memveclist_stats_t s = memvec_stats(count, copy);
    if (copy != small)
        free(copy);
    return s;
}

GP_EXPORT size_t gasnett_format_addrlist_bufsz(size_t count)
{
    return 200 + 25 * count;
}

static gasnett_addrlist_stats_t addr_stats(size_t count, void *const *list, size_t len)
{
    gasnett_addrlist_stats_t s = { NULL, NULL };
    for (size_t i = 0; i < count; i++) {
        char *lo = list[i], *hi = lo + (len ? len - 1 : 0);
        if (s.minaddr == NULL || lo < (char *)s.minaddr)
            s.minaddr = lo;
        if (s.maxaddr == NULL || hi > (char *)s.maxaddr)
            s.maxaddr = hi;
    }
    return s;
}

/* 64-bit addresses as one 16-digit word here: 25 bytes an entry is the budget. */
static void add_addrlist(struct text *t, size_t count, void *const *list, size_t len)
{
    gasnett_addrlist_stats_t s = addr_stats(count, list, len);
    add(t, "count=%zu totalsz=%zu len=%zu\nbounds=[", count, count * len, len);
    add_addr(t, s.minaddr);
    add(t, " ... ");
    add_addr(t, s.maxaddr);
    add(t, "]\nlist=[");
    for (size_t i = 0; i < count; i++)
        add(t, "%p%s", list[i], i + 1 == count ? "" : (i % 8 == 7 ? ",\n " : ", "));
    add(t, "]");
}

GP_EXPORT gasnett_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count,
                                                           void *const *list, size_t len)
{
    struct text t;
    text_init(&t, buf, gasnett_format_addrlist_bufsz(count));
    add_addrlist(&t, count, list, len);
    return addr_stats(count, list, len);
}

GP_EXPORT size_t gasnett_format_strides_bufsz(size_t count)
{
    return 4 + 22 * count;
}

static void add_strides(struct text *t, size_t count, const size_t *list)
{
    add(t, "[");
    for (size_t i = 0; i < count; i++)
        add(t, "%zu%s", list[i], i + 1 == count ? "" : ", ");
    add(t, "]");
}

GP_EXPORT void gasnett_format_strides(char *buf, size_t count, const size_t *list)
{
    struct text t;
    text_init(&t, buf, gasnett_format_strides_bufsz(count));
    add_strides(&t, count, list);
}

GP_EXPORT size_t gasnett_format_putsgets_bufsz(size_t stridelevels)
{
    return 500 + 150 * stridelevels;
}

static void add_signed(struct text *t, size_t count, const ptrdiff_t *list)
{
    add(t, "[");
    for (size_t i = 0; i < count; i++)
        add(t, i ? ", %td" : "%td", list[i]);
    add(t, "]");
}

/* One side of an EX strided transfer: address, signed strides, and the lowest and
 * highest byte it touches (a negative stride reaches below the address). */
static void add_strided_side(struct text *t, const char *name, void *addr,
                             const ptrdiff_t *strides, size_t elemsz, const size_t count[],
                             size_t levels, int empty)
{
    /* Unsigned, wrapping: a diagnostic of absurd shapes must not overflow. */
    uintptr_t low = 0, high = empty ? 0 : elemsz - 1;
    for (size_t k = 0; !empty && k < levels; k++) {
        uintptr_t step = strides[k] < 0 ? -(uintptr_t)strides[k] : (uintptr_t)strides[k];
        if (strides[k] < 0)
            low -= (count[k] - 1) * step;
        else
            high += (count[k] - 1) * step;
    }
    add(t, "%s: addr=", name);
    add_addr(t, addr);
    add(t, " strides=");
    if (levels > 0 && strides != NULL)
        add_signed(t, levels, strides);
    else
        add(t, "[]");
    add(t, " bounds=[");
    add_addr(t, (void *)((uintptr_t)addr + low));
    add(t, " ... ");
    add_addr(t, (void *)((uintptr_t)addr + high));
    add(t, "]\n");
}

GP_EXPORT size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                         void *dstaddr, const ptrdiff_t dststrides[],
                                         void *srcaddr, const ptrdiff_t srcstrides[],
                                         size_t elemsz, const size_t count[],
                                         size_t stridelevels)
{
    (void)pstats; /* no shape statistics are kept */
    struct text t;
    text_init(&t, buf, gasnett_format_putsgets_bufsz(stridelevels));
    size_t total = elemsz;
    for (size_t k = 0; k < stridelevels; k++)
        total *= count[k];
    add(&t, "totalsz=%zu tm=%p rank=%u elemsz=%zu stridelevels=%zu count=", total, (void *)tm,
        (unsigned)rank, elemsz, stridelevels);
    if (stridelevels > 0)
        add_strides(&t, stridelevels, count);
    else
        add(&t, "[]");
    add(&t, "\n");
    add_strided_side(&t, "dst", dstaddr, dststrides, elemsz, count, stridelevels, total == 0);
    add_strided_side(&t, "src", srcaddr, srcstrides, elemsz, count, stridelevels, total == 0);
    return total;
}

GP_EXPORT size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount)
{
    return 100 + gasnett_format_memveclist_bufsz(dstcount) +
           gasnett_format_memveclist_bufsz(srccount);
}

GP_EXPORT size_t gasnett_format_putvgetv(char *buf, gasnet_node_t node, size_t dstcount,
                                         gasnet_memvec_t const dstlist[], size_t srccount,
                                         gasnet_memvec_t const srclist[])
{
    struct text t;
    text_init(&t, buf, gasnett_format_putvgetv_bufsz(dstcount, srccount));
    add(&t, "node=%u\ndst: ", (unsigned)node);
    add_memveclist(&t, dstcount, dstlist);
    add(&t, "\nsrc: ");
    add_memveclist(&t, srccount, srclist);
    return (size_t)memvec_stats(dstcount, dstlist).totalsz;
}

GP_EXPORT size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount)
{
    return 100 + gasnett_format_addrlist_bufsz(dstcount) + gasnett_format_addrlist_bufsz(srccount);
}

GP_EXPORT size_t gasnett_format_putigeti(char *buf, gasnet_node_t node, size_t dstcount,
                                         void *const dstlist[], size_t dstlen, size_t srccount,
                                         void *const srclist[], size_t srclen)
{
    struct text t;
    text_init(&t, buf, gasnett_format_putigeti_bufsz(dstcount, srccount));
    add(&t, "node=%u\ndst: ", (unsigned)node);
    add_addrlist(&t, dstcount, dstlist, dstlen);
    add(&t, "\nsrc: ");
    add_addrlist(&t, srccount, srclist, srclen);
    return dstcount * dstlen;
}
