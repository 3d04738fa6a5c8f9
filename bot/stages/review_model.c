// SPDX-License-Identifier: GPL-2.0-only
/*
 * review_model.c - the model step of a review: the admin's notes, the
 * prompt of each patch, the patches asked in parallel, their findings
 * and cost. See review_ctx.h.
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

struct notes_load {
	struct rb_buf *b;
	bool full;
};

static int note_row(const struct rb_note *n, void *payload)
{
	struct notes_load *l = payload;
	size_t before = l->b->len;
	int ret;

	if (l->full)
		return 0;
	/* Each note on its own line: what an admin approved, as data. */
	ret = rb_buf_printf(l->b, "- (%s) ", n->section);
	for (const char *p = n->text; !ret && *p; p++)
		ret = rb_buf_putc(l->b, *p == '\n' || *p == '\r' ? ' ' : *p);
	ret = ret ?: rb_buf_putc(l->b, '\n');
	if (!ret && l->b->len > MODEL_NOTES_BYTES) {
		/* Capped: a whole note or none. */
		rb_buf_truncate(l->b, before);
		l->full = true;
	}
	return ret;
}

/*
 * The notes an admin approved (store_threads.h) for the sections the
 * series touches, at most MODEL_NOTES_BYTES of them, oldest first.
 */
static int load_notes(struct series_ctx *c)
{
	struct notes_load l = { &c->model.notes, false };
	size_t i;
	int ret = 0;

	rb_buf_reset(&c->model.notes);
	for (i = 0; !ret && i < c->view.scope.n_sections; i++)
		ret = rb_store_each_note(c->p->st, c->view.scope.sections[i],
					 true, note_row, &l);
	if (!ret && l.full)
		rb_log(RB_LOG_WARN, "model.notes_capped", "series",
		       c->view.row.id, NULL);
	return ret;
}

/* The model stage is made once per process, from model.* in the config
 * (a job thread borrows its parent's, made before the threads start). */
int rb_review_ensure_model(struct rb_pipeline *p)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	int ret;

	if (p->model_made)
		return 0;
	rb_model_setup_opts(&o, &p->cfg->model, p->record_dir, p->replay_dir);
	ret = rb_model_new(&p->model, &o);
	if (ret)
		return ret;
	p->model_made = true;
	return 0;
}

/* What every patch's model review reads beside its patch (model.h). */
struct model_series {
	const char **subjects; /* [total] */
	char **patches; /* [total]: commit message and diff, "" if missing */
	const char *const *focuses;
	size_t n_focuses;
	struct rb_buf range_diff; /* since v(n-1) */
	struct rb_buf prev_review; /* v(n-1)'s findings, outcomes only */
	char **interdiff; /* [total]: each part against v(n-1)'s, or NULL */
	git_oid base_tree;
	bool have_base;
	/* [total]: each part's apply, NULL gaps (show_patch numbers them) */
	const struct rb_apply_patch_result **applied;
};

static void model_series_release(struct model_series *s, int total)
{
	int i;

	for (i = 0; s->patches && i < total; i++)
		free(s->patches[i]);
	for (i = 0; s->interdiff && i < total; i++)
		free(s->interdiff[i]);
	free(s->interdiff);
	free(s->applied);
	free(s->patches);
	free(s->subjects);
	rb_buf_release(&s->range_diff);
	rb_buf_release(&s->prev_review);
}

/*
 * The findings raised on earlier versions and what became of them, for
 * the model: where, what, and whether somebody judged it. Never who
 * wrote or judged anything: the model has no use for names, and a
 * review that quotes them would be one more place they leak to.
 */
static int prev_review_text(struct rb_buf *b, const struct rb_versions *v)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->n_prior; i++) {
		const struct rb_prior_finding *p = &v->prior[i];

		ret = rb_buf_printf(b, "- %s of v%d, patch %d, ",
				    p->fid ? p->fid : "a finding", p->version,
				    p->patch_idx);
		if (!ret && p->file)
			ret = rb_buf_printf(b, "%s line %d", p->file, p->line);
		else if (!ret)
			ret = rb_buf_puts(b, "the commit message");
		if (!ret)
			ret = rb_buf_printf(b, ", %s (%s)",
					    p->category ? p->category : "",
					    p->checker ? p->checker : "");
		if (!ret && p->code && *p->code)
			ret = rb_buf_printf(b, ": \"%.200s\"", p->code);
		if (!ret)
			ret = rb_buf_printf(
				b, ": %s\n",
				p->judged ? "judged by a reviewer; not to be "
					    "raised again" :
					    "not judged; still open unless "
					    "this version changed it");
	}
	return ret;
}

