// SPDX-License-Identifier: GPL-2.0-only
/*
 * review_mail.c - the mails of a review: the reviews (a cover summary
 * and one per patch), the apply-failure, incomplete and not-reviewed
 * notices, the private copies, each composed by reply.h and queued in
 * the outbox with the findings it shows. See review_ctx.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <git2.h>

#include "bot/config.h"
#include "bot/stages/feedback.h"
#include "bot/stages/model_setup.h"
#include "bot/stages/policy.h"
#include "bot/stages/prereq.h"
#include "bot/stages/reply.h"
#include "bot/stages/review_ctx.h"
#include "bot/stages/review_stage.h"
#include "bot/stages/scope.h"
#include "bot/stages/series_view.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "bot/store/store_versions.h"
#include "bot/stages/trees.h"
#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/dkim.h"
#include "mail/message.h"
#include "review/apply/apply.h"
#include "review/apply/base.h"
#include "review/checks/checkpatch_filter.h"
#include "review/checks/checks.h"
#include "review/apply/diff.h"
#include "review/findings.h"
#include "review/maint/maintainers.h"
#include "review/model/model.h"
#include "review/model/model_prompt.h"
#include "review/model/model_tools.h"
#include "review/render.h"
#include "review/checks/rules.h"
#include "util/buf.h"
#include "util/dur.h"
#include "util/err.h"
#include "util/log.h"
#include "util/testenv.h"
/* v(n+1) of a stored series (issue 18), after the review/ headers. */
#include "bot/stages/versions.h"
#include "bot/stages/threads.h"
#include "util/banned.h"

