// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_apply.c - in-memory apply and base selection on small real git
 * repositories built with libgit2 in a temporary directory: offset apply,
 * fuzz refusal and -C, the 3-way fallback, new/deleted/renamed files,
 * no newline at EOF, path safety, limits, the budgets (bytes of blobs,
 * work, lines of a file), setuid, commit chains, a
 * base-commit no tree holds, a guessed base, and a series that fails on
 * every base with a report per base.
 */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "review/apply/apply.h"
#include "review/apply/base.h"
#include "review/apply/patchid.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "tests/testlib.h"
#include "util/banned.h"

struct fx {
	char dir[64];
	git_repository *repo;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	rb_test_repo_new(&f->repo, f->dir, sizeof(f->dir),
			 "/tmp/rb-test-apply.XXXXXX");
	rb_log_set_quiet(1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	rb_test_repo_free(f->repo, f->dir);
	free(f);
	return 0;
}

static void set_ref(git_repository *repo, const char *name, const git_oid *oid)
{
	git_reference *ref = NULL;

	assert_int_equal(git_reference_create(&ref, repo, name, oid, 1, "test"),
			 0);
	git_reference_free(ref);
}

/* The content of @path in the final tree of @r, malloc'd. */
/* Whether @repo's own object database (on disk) holds @oid. */
static bool odb_has(git_repository *repo, const git_oid *oid)
{
	git_repository *fresh = NULL;
	git_odb *odb = NULL;
	bool ok;

	assert_int_equal(git_repository_open(&fresh, git_repository_path(repo)),
			 0);
	assert_int_equal(git_repository_odb(&odb, fresh), 0);
	ok = git_odb_exists(odb, oid);
	git_odb_free(odb);
	git_repository_free(fresh);
	return ok;
}

static char *tree_file(git_repository *repo, const git_oid *tree_oid,
		       const char *path, unsigned *mode)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *s = NULL;

	assert_int_equal(git_tree_lookup(&tree, repo, tree_oid), 0);
	if (git_tree_entry_bypath(&e, tree, path) == 0) {
		if (mode)
			*mode = git_tree_entry_filemode(e);
		assert_int_equal(
			git_blob_lookup(&blob, repo, git_tree_entry_id(e)), 0);
		s = strndup(git_blob_rawcontent(blob),
			    (size_t)git_blob_rawsize(blob));
	}
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return s;
}

/* "line 1\n" ... "line n\n", with @extra lines "pre k\n" before them. */
static char *numbered(int n, int extra)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int i;

	for (i = 1; i <= extra; i++)
		rb_buf_printf(&b, "pre %d\n", i);
	for (i = 1; i <= n; i++)
		rb_buf_printf(&b, "line %d\n", i);
	return rb_buf_detach(&b, NULL);
}

static void blob_hex(char out[GIT_OID_HEXSZ + 1], const char *content)
{
	git_oid oid;

	assert_int_equal(git_odb_hash(&oid, content, strlen(content),
				      GIT_OBJECT_BLOB),
			 0);
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, &oid);
}

/* A patch of f.c changing "line 10" to "LINE TEN", made on numbered(20). */
static const char *patch10 = "diff --git a/f.c b/f.c\n"
			     "index %.7s..1234567 100644\n"
			     "--- a/f.c\n"
			     "+++ b/f.c\n"
			     "@@ -7,7 +7,7 @@ func\n"
			     " line 7\n"
			     " line 8\n"
			     " line 9\n"
			     "-line 10\n"
			     "+LINE TEN\n"
			     " line 11\n"
			     " line 12\n"
			     " line 13\n";

static char *make_patch10(void)
{
	char hex[GIT_OID_HEXSZ + 1];
	char *v1 = numbered(20, 0);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

	blob_hex(hex, v1);
	free(v1);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	rb_buf_printf(&b, patch10, hex);
#pragma GCC diagnostic pop
	return rb_buf_detach(&b, NULL);
}

static struct rb_apply_result *apply1(git_repository *repo, const git_oid *base,
				      const char *patch,
				      const struct rb_apply_opts *opts)
{
	struct rb_apply_result *r = NULL;
	struct rb_apply_patch p = { 0 };

	p.patch = patch;
	p.len = strlen(patch);
	p.author_name = "A U Thor";
	p.author_email = "author@example.org";
	p.date = 1700000000;
	p.message = "subject\n\nbody\n";
	assert_int_equal(rb_apply_series(&r, repo, base, &p, 1, opts), 0);
	assert_non_null(r);
	return r;
}

static void test_offset(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 5), *patch = make_patch10(), *got;
	struct rb_test_file files[] = { { "f.c", v, 0 } };
	struct rb_apply_result *r;
	git_oid base;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	r = apply1(f->repo, &base, patch, NULL);
	assert_true(r->ok);
	assert_int_equal(r->patches[0].n_files, 1);
	assert_int_equal(r->patches[0].files[0].n_hunks, 1);
	assert_int_equal(r->patches[0].files[0].hunks[0].offset, 5);
	assert_int_equal(r->patches[0].files[0].hunks[0].line, 12);
	got = tree_file(r->repo, &r->tree, "f.c", NULL);
	assert_non_null(strstr(got, "pre 5\nline 1\n"));
	assert_non_null(strstr(got, "line 9\nLINE TEN\nline 11\n"));
	assert_null(strstr(got, "line 10\n"));
	free(got);
	rb_apply_result_free(r);
	free(v);
	free(patch);
}

static void test_fuzz(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 0), *patch = make_patch10(), *p;
	struct rb_test_file files[] = { { "f.c", v, 0 } };
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r;
	git_oid base;

	/* The first context line differs: git apply refuses, -C2 accepts. */
	p = strstr(v, "line 7\n");
	memcpy(p, "LiNe 7", 6);
	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	opts.three_way = false;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_HUNK);
	assert_int_equal(r->failed_patch, 1);
	assert_int_equal(r->failed_hunk, 1);
	assert_string_equal(r->failed_file, "f.c");
	assert_string_equal(
		r->reason, "hunk #1 of f.c does not match at line 7 or nearby");
	assert_int_equal(r->n_applied, 0);
	rb_apply_result_free(r);

	opts.fuzz = 2;
	r = apply1(f->repo, &base, patch, &opts);
	assert_true(r->ok);
	assert_true(r->fuzzed);
	assert_true(r->patches[0].files[0].hunks[0].context_dropped > 0);
	rb_apply_result_free(r);

	/* -C3 keeps all three lines of context: still refused. */
	opts.fuzz = 3;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	rb_apply_result_free(r);
	free(v);
	free(patch);
}

