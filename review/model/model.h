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
 * tools of model_tools.h, each pass within its own limits, the verifier
 * within a reserve no finder can spend, and all passes of a series
 * within its total.
 *
 * The passes that have something to look at (model_plan.h) run at once,
 * each on its own thread (the provider's concurrency limit decides how
 * many requests are out), and share one prompt: the rules first, then
 * the patch's data, the focus last, so a provider caches what they share
 * (Anthropic cache_control; an OpenAI-compatible server's own prefix
 * cache). What they find is merged in the order of the focuses, never in
 * the order the answers came, so the same answers give the same review.
 *
 * The verifier (issue 30) is one call per finding, or per small group of
 * findings on the same lines, each in a fresh context with a nonce of
 * its own and a tool budget of its own. Its evidence counts only when it
 * is code it was shown in that conversation and reaches beyond the
 * finding's own lines (model_evidence.h). Before it, the merge settles
 * the findings against the concerns the other focuses dismissed, and
 * findings of one root cause on the same lines become one.
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
#include "review/model/model_provider.h"
#include "review/model/model_tools.h"

struct rb_apply_patch_result;
struct rb_buf;
struct rb_model;
struct rb_model_tools_pool;

#define RB_MODEL_N_FOCUSES 5 /* correctness, locking, memory, api, claims */

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
	int dismissed; /* dropped: other focuses ruled it out on its lines */
	int same_cause; /* merged with another of one root cause on the
			 * same lines (counted in duplicates too) */
	int verifications; /* verifier calls made */
	long cache_read, cache_written; /* of tokens_in: the provider's cache */
	/* Finder passes the planner left out, by focus (model_plan.h). */
	int skipped[RB_MODEL_N_FOCUSES];
	int unreviewed; /* patches the planner gave no pass at all */
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
	/* this patch against the part of v(n-1) it changed (versions.c) */
	const char *interdiff;
	/*
	 * Notes an admin approved for the sections the series touches
	 * (issue 37): facts learned from confirmed false positives, mail
	 * text in origin, fenced as data like the rest and capped by the
	 * caller; they are part of the prompt set's version
	 * (rb_model_prompt_version_notes()).
	 */
	const char *notes;
	/* Every part, commit message and diff: [n_subjects], NULL gaps. */
	const char *const *patches;

	/* For the tools and the evidence check, or NULL. */
	const git_oid *base_tree; /* the tree before the series */
	const git_oid *tip_tree; /* the tree after the series */
	const git_oid *base_commit;

	/*
	 * @repo is for the calling thread only (libgit2). A pass on another
	 * thread that reads the tree opens its own through @repo_open
	 * (rb_apply_repo_open() over the apply's objects, with @repo_arg);
	 * NULL: such passes run one after another on this thread.
	 */
	int (*repo_open)(git_repository **out, void *arg);
	void *repo_arg;
	/*
	 * The series' tool budget, shared by every pass of every patch
	 * (model_tools.h), or NULL: one of that size for this patch alone.
	 */
	struct rb_model_tools_pool *tool_pool;

	/* The prompt (model_prompt.h) leaves the commit message out. */
	bool no_commit_msg;
	/*
	 * Where each hunk of this patch went in (review/apply/apply.h), or NULL:
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
/* @name's place in that order, or -1. */
int rb_model_focus_index(const char *name);

/*
 * What the model's tools see of @ctx (model_tools.h): its trees, the
 * series and its applies, the code index, read through @repo (the
 * calling thread's own handle, or ctx->repo).
 */
struct rb_model_tools_ctx
rb_model_tools_ctx_of(const struct rb_model_patch_ctx *ctx,
		      git_repository *repo);

/*
 * Reviews one patch. Appends the surviving findings (checker "model",
 * checker_version the model name, code the quoted line, message the
 * question and its trigger) to @out and adds to @usage. One finder call
 * per focus of @ctx that the planner keeps (model_plan.h; the others are
 * counted in usage->skipped and logged), run at once; the focuses of
 * the options' blind_focuses get the diff without the commit message.
 * When the options offer the tools and @ctx has a tree, each pass reads
 * it with its own tools object and limits, drawing on @ctx->tool_pool;
 * the verifier's reserve is carved out of that pool before any finder
 * starts. Thread-safe: several patches may be reviewed at once, on
 * their own threads with their own repositories; the concurrency limit
 * is shared by every caller of @m.
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
 * The tool budget of one series (model.tools.series_calls and
 * series_bytes), for rb_model_patch_ctx.tool_pool: every pass of every
 * patch of the series draws on it, from any thread. Free it with
 * rb_model_tools_pool_free() after the last patch. -RB_ENOMEM.
 */