/* Words of commentary in @s, for the reviews' word counts. */
int rb_stage_count_words(const char *s)
{
	int n = 0, in = 0;

	for (; s && *s; s++) {
		if (*s == ' ' || *s == '\n' || *s == '\t') {
			in = 0;
		} else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

static int new_out(struct outgoing **out, struct series_ctx *c,
		   const char *kind, int patch_idx)
{
	struct outgoing *v =
		realloc(c->mail.out, (c->mail.n_out + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	c->mail.out = v;
	v = &c->mail.out[c->mail.n_out++];
	memset(v, 0, sizeof(*v));
	rb_reply_mail_init(&v->mail, 4u << 20);
	v->kind = kind;
	v->patch_idx = patch_idx;
	*out = v;
	return 0;
}

/* The people a reply to part @idx may go to (bot/stages/scope.h). */
static int people_of(struct series_ctx *c, int idx,
		     struct rb_policy_people *who,
		     struct rb_scope_people_buf *b)
{
	const struct rb_message *m = c->view.msgs[idx] ? c->view.msgs[idx] :
							 c->first;
	bool relay = c->view.msgs[idx] && c->view.raws &&
		     rb_scope_relayed(&c->view.scope, c->view.msgs[idx],
				      c->view.raws[idx].raw,
				      c->view.raws[idx].len);

	return rb_scope_people(who, b, &c->view.scope, m, relay);
}

/* Whom a reply goes to (queue_reply()). */
enum reply_to {
	REPLY_REVIEW, /* the policy's recipients (rb_policy_recipients()) */
	REPLY_AUTHOR, /* the poster (rb_policy_author_recipients()) */
	REPLY_ADMINS, /* the admins only: the operator's notice */
	REPLY_PRIVATE, /* o->private_to: a private copy (rb_review_queue_copies()) */
};

/*
 * Composes @body as a reply to part @idx (0: the cover) to the recipients
 * @to names, and keeps the bytes in @o for the store. When nobody is
 * left to send to (no admins, an author who cannot receive mail), @o is
 * marked to be skipped: the series' state says what happened.
 */
static int queue_reply(struct series_ctx *c, struct outgoing *o, int idx,
		       const char *body, enum reply_to to)
{
	const struct rb_message *m = c->view.msgs[idx] ? c->view.msgs[idx] :
							 c->first;
	struct rb_policy_people who = { 0 };
	struct rb_recipients r = { 0 };
	struct rb_reply reply = { 0 };
	struct rb_scope_people_buf pb = { 0 };
	int ret;

	ret = people_of(c, c->view.msgs[idx] ? idx : c->first_idx, &who, &pb);
	if (!ret && to == REPLY_ADMINS)
		ret = rb_policy_admin_recipients(&r, c->p->cfg);
	else if (!ret && to == REPLY_PRIVATE)
		ret = rb_policy_private_recipients(
			&r, c->p->cfg, (const char *const *)o->private_to,
			o->n_private, o->private_trusted);
	else if (!ret && to == REPLY_AUTHOR)
		ret = rb_policy_author_recipients(&r, &c->view.scope.pol,
						  c->p->cfg, &who);
	else if (!ret)
		ret = rb_policy_recipients(&r, &c->view.scope.pol, c->p->cfg,
					   &who);
	if (ret)
		goto out;
	c->p->stats.undeliverable += r.n_undeliverable;
	c->p->stats.refused += r.n_refused;
	c->p->stats.lists_capped += r.n_lists_capped;
	o->idx = idx;
	if (to == REPLY_REVIEW && r.n_private) {
		/* For their private copy (rb_review_queue_copies()). */
		o->private_to = r.private_to;
		o->n_private = r.n_private;
		o->private_trusted = r.private_trusted;
		r.private_to = NULL;
		r.n_private = 0;
		o->body = strdup(body);
		if (!o->body) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (!r.n_to) {
		rb_log(RB_LOG_INFO, "review.no_recipient", "series",
		       c->view.row.id, "kind", o->kind, "why",
		       to == REPLY_ADMINS ?
			       "no admins are configured" :
			       "nobody it may go to can receive mail",
		       NULL);
		o->skip = true;
		c->p->stats.unsent++;
		goto out;
	}
	o->capped = (int)r.n_capped;
	c->p->stats.capped += r.n_capped;
	reply.from = c->p->cfg->smtp_from;
	/* An admins' notice is shadow mail, whatever the series' mode, and
	 * so is a private copy. */
	reply.policy = to == REPLY_ADMINS || to == REPLY_PRIVATE ?
			       RB_MODE_SHADOW :
			       c->view.scope.pol.mode;
	reply.series_id = c->view.row.id;
	reply.body = body;
	ret = rb_reply_compose(&o->mail, &reply, m, &r);
	o->words = rb_stage_count_words(body);
out:
	rb_scope_people_release(&pb);
	rb_recipients_release(&r);
	return ret;
}

/* Shadow mail goes to the home section's own people (issue 36). */
static bool shadow_maintainers(const struct series_ctx *c)
{
	return c->view.scope.pol.mode == RB_MODE_SHADOW &&
	       c->view.scope.pol.shadow_to == RB_SHADOW_MAINTAINERS &&
	       c->view.scope.n_home_people > 0;
}

/*
 * A private copy of each public review for the people who asked for
 * reviews that way ("people": shadow, issue 36): the same text, To:
 * them alone, a reply in the patch's thread like the review, whose
 * findings it carries (a reply to it judges them).
 */
int rb_review_queue_copies(struct series_ctx *c)
{
	size_t i, n = c->mail.n_out;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct rb_buf body = RB_BUF_INIT(4u << 20);
		struct outgoing *o;
		char *copy_of;

		if (!c->mail.out[i].n_private || c->mail.out[i].skip ||
		    !c->mail.out[i].mail.message_id)
			continue;
		ret = rb_buf_printf(&body,
				    "A private copy: you asked for reviews "
				    "only this way. The review below went to "
				    "its other recipients.\n\n%s",
				    c->mail.out[i].body);
		copy_of = ret ? NULL : strdup(c->mail.out[i].mail.message_id);
		if (!ret && !copy_of)
			ret = rb_err(RB_ENOMEM, "out of memory");
		/* new_out() may move c->mail.out: index it again after. */
		ret = ret   ?:
			      new_out(&o, c, "review-copy",
				      c->mail.out[i].patch_idx);
		if (!ret) {
			o->copy_of = copy_of;
			copy_of = NULL;
			o->private_to = c->mail.out[i].private_to;
			o->n_private = c->mail.out[i].n_private;
			o->private_trusted = c->mail.out[i].private_trusted;
			c->mail.out[i].private_to = NULL;
			c->mail.out[i].n_private = 0;
			ret = queue_reply(c, o, c->mail.out[i].idx, body.ptr,
					  REPLY_PRIVATE);
			o->words = 0;
		}
		free(copy_of);
		rb_buf_release(&body);
	}
	return ret;
}

static struct rb_render_dirs dirs_of(const struct series_ctx *c)
{
	struct rb_render_dirs d = {
		.templates_dir = c->p->templates_dir ? c->p->templates_dir :
						       RB_TEMPLATES_DIR,
		.override_dir = c->view.scope.pol.templates_dir,
	};
	return d;
}

/*
 * What a mail about the whole series says first: its policy and the
 * stored series' version, size and title. No blocking text: only the
 * summary explains what blocking means.
 */
static struct rb_render_head render_head(const struct series_ctx *c)
{
	struct rb_render_head h = {
		.mode = c->view.scope.pol.mode,
		.subsystem = c->view.scope.pol.subsystem,
		.version = c->view.row.version,
		.total = c->view.row.total,
		.title = c->view.row.title,
	};
	return h;
}

/* The lines raised on v(n) that a part keeps, as its mail shows them. */
struct raised_set {
	struct rb_render_raised *v;
	char **notes;
	size_t n;
};

static void raised_release(struct raised_set *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* Part @idx's lines that a reply on v(n) commented on and that this
 * version keeps (bot/stages/threads.h), into @r. */
static int raised_of(struct raised_set *r, const struct series_ctx *c, int idx)
{
	const struct rb_versions *v = &c->versions;
	size_t i, n = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < v->n_lines; i++)
		n += v->lines[i].earlier && v->lines[i].unchanged &&
		     v->lines[i].idx == idx;
	if (!n)
		return 0;
	r->v = calloc(n, sizeof(*r->v));
	r->notes = calloc(n, sizeof(*r->notes));
	if (!r->v || !r->notes)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < v->n_lines; i++) {
		const struct rb_thread_line *l = &v->lines[i];
		struct rb_buf note = RB_BUF_INIT(4096);

		if (!l->earlier || !l->unchanged || l->idx != idx)
			continue;
		if (rb_threads_note(&note, v, l)) {
			rb_buf_release(&note);
			return rb_err(RB_ENOMEM, "out of memory");
		}
		r->notes[r->n] = rb_buf_detach(&note, NULL);
		if (!r->notes[r->n])
			return rb_err(RB_ENOMEM, "out of memory");
		r->v[r->n].before[0] = l->before[0];
		r->v[r->n].before[1] = l->before[1];
		r->v[r->n].line = l->code;
		r->v[r->n].note = r->notes[r->n];
		r->n++;
	}
	return 0;
}

/*
 * review.reply_to_cover: one reply to the cover letter for the whole
 * series instead of one per patch, with what changed since v(n) (a short
 * range-diff: the series line, and a note per part). Sent when it shows
 * a finding, when the policy says send_when_empty, or when it is a new
 * version of a reviewed series (the range-diff is news to the list).
 */
/* The parts of the cover's summary reply, one per patch shown. */
struct cover_parts {
	struct rb_render_patch *pp;
	const char **pnote; /* into notes */
	size_t *noff; /* each part's note in notes, while it grows */
	struct rb_buf notes;
	struct rb_finding *sel; /* borrowed strings: c->findings' */
	size_t *idx; /* sel[i] is c->findings.v[idx[i]] */
	int *ids;
	size_t n, np; /* findings in sel, parts in pp */
	struct raised_set *raised; /* per part shown (issue 37) */
	char **interdiff; /* per part shown, or NULL */
};

static void cover_parts_release(struct cover_parts *cp)
{
	size_t i;

	for (i = 0; cp->raised && i < cp->np; i++)
		raised_release(&cp->raised[i]);
	for (i = 0; cp->interdiff && i < cp->np; i++)
		free(cp->interdiff[i]);
	free(cp->raised);
	free(cp->interdiff);
	free(cp->pp);
	free(cp->pnote);
	free(cp->noff);
	free(cp->sel);
	free(cp->idx);
	free(cp->ids);
	rb_buf_release(&cp->notes);
}

/*
 * Each patch that is there, with its raised findings (series-wide ones go
 * with the first part shown) and its note from the versions stage.
 */
static int cover_parts_collect(struct cover_parts *cp, struct series_ctx *c)
{
	int total = c->view.row.total, i, ret = 0;
	size_t k;

	cp->notes = (struct rb_buf)RB_BUF_INIT(1u << 20);
	cp->pp = calloc((size_t)total + 1, sizeof(*cp->pp));
	cp->pnote = calloc((size_t)total + 1, sizeof(*cp->pnote));
	cp->noff = calloc((size_t)total + 1, sizeof(*cp->noff));
	cp->sel = calloc(c->findings.n + 1, sizeof(*cp->sel));
	cp->idx = calloc(c->findings.n + 1, sizeof(*cp->idx));
	cp->ids = calloc(c->findings.n + 1, sizeof(*cp->ids));
	cp->raised = calloc((size_t)total + 1, sizeof(*cp->raised));
	cp->interdiff = calloc((size_t)total + 1, sizeof(*cp->interdiff));
	if (!cp->pp || !cp->pnote || !cp->noff || !cp->sel || !cp->idx ||
	    !cp->ids || !cp->raised || !cp->interdiff)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 1; i <= total && !ret; i++) {
		const struct rb_message *m = c->view.msgs[i];
		struct rb_render_patch *pp = &cp->pp[cp->np];
		size_t start = cp->n;

		if (!m)
			continue;
		for (k = 0; k < c->findings.n; k++) {
			int pi = c->findings.v[k].patch_index;

			if (!strcmp(c->states[k], "raised") &&
			    (pi == i || (pi == 0 && !cp->np))) {
				cp->sel[cp->n] = c->findings.v[k];
				cp->idx[cp->n++] = k;
			}
		}
		cp->noff[cp->np] = cp->notes.len;
		ret = rb_versions_part_note(&c->versions, i, &cp->notes);
		ret = ret ?: rb_buf_putc(&cp->notes, '\0');
		pp->index = i;
		pp->title = m->subject.title;
		pp->findings = cp->sel + start;
		pp->n_findings = cp->n - start;
		pp->ids = cp->ids + start;
		pp->commit_msg = m->commit_msg;
		pp->patch = m->patch;
		pp->patch_len = m->patch_len;
		/* Issue 37: what v(n)'s replies said of lines kept, and the
		 * part's interdiff, its changed lines only. */
		ret = ret ?: raised_of(&cp->raised[cp->np], c, i);
		pp->raised = cp->raised[cp->np].v;
		pp->n_raised = cp->raised[cp->np].n;
		if (!ret) {
			struct rb_buf id = RB_BUF_INIT(64 * 1024);

			ret = rb_versions_interdiff(&c->versions, i, 0,
						    COVER_INTERDIFF_LINES, &id);
			cp->interdiff[cp->np] =
				id.len ? rb_buf_detach(&id, NULL) : NULL;
			rb_buf_release(&id);
			pp->interdiff = cp->interdiff[cp->np];
		}
		cp->np++;
	}
	if (ret)
		return ret;
	/* The notes buffer may have moved while growing: point at it now. */
	for (k = 0; k < cp->np; k++) {
		cp->pnote[k] = cp->notes.ptr + cp->noff[k];
		if (*cp->pnote[k]) {
			cp->pp[k].summary = &cp->pnote[k];
			cp->pp[k].n_summary = 1;
		}
	}
	return 0;
}

/* The summary reply's text: the series' summary lines, then the parts. */
static int cover_render(struct rb_buf *body, struct series_ctx *c,
			const struct cover_parts *cp, const char *base_hex)
{
	struct rb_render_summary_ctx r = { 0 };
	struct rb_buf rd = RB_BUF_INIT(64 * 1024);
	const char **summary;
	size_t k;
	int ret;

	summary = calloc(c->summary.n + 2, sizeof(*summary));
	if (!summary)
		return rb_err(RB_ENOMEM, "out of memory");
	for (k = 0; k < c->summary.n; k++)
		summary[k] = c->summary.v[k];
	ret = rb_versions_range_diff(&c->versions, &rd);
	if (ret)
		goto out;
	if (rd.len)
		summary[k++] = rd.ptr;
	r.head = render_head(c);
	/* The cover letter's own subject: the summary answers it. */
	r.head.version = c->view.msgs[0]->subject.version;
	r.head.title = c->view.msgs[0]->subject.title;
	r.head.blocking_text = c->view.scope.pol.blocking_text;
	r.head.shadow_maintainers = shadow_maintainers(c);
	r.base_name = c->applied && c->base_tree ? c->base_tree->name : NULL;
	r.base_commit = c->applied ? base_hex : NULL;
	r.summary = summary;
	r.n_summary = k;
	r.model_line = c->model.line.len ? c->model.line.ptr : NULL;
	r.patches = cp->pp;
	r.n_patches = cp->np;
	r.dirs = dirs_of(c);
	ret = rb_render_summary(body, &r);
out:
	free(summary);
	rb_buf_release(&rd);
	return ret;
}

static int render_cover_summary(struct series_ctx *c, const char *base_hex)
{
	struct cover_parts cp = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	struct outgoing *o = NULL;
	size_t k;
	int ret;

	ret = cover_parts_collect(&cp, c);
	if (ret)
		goto out;
	if (!cp.n && !c->view.scope.pol.send_when_empty && !c->versions.prev_id)
		goto out;
	ret = cover_render(&body, c, &cp, base_hex);
	if (ret)
		goto out;
	ret = new_out(&o, c, "summary", 0);
	if (ret)
		goto out;
	o->finding_idx = cp.idx;
	o->ids = cp.ids;
	o->n = cp.n;
	cp.idx = NULL;
	cp.ids = NULL;
	ret = queue_reply(c, o, 0, body.ptr, REPLY_REVIEW);
	o->words = 0;
	for (k = 0; k < o->n; k++) {
		size_t fi = o->finding_idx[k];

		o->words += rb_stage_count_words(c->findings.v[fi].message);
	}
out:
	cover_parts_release(&cp);
	rb_buf_release(&body);
	return ret;
}

/* What the review of part @i says around its findings: the series'
 * policy, the part, the base, the summary lines, the model's line. */
static void review_head(struct rb_render_ctx *r, struct series_ctx *c, int i,
			const char *base_hex, struct rb_buf *line)
{
	const struct rb_message *m = c->view.msgs[i];

	r->mode = c->view.scope.pol.mode;
	r->subsystem = c->view.scope.pol.subsystem;
	r->blocking_text = c->view.scope.pol.blocking_text;
	r->shadow_maintainers = shadow_maintainers(c);
	r->version = m->subject.version;
	r->index = m->subject.index;
	r->total = m->subject.total;
	r->title = m->subject.title;
	r->base_name = c->applied && c->base_tree ? c->base_tree->name : NULL;
	r->base_commit = c->applied ? base_hex : NULL;
	r->summary = c->summary.v;
	r->n_summary = c->summary.n;
	/* This patch's own figures when the model ran on it. */
	rb_buf_reset(line);
	if (c->model.usage && i > 0 &&
	    !rb_model_status_line(line, c->p->model, &c->model.usage[i],
				  c->model.err))
		r->model_line = line->ptr;
	else
		/* No model, no line: the author cannot turn it on. */
		r->model_line = c->model.line.len ? c->model.line.ptr : NULL;
}

/* One reply per patch that has findings (or every patch when the policy
 * says send_when_empty). Series-wide findings go with the cover's reply
 * when there is a cover, else with patch 1's. */
int rb_review_render_reviews(struct series_ctx *c)
{
	bool when_empty = c->view.scope.pol.send_when_empty;
	char base_hex[GIT_OID_HEXSZ + 1] = "";
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	struct rb_buf line = RB_BUF_INIT(4096);
	struct rb_finding *sel = NULL;
	struct raised_set raised = { 0 };
	size_t *idx = NULL;
	int i, ret = 0;

	if (c->applied)
		git_oid_tostr(base_hex, sizeof(base_hex), &c->base_oid);
	rb_review_fix_summary(c);
	if (c->p->cfg->reply_to_cover && c->view.msgs[0])
		return render_cover_summary(c, base_hex);
	sel = calloc(c->findings.n + 1, sizeof(*sel));
	idx = calloc(c->findings.n + 1, sizeof(*idx));
	if (!sel || !idx) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = c->view.msgs[0] ? 0 : 1; i <= c->view.row.total && !ret; i++) {
		const struct rb_message *m = c->view.msgs[i];
		struct rb_render_ctx r = { 0 };
		struct outgoing *o = NULL;
		size_t k, n = 0;

		raised_release(&raised);
		if (!m)
			continue;
		/* Lines a reply on v(n) commented on and this part keeps:
		 * said in its mail, even on a part not reviewed again. */
		ret = i ? raised_of(&raised, c, i) : 0;
		if (ret)
			break;
		if (rb_versions_unchanged(&c->versions, i) && !raised.n)
			continue;
		for (k = 0; k < c->findings.n; k++) {
			int pi = c->findings.v[k].patch_index;

			if (strcmp(c->states[k], "raised"))
				continue;
			if (pi == i ||
			    (pi == 0 && i == 1 && !c->view.msgs[0])) {
				sel[n] = c->findings.v[k];
				idx[n++] = k;
			}
		}
		if (!n && !raised.n && !(when_empty && i > 0))
			continue;
		ret = new_out(&o, c, i ? "review" : "summary", i);
		if (ret)
			break;
		o->finding_idx = calloc(n + 1, sizeof(size_t));
		o->ids = calloc(n + 1, sizeof(int));
		if (!o->finding_idx || !o->ids) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		memcpy(o->finding_idx, idx, n * sizeof(size_t));
		o->n = n;
		review_head(&r, c, i, base_hex, &line);
		r.findings = sel;
		r.n_findings = n;
		r.commit_msg = m->commit_msg;
		r.patch = m->patch;
		r.patch_len = m->patch_len;
		r.ids = o->ids;
		r.raised = raised.v;
		r.n_raised = raised.n;
		r.dirs = dirs_of(c);
		rb_buf_reset(&body);
		ret = rb_render_review(&body, &r);
		if (!ret)
			ret = queue_reply(c, o, i, body.ptr, REPLY_REVIEW);
		/* Words of commentary: what the findings say, not the frame
		 * every mail has. */
		o->words = 0;
		for (k = 0; k < n; k++)
			o->words += rb_stage_count_words(sel[k].message);
	}
out:
	raised_release(&raised);
	free(sel);
	free(idx);
	rb_buf_release(&body);
	rb_buf_release(&line);
	return ret;
}

/*
 * What an attempt is called in the mail and the store: the tree it was
 * made on, or, when no tree holds the base, what kind of base it was.
 */
const char *rb_review_attempt_name(const struct rb_base_attempt *a)
{
	if (a->name)
		return a->name;
	return a->kind == RB_BASE_GUESSED ? "guessed base" : "base-commit";
}

/* A tree whose tip is older than this is not one to rebase on. */
#define REBASE_MAX_AGE ((int64_t)30 * 86400)

/* "3 hours": whole units, as a person writes them in a mail. */
static const struct rb_dur_unit mail_units[] = {
	{ 120, 1, -1, "seconds" },
	{ 120 * 60, 60, -1, "minutes" },
	{ 48 * 3600, 3600, -1, "hours" },
	{ 0, 86400, -1, "days" },
};

/*
 * How old the commit an attempt tried was, and when its tree was last
 * fetched, so that the author can tell a stale tree from a wrong base.
 */
static void attempt_age(char *out, size_t size, const struct series_ctx *c,
			const struct rb_base_attempt *a)
{
	const struct tree *t = NULL;
	git_commit *commit = NULL;
	int64_t now = rb_now(), at;
	char s1[32], s2[32];
	size_t i;

	out[0] = '\0';
	for (i = 0; a->name && a->tried && i < c->n_trees && !t; i++)
		if (!strcmp(a->name, c->trees[i].name))
			t = &c->trees[i];
	if (!t || git_commit_lookup(&commit, t->repo, &a->commit)) {
		git_error_clear();
		return;
	}
	rb_dur_format(s1, sizeof(s1),
		      (double)(now - (int64_t)git_commit_time(commit)),
		      mail_units);
	git_commit_free(commit);
	if (!rb_tree_fetchable(t->cfg))
		snprintf(out, size, "committed %s ago", s1);
	else if (rb_tree_fetched_at(&at, t->repo, t->cfg->branch))
		snprintf(out, size, "committed %s ago, never fetched", s1);
	else {
		rb_dur_format(s2, sizeof(s2), (double)(now - at), mail_units);
		snprintf(out, size, "committed %s ago, fetched %s ago", s1, s2);
	}
}

/*
 * What an attempt that was never made says (base-commit: names a commit
 * no tree has; no base could be guessed), as a sentence of its own
 * rather than "guessed base: no guessed base: ...".
 */
static void attempt_note(char *out, size_t size,
			 const struct rb_base_attempt *a)
{
	static const char guess[] = "no guessed base: ";
	const char *why = a->reason ? a->reason : "";

	if (a->kind == RB_BASE_GUESSED) {
		if (!strncmp(why, guess, sizeof(guess) - 1))
			why += sizeof(guess) - 1;
		snprintf(out, size,
			 "No base could be guessed from the index lines: %s.",
			 why);
	} else {
		snprintf(out, size, "The series names its base, but %s.", why);
	}
}

/*
 * An attempt's reason without what the line says before it: "hunk #1 of
 * FILE does not match ..." after "FILE, hunk 1: " is "does not match".
 */
static const char *plain_reason(const struct rb_base_attempt *a)
{
	const char *r = a->reason;
	size_t n, fl = a->failed_file ? strlen(a->failed_file) : 0;
	char head[64];

	/* "FILE does not exist in the tree" after "FILE: " */
	if (r && fl && !strncmp(r, a->failed_file, fl) && r[fl] == ' ')
		return r + fl + 1;
	if (!r || !a->failed_file || a->failed_hunk <= 0)
		return r;
	snprintf(head, sizeof(head), "hunk #%d of ", (int)a->failed_hunk);
	n = strlen(head);
	if (strncmp(r, head, n) ||
	    strncmp(r + n, a->failed_file, strlen(a->failed_file)))
		return r;
	r += n + strlen(a->failed_file);
	return *r == ' ' ? r + 1 : a->reason;
}

/*
 * The apply-failure notice. By default it goes to the admins: with trees
 * that are out of date, nearly every series applies nowhere, and that is
 * the operator's to fix, not the author's (issue 34). A section that
 * opted in (report_apply_failures: author) tells the poster: which patch
 * and file failed on which tree at which commit, and what to do.
 */
/* How old the commit an attempt was made on is, in seconds (INT64_MAX
 * when it cannot be told). */
static int64_t commit_age(const struct series_ctx *c,
			  const struct rb_base_attempt *a)
{
	git_commit *commit = NULL;
	int64_t age = INT64_MAX;
	size_t i;

	for (i = 0; a->name && i < c->n_trees; i++) {
		if (strcmp(a->name, c->trees[i].name))
			continue;
		if (!git_commit_lookup(&commit, c->trees[i].repo, &a->commit))
			age = rb_now() - (int64_t)git_commit_time(commit);
		git_commit_free(commit);
		git_error_clear();
		break;
	}
	return age;
}

int rb_review_render_apply_failure(struct series_ctx *c)
{
	enum rb_apply_notice who =
		rb_policy_apply_failure_notice(&c->view.scope.pol);
	struct rb_render_apply_attempt *at = NULL;
	struct rb_render_apply_ctx r = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	char(*hex)[GIT_OID_HEXSZ + 1] = NULL;
	char(*age)[96] = NULL;
	char(*note)[512] = NULL;
	struct outgoing *o = NULL;
	size_t i, n = c->base ? c->base->n_attempts : 0;
	int ret;

	if (who == RB_AF_OFF)
		return 0;
	at = calloc(n + 1, sizeof(*at));
	hex = calloc(n + 1, sizeof(*hex));
	age = calloc(n + 1, sizeof(*age));
	note = calloc(n + 1, sizeof(*note));
	if (!at || !hex || !age || !note) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct rb_base_attempt *a = &c->base->attempts[i];
		int pi = (int)a->failed_patch;

		if (!a->tried) {
			/* A guess that found nothing is the bot's business:
			 * the author is told only of the base they named. */
			if (who == RB_AF_AUTHOR && a->kind == RB_BASE_GUESSED)
				continue;
			attempt_note(note[i], sizeof(note[i]), a);
			at[i].note = note[i];
			continue;
		}
		git_oid_tostr(hex[i], sizeof(hex[i]), &a->commit);
		at[i].base_name = rb_review_attempt_name(a);
		at[i].base_commit = hex[i];
		attempt_age(age[i], sizeof(age[i]), c, a);
		at[i].age = age[i][0] ? age[i] : NULL;
		at[i].patch_index = pi;
		at[i].patch_title = pi > 0 && pi <= c->view.row.total &&
						    c->view.msgs[pi] ?
					    c->view.msgs[pi]->subject.title :
					    NULL;
		at[i].file = a->failed_file;
		at[i].hunk = (int)a->failed_hunk;
		at[i].reason = plain_reason(a);
		/* Over a size limit or budget: not reviewed for that. */
		if ((a->tried && a->result &&
		     a->result->fail == RB_APPLY_FAIL_LIMIT) ||
		    (a->reason && !strncmp(a->reason, RB_APPLY_TOO_BIG,
					   strlen(RB_APPLY_TOO_BIG))))
			r.too_big = true;
		/* A rebase on a tree is advice only while the tree is
		 * current: never "rebase on" a tree months old. */
		if (!r.rebase_on && a->kind == RB_BASE_TREE &&
		    commit_age(c, a) < REBASE_MAX_AGE)
			r.rebase_on = at[i].base_name;
	}
	r.head = render_head(c);
	r.attempts = at;
	r.n_attempts = n;
	r.prereq_applied = c->prereq.applied.len ? c->prereq.applied.ptr : NULL;
	r.prereq_missing = c->prereq.missing.len ? c->prereq.missing.ptr : NULL;
	r.to_admins = who == RB_AF_ADMINS;
	r.author = c->first ? rb_message_poster(c->first)->addr : NULL;
	/* What the other mails say first: the parts that did not arrive. */
	rb_review_fix_summary(c);
	r.summary = c->summary.v;
	r.n_summary = c->summary.n;
	r.dirs = dirs_of(c);
	ret = rb_render_apply_failure(&body, &r);
	if (ret)
		goto out;
	ret = new_out(&o, c,
		      r.to_admins ? "apply-failure-admin" : "apply-failure", 0);
	if (ret)
		goto out;
	/* In reply to the cover (or patch 1), never to the list. */
	ret = queue_reply(c, o, c->first_idx, body.ptr,
			  r.to_admins ? REPLY_ADMINS : REPLY_AUTHOR);
out:
	free(at);
	free(hex);
	free(age);
	free(note);
	rb_buf_release(&body);
	return ret;
}