static void test_three_way(void **state)
{
	struct fx *f = *state;
	char *v1 = numbered(20, 0), *v2 = numbered(20, 0);
	char *patch = make_patch10(), *got, *p;
	struct rb_test_file f1[] = { { "f.c", v1, 0 } },
			    f2[] = { { "f.c", v2, 0 } };
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r;
	git_oid a, b;

	/* B changes line 8, inside the hunk's context: no exact match. */
	p = strstr(v2, "line 8\n");
	memcpy(p, "LINE 8", 6);
	rb_test_commit(&a, f->repo, NULL, f1, 1, 1000, NULL);
	rb_test_commit(&b, f->repo, &a, f2, 1, 2000, NULL);

	opts.three_way = false;
	r = apply1(f->repo, &b, patch, &opts);
	assert_false(r->ok);
	rb_apply_result_free(r);

	r = apply1(f->repo, &b, patch, NULL);
	assert_true(r->ok);
	assert_true(r->merged);
	assert_true(r->patches[0].files[0].merged);
	got = tree_file(r->repo, &r->tree, "f.c", NULL);
	assert_non_null(strstr(got, "line 7\nLINE 8\nline 9\nLINE TEN\n"));
	free(got);
	rb_apply_result_free(r);
	free(v1);
	free(v2);
	free(patch);
}

static void test_three_way_conflict(void **state)
{
	struct fx *f = *state;
	char *v1 = numbered(20, 0), *v2 = numbered(20, 0);
	char *patch = make_patch10(), *p;
	struct rb_test_file f1[] = { { "f.c", v1, 0 } },
			    f2[] = { { "f.c", v2, 0 } };
	struct rb_apply_result *r;
	git_oid a, b;

	p = strstr(v2, "line 10\n");
	memcpy(p, "LINE 10", 7);
	rb_test_commit(&a, f->repo, NULL, f1, 1, 1000, NULL);
	rb_test_commit(&b, f->repo, &a, f2, 1, 2000, NULL);
	r = apply1(f->repo, &b, patch, NULL);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_MERGE);
	assert_non_null(strstr(r->reason, "conflicts"));
	rb_apply_result_free(r);
	free(v1);
	free(v2);
	free(patch);
}

static void test_new_delete_rename(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 0), *got;
	struct rb_test_file files[] = {
		{ "dir/old.c", v, 0 },
		{ "gone.txt", "bye\n", 0 },
		{ "keep/x.h", "x\n", 0 },
	};
	const char *patch = "Subject: a commit message first, as in a mail\n"
			    "\n"
			    "---\n"
			    " 3 files changed\n"
			    "\n"
			    "diff --git a/dir/old.c b/dir/new.c\n"
			    "similarity index 90%\n"
			    "rename from dir/old.c\n"
			    "rename to dir/new.c\n"
			    "index 1111111..2222222 100644\n"
			    "--- a/dir/old.c\n"
			    "+++ b/dir/new.c\n"
			    "@@ -1,4 +1,4 @@\n"
			    "-line 1\n"
			    "+LINE 1\n"
			    " line 2\n"
			    " line 3\n"
			    " line 4\n"
			    "diff --git a/gone.txt b/gone.txt\n"
			    "deleted file mode 100644\n"
			    "index 2222222..0000000\n"
			    "--- a/gone.txt\n"
			    "+++ /dev/null\n"
			    "@@ -1 +0,0 @@\n"
			    "-bye\n"
			    "diff --git a/new/deep/file.sh b/new/deep/file.sh\n"
			    "new file mode 100755\n"
			    "index 0000000..3333333\n"
			    "--- /dev/null\n"
			    "+++ b/new/deep/file.sh\n"
			    "@@ -0,0 +1,2 @@\n"
			    "+#!/bin/sh\n"
			    "+echo hi\n"
			    "diff --git a/empty b/empty\n"
			    "new file mode 100644\n"
			    "index 0000000..e69de29\n"
			    "-- \n"
			    "2.39.5\n";
	struct rb_apply_result *r;
	unsigned mode = 0;
	git_oid base;

	rb_test_commit(&base, f->repo, NULL, files, 3, 1000, NULL);
	r = apply1(f->repo, &base, patch, NULL);
	assert_true(r->ok);
	assert_null(tree_file(r->repo, &r->tree, "dir/old.c", NULL));
	assert_null(tree_file(r->repo, &r->tree, "gone.txt", NULL));
	got = tree_file(r->repo, &r->tree, "dir/new.c", NULL);
	assert_non_null(got);
	assert_int_equal(strncmp(got, "LINE 1\nline 2\n", 14), 0);
	free(got);
	got = tree_file(r->repo, &r->tree, "new/deep/file.sh", &mode);
	assert_string_equal(got, "#!/bin/sh\necho hi\n");
	assert_int_equal(mode, 0100755);
	free(got);
	got = tree_file(r->repo, &r->tree, "empty", NULL);
	assert_string_equal(got, "");
	free(got);
	got = tree_file(r->repo, &r->tree, "keep/x.h", NULL);
	assert_string_equal(got, "x\n");
	free(got);
	rb_apply_result_free(r);

	/* Deleting the only file of a directory removes the directory. */
	r = apply1(f->repo, &base,
		   "diff --git a/keep/x.h b/keep/x.h\n"
		   "deleted file mode 100644\n"
		   "--- a/keep/x.h\n"
		   "+++ /dev/null\n"
		   "@@ -1 +0,0 @@\n"
		   "-x\n",
		   NULL);
	assert_true(r->ok);
	{
		git_tree *t = NULL;

		assert_int_equal(git_tree_lookup(&t, r->repo, &r->tree), 0);
		assert_null(git_tree_entry_byname(t, "keep"));
		assert_non_null(git_tree_entry_byname(t, "dir"));
		git_tree_free(t);
	}
	rb_apply_result_free(r);

	/* A new file that exists, a change to a missing one. */
	r = apply1(f->repo, &base,
		   "--- /dev/null\n+++ b/gone.txt\n@@ -0,0 +1 @@\n+x\n", NULL);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_FILE);
	assert_string_equal(r->reason, "gone.txt already exists in the tree");
	rb_apply_result_free(r);
	r = apply1(f->repo, &base,
		   "--- a/nope.c\n+++ b/nope.c\n@@ -1 +1 @@\n-a\n+b\n", NULL);
	assert_false(r->ok);
	assert_string_equal(r->reason, "nope.c does not exist in the tree");
	rb_apply_result_free(r);
	/* A removal patch that leaves content. */
	r = apply1(f->repo, &base,
		   "diff --git a/dir/old.c b/dir/old.c\n"
		   "deleted file mode 100644\n"
		   "--- a/dir/old.c\n+++ /dev/null\n"
		   "@@ -20 +19,0 @@\n-line 20\n",
		   NULL);
	assert_false(r->ok);
	assert_non_null(strstr(r->reason, "removal patch leaves"));
	rb_apply_result_free(r);
	free(v);
}

