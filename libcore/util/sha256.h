/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the key proof of
 * boot/keyproof.c: a few hundred bytes hashed per connection, so a plain
 * portable implementation serves, and no process has to map libcrypto (3 MB
 * resident) for it.  tests/unit/test_sha256.c holds the published vectors.
 */
#ifndef GP_UTIL_SHA256_H
#define GP_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define GP_SHA256_LEN 32
#define GP_SHA256_BLOCK 64

struct gp_sha256 {
    uint32_t h[8];
    uint64_t bytes;                 /* hashed so far */
    uint8_t block[GP_SHA256_BLOCK]; /* the partial block */
};

void gp_sha256_init(struct gp_sha256 *s);
void gp_sha256_update(struct gp_sha256 *s, const void *data, size_t len);
void gp_sha256_final(struct gp_sha256 *s, uint8_t digest[GP_SHA256_LEN]);

/* mac = HMAC-SHA256(key, msg); any key length. */
void gp_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t mac[GP_SHA256_LEN]);

/* 0 when a and b are equal, in time that does not depend on where they differ. */
int gp_memcmp_const_time(const void *a, const void *b, size_t len);

#endif
