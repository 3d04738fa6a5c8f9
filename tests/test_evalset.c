// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_evalset.c - the evaluation set of "reviewbot eval": the Fixes:
 * value parser, the set built from tests/data/eval/archive.mbox (the
 * latest version before the fix, the series around it, the lines and the
 * function the fix changed, each exclusion with its reason), the JSON
 * round trip, the scoring rule (hit on a line, hit in a function,
 * misses on another file, another function and the commit message), and
 * a hand-labelled set (tests/data/eval/labelled.json: a mail file,
 * categories that a hit must match, a clean pair).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mail/fixes.h"
#include "review/diff.h"
#include "review/evalset.h"
#include "review/findings.h"
#include "util/banned.h"

static void fixes_case(const char *v, const char *sha, const char *subject)
{
	struct rb_fixes f;

	assert_int_equal(rb_fixes_parse(&f, v), 0);
	assert_string_equal(f.sha, sha);
	if (subject)
		assert_string_equal(f.subject, subject);
	else
		assert_null(f.subject);
	rb_fixes_release(&f);
}

static void test_fixes(void **state)
{
	(void)state;
	fixes_case("54a4f0239f2e (\"KVM: MMU: make it so\")", "54a4f0239f2e",
		   "KVM: MMU: make it so");
	fixes_case("commit 54a4f0239f2e (\"x: y\")", "54a4f0239f2e", "x: y");
	fixes_case("\"x: no id\"", "", "x: no id");
	fixes_case("abcdef12 (Revert \"a (b)\")", "abcdef12",
		   "Revert \"a (b)\"");
	fixes_case("abcdef12 (\"Revert \"a (b)\"\")", "abcdef12",
		   "Revert \"a (b)\"");
	fixes_case("abcdef12 (\"folded\n   subject\")", "abcdef12",
		   "folded subject");
	fixes_case("abcdef123456", "abcdef123456", NULL);
	fixes_case("deadbeefcafe (\"", "deadbeefcafe", NULL);
	fixes_case("", "", NULL);
	fixes_case("the bug in foo()", "", NULL);
}

static char *data_path(const char *rel)
{
	const char *src = getenv("RB_SRC");
	char *p = malloc(4096);

	assert_non_null(p);
	snprintf(p, 4096, "%s/%s", src ? src : "..", rel);
	return p;
}

static const char *reason_of(const struct rb_eval_set *s, const char *subj)
{
	size_t i;

	for (i = 0; i < s->n_excluded; i++)
		if (!strcmp(s->excluded[i].fix_subject, subj))
			return s->excluded[i].reason;
	return NULL;
}

static void check_pair(const struct rb_eval_set *s)
{
	const struct rb_eval_pair *p;

	assert_int_equal(s->n_pairs, 1);
	p = &s->pairs[0];
	/* v2, the latest before the fix; v1 had no error check at all. */
	assert_string_equal(p->buggy_msgid, "foo-v2-1@example.org");
	assert_int_equal(p->buggy_version, 2);
	assert_string_equal(p->fix_msgid, "fix@example.org");
	assert_string_equal(p->cover_title, "foo: a getter");
	assert_int_equal(p->n_subjects, 2);
	assert_int_equal(p->index, 1);
	assert_string_equal(p->subjects[1], "foo: use foo_get in bar");
	assert_non_null(strstr(p->patch, "+int foo_get(struct foo *f);"));
	/* What the review stage gives beside the patch. */
	assert_non_null(strstr(p->cover_body, "A getter, and its first user."));
	assert_non_null(strstr(p->changelog, "v2: check errors"));
	assert_non_null(p->series_patches);
	assert_non_null(strstr(p->series_patches[0], "\n---\ndiff --git"));
	assert_non_null(strstr(p->series_patches[1], "+\treturn foo_get(f);"));
	assert_int_equal(p->n_changed, 1);
	assert_string_equal(p->changed[0].file, "drivers/foo.c");
	/* The removed "if", and the lines around the inserted kfree(). */
	assert_int_equal(p->changed[0].n_lines, 3);
	assert_int_equal(p->changed[0].lines[0], 19);
	assert_int_equal(p->changed[0].lines[1], 20);
	assert_int_equal(p->changed[0].lines[2], 21);
	assert_int_equal(p->changed[0].n_functions, 1);
	assert_string_equal(p->changed[0].functions[0], "foo_get");
}

static void test_build(void **state)
{
	char *path = data_path("tests/data/eval/archive.mbox");
	char tmp[] = "/tmp/rb-evalset-XXXXXX";
	struct rb_eval_set s, back;
	int fd;

	(void)state;
	assert_int_equal(rb_eval_build(&s, path), 0);
	assert_int_equal(s.messages, 9);
	assert_int_equal(s.patch_mails, 8);
	assert_int_equal(s.fixes_named, 4);
	check_pair(&s);
	assert_int_equal(s.n_excluded, 3);
	assert_string_equal(reason_of(&s, "[PATCH 6.1 01/10] foo: free the "
					  "buffer when foo_read() fails"),
			    "the fix is a stable backport");
	assert_string_equal(reason_of(&s,
				      "[PATCH] foo: document foo_get harder"),
			    "no patch mail with that subject before the fix");
	assert_string_equal(reason_of(&s, "[PATCH] foo: document foo_get"),
			    "the fix touches no file of the buggy patch");

	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rb_eval_set_save(&s, tmp), 0);
	assert_int_equal(rb_eval_set_load(&back, tmp), 0);
	check_pair(&back);
	unlink(tmp);
	rb_eval_set_release(&back);
	rb_eval_set_release(&s);
	free(path);
}

