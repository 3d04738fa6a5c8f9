// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_findings.c - one finding for one problem (rb_findings_postprocess),
 * the rule table and its switches (review/checks/rules.h), and the checkpatch
 * filter on a small base tree made here with libgit2. The findings are
 * the real ones of bench/labels/findings.tsv, cut down.
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

#include "review/checks/checkpatch_filter.h"
#include "review/findings.h"
#include "review/checks/rules.h"
#include "review/checks/sandbox.h"
#include "tests/testlib.h"
#include "util/banned.h"

static void add(struct rb_findings *fs, const char *checker, const char *cat,
		const char *file, int line, const char *code, const char *msg,
		int patch)
{
	assert_int_equal(rb_findings_add(fs,
					 &(struct rb_finding_spec){
						 .checker = checker,
						 .checker_version = "1",
						 .category = cat,
						 .severity = RB_FSEV_LOW,
						 .file = file,
						 .line = line,
						 .code = code,
						 .message = msg,
						 .patch_index = patch }),
			 0);
}

/* Every rule on: the test is about merging, not the defaults. */
static void post_all(struct rb_findings *fs)
{
	struct rb_findings_post o = RB_FINDINGS_POST_INIT;

	o.all_rules = true;
	assert_int_equal(rb_findings_postprocess(fs, &o), 0);
}

/* "No Signed-off-by" from both checkers is one finding, commit-msg's. */
static void test_dedup_checkers(void **state)
{
	struct rb_findings fs = { 0 };

	(void)state;
	add(&fs, "commit-msg", "signed-off-by", NULL, 0, NULL,
	    "There is no Signed-off-by: line.", 1);
	add(&fs, "checkpatch", "MISSING_SIGN_OFF", NULL, 0, NULL,
	    "Missing Signed-off-by: line(s)", 1);
	/* Another patch's checkpatch report stays: nothing said it there. */
	add(&fs, "checkpatch", "MISSING_SIGN_OFF", NULL, 0, NULL,
	    "Missing Signed-off-by: line(s)", 2);
	/* Spaces for tabs: checkpatch says it twice, once is enough. */
	add(&fs, "checkpatch", "LEADING_SPACE", "t.c", 28, "+        int x;$",
	    "please, no spaces at the start of a line", 2);
	add(&fs, "checkpatch", "CODE_INDENT", "t.c", 28, "+        int x;$",
	    "code indent should use tabs where possible", 2);
	post_all(&fs);
	assert_int_equal(fs.n, 3);
	assert_string_equal(fs.v[0].checker, "commit-msg");
	assert_string_equal(fs.v[1].category, "MISSING_SIGN_OFF");
	assert_int_equal(fs.v[1].patch_index, 2);
	assert_string_equal(fs.v[2].category, "CODE_INDENT");
	rb_findings_release(&fs);
}

/* checkpatch says SPACING once per '|'; and the same on the next lines. */
static void test_collapse_lines(void **state)
{
	static const char *const code[] = {
		"+#define __PAGE_KERNEL_RO\t (__PP|   0|   0|___A|__NX|   0)",
		"+#define __PAGE_KERNEL_ROX\t (__PP|   0|   0|___A|   0|   0)",
		"+#define __PAGE_KERNEL_VVAR\t (__PP|   0|_USR|___A|__NX|   0)",
	};
	const char *msg = "need consistent spacing around '|' (ctx:VxW)";
	struct rb_findings fs = { 0 };
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 195,
		    code[0], msg, 1);
	for (i = 0; i < 5; i++)
		add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 196,
		    code[1], msg, 1);
	add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 198, code[2], msg,
	    1);
	/* Further down the same file: the same complaint still. */
	add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 400, "+\tx = a|b;",
	    msg, 1);
	/* Another file, another patch: their own findings. */
	add(&fs, "checkpatch", "SPACING", "cpufeatures.h", 12, "+(16*32+ 7)",
	    "need consistent spacing around '+' (ctx:VxW)", 1);
	add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 196, code[1], msg,
	    2);
	post_all(&fs);
	assert_int_equal(fs.n, 3);
	assert_int_equal(fs.v[0].line, 195);
	assert_string_equal(fs.v[0].message,
			    "need consistent spacing around '|' (ctx:VxW) (and "
			    "3 more like it: lines 196, 198 and 400).");
	assert_string_equal(fs.v[1].file, "cpufeatures.h");
	assert_null(strstr(fs.v[1].message, "more like it"));
	assert_int_equal(fs.v[2].patch_index, 2);
	rb_findings_release(&fs);
}