static int model_series_init(struct model_series *s, struct series_ctx *c,
			     const struct rb_apply_result *ar)
{
	const struct rb_model_config *mc = &c->p->cfg->model;
	size_t n = (size_t)c->view.row.total;
	git_commit *base = NULL;
	size_t k = 0;
	int i, ret = 0;

	rb_buf_init(&s->range_diff, 64 * 1024);
	rb_buf_init(&s->prev_review, 256 * 1024);
	s->subjects = calloc(n + 1, sizeof(*s->subjects));
	s->patches = calloc(n + 1, sizeof(*s->patches));
	s->applied = calloc(n + 1, sizeof(*s->applied));
	s->interdiff = calloc(n + 1, sizeof(*s->interdiff));
	if (!s->subjects || !s->patches || !s->applied || !s->interdiff)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 1; i <= c->view.row.total && !ret; i++) {
		const struct rb_message *m = c->view.msgs[i];
		struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

		s->subjects[i - 1] = m ? m->subject.title : "";
		if (m && m->patch)
			ret = rb_buf_printf(&b, "%s\n---\n%.*s",
					    m->commit_msg ? m->commit_msg : "",
					    (int)m->patch_len, m->patch);
		s->patches[i - 1] = rb_buf_detach(&b, NULL);
		if (!ret && !s->patches[i - 1])
			ret = rb_err(RB_ENOMEM, "out of memory");
		/* What changed in this part since v(n-1), for its prompt. */
		b = (struct rb_buf)RB_BUF_INIT(MODEL_INTERDIFF_BYTES);
		if (!ret && rb_versions_interdiff(&c->versions, i, 3,
						  MODEL_INTERDIFF_LINES,
						  &b) == -RB_ENOMEM)
			ret = -RB_ENOMEM;
		s->interdiff[i - 1] = b.len ? rb_buf_detach(&b, NULL) : NULL;
		rb_buf_release(&b);
		/* The apply had an entry per part with a patch. */
		if (m && m->patch && ar && c->base_tree && k < ar->n_patches &&
		    ar->patches[k].applied)
			s->applied[i - 1] = &ar->patches[k];
		k += m && m->patch;
	}
	s->focuses = rb_model_setup_focuses(mc, &s->n_focuses);
	/* Too long to say is not worth failing the review for. */
	if (!ret &&
	    rb_versions_range_diff(&c->versions, &s->range_diff) == -RB_ENOMEM)
		ret = -RB_ENOMEM;
	if (!ret &&
	    prev_review_text(&s->prev_review, &c->versions) == -RB_ENOMEM)
		ret = -RB_ENOMEM;
	/* The lines reviewers replied to on v(n-1), still there. */
	if (!ret &&
	    rb_threads_model_text(&s->prev_review, &c->versions) == -RB_ENOMEM)
		ret = -RB_ENOMEM;
	if (!ret && ar && !git_commit_lookup(&base, ar->repo, &ar->base)) {
		git_oid_cpy(&s->base_tree, git_commit_tree_id(base));
		s->have_base = true;
	}
	git_commit_free(base);
	return ret;
}

