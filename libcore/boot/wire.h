/*
 * The control channel's wire format, shared by gp-run (the server) and the
 * processes of a job (the clients).
 *
 * A message is an 8-byte header -- type and payload length, both 32-bit
 * big-endian -- followed by the payload.  Integers inside payloads are
 * 32-bit big-endian too, so a channel that later crosses hosts needs no
 * change.  Before anything else is read on a fresh connection the two ends
 * prove that they hold the job key (keyproof.h); until then the server only
 * accepts one message type of one exact length, so a stranger can't make it
 * allocate, parse or answer anything.
 *
 * The I/O helpers here handle EINTR and short transfers, never raise
 * SIGPIPE, and work on blocking and non-blocking sockets alike (a
 * non-blocking socket is waited on with poll).
 */
#ifndef GP_BOOT_WIRE_H
#define GP_BOOT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define GP_WIRE_HDR_LEN 8
/* Largest payload either side accepts: big enough for the start-up
 * exchanges of a large job, small enough that a corrupt length can't make
 * gp-run allocate without bound. */
#define GP_WIRE_MAX_PAYLOAD (64u << 20)
/* Longest reason text carried by ABORT and ERROR. */
#define GP_WIRE_MAX_TEXT 512

enum gp_wire_type {
    GP_WIRE_CHALLENGE = 1, /* server: magic, server nonce */
    GP_WIRE_RESPONSE,      /* client: client nonce, client MAC */
    GP_WIRE_PROOF,         /* server: server MAC */
    GP_WIRE_HELLO,         /* client: rank, pid */
    GP_WIRE_WELCOME,       /* server: job size, job id */
    GP_WIRE_COLL,          /* client: kind, root, len, contribution */
    GP_WIRE_COLL_RESULT,   /* server: the collective's result */
    GP_WIRE_ABORT,         /* client: exit code, reason text */
    GP_WIRE_ABORT_ACK,     /* server: the job is being taken down */
    GP_WIRE_FINI,          /* client: exit code */
    GP_WIRE_FINI_ACK,      /* server: noted */
    GP_WIRE_ERROR,         /* server: reason text, then the server closes */
    GP_WIRE_TYPE_END
};

/* Collective kinds carried in a COLL message. */
enum gp_wire_coll {
    GP_WIRE_COLL_BARRIER = 1,
    GP_WIRE_COLL_ALLGATHER,
    GP_WIRE_COLL_BROADCAST
};

/* Header and fixed part of a COLL payload: kind, root, len. */
#define GP_WIRE_COLL_FIXED 12

struct gp_wire_hdr {
    uint32_t type;
    uint32_t len;
};

/* Results of the blocking helpers. */
enum gp_wire_status {
    GP_WIRE_OK = 0,
    GP_WIRE_EOF,      /* the peer closed the connection */
    GP_WIRE_ERR,      /* a system error; errno says which */
    GP_WIRE_TIMEOUT,  /* nothing within the time limit */
    GP_WIRE_BAD       /* the peer sent something the protocol does not allow */
};

const char *gp_wire_type_str(uint32_t type);
const char *gp_wire_coll_str(uint32_t kind);
const char *gp_wire_status_str(int status);

void gp_wire_put32(uint8_t *out, uint32_t value);
uint32_t gp_wire_get32(const uint8_t *in);
void gp_wire_pack_hdr(uint8_t out[GP_WIRE_HDR_LEN], uint32_t type, uint32_t len);
void gp_wire_unpack_hdr(const uint8_t in[GP_WIRE_HDR_LEN], struct gp_wire_hdr *hdr);

/*
 * Writes all of the buffers (a header and a payload, usually) or fails.
 * Waits for room on a non-blocking socket.  Returns a gp_wire_status.
 */
int gp_wire_write_full(int fd, const void *head, size_t head_len,
                       const void *body, size_t body_len);
/* One whole message: header then payload. */
int gp_wire_send(int fd, uint32_t type, const void *payload, uint32_t len);

/*
 * Reads exactly len bytes.  timeout_ms < 0 waits for ever.  A peer that
 * closes before the first byte gives GP_WIRE_EOF; one that closes in the
 * middle gives GP_WIRE_BAD (a torn message).
 */
int gp_wire_read_full(int fd, void *buf, size_t len, int timeout_ms);

/*
 * Reads one message whose payload fits in cap bytes into buf.  A payload
 * longer than cap is GP_WIRE_BAD (it is not read).
 */
int gp_wire_recv(int fd, struct gp_wire_hdr *hdr, void *buf, size_t cap, int timeout_ms);

/* Fills buf with bytes from the kernel's random source (getrandom). */
int gp_wire_random(void *buf, size_t len);

/* A non-blocking connect that gives up after timeout_ms; 0 or an errno value
 * (shared by the bootstrap channel and the tcp transport). */
struct sockaddr;
int gp_wire_connect_within(int fd, const struct sockaddr *addr, unsigned addr_len, int timeout_ms);

/* Writes len bytes as 2*len lowercase hex digits and a NUL. */
void gp_wire_hex(const uint8_t *bytes, size_t len, char *out);

#endif