/* A build warning is its message: two warnings are two findings. */
static void test_collapse_other_checkers(void **state)
{
	struct rb_findings fs = { 0 };

	(void)state;
	add(&fs, "build", "build-warning", "mm/frob.c", 10, "int a;",
	    "unused variable 'a'", 1);
	add(&fs, "build", "build-warning", "mm/frob.c", 11, "int b;",
	    "unused variable 'b'", 1);
	add(&fs, "build", "build-warning", "mm/frob.c", 40, "x = y;",
	    "'y' may be used uninitialized", 1);
	add(&fs, "build", "build-warning", "mm/frob.c", 42, "z = y;",
	    "'y' may be used uninitialized", 1);
	add(&fs, "build", "build-warning", "mm/frob.c", 90, "w = y;",
	    "'y' may be used uninitialized", 1);
	post_all(&fs);
	assert_int_equal(fs.n, 4);
	/* Not a sentence: the note goes in parentheses (issue 34). */
	assert_string_equal(fs.v[2].message, "'y' may be used uninitialized "
					     "(and 1 more like it: line 42).");
	assert_int_equal(fs.v[3].line, 90);
	rb_findings_release(&fs);
}

/* The same quoted code elsewhere in the file is the same complaint. */
static void test_collapse_repeated_code(void **state)
{
	struct rb_findings fs = { 0 };

	(void)state;
	add(&fs, "checkpatch", "PREFER_SEQ_PUTS", "kernel/api/debugfs.c", 56,
	    "+\tseq_printf(m, \"\\n\");", "Prefer seq_puts to seq_printf", 1);
	add(&fs, "checkpatch", "PREFER_SEQ_PUTS", "kernel/api/debugfs.c", 71,
	    "+\tseq_printf(m, \"\\n\");", "Prefer seq_puts to seq_printf", 1);
	add(&fs, "checkpatch", "PREFER_SEQ_PUTS", "kernel/api/debugfs.c", 180,
	    "+\t\tseq_printf(m, \"\\n\");", "Prefer seq_puts to seq_printf", 1);
	post_all(&fs);
	assert_int_equal(fs.n, 1);
	assert_non_null(strstr(fs.v[0].message, "2 more like it: lines 71 "
						"and 180)."));
	rb_findings_release(&fs);
}

/* A title nit once per series; not again when v1 had the same title. */
static void test_series_nits(void **state)
{
	const char *t = "x86/mm: Update ptep_set_wrprotect() and "
			"pmdp_set_wrprotect() for transition from _PAGE_DIRTY";
	struct rb_findings_post o = RB_FINDINGS_POST_INIT;
	struct rb_findings fs = { 0 }, v2 = { 0 };
	const char *seen[1];

	(void)state;
	add(&fs, "commit-msg", "subject-prefix", NULL, 0, "Lock down kcore",
	    "The title has no subsystem prefix.", 3);
	add(&fs, "commit-msg", "subject-prefix", NULL, 0, "Lock down perf",
	    "The title has no subsystem prefix.", 5);
	add(&fs, "commit-msg", "subject-length", NULL, 0, t,
	    "The title is 95 characters long.", 4);
	add(&fs, "commit-msg", "subject-prefix", NULL, 0,
	    "Lock down TIOCSSERIAL", "The title has no subsystem prefix.", 9);
	post_all(&fs);
	assert_int_equal(fs.n, 2);
	assert_int_equal(fs.v[0].patch_index, 3);
	assert_string_equal(fs.v[0].message,
			    "The title has no subsystem prefix. And 2 more "
			    "like it: patches 5 and 9.");
	assert_string_equal(fs.v[1].category, "subject-length");

	/* v2: the long title is unchanged, a new one has no prefix. */
	seen[0] = fs.v[1].fingerprint;
	add(&v2, "commit-msg", "subject-length", NULL, 0, t,
	    "The title is 95 characters long.", 4);
	add(&v2, "commit-msg", "subject-prefix", NULL, 0, "Lock down bpf",
	    "The title has no subsystem prefix.", 6);
	o.all_rules = true;
	o.seen = seen;
	o.n_seen = 1;
	assert_int_equal(rb_findings_postprocess(&v2, &o), 0);
	assert_int_equal(v2.n, 1);
	assert_string_equal(v2.v[0].code, "Lock down bpf");
	rb_findings_release(&v2);
	rb_findings_release(&fs);
}

