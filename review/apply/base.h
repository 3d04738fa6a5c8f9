/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * base.h - which tree and commit a series is reviewed on (DESIGN.md fact
 * 9). In order:
 *   1. the series' "base-commit:", when it is on a configured branch:
 *      the tip of a tree's ref or reachable from it, or a tag of that
 *      tree (an object that is merely in the object store is not enough;
 *      otherwise "base-commit X is not on any configured branch" and the
 *      next steps decide);
 *   2. prerequisites ("prerequisite-message-id:", "prerequisite-patch-
 *      id:"), resolved by the caller from stored mail (bot/stages/prereq.h):
 *      on every base below they are applied first, in memory, and the
 *      series on top of them; the attempt reports only the series'
 *      own patches (a failing prerequisite is named as such);
 *   3. a base guessed from the "index" preimage blob ids: the newest of
 *      the recent first-parent commits of each configured tree whose tree
 *      holds every preimage blob (like "b4 --guess-base");
 *   4..6. the configured trees in the order given (the subsystem's bases,
 *      then linux-next, then mainline), each at the head of its ref.
 * The first base where the whole series applies wins; a series over a
 * limit of the apply options is tried on no other base. Every attempt is
 * returned with its result, so a caller can record them and report, for
 * each base, which patch, file and hunk failed.
 *
 * Also: fetching a tree with libgit2 and telling whether a tree is stale.
 */
#ifndef RB_REVIEW_BASE_H
#define RB_REVIEW_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "review/apply/apply.h"

struct rb_base_tree {
	const char *name; /* "mm-unstable", "linux-next", "mainline" */
	git_repository *repo; /* borrowed */
	const char *ref; /* "refs/heads/mm-unstable", "HEAD", ... */
};

struct rb_base_request {
	const char *base_commit; /* hex from "base-commit:", or NULL */
	/* Applied first on each base, then the series: prerequisites. */
	const struct rb_apply_patch *prereqs; /* borrowed, in order */
	size_t n_prereqs;
	const struct rb_apply_patch *patches; /* borrowed, in order */
	size_t n_patches;
	size_t guess_depth; /* commits per tree to search; 0: 1000 */
};

enum rb_base_kind {
	RB_BASE_COMMIT, /* the series' base-commit */
	RB_BASE_GUESSED, /* guessed from the index blob ids */
	RB_BASE_TREE, /* a configured tree's head */
};

struct rb_base_attempt {
	enum rb_base_kind kind;
	char *name; /* the tree's name; NULL when no tree holds the base */
	git_oid commit;
	bool tried; /* false: skipped (reason says why) */
	bool applied;
	/* Why it did not apply or was not tried; NULL when applied. */
	char *reason;
	size_t failed_patch; /* 1-based; 0 when none */
	char *failed_file;
	size_t failed_hunk;
	/*
	 * Owned; NULL when not tried. With prerequisites, its patches[]
	 * are the series' own and its base is the prerequisites' tip.
	 */
	struct rb_apply_result *result;
};

struct rb_base_report {
	bool ok;
	/*
	 * An attempt hit a size limit or budget of the apply options
	 * (RB_APPLY_FAIL_LIMIT): they belong to the series, so no other
	 * base is tried.
	 */
	bool limit;
	size_t chosen; /* index into attempts when ok */
	struct rb_base_attempt *attempts;
	size_t n_attempts;
};

/*
 * Tries the bases in order (see the top of this file) with @opts (NULL:
 * defaults). *out is owned by the caller (rb_base_report_free()). Returns
 * 0 when it ran, whatever the outcome; negative for an infrastructure
 * failure (a tree's ref does not resolve: -RB_ENOTFOUND; libgit2:
 * -RB_EIO; -RB_ENOMEM).
 */
int rb_base_select(struct rb_base_report **out,
		   const struct rb_base_tree *trees, size_t n_trees,
		   const struct rb_base_request *req,
		   const struct rb_apply_opts *opts);
void rb_base_report_free(struct rb_base_report *r);

/*
 * The guess alone: searches the last @depth first-parent commits of each
 * tree (in order) for the newest one whose tree holds every preimage blob
 * the patches name (files the series itself creates first are skipped).
 * Returns 0 with *out and *tree_index set, -RB_ENOTFOUND when no commit
 * fits or the patches name no blob, negative on error.
 */
int rb_base_guess(git_oid *out, size_t *tree_index,
		  const struct rb_base_tree *trees, size_t n_trees,
		  const struct rb_apply_patch *patches, size_t n_patches,
		  size_t depth);

/*
 * Fetches @branch from @url (a path or file:// URL in tests; no network
 * here) into "refs/remotes/reviewbot/@branch" of @repo, and sets *out to
 * the fetched head. Returns 0, -RB_EAGAIN when the remote cannot be
 * reached, -RB_ENOTFOUND when the branch is missing.
 */
int rb_base_fetch(git_oid *out, git_repository *repo, const char *url,
		  const char *branch);
/*
 * rb_base_fetch() within @timeout_seconds (0: no limit): every connect,
 * read and write of the fetch waits at most until then
 * (review/apply/netstream.h); past it, -RB_EAGAIN "timed out".
 */
int rb_base_fetch_within(git_oid *out, git_repository *repo, const char *url,
			 const char *branch, int timeout_seconds);

/*
 * Sets *out to true when the commit at @ref is older than @max_age_days
 * relative to @now (seconds since the epoch): the tree needs a fetch, and
 * a review on it should say so. 0 or -RB_ENOTFOUND.
 */
int rb_base_is_stale(bool *out, git_repository *repo, const char *ref,
		     int64_t now, unsigned max_age_days);

#endif
