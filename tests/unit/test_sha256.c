/*
 * libgp's SHA-256 and HMAC-SHA256 (libcore/util/sha256.c), the key proof's
 * hash: the FIPS 180-2 examples, messages whose padding falls on every
 * block edge (checked against OpenSSL's digests when this test was
 * written), input fed in pieces of every size, the RFC 4231 HMAC cases
 * (short key, text key, a key longer than a block, a block-sized key), and
 * the constant-time compare.
 */
#include <stdint.h>
#include <string.h>

#include "../harness/test.h"
#include "util/sha256.h"

/* The digest as 64 lowercase hex digits. */
static void hex(const uint8_t digest[GP_SHA256_LEN], char out[2 * GP_SHA256_LEN + 1])
{
    for (int i = 0; i < GP_SHA256_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static void check_digest(const void *msg, size_t len, const char *want)
{
    struct gp_sha256 s;
    uint8_t digest[GP_SHA256_LEN];
    char text[2 * GP_SHA256_LEN + 1];
    gp_sha256_init(&s);
    gp_sha256_update(&s, msg, len);
    gp_sha256_final(&s, digest);
    hex(digest, text);
    if (strcmp(text, want) != 0)
        gp_test_fail(__FILE__, __LINE__, "SHA-256 of %zu bytes is %s, expected %s", len, text,
                     want);
}

static void test_fips_examples(void)
{
    check_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_digest(two, strlen(two),
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    static char million[1000000];
    memset(million, 'a', sizeof million);
    check_digest(million, sizeof million,
                 "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* 55 bytes: the length fits after 0x80; 56 to 63: it takes a second block. */
static void test_padding_edges(void)
{
    static const struct { size_t len; const char *want; } cases[] = {
        { 55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072" },
        { 56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e" },
        { 63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2" },
        { 64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c" },
        { 65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9" },
        { 119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c" },
    };
    char msg[128];
    memset(msg, 'x', sizeof msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_digest(msg, cases[i].len, cases[i].want);
}

/* The same 300 bytes fed in pieces of 1 to 130 bytes give one digest. */
static void test_pieces(void)
{
    uint8_t msg[300], whole[GP_SHA256_LEN], split[GP_SHA256_LEN];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 7 + 3);
    struct gp_sha256 s;
    gp_sha256_init(&s);
    gp_sha256_update(&s, msg, sizeof msg);
    gp_sha256_final(&s, whole);
    for (size_t piece = 1; piece <= 130; piece++) {
        gp_sha256_init(&s);
        for (size_t at = 0; at < sizeof msg; at += piece)
            gp_sha256_update(&s, msg + at, at + piece <= sizeof msg ? piece : sizeof msg - at);
        gp_sha256_final(&s, split);
        if (memcmp(whole, split, sizeof whole) != 0)
            gp_test_fail(__FILE__, __LINE__, "pieces of %zu bytes give another digest", piece);
    }
}

static void check_hmac(const void *key, size_t key_len, const char *msg, const char *want)
{
    uint8_t mac[GP_SHA256_LEN];
    char text[2 * GP_SHA256_LEN + 1];
    gp_hmac_sha256(key, key_len, msg, strlen(msg), mac);
    hex(mac, text);
    if (strcmp(text, want) != 0)
        gp_test_fail(__FILE__, __LINE__, "HMAC-SHA256 with a %zu-byte key of \"%s\" is %s, "
                     "expected %s", key_len, msg, text, want);
}

static void test_hmac(void)
{
    uint8_t key[131];
    memset(key, 0x0b, 20);
    check_hmac(key, 20, "Hi There",
               "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    check_hmac("Jefe", 4, "what do ya want for nothing?",
               "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(key, 0xaa, sizeof key);
    check_hmac(key, sizeof key, "Test Using Larger Than Block-Size Key - Hash Key First",
               "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    memset(key, 0x01, 64); /* exactly a block: used as it is, not hashed */
    check_hmac(key, 64, "gp-boot-1 client",
               "23a00d04838432ed315b7c3f44c2a8c455b2d069d45d8390afb3cc39c3cf5d3f");
}

static void test_const_time_compare(void)
{
    uint8_t a[32], b[32];
    memset(a, 0x5a, sizeof a);
    memcpy(b, a, sizeof b);
    CHECK_EQ(gp_memcmp_const_time(a, b, sizeof a), 0);
    for (size_t i = 0; i < sizeof a; i++) {
        b[i] ^= 0x80;
        CHECK(gp_memcmp_const_time(a, b, sizeof a) != 0);
        b[i] ^= 0x80;
    }
    CHECK_EQ(gp_memcmp_const_time(a, b, 0), 0);
}

int main(int argc, char **argv)
{
    static const struct gp_test tests[] = {
        { "fips_examples", test_fips_examples, 0 },
        { "padding_edges", test_padding_edges, 0 },
        { "pieces", test_pieces, 0 },
        { "hmac", test_hmac, 0 },
        { "const_time_compare", test_const_time_compare, 0 },
        GP_TEST_END,
    };
    return gp_test_main(argc, argv, "sha256", tests);
}
