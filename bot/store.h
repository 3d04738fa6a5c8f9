/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store.h - the durable state of reviewbot: raw messages, series, apply
 * attempts, findings, reviews, the outbox, verdicts and the job table that
 * drives the stages. Every stage reads its input from the store and writes
 * its output in one transaction, so that a crash or kill -9 at any point
 * resumes without loss or repetition.
 *
 * The schema is versioned; migrations run in order inside a transaction
 * (rb_store_migrate). The same SQL runs on SQLite and PostgreSQL (bot/db.h).
 */
#ifndef RB_BOT_STORE_H
#define RB_BOT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/db.h"

struct rb_store {
	struct rb_db *db;
	char *where; /* path or URL with any password removed, for messages */
	int lock_fd; /* the single-owner lock of a SQLite store, or -1 */
};

#define RB_SCHEMA_VERSION 5

/*
 * Opens the store and runs pending migrations. For SQLite, takes an
 * exclusive lock on "<path>.lock" so that one process owns the store:
 * -RB_ELOCKED when another holds it. With @shared (workers on
 * PostgreSQL) no lock is taken.
 */
int rb_store_open(struct rb_store **out, const char *path_or_url, bool shared);
void rb_store_close(struct rb_store *st);

/* Creates or upgrades the schema; @from and @to report the versions before and after. */
int rb_store_migrate(struct rb_store *st, int *from, int *to);

int rb_store_begin(struct rb_store *st);
int rb_store_commit(struct rb_store *st);
void rb_store_rollback(struct rb_store *st);

/* The clock: time(NULL), or RB_NOW from the environment, for tests and replay. */
int64_t rb_now(void);

/* --- messages --- */

/*
 * Stores a raw message under @message_id (or, when NULL, a key derived
 * from the bytes) unless one with that id is already stored. Returns 0 when
 * stored, -RB_EEXISTS when it was there already (a duplicate or a
 * cross-post). Commits before returning unless inside a transaction.
 * Text is stored as both engines take it (bot/db.h: bytes that are not
 * UTF-8 become U+FFFD); a Message-ID longer than a header line may be
 * (998 bytes, RFC 5322 2.1.1) is quarantined: kept under a key derived
 * from the bytes in state malformed with the reason, never parsed.
 */
int rb_store_add_raw(struct rb_store *st, const char *message_id,
		     const char *raw, size_t len, const char *origin);

/* Records a message that cannot be stored as mail (too big, unreadable). */
int rb_store_add_bad(struct rb_store *st, const char *origin,
		     const char *reason, const char *raw, size_t len);

struct rb_msgrow {
	char *message_id;
	char *origin;
	char *raw;
	size_t len;
	int64_t received_at;
};
void rb_msgrow_release(struct rb_msgrow *m);

/* Calls @fn for each message in state 'new', oldest first. */
int rb_store_each_new(struct rb_store *st,
		      int (*fn)(struct rb_msgrow *m, void *payload),
		      void *payload);

/* Marks a message parsed with its metadata, or malformed with a reason. */
struct rb_msgmeta {
	const char *kind; /* "patch", "cover", "reply", "other", "ignored" */
	const char *subject;
	const char *from_addr;
	const char *from_name;
	int64_t date;
	const char *list_id;
	const char *in_reply_to;
	const char *references; /* space-separated */
	int version, idx, total;
	const char *change_id;
	const char *reason; /* why ignored/malformed, or NULL */
};
int rb_store_mark_parsed(struct rb_store *st, const char *message_id,
			 const struct rb_msgmeta *meta);
int rb_store_mark_malformed(struct rb_store *st, const char *message_id,
			    const char *reason);

/* Reads a stored message's raw bytes (caller frees m). */
int rb_store_get_raw(struct rb_store *st, const char *message_id,
		     struct rb_msgrow *m);

/* Calls @fn with each parsed patch/cover/reply message's metadata. */
int rb_store_each_meta(struct rb_store *st,
		       int (*fn)(const struct rb_msgmeta *meta,
				 const char *message_id, void *payload),
		       void *payload);

/* --- series --- */

struct rb_series;
/* Inserts or updates a series and its patch list from assembly. */
int rb_store_put_series(struct rb_store *st, const struct rb_series *s);
int rb_store_series_state(struct rb_store *st, const char *series_id,
			  char **state);
int rb_store_set_series_state(struct rb_store *st, const char *series_id,
			      const char *state, const char *detail);

