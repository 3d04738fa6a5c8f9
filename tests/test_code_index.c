// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_code_index.c - the word index of a tree on disk
 * (review/code/code_index.h), on small repositories built with libgit2 in a
 * temporary directory: what is indexed and what a pattern's pieces find;
 * that a file built from another tree's file, or in batches, is the very
 * file a build from nothing writes; a damaged, truncated or foreign file
 * refused and built again; concurrent builders, threads and processes;
 * the cap on open indexes; that a tree whose build is held up does not
 * hold up another; that a series' tip never gets into the index.
 */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "review/apply/apply.h"
#include "review/code/code_index.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/log.h"
#include "tests/testlib.h"
#include "util/banned.h"

struct fx {
	char dir[64]; /* the repository */
	char cache[64]; /* the index files: cache/a, cache/b, ... */
	git_repository *repo;
	git_oid c1, c2, t1, t2;
	char *big;
};

static const char a_c[] = "int foo_bar(void)\n{\n\treturn bar_baz + "
			  "0x1fUL;\n}\n";
static const char b_c[] = "static int foo_qux;\nint 3dnow_thing;\n";
static const char b_c2[] = "static int foo_qux;\nint new_in_two;\n";
static const char bin[] = "\x00\x01 foo_bar binary_only \x00";

static void tree_of(git_oid *out, git_repository *repo, const git_oid *c)
{
	git_commit *k = NULL;

	assert_int_equal(git_commit_lookup(&k, repo, c), 0);
	git_oid_cpy(out, git_commit_tree_id(k));
	git_commit_free(k);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	size_t bigl = RB_CODE_INDEX_BLOB_MAX + 16;

	assert_non_null(f);
	if (!getenv("RB_VERBOSE"))
		rb_log_set_quiet(1);
	f->big = malloc(bigl + 1);
	assert_non_null(f->big);
	memset(f->big, 'x', bigl);
	memcpy(f->big, "huge_word ", 10);
	f->big[bigl] = '\0';
	{
		struct rb_test_file v1[] = {
			{ "mm/a.c", a_c },
			{ "mm/b.c", b_c },
			{ "include/c.h", "foo_bar\n" },
			{ "dup1.txt", "shared_word here\n" },
			{ "dup2.txt", "shared_word here\n" },
			{ "bin.dat", bin, 0, sizeof(bin) - 1 },
			{ "big.txt", f->big },
			{ "link", "symlink_word", 0120000 },
		};
		struct rb_test_file v2[] = {
			{ "mm/a.c", a_c },
			{ "mm/b.c", b_c2 },
			{ "mm/d.c", "int foo_bar_two;\n" },
			{ "dup1.txt", "shared_word here\n" },
			{ "bin.dat", bin, 0, sizeof(bin) - 1 },
			{ "big.txt", f->big },
			{ "link", "symlink_word", 0120000 },
		};

		rb_test_repo_new(&f->repo, f->dir, sizeof(f->dir),
				 "/tmp/rb-test-cidx.XXXXXX");
		rb_test_commit(&f->c1, f->repo, NULL, v1, 8, 1000, "one\n");
		rb_test_commit(&f->c2, f->repo, &f->c1, v2, 7, 2000, "two\n");
	}
	tree_of(&f->t1, f->repo, &f->c1);
	tree_of(&f->t2, f->repo, &f->c2);
	snprintf(f->cache, sizeof(f->cache), "/tmp/rb-test-cidxc.XXXXXX");
	assert_non_null(mkdtemp(f->cache));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	rb_code_index_drop();
	rb_code_index_set_dir(NULL);
	rb_code_index__set_batch_bytes(0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->cache);
	assert_int_equal(system(cmd), 0);
	rb_test_repo_free(f->repo, f->dir);
	free(f->big);
	free(f);
	return 0;
}

/* f->cache/@sub as the directory of the index files. */
static void use_dir(struct fx *f, const char *sub, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", f->cache, sub);
	rb_code_index_drop();
	assert_int_equal(rb_code_index_set_dir(path), 0);
}