/* The shipped default is quiet; a subsystem turns rules on and off. */
static void test_rules(void **state)
{
	static const struct rb_rule_switch sw[] = {
		{ "subject-length", true },
		{ "checkpatch:*", true },
		{ "checkpatch:LONG_LINE", false },
	};
	struct rb_rules mm = { sw, 3 };
	struct rb_findings fs = { 0 };
	struct rb_findings_post o = RB_FINDINGS_POST_INIT;

	(void)state;
	assert_false(rb_rule_default_on("commit-msg", "subject-length"));
	assert_false(rb_rule_default_on("commit-msg", "series-size"));
	assert_false(rb_rule_default_on("checkpatch", "SPACING"));
	/* Never measured: off. */
	assert_false(rb_rule_default_on("checkpatch", "NO_SUCH_TYPE"));
	assert_true(rb_rule_default_on("commit-msg", "stable-cc"));
	/* Not rules: always on. */
	assert_true(rb_rule_default_on("build", "build-warning"));
	assert_true(rb_rule_default_on("model", "use-after-free"));
	assert_true(rb_rule_default_on("checkpatch", "checker-problem"));

	assert_true(rb_rule_enabled(&mm, "commit-msg", "subject-length"));
	assert_true(rb_rule_enabled(&mm, "checkpatch", "SPACING"));
	assert_false(rb_rule_enabled(&mm, "checkpatch", "LONG_LINE"));
	assert_false(rb_rule_enabled(&mm, "commit-msg", "subject-prefix"));

	assert_true(rb_rule_name_valid("subject-length"));
	assert_true(rb_rule_name_valid("checkpatch:SPACING"));
	assert_true(rb_rule_name_valid("SPACING"));
	assert_true(rb_rule_name_valid("commit-msg:*"));
	assert_false(rb_rule_name_valid("subject-lenght"));
	assert_false(rb_rule_name_valid("build:*"));
	assert_false(rb_rule_name_valid(""));

	add(&fs, "commit-msg", "subject-length", NULL, 0, "a long title",
	    "The title is 80 characters long.", 1);
	add(&fs, "commit-msg", "subject-prefix", NULL, 0, "a long title",
	    "The title has no subsystem prefix.", 1);
	add(&fs, "build", "build-warning", "mm/frob.c", 3, "unused variable",
	    "unused variable 'x'", 1);
	o.rules = &mm;
	assert_int_equal(rb_findings_postprocess(&fs, &o), 0);
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.v[0].category, "subject-length");
	assert_string_equal(fs.v[1].checker, "build");
	rb_findings_release(&fs);

	/* The default keeps neither title nit. */
	add(&fs, "commit-msg", "subject-length", NULL, 0, "a long title",
	    "The title is 80 characters long.", 1);
	assert_int_equal(rb_findings_postprocess(&fs, NULL), 0);
	assert_int_equal(fs.n, 0);
	rb_findings_release(&fs);
}

static void test_line_shape(void **state)
{
	char a[128], b[128];
	const char *x = "#define X86_FEATURE_SHSTK\t\t(16*32+ 7) /* Shadow */";
	const char *y = "#define X86_FEATURE_OSPKE\t\t(16*32+ 4) /* OS PKE */";
	const char *z = "#define X86_FEATURE_OSPKE\t\t(16*32+4)";

	(void)state;
	rb_checkpatch_line_shape(a, sizeof(a), x, strlen(x));
	rb_checkpatch_line_shape(b, sizeof(b), y, strlen(y));
	assert_string_equal(a, "#V V (V*V+ V)");
	assert_string_equal(a, b);
	rb_checkpatch_line_shape(b, sizeof(b), z, strlen(z));
	assert_string_not_equal(a, b);
	rb_checkpatch_line_shape(a, sizeof(a), "\tcase X: d = \"a;b\"; break;",
				 26);
	assert_string_equal(a, "\tV V: V = S; V;");
}

static char repo_dir[64];

