/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * versions.h - a series that is v(n+1) of a stored one, inside the review
 * stage (issue 18): which parts did not change since v(n) (the same git
 * patch-id) and are not reviewed again; every finding raised on v(n)
 * re-checked (fixed, raised again with a note, or never again once
 * judged); the look-ahead within the series (a finding whose line a later
 * patch changes again); and a short range-diff for the cover's summary.
 *
 * Everything works on the parsed mails and their diffs in memory: no
 * extra apply. All SQL is in bot/store/store_versions.c.
 */
#ifndef RB_BOT_VERSIONS_H
#define RB_BOT_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "review/apply/patchid.h"

struct rb_buf;
struct rb_diff;
struct rb_findings;
struct rb_message;
struct rb_prior_finding;
struct rb_thread_line;
struct rb_store;

/* What a part of v(n+1) is next to v(n). */
enum rb_part_change {
	RB_PART_NEW, /* no part of v(n) has its patch-id or title */
	RB_PART_CHANGED, /* a part of v(n) has its title, not its patch-id */
	RB_PART_UNCHANGED, /* the same patch-id as a reviewed part of v(n) */
};

struct rb_versions {
	int version, total;
	char *prev_id; /* the previous version's series, or NULL */
	int prev_version;
	const char *how; /* static: how it was found */
	/* [total + 1], index 0 unused */
	char (*ids)[RB_PATCH_ID_HEX];
	enum rb_part_change *change;
	int *prev_idx; /* the matching part of v(n), 0: none */
	struct rb_diff **diffs; /* parsed, NULL where missing */
	/* v(n)'s parts: [prev_total + 1] */
	int prev_total;
	char **prev_titles;
	char (*prev_ids)[RB_PATCH_ID_HEX];
	bool *prev_reviewed; /* its patch-id is recorded: it was reviewed */
	bool *prev_matched;
	/* Findings raised on v(n) (and earlier, through unchanged parts). */
	struct rb_prior_finding *prior;
	size_t n_prior;
	int64_t *fixed; /* ids of prior findings fixed in this version */
	size_t n_fixed;
	/* Per finding of this version, after rb_versions_filter(). */
	int64_t *prior_of;
	int *later_of;
	size_t n_findings;
	/*
	 * Issue 37. v(n)'s parts as stored ([prev_total + 1]): their
	 * Message-IDs (the threads to read), diffs and diff texts; this
	 * version's diff texts ([total + 1], NULL where none), for the
	 * interdiffs; the lines the replies commented on
	 * (threads.h); per finding, "reviewer" or "bot" when a reply had
	 * quoted its line, and whether such a finding is marked rather
	 * than dropped (policy already_quoted: mark).
	 */
	char **prev_msgids;
	struct rb_diff **prev_diffs;
	char **prev_patches;
	char **patches;
	struct rb_thread_line *lines;
	size_t n_lines;
	const char **quoted_of;
	bool mark_quoted;
};

/*
 * b4's cover letters end with "- Link to v1: https://lore.kernel.org/r/ID"
 * (b4 prep), newest version first: the Message-ID of the first such link
 * in @raw (@len bytes, hostile), without "<>", into @out (@size bytes),
 * or "" when there is none or it does not fit. It is only ever a key to
 * look up in the store.
 */
void rb_versions_b4_link(char *out, size_t size, const char *raw, size_t len);

struct rb_versions_in {
	struct rb_store *st; /* borrowed */
	const char *series_id;
	int version;
	const char *author, *title; /* as series assembly stored them */
	const char *assembled_previous; /* series.previous, or NULL */
	struct rb_message *const *msgs; /* [total + 1], NULL where missing */
	int total; /* of msgs */
	int n_parts; /* parts 1..n_parts under review */
	const char *cover_raw; /* for b4's "Link to vN:" line, or NULL */
	size_t cover_len;
	size_t max_size; /* for parsing v(n)'s mails */
};

/*
 * Finds the previous version and compares every part with it. A series
 * with no previous version (or an error reading v(n), logged) leaves @v
 * with prev_id NULL: everything is reviewed as before. Returns 0 or
 * -RB_ENOMEM / a store error.
 */
int rb_versions_prepare(struct rb_versions *v, const struct rb_versions_in *in);
void rb_versions_release(struct rb_versions *v);

/* The version part @idx is unchanged since (not reviewed again), or 0. */
int rb_versions_unchanged(const struct rb_versions *v, int idx);

/* Removes the findings on unchanged parts (their review is v(n)'s). */
void rb_versions_drop_unchanged(const struct rb_versions *v,
				struct rb_findings *fs);

/*
 * After suppression and the policy's cap (@states[i] "raised",
 * "suppressed" or "dropped", strdup'd, replaced here):
 *  - look-ahead: a raised finding whose line a later patch of the series
 *    changes again is dropped, or keeps a note "Patch j/N changes this
 *    line again" when that patch adds the quoted code back;
 *  - re-check: a finding raised on v(n) too is suppressed when somebody
 *    judged it there, else it says "Raised on v(n) too, as Fk."; a v(n)
 *    finding whose quoted code is gone is fixed in this version;
 *  - said once (issue 37): a finding on a line a reply in the thread
 *    had quoted (rb_threads_quoted()) is dropped when that reply is
 *    trusted (rb_threads_trust(), called before), else and with
 *    mark_quoted it says "(A reviewer quoted this line in the thread
 *    too.)".
 * @msgs ([total + 1]) are this version's parts, for commit-message
 * quotes. Returns 0 or -RB_ENOMEM.
 */
int rb_versions_filter(struct rb_versions *v, struct rb_findings *fs,
		       char **states, struct rb_message *const *msgs);

/* "Unchanged since v1 ...: 1/3 and 3/3." into @out; nothing when none. */
int rb_versions_unchanged_line(const struct rb_versions *v, struct rb_buf *out);

/* "Fixed in v2 (the line is gone or changed): F1 of v1, F3 of v1." */
int rb_versions_fixed_line(const struct rb_versions *v, struct rb_buf *out);

/*
 * A short range-diff since v(n) for the cover's summary: one line for the
 * series ("Since v1: 2 unchanged, 1 changed, 0 new, 1 dropped (3/3
 * \"title\")."), and one note per part ("Unchanged since v1 ...",
 * "Changed since v1 (was 2/3).", "New in v2."). Parts are matched by
 * patch-id, then by title; nothing is written without a previous version.
 */
int rb_versions_range_diff(const struct rb_versions *v, struct rb_buf *out);
int rb_versions_part_note(const struct rb_versions *v, int idx,
			  struct rb_buf *out);

/*
 * The interdiff of part @idx against the part of v(n) it changed: the
 * two patches compared as text (their index lines and hunk line numbers
 * left out, as git range-diff does), each line marked '-' (v(n) had
 * it), '+' (this version has it) or ' ', in hunks with @context lines
 * around each change. At most @max_lines lines, each cut at 200 bytes,
 * go to @out, and no more than fit whole under its cap: then "(N more
 * lines)". Nothing for a part that is new, unchanged or unreadable.
 * Returns 0 or -RB_ENOMEM.
 */
int rb_versions_interdiff(const struct rb_versions *v, int idx, int context,
			  int max_lines, struct rb_buf *out);

/* Records the link, the patch-ids, the outcomes and each finding's prior
 * and look-ahead, inside the caller's transaction (after the findings
 * are stored). */
int rb_versions_write(const struct rb_versions *v, struct rb_store *st,
		      const char *series_id, const struct rb_findings *fs);

#endif
