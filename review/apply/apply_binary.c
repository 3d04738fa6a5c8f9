// SPDX-License-Identifier: GPL-2.0-only
/*
 * apply_binary.c - the data of a "GIT binary patch": zlib streams
 * (RFC 1950 around RFC 1951 deflate) and git's delta format
 * (patch-delta.c), decoded here with hard bounds.
 *
 * Why not libgit2: its binary apply (1.5) loops forever on some corrupt
 * deflate streams (found by tests/fuzz/fuzz_diff.c), and zlib itself is
 * not among our link dependencies. The decoder follows zlib's puff.c:
 * every step consumes input or fails, and the output never grows past
 * the size the patch declares.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "review/apply/apply_binary.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define MAXBITS 15
#define MAXLCODES 286
#define MAXDCODES 30
#define FIXLCODES 288

struct inflate {
	const unsigned char *p, *end;
	uint32_t buf;
	int cnt;
	bool err; /* ran out of input */
	struct rb_buf *out;
	uint64_t expect;
};

struct huff {
	uint16_t count[MAXBITS + 1];
	uint16_t symbol[FIXLCODES];
};

static unsigned bits(struct inflate *s, int n)
{
	uint32_t v;

	while (s->cnt < n) {
		if (s->p >= s->end) {
			s->err = true;
			return 0;
		}
		s->buf |= (uint32_t)*s->p++ << s->cnt;
		s->cnt += 8;
	}
	v = s->buf & ((1u << n) - 1);
	s->buf >>= n;
	s->cnt -= n;
	return v;
}

/* Canonical code from lengths; incomplete codes are allowed (puff). */
static int construct(struct huff *h, const uint16_t *length, int n)
{
	uint16_t offs[MAXBITS + 1];
	int left = 1, len, sym;

	memset(h->count, 0, sizeof(h->count));
	for (sym = 0; sym < n; sym++)
		h->count[length[sym]]++;
	if (h->count[0] == n)
		return 0;
	for (len = 1; len <= MAXBITS; len++) {
		left <<= 1;
		left -= h->count[len];
		if (left < 0)
			return -1; /* over-subscribed */
	}
	offs[1] = 0;
	for (len = 1; len < MAXBITS; len++)
		offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
	for (sym = 0; sym < n; sym++)
		if (length[sym])
			h->symbol[offs[length[sym]]++] = (uint16_t)sym;
	return 0;
}

static int decode(struct inflate *s, const struct huff *h)
{
	int code = 0, first = 0, index = 0, len, count;

	for (len = 1; len <= MAXBITS; len++) {
		code |= (int)bits(s, 1);
		if (s->err)
			return -1;
		count = h->count[len];
		if (code - count < first)
			return h->symbol[index + (code - first)];
		index += count;
		first += count;
		first <<= 1;
		code <<= 1;
	}
	return -1;
}

static int put(struct inflate *s, const void *p, size_t n)
{
	if (s->out->len + n > s->expect)
		return -1;
	return rb_buf_add(s->out, p, n) ? -1 : 0;
}

static int codes(struct inflate *s, const struct huff *lc,
		 const struct huff *dc)
{
	static const uint16_t lbase[29] = { 3,	 4,   5,   6,	7,  8,	9,  10,
					    11,	 13,  15,  17,	19, 23, 27, 31,
					    35,	 43,  51,  59,	67, 83, 99, 115,
					    131, 163, 195, 227, 258 };
	static const uint16_t lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
					   1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
					   4, 4, 4, 4, 5, 5, 5, 5, 0 };
	static const uint16_t dbase[30] = {
		1,    2,    3,	  4,	5,    7,    9,	  13,	 17,	25,
		33,   49,   65,	  97,	129,  193,  257,  385,	 513,	769,
		1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577
	};
	static const uint16_t dext[30] = {
		0, 0, 0, 0, 1, 1, 2, 2,	 3,  3,	 4,  4,	 5,  5,	 6,
		6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13
	};
	int sym;

	for (;;) {
		sym = decode(s, lc);
		if (sym < 0)
			return -1;
		if (sym < 256) {
			unsigned char c = (unsigned char)sym;

			if (put(s, &c, 1))
				return -1;
		} else if (sym == 256) {
			return 0;
		} else {
			size_t len, dist, i;

			sym -= 257;
			if (sym >= 29)
				return -1;
			len = lbase[sym] + bits(s, lext[sym]);
			sym = decode(s, dc);
			if (sym < 0 || sym >= 30)
				return -1;
			dist = dbase[sym] + bits(s, dext[sym]);
			if (s->err || dist > s->out->len ||
			    s->out->len + len > s->expect)
				return -1;
			if (rb_buf_grow(s->out, len))
				return -1;
			for (i = 0; i < len; i++)
				s->out->ptr[s->out->len + i] =
					s->out->ptr[s->out->len + i - dist];
			s->out->len += len;
			s->out->ptr[s->out->len] = '\0';
		}
	}
}