static void file_of(char *out, size_t size, const char *dir, const git_oid *t)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), t);
	snprintf(out, size, "%s/%s.cidx", dir, hex);
}

static void read_all(struct rb_buf *b, const char *path)
{
	rb_buf_init(b, 64 << 20);
	assert_int_equal(rb_read_file(b, path), 0);
}

static struct rb_code_index *get(struct fx *f, const git_oid *tree)
{
	struct rb_code_index *ix = NULL;

	if (rb_code_index_get(&ix, f->repo, tree))
		fail_msg("get: %s", rb_errmsg());
	assert_non_null(ix);
	return ix;
}

static const char *how(const struct rb_code_index *ix)
{
	struct rb_code_index_stats st;

	rb_code_index_get_stats(ix, &st);
	return st.how;
}

/* The number of the blob at @path of @tree. */
static uint32_t blob_no(struct fx *f, const struct rb_code_index *ix,
			const git_oid *tree, const char *path)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	uint32_t k;

	assert_int_equal(git_tree_lookup(&t, f->repo, tree), 0);
	assert_int_equal(git_tree_entry_bypath(&e, t, path), 0);
	k = rb_code_index_blob(ix, git_tree_entry_id(e));
	git_tree_entry_free(e);
	git_tree_free(t);
	return k;
}

/* The blobs @pat can be in, as a string of numbers: "0 3 ". */
static void cand(char *out, size_t size, const struct rb_code_index *ix,
		 const char *pat, bool whole)
{
	uint8_t *bits = NULL;
	uint32_t i;
	size_t n = 0;

	assert_int_equal(rb_code_index_cand(&bits, ix, pat, strlen(pat), whole),
			 0);
	out[0] = '\0';
	if (!bits) {
		snprintf(out, size, "any");
		return;
	}
	for (i = 0; i < rb_code_index_nblobs(ix); i++)
		if (bits[i >> 3] & (1u << (i & 7)))
			n += (size_t)snprintf(out + n, size - n, "%u ", i);
	free(bits);
}

static void set_of(char *out, size_t size, const uint32_t *v, size_t n)
{
	uint32_t sorted[8];
	size_t i, j, k = 0;

	memcpy(sorted, v, n * sizeof(*v));
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (sorted[j] < sorted[i]) {
				uint32_t x = sorted[i];

				sorted[i] = sorted[j];
				sorted[j] = x;
			}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(out + k, size - k, "%u ", sorted[i]);
}

#define expect_cand(ix, pat, whole, ...)                                    \
	do {                                                                \
		uint32_t v_[] = { __VA_ARGS__ };                            \
		char got_[128], want_[128];                                 \
		cand(got_, sizeof(got_), ix, pat, whole);                   \
		set_of(want_, sizeof(want_), v_, sizeof(v_) / sizeof(*v_)); \
		if (strcmp(got_, want_))                                    \
			fail_msg("%s: %s, not %s", pat, got_, want_);       \
	} while (0)

#define expect_none(ix, pat, whole)                              \
	do {                                                     \
		char got_[128];                                  \
		cand(got_, sizeof(got_), ix, pat, whole);        \
		if (*got_)                                       \
			fail_msg("%s: %s, not none", pat, got_); \
	} while (0)

