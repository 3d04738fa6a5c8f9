// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_maintainers.c - the MAINTAINERS lookup on a hand-written fixture
 * (tests/data/maintainers): globs, X:, N:, K:, depth ordering, .mailmap
 * in its four forms, roles, list kinds, the "in file" addresses of a
 * .yaml file, RFC 822 lists in M: and a directory pattern without its
 * "/". The expected outputs (patches/NN.out and NN.roles) were recorded
 * once from linux 6.1's scripts/get_maintainer.pl --no-tree --nogit --nogit-fallback
 * [--norolestats] run in a copy of the fixture tree; t_maintainers_parity
 * re-checks them against the real script when a kernel tree is present.
 * Also: sections, -f paths, the Perl regex translation, the blob cache on
 * a real git repository, the on-disk index (round trip, damaged and
 * foreign files), and hostile input.
 */
#include <pthread.h>
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

#include "review/maint/maint_priv.h"
#include "review/maint/maint_regex.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

static char data[4096];

static void data_path(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/%s", data, rel);
}

static struct rb_maint *load_fixture(void)
{
	char mf[4200], mm[4200], tree[4200];
	struct rb_maint *m = NULL;

	data_path(mf, sizeof(mf), "MAINTAINERS");
	data_path(mm, sizeof(mm), "mailmap");
	data_path(tree, sizeof(tree), "tree");
	assert_int_equal(rb_maint_load_file(&m, mf, mm, tree), 0);
	assert_non_null(m);
	return m;
}

static void check_golden(struct rb_maint *m, const char *name)
{
	struct rb_buf patch = RB_BUF_INIT(1 << 20), want = RB_BUF_INIT(1 << 20),
		      got = RB_BUF_INIT(1 << 20);
	struct rb_maint_result *r = NULL;
	char p[4200];
	int roles;

	data_path(p, sizeof(p), "patches/");
	assert_true(strlen(p) + strlen(name) + 8 < sizeof(p));
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "%s.patch", name);
	assert_int_equal(rb_read_file(&patch, p), 0);
	assert_int_equal(rb_maint_lookup_patch(&r, m, patch.ptr, patch.len), 0);
	for (roles = 0; roles < 2; roles++) {
		data_path(p, sizeof(p), "patches/");
		snprintf(p + strlen(p), sizeof(p) - strlen(p), "%s.%s", name,
			 roles ? "roles" : "out");
		rb_buf_reset(&want);
		rb_buf_reset(&got);
		assert_int_equal(rb_read_file(&want, p), 0);
		assert_int_equal(rb_maint_format(&got, r,
						 roles ? RB_MAINT_FMT_ROLES :
							 0),
				 0);
		if (strcmp(want.ptr, got.ptr))
			fprintf(stderr, "%s:\nwant:\n%sgot:\n%s", p, want.ptr,
				got.ptr);
		assert_string_equal(want.ptr, got.ptr);
	}
	rb_maint_result_free(r);
	rb_buf_release(&patch);
	rb_buf_release(&want);
	rb_buf_release(&got);
}

/* drivers/alpha: depth order, X: exclusion, a keyword in the message. */
static void test_depth_exclude(void **state)
{
	struct rb_maint *m = load_fixture();

	check_golden(m, "01-alpha");
	rb_maint_free(m);
}

/* K: only on +/- lines once the diff began; (?i); list dedup by lc(). */
static void test_keywords(void **state)
{
	struct rb_maint *m = load_fixture();

	check_golden(m, "02-keywords");
	rb_maint_free(m);
}

/* * ? [ch] globs, slash counts, N:, and "F: drivers/beta" as a dir. */
static void test_globs(void **state)
{
	struct rb_maint *m = load_fixture();

	check_golden(m, "03-globs");
	rb_maint_free(m);
}

/* .mailmap forms, renames, a quoted name, a name cut at 50 bytes. */
static void test_mailmap(void **state)
{
	struct rb_maint *m = load_fixture();

	check_golden(m, "04-mailmap");
	rb_maint_free(m);
}

/* M:/R: values that are RFC 822 address lists are split; others with a
 * "," (a comment, a quoted or unquoted name) are not.
 */
static void test_commas(void **state)
{
	struct rb_maint *m = load_fixture();

	check_golden(m, "06-commas");
	rb_maint_free(m);
}

/* Addresses in a .yaml file, "in file" roles. */
static void test_yaml(void **state)
{
	struct rb_maint *m = load_fixture();

	check_golden(m, "05-yaml");
	rb_maint_free(m);
}

struct thread_arg {
	struct rb_maint *m;
	const struct rb_buf *patch;
	const char *want;
	int bad;
};

static void *lookup_thread(void *p)
{
	struct thread_arg *a = p;
	int i;

	for (i = 0; i < 50; i++) {
		struct rb_maint_result *r = NULL;
		struct rb_buf got = RB_BUF_INIT(1 << 16);

		if (rb_maint_lookup_patch(&r, a->m, a->patch->ptr,
					  a->patch->len) ||
		    rb_maint_format(&got, r, RB_MAINT_FMT_ROLES) ||
		    strcmp(got.ptr, a->want))
			a->bad++;
		rb_maint_result_free(r);
		rb_buf_release(&got);
	}
	return NULL;
}

