// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_check_commit.c - the commit-msg checker on hand-written, realistic
 * patch mails (tests/data/checks/NAME.eml), with a small git repository built
 * here with libgit2 so that Fixes: targets can be found (or not).
 * "@SHA2@" in a mail stands for the id of the repository's second commit.
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
#include <git2.h>

#include "mail/message.h"
#include "review/checks/check_commit.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "tests/testlib.h"
#include "util/banned.h"

static char repo_dir[64];
static git_repository *setup_repo; /* open from setup to teardown */
static git_oid c1, c2;
static char sha2[13];

static void commit_file(git_repository *repo, git_oid *out, const char *text,
			const char *msg, const git_oid *parent, int64_t when)
{
	git_treebuilder *root = NULL, *mm = NULL;
	git_oid blob, tree_mm, tree;
	git_signature *sig = NULL;
	git_tree *t = NULL;
	git_commit *p = NULL;
	const git_commit *parents[1];

	assert_int_equal(git_blob_create_from_buffer(&blob, repo, text,
						     strlen(text)),
			 0);
	assert_int_equal(git_treebuilder_new(&mm, repo, NULL), 0);
	assert_int_equal(git_treebuilder_insert(NULL, mm, "frob.c", &blob,
						GIT_FILEMODE_BLOB),
			 0);
	assert_int_equal(git_treebuilder_write(&tree_mm, mm), 0);
	assert_int_equal(git_treebuilder_new(&root, repo, NULL), 0);
	assert_int_equal(git_treebuilder_insert(NULL, root, "mm", &tree_mm,
						GIT_FILEMODE_TREE),
			 0);
	assert_int_equal(git_treebuilder_write(&tree, root), 0);
	assert_int_equal(git_tree_lookup(&t, repo, &tree), 0);
	assert_int_equal(git_signature_new(&sig, "Jane Doe",
					   "jane.doe@example.org", when, 0),
			 0);
	if (parent) {
		assert_int_equal(git_commit_lookup(&p, repo, parent), 0);
		parents[0] = p;
	}
	assert_int_equal(git_commit_create(out, repo, "HEAD", sig, sig, NULL,
					   msg, t, parent ? 1 : 0, parents),
			 0);
	git_commit_free(p);
	git_signature_free(sig);
	git_tree_free(t);
	git_treebuilder_free(mm);
	git_treebuilder_free(root);
}

static int setup(void **state)
{
	(void)state;
	rb_test_bare_repo_new(&setup_repo, repo_dir, sizeof(repo_dir),
			      "/tmp/rb-test-check-commit-XXXXXX");
	commit_file(setup_repo, &c1, "int frob;\n",
		    "mm/frob: add the frob driver\n", NULL, 1600000000);
	commit_file(setup_repo, &c2, "int frob_count;\n",
		    "mm/frob: rework the refcount\n\nCount users.\n", &c1,
		    1600000100);
	git_oid_tostr(sha2, sizeof(sha2), &c2);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rb_test_repo_free(setup_repo, repo_dir);
	return 0;
}

/* Reads tests/data/checks/NAME with @SHA2@ replaced, and parses it. */
static struct rb_message *load(const char *name, struct rb_buf *raw)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct rb_message *m = NULL;
	const char *src = getenv("RB_SRC");
	char path[4096];
	const char *p, *q;

	snprintf(path, sizeof(path), "%s/tests/data/checks/%s",
		 src ? src : "..", name);
	assert_int_equal(rb_read_file(&b, path), 0);
	rb_buf_init(raw, 1 << 20);
	for (p = b.ptr; (q = strstr(p, "@SHA2@")); p = q + 6) {
		rb_buf_add(raw, p, (size_t)(q - p));
		rb_buf_puts(raw, sha2);
	}
	rb_buf_puts(raw, p);
	rb_buf_release(&b);
	if (rb_message_parse(&m, raw->ptr, raw->len, NULL))
		fail_msg("%s: %s", name, rb_errmsg());
	return m;
}

/*
 * Runs the checker on the mails (one series) and compares the categories
 * found, in order, with @want ("a,b" or "").
 */
