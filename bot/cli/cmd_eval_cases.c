// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_eval_cases.c - reviewbot eval --inject: each pair of the set whose
 * fix is in a configured tree becomes a case, the fix reversed on the
 * tree (review/eval/eval_inject.h), and each pair whose buggy patch applies
 * becomes one as well; every case has its control, the fix applied on the
 * buggy code. Then, as asked:
 *
 *  - the model (the review stage's options, bot/stages/model_setup.h)
 *    reviews each case and each control through rb_model_review_patch(),
 *    on the trees that rb_apply_series() makes, as the review stage does;
 *    a finding on a case is scored by the strict scorer (evalset.h), and
 *    every finding on a control is a false positive on real code;
 *  - --recall: does the prompt hold the fix's lines and functions, and can
 *    the tools reach them (review/eval/eval_recall.h)? No model is called;
 *  - --checkers: the deterministic checkers (commit-msg, checkpatch from
 *    the tree; build with --build) over the same cases and controls,
 *    through rb_checks_run() and the filters the review stage applies,
 *    scored the same way.
 *
 * The report is markdown on stdout and, with --json, JSON; neither holds
 * a time, so that a replay (--replay DIR) gives the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>
#include <jansson.h>

#include "bot/cli/cli.h"
#include "bot/cli/cmd_eval.h"
#include "bot/config.h"
#include "mail/message.h"
#include "mail/subject.h"
#include "review/apply/apply.h"
#include "review/checks/checkpatch_filter.h"
#include "review/checks/checks.h"
#include "review/eval/eval_inject.h"
#include "review/eval/eval_recall.h"
#include "review/eval/evalset.h"
#include "review/model/model.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define FUNC_MAX 128
#define WHY_MAX 320

/* What one side (the case, or its control) got from one reviewer. */
struct side {
	struct rb_findings f;
	struct rb_model_usage u;
	int err;
	int hits; /* strict */
	int located; /* within RB_EVAL_NEAR of a fix line, any category */
	char first[160]; /* where the first strict hit landed */
	json_t *jf;
};

/* A case and what was measured on it. */
struct crow {
	struct rb_eval_case c;
	const struct eval_tree *t;
	const struct rb_eval_label *lab;
	bool mm;
	char *title, *control_title;
	struct rb_eval_recall rc;
	bool have_rc;
	struct side model[2], check[2]; /* [0] the case, [1] the control */
};

/* A pair's outcome on the trees: why it gave no case of a kind. */
struct pstat {
	char why[2][WHY_MAX * 2];
};

/* The totals of one reviewer (the model, or the checkers) on a subset. */
struct sums {
	int cases, hit_cases, located_cases;
	int findings, hits;
	int controls, fp_controls, fp; /* findings on controls */
	int failed;
	struct rb_model_usage u;
};

struct ctx {
	const struct eval_env *e;
	struct crow *rows;
	size_t n_rows;
	struct pstat *ps;
	size_t n_pairs;
	struct rb_check_opts copts;
	bool checkpatch; /* some tree shipped checkpatch.pl: it ran */
};

/* ---- making the cases ---- */

static char *title_of(const char *subject)
{
	struct rb_subject s;
	char *t;

	if (!subject)
		return strdup("");
	if (rb_subject_parse(&s, subject))
		return strdup(subject);
	t = strdup(s.title ? s.title : subject);
	rb_subject_release(&s);
	return t;
}

static int add_row(struct ctx *x, struct rb_eval_case *c,
		   const struct eval_tree *t)
{
	const struct rb_eval_pair *p = c->pair;
	struct crow *v, *r;

	v = realloc(x->rows, (x->n_rows + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	x->rows = v;
	r = &v[x->n_rows++];
	memset(r, 0, sizeof(*r));
	r->c = *c;
	memset(c, 0, sizeof(*c));
	r->t = t;
	r->lab = rb_eval_label_of(x->e->labels, p);
	r->mm = rb_eval_pair_is_mm(p, r->lab);
	r->title = p->subjects && p->index >= 1 &&
				   (size_t)p->index <= p->n_subjects &&
				   p->subjects[p->index - 1][0] ?
			   strdup(p->subjects[p->index - 1]) :
			   title_of(p->buggy_subject);
	r->control_title = title_of(p->fix_subject);
	if (!r->title || !r->control_title)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

/* The cases of pair @p: one of each kind, on the first tree that has it. */
static int make_cases(struct ctx *x, const struct rb_eval_pair *p,
		      struct pstat *ps)
{
	static const enum rb_eval_case_kind kinds[] = { RB_EVAL_INJECTED,
							RB_EVAL_FORWARD };
	const struct eval_env *e = x->e;
	size_t k, i;
	int ret = 0;

	for (k = 0; k < 2 && !ret; k++) {
		size_t o = 0;

		for (i = 0; i < e->n_trees; i++) {
			struct rb_eval_tree t;
			struct rb_eval_case c;
			char why[WHY_MAX];

			if (!e->trees[i].ok)
				continue;
			t.name = e->trees[i].name;
			t.repo = e->trees[i].repo;
			git_oid_cpy(&t.commit, &e->trees[i].commit);
			ret = rb_eval_case_make(&c, p, kinds[k], &t, why,
						sizeof(why));
			if (!ret) {
				ret = add_row(x, &c, &e->trees[i]);
				rb_eval_case_release(&c);
				ps->why[k][0] = '\0';
				break;
			}
			if (ret != -RB_ENOTFOUND)
				break;
			ret = 0;
			o += (size_t)snprintf(ps->why[k] + o,
					      o < sizeof(ps->why[k]) ?
						      sizeof(ps->why[k]) - o :
						      0,
					      "%s%s", o ? "; " : "", why);
			if (o >= sizeof(ps->why[k]))
				o = sizeof(ps->why[k]) - 1;
		}
	}
	return ret;
}

/* ---- the trees a review reads ---- */

/* The case alone (@control false), or the case then its control, applied
 * again as the pipeline applies: exactly, with commits. */
static int apply_case(struct rb_apply_result **out, const struct crow *r,
		      bool control)
{
	struct rb_apply_opts o = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch ap[2] = { 0 };
	int ret;

	ap[0].patch = r->c.patch;
	ap[0].len = strlen(r->c.patch);
	ap[0].message = r->c.commit_msg;
	ap[1].patch = r->c.control;
	ap[1].len = strlen(r->c.control);
	ap[1].message = r->c.control_msg;
	ret = rb_apply_series(out, r->t->repo, &r->t->commit, ap,
			      control ? 2 : 1, &o);
	if (!ret && !(*out)->ok)
		ret = rb_err(RB_EIO, "pair %d: the %s does not apply again: %s",
			     r->c.pair->id, control ? "control" : "case",
			     (*out)->reason ? (*out)->reason : "?");
	return ret;
}

/* The review's context of one side, as the review stage gives it for a
 * single patch (bot/stages/review_stage.c model_patch_ctx()). */
static void side_ctx(struct rb_model_patch_ctx *ctx, const struct ctx *x,
		     const struct crow *r, const struct rb_apply_result *ar,
		     int side, const char *const *subject,
		     const char *const *part)
{
	const struct rb_eval_pair *p = r->c.pair;

	memset(ctx, 0, sizeof(*ctx));
	ctx->subjects = subject;
	ctx->n_subjects = 1;
	ctx->index = 1;
	ctx->patches = part;
	ctx->commit_msg = side ? r->c.control_msg : r->c.commit_msg;
	ctx->patch = side ? r->c.control : r->c.patch;
	ctx->patch_len = strlen(ctx->patch);
	ctx->subsystems = (const char *const *)p->subsystems;
	ctx->n_subsystems = p->n_subsystems;
	ctx->focuses = x->e->focuses;
	ctx->n_focuses = x->e->n_focuses;
	ctx->repo = ar->repo;
	ctx->tree = &ar->patches[side].tree;
	ctx->tip_tree = &ar->tree;
	/* The control's base is the buggy code: the case applied. */
	ctx->base_tree = side ? &ar->patches[0].tree : &r->t->tree;
	ctx->base_commit = side ? &ar->patches[0].commit : &ar->base;
	/* Where its hunks went in (made by libgit2 from the trees: where
	 * the headers say, but said as the review stage says it). */
	ctx->applied = &ar->patches[side];
}

/* The function around @line of @path in tree @tree of @repo. */
static const char *func_at(git_repository *repo, const git_oid *tree,
			   const char *path, int line, char *buf, size_t size)
{
	git_tree *t = NULL;
	git_tree_entry *te = NULL;
	git_blob *b = NULL;
	const char *ret = NULL;
	int s, e;

	if (!path)
		return NULL;
	if (!strncmp(path, "a/", 2) || !strncmp(path, "b/", 2))
		path += 2;
	if (!git_tree_lookup(&t, repo, tree) &&
	    !git_tree_entry_bypath(&te, t, path) &&
	    !git_blob_lookup(&b, repo, git_tree_entry_id(te)) &&
	    rb_eval_func_span(git_blob_rawcontent(b),
			      (size_t)git_blob_rawsize(b), line, buf, size, &s,
			      &e))
		ret = buf;
	git_error_clear();
	git_blob_free(b);
	git_tree_entry_free(te);
	git_tree_free(t);
	return ret;
}

/* Scores one side's findings: on the case by the strict scorer (and
 * where they land), on the control each one a false positive. */
static int score_side(struct side *s, const struct crow *r,
		      const struct rb_apply_result *ar, int side)
{
	char how[64], fnb[FUNC_MAX];
	size_t i, k, j;

	s->jf = json_array();
	if (!s->jf)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < s->f.n; i++) {
		const struct rb_finding *f = &s->f.v[i];
		const char *fn = func_at(ar->repo, &ar->patches[side].tree,
					 f->file, f->line, fnb, sizeof(fnb));
		bool hit = false, near = false;

		if (!side) {
			hit = rb_eval_hit_strict(r->c.changed, r->c.n_changed,
						 r->lab, f, fn, how,
						 sizeof(how));
			for (k = 0; f->file && k < r->c.n_changed; k++) {
				const struct rb_eval_changed *c =
					&r->c.changed[k];
				const char *ff = f->file;

				if (!strncmp(ff, "b/", 2))
					ff += 2;
				if (strcmp(c->file, ff))
					continue;
				for (j = 0; j < c->n_lines; j++)
					near |= abs(c->lines[j] - f->line) <=
						RB_EVAL_NEAR;
			}
			if (hit && !s->hits)
				snprintf(s->first, sizeof(s->first),
					 "%.100s:%.40s", f->file, how);
			s->hits += hit;
			s->located += near;
		}
		json_array_append_new(
			s->jf,
			json_pack("{s:s, s:s, s:s?, s:i, s:s?, s:s, s:s?, "
				  "s:s?, s:b, s:b}",
				  "checker", f->checker, "category",
				  f->category, "file", f->file, "line", f->line,
				  "function", fn, "severity",
				  rb_fsev_name(f->severity), "code", f->code,
				  "message", f->message, "hit", hit, "near",
				  near));
	}
	return 0;
}

/* ---- the model ---- */

static int review_side(struct ctx *x, struct crow *r, int side)
{
	const char *subject[1], *part[1];
	struct rb_model_patch_ctx ctx;
	struct rb_apply_result *ar = NULL;
	struct rb_buf text = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct side *s = &r->model[side];
	int ret;

	ret = apply_case(&ar, r, side == 1);
	if (!ret)
		ret = rb_buf_printf(&text, "%s\n---\n%s",
				    side ? r->c.control_msg : r->c.commit_msg,
				    side ? r->c.control : r->c.patch);
	if (ret)
		goto out;
	subject[0] = side ? r->control_title : r->title;
	part[0] = text.ptr;
	side_ctx(&ctx, x, r, ar, side, subject, part);
	s->err = rb_model_review_patch(&s->f, &s->u, x->e->m, &ctx);
	if (s->err)
		fprintf(stderr, "reviewbot: eval: pair %d, %s: %s\n",
			r->c.pair->id, side ? "control" : "case", rb_errmsg());
	if (s->err == -RB_ENOMEM)
		ret = s->err;
	if (!ret)
		ret = score_side(s, r, ar, side);
out:
	rb_buf_release(&text);
	rb_apply_result_free(ar);
	return ret;
}

/* ---- context recall ---- */

static int recall_case(struct ctx *x, struct crow *r)
{
	const char *subject[1], *part[1];
	struct rb_model_patch_ctx ctx;
	struct rb_apply_result *ar = NULL;
	struct rb_buf text = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int ret;

	ret = apply_case(&ar, r, false);
	if (!ret)
		ret = rb_buf_printf(&text, "%s\n---\n%s", r->c.commit_msg,
				    r->c.patch);
	if (!ret) {
		subject[0] = r->title;
		part[0] = text.ptr;
		side_ctx(&ctx, x, r, ar, 0, subject, part);
		ret = rb_eval_context_recall(&r->rc, x->e->mo, &ctx,
					     r->c.changed, r->c.n_changed);
		r->have_rc = !ret;
	}
	rb_buf_release(&text);
	rb_apply_result_free(ar);
	return ret;
}

/* ---- the checkers ---- */

/* The side as a patch mail, as it would come from the list. */
static int side_mail(struct rb_buf *out, const struct crow *r, int side)
{
	const struct rb_eval_pair *p = r->c.pair;
	const char *from = side ? p->fix_from : p->buggy_from;

	return rb_buf_printf(out,
			     "From: %s\nSubject: [PATCH] %s\n"
			     "Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
			     "Message-ID: <eval-%d-%s-%s@reviewbot.invalid>\n"
			     "MIME-Version: 1.0\n"
			     "Content-Type: text/plain; charset=UTF-8\n\n"
			     "%s\n---\n%s",
			     from ? from : "unknown <unknown@invalid>",
			     side ? r->control_title : r->title, p->id,
			     rb_eval_case_kind_name(r->c.kind),
			     side ? "control" : "case",
			     side ? r->c.control_msg : r->c.commit_msg,
			     side ? r->c.control : r->c.patch);
}

static bool has_checkpatch(const struct eval_tree *t)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	bool ok = !git_tree_lookup(&tree, t->repo, &t->tree) &&
		  !git_tree_entry_bypath(&te, tree, "scripts/checkpatch.pl");

	git_error_clear();
	git_tree_entry_free(te);
	git_tree_free(tree);
	return ok;
}

static int check_side(struct ctx *x, struct crow *r, int side)
{
	struct rb_buf mail = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_findings_post post = RB_FINDINGS_POST_INIT;
	struct rb_apply_result *ar = NULL;
	struct rb_check_ctx cc = { 0 };
	struct rb_check_patch cp = { 0 };
	struct rb_message *m = NULL;
	struct side *s = &r->check[side];
	char names[64];
	size_t dropped = 0;
	int ret;

	ret = apply_case(&ar, r, side == 1);
	if (!ret)
		ret = side_mail(&mail, r, side);
	if (!ret && rb_message_parse(&m, mail.ptr, mail.len, NULL))
		ret = rb_err(RB_EPARSE, "pair %d: the %s's mail: %s",
			     r->c.pair->id, side ? "control" : "case",
			     rb_errmsg());
	if (ret)
		goto out;
	cp.msg = m;
	cp.raw = mail.ptr;
	cp.raw_len = mail.len;
	cp.origin = side ? "control" : "case";
	cc.patches = &cp;
	cc.n_patches = 1;
	cc.repo_path = r->t->path;
	cc.apply = ar;
	git_oid_cpy(&cc.base, side ? &ar->patches[0].commit : &ar->base);
	cc.has_base = true;
	git_oid_cpy(&cc.applied, &ar->commit);
	cc.has_applied = true;
	/* The tools come from the tree's own tip, never from a patch. */
	git_oid_cpy(&cc.tools, &r->t->commit);
	cc.has_tools = true;
	cc.opts = &x->copts;
	/* checkpatch where the tree ships it, as the review stage does. */
	if (has_checkpatch(r->t))
		x->checkpatch = true;
	snprintf(names, sizeof(names), "commit-msg%s%s",
		 has_checkpatch(r->t) ? ",checkpatch" : "",
		 x->e->build ? ",build" : "");
	s->err = rb_checks_run(&s->f, &cc, names);
	if (!s->err)
		s->err = rb_checkpatch_filter(&s->f, ar->repo, &cc.base,
					      &dropped);
	if (!s->err)
		s->err = rb_findings_postprocess(&s->f, &post);
	if (s->err == -RB_ENOMEM)
		ret = s->err;
	else if (!s->err)
		ret = score_side(s, r, ar, side);
out:
	rb_message_free(m);
	rb_buf_release(&mail);
	rb_apply_result_free(ar);
	return ret;
}

static void checker_opts(struct rb_check_opts *o, const struct rb_config *cfg)
{
	/* What review_stage.c checker_opts() takes from the config. */
	const struct rb_check_opts *c = &cfg->check;

	o->checkpatch_strict = c->checkpatch_strict;
	o->parallel = c->parallel;
	o->timeout_seconds = c->timeout_seconds;
	o->build_config = c->build_config;
	o->build_options = c->build_options;
	o->n_build_options = c->n_build_options;
	o->build_jobs = c->build_jobs;
	o->build_mem_mb = c->build_mem_mb;
	o->build_cache_dir = c->build_cache_dir;
}

/* ---- the report ---- */

static void sum_side(struct sums *t, const struct side *s, int side)
{
	if (!side) {
		t->cases++;
		t->hit_cases += s->hits > 0;
		t->located_cases += s->located > 0;
		t->findings += (int)s->f.n;
		t->hits += s->hits;
	} else {
		t->controls++;
		t->fp_controls += s->f.n > 0;
		t->fp += (int)s->f.n;
	}
	t->failed += s->err != 0;
	rb_model_usage_add(&t->u, &s->u);
}

/* Totals over the rows of @which: 0 all, 1 mm, 2 the others. */
static void sums_of(struct sums *t, const struct ctx *x, bool checkers,
		    int which)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < x->n_rows; i++) {
		const struct crow *r = &x->rows[i];
		const struct side *s = checkers ? r->check : r->model;

		if ((which == 1 && !r->mm) || (which == 2 && r->mm))
			continue;
		sum_side(t, &s[0], 0);
		sum_side(t, &s[1], 1);
	}
}