int rb_review_render_incomplete(struct series_ctx *c)
{
	struct rb_render_incomplete_ctx r = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	int *missing;
	struct outgoing *o = NULL;
	int i, n = 0, ret;

	missing = calloc((size_t)c->view.row.total + 1, sizeof(*missing));
	if (!missing)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 1; i <= c->view.row.total; i++)
		if (!c->view.row.msgids[i])
			missing[n++] = i;
	snprintf(c->detail, sizeof(c->detail), "%d of %d parts missing", n,
		 c->view.row.total);
	r.head = render_head(c);
	r.missing = missing;
	r.n_missing = (size_t)n;
	r.wait_minutes =
		c->p->force_complete ? 0 : c->p->cfg->incomplete_wait_minutes;
	/* A prefix was reviewed and said nothing: the notice says so. */
	r.reviewed = c->n_parts < c->view.row.total ? c->n_parts : 0;
	r.dirs = dirs_of(c);
	ret = rb_render_incomplete(&body, &r);
	if (!ret) {
		ret = new_out(&o, c, "incomplete", 0);
		if (!ret)
			ret = queue_reply(c, o, c->first_idx, body.ptr,
					  REPLY_AUTHOR);
	}
	free(missing);
	rb_buf_release(&body);
	return ret;
}

/* The one "could not be reviewed" note of a quarantined series. */
int rb_review_render_not_reviewed(struct series_ctx *c, int tries)
{
	struct rb_render_not_reviewed_ctx r = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	struct outgoing *o = NULL;
	int ret;

	if (!c->view.scope.pol.report_apply_failures)
		return 0;
	r.head = render_head(c);
	r.tries = tries;
	r.dirs = dirs_of(c);
	ret = rb_render_not_reviewed(&body, &r);
	if (!ret)
		ret = new_out(&o, c, "not-reviewed", 0);
	/* To the author only, in reply to the cover (or patch 1). */
	if (!ret)
		ret = queue_reply(c, o, c->first_idx, body.ptr, true);
	rb_buf_release(&body);
	return ret;
}

