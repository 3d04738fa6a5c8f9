/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * render.h - what reviewbot's mails say: the review of one patch, one
 * summary reply to the cover letter, apply failures, incomplete series and
 * verdict acknowledgements. Each is a template in templates/ (overridable
 * per subsystem) filled from the data below, then laid out for mail:
 *
 *  - plain text, LF line endings (the composer turns them into CRLF);
 *  - every line at most 72 columns, except quoted code ("> " lines),
 *    which is never rewrapped;
 *  - a review quotes only the lines of a hunk that matter: the line a
 *    finding names with two new-side lines of context either side from
 *    the same hunk, "+"/" " marker kept; findings overlapping in a hunk
 *    share one quote; findings on the commit message quote its line;
 *    findings with no usable location come last;
 *  - findings are numbered F1..Fn in the order they appear in the mail;
 *  - no line ever starts with Reviewed-by:, Acked-by: or Tested-by:
 *    (DESIGN.md fact 7): such text in findings or other untrusted input
 *    is neutralised (the colon is dropped), and a template that would
 *    still produce one is refused with -RB_EINVAL; quoted lines ("> "),
 *    which are not the bot's words and which no tool reads as a
 *    trailer, show the patch as it is, colon and all.
 *
 * Untrusted text (titles, findings, patch lines) is cleaned: control
 * characters go, invalid UTF-8 becomes U+FFFD.
 *
 * All pointers in the contexts are borrowed. Each function appends to @out
 * (whose cap bounds the mail) and returns 0, -RB_EPARSE for a broken
 * template (FILE:LINE in rb_errmsg()), -RB_ENOTFOUND when no template
 * directory holds the template, -RB_EINVAL, -RB_ETOOBIG or -RB_ENOMEM.
 */
#ifndef RB_REVIEW_RENDER_H
#define RB_REVIEW_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/mode.h"
#include "mail/verdict.h"
#include "review/findings.h"

struct rb_buf;

/* The text width of everything but quoted code. */
#define RB_RENDER_WIDTH 72

/* Where templates come from: @override_dir first, then @templates_dir. */
struct rb_render_dirs {
	const char *templates_dir; /* the default set (bot: RB_TEMPLATES_DIR) */
	const char *override_dir; /* the subsystem's policy templates_dir */
};

/*
 * A line a reply on the previous version commented on, which this
 * version keeps (issue 37): quoted with the new-side lines before it,
 * then its note ("Raised on v1 (patch 3/3, this line) by a reviewer,
 * and unchanged in v2.").
 */
struct rb_render_raised {
	/* the new-side lines before it, oldest first, each with its
	 * origin ('+' or ' ') first; NULL where none */
	const char *before[2];
	const char *line; /* the added line, without "+" */
	const char *note;
};

/* One patch of a series as the renderer needs it. */
struct rb_render_patch {
	int index; /* 1-based index in the series; 0: a single patch */
	const char *title; /* the subject's title */
	const char *const *summary; /* this patch's checker lines, or NULL */
	size_t n_summary;
	/*
	 * The patch's findings; with @show (rb_policy_filter_findings()
	 * fills it), only those it marks are shown.
	 */
	const struct rb_finding *findings;
	size_t n_findings;
	const bool *show; /* [n_findings], or NULL: show all */
	const char *commit_msg; /* to quote commit-message findings */
	const char *patch; /* the unified diff, to quote from; may be NULL */
	size_t patch_len;
	/*
	 * Out, may be NULL: [n_findings], set to N for the finding shown as
	 * "[FN]" (unique within the mail), 0 for one not shown; filled on
	 * success.
	 */
	int *ids;
	/* Lines raised on the previous version and kept (issue 37). */
	const struct rb_render_raised *raised;
	size_t n_raised;
	/* The part's interdiff against the previous version, shortened,
	 * quoted as it is ('-'/'+'/' ' then the patch line), or NULL. */
	const char *interdiff;
	/* In, may be NULL: [n_findings], the numbers to show instead of
	 * F1..Fn (a forward keeps the review's, issue 36). */
	const int *given_ids;
};