static const char *const subset_names[] = { "all", "mm", "not mm" };

static json_t *sums_json(const struct sums *t)
{
	return json_pack(
		"{s:i, s:i, s:f, s:i, s:i, s:i, s:f, s:i, s:i, s:i, "
		"s:f, s:i, s:i, s:I, s:I, s:f}",
		"cases", t->cases, "cases_with_a_hit", t->hit_cases, "recall",
		eval_ratio(t->hit_cases, t->cases), "cases_with_a_finding_near",
		t->located_cases, "findings", t->findings, "hits", t->hits,
		"precision", eval_ratio(t->hits, t->findings), "controls",
		t->controls, "controls_with_a_finding", t->fp_controls,
		"false_positives", t->fp, "false_positives_per_control",
		eval_ratio(t->fp, t->controls), "failed", t->failed, "words",
		t->u.words, "tokens_in", (json_int_t)t->u.tokens_in,
		"tokens_out", (json_int_t)t->u.tokens_out, "cost", t->u.cost);
}

static void print_sums(const struct ctx *x, bool checkers, json_t *out)
{
	const struct eval_env *e = x->e;
	char names[64];
	struct sums t;
	int w;

	snprintf(names, sizeof(names), "commit-msg%s%s",
		 x->checkpatch ? ", checkpatch" : "",
		 e->build ? ", build" : "");
	printf("\n| %s | prompt set | subset | cases | cases with a hit | "
	       "recall | findings | hits | precision | controls | controls "
	       "with a finding | findings on controls (false positives) | "
	       "per control | words | tokens in | tokens out | cost | "
	       "failed |\n"
	       "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: "
	       "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
	       "---: |\n",
	       checkers ? "checkers" : "model");
	for (w = 0; w < 3; w++) {
		sums_of(&t, x, checkers, w);
		printf("| %s | %s | %s | %d | %d | %.2f | %d | %d | %.2f | %d "
		       "| %d | %d | %.2f | %d | %ld | %ld | %.4f | %d |\n",
		       checkers ? names : e->model_name, e->prompt,
		       subset_names[w], t.cases, t.hit_cases,
		       eval_ratio(t.hit_cases, t.cases), t.findings, t.hits,
		       eval_ratio(t.hits, t.findings), t.controls,
		       t.fp_controls, t.fp, eval_ratio(t.fp, t.controls),
		       t.u.words, t.u.tokens_in, t.u.tokens_out, t.u.cost,
		       t.failed);
		json_object_set_new(out, subset_names[w], sums_json(&t));
	}
}