static bool hit(const struct rb_eval_pair *p, const struct rb_diff *d,
		const char *file, int line, char *how)
{
	struct rb_finding f = { 0 };

	f.file = (char *)file;
	f.line = line;
	return rb_eval_hit(p, d, &f, how, 64);
}

static void test_hit(void **state)
{
	char *path = data_path("tests/data/eval/archive.mbox");
	struct rb_eval_set s;
	struct rb_diff *d;
	char how[64], fn[64];
	const struct rb_eval_pair *p;

	(void)state;
	assert_int_equal(rb_eval_build(&s, path), 0);
	p = &s.pairs[0];
	assert_int_equal(rb_diff_parse(&d, p->patch, strlen(p->patch)), 0);
	assert_string_equal(rb_eval_function_at(d, "drivers/foo.c", 15, fn,
						sizeof(fn)),
			    "foo_get");
	assert_string_equal(rb_eval_function_at(d, "drivers/foo.c", 25, fn,
						sizeof(fn)),
			    "foo_exit");
	/* On the line the fix changed, and 3 lines off. */
	assert_true(hit(p, d, "drivers/foo.c", 19, how));
	assert_string_equal(how, "line 19");
	assert_true(hit(p, d, "b/drivers/foo.c", 24, how));
	/* Farther, but in the function the fix changed. */
	assert_true(hit(p, d, "drivers/foo.c", 15, how));
	assert_string_equal(how, "function foo_get");
	/* Another function, another file, the commit message. */
	assert_false(hit(p, d, "drivers/foo.c", 25, how));
	assert_false(hit(p, d, "include/foo.h", 3, how));
	assert_false(hit(p, d, NULL, 3, how));
	rb_diff_free(d);
	rb_eval_set_release(&s);
	free(path);
}

static bool hit_cat(const struct rb_eval_pair *p, const struct rb_diff *d,
		    const char *file, int line, const char *cat)
{
	struct rb_finding f = { 0 };
	char how[64];

	f.file = (char *)file;
	f.line = line;
	f.category = (char *)cat;
	return rb_eval_hit(p, d, &f, how, sizeof(how));
}

/* A labelled set by hand: a mail file, categories, a clean pair. */
static void test_labelled(void **state)
{
	char *path = data_path("tests/data/eval/labelled.json");
	struct rb_eval_set s;
	struct rb_diff *d;
	const struct rb_eval_pair *p;

	(void)state;
	assert_int_equal(rb_eval_set_load(&s, path), 0);
	assert_int_equal(s.n_pairs, 2);
	p = &s.pairs[0];
	assert_string_equal(
		p->buggy_subject,
		"[PATCH 1/2] mm/foo: cache the table in foo_setup()");
	assert_int_equal(p->n_subjects, 1);
	assert_string_equal(p->subjects[0],
			    "mm/foo: cache the table in foo_setup()");
	assert_non_null(strstr(p->commit_msg, "Keep a copy of the table"));
	assert_int_equal(p->n_subsystems, 1);
	assert_string_equal(p->subsystems[0], "MEMORY MANAGEMENT");
	assert_int_equal(rb_diff_parse(&d, p->patch, strlen(p->patch)), 0);
	/* The right place but the wrong category is a miss. */
	assert_true(hit_cat(p, d, "mm/foo.c", 55, "leak"));
	assert_false(hit_cat(p, d, "mm/foo.c", 55, "locking"));
	/* The clean pair: nothing can hit. */
	assert_int_equal(s.pairs[1].n_changed, 0);
	assert_false(hit_cat(&s.pairs[1], d, "mm/foo.c", 55, "leak"));
	rb_diff_free(d);
	rb_eval_set_release(&s);
	free(path);
}

/*
 * A buggy patch that names one path twice (found by fuzz_evalset): the
 * lines could belong to either copy, so none are kept for that path.
 */
static void test_twice(void **state)
{
	static const char fix[] = "diff --git a/drivers/bar.c b/drivers/bar.c\n"
				  "--- a/drivers/bar.c\n"
				  "+++ b/drivers/bar.c\n"
				  "@@ -5,3 +5,3 @@\n"
				  " {\n"
				  "-\tfoo_table(x);\n"
				  "+\tfoo_table(y);\n"
				  " }\n";
	static const char bug[] = "diff --git a/drivers/foo.c b/drivers/foo.c\n"
				  "copy from drivers/old.c\n"
				  "copy to drivers/foo.c\n"
				  "diff --git a/drivers/bar.c b/drivers/foo.c\n"
				  "--- a/drivers/bar.c\n"
				  "+++ b/drivers/foo.c\n"
				  "@@ -5,3 +5,3 @@\n"
				  " {\n"
				  "-\tfoo_table(w);\n"
				  "+\tfoo_table(x);\n"
				  " }\n";
	struct rb_diff *fd, *bd;
	struct rb_eval_pair p = { 0 };
	bool touched;

	(void)state;
	assert_int_equal(rb_diff_parse(&fd, fix, strlen(fix)), 0);
	assert_int_equal(rb_diff_parse(&bd, bug, strlen(bug)), 0);
	assert_int_equal(rb_eval_locate(&p, fd, bd, &touched), 0);
	assert_true(touched);
	assert_int_equal(p.n_changed, 0);
	rb_eval_pair_release(&p);
	rb_diff_free(fd);
	rb_diff_free(bd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixes), cmocka_unit_test(test_build),
		cmocka_unit_test(test_hit),   cmocka_unit_test(test_labelled),
		cmocka_unit_test(test_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