static void test_words(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix;
	struct rb_code_index_stats st;
	char dir[128], got[128];
	uint32_t a, b, c, d, bn, bg;
	git_oid none;

	use_dir(f, "a", dir, sizeof(dir));
	ix = get(f, &f->t1);
	rb_code_index_get_stats(ix, &st);
	assert_string_equal(st.how, "built");
	/* a.c, b.c, c.h, one of the two dup*.txt, bin.dat, big.txt. */
	assert_int_equal(rb_code_index_nblobs(ix), 6);
	assert_int_equal(st.read_blobs, 6);
	a = blob_no(f, ix, &f->t1, "mm/a.c");
	b = blob_no(f, ix, &f->t1, "mm/b.c");
	c = blob_no(f, ix, &f->t1, "include/c.h");
	d = blob_no(f, ix, &f->t1, "dup2.txt");
	bn = blob_no(f, ix, &f->t1, "bin.dat");
	bg = blob_no(f, ix, &f->t1, "big.txt");
	assert_int_equal(d, blob_no(f, ix, &f->t1, "dup1.txt"));
	memset(&none, 0x5a, sizeof(none));
	assert_int_equal(rb_code_index_blob(ix, &none), RB_CODE_INDEX_NONE);
	assert_true(bn < 6 && bg < 6);

	assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar", 7), 2);
	assert_int_equal(rb_code_index_word_blobs(ix, "shared_word", 11), 1);
	/* Not indexed: binary, too big, numbers, short, symlinks. */
	assert_int_equal(rb_code_index_word_blobs(ix, "binary_only", 11), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "huge_word", 9), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "0x1fUL", 6), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "int", 3), 2);
	assert_int_equal(rb_code_index_word_blobs(ix, "symlink_word", 12), 0);
	/* "3dnow_thing" is indexed as what follows its digits. */
	assert_int_equal(rb_code_index_word_blobs(ix, "3dnow_thing", 11), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "dnow_thing", 10), 1);
	assert_int_equal(rb_code_index_word_blobs(ix, "foo", 3), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar\0x", 9), 0);

	/* Whole words (a symbol's search). */
	expect_cand(ix, "foo_bar", true, a, c);
	expect_cand(ix, "foo_qux", true, b);
	expect_none(ix, "bar", true);
	/* A piece that is the whole pattern: any part of a word. */
	expect_cand(ix, "oo_ba", false, a, c);
	expect_cand(ix, "_ba", false, a, c);
	/* At the start, a suffix; at the end, a prefix; inside, whole. */
	expect_cand(ix, "_bar(void", false, a);
	expect_cand(ix, "int foo_", false, a, b);
	expect_cand(ix, "x foo_", false, a, b, c);
	expect_cand(ix, "return bar_baz", false, a);
	expect_cand(ix, "return bar", false, a);
	expect_none(ix, "return baz", false);
	expect_none(ix, "zz_none_zz", false);
	/* Nothing the index answers for: any blob. */
	cand(got, sizeof(got), ix, "->", false);
	assert_string_equal(got, "any");
	cand(got, sizeof(got), ix, "0x1f", false);
	assert_string_equal(got, "any");
	cand(got, sizeof(got), ix, "a b", false);
	assert_string_equal(got, "any");
	rb_code_index_put(ix);
}

/* A build from another tree's file is the file a build from nothing is. */
static void test_update(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix;
	struct rb_code_index_stats st;
	struct rb_buf x, y, z;
	char da[128], db[128], dc[128], pa[192], pb[192], pc[192];

	use_dir(f, "a", da, sizeof(da));
	rb_code_index_put(get(f, &f->t1));
	ix = get(f, &f->t2);
	rb_code_index_get_stats(ix, &st);
	assert_string_equal(st.how, "updated");
	assert_true(git_oid_equal(&st.from, &f->t1));
	/* b.c changed and d.c is new: the other blobs are not read. */
	assert_int_equal(st.read_blobs, 2);
	assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar", 7), 1);
	assert_int_equal(rb_code_index_word_blobs(ix, "dnow_thing", 10), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "new_in_two", 10), 1);
	rb_code_index_put(ix);

	use_dir(f, "b", db, sizeof(db));
	ix = get(f, &f->t2);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);

	/* Every blob a batch of its own: merged six times. */
	use_dir(f, "c", dc, sizeof(dc));
	rb_code_index__set_batch_bytes(1);
	ix = get(f, &f->t2);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);
	rb_code_index__set_batch_bytes(0);

	file_of(pa, sizeof(pa), da, &f->t2);
	file_of(pb, sizeof(pb), db, &f->t2);
	file_of(pc, sizeof(pc), dc, &f->t2);
	read_all(&x, pa);
	read_all(&y, pb);
	read_all(&z, pc);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.ptr, y.ptr, x.len);
	assert_int_equal(z.len, y.len);
	assert_memory_equal(z.ptr, y.ptr, z.len);
	rb_buf_release(&x);
	rb_buf_release(&y);
	rb_buf_release(&z);
}

