/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_threads.h - threads as a reviewer reads them (issue 37; schema
 * 13): the replies to a message, the lines a reply on v(n) commented on
 * and what v(n+1) did with them (table thread_quotes), a finding whose
 * line a reply had quoted already, the reply's own words kept with a
 * verdict, verdicts guessed from prose until an admin decides, and the
 * notes an admin approved for the model's prompt (table notes).
 */
#ifndef RB_BOT_STORE_THREADS_H
#define RB_BOT_STORE_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_store;
struct rb_verdict_rec;

/* --- the thread --- */

/* A stored, parsed reply to a message; every string borrowed for the
 * callback only. */
struct rb_thread_reply {
	const char *message_id;
	const char *from_addr; /* may be NULL */
	const char *kind; /* "reply", "patch", ..., "ignored" */
	const char *reason; /* why it was ignored ("a known bot"), or NULL */
	int64_t date;
};

/* Calls @fn with each parsed message whose In-Reply-To is @parent, at
 * most @max of them, oldest first. @fn returns 0 to go on. */
int rb_store_each_reply_to(struct rb_store *st, const char *parent, int64_t max,
			   int (*fn)(const struct rb_thread_reply *r,
				     void *payload),
			   void *payload);

/* One line a reply on v(n) commented on, and what v(n+1) did with it. */
struct rb_thread_quote_rec {
	const char *series_id; /* v(n+1) */
	const char *reply_msgid;
	int n; /* the comment's place in the reply, from 0 */
	int patch_idx; /* v(n+1)'s part, 0: none */
	const char *prev_id;
	int prev_version, prev_idx;
	const char *source; /* "reviewer" or "bot" */
	const char *file; /* or NULL */
	int line; /* in v(n+1) when unchanged, else in v(n) */
	const char *code;
	const char *state; /* "unchanged" or "changed" */
};
/* Records @q (inside the caller's transaction); a row already there
 * (a review run again) is replaced. */
int rb_store_thread_quote_add(struct rb_store *st,
			      const struct rb_thread_quote_rec *q);

/* The finding of @series_id on part @patch_idx with @fingerprint is on a
 * line a reply had quoted already (@quoted: "reviewer" or "bot"). */
int rb_store_finding_quoted(struct rb_store *st, const char *series_id,
			    int patch_idx, const char *fingerprint,
			    const char *quoted);

/* --- the reply's words with its verdict --- */

/* Keeps @comment (the reply's own words under [@fid]) with the verdict
 * of @reply_msgid on @fid. */
int rb_store_verdict_comment(struct rb_store *st, const char *reply_msgid,
			     const char *fid, const char *comment);

/*
 * Stores a verdict guessed from prose (@v->verdict NULL: unclear) as
 * proposed: it counts for nothing until an admin confirms it. @v->
 * authorised says whether the sender may judge; it is stored as 0 and
 * the permission kept as the role. -RB_EEXISTS when the reply had a
 * verdict on that finding already.
 */
int rb_store_verdict_propose(struct rb_store *st,
			     const struct rb_verdict_rec *v,
			     const char *comment, const char *guessed_by);

/* A verdict as the admin commands and the dashboard list it. */
struct rb_proposal {
	int64_t id;
	const char *series_id, *review_msgid, *reply_msgid, *fid;
	const char *verdict; /* the guess or the verdict, or NULL */
	const char *judge, *role; /* role NULL: not allowed to judge */
	const char *comment, *guessed_by, *confirmed_by;
	const char *subsystem; /* of the review judged */
	int proposed; /* 0 explicit, 1 proposed, 2 confirmed, 3 rejected */
	bool authorised;
	int64_t created_at;
};

/* Calls @fn with each proposed verdict (@pending: only those awaiting an
 * admin), newest first; strings borrowed for the call. */
int rb_store_each_proposal(struct rb_store *st, bool pending,
			   int (*fn)(const struct rb_proposal *p,
				     void *payload),
			   void *payload);

/* Verdict @id as *@fn sees it once; -RB_ENOTFOUND. */
int rb_store_verdict_get(struct rb_store *st, int64_t id,
			 int (*fn)(const struct rb_proposal *p, void *payload),
			 void *payload);

/*
 * An admin's decision on proposed verdict @id: confirmed as @verdict
 * ("false_positive", "valid", "fixed"; NULL: the guess) by @by, or
 * rejected. A confirmed verdict counts as an explicit one from then on.
 * -RB_ENOTFOUND when @id is no pending proposal; -RB_EINVAL when its
 * sender may not judge that series (the reason says so), or when there
 * is no verdict to confirm (unclear, and @verdict NULL).
 */
int rb_store_proposal_decide(struct rb_store *st, int64_t id, bool confirm,
			     const char *verdict, const char *by);

/* --- notes for the model's prompt --- */

#define RB_NOTE_MAX 512 /* bytes of one note */

struct rb_note {
	int64_t id;
	const char *section, *text, *state, *added_by;
	int64_t verdict_id; /* the verdict it came from, 0: none */
	int64_t created_at;
};

/* Adds an approved note (trimmed to RB_NOTE_MAX bytes) for MAINTAINERS
 * section @section; *id (or NULL) gets its id. */
int rb_store_note_add(struct rb_store *st, const char *section,
		      const char *text, int64_t verdict_id,
		      const char *added_by, int64_t *id);
/* Removes note @id from every later prompt; -RB_ENOTFOUND. */
int rb_store_note_remove(struct rb_store *st, int64_t id);
/* Calls @fn with each note (@section NULL: every section; @approved
 * only: the ones a prompt may carry), oldest first. */
int rb_store_each_note(struct rb_store *st, const char *section, bool approved,
		       int (*fn)(const struct rb_note *n, void *payload),
		       void *payload);

/* --- stats --- */

struct rb_report_threads {
	int64_t quoted_unchanged; /* lines commented on in v(n) kept by v(n+1) */
	int64_t quoted_changed; /* ... that v(n+1) changed */
	int64_t quoted_bot; /* of them, said by a known bot */
	int64_t findings_dropped; /* a reply had quoted the line: dropped */
	int64_t findings_marked; /* ... kept, marked as also raised */
	int64_t verdicts_explicit; /* authorised, never proposed */
	int64_t verdicts_with_reason; /* of all verdicts, with the words */
	int64_t proposed_pending, proposed_confirmed, proposed_rejected;
	int64_t notes; /* approved, not removed */
};
int rb_store_report_threads(struct rb_store *st, struct rb_report_threads *r);

#endif
