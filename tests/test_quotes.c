// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_quotes.c - mail/quotes.h and mail/prose.h: the lines a reply
 * comments on, as real replies on linux-api quote them (Oleg Nesterov's
 * reply to "[PATCH v4 1/6] cgroup: unify attach permission checking",
 * a Reviewed-by over a whole patch), and the answers under [Fn] of a
 * reply to a review, with hostile variants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mail/prose.h"
#include "mail/quotes.h"
#include "util/err.h"

static const char oleg[] =
	"I guess I am totally confused, but...\n"
	"\n"
	"On 01/17, Christian Brauner wrote:\n"
	">\n"
	"> +static inline bool cgroup_same_domain(const struct cgroup "
	"*src_cgrp,\n"
	"> +\t\t\t\t      const struct cgroup *dst_cgrp)\n"
	"> +{\n"
	"> +\treturn src_cgrp->dom_cgrp == dst_cgrp->dom_cgrp;\n"
	"> +}\n"
	"> +\n"
	"> +\tif (thread &&\n"
	"> +\t    !cgroup_same_domain(src_cgrp->dom_cgrp, "
	"dst_cgrp->dom_cgrp))\n"
	"                                        ^^^^^^^^^^          "
	"^^^^^^^^^^\n"
	"\n"
	"             cgroup_same_domain(src_cgrp, dst_cgrp)\n"
	"\n"
	"no?\n"
	"\n"
	"Oleg.\n";

static void test_comment_after_quote(void **state)
{
	struct rb_quotes q = { 0 };

	(void)state;
	assert_int_equal(rb_quotes_parse(&q, oleg, strlen(oleg)), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.v[0].line, "\t    !cgroup_same_domain("
					 "src_cgrp->dom_cgrp, "
					 "dst_cgrp->dom_cgrp))");
	assert_null(q.v[0].file);
	/* the two new-side lines before it, oldest first */
	assert_string_equal(q.v[0].before[0], "");
	assert_string_equal(q.v[0].before[1], "\tif (thread &&");
	assert_int_equal(q.v[0].reply_line, 13);
	assert_true(!strncmp(oleg + q.v[0].comment_off, "      ", 6));
	rb_quotes_release(&q);
}

static void test_no_comment(void **state)
{
	static const char ack[] =
		"On Fri, Apr 28, 2023 at 01:34:13PM -0700, Casey wrote:\n"
		"> Add lsm_name_to_attr().\n"
		">\n"
		"> Signed-off-by: Casey Schaufler <casey@schaufler-ca.com>\n"
		"\n"
		"Reviewed-by: Serge E. Hallyn <serge@hallyn.com>\n"
		"\n"
		"> diff --git a/include/linux/security.h "
		"b/include/linux/security.h\n"
		"> +++ b/include/linux/security.h\n"
		"> @@ -263,6 +263,7 @@ int unregister(void);\n"
		">  extern int early_security_init(void);\n"
		"> +extern u64 lsm_name_to_attr(const char *name);\n"
		"\n"
		"Thanks!\n"
		"\n"
		"> +static inline u64 lsm_name_to_attr(const char *name)\n"
		"\n"
		"Acked-by: A <a@b.org>\n"
		"-- \n"
		"> +int x;\n"
		"why?\n";
	struct rb_quotes q = { 0 };

	(void)state;
	assert_int_equal(rb_quotes_parse(&q, ack, strlen(ack)), 0);
	assert_int_equal(q.n, 0);
	rb_quotes_release(&q);
}

