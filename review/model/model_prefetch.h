/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_prefetch.h - the code the prompt carries beside the diff, read
 * from the tree before the model is asked anything: what a reviewer
 * opens first (issue 30, "what a top reviewer checks"). In order of
 * value, within a budget of bytes:
 *
 *  1. the functions the patch changes, whole, numbered as the tree
 *     after this patch (and the struct or multi-line macro a hunk is in,
 *     when it is in no function), with the kernel-doc comment above;
 *  2. when the patch changes a function's contract (its head: signature
 *     or return type; a return value; a lock or a reference it takes or
 *     drops), that function's callers at the series tip (find_callers);
 *  3. the definitions, from the base tree (before the series), of the
 *     functions and macros the changed lines call and the structs and
 *     constants they use, then of what the rest of the changed functions
 *     call and use (find_definition through the word index); not of
 *     words in more than 1,500 files of the tree ("page", "task_struct":
 *     a search for one costs seconds on linux, and the model knows them
 *     best), nor of the kernel's most common helpers (kfree(),
 *     spin_lock(), ...).
 *
 * What does not fit is named in the prompt's coverage note. The same
 * patch and trees give the same bytes: every search is in tree order and
 * bounded by counts, not by time. 2 and 3 search only with the base tree
 * (@ctx->base_tree), whose word index narrows every search to the blobs
 * that hold the word: without it a search reads every blob and could
 * stop at its time limit, and the prompt would depend on the machine's
 * load.
 */
#ifndef RB_REVIEW_MODEL_PREFETCH_H
#define RB_REVIEW_MODEL_PREFETCH_H

#include <stddef.h>

struct rb_buf;
struct rb_model_diff;
struct rb_model_patch_ctx;

/* What rb_model_prefetch() put in, for the logs and the bench. */
struct rb_model_prefetch_stats {
	size_t functions; /* changed functions (and blocks) shown */
	size_t callers; /* functions whose callers are shown */
	size_t defs; /* definitions shown */
	size_t left_out; /* items the budget left out */
	size_t lookups; /* definitions looked up */
	size_t common; /* symbols in too many files to look up */
};

/*
 * Appends to @out the fenced tree context (marked with @nonce) of @ctx's
 * patch, @md being its diff numbered as the tree (model_diff.h), in at
 * most @budget bytes, and to @note ("the definition of x(); ") what the
 * budget left out. Nothing without a tree (@ctx->repo and @ctx->tree).
 * @stats may be NULL. 0 or -RB_ENOMEM; a tree that cannot be read gives
 * less context, not an error.
 */
int rb_model_prefetch(struct rb_buf *out, struct rb_buf *note,
		      const struct rb_model_patch_ctx *ctx,
		      const struct rb_model_diff *md, const char *nonce,
		      size_t budget, struct rb_model_prefetch_stats *stats);

/* The text that introduces the part: part of the prompt set's version. */
const char *rb_model_prefetch_intro(void);

#endif