/*
 * A commit of @n files: @keep of them the first tree's own (a.c, b.c,
 * c.h), the others new text, each its own blob.
 */
static void commit_near(struct fx *f, git_oid *tree, size_t keep, size_t n)
{
	static const char *const kept[][2] = {
		{ "mm/a.c", a_c },
		{ "mm/b.c", b_c },
		{ "include/c.h", "foo_bar\n" },
	};
	struct rb_test_file v[10];
	char path[10][32], text[10][48];
	git_oid c;
	size_t i;

	assert_true(keep <= 3 && n <= 10);
	for (i = 0; i < n; i++) {
		if (i < keep) {
			v[i] = (struct rb_test_file){ kept[i][0], kept[i][1] };
			continue;
		}
		snprintf(path[i], sizeof(path[i]), "new/f%zu_%zu.c", keep, i);
		snprintf(text[i], sizeof(text[i]), "int new_word_%zu_%zu;\n",
			 keep, i);
		v[i] = (struct rb_test_file){ path[i], text[i] };
	}
	rb_test_commit(&c, f->repo, &f->c1, v, n, 3000 + keep, "near\n");
	tree_of(tree, f->repo, &c);
}

/*
 * A new release keeps less than half of the old one's blobs (linux 6.12
 * has 41% of 6.1's): a file with a quarter of them is still built from,
 * and what it has that the tree lacks is left out of the new file.
 */
static void test_update_far(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix;
	struct rb_code_index_stats st;
	struct rb_buf x, y;
	git_oid t3, t4;
	char dq[128], dr[128], ds[128], pq[192], ps[192];

	commit_near(f, &t3, 3, 10);
	commit_near(f, &t4, 2, 10);

	use_dir(f, "q", dq, sizeof(dq));
	rb_code_index_put(get(f, &f->t1));
	ix = get(f, &t3);
	rb_code_index_get_stats(ix, &st);
	assert_string_equal(st.how, "updated");
	assert_true(git_oid_equal(&st.from, &f->t1));
	assert_int_equal(st.read_blobs, 7);
	assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar", 7), 2);
	assert_int_equal(rb_code_index_word_blobs(ix, "shared_word", 11), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "new_word_3_9", 12), 1);
	rb_code_index_put(ix);

	/* A fifth is too far: built from nothing. */
	use_dir(f, "r", dr, sizeof(dr));
	rb_code_index_put(get(f, &f->t1));
	ix = get(f, &t4);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);

	use_dir(f, "s", ds, sizeof(ds));
	ix = get(f, &t3);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);
	file_of(pq, sizeof(pq), dq, &t3);
	file_of(ps, sizeof(ps), ds, &t3);
	read_all(&x, pq);
	read_all(&y, ps);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.ptr, y.ptr, x.len);
	rb_buf_release(&x);
	rb_buf_release(&y);
}

/* Opened again: loaded from the file, not built. */
static void test_load(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix, *again;
	char dir[128];

	use_dir(f, "a", dir, sizeof(dir));
	ix = get(f, &f->t1);
	assert_string_equal(how(ix), "built");
	/* In this process: the same one, shared. */
	again = get(f, &f->t1);
	assert_ptr_equal(ix, again);
	rb_code_index_put(again);
	rb_code_index_put(ix);
	rb_code_index_drop();
	ix = get(f, &f->t1);
	assert_string_equal(how(ix), "loaded");
	assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar", 7), 2);
	rb_code_index_put(ix);
}

/* Writes @len bytes of @b over @path's file. */
static void overwrite(const char *path, const void *b, size_t len)
{
	unlink(path);
	assert_int_equal(rb_write_file_atomic(path, b, len, 0600), 0);
}

