// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_eval.c - reviewbot eval: the model measured on real bugs.
 *
 * --build-set finds the known bugs in an archive of list mail
 * (review/eval/evalset.h, docs/EVAL.md); --set reviews each buggy patch with
 * the configured model, through rb_model_review_patch() and the options
 * the review stage uses (bot/stages/model_setup.h), and scores each
 * finding: a hit when it lands on the lines or in the function that the
 * fix later changed. It prints a markdown report and writes the same as
 * JSON with --json. --inject (cmd_eval_cases.c) puts the bugs back into
 * the configured trees and measures the model, the context and the
 * checkers on them and on their controls.
 *
 * No report holds a time: a run replayed (--replay DIR) from the
 * exchanges it recorded (--record DIR) prints the same bytes.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <git2.h>
#include <jansson.h>

#include "bot/cli/cli.h"
#include "bot/cli/cmd_eval.h"
#include "bot/config.h"
#include "bot/stages/model_setup.h"
#include "mail/message.h"
#include "mail/source.h"
#include "mail/source_nntp.h"
#include "review/apply/apply.h"
#include "review/apply/diff.h"
#include "review/eval/evalset.h"
#include "review/model/model.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot eval --build-set --from ARCHIVE --out SET.json\n"
	"                      [--archive MBOX]\n"
	"       reviewbot eval --set SET.json [-c CONFIG] [--tree REPO]...\n"
	"                      [--json OUT] [--label TEXT] [--limit N]\n"
	"                      [--labels FILE] [--record DIR] [--replay DIR]\n"
	"       reviewbot eval --inject --set SET.json [the same] [--recall]\n"
	"                      [--checkers [--build]] [--model] [--cases OUT]\n\n"
	"--build-set finds known bugs in ARCHIVE (mbox, .xz mbox, Maildir, or\n"
	"nntp[s]://HOST[:PORT]/GROUP, a public-inbox group read from its first\n"
	"article, kept in MBOX with --archive): a patch mail whose Fixes: line\n"
	"quotes the subject of an earlier patch mail marks that patch as buggy,\n"
	"and the fix's diff says where. The pairs, and the fixes left out with\n"
	"the reason, go to SET.json (docs/EVAL.md).\n\n"
	"--set reviews each buggy patch with the configured model, as the\n"
	"review stage does (on the first configured tree it applies to, else\n"
	"on the diff alone, which the row says), and scores each finding: a\n"
	"hit when it names a file the fix changed and lands within 3 lines of\n"
	"a line the fix changed, or in a function it changed; the strict\n"
	"scorer also wants a category that fits the bug (the hand labels of\n"
	"--labels say which, and may accept other findings). It prints recall\n"
	"(pairs with a hit), precision per category, words, tokens and cost,\n"
	"with the model's name and the prompt set's version, the mm pairs\n"
	"apart. A hand-labelled set may name mail files, categories and clean\n"
	"patches (docs/EVAL.md).\n\n"
	"--inject makes cases on the trees (--tree first, then trees:): a pair\n"
	"whose fix is in a tree gets the fix reversed as its buggy patch, one\n"
	"whose buggy patch applies gets that; each case has a control, the fix\n"
	"applied on the buggy code. The model reviews both: findings on a\n"
	"control are false positives on real code. --recall measures, with no\n"
	"model, whether the prompt and the tools hold the fix's lines;\n"
	"--checkers runs commit-msg and checkpatch (and build with --build)\n"
	"over the cases and controls. The model runs unless --recall,\n"
	"--checkers or --cases is given without --model.\n\n"
	"  -c, --config FILE  the config (default ./config.yaml if present)\n"
	"      --tree REPO    a git tree to apply on (tried first; its HEAD);\n"
	"                     may be given more than once\n"
	"      --json OUT     the report as JSON too\n"
	"      --label TEXT   said in the report's title (\"scripted model\")\n"
	"      --limit N      the first N pairs only\n"
	"      --labels FILE  hand labels (\"labels\" of a JSON file)\n"
	"      --cases OUT    the cases made by --inject, as JSON\n"
	"      --record DIR   keep every model exchange in DIR\n"
	"      --replay DIR   answer from the exchanges recorded in DIR\n\n"
	"Exit: 0 done; 1 some review failed (counted as no hit); 2 usage or\n"
	"config.\n";

struct cat {
	char *name;
	int findings, hits;
};

/* One subset of the pairs (all, mm, the others), by both scorers. */
struct subset {
	int pairs, hit_pairs, findings, hits;
	int strict_pairs, strict_hits; /* pairs with a strict hit; hits */
};

struct totals {
	int pairs, hit_pairs, failed, applied;
	int clean; /* pairs with no known bug (a labelled set's) */
	int findings, hits;
	struct subset sub[3];
	struct rb_model_usage u;
	struct cat *cats;
	size_t n_cats;
};

