/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_messages.h - the mail side of the store (store.h): raw messages
 * and their parsed metadata, series and their parts, apply attempts, and
 * where each source left off. Tables messages, series, patches,
 * attempts, source_state.
 */
#ifndef RB_BOT_STORE_MESSAGES_H
#define RB_BOT_STORE_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail/series.h"

struct rb_store;

/* --- messages --- */

/*
 * Stores a raw message under @message_id (or, when NULL, a key derived
 * from the bytes) unless one with that id is already stored. Returns 0 when
 * stored, -RB_EEXISTS when it was there already (a duplicate or a
 * cross-post). Commits before returning unless inside a transaction.
 * Text is stored as both engines take it (bot/store/db.h: bytes that are not
 * UTF-8 become U+FFFD); a Message-ID longer than a header line may be
 * (998 bytes, RFC 5322 2.1.1) is quarantined: kept under a key derived
 * from the bytes in state malformed with the reason, never parsed.
 */
int rb_store_add_raw(struct rb_store *st, const char *message_id,
		     const char *raw, size_t len, const char *origin);

struct rb_msgmeta;
/*
 * rb_store_add_raw() and rb_store_mark_parsed() in one write, for a
 * message parsed on its way in: one INSERT, not an INSERT and then an
 * UPDATE that copies the raw bytes again. A quarantined Message-ID is
 * stored as rb_store_add_raw() would, @meta unused.
 */
int rb_store_add_parsed(struct rb_store *st, const char *message_id,
			const char *raw, size_t len, const char *origin,
			const struct rb_msgmeta *meta);

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
	/*
	 * What assembly reads (mail/series.h), stored so that it need not
	 * parse the mail again. Not stored: msg.message_id (the row's key,
	 * set when read) and msg.references (@references is).
	 */
	struct rb_series_msg msg;
	/* msg.body is not known: stored by an older version, parse the mail */
	bool body_unknown;
	const char *kind; /* "patch", "cover", "reply", "other", "ignored" */
	const char *list_id;
	const char *references; /* space-separated */
	int version, idx, total;
	const char *reason; /* why ignored/malformed, or NULL */
	/* git patch-id --stable of its diff (review/apply/patchid.h), or NULL:
	 * prerequisite-patch-id: is an index lookup (migration 10) */
	const char *patch_id;
};
int rb_store_mark_parsed(struct rb_store *st, const char *message_id,
			 const struct rb_msgmeta *meta);
int rb_store_mark_malformed(struct rb_store *st, const char *message_id,
			    const char *reason);

/*
 * Retention (bot/stages/retention.h): empties the raw bytes of messages
 * received before @before, parsed or refused, whose series has no job
 * still to run; the row, its state and what assembly reads stay, so the
 * mail is neither taken in nor assembled differently again. *n (or NULL)
 * gets how many were emptied.
 */
int rb_store_prune_raw(struct rb_store *st, int64_t before, int64_t *n);

/* Reads a stored message's raw bytes (caller frees m). */
int rb_store_get_raw(struct rb_store *st, const char *message_id,
		     struct rb_msgrow *m);

/* --- series --- */

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

/* --- apply attempts --- */

int rb_store_add_attempt(struct rb_store *st, const char *series_id,
			 const char *base_name, const char *base_commit,
			 bool ok, int failed_patch, const char *failed_file,
			 int failed_hunk, const char *reason);

/* --- prerequisites (bot/stages/prereq.h) --- */

/* The stored series that holds @message_id as a part (the newest when
 * several do): *series_id, owned by the caller; -RB_ENOTFOUND. */
int rb_store_series_of(struct rb_store *st, const char *message_id,
		       char **series_id);
/* The newest stored part of a series whose diff has the patch-id @pid
 * (messages.patch_id, computed as it was parsed): *message_id, owned by
 * the caller; -RB_ENOTFOUND. */
int rb_store_patch_by_id(struct rb_store *st, const char *pid,
			 char **message_id);
/* Calls @fn with the Message-ID of each patch of the @max most recent
 * stored patches, newest series first, that were stored before their
 * patch-id was (migration 10: messages.patch_id NULL). */
int rb_store_each_recent_patch(struct rb_store *st, int64_t max,
			       int (*fn)(const char *message_id, void *payload),
			       void *payload);

/* --- source state --- */
int rb_store_source_get(struct rb_store *st, const char *source,
			const char *mailbox, int64_t *validity, int64_t *last);
int rb_store_source_set(struct rb_store *st, const char *source,
			const char *mailbox, int64_t validity, int64_t last);

#endif
