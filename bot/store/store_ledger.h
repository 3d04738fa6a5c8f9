/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_ledger.h - what sub-maintainers decide (issue 36; store.h):
 * findings forwarded from a review (table forwards, each finding at
 * most once), the findings an author's reply answers (answers), what
 * each reply asked and whether it was allowed (requests), the paused
 * series (series_pause), and the blocking ledger: each tree's last
 * scanned head (tree_heads) and each series seen in a tree, once per
 * series and tree, with what was decided (sightings). Migration 14.
 */
#ifndef RB_BOT_STORE_LEDGER_H
#define RB_BOT_STORE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_store;

/* One of our mails (table reviews), as the curation stage reads it. */
struct rb_review_row {
	char *series_id;
	char *kind; /* "review", "summary", "forward", ... */
	int patch_idx; /* the part it answers (0: the cover) */
	char *policy; /* the mode it went out under */
	char *copy_of; /* the review whose findings it carries, or NULL */
};
/* Mail @message_id as stored (with its brackets); -RB_ENOTFOUND. */
int rb_store_review_row(struct rb_store *st, const char *message_id,
			struct rb_review_row *out);
void rb_review_row_release(struct rb_review_row *r);

/* A finding as stored (table findings); all strings owned. */
struct rb_stored_finding {
	int64_t id;
	char *series_id, *review_msgid, *fid;
	int patch_idx;
	char *checker, *checker_version, *category, *severity;
	char *file; /* or NULL: the commit message */
	int line;
	char *code, *message, *state;
};
/* Finding @fid ("F2") of review @review_msgid; -RB_ENOTFOUND. */
int rb_store_finding_get(struct rb_store *st, const char *review_msgid,
			 const char *fid, struct rb_stored_finding *out);
void rb_stored_finding_release(struct rb_stored_finding *f);

/* --- forwards --- */

/*
 * Who forwarded finding @finding_id, in *by (owned by the caller), and
 * in which mail (*message_id, owned, may be NULL); -RB_ENOTFOUND when
 * it never was.
 */
int rb_store_forwarded(struct rb_store *st, int64_t finding_id, char **by,
		       char **message_id);

struct rb_forward_rec {
	int64_t finding_id;
	const char *series_id, *review_msgid, *fid;
	const char *message_id; /* the forward mail */
	const char *by; /* the maintainer, bare */
	const char *reply_msgid; /* the reply that asked */
};
/* Records a forward; -RB_EEXISTS when the finding was forwarded. */
int rb_store_forward_add(struct rb_store *st, const struct rb_forward_rec *r);

/* --- answers and requests --- */

/* Finding @fid of @review_msgid is answered by reply @reply_msgid of
 * @by; *added (may be NULL) says whether it was new. */
int rb_store_answer_add(struct rb_store *st, const char *review_msgid,
			const char *fid, const char *reply_msgid,
			const char *by, bool *added);

struct rb_request_rec {
	const char *reply_msgid;
	const char *verb; /* "send", "retry", "pause", "resume" */
	const char *series_id;
	const char *actor; /* the reply's From:, bare, or NULL */
	const char *role; /* "maintainer", "reviewer", "admin", or NULL */
	bool authorised;
	const char *detail; /* what was done, or why not */
};
/* Once per reply and verb (a rerun keeps the first). */
int rb_store_request_add(struct rb_store *st, const struct rb_request_rec *r);

/* --- pause, resume, retry --- */

/*
 * Pauses @series_id: its mail not sent yet (queued, held) waits in state
 * 'paused', and so does any mail stored for it later (but a ledger
 * notice); *changed says whether it was running. One transaction's
 * statements: call it in one.
 */
int rb_store_series_pause(struct rb_store *st, const char *series_id,
			  const char *by, bool *changed);
/* Undoes it: the paused mail is queued again. */
int rb_store_series_resume(struct rb_store *st, const char *series_id,
			   bool *changed);
int rb_store_series_paused(struct rb_store *st, const char *series_id,
			   bool *out);
/*
 * The series' review (or incomplete) job runs again now: ready, due
 * now, its attempts forgotten. *out is false when the series has no
 * such job.
 */
int rb_store_series_requeue(struct rb_store *st, const char *series_id,
			    int64_t now, bool *out);
/* Whether a review or summary of @series_id was stored (the series was
 * reviewed: "retry" has nothing to add then). */
int rb_store_series_has_review(struct rb_store *st, const char *series_id,
			       bool *out);

/* --- the blocking ledger --- */

/* The head of tree @tree when it was last scanned (*head owned, hex);
 * -RB_ENOTFOUND when it never was. */
int rb_store_tree_head(struct rb_store *st, const char *tree, char **head);
int rb_store_tree_head_set(struct rb_store *st, const char *tree,
			   const char *head);

/*
 * The series that hold a stored patch (not a cover) whose patch-id is
 * @pid, the first seen first, at most @max; *out (owned, *n of them)
 * empty when none does. A patch-id is anyone's to post: the oldest
 * series is the one whose diff it was before any copy, so a cap never
 * drops it for the copies.
 */
int rb_store_series_by_patch_id(struct rb_store *st, const char *pid,
				size_t max, char ***out, size_t *n);
void rb_store_series_ids_free(char **v, size_t n);

/* Series @series_id was seen in @tree at @commit, @parts of its parts
 * matched; -RB_EEXISTS when it was seen there before. */
int rb_store_sighting_add(struct rb_store *st, const char *series_id,
			  const char *tree, const char *commit, int parts);

struct rb_sighting {
	char *series_id, *tree, *commit;
	int parts;
	char *state; /* pending, mailed, clear */
	char *message_id; /* the ledger notice, or NULL */
	int open; /* open blocking findings when decided */
	int64_t created_at, decided_at;
};
void rb_sightings_free(struct rb_sighting *v, size_t n);
/* The pending sightings (at most @max) of series whose review is over
 * (not waiting for its parts or its trees). */
int rb_store_sightings_pending(struct rb_store *st, size_t max,
			       struct rb_sighting **out, size_t *n);
/* Every sighting of @series_id, oldest first (the dashboard). */
int rb_store_sightings_of(struct rb_store *st, const char *series_id,
			  struct rb_sighting **out, size_t *n);
/* What was decided: "mailed" (with the notice) or "clear". */
int rb_store_sighting_decide(struct rb_store *st, const char *series_id,
			     const char *tree, const char *state,
			     const char *message_id, int open);

/* A blocking finding and where it stands. */
struct rb_ledger_item {
	struct rb_stored_finding f;
	int version; /* of the series it was raised on */
	/* "open", "answered" (the author replied quoting it), "judged" (an
	 * authorised verdict), "fixed" (in a later version) */
	const char *state; /* static */
};
/*
 * The blocking ledger of @series_id: every finding raised in a mail sent
 * under mode blocking, of this version and the earlier ones it is linked
 * to (at most 16), but those a later version raised again (the later one
 * stands for it), each with its state; in version and finding order.
 */
int rb_store_ledger(struct rb_store *st, const char *series_id,
		    struct rb_ledger_item **out, size_t *n);
void rb_ledger_free(struct rb_ledger_item *v, size_t n);

/* What replies asked of @series_id (the dashboard), oldest first; none
 * in the public view (rb_store_report_public()). */
struct rb_request_row {
	char *reply_msgid, *verb, *actor, *role, *detail;
	bool authorised;
	int64_t created_at;
};
int rb_store_requests_of(struct rb_store *st, const char *series_id,
			 struct rb_request_row **out, size_t *n);
void rb_request_rows_free(struct rb_request_row *v, size_t n);

#endif