/* Part @i's context: its patch, the series, the trees. */
static void model_patch_ctx(struct rb_model_patch_ctx *ctx,
			    const struct series_ctx *c,
			    const struct model_series *s,
			    const struct rb_apply_result *ar, int i)
{
	const struct rb_message *m = c->view.msgs[i];
	size_t k = 0;
	int j;

	/* The apply had one entry per part with a patch (apply_series()). */
	for (j = 1; j < i; j++)
		k += c->view.msgs[j] && c->view.msgs[j]->patch;
	ctx->cover_title = c->view.msgs[0] ? c->view.msgs[0]->subject.title :
					     NULL;
	ctx->cover_body = c->view.msgs[0] ? c->view.msgs[0]->body : NULL;
	ctx->subjects = s->subjects;
	ctx->n_subjects = (size_t)c->view.row.total;
	ctx->patches = (const char *const *)s->patches;
	ctx->index = i;
	ctx->commit_msg = m->commit_msg;
	ctx->changelog = m->notes;
	ctx->patch = m->patch;
	ctx->patch_len = m->patch_len;
	ctx->range_diff = s->range_diff.len ? s->range_diff.ptr : NULL;
	ctx->prev_review = s->prev_review.len ? s->prev_review.ptr : NULL;
	ctx->interdiff = s->interdiff[i - 1];
	ctx->notes = c->model.notes.len ? c->model.notes.ptr : NULL;
	ctx->focuses = s->focuses;
	ctx->n_focuses = s->n_focuses;
	/* The applied trees live in ar's own store (this thread). */
	if (ar && c->base_tree && k < ar->n_patches && ar->patches[k].applied) {
		ctx->repo = ar->repo;
		ctx->tree = &ar->patches[k].tree;
		/* Where its hunks went in: the diff is numbered as the tree. */
		ctx->applied = &ar->patches[k];
		ctx->applied_all = s->applied;
		ctx->tip_tree = &ar->tree;
		ctx->base_commit = &ar->base;
		ctx->base_tree = s->have_base ? &s->base_tree : NULL;
	}
	ctx->subsystems = c->view.scope.sections;
	ctx->n_subsystems = c->view.scope.n_sections;
}

/* For rb_model_patch_ctx.repo_open: the apply's objects, this thread. */
static int model_repo_open(git_repository **out, void *arg)
{
	return rb_apply_repo_open(out, arg);
}

/*
 * The patches of one series under review, taken in turn by the workers
 * of rb_review_run_model(); each keeps its findings and error apart, merged in
 * patch order once all are done.
 */
struct model_work {
	struct series_ctx *c;
	const struct model_series *s;
	const struct rb_apply_result *ar;
	struct rb_model_tools_pool *pool; /* the series' tool budget */
	struct rb_findings *found; /* [total + 1] */
	int *err; /* [total + 1] */
	pthread_mutex_t lock;
	int next; /* the next patch to take */
	bool stop; /* a quota error: take no more */
	bool threads; /* workers are threads: each opens its repository */
};

/* Patch @i's model review, on the calling thread. */
static void model_one(struct model_work *w, int i)
{
	struct series_ctx *c = w->c;
	const struct rb_message *m = c->view.msgs[i];
	struct rb_model_patch_ctx ctx = { 0 };
	git_repository *repo = NULL;
	int err = 0;

	/* Unchanged since v(n): its review is v(n)'s. */
	if (!m || !m->patch || rb_versions_unchanged(&c->versions, i))
		return;
	model_patch_ctx(&ctx, c, w->s, w->ar, i);
	/* The applied trees live in the apply's store: a repository for
	 * this thread over it, and the passes' threads open theirs. */
	if (ctx.repo && w->threads) {
		err = rb_apply_repo_open(&repo, w->ar);
		ctx.repo = repo;
	}
	if (ctx.repo) {
		ctx.repo_open = model_repo_open;
		ctx.repo_arg = (void *)w->ar;
	}
	ctx.tool_pool = w->pool;
	if (!err)
		err = rb_model_review_patch(&w->found[i], &c->model.usage[i],
					    c->p->model, &ctx);
	git_repository_free(repo);
	if (!err)
		return;
	rb_log(err == -RB_EQUOTA ? RB_LOG_ERROR : RB_LOG_WARN, "model.failed",
	       "series", c->view.row.id, "reason", rb_errmsg(), NULL);
	w->err[i] = err;
	if (err == -RB_EQUOTA) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_mutex_unlock(&w->lock);
	}
}

static void *model_worker(void *arg)
{
	struct model_work *w = arg;
	int i;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		i = w->stop ? w->c->view.row.total + 1 : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i > w->c->view.row.total)
			break;
		model_one(w, i);
	}
	return NULL;
}

