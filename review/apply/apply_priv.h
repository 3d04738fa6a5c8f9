/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * apply_priv.h - internal to the apply: what apply.c (the patches applied
 * to images, the trees and commits rebuilt) asks of apply_mem.c (the
 * private object store in memory, and the repositories over it).
 */
#ifndef RB_REVIEW_APPLY_PRIV_H
#define RB_REVIEW_APPLY_PRIV_H

#include <git2.h>

struct rb_apply_mem;

/* Records "libgit2: @what: <libgit2's last error>"; returns -RB_EIO. */
int rb_apply__git_fail(const char *what);

/*
 * A new store over @repo's object directories (read only), with one
 * reference. 0, -RB_EINVAL (no directory on disk) or -RB_ENOMEM.
 */
int rb_apply__mem_new(struct rb_apply_mem **out, git_repository *repo);
/* Drops a reference; the last one frees the store. NULL does nothing. */
void rb_apply__mem_unref(struct rb_apply_mem *m);
/*
 * A repository whose object store is @m over the tree's objects: every
 * write goes to @m. Takes a reference on @m, dropped when the
 * repository's object store is freed.
 */
int rb_apply__mem_repo_open(git_repository **out, struct rb_apply_mem *m);

#endif
