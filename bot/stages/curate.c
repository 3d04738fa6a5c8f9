// SPDX-License-Identifier: GPL-2.0-only
/*
 * curate.c - what sub-maintainers ask of reviewbot in a reply: forwards,
 * retry, pause, resume; and what an author's reply answers. See curate.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/config.h"
#include "bot/stages/curate.h"
#include "bot/stages/policy.h"
#include "bot/stages/reply.h"
#include "bot/stages/scope.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/dkim.h"
#include "mail/message.h"
#include "mail/verdict.h"
#include "review/findings.h"
#include "review/maint/maintainers.h"
#include "review/render.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/testenv.h"
#include "util/banned.h"

#ifndef RB_TEMPLATES_DIR
#define RB_TEMPLATES_DIR "templates"
#endif

/* One reply's requests being carried out. */
struct curate {
	const struct rb_curate_reply *in;
	struct rb_curate_result *out;
	const char *actor; /* the reply's From:, bare */
	const char *role; /* "maintainer", "reviewer", "admin", or NULL */
	char why[384]; /* why not allowed, when role is NULL */
};

static bool among(const char *const *v, size_t n, const char *addr)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		if (rb_addr_same(v[i], addr))
			return true;
	return false;
}

static bool is_admin(const struct rb_config *cfg, const char *addr)
{
	return among((const char *const *)cfg->admins, cfg->n_admins, addr);
}

/* "maintainer" or "reviewer" of the series' home section, or NULL. */
static const char *home_role(const struct rb_scope *s, const char *addr)
{
	const struct rb_maint_section *sec;

	if (!s->home || !s->maint)
		return NULL;
	sec = rb_maint_find_section(s->maint, s->home);
	if (!sec)
		return NULL;
	if (among(sec->maintainers, sec->nmaintainers, addr))
		return "maintainer";
	if (among(sec->reviewers, sec->nreviewers, addr))
		return "reviewer";
	return NULL;
}

/*
 * Whether the reply carries a passing DKIM signature aligned with its
 * From: that covers its In-Reply-To (feedback.h: a signed verdict is
 * public, and one that does not sign its thread could be sent again
 * under another mail); *d says why not.
 */
static int signed_reply(struct curate *c, struct rb_dkim_result *d)
{
	const struct rb_curate_reply *in = c->in;
	int ret;

	ret = rb_dkim_verify(d, in->raw, in->raw_len, c->actor,
			     rb_test_dkim_key_file());
	if (!ret && d->pass && !d->thread_signed) {
		d->pass = false;
		snprintf(d->reason, sizeof(d->reason),
			 "the DKIM signature does not cover In-Reply-To, so it "
			 "does not say which mail the request answers");
	}
	return ret;
}

/*
 * Who asks, and may they (curate.h): the judge rules of the feedback
 * stage, narrowed to the home section. Sets c->role, or c->why.
 */
static int authorise(struct curate *c)
{
	const struct rb_curate_reply *in = c->in;
	const struct rb_config *cfg = in->p->cfg;
	struct rb_dkim_result d = { .pass = false };
	const char *role;
	bool admin;
	int ret;

	c->role = NULL;
	if (!c->actor || !rb_addr_valid(c->actor)) {
		snprintf(c->why, sizeof(c->why),
			 "the reply has no usable From:");
		return 0;
	}
	role = home_role(in->scope, c->actor);
	admin = is_admin(cfg, c->actor);
	if (!role && !admin) {
		snprintf(c->why, sizeof(c->why),
			 "%s is neither a maintainer or reviewer of the "
			 "series' home section (%s) nor an admin",
			 c->actor,
			 in->scope->home ? in->scope->home :
					   "none: a list's "
					   "or the default "
					   "policy");
		return 0;
	}
	/* As for verdicts (feedback.h): an admin always signs; the others
	 * where the policy says require_dkim. A request publishes or stops
	 * mail: a From: alone is anyone's. */
	if (admin || in->scope->pol.require_dkim) {
		ret = signed_reply(c, &d);
		if (ret)
			return ret;
		if (admin && d.pass)
			role = "admin";
	}
	if (!role) {
		snprintf(c->why, sizeof(c->why),
			 "an admin's request needs a passing DKIM signature: "
			 "%s",
			 d.reason);
		return 0;
	}
	if (in->scope->pol.require_dkim && !d.pass) {
		snprintf(c->why, sizeof(c->why), "the policy requires DKIM: %s",
			 d.reason);
		return 0;
	}
	c->role = role;
	return 0;
}

