/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * feedback.h - the feedback stage: replies to our reviews judge findings
 * (DESIGN.md, the feedback protocol; mail/verdict.h for the grammar).
 *
 * For each parsed reply not looked at before whose In-Reply-To or
 * References names one of our review mails (table reviews):
 *  - the verdicts are read from its body;
 *  - the sender must be allowed to judge: the series' author (its
 *    sender, the one From: all its parts share, mail/series.h; for a B4
 *    Relay series, devnull+...@kernel.org, the in-body From: of its first
 *    patch), an M: or R: person of a touched MAINTAINERS section (from
 *    the first configured tree, the trusted base, with THE REST only when
 *    nothing else is touched), or an admin (cfg->admins) whose reply
 *    carries a passing DKIM signature aligned with its From:, whatever
 *    require_dkim says (an admin's verdict reaches every series, so a
 *    From: alone must not claim it; an admin whose signature fails is
 *    judged as whoever else she is);
 *  - when the series' policy says require_dkim (the default), the reply
 *    must carry a passing DKIM signature aligned with its From:
 *    (mail/dkim.h). Keys come from DNS, or from the key file named by
 *    RB_DKIM_KEYS (tests, offline replay);
 *  - each verdict is stored (table verdicts) with its judge, time, the
 *    finding's fingerprint, the judge's role for that finding and the
 *    owner (below), and authorised = 1; a refused reply's verdicts are
 *    stored with authorised = 0 and the reason, and change nothing;
 *  - with cfg->ack_verdicts, a one-line acknowledgement goes to the judge
 *    through the outbox (kind "ack");
 *  - issue 37: each verdict keeps the reply's own words about it (the
 *    answer under the quoted [Fn], or the verdict line's paragraph);
 *    an answer in prose under a quoted [Fn] with no verdict line
 *    becomes a proposed verdict (mail/prose.h guesses which, then the
 *    model with feedback.prose_model), stored unauthorised until an
 *    admin confirms it with "reviewbot verdicts confirm ID" (or rejects
 *    it); its sender's permission is decided as above and kept.
 * Every reply gets a row in table feedback (unrelated, no_verdict, judged,
 * proposed, refused; and for a reply without verdicts, curated or
 * answered: below), so it is looked at once; all of one reply's writes
 * are one
 * transaction.
 *
 * What a reply asks beside verdicts ("F1: send", "retry", "pause",
 * "resume") and which findings an author's reply answers are the
 * curation's (bot/stages/curate.h), called from the dispatcher in the
 * same transaction.
 *
 * Who may judge what (issue 17). A finding's sections are the MAINTAINERS
 * sections whose F: (and N:, X:) patterns take its file, THE REST only
 * when nothing else does; for a finding without a file (the commit
 * message), the series' touched sections, THE REST only when nothing
 * else is touched. A verdict's role, for that finding:
 *   admin          in cfg->admins, DKIM passing;
 *   maintainer     an M: person of the finding's sections;
 *   reviewer       an R: person of the finding's sections;
 *   author         the series' author (above);
 *   other-section  an M: or R: person of another touched section.
 * Its owner is the author address whose series it speaks for: the judge
 * herself for an author's verdict, else the judged series' author.
 * A "false positive" suppresses its fingerprint (rb_feedback_suppressed()):
 *   - in the owner's series: later versions and resends of the series,
 *     recognised by the same author address - a Message-ID, title or
 *     change-id can be copied by anyone, an address only with DKIM;
 *   - in anyone's series only when the judge is an admin (issue 33: a
 *     maintainer's verdict, forged or not, never switches a check off
 *     for a whole section);
 *   - and it counts for the policy's suppress_similar (an operator's
 *     opt-in) only from an admin or an M:/R: person of the finding's
 *     sections there.
 * So an author's verdict never silences a check in someone else's series.
 */
#ifndef RB_BOT_FEEDBACK_H
#define RB_BOT_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>

struct rb_pipeline;
struct rb_store;
struct rb_finding;
struct rb_job;
struct rb_maint;
struct rb_maint_result;
struct rb_message;

struct rb_feedback_stats {
	size_t looked; /* replies looked at */
	size_t judged; /* replies whose verdicts were stored as authorised */
	size_t refused; /* not allowed to judge, DKIM failed, unreadable */
	size_t verdicts; /* authorised verdicts stored */
	size_t acks; /* acknowledgements queued */
	size_t proposed; /* verdicts guessed from prose, for an admin */
};

/*
 * Processes every reply not looked at yet (see above), at once; the
 * pipeline runs replies as jobs instead (rb_feedback_job()). Returns 0,
 * or a store error (-RB_ESTORE); a bad reply is recorded and skipped,
 * never an error.
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

/* What the review of one series knows about it; all borrowed. */
struct rb_feedback_scope {
	const struct rb_config *cfg; /* policy.catch_all; NULL: built in */
	const struct rb_maint *maint; /* MAINTAINERS of the trusted tree */
	const struct rb_maint_result *touched; /* the series' sections */
	const char *series_author; /* the series' author address */
	const struct rb_message *const *parts; /* [0] cover, NULL allowed */
	size_t n_parts;
	int suppress_similar; /* the policy's; 0 or less: off */
};

/*
 * Whether earlier verdicts suppress finding @f in the series @s describes
 * (see above): *out is true when an authorised "false positive" on its
 * fingerprint reaches this series, or, with suppress_similar = N, when N
 * or more distinct findings "similar" to @f (the same checker, category
 * and file, both NULL for commit-message findings; distinct by
 * fingerprint) were judged false positives by an admin or an M:/R:
 * person of @f's sections. Returns 0 or a store error.
 */
int rb_feedback_suppressed(struct rb_store *st,
			   const struct rb_feedback_scope *s,
			   const struct rb_finding *f, bool *out);

#endif
