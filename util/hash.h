/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hash.h - SHA-256 (OpenSSL) for content-derived ids: synthetic
 * Message-IDs, reply Message-IDs, finding fingerprints; and a fast
 * checksum for the caches on disk.
 */
#ifndef RB_UTIL_HASH_H
#define RB_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define RB_SHA256_HEX 65

/* Writes the lower-case hex SHA-256 of @data into @out (65 bytes). */
void rb_sha256_hex(char out[RB_SHA256_HEX], const void *data, size_t len);

struct rb_sha256;
/* Incremental form: new, update (any number of times), final + free. */
struct rb_sha256 *rb_sha256_new(void);
void rb_sha256_update(struct rb_sha256 *h, const void *data, size_t len);
/* Also frees @h. */
void rb_sha256_final_hex(struct rb_sha256 *h, char out[RB_SHA256_HEX]);

/*
 * A 64-bit checksum of @len bytes for files this program wrote (the
 * MAINTAINERS and code indexes): catches damage, not an adversary. Its
 * value is part of those formats: changing it changes theirs.
 */
uint64_t rb_checksum64(const void *data, size_t len);

/*
 * The same in parts, for a file read a piece at a time: @len is the
 * length of the whole, which the parts must add up to.
 */
struct rb_checksum {
	uint64_t h[4];
	unsigned char part[32];
	size_t npart;
};

void rb_checksum_init(struct rb_checksum *c, size_t len);
void rb_checksum_add(struct rb_checksum *c, const void *data, size_t len);
uint64_t rb_checksum_end(const struct rb_checksum *c);

#endif
