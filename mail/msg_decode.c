// SPDX-License-Identifier: GPL-2.0-only
/*
 * msg_decode.c - text decoding for mail: RFC 2047 encoded words (B and Q)
 * in header values, and conversion of any charset to UTF-8 with iconv(3).
 *
 * Hostile input: nothing here reads past @len, and every output goes
 * through a capped struct rb_buf.
 */
#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "mail/msg_internal.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* An encoded word's text is short (RFC 2047 2: 75 octets); be lenient. */
#define EW_MAX_TEXT 2048
#define EW_MAX_CHARSET 64

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/*
 * Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0 when
 * it is not one (overlong forms, surrogates and > U+10FFFF are invalid).
 */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned int c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		if (len >= 2 && (s[1] & 0xc0) == 0x80)
			return 2;
		return 0;
	}
	if (c >= 0xe0 && c <= 0xef) {
		if (len < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;
		if (c == 0xed && s[1] >= 0xa0)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (len < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0;
		if (c == 0xf4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

bool rb_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	while (i < len) {
		/* Fast path: eight ASCII bytes at a time. */
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ull)
				break;
			i += 8;
		}
		if (i >= len)
			break;
		n = utf8_seq(s + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* Appends @in as UTF-8, each invalid byte becoming U+FFFD. */
static int add_utf8_lossy(struct rb_buf *out, const char *in, size_t len,
			  bool *bad)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, start = 0, n;
	int ret;

	while (i < len) {
		n = utf8_seq(s + i, len - i);
		if (n) {
			i += n;
			continue;
		}
		ret = rb_buf_add(out, in + start, i - start);
		if (!ret)
			ret = rb_buf_add(out, replacement, 3);
		if (ret)
			return ret;
		*bad = true;
		i++;
		start = i;
	}
	return rb_buf_add(out, in + start, i - start);
}

static int add_latin1(struct rb_buf *out, const char *in, size_t len)
{
	size_t i;
	int ret;

	ret = rb_buf_grow(out, len * 2);
	if (ret)
		return ret;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c < 0x80) {
			out->ptr[out->len++] = (char)c;
		} else {
			out->ptr[out->len++] = (char)(0xc0 | (c >> 6));
			out->ptr[out->len++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out->ptr[out->len] = '\0';
	return 0;
}

static bool cs_is(const char *cs, const char *name)
{
	return strcasecmp(cs, name) == 0;
}

static int add_iconv(struct rb_buf *out, iconv_t cd, const char *in, size_t len,
		     bool *bad)
{
	char chunk[4096];
	char *ip = (char *)in;
	size_t il = len;
	int ret;

	while (il > 0) {
		char *op = chunk;
		size_t ol = sizeof(chunk);
		size_t r = iconv(cd, &ip, &il, &op, &ol);
		int e = errno;

		ret = rb_buf_add(out, chunk, (size_t)(op - chunk));
		if (ret)
			return ret;
		if (r != (size_t)-1)
			continue;
		if (e == E2BIG)
			continue;
		/* EILSEQ or EINVAL: one bad byte, then go on. */
		ret = rb_buf_add(out, replacement, 3);
		if (ret)
			return ret;
		*bad = true;
		ip++;
		il--;
		iconv(cd, NULL, NULL, NULL, NULL);
	}
	/* Flush the shift state of stateful encodings (ISO-2022-JP). */
	{
		char *op = chunk;
		size_t ol = sizeof(chunk);

		iconv(cd, NULL, NULL, &op, &ol);
		ret = rb_buf_add(out, chunk, (size_t)(op - chunk));
	}
	return ret;
}

/*
 * Conversion descriptors to UTF-8, kept once opened. glibc's iconv_open()
 * looks the charset up and dlopen()s its gconv module, and iconv_close()
 * of the last descriptor unloads it: once per message in a non-UTF-8
 * charset, that was 4% of the IMAP source's parse, under the loader's
 * lock that all parsing threads share. A descriptor is used by one
 * thread at a time (busy); mail names any charset it likes, so the pool
 * is bounded, and a charset that finds no room is opened and closed as
 * before. The descriptors live as long as the process.
 */
#define CD_POOL 16

static struct cd_slot {
	char charset[EW_MAX_CHARSET + 1];
	iconv_t cd;
	bool busy;
} cd_pool[CD_POOL];
static size_t cd_used;
static pthread_mutex_t cd_mu = PTHREAD_MUTEX_INITIALIZER;

/* A descriptor from @charset to UTF-8 and its slot (NULL: not pooled). */
static iconv_t cd_get(const char *charset, struct cd_slot **slot)
{
	iconv_t cd;
	size_t i, n;

	*slot = NULL;
	pthread_mutex_lock(&cd_mu);
	for (i = 0; i < cd_used; i++)
		if (!cd_pool[i].busy &&
		    !strcasecmp(cd_pool[i].charset, charset)) {
			cd_pool[i].busy = true;
			*slot = &cd_pool[i];
			pthread_mutex_unlock(&cd_mu);
			return (*slot)->cd;
		}
	pthread_mutex_unlock(&cd_mu);
	cd = iconv_open("UTF-8", charset);
	n = strlen(charset);
	if (cd == (iconv_t)-1 || n > EW_MAX_CHARSET)
		return cd;
	pthread_mutex_lock(&cd_mu);
	if (cd_used < CD_POOL) {
		*slot = &cd_pool[cd_used++];
		memcpy((*slot)->charset, charset, n + 1);
		(*slot)->cd = cd;
		(*slot)->busy = true;
	}
	pthread_mutex_unlock(&cd_mu);
	return cd;
}

static void cd_put(iconv_t cd, struct cd_slot *slot)
{
	if (!slot) {
		iconv_close(cd);
		return;
	}
	iconv(cd, NULL, NULL, NULL, NULL); /* the initial shift state */
	pthread_mutex_lock(&cd_mu);
	slot->busy = false;
	pthread_mutex_unlock(&cd_mu);
}

int rb_msg_to_utf8(struct rb_buf *out, const char *charset, const char *in,
		   size_t len, bool *bad)
{
	struct cd_slot *slot;
	iconv_t cd;
	int ret;

	if (!len)
		return 0;
	if (!charset || !*charset || cs_is(charset, "utf-8") ||
	    cs_is(charset, "utf8") || cs_is(charset, "us-ascii") ||
	    cs_is(charset, "ascii") || cs_is(charset, "unknown-8bit") ||
	    cs_is(charset, "x-unknown")) {
		if (rb_utf8_valid(in, len))
			return rb_buf_add(out, in, len);
		/* Undeclared 8-bit text: git mailinfo assumes Latin-1. */
		if (!charset || !*charset)
			return add_latin1(out, in, len);
		return add_utf8_lossy(out, in, len, bad);
	}
	if (cs_is(charset, "iso-8859-1") || cs_is(charset, "latin1") ||
	    cs_is(charset, "iso8859-1"))
		return add_latin1(out, in, len);

	cd = cd_get(charset, &slot);
	if (cd == (iconv_t)-1) {
		*bad = true;
		if (rb_utf8_valid(in, len))
			return rb_buf_add(out, in, len);
		return add_latin1(out, in, len);
	}
	ret = add_iconv(out, cd, in, len, bad);
	cd_put(cd, slot);
	return ret;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* RFC 2047 4.2: the "Q" encoding. */
static int q_decode(struct rb_buf *out, const char *s, size_t len)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < len && !ret; i++) {
		if (s[i] == '_') {
			ret = rb_buf_putc(out, ' ');
		} else if (s[i] == '=' && i + 2 < len &&
			   hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			ret = rb_buf_putc(out, (char)(hexval(s[i + 1]) * 16 +
						      hexval(s[i + 2])));
			i += 2;
		} else {
			ret = rb_buf_putc(out, s[i]);
		}
	}
	return ret;
}

/* RFC 2047 4.1: the "B" encoding; stray characters are skipped. */
static int b_decode(struct rb_buf *out, const char *s, size_t len)
{
	unsigned int acc = 0;
	int bits = 0, v, ret = 0;
	size_t i;

	for (i = 0; i < len && !ret; i++) {
		v = b64val((unsigned char)s[i]);
		if (v < 0)
			continue;
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			ret = rb_buf_putc(out, (char)((acc >> bits) & 0xff));
		}
	}
	return ret;
}

struct ew {
	char charset[EW_MAX_CHARSET + 1];
	char enc; /* 'B' or 'Q' */
	const char *text;
	size_t text_len;
	size_t len; /* of the whole "=?...?=" */
};

/* Parses an encoded word at @s: "=?charset[*lang]?B|Q?text?=". */
static bool ew_parse(struct ew *ew, const char *s, size_t len)
{
	size_t i = 2, cs_start, cs_len, t;

	if (len < 8 || s[0] != '=' || s[1] != '?')
		return false;
	cs_start = i;
	while (i < len && s[i] != '?' && s[i] != ' ' && s[i] != '\t' &&
	       s[i] != '\n' && s[i] != '\r' && i - cs_start <= EW_MAX_CHARSET)
		i++;
	if (i >= len || s[i] != '?' || i == cs_start ||
	    i - cs_start > EW_MAX_CHARSET)
		return false;
	cs_len = i - cs_start;
	i++;
	if (i + 1 >= len || s[i + 1] != '?')
		return false;
	if (s[i] == 'B' || s[i] == 'b')
		ew->enc = 'B';
	else if (s[i] == 'Q' || s[i] == 'q')
		ew->enc = 'Q';
	else
		return false;
	i += 2;
	t = i;
	while (i + 1 < len && !(s[i] == '?' && s[i + 1] == '=')) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
		    s[i] == '\r' || i - t > EW_MAX_TEXT)
			return false;
		i++;
	}
	if (i + 1 >= len)
		return false;
	memcpy(ew->charset, s + cs_start, cs_len);
	ew->charset[cs_len] = '\0';
	/* RFC 2231 5: "charset*language". */
	{
		char *star = strchr(ew->charset, '*');

		if (star)
			*star = '\0';
	}
	ew->text = s + t;
	ew->text_len = i - t;
	ew->len = i + 2;
	return true;
}