/*
 * When the series' last part came: its Date, or when we received it if
 * that is later. The embargo runs from there, so that a Date: set in the
 * past cannot skip it.
 */
static int64_t last_seen(const struct series_ctx *c)
{
	int64_t t = c->view.row.last_date;
	int i;

	for (i = 0; c->view.raws && i <= c->view.row.total; i++)
		if (c->view.raws[i].received_at > t)
			t = c->view.raws[i].received_at;
	return t;
}

/* When the bot received the series' newest part (0: not known). */
static int64_t last_received(const struct series_ctx *c)
{
	int64_t t = 0;
	int i;

	for (i = 0; c->view.raws && i <= c->view.row.total; i++)
		if (c->view.raws[i].received_at > t)
			t = c->view.raws[i].received_at;
	return t ? t : c->view.row.last_date;
}

/*
 * Queues @o in the outbox with the findings it shows (their states are
 * then written and dropped from c->states). The same mail from an
 * earlier run is left as it is.
 */
int rb_review_write_outmail(struct series_ctx *c, struct outgoing *o,
			    int64_t now)
{
	struct rb_store *st = c->p->st;
	/* From when the bot received the series' last part: a mail's Date
	 * says when it was written (a replayed 2019 mail, 2019). */
	int64_t latency = now - last_received(c);
	struct rb_outmail m = {
		.series_id = c->view.row.id,
		.kind = o->kind,
		.patch_idx = o->patch_idx,
		.lists = o->mail.lists.ptr,
		.trusted = o->mail.trusted.ptr,
		.words = o->words,
		.findings = (int)o->n,
		.send_after =
			rb_policy_send_after(&c->view.scope.pol, last_seen(c)),
		.policy = rb_mode_name(c->view.scope.pol.mode),
		.subsystem = c->view.scope.pol.subsystem,
		.latency = latency > 0 ? latency : 0,
		.capped = o->capped,
		.copy_of = o->copy_of,
	};
	size_t k;
	int ret;

	if (o->skip)
		return 0;
	/* A copy's cost is its review's. */
	if (c->model.usage && !o->copy_of && o->patch_idx > 0 &&
	    o->patch_idx <= c->view.row.total) {
		const struct rb_model_usage *u = &c->model.usage[o->patch_idx];

		m.model = rb_model_name(c->p->model);
		m.prompt = c->model.prompt[0] ? c->model.prompt : NULL;
		m.tokens_in = u->tokens_in;
		m.tokens_out = u->tokens_out;
		m.cost = u->cost;
	}
	ret = rb_reply_queue(c->p, &o->mail, &m);
	if (ret == -RB_EEXISTS) /* The same mail from an earlier run. */
		return 0;
	for (k = 0; !ret && k < o->n; k++) {
		char fid[16];
		size_t fi = o->finding_idx[k];

		snprintf(fid, sizeof(fid), "F%d", o->ids[k]);
		ret = rb_store_add_finding(st, c->view.row.id,
					   o->mail.message_id, fid,
					   &c->findings.v[fi], c->states[fi]);
		free(c->states[fi]);
		c->states[fi] = NULL;
	}
	return ret;
}
