// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_addr.c - RFC 5321 address syntax, mailbox parsing and formatting,
 * RFC 2047 encoding, recipient lists with duplicates and a cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mail/addr.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

/* "x@" then labels of 60 'b' joined by dots, @total bytes long. */
static void make_addr(char *buf, size_t total)
{
	size_t i;

	buf[0] = 'x';
	buf[1] = '@';
	for (i = 2; i < total; i++)
		buf[i] = (i - 2) % 61 == 60 ? '.' : 'b';
	if (buf[total - 1] == '.')
		buf[total - 1] = 'c';
	buf[total] = '\0';
}

static void test_valid(void **state)
{
	static const char *const good[] = {
		"a@b",
		"ljs@kernel.org",
		"linux-mm@kvack.org",
		"first.last+tag@sub.example.co.uk",
		"!#$%&'*+-/=?^_`{|}~@example.org",
		"\"quoted string\"@example.org",
		"\"a\\\"b\"@example.org",
		"\"\"@example.org",
		"user@[127.0.0.1]",
		"user@[IPv6:::1]",
		"user@[IPv6:2001:db8::1]",
		"user@localhost",
		"x@a-b.c",
		"x@123.example",
	};
	static const char *const bad[] = {
		"",
		"@example.org",
		"user@",
		"user",
		"user@@example.org",
		".user@example.org",
		"user.@example.org",
		"us..er@example.org",
		"user@-example.org",
		"user@example-.org",
		"user@example..org",
		"user@example.org.",
		"user@exa_mple.org",
		"us er@example.org",
		"user@example.org\r\nRCPT TO:<evil@example.org>",
		"user\n@example.org",
		"user@exam\rple.org",
		"user\t@example.org",
		"\"a\nb\"@example.org",
		"\"unterminated@example.org",
		"\"a\"b@example.org",
		"user@[127.0.0.256]",
		"user@[1.2.3]",
		"user@[IPv6:zz::1]",
		"user@[tag:foo]",
		"<user@example.org>",
		"Name <user@example.org>",
		"j\xc3\xb6rg@example.org",
		"user@ex\xc3\xa4mple.org",
		"user@example.org ",
		"user@exa\x7fmple.org",
	};
	char big[400];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!rb_addr_valid(good[i]))
			fail_msg("should be valid: %s", good[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rb_addr_valid(bad[i]))
			fail_msg("should be invalid: %s", bad[i]);
	}
	assert_false(rb_addr_valid(NULL));

	/* Local part: 64 is the limit. */
	memset(big, 'a', 64);
	memcpy(big + 64, "@example.org", 13);
	assert_true(rb_addr_valid(big));
	memset(big, 'a', 65);
	memcpy(big + 65, "@example.org", 13);
	assert_false(rb_addr_valid(big));

	/* Total: 254 is the limit. */
	make_addr(big, 254);
	assert_true(rb_addr_valid(big));
	make_addr(big, 255);
	assert_false(rb_addr_valid(big));
	/* Labels: at most 63. */
	memset(big, 'a', 70);
	memcpy(big, "x@", 2);
	memcpy(big + 66, ".org", 5);
	assert_false(rb_addr_valid(big)); /* a 64-byte label */
	memcpy(big + 65, ".org", 5);
	assert_true(rb_addr_valid(big)); /* a 63-byte label */
}

static void check_parse(const char *in, const char *name, const char *addr)
{
	struct rb_addr a = { 0 };
	int ret = rb_addr_parse(&a, in);

	if (ret)
		fail_msg("%s: %s", in, rb_errmsg());
	assert_string_equal(a.addr, addr);
	if (name)
		assert_string_equal(a.name, name);
	else
		assert_null(a.name);
	rb_addr_release(&a);
}

/* Issue 34: an address no mail can reach is never a recipient. */
static void test_deliverable(void **state)
{
	(void)state;
	assert_true(rb_addr_deliverable("ada@example.org"));
	assert_true(rb_addr_deliverable("devnull+a.b@kernel.org"));
	assert_true(rb_addr_deliverable("x@localhost.example.org"));
	assert_true(rb_addr_deliverable("x@invalid.example.org"));
	assert_false(rb_addr_deliverable("caritas@localhost"));
	assert_false(rb_addr_deliverable("root@LOCALHOST"));
	assert_false(rb_addr_deliverable("a@box.localhost"));
	assert_false(rb_addr_deliverable("a@mail.invalid"));
	assert_false(rb_addr_deliverable("a@printer.local"));
	assert_false(rb_addr_deliverable("a@mailhost"));
	assert_false(rb_addr_deliverable("a@[192.0.2.1]"));
	assert_false(rb_addr_deliverable("no-domain"));
	assert_false(rb_addr_deliverable("a@"));
	assert_false(rb_addr_deliverable(NULL));
}

