// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_eval.c - reviewbot eval: the model measured on real bugs.
 *
 * --build-set finds the known bugs in an archive of list mail
 * (review/evalset.h, docs/EVAL.md); --set reviews each buggy patch with
 * the configured model, through rb_model_review_patch() and the options
 * the review stage uses (bot/stages/model_setup.h), and scores each
 * finding: a hit when it lands on the lines or in the function that the
 * fix later changed. It prints a markdown report and writes the same as
 * JSON with --json.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <git2.h>
#include <jansson.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/stages/model_setup.h"
#include "review/apply.h"
#include "review/diff.h"
#include "review/evalset.h"
#include "review/model.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot eval --build-set --from ARCHIVE --out SET.json\n"
	"       reviewbot eval --set SET.json [-c CONFIG] [--tree REPO]\n"
	"                      [--json OUT] [--label TEXT] [--limit N]\n"
	"                      [--record DIR] [--replay DIR]\n\n"
	"--build-set finds known bugs in ARCHIVE (mbox, .xz mbox, Maildir):\n"
	"a patch mail whose Fixes: line quotes the subject of an earlier patch\n"
	"mail marks that patch as buggy, and the fix's diff says where. The\n"
	"pairs, and the fixes left out with the reason, go to SET.json\n"
	"(docs/EVAL.md).\n\n"
	"--set reviews each buggy patch with the configured model, as the\n"
	"review stage does (on the first configured tree it applies to, else\n"
	"on the diff alone, which the row says), and scores each finding: a\n"
	"hit when it names a file the fix changed and lands within 3 lines of\n"
	"a line the fix changed, or in a function it changed. It prints recall\n"
	"(pairs with a hit), precision per category, words, tokens and cost,\n"
	"with the model's name and the prompt set's version. A hand-labelled\n"
	"set may name mail files, categories and clean patches (docs/EVAL.md).\n\n"
	"  -c, --config FILE  the config (default ./config.yaml if present)\n"
	"      --tree REPO    a git tree to apply on (tried first; its HEAD)\n"
	"      --json OUT     the report as JSON too\n"
	"      --label TEXT   said in the report's title (\"scripted model\")\n"
	"      --limit N      the first N pairs only\n"
	"      --record DIR   keep every model exchange in DIR\n"
	"      --replay DIR   answer from the exchanges recorded in DIR\n\n"
	"Exit: 0 done; 1 some review failed (counted as no hit); 2 usage or\n"
	"config.\n";

struct cat {
	char *name;
	int findings, hits;
};

struct totals {
	int pairs, hit_pairs, failed, applied;
	int clean; /* pairs with no known bug (a labelled set's) */
	int findings, hits;
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

/* A tree to apply on: a path and a ref. */
struct etree {
	const char *name, *path, *ref;
	git_repository *repo;
	git_oid commit;
	bool ok;
};

static void open_trees(struct etree *t, size_t n)
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
static int try_apply(struct rb_apply_result **out, const char **tree_name,
		     struct etree *t, size_t n, const struct rb_eval_pair *p,
		     char *why, size_t why_size)
{
	struct rb_apply_opts ao = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch ap = { 0 };
	size_t i;
	int ret;

	*out = NULL;
	*tree_name = NULL;
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
			*tree_name = t[i].name;
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

static void md_cell(const char *s, size_t max)
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
	struct etree *trees;
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
		if (base_tree)
			ctx->base_tree = base_tree;
	}
}

/* One pair's findings scored: the rows into @jf, *hits, the totals. */
struct pair_score {
	json_t *jf;
	int hits;
	char first_how[160]; /* where the first hit landed, for the table */
};