/* Converts what is pending (decoded bytes of one charset) to UTF-8. */
static int flush_pending(struct rb_buf *out, struct rb_buf *pend,
			 const char *charset, bool *bad)
{
	int ret;

	if (!pend->len)
		return 0;
	ret = rb_msg_to_utf8(out, charset[0] ? charset : "utf-8", pend->ptr,
			     pend->len, bad);
	rb_buf_reset(pend);
	return ret;
}

int rb_msg_decode_words(struct rb_buf *out, const char *in, size_t len,
			bool *bad)
{
	struct rb_buf pend = RB_BUF_INIT(len + 16);
	char pend_cs[EW_MAX_CHARSET + 1] = "";
	bool after_ew = false;
	size_t i = 0, j;
	struct ew ew;
	int ret = 0;

	while (i < len && !ret) {
		char c = in[i];

		if (c == '\r' || c == '\n') {
			i++;
			continue;
		}
		if (c == '=' && i + 1 < len && in[i + 1] == '?' &&
		    ew_parse(&ew, in + i, len - i)) {
			/*
			 * Adjacent words of one charset are joined before
			 * conversion: a multi-byte character may be split
			 * across them.
			 */
			if (strcasecmp(ew.charset, pend_cs)) {
				ret = flush_pending(out, &pend, pend_cs, bad);
				if (ret)
					break;
				memcpy(pend_cs, ew.charset,
				       strlen(ew.charset) + 1);
			}
			if (ew.enc == 'B')
				ret = b_decode(&pend, ew.text, ew.text_len);
			else
				ret = q_decode(&pend, ew.text, ew.text_len);
			i += ew.len;
			after_ew = true;
			continue;
		}
		if ((c == ' ' || c == '\t') && after_ew) {
			/* RFC 2047 6.2: space between encoded words goes. */
			j = i;
			while (j < len && (in[j] == ' ' || in[j] == '\t' ||
					   in[j] == '\r' || in[j] == '\n'))
				j++;
			if (j < len && in[j] == '=' && j + 1 < len &&
			    in[j + 1] == '?' &&
			    ew_parse(&ew, in + j, len - j)) {
				i = j;
				continue;
			}
		}
		ret = flush_pending(out, &pend, pend_cs, bad);
		if (ret)
			break;
		after_ew = false;
		/* A run of plain text up to the next "=?" or line break. */
		j = i + 1;
		while (j < len && in[j] != '\r' && in[j] != '\n' &&
		       !(in[j] == '=' && j + 1 < len && in[j + 1] == '?'))
			j++;
		ret = rb_msg_to_utf8(out, NULL, in + i, j - i, bad);
		i = j;
	}
	if (!ret)
		ret = flush_pending(out, &pend, pend_cs, bad);
	rb_buf_release(&pend);
	return ret;
}
