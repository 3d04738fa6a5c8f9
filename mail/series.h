/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series.h - assembling patch series from a set of messages, as b4 does:
 * a cover letter and its patches through In-Reply-To and References,
 * series without a cover, out-of-order arrival, versions linked by subject,
 * change-id or a reply to the previous version, partial rerolls, and
 * unthreaded mail (same sender, version and total in a time window, as
 * patchwork does).
 */
#ifndef RB_MAIL_SERIES_H
#define RB_MAIL_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_message;

struct rb_series {
	char *id; /* stable: the cover's Message-ID, else patch 1's */
	int version;
	int total; /* number of patches, not counting the cover */
	char *cover; /* Message-ID of the cover letter, or NULL */
	char **patches; /* [total] Message-IDs of 1..total, NULL if missing */
	bool complete;
	char *previous; /* id of the previous version's series, or NULL */
	char *change_id; /* from the change-id: trailer, or NULL */
	char *title; /* the cover's title, else patch 1's */
	char *author; /* address of the sender */
	int64_t last_date; /* date of the newest part seen */
};

struct rb_series_set;

/* Borrowed pointers stay valid until the set is freed. */
int rb_series_set_new(struct rb_series_set **out);
void rb_series_set_free(struct rb_series_set *set);

/* Adds a message (copies what it needs). Non-patches are kept as replies. */
int rb_series_set_add(struct rb_series_set *set, const struct rb_message *m);

/* Groups what was added into series; call after the last add. */
int rb_series_set_assemble(struct rb_series_set *set);

size_t rb_series_set_count(const struct rb_series_set *set);
/* Series in order of first arrival. */
const struct rb_series *rb_series_set_get(const struct rb_series_set *set,
					  size_t i);

/* Fills @out with the missing patch numbers (1-based); returns the count. */
size_t rb_series_missing(const struct rb_series *s, int *out, size_t max);

#endif
