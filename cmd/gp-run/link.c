/*
 * The parent <-> agent link: buffers, framing and line keeping
 * (link.h says what travels on it).
 */
#include "link.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int link_buf_append(struct link_buf *buf, const void *bytes, size_t len)
{
    if (len == 0)
        return 0;
    if (buf->used + len > buf->cap) {
        size_t cap = buf->cap ? buf->cap : 4096;
        while (cap < buf->used + len)
            cap *= 2;
        uint8_t *grown = realloc(buf->data, cap);
        if (grown == NULL)
            return -1;
        buf->data = grown;
        buf->cap = cap;
    }
    memcpy(buf->data + buf->used, bytes, len);
    buf->used += len;
    return 0;
}

void link_buf_consume(struct link_buf *buf, size_t len)
{
    if (len >= buf->used) {
        buf->used = 0;
        return;
    }
    memmove(buf->data, buf->data + len, buf->used - len);
    buf->used -= len;
}

void link_buf_free(struct link_buf *buf)
{
    free(buf->data);
    memset(buf, 0, sizeof *buf);
}

int link_queue(struct link_buf *out, uint32_t type, const void *head, size_t head_len,
               const void *tail, size_t tail_len)
{
    uint8_t hdr[LINK_HDR];
    gp_wire_pack_hdr(hdr, type, (uint32_t)(head_len + tail_len));
    if (link_buf_append(out, hdr, sizeof hdr) != 0 || link_buf_append(out, head, head_len) != 0 ||
        link_buf_append(out, tail, tail_len) != 0)
        return -1;
    return 0;
}

int link_flush(int fd, struct link_buf *out)
{
    while (out->used > 0) {
        ssize_t n = write(fd, out->data, out->used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        link_buf_consume(out, (size_t)n);
    }
    return 0;
}

int link_next(const struct link_buf *in, uint32_t *type, const uint8_t **payload,
              uint32_t *len, const char **why)
{
    if (in->used < LINK_HDR)
        return 0;
    struct gp_wire_hdr hdr;
    gp_wire_unpack_hdr(in->data, &hdr);
    if (hdr.len > LINK_MAX_PAYLOAD) {
        *why = "a message longer than the link allows";
        return -1;
    }
    if (hdr.type < LINK_SETUP || hdr.type > LINK_SAY ||
        (hdr.type > LINK_SIGNAL && hdr.type < LINK_HELLO)) {
        *why = "a message of an unknown type (is the same gp installed on both hosts?)";
        return -1;
    }
    if (in->used < LINK_HDR + (size_t)hdr.len)
        return 0;
    *type = hdr.type;
    *len = hdr.len;
    *payload = in->data + LINK_HDR;
    return 1;
}

int link_pack_str(struct link_buf *out, const char *text)
{
    uint8_t len[4];
    size_t n = strlen(text);
    gp_wire_put32(len, (uint32_t)n);
    return link_buf_append(out, len, 4) != 0 || link_buf_append(out, text, n) != 0 ? -1 : 0;
}

char *link_unpack_str(const uint8_t **p, const uint8_t *end)
{
    if (end - *p < 4)
        return NULL;
    uint32_t n = gp_wire_get32(*p);
    if ((size_t)(end - *p - 4) < n)
        return NULL;
    char *text = malloc((size_t)n + 1);
    if (text == NULL)
        return NULL;
    memcpy(text, *p + 4, n);
    text[n] = '\0';
    if (memchr(text, '\0', n) != NULL) {
        free(text);
        return NULL;
    }
    *p += 4 + n;
    return text;
}

void line_feed(struct line_buf *lb, const char *src, size_t len,
               void (*emit)(void *arg, const char *bytes, size_t n), void *arg)
{
    while (len > 0) {
        size_t room = sizeof lb->data - lb->used;
        size_t take = len < room ? len : room;
        memcpy(lb->data + lb->used, src, take);
        lb->used += take;
        src += take;
        len -= take;
        /* Pass on everything up to the last newline; keep the partial line. */
        size_t whole = 0;
        for (size_t i = lb->used; i > 0; i--)
            if (lb->data[i - 1] == '\n') {
                whole = i;
                break;
            }
        if (whole == 0 && lb->used == sizeof lb->data)
            whole = lb->used; /* a line longer than the buffer: pass it on in pieces */
        if (whole > 0) {
            emit(arg, lb->data, whole);
            memmove(lb->data, lb->data + whole, lb->used - whole);
            lb->used -= whole;
        }
    }
}

void line_flush(struct line_buf *lb, void (*emit)(void *arg, const char *bytes, size_t n),
                void *arg)
{
    if (lb->used > 0)
        emit(arg, lb->data, lb->used);
    lb->used = 0;
}
