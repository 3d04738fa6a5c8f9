/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hash.h - SHA-256 (OpenSSL) for content-derived ids: synthetic
 * Message-IDs, reply Message-IDs, finding fingerprints.
 */
#ifndef RB_UTIL_HASH_H
#define RB_UTIL_HASH_H

#include <stddef.h>

#define RB_SHA256_HEX 65

/* Writes the lower-case hex SHA-256 of @data into @out (65 bytes). */
void rb_sha256_hex(char out[RB_SHA256_HEX], const void *data, size_t len);

struct rb_sha256;
/* Incremental form: new, update (any number of times), final + free. */
struct rb_sha256 *rb_sha256_new(void);
void rb_sha256_update(struct rb_sha256 *h, const void *data, size_t len);
/* Also frees @h. */
void rb_sha256_final_hex(struct rb_sha256 *h, char out[RB_SHA256_HEX]);

#endif
