// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_checkpatch.c - the checkpatch checker: parsing batched output, the
 * script taken from the base commit and never from the patched tree, and
 * (when the linux 6.1 tree of scripts/setup-linux-tree.sh is there) a real
 * run equal to direct checkpatch.pl runs on our own test mails.
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
#include "review/checks/check_build.h"
#include "review/checks/check_checkpatch.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

static const char sample[] =
	"/tmp/x/0002.patch:3: WARNING:TYPO_SPELLING: 'recieve' may be "
	"misspelled - perhaps 'receive'?\n"
	"#3: \n"
	"Subject: [PATCH 2/2] mm/frob: count the frobs that we recieve\n"
	"                                                      ^^^^^^^\n"
	"\n"
	"/tmp/x/0002.patch:28: ERROR:TRAILING_WHITESPACE: trailing "
	"whitespace\n"
	"#28: FILE: mm/frob.c:25:\n"
	"+int frob_receive(struct frob *f, int n) $\n"
	"\n"
	"/tmp/x/0002.patch:30: ERROR:SPACING: space required before the "
	"open parenthesis '('\n"
	"#30: FILE: mm/frob.c:27:\n"
	"+\tif(n < 0)\n"
	"\n"
	"/tmp/x/0001.patch:36: ERROR:MISSING_SIGN_OFF: Missing "
	"Signed-off-by: line(s)\n"
	"\n"
	"/tmp/x/0002.patch:33: WARNING:LONG_LINE: line length of 117 "
	"exceeds 100 columns\n"
	"#33: FILE: drivers/a:b/c.c:30:\n"
	"+\tprintk(\"x\");\n"
	"\n"
	"/tmp/x/0009.patch:1: ERROR:SPACING: out of range\n"
	"/tmp/x/0002.patch:40: CHECK:MULTI: first line\n"
	"second line\n"
	"#40: FILE: mm/frob.c:31:\n"
	"+x\n";

static void test_parse(void **state)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_findings out = { 0 };
	char *ign[] = { "long_line" };

	(void)state;
	assert_int_equal(
		rb_checkpatch_parse(&out, sample, "/tmp/x", 2, &o, "v"), 0);
	assert_int_equal(out.n, 6);
	assert_string_equal(out.v[0].category, "TYPO_SPELLING");
	assert_null(out.v[0].file);
	assert_int_equal(out.v[0].patch_index, 2);
	assert_int_equal(out.v[0].severity, RB_FSEV_LOW);
	assert_string_equal(
		out.v[0].code,
		"Subject: [PATCH 2/2] mm/frob: count the frobs that we recieve");
	assert_string_equal(out.v[1].category, "TRAILING_WHITESPACE");
	assert_string_equal(out.v[1].file, "mm/frob.c");
	assert_int_equal(out.v[1].line, 25);
	assert_int_equal(out.v[1].severity, RB_FSEV_MEDIUM);
	assert_string_equal(out.v[2].code, "+\tif(n < 0)");
	assert_int_equal(out.v[2].line, 27);
	assert_string_equal(out.v[3].category, "MISSING_SIGN_OFF");
	assert_int_equal(out.v[3].patch_index, 1);
	assert_null(out.v[3].code);
	/* A path with a colon keeps it; the line is the last number. */
	assert_string_equal(out.v[4].file, "drivers/a:b/c.c");
	assert_int_equal(out.v[4].line, 30);
	/* The report for a patch that is not in the series is dropped... */
	assert_string_equal(out.v[5].category, "MULTI");
	/* ...and a message over two lines is kept whole. */
	assert_string_equal(out.v[5].message, "first line\nsecond line");
	assert_int_equal(out.v[5].severity, RB_FSEV_INFO);
	rb_findings_release(&out);

	o.checkpatch_ignore = ign;
	o.n_checkpatch_ignore = 1;
	assert_int_equal(
		rb_checkpatch_parse(&out, sample, "/tmp/x", 2, &o, "v"), 0);
	assert_int_equal(out.n, 5);
	rb_findings_release(&out);

	/* Output of another file, or none at all. */
	assert_int_equal(
		rb_checkpatch_parse(&out, sample, "/tmp/y", 2, &o, "v"), 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(rb_checkpatch_parse(&out, "", "/tmp/x", 2, &o, "v"),
			 0);
	assert_int_equal(out.n, 0);
}

static void add_blob(git_repository *repo, git_treebuilder *tb,
		     const char *name, const char *text, git_filemode_t mode)
{
	git_oid id;

	assert_int_equal(
		git_blob_create_from_buffer(&id, repo, text, strlen(text)), 0);
	assert_int_equal(git_treebuilder_insert(NULL, tb, name, &id, mode), 0);
}