static void check_series(const char *const *names, size_t n, bool history,
			 const struct rb_check_opts *o, const char *want)
{
	struct rb_check_opts dflt = RB_CHECK_OPTS_INIT;
	struct rb_check_patch ps[8];
	struct rb_message *ms[8];
	struct rb_buf raws[8];
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	struct rb_buf got = RB_BUF_INIT(1 << 16);
	size_t i;

	assert_true(n <= 8);
	for (i = 0; i < n; i++) {
		ms[i] = load(names[i], &raws[i]);
		ps[i].msg = ms[i];
		ps[i].raw = raws[i].ptr;
		ps[i].raw_len = raws[i].len;
		ps[i].origin = names[i];
	}
	ctx.patches = ps;
	ctx.n_patches = n;
	ctx.repo_path = repo_dir;
	ctx.has_base = true;
	/* The root commit has no history: Fixes: are not looked up. */
	git_oid_cpy(&ctx.base, history ? &c2 : &c1);
	ctx.opts = o ? o : &dflt;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	for (i = 0; i < out.n; i++) {
		rb_buf_printf(&got, "%s%s", i ? "," : "", out.v[i].category);
		assert_string_equal(out.v[i].checker, "commit-msg");
		assert_non_null(out.v[i].message);
		print_message("  %s [%s] %s\n", names[0], out.v[i].category,
			      out.v[i].message);
	}
	if (strcmp(got.ptr, want))
		fail_msg("%s: got \"%s\", want \"%s\"", names[0], got.ptr,
			 want);
	rb_findings_release(&out);
	rb_buf_release(&got);
	for (i = 0; i < n; i++) {
		rb_message_free(ms[i]);
		rb_buf_release(&raws[i]);
	}
}

static void check_one(const char *name, const char *want)
{
	check_series(&name, 1, true, NULL, want);
}

/* The message of the one finding of @name, which must hold @needle. */
static void check_says(const char *name, const char *needle)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch p = { 0 };
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	struct rb_buf raw;
	struct rb_message *m = load(name, &raw);

	p.msg = m;
	p.raw = raw.ptr;
	p.raw_len = raw.len;
	p.origin = name;
	ctx.patches = &p;
	ctx.n_patches = 1;
	ctx.repo_path = repo_dir;
	ctx.has_base = true;
	git_oid_cpy(&ctx.base, &c2);
	ctx.opts = &o;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 1);
	if (!strstr(out.v[0].message, needle))
		fail_msg("%s says \"%s\", not \"%s\"", name, out.v[0].message,
			 needle);
	rb_findings_release(&out);
	rb_message_free(m);
	rb_buf_release(&raw);
}

static void test_good(void **state)
{
	(void)state;
	check_one("good.eml", "");
}

static void test_signoff(void **state)
{
	(void)state;
	check_one("no-signoff.eml", "signed-off-by");
	check_one("author-not-signed.eml", "author-signoff");
	/* Same name, other address: checkpatch's FROM_SIGN_OFF_MISMATCH. */
	check_one("author-other-address.eml", "");
	/* The body From: wins (git am), addresses compare without case. */
	check_one("body-from.eml", "");
	check_one("body-from-not-signed.eml", "author-signoff");
	/* Said to the poster, who gets the mail (issue 34): "you" when the
	 * poster is the author, the in-body author named otherwise. */
	check_says("author-not-signed.eml",
		   "You (jane.doe@example.org) are the author of this patch");
	check_says("body-from-not-signed.eml",
		   "The From: line at the top of the body names");
	/* git am would cut the message before the sign-off. */
	check_one("signoff-after-cut.eml", "signed-off-by");
	/* A stable-queue mail names the author further down. */
	check_one("stable-queue.eml", "");
	/* "Signed-off-by: Jane Doe <jane@..." lost its '>': she signed. */
	check_one("signoff-no-gt.eml", "");
	/* A sign-off in another form (a pasted "git show"), and [WIP]
	 * mail, are not "no Signed-off-by". */
	check_one("signoff-indented.eml", "");
	check_one("wip-no-signoff.eml", "");
}

static void test_signoff_severity(void **state)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch p = { 0 };
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	struct rb_buf raw;
	struct rb_message *m;

	(void)state;
	m = load("author-not-signed.eml", &raw);
	p.msg = m;
	ctx.patches = &p;
	ctx.n_patches = 1;
	ctx.opts = &o;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.v[0].severity, RB_FSEV_MEDIUM);
	rb_findings_release(&out);
	rb_message_free(m);
	rb_buf_release(&raw);

	m = load("no-signoff.eml", &raw);
	p.msg = m;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.v[0].severity, RB_FSEV_HIGH);
	assert_int_equal(out.v[0].patch_index, 1);
	rb_findings_release(&out);
	rb_message_free(m);
	rb_buf_release(&raw);
}

static void test_fixes(void **state)
{
	const char *unknown = "fixes-unknown.eml";

	(void)state;
	check_one("fixes-short.eml", "fixes-format");
	check_one("fixes-no-quotes.eml", "fixes-format");
	/* A commit id then a colon: the id is there, the form is off. */
	check_one("fixes-colon.eml", "fixes-format");
	check_says("fixes-colon.eml", "use the usual form");
	check_says("fixes-commit.eml", "does not start with a commit id");
	check_one("fixes-unknown.eml", "fixes-unknown");
	check_one("fixes-wrong-subject.eml", "fixes-subject");
	/* No history in the base: a missing target proves nothing. */
	check_series(&unknown, 1, false, NULL, "");
	/* A fixup is squashed; "Fixes: (mmotm) ..." is how mm names it. */
	check_one("fixup-fixes.eml", "");
}