/* A stored series with the Message-IDs of its parts. */
struct rb_series_row {
	char *id;
	int version;
	int total;
	char *title;
	char *author;
	char *state;
	char *previous;
	int64_t last_date;
	char **msgids; /* [0] the cover or NULL, [i] patch i or NULL */
};
void rb_series_row_release(struct rb_series_row *r);
int rb_store_series_load(struct rb_store *st, const char *series_id,
			 struct rb_series_row *out);
/* Records the subsystem (MAINTAINERS section) whose policy applies. */
int rb_store_series_subsystem(struct rb_store *st, const char *series_id,
			      const char *subsystem, const char *list_id);
/* Records where the series was applied. */
int rb_store_series_applied(struct rb_store *st, const char *series_id,
			    const char *base_name, const char *base_commit,
			    const char *applied_commit);

/* --- jobs: the stage queue --- */

struct rb_job {
	int64_t id;
	char *kind; /* "review", ... */
	char *key; /* the series id */
	int attempts;
};
void rb_job_release(struct rb_job *j);

/* Enqueues once per (kind, key); -RB_EEXISTS when already there. */
int rb_store_job_add(struct rb_store *st, const char *kind, const char *key,
		     int64_t not_before);
/* Marks the (kind, key) job done if it has not been claimed yet. */
int rb_store_job_cancel(struct rb_store *st, const char *kind, const char *key);
/*
 * Claims the oldest ready job (or one whose lease expired) for @owner for
 * @lease_seconds: -RB_ENOTFOUND when there is none.
 */
int rb_store_job_claim(struct rb_store *st, const char *owner,
		       int lease_seconds, struct rb_job *out);
int rb_store_job_done(struct rb_store *st, int64_t id, const char *error);
/*
 * The same, fenced by the lease: only while @owner still holds the job.
 * -RB_ELOCKED when its lease ran out and another worker took it over;
 * the caller then rolls back what it wrote for the job.
 */
int rb_store_job_done_by(struct rb_store *st, int64_t id, const char *owner,
			 const char *error);
/* Puts a claimed job back for later (a temporary failure). */
int rb_store_job_retry(struct rb_store *st, int64_t id, int64_t not_before,
		       const char *error);

/* --- apply attempts, findings, reviews --- */

int rb_store_add_attempt(struct rb_store *st, const char *series_id,
			 const char *base_name, const char *base_commit,
			 bool ok, int failed_patch, const char *failed_file,
			 int failed_hunk, const char *reason);

struct rb_finding;
/* Stores a finding of a review with its id "Fn" and state. */
int rb_store_add_finding(struct rb_store *st, const char *series_id,
			 const char *review_msgid, const char *fid,
			 const struct rb_finding *f, const char *state);

/*
 * True when an authorised verdict marked this fingerprint a false
 * positive, whoever judged it and in whichever series: a count for
 * reports. Suppression asks rb_feedback_suppressed() (bot/feedback.h),
 * which decides what each verdict may reach.
 */
int rb_store_fingerprint_rejected(struct rb_store *st, const char *fp,
				  bool *out);

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
	/* newline-separated envelope recipients that are mailing lists (no
	 * per-recipient rate limit, bot/outbox.c), or NULL */
	const char *lists;
};
int rb_store_add_outmail(struct rb_store *st, const struct rb_outmail *m);

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

/* --- source state --- */
int rb_store_source_get(struct rb_store *st, const char *source,
			const char *mailbox, int64_t *validity, int64_t *last);
int rb_store_source_set(struct rb_store *st, const char *source,
			const char *mailbox, int64_t validity, int64_t last);

/* --- the pipeline's job bookkeeping (bot/pipeline.c) --- */

/*
 * Each parsed reply not looked at yet: one that names one of our mails
 * (In-Reply-To or References) becomes a "feedback" job due @now; any
 * other is recorded in table feedback as unrelated. *queued counts the
 * jobs added. Runs in the caller's transaction.
 */
int rb_store_queue_replies(struct rb_store *st, int64_t now, size_t *queued);
/* Jobs left 'running' by a process that died go back to 'ready' (a
 * single-owner SQLite store, at start). */
int rb_store_job_reset_running(struct rb_store *st);
/* A job's state ("ready", "running", "done", "failed"), and the worker
 * whose lease on it ran out (NULL if none; @lost_by may be NULL). */
int rb_store_job_state(struct rb_store *st, int64_t id, char **state,
		       char **lost_by);

/* When the next ready job or queued mail is due (seconds since the
 * epoch), or 0 when nothing waits: the daemon sleeps no longer. */
int rb_store_next_due(struct rb_store *st, int64_t *out);

#endif