static void test_parse(void **state)
{
	static const char *const bad[] = {
		"Evil <a@b.org>\r\nBcc: victim@example.org",
		"Evil\n <a@b.org>",
		"Name <a@b.org",
		"Name <a@b.org> trailing",
		"Name <not an address>",
		"\"Bad\"quote\" <a@b.org>",
		"Name \x01 <a@b.org>",
		"\xff\xfe <a@b.org>",
		"",
		"   ",
		"<>",
	};
	size_t i;
	struct rb_addr a = { 0 };

	check_parse("ljs@kernel.org", NULL, "ljs@kernel.org");
	check_parse("  <ljs@kernel.org>  ", NULL, "ljs@kernel.org");
	check_parse("Andrew Morton <akpm@linux-foundation.org>",
		    "Andrew Morton", "akpm@linux-foundation.org");
	check_parse("\"Lorenzo Stoakes (Oracle)\" <ljs@kernel.org>",
		    "Lorenzo Stoakes (Oracle)", "ljs@kernel.org");
	check_parse("\"Doe, John \\\"JD\\\"\" <jd@example.org>",
		    "Doe, John \"JD\"", "jd@example.org");
	check_parse("J\xc3\xb6rg R\xc3\xb6"
		    "del <joro@8bytes.org>",
		    "J\xc3\xb6rg R\xc3\xb6"
		    "del",
		    "joro@8bytes.org");
	check_parse("jd@example.org (John Doe)", "John Doe", "jd@example.org");
	check_parse("\"a <b>\" <c@d.org>", "a <b>", "c@d.org");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = rb_addr_parse(&a, bad[i]);

		if (ret != -RB_EINVAL)
			fail_msg("should be refused: %s", bad[i]);
		assert_true(rb_errmsg()[0] != '\0');
	}
	assert_int_equal(rb_addr_parse(&a, NULL), -RB_EINVAL);
}

static void check_format(const char *in, const char *want)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	struct rb_addr a = { 0 };

	assert_int_equal(rb_addr_parse(&a, in), 0);
	assert_int_equal(rb_addr_format(&b, &a), 0);
	assert_string_equal(b.ptr, want);
	rb_addr_release(&a);
	rb_buf_release(&b);
}

static void test_format(void **state)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	struct rb_addr a = { 0 };
	size_t i;

	check_format("a@b.org", "a@b.org");
	check_format("Andrew Morton <akpm@linux-foundation.org>",
		     "Andrew Morton <akpm@linux-foundation.org>");
	check_format("\"Lorenzo Stoakes (Oracle)\" <ljs@kernel.org>",
		     "\"Lorenzo Stoakes (Oracle)\" <ljs@kernel.org>");
	check_format("\"Doe, John \\\"JD\\\"\" <jd@example.org>",
		     "\"Doe, John \\\"JD\\\"\" <jd@example.org>");
	check_format("J\xc3\xb6rg R\xc3\xb6"
		     "del <joro@8bytes.org>",
		     "=?utf-8?q?J=C3=B6rg_R=C3=B6del?= <joro@8bytes.org>");
	/* Mostly non-ASCII: base64 is shorter. */
	check_format("\xe5\xbc\xa0\xe4\xb8\x89 <zs@example.cn>",
		     "=?utf-8?b?5byg5LiJ?= <zs@example.cn>");
	/* A name that looks like an encoded word is encoded itself. */
	check_format("\"=?utf-8?q?x?=\" <a@b.org>",
		     "=?utf-8?q?=3D=3Futf-8=3Fq=3Fx=3F=3D?= <a@b.org>");

	/* A long name: several encoded words, each <= 75 bytes. */
	a.addr = "long@example.org";
	a.name = malloc(200);
	assert_non_null(a.name);
	for (i = 0; i < 198; i += 2)
		memcpy(a.name + i, "\xc3\xa9", 2);
	a.name[198] = '\0';
	assert_int_equal(rb_addr_format(&b, &a), 0);
	{
		char *save = NULL, *w, *copy = strdup(b.ptr);

		for (w = strtok_r(copy, " ", &save); w;
		     w = strtok_r(NULL, " ", &save))
			assert_true(strlen(w) <= 75);
		free(copy);
	}
	free(a.name);

	/* Control characters in a name given directly are refused. */
	a.name = "Evil\r\nBcc: x@y.org";
	rb_buf_reset(&b);
	assert_int_equal(rb_addr_format(&b, &a), -RB_EINVAL);
	assert_int_equal(b.len, 0);
	a.name = NULL;
	a.addr = "bad\r\n@example.org";
	assert_int_equal(rb_addr_format(&b, &a), -RB_EINVAL);
	rb_buf_release(&b);
}

