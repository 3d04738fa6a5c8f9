/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pipeline.h - the stages, wired: ingest -> parse -> assemble -> review
 * (base + apply, checkers, model, findings, policy, render) -> outbox ->
 * send. Each stage reads its input from the store and writes its output in
 * one transaction, so a run killed at any point resumes where it stopped.
 *
 * For tests, RB_FAULT=STAGE:N kills the process (SIGKILL) right after the
 * N-th commit of STAGE ("ingest", "parse", "assemble", "review", "send").
 */
#ifndef RB_BOT_PIPELINE_H
#define RB_BOT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

struct rb_config;
struct rb_store;
struct rb_sender;
struct rb_maint_cache;
struct rb_model;

struct rb_pipeline_stats {
	size_t stored; /* new raw messages */
	size_t duplicates;
	size_t malformed;
	size_t parsed;
	size_t series;
	size_t reviewed;
	size_t apply_failed;
	size_t deferred; /* a tree or server was down: retried later */
	size_t queued; /* mails put in the outbox */
	size_t sent;
	size_t send_failed;
};

struct rb_pipeline {
	struct rb_config *cfg; /* borrowed */
	struct rb_store *st; /* borrowed */
	struct rb_pipeline_stats stats;
	bool force_complete; /* review incomplete series now (no wait) */
	const char *owner; /* worker name for job leases */
	const char *cli_tree; /* a tree given on the command line, or NULL */
	const char *outbox_override; /* --outbox DIR, or NULL */
	const char *templates_dir; /* NULL: the built-in templates */
	const char *replay_dir; /* serve model answers recorded here */
	const char *record_dir; /* record model exchanges here, or NULL */

	/* Owned, made on first use; rb_pipeline_release() frees them. */
	struct rb_sender *sender;
	struct rb_maint_cache *maint;
	struct rb_model *model; /* NULL: the model stage is off */
	bool model_made;
	bool recovered; /* outbox 'sending' rows were requeued */
	bool batching; /* ingest_raw commits every RB_BATCH messages */
	unsigned long batch; /* messages in the open batch */
};

void rb_pipeline_release(struct rb_pipeline *p);

/* Stores every message of @path (mbox, Maildir, eml, "-"). Bad messages
 * are recorded with their origin and skipped. */
int rb_pipeline_ingest_path(struct rb_pipeline *p, const char *path);
/* Stores one raw message (sources call this); durable on return. */
int rb_pipeline_ingest_raw(struct rb_pipeline *p, const char *raw, size_t len,
			   const char *origin);

int rb_pipeline_parse(struct rb_pipeline *p);
int rb_pipeline_assemble(struct rb_pipeline *p);
/* Runs ready review jobs until none is left. */
int rb_pipeline_review(struct rb_pipeline *p);
/* Sends what the outbox holds and is due. */
int rb_pipeline_send(struct rb_pipeline *p);

/* All of the above after ingest, in order. */
int rb_pipeline_step(struct rb_pipeline *p);

/* Kills the process when RB_FAULT names this stage and count. */
void rb_fault_point(const char *stage);

#endif