/* Records what became of @verb. */
static int record(struct curate *c, const char *verb, bool done,
		  const char *detail)
{
	const struct rb_curate_reply *in = c->in;
	struct rb_request_rec r = {
		.reply_msgid = in->reply_msgid,
		.verb = verb,
		.series_id = in->row->id,
		.actor = c->actor,
		.role = c->role,
		.authorised = c->role != NULL,
		.detail = detail,
	};

	if (done)
		c->out->requests++;
	else
		c->out->refused++;
	if (!done && !c->out->reason[0])
		snprintf(c->out->reason, sizeof(c->out->reason), "%s: %s", verb,
			 detail);
	rb_log(done ? RB_LOG_INFO : RB_LOG_WARN,
	       done ? "curate.done" : "curate.refused", "reply",
	       in->reply_msgid, "verb", verb, "by", c->actor ? c->actor : "-",
	       "detail", detail, NULL);
	return rb_store_request_add(in->p->st, &r);
}

/* --- answers --- */

/*
 * The findings an author's reply answers. An answer keeps the ledger's
 * notice from the maintainers, so a From: alone does not make one where
 * the policy requires DKIM, as for the author's verdicts.
 */
static int answers(struct curate *c)
{
	const struct rb_curate_reply *in = c->in;
	struct rb_dkim_result d = { .pass = false };
	size_t i;
	int ret = 0;

	if (!in->author || !in->v->n_answered || !c->actor)
		return 0;
	if (in->scope->pol.require_dkim) {
		ret = signed_reply(c, &d);
		if (ret)
			return ret;
		if (!d.pass) {
			rb_log(RB_LOG_WARN, "curate.answer_refused", "reply",
			       in->reply_msgid, "reason", d.reason, NULL);
			return 0;
		}
	}
	for (i = 0; i < in->v->n_answered && !ret; i++) {
		struct rb_stored_finding f = { 0 };
		char fid[16];
		bool added = false;

		snprintf(fid, sizeof(fid), "F%d", in->v->answered[i]);
		ret = rb_store_finding_get(in->p->st, in->review, fid, &f);
		if (ret == -RB_ENOTFOUND) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = rb_store_answer_add(in->p->st, in->review, fid,
						  in->reply_msgid, c->actor,
						  &added);
		c->out->answered += added;
		rb_stored_finding_release(&f);
	}
	return ret;
}

/* --- send --- */

/* The findings a "send" names that may go, loaded. */
struct chosen {
	struct rb_stored_finding *sf;
	struct rb_finding *f; /* borrowing sf's strings */
	int *ids;
	size_t n;
	struct rb_buf skipped; /* "F1 (forwarded before by x)", ... */
};

static void chosen_release(struct chosen *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++)
		rb_stored_finding_release(&ch->sf[i]);
	free(ch->sf);
	free(ch->f);
	free(ch->ids);
	rb_buf_release(&ch->skipped);
}

static int choose(struct curate *c, struct chosen *ch)
{
	const struct rb_curate_reply *in = c->in;
	const struct rb_verdicts *v = in->v;
	size_t i;
	int ret = 0;

	ch->skipped = (struct rb_buf)RB_BUF_INIT(8192);
	ch->sf = calloc(v->n_send + 1, sizeof(*ch->sf));
	ch->f = calloc(v->n_send + 1, sizeof(*ch->f));
	ch->ids = calloc(v->n_send + 1, sizeof(*ch->ids));
	if (!ch->sf || !ch->f || !ch->ids)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < v->n_send && !ret; i++) {
		struct rb_stored_finding *sf = &ch->sf[ch->n];
		char fid[16], *by = NULL;
		const char *why = NULL;

		snprintf(fid, sizeof(fid), "F%d", v->send[i]);
		ret = rb_store_finding_get(in->p->st, in->review, fid, sf);
		if (ret == -RB_ENOTFOUND) {
			ret = 0;
			why = "not a finding of the review";
		} else if (!ret && strcmp(sf->state, "raised")) {
			why = "not shown in the review";
		} else if (!ret) {
			ret = rb_store_forwarded(in->p->st, sf->id, &by, NULL);
			if (!ret)
				why = "forwarded before";
			else if (ret == -RB_ENOTFOUND)
				ret = 0;
		}
		if (!ret && why) {
			ret = rb_buf_printf(&ch->skipped, "%s%s (%s%s%s)",
					    ch->skipped.len ? ", " : "", fid,
					    why, by ? " by " : "",
					    by ? by : "");
			rb_stored_finding_release(sf);
		} else if (!ret) {
			struct rb_finding *f = &ch->f[ch->n];
			int sev = rb_fsev_parse(sf->severity);

			f->checker = sf->checker;
			f->checker_version = sf->checker_version;
			f->category = sf->category;
			f->severity = sev < 0 ? RB_FSEV_MEDIUM :
						(enum rb_fsev)sev;
			f->file = sf->file;
			f->line = sf->line;
			f->code = sf->code;
			f->message = sf->message;
			f->patch_index = sf->patch_idx;
			ch->ids[ch->n++] = v->send[i];
		}
		free(by);
	}
	return ret;
}