static void test_damaged(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix;
	struct rb_buf good, bad;
	char dir[128], path[192];
	size_t at[] = { 20, 70, 90, 100, 300, 0, 0, 0 };
	size_t i;

	use_dir(f, "a", dir, sizeof(dir));
	rb_code_index_put(get(f, &f->t1));
	file_of(path, sizeof(path), dir, &f->t1);
	read_all(&good, path);
	at[5] = good.len / 2;
	at[6] = good.len - 3;
	at[7] = good.len - 1;
	for (i = 0; i < sizeof(at) / sizeof(*at); i++) {
		rb_buf_init(&bad, RB_BUF_NOLIMIT);
		assert_int_equal(rb_buf_add(&bad, good.ptr, good.len), 0);
		bad.ptr[at[i]] ^= 0x20;
		overwrite(path, bad.ptr, bad.len);
		rb_code_index_drop();
		ix = get(f, &f->t1);
		assert_string_equal(how(ix), "built");
		assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar", 7), 2);
		rb_code_index_put(ix);
		rb_buf_release(&bad);
	}
	/* Cut short, then empty. */
	overwrite(path, good.ptr, good.len - 100);
	rb_code_index_drop();
	ix = get(f, &f->t1);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);
	overwrite(path, "", 0);
	rb_code_index_drop();
	ix = get(f, &f->t1);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);
	/* Rebuilt, it is the file it was. */
	rb_buf_init(&bad, RB_BUF_NOLIMIT);
	read_all(&bad, path);
	assert_int_equal(bad.len, good.len);
	assert_memory_equal(bad.ptr, good.ptr, good.len);
	rb_buf_release(&bad);
	/* Another tree's file under this tree's name. */
	{
		char p2[192];
		struct rb_buf other;

		rb_code_index_put(get(f, &f->t2));
		file_of(p2, sizeof(p2), dir, &f->t2);
		read_all(&other, p2);
		overwrite(path, other.ptr, other.len);
		rb_buf_release(&other);
		rb_code_index_drop();
		ix = get(f, &f->t1);
		assert_string_equal(how(ix), "updated");
		rb_code_index_put(ix);
	}
	/* Writable by others: not trusted. */
	assert_int_equal(chmod(path, 0622), 0);
	rb_code_index_drop();
	ix = get(f, &f->t1);
	assert_string_equal(how(ix), "updated");
	rb_code_index_put(ix);
	rb_buf_release(&good);
}

/* What the checks refuse, byte by byte, without the checksum. */
static void test_parse(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix = NULL;
	struct rb_buf good;
	char dir[128], path[192];
	const char *why = NULL;
	size_t i, refused = 0, tried = 0;

	use_dir(f, "a", dir, sizeof(dir));
	rb_code_index_put(get(f, &f->t1));
	file_of(path, sizeof(path), dir, &f->t1);
	read_all(&good, path);
	assert_int_equal(
		rb_code_index_parse(&ix, good.ptr, good.len, true, &why), 0);
	assert_null(why);
	rb_code_index_put(ix);
	for (i = 0; i < good.len; i++) {
		char keep = good.ptr[i];
		uint8_t *bits = NULL;
		int ret;

		good.ptr[i] ^= 0x41;
		ret = rb_code_index_parse(&ix, good.ptr, good.len, true, &why);
		/*
		 * Every byte is under the checksum or the header's checks,
		 * but the tree's id, which the loader compares.
		 */
		if (i >= 64 && i < 84) {
			assert_int_equal(ret, 0);
			rb_code_index_put(ix);
		} else {
			assert_int_equal(ret, -RB_EINVAL);
			assert_non_null(why);
		}
		ret = rb_code_index_parse(&ix, good.ptr, good.len, false, &why);
		tried++;
		if (ret) {
			refused++;
		} else {
			/* Passed the structure: lookups stay in bounds. */
			assert_int_equal(rb_code_index_cand(&bits, ix, "oo_b",
							    4, false),
					 0);
			free(bits);
			rb_code_index_word_blobs(ix, "foo_bar", 7);
			rb_code_index_put(ix);
		}
		good.ptr[i] = keep;
	}
	/* Most damage is seen by the structure alone. */
	assert_true(refused * 2 > tried);
	for (i = 0; i < good.len; i += 97)
		assert_int_equal(rb_code_index_parse(&ix, good.ptr, i, false,
						     &why),
				 -RB_EINVAL);
	rb_buf_release(&good);
}