/* A commit whose tree is scripts/checkpatch.pl = @script. */
static void commit_script(git_repository *repo, git_oid *out,
			  const char *script, const git_oid *parent)
{
	git_treebuilder *root = NULL, *scripts = NULL;
	git_signature *sig = NULL;
	git_oid sid, tid;
	git_tree *t = NULL;
	git_commit *p = NULL;
	const git_commit *parents[1];

	assert_int_equal(git_treebuilder_new(&scripts, repo, NULL), 0);
	add_blob(repo, scripts, "checkpatch.pl", script,
		 GIT_FILEMODE_BLOB_EXECUTABLE);
	assert_int_equal(git_treebuilder_write(&sid, scripts), 0);
	assert_int_equal(git_treebuilder_new(&root, repo, NULL), 0);
	assert_int_equal(git_treebuilder_insert(NULL, root, "scripts", &sid,
						GIT_FILEMODE_TREE),
			 0);
	assert_int_equal(git_treebuilder_write(&tid, root), 0);
	assert_int_equal(git_tree_lookup(&t, repo, &tid), 0);
	assert_int_equal(git_signature_new(&sig, "T", "t@example.org",
					   1600000000, 0),
			 0);
	if (parent) {
		assert_int_equal(git_commit_lookup(&p, repo, parent), 0);
		parents[0] = p;
	}
	assert_int_equal(git_commit_create(out, repo, NULL, sig, sig, NULL,
					   "x\n", t, parent ? 1 : 0, parents),
			 0);
	git_commit_free(p);
	git_signature_free(sig);
	git_tree_free(t);
	git_treebuilder_free(scripts);
	git_treebuilder_free(root);
}

/*
 * The configured tip's checkpatch.pl runs, once for all patches, in the
 * sandbox; the applied commit's and the base's (which would write a
 * marker file) never do, and without a tip checkpatch does not run.
 */
static void test_trusted_base(void **state)
{
	static const char good[] =
		"#!/usr/bin/perl\n"
		"foreach my $f (@ARGV) {\n"
		"  next if $f =~ /^-/;\n"
		"  print \"$f:7: WARNING:BASE_SCRIPT: ran from the base \"\n"
		"    . scalar(grep { !/^-/ } @ARGV) . \"\\n#7: FILE: a.c:3:\\n\"\n"
		"    . \"+x\\n\\n\";\n"
		"}\n"
		"exit 1;\n";
	char evil[1024];
	char dir[] = "/tmp/rb-test-checkpatch-XXXXXX";
	char marker[600];
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch ps[2] = { { 0 } };
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	git_repository *repo = NULL;
	git_oid base, applied;
	const char *mail = "From: a <a@example.org>\nSubject: x\n\nbody\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(marker, sizeof(marker), "%s/PWNED", dir);
	snprintf(evil, sizeof(evil),
		 "#!/usr/bin/perl\nopen(F, '>', '%s'); print F 1; exit 0;\n",
		 marker);
	assert_int_equal(git_repository_init(&repo, dir, 1), 0);
	commit_script(repo, &base, good, NULL);
	commit_script(repo, &applied, evil, &base);
	git_repository_free(repo);

	ps[0].raw = ps[1].raw = mail;
	ps[0].raw_len = ps[1].raw_len = strlen(mail);
	ctx.patches = ps;
	ctx.n_patches = 2;
	ctx.repo_path = dir;
	ctx.base = base;
	ctx.has_base = true;
	ctx.applied = applied;
	ctx.has_applied = true;
	ctx.opts = &o;
	/* No configured tip: not run, whatever the base holds. */
	assert_int_not_equal(rb_check_checkpatch_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 0);
	if (!rb_sandbox_available()) {
		rb_remove_tree(dir);
		skip(); /* bwrap cannot make a sandbox here */
	}
	/* A base that a mail named, holding an evil script: not used. */
	ctx.base = applied;
	ctx.tools = base;
	ctx.has_tools = true;
	assert_int_equal(rb_check_checkpatch_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0].category, "BASE_SCRIPT");
	/* One process saw both patches. */
	assert_string_equal(out.v[0].message, "ran from the base 2");
	assert_int_equal(out.v[0].patch_index, 1);
	assert_int_equal(out.v[1].patch_index, 2);
	assert_string_equal(out.v[1].file, "a.c");
	assert_int_equal(out.v[1].line, 3);
	assert_int_not_equal(access(marker, F_OK), 0);
	rb_findings_release(&out);
	rb_remove_tree(dir);
}

static const char *linux_tree(void)
{
	static char path[4096];
	const char *env = getenv("RB_LINUX_TREE");
	const char *home = getenv("HOME");

	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else
		snprintf(path, sizeof(path), "%s/.cache/reviewbot/linux-6.1",
			 home ? home : "/root");
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s",
		 "/.git");
	if (access(path, F_OK))
		return NULL;
	path[strlen(path) - 5] = '\0';
	return path;
}