static int count_cat(struct totals *t, const char *name, bool hit)
{
	struct cat *v;
	size_t i;

	for (i = 0; i < t->n_cats; i++)
		if (!strcmp(t->cats[i].name, name))
			break;
	if (i == t->n_cats) {
		v = realloc(t->cats, (t->n_cats + 1) * sizeof(*v));
		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		t->cats = v;
		v[i].name = strdup(name);
		v[i].findings = v[i].hits = 0;
		if (!v[i].name)
			return rb_err(RB_ENOMEM, "out of memory");
		t->n_cats++;
	}
	t->cats[i].findings++;
	t->cats[i].hits += hit;
	return 0;
}

static void add_usage(struct rb_model_usage *t, const struct rb_model_usage *u)
{
	t->calls += u->calls;
	t->retries += u->retries;
	t->tokens_in += u->tokens_in;
	t->tokens_out += u->tokens_out;
	t->cost += u->cost;
	t->proposed += u->proposed;
	t->malformed += u->malformed;
	t->hallucinated += u->hallucinated;
	t->off_scope += u->off_scope;
	t->duplicates += u->duplicates;
	t->confirmed += u->confirmed;
	t->rejected += u->rejected;
	t->uncertain += u->uncertain;
	t->below_floor += u->below_floor;
	t->capped += u->capped;
	t->kept += u->kept;
	t->words += u->words;
	t->clipped += u->clipped;
}

static void open_trees(struct eval_tree *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		git_object *obj = NULL, *c = NULL;

		if (git_repository_open(&t[i].repo, t[i].path) ||
		    git_revparse_single(&obj, t[i].repo, t[i].ref) ||
		    git_object_peel(&c, obj, GIT_OBJECT_COMMIT)) {
			fprintf(stderr,
				"reviewbot: eval: tree %s (%s at %s) cannot be "
				"read; patches are reviewed without it\n",
				t[i].name, t[i].path, t[i].ref);
		} else {
			git_oid_cpy(&t[i].commit, git_object_id(c));
			git_oid_cpy(&t[i].tree,
				    git_commit_tree_id((git_commit *)c));
			t[i].ok = true;
		}
		git_object_free(c);
		git_object_free(obj);
		git_error_clear();
	}
}

/*
 * The buggy patch applied alone on the first tree that takes it, as the
 * pipeline gives the model the tree after the patch. *out NULL: the diff
 * alone, and @why says why.
 */
static int try_apply(struct rb_apply_result **out,
		     const struct eval_tree **tree, struct eval_tree *t,
		     size_t n, const struct rb_eval_pair *p, char *why,
		     size_t why_size)
{
	struct rb_apply_opts ao = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch ap = { 0 };
	size_t i;
	int ret;

	*out = NULL;
	*tree = NULL;
	ao.commit = false;
	ap.patch = p->patch;
	ap.len = strlen(p->patch);
	ap.message = p->commit_msg;
	snprintf(why, why_size, "diff alone: no tree configured");
	for (i = 0; i < n; i++) {
		struct rb_apply_result *r = NULL;

		if (!t[i].ok)
			continue;
		ret = rb_apply_series(&r, t[i].repo, &t[i].commit, &ap, 1, &ao);
		if (ret == -RB_ENOMEM)
			return ret;
		if (!ret && r->ok && r->n_patches == 1) {
			*out = r;
			*tree = &t[i];
			return 0;
		}
		snprintf(why, why_size,
			 "diff alone: does not apply on %.60s%s%.120s",
			 t[i].name, r && r->reason ? ": " : "",
			 r && r->reason ? r->reason : "");
		rb_apply_result_free(r);
	}
	return 0;
}

void eval_md_cell(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s && s[i] && i < max; i++) {
		if (s[i] == '|')
			fputs("\\|", stdout);
		else if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
			putchar(' ');
		else
			putchar(s[i]);
	}
	if (s && strlen(s) > max)
		fputs("...", stdout);
}

struct run {
	const struct rb_eval_set *set;
	const char *set_path, *label;
	struct rb_model *m;
	struct rb_model *idle; /* no model called: its options only */
	struct rb_eval_labels labels;
	const git_oid *base_tree; /* the pair's tree, when it applied */
	struct eval_tree *trees;
	size_t n_trees;
	size_t limit;
	char prompt[13];
	struct totals t;
	json_t *rows;
	/* The finder's passes, as the review runs them (model.focuses). */
	const char *const *focuses;
	size_t n_focuses;
};

/* What the review stage gives the model beside the patch. */
static int eval_repo_open(git_repository **out, void *arg)
{
	return rb_apply_repo_open(out, arg);
}

