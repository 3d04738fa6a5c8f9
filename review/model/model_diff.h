/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_diff.h - the patch as the model sees it: parsed, with each hunk
 * numbered where it went into the tree rather than where the mail's
 * header says. Mail against a tree that has moved on applies at an
 * offset (97 of 112 real patches on linux 6.1, DESIGN.md fact 4); the
 * tools (read_file, find_callers) and the functions the prompt shows
 * number lines as the tree does, so the diff must too, and so must the
 * validators that check the lines the model cites.
 *
 * The prompt (model_prompt.c) and the validators (model_validate.c) parse
 * the patch through rb_model_diff_parse(); findings go back to the
 * mail's numbers (rb_model_diff_mail_line()) for the review mail, which
 * quotes the mail's diff.
 */
#ifndef RB_REVIEW_MODEL_DIFF_H
#define RB_REVIEW_MODEL_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <git2.h>

struct rb_buf;
struct rb_diff;
struct rb_model_patch_ctx;

struct rb_model_diff {
	struct rb_diff *d; /* owned: every hunk and line numbered as the tree */
	int32_t *shift; /* per hunk, files in order: tree line - mail line */
	size_t *first; /* per file: the index of its first hunk in shift */
	bool *approx; /* per file: numbered as the mail (not placed) */
	size_t moved; /* hunks that applied away from their header */
	size_t n_approx; /* files whose numbers are the mail's */
};

/*
 * Parses @ctx->patch into *out and renumbers each hunk by where it
 * applied: the offsets of @ctx->applied; for a file the 3-way merge
 * placed (no offsets) or a hunk placed with fuzz, where its postimage is
 * in the file of @ctx->tree, the nearest to its header; failing both,
 * the mail's numbers, and the file is marked approximate. Without
 * @ctx->applied, the mail's numbers. 0; -RB_EPARSE (rb_diff_parse()),
 * -RB_ENOMEM. rb_model_diff_release() either way.
 */
int rb_model_diff_parse(struct rb_model_diff *out,
			const struct rb_model_patch_ctx *ctx);
void rb_model_diff_release(struct rb_model_diff *md);

/*
 * @text (@len bytes: a commit message and a diff, as show_patch gives a
 * part of the series) into @out with every hunk header numbered as the
 * tree: @pr is that part's apply (its tree, in @repo, holds the files
 * after it, for a merged file's hunks). The text is otherwise unchanged.
 * A text that does not parse is copied as it is. 0 or -RB_ENOMEM.
 */
struct rb_apply_patch_result;
int rb_model_diff_text(struct rb_buf *out, const char *text, size_t len,
		       const struct rb_apply_patch_result *pr,
		       git_repository *repo);

/*
 * The mail's number of line @line (the tree's) of @path on its side: the
 * shift of the hunk that holds it, or of the nearest hunk. @line itself
 * when the file is not in the patch.
 */
int rb_model_diff_mail_line(const struct rb_model_diff *md, const char *path,
			    bool old_side, int line);

#endif
