// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_evalset.c - the evaluation set of "reviewbot eval": the Fixes:
 * value parser, the set built from tests/data/eval/archive.mbox (the
 * latest version before the fix, the series around it, the lines and the
 * function the fix changed, each exclusion with its reason), the JSON
 * round trip, the scoring rule (hit on a line, hit in a function,
 * misses on another file, another function and the commit message), and
 * a hand-labelled set (tests/data/eval/labelled.json: a mail file,
 * categories that a hit must match, a clean pair), its hand labels and
 * the strict scorer; and the cases of --inject (review/eval/eval_inject.h) on
 * a small git tree: a diff reversed, the fix of archive.mbox reversed
 * onto a tree that has it (the case), the fix applied on that (the
 * control, which gives the tree back), the buggy patch applied forward
 * on a tree without it, and the context recall of a case.
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
#include "review/apply/apply.h"
#include "review/apply/diff.h"
#include "review/eval/eval_inject.h"
#include "review/eval/eval_recall.h"
#include "review/eval/evalset.h"
#include "review/findings.h"
#include "review/model/model.h"
#include "review/model/model_provider.h"
#include "tests/testlib.h"
#include "util/buf.h"
#include "util/err.h"
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

/*
 * A buggy patch whose hunk claims to start at line 0 (found by
 * fuzz_evalset): its lines have no number a finding could name, so none
 * of them is a line the fix changed.
 */
static void test_line_zero(void **state)
{
	static const char fix[] = "diff --git a/m.c b/m.c\n"
				  "--- a/m.c\n"
				  "+++ b/m.c\n"
				  "@@ -20,3 +20,3 @@\n"
				  " {\n"
				  "-\tif (len > sizeof(buf))\n"
				  "+\tlen = min(len, b->size);\n"
				  " }\n";
	static const char bug[] = "diff --git a/m.c b/m.c\n"
				  "--- a/m.c\n"
				  "+++ b/m.c\n"
				  "@@ -1,2 +0,2 @@\n"
				  " \tif (len > sizeof(buf))\n"
				  "-\tx();\n"
				  "+\ty();\n";
	struct rb_diff *fd, *bd;
	struct rb_eval_pair p = { 0 };
	bool touched;
	size_t i, k;

	(void)state;
	assert_int_equal(rb_diff_parse(&fd, fix, strlen(fix)), 0);
	assert_int_equal(rb_diff_parse(&bd, bug, strlen(bug)), 0);
	assert_int_equal(rb_eval_locate(&p, fd, bd, &touched), 0);
	for (i = 0; i < p.n_changed; i++)
		for (k = 0; k < p.changed[i].n_lines; k++)
			assert_true(p.changed[i].lines[k] > 0);
	rb_eval_pair_release(&p);
	rb_diff_free(fd);
	rb_diff_free(bd);
}

/* ---- hand labels and the strict scorer ---- */

static bool strict(const struct rb_eval_pair *p, const struct rb_eval_label *l,
		   const char *file, int line, const char *cat,
		   const char *code, const char *fn)
{
	struct rb_finding f = { 0 };
	char how[64];

	f.file = (char *)file;
	f.line = line;
	f.category = (char *)cat;
	f.code = (char *)code;
	return rb_eval_hit_strict(p->changed, p->n_changed, l, &f, fn, how,
				  sizeof(how));
}

