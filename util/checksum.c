// SPDX-License-Identifier: GPL-2.0-only
/*
 * checksum.c - rb_checksum64() (hash.h), in a file of its own: the small
 * static "reviewbot" checks its cache files with it and must not pull in
 * OpenSSL with hash.c.
 */
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "banned.h"

/*
 * Four independent lanes of 8 bytes: a one-shot run checks the whole
 * 1.2 MB MAINTAINERS index, and one dependent multiply per word made
 * this a sixth of the run (perf, linux 6.1). More lanes do not pay: the
 * arithmetic is a sixth of the pass, the rest is reading the file's
 * pages, which a new process finds cold in the CPU's caches. The
 * hardware prefetcher stops at each 4 kB page, so the loop asks for the
 * next page's lines itself: a third off the pass (0.62 to 0.40 ms, a
 * test program on the file). Every byte stays covered: a file damaged
 * where its structure still holds (a name, an address) must be refused,
 * and no check but this one sees that.
 */
static void blocks(uint64_t h[4], const unsigned char *p, size_t len)
{
	uint64_t w;
	size_t i;
	int k;

	for (i = 0; i + 32 <= len; i += 32) {
		if (!(i & 63) && len - i > 4096)
			__builtin_prefetch(p + i + 4096);
		for (k = 0; k < 4; k++) {
			memcpy(&w, p + i + 8 * k, 8);
			h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdull;
			h[k] ^= h[k] >> 32;
		}
	}
}

void rb_checksum_init(struct rb_checksum *c, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->h[0] = 0x9e3779b97f4a7c15ull ^ len;
	c->h[1] = 0x243f6a8885a308d3ull;
	c->h[2] = 0x13198a2e03707344ull;
	c->h[3] = 0xa4093822299f31d0ull;
}

void rb_checksum_add(struct rb_checksum *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t k;

	if (c->npart) {
		k = 32 - c->npart < len ? 32 - c->npart : len;
		memcpy(c->part + c->npart, p, k);
		c->npart += k;
		p += k;
		len -= k;
		if (c->npart < 32)
			return;
		blocks(c->h, c->part, 32);
		c->npart = 0;
	}
	k = len & ~(size_t)31;
	blocks(c->h, p, k);
	memcpy(c->part, p + k, len - k);
	c->npart = len - k;
}

uint64_t rb_checksum_end(const struct rb_checksum *c)
{
	uint64_t r = c->h[0] ^ (c->h[1] * 3) ^ (c->h[2] * 5) ^ (c->h[3] * 7);
	size_t i;

	for (i = 0; i < c->npart; i++)
		r = (r ^ c->part[i]) * 0xc4ceb9fe1a85ec53ull;
	return r ^ (r >> 29);
}

uint64_t rb_checksum64(const void *data, size_t len)
{
	struct rb_checksum c;

	rb_checksum_init(&c, len);
	rb_checksum_add(&c, data, len);
	return rb_checksum_end(&c);
}