static void pair_ctx(struct rb_model_patch_ctx *ctx, const struct run *r,
		     const struct rb_eval_pair *p,
		     const struct rb_apply_result *ar, const git_oid *base_tree)
{
	ctx->cover_body = p->cover_body;
	ctx->changelog = p->changelog;
	ctx->patches = (const char *const *)p->series_patches;
	ctx->cover_title = p->cover_title;
	ctx->subjects = (const char *const *)p->subjects;
	ctx->n_subjects = p->n_subjects;
	ctx->index = p->index;
	ctx->commit_msg = p->commit_msg;
	ctx->patch = p->patch;
	ctx->patch_len = strlen(p->patch);
	ctx->subsystems = (const char *const *)p->subsystems;
	ctx->n_subsystems = p->n_subsystems;
	ctx->focuses = r->focuses;
	ctx->n_focuses = r->n_focuses;
	if (ar) {
		ctx->repo = ar->repo;
		/* The passes' threads open their own over the same objects. */
		ctx->repo_open = eval_repo_open;
		ctx->repo_arg = (void *)ar;
		ctx->tree = &ar->patches[0].tree;
		ctx->tip_tree = &ar->tree;
		ctx->base_commit = &ar->base;
		/* Where its hunks went in: the diff is numbered as the tree. */
		ctx->applied = &ar->patches[0];
		/* The definitions the prompt fetches come from the base. */
		ctx->base_tree = base_tree ? base_tree : r->base_tree;
	}
}

/* One pair's findings scored: the rows into @jf, *hits, the totals. */
struct pair_score {
	json_t *jf;
	int hits;
	int strict; /* hits by the strict scorer */
	char first_how[160]; /* where the first hit landed, for the table */
};

static int score_findings(struct run *r, const struct rb_eval_pair *p,
			  const struct rb_findings *f, struct pair_score *ps)
{
	const struct rb_eval_label *lab = rb_eval_label_of(&r->labels, p);
	struct rb_diff *d = NULL;
	char how[160], shw[64], fnb[128];
	size_t i;
	int ret = 0;

	if (rb_diff_parse(&d, p->patch, strlen(p->patch)))
		d = NULL;
	for (i = 0; !ret && i < f->n; i++) {
		const struct rb_finding *x = &f->v[i];
		bool hit = d && rb_eval_hit(p, d, x, how, sizeof(how));
		const char *fn =
			d && x->file ? rb_eval_function_at(d, x->file, x->line,
							   fnb, sizeof(fnb)) :
				       NULL;
		bool strict = rb_eval_hit_strict(p->changed, p->n_changed, lab,
						 x, fn, shw, sizeof(shw));

		ps->strict += strict;
		if (hit && !ps->hits)
			/* Cut for the table's cell: the JSON has it whole. */
			snprintf(ps->first_how, sizeof(ps->first_how),
				 "%.100s:%.50s", x->file, how);
		ps->hits += hit;
		ret = count_cat(&r->t, x->category, hit);
		if (!ret)
			json_array_append_new(
				ps->jf,
				json_pack("{s:s, s:s?, s:i, s:s, s:s, s:b, "
					  "s:s?}",
					  "category", x->category, "file",
					  x->file, "line", x->line, "severity",
					  rb_fsev_names[x->severity], "message",
					  x->message, "hit", hit, "where",
					  hit ? how : NULL));
		if (!ret)
			json_object_set_new(
				json_array_get(ps->jf,
					       json_array_size(ps->jf) - 1),
				"strict_hit", json_boolean(strict));
	}
	rb_diff_free(d);
	return ret;
}

/* The pair's row: in the totals, the markdown table and the JSON. */
static void pair_row(struct run *r, const struct rb_eval_pair *p,
		     const char *ctxline, size_t n_found,
		     const struct rb_model_usage *u, int err,
		     struct pair_score *ps)
{
	bool mm = rb_eval_pair_is_mm(p, rb_eval_label_of(&r->labels, p));
	int w;

