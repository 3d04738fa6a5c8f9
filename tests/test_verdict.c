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

/* "1,3 s:r p a:2": the ids to send, the commands (r)etry, (p)ause,
 * resu(m)e, and the answered ids, as one comparable string. */
static void expect_requests(const char *body, const char *want)
{
	struct rb_verdicts v = { 0 };
	char got[256] = "";
	size_t i, off = 0;

	assert_int_equal(rb_verdicts_parse(&v, body, strlen(body)), 0);
	for (i = 0; i < v.n_send; i++)
		off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%d",
					i ? "," : "", v.send[i]);
	off += (size_t)snprintf(got + off, sizeof(got) - off,
				" %s%s%s a:", v.cmds & RB_VCMD_RETRY ? "r" : "",
				v.cmds & RB_VCMD_PAUSE ? "p" : "",
				v.cmds & RB_VCMD_RESUME ? "m" : "");
	for (i = 0; i < v.n_answered; i++)
		off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%d",
					i ? "," : "", v.answered[i]);
	assert_true(rb_verdicts_has_requests(&v) ==
		    (v.n_send > 0 || v.cmds != 0));
	rb_verdicts_release(&v);
	if (strcmp(got, want))
		fail_msg("body %s: got \"%s\", want \"%s\"", body, got, want);
}

/* Issue 36: what a sub-maintainer asks, on the verdicts' grammar. */
static void test_requests(void **state)
{
	static const struct vcase rq[] = {
		{ "F1, F3: send\n", "1,3  a:" },
		{ "F2: send, worth the author's time\n", "2  a:" },
		{ "send F2 and F4\n", "2,4  a:" },
		{ "F2: Forward\nF2: send\n", "2  a:" },
		{ "retry\n", " r a:" },
		{ "  Pause.\n", " p a:" },
		{ "pause\nresume!\n", " m a:" },
		{ "resume\npause\n", " p a:" },
		{ "retry\npause\n", " rp a:" },
		/* Prose is no command, quoted text none either. */
		{ "I will retry later.\n", "  a:" },
		{ "pause the series please\n", "  a:" },
		{ "> F1: send\n> retry\n", "  a:" },
		/* Never under a quoted finding. */
		{ "> [F2] (medium) Is this right?\nSend a v2 with it.\n",
		  "  a:2" },
		/* Answers: something said under a quoted finding. */
		{ "> [F1] (low) A.\n\nYes, fixed locally.\n"
		  "> [F2] (low) B.\n>\n> [F3] (low) C.\nNo, see ring.h.\n",
		  "  a:1,3" },
		/* The quoted footer ends the last finding. */
		{ "> [F2] (low) B.\n>\n> -- \n> reviewbot, advisory\n\n"
		  "Thanks,\nAda\n",
		  "  a:" },
		{ "> [F2] (low) B.\n> --\nThanks\n", "  a:" },
		/* Verdicts and requests together. */
		{ "F1: fp\nF2: send\nretry\n", "2 r a:" },
		{ "Before.\n-- \nF1: send\nretry\n", "  a:" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rq) / sizeof(rq[0]); i++)
		expect_requests(rq[i].body, rq[i].want);
	/* "send" is no verdict. */
	expect("F2: send\n", "");
	expect("F1: fp\nF2: send\n", "1f");
}

static void test_send_cap(void **state)
{
	char body[8192];
	size_t off = 0;
	struct rb_verdicts v = { 0 };
	int i;

	(void)state;
	for (i = 1; i <= RB_VERDICT_MAX_ITEMS + 1; i++)
		off += (size_t)snprintf(body + off, sizeof(body) - off,
					"F%d: send\n", i);
	assert_int_equal(rb_verdicts_parse(&v, body, off), -RB_ETOOBIG);
	assert_non_null(strstr(rb_errmsg(), "to send"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_not_terminated),
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_send_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