static void test_strict(void **state)
{
	char *path = data_path("tests/data/eval/labelled.json");
	char *arch = data_path("tests/data/eval/archive.mbox");
	struct rb_eval_labels labels;
	struct rb_eval_set s;
	const struct rb_eval_label *l;
	const struct rb_eval_pair *p;

	(void)state;
	assert_int_equal(rb_eval_labels_load(&labels, path), 0);
	assert_true(labels.n >= 1);
	assert_int_equal(rb_eval_build(&s, arch), 0);
	p = &s.pairs[0];
	l = rb_eval_label_of(&labels, p);
	assert_non_null(l);
	assert_int_equal(l->mm, 0);
	assert_false(rb_eval_pair_is_mm(p, l));
	assert_false(rb_eval_pair_is_mm(p, NULL));
	/* Near a line the fix changed, with a category that fits. */
	assert_true(strict(p, l, "drivers/foo.c", 19, "leak", NULL, NULL));
	assert_true(strict(p, l, "b/drivers/foo.c", 24, "resource-leak", NULL,
			   NULL));
	/* The right place, a category that does not fit the leak. */
	assert_false(strict(p, l, "drivers/foo.c", 19, "locking", NULL, NULL));
	/* In the function but 4 lines off: the loose rule's hit, not this. */
	assert_false(strict(p, l, "drivers/foo.c", 15, "leak", NULL, NULL));
	/* ... unless the label accepts it: by the code it quotes. */
	assert_true(strict(p, l, "drivers/foo.c", 15, "leak",
			   "char *buf = kmalloc(FOO_SIZE, GFP_KERNEL);",
			   "foo_get"));
	assert_false(strict(p, l, "drivers/foo.c", 15, "logic",
			    "char *buf = kmalloc(FOO_SIZE, GFP_KERNEL);",
			    "foo_get"));
	/* Another file, the commit message. */
	assert_false(strict(p, l, "include/foo.h", 3, "leak", NULL, NULL));
	assert_false(strict(p, l, "COMMIT_MSG", 1, "leak", NULL, NULL));
	/* With no label, any category fits. */
	assert_true(
		strict(p, NULL, "drivers/foo.c", 19, "locking", NULL, NULL));
	rb_eval_set_release(&s);
	rb_eval_labels_release(&labels);
	free(path);
	free(arch);
}

/* ---- --inject on a small tree ---- */

static const char fixed_foo[] = "/* foo driver */\n"
				"#include <linux/slab.h>\n"
				"#include \"foo.h\"\n"
				"\n"
				"#define FOO_SIZE 64\n"
				"\n"
				"static int foo_init(void)\n"
				"{\n"
				"\tfoo_setup();\n"
				"\treturn 0;\n"
				"}\n"
				"\n"
				"int foo_get(struct foo *f)\n"
				"{\n"
				"\tchar *buf = kmalloc(FOO_SIZE, GFP_KERNEL);\n"
				"\n"
				"\tif (!buf)\n"
				"\t\treturn -ENOMEM;\n"
				"\tif (foo_read(f, buf) < 0) {\n"
				"\t\tkfree(buf);\n"
				"\t\treturn -EIO;\n"
				"\t}\n"
				"\tkfree(buf);\n"
				"\treturn 0;\n"
				"}\n"
				"\n"
				"static void foo_exit(void)\n"
				"{\n"
				"\tfoo_cleanup();\n"
				"}\n"
				"\n"
				"int foo_user(struct foo *f)\n"
				"{\n"
				"\treturn foo_get(f);\n"
				"}\n";

/* Before foo_get: what the buggy patch of archive.mbox applies to. */
static const char base_foo[] = "/* foo driver */\n"
			       "#include <linux/slab.h>\n"
			       "#include \"foo.h\"\n"
			       "\n"
			       "#define FOO_SIZE 64\n"
			       "\n"
			       "int foo_x;\n"
			       "\n"
			       "static int foo_init(void)\n"
			       "{\n"
			       "\treturn 0;\n"
			       "}\n"
			       "\n"
			       "static void foo_exit(void)\n"
			       "{\n"
			       "\tfoo_cleanup();\n"
			       "}\n";

static const char fixed_h[] = "struct foo;\n"
			      "int foo_init(void);\n"
			      "int foo_get(struct foo *f);\n"
			      "void foo_exit(void);\n";
static const char base_h[] = "struct foo;\n"
			     "int foo_init(void);\n"
			     "void foo_exit(void);\n";

struct itree {
	char dir[256];
	git_repository *repo;
	struct rb_eval_tree fixed, base;
	struct rb_eval_set set;
};

static void itree_new(struct itree *t)
{
	const struct rb_test_file fixed[] = {
		{ .path = "drivers/foo.c", .content = fixed_foo },
		{ .path = "include/foo.h", .content = fixed_h },
	};
	const struct rb_test_file base[] = {
		{ .path = "drivers/foo.c", .content = base_foo },
		{ .path = "include/foo.h", .content = base_h },
	};
	char *arch = data_path("tests/data/eval/archive.mbox");

	memset(t, 0, sizeof(*t));
	rb_test_repo_new(&t->repo, t->dir, sizeof(t->dir),
			 "/tmp/rb-test-inject.XXXXXX");
	rb_test_commit(&t->fixed.commit, t->repo, NULL, fixed, 2, 1000, NULL);
	rb_test_commit(&t->base.commit, t->repo, NULL, base, 2, 1000, NULL);
	t->fixed.name = "fixed";
	t->fixed.repo = t->repo;
	t->base.name = "base";
	t->base.repo = t->repo;
	assert_int_equal(rb_eval_build(&t->set, arch), 0);
	assert_int_equal(t->set.n_pairs, 1);
	free(arch);
}

