/*
 * SHA-256 and HMAC-SHA256 (sha256.h), written from FIPS 180-4 section 6.2
 * and RFC 2104.  Byte order is explicit (big-endian words), so the code is
 * the same on every host.
 */
#include "util/sha256.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* One 64-byte block into the state (FIPS 180-4, 6.2.2). */
static void compress(uint32_t h[8], const uint8_t block[GP_SHA256_BLOCK])
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t sum1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t choose = (e & f) ^ (~e & g);
        uint32_t t1 = k + sum1 + choose + round_k[t] + w[t];
        uint32_t sum0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = sum0 + majority;
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void gp_sha256_init(struct gp_sha256 *s)
{
    /* The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
    static const uint32_t initial[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, initial, sizeof initial);
    s->bytes = 0;
}

void gp_sha256_update(struct gp_sha256 *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t used = (size_t)(s->bytes % GP_SHA256_BLOCK);
    s->bytes += len;
    if (used > 0) {
        size_t take = GP_SHA256_BLOCK - used < len ? GP_SHA256_BLOCK - used : len;
        memcpy(s->block + used, p, take);
        p += take;
        len -= take;
        if (used + take < GP_SHA256_BLOCK)
            return;
        compress(s->h, s->block);
    }
    for (; len >= GP_SHA256_BLOCK; p += GP_SHA256_BLOCK, len -= GP_SHA256_BLOCK)
        compress(s->h, p);
    memcpy(s->block, p, len);
}

void gp_sha256_final(struct gp_sha256 *s, uint8_t digest[GP_SHA256_LEN])
{
    /* Padding: 0x80, zeros up to 56 bytes into a block, the length in bits (64-bit BE). */
    uint64_t bits = s->bytes * 8;
    size_t used = (size_t)(s->bytes % GP_SHA256_BLOCK);
    s->block[used++] = 0x80;
    if (used > GP_SHA256_BLOCK - 8) {
        memset(s->block + used, 0, GP_SHA256_BLOCK - used);
        compress(s->h, s->block);
        used = 0;
    }
    memset(s->block + used, 0, GP_SHA256_BLOCK - 8 - used);
    store_be32(s->block + 56, (uint32_t)(bits >> 32));
    store_be32(s->block + 60, (uint32_t)bits);
    compress(s->h, s->block);
    for (int i = 0; i < 8; i++)
        store_be32(digest + 4 * i, s->h[i]);
    explicit_bzero(s, sizeof *s); /* nothing of the key's pads stays behind */
}

void gp_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t mac[GP_SHA256_LEN])
{
    uint8_t k0[GP_SHA256_BLOCK] = { 0 }, pad[GP_SHA256_BLOCK], inner[GP_SHA256_LEN];
    struct gp_sha256 s;
    if (key_len > GP_SHA256_BLOCK) {   /* a long key is hashed first (RFC 2104, 2) */
        gp_sha256_init(&s);
        gp_sha256_update(&s, key, key_len);
        gp_sha256_final(&s, k0);
    } else if (key_len > 0) {
        memcpy(k0, key, key_len);
    }
    for (int i = 0; i < GP_SHA256_BLOCK; i++)
        pad[i] = k0[i] ^ 0x36;
    gp_sha256_init(&s);
    gp_sha256_update(&s, pad, sizeof pad);
    gp_sha256_update(&s, msg, msg_len);
    gp_sha256_final(&s, inner);
    for (int i = 0; i < GP_SHA256_BLOCK; i++)
        pad[i] = k0[i] ^ 0x5c;
    gp_sha256_init(&s);
    gp_sha256_update(&s, pad, sizeof pad);
    gp_sha256_update(&s, inner, sizeof inner);
    gp_sha256_final(&s, mac);
    explicit_bzero(k0, sizeof k0);
    explicit_bzero(pad, sizeof pad);
    explicit_bzero(inner, sizeof inner);
}

int gp_memcmp_const_time(const void *a, const void *b, size_t len)
{
    const volatile uint8_t *x = a, *y = b;
    uint8_t diff = 0;
    for (size_t i = 0; i < len; i++)
        diff |= (uint8_t)(x[i] ^ y[i]);
    return diff != 0;
}
