/*
 * The link between a parent (gp-run, or an agent starting its subtree,
 * tree.h) and a child agent on a host: the agent's stdin and stdout,
 * carried by ssh.  Messages use the bootstrap's framing (an 8-byte header,
 * type and length big-endian, then the payload) with their own types, so
 * one decoder serves both.
 *
 *   parent -> agent   SETUP   the job: key, ids, its host and subtree, program, environment
 *                     STDIN   bytes for rank 0's standard input (only host 0 has rank 0)
 *                     STDIN_EOF
 *                     SIGNAL  u32 signal number for the ranks (passed down the subtree)
 *   agent -> parent   HELLO   u32 host, text: that host's agent is up (its name, pid)
 *                     STARTED u32 rank, u32 pid
 *                     OUT     u32 rank, bytes of its standard output (whole lines)
 *                     ERR     u32 rank, bytes of its standard error (whole lines)
 *                     EXIT    u32 rank, u32 wait status
 *                     FAIL    u32 host, text: that host's agent can't go on (why)
 *                     STATS   u32 rank, its statistics page (mirror.c)
 *                     LOST    u32 host, u32 last, text: the agent of host (whose
 *                             subtree ends at host last) was lost, or never answered,
 *                             while ranks there had not all exited; text says how
 *                     SAY     u32 host, text: a line its remote shell wrote to stderr
 *
 * An agent relays what its children send up unchanged (every message names
 * its rank or host) and passes SIGNAL down; gp-run checks that what a child
 * names lies in that child's subtree.  Host numbers are u32: as wide as the
 * job.  The key travels only in SETUP, on the link, never on a command
 * line.  A link that closes is the end of its side: an agent whose stdin
 * closes kills its ranks and hangs up on its children (the parent is
 * gone); a parent treats a closed agent as a lost host.
 */
#ifndef GP_RUN_LINK_H
#define GP_RUN_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "boot/wire.h"

enum link_type {
    LINK_SETUP = 0x4c01,
    LINK_STDIN,
    LINK_STDIN_EOF,
    LINK_SIGNAL,
    LINK_HELLO = 0x4c41,
    LINK_STARTED,
    LINK_OUT,
    LINK_ERR,
    LINK_EXIT,
    LINK_FAIL,
    LINK_STATS,
    LINK_LOST,
    LINK_SAY
};

/* The largest message either side accepts (SETUP carries the environment). */
#define LINK_MAX_PAYLOAD (4u << 20)
/* Output is relayed in pieces of at most this many bytes. */
#define LINK_CHUNK 16384

/* A growing byte buffer: queued output, or input being assembled. */
struct link_buf {
    uint8_t *data;
    size_t used;
    size_t cap;
};

int link_buf_append(struct link_buf *buf, const void *bytes, size_t len);
void link_buf_consume(struct link_buf *buf, size_t len);
void link_buf_free(struct link_buf *buf);

/* Appends one message (header + head + tail) to out. */
int link_queue(struct link_buf *out, uint32_t type, const void *head, size_t head_len,
               const void *tail, size_t tail_len);
/* Writes what the (non-blocking) fd takes; 0, or -1 with errno on a broken link. */
int link_flush(int fd, struct link_buf *out);

/*
 * The next whole message in in: 1 with *type, *payload (pointing into in)
 * and *len; 0 if more bytes are needed; -1 if the header is not acceptable
 * (*why says how).  The caller consumes LINK_HDR + len bytes after use.
 */
int link_next(const struct link_buf *in, uint32_t *type, const uint8_t **payload,
              uint32_t *len, const char **why);
#define LINK_HDR GP_WIRE_HDR_LEN

/* A list of strings packed as (u32 length, bytes) pairs, for SETUP. */
int link_pack_str(struct link_buf *out, const char *text);
/* The next string of a packed list into a malloc'd copy; NULL if malformed. */
char *link_unpack_str(const uint8_t **p, const uint8_t *end);

/* Keeps a stream's whole lines: feeds bytes, hands out complete lines. */
struct line_buf {
    char data[LINK_CHUNK];
    size_t used;
};
/*
 * Adds len bytes from src; calls emit(arg, bytes, n) for each run of whole
 * lines, and for a full buffer without a newline (a line longer than the
 * buffer is passed on in pieces rather than held).
 */
void line_feed(struct line_buf *lb, const char *src, size_t len,
               void (*emit)(void *arg, const char *bytes, size_t n), void *arg);
/* Passes on what is left (the stream ended without a final newline). */
void line_flush(struct line_buf *lb, void (*emit)(void *arg, const char *bytes, size_t n),
                void *arg);

#endif
