/*
 * Walking one side of a VIS transfer as a sequence of contiguous spans:
 * the entries of a vector or indexed list in order, or the runs of a
 * strided section with the first dimension varying fastest.  A strided run's
 * address comes from its number, digit by digit, so a cursor is three
 * integers whatever the number of dimensions (a get keeps one per message).
 */
#include <string.h>

#include "conduit/vis/vis.h"

size_t gpc_vis_pieces(const struct gpc_vis_side *side)
{
    if (side->form != GPC_VIS_STRIDED)
        return side->count;
    size_t runs = side->counts[0] == 0 ? 0 : 1;
    for (size_t k = 1; k <= side->levels; k++)
        runs *= side->counts[k]; /* the API checked the volume for overflow */
    return runs;
}

size_t gpc_vis_piece_len(const struct gpc_vis_side *side, size_t piece)
{
    switch (side->form) {
    case GPC_VIS_VECTOR: return side->vec[piece].len;
    case GPC_VIS_INDEXED: return side->len;
    default: return side->counts[0];
    }
}

char *gpc_vis_piece_addr(const struct gpc_vis_side *side, size_t piece)
{
    switch (side->form) {
    case GPC_VIS_VECTOR: return side->vec[piece].addr;
    case GPC_VIS_INDEXED: return side->addrs[piece];
    default: break;
    }
    uintptr_t at = (uintptr_t)side->base;
    for (size_t k = 1; k <= side->levels && piece > 0; k++) {
        size_t items = side->counts[k];
        if (items == 0)
            break; /* an empty side has no pieces to ask for */
        at += (piece % items) * side->strides[k - 1];
        piece /= items;
    }
    return (char *)at;
}

void gpc_vis_cursor_init(struct gpc_vis_cursor *c, const struct gpc_vis_side *side, intptr_t delta)
{
    c->side = side;
    c->piece = 0;
    c->end = gpc_vis_pieces(side);
    c->off = 0;
    c->delta = delta;
}

size_t gpc_vis_cursor_span(struct gpc_vis_cursor *c, char **addr)
{
    for (; c->piece < c->end; c->piece++, c->off = 0) {
        size_t len = gpc_vis_piece_len(c->side, c->piece);
        if (c->off < len) {
            /* uintptr_t: a wire side holds offsets, made addresses by delta */
            *addr = (char *)((uintptr_t)gpc_vis_piece_addr(c->side, c->piece) + c->off +
                             (uintptr_t)c->delta);
            return len - c->off;
        }
    }
    return 0;
}

void gpc_vis_cursor_advance(struct gpc_vis_cursor *c, size_t nbytes)
{
    c->off += nbytes;
}

void gpc_vis_gather(struct gpc_vis_cursor *c, char *buf, size_t nbytes)
{
    char *at;
    while (nbytes > 0) {
        size_t span = gpc_vis_cursor_span(c, &at);
        size_t n = span < nbytes ? span : nbytes;
        if (n == 0)
            return; /* the caller counted the bytes: cannot happen */
        memcpy(buf, at, n);
        buf += n;
        nbytes -= n;
        gpc_vis_cursor_advance(c, n);
    }
}

void gpc_vis_scatter(struct gpc_vis_cursor *c, const char *buf, size_t nbytes)
{
    char *at;
    while (nbytes > 0) {
        size_t span = gpc_vis_cursor_span(c, &at);
        size_t n = span < nbytes ? span : nbytes;
        if (n == 0)
            return;
        memcpy(at, buf, n);
        buf += n;
        nbytes -= n;
        gpc_vis_cursor_advance(c, n);
    }
}

/* memmove: source pieces may repeat, and a loopback transfer may name a byte twice. */
void gpc_vis_copy(struct gpc_vis_cursor *dst, struct gpc_vis_cursor *src)
{
    char *d, *s;
    for (;;) {
        size_t dspan = gpc_vis_cursor_span(dst, &d);
        size_t sspan = gpc_vis_cursor_span(src, &s);
        size_t n = dspan < sspan ? dspan : sspan;
        if (n == 0)
            return;
        memmove(d, s, n);
        gpc_vis_cursor_advance(dst, n);
        gpc_vis_cursor_advance(src, n);
    }
}
