/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * code_tree.h - the blobs of a git tree, in tree order: what a search of
 * the tree reads. Symbolic links and submodules are left out (never
 * followed); nothing is read from a work tree.
 */
#ifndef RB_REVIEW_CODE_TREE_H
#define RB_REVIEW_CODE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

/* One blob of a tree. */
struct rb_code_tree_file {
	char *path; /* owned */
	git_oid oid;
};

struct rb_code_tree {
	bool loaded;
	struct rb_code_tree_file *f;
	size_t n, cap;
};

/*
 * Lists the blobs of @tree in @repo into @s, once (a loaded @s is left
 * as it is). @what names the tree in the error ("base", "tip"). 0,
 * -RB_EIO or -RB_ENOMEM; on failure @s is empty.
 */
int rb_code_tree_load(struct rb_code_tree *s, git_repository *repo,
		      const git_oid *tree, const char *what);
void rb_code_tree_release(struct rb_code_tree *s);

#endif
