// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_diff.c - the unified-diff parser: git extended headers, renames and
 * copies, modes, index ids, binary patches, "\ No newline", blank context
 * lines from damaged mail, quoted names, traditional diffs, new-side line
 * numbers, and errors that name the patch line.
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

#include "review/apply/diff.h"
#include "util/err.h"
#include "util/banned.h"

static struct rb_diff *parse_ok(const char *text)
{
	struct rb_diff *d = NULL;
	int ret = rb_diff_parse(&d, text, strlen(text));

	if (ret)
		fail_msg("parse failed: %s", rb_errmsg());
	return d;
}

static void parse_bad(const char *text, const char *needle)
{
	struct rb_diff *d = NULL;

	if (rb_diff_parse(&d, text, strlen(text)) != -RB_EPARSE) {
		rb_diff_free(d);
		fail_msg("parsed: %s", text);
	}
	assert_null(d);
	if (!strstr(rb_errmsg(), needle))
		fail_msg("error '%s' lacks '%s'", rb_errmsg(), needle);
}

static void test_mail_body(void **state)
{
	static const char *mail = "mm: fix the thing\n"
				  "\n"
				  "Signed-off-by: A <a@example.org>\n"
				  "---\n"
				  " mm/x.c | 3 ++-\n"
				  " 1 file changed\n"
				  "\n"
				  "diff --git a/mm/x.c b/mm/x.c\n"
				  "index 0123abc..4567def 100644\n"
				  "--- a/mm/x.c\n"
				  "+++ b/mm/x.c\n"
				  "@@ -10,4 +10,5 @@ static int f(void)\n"
				  " \tint a;\n"
				  "-\tint b;\n"
				  "+\tlong b;\n"
				  "+\tlong c;\n"
				  " \n"
				  " \treturn 0;\n"
				  "@@ -40 +41 @@\n"
				  "-x\n"
				  "+y\n"
				  "-- \n"
				  "2.39.5\n";
	struct rb_diff *d = parse_ok(mail);
	const struct rb_diff_file *f;
	const struct rb_diff_hunk *h;
	const struct rb_diff_line *l;

	(void)state;
	assert_int_equal(d->n_files, 1);
	f = &d->files[0];
	assert_string_equal(f->old_path, "mm/x.c");
	assert_string_equal(f->new_path, "mm/x.c");
	assert_int_equal(f->status, RB_DIFF_MODIFIED);
	assert_string_equal(f->old_id, "0123abc");
	assert_string_equal(f->new_id, "4567def");
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->new_mode, 0);
	assert_true(f->is_git);
	assert_int_equal(f->n_hunks, 2);
	assert_int_equal(f->added, 3);
	assert_int_equal(f->removed, 2);
	h = &f->hunks[0];
	assert_int_equal(h->old_start, 10);
	assert_int_equal(h->old_count, 4);
	assert_int_equal(h->new_start, 10);
	assert_int_equal(h->new_count, 5);
	assert_int_equal(h->section_len, strlen("static int f(void)"));
	assert_int_equal(h->leading, 1);
	assert_int_equal(h->trailing, 2);
	assert_int_equal(h->n_lines, 6);
	assert_int_equal(h->patch_lineno, 12);
	/* "+\tlong c;" is new-side line 12 */
	l = rb_diff_new_line(f, 12);
	assert_non_null(l);
	assert_int_equal(l->origin, '+');
	assert_int_equal(l->len, 8);
	assert_memory_equal(l->text, "\tlong c;", 8);
	assert_int_equal(l->patch_lineno, 16);
	l = rb_diff_new_line(f, 14);
	assert_non_null(l);
	assert_int_equal(l->origin, ' ');
	assert_int_equal(l->old_lineno, 13);
	assert_null(rb_diff_new_line(f, 20));
	/* one-line ranges without counts */
	h = &f->hunks[1];
	assert_int_equal(h->old_start, 40);
	assert_int_equal(h->old_count, 1);
	assert_int_equal(h->new_count, 1);
	assert_ptr_equal(rb_diff_find_file(d, "mm/x.c"), f);
	assert_null(rb_diff_find_file(d, "mm/y.c"));
	rb_diff_free(d);
}