	if (p->n_changed)
		r->t.pairs++;
	else
		r->t.clean++;
	for (w = 0; w < 3; w++) {
		struct subset *b = &r->t.sub[w];

		if ((w == 1 && !mm) || (w == 2 && mm))
			continue;
		b->pairs += p->n_changed > 0;
		b->hit_pairs += ps->hits > 0;
		b->findings += (int)n_found;
		b->hits += ps->hits;
		b->strict_pairs += ps->strict > 0;
		b->strict_hits += ps->strict;
	}
	r->t.hit_pairs += ps->hits > 0;
	r->t.findings += (int)n_found;
	r->t.hits += ps->hits;
	add_usage(&r->t.u, u);
	printf("| %d | ", p->id);
	eval_md_cell(p->buggy_subject, 60);
	printf(" | %s | %zu | %d | %s | %d | %ld / %ld |%s\n", ctxline, n_found,
	       ps->hits, ps->first_how[0] ? ps->first_how : "-", u->words,
	       u->tokens_in, u->tokens_out, err ? " failed" : "");
	json_array_append_new(
		r->rows,
		json_pack("{s:i, s:s, s:s, s:s, s:b, s:s?, s:o, s:i, s:i, "
			  "s:i, s:I, s:I, s:f, s:b}",
			  "id", p->id, "buggy_subject", p->buggy_subject,
			  "fix_subject", p->fix_subject ? p->fix_subject : "",
			  "context", ctxline, "failed", err != 0, "error",
			  err ? rb_errmsg() : NULL, "findings", ps->jf, "hits",
			  ps->hits, "strict_hits", ps->strict, "words",
			  u->words, "tokens_in", (json_int_t)u->tokens_in,
			  "tokens_out", (json_int_t)u->tokens_out, "cost",
			  u->cost, "mm", mm));
	ps->jf = NULL;
}

static int eval_pair(struct run *r, const struct rb_eval_pair *p)
{
	struct rb_model_patch_ctx ctx = { 0 };
	struct rb_model_usage u = { 0 };
	struct rb_findings f = { 0 };
	struct rb_apply_result *ar = NULL;
	git_commit *base = NULL;
	const struct rb_apply_patch_result **all = NULL;
	git_oid base_tree;
	struct pair_score ps = { .jf = json_array() };
	const struct eval_tree *tree = NULL;
	char ctxline[256];
	int err, ret;

	ret = try_apply(&ar, &tree, r->trees, r->n_trees, p, ctxline,
			sizeof(ctxline));
	if (ret)
		goto out;
	if (ar)
		snprintf(ctxline, sizeof(ctxline), "applied on %.200s",
			 tree->name);
	r->base_tree = tree ? &tree->tree : NULL;
	r->t.applied += ar != NULL;
	if (ar && !git_commit_lookup(&base, ar->repo, &ar->base))
		git_oid_cpy(&base_tree, git_commit_tree_id(base));
	git_commit_free(base);
	pair_ctx(&ctx, r, p, ar, base ? &base_tree : NULL);
	/* show_patch numbers the pair's own part as the tree too. */
	if (ar && p->series_patches && p->index >= 1 &&
	    (size_t)p->index <= p->n_subjects) {
		all = calloc(p->n_subjects, sizeof(*all));
		if (!all) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		all[p->index - 1] = &ar->patches[0];
		ctx.applied_all = all;
	}
	err = rb_model_review_patch(&f, &u, r->m, &ctx);
	if (err) {
		fprintf(stderr, "reviewbot: eval: pair %d: %s\n", p->id,
			rb_errmsg());
		r->t.failed++;
	}
	ret = score_findings(r, p, &f, &ps);
	if (!ret)
		pair_row(r, p, ctxline, f.n, &u, err, &ps);
out:
	json_decref(ps.jf);
	rb_findings_release(&f);
	free(all);
	rb_apply_result_free(ar);
	return ret;
}

#define ratio eval_ratio

/* Both scorers, all pairs and the mm pairs apart, per prompt set. */
static json_t *report_subsets(const struct run *r)
{
	static const char *const names[] = { "all", "mm", "not mm" };
	json_t *o = json_object();
	int w;

	printf("\n| scorer | prompt set | pairs | pairs with a hit | recall | "
	       "findings | hits | precision |\n"
	       "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (w = 0; w < 6; w++) {
		const struct subset *b = &r->t.sub[w % 3];
		bool strict = w >= 3;
		int hp = strict ? b->strict_pairs : b->hit_pairs;
		int h = strict ? b->strict_hits : b->hits;

		printf("| %s, %s | %s | %d | %d | %.2f | %d | %d | %.2f |\n",
		       strict ? "strict" : "line or function", names[w % 3],
		       r->prompt, b->pairs, hp, ratio(hp, b->pairs),
		       b->findings, h, ratio(h, b->findings));
		json_object_set_new(
			o, names[w % 3],
			json_pack("{s:i, s:i, s:i, s:i, s:i, s:f, s:f}",
				  "pairs", b->pairs, "findings", b->findings,
				  "hit_pairs", b->hit_pairs, "strict_hit_pairs",
				  b->strict_pairs, "strict_hits",
				  b->strict_hits, "recall",
				  ratio(b->hit_pairs, b->pairs),
				  "strict_recall",
				  ratio(b->strict_pairs, b->pairs)));
	}
	printf("\nThe strict scorer: a finding within %d lines of a line the "
	       "fix changed, with a category that fits the bug (the set's or "
	       "a hand label's; none said: any), or one a hand label "
	       "accepts.\n",
	       RB_EVAL_NEAR);
	return o;
}