static void itree_free(struct itree *t)
{
	rb_eval_set_release(&t->set);
	rb_test_repo_free(t->repo, t->dir);
}

/* The tree of commit @c of @repo. */
static void tree_of(git_oid *out, git_repository *repo, const git_oid *c)
{
	git_commit *co;

	assert_int_equal(git_commit_lookup(&co, repo, c), 0);
	git_oid_cpy(out, git_commit_tree_id(co));
	git_commit_free(co);
}

/* The case, then its control, applied on @t: the trees they give. */
static struct rb_apply_result *apply_both(const struct rb_eval_tree *t,
					  const struct rb_eval_case *c)
{
	struct rb_apply_opts o = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch ap[2] = { 0 };
	struct rb_apply_result *r = NULL;

	ap[0].patch = c->patch;
	ap[0].len = strlen(c->patch);
	ap[1].patch = c->control;
	ap[1].len = strlen(c->control);
	assert_int_equal(rb_apply_series(&r, t->repo, &t->commit, ap, 2, &o),
			 0);
	assert_true(r->ok);
	return r;
}

static void test_reverse(void **state)
{
	static const char d[] = "diff --git a/a.c b/a.c\n"
				"index 1111111..2222222 100644\n"
				"--- a/a.c\n"
				"+++ b/a.c\n"
				"@@ -1,3 +1,4 @@ int f(void)\n"
				" one\n"
				"-two\n"
				"+TWO\n"
				"+2b\n"
				" three\n"
				"diff --git a/new.c b/new.c\n"
				"new file mode 100644\n"
				"--- /dev/null\n"
				"+++ b/new.c\n"
				"@@ -0,0 +1 @@\n"
				"+x\n"
				"\\ No newline at end of file\n"
				"diff --git a/old.c b/old.c\n"
				"deleted file mode 100644\n"
				"--- a/old.c\n"
				"+++ /dev/null\n"
				"@@ -1 +0,0 @@\n"
				"-y\n";
	static const char quoted[] = "diff --git \"a/x y.c\" \"b/x y.c\"\n"
				     "--- \"a/x y.c\"\n"
				     "+++ \"b/x y.c\"\n"
				     "@@ -1 +1 @@\n"
				     "-a\n"
				     "+b\n";
	static const char ctl[] = "diff --git a/c.c b/c.c\n"
				  "--- a/c.c\n"
				  "+++ b/c.c\n"
				  "@@ -1 +1 @@ int g(\r\0\0x\n"
				  "-a\n"
				  "+b\n";
	static const char bin[] = "diff --git a/b.bin b/b.bin\n"
				  "index 1111111..2222222 100644\n"
				  "Binary files a/b.bin and b/b.bin differ\n";
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf back = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_diff *p, *r, *rr;
	const struct rb_diff_hunk *h;

	(void)state;
	assert_int_equal(rb_diff_parse(&p, d, strlen(d)), 0);
	assert_int_equal(rb_eval_diff_reverse(&out, p), 0);
	assert_int_equal(rb_diff_parse(&r, out.ptr, out.len), 0);
	assert_int_equal(r->n_files, 3);
	h = &r->files[0].hunks[0];
	assert_int_equal(h->old_count, 4);
	assert_int_equal(h->new_count, 3);
	assert_int_equal(h->added, 1);
	assert_int_equal(h->removed, 2);
	assert_string_equal(r->files[0].old_id, "2222222");
	assert_int_equal(r->files[1].status, RB_DIFF_DELETED);
	assert_true(r->files[1].hunks[0].lines[0].no_newline);
	assert_int_equal(r->files[2].status, RB_DIFF_ADDED);
	/* Reversed twice: the diff again, so its reverse is the same text. */
	assert_int_equal(rb_eval_diff_reverse(&back, r), 0);
	assert_int_equal(rb_diff_parse(&rr, back.ptr, back.len), 0);
	rb_buf_reset(&out);
	assert_int_equal(rb_eval_diff_reverse(&out, rr), 0);
	rb_buf_reset(&back);
	assert_int_equal(rb_eval_diff_reverse(&back, p), 0);
	assert_string_equal(out.ptr, back.ptr);
	rb_diff_free(p);
	rb_diff_free(r);
	rb_diff_free(rr);
	/* What has no text reverse is refused. */
	assert_int_equal(rb_diff_parse(&p, bin, strlen(bin)), 0);
	assert_int_equal(rb_eval_diff_reverse(&out, p), -RB_EINVAL);
	rb_diff_free(p);
	/* A path that would need quoting (found by fuzz_evalset). */
	assert_int_equal(rb_diff_parse(&p, quoted, strlen(quoted)), 0);
	assert_int_equal(rb_eval_diff_reverse(&out, p), -RB_EINVAL);
	rb_diff_free(p);
	/* A section is a label: cut at a control byte, so it reads back. */
	rb_buf_reset(&out);
	assert_int_equal(rb_diff_parse(&p, ctl, sizeof(ctl) - 1), 0);
	assert_int_equal(rb_eval_diff_reverse(&out, p), 0);
	assert_non_null(strstr(out.ptr, "@@ -1,1 +1,1 @@ int g(\n-b\n+a\n"));
	rb_diff_free(p);
	rb_buf_release(&out);
	rb_buf_release(&back);
}

