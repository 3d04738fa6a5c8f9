// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_diff.c - libFuzzer target for the unified-diff parser
 * (review/apply/diff.h): any input parses or fails with -RB_EPARSE, and every
 * parsed line lies inside the parser's copy of the text. A patch that
 * parses is then applied (review/apply/apply.h, in memory) to a small repository
 * made at start-up in a temporary directory, so the hunk search, the
 * 3-way fallback, binary patches and the path checks see hostile input
 * too. The patch-id (review/apply/patchid.h) reads the same input, and the
 * look-ahead walks the parsed hunks.
 */
#define _XOPEN_SOURCE 700
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "review/apply/apply.h"
#include "review/apply/diff.h"
#include "review/apply/patchid.h"
#include "review/checks/sandbox.h"
#include "util/err.h"
#include "util/banned.h"

static int check_line(const struct rb_diff_hunk *h, size_t hunk_no,
		      const struct rb_diff_line *l, void *payload)
{
	const struct rb_diff *d = payload;

	(void)h;
	(void)hunk_no;
	if (l->len &&
	    (l->text < d->text || l->text + l->len > d->text + d->len))
		abort();
	if (l->origin != ' ' && l->origin != '-' && l->origin != '+')
		abort();
	return 0;
}

static char repo_dir[64];
static git_repository *repo;
static git_oid base;

static void cleanup(void)
{
	git_repository_free(repo);
	if (repo_dir[0])
		rb_remove_tree(repo_dir);
}

/* The files the seeds of fuzz_diff.seeds.sh patch. */
static void make_repo(void)
{
	static const struct {
		const char *path, *content;
		unsigned mode;
	} files[] = {
		{ "a.c",
		  "int a;\n\nint b;\n\nint c;\nint d;\nint e;\n"
		  "int f;\nint g;\n",
		  0100644 },
		{ "dir/b.h", "#define B 1\n#define C 2\n", 0100644 },
		{ "link", "a.c", 0120000 },
		{ "bin", "A\0B", 0100644 },
	};
	git_index *idx = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid;
	size_t i;

	snprintf(repo_dir, sizeof(repo_dir), "/tmp/rb-fuzz-diff.XXXXXX");
	if (!mkdtemp(repo_dir) || git_repository_init(&repo, repo_dir, 0) ||
	    git_repository_index(&idx, repo))
		abort();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		git_index_entry e;

		memset(&e, 0, sizeof(e));
		e.path = files[i].path;
		e.mode = files[i].mode;
		if (git_index_add_from_buffer(
			    idx, &e, files[i].content,
			    i == 3 ? 3 : strlen(files[i].content)))
			abort();
	}
	if (git_index_write_tree(&tree_oid, idx) ||
	    git_tree_lookup(&tree, repo, &tree_oid) ||
	    git_signature_new(&sig, "f", "f@example.org", 1, 0) ||
	    git_commit_create(&base, repo, NULL, sig, sig, NULL, "base\n", tree,
			      0, NULL))
		abort();
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	make_repo();
	atexit(cleanup);
	return 0;
}

static void fuzz_apply(const uint8_t *data, size_t size)
{
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch p = { 0 };
	struct rb_apply_result *r = NULL;

	p.patch = (const char *)data;
	p.len = size;
	opts.fuzz = size & 1 ? 1 : -1;
	/* Small budgets: cheap runs, and their limits are reached. */
	opts.max_bytes = 1u << 20;
	opts.max_work = 20000000;
	if (rb_apply_series(&r, repo, &base, &p, 1, &opts))
		return;
	if (!r->ok && (!r->reason || !r->failed_patch))
		abort();
	rb_apply_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_diff *d = NULL;
	size_t i, j;
	int ret;

	/* The patch-id reads any text; it is 40 hex digits or refused. */
	{
		char id[RB_PATCH_ID_HEX];

		ret = rb_patch_id(id, (const char *)data, size);
		if (ret ? ret != -RB_EINVAL && ret != -RB_ENOMEM :
			  strlen(id) != 40)
			abort();
	}
	ret = rb_diff_parse(&d, (const char *)data, size);
	if (ret) {
		if (ret != -RB_EPARSE && ret != -RB_ENOMEM &&
		    ret != -RB_ETOOBIG)
			abort();
		if (d)
			abort();
		return 0;
	}
	for (i = 0; i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];

		if (!rb_diff_file_path(f))
			abort();
		rb_diff_foreach_line(f, check_line, d);
		for (j = 0; j < f->n_hunks; j++)
			rb_diff_new_line(f, f->hunks[j].new_start);
		rb_diff_find_file(d, rb_diff_file_path(f));
		/* The look-ahead over the same diff as a later patch. */
		for (j = 0; j < f->n_hunks; j++) {
			const struct rb_diff *later[1] = { d };
			bool kept;

			rb_patch_later_change(later, 1, rb_diff_file_path(f),
					      (int)f->hunks[j].old_start, "x",
					      &kept);
		}
		rb_patch_adds_code(d, rb_diff_file_path(f), "int a;");
	}
	rb_diff_free(d);
	fuzz_apply(data, size);
	return 0;
}