/* The review of one patch, a reply to that patch. */
struct rb_render_ctx {
	enum rb_mode mode; /* advisory, blocking, shadow; off: advisory */
	const char *subsystem; /* "MEMORY MANAGEMENT" */
	const char *blocking_text; /* what blocking means there, or NULL */
	int version; /* 1 when the subject does not say */
	int index, total; /* 4, 9; 0, 0 for a single patch */
	const char *title;
	const char *base_name; /* "mm-unstable" */
	const char *base_commit; /* hex; the first 12 digits are shown */
	/* "checkpatch: clean.", "Build (x86_64 defconfig, W=1): ..." */
	const char *const *summary;
	size_t n_summary;
	const char *model_line; /* "The model stage is off; ...", or NULL */
	const struct rb_finding *findings; /* this patch's */
	size_t n_findings;
	const bool *show; /* as in struct rb_render_patch */
	const char *commit_msg;
	const char *patch;
	size_t patch_len;
	int *ids; /* out, may be NULL: as in struct rb_render_patch */
	const struct rb_render_raised *raised; /* as in rb_render_patch */
	size_t n_raised;
	/* Shadow mail to the section's own M: and R: people (issue 36):
	 * the footer says so and how to send a finding on. */
	bool shadow_maintainers;
	struct rb_render_dirs dirs;
};

/*
 * Every mail with findings a language model wrote says so in a plain
 * line before its footer, naming the model (a model finding's
 * checker_version) and the findings: "F1 and F2 were written with a
 * language model (NAME), not by a person." (template data "llm_line").
 */

/* templates/review.txt */
int rb_render_review(struct rb_buf *out, const struct rb_render_ctx *ctx);

/*
 * What a mail about a whole series (not one patch) says first: the
 * summary, an apply failure and an incomplete series start with it.
 */
struct rb_render_head {
	enum rb_mode mode; /* as in struct rb_render_ctx */
	const char *subsystem;
	/* What blocking means there; NULL: the default line. */
	const char *blocking_text;
	int version, total;
	const char *title; /* the series' (the cover letter's) title */
	bool shadow_maintainers; /* as in struct rb_render_ctx */
};

/* One reply to the cover letter that sums up the whole series. */
struct rb_render_summary_ctx {
	struct rb_render_head head;
	const char *base_name, *base_commit;
	const char *const *summary; /* series-wide checker lines */
	size_t n_summary;
	const char *model_line;
	const struct rb_render_patch *patches; /* in series order */
	size_t n_patches;
	struct rb_render_dirs dirs;
};

/* templates/summary.txt; finding numbers run across the whole mail. */
int rb_render_summary(struct rb_buf *out,
		      const struct rb_render_summary_ctx *ctx);

/* One base the series was tried on, and where it failed. */
struct rb_render_apply_attempt {
	const char *base_name; /* "mm-unstable" */
	const char *base_commit; /* or NULL */
	int patch_index; /* the patch that failed; 0: not known */
	const char *patch_title; /* or NULL */
	const char *file; /* or NULL */
	int hunk; /* 1-based hunk of that file; 0: not known */
	const char *hunk_header; /* "@@ -10,7 +10,8 @@ ...", or NULL */
	const char *reason; /* "no match for the preimage near line 120" */
	/* How old base_commit was, and its tree's last fetch: "committed
	 * 3 hours ago, fetched 5 minutes ago"; or NULL. */
	const char *age;
	/* A base that was never tried, said as a sentence ("No base could be
	 * guessed from the index lines: ..."); the fields above are then
	 * unused. NULL for a tried base. */
	const char *note;
};

struct rb_render_apply_ctx {
	struct rb_render_head head;
	const struct rb_render_apply_attempt *attempts;
	size_t n_attempts;
	/* Prerequisites applied first on each base, and those named but
	 * not found ("; "-separated); NULL when none. */
	const char *prereq_applied, *prereq_missing;
	/* Over a size limit or budget of the apply (RB_APPLY_FAIL_LIMIT): the
	 * mail says why it was not reviewed, not that it does not apply. */
	bool too_big;
	/* To the admins (the default: the trees are theirs), naming the
	 * series' @author; else to the author, with what they can do:
	 * base-commit:, or a rebase on @rebase_on (the first tree tried,
	 * or NULL). */
	bool to_admins;
	const char *author;
	const char *rebase_on;
	/* Lines said before the attempts ("Patch 8/9 did not reach the
	 * list; ..."), as in struct rb_render_ctx. */
	const char *const *summary;
	size_t n_summary;
	struct rb_render_dirs dirs;
};

