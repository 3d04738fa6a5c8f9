// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_addr.c - libFuzzer target for the address parser and validator
 * (mail/addr.h) and for what compose does with hostile header text.
 *
 * Invariants checked (a violation traps):
 *  - a mailbox that parses has an address rb_addr_valid() accepts, and
 *    one rb_addr_deliverable() accepts has a domain with a dot;
 *  - rb_addr_format() writes no control character, and what it writes
 *    parses again to the same address;
 *  - RFC 2047 output is printable ASCII in words of at most 75 bytes;
 *  - a composed reply with the input as its subject (and as a recipient)
 *    has no header line that a hostile subject could have injected.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/addr.h"
#include "mail/compose.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static void check_format(const struct rb_addr *a)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);
	struct rb_addr again = { 0 };
	size_t i;

	if (rb_addr_format(&b, a) == 0) {
		for (i = 0; i < b.len; i++)
			CHECK((unsigned char)b.ptr[i] >= 32 &&
			      (unsigned char)b.ptr[i] < 127);
		CHECK(rb_addr_parse(&again, b.ptr) == 0);
		CHECK(!strcmp(again.addr, a->addr));
		/* The name comes back too: never encoded twice. */
		if (a->name && a->name[0])
			CHECK(again.name && !strcmp(again.name, a->name));
		else
			CHECK(!again.name);
		rb_addr_release(&again);
	}
	rb_buf_release(&b);
}

static void check_encode(const char *s, size_t len)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	size_t i, w = 0;

	if (rb_rfc2047_encode(&b, s, len) == 0) {
		for (i = 0; i < b.len; i++) {
			unsigned char c = (unsigned char)b.ptr[i];

			CHECK(c >= 32 && c < 127);
			w = c == ' ' ? 0 : w + 1;
			CHECK(w <= 75);
		}
	}
	rb_buf_release(&b);
}

/* Every header line starts with one of ours or is a continuation. */
static void check_compose(const char *s)
{
	static const char *const names[] = {
		"From: ",
		"To: ",
		"Cc: ",
		"Subject: ",
		"Date: ",
		"Message-ID: ",
		"In-Reply-To: ",
		"References: ",
		"MIME-Version: ",
		"Content-Type: ",
		"Content-Transfer-Encoding: ",
		"Auto-Submitted: ",
		"X-Reviewbot-Policy: ",
		"X-Reviewbot-Series: ",
	};
	const char *to[] = { s };
	const char *cc[] = { "list@example.org", s };
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct rb_reply r = {
		.from = "reviewbot <bot@example.org>",
		.to = to,
		.n_to = 1,
		.cc = cc,
		.n_cc = 2,
		.subject = s,
		.in_reply_to = "<a@b>",
		.date = 1700000000,
		.policy = RB_MODE_ADVISORY,
		.series_id = "s",
		.body = "body\n",
	};
	const char *p, *e;
	size_t k;

	if (rb_compose(&b, NULL, &r)) {
		/* The recipient may be what is refused: try the subject. */
		to[0] = "dev@example.org";
		cc[1] = "x@example.org";
		rb_buf_reset(&b);
		if (rb_compose(&b, NULL, &r)) {
			rb_buf_release(&b);
			return;
		}
	}
	for (p = b.ptr;; p = e + 2) {
		bool known = false;

		e = strstr(p, "\r\n");
		CHECK(e);
		if (e == p)
			break; /* the end of the header */
		CHECK(memchr(p, '\n', (size_t)(e - p)) == NULL);
		CHECK(memchr(p, '\r', (size_t)(e - p)) == NULL);
		if (*p == ' ')
			continue;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strncmp(p, names[k], strlen(names[k])))
				known = true;
		CHECK(known);
	}
	rb_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_addr a = { 0 };
	char *s;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rb_log_set_quiet(1);

	(void)rb_addr_valid(s);
	if (rb_addr_parse(&a, s) == 0) {
		CHECK(rb_addr_valid(a.addr));
		check_format(&a);
		/* Deliverable: a domain with a dot, never a local name. */
		if (rb_addr_deliverable(a.addr))
			CHECK(strchr(strrchr(a.addr, '@'), '.'));
		rb_addr_release(&a);
	}
	(void)rb_addr_deliverable(s);
	check_encode(s, strlen(s));
	check_compose(s);
	{
		const char *v[] = { s, "a@b.org", s };
		char **out = NULL;
		size_t n = 0;

		if (rb_addr_list_dedup(&out, &n, v, 3, 2) == 0) {
			CHECK(n <= 2);
			rb_addr_list_free(out, n);
		}
	}
	free(s);
	return 0;
}