static void test_no_newline(void **state)
{
	struct fx *f = *state;
	struct rb_test_file files[] = { { "a.txt", "one\ntwo\nthree", 0 } };
	struct rb_apply_result *r;
	git_oid base;
	char *got;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	r = apply1(f->repo, &base,
		   "diff --git a/a.txt b/a.txt\n"
		   "--- a/a.txt\n+++ b/a.txt\n"
		   "@@ -2,2 +2,2 @@\n"
		   " two\n"
		   "-three\n"
		   "\\ No newline at end of file\n"
		   "+three\n",
		   NULL);
	assert_true(r->ok);
	got = tree_file(r->repo, &r->tree, "a.txt", NULL);
	assert_string_equal(got, "one\ntwo\nthree\n");
	free(got);
	rb_apply_result_free(r);

	/* The other way round, and a mismatch: "three\n" is not there. */
	r = apply1(f->repo, &base,
		   "--- a/a.txt\n+++ b/a.txt\n"
		   "@@ -3 +3 @@\n"
		   "-three\n"
		   "+3\n"
		   "\\ No newline at end of file\n",
		   NULL);
	assert_false(r->ok);
	rb_apply_result_free(r);
}

static void test_blank_context(void **state)
{
	struct fx *f = *state;
	struct rb_test_file files[] = { { "b.c", "int a;\n\nint b;\n\nint c;\n",
					  0 } };
	struct rb_apply_result *r;
	git_oid base;
	char *got;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	/* The blank context lines lost their leading space in the mail. */
	r = apply1(f->repo, &base,
		   "--- a/b.c\n+++ b/b.c\n"
		   "@@ -1,5 +1,5 @@\n"
		   " int a;\n"
		   "\n"
		   "-int b;\n"
		   "+long b;\n"
		   "\n"
		   " int c;\n",
		   NULL);
	assert_true(r->ok);
	got = tree_file(r->repo, &r->tree, "b.c", NULL);
	assert_string_equal(got, "int a;\n\nlong b;\n\nint c;\n");
	free(got);
	rb_apply_result_free(r);
}

static void expect_unsafe(git_repository *repo, const git_oid *base,
			  const char *patch, const char *needle)
{
	struct rb_apply_result *r = apply1(repo, base, patch, NULL);

	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_UNSAFE);
	if (!strstr(r->reason, needle))
		fail_msg("reason '%s' lacks '%s'", r->reason, needle);
	rb_apply_result_free(r);
}

static void test_safety(void **state)
{
	struct fx *f = *state;
	struct rb_test_file files[] = {
		{ "link", "target", 0120000 },
		{ "file", "x\n", 0 },
	};
	git_oid base;

	rb_test_commit(&base, f->repo, NULL, files, 2, 1000, NULL);
	expect_unsafe(f->repo, &base,
		      "--- /dev/null\n+++ b/../etc/passwd\n@@ -0,0 +1 @@\n+x\n",
		      "'..' component");
	expect_unsafe(f->repo, &base,
		      "--- /dev/null\n+++ b/.git/config\n@@ -0,0 +1 @@\n+x\n",
		      "'.git' component");
	expect_unsafe(
		f->repo, &base,
		"--- /dev/null\n+++ b/sub/.GIT/hooks\n@@ -0,0 +1 @@\n+x\n",
		"'.GIT' component");
	expect_unsafe(f->repo, &base,
		      "diff --git a/file b/file\nsimilarity index 100%\n"
		      "rename from file\nrename to /tmp/x\n",
		      "absolute");
	expect_unsafe(f->repo, &base,
		      "--- /dev/null\n+++ b/link/x\n@@ -0,0 +1 @@\n+x\n",
		      "beyond the symbolic link 'link'");
	expect_unsafe(f->repo, &base,
		      "--- /dev/null\n+++ b/file/x\n@@ -0,0 +1 @@\n+x\n",
		      "beyond the file 'file'");
	/* A symlink created earlier in the same patch counts too. */
	expect_unsafe(f->repo, &base,
		      "diff --git a/l2 b/l2\nnew file mode 120000\n"
		      "--- /dev/null\n+++ b/l2\n@@ -0,0 +1 @@\n+/etc\n"
		      "\\ No newline at end of file\n"
		      "--- /dev/null\n+++ b/l2/passwd\n@@ -0,0 +1 @@\n+x\n",
		      "beyond the symbolic link 'l2'");
}

static void test_limits_and_setuid(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 0), *patch = make_patch10();
	struct rb_test_file files[] = { { "f.c", v, 0 } };
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r;
	unsigned mode = 0;
	char *got;
	git_oid base;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	opts.max_lines = 1;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_LIMIT);
	assert_non_null(strstr(r->reason, RB_APPLY_TOO_BIG));
	/* Not applied at all (issue 33): no patch is even tried. */
	assert_int_equal(r->n_applied, 0);
	assert_int_equal(r->failed_patch, 0);
	assert_null(r->failed_file);
	rb_apply_result_free(r);

	r = apply1(f->repo, &base,
		   "diff --git a/f.c b/f.c\nold mode 100644\nnew mode 104755\n",
		   NULL);
	assert_true(r->ok);
	assert_true(r->setuid);
	assert_string_equal(r->setuid_path, "f.c");
	got = tree_file(r->repo, &r->tree, "f.c", &mode);
	assert_int_equal(mode, 0100755);
	assert_string_equal(got, v);
	free(got);
	rb_apply_result_free(r);

	/* A corrupt patch is a failure of that patch, with its line. */
	r = apply1(f->repo, &base,
		   "--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n",
		   NULL);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_PARSE);
	assert_non_null(strstr(r->reason, "patch line"));
	rb_apply_result_free(r);
	free(v);
	free(patch);
}