/* The stored bytes of part @idx of the series, for B4 Relay's check. */
static bool part_relayed(const struct rb_curate_reply *in, int idx)
{
	struct rb_msgrow r = { 0 };
	bool relay;

	if (idx < 0 || (size_t)idx >= in->n_parts || !in->parts[idx] ||
	    !in->row->msgids[idx] ||
	    rb_store_get_raw(in->p->st, in->row->msgids[idx], &r)) {
		rb_err_clear();
		return false;
	}
	relay = rb_scope_relayed(in->scope, in->parts[idx], r.raw, r.len);
	rb_msgrow_release(&r);
	return relay;
}

/*
 * The forward's body: the findings chosen, quoted from the patch of the
 * first one (a summary's findings are on the patches; the others are
 * shown with file and line), else from @part.
 */
static int forward_render(struct curate *c, const struct chosen *ch,
			  const struct rb_message *part,
			  const struct rb_effective_policy *pol, const char *by,
			  struct rb_buf *body)
{
	const struct rb_curate_reply *in = c->in;
	struct rb_render_forward_ctx fc = { 0 };
	const struct rb_message *quoted;

	quoted = part;
	if (ch->f[0].patch_index > 0 &&
	    (size_t)ch->f[0].patch_index < in->n_parts &&
	    in->parts[ch->f[0].patch_index])
		quoted = in->parts[ch->f[0].patch_index];
	fc.mode = pol->mode;
	fc.subsystem = pol->subsystem;
	fc.blocking_text = pol->blocking_text;
	fc.by = by;
	fc.role = c->role;
	fc.version = quoted->subject.version;
	fc.index = quoted->subject.index;
	fc.total = quoted->subject.total;
	fc.title = quoted->subject.title;
	fc.findings = ch->f;
	fc.n_findings = ch->n;
	fc.ids = ch->ids;
	fc.commit_msg = quoted->commit_msg;
	fc.patch = quoted->patch;
	fc.patch_len = quoted->patch_len;
	fc.dirs.templates_dir = in->p->templates_dir ? in->p->templates_dir :
						       RB_TEMPLATES_DIR;
	fc.dirs.override_dir = pol->templates_dir;
	return rb_render_forward(body, &fc);
}

/* The forward composed in @mail: in the outbox, and each finding's
 * forward recorded. */
static int forward_queue(struct curate *c, struct chosen *ch,
			 const struct rb_reply_mail *mail, enum rb_mode policy,
			 const char *subsystem)
{
	const struct rb_curate_reply *in = c->in;
	int64_t idx = 0;
	size_t i;
	int ret, words = 0;

	for (i = 0; i < ch->n; i++)
		words += rb_stage_count_words(ch->f[i].message);
	ret = rb_store_review_next_idx(in->p->st, in->row->id, "forward", &idx);
	if (!ret) {
		struct rb_outmail om = {
			.series_id = in->row->id,
			.kind = "forward",
			.patch_idx = (int)idx,
			.lists = mail->lists.ptr,
			.trusted = mail->trusted.ptr,
			.words = words,
			.findings = (int)ch->n,
			.send_after = rb_now(),
			.policy = rb_mode_name(policy),
			.subsystem = subsystem,
			.copy_of = in->review,
		};

		ret = rb_reply_queue(in->p, mail, &om);
		if (!ret)
			c->out->queued++;
	}
	for (i = 0; !ret && i < ch->n; i++) {
		char fid[16];
		struct rb_forward_rec fr = {
			.finding_id = ch->sf[i].id,
			.series_id = in->row->id,
			.review_msgid = in->review,
			.fid = fid,
			.message_id = mail->message_id,
			.by = c->actor,
			.reply_msgid = in->reply_msgid,
		};

		snprintf(fid, sizeof(fid), "F%d", ch->ids[i]);
		ret = rb_store_forward_add(in->p->st, &fr);
	}
	return ret;
}

