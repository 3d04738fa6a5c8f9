/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stage.h - what every stage of the one pipeline shares: the context it
 * runs in (config, store, the sender, the MAINTAINERS cache, the model,
 * counters), the roles a process plays, and the signature of a job
 * handler. A stage file (feedback.c, review_stage.c, outbox.c) includes
 * this header, never pipeline.h: pipeline.c alone wires the stages to each
 * other and to the roles (pipeline.h).
 */
#ifndef RB_BOT_STAGE_H
#define RB_BOT_STAGE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_config;
struct rb_store;
struct rb_sender;
struct rb_maint_cache;
struct rb_model;
struct rb_job;
struct rb_job_pool;

/*
 * The parts a process plays. "reviewbot review" and "reviewbot run" (role
 * all) play every part; on PostgreSQL each part may run in processes of
 * its own, on several machines (README, "Operate at scale").
 */
enum rb_role {
	RB_ROLE_INGEST = 1, /* sources, parse, assemble, queue jobs */
	RB_ROLE_WORKER = 2, /* claim jobs: feedback, review, incomplete */
	RB_ROLE_SENDER = 4, /* send what the outbox holds */
	RB_ROLE_ALL = 7,
};

/* Why a message was stored but ignored (pipeline.c: loop_reason()). */
enum rb_drop {
	RB_DROP_OURS, /* our own mail */
	RB_DROP_BOT, /* a known bot */
	RB_DROP_AUTO, /* Auto-Submitted */
	RB_DROP_LIST, /* List-Id not on the allow-list */
	RB_DROP_N
};

struct rb_pipeline_stats {
	size_t stored; /* new raw messages */
	size_t duplicates;
	size_t malformed;
	size_t parsed;
	size_t series;
	size_t reviewed;
	size_t apply_failed;
	size_t deferred; /* a tree or server was down: retried later */
	size_t judged; /* replies whose verdicts were stored */
	size_t queued; /* mails put in the outbox */
	size_t held; /* mails the send stage left for later (rate limits) */
	size_t capped; /* people trimmed by outbox.max_recipients */
	size_t sent;
	size_t send_failed;
	size_t jobs; /* jobs run */
	size_t foreign; /* series not for the configured trees: no mail */
	/* Recipients left out (bot/stages/policy.h): addresses no mail can
	 * reach, the patch's To/Cc that are neither its author's nor
	 * MAINTAINERS', lists over outbox.max_lists. */
	size_t undeliverable, refused, lists_capped;
	size_t unsent; /* mails not queued: nobody to send them to */
	/* Messages stored but ignored (loop rules, the List-Id allow-list),
	 * by reason (enum rb_drop), since the last report and in all. */
	size_t dropped[RB_DROP_N], dropped_total[RB_DROP_N];
};

struct rb_pipeline;

/*
 * What the worker loop of "reviewbot run" adds around each job (leases
 * renewed by a heartbeat, per-worker counters). Both are optional.
 * claimed() runs inside the claim's transaction, so its writes commit or
 * roll back with the claim; finished() runs after the job's own commit.
 */
struct rb_job_hooks {
	int (*claimed)(struct rb_pipeline *p, const struct rb_job *job);
	int (*finished)(struct rb_pipeline *p, const struct rb_job *job,
			int ret);
	void *payload;
};

/* The context every stage shares. */
struct rb_pipeline {
	struct rb_config *cfg; /* borrowed */
	struct rb_store *st; /* borrowed */
	struct rb_pipeline_stats stats;
	bool force_complete; /* review incomplete series now (no wait) */
	const char *owner; /* worker name for job leases */
	int lease; /* seconds a claimed job is ours; 0: one hour */
	const char *cli_tree; /* a tree given on the command line, or NULL */
	const char *outbox_override; /* --outbox DIR, or NULL */
	const char *templates_dir; /* NULL: the built-in templates */
	const char *replay_dir; /* serve model answers recorded here */
	const char *record_dir; /* record model exchanges here, or NULL */
	volatile sig_atomic_t *stop; /* set: finish the job in hand, stop */
	const struct rb_job_hooks *hooks; /* or NULL */
	/*
	 * Review jobs run at once, each on a thread of its own
	 * (review.parallel_series; "reviewbot run" sets it): 0 or 1 runs
	 * one job at a time on the caller's thread.
	 */
	int parallel;

	/* Owned, made on first use; rb_pipeline_release() frees them. */
	struct rb_sender *sender;
	struct rb_maint_cache *maint;
	struct rb_model *model; /* NULL: the model stage is off */
	bool model_made;
	struct rb_job_pool *pool; /* the job threads (pipeline.c) */
	bool recovered; /* outbox 'sending' rows were requeued */
	bool batching; /* ingest_raw commits every RB_BATCH messages */
	bool assembled; /* assemble ran since the last parse stored new */
	/* assemble the whole store each pass, not what is new (tests) */
	bool assemble_full;
	/* The step runs the send stage too: send after each job (below) */
	bool send_each;
	/* The worker fetches its trees before the jobs ("reviewbot run",
	 * trees.h); when it last tried each configured tree (owned). */
	bool fetch_trees;
	int64_t *tree_tried;
	size_t n_tree_tried;
	unsigned long batch; /* messages in the open batch */
	/* Progress on a terminal (isatty(2)): ingest and jobs say how far
	 * they are, once a second, on one status line (util/log.h). */
	bool progress;
	int64_t progress_at, progress_start; /* last drawn; ingest began */
	size_t progress_base; /* messages stored before this ingest */
	/* The List-Ids that the allow-list dropped since the last report,
	 * the first few, with counts: what the admin most likely meant. */
	char drop_ids[4][128];
	size_t drop_id_n[4];
	int64_t drops_logged_at; /* the last ingest.dropped line */
};

/*
 * A job handler: runs @job, a claimed row of the job table. Returns 0 when
 * the job ended (done or failed, recorded in the store with the job's
 * end), RB_JOB_NEXT (below), -RB_EAGAIN for a temporary failure (the caller puts the job back
 * with the reason), other negative codes for store failures.
 */
typedef int (*rb_job_fn)(struct rb_pipeline *p, const struct rb_job *job);

/*
 * What a job handler returns when the job is not its to end: pipeline.c
 * runs the next handler its kind names (an incomplete series nothing
 * completed goes on to the review stage). No stage calls another's job.
 */
#define RB_JOB_NEXT 1

/* The words of @s (blank-separated), for the reviews' word counts:
 * review_stage.c and curate.c count alike. */
int rb_stage_count_words(const char *s);

#endif