static void test_file_and_depth(void **state)
{
	static const char r[] =
		"> diff --git a/fs/ext4/ioctl.c b/fs/ext4/ioctl.c\n"
		"> --- a/fs/ext4/ioctl.c\n"
		"> +++ b/fs/ext4/ioctl.c\n"
		"> @@ -1,3 +1,4 @@\n"
		">  int a;\n"
		"> -int b;\n"
		"> +\tret = le16_to_cpu(es->s_raid_stripe_width);\r\n"
		"\r\n"
		"s_raid_stripe_width is __le32.\r\n"
		"> > +int deeper;\n"
		"not mine\n"
		">+int nospace;\n"
		"Here too.\n"
		"> +int above;\n"
		"> +\n"
		"\n"
		"The blank line is not what this is about.\n";
	struct rb_quotes q = { 0 };

	(void)state;
	assert_int_equal(rb_quotes_parse(&q, r, strlen(r)), 0);
	assert_int_equal(q.n, 3);
	assert_string_equal(q.v[2].line, "int above;");
	assert_string_equal(q.v[0].file, "fs/ext4/ioctl.c");
	assert_string_equal(q.v[0].line,
			    "\tret = le16_to_cpu(es->s_raid_stripe_width);");
	assert_null(q.v[0].before[1]);
	assert_string_equal(q.v[0].before[0], "int a;");
	assert_string_equal(q.v[1].line, "int nospace;");
	rb_quotes_release(&q);
}

static void test_squeeze(void **state)
{
	char out[16];

	(void)state;
	assert_true(rb_quotes_same("\tif (a)  {", 10, "if (a) {  ", 10));
	assert_false(rb_quotes_same("if (a)", 6, "if (b)", 6));
	assert_int_equal(rb_quotes_squeeze(out, sizeof(out),
					   "  a\t\tb  c d e f g h i j k", 26),
			 15);
	assert_string_equal(out, "a b c d e f g h");
}