/* The forward itself: rendered, composed, in the outbox, recorded. */
static int forward(struct curate *c, const struct rb_review_row *rv,
		   struct chosen *ch, char *detail, size_t dsize)
{
	const struct rb_curate_reply *in = c->in;
	const struct rb_config *cfg = in->p->cfg;
	const struct rb_message *part = NULL, *m = in->m;
	struct rb_effective_policy pol = in->scope->pol;
	struct rb_scope_people_buf pb = { 0 };
	struct rb_policy_people who = { 0 };
	struct rb_recipients r = { 0 };
	struct rb_reply reply = { 0 };
	struct rb_buf body = RB_BUF_INIT(4u << 20);
	struct rb_buf by = RB_BUF_INIT(4096), hdr = RB_BUF_INIT(4096);
	struct rb_reply_mail mail;
	const char *msgid = NULL;
	int ret;

	if (rv->patch_idx >= 0 && (size_t)rv->patch_idx < in->n_parts)
		part = in->parts[rv->patch_idx];
	if (!part) {
		snprintf(detail, dsize,
			 "the part the review answers is not stored");
		return 0;
	}
	rb_reply_mail_init(&mail, 4u << 20);
	ret = rb_addr_format(&by, &m->from);
	if (ret)
		goto out;
	ret = forward_render(c, ch, part, &pol, by.ptr, &body);
	/* Whom it goes to is the policy's: the reply chose findings only. */
	if (!ret)
		ret = rb_scope_people(&who, &pb, in->scope, part,
				      part_relayed(in, rv->patch_idx));
	if (!ret)
		ret = rb_policy_forward_recipients(&r, &pol, cfg, &who, by.ptr);
	if (ret)
		goto out;
	if (!r.n_to) {
		snprintf(detail, dsize, "nobody it may go to can receive mail");
		goto out;
	}
	ret = rb_buf_printf(&hdr, "X-Reviewbot-Forwarded-By: %s", c->actor);
	if (ret)
		goto out;
	reply.from = cfg->smtp_from;
	/* Public now, whatever the section's mode: advisory, or blocking
	 * where the section blocks. */
	reply.policy = pol.mode == RB_MODE_BLOCKING ? RB_MODE_BLOCKING :
						      RB_MODE_ADVISORY;
	reply.series_id = in->row->id;
	reply.body = body.ptr;
	reply.extra_headers = hdr.ptr;
	ret = rb_reply_compose(&mail, &reply, part, &r);
	msgid = mail.message_id;
	if (!ret)
		ret = forward_queue(c, ch, &mail, reply.policy, pol.subsystem);
	if (!ret) {
		c->out->forwarded += ch->n;
		snprintf(detail, dsize, "%zu finding%s forwarded in %s", ch->n,
			 ch->n == 1 ? "" : "s", msgid);
	}
out:
	rb_reply_mail_release(&mail);
	rb_scope_people_release(&pb);
	rb_recipients_release(&r);
	rb_buf_release(&body);
	rb_buf_release(&by);
	rb_buf_release(&hdr);
	return ret;
}

