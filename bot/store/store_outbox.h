/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_outbox.h - what reviewbot sends (store.h): each mail it writes is
 * a review row (what it says: kind, policy, findings, model, cost) and an
 * outbox row (the bytes and their state: held, queued, sending, sent,
 * failed). Tables reviews and outbox.
 */
#ifndef RB_BOT_STORE_OUTBOX_H
#define RB_BOT_STORE_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_store;

/*
 * Stores a review and its outgoing mail in the outbox (state queued, or
 * held until @send_after). Unique by the mail's Message-ID: -RB_EEXISTS
 * when that mail is already there.
 */
struct rb_outmail {
	const char *message_id;
	const char *series_id;
	const char *kind; /* "review", "apply-failure", "incomplete", ... */
	int patch_idx;
	const char *env_from;
	const char *rcpts; /* newline-separated envelope recipients */
	const char *bytes;
	size_t len;
	int words; /* words of commentary */
	int findings; /* findings in this mail */
	int64_t send_after;
	const char *policy;
	const char *subsystem; /* the MAINTAINERS section whose policy ruled */
	const char *model; /* the model used, or NULL */
	int64_t tokens_in, tokens_out;
	double cost;
	int64_t latency; /* seconds from the last patch to this review */
	int capped; /* people max_recipients trimmed from this mail */
	const char *prompt; /* the prompt set's version, with model, or NULL */
	/* newline-separated envelope recipients that are mailing lists (no
	 * per-recipient rate limit, bot/stages/outbox.c), or NULL */
	const char *lists;
};
int rb_store_add_outmail(struct rb_store *st, const struct rb_outmail *m);

/*
 * The mail of ours whose Message-ID is @id (bare, as messages hold it;
 * stored with or without its angle brackets): *message_id as stored and
 * its *series_id, both owned by the caller. -RB_ENOTFOUND when @id is
 * none of ours.
 */
int rb_store_review_find(struct rb_store *st, const char *id, char **message_id,
			 char **series_id);
/* The next free patch_idx for a mail of @kind about @series_id (1 for
 * the first): each acknowledgement of a verdict is its own row. */
int rb_store_review_next_idx(struct rb_store *st, const char *series_id,
			     const char *kind, int64_t *out);

/* --- outbox --- */

struct rb_outrow {
	char *message_id;
	char *env_from;
	char *rcpts;
	char *bytes;
	size_t len;
	int attempts;
	char *lists; /* as in struct rb_outmail, or NULL */
};
void rb_outrow_release(struct rb_outrow *o);

/* Moves the next due mail from queued to sending and returns it. */
int rb_store_outbox_next(struct rb_store *st, struct rb_outrow *out);
int rb_store_outbox_sent(struct rb_store *st, const char *message_id);
/* A temporary failure: back to queued at @next; permanent: failed. */
int rb_store_outbox_failed(struct rb_store *st, const char *message_id,
			   bool permanent, int64_t next, const char *error);
/* Mails left in 'sending' by a crash go back to 'queued' (resend is
 * byte-identical, and the receiver drops the duplicate by Message-ID). */
int rb_store_outbox_recover(struct rb_store *st);

/*
 * A claimed mail that may not go yet (a rate limit): back to queued until
 * @next with @why, without counting an attempt.
 */
int rb_store_outbox_postpone(struct rb_store *st, const char *message_id,
			     int64_t next, const char *why);

/* Mails sent since @since, globally or to @rcpt, one recipient compared
 * whole and without regard to case (rate limits). */
int rb_store_outbox_sent_since(struct rb_store *st, const char *rcpt,
			       int64_t since, int64_t *out);

#endif