static int stored(struct inflate *s)
{
	size_t len;

	s->buf = 0;
	s->cnt = 0;
	if (s->end - s->p < 4)
		return -1;
	len = (size_t)s->p[0] | ((size_t)s->p[1] << 8);
	/* LEN, then its one's complement (RFC 1951 3.2.4). */
	if ((s->p[2] ^ s->p[0]) != 0xff || (s->p[3] ^ s->p[1]) != 0xff)
		return -1;
	s->p += 4;
	if ((size_t)(s->end - s->p) < len)
		return -1;
	if (put(s, s->p, len))
		return -1;
	s->p += len;
	return 0;
}

static int fixed(struct inflate *s)
{
	static struct huff lc, dc;
	static bool ready;
	uint16_t lengths[FIXLCODES];
	int sym;

	if (!ready) {
		for (sym = 0; sym < 144; sym++)
			lengths[sym] = 8;
		for (; sym < 256; sym++)
			lengths[sym] = 9;
		for (; sym < 280; sym++)
			lengths[sym] = 7;
		for (; sym < FIXLCODES; sym++)
			lengths[sym] = 8;
		construct(&lc, lengths, FIXLCODES);
		for (sym = 0; sym < MAXDCODES; sym++)
			lengths[sym] = 5;
		construct(&dc, lengths, MAXDCODES);
		ready = true;
	}
	return codes(s, &lc, &dc);
}

static int dynamic(struct inflate *s)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
					   11, 4,  12, 3, 13, 2, 14, 1, 15 };
	uint16_t lengths[MAXLCODES + MAXDCODES];
	struct huff lc, dc;
	int nlen, ndist, ncode, index;

	nlen = (int)bits(s, 5) + 257;
	ndist = (int)bits(s, 5) + 1;
	ncode = (int)bits(s, 4) + 4;
	if (s->err || nlen > MAXLCODES || ndist > MAXDCODES)
		return -1;
	for (index = 0; index < ncode; index++)
		lengths[order[index]] = (uint16_t)bits(s, 3);
	for (; index < 19; index++)
		lengths[order[index]] = 0;
	if (s->err || construct(&lc, lengths, 19))
		return -1;
	index = 0;
	while (index < nlen + ndist) {
		int sym = decode(s, &lc), len = 0, n;

		if (sym < 0)
			return -1;
		if (sym < 16) {
			lengths[index++] = (uint16_t)sym;
			continue;
		}
		if (sym == 16) {
			if (!index)
				return -1;
			len = lengths[index - 1];
			n = 3 + (int)bits(s, 2);
		} else if (sym == 17) {
			n = 3 + (int)bits(s, 3);
		} else {
			n = 11 + (int)bits(s, 7);
		}
		if (s->err || index + n > nlen + ndist)
			return -1;
		while (n--)
			lengths[index++] = (uint16_t)len;
	}
	if (!lengths[256])
		return -1;
	if (construct(&lc, lengths, nlen) ||
	    construct(&dc, lengths + nlen, ndist))
		return -1;
	return codes(s, &lc, &dc);
}

static uint32_t adler32(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;

	while (n--) {
		a = (a + *p++) % 65521;
		b = (b + a) % 65521;
	}
	return (b << 16) | a;
}