static void test_series_commits(void **state)
{
	struct fx *f = *state;
	struct rb_test_file files[] = { { "s.txt", "a\nb\nc\n", 0 } };
	struct rb_apply_patch p[2];
	struct rb_apply_result *r1 = NULL, *r2 = NULL;
	git_commit *c = NULL;
	git_oid base;
	char *got;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	memset(p, 0, sizeof(p));
	p[0].patch =
		"--- a/s.txt\n+++ b/s.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
	p[1].patch =
		"--- a/s.txt\n+++ b/s.txt\n@@ -1,3 +1,4 @@\n a\n B\n c\n+d\n";
	p[0].len = strlen(p[0].patch);
	p[1].len = strlen(p[1].patch);
	p[0].author_name = "First Author";
	p[0].author_email = "first@example.org";
	p[0].date = 1700000000;
	p[0].tz_offset = 60;
	p[0].message = "s: capitalise b\n";
	p[1].message = "s: add d";
	assert_int_equal(rb_apply_series(&r1, f->repo, &base, p, 2, NULL), 0);
	assert_true(r1->ok);
	assert_int_equal(r1->n_applied, 2);
	got = tree_file(r1->repo, &r1->tree, "s.txt", NULL);
	assert_string_equal(got, "a\nB\nc\nd\n");
	free(got);
	assert_int_equal(git_commit_lookup(&c, r1->repo, &r1->commit), 0);
	assert_true(git_oid_equal(git_commit_parent_id(c, 0),
				  &r1->patches[0].commit));
	assert_string_equal(git_commit_message(c), "s: add d\n");
	git_commit_free(c);
	assert_int_equal(
		git_commit_lookup(&c, r1->repo, &r1->patches[0].commit), 0);
	assert_string_equal(git_commit_author(c)->name, "First Author");
	assert_string_equal(git_commit_committer(c)->name, "reviewbot");
	assert_int_equal(git_commit_committer(c)->when.time, 1700000000);
	assert_int_equal(git_commit_author(c)->when.offset, 60);
	git_commit_free(c);

	/* Reproducible. */
	assert_int_equal(rb_apply_series(&r2, f->repo, &base, p, 2, NULL), 0);
	assert_true(r2->ok);
	assert_true(git_oid_equal(&r1->commit, &r2->commit));
	rb_apply_result_free(r2);

	/* Nothing reached the repository; another view reads the objects. */
	assert_false(odb_has(f->repo, &r1->commit));
	assert_false(odb_has(f->repo, &r1->tree));
	{
		git_repository *view = NULL;
		struct rb_apply_result *gone = r1;

		assert_int_equal(rb_apply_repo_open(&view, r1), 0);
		/* The view holds the store: it outlives the result. */
		assert_int_equal(
			rb_apply_series(&r1, f->repo, &base, p, 2, NULL), 0);
		rb_apply_result_free(gone);
		got = tree_file(view, &r1->tree, "s.txt", NULL);
		assert_string_equal(got, "a\nB\nc\nd\n");
		free(got);
		git_repository_free(view);
	}
	/* "reviewbot apply --write-tree": written only when asked. */
	assert_int_equal(rb_apply_result_write(r1, f->repo), 0);
	assert_true(odb_has(f->repo, &r1->commit));
	assert_true(odb_has(f->repo, &r1->tree));

	/* The second patch alone does not apply: patch 1 of 1 fails. */
	assert_int_equal(rb_apply_series(&r2, f->repo, &base, p + 1, 1, NULL),
			 0);
	assert_false(r2->ok);
	assert_int_equal(r2->failed_patch, 1);
	assert_true(git_oid_equal(&r2->commit, &base));
	rb_apply_result_free(r2);
	rb_apply_result_free(r1);
}

/*
 * rb_patch_id() (review/apply/patchid.h, which resolves b4's
 * prerequisite-patch-id:) against "git patch-id --stable" (git 2.39) on a
 * format-patch mail: a new file, a change with whitespace and without
 * a final newline, a rename with a change.
 */
static void test_patch_id(void **state)
{
	static const char mail[] =
		"From bdf919978346e20ce35f9b952dff9b18f7ffe81c Mon Sep 17 00:00:00 2001\n"
		"From: a <a@b>\n"
		"Date: Fri, 4 Dec 2026 04:32:24 +0000\n"
		"Subject: [PATCH] change\n"
		"\n"
		"---\n"
		" n.c        | 1 +\n"
		" x.c        | 3 ++-\n"
		" y.h => z.h | 1 +\n"
		" 3 files changed, 4 insertions(+), 1 deletion(-)\n"
		" create mode 100644 n.c\n"
		" rename y.h => z.h (50%)\n"
		"\n"
		"diff --git a/n.c b/n.c\n"
		"new file mode 100644\n"
		"index 0000000..3e75765\n"
		"--- /dev/null\n"
		"+++ b/n.c\n"
		"@@ -0,0 +1 @@\n"
		"+new\n"
		"diff --git a/x.c b/x.c\n"
		"index d68dd40..af3395e 100644\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,4 +1,5 @@\n"
		" a\n"
		"-b\n"
		"+B  2\n"
		" c\n"
		" d\n"
		"+e\n"
		"\\ No newline at end of file\n"
		"diff --git a/y.h b/z.h\n"
		"similarity index 50%\n"
		"rename from y.h\n"
		"rename to z.h\n"
		"index 5626abf..814f4a4 100644\n"
		"--- a/y.h\n"
		"+++ b/z.h\n"
		"@@ -1 +1,2 @@\n"
		" one\n"
		"+two\n"
		"-- \n"
		"2.39.5\n"
		"\n";
	char id[RB_PATCH_ID_HEX];

	(void)state;
	assert_int_equal(rb_patch_id(id, mail, strlen(mail)), 0);
	assert_string_equal(id, "6b624718518864e2b2c5bbb8e7f1624d1c98da57");
	/* The same diff with other whitespace and line numbers. */
	{
		char *v = strdup(mail), *at = strstr(v, "@@ -1,4 +1,5 @@");

		assert_non_null(at);
		memcpy(at, "@@ -7,4 +7,5 @@", 15);
		memcpy(strstr(v, "B  2"), "B\t 2", 4);
		assert_int_equal(rb_patch_id(id, v, strlen(v)), 0);
		assert_string_equal(id,
				    "6b624718518864e2b2c5bbb8e7f1624d1c98da57");
		free(v);
	}
	assert_int_equal(rb_patch_id(id, "no diff\n", 8), -RB_EINVAL);
}

