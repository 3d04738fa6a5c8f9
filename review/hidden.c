// SPDX-License-Identifier: GPL-2.0-only
/*
 * hidden.c - invisible and bidirectional Unicode in patch text (hidden.h).
 */
#include <stdio.h>
#include <string.h>

#include "review/hidden.h"
#include "util/banned.h"

static const struct {
	uint32_t cp;
	const char *name;
} names[] = {
	{ 0x200B, "ZERO WIDTH SPACE" },
	{ 0x200C, "ZERO WIDTH NON-JOINER" },
	{ 0x200D, "ZERO WIDTH JOINER" },
	{ 0x200E, "LEFT-TO-RIGHT MARK" },
	{ 0x200F, "RIGHT-TO-LEFT MARK" },
	{ 0x202A, "LEFT-TO-RIGHT EMBEDDING" },
	{ 0x202B, "RIGHT-TO-LEFT EMBEDDING" },
	{ 0x202C, "POP DIRECTIONAL FORMATTING" },
	{ 0x202D, "LEFT-TO-RIGHT OVERRIDE" },
	{ 0x202E, "RIGHT-TO-LEFT OVERRIDE" },
	{ 0x2060, "WORD JOINER" },
	{ 0x2061, "FUNCTION APPLICATION" },
	{ 0x2062, "INVISIBLE TIMES" },
	{ 0x2063, "INVISIBLE SEPARATOR" },
	{ 0x2064, "INVISIBLE PLUS" },
	{ 0x2066, "LEFT-TO-RIGHT ISOLATE" },
	{ 0x2067, "RIGHT-TO-LEFT ISOLATE" },
	{ 0x2068, "FIRST STRONG ISOLATE" },
	{ 0x2069, "POP DIRECTIONAL ISOLATE" },
	{ 0xFEFF, "ZERO WIDTH NO-BREAK SPACE" },
};

const char *rb_hidden_name(uint32_t cp)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].cp == cp)
			return names[i].name;
	return NULL;
}

/*
 * Every listed code point is three UTF-8 bytes: E2 80 8B-8F, E2 80 AA-AE,
 * E2 81 A0-A4, E2 81 A6-A9, EF BB BF. Malformed UTF-8 is not decoded
 * here: it is no hidden character, and the mail parser reports it.
 */
size_t rb_hidden_find(const char *s, size_t len, uint32_t *cp, size_t *n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;

	for (i = 0; i + 2 < len; i++) {
		uint32_t c;

		if (u[i] != 0xE2 && u[i] != 0xEF)
			continue;
		if ((u[i + 1] & 0xC0) != 0x80 || (u[i + 2] & 0xC0) != 0x80)
			continue;
		c = ((uint32_t)(u[i] & 0x0F) << 12) |
		    ((uint32_t)(u[i + 1] & 0x3F) << 6) | (u[i + 2] & 0x3F);
		if (rb_hidden_name(c)) {
			*cp = c;
			*n = 3;
			return i;
		}
	}
	return len;
}

int rb_hidden_escape(struct rb_buf *out, const char *s, size_t len)
{
	size_t off = 0;
	int ret = 0;

	while (!ret && off < len) {
		uint32_t cp = 0;
		size_t n = 0, at = rb_hidden_find(s + off, len - off, &cp, &n);

		ret = rb_buf_add(out, s + off, at);
		if (!ret && at < len - off)
			ret = rb_buf_printf(out, "<U+%04X>", (unsigned)cp);
		off += at + n;
	}
	return ret;
}
