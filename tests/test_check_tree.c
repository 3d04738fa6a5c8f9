// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_check_tree.c - the parsers and the deltas of the tree checkers
 * (issue 32) on real output: sparse's lines in a kernel build, kernel-doc,
 * coccinelle's report mode, an external checker's FILE:LINE lines; the
 * comparison with the base; cc-maintainers on a MAINTAINERS held in
 * memory; the rule names of the new checkers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <git2.h>

#include "mail/message.h"
#include "review/checks/check_build.h"
#include "review/checks/check_cocci.h"
#include "review/checks/check_external.h"
#include "review/checks/check_kdoc.h"
#include "review/checks/check_maint.h"
#include "review/checks/check_util.h"
#include "review/checks/checks.h"
#include "review/maint/maintainers.h"
#include "review/checks/rules.h"
#include "util/banned.h"

/* sparse's lines of a C=1 build of linux 6.1's kernel/ksysfs.o with the
 * probe of t_accept_checks.sh, as the wrapper marks them, between the
 * compiler's. */
static const char make_out[] =
	"rb-sparse: kernel/ksysfs.c:157:17: warning: dereference of noderef "
	"expression\n"
	"kernel/ksysfs.c:40:5: warning: no previous prototype for 'f' "
	"[-Wmissing-prototypes]\n"
	"rb-sparse: kernel/ksysfs.c:60:28: warning: incorrect type in "
	"argument 1 (different address spaces)\n"
	"rb-sparse: kernel/ksysfs.c:60:28:    expected void *to\n"
	"rb-sparse: kernel/ksysfs.c:60:28:    got char [noderef] __user *\n"
	"/src/kernel/ksysfs.c:70:1: error: expected ';' before '}' token\n"
	"rb-make-exit=2\n";

static void test_sparse_parse(void **state)
{
	struct rb_findings fs = { 0 }, gcc = { 0 };

	(void)state;
	assert_int_equal(rb_sparse_parse(&fs, make_out), 0);
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.v[0].checker, "sparse");
	assert_string_equal(fs.v[0].category, "sparse-warning");
	assert_string_equal(fs.v[0].file, "kernel/ksysfs.c");
	assert_int_equal(fs.v[0].line, 157);
	assert_string_equal(fs.v[0].message,
			    "dereference of noderef expression");
	/* The continuation lines go with their warning. */
	assert_non_null(strstr(fs.v[1].message, "; expected void *to; got"));
	/* The compiler's parser skips sparse's lines. */
	assert_int_equal(rb_build_parse(&gcc, make_out), 0);
	assert_int_equal(gcc.n, 2);
	assert_string_equal(gcc.v[0].category, "build-warning");
	assert_string_equal(gcc.v[1].category, "build-error");
	assert_int_equal(gcc.v[1].line, 70);
	rb_findings_release(&fs);
	rb_findings_release(&gcc);
}

static void test_kdoc_parse(void **state)
{
	static char f0[] = "kernel/ksysfs.c";
	char *const files[] = { f0 };
	struct rb_findings fs = { 0 };
	const char *out =
		"kernel/ksysfs.c:162: warning: Function parameter or member "
		"'a' not described in 'ksysfs_probe_sum'\n"
		"kernel/ksysfs.c:162: warning: Excess function parameter 'x' "
		"description in 'ksysfs_probe_sum'\n"
		"../etc/passwd:1: warning: not ours\n"
		"mm/other.c:3: warning: a file not asked about\n"
		"Error: some noise\n";

	(void)state;
	assert_int_equal(rb_kdoc_parse(&fs, out, files, 1), 0);
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.v[0].category, "kernel-doc");
	assert_int_equal(fs.v[0].line, 162);
	assert_string_equal(fs.v[1].message,
			    "Excess function parameter 'x' "
			    "description in 'ksysfs_probe_sum'");
	rb_findings_release(&fs);
}

static void test_cocci_parse(void **state)
{
	struct rb_findings fs = { 0 };
	const char *out =
		"rb-cocci: free/ifnullfree.cocci\n"
		"kernel/ksysfs.c:157:2-7: WARNING: NULL check before some "
		"freeing functions is not needed.\n"
		"rb-cocci: ../../etc/evil\n"
		"kernel/ksysfs.c:9:1-2: under a bad script name: dropped\n"
		"rb-cocci: null/badzero.cocci\n"
		"/src/a/kernel/ksysfs.c:3:5-6: WARNING comparing pointer to 0\n"
		"/etc/passwd:1:1-2: not a tree path\n";

	(void)state;
	assert_int_equal(rb_cocci_parse(&fs, out, NULL, 0), 0);
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.v[0].code,
			    "free/ifnullfree.cocci: WARNING: NULL check before "
			    "some freeing functions is not needed.");
	assert_int_equal(fs.v[0].line, 157);
	assert_string_equal(fs.v[1].file, "kernel/ksysfs.c");
	assert_int_equal(fs.v[1].line, 3);
	rb_findings_release(&fs);
}

static void test_external_lines(void **state)
{
	struct rb_findings fs = { 0 };
	const char *out = "/in/tree/mm/a.c:3:1: warning: shadowed x\n"
			  "mm/b.c:9: error: bad thing\n"
			  "{\"message\":\"json still works\"}\n";

	(void)state;
	assert_int_equal(rb_external_parse(&fs, "ext", out, 1), 0);
	assert_int_equal(fs.n, 3);
	assert_string_equal(fs.v[0].file, "mm/a.c");
	assert_int_equal(fs.v[0].line, 3);
	assert_string_equal(fs.v[0].message, "shadowed x");
	assert_int_equal(fs.v[0].severity, RB_FSEV_LOW);
	assert_int_equal(fs.v[1].severity, RB_FSEV_MEDIUM);
	assert_string_equal(fs.v[2].message, "json still works");
	rb_findings_release(&fs);
}