static int count_lines(const struct rb_diff_hunk *h, size_t hunk_no,
		       const struct rb_diff_line *l, void *payload)
{
	size_t *n = payload;

	(void)h;
	(void)l;
	n[hunk_no - 1]++;
	return 0;
}

static void test_headers(void **state)
{
	static const char *text =
		"diff --git a/old name.c b/new name.c\n"
		"similarity index 87%\n"
		"rename from old name.c\n"
		"rename to new name.c\n"
		"index 1111111..2222222\n"
		"--- a/old name.c\t\n"
		"+++ b/new name.c\t\n"
		"@@ -1,2 +1,2 @@\n"
		"-a\n"
		"+b\n"
		" c\n"
		"diff --git a/src.c b/copy.c\n"
		"similarity index 100%\n"
		"copy from src.c\n"
		"copy to copy.c\n"
		"diff --git a/gone b/gone\n"
		"deleted file mode 100755\n"
		"index 3333333..0000000\n"
		"--- a/gone\n"
		"+++ /dev/null\n"
		"@@ -1 +0,0 @@\n"
		"-bye\n"
		"diff --git a/new b/new\n"
		"new file mode 100644\n"
		"index 0000000..e69de29\n"
		"diff --git a/tool b/tool\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git \"a/tab\\there\" \"b/tab\\there\"\n"
		"new file mode 100644\n"
		"--- /dev/null\n"
		"+++ \"b/tab\\there\"\n"
		"@@ -0,0 +1 @@\n"
		"+x\n";
	struct rb_diff *d = parse_ok(text);
	size_t counts[2] = { 0 };

	(void)state;
	assert_int_equal(d->n_files, 6);
	assert_int_equal(d->files[0].status, RB_DIFF_RENAMED);
	assert_string_equal(d->files[0].old_path, "old name.c");
	assert_string_equal(d->files[0].new_path, "new name.c");
	assert_int_equal(d->files[0].similarity, 87);
	assert_int_equal(d->files[1].status, RB_DIFF_COPIED);
	assert_string_equal(d->files[1].old_path, "src.c");
	assert_string_equal(d->files[1].new_path, "copy.c");
	assert_int_equal(d->files[1].n_hunks, 0);
	assert_int_equal(d->files[2].status, RB_DIFF_DELETED);
	assert_null(d->files[2].new_path);
	assert_string_equal(d->files[2].old_path, "gone");
	assert_int_equal(d->files[2].old_mode, 0100755);
	assert_string_equal(rb_diff_file_path(&d->files[2]), "gone");
	assert_int_equal(d->files[3].status, RB_DIFF_ADDED);
	assert_null(d->files[3].old_path);
	assert_string_equal(d->files[3].new_path, "new");
	assert_int_equal(d->files[3].new_mode, 0100644);
	assert_int_equal(d->files[4].status, RB_DIFF_MODIFIED);
	assert_int_equal(d->files[4].old_mode, 0100644);
	assert_int_equal(d->files[4].new_mode, 0100755);
	assert_string_equal(d->files[5].new_path, "tab\there");
	assert_int_equal(
		rb_diff_foreach_line(&d->files[0], count_lines, counts), 0);
	assert_int_equal(counts[0], 3);
	rb_diff_free(d);
}

static void test_no_newline(void **state)
{
	static const char *text = "--- a/f\n"
				  "+++ b/f\n"
				  "@@ -1,3 +1,3 @@\n"
				  " a\n"
				  "\n"
				  "-b\n"
				  "\\ No newline at end of file\n"
				  "+b\n"
				  "\\ Kein Zeilenumbruch am Dateiende.\n";
	struct rb_diff *d = parse_ok(text);
	const struct rb_diff_hunk *h = &d->files[0].hunks[0];

	(void)state;
	assert_int_equal(d->files[0].status, RB_DIFF_MODIFIED);
	assert_false(d->files[0].is_git);
	assert_int_equal(h->n_lines, 4);
	assert_int_equal(h->lines[1].origin, ' ');
	assert_int_equal(h->lines[1].len, 0);
	assert_int_equal(h->lines[1].new_lineno, 2);
	assert_true(h->lines[2].no_newline);
	assert_true(h->lines[3].no_newline);
	assert_false(h->lines[0].no_newline);
	rb_diff_free(d);
}