/* What rb_addr_format() writes parses back to the same name and address. */
static void test_roundtrip(void **state)
{
	static const char *const names[] = {
		"Andrew Morton",
		"Lorenzo Stoakes (Oracle)",
		"Doe, John \"JD\"",
		"J\xc3\xb6rg R\xc3\xb6\144el",
		"\xe5\xbc\xa0\xe4\xb8\x89",
		"=?utf-8?q?literal?=",
		"under_score and  two spaces",
		" lead",
	};
	struct rb_buf b = RB_BUF_INIT(4096);
	struct rb_addr a = { 0 }, back = { 0 };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		a.name = (char *)names[i];
		a.addr = "x@example.org";
		rb_buf_reset(&b);
		assert_int_equal(rb_addr_format(&b, &a), 0);
		if (rb_addr_parse(&back, b.ptr))
			fail_msg("%s: %s", b.ptr, rb_errmsg());
		assert_string_equal(back.addr, "x@example.org");
		assert_non_null(back.name);
		if (strcmp(back.name, names[i]))
			fail_msg("\"%s\" came back as \"%s\" from %s", names[i],
				 back.name, b.ptr);
		rb_addr_release(&back);
	}
	/* Encoded words in a mail's header decode; other charsets too. */
	check_parse("=?iso-8859-1?q?J=F6rg?= <j@example.org>", "J\xc3\xb6rg",
		    "j@example.org");
	/* An encoded CR/LF is a control character: refused. */
	assert_int_equal(rb_addr_parse(&back,
				       "=?utf-8?q?a=0D=0ABcc:_x?= <a@b.org>"),
			 -RB_EINVAL);
	/* Inside quotes an encoded word is text (RFC 2047 5 (3)). */
	check_parse("\"=?utf-8?q?x?=\" <a@b.org>", "=?utf-8?q?x?=", "a@b.org");
	rb_buf_release(&b);
}

static void test_rfc2047(void **state)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);

	assert_int_equal(rb_rfc2047_encode(&b, "a b", 3), 0);
	assert_string_equal(b.ptr, "=?utf-8?q?a_b?=");
	rb_buf_reset(&b);
	assert_int_equal(rb_rfc2047_encode(&b, "a\r\nb", 4), -RB_EINVAL);
	assert_int_equal(rb_rfc2047_encode(&b, "\xc3", 1), -RB_EINVAL);
	assert_int_equal(rb_rfc2047_encode(&b, "\xed\xa0\x80", 3),
			 -RB_EINVAL); /* a surrogate */
	assert_int_equal(rb_rfc2047_encode(&b, "\xc0\xaf", 2),
			 -RB_EINVAL); /* overlong */
	assert_true(rb_utf8_valid("\xf0\x9f\x90\xa7", 4));
	assert_false(rb_utf8_valid("\xf4\x90\x80\x80", 4));
	rb_buf_release(&b);
}

static void test_dedup(void **state)
{
	static const char *const in[] = {
		"Andrew Morton <akpm@linux-foundation.org>",
		"linux-mm@kvack.org",
		"AKPM@Linux-Foundation.ORG",
		"Evil <x@y.org>\r\nBcc: z@y.org",
		"\"Other Name\" <akpm@linux-foundation.org>",
		"ljs@kernel.org",
		"Linux-MM@kvack.org",
	};
	char **out = NULL;
	size_t n = 0;

	rb_log_set_quiet(1);
	assert_int_equal(rb_addr_list_dedup(&out, &n, in, 7, 0), 0);
	assert_int_equal(n, 3);
	assert_string_equal(out[0], in[0]);
	assert_string_equal(out[1], in[1]);
	assert_string_equal(out[2], in[5]);
	rb_addr_list_free(out, n);

	assert_int_equal(rb_addr_list_dedup(&out, &n, in, 7, 2), 0);
	assert_int_equal(n, 2);
	rb_addr_list_free(out, n);

	assert_int_equal(rb_addr_list_dedup(&out, &n, in, 0, 0), 0);
	assert_int_equal(n, 0);
	rb_addr_list_free(out, n);

	assert_true(rb_addr_same("A <x@Y.org>", "X@y.ORG"));
	assert_false(rb_addr_same("x@y.org", "x@z.org"));
	assert_false(rb_addr_same("bad", "bad"));
}

/* 1,000 recipients: capped at RB_ADDR_LIST_MAX, first ones kept. */
static void test_thousand(void **state)
{
	char **in = calloc(1000, sizeof(*in)), **out = NULL;
	size_t i, n = 0;

	assert_non_null(in);
	rb_log_set_quiet(1);
	for (i = 0; i < 1000; i++) {
		in[i] = malloc(64);
		assert_non_null(in[i]);
		snprintf(in[i], 64, "Dev %zu <dev%zu@example.org>", i % 500,
			 i % 500);
	}
	assert_int_equal(rb_addr_list_dedup(&out, &n, (const char *const *)in,
					    1000, 0),
			 0);
	assert_int_equal(n, RB_ADDR_LIST_MAX);
	for (i = 0; i < n; i++)
		assert_string_equal(out[i], in[i]);
	rb_addr_list_free(out, n);
	for (i = 0; i < 1000; i++)
		free(in[i]);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_deliverable),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_rfc2047),
		cmocka_unit_test(test_dedup),
		cmocka_unit_test(test_thousand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
