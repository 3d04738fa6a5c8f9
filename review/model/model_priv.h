/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_priv.h - internal to the model review, what its files share:
 *
 *   model.c           the categories and focuses, the prompts' texts
 *                     (rb_model_prompt_set_version()), the passes, the
 *                     merge, the verifier and the policy
 *   model_parse.c     the finders' and the verifier's answers read
 *   model_validate.c  a finding's quote against the patch
 */
#ifndef RB_REVIEW_MODEL_PRIV_H
#define RB_REVIEW_MODEL_PRIV_H

#include <stddef.h>

struct rb_buf;

#define MAX_FIELD 4096 /* bytes of one field of the model's answer */

/*
 * @s (@n bytes) with blanks collapsed and trimmed, into @b: how a quote
 * is compared with the patch, and how a finding's code is fingerprinted.
 */
void rb_model__norm(struct rb_buf *b, const char *s, size_t n);

/* @p without a leading "a/" or "b/" (a diff's side). */
const char *rb_model__strip_ab(const char *p);

#endif
