/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * threads.h - the thread of a series as a reviewer reads it (issue 37),
 * inside the review stage, beside versions.h:
 *
 *  - v(n)'s review, answered or not: the replies to v(n)'s parts in the
 *    store that comment on an added line (mail/quotes.h), each matched
 *    to v(n)'s diff and then to v(n+1)'s: a line still there with its
 *    neighbours (the line before it and the two after it, as v(n) had
 *    them, byte for byte) is "raised on v(n) and unchanged", listed in
 *    the review of its part, with whether the author replied to that
 *    reply on v(n) ("answered there"); a line v(n+1) changed is only
 *    counted;
 *  - say nothing twice: the lines the replies to this version's parts
 *    comment on, beside those of v(n) still there; a finding on such a
 *    line is dropped or marked as also raised, as the policy says
 *    (policy already_quoted).
 *
 * Whose replies count: a person's (kind reply or patch: a reviewer's
 * suggested diff) other than the series' author, and a known bot's (a
 * message ignored as "a known bot", config known_bots: Sashiko; or a
 * sender assembly knows for a bot, mail/series.h: the 0-day robot);
 * never our own mail, nor mail refused for its List-Id or as
 * Auto-Submitted. Only direct replies to a part are read, at most
 * RB_THREADS_MAX_REPLIES a part, and on v(n) only those dated before
 * v(n+1)'s newest part: what a reviewer had said when v(n+1) came. At
 * most RB_THREADS_MAX_LINES lines and RB_THREADS_MAX_WORK diff lines
 * looked at over the series: past either, what was read is kept. No
 * name goes anywhere: the mail and the model say "a reviewer" or "a
 * bot". Deterministic: the same store gives the same lines.
 */
#ifndef RB_BOT_THREADS_H
#define RB_BOT_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_buf;
struct rb_finding;
struct rb_findings;
struct rb_store;
struct rb_versions;

#define RB_THREADS_MAX_REPLIES 32 /* direct replies read per part */
#define RB_THREADS_MAX_LINES 1024 /* lines commented on, whole series */
/* Diff lines looked at to place the comments, whole series: a budget on
 * the replies' quotes times the parts' lines. */
#define RB_THREADS_MAX_WORK (8u << 20)

/* A line a reply commented on. */
struct rb_thread_line {
	bool earlier; /* said on v(n), else on this version */
	bool bot; /* by a known bot, else by a reviewer */
	bool unchanged; /* earlier: still there with its neighbours */
	int idx; /* this version's part, 0: none (v(n)'s part is gone) */
	int prev_idx; /* earlier: v(n)'s part */
	char *file; /* the file in this version (else in v(n)), or NULL */
	int line; /* its new-side line there (the mail's numbers), 0: not
		   * located */
	char *code; /* the line's text */
	/* the new-side lines before it there, each with its origin ('+'
	 * or ' ') first, oldest first; NULL where none */
	char *before[2];
	char *reply; /* the reply's Message-ID, for the store only */
	int n; /* the comment's place in the reply */
	char *from; /* the reply's sender, for rb_threads_trust() only */
	bool known_bot; /* config known_bots (ingest ignored it as one) */
	bool answered; /* earlier: the author replied to that reply */
	/* rb_threads_trust(): whether this reply may keep a finding from
	 * being said (else it is only marked as also raised) */
	bool trusted, trust_known;
};

struct rb_threads_in {
	struct rb_store *st; /* borrowed */
	const char *series_id;
	const char *author; /* the series' author: her replies do not count */
	/* a B4 Relay series: the in-body author of its first patch, who
	 * answers from her own address; else NULL */
	const char *poster;
	/* this version's parts' Message-IDs, [total + 1], NULL gaps */
	char *const *msgids;
	int64_t newest; /* this version's newest part's Date, 0: unknown */
	size_t max_size; /* for parsing the replies */
	bool earlier; /* review.earlier_replies: read v(n)'s thread */
};

/*
 * Reads the threads of this version's parts and, when @in->earlier and
 * v has a previous version, of v(n)'s parts, into v->lines. A failure
 * to read a reply is logged and skips it. Returns 0 or -RB_ENOMEM / a
 * store error.
 */
int rb_threads_collect(struct rb_versions *v, const struct rb_threads_in *in);

/* Who may keep a finding from being said by quoting its line first. */
struct rb_threads_trust_in {
	struct rb_store *st; /* borrowed */
	const char *const *people; /* M:/R: of the touched sections */
	size_t n_people;
	const char *const *admins;
	size_t n_admins;
	bool require_dkim; /* the policy's: the reply must pass DKIM */
};

/*
 * Decides, for each line a raised finding of @fs is on, whether its
 * reply is trusted: from a known bot (known_bots), an M: or R: person of
 * the touched sections or an admin, with a passing DKIM signature
 * aligned with its From: when @in->require_dkim. Anyone can post a
 * reply that quotes a line, from any address: an untrusted one only
 * marks the finding as also raised, never drops it. Only the replies
 * that matter are read again. Returns 0 or -RB_ENOMEM / a store error.
 */
int rb_threads_trust(struct rb_versions *v, const struct rb_findings *fs,
		     const char *const *states,
		     const struct rb_threads_trust_in *in);

/*
 * Whether a reply in the thread quoted finding @f's line (its file, and
 * its line or the text of its first line within two lines of it): the
 * line, or NULL.
 */
const struct rb_thread_line *rb_threads_quoted(const struct rb_versions *v,
					       const struct rb_finding *f);

/* The note a mail gives a raised line: "Raised on v1 (patch 3/3, this
 * line) by a reviewer, not answered there, and unchanged in v2." (or
 * "answered there by the author": the author replied to that reply). */
int rb_threads_note(struct rb_buf *out, const struct rb_versions *v,
		    const struct rb_thread_line *l);

/* For the model: each line raised on v(n) and unchanged, one a line,
 * without names. Nothing when there is none. */
int rb_threads_model_text(struct rb_buf *out, const struct rb_versions *v);

/* Records the lines of v(n)'s thread (table thread_quotes), inside the
 * caller's transaction. */
int rb_threads_write(const struct rb_versions *v, struct rb_store *st,
		     const char *series_id);

void rb_threads_release(struct rb_versions *v);

#endif