static void test_hostile(void **state)
{
	struct rb_quotes q = { 0 };
	char *big;
	size_t i, n = 200 * 12;

	(void)state;
	/* More comments than the cap: RB_QUOTES_MAX are read. */
	big = malloc(n);
	assert_non_null(big);
	for (i = 0; i + 12 <= n; i += 12)
		memcpy(big + i, "> +x;\nsay.\n\n", 12);
	assert_int_equal(rb_quotes_parse(&q, big, n), 0);
	assert_int_equal(q.n, RB_QUOTES_MAX);
	rb_quotes_release(&q);
	/* No NUL, ends mid-line. */
	memcpy(big, "> +x;\nhm", 8);
	assert_int_equal(rb_quotes_parse(&q, big, 8), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal(q.v[0].comment_len, 2);
	rb_quotes_release(&q);
	free(big);
}

static const char reply[] =
	"On a recent day, reviewbot wrote:\n"
	"> +\tspin_unlock(ptl);\n"
	">\n"
	"> [F1] (medium) Returning true here tells the caller that the\n"
	"> range was zapped. Is that right?\n"
	"\n"
	"No, this is fine: pmd_trans_huge_lock() returns with the lock\n"
	"held, and the caller drops it.\n"
	"\n"
	"> [F2] (low) Should this say why?\n"
	"\n"
	"F2: valid, will fix\n"
	"\n"
	"> [F3] (low) A third one\n"
	"\n"
	"Hmm, let me think about it.\n"
	"\n"
	"Thanks,\n"
	"Grace\n"
	"> the footer: Reply \"F1: false positive\"\n"
	"Thanks,\n"
	"Ada\n";

static void test_prose(void **state)
{
	struct rb_prose p = { 0 };
	char *para = NULL;

	(void)state;
	assert_int_equal(rb_prose_parse(&p, reply, strlen(reply)), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.v[0].id, 1);
	assert_int_equal(p.v[0].guess, RB_PROSE_FALSE_POSITIVE);
	assert_string_equal(p.v[0].text,
			    "No, this is fine: pmd_trans_huge_lock() returns "
			    "with the lock\nheld, and the caller drops it.");
	assert_int_equal(p.v[1].id, 2);
	assert_int_equal(p.v[1].guess, RB_PROSE_VALID);
	assert_int_equal(p.v[2].id, 3);
	assert_int_equal(p.v[2].guess, RB_PROSE_UNCLEAR);
	assert_string_equal(p.v[2].text, "Hmm, let me think about it.");
	rb_prose_release(&p);
	assert_int_equal(rb_prose_paragraph(&para, reply, strlen(reply), 12),
			 0);
	assert_string_equal(para, "F2: valid, will fix");
	free(para);
	assert_int_equal(rb_prose_paragraph(&para, reply, strlen(reply), 999),
			 0);
	assert_null(para);
}

static void test_guess(void **state)
{
	(void)state;
	assert_int_equal(rb_prose_guess("This is not a false positive."),
			 RB_PROSE_VALID);
	assert_int_equal(rb_prose_guess("Good catch, thanks"), RB_PROSE_VALID);
	assert_int_equal(rb_prose_guess("Fixed in v3."), RB_PROSE_FIXED);
	assert_int_equal(rb_prose_guess("nope, can\xe2\x80\x99t happen"),
			 RB_PROSE_FALSE_POSITIVE);
	assert_int_equal(rb_prose_guess("It is intentional"),
			 RB_PROSE_FALSE_POSITIVE);
	assert_int_equal(rb_prose_guess("Not sure."), RB_PROSE_UNCLEAR);
	assert_int_equal(rb_prose_guess(""), RB_PROSE_UNCLEAR);
	assert_null(rb_prose_guess_name(RB_PROSE_UNCLEAR));
	assert_string_equal(rb_prose_guess_name(RB_PROSE_FIXED), "fixed");
}

static void test_prose_caps(void **state)
{
	struct rb_prose p = { 0 };
	size_t n = 300 * 20, i;
	char *big = malloc(n);

	(void)state;
	assert_non_null(big);
	/* Hundreds of answers: RB_PROSE_MAX; one huge answer: capped. */
	for (i = 0; i + 20 <= n; i += 20)
		memcpy(big + i, "> [F7]\nyes it is...\n", 20);
	assert_int_equal(rb_prose_parse(&p, big, n), 0);
	assert_int_equal(p.n, 1);
	assert_true(strlen(p.v[0].text) <= RB_PROSE_MAX_TEXT);
	rb_prose_release(&p);
	for (i = 0; i + 20 <= n; i += 20) {
		int id = (int)(i / 20) % 999 + 1;
		char line[32];

		snprintf(line, sizeof(line), "> [F%03d]\nno way....\n", id);
		memcpy(big + i, line, 20);
	}
	assert_int_equal(rb_prose_parse(&p, big, n), 0);
	assert_int_equal(p.n, RB_PROSE_MAX);
	rb_prose_release(&p);
	free(big);
}

/* The one-pass comparison of a squeezed quote is rb_quotes_same(). */
static void test_same_squeezed(void **state)
{
	char sq[RB_QUOTES_MAX_LINE + 1], a[700], b[700];
	static const char *const pairs[][2] = {
		{ "\tint a = 1;", "  int  a =\t1; \r" },
		{ "int a = 1;", "int a = 2;" },
		{ "int a", "int a = 1;" },
		{ "int a = 1;", "int a" },
		{ "", " \t " },
		{ "", "x" },
		{ "a b", "ab" },
		{ "ab", "a b" },
	};
	size_t i, k, n;

	(void)state;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const char *x = pairs[i][0], *y = pairs[i][1];

		n = rb_quotes_squeeze(sq, sizeof(sq), x, strlen(x));
		assert_int_equal(rb_quotes_same_squeezed(sq, n, y, strlen(y)),
				 rb_quotes_same(x, strlen(x), y, strlen(y)));
	}
	/* Past the cap both compare the first 512 squeezed bytes, a blank
	 * falling at the cap or just before it. */
	for (k = 505; k < 515; k++) {
		memset(a, 'x', sizeof(a));
		memset(b, 'x', sizeof(b));
		a[k] = ' ';
		b[k] = '\t';
		b[k + 1] = ' ';
		a[650] = 'y';
		n = rb_quotes_squeeze(sq, sizeof(sq), a, 660);
		assert_int_equal(n, RB_QUOTES_MAX_LINE);
		assert_int_equal(rb_quotes_same_squeezed(sq, n, b, 660),
				 rb_quotes_same(a, 660, b, 660));
		assert_true(rb_quotes_same_squeezed(sq, n, a, 660));
		b[k + 2] = 'z';
		assert_int_equal(rb_quotes_same_squeezed(sq, n, b, 660),
				 rb_quotes_same(a, 660, b, 660));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comment_after_quote),
		cmocka_unit_test(test_same_squeezed),
		cmocka_unit_test(test_no_comment),
		cmocka_unit_test(test_file_and_depth),
		cmocka_unit_test(test_squeeze),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_prose),
		cmocka_unit_test(test_guess),
		cmocka_unit_test(test_prose_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
