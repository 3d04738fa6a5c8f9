/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pipeline.h - the one pipeline, wired: every entry point ("reviewbot
 * review", "reviewbot run" in each role, workers on PostgreSQL) runs the
 * same stages through rb_pipeline_step():
 *
 *   role ingest: parse -> assemble (series; review, incomplete and
 *                feedback jobs)
 *   role worker: jobs -> feedback (verdicts), review (base + apply,
 *                checkers, model, findings, policy, render, compose),
 *                incomplete
 *   role sender: send (bot/stages/outbox.h)
 *
 * Mail comes in before the stages, through rb_pipeline_ingest_path()
 * (files) or rb_pipeline_ingest_raw() (the daemon's sources). Each stage
 * reads its input from the store and writes its output in one
 * transaction, so a run killed at any point resumes where it stopped.
 * A stage added to the table in pipeline.c runs everywhere.
 */
#ifndef RB_BOT_PIPELINE_H
#define RB_BOT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/stages/stage.h"

void rb_pipeline_release(struct rb_pipeline *p);

/* Stores every message of @path (mbox, Maildir, eml, "-"). Bad messages
 * are recorded with their origin and skipped. */
int rb_pipeline_ingest_path(struct rb_pipeline *p, const char *path);
/* Stores one raw message (sources call this); durable on return. */
int rb_pipeline_ingest_raw(struct rb_pipeline *p, const char *raw, size_t len,
			   const char *origin);
/*
 * The parse of rb_pipeline_ingest_raw() alone, safe on another thread (it
 * reads only the config): the parsed message, or NULL when @raw is not a
 * mail or does not parse (the ingest then parses again to record why).
 */
void *rb_pipeline_prepare(const struct rb_pipeline *p, const char *raw,
			  size_t len);
/* rb_pipeline_ingest_raw() with what rb_pipeline_prepare() made of @raw
 * (NULL: parsed here); @prepared is freed. */
int rb_pipeline_ingest_prepared(struct rb_pipeline *p, const char *raw,
				size_t len, const char *origin, void *prepared);
void rb_pipeline_prepared_free(void *prepared);

/* The stages, one by one (tests call them; entry points use _step). */
int rb_pipeline_parse(struct rb_pipeline *p);
/* Assembles series and queues jobs; runs only when something
 * new was parsed since the last assembly, or once after start. */
int rb_pipeline_assemble(struct rb_pipeline *p);
/*
 * Runs due jobs of every kind until none is left (or p->stop is set),
 * oldest first; with p->parallel above 1, that many review jobs at once
 * on threads of their own (each with its own store connection), the
 * mail of each sent as soon as it ends when the step also sends.
 */
int rb_pipeline_jobs(struct rb_pipeline *p);

/* The stages of @roles (enum rb_role), in order. */
int rb_pipeline_step(struct rb_pipeline *p, unsigned roles);

/*
 * Logs, at most once an hour (or now, with @force), how many stored
 * messages were ignored since the last such line and why (our own mail,
 * a known bot, Auto-Submitted, a List-Id not in list_ids, with the
 * List-Ids met): a config that drops everything cannot go unnoticed.
 */
void rb_pipeline_report_drops(struct rb_pipeline *p, bool force);

/* With p->progress: the ingest's status line (messages, rate), drawn at
 * most once a second; _done ends it with the total. */
void rb_pipeline_progress(struct rb_pipeline *p);
void rb_pipeline_progress_done(struct rb_pipeline *p);

#endif