/* Findings on controls, by checker and category. */
static void print_fp(const struct ctx *x, bool checkers, json_t *out)
{
	struct cat {
		const char *checker, *category;
		int n;
	} *v = NULL;
	size_t nv = 0, i, k, j;

	for (i = 0; i < x->n_rows; i++) {
		const struct side *s = checkers ? &x->rows[i].check[1] :
						  &x->rows[i].model[1];

		for (k = 0; k < s->f.n; k++) {
			const struct rb_finding *f = &s->f.v[k];
			struct cat *nvv;

			for (j = 0; j < nv; j++)
				if (!strcmp(v[j].checker, f->checker) &&
				    !strcmp(v[j].category, f->category))
					break;
			if (j == nv) {
				nvv = realloc(v, (nv + 1) * sizeof(*v));
				if (!nvv)
					goto out;
				v = nvv;
				v[nv].checker = f->checker;
				v[nv].category = f->category;
				v[nv++].n = 0;
			}
			v[j].n++;
		}
	}
	printf("\nFalse positives on controls by checker and category (%s):"
	       " %s\n",
	       checkers ? "checkers" : "model", nv ? "" : "none.");
	for (j = 0; j < nv; j++) {
		printf("%s- %s %s: %d\n", j ? "" : "\n", v[j].checker,
		       v[j].category, v[j].n);
		json_object_set_new(out, v[j].category, json_integer(v[j].n));
	}
out:
	free(v);
}

