/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_assembly.h - what series assembly reads and keeps (store.h),
 * so that a pass assembles only what its new mail touches
 * (bot/stages/assemble.c): each message's place in assembly order
 * (messages.arrival) and the key that joins it to other unthreaded
 * parts (messages.join_key), both set as it is stored or parsed
 * (store_messages.c, migration 18: assembly never rewrites a message
 * row); which messages no assembly has seen (asm_pending); the ids each
 * answers or references (msg_links), and each series' keys of version
 * links (series.change_key, title_key; NULL once no assembly makes it).
 *
 * Link keys are what the caller gives (bot/stages/assemble.c hashes
 * them); a referenced id is kept as it is, or hashed when it is too long
 * to index (PostgreSQL refuses a btree row past about 2.7 KB).
 */
#ifndef RB_BOT_STORE_ASSEMBLY_H
#define RB_BOT_STORE_ASSEMBLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail/series.h"

struct rb_store;
struct rb_msgmeta;

/* A stored message as assembly reads it; borrowed for the callback. */
struct rb_asm_row {
	const struct rb_msgmeta
		*meta; /* msg.references unset: meta->references */
	const char *state; /* "parsed", "malformed" */
	int64_t arrival; /* its place in assembly order */
	const char *join_key; /* or NULL */
};
typedef int (*rb_asm_row_fn)(const struct rb_asm_row *r, void *payload);

/* How many stored messages no assembly has seen (parsed or refused). */
int rb_store_asm_pending_count(struct rb_store *st, int64_t *n);
/* Calls @fn with each of them, in arrival order (as stored). The rows
 * are read before the first call: @fn may write. */
int rb_store_asm_each_pending(struct rb_store *st, rb_asm_row_fn fn,
			      void *payload);
/*
 * Records that assembly has seen @message_id (no longer pending) and
 * the ids it answers or references, @links[@n] (its own left out by the
 * caller). In the caller's transaction; the message row is not written.
 */
int rb_store_asm_index(struct rb_store *st, const char *message_id,
		       const char *const *links, size_t n);

/* Every parsed patch, cover and reply that assembly has seen, in
 * arrival order (the full assembly). */
int rb_store_asm_each(struct rb_store *st, rb_asm_row_fn fn, void *payload);
/* The one with Message-ID @id, if assembly reads it and has seen it. */
int rb_store_asm_by_id(struct rb_store *st, const char *id, rb_asm_row_fn fn,
		       void *payload);
/* Those that answer or reference @id, and those whose join key is
 * @key; at most @max rows each call. */
int rb_store_asm_linking(struct rb_store *st, const char *id, int64_t max,
			 rb_asm_row_fn fn, void *payload);
int rb_store_asm_by_join(struct rb_store *st, const char *key, int64_t max,
			 rb_asm_row_fn fn, void *payload);

/* The assembled series (link keys set) that hold @message_id as a part:
 * @fn gets each series' id and link keys (change key NULL when none). */
int rb_store_asm_series_of(struct rb_store *st, const char *message_id,
			   int (*fn)(const char *id, const char *change_key,
				     const char *title_key, void *payload),
			   void *payload);
/* The parts (Message-IDs) of the assembled series whose change key
 * (@change) or title key is @key, at most @max. */
int rb_store_asm_parts_by_key(struct rb_store *st, bool change, const char *key,
			      int64_t max,
			      int (*fn)(const char *message_id, void *payload),
			      void *payload);
/*
 * Saves series @s from assembly with its link keys, when anything of it
 * differs from what is stored: *@changed says whether it did (a new
 * series, a part, the previous version, a key...).
 */
int rb_store_asm_put_series(struct rb_store *st, const struct rb_series *s,
			    const char *change_key, const char *title_key,
			    bool *changed);
/* Series @id is no longer assembled: its link keys are cleared. */
int rb_store_asm_drop_series(struct rb_store *st, const char *id);
/* Calls @fn with the id of each assembled series (link keys set). */
int rb_store_asm_each_series(struct rb_store *st,
			     int (*fn)(const char *id, void *payload),
			     void *payload);

#endif