static void report(struct run *r, const char *json_out, double wall)
{
	const struct totals *t = &r->t;
	const char *model = rb_model_name(r->m);
	json_t *root, *cats = json_object(), *subsets;
	size_t i;

	printf("\n| model | prompt set | pairs | pairs with a hit | recall | "
	       "findings | hits | precision | words | tokens in | tokens out "
	       "| cost | failed |\n");
	printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
	       "| ---: | ---: | ---: | ---: |\n");
	printf("| %s | %s | %d | %d | %.2f | %d | %d | %.2f | %d | %ld | %ld "
	       "| %.4f | %d |\n",
	       model, r->prompt, t->pairs, t->hit_pairs,
	       ratio(t->hit_pairs, t->pairs), t->findings, t->hits,
	       ratio(t->hits, t->findings), t->u.words, t->u.tokens_in,
	       t->u.tokens_out, t->u.cost, t->failed);
	printf("\n| category | findings | hits | precision |\n"
	       "| --- | ---: | ---: | ---: |\n");
	for (i = 0; i < t->n_cats; i++) {
		printf("| %s | %d | %d | %.2f |\n", t->cats[i].name,
		       t->cats[i].findings, t->cats[i].hits,
		       ratio(t->cats[i].hits, t->cats[i].findings));
		json_object_set_new(
			cats, t->cats[i].name,
			json_pack("{s:i, s:i, s:f}", "findings",
				  t->cats[i].findings, "hits", t->cats[i].hits,
				  "precision",
				  ratio(t->cats[i].hits, t->cats[i].findings)));
	}
	if (!t->n_cats)
		printf("| (no findings) | 0 | 0 | - |\n");
	subsets = report_subsets(r);
	printf("\nModel stage: %d proposed, %d dropped as hallucinated, %d "
	       "off scope, %d confirmed, %d rejected, %d uncertain; %.1f "
	       "words per patch; %d of %d patches applied on a tree, the rest "
	       "reviewed on the diff alone.\n",
	       t->u.proposed, t->u.hallucinated, t->u.off_scope, t->u.confirmed,
	       t->u.rejected, t->u.uncertain,
	       (double)t->u.words / (t->pairs + t->clean ?: 1), t->applied,
	       t->pairs + t->clean);
	/* Not in the report: a replay must print the same bytes. */
	fprintf(stderr, "reviewbot: eval: %.1f s\n", wall);
	if (t->clean)
		printf("%d clean patches (no known bug) are not counted in "
		       "\"pairs\"; their findings count as misses.\n",
		       t->clean);
	if (!json_out) {
		json_decref(cats);
		json_decref(subsets);
		return;
	}
	root = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:o, s:{s:i, s:i, s:f, s:i, s:i, "
		"s:f, s:i, s:I, s:I, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:i}, "
		"s:o}",
		"set", r->set_path, "source", r->set->source, "label",
		r->label ? r->label : "", "model", model, "prompt_version",
		r->prompt, "pairs", r->rows, "summary", "pairs", t->pairs,
		"hit_pairs", t->hit_pairs, "recall",
		ratio(t->hit_pairs, t->pairs), "findings", t->findings, "hits",
		t->hits, "precision", ratio(t->hits, t->findings), "words",
		t->u.words, "tokens_in", (json_int_t)t->u.tokens_in,
		"tokens_out", (json_int_t)t->u.tokens_out, "cost", t->u.cost,
		"failed", t->failed, "applied", t->applied, "proposed",
		t->u.proposed, "hallucinated", t->u.hallucinated, "confirmed",
		t->u.confirmed, "rejected", t->u.rejected, "clean_pairs",
		t->clean, "categories", cats);
	r->rows = NULL;
	json_object_set_new(root, "subsets", subsets);
	if (!root || json_dump_file(root, json_out, JSON_INDENT(1)))
		fprintf(stderr, "reviewbot: eval: cannot write %s\n", json_out);
	json_decref(root);
}