static void print_cases(const struct ctx *x)
{
	const struct eval_env *e = x->e;
	size_t i, k, t, n = 0, nt[2][16] = { { 0 } };

	printf("| pair | buggy patch | fix | mm | case | tree | fuzz | fix "
	       "lines | functions |\n"
	       "| ---: | --- | --- | --- | --- | --- | ---: | --- | --- |\n");
	for (i = 0; i < x->n_rows; i++) {
		const struct crow *r = &x->rows[i];
		const struct rb_eval_case *c = &r->c;

		printf("| %d | ", c->pair->id);
		eval_md_cell(r->title, 60);
		printf(" | ");
		eval_md_cell(r->control_title, 60);
		printf(" | %s | %s | %s | %s | ", r->mm ? "mm" : "",
		       rb_eval_case_kind_name(c->kind), c->tree,
		       c->fuzz < 0  ? "-" :
		       c->fuzz == 1 ? "1" :
				      "2");
		for (k = 0; k < c->n_changed; k++) {
			size_t j;

			printf("%s%s:", k ? "; " : "", c->changed[k].file);
			for (j = 0; j < c->changed[k].n_lines && j < 12; j++)
				printf("%s%d", j ? "," : "",
				       c->changed[k].lines[j]);
			if (c->changed[k].n_lines > 12)
				printf(",...");
		}
		printf(" | ");
		for (k = n = 0; k < c->n_changed; k++) {
			size_t j;

			for (j = 0; j < c->changed[k].n_functions; j++)
				printf("%s%s()", n++ ? ", " : "",
				       c->changed[k].functions[j]);
		}
		printf("%s |\n", n ? "" : "-");
		for (t = 0; t < e->n_trees && t < 16; t++)
			if (r->t == &e->trees[t])
				nt[c->kind][t]++;
	}
	printf("\nCases with their controls: %zu.", x->n_rows);
	for (t = 0; t < e->n_trees && t < 16; t++)
		if (e->trees[t].ok)
			printf(" On %s: %zu injected, %zu forward.",
			       e->trees[t].name, nt[RB_EVAL_INJECTED][t],
			       nt[RB_EVAL_FORWARD][t]);
	printf("\n");
}