/* ---- base selection ---- */

/*
 * Prerequisites go first on every base, and the attempt speaks of the
 * series' own patches only: a series on top of patch10 applies with
 * it, not without it; a prerequisite that does not apply is named.
 */
static void test_base_prereqs(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 0), *pre = make_patch10();
	const char *on_top = "diff --git a/f.c b/f.c\n"
			     "--- a/f.c\n"
			     "+++ b/f.c\n"
			     "@@ -9,3 +9,3 @@\n"
			     " line 9\n"
			     "-LINE TEN\n"
			     "+LINE 10 AGAIN\n"
			     " line 11\n";
	struct rb_test_file files[] = { { "f.c", v, 0 } };
	struct rb_base_tree trees[] = { { "mainline", f->repo, "HEAD" } };
	struct rb_base_request req = { 0 };
	struct rb_apply_patch p = { 0 }, pp = { 0 };
	struct rb_base_report *rep = NULL;
	const struct rb_apply_result *r;
	git_oid a;

	rb_test_commit(&a, f->repo, NULL, files, 1, 1000, NULL);
	set_ref(f->repo, "refs/heads/master", &a);
	p.patch = on_top;
	p.len = strlen(on_top);
	pp.patch = pre;
	pp.len = strlen(pre);
	req.patches = &p;
	req.n_patches = 1;
	assert_int_equal(rb_base_select(&rep, trees, 1, &req, NULL), 0);
	assert_false(rep->ok);
	rb_base_report_free(rep);

	req.prereqs = &pp;
	req.n_prereqs = 1;
	assert_int_equal(rb_base_select(&rep, trees, 1, &req, NULL), 0);
	assert_true(rep->ok);
	assert_true(git_oid_equal(&rep->attempts[rep->chosen].commit, &a));
	r = rep->attempts[rep->chosen].result;
	assert_int_equal(r->n_patches, 1);
	assert_int_equal(r->n_applied, 1);
	assert_true(r->patches[0].applied);
	assert_false(git_oid_equal(&r->base, &a)); /* the prerequisite's */
	rb_base_report_free(rep);

	/* The series as its own prerequisite: that one does not apply. */
	req.prereqs = &p;
	assert_int_equal(rb_base_select(&rep, trees, 1, &req, NULL), 0);
	assert_false(rep->ok);
	assert_int_equal(rep->attempts[rep->n_attempts - 1].failed_patch, 0);
	assert_non_null(strstr(rep->attempts[rep->n_attempts - 1].reason,
			       "prerequisite patch 1 of 1 does not apply"));
	rb_base_report_free(rep);
	free(v);
	free(pre);
}

static void test_base_commit_missing(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 0), *patch = make_patch10();
	struct rb_test_file files[] = { { "f.c", v, 0 } };
	struct rb_base_tree trees[] = { { "mainline", f->repo, "HEAD" } };
	struct rb_base_request req = { 0 };
	struct rb_apply_patch p = { 0 };
	struct rb_base_report *rep = NULL;
	git_oid a;

	rb_test_commit(&a, f->repo, NULL, files, 1, 1000, NULL);
	set_ref(f->repo, "refs/heads/master", &a);
	p.patch = patch;
	p.len = strlen(patch);
	req.base_commit = "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef";
	req.patches = &p;
	req.n_patches = 1;
	assert_int_equal(rb_base_select(&rep, trees, 1, &req, NULL), 0);
	assert_true(rep->ok);
	assert_true(rep->n_attempts >= 2);
	assert_int_equal(rep->attempts[0].kind, RB_BASE_COMMIT);
	assert_false(rep->attempts[0].tried);
	assert_non_null(strstr(rep->attempts[0].reason,
			       "is not on any configured branch"));
	/* The guess finds the head itself, which applies. */
	assert_int_equal(rep->attempts[rep->chosen].kind, RB_BASE_GUESSED);
	assert_true(git_oid_equal(&rep->attempts[rep->chosen].commit, &a));
	rb_base_report_free(rep);

	/* A base-commit that a tree does hold is tried first. */
	{
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &a);
		hex[12] = '\0';
		req.base_commit = hex;
		assert_int_equal(rb_base_select(&rep, trees, 1, &req, NULL), 0);
	}
	assert_true(rep->ok);
	assert_int_equal(rep->chosen, 0);
	assert_int_equal(rep->attempts[0].kind, RB_BASE_COMMIT);
	assert_string_equal(rep->attempts[0].name, "mainline");
	rb_base_report_free(rep);
	free(v);
	free(patch);
}

/*
 * A base-commit counts only when it is on the configured branch (the
 * ref's tip or reachable from it) or a tag of the tree: a commit that is
 * merely in the object store (a dangling commit, another branch's, what
 * an old reviewbot wrote there) is unknown, and the base is guessed.
 */