/* Lookups in parallel on one handle (lazy regexes, the -d memo). */
static void test_threads(void **state)
{
	struct rb_maint *m = load_fixture();
	struct rb_buf patch = RB_BUF_INIT(1 << 20), want = RB_BUF_INIT(1 << 20);
	struct thread_arg a[4];
	pthread_t t[4];
	char p[4200];
	int i;

	data_path(p, sizeof(p), "patches/03-globs.patch");
	assert_int_equal(rb_read_file(&patch, p), 0);
	data_path(p, sizeof(p), "patches/03-globs.roles");
	assert_int_equal(rb_read_file(&want, p), 0);
	for (i = 0; i < 4; i++) {
		a[i].m = m;
		a[i].patch = &patch;
		a[i].want = want.ptr;
		a[i].bad = 0;
		assert_int_equal(
			pthread_create(&t[i], NULL, lookup_thread, &a[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(a[i].bad, 0);
	}
	rb_buf_release(&patch);
	rb_buf_release(&want);
	rb_maint_free(m);
}

static void test_sections(void **state)
{
	struct rb_maint *m = load_fixture();
	struct rb_buf patch = RB_BUF_INIT(1 << 20);
	struct rb_maint_result *r = NULL;
	const struct rb_maint_section *s;
	char p[4200];

	data_path(p, sizeof(p), "patches/01-alpha.patch");
	assert_int_equal(rb_read_file(&patch, p), 0);
	assert_int_equal(rb_maint_lookup_patch(&r, m, patch.ptr, patch.len), 0);
	assert_int_equal(r->nsections, 4);
	assert_string_equal(r->sections[0]->name, "ALPHA CORE FILE");
	assert_string_equal(r->sections[1]->name, "ALPHA DRIVER");
	assert_string_equal(r->sections[2]->name, "THE REST");
	assert_string_equal(r->sections[3]->name, "KEYWORDS");
	s = r->sections[1];
	assert_string_equal(s->status, "Maintained");
	assert_int_equal(s->ntrees, 1);
	assert_string_equal(s->trees[0],
			    "git git://git.example.org/alpha.git alpha-next");
	assert_int_equal(s->nlists, 1);
	assert_string_equal(s->lists[0], "alpha-list@example.org");
	assert_int_equal(s->nmaintainers, 1);
	assert_int_equal(s->nreviewers, 1);
	assert_string_equal(s->reviewers[0],
			    "Bob Reviewer <bob@example.org> (reviews only)");
	assert_int_equal(s->nwebs, 1);
	assert_int_equal(r->nfiles, 3);
	assert_string_equal(r->files[0], "drivers/alpha/core.c");
	assert_int_equal(r->to[0].kind, RB_MAINT_PERSON);
	assert_int_equal(r->to[r->nto - 1].kind, RB_MAINT_LIST);

	s = rb_maint_find_section(m, "GLOB SECTION");
	assert_non_null(s);
	assert_string_equal(s->status, "Supported");
	assert_int_equal(s->nmaintainers, 2);
	assert_null(rb_maint_find_section(m, "NO SUCH SECTION"));
	assert_int_equal(rb_maint_nsections(m), 12);
	assert_string_equal(rb_maint_section_at(m, 0)->name,
			    "3C FIRST SECTION");
	assert_null(rb_maint_section_at(m, 12));
	assert_string_equal(rb_maint_warnings(m), "");
	rb_maint_result_free(r);
	rb_buf_release(&patch);
	rb_maint_free(m);
}

/* get_maintainer -f: a directory gets its "/", a file its keywords. */
static void test_paths(void **state)
{
	static const char *const paths[] = { "drivers/beta", "./lib//bits.c" };
	static const char *const missing[] = { "no/such/file.c" };
	struct rb_maint *m = load_fixture();
	struct rb_maint_result *r = NULL;
	struct rb_buf got = RB_BUF_INIT(1 << 20);

	assert_int_equal(rb_maint_lookup_paths(&r, m, paths, 1), 0);
	assert_string_equal(r->files[0], "drivers/beta/");
	assert_int_equal(rb_maint_format(&got, r, RB_MAINT_FMT_ROLES), 0);
	assert_string_equal(got.ptr, "Beth Beta <beth@example.org> "
				     "(supporter:BETA DIRECTORY WITHOUT A "
				     "SLASH)\nlinux-kernel@vger.kernel.org "
				     "(open list)\n");
	rb_maint_result_free(r);
	r = NULL;
	/* Not in the fixture tree: get_maintainer dies, so do we. */
	assert_int_equal(rb_maint_lookup_paths(&r, m, paths + 1, 1),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_maint_lookup_paths(&r, m, missing, 1),
			 -RB_ENOTFOUND);
	assert_null(r);
	rb_buf_release(&got);
	rb_maint_free(m);
}

static bool perl_match(const char *pat, bool x, const char *s)
{
	struct rb_perl_re r = { 0 };
	bool ok;

	assert_int_equal(rb_perl_re_compile(&r, pat, strlen(pat), x), 0);
	ok = rb_perl_re_match(&r, s, strlen(s));
	rb_perl_re_release(&r);
	return ok;
}

static void test_regex(void **state)
{
	struct rb_perl_re r = { 0 };
	static const char *const refused[] = { "a(?=b)", "(a)\\1", "\\Gx",
					       "a++",	 "(?s:.)", "[a",
					       "a)",	 "\\p{L}" };
	size_t i;

	assert_true(perl_match("(?:\\b|_)bpf(?:\\b|_)", true, "+ x_bpf_y\n"));
	assert_false(perl_match("(?:\\b|_)bpf(?:\\b|_)", true, "+ xbpfy\n"));
	assert_true(perl_match("\\b(?i:clang|llvm)\\b", true, "use LLVM now"));
	assert_false(perl_match("\\b(?i:clang|llvm)\\b", true, "useLLVM"));
	assert_true(perl_match("^[+-].*(?i)pidfd", true, "+PIDFD_open\n"));
	assert_false(perl_match("^[+-].*(?i)pidfd", true, " pidfd\n"));
	/* The prefix binds to the first alternative only, as in Perl. */
	assert_true(perl_match("^[+-].*phylink\\.h|struct\\s+phylink", true,
			       " struct  phylink *pl;\n"));
	assert_true(perl_match("[^@]sifive", true, "x sifive"));
	assert_false(perl_match("[^@]sifive", true, "a@sifive"));
	/* /x: white space and comments are not part of the pattern. */
	assert_true(perl_match("foo bar # a comment", true, "foobar"));
	assert_false(perl_match("foo bar", false, "foobar"));
	/* "." never matches "\n"; "$" matches before a final "\n". */
	assert_false(perl_match("a.b", false, "a\nb"));
	assert_true(perl_match("end$", false, "the end\n"));
	assert_true(
		perl_match("(devm_)?hwmon_device_(un)?register(|_with_info)",
			   true, "hwmon_device_register_with_info"));
	assert_true(perl_match("bcm[9]?6878", true, "arch/arm/bcm96878.dts"));
	assert_true(perl_match("a{2,3}b", false, "caab"));
	assert_true(perl_match("\\x41\\d+", false, "A12"));
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		memset(&r, 0, sizeof(r));
		assert_true(rb_perl_re_compile(&r, refused[i],
					       strlen(refused[i]), false) < 0);
	}
	/* The literal prefilter: every match holds one of them. */
	memset(&r, 0, sizeof(r));
	assert_int_equal(
		rb_perl_re_compile(&r, "\\b(?i:clang|llvm)\\b", 19, true), 0);
	assert_int_equal(r.nlits, 2);
	assert_true(rb_perl_re_maybe(&r, "x llvm", 6));
	assert_false(rb_perl_re_maybe(&r, "x gcc", 5));
	rb_perl_re_release(&r);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);
	va_list ap;
	int rc;

	va_start(ap, fmt);
	assert_int_equal(rb_buf_vprintf(&b, fmt, ap), 0);
	va_end(ap);
	rc = system(b.ptr);
	rb_buf_release(&b);
	return rc;
}

/* A real repository: blobs, not the worktree; the cache reloads only
 * when the MAINTAINERS or .mailmap blob changes.
 */
static void test_git_cache(void **state)
{
	char dir[] = "/tmp/rb-maint-git.XXXXXX";
	struct rb_maint_cache *c = NULL;
	struct rb_maint *m1 = NULL, *m2 = NULL, *m3 = NULL, *old = NULL;
	struct rb_maint *none = NULL;
	struct rb_maint_result *r = NULL;
	static const char *const f[] = { "drivers/beta/inner.c" };
	struct rb_buf got = RB_BUF_INIT(1 << 16);

	assert_non_null(mkdtemp(dir));
	assert_int_equal(
		sh("set -e; cd %s; git init -q .; cp -r %s/tree/. .;"
		   "cp %s/MAINTAINERS MAINTAINERS; cp %s/mailmap .mailmap;"
		   "git add -A; git -c user.name=t -c user.email=t@t "
		   "commit -q -m one",
		   dir, data, data, data),
		0);
	assert_int_equal(rb_maint_cache_new(&c), 0);
	assert_int_equal(rb_maint_cache_get(&m1, c, dir, NULL), 0);
	assert_int_equal(rb_maint_cache_loads(c), 1);
	assert_int_equal(rb_maint_lookup_paths(&r, m1, f, 1), 0);
	assert_int_equal(rb_maint_format(&got, r, 0), 0);
	assert_string_equal(got.ptr, "Beth Beta <beth@example.org>\n"
				     "linux-kernel@vger.kernel.org\n");
	rb_maint_result_free(r);
	r = NULL;

	/* Another commit that leaves MAINTAINERS alone: no reload. The
	 * worktree's MAINTAINERS is edited but never read.
	 */
	assert_int_equal(
		sh("set -e; cd %s; echo x > other.c; git add other.c;"
		   "git -c user.name=t -c user.email=t@t commit -q -m two;"
		   "echo 'garbage' > MAINTAINERS",
		   dir),
		0);
	assert_int_equal(rb_maint_cache_get(&m2, c, dir, "HEAD"), 0);
	assert_int_equal(rb_maint_cache_loads(c), 1);
	assert_int_equal(rb_maint_nsections(m2), 12);

	/* A new MAINTAINERS blob: reloaded. */
	assert_int_equal(
		sh("set -e; cd %s; git checkout -q MAINTAINERS;"
		   "sed -i 's/^M:\tBeth Beta <beth@example.org>/M:\tBen "
		   "Beta <ben@example.org>/' MAINTAINERS;"
		   "git -c user.name=t -c user.email=t@t commit -q -a -m 3",
		   dir),
		0);
	assert_int_equal(rb_maint_cache_get(&m3, c, dir, NULL), 0);
	assert_int_equal(rb_maint_cache_loads(c), 2);
	rb_buf_reset(&got);
	assert_int_equal(rb_maint_lookup_paths(&r, m3, f, 1), 0);
	assert_int_equal(rb_maint_format(&got, r, 0), 0);
	assert_string_equal(got.ptr, "Ben Beta <ben@example.org>\n"
				     "linux-kernel@vger.kernel.org\n");
	rb_maint_result_free(r);
	r = NULL;

	/* An older revision, and handles that outlive the cache. */
	assert_int_equal(rb_maint_load_git(&old, dir, "HEAD~2"), 0);
	rb_maint_cache_free(c);
	rb_buf_reset(&got);
	assert_int_equal(rb_maint_lookup_paths(&r, old, f, 1), 0);
	assert_int_equal(rb_maint_format(&got, r, 0), 0);
	assert_string_equal(got.ptr, "Beth Beta <beth@example.org>\n"
				     "linux-kernel@vger.kernel.org\n");
	rb_maint_result_free(r);
	assert_int_equal(rb_maint_load_git(&none, dir, "no-such-rev"),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_maint_load_git(&none, "/nonexistent/repo", NULL),
			 -RB_ENOTFOUND);
	assert_null(none); /* *out is set only on success */
	rb_maint_free(m1);
	rb_maint_free(m2);
	rb_maint_free(m3);
	rb_maint_free(old);
	rb_buf_release(&got);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/* Every fixture lookup that needs no tree, in both formats, plus the
 * sections and the warnings: what two handles must agree on.
 */
static void all_outputs(struct rb_maint *m, struct rb_buf *out)
{
	static const char *const names[] = { "01-alpha", "02-keywords",
					     "03-globs", "04-mailmap",
					     "06-commas" };
	struct rb_buf patch = RB_BUF_INIT(1 << 20);
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct rb_maint_result *r = NULL;
		char p[4200];

		data_path(p, sizeof(p), "patches/");
		snprintf(p + strlen(p), sizeof(p) - strlen(p), "%s.patch",
			 names[i]);
		rb_buf_reset(&patch);
		assert_int_equal(rb_read_file(&patch, p), 0);
		assert_int_equal(
			rb_maint_lookup_patch(&r, m, patch.ptr, patch.len), 0);
		assert_int_equal(rb_maint_format(out, r, 0), 0);
		assert_int_equal(rb_maint_format(out, r, RB_MAINT_FMT_ROLES),
				 0);
		assert_int_equal(rb_maint_format_sections(out, r), 0);
		rb_maint_result_free(r);
	}
	assert_int_equal(rb_buf_puts(out, rb_maint_warnings(m)), 0);
	rb_buf_release(&patch);
}

/* The index survives its file format: same outputs; every truncation and
 * a flipped byte are refused (or decode to something that still runs).
 */
static void test_cache_roundtrip(void **state)
{
	struct rb_maint *m = load_fixture(), *m2 = NULL;
	struct rb_buf enc = RB_BUF_INIT(1 << 26), a = RB_BUF_INIT(1 << 22),
		      b = RB_BUF_INIT(1 << 22);
	struct index *ix = NULL;
	char tree[4200], *copy;
	size_t cut;

	(void)state;
	data_path(tree, sizeof(tree), "tree");
	assert_int_equal(rb_maint__cache_encode(&enc, rb_maint__index(m)), 0);
	copy = malloc(enc.len);
	assert_non_null(copy);
	memcpy(copy, enc.ptr, enc.len);
	assert_int_equal(rb_maint__cache_decode(&ix, copy, enc.len, true), 0);
	assert_int_equal(rb_maint__wrap(&m2, ix, tree), 0);
	all_outputs(m, &a);
	all_outputs(m2, &b);
	assert_true(a.len > 1000);
	assert_string_equal(a.ptr, b.ptr);
	assert_int_equal(rb_maint_nsections(m2), rb_maint_nsections(m));
	check_golden(m2, "05-yaml");
	rb_maint_free(m2);

	for (cut = 0; cut < enc.len; cut += 1 + cut / 8) {
		copy = malloc(cut + 1);
		assert_non_null(copy);
		memcpy(copy, enc.ptr, cut);
		ix = NULL;
		assert_int_equal(rb_maint__cache_decode(&ix, copy, cut, false),
				 -RB_EINVAL);
		assert_null(ix);
	}
	/* A flipped bit: the checksum refuses it. */
	copy = malloc(enc.len);
	assert_non_null(copy);
	memcpy(copy, enc.ptr, enc.len);
	copy[enc.len / 2] ^= 0x10;
	assert_int_equal(rb_maint__cache_decode(&ix, copy, enc.len, true),
			 -RB_EINVAL);
	rb_maint_free(m);
	rb_buf_release(&enc);
	rb_buf_release(&a);
	rb_buf_release(&b);
}

/* The one file in @dir, into @path; 0 when there is none. */
static int cache_file(const char *dir, char *path, size_t len)
{
	char cmd[4400];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls %s/*.idx 2>/dev/null", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(path, (int)len, p))
		n++;
	pclose(p);
	if (n == 1)
		path[strcspn(path, "\n")] = '\0';
	return n;
}

/* rb_maint_load_git_cached(): the first load writes the index, the next
 * reads it (no typevalue array: it was not parsed); a damaged, foreign
 * or group-writable file is parsed around and replaced; an unwritable
 * directory only costs the parse.
 */
static void test_disk_cache(void **state)
{
	char dir[] = "/tmp/rb-maint-disk.XXXXXX", cdir[4200], f[4400];
	struct rb_maint *m = NULL, *ref = NULL;
	struct rb_buf want = RB_BUF_INIT(1 << 22), got = RB_BUF_INIT(1 << 22);
	int round;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cdir, sizeof(cdir), "%s/cache/sub", dir);
	assert_int_equal(
		sh("set -e; cd %s; mkdir repo; cd repo; git init -q .;"
		   "cp -r %s/tree/. .; cp %s/MAINTAINERS MAINTAINERS;"
		   "cp %s/mailmap .mailmap; git add -A;"
		   "git -c user.name=t -c user.email=t@t commit -q -m one",
		   dir, data, data, data),
		0);
	snprintf(f, sizeof(f), "%s/repo", dir);
	assert_int_equal(rb_maint_load_git(&ref, f, NULL), 0);
	all_outputs(ref, &want);
	check_golden(ref, "05-yaml");

	for (round = 0; round < 6; round++) {
		char file[4400];
		bool parsed;

		assert_int_equal(rb_maint_load_git_cached(&m, f, NULL, cdir),
				 0);
		parsed = rb_maint__index(m)->tv != NULL;
		/* 0: no file yet; 1: the file; 2: after damage; 3: the
		 * rewritten file; 4: after chmod g+w; 5: after a foreign
		 * owner (root only) or the file again.
		 */
		assert_int_equal(parsed, round == 0 || round == 2 ||
						 round == 4 ||
						 (round == 5 && !geteuid()));
		rb_buf_reset(&got);
		all_outputs(m, &got);
		assert_string_equal(want.ptr, got.ptr);
		check_golden(m, "05-yaml"); /* the tree is still read */
		rb_maint_free(m);
		m = NULL;
		assert_int_equal(cache_file(cdir, file, sizeof(file)), 1);
		if (round == 1)
			assert_int_equal(
				sh("printf 'X' | dd of=%s bs=1 seek=300 "
				   "conv=notrunc status=none",
				   file),
				0);
		if (round == 3)
			assert_int_equal(sh("chmod g+w %s", file), 0);
		if (round == 4 && !geteuid())
			assert_int_equal(sh("chown 65534 %s", file), 0);
	}
	/* Writing a file removes those not written for a month. */
	assert_int_equal(sh("set -e; cd %s; touch -d '40 days ago' old.idx "
			    "x.idx.tmp.1; touch -d '20 days ago' recent.idx;"
			    "touch -d '40 days ago' keep.txt; rm -f *-*.idx",
			    cdir),
			 0);
	assert_int_equal(rb_maint_load_git_cached(&m, f, NULL, cdir), 0);
	rb_maint_free(m);
	assert_int_equal(sh("set -e; cd %s; test ! -e old.idx;"
			    "test ! -e x.idx.tmp.1; test -e recent.idx;"
			    "test -e keep.txt; ls *-*.idx >/dev/null",
			    cdir),
			 0);

	/* A cache directory that can't be made. */
	snprintf(cdir, sizeof(cdir), "%s/repo/MAINTAINERS/cache", dir);
	assert_int_equal(rb_maint_load_git_cached(&m, f, NULL, cdir), 0);
	rb_buf_reset(&got);
	all_outputs(m, &got);
	assert_string_equal(want.ptr, got.ptr);
	rb_maint_free(m);
	rb_maint_free(ref);
	rb_buf_release(&want);
	rb_buf_release(&got);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/* The first .tree file of @dir into @path; 0 when there is none. */
static int facts_file(const char *dir, char *path, size_t len)
{
	char cmd[4400];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls %s/*.tree 2>/dev/null", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(path, (int)len, p))
		n++;
	pclose(p);
	path[strcspn(path, "\n")] = '\0';
	return n;
}

/* Whether the 05-yaml lookup on @m asked the tree for more. */
static bool yaml_incomplete(struct rb_maint *m)
{
	struct rb_buf patch = RB_BUF_INIT(1 << 20);
	struct rb_maint_result *r = NULL;
	char p[4200];
	bool inc;

	data_path(p, sizeof(p), "patches/05-yaml.patch");
	assert_int_equal(rb_read_file(&patch, p), 0);
	assert_int_equal(rb_maint_lookup_patch(&r, m, patch.ptr, patch.len), 0);
	inc = rb_maint_incomplete(m);
	rb_maint_result_free(r);
	rb_buf_release(&patch);
	return inc;
}

/*
 * rb_maint_load_cache_only(): nothing before a cached load of HEAD has
 * written the files; then the same outputs as a parse, for a loose and a
 * packed branch and a detached HEAD; a lookup that reads a .yaml file is
 * incomplete; a damaged, truncated or foreign-commit file is refused,
 * and the next cached load writes it again.
 */
static void test_cache_only(void **state)
{
	char dir[] = "/tmp/rb-maint-only.XXXXXX", cdir[4200], f[4400],
	     file[4400];
	struct rb_maint *m = NULL, *ref = NULL;
	struct rb_buf want = RB_BUF_INIT(1 << 22), got = RB_BUF_INIT(1 << 22);
	int round;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cdir, sizeof(cdir), "%s/cache", dir);
	assert_int_equal(
		sh("set -e; cd %s; mkdir repo; cd repo; git init -q .;"
		   "cp -r %s/tree/. .; cp %s/MAINTAINERS MAINTAINERS;"
		   "cp %s/mailmap .mailmap; git add -A;"
		   "git -c user.name=t -c user.email=t@t commit -q -m one",
		   dir, data, data, data),
		0);
	snprintf(f, sizeof(f), "%s/repo", dir);
	assert_int_equal(rb_maint_load_git(&ref, f, NULL), 0);
	all_outputs(ref, &want);
	assert_int_equal(rb_maint_load_cache_only(&m, f, cdir), -RB_ENOTFOUND);
	/* A revision that is not HEAD writes no .tree file. */
	assert_int_equal(rb_maint_load_git_cached(&m, f, "HEAD~0", cdir), 0);
	rb_maint_free(m);
	assert_int_equal(facts_file(cdir, file, sizeof(file)), 0);

	for (round = 0; round < 6; round++) {
		assert_int_equal(rb_maint_load_git_cached(&m, f, NULL, cdir),
				 0);
		rb_maint_free(m);
		m = NULL;
		if (round == 1)
			assert_int_equal(sh("cd %s && git pack-refs --all", f),
					 0);
		if (round == 2)
			assert_int_equal(
				sh("cd %s && git checkout -q --detach", f), 0);
		assert_int_equal(rb_maint_load_cache_only(&m, f, cdir), 0);
		rb_buf_reset(&got);
		all_outputs(m, &got);
		assert_string_equal(want.ptr, got.ptr);
		assert_false(rb_maint_incomplete(m));
		assert_true(yaml_incomplete(m));
		rb_maint_free(m);
		m = NULL;
		assert_int_equal(facts_file(cdir, file, sizeof(file)), 1);
		/* 3: a flipped byte; 4: cut short; 5: the index damaged. */
		if (round == 3)
			assert_int_equal(
				sh("printf 'X' | dd of=%s bs=1 seek=130 "
				   "conv=notrunc status=none",
				   file),
				0);
		if (round == 4)
			assert_int_equal(sh("truncate -s 100 %s", file), 0);
		if (round == 5) {
			assert_int_equal(cache_file(cdir, file, sizeof(file)),
					 1);
			assert_int_equal(
				sh("printf 'X' | dd of=%s bs=1 seek=300 "
				   "conv=notrunc status=none",
				   file),
				0);
		}
		if (round >= 3)
			assert_int_equal(rb_maint_load_cache_only(&m, f, cdir),
					 -RB_ENOTFOUND);
	}
	/* A new commit: its tree is not known until a cached load. */
	assert_int_equal(sh("cd %s && git -c user.name=t -c user.email=t@t "
			    "commit -q --allow-empty -m two",
			    f),
			 0);
	assert_int_equal(rb_maint_load_cache_only(&m, f, cdir), -RB_ENOTFOUND);
	rb_maint_free(ref);
	rb_buf_release(&want);
	rb_buf_release(&got);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/* "Fixes:" lines: the signers of the fixed commit, as get_maintainer's
 * vcs_add_commit_signers() finds them with git log (not Linus, not a
 * Tested-by:, not .get_maintainer.ignore), mailmapped, counted, with the
 * "blamed_fixes" role. Equal counts come in string order (get_maintainer:
 * Perl's hash order).
 */
static void test_fixes(void **state)
{
	char dir[] = "/tmp/rb-maint-fixes.XXXXXX";
	struct rb_maint *m = NULL;
	struct rb_maint_result *r = NULL;
	struct rb_buf got = RB_BUF_INIT(1 << 16), patch = RB_BUF_INIT(1 << 16);
	char head[64] = "";
	FILE *f;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(
		sh("set -e; cd %s; git init -q .; cp -r %s/tree/. .;"
		   "cp %s/MAINTAINERS MAINTAINERS; cp %s/mailmap .mailmap;"
		   "echo 'Zed Ignored <zed@example.org> # never' "
		   "> .get_maintainer.ignore; git add -A;"
		   "git -c user.name=t -c user.email=t@t commit -q -m base;"
		   "echo x > drivers/first.c; git add -A;"
		   "printf 'drivers: a bug\\n\\nText.\\n\\n"
		   "Signed-off-by: Sig One <sig.one@example.org>\\n"
		   "Reviewed-by: Linus Torvalds <torvalds@linux-foundation.org>\\n"
		   "Acked-by: Alice Example <alice@example.org>\\n"
		   "  Signed-off-by: Old Name <old@example.org>\\n"
		   "Signed-off-by: Zed Ignored <zed@example.org>\\n"
		   "Tested-by: Not Counted <tested@example.org>\\n"
		   "Signed-off-by: Sig One <sig.one@example.org>\\n' |"
		   "git -c user.name=t -c user.email=t@t commit -q -F -;"
		   "git rev-parse --short=12 HEAD > head",
		   dir, data, data, data),
		0);
	assert_int_equal(sh("test -s %s/head", dir), 0);
	{
		char hp[200];

		snprintf(hp, sizeof(hp), "%s/head", dir);
		f = fopen(hp, "r");
		assert_non_null(f);
		assert_non_null(fgets(head, sizeof(head), f));
		fclose(f);
		head[strcspn(head, "\n")] = '\0';
	}
	assert_int_equal(rb_buf_printf(&patch,
				       "Subject: [PATCH] fix\n\n"
				       "Fixes: %s (\"drivers: a bug\")\n"
				       "Fixes: 123456789abc (\"not here\")\n"
				       "Fixes: %s (\"twice\")\n\n"
				       "--- a/drivers/first.c\n"
				       "+++ b/drivers/first.c\n",
				       head, head),
			 0);
	assert_int_equal(rb_maint_load_git(&m, dir, NULL), 0);
	assert_int_equal(rb_maint_lookup_patch(&r, m, patch.ptr, patch.len), 0);
	assert_int_equal(rb_maint_format(&got, r, RB_MAINT_FMT_ROLES), 0);
	assert_string_equal(
		got.ptr,
		"\"Lee, Chun-Yi\" <lee@example.org> "
		"(maintainer:3C FIRST SECTION)\n"
		"Sig One <sig.one@example.org> (blamed_fixes:2/1=100%)\n"
		"Alice Example <alice@example.org> (blamed_fixes:1/1=100%)\n"
		"New Name <new@example.org> (blamed_fixes:1/1=100%)\n"
		"linux-kernel@vger.kernel.org (open list)\n");
	rb_maint_result_free(r);
	rb_maint_free(m);
	rb_buf_release(&got);
	rb_buf_release(&patch);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/* Hostile MAINTAINERS text and patches: errors or empty output, no
 * crash; unsupported regexes are reported, not fatal.
 */
static void test_hostile(void **state)
{
	static const char bad[] = "X\n"
				  "F:\n"
				  "K:\t(?=lookahead)\n"
				  "N:\t[unclosed\n"
				  "F:\t[\n"
				  "F:\t(a|b)+/\n"
				  "M:\t<\n"
				  "L:\t \n"
				  "S:\n"
				  "\0\xff binary \x01\n"
				  "M:";
	static const char mm[] = "<a> <b>\n<>\n a <b> c <d>\nx<y><z>\n#\n";
	static const char patch[] = "+++ \n--- /\n+++ b/a//b\n@@ -1 +1 @@\n"
				    "diff --git a/x b/y z\n rename from \n"
				    "+lookahead\n\0nul\n";
	struct rb_maint *m = NULL;
	struct rb_maint_result *r = NULL;
	struct rb_buf out = RB_BUF_INIT(1 << 16);

	assert_int_equal(rb_maint_load_mem(&m, bad, sizeof(bad) - 1, mm,
					   sizeof(mm) - 1),
			 0);
	assert_non_null(strstr(rb_maint_warnings(m), "K: (?=lookahead)"));
	assert_non_null(strstr(rb_maint_warnings(m), "N: [unclosed"));
	assert_int_equal(rb_maint_lookup_patch(&r, m, patch, sizeof(patch) - 1),
			 0);
	assert_int_equal(rb_maint_format(&out, r, RB_MAINT_FMT_ROLES), 0);
	assert_int_equal(rb_maint_format_sections(&out, r), 0);
	rb_maint_result_free(r);
	rb_maint_free(m);
	m = NULL;
	assert_int_equal(rb_maint_load_mem(&m, "", 0, NULL, 0), 0);
	assert_int_equal(rb_maint_nsections(m), 0);
	assert_int_equal(rb_maint_lookup_patch(&r, m, "", 0), 0);
	assert_int_equal(r->nto, 0);
	rb_maint_result_free(r);
	rb_maint_free(m);
	rb_buf_release(&out);
}

/* The sections of @r, "NAME,NAME," in result order. */
static void section_names(char *out, size_t len,
			  const struct rb_maint_result *r)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < r->nsections; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s,",
			 r->sections[i]->name);
}

/*
 * The files matched are those apply writes: a C-quoted name unquoted
 * ("b/scripts/checkpatch\056pl" is scripts/checkpatch.pl), and both sides
 * of a copy or a rename, quoted or not. get_maintainer.pl would match the
 * quoted text, and a series could touch an "off" subsystem unseen.
 */
static void test_quoted_paths(void **state)
{
	static const char mf[] = "CHECKPATCH\n"
				 "M:\tJoe Perches <joe@example.org>\n"
				 "S:\tMaintained\n"
				 "F:\tscripts/checkpatch.pl\n"
				 "\n"
				 "OLD\n"
				 "M:\tOld One <old@example.org>\n"
				 "S:\tMaintained\n"
				 "F:\told/\n"
				 "\n"
				 "NEW\n"
				 "M:\tNew One <new@example.org>\n"
				 "S:\tMaintained\n"
				 "F:\tnew/\n";
	static const char quoted[] =
		"diff --git \"a/scripts/checkpatch\\056pl\" "
		"\"b/scripts/checkpatch\\056pl\"\n"
		"index 1111111..2222222 100755\n"
		"--- \"a/scripts/checkpatch\\056pl\"\n"
		"+++ \"b/scripts/checkpatch\\056pl\"\n"
		"@@ -1 +1 @@\n"
		"-#!/usr/bin/perl\n"
		"+#!/usr/bin/perl -w\n";
	static const char copy[] =
		"diff --git \"a/old/\\141.c\" \"b/new/b.c\"\n"
		"similarity index 100%\n"
		"copy from \"old/\\141.c\"\n"
		"copy to \"new/b.c\"\n";
	static const char rename[] = "diff --git a/old/a.c b/new/b.c\n"
				     "similarity index 100%\n"
				     "rename from old/a.c\n"
				     "rename to new/b.c\n";
	struct rb_maint *m = NULL;
	struct rb_maint_result *r = NULL;
	struct rb_buf out = RB_BUF_INIT(1 << 16);
	char names[256];

	(void)state;
	assert_int_equal(rb_maint_load_mem(&m, mf, sizeof(mf) - 1, NULL, 0), 0);
	assert_int_equal(
		rb_maint_lookup_patch(&r, m, quoted, sizeof(quoted) - 1), 0);
	section_names(names, sizeof(names), r);
	assert_string_equal(names, "CHECKPATCH,");
	assert_int_equal(rb_maint_format(&out, r, 0), 0);
	assert_string_equal(out.ptr, "Joe Perches <joe@example.org>\n");
	rb_maint_result_free(r);

	assert_int_equal(rb_maint_lookup_patch(&r, m, copy, sizeof(copy) - 1),
			 0);
	section_names(names, sizeof(names), r);
	assert_non_null(strstr(names, "OLD,"));
	assert_non_null(strstr(names, "NEW,"));
	rb_maint_result_free(r);

	assert_int_equal(
		rb_maint_lookup_patch(&r, m, rename, sizeof(rename) - 1), 0);
	section_names(names, sizeof(names), r);
	assert_non_null(strstr(names, "OLD,"));
	assert_non_null(strstr(names, "NEW,"));
	rb_maint_result_free(r);
	rb_maint_free(m);
	rb_buf_release(&out);
}

int main(void)
{
	const char *src = getenv("RB_SRC");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depth_exclude),
		cmocka_unit_test(test_keywords),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_mailmap),
		cmocka_unit_test(test_yaml),
		cmocka_unit_test(test_commas),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_regex),
		cmocka_unit_test(test_git_cache),
		cmocka_unit_test(test_cache_roundtrip),
		cmocka_unit_test(test_cache_only),
		cmocka_unit_test(test_disk_cache),
		cmocka_unit_test(test_fixes),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_quoted_paths),
	};
	int ret;

	snprintf(data, sizeof(data), "%s/tests/data/maintainers",
		 src ? src : "..");
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
