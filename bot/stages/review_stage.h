/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * review_stage.h - the review of one series, run from a claimed job:
 * policy, base selection and apply, checkers, model, suppression, render
 * and compose. The slow work runs outside any transaction; its results
 * (attempts, findings, reviews, outbox mail, the job's end) are written in
 * one.
 */
#ifndef RB_BOT_REVIEW_STAGE_H
#define RB_BOT_REVIEW_STAGE_H

#include <stdbool.h>

struct rb_pipeline;
struct rb_job;

/*
 * Runs @job ("review" or "incomplete"). An incomplete series (after
 * bot/stages/incomplete.c found no missing part) is handled as its policy says:
 * "review-prefix" (the default) reviews the patches before the first gap
 * and names the missing ones in each mail; "notify" sends the author a
 * notice, unless the parts we have went to different recipients (the
 * author Cc'd lists per patch, so the rest went elsewhere); "ignore"
 * records it. Returns 0 when the job ended
 * (done or failed, recorded), -RB_EAGAIN for a temporary failure (the
 * caller puts the job back), other negative codes for store failures.
 */
int rb_review_job(struct rb_pipeline *p, const struct rb_job *job);

/*
 * A review or incomplete job whose worker died with it in hand
 * job->lost times (limits.max_job_attempts; pipeline.c): its series is
 * set aside ("quarantined") and the job ends as failed. With @notice, the
 * author gets one "could not be reviewed" note (templates/not-reviewed.txt),
 * sent as the policy sends apply-failure notes; without, or when even
 * that fails, the series and the job only record why. Returns as
 * rb_review_job().
 */
int rb_review_quarantine(struct rb_pipeline *p, const struct rb_job *job,
			 bool notice);

/*
 * Makes the model stage of @p (model.* of the config) now, if it is not
 * made yet: the job threads of pipeline.c share their parent's, whose
 * provider holds the requests in flight to model.concurrency over all
 * of them. 0, or a negative code when the model cannot be set up.
 */
int rb_review_model_prepare(struct rb_pipeline *p);

#endif