static void test_base_commit_reachable(void **state)
{
	struct fx *f = *state;
	char *v = numbered(20, 0), *patch = make_patch10();
	struct rb_test_file files[] = { { "f.c", v, 0 } };
	struct rb_test_file other[] = { { "f.c", v, 0 }, { "g.c", "g\n", 0 } };
	struct rb_base_tree trees[] = { { "mainline", f->repo,
					  "refs/heads/master" } };
	struct rb_base_request req = { 0 };
	struct rb_apply_patch p = { 0 };
	struct rb_base_report *rep = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid a, b, dangling, tagged;

	rb_test_commit(&a, f->repo, NULL, files, 1, 1000, NULL);
	rb_test_commit(&b, f->repo, &a, files, 1, 2000, NULL);
	rb_test_commit(&dangling, f->repo, &b, other, 2, 3000, NULL);
	rb_test_commit(&tagged, f->repo, &a, other, 2, 4000, NULL);
	set_ref(f->repo, "refs/heads/master", &b);
	set_ref(f->repo, "refs/heads/side", &dangling);
	set_ref(f->repo, "refs/tags/v1", &tagged);
	p.patch = patch;
	p.len = strlen(patch);
	req.patches = &p;
	req.n_patches = 1;

	/* In the object store and on another branch: not trusted. */
	git_oid_tostr(hex, sizeof(hex), &dangling);
	req.base_commit = hex;
	assert_int_equal(rb_base_select(&rep, trees, 1, &req, NULL), 0);
	assert_true(rep->ok);
	assert_int_equal(rep->attempts[0].kind, RB_BASE_COMMIT);
	assert_false(rep->attempts[0].tried);
	assert_null(rep->attempts[0].name);
	assert_non_null(strstr(rep->attempts[0].reason,
			       "is not on any configured branch"));
	assert_false(
		git_oid_equal(&rep->attempts[rep->chosen].commit, &dangling));
	rb_base_report_free(rep);

	/* An ancestor of the tip, the tip and a tag: trusted and tried. */
	{
		const git_oid *good[] = { &a, &b, &tagged };
		size_t i;

		for (i = 0; i < 3; i++) {
			git_oid_tostr(hex, sizeof(hex), good[i]);
			hex[12] = '\0';
			assert_int_equal(
				rb_base_select(&rep, trees, 1, &req, NULL), 0);
			assert_true(rep->ok);
			assert_int_equal(rep->chosen, 0);
			assert_int_equal(rep->attempts[0].kind, RB_BASE_COMMIT);
			assert_true(git_oid_equal(&rep->attempts[0].commit,
						  good[i]));
			rb_base_report_free(rep);
		}
	}
	free(v);
	free(patch);
}

static void test_base_guess(void **state)
{
	struct fx *f = *state;
	char *v1 = numbered(20, 0), *v2 = numbered(20, 0), *p;
	char *patch = make_patch10();
	struct rb_test_file f1[] = { { "f.c", v1, 0 }, { "other", "1\n", 0 } };
	struct rb_test_file f2[] = { { "f.c", v1, 0 }, { "other", "2\n", 0 } };
	struct rb_test_file f3[] = { { "f.c", v2, 0 }, { "other", "2\n", 0 } };
	struct rb_base_tree trees[] = { { "mm-unstable", f->repo, "HEAD" } };
	struct rb_base_request req = { 0 };
	struct rb_apply_patch ap = { 0 };
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_base_report *rep = NULL;
	git_oid a, b, c, g;
	size_t ti = 9;

	/* Head C rewrote line 10, so the patch only applies on A or B. */
	p = strstr(v2, "line 10\n");
	memcpy(p, "line XX", 7);
	rb_test_commit(&a, f->repo, NULL, f1, 2, 1000, NULL);
	rb_test_commit(&b, f->repo, &a, f2, 2, 2000, NULL);
	rb_test_commit(&c, f->repo, &b, f3, 2, 3000, NULL);
	set_ref(f->repo, "refs/heads/master", &c);
	ap.patch = patch;
	ap.len = strlen(patch);
	assert_int_equal(rb_base_guess(&g, &ti, trees, 1, &ap, 1, 0), 0);
	assert_int_equal(ti, 0);
	assert_true(git_oid_equal(&g, &b)); /* the newest that fits */

	req.patches = &ap;
	req.n_patches = 1;
	opts.three_way = false;
	assert_int_equal(rb_base_select(&rep, trees, 1, &req, &opts), 0);
	assert_true(rep->ok);
	assert_int_equal(rep->attempts[rep->chosen].kind, RB_BASE_GUESSED);
	assert_true(git_oid_equal(&rep->attempts[rep->chosen].commit, &b));
	rb_base_report_free(rep);

	/* With a depth of 1 only C is searched: no guess. */
	assert_int_equal(rb_base_guess(&g, &ti, trees, 1, &ap, 1, 1),
			 -RB_ENOTFOUND);
	free(v1);
	free(v2);
	free(patch);
}

static void test_base_fails_everywhere(void **state)
{
	struct fx *f = *state;
	struct rb_test_file f1[] = { { "a.c", "a\n", 0 } };
	struct rb_test_file f2[] = { { "a.c", "a\n", 0 }, { "b.c", "b\n", 0 } };
	struct rb_base_tree trees[] = {
		{ "mm-unstable", f->repo, "refs/heads/mm" },
		{ "linux-next", f->repo, "refs/heads/next" },
		{ "mainline", f->repo, "refs/heads/master" },
	};
	struct rb_apply_patch p[2] = { { 0 } };
	struct rb_base_request req = { 0 };
	struct rb_base_report *rep = NULL;
	git_oid a, b;
	size_t i;

	rb_test_commit(&a, f->repo, NULL, f1, 1, 1000, NULL);
	rb_test_commit(&b, f->repo, &a, f2, 2, 2000, NULL);
	set_ref(f->repo, "refs/heads/mm", &b);
	set_ref(f->repo, "refs/heads/next", &a);
	set_ref(f->repo, "refs/heads/master", &a);
	/* Patch 1 applies everywhere, patch 2 needs a c.c nobody has. */
	p[0].patch = "--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+A\n";
	p[1].patch = "--- a/c.c\n+++ b/c.c\n@@ -1 +1 @@\n-c\n+C\n";
	p[0].len = strlen(p[0].patch);
	p[1].len = strlen(p[1].patch);
	req.patches = p;
	req.n_patches = 2;
	assert_int_equal(rb_base_select(&rep, trees, 3, &req, NULL), 0);
	assert_false(rep->ok);
	/* guess (none), mm-unstable, linux-next; mainline is the same
	 * commit as linux-next and is not tried twice */
	assert_int_equal(rep->n_attempts, 3);
	assert_int_equal(rep->attempts[0].kind, RB_BASE_GUESSED);
	assert_false(rep->attempts[0].tried);
	for (i = 1; i < rep->n_attempts; i++) {
		struct rb_base_attempt *at = &rep->attempts[i];

		assert_int_equal(at->kind, RB_BASE_TREE);
		assert_true(at->tried);
		assert_false(at->applied);
		assert_int_equal(at->failed_patch, 2);
		assert_string_equal(at->failed_file, "c.c");
		assert_string_equal(at->reason,
				    "c.c does not exist in the tree");
	}
	assert_string_equal(rep->attempts[1].name, "mm-unstable");
	assert_true(git_oid_equal(&rep->attempts[1].commit, &b));
	assert_string_equal(rep->attempts[2].name, "linux-next");
	rb_base_report_free(rep);
}

