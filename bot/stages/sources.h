/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sources.h - the configured mail sources of the daemon, wired to the
 * store: each message is committed by rb_pipeline_ingest_raw() before the
 * source moves on, and the sources' high-water marks live in the store.
 */
#ifndef RB_BOT_SOURCES_H
#define RB_BOT_SOURCES_H

#include <signal.h>
#include <stddef.h>

struct rb_config;
struct rb_pipeline;
struct rb_sources;
struct rb_store;

int rb_sources_new(struct rb_sources **out, const struct rb_config *cfg,
		   struct rb_store *st);
void rb_sources_free(struct rb_sources *s);
size_t rb_sources_count(const struct rb_sources *s);

/* Polls every source once; a source that fails is logged and skipped
 * (its server may be down); returns the first error seen. */
int rb_sources_poll(struct rb_sources *s, struct rb_pipeline *p);

/* Waits for new mail (IMAP IDLE where there is one), the shortest poll
 * interval or @max_seconds when that is shorter and positive (the next
 * due job or mail), returning early on a signal. */
void rb_sources_wait(struct rb_sources *s, int max_seconds,
		     volatile sig_atomic_t *stop,
		     volatile sig_atomic_t *reload);

#endif