static void print_left_out(const struct ctx *x)
{
	size_t i;
	bool any = false;

	for (i = 0; i < x->n_pairs; i++) {
		const struct pstat *p = &x->ps[i];
		int id = x->e->set->pairs[i].id;

		if (!p->why[0][0] && !p->why[1][0])
			continue;
		if (!any)
			printf("\nPairs without a case of a kind, and why "
			       "(tree by tree):\n\n");
		any = true;
		if (p->why[0][0]) {
			printf("- %d, not injected: ", id);
			eval_md_cell(p->why[0], 400);
			printf("\n");
		}
		if (p->why[1][0]) {
			printf("- %d, not forward: ", id);
			eval_md_cell(p->why[1], 400);
			printf("\n");
		}
	}
}

static void print_recall(const struct ctx *x, json_t *rows)
{
	int l = 0, lp = 0, fw = 0, fn = 0, fl = 0, flp = 0, tl = 0, tlo = 0;
	size_t i;

	printf("\nContext recall, no model (prompt set %s): does the "
	       "finder's prompt hold the fix's lines and the functions around "
	       "them, and do the tools reach them (find_definition, read_file "
	       "for the rest, find_callers; default budget)?\n\n"
	       "| pair | case | tree | fix lines in the prompt | functions "
	       "whole in the prompt | their lines in the prompt | prompt "
	       "clipped | tools: fix lines reached | callers | calls | bytes "
	       "| refused |\n"
	       "| ---: | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | "
	       "---: | ---: | ---: |\n",
	       x->e->prompt);
	for (i = 0; i < x->n_rows; i++) {
		const struct crow *r = &x->rows[i];
		const struct rb_eval_recall *c = &r->rc;

		if (!r->have_rc)
			continue;
		printf("| %d | %s | %s | %d/%d | %d/%d | %d/%d | %s | ",
		       r->c.pair->id, rb_eval_case_kind_name(r->c.kind),
		       r->c.tree, c->lines_in_prompt, c->lines,
		       c->functions_whole, c->functions,
		       c->func_lines_in_prompt, c->func_lines,
		       c->clipped ? "yes" : "no");
		if (c->functions)
			printf("%d/%d | %d | %d | %zu | %d |\n", c->tool_lines,
			       c->tool_lines_of, c->callers, c->calls, c->bytes,
			       c->refused);
		else
			printf("no function | - | - | - | - |\n");
		l += c->lines;
		lp += c->lines_in_prompt;
		fn += c->functions;
		fw += c->functions_whole;
		fl += c->func_lines;
		flp += c->func_lines_in_prompt;
		tl += c->tool_lines;
		tlo += c->tool_lines_of;
		json_array_append_new(
			rows,
			json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, "
				  "s:i, s:b, s:I, s:i, s:i, s:i, s:i, s:i, "
				  "s:I}",
				  "pair", r->c.pair->id, "case",
				  rb_eval_case_kind_name(r->c.kind), "tree",
				  r->c.tree, "lines", c->lines,
				  "lines_in_prompt", c->lines_in_prompt,
				  "functions", c->functions, "functions_whole",
				  c->functions_whole, "function_lines",
				  c->func_lines, "function_lines_in_prompt",
				  c->func_lines_in_prompt, "clipped",
				  c->clipped, "prompt_bytes",
				  (json_int_t)c->prompt_bytes, "tool_lines",
				  c->tool_lines, "tool_lines_of",
				  c->tool_lines_of, "callers", c->callers,
				  "tool_calls", c->calls, "tool_refused",
				  c->refused, "tool_bytes",
				  (json_int_t)c->bytes));
	}
	printf("| all | | | %d/%d | %d/%d | %d/%d | | %d/%d | | | | |\n", lp, l,
	       fw, fn, flp, fl, tl, tlo);
}