static int score(struct run *r, const char *json_out)
{
	struct timespec t0, t1;
	size_t i, n = r->set->n_pairs;
	int ret = 0;

	if (r->limit && r->limit < n)
		n = r->limit;
	printf("## reviewbot eval: %s, %zu pairs%s%s\n\n", r->set->source, n,
	       r->label ? " - " : "", r->label ? r->label : "");
	printf("Model %s, prompt set %s.\n\n", rb_model_name(r->m), r->prompt);
	printf("| # | buggy patch | context | findings | hits | first hit | "
	       "words | tokens in / out |\n"
	       "| ---: | --- | --- | ---: | ---: | --- | ---: | --- |\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n && !ret; i++)
		ret = eval_pair(r, &r->set->pairs[i]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret) {
		fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	report(r, json_out,
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return r->t.failed ? RB_EXIT_FAIL : RB_EXIT_OK;
}

/* ---- an archive from NNTP ---- */

struct fetch {
	FILE *f;
	size_t n, too_big;
	int64_t last;
};

static int fetch_deliver(const char *raw, size_t len, const char *origin,
			 void *payload)
{
	struct fetch *fe = payload;
	const char *p = raw, *end = raw + len, *q;

	(void)origin;
	if (!raw) {
		fe->too_big++;
		return 0;
	}
	/* mboxrd: a From_ line, ">From " quoted once more, a blank line. */
	if (fputs("From reviewbot@nntp Thu Jan  1 00:00:00 1970\n", fe->f) < 0)
		return rb_err(RB_EIO, "cannot write the archive");
	while (p < end) {
		const char *s = p;
		size_t n;

		q = memchr(p, '\n', (size_t)(end - p));
		n = q ? (size_t)(q - p) : (size_t)(end - p);
		if (n && p[n - 1] == '\r')
			n--;
		while (s < p + n && *s == '>')
			s++;
		if ((size_t)(p + n - s) >= 5 && !memcmp(s, "From ", 5))
			fputc('>', fe->f);
		fwrite(p, 1, n, fe->f);
		fputc('\n', fe->f);
		p = q ? q + 1 : end;
	}
	fe->n++;
	return fputc('\n', fe->f) == EOF ?
		       rb_err(RB_EIO, "cannot write the archive") :
		       0;
}

static int fetch_get_state(const char *source, const char *mailbox,
			   int64_t *validity, int64_t *last, void *payload)
{
	(void)source;
	(void)mailbox;
	(void)validity;
	(void)last;
	(void)payload;
	return -RB_ENOTFOUND;
}

static int fetch_set_state(const char *source, const char *mailbox,
			   int64_t validity, int64_t last, void *payload)
{
	(void)source;
	(void)mailbox;
	(void)validity;
	((struct fetch *)payload)->last = last;
	return 0;
}

/*
 * Reads every article of the group @url names (nntp[s]://host[:port]/group)
 * from its first, through the pipeline's NNTP source (mail/source_nntp.h),
 * into the mboxrd file @path.
 */
static int fetch_nntp(const char *url, const char *path)
{
	struct rb_source_opts o = { 0 };
	struct rb_source *src = NULL;
	struct fetch fe = { 0 };
	struct rb_source_env env = {
		.deliver = fetch_deliver,
		.get_state = fetch_get_state,
		.set_state = fetch_set_state,
		.payload = &fe,
	};
	const char *slash = strchr(url + strlen("nntp://"), '/');
	char base[1024];
	const char *group;
	int ret;

	if (!slash || !slash[1] || strchr(slash + 1, '/'))
		return rb_err(RB_ECONFIG,
			      "%s: give nntp[s]://HOST[:PORT]/GROUP", url);
	snprintf(base, sizeof(base), "%.*s", (int)(slash - url), url);
	group = slash + 1;
	o.kind = RB_SOURCE_NNTP;
	o.name = "eval";
	o.url = base;
	o.mailboxes = &group;
	o.n_mailboxes = 1;
	o.tls_verify = true;
	o.max_size = RB_MSG_DEFAULT_MAX;
	o.start_all = true;
	fe.f = fopen(path, "w");
	if (!fe.f)
		return rb_err(RB_EIO, "%s: cannot write", path);
	ret = rb_source_nntp_new(&src, &o);
	if (!ret)
		ret = src->ops->poll(src, &env);
	rb_source_free(src);
	if (fclose(fe.f) && !ret)
		ret = rb_err(RB_EIO, "%s: cannot write", path);
	if (!ret)
		fprintf(stderr,
			"reviewbot: eval: %s: %zu articles (%zu too big) into "
			"%s\n",
			url, fe.n, fe.too_big, path);
	return ret;
}

static bool is_nntp(const char *s)
{
	return !strncmp(s, "nntp://", 7) || !strncmp(s, "nntps://", 8);
}

static int build_set(const char *from, const char *out, const char *archive)
{
	struct rb_eval_set s;
	char tmp[4096] = "";
	size_t i, k, n;
	int ret;

	if (is_nntp(from)) {
		if (archive) {
			snprintf(tmp, sizeof(tmp), "%s", archive);
		} else {
			int fd;

			snprintf(tmp, sizeof(tmp), "%s/rb-eval-nntp.XXXXXX",
				 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
			fd = mkstemp(tmp);
			if (fd < 0) {
				fprintf(stderr,
					"reviewbot: eval: %s: cannot "
					"make a file\n",
					tmp);
				return RB_EXIT_FAIL;
			}
			close(fd);
		}
		ret = fetch_nntp(from, tmp);
		if (ret) {
			fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
			if (!archive)
				unlink(tmp);
			return ret == -RB_ECONFIG ? RB_EXIT_USAGE :
						    RB_EXIT_FAIL;
		}
	}
	ret = rb_eval_build(&s, tmp[0] ? tmp : from);
	if (tmp[0] && !archive)
		unlink(tmp);
	if (!ret && tmp[0]) {
		/* The set says where its mail came from, not a file name. */
		char *src = strdup(from);

		if (!src) {
			rb_eval_set_release(&s);
			ret = rb_err(RB_ENOMEM, "out of memory");
		} else {
			free(s.source);
			s.source = src;
		}
	}
	if (ret) {
		fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
		return ret == -RB_ENOMEM ? RB_EXIT_FAIL : RB_EXIT_USAGE;
	}
	ret = rb_eval_set_save(&s, out);
	if (ret) {
		fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
		rb_eval_set_release(&s);
		return RB_EXIT_FAIL;
	}
	printf("reviewbot: eval: %s: %zu messages, %zu patch mails, %zu "
	       "Fixes: lines (%zu quoting a subject): %zu pairs, %zu "
	       "excluded; written to %s\n",
	       s.source, s.messages, s.patch_mails, s.fixes_trailers,
	       s.fixes_named, s.n_pairs, s.n_excluded, out);
	/* The reasons, each once with its count. */
	for (i = 0; i < s.n_excluded; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(s.excluded[k].reason, s.excluded[i].reason))
				break;
		if (k < i)
			continue;
		for (n = 0, k = i; k < s.n_excluded; k++)
			n += !strcmp(s.excluded[k].reason,
				     s.excluded[i].reason);
		printf("  excluded %3zu: %s\n", n, s.excluded[i].reason);
	}
	rb_eval_set_release(&s);
	return RB_EXIT_OK;
}

static int parse_limit(const char *arg, void *to)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (!*arg || *end) {
		fprintf(stderr, "reviewbot: eval: --limit %s: not a number\n",
			arg);
		return 1;
	}
	*(size_t *)to = (size_t)v;
	return 0;
}

/* --tree REPO, as often as given. */
struct tree_args {
	const char *v[8];
	size_t n;
};

static int parse_tree(const char *arg, void *to)
{
	struct tree_args *t = to;

	if (t->n == sizeof(t->v) / sizeof(t->v[0])) {
		fprintf(stderr, "reviewbot: eval: at most %zu --tree\n", t->n);
		return 1;
	}
	t->v[t->n++] = arg;
	return 0;
}

struct eval_args {
	bool build;
	const char *from, *out, *archive, *set_path, *config, *json_out;
	const char *record, *replay, *labels, *cases;
	struct tree_args trees;
	bool inject, recall, checkers, build_check, model;
};

/* The last component of @path, for a tree's name. */
static const char *base_name(const char *path)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = path + n; s > path && s[-1] != '/';)
		s--;
	return s;
}