struct th {
	struct fx *f;
	const git_oid *tree;
	struct rb_code_index *ix;
	int ret;
};

static void *th_get(void *arg)
{
	struct th *t = arg;
	git_repository *repo = NULL;

	/* A repository per thread, as the review's threads have. */
	if (git_repository_open(&repo, t->f->dir) < 0) {
		t->ret = -1;
		return NULL;
	}
	t->ret = rb_code_index_get(&t->ix, repo, t->tree);
	git_repository_free(repo);
	return NULL;
}

/* Threads on one tree share one build. */
static void test_threads(void **state)
{
	struct fx *f = *state;
	struct th t[4];
	pthread_t id[4];
	char dir[128];
	int i;

	use_dir(f, "a", dir, sizeof(dir));
	for (i = 0; i < 4; i++) {
		t[i] = (struct th){ .f = f, .tree = &f->t1 };
		assert_int_equal(pthread_create(&id[i], NULL, th_get, &t[i]),
				 0);
	}
	for (i = 0; i < 4; i++)
		pthread_join(id[i], NULL);
	for (i = 0; i < 4; i++) {
		assert_int_equal(t[i].ret, 0);
		assert_ptr_equal(t[i].ix, t[0].ix);
	}
	assert_string_equal(how(t[0].ix), "built");
	for (i = 0; i < 4; i++)
		rb_code_index_put(t[i].ix);
}

/*
 * While another process holds tree 1's build lock, a thread asking for
 * tree 1 waits; tree 2 is built meanwhile (no lock across trees), and
 * tree 1 goes on once the lock is let go.
 */
