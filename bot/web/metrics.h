/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics.h - each worker's state for /metrics: jobs claimed, done and
 * failed, lease expiries, and whether it is up. Workers on several
 * machines share one store, so the counters live in the store (the
 * workers table, migration 3), not in a process: the dashboard
 * (reviewbot serve, bot/web/http.c) renders them for every worker at once.
 */
#ifndef RB_BOT_METRICS_H
#define RB_BOT_METRICS_H

#include <stdint.h>

#include "bot/store/store_jobs.h" /* enum rb_metric: the counters */

struct rb_store;
struct rb_buf;

/* A worker that has not been seen for this long is reported down. */
#define RB_METRICS_STALE_SECONDS 120

/*
 * Records that worker @name (unique across machines) with @role
 * ("ingest", "worker", "sender", "all") started on this host with this
 * pid. Its counters from earlier runs under the same name are kept.
 */
int rb_metrics_register(struct rb_store *st, const char *name,
			const char *role);

/*
 * Sets the worker's state ("idle", "busy", "stopped") and marks it seen
 * now.
 */
int rb_metrics_state(struct rb_store *st, const char *name, const char *state);

/*
 * Adds one to counter @m of worker @name. Runs inside the caller's
 * transaction when there is one, so that a claim and its count commit
 * together. An unknown name changes nothing.
 */
int rb_metrics_count(struct rb_store *st, const char *name, enum rb_metric m);

/*
 * Appends the Prometheus text exposition (format 0.0.4) of every known
 * worker's counters and state, and of the job queue by kind and state,
 * to @out: reviewbot_worker_jobs_claimed_total{worker="..",role=".."},
 * ..._done_total, ..._failed_total, ..._lease_expiries_total,
 * reviewbot_worker_up and reviewbot_jobs{kind="..",state=".."}.
 */
int rb_metrics_render(struct rb_buf *out, struct rb_store *st);

/* Appends @s as a label value of the exposition format: backslash,
 * double quote and newline escaped. */
int rb_prom_label(struct rb_buf *b, const char *s);

#endif
