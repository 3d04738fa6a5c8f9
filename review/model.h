/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model.h - the model review of one patch: finder calls, one per focus
 * (correctness, locking, memory, API, the commit message's claims), each
 * of which must quote the code it talks about; validators in C that drop
 * what the patch does not show; the findings of all focuses merged; a
 * verifier call in a fresh context that must back every confirmation
 * with quotes from the tree, checked in C; and the policy (severity
 * floor, at most N findings and W words per patch, uncertain ones dropped
 * unless asked for). Both calls may read the tree through the read-only
 * tools of model_tools.h, within limits per patch.
 *
 * The providers are in model_provider.h, the prompt in model_prompt.h.
 *
 * Everything the model says is hostile input: its JSON is parsed with caps,
 * a finding survives only when the code it quotes is in the patch on the
 * side and near the line it names, and messages lose any line that looks
 * like a review trailer. The model never chooses recipients: findings are
 * all it can produce.
 */
#ifndef RB_REVIEW_MODEL_H
#define RB_REVIEW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "review/findings.h"
#include "review/model_provider.h"

struct rb_apply_patch_result;
struct rb_buf;
struct rb_model;

/* Counters of one review; rb_model_review_patch() adds to them. */
struct rb_model_usage {
	long calls; /* exchanges that got an answer */
	long retries;
	long tokens_in, tokens_out;
	double cost; /* from the configured prices */
	int proposed; /* findings the finders returned, every pass */
	int malformed; /* dropped: a field missing or of the wrong type */
	int hallucinated; /* dropped: the quote is not in the patch there */
	int off_scope; /* dropped: file not in the patch, category refused */
	int duplicates; /* merged into another (same pass or another focus) */
	int confirmed, rejected, uncertain;
	int below_floor; /* dropped by the severity floor */
	int capped; /* dropped by max_findings or max_words */
	int kept;
	int words; /* words of commentary kept */
	int clipped; /* prompts whose budget clipped something */
	int passes; /* finder calls made (one per focus) */
	int unevidenced; /* confirmed without evidence that checks; dropped,
			  * and counted in rejected too */
	int tool_calls, tool_refused; /* model_tools.h's usage */
};

/* Adds @b's counters to @a. */
void rb_model_usage_add(struct rb_model_usage *a,
			const struct rb_model_usage *b);

/* One patch and what is around it. Everything is borrowed. */
struct rb_model_patch_ctx {
	const char *cover_title; /* or NULL */
	const char *const *subjects; /* every patch's title, in order */
	size_t n_subjects;
	int index; /* 1-based index of this patch */
	const char *commit_msg; /* its commit message, or NULL */
	const char *patch; /* the unified diff */
	size_t patch_len;
	git_repository *repo; /* the tree it applied to, or NULL */
	const git_oid *tree; /* the tree after this patch, or NULL */
	const char *const *subsystems; /* MAINTAINERS section names */
	size_t n_subsystems;

	/*
	 * The finder's focuses (rb_model_focus_known() names), one call
	 * each; NULL: one call with no focus.
	 */
	const char *const *focuses;
	size_t n_focuses;

	/* What reviewers read beside the patch; each may be NULL. */
	const char *cover_body; /* the cover letter's body */
	const char *changelog; /* this patch's notes after "---" ("v2: ...") */
	const char *range_diff; /* what changed since v(n-1), versions.c */
	const char *prev_review; /* v(n-1)'s findings and their outcomes */
	/* Every part, commit message and diff: [n_subjects], NULL gaps. */
	const char *const *patches;

	/* For the tools and the evidence check, or NULL. */
	const git_oid *base_tree; /* the tree before the series */
	const git_oid *tip_tree; /* the tree after the series */
	const git_oid *base_commit;

	/*
	 * Where each hunk of this patch went in (review/apply.h), or NULL:
	 * the same text as @patch, applied to the tree before it, giving
	 * @tree. The model sees the diff numbered as the tree
	 * (model_diff.h); NULL leaves the mail's numbers.
	 */
	const struct rb_apply_patch_result *applied;
	/* Every part's apply ([n_subjects], NULL gaps), or NULL: for the
	 * show_patch tool, which numbers the parts as the tree too. */
	const struct rb_apply_patch_result *const *applied_all;
};

/* Is @name a focus: correctness, locking, memory, api or claims? */
bool rb_model_focus_known(const char *name);
/* The five focuses, in their order; *n gets the count. */
const char *const *rb_model_focus_names(size_t *n);

/*
 * Reviews one patch. Appends the surviving findings (checker "model",
 * checker_version the model name, code the quoted line, message the
 * question and its trigger) to @out and adds to @usage. One finder call
 * per focus of @ctx; the tools (when the options offer them and @ctx has
 * a tree) are shared by every call of the patch, and so are their
 * limits. Thread-safe: the concurrency limit is shared by every caller
 * of @m.
 *
 * Returns 0; -RB_EQUOTA (quota or spend limit: not retried), -RB_EAGAIN
 * (retries used up), -RB_ETIMEOUT, -RB_ETOOBIG (reply over the cap),
 * -RB_EPARSE (the finder's answer breaks the schema; with several
 * focuses, only when every one's does), -RB_ENOTFOUND
 * (replay: no recording for this request), -RB_ENOMEM; the reason in
 * rb_errmsg(). The verifier failing is not an error: its findings are
 * then uncertain.
 */
int rb_model_review_patch(struct rb_findings *out, struct rb_model_usage *usage,
			  struct rb_model *m,
			  const struct rb_model_patch_ctx *ctx);

/*
 * One line for the review mail (render's model_line) saying what the
 * stage did: "Model review (NAME): 1 finding kept of 4 proposed; 2
 * dropped for quoting code not in the patch; 1 rejected on a second
 * look; 1 dropped because the second look's evidence is not in the
 * tree." (proposed less the duplicates: what the focuses found once
 * merged). When @err is not 0 (what rb_model_review_patch() returned), the
 * line says the model stage failed and why, in plain words (quota,
 * timeout, ...), and that the checker findings stand alone.
 */
int rb_model_status_line(struct rb_buf *out, const struct rb_model *m,
			 const struct rb_model_usage *u, int err);

/*
 * The version of the prompt set @m reviews with (model_prompt.h's
 * rb_model_prompt_version() over every prompt text and guide): stored
 * with each review and finding. 0 or -RB_ENOMEM / -RB_EIO.
 */
int rb_model_prompt_set_version(char out[13], const struct rb_model *m);

/* ---- lower layers, for tests, the fuzzer and bench/model-eval ---- */

/* A finding as the finder proposes it. */
struct rb_model_raw_finding {
	char *file;
	bool old_side;
	int line;
	char *quoted_code;
	char *category;
	enum rb_fsev severity;
	double confidence;
	bool introduced_by_patch;
	char *trigger_scenario;
	char *question;
};

struct rb_model_raw_findings {
	struct rb_model_raw_finding *v;
	size_t n;
	int malformed; /* entries dropped for a missing or bad field */
};

/*
 * Parses the finder's answer: {"findings": [...]} with every field
 * required (a JSON object may be wrapped in a ```json fence). Entries that
 * break the schema are counted in ->malformed and skipped; an answer that
 * is not such an object is -RB_EPARSE. Caps: 64 findings, 4 KiB a field.
 */
int rb_model_parse_findings(struct rb_model_raw_findings *out, const char *text,
			    size_t len);
void rb_model_raw_findings_release(struct rb_model_raw_findings *f);

enum rb_model_verdict {
	RB_MODEL_UNCERTAIN,
	RB_MODEL_CONFIRMED,
	RB_MODEL_REJECTED
};

/* One quote the verifier gives as evidence. */
struct rb_model_evidence {
	char *file; /* a tree path, or "COMMIT_MSG" */
	bool base; /* "base": before the series; "tip": after it */
	int line;
	char *quote;
};

struct rb_model_verdict_entry {
	enum rb_model_verdict verdict;
	struct rb_model_evidence *ev;
	size_t n_ev;
};

/*
 * Parses the verifier's answer {"verdicts": [{"id": N, "verdict": "...",
 * "reason": "...", "evidence": [{"file", "side": "base"|"tip", "line",
 * "quote"}]}]} into @out[0..n) (ids are 1-based, the array the caller's,
 * zeroed here); ids not judged stay uncertain. Caps: 8 quotes a verdict,
 * 4 KiB a quote; a bad evidence entry is skipped. -RB_EPARSE when the
 * answer is not such an object, -RB_ENOMEM.
 */
int rb_model_parse_verdicts(struct rb_model_verdict_entry *out, size_t n,
			    const char *text, size_t len);
void rb_model_verdicts_release(struct rb_model_verdict_entry *v, size_t n);

struct rb_diff;
struct rb_model_tools;
/*
 * The evidence check: 0 when there is at least one quote and every one
 * is where it says, in the tree (rb_model_tools_quote_at() through @t,
 * when not NULL) or in the patch @d on that side (rb_model_validate()),
 * or for "COMMIT_MSG" in @commit_msg; -RB_EINVAL otherwise.
 */
int rb_model_check_evidence(const struct rb_model_tools *t,
			    const struct rb_diff *d, const char *commit_msg,
			    const struct rb_model_evidence *ev, size_t n,
			    int near);

/*
 * Do @a and @b say the same thing: the same file (a/ b/ forgiven) and
 * side, the same category, and lines that overlap (a finding spans its
 * quote's lines)? The merge keeps one of such findings.
 */
bool rb_model_same_finding(const struct rb_model_raw_finding *a,
			   const struct rb_model_raw_finding *b);

/*
 * The validators for one proposed finding: the category is allowed and
 * the patch introduces it, the file is in the patch (else -RB_ENOTFOUND),
 * and every line of the quote is on its side within @near lines of the
 * line named (for file "COMMIT_MSG", in @commit_msg), else -RB_EINVAL: a
 * hallucination. *out gets the path as the diff names it (NULL for the
 * commit message; borrowed from @d).
 */
int rb_model_validate(const char **out, const struct rb_diff *d,
		      const char *commit_msg,
		      const struct rb_model_raw_finding *f, int near);

/* Is @category one the finder may report? */
bool rb_model_category_allowed(const char *category);

#endif
