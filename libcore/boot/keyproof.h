/*
 * The key proof: before anything else on a control connection, gp-run and
 * the process show each other that they hold the job key, without sending
 * it.
 *
 *   server -> CHALLENGE  "gpb1" | Ns                     (36 bytes)
 *   client -> RESPONSE   Nc | HMAC(K, "gp-boot-1 client" | Ns | Nc)   (64)
 *   server -> PROOF      HMAC(K, "gp-boot-1 server" | Nc | Ns)        (32)
 *
 * K is the 32-byte job key, Ns and Nc fresh 32-byte nonces from
 * getrandom(), HMAC is HMAC-SHA256, and MACs are compared in constant time.
 * The client proves first, so a stranger who connects learns nothing but a
 * random nonce; the distinct labels stop a MAC made by one side from being
 * replayed as the other's.  The server's proof protects a process from a
 * listener that is not its gp-run (a port reused after gp-run died).
 */
#ifndef GP_BOOT_KEYPROOF_H
#define GP_BOOT_KEYPROOF_H

#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"

#define GP_KEY_LEN GP_BOOT_KEY_LEN
#define GP_NONCE_LEN 32
#define GP_MAC_LEN 32
#define GP_KEYPROOF_MAGIC "gpb1"
#define GP_KEYPROOF_CHALLENGE_LEN (4 + GP_NONCE_LEN)
#define GP_KEYPROOF_RESPONSE_LEN (GP_NONCE_LEN + GP_MAC_LEN)
#define GP_KEYPROOF_PROOF_LEN GP_MAC_LEN

/* Server, on accept: draws Ns and builds the CHALLENGE payload.  0 or -1. */
int gp_keyproof_challenge(uint8_t nonce_s[GP_NONCE_LEN],
                          uint8_t payload[GP_KEYPROOF_CHALLENGE_LEN]);

/*
 * Server, on RESPONSE: 0 if the client's MAC is right (then proof holds the
 * PROOF payload to send back), -1 if not.
 */
int gp_keyproof_check_response(const uint8_t key[GP_KEY_LEN],
                               const uint8_t nonce_s[GP_NONCE_LEN],
                               const uint8_t *payload, size_t len,
                               uint8_t proof[GP_KEYPROOF_PROOF_LEN]);

/*
 * Client, one step at a time (a non-blocking dialler, nal/tcp/tcp_lazy.c): on
 * the CHALLENGE payload, builds the RESPONSE payload and the PROOF the
 * server must send back.  0, or -1 with *why naming what is wrong.
 */
int gp_keyproof_respond(const uint8_t key[GP_KEY_LEN], const uint8_t *challenge, size_t len,
                        uint8_t response[GP_KEYPROOF_RESPONSE_LEN],
                        uint8_t expected_proof[GP_KEYPROOF_PROOF_LEN], const char **why);

/*
 * Client: the whole exchange on a connected socket, each step within
 * timeout_ms.  Returns a gp_wire_status; on GP_WIRE_BAD *why says which
 * step failed.
 */
int gp_keyproof_client(int fd, const uint8_t key[GP_KEY_LEN], int timeout_ms,
                       const char **why);

#endif
