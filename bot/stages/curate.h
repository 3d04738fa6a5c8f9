/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * curate.h - sub-maintainers decide (issue 36): what a reply to one of
 * our mails asks beside verdicts (mail/verdict.h: "F1, F3: send",
 * "retry", "pause", "resume"), and which findings an author's reply
 * answers, for the blocking ledger (bot/stages/ledger.h).
 *
 * Who may ask: an M: or R: person of the series' home section
 * (bot/stages/scope.h; the judge rules of feedback.h, narrowed to the
 * home section: an M: of another touched section may judge a finding
 * but not publish it), with a passing DKIM signature aligned with the
 * reply's From: that covers its In-Reply-To when the policy says
 * require_dkim (the default); or an admin, always with that signature.
 * A series without a home section (a list's or the default policy) is
 * the admins' alone. Everyone else's requests are recorded as refused,
 * with why, and change nothing.
 *
 *   send    Only from a shadow review (the others are public already):
 *           the named findings of that review go to the author and the
 *           list (rb_policy_forward_recipients()) as a reply in the
 *           patch's thread, quoted and numbered as the review had them
 *           and marked as forwarded by the maintainer. Each finding goes
 *           at most once (table forwards): a finding forwarded before,
 *           by anyone, is left out, and a reply that names only such
 *           findings sends nothing. The mail goes through the outbox
 *           (a Message-ID made of its content, its bytes stored before
 *           the first attempt, a resend byte for byte).
 *   retry   The series' review (or incomplete) job runs again now; not
 *           for a series already reviewed (its review stands: a new
 *           version gets a new one).
 *   pause   Nothing more is sent about the series: its mail not sent yet
 *           and any mail stored for it later wait (outbox state paused);
 *           the ledger's notice to its maintainers still goes.
 *   resume  The paused mail goes out.
 *
 * Answers: a reply of the series' author (as feedback.h defines the
 * author) that says something under a quoted "[Fn]" of our mail answers
 * that finding (table answers), with the DKIM signature the policy
 * asks of the author's verdicts: an answer keeps the blocking ledger's
 * notice from the maintainers.
 *
 * Everything is written in the caller's transaction; nothing is sent
 * here.
 */
#ifndef RB_BOT_CURATE_H
#define RB_BOT_CURATE_H

#include <stdbool.h>
#include <stddef.h>

struct rb_pipeline;
struct rb_message;
struct rb_scope;
struct rb_series_row;
struct rb_verdicts;

/* One reply, as the feedback stage read it; all borrowed. */
struct rb_curate_reply {
	struct rb_pipeline *p;
	const char *reply_msgid;
	const char *raw; /* the reply's bytes, for DKIM */
	size_t raw_len;
	const struct rb_message *m; /* the reply, parsed */
	const char *review; /* our mail whose findings it names */
	const char *mail; /* the mail of ours it answers (may be a copy) */
	const struct rb_series_row *row;
	const struct rb_message *const *parts; /* [0] cover; NULL: missing */
	size_t n_parts;
	const struct rb_scope *scope; /* the series' scope and policy */
	const struct rb_verdicts *v;
	bool author; /* the sender is the series' author */
};

struct rb_curate_result {
	size_t answered; /* findings newly answered */
	size_t forwarded; /* findings forwarded now */
	size_t requests; /* requests done */
	size_t refused; /* requests refused */
	size_t queued; /* mails put in the outbox */
	/* For the feedback row when the reply had no verdict: "curated",
	 * "refused" (with reason), or NULL when it asked nothing. */
	const char *state;
	char reason[512];
};

/*
 * Does what @in asks and records what it answers (above), in the
 * caller's transaction. Returns 0 (a refused request is no error), a
 * store error, or -RB_ENOMEM.
 */
int rb_curate_reply(const struct rb_curate_reply *in,
		    struct rb_curate_result *out);

#endif