/* templates/apply-failure.txt */
int rb_render_apply_failure(struct rb_buf *out,
			    const struct rb_render_apply_ctx *ctx);

struct rb_render_incomplete_ctx {
	struct rb_render_head head;
	const int *missing; /* 1-based indices of the missing patches */
	size_t n_missing;
	int wait_minutes; /* how long reviewbot waited */
	/* Patches 1..reviewed were reviewed (a prefix) and raised nothing;
	 * 0: nothing was reviewed. */
	int reviewed;
	struct rb_render_dirs dirs;
};

/* templates/incomplete.txt */
int rb_render_incomplete(struct rb_buf *out,
			 const struct rb_render_incomplete_ctx *ctx);

/*
 * A forward (issue 36): the findings of a review that a maintainer of
 * the home section chose to send to the author and the list, quoted as
 * the review quoted them and numbered as it numbered them.
 */
struct rb_render_forward_ctx {
	enum rb_mode mode; /* the series' */
	const char *subsystem;
	const char *blocking_text;
	const char *by; /* who forwarded them: "Grace Hopper <g@x>" */
	const char *role; /* "maintainer", "reviewer" or "admin" */
	int version, index, total;
	const char *title;
	const struct rb_finding *findings;
	size_t n_findings;
	const int *ids; /* [n_findings]: each one's number in the review */
	const char *commit_msg;
	const char *patch;
	size_t patch_len;
	struct rb_render_dirs dirs;
};

/* templates/forward.txt */
int rb_render_forward(struct rb_buf *out,
		      const struct rb_render_forward_ctx *ctx);

/* An open blocking finding, as the ledger's notice names it. */
struct rb_render_ledger_item {
	struct rb_finding finding; /* borrowed strings */
	int id; /* its N in its review */
	int version, index; /* the series version and part it is on */
};

/*
 * The blocking ledger's notice (issue 36): a series with open blocking
 * findings appeared in one of the section's trees. To the home
 * section's maintainers; one per series and tree.
 */
struct rb_render_ledger_ctx {
	struct rb_render_head head; /* mode blocking, the series */
	const char *author;
	const char *tree; /* "mm-unstable" */
	const char *commit; /* the tree's head; 12 digits shown */
	int parts; /* how many of the series' parts matched */
	const struct rb_render_ledger_item *items;
	size_t n_items;
	struct rb_render_dirs dirs;
};

/* templates/ledger.txt */
int rb_render_ledger(struct rb_buf *out,
		     const struct rb_render_ledger_ctx *ctx);

/* A series set aside: its review stopped the reviewer every time. */
struct rb_render_not_reviewed_ctx {
	struct rb_render_head head;
	int tries; /* how many times the review was tried */
	struct rb_render_dirs dirs;
};

/* templates/not-reviewed.txt */
int rb_render_not_reviewed(struct rb_buf *out,
			   const struct rb_render_not_reviewed_ctx *ctx);

struct rb_render_ack_item {
	int id; /* N of "FN" */
	enum rb_verdict_kind verdict; /* mail/verdict.h */
};

struct rb_render_ack_ctx {
	const struct rb_render_ack_item *items;
	size_t n_items;
	struct rb_render_dirs dirs;
};

/* templates/ack.txt: one line, "Recorded: F1 false positive, F3 valid." */
int rb_render_ack(struct rb_buf *out, const struct rb_render_ack_ctx *ctx);

/*
 * The layout pass every mail goes through, exported for tests and for
 * other text that goes out: wraps lines wider than @width at spaces
 * (keeping their indentation; a word longer than the width is split), and
 * leaves lines starting with '>' and the "-- " separator as they are;
 * drops trailing blanks elsewhere. Then refuses (-RB_EINVAL, naming the
 * line) a line that starts with a Reviewed-by:, Acked-by: or Tested-by:
 * trailer. Replaces @buf's content.
 */
int rb_render_layout(struct rb_buf *buf, int width, const char *name);

#endif