static void print_side_rows(const struct ctx *x, bool checkers, json_t *rows)
{
	size_t i;

	printf("\n| pair | case | %s on the case | strict hits | near a fix "
	       "line | first hit | on the control (false positives) | "
	       "words | tokens in / out |\n"
	       "| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | --- "
	       "|\n",
	       checkers ? "checker findings" : "findings");
	for (i = 0; i < x->n_rows; i++) {
		const struct crow *r = &x->rows[i];
		const struct side *s = checkers ? r->check : r->model;

		printf("| %d | %s | %zu | %d | %d | %s | %zu | %d | %ld / %ld "
		       "|%s\n",
		       r->c.pair->id, rb_eval_case_kind_name(r->c.kind),
		       s[0].f.n, s[0].hits, s[0].located,
		       s[0].first[0] ? s[0].first : "-", s[1].f.n,
		       s[0].u.words + s[1].u.words,
		       s[0].u.tokens_in + s[1].u.tokens_in,
		       s[0].u.tokens_out + s[1].u.tokens_out,
		       s[0].err || s[1].err ? " failed" : "");
		json_array_append_new(
			rows,
			json_pack("{s:i, s:s, s:s, s:b, s:O?, s:O?, s:i, s:i, "
				  "s:b, s:b}",
				  "pair", r->c.pair->id, "case",
				  rb_eval_case_kind_name(r->c.kind), "tree",
				  r->c.tree, "mm", r->mm, "findings", s[0].jf,
				  "control_findings", s[1].jf, "hits",
				  s[0].hits, "near", s[0].located, "failed",
				  s[0].err != 0, "control_failed",
				  s[1].err != 0));
	}
}

