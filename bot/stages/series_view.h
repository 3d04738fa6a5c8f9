/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series_view.h - a stored series, loaded and parsed once per job: its
 * row, its parts parsed (each with the date the store received it, as
 * the parse at ingest saw it), optionally their raw bytes, and its scope
 * (bot/stages/scope.h) resolved on demand. Every stage that reads a
 * stored series (review, feedback, incomplete, prereq, versions, ledger)
 * reads it here, under the one size cap on a stored message.
 */
#ifndef RB_BOT_SERIES_VIEW_H
#define RB_BOT_SERIES_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/stages/scope.h"
#include "bot/store/store.h"

struct rb_config;
struct rb_message;
struct rb_pipeline;

/* The cap on one raw message: limits.max_message_size or the default. */
size_t rb_series_max_size(const struct rb_config *cfg);

/* What rb_series_view_parse() does with a part it cannot read. */
enum {
	RB_VIEW_KEEP_RAW = 1, /* keep each part's stored bytes in raws[] */
	/* A part whose bytes cannot be read is left out (NULL), the error
	 * cleared; without it the load fails with the store's error. */
	RB_VIEW_SKIP_UNREAD = 2,
};

struct rb_series_view {
	struct rb_series_row row;
	struct rb_msgrow *raws; /* [total + 1] with RB_VIEW_KEEP_RAW */
	struct rb_message **msgs; /* [total + 1], NULL missing or unparsed */
	/* The first part that parses, the cover first, or NULL. */
	struct rb_message *first;
	/* The first patch that parses (index first_patch_idx), or NULL. */
	struct rb_message *first_patch;
	int first_patch_idx;
	size_t n_missing; /* patches (not the cover) not stored */
	size_t max_size; /* the cap a part is parsed under */
	unsigned flags;
	struct rb_scope scope; /* with scoped: rb_series_view_scope() */
	bool scoped;
};

/*
 * Reads stored message @message_id and parses it under @max_size with its
 * received date: *out is NULL when it does not parse (the error cleared).
 * @raw (or NULL) keeps the stored row. Fails with the store's error.
 */
int rb_series_parse_stored(struct rb_store *st, const char *message_id,
			   size_t max_size, struct rb_message **out,
			   struct rb_msgrow *raw);

/* The row of series @id alone (rb_series_view_parse() reads its parts). */
int rb_series_view_open(struct rb_series_view *v, struct rb_store *st,
			const char *id, size_t max_size, unsigned flags);
/* Reads and parses every stored part of the row. */
int rb_series_view_parse(struct rb_series_view *v, struct rb_store *st);
/* Both, in one call. */
int rb_series_view_load(struct rb_series_view *v, struct rb_store *st,
			const char *id, size_t max_size, unsigned flags);

/* The parts' scope, resolved once: what the series touches, its home and
 * policy, as the series' list @list_id (NULL: the List-Id of the first
 * part that has one) sees it. */
int rb_series_view_scope(struct rb_series_view *v, struct rb_pipeline *p,
			 const char *list_id);

/* Takes part @i out of the view (the caller frees it). */
struct rb_message *rb_series_view_take(struct rb_series_view *v, int i);

void rb_series_view_release(struct rb_series_view *v);

#endif
