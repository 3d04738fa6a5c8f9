// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verdict.c - verdict lines in replies: every spelling of the
 * feedback protocol, quoted findings with a verdict under them, and what
 * must not count (quoted footers, negations, ids out of range).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mail/verdict.h"
#include "util/err.h"
#include "util/banned.h"

struct vcase {
	const char *body;
	const char *want; /* "1v 2f 3x": id + (f)p, (v)alid, fi(x)ed */
};

static const struct vcase cases[] = {
	{ "F2: false positive\n", "2f" },
	{ "F2: False Positive, the lock is held here\n", "2f" },
	{ "F2: false-positive\n", "2f" },
	{ "F2: fp\n", "2f" },
	{ "f2 fp\n", "2f" },
	{ "F2: wrong\n", "2f" },
	{ "fp F2\n", "2f" },
	{ "FP: F2\n", "2f" },
	{ "F1: valid\nF2: false positive\n", "1v 2f" },
	{ "F1: correct\r\nF3: fixed\r\n", "1v 3x" },
	{ "F1, F3: valid\n", "1v 3v" },
	{ "F1 and F2 - fixed\n", "1x 2x" },
	{ "  F4 = valid\n", "4v" },
	{ "F2: valid\nF2: false positive\n", "2f" },
	/* A quoted finding, then a verdict under it. */
	{ "> +\tspin_unlock(ptl);\n> [F2] (medium) Returning true here\n"
	  "> tells the caller ...\n\nThis is a false positive: the caller\n"
	  "checks again.\n",
	  "2f" },
	{ "> [F1] (low) The subject is long.\n\nValid, will fix.\n"
	  "> [F3] (info) Missing Cc: stable.\nfp\n",
	  "1v 3f" },
	{ "> [F2] Something\nI don't think this is a false positive.\n", "" },
	{ "> [F2] Something\nThat is not a false positive.\n", "" },
	{ "> [F2] Something\nThanks, makes sense.\n", "" },
	{ "> [F2] Something\nNo. This is a false positive.\n", "2f" },
	/* Quoted verdicts (our own footer) are no verdicts. */
	{ "> Reply \"F1: false positive\", \"F1: valid\" or \"F1: fixed\"\n",
	  "" },
	{ "> F1: false positive\n", "" },
	/* Not verdicts. */
	{ "F2 looks fine to me, thanks\n", "" },
	{ "F22x: fp\n", "" },
	{ "F0: fp\n", "" },
	{ "F1000: fp\n", "" },
	{ "F: fp\n", "" },
	{ "F2: fpx\n", "" },
	{ "F2: not a false positive\n", "" },
	{ "Before the signature.\n-- \nF1: fp\n", "" },
	{ "", "" },
	{ "F999: fixed", "999x" },
};

static void expect(const char *body, const char *want)
{
	struct rb_verdicts v = { 0 };
	char got[256] = "";
	size_t i, off = 0;

	assert_int_equal(rb_verdicts_parse(&v, body, strlen(body)), 0);
	for (i = 0; i < v.n; i++) {
		char k = v.v[i].kind == RB_VK_FALSE_POSITIVE ? 'f' :
			 v.v[i].kind == RB_VK_VALID	     ? 'v' :
							       'x';

		off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%d%c",
					i ? " " : "", v.v[i].id, k);
		assert_true(v.v[i].line >= 1);
	}
	rb_verdicts_release(&v);
	if (strcmp(got, want))
		fail_msg("body %s: got \"%s\", want \"%s\"", body, got, want);
}

static void test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].body, cases[i].want);
}

static void test_not_terminated(void **state)
{
	/* The length bounds the scan, not a NUL. */
	const char body[] = { 'F', '1', ':', ' ', 'f', 'p', 'x' };
	struct rb_verdicts v = { 0 };

	(void)state;
	assert_int_equal(rb_verdicts_parse(&v, body, 6), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.v[0].id, 1);
	rb_verdicts_release(&v);
	assert_int_equal(rb_verdicts_parse(&v, body, 7), 0);
	assert_int_equal(v.n, 0);
	rb_verdicts_release(&v);
	rb_verdicts_release(&v);
}

static void test_line_numbers(void **state)
{
	const char *body = "Hi,\n\nF3: valid\n";
	struct rb_verdicts v = { 0 };

	(void)state;
	assert_int_equal(rb_verdicts_parse(&v, body, strlen(body)), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.v[0].line, 3);
	assert_string_equal(rb_verdict_kind_name(v.v[0].kind), "valid");
	rb_verdicts_release(&v);
}

static void test_cap(void **state)
{
	char body[8192];
	size_t off = 0;
	struct rb_verdicts v = { 0 };
	int i;

	(void)state;
	for (i = 1; i <= RB_VERDICT_MAX_ITEMS + 1; i++)
		off += (size_t)snprintf(body + off, sizeof(body) - off,
					"F%d: fp\n", i);
	assert_int_equal(rb_verdicts_parse(&v, body, off), -RB_ETOOBIG);
	assert_non_null(strstr(rb_errmsg(), "more than"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_not_terminated),
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