static void test_inject(void **state)
{
	struct itree t;
	struct rb_eval_case c;
	struct rb_apply_result *r;
	char why[320];
	git_oid tree;

	(void)state;
	itree_new(&t);
	assert_int_equal(rb_eval_case_make(&c, &t.set.pairs[0],
					   RB_EVAL_INJECTED, &t.fixed, why,
					   sizeof(why)),
			 0);
	assert_int_equal(c.kind, RB_EVAL_INJECTED);
	assert_string_equal(c.tree, "fixed");
	assert_int_equal(c.fuzz, -1);
	/* The fix reversed, as git diff says it, at the tree's lines. */
	assert_non_null(strstr(c.patch, "@@ -16,10 +16,8 @@ int foo_get("));
	assert_non_null(strstr(c.patch, "-\tif (foo_read(f, buf) < 0) {\n"
					"-\t\tkfree(buf);\n"
					"+\tif (foo_read(f, buf) < 0)\n"));
	assert_non_null(strstr(c.control, "+\t\tkfree(buf);\n"));
	/* Framed by the buggy patch's message; the control by the fix's. */
	assert_non_null(strstr(c.commit_msg, "Add a getter"));
	assert_non_null(strstr(c.control_msg, "returns without freeing"));
	/* The fix's lines in the buggy code: the "if" it rewrote, and the
	 * lines around the "}" it inserted. */
	assert_int_equal(c.n_changed, 1);
	assert_string_equal(c.changed[0].file, "drivers/foo.c");
	assert_int_equal(c.changed[0].n_lines, 3);
	assert_int_equal(c.changed[0].lines[0], 19);
	assert_int_equal(c.changed[0].lines[1], 20);
	assert_int_equal(c.changed[0].lines[2], 21);
	assert_int_equal(c.changed[0].n_functions, 1);
	assert_string_equal(c.changed[0].functions[0], "foo_get");
	/* The case and its control give the tree back. */
	r = apply_both(&t.fixed, &c);
	tree_of(&tree, t.repo, &t.fixed.commit);
	assert_true(git_oid_equal(&r->tree, &tree));
	assert_false(git_oid_equal(&r->patches[0].tree, &tree));
	rb_apply_result_free(r);
	rb_eval_case_release(&c);
	/* The base has no foo_get: nothing to reverse there. */
	assert_int_equal(rb_eval_case_make(&c, &t.set.pairs[0],
					   RB_EVAL_INJECTED, &t.base, why,
					   sizeof(why)),
			 -RB_ENOTFOUND);
	assert_non_null(strstr(why, "drivers/foo.c of base lacks the fix's "
				    "line"));
	itree_free(&t);
}