static json_t *case_json(const struct crow *r)
{
	const struct rb_eval_case *c = &r->c;
	json_t *ch = json_array();
	size_t i, k;

	for (i = 0; ch && i < c->n_changed; i++) {
		json_t *l = json_array(), *f = json_array();

		for (k = 0; k < c->changed[i].n_lines; k++)
			json_array_append_new(
				l, json_integer(c->changed[i].lines[k]));
		for (k = 0; k < c->changed[i].n_functions; k++)
			json_array_append_new(
				f, json_string(c->changed[i].functions[k]));
		json_array_append_new(ch, json_pack("{s:s, s:o, s:o}", "file",
						    c->changed[i].file, "lines",
						    l, "functions", f));
	}
	return json_pack("{s:i, s:s?, s:s, s:s, s:i, s:b, s:s, s:s, s:s, s:s, "
			 "s:s, s:s, s:o}",
			 "pair", c->pair->id, "fix_message_id",
			 c->pair->fix_msgid, "case",
			 rb_eval_case_kind_name(c->kind), "tree", c->tree,
			 "fuzz", c->fuzz, "mm", r->mm, "title", r->title,
			 "commit_msg", c->commit_msg, "patch", c->patch,
			 "control_title", r->control_title, "control_msg",
			 c->control_msg, "control", c->control, "changed", ch);
}

