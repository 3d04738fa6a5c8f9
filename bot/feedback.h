/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * feedback.h - the feedback stage: replies to our reviews judge findings
 * (DESIGN.md, the feedback protocol; mail/verdict.h for the grammar).
 *
 * For each parsed reply not looked at before whose In-Reply-To or
 * References names one of our review mails (table reviews):
 *  - the verdicts are read from its body;
 *  - the sender must be allowed to judge: the author of a patch of the
 *    series (From: or in-body From:), an M: or R: person of a touched
 *    MAINTAINERS section (from the first configured tree, the trusted
 *    base, with THE REST only when nothing else is touched), or an admin
 *    (cfg->admins);
 *  - when the series' policy says require_dkim, the reply must carry a
 *    passing DKIM signature aligned with its From: (mail/dkim.h). Keys
 *    come from DNS, or from the key file named by RB_DKIM_KEYS (tests,
 *    offline replay);
 *  - each verdict is stored (table verdicts) with its judge, time, the
 *    finding's fingerprint (so review_stage's suppression sees it in v2,
 *    v3 and resends) and authorised = 1; a refused reply's verdicts are
 *    stored with authorised = 0 and the reason, and change nothing;
 *  - with cfg->ack_verdicts, a one-line acknowledgement goes to the judge
 *    through the outbox (kind "ack").
 * Every reply gets a row in table feedback (unrelated, no_verdict, judged,
 * refused), so it is looked at once; all of one reply's writes are one
 * transaction.
 */
#ifndef RB_BOT_FEEDBACK_H
#define RB_BOT_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>

struct rb_pipeline;
struct rb_store;
struct rb_finding;
struct rb_job;

struct rb_feedback_stats {
	size_t looked; /* replies looked at */
	size_t judged; /* replies whose verdicts were stored as authorised */
	size_t refused; /* not allowed to judge, DKIM failed, unreadable */
	size_t verdicts; /* authorised verdicts stored */
	size_t acks; /* acknowledgements queued */
};

/*
 * Processes every reply not looked at yet (see above), at once; the
 * pipeline runs replies as jobs instead (rb_feedback_job()). Returns 0, or a store error (-RB_ESTORE); a bad reply
 * is recorded and skipped, never an error.
 */
int rb_feedback_run(struct rb_pipeline *p);
/* The same, adding what it did to @stats (not NULL). */
int rb_feedback_run_stats(struct rb_pipeline *p,
			  struct rb_feedback_stats *stats);

/*
 * The feedback stage as a job of the one pipeline (kind "feedback", key
 * the reply's Message-ID, queued by assemble for each reply that names one
 * of our mails): judges that reply as above, then ends the job. A reply
 * looked at before is not judged again. Returns as an rb_job_fn.
 */
int rb_feedback_job(struct rb_pipeline *p, const struct rb_job *job);

/*
 * The rule of policy suppress_similar = @n: *out is true when @n or more
 * distinct findings "similar" to @f were judged false positives by an
 * authorised judge. Similar means the same checker, the same category and
 * the same file (both NULL for commit-message findings): the unit a
 * maintainer rejects when they say "this checker is wrong about this kind
 * of thing in this file". Distinct is by fingerprint, so one finding
 * rejected again in v2 and v3 counts once. @n <= 0: always false.
 */
int rb_feedback_similar_rejected(struct rb_store *st,
				 const struct rb_finding *f, int n, bool *out);

#endif