static int do_send(struct curate *c)
{
	const struct rb_curate_reply *in = c->in;
	struct rb_review_row rv = { 0 };
	struct chosen ch = { 0 };
	char detail[1024] = "";
	bool done = false;
	int ret;

	ret = rb_store_review_row(in->p->st, in->review, &rv);
	if (ret == -RB_ENOTFOUND) {
		ret = 0;
		snprintf(detail, sizeof(detail), "no such review");
		goto record;
	}
	if (ret)
		goto out;
	if (strcmp(rv.kind, "review") && strcmp(rv.kind, "summary")) {
		snprintf(detail, sizeof(detail),
			 "the mail answered is no review (%s)", rv.kind);
		goto record;
	}
	/* Only shadow mail is private: the rest reached the author. */
	if (!rv.policy || strcmp(rv.policy, "shadow")) {
		snprintf(detail, sizeof(detail),
			 "the review went to the author and the list already "
			 "(%s)",
			 rv.policy ? rv.policy : "no mode");
		goto record;
	}
	ret = choose(c, &ch);
	if (ret)
		goto out;
	if (!ch.n) {
		snprintf(detail, sizeof(detail), "nothing to send: %s",
			 ch.skipped.len ? ch.skipped.ptr : "no findings named");
		/* Asked again for what went: done, not refused. */
		done = true;
		goto record;
	}
	ret = forward(c, &rv, &ch, detail, sizeof(detail));
	if (ret)
		goto out;
	done = c->out->forwarded > 0;
	if (ch.skipped.len) {
		size_t l = strlen(detail);

		snprintf(detail + l, sizeof(detail) - l, "; left out: %s",
			 ch.skipped.ptr);
	}
record:
	ret = record(c, "send", done, detail);
out:
	chosen_release(&ch);
	rb_review_row_release(&rv);
	return ret;
}

/* --- retry, pause, resume --- */

static int do_retry(struct curate *c)
{
	const struct rb_curate_reply *in = c->in;
	bool reviewed = false, queued = false;
	int ret;

	ret = rb_store_series_has_review(in->p->st, in->row->id, &reviewed);
	if (!ret && !reviewed)
		ret = rb_store_series_requeue(in->p->st, in->row->id, rb_now(),
					      &queued);
	if (ret)
		return ret;
	if (reviewed)
		return record(c, "retry", false,
			      "the series was reviewed; a new version gets a "
			      "new review");
	return record(c, "retry", queued,
		      queued ? "the series is reviewed again now" :
			       "no review of the series to run again");
}

static int do_pause(struct curate *c, bool pause)
{
	const struct rb_curate_reply *in = c->in;
	bool changed = false;
	int ret;

	ret = pause ? rb_store_series_pause(in->p->st, in->row->id, c->actor,
					    &changed) :
		      rb_store_series_resume(in->p->st, in->row->id, &changed);
	if (ret)
		return ret;
	return record(c, pause ? "pause" : "resume", true,
		      pause ? (changed ? "the series' mail waits" :
					 "the series was paused already") :
			      (changed ? "the series' mail goes out" :
					 "the series was not paused"));
}

int rb_curate_reply(const struct rb_curate_reply *in,
		    struct rb_curate_result *out)
{
	struct curate c = { .in = in, .out = out };
	static const char *const verbs[] = { "send", "retry", "pause",
					     "resume" };
	const struct rb_verdicts *v = in->v;
	size_t k;
	int ret;

	memset(out, 0, sizeof(*out));
	c.actor = in->m ? in->m->from.addr : NULL;
	ret = answers(&c);
	if (ret || !rb_verdicts_has_requests(v))
		goto out;
	ret = authorise(&c);
	if (ret)
		goto out;
	if (!c.role) {
		bool asked[4] = { v->n_send > 0, v->cmds & RB_VCMD_RETRY,
				  v->cmds & RB_VCMD_PAUSE,
				  v->cmds & RB_VCMD_RESUME };

		for (k = 0; k < 4 && !ret; k++)
			if (asked[k])
				ret = record(&c, verbs[k], false, c.why);
		goto out;
	}
	/* Pause first, so that a "send" in the same reply waits with the
	 * rest; resume last. */
	if (v->cmds & RB_VCMD_PAUSE)
		ret = do_pause(&c, true);
	if (!ret && v->n_send)
		ret = do_send(&c);
	if (!ret && (v->cmds & RB_VCMD_RETRY))
		ret = do_retry(&c);
	if (!ret && (v->cmds & RB_VCMD_RESUME))
		ret = do_pause(&c, false);
out:
	if (!ret && (out->requests || out->refused))
		out->state = out->requests ? "curated" : "refused";
	else if (!ret && out->answered)
		out->state = "answered";
	return ret;
}
