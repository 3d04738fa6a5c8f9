/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_verdicts.h - what was found and what people said of it (store.h):
 * each review's findings, the verdicts of replies on them, and the
 * feedback stage's record of each reply looked at. Tables findings,
 * verdicts and feedback. Who may judge, and what a verdict may reach,
 * is decided in bot/stages/feedback.c; the store keeps what it decided.
 */
#ifndef RB_BOT_STORE_VERDICTS_H
#define RB_BOT_STORE_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_store;
struct rb_finding;

/* --- findings --- */

/* Stores a finding of a review with its id "Fn" and state. */
int rb_store_add_finding(struct rb_store *st, const char *series_id,
			 const char *review_msgid, const char *fid,
			 const struct rb_finding *f, const char *state);

/*
 * The fingerprint and file of finding @fid ("F2") of our mail
 * @review_msgid, owned by the caller; both NULL when it has no such
 * finding (*file is NULL too for a finding on the commit message).
 */
int rb_store_finding_of(struct rb_store *st, const char *review_msgid,
			const char *fid, char **fingerprint, char **file);

/* --- verdicts --- */

/* A verdict of a reply on one finding, as bot/stages/feedback.c judged it. */
struct rb_verdict_rec {
	const char *reply_msgid;
	const char *review_msgid; /* our mail it answers, or NULL */
	const char *fid; /* "Fn", or NULL */
	const char *fingerprint; /* of the finding, or NULL if none */
	const char *verdict; /* "valid", "fixed", "false_positive", or NULL */
	const char *judge; /* the reply's From: address */
	bool authorised;
	const char *reason; /* why refused, or NULL */
	const char *role; /* the judge's role for the finding, or NULL */
	const char *owner; /* whose series it speaks for, or NULL */
};
/* Stores @v once per (reply, fid): -RB_EEXISTS when it was there. */
int rb_store_verdict_add(struct rb_store *st, const struct rb_verdict_rec *v);

/*
 * True when an authorised verdict marked this fingerprint a false
 * positive, whoever judged it and in whichever series: a count for
 * reports. Suppression asks rb_feedback_suppressed() (bot/stages/feedback.h),
 * which decides what each verdict may reach.
 */
int rb_store_fingerprint_rejected(struct rb_store *st, const char *fp,
				  bool *out);

/* An authorised false-positive verdict, for suppression (feedback.h). */
struct rb_fp_verdict {
	char *fp, *judge, *role, *owner;
};

struct rb_fp_verdicts {
	struct rb_fp_verdict *v;
	size_t n;
};
void rb_fp_verdicts_release(struct rb_fp_verdicts *l);

/* The authorised false-positive verdicts on fingerprint @fp, oldest
 * first; *out is released by the caller. */
int rb_store_fp_verdicts(struct rb_store *st, const char *fp,
			 struct rb_fp_verdicts *out);
/*
 * Those an admin, maintainer or reviewer gave on any finding of
 * @checker and @category in @file (NULL: the commit message), oldest
 * first: the policy's suppress_similar.
 */
int rb_store_fp_verdicts_similar(struct rb_store *st, const char *checker,
				 const char *category, const char *file,
				 struct rb_fp_verdicts *out);

/* --- feedback: each reply looked at once --- */

/* What became of a reply (migration 2). */
struct rb_feedback_rec {
	const char *message_id; /* the reply */
	const char *review_msgid; /* our mail it answers, or NULL */
	const char *state; /* "unrelated", "no_verdict", "judged", "refused" */
	const char *judge; /* its From: address, or NULL */
	int64_t verdicts; /* authorised verdicts stored */
	const char *reason; /* why refused or unreadable, or NULL */
};
/* Records @f unless the reply was looked at already. */
int rb_store_feedback_add(struct rb_store *st, const struct rb_feedback_rec *f);
/* Whether reply @message_id was looked at already. */
int rb_store_feedback_seen(struct rb_store *st, const char *message_id,
			   bool *seen);

/*
 * Calls @fn with the Message-ID of each reply not looked at yet, oldest
 * first, collected before the first call (each reply's writes touch
 * these tables). @fn returns 0 to go on; anything else ends the walk and
 * is returned. A reply is a parsed message of kind reply, or one ignored
 * only for its List-Id: a verdict sent to the bot directly carries none,
 * yet it counts when it names one of our own mails.
 */
int rb_store_each_unjudged_reply(struct rb_store *st,
				 int (*fn)(const char *message_id,
					   void *payload),
				 void *payload);

/*
 * Each parsed reply not looked at yet, of those whose arrival
 * (store_assembly.h) is @since or later: one that names one of our
 * mails (In-Reply-To or References) becomes a "feedback" job due @now;
 * any other is recorded in table feedback as unrelated. *queued counts
 * the jobs added. Runs in the caller's transaction.
 * (bot/stages/assemble.c)
 */
int rb_store_queue_replies(struct rb_store *st, int64_t now, int64_t since,
			   size_t *queued);

#endif