static void test_binary(void **state)
{
	static const char *text =
		"diff --git a/bin b/bin\n"
		"index c2000e7f432c502e785f1d0928304a1a4ee332bd.."
		"13145ff2e38bc79ddb6eb684ac60cb45350eaf08 100644\n"
		"GIT binary patch\n"
		"literal 5\n"
		"McmZ={aB^k@00Nf)$N&HU\n"
		"\n"
		"literal 3\n"
		"KcmZ={Z~_1U2mpit\n"
		"\n"
		"diff --git a/img.png b/img.png\n"
		"index 1234567..89abcde 100644\n"
		"Binary files a/img.png and b/img.png differ\n";
	struct rb_diff *d = parse_ok(text);
	const struct rb_diff_file *f = &d->files[0];

	(void)state;
	assert_int_equal(d->n_files, 2);
	assert_true(f->is_binary);
	assert_int_equal(f->bin_forward.type, RB_DIFF_BIN_LITERAL);
	assert_int_equal(f->bin_forward.inflated_size, 5);
	assert_int_equal(f->bin_forward.len, 13);
	assert_int_equal(f->bin_forward.data[0], 0x78); /* zlib header */
	assert_int_equal(f->bin_reverse.type, RB_DIFF_BIN_LITERAL);
	assert_int_equal(f->bin_reverse.inflated_size, 3);
	assert_int_equal(f->bin_reverse.len, 11);
	assert_string_equal(f->new_id,
			    "13145ff2e38bc79ddb6eb684ac60cb45350eaf08");
	assert_true(d->files[1].is_binary);
	assert_int_equal(d->files[1].bin_forward.type, RB_DIFF_BIN_NONE);
	rb_diff_free(d);

	parse_bad("diff --git a/b b/b\nGIT binary patch\nliteral 5\n"
		  "Mcm!!!\n\n",
		  "corrupt binary patch");
}

static void test_errors(void **state)
{
	(void)state;
	parse_bad("just some prose\nno diff here\n", "no diff found");
	parse_bad("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n",
		  "patch line 7: corrupt patch at line 7: hunk at line 3 is "
		  "truncated");
	parse_bad("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n+c\n+d\n",
		  "patch line 6: corrupt patch at line 6: more lines than");
	parse_bad("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n b\n",
		  "neither adds nor removes");
	parse_bad("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\nxb\n",
		  "patch line 5: corrupt patch at line 5: hunk at line 3 ends");
	parse_bad("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -x +1 @@\n",
		  "patch line 4: corrupt patch at line 4: bad hunk header");
	parse_bad("diff --git a/f b/f\n--- a/f\n+++ b/f\n"
		  "@@ -99999999999 +1 @@\n-a\n+b\n",
		  "bad hunk header");
	parse_bad("diff --git a/f b/f\nold mode 1z\n", "bad file mode");
	/*
	 * Issue 18: header counts that cannot match their body. git apply
	 * says "corrupt patch at line 14" for the mail; the mail's patch
	 * text already ends before that header, so the section has its
	 * "---"/"+++" lines and no hunk.
	 */
	parse_bad("diff --git a/f b/f\nindex 1111111..2222222 100644\n"
		  "--- a/f\n+++ b/f\n"
		  "@@ -4294967295,4294967295 +18446744073709551615,2147483648 "
		  "@@\n+d\n",
		  "corrupt patch at line 5: bad hunk header");
	parse_bad("diff --git a/f b/f\nindex 1111111..2222222 100644\n"
		  "--- a/f\n+++ b/f\n",
		  "patch line 5: corrupt patch at line 5");
	parse_bad("diff --git a/f b/f\nindex 1111111..2222222 100644\n",
		  "patch with only garbage at line 3");
	parse_bad("--- a/f\n+++ b/f\n@@ -1,4294967295 +1,2 @@\n+d\n",
		  "corrupt patch at line 3: bad hunk header");
	parse_bad("diff --git a/x b/y z\nindex 1..2\n",
		  "lacks file name information");
	parse_bad("--- a/f\n+++ \"b/unterminated\n@@ -1 +1 @@\n-a\n+b\n",
		  "badly quoted");
	parse_bad("--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n",
		  "lacks a leading component");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mail_body),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_no_newline),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_errors),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
