/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_jobs.h - the work side of the store (store.h): the job queue that
 * drives the stages, with the leases that let workers on several
 * machines share it; the workers table behind /metrics; the lock that
 * makes one ingest process the leader. Tables jobs and workers.
 */
#ifndef RB_BOT_STORE_JOBS_H
#define RB_BOT_STORE_JOBS_H

#include <stdbool.h>
#include <stdint.h>

struct rb_store;

/* --- jobs: the stage queue --- */

struct rb_job {
	int64_t id;
	char *kind; /* "review", ... */
	char *key; /* the series id */
	int attempts; /* claims, this one included */
	/* Claims before this one that never ended: the worker died with the
	 * job in hand (a crash, an OOM kill) or lost its lease. Counted by
	 * the claim, in its transaction, before any of the work is done. */
	int lost;
};
void rb_job_release(struct rb_job *j);

/* Enqueues once per (kind, key); -RB_EEXISTS when already there. */
int rb_store_job_add(struct rb_store *st, const char *kind, const char *key,
		     int64_t not_before);
/* Marks the (kind, key) job done if it has not been claimed yet. */
int rb_store_job_cancel(struct rb_store *st, const char *kind, const char *key);
/*
 * Claims the oldest ready job (or one whose lease expired) for @owner for
 * @lease_seconds: -RB_ENOTFOUND when there is none. Jobs that a worker
 * died with go after those that none did (fewest lost first), so that a
 * job that kills the worker delays the queue by one restart, not for
 * ever; out->lost says how often it did (the caller quarantines it).
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
/*
 * The heartbeat: job @id keeps its lease until @until while @owner still
 * runs it (a job another worker took over is left alone).
 */
int rb_store_job_renew(struct rb_store *st, int64_t id, const char *owner,
		       int64_t until);
/* Jobs left 'running' by a process that died go back to 'ready' (a
 * single-owner SQLite store, at start); each is still in hand, so that
 * its next claim counts the death (rb_job.lost). */
int rb_store_job_reset_running(struct rb_store *st);
/* A job's state ("ready", "running", "done", "failed"), and the worker
 * whose lease on it ran out (NULL if none; @lost_by may be NULL). */
int rb_store_job_state(struct rb_store *st, int64_t id, char **state,
		       char **lost_by);

/* When the next ready job or queued mail is due (seconds since the
 * epoch), or 0 when nothing waits: the daemon sleeps no longer. */
int rb_store_next_due(struct rb_store *st, int64_t *out);

/* --- workers: each process's state and counters (bot/web/metrics.h) --- */

enum rb_metric {
	RB_METRIC_CLAIMED, /* a job was claimed */
	RB_METRIC_DONE, /* a job ended with a result */
	RB_METRIC_FAILED, /* a job ended as failed (the series is bad) */
	RB_METRIC_LEASE_EXPIRED, /* this worker's lease on a job ran out */
};

struct rb_worker {
	const char *name; /* unique across machines */
	const char *role; /* "ingest", "worker", "sender", "all" */
	const char *host;
	int64_t pid;
};

/* Records that worker @w started (state idle, seen now); the counters
 * of earlier runs under the same name are kept. */
int rb_store_worker_register(struct rb_store *st, const struct rb_worker *w);
/* Sets the worker's state ("idle", "busy", "stopped"), seen now. */
int rb_store_worker_state(struct rb_store *st, const char *name,
			  const char *state);
/* Adds one to counter @m of worker @name, seen now; -RB_EINVAL for an
 * unknown counter. An unknown name changes nothing. */
int rb_store_worker_count(struct rb_store *st, const char *name,
			  enum rb_metric m);
/* The heartbeat: worker @name was seen at @now. */
int rb_store_worker_seen(struct rb_store *st, const char *name, int64_t now);

/* --- the ingest lock (reviewbot run --role ingest) --- */

/*
 * Takes the ingest lock without waiting: *got is true when this handle
 * holds it now. It goes with the handle's connection, so that a standby
 * takes over when the leader dies. A SQLite store's owner always holds
 * it.
 */
int rb_store_ingest_lock(struct rb_store *st, bool *got);
/* Whether this handle still holds the ingest lock (a dropped and re-made
 * connection loses it). */
int rb_store_ingest_lock_held(struct rb_store *st, bool *held);

#endif
