/*
 * Mutual HMAC-SHA256 challenge/response over fresh nonces (keyproof.h).
 *
 * util/sha256.c does the hashing (libgp's own, so that no process maps
 * libcrypto for a few hundred bytes per connection); MACs are compared in
 * time independent of where they differ, so a stranger can't learn a MAC
 * byte by byte from how fast gp-run refuses it.
 */
#include "boot/keyproof.h"

#include "boot/wire.h"
#include "util/sha256.h"

#include <string.h>

#define LABEL_CLIENT "gp-boot-1 client"
#define LABEL_SERVER "gp-boot-1 server"

/* mac = HMAC(key, label | first | second); 0 (it cannot fail: the callers keep their checks). */
static int keyed_mac(const uint8_t key[GP_KEY_LEN], const char *label,
                     const uint8_t first[GP_NONCE_LEN], const uint8_t second[GP_NONCE_LEN],
                     uint8_t mac[GP_MAC_LEN])
{
    uint8_t msg[32 + 2 * GP_NONCE_LEN];
    size_t label_len = strlen(label);
    _Static_assert(GP_MAC_LEN == GP_SHA256_LEN, "the key proof's MAC is an HMAC-SHA256");
    memcpy(msg, label, label_len);
    memcpy(msg + label_len, first, GP_NONCE_LEN);
    memcpy(msg + label_len + GP_NONCE_LEN, second, GP_NONCE_LEN);
    gp_hmac_sha256(key, GP_KEY_LEN, msg, label_len + 2 * GP_NONCE_LEN, mac);
    return 0;
}

int gp_keyproof_challenge(uint8_t nonce_s[GP_NONCE_LEN],
                          uint8_t payload[GP_KEYPROOF_CHALLENGE_LEN])
{
    if (gp_wire_random(nonce_s, GP_NONCE_LEN) != GP_WIRE_OK)
        return -1;
    memcpy(payload, GP_KEYPROOF_MAGIC, 4);
    memcpy(payload + 4, nonce_s, GP_NONCE_LEN);
    return 0;
}

int gp_keyproof_check_response(const uint8_t key[GP_KEY_LEN],
                               const uint8_t nonce_s[GP_NONCE_LEN],
                               const uint8_t *payload, size_t len,
                               uint8_t proof[GP_KEYPROOF_PROOF_LEN])
{
    uint8_t expected[GP_MAC_LEN];
    if (len != GP_KEYPROOF_RESPONSE_LEN)
        return -1;
    const uint8_t *nonce_c = payload;
    if (keyed_mac(key, LABEL_CLIENT, nonce_s, nonce_c, expected) != 0)
        return -1;
    if (gp_memcmp_const_time(expected, payload + GP_NONCE_LEN, GP_MAC_LEN) != 0)
        return -1;
    return keyed_mac(key, LABEL_SERVER, nonce_c, nonce_s, proof);
}

/* Reads one message of exactly the given type and length. */
static int recv_exact(int fd, uint32_t type, uint8_t *buf, size_t len, int timeout_ms)
{
    struct gp_wire_hdr hdr;
    int status = gp_wire_recv(fd, &hdr, buf, len, timeout_ms);
    if (status == GP_WIRE_OK && (hdr.type != type || hdr.len != len))
        status = GP_WIRE_BAD;
    return status;
}

int gp_keyproof_respond(const uint8_t key[GP_KEY_LEN], const uint8_t *challenge, size_t len,
                        uint8_t response[GP_KEYPROOF_RESPONSE_LEN],
                        uint8_t expected_proof[GP_KEYPROOF_PROOF_LEN], const char **why)
{
    *why = "the server's challenge is not gp-run's (protocol gpb1)";
    if (len != GP_KEYPROOF_CHALLENGE_LEN || memcmp(challenge, GP_KEYPROOF_MAGIC, 4) != 0)
        return -1;
    const uint8_t *nonce_s = challenge + 4;
    *why = "could not compute the key proof";
    if (gp_wire_random(response, GP_NONCE_LEN) != GP_WIRE_OK ||
        keyed_mac(key, LABEL_CLIENT, nonce_s, response, response + GP_NONCE_LEN) != 0 ||
        keyed_mac(key, LABEL_SERVER, response, nonce_s, expected_proof) != 0)
        return -1;
    return 0;
}

int gp_keyproof_client(int fd, const uint8_t key[GP_KEY_LEN], int timeout_ms,
                       const char **why)
{
    uint8_t challenge[GP_KEYPROOF_CHALLENGE_LEN];
    uint8_t response[GP_KEYPROOF_RESPONSE_LEN];
    uint8_t proof[GP_MAC_LEN], expected[GP_MAC_LEN];
    *why = "no challenge from the server";
    int status = recv_exact(fd, GP_WIRE_CHALLENGE, challenge, sizeof challenge, timeout_ms);
    if (status != GP_WIRE_OK)
        return status;
    if (gp_keyproof_respond(key, challenge, sizeof challenge, response, expected, why) != 0)
        return GP_WIRE_BAD;
    status = gp_wire_send(fd, GP_WIRE_RESPONSE, response, sizeof response);
    if (status != GP_WIRE_OK)
        return status;
    *why = "the server refused this process's key proof";
    status = recv_exact(fd, GP_WIRE_PROOF, proof, sizeof proof, timeout_ms);
    if (status != GP_WIRE_OK)
        return status == GP_WIRE_EOF ? GP_WIRE_BAD : status;
    *why = "the server does not hold the job key";
    if (gp_memcmp_const_time(proof, expected, GP_MAC_LEN) != 0)
        return GP_WIRE_BAD;
    return GP_WIRE_OK;
}