static void test_fetch_and_stale(void **state)
{
	struct fx *f = *state;
	struct rb_test_file f1[] = { { "a.c", "a\n", 0 } };
	git_repository *clone = NULL;
	char path[128];
	git_oid a, got;
	bool stale = false;

	rb_test_commit(&a, f->repo, NULL, f1, 1, 1000000, NULL);
	set_ref(f->repo, "refs/heads/master", &a);
	snprintf(path, sizeof(path), "%s/clone", f->dir);
	assert_int_equal(git_repository_init(&clone, path, 1), 0);
	assert_int_equal(rb_base_fetch(&got, clone, f->dir, "master"), 0);
	assert_true(git_oid_equal(&got, &a));
	assert_int_equal(rb_base_is_stale(&stale, clone,
					  "refs/remotes/reviewbot/master",
					  1000000 + 86400 * 3, 7),
			 0);
	assert_false(stale);
	assert_int_equal(rb_base_is_stale(&stale, clone,
					  "refs/remotes/reviewbot/master",
					  1000000 + 86400 * 8, 7),
			 0);
	assert_true(stale);
	assert_int_equal(rb_base_fetch(&got, clone, f->dir, "nope"),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_base_fetch(&got, clone, "/nonexistent/repo",
				       "master"),
			 -RB_EAGAIN);
	assert_int_equal(rb_base_fetch(&got, clone, f->dir, "a..b"),
			 -RB_EINVAL);
	git_repository_free(clone);
}

static void test_binary(void **state)
{
	struct fx *f = *state;
	struct rb_test_file files[] = { { "img/bin", "A\0B", 0, 3 } };
	const char *patch = "diff --git a/img/bin b/img/bin\n"
			    "index c2000e7f432c502e785f1d0928304a1a4ee332bd.."
			    "13145ff2e38bc79ddb6eb684ac60cb45350eaf08 100644\n"
			    "GIT binary patch\n"
			    "literal 5\n"
			    "McmZ={aB^k@00Nf)$N&HU\n"
			    "\n"
			    "literal 3\n"
			    "KcmZ={Z~_1U2mpit\n"
			    "\n";
	struct rb_apply_result *r;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid base;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	r = apply1(f->repo, &base, patch, NULL);
	if (!r->ok)
		fail_msg("binary: %s", r->reason);
	assert_int_equal(git_tree_lookup(&t, r->repo, &r->tree), 0);
	assert_int_equal(git_tree_entry_bypath(&e, t, "img/bin"), 0);
	git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
	assert_string_equal(hex, "13145ff2e38bc79ddb6eb684ac60cb45350eaf08");
	git_tree_entry_free(e);
	git_tree_free(t);
	rb_apply_result_free(r);

	/* Applied twice, the second time the preimage is wrong. */
	{
		struct rb_apply_patch p[2] = { { 0 } };

		p[0].patch = p[1].patch = patch;
		p[0].len = p[1].len = strlen(patch);
		assert_int_equal(
			rb_apply_series(&r, f->repo, &base, p, 2, NULL), 0);
	}
	assert_false(r->ok);
	assert_int_equal(r->failed_patch, 2);
	assert_int_equal(r->fail, RB_APPLY_FAIL_BINARY);
	assert_non_null(strstr(r->reason, "the patch expects c2000e7f432c"));
	rb_apply_result_free(r);
}

/* A delta made by git diff --binary: bytes 100 and 3000 changed, and a
 * tail added, on 4000 bytes of (i * 7) % 251. */
static void test_binary_delta(void **state)
{
	struct fx *f = *state;
	static char content[4000];
	struct rb_test_file files[] = { { "d.bin", content, 0,
					  sizeof(content) } };
	const char *patch =
		"diff --git a/d.bin b/d.bin\n"
		"index 48b387d42912c551616ea73d330b36263188f9ad.."
		"6f7ba40f695f9fbf8074c07e4e38b950d887e32f 100644\n"
		"GIT binary patch\n"
		"delta 29\n"
		"lcmZ1=zeIjQ3giFHfh_*qtlg7lE@0UFkoh??OG#p84gjoq3u6EP\n"
		"\n"
		"delta 16\n"
		"YcmZ1?zd(LM%H{x;4ED_rn6Iz{05>NFUH||9\n"
		"\n";
	struct rb_apply_result *r;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	char hex[GIT_OID_HEXSZ + 1], *bad;
	git_oid base;
	size_t i;

	for (i = 0; i < sizeof(content); i++)
		content[i] = (char)((i * 7) % 251);
	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	/*
	 * One corrupt base85 digit: a clear refusal, never a hang. (First:
	 * once the repository has the postimage blob, it is used as is.)
	 */
	bad = strdup(patch);
	assert_non_null(bad);
	*strstr(bad, "zeIjQ") = 'y';
	r = apply1(f->repo, &base, bad, NULL);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_BINARY);
	assert_non_null(strstr(r->reason, "binary"));
	rb_apply_result_free(r);
	free(bad);

	r = apply1(f->repo, &base, patch, NULL);
	if (!r->ok)
		fail_msg("binary delta: %s", r->reason);
	assert_int_equal(git_tree_lookup(&t, r->repo, &r->tree), 0);
	assert_int_equal(git_tree_entry_bypath(&e, t, "d.bin"), 0);
	git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
	assert_string_equal(hex, "6f7ba40f695f9fbf8074c07e4e38b950d887e32f");
	git_tree_entry_free(e);
	git_tree_free(t);
	rb_apply_result_free(r);
}

/*
 * A binary delta's header declares its result: 65,536 bytes made into
 * 67,043,329 (one insert, then 1,023 one-byte ops that each copy 64 KiB,
 * deflated to 30 bytes). Over the memory budget it is refused before
 * anything is inflated for it; within the budget it applies, and a
 * second call that shares the budget's work is charged for the first.
 */