int rb_binary_inflate(struct rb_buf *out, const unsigned char *in, size_t len,
		      uint64_t expect)
{
	struct inflate s = { 0 };
	unsigned last, type;
	uint32_t sum;
	int ret;

	if (len < 6 || (in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 ||
	    ((unsigned)in[0] << 8 | in[1]) % 31 || (in[1] & 0x20))
		return rb_err(RB_EINVAL, "binary patch data is not a zlib "
					 "stream");
	s.p = in + 2;
	s.end = in + len;
	s.out = out;
	s.expect = expect;
	do {
		last = bits(&s, 1);
		type = bits(&s, 2);
		if (s.err)
			break;
		ret = type == 0 ? stored(&s) :
		      type == 1 ? fixed(&s) :
		      type == 2 ? dynamic(&s) :
				  -1;
		if (ret || s.err)
			return rb_err(RB_EINVAL,
				      "binary patch data: corrupt deflate "
				      "stream");
	} while (!last);
	if (s.err || s.end - s.p < 4)
		return rb_err(RB_EINVAL, "binary patch data is truncated");
	sum = (uint32_t)s.p[0] << 24 | (uint32_t)s.p[1] << 16 |
	      (uint32_t)s.p[2] << 8 | s.p[3];
	if (sum != adler32((const unsigned char *)out->ptr, out->len))
		return rb_err(RB_EINVAL, "binary patch data: bad checksum");
	if (out->len != expect)
		return rb_err(RB_EINVAL,
			      "binary patch data: %zu bytes, the patch says "
			      "%llu",
			      out->len, (unsigned long long)expect);
	return 0;
}

static int varint(uint64_t *out, const unsigned char **p,
		  const unsigned char *end)
{
	uint64_t v = 0;
	int shift = 0;
	unsigned char c;

	do {
		if (*p >= end || shift > 56)
			return -1;
		c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return 0;
}

int rb_binary_delta_sizes(uint64_t *src_size, uint64_t *dst_size,
			  const unsigned char *delta, size_t len)
{
	const unsigned char *p = delta, *end = delta + len;

	if (varint(src_size, &p, end) || varint(dst_size, &p, end))
		return rb_err(RB_EINVAL, "binary delta: bad header");
	return 0;
}

int rb_binary_delta(struct rb_buf *out, const unsigned char *src,
		    size_t src_len, const unsigned char *delta, size_t len)
{
	const unsigned char *p = delta, *end = delta + len;
	uint64_t src_size, dst_size;

	if (varint(&src_size, &p, end) || varint(&dst_size, &p, end))
		return rb_err(RB_EINVAL, "binary delta: bad header");
	if (src_size != src_len)
		return rb_err(RB_EINVAL,
			      "binary delta: for %llu bytes, the file has %zu",
			      (unsigned long long)src_size, src_len);
	if (dst_size > out->max)
		return rb_err(RB_ETOOBIG, "binary delta: result too big");
	while (p < end) {
		unsigned char cmd = *p++;

		if (cmd & 0x80) {
			uint64_t off = 0, size = 0;
			int i;

			for (i = 0; i < 4; i++)
				if (cmd & (1 << i)) {
					if (p >= end)
						goto bad;
					off |= (uint64_t)*p++ << (8 * i);
				}
			for (i = 0; i < 3; i++)
				if (cmd & (0x10 << i)) {
					if (p >= end)
						goto bad;
					size |= (uint64_t)*p++ << (8 * i);
				}
			if (!size)
				size = 0x10000;
			if (off > src_len || size > src_len - off ||
			    size > dst_size - out->len)
				goto bad;
			if (rb_buf_add(out, src + off, (size_t)size))
				goto bad;
		} else if (cmd) {
			if ((size_t)(end - p) < cmd ||
			    cmd > dst_size - out->len ||
			    rb_buf_add(out, p, cmd))
				goto bad;
			p += cmd;
		} else {
			goto bad;
		}
	}
	if (out->len != dst_size)
		goto bad;
	return 0;
bad:
	return rb_err(RB_EINVAL, "binary delta: corrupt");
}