/* A one-commit tree holding @path (no history, as the 6.1 import). */
static void make_tree(git_repository **out, git_oid *commit, const char *path,
		      const char *text)
{
	git_repository *repo;
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid blob, tid;

	rb_test_bare_repo_new(out, repo_dir, sizeof(repo_dir),
			      "/tmp/rb-test-findings-XXXXXX");
	repo = *out;
	assert_int_equal(git_blob_create_from_buffer(&blob, repo, text,
						     strlen(text)),
			 0);
	assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
	assert_int_equal(git_treebuilder_insert(NULL, tb, path, &blob,
						GIT_FILEMODE_BLOB),
			 0);
	assert_int_equal(git_treebuilder_write(&tid, tb), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &tid), 0);
	assert_int_equal(git_signature_new(&sig, "T", "t@example.org",
					   1600000000, 0),
			 0);
	assert_int_equal(git_commit_create(commit, repo, "HEAD", sig, sig, NULL,
					   "import\n", tree, 0, NULL),
			 0);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(tb);
}

/*
 * The examples: SPACING in the flag table of pgtable_types.h,
 * "Unknown commit id" from a tree without history. A complaint on a
 * line unlike the file's own stays, and so does a real one.
 */
static void test_checkpatch_filter(void **state)
{
	const char *base =
		"#define _PAGE_TABLE_NOENC\t (__PP|__RW|_USR|___A|   0|___D)\n"
		"#define _PAGE_TABLE\t\t (__PP|__RW|_USR|___A|   0|___D| _ENC)\n"
		"#define __PAGE_KERNEL_RO\t (__PP|   0|   0|___A|__NX|___D)\n"
		"\n"
		"static int frob(int a, int b)\n"
		"{\n"
		"\treturn a + b;\n"
		"}\n";
	const char *vxw = "need consistent spacing around '|' (ctx:VxW)";
	git_repository *repo = NULL;
	struct rb_findings fs = { 0 };
	git_oid c;
	size_t dropped = 9;

	(void)state;
	make_tree(&repo, &c, "pgtable_types.h", base);
	add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 3,
	    "+#define __PAGE_KERNEL_RO\t (__PP|   0|   0|___A|__NX|   0)", vxw,
	    1);
	add(&fs, "checkpatch", "UNKNOWN_COMMIT_ID", NULL, 0,
	    "Fixes: 26b1d3b527e7 (\"drm/atomic: Take the atomic toys away\")",
	    "Unknown commit id '26b1d3b527e7', maybe rebased or not pulled?",
	    1);
	/* The file writes "a + b": "a+b" is not its style. */
	add(&fs, "checkpatch", "SPACING", "pgtable_types.h", 7,
	    "+\treturn a +b;", "need consistent spacing around '+' (ctx:WxV)",
	    1);
	/* Not a style type: stays even on a line like the file's. */
	add(&fs, "checkpatch", "AVOID_BUG", "pgtable_types.h", 7, "+\tBUG();",
	    "Do not crash the kernel", 1);
	/* A new file: nothing to compare with. */
	add(&fs, "checkpatch", "SPACING", "new.h", 1, "+#define A (B|   0)",
	    vxw, 1);
	/* Another checker's finding is not touched. */
	add(&fs, "commit-msg", "fixes-unknown", NULL, 0, "Fixes: 26b1d3b527e7",
	    "Fixes: names 26b1d3b527e7", 1);
	assert_int_equal(rb_checkpatch_filter(&fs, repo, &c, &dropped), 0);
	assert_int_equal(dropped, 2);
	assert_int_equal(fs.n, 4);
	assert_int_equal(fs.v[0].line, 7);
	assert_string_equal(fs.v[0].category, "SPACING");
	assert_string_equal(fs.v[1].category, "AVOID_BUG");
	assert_string_equal(fs.v[2].file, "new.h");
	assert_string_equal(fs.v[3].checker, "commit-msg");
	rb_findings_release(&fs);
	rb_test_repo_free(repo, repo_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedup_checkers),
		cmocka_unit_test(test_collapse_lines),
		cmocka_unit_test(test_collapse_other_checkers),
		cmocka_unit_test(test_collapse_repeated_code),
		cmocka_unit_test(test_series_nits),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_line_shape),
		cmocka_unit_test(test_checkpatch_filter),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