static void test_budget_bytes(void **state)
{
	struct fx *f = *state;
	static char zeros[65536];
	struct rb_test_file files[] = { { "fw.bin", zeros, 0, sizeof(zeros) } };
	const char *patch = "diff --git a/fw.bin b/fw.bin\n"
			    "index c97c12f9b0a24bfc19c74a2b265a97c924137775.."
			    "70449d53dc9223dd577a93991a3fa29c478696d6 100644\n"
			    "GIT binary patch\n"
			    "delta 1032\n"
			    "Yc-m`dU}<dlBhSd*FbYP&C>W^#0Pp<*#{d8T\n"
			    "\n";
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r;
	git_oid base;

	rb_test_commit(&base, f->repo, NULL, files, 1, 1000, NULL);
	opts.max_bytes = 1u << 20;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_LIMIT);
	assert_string_equal(r->failed_file, "fw.bin");
	assert_non_null(strstr(r->reason, "memory budget"));
	assert_non_null(strstr(r->reason, "fw.bin needs 67043329 bytes"));
	rb_apply_result_free(r);

	opts.max_bytes = 70u << 20;
	r = apply1(f->repo, &base, patch, &opts);
	if (!r->ok)
		fail_msg("within the budget: %s", r->reason);
	rb_apply_result_free(r);
}

/* A file of 20,000 numbered lines, and a hunk for its end whose header
 * says line 2: the search walks the whole file. */
static void budget_fixture(struct fx *f, git_oid *base, const char **patch)
{
	char *v = numbered(20000, 0);
	struct rb_test_file files[] = { { "big.c", v, 0 } };

	rb_test_commit(base, f->repo, NULL, files, 1, 1000, NULL);
	free(v);
	*patch = "--- a/big.c\n+++ b/big.c\n@@ -2,3 +2,3 @@\n"
		 " line 19990\n-line 19991\n+LINE\n line 19992\n";
}

static void test_budget_work(void **state)
{
	struct fx *f = *state;
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r;
	const char *patch;
	uint64_t used = 0, first;
	git_oid base;

	budget_fixture(f, &base, &patch);
	/* The default budget takes it, with the offset git gives. */
	opts.work = &used;
	r = apply1(f->repo, &base, patch, &opts);
	if (!r->ok)
		fail_msg("default budget: %s", r->reason);
	assert_int_equal(r->patches[0].files[0].hunks[0].line, 19990);
	rb_apply_result_free(r);
	first = used;
	assert_true(first > 20000 && first < 200000);

	/* Shared: the second call has what the first left, not enough. */
	opts.max_work = first + first / 2;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_LIMIT);
	assert_int_equal(r->failed_hunk, 1);
	assert_string_equal(r->failed_file, "big.c");
	assert_non_null(strstr(r->reason, "time budget"));
	assert_non_null(strstr(r->reason, "while placing hunk #1 of big.c"));
	rb_apply_result_free(r);
	/* It stopped at the budget, not at the end of the search. */
	assert_true(used <= first + first / 2 + 8);

	/* Alone, with a budget too small for the search. */
	opts.work = NULL;
	opts.max_work = 25000;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_LIMIT);
	assert_non_null(strstr(r->reason, "while placing hunk #1 of big.c"));
	rb_apply_result_free(r);
}

static void test_budget_lines(void **state)
{
	struct fx *f = *state;
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r;
	const char *patch;
	git_oid base;

	budget_fixture(f, &base, &patch);
	opts.max_file_lines = 1000;
	r = apply1(f->repo, &base, patch, &opts);
	assert_false(r->ok);
	assert_int_equal(r->fail, RB_APPLY_FAIL_LIMIT);
	assert_string_equal(r->reason,
			    "big.c has more than 1000 lines: too big to patch");
	rb_apply_result_free(r);
}

/* A series over a limit is tried on one base: the limit is the series'. */
static void test_base_limit(void **state)
{
	struct fx *f = *state;
	struct rb_test_file f1[] = { { "a.c", "a\n", 0 } };
	struct rb_base_tree trees[] = {
		{ "linux-next", f->repo, "refs/heads/next" },
		{ "mainline", f->repo, "refs/heads/master" },
	};
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch p = { 0 };
	struct rb_base_request req = { 0 };
	struct rb_base_report *rep = NULL;
	git_oid a, b;

	rb_test_commit(&a, f->repo, NULL, f1, 1, 1000, NULL);
	rb_test_commit(&b, f->repo, &a, f1, 1, 2000, NULL);
	set_ref(f->repo, "refs/heads/next", &b);
	set_ref(f->repo, "refs/heads/master", &a);
	p.patch = "--- a/a.c\n+++ b/a.c\n@@ -1 +1,2 @@\n-a\n+A\n+B\n";
	p.len = strlen(p.patch);
	req.patches = &p;
	req.n_patches = 1;
	opts.max_lines = 2;
	assert_int_equal(rb_base_select(&rep, trees, 2, &req, &opts), 0);
	assert_false(rep->ok);
	assert_true(rep->limit);
	/* the guess (none), linux-next; never mainline */
	assert_int_equal(rep->n_attempts, 2);
	assert_string_equal(rep->attempts[1].name, "linux-next");
	assert_non_null(strstr(rep->attempts[1].reason, RB_APPLY_TOO_BIG));
	/* A failed attempt keeps its report, not its objects. */
	assert_null(rep->attempts[1].result->mem);
	rb_base_report_free(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_offset),
		T(test_fuzz),
		T(test_three_way),
		T(test_three_way_conflict),
		T(test_new_delete_rename),
		T(test_no_newline),
		T(test_blank_context),
		T(test_safety),
		T(test_limits_and_setuid),
		T(test_binary),
		T(test_binary_delta),
		T(test_budget_bytes),
		T(test_budget_work),
		T(test_budget_lines),
		T(test_base_limit),
		T(test_series_commits),
		T(test_patch_id),
		T(test_base_commit_missing),
		T(test_base_prereqs),
		T(test_base_commit_reachable),
		T(test_base_guess),
		T(test_base_fails_everywhere),
		T(test_fetch_and_stale),
#undef T
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
