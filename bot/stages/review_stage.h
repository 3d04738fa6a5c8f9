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

#endif