static void test_forward(void **state)
{
	struct itree t;
	struct rb_eval_case c;
	struct rb_apply_result *r;
	char why[320];

	(void)state;
	itree_new(&t);
	assert_int_equal(rb_eval_case_make(&c, &t.set.pairs[0], RB_EVAL_FORWARD,
					   &t.base, why, sizeof(why)),
			 0);
	assert_int_equal(c.kind, RB_EVAL_FORWARD);
	assert_non_null(strstr(c.patch, "+int foo_get(struct foo *f)\n"));
	assert_non_null(strstr(c.patch, "+int foo_get(struct foo *f);\n"));
	assert_non_null(strstr(c.control, "+\t\tkfree(buf);\n"));
	/* In the buggy code, foo_get() starts at line 14. */
	assert_int_equal(c.n_changed, 1);
	assert_int_equal(c.changed[0].n_lines, 3);
	assert_int_equal(c.changed[0].lines[0], 20);
	assert_string_equal(c.changed[0].functions[0], "foo_get");
	r = apply_both(&t.base, &c);
	rb_apply_result_free(r);
	rb_eval_case_release(&c);
	/* The tree that has the fix cannot take the buggy patch. */
	assert_int_equal(rb_eval_case_make(&c, &t.set.pairs[0], RB_EVAL_FORWARD,
					   &t.fixed, why, sizeof(why)),
			 -RB_ENOTFOUND);
	assert_non_null(strstr(why, "the buggy patch does not apply on fixed"));
	itree_free(&t);
}

static void test_func_span(void **state)
{
	char name[64];
	int s, e;

	(void)state;
	assert_true(rb_eval_func_span(fixed_foo, strlen(fixed_foo), 19, name,
				      sizeof(name), &s, &e));
	assert_string_equal(name, "foo_get");
	assert_int_equal(s, 13);
	assert_int_equal(e, 25);
	/* The closing brace is the function's; the blank after is not. */
	assert_true(rb_eval_func_span(fixed_foo, strlen(fixed_foo), 25, name,
				      sizeof(name), &s, &e));
	assert_false(rb_eval_func_span(fixed_foo, strlen(fixed_foo), 26, name,
				       sizeof(name), &s, &e));
	assert_false(rb_eval_func_span(fixed_foo, strlen(fixed_foo), 5, name,
				       sizeof(name), &s, &e));
	assert_false(rb_eval_func_span(fixed_foo, strlen(fixed_foo), 99, name,
				       sizeof(name), &s, &e));
}

/* Context recall of the injected case, as the review would see it. */
static void test_recall(void **state)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct rb_model_patch_ctx ctx = { 0 };
	struct rb_eval_recall rc;
	struct rb_apply_result *r;
	struct rb_model *m = NULL;
	struct itree t;
	struct rb_eval_case c;
	const char *subject = "foo: add foo_get";
	char why[320];
	git_oid base;

	(void)state;
	itree_new(&t);
	assert_int_equal(rb_eval_case_make(&c, &t.set.pairs[0],
					   RB_EVAL_INJECTED, &t.fixed, why,
					   sizeof(why)),
			 0);
	r = apply_both(&t.fixed, &c);
	tree_of(&base, t.repo, &t.fixed.commit);
	/* The options a review has: a model that is never called. */
	o.provider = "replay";
	o.replay_dir = "/nonexistent";
	assert_int_equal(rb_model_new(&m, &o), 0);
	ctx.subjects = &subject;
	ctx.n_subjects = 1;
	ctx.index = 1;
	ctx.commit_msg = c.commit_msg;
	ctx.patch = c.patch;
	ctx.patch_len = strlen(c.patch);
	ctx.repo = r->repo;
	ctx.tree = &r->patches[0].tree;
	ctx.tip_tree = &r->patches[0].tree;
	ctx.base_tree = &base;
	assert_int_equal(rb_eval_context_recall(&rc, rb_model_get_opts(m), &ctx,
						c.changed, c.n_changed),
			 0);
	/* The lines: "if (...)", "return -EIO;" and "kfree(buf);". */
	assert_int_equal(rc.lines, 3);
	assert_int_equal(rc.lines_in_prompt, 3);
	assert_int_equal(rc.functions, 1);
	assert_int_equal(rc.functions_whole, 1);
	assert_int_equal(rc.func_lines, rc.func_lines_in_prompt);
	assert_false(rc.clipped);
	/* find_definition shows foo_get whole; find_callers finds foo_user. */
	assert_int_equal(rc.tool_lines_of, 3);
	assert_int_equal(rc.tool_lines, 3);
	assert_true(rc.callers >= 1);
	assert_int_equal(rc.calls, 2);
	assert_int_equal(rc.refused, 0);
	rb_model_free(m);
	rb_apply_result_free(r);
	rb_eval_case_release(&c);
	itree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixes),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_hit),
		cmocka_unit_test(test_labelled),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_reverse),
		cmocka_unit_test(test_inject),
		cmocka_unit_test(test_forward),
		cmocka_unit_test(test_func_span),
		cmocka_unit_test(test_recall),
		cmocka_unit_test(test_line_zero),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
