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
 * held until @send_after), with a row of outbox_rcpts for each address a
 * rate limit counts (rb_store_outbox_rates()). Unique by the mail's
 * Message-ID: -RB_EEXISTS when that mail is already there. Call it in a
 * transaction: it writes three tables.
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
	/* newline-separated envelope recipients that are mailing lists
	 * (the per-list rate limit, bot/stages/outbox.c), or NULL */
	const char *lists;
	/* newline-separated envelope recipients that the trusted tree or
	 * the config chose (M:/R: people, admins: the global limit only),
	 * or NULL. Every recipient in neither has the per-recipient limit:
	 * NULL for both counts every one. */
	const char *trusted;
	/* The review whose findings this mail carries (a forward, a
	 * private copy: issue 36), or NULL; a reply to it judges them. */
	const char *copy_of;
};
/* A mail of a paused series (bot/stages/curate.h) but a ledger notice is
 * stored 'paused': it waits for "resume". */
int rb_store_add_outmail(struct rb_store *st, const struct rb_outmail *m);

/*
 * The mail of ours whose Message-ID is @id (bare, as messages hold it;
 * stored with or without its angle brackets): *message_id as stored and
 * its *series_id, both owned by the caller; for a mail that carries
 * another review's findings (copy_of), that review's Message-ID.
 * -RB_ENOTFOUND when @id is none of ours.
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
/* Sent now: the mail and its rate rows (two statements: call it in a
 * transaction, so that a crash cannot leave a sent mail uncounted). */
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

/*
 * The rate limits (bot/stages/outbox.c). A mail's recipients are counted
 * by kind: RB_RATE_PERSON for the people a poster chose (the author, the
 * patch's own To/Cc), RB_RATE_LIST for mailing lists; maintainers and
 * admins are counted by RB_RATE_ALL only. Each address is counted by its
 * key (rb_store_rate_key()), so that a poster cannot give one mailbox
 * several limits by spelling it several ways.
 */
enum rb_rate_kind { RB_RATE_ALL, RB_RATE_PERSON, RB_RATE_LIST };

/*
 * The key an address is counted by, appended to @out: lower case, the
 * quotes of a quoted local part and its backslashes gone, and the local
 * part cut at its first '+' (a+tag@x reaches a@x). -RB_EINVAL without an
 * '@'.
 */
struct rb_buf;
int rb_store_rate_key(struct rb_buf *out, const char *addr);

/* Mails sent since @since: all of them (RB_RATE_ALL, @addr unused), or
 * those that counted @addr as @kind. One index range each. */
int rb_store_outbox_sent_since(struct rb_store *st, enum rb_rate_kind kind,
			       const char *addr, int64_t since, int64_t *out);

/* One address of a mail that a rate limit counts, and how many mails
 * counted it as @kind since the time asked. */
struct rb_outrate {
	enum rb_rate_kind kind; /* RB_RATE_PERSON or RB_RATE_LIST */
	char *addr; /* its key */
	int64_t sent;
};
/* The counted addresses of mail @message_id, by kind and key, each with
 * the mails sent since @since that counted it: *out (rb_outrates_free())
 * and *n; none for a mail that goes to maintainers and admins alone. */
int rb_store_outbox_rates(struct rb_store *st, const char *message_id,
			  int64_t since, struct rb_outrate **out, size_t *n);
void rb_outrates_free(struct rb_outrate *v, size_t n);

#endif
