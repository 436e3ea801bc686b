/*
 * sha256.h - SHA-256 (FIPS 180-4), for content hashes shared by the server
 * and judged (problem bundles are addressed by their hash). Not for secrets:
 * passwords and tokens use libsodium in the server.
 */
#ifndef BW_SHA256_H
#define BW_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    unsigned char block[64];
    size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Writes the digest as 64 lower-case hex digits and a NUL into hex[65]. */
void sha256_final_hex(struct sha256 *s, char hex[65]);

#endif