/* Appends @from's findings to @to, emptying @from; strings move. */
static int findings_move(struct rb_findings *to, struct rb_findings *from,
			 const char *prompt)
{
	struct rb_finding *v;
	size_t k;

	if (!from->n)
		return 0;
	v = realloc(to->v, (to->n + from->n) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	to->v = v;
	for (k = 0; k < from->n; k++) {
		memcpy(from->v[k].prompt, prompt, sizeof(from->v[k].prompt));
		to->v[to->n++] = from->v[k];
	}
	free(from->v);
	from->v = NULL;
	from->n = 0;
	return 0;
}

/*
 * The model review of every patch, each on the tree after it. The
 * patches run at once, up to model.concurrency of them (each runs its
 * passes at once too; the provider holds the requests to the limit), on
 * worker threads with repositories of their own; their findings are
 * merged in patch order, so the mails do not depend on which answer
 * came first. A failure (quota, timeouts) does not fail the review: the
 * checkers' findings stand alone and the mail says why the model did
 * not speak.
 */
int rb_review_run_model(struct series_ctx *c)
{
	struct model_work w = { 0 };
	struct rb_model_usage total = { 0 };
	struct rb_model_tools_usage tu;
	struct model_series s = { 0 };
	pthread_t th[64];
	const int max_threads = (int)(sizeof(th) / sizeof(th[0]));
	int i, n = 0, want, ret;

	ret = rb_review_ensure_model(c->p);
	if (ret)
		return ret;
	if (!c->p->model)
		return 0;
	ret = rb_model_prompt_set_version(c->model.prompt, c->p->model);
	/* The admin's notes for the sections: in the prompt and in its
	 * version, so that stats split the reviews they reached. */
	if (!ret)
		ret = load_notes(c);
	if (!ret)
		ret = rb_model_prompt_version_notes(
			c->model.prompt, c->model.prompt, c->model.notes.ptr);
	if (ret)
		return ret;
	if (c->applied && c->base && c->base->ok)
		w.ar = c->base->attempts[c->base->chosen].result;
	c->model.usage =
		calloc((size_t)c->view.row.total + 1, sizeof(*c->model.usage));
	w.found = calloc((size_t)c->view.row.total + 1, sizeof(*w.found));
	w.err = calloc((size_t)c->view.row.total + 1, sizeof(*w.err));
	if (!c->model.usage || !w.found || !w.err) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	ret = model_series_init(&s, c, w.ar);
	if (!ret)
		ret = rb_model_series_pool_new(&w.pool, c->p->model);
	if (ret)
		goto out;
	w.c = c;
	w.s = &s;
	w.next = 1;
	pthread_mutex_init(&w.lock, NULL);
	want = rb_model_get_opts(c->p->model)->concurrency;
	if (want > c->view.row.total)
		want = c->view.row.total;
	if (want > max_threads)
		want = max_threads;
	w.threads = want > 1;
	for (n = 0; w.threads && n < want; n++)
		if (pthread_create(&th[n], NULL, model_worker, &w))
			break;
	/* One at a time on this thread (and its repository) otherwise. */
	if (!n) {
		w.threads = false;
		model_worker(&w);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&w.lock);
	rb_model_tools_pool_get_usage(w.pool, &tu);
	if (tu.calls || tu.refused) {
		char calls[16], bytes[24], refused[16];

		snprintf(calls, sizeof(calls), "%d", tu.calls);
		snprintf(bytes, sizeof(bytes), "%zu", tu.bytes);
		snprintf(refused, sizeof(refused), "%d", tu.refused);
		rb_log(RB_LOG_INFO, "model.series_tools", "series",
		       c->view.row.id, "calls", calls, "bytes", bytes,
		       "refused", refused, NULL);
	}
	for (i = 1; !ret && i <= c->view.row.total; i++) {
		ret = findings_move(&c->findings, &w.found[i], c->model.prompt);
		if (w.err[i] && !c->model.err)
			c->model.err = w.err[i];
		rb_model_usage_add(&total, &c->model.usage[i]);
	}
out:
	for (i = 0; w.found && i <= c->view.row.total; i++)
		rb_findings_release(&w.found[i]);
	free(w.found);
	free(w.err);
	rb_model_tools_pool_free(w.pool);
	model_series_release(&s, c->view.row.total);
	if (ret)
		return ret;
	return rb_model_status_line(&c->model.line, c->p->model, &total,
				    c->model.err);
}
