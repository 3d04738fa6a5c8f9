/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_evidence.h - what proves a verifier's confirmation (issue 30):
 * the code it was shown in its own conversation (the tree text of its
 * prompt and the tool results it received), and what each category of
 * finding must quote beyond the finding's own lines.
 *
 * A confirmation is a model's word; the evidence is what C checks. Each
 * quote must be
 *  - code: a quote of the commit message is never evidence (the author
 *    wrote it, and an injection in it would vouch for itself);
 *  - where it says, in the tree (rb_model_tools_quote_at()) or in the
 *    patch on that side (rb_model_validate());
 *  - text the verifier was given in that conversation, at that place:
 *    a line of the numbered diff or of the functions in its prompt, or
 *    a line of a read_file, grep, find_definition or find_callers result
 *    it received (struct rb_model_seen);
 * and together the quotes must reach beyond the finding's own lines, as
 * the finding's category asks (rb_model_evidence_rule()).
 */
#ifndef RB_REVIEW_MODEL_EVIDENCE_H
#define RB_REVIEW_MODEL_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "review/model/model.h"

struct rb_diff;
struct rb_model_tools;

/* The tree lines one verifier conversation was given. */
struct rb_model_seen;

/* -RB_ENOMEM only. */
int rb_model_seen_new(struct rb_model_seen **out);
void rb_model_seen_free(struct rb_model_seen *s);

/*
 * The tree text of a prompt whose data is fenced by @nonce: the lines of
 * its "diff" block (model_prompt.c's numbered diff: an old-side number
 * makes a "base" line, a new-side number a "tip" line), of its
 * "functions" block (tip) and of its "tree-context" block
 * (model_prefetch.c: functions at the tip, definitions at the base,
 * callers at the tip, each as its heading says). No other block is tree
 * text (the commit
 * message, the cover letter, the findings, ...): they add nothing, and
 * neither does text outside a block. 0 or -RB_ENOMEM.
 */
int rb_model_seen_add_prompt(struct rb_model_seen *s, const char *text,
			     const char *nonce);

/*
 * One result of tool @name with the JSON arguments @args, as the model
 * received it: the lines of read_file, grep, find_definition and
 * find_callers results, at the side the arguments name ("tip" reads the
 * base when @have_tip is false, as the tools do). Other tools (a patch,
 * the cover letter, a path's history) add nothing. 0 or -RB_ENOMEM;
 * past 64k lines or 16 MiB more lines are not kept.
 */
int rb_model_seen_add_result(struct rb_model_seen *s, const char *name,
			     const char *args, size_t args_len, const char *res,
			     size_t len, bool have_tip);

/* How many lines @s holds. */
size_t rb_model_seen_count(const struct rb_model_seen *s);

/* What a confirmation is about: the finding's place and category. */
struct rb_model_claim {
	const char *file; /* as the diff names it; NULL: the commit message */
	bool old_side;
	int first, last; /* the lines its quote spans */
	const char *category; /* whose rule applies */
};

/* What the check reads. Everything is borrowed. */
struct rb_model_evidence_ctx {
	const struct rb_model_tools *tools; /* the trees, or NULL */
	const struct rb_diff *d; /* the patch */
	const struct rb_model_seen *seen; /* NULL: nothing was shown */
	int near; /* a quote may sit this far from the line it names */
};

/*
 * The evidence check of one confirmation of @cl: 0 when, once quotes of
 * the commit message are left out, at least one quote is left, every one
 * is code where it says and was shown to the verifier there, and
 * together they meet @cl's rule; else -RB_EINVAL with the reason in
 * rb_errmsg() ("... only the finding's own lines", "... was not shown
 * to the verifier", ...).
 */
int rb_model_check_evidence(const struct rb_model_evidence_ctx *c,
			    const struct rb_model_claim *cl,
			    const struct rb_model_evidence *ev, size_t n);

/*
 * What a confirmation of a finding of @category must quote, in words for
 * the verifier's prompt (every category has one).
 */
const char *rb_model_evidence_rule(const char *category);

#endif