/*
 * Does this run call the model? The plain set mode always does; --inject
 * does unless --recall, --checkers or --cases was asked without --model.
 */
static bool wants_model(const struct eval_args *a)
{
	return !a->inject || a->model ||
	       (!a->recall && !a->checkers && !a->cases);
}

/* The model, the set and the trees of a scoring run into @r. */
static int run_open(struct run *r, struct rb_eval_set *set,
		    const struct eval_args *a, const struct rb_config *cfg)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	size_t i;

	rb_model_setup_opts(&o, &cfg->model, a->record, a->replay);
	r->focuses = rb_model_setup_focuses(&cfg->model, &r->n_focuses);
	if (wants_model(a) && !a->replay &&
	    (!o.provider || !strcmp(o.provider, "none"))) {
		fprintf(stderr, "reviewbot: eval: the model stage is off; set "
				"model.provider in the config (or give "
				"--replay DIR)\n");
		return RB_EXIT_USAGE;
	}
	if (!wants_model(a)) {
		/*
		 * No model is called, but the prompt and the tools need the
		 * options a review would use, defaults filled in as
		 * rb_model_new() fills them, and the prompt set's version:
		 * an idle model, "replay" from a directory never read.
		 */
		o.provider = "replay";
		o.replay_dir = "/nonexistent/reviewbot-eval-idle";
		o.record_dir = NULL;
	}
	if (rb_model_new(&r->idle, &o) || !r->idle ||
	    rb_eval_set_load(set, a->set_path) ||
	    (a->labels && rb_eval_labels_load(&r->labels, a->labels))) {
		fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
		return RB_EXIT_USAGE;
	}
	if (wants_model(a)) {
		r->m = r->idle;
		r->idle = NULL;
	}
	if (rb_model_prompt_set_version(r->prompt, r->m ? r->m : r->idle))
		snprintf(r->prompt, sizeof(r->prompt), "unknown");
	r->trees = calloc(cfg->n_trees + a->trees.n + 1, sizeof(*r->trees));
	r->rows = json_array();
	if (!r->trees || !r->rows)
		return RB_EXIT_FAIL;
	for (i = 0; i < a->trees.n; i++) {
		r->trees[r->n_trees].name = base_name(a->trees.v[i]);
		r->trees[r->n_trees].path = a->trees.v[i];
		r->trees[r->n_trees++].ref = "HEAD";
	}
	for (i = 0; i < cfg->n_trees; i++) {
		r->trees[r->n_trees].name = cfg->trees[i].name;
		r->trees[r->n_trees].path = cfg->trees[i].path;
		r->trees[r->n_trees++].ref =
			cfg->trees[i].branch ? cfg->trees[i].branch : "HEAD";
	}
	open_trees(r->trees, r->n_trees);
	r->set = set;
	r->set_path = a->set_path;
	return 0;
}