static void test_no_global_lock(void **state)
{
	struct fx *f = *state;
	struct th t = { .f = f, .tree = &f->t1 };
	struct rb_code_index *ix;
	char dir[128], lock[192], hex[GIT_OID_HEXSZ + 1];
	pthread_t id;
	int fd;

	use_dir(f, "a", dir, sizeof(dir));
	assert_int_equal(rb_mkdirs(dir), 0);
	git_oid_tostr(hex, sizeof(hex), &f->t1);
	snprintf(lock, sizeof(lock), "%s/%s.lock", dir, hex);
	fd = open(lock, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	/* flock is per open file: this one stands for another process. */
	assert_int_equal(flock(fd, LOCK_EX), 0);
	assert_int_equal(pthread_create(&id, NULL, th_get, &t), 0);
	ix = get(f, &f->t2);
	assert_string_equal(how(ix), "built");
	rb_code_index_put(ix);
	close(fd);
	pthread_join(id, NULL);
	assert_int_equal(t.ret, 0);
	assert_int_equal(rb_code_index_word_blobs(t.ix, "dnow_thing", 10), 1);
	rb_code_index_put(t.ix);
}

/* Processes building one tree at once: one file, whole, no debris. */
static void test_processes(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix = NULL;
	struct rb_buf b;
	char dir[128], path[192], cmd[256];
	pid_t pid[3];
	int i, st;

	use_dir(f, "a", dir, sizeof(dir));
	for (i = 0; i < 3; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (!pid[i]) {
			git_repository *repo = NULL;
			struct rb_code_index *x = NULL;
			int ret = git_repository_open(&repo, f->dir) ?:
					  rb_code_index_get(&x, repo, &f->t2);

			_exit(ret || rb_code_index_word_blobs(x, "new_in_two",
							      10) != 1);
		}
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	file_of(path, sizeof(path), dir, &f->t2);
	read_all(&b, path);
	assert_int_equal(rb_code_index_parse(&ix, b.ptr, b.len, true, NULL), 0);
	rb_code_index_put(ix);
	rb_buf_release(&b);
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q tmp", dir);
	assert_int_not_equal(system(cmd), 0);
	ix = get(f, &f->t2);
	assert_string_equal(how(ix), "loaded");
	rb_code_index_put(ix);
}

/* Many trees: the process keeps only a few open. */
static void test_open_cap(void **state)
{
	struct fx *f = *state;
	char dir[128];
	git_oid tree[6], c[6];
	int i;

	use_dir(f, "a", dir, sizeof(dir));
	for (i = 0; i < 6; i++) {
		char text[64];
		struct rb_test_file v[] = {
			{ "mm/a.c", a_c },
			{ "mm/b.c", b_c },
			{ "include/c.h", "foo_bar\n" },
			{ "mm/n.c", text },
		};

		snprintf(text, sizeof(text), "int tree_%d_word;\n", i);
		rb_test_commit(&c[i], f->repo, NULL, v, 4, 3000 + i, NULL);
		tree_of(&tree[i], f->repo, &c[i]);
	}
	for (i = 0; i < 12; i++) {
		struct rb_code_index *ix = get(f, &tree[i % 6]);
		char w[32];

		snprintf(w, sizeof(w), "tree_%d_word", i % 6);
		assert_int_equal(rb_code_index_word_blobs(ix, w, strlen(w)), 1);
		/* From the second tree on, each is the first's plus one. */
		if (i > 0 && i < 6)
			assert_string_equal(how(ix), "updated");
		rb_code_index_put(ix);
		assert_true(rb_code_index__open_count() <= RB_CODE_INDEX_OPEN);
	}
}

/* No directory to be had: a file of this process, unlinked. */
static void test_no_dir(void **state)
{
	struct fx *f = *state;
	struct rb_code_index *ix;
	char file[128], dir[160];

	snprintf(file, sizeof(file), "%s/file", f->cache);
	assert_int_equal(rb_write_file_atomic(file, "x", 1, 0600), 0);
	snprintf(dir, sizeof(dir), "%s/sub", file);
	rb_code_index_drop();
	assert_int_equal(rb_code_index_set_dir(dir), 0);
	ix = get(f, &f->t1);
	assert_string_equal(how(ix), "built");
	assert_int_equal(rb_code_index_word_blobs(ix, "foo_bar", 7), 2);
	rb_code_index_put(ix);
}

/* Only the base tree given is read: a series' tip never gets in. */
static void test_tip_stays_out(void **state)
{
	static const char patch[] = "diff --git a/mm/a.c b/mm/a.c\n"
				    "--- a/mm/a.c\n"
				    "+++ b/mm/a.c\n"
				    "@@ -1,2 +1,2 @@\n"
				    "-int foo_bar(void)\n"
				    "+int tip_only_word(void)\n"
				    " {\n";
	struct fx *f = *state;
	struct rb_apply_patch p = { .patch = patch, .len = sizeof(patch) - 1 };
	struct rb_apply_opts o = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *ar = NULL;
	struct rb_code_index *ix = NULL;
	struct rb_buf b;
	char dir[128], path[192];

	use_dir(f, "a", dir, sizeof(dir));
	assert_int_equal(rb_apply_series(&ar, f->repo, &f->c1, &p, 1, &o), 0);
	assert_true(ar->ok);
	/* The tip's repository, which holds the tip's objects too. */
	assert_int_equal(rb_code_index_get(&ix, ar->repo, &f->t1), 0);
	assert_int_equal(rb_code_index_word_blobs(ix, "tip_only_word", 13), 0);
	rb_code_index_put(ix);
	file_of(path, sizeof(path), dir, &f->t1);
	read_all(&b, path);
	assert_null(memmem(b.ptr, b.len, "tip_only_word", 13));
	rb_buf_release(&b);
	rb_apply_result_free(ar);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_far, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_global_lock, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_processes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_open_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tip_stays_out, setup,
						teardown),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
