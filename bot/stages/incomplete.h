/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * incomplete.h - the "incomplete" job: a series that still misses parts
 * when its wait ran out. Before anyone is told, in order:
 *
 *  1. a stable review series ("[PATCH 5.10 000/122]") is not reviewed at
 *     all unless series.review_stable says so: no notice either;
 *  2. with series.fetch_url (a public-inbox inbox, lore's "all"), the
 *     thread is fetched as b4 does and the missing parts that are really
 *     parts of this series (same author, version and count, not already
 *     stored) are stored; when that completes the series, the next
 *     assembly queues its review and no notice goes out;
 *  3. otherwise the review stage decides (the job returns RB_JOB_NEXT
 *     and pipeline.c hands it on), under the series' policy
 *     ("incomplete": review the parts before the first gap, send a
 *     notice, or nothing; review_stage.h).
 */
#ifndef RB_BOT_INCOMPLETE_H
#define RB_BOT_INCOMPLETE_H

struct rb_pipeline;
struct rb_job;

/* Runs an "incomplete" job; returns as an rb_job_fn (stage.h). */
int rb_incomplete_job(struct rb_pipeline *p, const struct rb_job *job);

#endif