int rb_model_series_pool_new(struct rb_model_tools_pool **out,
			     const struct rb_model *m);

/*
 * One line for the review mail (render's model_line) saying what the
 * stage did: "Model review (NAME): 1 finding kept of 4 proposed; 2
 * dropped for quoting code not in the patch; 1 rejected on a second
 * look; 1 dropped because the second look's evidence is not in the
 * tree." (proposed less the duplicates: what the focuses found once
 * merged), then what the planner left out ("; locking and api left out:
 * nothing for them to look at", or "Model review (NAME): not run: the
 * patch changes documentation only."). When @err is not 0 (what
 * rb_model_review_patch() returned), the
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
	char *severity_reason; /* why that severity, or NULL: not given */
	int pass; /* the finder call that proposed it, 0-based */
};

/* A concern a finder looked at and ruled out, with why. */
struct rb_model_dismissal {
	char *file;
	int line;
	char *category;
	char *reason;
	int pass; /* the finder call that dismissed it, 0-based */
};

struct rb_model_raw_findings {
	struct rb_model_raw_finding *v;
	size_t n;
	int malformed; /* entries dropped for a missing or bad field */
	struct rb_model_dismissal *dis;
	size_t n_dis;
};

/*
 * Parses the finder's answer: {"findings": [...], "dismissed": [...]}
 * with every field of a finding required but "severity_reason" (a JSON
 * object may be wrapped in a ```json fence). Entries that break the
 * schema are counted in ->malformed and skipped; an answer that is not
 * such an object is -RB_EPARSE. "dismissed" ({file, line, category,
 * reason}) may be absent; a bad entry of it is skipped, uncounted. Caps:
 * 64 findings, 16 dismissals, 4 KiB a field (1 KiB a reason).
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
	char *file; /* a tree path ("COMMIT_MSG" is parsed, never counts) */
	bool base; /* "base": before the series; "tip": after it */
	int line;
	char *quote;
};

struct rb_model_verdict_entry {
	enum rb_model_verdict verdict;
	char *reason; /* the verifier's sentence, or NULL */
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

/*
 * The classifier's reading of a prose answer to a finding
 * (bot/stages/feedback.c, feedback.prose_model): {"prose_verdict":
 * "false_positive" | "valid" | "fixed" | "unclear"} in @text (@len bytes,
 * not NUL-terminated, a fence or prose around it cut). The verdict kind
 * (mail/verdict.h RB_VK_*), or -1 for "unclear" and for anything else:
 * hostile output names one known word or nothing.
 */
int rb_model_parse_prose_verdict(const char *text, size_t len);

struct rb_diff;

/*
 * Do @a and @b say the same thing: the same file (a/ b/ forgiven) and
 * side, the same category, and lines that overlap (a finding spans its
 * quote's lines)? The merge keeps one of such findings.
 */
bool rb_model_same_finding(const struct rb_model_raw_finding *a,
			   const struct rb_model_raw_finding *b);

/*
 * Are @a and @b one root cause: the same file and side, lines that
 * overlap, and categories of one family (lifetime: use-after-free,
 * double-free, refcount, null-deref, memory-safety; concurrency: race,
 * locking, deadlock; leaks and error paths; bounds), or a concurrency
 * category beside a lifetime one (a race that frees under a user)? The
 * merge makes them one finding under the graver category, and names
 * the other.
 */
bool rb_model_same_cause(const struct rb_model_raw_finding *a,
			 const struct rb_model_raw_finding *b);

/*
 * Does dismissal @d speak of finding @f: the same file, a line within
 * two of @f's lines, and a category of the same family?
 */
bool rb_model_dismissal_matches(const struct rb_model_dismissal *d,
				const struct rb_model_raw_finding *f);

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