static void report(const struct ctx *x)
{
	const struct eval_env *e = x->e;
	json_t *root = json_object(), *cases = json_array();
	size_t i;

	printf("## reviewbot eval --inject: %s, %zu cases%s%s\n\n",
	       e->set->source, x->n_rows, e->label ? " - " : "",
	       e->label ? e->label : "");
	printf("Prompt set %s%s%s. Each case is the bug put back into a real "
	       "tree; its control is the fix applied on it: a finding on a "
	       "control is a false positive on real code. A hit is a finding "
	       "within %d lines of a line the fix changed with a category "
	       "that fits the bug, or one a hand label accepts.\n\n",
	       e->prompt, e->m ? ", model " : "", e->m ? e->model_name : "",
	       RB_EVAL_NEAR);
	print_cases(x);
	print_left_out(x);
	for (i = 0; i < x->n_rows; i++)
		json_array_append_new(cases, case_json(&x->rows[i]));
	/* Its name only: a replay elsewhere gives the same bytes. */
	json_object_set_new(root, "set",
			    json_string(strrchr(e->set_path, '/') ?
						strrchr(e->set_path, '/') + 1 :
						e->set_path));
	json_object_set_new(root, "source", json_string(e->set->source));
	json_object_set_new(root, "label",
			    json_string(e->label ? e->label : ""));
	json_object_set_new(root, "prompt_version", json_string(e->prompt));
	json_object_set_new(root, "cases", cases);
	if (e->recall) {
		json_t *rows = json_array();

		print_recall(x, rows);
		json_object_set_new(root, "recall", rows);
	}
	if (e->m) {
		json_t *rows = json_array(), *sum = json_object(),
		       *fp = json_object();

		printf("\nThe model (%s).\n", e->model_name);
		print_side_rows(x, false, rows);
		print_sums(x, false, sum);
		print_fp(x, false, fp);
		json_object_set_new(root, "model",
				    json_pack("{s:s, s:o, s:o, s:o}", "name",
					      e->model_name, "rows", rows,
					      "summary", sum,
					      "control_categories", fp));
	}
	if (e->checkers) {
		json_t *rows = json_array(), *sum = json_object(),
		       *fp = json_object();

		printf("\nThe checkers.\n");
		print_side_rows(x, true, rows);
		print_sums(x, true, sum);
		print_fp(x, true, fp);
		json_object_set_new(root, "checkers",
				    json_pack("{s:o, s:o, s:o}", "rows", rows,
					      "summary", sum,
					      "control_categories", fp));
	}
	if (e->json_out &&
	    json_dump_file(root, e->json_out, JSON_INDENT(1) | JSON_SORT_KEYS))
		fprintf(stderr, "reviewbot: eval: cannot write %s\n",
			e->json_out);
	json_decref(root);
}

static int write_cases(const struct ctx *x, const char *path)
{
	json_t *root = json_pack("{s:s, s:o}", "source", x->e->set->source,
				 "cases", json_array());
	size_t i;
	int ret = 0;

	for (i = 0; root && i < x->n_rows; i++)
		json_array_append_new(json_object_get(root, "cases"),
				      case_json(&x->rows[i]));
	if (!root || json_dump_file(root, path, JSON_INDENT(1)))
		ret = rb_err(RB_EIO, "%s: cannot write the cases", path);
	json_decref(root);
	return ret;
}

static void release(struct ctx *x)
{
	size_t i;
	int s;

	for (i = 0; i < x->n_rows; i++) {
		struct crow *r = &x->rows[i];

		rb_eval_case_release(&r->c);
		free(r->title);
		free(r->control_title);
		for (s = 0; s < 2; s++) {
			rb_findings_release(&r->model[s].f);
			rb_findings_release(&r->check[s].f);
			json_decref(r->model[s].jf);
			json_decref(r->check[s].jf);
		}
	}
	free(x->rows);
	free(x->ps);
}

int eval_cases_run(const struct eval_env *e)
{
	struct ctx x = { .e = e, .copts = RB_CHECK_OPTS_INIT };
	size_t i, n = e->set->n_pairs;
	int ret = 0, failed = 0, s;

	if (e->limit && e->limit < n)
		n = e->limit;
	checker_opts(&x.copts, e->cfg);
	x.ps = calloc(n + 1, sizeof(*x.ps));
	if (!x.ps)
		return RB_EXIT_FAIL;
	x.n_pairs = n;
	for (i = 0; !ret && i < n; i++)
		ret = make_cases(&x, &e->set->pairs[i], &x.ps[i]);
	if (!ret && e->cases_out)
		ret = write_cases(&x, e->cases_out);
	for (i = 0; !ret && i < x.n_rows; i++) {
		struct crow *r = &x.rows[i];

		if (e->recall)
			ret = recall_case(&x, r);
		for (s = 0; !ret && e->m && s < 2; s++) {
			ret = review_side(&x, r, s);
			failed += r->model[s].err != 0;
		}
		for (s = 0; !ret && e->checkers && s < 2; s++) {
			ret = check_side(&x, r, s);
			failed += r->check[s].err != 0;
		}
	}
	if (ret) {
		fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
		release(&x);
		return RB_EXIT_FAIL;
	}
	report(&x);
	release(&x);
	return failed ? RB_EXIT_FAIL : RB_EXIT_OK;
}