static int score_findings(struct run *r, const struct rb_eval_pair *p,
			  const struct rb_findings *f, struct pair_score *ps)
{
	struct rb_diff *d = NULL;
	char how[160];
	size_t i;
	int ret = 0;

	if (rb_diff_parse(&d, p->patch, strlen(p->patch)))
		d = NULL;
	for (i = 0; !ret && i < f->n; i++) {
		const struct rb_finding *x = &f->v[i];
		bool hit = d && rb_eval_hit(p, d, x, how, sizeof(how));

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
	if (p->n_changed)
		r->t.pairs++;
	else
		r->t.clean++;
	r->t.hit_pairs += ps->hits > 0;
	r->t.findings += (int)n_found;
	r->t.hits += ps->hits;
	add_usage(&r->t.u, u);
	printf("| %d | ", p->id);
	md_cell(p->buggy_subject, 60);
	printf(" | %s | %zu | %d | %s | %d | %ld / %ld |%s\n", ctxline, n_found,
	       ps->hits, ps->first_how[0] ? ps->first_how : "-", u->words,
	       u->tokens_in, u->tokens_out, err ? " failed" : "");
	json_array_append_new(
		r->rows,
		json_pack("{s:i, s:s, s:s, s:s, s:b, s:s?, s:o, s:i, s:i, "
			  "s:I, s:I, s:f}",
			  "id", p->id, "buggy_subject", p->buggy_subject,
			  "fix_subject", p->fix_subject ? p->fix_subject : "",
			  "context", ctxline, "failed", err != 0, "error",
			  err ? rb_errmsg() : NULL, "findings", ps->jf, "hits",
			  ps->hits, "words", u->words, "tokens_in",
			  (json_int_t)u->tokens_in, "tokens_out",
			  (json_int_t)u->tokens_out, "cost", u->cost));
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
	const char *tree_name = NULL;
	char ctxline[256];
	int err, ret;

	ret = try_apply(&ar, &tree_name, r->trees, r->n_trees, p, ctxline,
			sizeof(ctxline));
	if (ret)
		goto out;
	if (ar)
		snprintf(ctxline, sizeof(ctxline), "applied on %.200s",
			 tree_name);
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

static double ratio(int a, int b)
{
	return b ? (double)a / b : 0;
}

static void report(struct run *r, const char *json_out, double wall)
{
	const struct totals *t = &r->t;
	const char *model = rb_model_name(r->m);
	json_t *root, *cats = json_object();
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
	printf("\nModel stage: %d proposed, %d dropped as hallucinated, %d "
	       "off scope, %d confirmed, %d rejected, %d uncertain; %.1f "
	       "words per patch; %d of %d patches applied on a tree, the rest "
	       "reviewed on the diff alone; %.1f s.\n",
	       t->u.proposed, t->u.hallucinated, t->u.off_scope, t->u.confirmed,
	       t->u.rejected, t->u.uncertain,
	       (double)t->u.words / (t->pairs + t->clean ?: 1), t->applied,
	       t->pairs + t->clean, wall);
	if (t->clean)
		printf("%d clean patches (no known bug) are not counted in "
		       "\"pairs\"; their findings count as misses.\n",
		       t->clean);
	if (!json_out) {
		json_decref(cats);
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

static int build_set(const char *from, const char *out)
{
	struct rb_eval_set s;
	size_t i, k, n;
	int ret;

	ret = rb_eval_build(&s, from);
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

struct eval_args {
	bool build;
	const char *from, *out, *set_path, *config, *tree, *json_out;
	const char *record, *replay;
};

/* The model, the set and the trees of a scoring run into @r. */
static int run_open(struct run *r, struct rb_eval_set *set,
		    const struct eval_args *a, const struct rb_config *cfg)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	size_t i;

	rb_model_setup_opts(&o, &cfg->model, a->record, a->replay);
	r->focuses = rb_model_setup_focuses(&cfg->model, &r->n_focuses);
	if (!a->replay && (!o.provider || !strcmp(o.provider, "none"))) {
		fprintf(stderr, "reviewbot: eval: the model stage is off; set "
				"model.provider in the config (or give "
				"--replay DIR)\n");
		return RB_EXIT_USAGE;
	}
	if (rb_model_new(&r->m, &o) || !r->m ||
	    rb_eval_set_load(set, a->set_path)) {
		fprintf(stderr, "reviewbot: eval: %s\n", rb_errmsg());
		return RB_EXIT_USAGE;
	}
	if (rb_model_prompt_set_version(r->prompt, r->m))
		snprintf(r->prompt, sizeof(r->prompt), "unknown");
	r->trees = calloc(cfg->n_trees + 2, sizeof(*r->trees));
	r->rows = json_array();
	if (!r->trees || !r->rows)
		return RB_EXIT_FAIL;
	if (a->tree) {
		r->trees[r->n_trees].name = a->tree;
		r->trees[r->n_trees].path = a->tree;
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
}

int cmd_eval(int argc, char **argv)
{
	struct eval_args a = { 0 };
	struct run r = { 0 };
	const struct rb_cli_opt opts[] = {
		{ .name = "build-set", .flag = &a.build },
		{ .name = "from", .str = &a.from },
		{ .name = "out", .str = &a.out },
		{ .name = "set", .str = &a.set_path },
		{ .name = "config", .short_name = 'c', .str = &a.config },
		{ .name = "tree", .str = &a.tree },
		{ .name = "json", .str = &a.json_out },
		{ .name = "label", .str = &r.label },
		{ .name = "limit", .parse = parse_limit, .to = &r.limit },
		{ .name = "record", .str = &a.record },
		{ .name = "replay", .str = &a.replay },
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
	    (a.build && (!a.from || !a.out))) {
		fputs(usage, stderr);
		return RB_EXIT_USAGE;
	}
	rb_log_set_quiet(!getenv("RB_LOG"));
	if (a.build)
		return build_set(a.from, a.out);
	ret = rb_cli_load_config(&cfg, a.config);
	if (!ret)
		ret = run_open(&r, &set, &a, cfg);
	if (!ret)
		ret = score(&r, a.json_out);
	run_release(&r);
	rb_eval_set_release(&set);
	rb_config_free(cfg);
	return ret;
}
