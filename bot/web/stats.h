/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - figures from the store: counts, precision per finding and per
 * review (by subsystem, checker, model and category), words per review,
 * time to review, apply-failure rate, model tokens and cost.
 */
#ifndef RB_BOT_STATS_H
#define RB_BOT_STATS_H

#include <stdio.h>
#include <jansson.h>

struct rb_store;

/* Builds the figures as a JSON object; *out is owned by the caller. */
int rb_stats_collect(struct rb_store *st, json_t **out);
/* Prints them for people. */
void rb_stats_print(json_t *stats, FILE *f);

#endif
