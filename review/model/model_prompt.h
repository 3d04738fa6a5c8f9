/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_prompt.h - the finder's prompt: the patch, its series and the
 * code around it within a token budget, untrusted text fenced by a nonce,
 * and review trailers neutralised so the model cannot write them.
 */
#ifndef RB_REVIEW_MODEL_PROMPT_H
#define RB_REVIEW_MODEL_PROMPT_H

#include "review/model/model.h"

struct rb_buf;

/*
 * Builds the finder's prompt for @ctx into @system and @user, with
 * @nonce marking untrusted data. @coverage (may be NULL) gets the note on
 * what the budget clipped, "" when nothing was.
 */
int rb_model_prompt_build(struct rb_buf *system, struct rb_buf *user,
			  struct rb_buf *coverage,
			  const struct rb_model_opts *opts,
			  const struct rb_model_patch_ctx *ctx,
			  const char *nonce);

/*
 * The prompt set's version, stored with each review and finding so that
 * stats can be split by it: the first 12 hex digits of SHA-256 over the
 * prompt texts compiled in (this file's rules and @texts, the finder's
 * and verifier's from model.c) and every guide of @guides_dir
 * (review/model/guides.h). -RB_ENOMEM, or -RB_EIO reading the guides.
 */
int rb_model_prompt_version(char out[13], const char *guides_dir,
			    const char *const *texts, size_t n_texts);

/*
 * The version of the prompt set @base (rb_model_prompt_version()) with
 * the admin's @notes (rb_model_patch_ctx.notes) in it: @base itself when
 * there are none, else the first 12 hex digits of SHA-256 over @base,
 * the notes' framing text and @notes, so that stats split the reviews a
 * note reached from the others. 0 or -RB_ENOMEM.
 */
int rb_model_prompt_version_notes(char out[13], const char *base,
				  const char *notes);

/* A fresh random nonce, 16 hex digits. */
void rb_model_nonce(char out[17]);

/* The commit message with identity trailers (Signed-off-by, ...) left out. */
int rb_model_strip_trailers(struct rb_buf *out, const char *msg);

/* Removes the colon of review trailers anywhere in @s (in place). */
void rb_model_neutralise(char *s);

#endif