static void test_stable(void **state)
{
	(void)state;
	check_one("stable-wrong-list.eml", "stable-cc");
	/* "5.10+" without "#" is flagged; "<...> # 5.15.x" is fine. */
	check_one("stable-comment.eml", "stable-cc");
}

static void test_subject(void **state)
{
	(void)state;
	check_one("subject-long.eml", "subject-length");
	check_one("subject-no-prefix.eml", "subject-prefix");
	/* 74 characters and stgit's "[ver #17]", which does not land. */
	check_one("subject-ver-tag.eml", "");
}

static void test_links(void **state)
{
	(void)state;
	/* "Closes: 1234" and a bare host; "<https://...>" is accepted. */
	check_one("link-not-url.eml", "link-tag,link-tag");
	/* "Link: [1] https://..." reference lists. */
	check_one("link-reference.eml", "");
}

static void test_series(void **state)
{
	const char *three[] = { "good.eml", "good.eml", "good.eml" };
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;

	(void)state;
	check_series(three, 2, true, NULL, "");
	check_series(three, 3, true, NULL, "series-cover");
	o.max_patches = 2;
	o.require_cover = false;
	check_series(three, 3, true, &o, "series-size");
}

/* A series threaded under a cover the list did not get has a cover. */
static void test_series_cover_elsewhere(void **state)
{
	const char *threaded[] = { "threaded.eml", "good.eml", "good.eml" };

	(void)state;
	check_series(threaded, 3, true, NULL, "");
}

/* Part of the series missing (a partial reroll): say nothing of covers. */
static void test_series_cover_partial(void **state)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch ps[3] = { { 0 } };
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	struct rb_buf raw;
	struct rb_message *m;

	(void)state;
	m = load("good.eml", &raw);
	ps[1].msg = m; /* 2/3 alone, as posted in the old thread */
	ctx.patches = ps;
	ctx.n_patches = 3;
	ctx.opts = &o;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 0);
	rb_findings_release(&out);
	rb_message_free(m);
	rb_buf_release(&raw);
}

/* No invented limit: the message names the configured one only. */
static void test_series_size_text(void **state)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch ps[3] = { { 0 } };
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	struct rb_buf raw;
	struct rb_message *m;
	size_t i;

	(void)state;
	m = load("good.eml", &raw);
	for (i = 0; i < 3; i++)
		ps[i].msg = m;
	ctx.patches = ps;
	ctx.n_patches = 3;
	o.max_patches = 2;
	o.require_cover = false;
	ctx.opts = &o;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0].category, "series-size");
	assert_null(strstr(out.v[0].message, "this list"));
	assert_non_null(strstr(out.v[0].message, " 2."));
	rb_findings_release(&out);
	rb_message_free(m);
	rb_buf_release(&raw);
}

/*
 * Trojan Source (CVE-2021-42574): a comment that BiDi controls make read
 * as code. One finding at its file and line, the line quoted escaped.
 */
static void test_hidden_unicode(void **state)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch p = { 0 };
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	struct rb_buf raw;
	struct rb_message *m;
	size_t i, n = 0;

	(void)state;
	check_one("hidden-unicode.eml", "hidden-unicode");
	check_one("good.eml", "");
	m = load("hidden-unicode.eml", &raw);
	p.msg = m;
	p.raw = raw.ptr;
	p.raw_len = raw.len;
	p.origin = "hidden-unicode.eml";
	ctx.patches = &p;
	ctx.n_patches = 1;
	ctx.repo_path = repo_dir;
	ctx.has_base = true;
	git_oid_cpy(&ctx.base, &c2);
	ctx.opts = &o;
	assert_int_equal(rb_check_commit_ops.run(&ctx, &out), 0);
	for (i = 0; i < out.n; i++) {
		const struct rb_finding *f = &out.v[i];

		if (strcmp(f->category, "hidden-unicode"))
			continue;
		n++;
		assert_string_equal(f->file, "mm/frob.c");
		assert_int_equal(f->line, 14);
		assert_non_null(strstr(f->message, "U+202E"));
		assert_non_null(strstr(f->code, "<U+202E>"));
		assert_non_null(strstr(f->code, "<U+2066>"));
		assert_null(strstr(f->code, "\xe2\x80\xae"));
	}
	assert_int_equal(n, 1);
	rb_findings_release(&out);
	rb_message_free(m);
	rb_buf_release(&raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_signoff),
		cmocka_unit_test(test_signoff_severity),
		cmocka_unit_test(test_fixes),
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_series_cover_elsewhere),
		cmocka_unit_test(test_series_cover_partial),
		cmocka_unit_test(test_series_size_text),
		cmocka_unit_test(test_hidden_unicode),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