static void run_release(struct run *r)
{
	size_t i;

	for (i = 0; r->trees && i < r->n_trees; i++)
		git_repository_free(r->trees[i].repo);
	free(r->trees);
	for (i = 0; i < r->t.n_cats; i++)
		free(r->t.cats[i].name);
	free(r->t.cats);
	json_decref(r->rows);
	rb_model_free(r->m);
	rb_model_free(r->idle);
	rb_eval_labels_release(&r->labels);
}

static int inject(struct run *r, const struct eval_args *a,
		  const struct rb_config *cfg)
{
	struct eval_env e = {
		.cfg = cfg,
		.set = r->set,
		.set_path = r->set_path,
		.labels = &r->labels,
		.m = r->m,
		.mo = rb_model_get_opts(r->m ? r->m : r->idle),
		.prompt = r->prompt,
		.model_name = r->m ? rb_model_name(r->m) : "",
		.trees = r->trees,
		.n_trees = r->n_trees,
		.focuses = r->focuses,
		.n_focuses = r->n_focuses,
		.label = r->label,
		.limit = r->limit,
		.recall = a->recall,
		.checkers = a->checkers,
		.build = a->build_check,
		.json_out = a->json_out,
		.cases_out = a->cases,
	};

	return eval_cases_run(&e);
}

int cmd_eval(int argc, char **argv)
{
	struct eval_args a = { 0 };
	struct run r = { 0 };
	const struct rb_cli_opt opts[] = {
		{ .name = "build-set", .flag = &a.build },
		{ .name = "from", .str = &a.from },
		{ .name = "out", .str = &a.out },
		{ .name = "archive", .str = &a.archive },
		{ .name = "set", .str = &a.set_path },
		{ .name = "config", .short_name = 'c', .str = &a.config },
		{ .name = "tree", .parse = parse_tree, .to = &a.trees },
		{ .name = "json", .str = &a.json_out },
		{ .name = "label", .str = &r.label },
		{ .name = "limit", .parse = parse_limit, .to = &r.limit },
		{ .name = "labels", .str = &a.labels },
		{ .name = "record", .str = &a.record },
		{ .name = "replay", .str = &a.replay },
		{ .name = "inject", .flag = &a.inject },
		{ .name = "recall", .flag = &a.recall },
		{ .name = "checkers", .flag = &a.checkers },
		{ .name = "build", .flag = &a.build_check },
		{ .name = "model", .flag = &a.model },
		{ .name = "cases", .str = &a.cases },
		{ 0 },
	};
	const struct rb_cli_args args = { .usage = usage, .opts = opts };
	struct rb_config *cfg = NULL;
	struct rb_eval_set set = { 0 };
	int ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	if (optind < argc || a.build == !!a.set_path ||
	    (a.build && (!a.from || !a.out)) ||
	    (!a.inject && (a.recall || a.checkers || a.model || a.cases)) ||
	    (a.build_check && !a.checkers) || (a.archive && !a.build)) {
		fputs(usage, stderr);
		return RB_EXIT_USAGE;
	}
	rb_log_set_quiet(!getenv("RB_LOG"));
	if (a.build)
		return build_set(a.from, a.out, a.archive);
	ret = rb_cli_load_config(&cfg, a.config);
	if (!ret)
		ret = run_open(&r, &set, &a, cfg);
	if (!ret)
		ret = a.inject ? inject(&r, &a, cfg) : score(&r, a.json_out);
	run_release(&r);
	rb_eval_set_release(&set);
	rb_config_free(cfg);
	return ret;
}