/* A kernel-doc warning at @line of a.c, the line number in its text. */
static void add_kdoc(struct rb_findings *fs, int line)
{
	char code[64];

	snprintf(code, sizeof(code), "warning: x at line %d", line);
	rb_findings_add(fs, &(struct rb_finding_spec){ .checker = "kernel-doc",
						       .checker_version = "1",
						       .category = "kernel-doc",
						       .severity = RB_FSEV_LOW,
						       .file = "a.c",
						       .line = line,
						       .code = code,
						       .message = "m" });
}

/* The delta: each base finding hides one, digits aside. */
static void test_in_base(void **state)
{
	struct rb_findings base = { 0 }, now = { 0 };
	bool used[2] = { false, false };

	(void)state;
	add_kdoc(&base, 10);
	add_kdoc(&now, 12);
	add_kdoc(&now, 14);
	assert_true(rb_check_in_base(&base, used, &now.v[0]));
	assert_false(rb_check_in_base(&base, used, &now.v[1]));
	rb_findings_release(&base);
	rb_findings_release(&now);
}

static const char maintainers[] =
	"MEMORY MANAGEMENT\n"
	"M:\tAndrew Morton <akpm@linux-foundation.org>\n"
	"R:\tRita Reviewer <rita@example.org>\n"
	"L:\tlinux-mm@kvack.org\n"
	"S:\tMaintained\n"
	"F:\tmm/\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"S:\tBuried alive in reporters\n"
	"F:\t*\n"
	"F:\t*/\n";

static const char patch_mail[] =
	"From: Ada Lovelace <ada@example.org>\n"
	"To: linux-mm@kvack.org\n"
	"Cc: RITA@example.org\n"
	"Subject: [PATCH] mm: a comment\n"
	"Message-Id: <1@example.org>\n"
	"\n"
	"A comment.\n"
	"\n"
	"Signed-off-by: Ada Lovelace <ada@example.org>\n"
	"---\n"
	" mm/mmzone.c | 1 +\n"
	"\n"
	"diff --git a/mm/mmzone.c b/mm/mmzone.c\n"
	"--- a/mm/mmzone.c\n"
	"+++ b/mm/mmzone.c\n"
	"@@ -1,1 +1,2 @@\n"
	"+/* x */\n"
	" int x;\n";

static void test_cc_maintainers(void **state)
{
	struct rb_findings fs = { 0 };
	struct rb_maint *mt = NULL;
	struct rb_message *m = NULL;

	(void)state;
	assert_int_equal(rb_maint_load_mem(&mt, maintainers,
					   sizeof(maintainers) - 1, NULL, 0),
			 0);
	assert_int_equal(rb_message_parse(&m, patch_mail,
					  sizeof(patch_mail) - 1, NULL),
			 0);
	assert_int_equal(rb_maint_check_patch(&fs, mt, m, patch_mail,
					      sizeof(patch_mail) - 1, 1, true,
					      NULL),
			 0);
	/* akpm only: the list is there, the reviewer (in another case)
	 * too, and THE REST's list is never asked for. */
	assert_int_equal(fs.n, 1);
	assert_string_equal(fs.v[0].category, "cc-maintainers");
	assert_non_null(strstr(fs.v[0].message,
			       "Andrew Morton <akpm@linux-foundation.org> "
			       "(maintainer:MEMORY MANAGEMENT)"));
	assert_null(strstr(fs.v[0].message, "rita"));
	assert_null(strstr(fs.v[0].message, "vger"));
	assert_null(strstr(fs.v[0].message, "torvalds"));
	assert_int_equal(fs.v[0].patch_index, 1);
	rb_findings_release(&fs);
	rb_message_free(m);
	rb_maint_free(mt);
}

static void test_rules(void **state)
{
	(void)state;
	assert_true(rb_rule_applies("sparse", "sparse-warning"));
	assert_true(rb_rule_applies("cc-maintainers", "cc-maintainers"));
	assert_false(rb_rule_applies("build", "build-bisect"));
	/* The shipped defaults (bench/RESULTS-precision-tree.md). */
	assert_true(rb_rule_default_on("kernel-doc", "kernel-doc"));
	assert_false(rb_rule_default_on("cc-maintainers", "cc-maintainers"));
	assert_false(rb_rule_default_on("sparse", "sparse-warning"));
	assert_true(rb_rule_default_on("build", "build-bisect"));
	assert_true(rb_rule_name_valid("kernel-doc"));
	assert_true(rb_rule_name_valid("coccinelle:*"));
	assert_true(rb_rule_name_valid("sparse:sparse-warning"));
	assert_false(rb_rule_name_valid("sparse:nope"));
	assert_non_null(rb_checker_find("cc-maintainers"));
	assert_non_null(rb_checker_find("kernel-doc"));
	assert_int_equal(rb_n_checkers, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_parse),
		cmocka_unit_test(test_kdoc_parse),
		cmocka_unit_test(test_cocci_parse),
		cmocka_unit_test(test_external_lines),
		cmocka_unit_test(test_in_base),
		cmocka_unit_test(test_cc_maintainers),
		cmocka_unit_test(test_rules),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
