/*
 * sha256.h - SHA-256 (FIPS 180-4), for hashing bearer tokens so that the
 * tokens file never holds a usable secret. Not a general crypto library:
 * one-shot hashing of short strings only.
 */
#ifndef GQ_SHA256_H
#define GQ_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 32-byte digest of data[len] into out. */
void sha256(const void *data, size_t len, uint8_t out[32]);
/* Writes the digest as 64 lower-case hex digits and a NUL into hex[65]. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