/* What a direct run prints for these two mails (checked by hand). */
static void test_linux(void **state)
{
	static const char *const want[] = {
		"1 MISSING_SIGN_OFF - 0",
		"2 TYPO_SPELLING - 0",
		"2 TYPO_SPELLING - 0",
		"2 COMMIT_LOG_LONG_LINE - 0",
		"2 TRAILING_WHITESPACE mm/frob.c 25",
		"2 SPACING mm/frob.c 27",
		"2 LONG_LINE mm/frob.c 30",
		"2 PRINTK_WITHOUT_KERN_LEVEL mm/frob.c 30",
	};
	const char *names[] = { "no-signoff.eml", "checkpatch-style.eml" };
	const char *tree = linux_tree(), *src = getenv("RB_SRC");
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_check_patch ps[2] = { { 0 } };
	struct rb_buf raw[2];
	struct rb_check_ctx ctx = { 0 };
	struct rb_findings out = { 0 };
	git_repository *repo = NULL;
	git_object *head = NULL;
	size_t i;

	(void)state;
	if (!tree)
		skip();
	assert_int_equal(git_repository_open(&repo, tree), 0);
	assert_int_equal(git_revparse_single(&head, repo, "HEAD^{commit}"), 0);
	ctx.base = *git_object_id(head);
	git_object_free(head);
	git_repository_free(repo);
	for (i = 0; i < 2; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/tests/data/checks/%s",
			 src ? src : "..", names[i]);
		rb_buf_init(&raw[i], 1 << 20);
		assert_int_equal(rb_read_file(&raw[i], path), 0);
		ps[i].raw = raw[i].ptr;
		ps[i].raw_len = raw[i].len;
	}
	ctx.patches = ps;
	ctx.n_patches = 2;
	ctx.repo_path = tree;
	ctx.has_base = true;
	ctx.tools = ctx.base;
	ctx.has_tools = true;
	ctx.opts = &o;
	if (!rb_sandbox_available())
		skip();
	assert_int_equal(rb_check_checkpatch_ops.run(&ctx, &out), 0);
	assert_int_equal(out.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < out.n; i++) {
		char got[256];

		snprintf(got, sizeof(got), "%d %s %s %d", out.v[i].patch_index,
			 out.v[i].category, out.v[i].file ? out.v[i].file : "-",
			 out.v[i].line);
		assert_string_equal(got, want[i]);
	}
	rb_findings_release(&out);
	for (i = 0; i < 2; i++)
		rb_buf_release(&raw[i]);
}

/* Compiler output of the build checker (kept here with the other parser). */
/* A batch of many patches is one command line: it is not cut at a fixed
 * number of arguments (a 100-patch series lost its checkpatch that way). */
static void test_many_args(void **state)
{
	struct rb_sandbox_opts o = RB_SANDBOX_OPTS_INIT;
	struct rb_proc_result r;
	const char *argv[403];
	size_t i, words = 0;

	(void)state;
	if (!rb_sandbox_available())
		skip(); /* bwrap cannot make a sandbox here */
	argv[0] = "/bin/echo";
	for (i = 1; i <= 400; i++)
		argv[i] = "x";
	argv[401] = "end";
	argv[402] = NULL;
	o.timeout_seconds = 60;
	assert_int_equal(rb_sandbox_exec(&r, &o, argv), 0);
	assert_int_equal(r.exit_code, 0);
	for (i = 0; i < r.out.len; i++)
		words += r.out.ptr[i] == 'x';
	assert_int_equal(words, 400);
	assert_non_null(strstr(r.out.ptr, "end"));
	rb_proc_result_release(&r);
}

static void test_build_parse(void **state)
{
	static const char text[] =
		"In file included from /src/include/linux/mm.h:3,\n"
		"                 from /src/mm/a.c:2:\n"
		"/src/mm/a.c: In function 'f':\n"
		"/src/mm/a.c:12:5: warning: unused variable 'x' "
		"[-Wunused-variable]\n"
		"   12 |  int x;\n"
		"/src/kernel/ksysfs.c:50:13: error: unused variable 'y' "
		"[-Werror=unused-variable]\n"
		"../mm/b.c:3: error: expected ';' before '}' token\n"
		"/usr/include/stdio.h:1:1: warning: not ours\n"
		"/src/mm/a.c:12:5: warning: unused variable 'x' "
		"[-Wunused-variable]\n"
		"make[2]: *** [/src/scripts/Makefile.build:250: mm/b.o] Error 1\n";
	struct rb_findings out = { 0 };

	(void)state;
	assert_int_equal(rb_build_parse(&out, text), 0);
	assert_int_equal(out.n, 3);
	assert_string_equal(out.v[0].file, "mm/a.c");
	assert_int_equal(out.v[0].line, 12);
	assert_string_equal(out.v[0].category, "build-warning");
	assert_string_equal(out.v[0].code,
			    "warning: unused variable 'x' [-Wunused-variable]");
	/* CONFIG_WERROR: still a warning, named as without it. */
	assert_string_equal(out.v[1].file, "kernel/ksysfs.c");
	assert_string_equal(out.v[1].category, "build-warning");
	assert_string_equal(out.v[1].message,
			    "unused variable 'y' [-Wunused-variable]");
	assert_string_equal(out.v[2].file, "mm/b.c");
	assert_int_equal(out.v[2].line, 3);
	assert_string_equal(out.v[2].category, "build-error");
	assert_int_equal(out.v[2].severity, RB_FSEV_HIGH);
	rb_findings_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_trusted_base),
		cmocka_unit_test(test_linux),
		cmocka_unit_test(test_many_args),
		cmocka_unit_test(test_build_parse),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
