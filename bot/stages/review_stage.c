// SPDX-License-Identifier: GPL-2.0-only
/*
 * review_stage.c - the review of one series. See review_stage.h.
 *
 * Order (DESIGN.md, the pipeline): subsystem and policy from MAINTAINERS
 * of the trusted tree; base selection and in-memory apply (fact 9);
 * checkers; the model stage; suppression of findings judged false before;
 * the policy's severity floor and cap; render; compose. Everything it
 * decides is written in one transaction with the job's end.
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
#include "bot/stages/review_stage.h"
#include "bot/stages/scope.h"
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

#ifndef RB_TEMPLATES_DIR
#define RB_TEMPLATES_DIR "templates"
#endif

/* The interdiff of one part in its prompt (versions.h). */
#define MODEL_INTERDIFF_LINES 200
#define MODEL_INTERDIFF_BYTES (16 * 1024)
/* The admin's notes in one prompt, all sections together (issue 37). */
#define MODEL_NOTES_BYTES 4096
/* The interdiff of one part in the cover's summary: its changed lines. */
#define COVER_INTERDIFF_LINES 8

struct tree {
	const char *name;
	const char *path;
	const char *ref;
	git_repository *repo;
	const struct rb_tree_config *cfg; /* NULL: the command line's */
};

/* One mail to queue, with the findings it shows. */
struct outgoing {
	struct rb_buf bytes;
	char *message_id;
	char *env_from;
	struct rb_buf rcpts;
	struct rb_buf lists; /* the recipients that are mailing lists */
	struct rb_buf trusted; /* M:/R: people and admins (no rcpt limit) */
	const char *kind;
	int patch_idx;
	int words;
	int capped; /* people the recipient cap trimmed */
	bool skip; /* nobody to send it to: not queued */
	size_t *finding_idx; /* indices into the series' findings */
	int *ids; /* their Fn */
	size_t n;
	/* Issue 36: the people ("people": shadow) left off this public
	 * review, for a private copy of it (queue_copies()), and its body;
	 * a copy names the review whose findings it carries. */
	char **private_to;
	size_t n_private;
	bool private_trusted;
	char *body;
	char *copy_of;
	int idx; /* the part it answers */
};

struct series_ctx {
	struct rb_pipeline *p;
	const struct rb_job *job;
	struct rb_series_row row;
	struct rb_msgrow *raws; /* [total + 1], [0] the cover */
	struct rb_message **msgs; /* [total + 1], NULL where missing */
	struct rb_message *first; /* the first part we have */
	bool *foreign; /* [total + 1]: a part for another project, left out */
	int first_idx; /* its index: 0 the cover, else the first patch */
	int n_parts; /* patches under review: 1..n_parts (a prefix, or all) */
	/* The home policy's rule switches over the defaults (rules.h). */
	struct rb_rule_switch *rule_sw;
	struct rb_rules rules;

	struct tree *trees;
	size_t n_trees;

	/* What the series touches, its home and policy, its recipients. */
	struct rb_scope scope;

	struct rb_prereq prereq; /* applied first on every base */
	bool prereq_done; /* resolved (once, before the first apply) */
	int64_t defer_until; /* the job waits until then (a tree's fetch) */
	struct rb_base_report *base;
	const struct tree *base_tree;
	git_oid base_oid, applied_oid;
	bool applied;
	/* The apply's work for this series, over every base and the try
	 * after a fetch (review/apply/apply.h max_work): one budget a run. */
	uint64_t apply_work;

	struct rb_findings findings;
	char **states; /* per finding: raised, suppressed, dropped */
	struct rb_versions versions; /* what changed since v(n) */
	struct rb_model_usage *usage; /* [total + 1]: per patch */
	char prompt[13]; /* the prompt set's version, "" without the model */
	struct rb_buf notes; /* the admin's notes for the sections (issue 37) */
	int model_err; /* what the model stage returned, 0 if it ran */
	struct rb_buf model_line;
	struct rb_buf summary; /* lines, NUL-separated */
	const char *summary_v[8];
	size_t n_summary;
	bool summary_fixed; /* summary_v holds pointers (fix_summary()) */

	struct outgoing *out;
	size_t n_out;
	const char *series_state;
	char detail[512];
	const char *job_error; /* the job ends as failed with it, or NULL */
};

static void release(struct series_ctx *c)
{
	size_t i, k;

	for (i = 0; c->raws && (int)i <= c->row.total; i++) {
		rb_msgrow_release(&c->raws[i]);
		rb_message_free(c->msgs[i]);
	}
	free(c->raws);
	free(c->msgs);
	free(c->foreign);
	for (i = 0; i < c->n_trees; i++)
		git_repository_free(c->trees[i].repo);
	free(c->trees);
	rb_scope_release(&c->scope);
	free(c->rule_sw);
	rb_base_report_free(c->base);
	rb_prereq_release(&c->prereq);
	for (i = 0; i < c->findings.n; i++)
		free(c->states ? c->states[i] : NULL);
	free(c->states);
	rb_findings_release(&c->findings);
	rb_buf_release(&c->summary);
	rb_buf_release(&c->model_line);
	rb_buf_release(&c->notes);
	free(c->usage);
	for (i = 0; i < c->n_out; i++) {
		rb_buf_release(&c->out[i].bytes);
		rb_buf_release(&c->out[i].rcpts);
		rb_buf_release(&c->out[i].lists);
		rb_buf_release(&c->out[i].trusted);
		free(c->out[i].message_id);
		free(c->out[i].env_from);
		free(c->out[i].finding_idx);
		free(c->out[i].ids);
		for (k = 0; k < c->out[i].n_private; k++)
			free(c->out[i].private_to[k]);
		free(c->out[i].private_to);
		free(c->out[i].body);
		free(c->out[i].copy_of);
	}
	free(c->out);
	rb_versions_release(&c->versions);
	rb_series_row_release(&c->row);
}

static size_t max_size(const struct rb_pipeline *p)
{
	return p->cfg->max_message_size ? p->cfg->max_message_size :
					  RB_MSG_DEFAULT_MAX;
}

static int load_messages(struct series_ctx *c)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	int i, ret;

	ret = rb_store_series_load(c->p->st, c->job->key, &c->row);
	if (ret)
		return ret;
	c->raws = calloc((size_t)c->row.total + 1, sizeof(*c->raws));
	c->msgs = calloc((size_t)c->row.total + 1, sizeof(*c->msgs));
	c->foreign = calloc((size_t)c->row.total + 1, sizeof(*c->foreign));
	if (!c->raws || !c->msgs || !c->foreign)
		return rb_err(RB_ENOMEM, "out of memory");
	opts.max_size = max_size(c->p);
	for (i = 0; i <= c->row.total; i++) {
		if (!c->row.msgids[i])
			continue;
		ret = rb_store_get_raw(c->p->st, c->row.msgids[i], &c->raws[i]);
		if (ret)
			return ret;
		if (rb_message_parse(&c->msgs[i], c->raws[i].raw,
				     c->raws[i].len, &opts))
			c->msgs[i] = NULL;
		if (c->msgs[i] && !c->first && i > 0) {
			c->first = c->msgs[i];
			c->first_idx = i;
		}
	}
	if (c->msgs[0])
		c->first_idx = 0;
	if (!c->first)
		c->first = c->msgs[0];
	if (!c->first)
		return rb_err(RB_EINVAL, "series <%s>: no part parses",
			      c->job->key);
	return 0;
}

static int open_trees(struct series_ctx *c)
{
	const struct rb_config *cfg = c->p->cfg;
	size_t i, n = cfg->n_trees + (c->p->cli_tree ? 1 : 0);

	c->trees = calloc(n ? n : 1, sizeof(*c->trees));
	if (!c->trees)
		return rb_err(RB_ENOMEM, "out of memory");
	if (c->p->cli_tree) {
		const char *slash = strrchr(c->p->cli_tree, '/');

		/* Named after its directory, as people call their trees. */
		c->trees[c->n_trees].name = slash && slash[1] ? slash + 1 :
								c->p->cli_tree;
		c->trees[c->n_trees].path = c->p->cli_tree;
		c->trees[c->n_trees].ref = "HEAD";
		c->n_trees++;
	}
	for (i = 0; i < cfg->n_trees; i++) {
		struct tree *t = &c->trees[c->n_trees++];

		t->name = cfg->trees[i].name;
		t->path = cfg->trees[i].path;
		t->ref = cfg->trees[i].branch ? cfg->trees[i].branch : "HEAD";
		t->cfg = &cfg->trees[i];
	}
	for (i = 0; i < c->n_trees; i++) {
		if (git_repository_open(&c->trees[i].repo, c->trees[i].path)) {
			const git_error *e = git_error_last();

			return rb_err(RB_EAGAIN, "tree %s (%s): %s",
				      c->trees[i].name, c->trees[i].path,
				      e ? e->message : "cannot open");
		}
	}
	return 0;
}

/*
 * What the series touches and who governs it (bot/stages/scope.h): MAINTAINERS
 * from the trusted tree, the home subsystem and its policy, the people
 * and lists; the feedback stage asks the same function.
 */
static int resolve_scope(struct series_ctx *c)
{
	return rb_scope_resolve(&c->scope, c->p,
				(const struct rb_message *const *)c->msgs,
				(size_t)c->row.total + 1, c->first->list_id);
}

static int add_summary(struct series_ctx *c, const char *line)
{
	if (c->n_summary >= sizeof(c->summary_v) / sizeof(c->summary_v[0]))
		return 0;
	/* Pointers are fixed up after the buffer stops growing. */
	c->summary_v[c->n_summary++] = (const char *)(uintptr_t)c->summary.len;
	return rb_buf_add(&c->summary, line, strlen(line) + 1);
}

static void fix_summary(struct series_ctx *c)
{
	size_t i;

	if (c->summary_fixed)
		return;
	c->summary_fixed = true;
	for (i = 0; i < c->n_summary; i++)
		c->summary_v[i] = c->summary.ptr + (uintptr_t)c->summary_v[i];
}

/*
 * Trees in the order to try: the policy's bases first, then every other
 * configured tree in config order (linux-next and mainline last, as the
 * config lists them).
 */
static size_t order_trees(struct series_ctx *c, struct rb_base_tree *out)
{
	const struct rb_policy *pol = c->scope.pol.governing;
	size_t n = 0, i, k;
	bool *used = calloc(c->n_trees ? c->n_trees : 1, sizeof(*used));

	for (k = 0; used && pol && k < pol->n_bases; k++)
		for (i = 0; i < c->n_trees; i++)
			if (!used[i] &&
			    !strcmp(c->trees[i].name, pol->bases[k])) {
				used[i] = true;
				out[n].name = c->trees[i].name;
				out[n].repo = c->trees[i].repo;
				out[n].ref = c->trees[i].ref;
				n++;
			}
	for (i = 0; used && i < c->n_trees; i++)
		if (!used[i]) {
			out[n].name = c->trees[i].name;
			out[n].repo = c->trees[i].repo;
			out[n].ref = c->trees[i].ref;
			n++;
		}
	free(used);
	return n;
}

/* "LABEL: TEXT." as a summary line, when @text says anything. */
static int add_labelled(struct series_ctx *c, const char *label,
			const struct rb_buf *text)
{
	struct rb_buf line = RB_BUF_INIT(8192);
	int ret;

	if (!text->len)
		return 0;
	rb_buf_printf(&line, "%s: %s.", label, text->ptr);
	ret = add_summary(c, line.ptr);
	rb_buf_release(&line);
	return ret;
}

/* The apply's limits and budgets, from limits.* of the config. */
static void apply_opts(struct rb_apply_opts *o, struct series_ctx *c)
{
	const struct rb_config *cfg = c->p->cfg;

	if (cfg->max_apply_bytes)
		o->max_bytes = cfg->max_apply_bytes;
	if (cfg->max_file_lines > 0)
		o->max_file_lines = (size_t)cfg->max_file_lines;
	/* Never 0 (no limit) by rounding: at least one unit. */
	if (cfg->apply_seconds > 0)
		o->max_work = (uint64_t)(cfg->apply_seconds *
					 (double)RB_APPLY_WORK_PER_SECOND) +
			      1;
	o->work = &c->apply_work;
}

static int apply_series(struct series_ctx *c)
{
	struct rb_apply_opts opts = RB_APPLY_OPTS_INIT;
	struct rb_base_request req = { 0 };
	struct rb_apply_patch *ap = NULL;
	struct rb_base_tree *bt = NULL;
	size_t i, n = 0, nt;
	int ret = 0;

	if (!c->n_trees) {
		add_summary(c, "Not applied: no tree is configured.");
		return 0;
	}
	ap = calloc((size_t)c->row.total, sizeof(*ap));
	bt = calloc(c->n_trees, sizeof(*bt));
	if (!ap || !bt) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; i <= (size_t)c->row.total; i++) {
		const struct rb_message *m = c->msgs[i];

		if (!m || !m->patch)
			continue;
		ap[n].patch = m->patch;
		ap[n].len = m->patch_len;
		ap[n].author_name = m->author.addr ? m->author.name :
						     m->from.name;
		ap[n].author_email = m->author.addr ? m->author.addr :
						      m->from.addr;
		ap[n].date = m->date;
		ap[n].message = m->commit_msg;
		n++;
		if (!req.base_commit)
			req.base_commit = rb_message_trailer(m, "base-commit");
	}
	if (c->msgs[0] && !req.base_commit)
		req.base_commit = rb_message_trailer(c->msgs[0], "base-commit");
	req.patches = ap;
	req.n_patches = n;
	apply_opts(&opts, c);
	/* b4's prerequisites, from the store, go first on every base. */
	if (!c->prereq_done) {
		c->prereq_done = true;
		ret = rb_prereq_resolve(&c->prereq, c->p, c->row.id, c->msgs,
					(size_t)c->row.total + 1);
		if (ret)
			goto out;
	} else {
		goto select;
	}
	ret = add_labelled(c, "Applied first", &c->prereq.applied);
	if (!ret)
		ret = add_labelled(c, "Missing prerequisites",
				   &c->prereq.missing);
	if (ret)
		goto out;
select:
	req.prereqs = c->prereq.patches;
	req.n_prereqs = c->prereq.n_patches;
	nt = order_trees(c, bt);
	ret = rb_base_select(&c->base, bt, nt, &req, &opts);
	if (ret)
		goto out;
	if (c->base->ok) {
		const struct rb_base_attempt *a =
			&c->base->attempts[c->base->chosen];
		char line[256];

		c->applied = true;
		git_oid_cpy(&c->base_oid, &a->commit);
		git_oid_cpy(&c->applied_oid, &a->result->commit);
		for (i = 0; i < c->n_trees; i++)
			if (a->name && !strcmp(a->name, c->trees[i].name))
				c->base_tree = &c->trees[i];
		if (a->kind != RB_BASE_TREE) {
			snprintf(line, sizeof(line), "The base is %s.",
				 a->kind == RB_BASE_COMMIT ?
					 "the series' base-commit" :
					 "guessed from the index blob ids");
			add_summary(c, line);
		}
	}
out:
	free(ap);
	free(bt);
	return ret;
}

/*
 * The checkers to run (RB_CHECKER_BIT()s of the registry): those the
 * policy names (commit-msg and checkpatch unless it says otherwise),
 * checkpatch only where the trusted tree ships it, the tree checkers
 * only on an applied series, external only with a command in the
 * config. sparse runs inside the build when both are asked for (one
 * build, opts->build_sparse).
 */
static unsigned int checker_set(unsigned int want, bool applied,
				bool have_checkpatch, bool have_external,
				struct rb_check_opts *opts)
{
	const unsigned int build = RB_CHECKER_BIT(RB_CHECKER_BUILD),
			   sparse = RB_CHECKER_BIT(RB_CHECKER_SPARSE);
	size_t i;

	if ((want & build) && (want & sparse) && applied) {
		opts->build_sparse = true;
		want &= ~sparse;
	}
	for (i = 0; i < RB_N_CHECKERS; i++)
		if (rb_checkers[i]->tree && !applied)
			want &= ~RB_CHECKER_BIT(i);
	if (!have_checkpatch)
		want &= ~RB_CHECKER_BIT(RB_CHECKER_CHECKPATCH);
	if (!have_external)
		want &= ~RB_CHECKER_BIT(RB_CHECKER_EXTERNAL);
	return want;
}

/*
 * "Checks: commit message, checkpatch and build (defconfig)." names only
 * what ran: a checker that could not run (its "checker-problem" finding)
 * is named apart with its reason, so that a review never claims a check
 * that did not happen.
 */
static int add_checks_summary(struct series_ctx *c, unsigned int set,
			      const struct rb_check_opts *opts)
{
	const char *ran[RB_N_CHECKERS], *why[RB_N_CHECKERS];
	struct rb_buf line = RB_BUF_INIT(4096);
	size_t n = 0, n_why = 0, i, k;
	int ret = 0;

	/* sparse inside the build: said when the build is, its problem
	 * is the build's. */
	if (opts->build_sparse && (set & RB_CHECKER_BIT(RB_CHECKER_BUILD)))
		set |= RB_CHECKER_BIT(RB_CHECKER_SPARSE);
	else if (opts->build_sparse)
		set &= ~RB_CHECKER_BIT(RB_CHECKER_SPARSE);
	for (i = 0; i < RB_N_CHECKERS; i++) {
		const char *problem = NULL;
		const char *name = rb_checkers[i]->name;
		bool in_build = i == RB_CHECKER_SPARSE && opts->build_sparse;

		if (!(set & RB_CHECKER_BIT(i)))
			continue;
		for (k = 0; k < c->findings.n && !problem; k++)
			if (!strcmp(c->findings.v[k].checker,
				    in_build ? "build" : name) &&
			    !strcmp(c->findings.v[k].category,
				    "checker-problem"))
				problem = c->findings.v[k].message;
		if (problem && i != RB_CHECKER_SPARSE)
			why[n_why++] = problem;
		else if (!problem)
			ran[n++] = rb_checkers[i]->label;
	}
	ret = rb_buf_puts(&line, "Checks: ");
	for (i = 0; i < n && !ret; i++) {
		ret = rb_buf_printf(&line, "%s%s",
				    i == 0     ? "" :
				    i == n - 1 ? " and " :
						 ", ",
				    ran[i]);
		if (!ret && ran[i] == rb_checkers[RB_CHECKER_BUILD]->label)
			ret = rb_buf_printf(
				&line, " (%s)",
				opts->section_build_config ?
					opts->section_build_config :
				c->p->cfg->check.build_config ?
					c->p->cfg->check.build_config :
					"defconfig");
	}
	if (!ret && !n)
		ret = rb_buf_puts(&line, "none");
	if (!ret)
		ret = rb_buf_putc(&line, '.');
	/* "The build checker did not run: ..." from the runner. */
	for (i = 0; i < n_why && !ret; i++)
		ret = rb_buf_printf(
			&line, " %s%s", why[i],
			*why[i] && why[i][strlen(why[i]) - 1] == '.' ? "" :
								       ".");
	if (!ret)
		ret = add_summary(c, line.ptr);
	rb_buf_release(&line);
	return ret;
}

/*
 * The checkers' options: the config's (checkers.*, filled in place from
 * RB_CHECK_OPTS_INIT) and the governing policy @pol's; @cache is the
 * caller's buffer for the build cache's default path.
 */
static void checker_opts(struct rb_check_opts *opts,
			 const struct rb_config *cfg,
			 const struct rb_policy *pol, char *cache, size_t size)
{
	*opts = cfg->check;
	if (pol) {
		opts->checkpatch_ignore = pol->checkpatch_ignore;
		opts->n_checkpatch_ignore = pol->n_checkpatch_ignore;
		/* The section's build: its config, its extra options. */
		opts->section_build_config = pol->build_config;
		opts->section_build_options = pol->build_options;
		opts->n_section_build_options = pol->n_build_options;
	}
	/* A private build cache beside the store, not in a shared /var/tmp. */
	if (!opts->build_cache_dir && cfg->store_path) {
		const char *slash = strrchr(cfg->store_path, '/');

		if (slash)
			snprintf(cache, size, "%.*s/build-cache",
				 (int)(slash - cfg->store_path),
				 cfg->store_path);
		else
			snprintf(cache, size, "build-cache");
		opts->build_cache_dir = cache;
	}
}

static int run_checkers(struct series_ctx *c)
{
	struct rb_check_opts opts;
	struct rb_check_ctx ctx = { 0 };
	struct rb_check_patch *cp;
	const struct rb_policy *pol = c->scope.pol.governing;
	const struct rb_config *cfg = c->p->cfg;
	bool have_checkpatch = false;
	git_oid *commits = NULL;
	unsigned int set;
	char cache[4096];
	int i, ret;

	cp = calloc((size_t)c->row.total, sizeof(*cp));
	if (!cp)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 1; i <= c->row.total; i++) {
		/* A part left out (another project's) is not checked. */
		if (c->foreign[i])
			continue;
		cp[i - 1].msg = c->msgs[i];
		cp[i - 1].raw = c->raws[i].raw;
		cp[i - 1].raw_len = c->raws[i].len;
		cp[i - 1].origin = c->raws[i].origin;
	}
	ctx.cover = c->msgs[0];
	ctx.patches = cp;
	ctx.n_patches = (size_t)c->n_parts;
	checker_opts(&opts, cfg, pol, cache, sizeof(cache));
	ctx.opts = &opts;
	if (c->applied && c->base_tree) {
		const struct rb_apply_result *ar =
			c->base->attempts[c->base->chosen].result;
		git_object *tip = NULL, *obj = NULL;
		size_t k;

		ctx.repo_path = c->base_tree->path;
		/* The applied commits exist only in the apply's store. */
		ctx.apply = ar;
		git_oid_cpy(&ctx.base, &c->base_oid);
		ctx.has_base = true;
		git_oid_cpy(&ctx.applied, &c->applied_oid);
		ctx.has_applied = true;
		/* Each patch's commit, for the build of each in turn. */
		commits = calloc(ar->n_patches ? ar->n_patches : 1,
				 sizeof(*commits));
		for (k = 0;
		     commits && k < ar->n_patches && ar->patches[k].applied;
		     k++)
			git_oid_cpy(&commits[k], &ar->patches[k].commit);
		if (commits && k == ar->n_patches && k == ctx.n_patches) {
			ctx.patch_commits = commits;
			ctx.n_patch_commits = k;
		}
		/*
		 * The tools (checkpatch.pl and its files, scripts/config) come
		 * from the tree's configured branch tip, never from the base,
		 * which a mail names; checkpatch only where the tip ships it.
		 */
		if (!git_revparse_single(&obj, c->base_tree->repo,
					 c->base_tree->ref) &&
		    !git_object_peel(&tip, obj, GIT_OBJECT_COMMIT)) {
			git_commit *commit = (git_commit *)tip;
			git_tree *tree = NULL;
			git_tree_entry *te = NULL;

			git_oid_cpy(&ctx.tools, git_object_id(tip));
			ctx.has_tools = true;
			if (!git_commit_tree(&tree, commit) &&
			    !git_tree_entry_bypath(&te, tree,
						   "scripts/checkpatch.pl"))
				have_checkpatch = true;
			git_tree_entry_free(te);
			git_tree_free(tree);
		}
		git_error_clear();
		git_object_free(tip);
		git_object_free(obj);
	}
	set = checker_set(c->scope.pol.checkers, c->applied, have_checkpatch,
			  cfg->check.external_cmd != NULL, &opts);
	/* kernel-doc said once: by its checker, not by W=1 in the build. */
	opts.build_no_kdoc = set & RB_CHECKER_BIT(RB_CHECKER_KDOC);
	ret = rb_checks_run_set(&c->findings, &ctx, set);
	free(cp);
	free(commits);
	if (ret)
		return ret;
	return add_checks_summary(c, set, &opts);
}

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
	struct notes_load l = { &c->notes, false };
	size_t i;
	int ret = 0;

	rb_buf_reset(&c->notes);
	for (i = 0; !ret && i < c->scope.n_sections; i++)
		ret = rb_store_each_note(c->p->st, c->scope.sections[i], true,
					 note_row, &l);
	if (!ret && l.full)
		rb_log(RB_LOG_WARN, "model.notes_capped", "series", c->row.id,
		       NULL);
	return ret;
}

/* The model stage is made once per process, from model.* in the config
 * (a job thread borrows its parent's, made before the threads start). */
static int ensure_model(struct rb_pipeline *p)
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
	size_t n = (size_t)c->row.total;
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
	for (i = 1; i <= c->row.total && !ret; i++) {
		const struct rb_message *m = c->msgs[i];
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
	const struct rb_message *m = c->msgs[i];
	size_t k = 0;
	int j;

	/* The apply had one entry per part with a patch (apply_series()). */
	for (j = 1; j < i; j++)
		k += c->msgs[j] && c->msgs[j]->patch;
	ctx->cover_title = c->msgs[0] ? c->msgs[0]->subject.title : NULL;
	ctx->cover_body = c->msgs[0] ? c->msgs[0]->body : NULL;
	ctx->subjects = s->subjects;
	ctx->n_subjects = (size_t)c->row.total;
	ctx->patches = (const char *const *)s->patches;
	ctx->index = i;
	ctx->commit_msg = m->commit_msg;
	ctx->changelog = m->notes;
	ctx->patch = m->patch;
	ctx->patch_len = m->patch_len;
	ctx->range_diff = s->range_diff.len ? s->range_diff.ptr : NULL;
	ctx->prev_review = s->prev_review.len ? s->prev_review.ptr : NULL;
	ctx->interdiff = s->interdiff[i - 1];
	ctx->notes = c->notes.len ? c->notes.ptr : NULL;
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
	ctx->subsystems = c->scope.sections;
	ctx->n_subsystems = c->scope.n_sections;
}

/* For rb_model_patch_ctx.repo_open: the apply's objects, this thread. */
static int model_repo_open(git_repository **out, void *arg)
{
	return rb_apply_repo_open(out, arg);
}

/*
 * The patches of one series under review, taken in turn by the workers
 * of run_model(); each keeps its findings and error apart, merged in
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
	const struct rb_message *m = c->msgs[i];
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
		err = rb_model_review_patch(&w->found[i], &c->usage[i],
					    c->p->model, &ctx);
	git_repository_free(repo);
	if (!err)
		return;
	rb_log(err == -RB_EQUOTA ? RB_LOG_ERROR : RB_LOG_WARN, "model.failed",
	       "series", c->row.id, "reason", rb_errmsg(), NULL);
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
		i = w->stop ? w->c->row.total + 1 : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i > w->c->row.total)
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
static int run_model(struct series_ctx *c)
{
	struct model_work w = { 0 };
	struct rb_model_usage total = { 0 };
	struct rb_model_tools_usage tu;
	struct model_series s = { 0 };
	pthread_t th[64];
	const int max_threads = (int)(sizeof(th) / sizeof(th[0]));
	int i, n = 0, want, ret;

	ret = ensure_model(c->p);
	if (ret)
		return ret;
	if (!c->p->model)
		return 0;
	ret = rb_model_prompt_set_version(c->prompt, c->p->model);
	/* The admin's notes for the sections: in the prompt and in its
	 * version, so that stats split the reviews they reached. */
	if (!ret)
		ret = load_notes(c);
	if (!ret)
		ret = rb_model_prompt_version_notes(c->prompt, c->prompt,
						    c->notes.ptr);
	if (ret)
		return ret;
	if (c->applied && c->base && c->base->ok)
		w.ar = c->base->attempts[c->base->chosen].result;
	c->usage = calloc((size_t)c->row.total + 1, sizeof(*c->usage));
	w.found = calloc((size_t)c->row.total + 1, sizeof(*w.found));
	w.err = calloc((size_t)c->row.total + 1, sizeof(*w.err));
	if (!c->usage || !w.found || !w.err) {
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
	if (want > c->row.total)
		want = c->row.total;
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
		rb_log(RB_LOG_INFO, "model.series_tools", "series", c->row.id,
		       "calls", calls, "bytes", bytes, "refused", refused,
		       NULL);
	}
	for (i = 1; !ret && i <= c->row.total; i++) {
		ret = findings_move(&c->findings, &w.found[i], c->prompt);
		if (w.err[i] && !c->model_err)
			c->model_err = w.err[i];
		rb_model_usage_add(&total, &c->usage[i]);
	}
out:
	for (i = 0; w.found && i <= c->row.total; i++)
		rb_findings_release(&w.found[i]);
	free(w.found);
	free(w.err);
	rb_model_tools_pool_free(w.pool);
	model_series_release(&s, c->row.total);
	if (ret)
		return ret;
	return rb_model_status_line(&c->model_line, c->p->model, &total,
				    c->model_err);
}

/*
 * One problem said once, and only what speaks (review/findings.h,
 * review/checks/rules.h): checkpatch complaints that the base tree shows to be
 * its own style go; rules that are off by default (strict precision
 * under 90% on the labelled set, bench/RESULTS-precision.md) or by the
 * home policy's "rules" go; the same complaint across checkers or lines
 * is one finding; a series nit is said once per series.
 */
static int postprocess(struct series_ctx *c)
{
	const struct rb_policy *gov = c->scope.pol.governing;
	struct rb_findings_post post = RB_FINDINGS_POST_INIT;
	size_t i, dropped = 0;

	if (c->applied && c->base_tree &&
	    rb_checkpatch_filter(&c->findings, c->base_tree->repo, &c->base_oid,
				 &dropped) == -RB_ENOMEM)
		return -RB_ENOMEM;
	if (gov && gov->n_rules) {
		c->rule_sw = calloc(gov->n_rules, sizeof(*c->rule_sw));
		if (!c->rule_sw)
			return rb_err(RB_ENOMEM, "out of memory");
		for (i = 0; i < gov->n_rules; i++) {
			c->rule_sw[i].rule = gov->rule_names[i];
			c->rule_sw[i].on = gov->rule_on[i];
		}
		c->rules.v = c->rule_sw;
		c->rules.n = gov->n_rules;
	}
	/*
	 * Every rule is kept here: a rule that is off is stored as dropped
	 * (filter_findings()), so that stats and bench/precision.sh see what
	 * each rule would have said.
	 */
	post.rules = &c->rules;
	post.all_rules = true;
	return rb_findings_postprocess(&c->findings, &post);
}

/* Suppression by earlier verdicts, then the policy's floor and cap. */
static int filter_findings(struct series_ctx *c)
{
	size_t i, m = 0, n = c->findings.n;
	struct rb_finding *v = NULL;
	bool *keep = NULL, *rejected = NULL, *off = NULL;
	size_t *map = NULL;
	int ret = 0;

	c->states = calloc(n ? n : 1, sizeof(*c->states));
	keep = calloc(n ? n : 1, sizeof(*keep));
	rejected = calloc(n ? n : 1, sizeof(*rejected));
	off = calloc(n ? n : 1, sizeof(*off));
	v = calloc(n ? n : 1, sizeof(*v));
	map = calloc(n ? n : 1, sizeof(*map));
	if (!c->states || !keep || !rejected || !off || !v || !map) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	/* What earlier verdicts reach, with suppress_similar (feedback.h). */
	for (i = 0; i < n && !ret; i++) {
		struct rb_feedback_scope scope = {
			.cfg = c->p->cfg,
			.maint = c->scope.maint,
			.touched = c->scope.touched,
			.series_author = c->row.author,
			.parts = (const struct rb_message *const *)c->msgs,
			.n_parts = (size_t)c->row.total + 1,
			.suppress_similar = c->scope.pol.suppress_similar,
		};

		ret = rb_feedback_suppressed(c->p->st, &scope,
					     &c->findings.v[i], &rejected[i]);
		/* A file of a section that is off is not ours to judge, and
		 * a rule that is off does not speak. */
		off[i] = rb_scope_file_off(&c->scope, c->findings.v[i].file) ||
			 !rb_rule_enabled(&c->rules, c->findings.v[i].checker,
					  c->findings.v[i].category);
	}
	if (ret)
		goto out;
	/* The floor and the cap, over what is left, so that a suppressed
	 * finding does not take a kept one's place. */
	for (i = 0; i < n; i++)
		if (!rejected[i] && !off[i]) {
			v[m] = c->findings.v[i];
			map[m++] = i;
		}
	rb_policy_filter_findings(&c->scope.pol, v, m, keep);
	for (i = 0; i < n; i++)
		c->states[i] = strdup(rejected[i] ? "suppressed" : "dropped");
	for (i = 0; i < m; i++)
		if (keep[i]) {
			free(c->states[map[i]]);
			c->states[map[i]] = strdup("raised");
		}
	for (i = 0; i < n && !ret; i++)
		if (!c->states[i])
			ret = rb_err(RB_ENOMEM, "out of memory");
out:
	free(keep);
	free(rejected);
	free(off);
	free(v);
	free(map);
	return ret;
}

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
	struct outgoing *v = realloc(c->out, (c->n_out + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	c->out = v;
	v = &c->out[c->n_out++];
	memset(v, 0, sizeof(*v));
	rb_buf_init(&v->bytes, 4u << 20);
	rb_buf_init(&v->rcpts, 1u << 20);
	rb_buf_init(&v->lists, 1u << 20);
	rb_buf_init(&v->trusted, 1u << 20);
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
	const struct rb_message *m = c->msgs[idx] ? c->msgs[idx] : c->first;
	bool relay = c->msgs[idx] && c->raws &&
		     rb_scope_relayed(&c->scope, c->msgs[idx], c->raws[idx].raw,
				      c->raws[idx].len);

	return rb_scope_people(who, b, &c->scope, m, relay);
}

/* Whom a reply goes to (queue_reply()). */
enum reply_to {
	REPLY_REVIEW, /* the policy's recipients (rb_policy_recipients()) */
	REPLY_AUTHOR, /* the poster (rb_policy_author_recipients()) */
	REPLY_ADMINS, /* the admins only: the operator's notice */
	REPLY_PRIVATE, /* o->private_to: a private copy (queue_copies()) */
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
	const struct rb_message *m = c->msgs[idx] ? c->msgs[idx] : c->first;
	struct rb_policy_people who = { 0 };
	struct rb_recipients r = { 0 };
	struct rb_reply reply = { 0 };
	struct rb_scope_people_buf pb = { 0 };
	const char **refs = NULL;
	char **env = NULL;
	size_t i, n_env = 0;
	int ret;

	ret = people_of(c, c->msgs[idx] ? idx : c->first_idx, &who, &pb);
	if (!ret && to == REPLY_ADMINS)
		ret = rb_policy_admin_recipients(&r, c->p->cfg);
	else if (!ret && to == REPLY_PRIVATE)
		ret = rb_policy_private_recipients(
			&r, c->p->cfg, (const char *const *)o->private_to,
			o->n_private, o->private_trusted);
	else if (!ret && to == REPLY_AUTHOR)
		ret = rb_policy_author_recipients(&r, &c->scope.pol, c->p->cfg,
						  &who);
	else if (!ret)
		ret = rb_policy_recipients(&r, &c->scope.pol, c->p->cfg, &who);
	if (ret)
		goto out;
	c->p->stats.undeliverable += r.n_undeliverable;
	c->p->stats.refused += r.n_refused;
	c->p->stats.lists_capped += r.n_lists_capped;
	o->idx = idx;
	if (to == REPLY_REVIEW && r.n_private) {
		/* For their private copy (queue_copies()). */
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
		rb_log(RB_LOG_INFO, "review.no_recipient", "series", c->row.id,
		       "kind", o->kind, "why",
		       to == REPLY_ADMINS ?
			       "no admins are configured" :
			       "nobody it may go to can receive mail",
		       NULL);
		o->skip = true;
		c->p->stats.unsent++;
		goto out;
	}
	refs = calloc(m->n_references + 1, sizeof(*refs));
	if (!refs) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < m->n_references; i++)
		refs[i] = m->references[i];
	refs[i] = m->message_id;
	o->capped = (int)r.n_capped;
	c->p->stats.capped += r.n_capped;
	reply.from = c->p->cfg->smtp_from;
	reply.to = (const char *const *)r.to;
	reply.n_to = r.n_to;
	reply.cc = (const char *const *)r.cc;
	reply.n_cc = r.n_cc;
	reply.subject = m->subject_raw ? m->subject_raw : "";
	reply.in_reply_to = m->message_id;
	reply.references = refs;
	reply.n_references = m->n_references + 1;
	reply.date = rb_now();
	/* An admins' notice is shadow mail, whatever the series' mode, and
	 * so is a private copy. */
	reply.policy = to == REPLY_ADMINS || to == REPLY_PRIVATE ?
			       RB_MODE_SHADOW :
			       c->scope.pol.mode;
	reply.series_id = c->row.id;
	reply.body = body;
	ret = rb_compose(&o->bytes, &o->message_id, &reply);
	if (!ret)
		ret = rb_compose_envelope(&o->env_from, &env, &n_env, &reply);
	for (i = 0; !ret && i < n_env; i++)
		ret = rb_buf_printf(&o->rcpts, "%s%s", i ? "\n" : "", env[i]);
	for (i = 0; !ret && i < r.n_lists; i++)
		ret = rb_buf_printf(&o->lists, "%s%s", i ? "\n" : "",
				    r.lists[i]);
	for (i = 0; !ret && i < r.n_trusted; i++)
		ret = rb_buf_printf(&o->trusted, "%s%s", i ? "\n" : "",
				    r.trusted[i]);
	o->words = rb_stage_count_words(body);
out:
	if (env)
		rb_addr_list_free(env, n_env);
	free(refs);
	rb_scope_people_release(&pb);
	rb_recipients_release(&r);
	return ret;
}

/* Shadow mail goes to the home section's own people (issue 36). */
static bool shadow_maintainers(const struct series_ctx *c)
{
	return c->scope.pol.mode == RB_MODE_SHADOW &&
	       c->scope.pol.shadow_to == RB_SHADOW_MAINTAINERS &&
	       c->scope.n_home_people > 0;
}

/*
 * A private copy of each public review for the people who asked for
 * reviews that way ("people": shadow, issue 36): the same text, To:
 * them alone, a reply in the patch's thread like the review, whose
 * findings it carries (a reply to it judges them).
 */
static int queue_copies(struct series_ctx *c)
{
	size_t i, n = c->n_out;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct rb_buf body = RB_BUF_INIT(4u << 20);
		struct outgoing *o;
		char *copy_of;

		if (!c->out[i].n_private || c->out[i].skip ||
		    !c->out[i].message_id)
			continue;
		ret = rb_buf_printf(&body,
				    "A private copy: you asked for reviews "
				    "only this way. The review below went to "
				    "its other recipients.\n\n%s",
				    c->out[i].body);
		copy_of = ret ? NULL : strdup(c->out[i].message_id);
		if (!ret && !copy_of)
			ret = rb_err(RB_ENOMEM, "out of memory");
		/* new_out() may move c->out: index it again after. */
		ret = ret ?: new_out(&o, c, "review-copy", c->out[i].patch_idx);
		if (!ret) {
			o->copy_of = copy_of;
			copy_of = NULL;
			o->private_to = c->out[i].private_to;
			o->n_private = c->out[i].n_private;
			o->private_trusted = c->out[i].private_trusted;
			c->out[i].private_to = NULL;
			c->out[i].n_private = 0;
			ret = queue_reply(c, o, c->out[i].idx, body.ptr,
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
		.override_dir = c->scope.pol.templates_dir,
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
		.mode = c->scope.pol.mode,
		.subsystem = c->scope.pol.subsystem,
		.version = c->row.version,
		.total = c->row.total,
		.title = c->row.title,
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
	int total = c->row.total, i, ret = 0;
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
		const struct rb_message *m = c->msgs[i];
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

	summary = calloc(c->n_summary + 2, sizeof(*summary));
	if (!summary)
		return rb_err(RB_ENOMEM, "out of memory");
	for (k = 0; k < c->n_summary; k++)
		summary[k] = c->summary_v[k];
	ret = rb_versions_range_diff(&c->versions, &rd);
	if (ret)
		goto out;
	if (rd.len)
		summary[k++] = rd.ptr;
	r.head = render_head(c);
	/* The cover letter's own subject: the summary answers it. */
	r.head.version = c->msgs[0]->subject.version;
	r.head.title = c->msgs[0]->subject.title;
	r.head.blocking_text = c->scope.pol.blocking_text;
	r.head.shadow_maintainers = shadow_maintainers(c);
	r.base_name = c->applied && c->base_tree ? c->base_tree->name : NULL;
	r.base_commit = c->applied ? base_hex : NULL;
	r.summary = summary;
	r.n_summary = k;
	r.model_line = c->model_line.len ? c->model_line.ptr : NULL;
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
	if (!cp.n && !c->scope.pol.send_when_empty && !c->versions.prev_id)
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

/* One reply per patch that has findings (or every patch when the policy
 * says send_when_empty). Series-wide findings go with the cover's reply
 * when there is a cover, else with patch 1's. */
static int render_reviews(struct series_ctx *c)
{
	bool when_empty = c->scope.pol.send_when_empty;
	char base_hex[GIT_OID_HEXSZ + 1] = "";
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	struct rb_buf line = RB_BUF_INIT(4096);
	struct rb_finding *sel = NULL;
	struct raised_set raised = { 0 };
	size_t *idx = NULL;
	int i, ret = 0;

	if (c->applied)
		git_oid_tostr(base_hex, sizeof(base_hex), &c->base_oid);
	fix_summary(c);
	if (c->p->cfg->reply_to_cover && c->msgs[0])
		return render_cover_summary(c, base_hex);
	sel = calloc(c->findings.n + 1, sizeof(*sel));
	idx = calloc(c->findings.n + 1, sizeof(*idx));
	if (!sel || !idx) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = c->msgs[0] ? 0 : 1; i <= c->row.total && !ret; i++) {
		const struct rb_message *m = c->msgs[i];
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
			if (pi == i || (pi == 0 && i == 1 && !c->msgs[0])) {
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
		r.mode = c->scope.pol.mode;
		r.subsystem = c->scope.pol.subsystem;
		r.blocking_text = c->scope.pol.blocking_text;
		r.shadow_maintainers = shadow_maintainers(c);
		r.version = m->subject.version;
		r.index = m->subject.index;
		r.total = m->subject.total;
		r.title = m->subject.title;
		r.base_name = c->applied && c->base_tree ? c->base_tree->name :
							   NULL;
		r.base_commit = c->applied ? base_hex : NULL;
		r.summary = c->summary_v;
		r.n_summary = c->n_summary;
		/* This patch's own figures when the model ran on it. */
		rb_buf_reset(&line);
		if (c->usage && i > 0 &&
		    !rb_model_status_line(&line, c->p->model, &c->usage[i],
					  c->model_err))
			r.model_line = line.ptr;
		else
			/* No model, no line: the author cannot turn it on. */
			r.model_line = c->model_line.len ? c->model_line.ptr :
							   NULL;
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
static const char *attempt_name(const struct rb_base_attempt *a)
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

static int render_apply_failure(struct series_ctx *c)
{
	enum rb_apply_notice who =
		rb_policy_apply_failure_notice(&c->scope.pol);
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
		at[i].base_name = attempt_name(a);
		at[i].base_commit = hex[i];
		attempt_age(age[i], sizeof(age[i]), c, a);
		at[i].age = age[i][0] ? age[i] : NULL;
		at[i].patch_index = pi;
		at[i].patch_title = pi > 0 && pi <= c->row.total &&
						    c->msgs[pi] ?
					    c->msgs[pi]->subject.title :
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
	fix_summary(c);
	r.summary = c->summary_v;
	r.n_summary = c->n_summary;
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

static int render_incomplete(struct series_ctx *c)
{
	struct rb_render_incomplete_ctx r = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	int *missing;
	struct outgoing *o = NULL;
	int i, n = 0, ret;

	missing = calloc((size_t)c->row.total + 1, sizeof(*missing));
	if (!missing)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 1; i <= c->row.total; i++)
		if (!c->row.msgids[i])
			missing[n++] = i;
	snprintf(c->detail, sizeof(c->detail), "%d of %d parts missing", n,
		 c->row.total);
	r.head = render_head(c);
	r.missing = missing;
	r.n_missing = (size_t)n;
	r.wait_minutes =
		c->p->force_complete ? 0 : c->p->cfg->incomplete_wait_minutes;
	/* A prefix was reviewed and said nothing: the notice says so. */
	r.reviewed = c->n_parts < c->row.total ? c->n_parts : 0;
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
static int render_not_reviewed(struct series_ctx *c, int tries)
{
	struct rb_render_not_reviewed_ctx r = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	struct outgoing *o = NULL;
	int ret;

	if (!c->scope.pol.report_apply_failures)
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
	int64_t t = c->row.last_date;
	int i;

	for (i = 0; c->raws && i <= c->row.total; i++)
		if (c->raws[i].received_at > t)
			t = c->raws[i].received_at;
	return t;
}

/* When the bot received the series' newest part (0: not known). */
static int64_t last_received(const struct series_ctx *c)
{
	int64_t t = 0;
	int i;

	for (i = 0; c->raws && i <= c->row.total; i++)
		if (c->raws[i].received_at > t)
			t = c->raws[i].received_at;
	return t ? t : c->row.last_date;
}

/* Everything decided, in one transaction with the end of the job. */
/* The series' subsystem, the bases tried and the one it applied on. */
static int write_bases(struct series_ctx *c)
{
	struct rb_store *st = c->p->st;
	char hex[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];
	size_t i;
	int ret;

	ret = rb_store_series_subsystem(st, c->row.id, c->scope.pol.subsystem,
					c->first->list_id);
	for (i = 0; !ret && c->base && i < c->base->n_attempts; i++) {
		const struct rb_base_attempt *a = &c->base->attempts[i];

		git_oid_tostr(hex, sizeof(hex), &a->commit);
		ret = rb_store_add_attempt(st, c->row.id, attempt_name(a), hex,
					   a->applied, (int)a->failed_patch,
					   a->failed_file, (int)a->failed_hunk,
					   a->reason);
	}
	if (!ret && c->applied) {
		git_oid_tostr(hex, sizeof(hex), &c->base_oid);
		git_oid_tostr(hex2, sizeof(hex2), &c->applied_oid);
		ret = rb_store_series_applied(
			st, c->row.id, c->base_tree ? c->base_tree->name : NULL,
			hex, hex2);
	}
	return ret;
}

/*
 * Queues @o in the outbox with the findings it shows (their states are
 * then written and dropped from c->states). The same mail from an
 * earlier run is left as it is.
 */
static int write_outmail(struct series_ctx *c, struct outgoing *o, int64_t now)
{
	struct rb_store *st = c->p->st;
	/* From when the bot received the series' last part: a mail's Date
	 * says when it was written (a replayed 2019 mail, 2019). */
	int64_t latency = now - last_received(c);
	struct rb_outmail m = {
		.message_id = o->message_id,
		.series_id = c->row.id,
		.kind = o->kind,
		.patch_idx = o->patch_idx,
		.env_from = o->env_from,
		.rcpts = o->rcpts.ptr,
		.lists = o->lists.ptr,
		.trusted = o->trusted.ptr,
		.bytes = o->bytes.ptr,
		.len = o->bytes.len,
		.words = o->words,
		.findings = (int)o->n,
		.send_after = rb_policy_send_after(&c->scope.pol, last_seen(c)),
		.policy = rb_mode_name(c->scope.pol.mode),
		.subsystem = c->scope.pol.subsystem,
		.latency = latency > 0 ? latency : 0,
		.capped = o->capped,
		.copy_of = o->copy_of,
	};
	size_t k;
	int ret;

	if (o->skip)
		return 0;
	/* A copy's cost is its review's. */
	if (c->usage && !o->copy_of && o->patch_idx > 0 &&
	    o->patch_idx <= c->row.total) {
		const struct rb_model_usage *u = &c->usage[o->patch_idx];

		m.model = rb_model_name(c->p->model);
		m.prompt = c->prompt[0] ? c->prompt : NULL;
		m.tokens_in = u->tokens_in;
		m.tokens_out = u->tokens_out;
		m.cost = u->cost;
	}
	ret = rb_store_add_outmail(st, &m);
	if (ret == -RB_EEXISTS) /* The same mail from an earlier run. */
		return 0;
	c->p->stats.queued++;
	for (k = 0; !ret && k < o->n; k++) {
		char fid[16];
		size_t fi = o->finding_idx[k];

		snprintf(fid, sizeof(fid), "F%d", o->ids[k]);
		ret = rb_store_add_finding(st, c->row.id, o->message_id, fid,
					   &c->findings.v[fi], c->states[fi]);
		free(c->states[fi]);
		c->states[fi] = NULL;
	}
	return ret;
}

static int write_results(struct series_ctx *c)
{
	struct rb_store *st = c->p->st;
	int64_t now = rb_now();
	size_t i;
	int ret;

	ret = rb_store_begin(st);
	if (ret)
		return ret;
	ret = write_bases(c);
	for (i = 0; !ret && i < c->n_out; i++)
		ret = write_outmail(c, &c->out[i], now);
	/* Findings not shown in any mail are kept for the stats. */
	for (i = 0; !ret && c->states && i < c->findings.n; i++)
		if (c->states[i])
			ret = rb_store_add_finding(st, c->row.id, NULL, NULL,
						   &c->findings.v[i],
						   c->states[i]);
	/* The link to v(n), patch-ids, fixed findings, repeats. */
	if (!ret)
		ret = rb_versions_write(&c->versions, st, c->row.id,
					&c->findings);
	if (!ret)
		ret = rb_store_set_series_state(st, c->row.id, c->series_state,
						c->detail[0] ? c->detail :
							       NULL);
	if (!ret && c->defer_until)
		ret = rb_store_job_retry(st, c->job->id, c->defer_until,
					 c->detail);
	else if (!ret)
		ret = rb_store_job_done_by(st, c->job->id,
					   c->p->owner ? c->p->owner : "local",
					   c->job_error);
	if (ret) {
		rb_store_rollback(st);
		if (ret == -RB_ELOCKED) {
			/* Another worker owns the job now: its results count. */
			rb_log(RB_LOG_WARN, "review.lease_lost", "series",
			       c->row.id, "reason", rb_errmsg(), NULL);
			return 0;
		}
		return ret;
	}
	return rb_store_commit(st);
}

static int end_job(struct rb_pipeline *p, const struct rb_job *job,
		   const char *state, const char *why)
{
	int ret = rb_store_begin(p->st);

	if (ret)
		return ret;
	ret = rb_store_set_series_state(p->st, job->key, state, why);
	if (!ret)
		ret = rb_store_job_done(p->st, job->id, why);
	if (ret) {
		rb_store_rollback(p->st);
		return ret;
	}
	return rb_store_commit(p->st);
}

static int fail_job(struct rb_pipeline *p, const struct rb_job *job,
		    const char *why)
{
	return end_job(p, job, "error", why);
}

/* The top-level tree of @t's branch tip, or NULL. */
static git_tree *top_tree(const struct tree *t)
{
	git_object *obj = NULL, *commit = NULL;
	git_tree *tree = NULL;

	if (!git_revparse_single(&obj, t->repo, t->ref) &&
	    !git_object_peel(&commit, obj, GIT_OBJECT_COMMIT))
		git_commit_tree(&tree, (git_commit *)commit);
	git_object_free(commit);
	git_object_free(obj);
	git_error_clear();
	return tree;
}

/* Is every path @d writes at the top level of one of @tops[0..n)?
 * Else the first that is not, in @bad. */
static bool diff_in_trees(const struct rb_diff *d, git_tree *const *tops,
			  size_t n, char *bad, size_t size)
{
	size_t f, side, k;

	for (f = 0; f < d->n_files; f++) {
		for (side = 0; side < 2; side++) {
			const char *path = side ? d->files[f].old_path :
						  d->files[f].new_path;
			size_t len = path ? strcspn(path, "/") : 0;
			char top[256];
			bool found = false;

			if (!len)
				continue;
			if (len >= sizeof(top))
				len = sizeof(top) - 1;
			memcpy(top, path, len);
			top[len] = '\0';
			for (k = 0; k < n && !found; k++)
				found = git_tree_entry_byname(tops[k], top);
			if (!found) {
				snprintf(bad, size, "%s", path);
				return false;
			}
		}
	}
	return true;
}

/* The first part we have after some were dropped: the cover, else the
 * first patch. */
static void refirst(struct series_ctx *c)
{
	int i;

	c->first = NULL;
	for (i = 1; i <= c->row.total && !c->first; i++)
		if (c->msgs[i]) {
			c->first = c->msgs[i];
			c->first_idx = i;
		}
	if (c->msgs[0]) {
		c->first = c->msgs[0];
		c->first_idx = 0;
	}
}

/*
 * Scope before anything is said (issue 34): a list such as linux-api
 * carries patches for other projects (man-pages, glibc, numactl,
 * coreutils, iproute2, xfsprogs), whose paths ("man2/prctl.2",
 * "csu/libc-start.c", "libnuma.c") are not in a kernel tree. A patch is
 * for these trees when every path it writes starts with a name (a
 * directory or a file) at the top level of some configured tree's branch
 * tip. The patches that are not are left out, before scope, apply or any
 * checker, and every mail about the rest says so; a series none of whose
 * patches is for these trees is recorded ("skipped", with the first such
 * path in c->detail) and nobody is told anything: no review, no
 * apply-failure or incomplete notice. Returns how many patches were left
 * out, and sets *@none when that was all of them.
 */
static int drop_foreign(struct series_ctx *c, bool *none)
{
	struct rb_buf line = RB_BUF_INIT(4096);
	git_tree **tops = NULL;
	char bad[256], first_bad[256] = "";
	size_t n = 0, k;
	int i, kept = 0, dropped = 0, ret = 0;

	*none = false;
	if (!c->n_trees)
		return 0;
	tops = calloc(c->n_trees, sizeof(*tops));
	if (!tops)
		return rb_err(RB_ENOMEM, "out of memory");
	for (k = 0; k < c->n_trees; k++)
		if ((tops[n] = top_tree(&c->trees[k])))
			n++;
	for (i = 1; n && i <= c->row.total; i++) {
		struct rb_diff *d = NULL;
		const struct rb_message *m = c->msgs[i];
		bool in;

		if (!m || !m->patch ||
		    rb_diff_parse(&d, m->patch, m->patch_len)) {
			kept += m != NULL;
			continue;
		}
		in = diff_in_trees(d, tops, n, bad, sizeof(bad));
		rb_diff_free(d);
		if (in) {
			kept++;
			continue;
		}
		if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad), "%s", bad);
		c->foreign[i] = true;
		dropped++;
	}
	for (k = 0; k < n; k++)
		git_tree_free(tops[k]);
	free(tops);
	if (!dropped)
		goto out;
	if (!kept) {
		*none = true;
		snprintf(c->detail, sizeof(c->detail),
			 "not for these trees: %s is outside the top-level "
			 "directories of every configured tree; nothing sent",
			 first_bad);
		goto out;
	}
	/* "Patches 2/3 and 3/3 change files of other projects ..." */
	ret = rb_buf_puts(&line, dropped > 1 ? "Patches " : "Patch ");
	for (i = 1, k = 0; !ret && i <= c->row.total; i++) {
		if (!c->foreign[i])
			continue;
		ret = rb_buf_printf(&line, "%s%d/%d",
				    !k			     ? "" :
				    k + 1 == (size_t)dropped ? " and " :
							       ", ",
				    i, c->row.total);
		k++;
		rb_message_free(c->msgs[i]);
		c->msgs[i] = NULL;
	}
	if (!ret)
		ret = rb_buf_printf(&line,
				    " change%s files outside these trees (%s): "
				    "%s for another project and %s not looked "
				    "at.",
				    dropped > 1 ? "" : "s", first_bad,
				    dropped > 1 ? "they are" : "it is",
				    dropped > 1 ? "were" : "was");
	if (!ret)
		ret = add_summary(c, line.ptr);
	refirst(c);
out:
	rb_buf_release(&line);
	return ret;
}

/*
 * v(n+1) of a stored series: which parts are unchanged since v(n) (not
 * reviewed again) and what v(n) raised, from the parsed parts in memory;
 * a line in every mail names the unchanged parts.
 */
static int compare_versions(struct series_ctx *c)
{
	struct rb_versions_in in = {
		.st = c->p->st,
		.series_id = c->row.id,
		.version = c->row.version,
		.author = c->row.author,
		.title = c->row.title,
		.assembled_previous = c->row.previous,
		.msgs = c->msgs,
		.total = c->row.total,
		.n_parts = c->n_parts,
		.cover_raw = c->raws && c->raws[0].raw ? c->raws[0].raw : NULL,
		.cover_len = c->raws ? c->raws[0].len : 0,
		.max_size = max_size(c->p),
	};
	struct rb_buf line = RB_BUF_INIT(8192);
	int ret;

	const struct rb_message *p1 = c->row.total ? c->msgs[1] : NULL;
	struct rb_threads_in tin = {
		.st = c->p->st,
		.series_id = c->row.id,
		.author = c->row.author,
		/* B4 Relay posts as devnull+...@kernel.org; she answers as
		 * herself (bot/stages/feedback.c reads her the same way). */
		.poster =
			c->row.author && rb_message_relay_addr(c->row.author) &&
					p1 && p1->author.addr ?
				p1->author.addr :
				NULL,
		.msgids = c->row.msgids,
		.newest = c->row.last_date,
		.max_size = max_size(c->p),
		.earlier = c->p->cfg->earlier_replies,
	};

	ret = rb_versions_prepare(&c->versions, &in);
	/* Who replied to which line, on v(n) and on this version. */
	if (!ret)
		ret = rb_threads_collect(&c->versions, &tin);
	c->versions.mark_quoted = c->scope.pol.already_quoted == RB_AQ_MARK;
	if (!ret)
		ret = rb_versions_unchanged_line(&c->versions, &line);
	if (!ret && line.len)
		ret = add_summary(c, line.ptr);
	rb_buf_release(&line);
	return ret;
}

/* Whether the policy names @t: a policy that names no bases uses all. */
static bool policy_tree(const struct series_ctx *c, const struct tree *t)
{
	const struct rb_policy *pol = c->scope.pol.governing;
	size_t k;

	if (!pol || !pol->n_bases)
		return true;
	for (k = 0; k < pol->n_bases; k++)
		if (!strcmp(pol->bases[k], t->name))
			return true;
	return false;
}

static bool head_of(git_oid *out, const struct tree *t)
{
	git_object *obj = NULL, *commit = NULL;
	bool ok = !git_revparse_single(&obj, t->repo, t->ref) &&
		  !git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);

	if (ok)
		git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	git_error_clear();
	return ok;
}

/*
 * Before any "does not apply": every tree the policy names whose last
 * fetch is older than its fetch_minutes is fetched now (bot/stages/trees.h).
 * Returns how many trees moved, so that the series is tried again on
 * their new heads; a failed fetch is logged and changes nothing.
 */
static size_t refresh_trees(struct series_ctx *c)
{
	int64_t now = rb_now();
	size_t i, moved = 0;

	for (i = 0; i < c->n_trees; i++) {
		struct tree *t = &c->trees[i];
		git_oid before, after;
		bool had;

		if (!t->cfg || !policy_tree(c, t) ||
		    !rb_tree_due(t->cfg, t->repo, now))
			continue;
		had = head_of(&before, t);
		rb_log(RB_LOG_INFO, "review.refetch", "series", c->row.id,
		       "tree", t->name, NULL);
		if (rb_tree_fetch(&after, t->repo, t->cfg,
				  c->p->owner ? c->p->owner : "local")) {
			rb_err_clear();
			continue;
		}
		if (!had || !git_oid_equal(&before, &after))
			moved++;
	}
	return moved;
}

/*
 * How long a series that applies nowhere waits for the trees' next
 * fetch before its notice: review.apply_retry_minutes, or one fetch
 * cycle of the trees the policy names (0 when none is fetched).
 */
static int retry_minutes(const struct series_ctx *c)
{
	int m = c->p->cfg->apply_retry_minutes;
	size_t i;

	if (m >= 0)
		return m;
	m = 0;
	for (i = 0; i < c->n_trees; i++) {
		const struct tree *t = &c->trees[i];

		if (t->cfg && policy_tree(c, t) && rb_tree_fetchable(t->cfg) &&
		    t->cfg->fetch_minutes > m)
			m = t->cfg->fetch_minutes;
	}
	return m;
}

/* A line naming the findings of v(n) that this version fixed, and one
 * counting those not said again because the thread had (issue 37). */
static int versions_fixed(struct series_ctx *c)
{
	struct rb_buf line = RB_BUF_INIT(8192);
	size_t i, n = 0;
	int ret;

	ret = rb_versions_fixed_line(&c->versions, &line);
	if (!ret && line.len)
		ret = add_summary(c, line.ptr);
	for (i = 0; c->versions.quoted_of && i < c->findings.n; i++)
		n += c->versions.quoted_of[i] && c->states[i] &&
		     !strcmp(c->states[i], "dropped");
	rb_buf_reset(&line);
	if (!ret && n)
		ret = rb_buf_printf(&line,
				    "%zu finding%s not said again: a reply in "
				    "the thread had quoted %s line%s.",
				    n, n > 1 ? "s" : "",
				    n > 1 ? "their" : "its", n > 1 ? "s" : "");
	if (!ret && line.len)
		ret = add_summary(c, line.ptr);
	rb_buf_release(&line);
	return ret;
}

/* The last base tried hit a limit of the apply options (base.h). */
static bool over_limit(const struct series_ctx *c)
{
	return c->base && c->base->limit && c->base->n_attempts;
}

/* Apply, then the checkers, the model, the filters and the mails. */
static int review_series(struct series_ctx *c)
{
	struct rb_pipeline *p = c->p;
	int ret, wait;

	ret = apply_series(c);
	if (!ret && !over_limit(c) && c->n_trees && !c->applied &&
	    refresh_trees(c)) {
		/* A tree moved: the series is tried again on its new head. */
		rb_base_report_free(c->base);
		c->base = NULL;
		ret = apply_series(c);
	}
	/*
	 * Over a limit of the series itself (its size, the apply's memory
	 * or time budget): no fetch or wait makes it fit; the notice says
	 * which limit it hit, now.
	 */
	if (!ret && over_limit(c)) {
		c->series_state = "apply_failed";
		p->stats.apply_failed++;
		snprintf(c->detail, sizeof(c->detail), "over a limit: %.400s",
			 c->base->attempts[c->base->n_attempts - 1].reason ?
				 c->base->attempts[c->base->n_attempts - 1]
					 .reason :
				 "?");
		return render_apply_failure(c);
	}
	wait = ret || c->applied ? 0 : retry_minutes(c);
	if (!ret && c->n_trees && !c->applied && wait > 0 &&
	    !p->force_complete &&
	    (!c->row.state || strcmp(c->row.state, "apply_waiting"))) {
		/*
		 * Not yet "does not apply": a series posted minutes before
		 * its tree is updated would get a false one. The job waits
		 * for one more fetch cycle and runs again; the notice goes
		 * out only when the series still applies nowhere then.
		 */
		char mins[16];

		c->series_state = "apply_waiting";
		c->defer_until = rb_now() + (int64_t)wait * 60;
		snprintf(c->detail, sizeof(c->detail),
			 "applies on none of %zu bases; tried again in %d "
			 "minutes, after the trees' next fetch",
			 c->base ? c->base->n_attempts : 0, wait);
		snprintf(mins, sizeof(mins), "%d", wait);
		rb_log(RB_LOG_INFO, "review.apply_deferred", "series",
		       c->row.id, "minutes", mins, NULL);
		p->stats.deferred++;
		return 0;
	}
	if (!ret && c->n_trees && !c->applied) {
		c->series_state = "apply_failed";
		p->stats.apply_failed++;
		snprintf(c->detail, sizeof(c->detail),
			 "applies on none of %zu bases",
			 c->base ? c->base->n_attempts : 0);
		return render_apply_failure(c);
	}
	if (ret)
		return ret;
	c->series_state = "reviewed";
	ret = compare_versions(c);
	if (!ret)
		ret = run_checkers(c);
	if (!ret)
		ret = run_model(c);
	if (!ret)
		ret = postprocess(c);
	if (!ret)
		rb_versions_drop_unchanged(&c->versions, &c->findings);
	if (!ret)
		ret = filter_findings(c);
	if (!ret) {
		/* Whose quote of a finding's line may keep it unsaid. */
		struct rb_threads_trust_in tr = {
			.st = c->p->st,
			.people = c->scope.touched_people,
			.n_people = c->scope.n_touched_people,
			.admins = (const char *const *)c->p->cfg->admins,
			.n_admins = c->p->cfg->n_admins,
			.require_dkim = c->scope.pol.require_dkim,
		};

		ret = rb_threads_trust(&c->versions, &c->findings,
				       (const char *const *)c->states, &tr);
	}
	if (!ret)
		ret = rb_versions_filter(&c->versions, &c->findings, c->states,
					 c->msgs);
	if (!ret)
		ret = versions_fixed(c);
	if (!ret)
		ret = render_reviews(c);
	if (!ret)
		ret = queue_copies(c);
	p->stats.reviewed++;
	return ret;
}

/* The To: and Cc: of a part, as one comparable string. */
static int recipients_of(const struct rb_message *m, struct rb_buf *b)
{
	size_t i;
	int ret = 0;

	rb_buf_reset(b);
	for (i = 0; !ret && i < m->to.n; i++)
		if (m->to.v[i].addr)
			ret = rb_buf_printf(b, "%s\n", m->to.v[i].addr);
	for (i = 0; !ret && i < m->cc.n; i++)
		if (m->cc.v[i].addr)
			ret = rb_buf_printf(b, "%s\n", m->cc.v[i].addr);
	return ret;
}

/*
 * The parts we miss went to lists we do not read, evidently: the parts we
 * have (the cover among them) were sent to different recipients, because
 * the author chose the lists per patch; or a single part of a series came
 * without its cover, because the list was Cc'd on that patch alone.
 */
static bool sent_elsewhere(const struct series_ctx *c)
{
	struct rb_buf a = RB_BUF_INIT(1u << 20), b = RB_BUF_INIT(1u << 20);
	bool differ = false, have = false;
	int i, n = 0;

	for (i = 0; i <= c->row.total; i++)
		n += c->msgs[i] != NULL;
	if (n == 1 && !c->msgs[0] && c->row.total > 1)
		return true;
	for (i = 0; i <= c->row.total && !differ; i++) {
		if (!c->msgs[i])
			continue;
		if (!have) {
			have = !recipients_of(c->msgs[i], &a);
			continue;
		}
		if (!recipients_of(c->msgs[i], &b))
			differ = a.len != b.len || memcmp(a.ptr, b.ptr, a.len);
	}
	rb_buf_release(&a);
	rb_buf_release(&b);
	return differ;
}

/* How many of patches 1..N are here. */
static int present_parts(const struct series_ctx *c)
{
	int i, n = 0;

	for (i = 1; i <= c->row.total; i++)
		n += c->msgs[i] != NULL;
	return n;
}

/* How many patches from 1/N on are here without a gap. */
static int present_prefix(const struct series_ctx *c)
{
	int k = 0;

	while (k < c->row.total && c->msgs[k + 1])
		k++;
	return k;
}

/*
 * Reviews patches 1..@k of an incomplete series (policy incomplete:
 * review-prefix): the parts after the first gap may not apply without
 * it, so they wait; every mail says which parts did not arrive.
 */
static int review_prefix(struct series_ctx *c, int k)
{
	struct rb_buf line = RB_BUF_INIT(4096);
	int i, n = 0, ret = 0;

	for (i = k + 1; i <= c->row.total; i++) {
		if (c->msgs[i]) {
			rb_message_free(c->msgs[i]);
			c->msgs[i] = NULL;
			continue;
		}
		n++;
	}
	/* "Patch 8/9 did not ..." or "Patches 8/9, 9/9 did not ..." */
	ret = rb_buf_puts(&line, n > 1 ? "Patches " : "Patch ");
	for (i = k + 1; i <= c->row.total && !ret; i++)
		if (!c->row.msgids[i])
			ret = rb_buf_printf(&line, "%s%d/%d",
					    i > k + 1 ? ", " : "", i,
					    c->row.total);
	if (!ret)
		ret = rb_buf_printf(&line,
				    " did not reach the list; only patches 1 "
				    "to %d of %d were looked at.",
				    k, c->row.total);
	if (!ret)
		ret = add_summary(c, line.ptr);
	rb_buf_release(&line);
	c->n_parts = k;
	if (!ret)
		ret = review_series(c);
	if (ret || strcmp(c->series_state, "reviewed"))
		return ret;
	c->series_state = "incomplete";
	snprintf(c->detail, sizeof(c->detail),
		 "patches 1 to %d of %d reviewed; %d missing", k, c->row.total,
		 n);
	/*
	 * A clean prefix sends no review (send_when_empty), so nobody would
	 * learn that a part is missing: the author gets the notice, which
	 * says the prefix was reviewed, unless the parts evidently went to
	 * other lists.
	 */
	if (!c->n_out && !sent_elsewhere(c))
		ret = render_incomplete(c);
	return ret;
}

int rb_review_job(struct rb_pipeline *p, const struct rb_job *job)
{
	struct series_ctx c = { .p = p, .job = job };
	bool incomplete = !strcmp(job->kind, "incomplete"), none_here = false;
	int ret;

	rb_buf_init(&c.summary, 64 * 1024);
	rb_buf_init(&c.model_line, 4096);
	rb_buf_init(&c.notes, RB_BUF_NOLIMIT);
	rb_prereq_init(&c.prereq);
	ret = load_messages(&c);
	if (!ret)
		ret = open_trees(&c);
	if (!ret)
		ret = drop_foreign(&c, &none_here);
	if (!ret)
		ret = resolve_scope(&c);
	if (ret)
		goto out;
	c.n_parts = c.row.total;
	if (none_here) {
		/* The one place a series of another project stops. */
		c.series_state = "skipped";
		p->stats.foreign++;
		rb_log(RB_LOG_INFO, "review.not_for_these_trees", "series",
		       c.row.id, "detail", c.detail, NULL);
	} else if (c.scope.pol.mode == RB_MODE_OFF) {
		c.series_state = "skipped";
		snprintf(c.detail, sizeof(c.detail), "policy: off for %s%s%s%s",
			 c.scope.pol.prefix ? "a [" : "",
			 c.scope.pol.prefix ? c.scope.pol.prefix : "",
			 c.scope.pol.prefix ? "] series of " : "",
			 c.scope.pol.subsystem ? c.scope.pol.subsystem :
						 "this series");
	} else if (!p->cfg->review_stable &&
		   rb_subject_is_stable(&c.first->subject)) {
		c.series_state = "skipped";
		snprintf(c.detail, sizeof(c.detail),
			 "a stable review series: not reviewed "
			 "(series.review_stable)");
	} else if (rb_policy_skip_author(&c.scope.pol,
					 c.first->author.addr ?
						 c.first->author.addr :
						 c.first->from.addr)) {
		c.series_state = "skipped";
		snprintf(c.detail, sizeof(c.detail),
			 "policy: author is in skip_authors");
	} else if (incomplete && c.scope.pol.incomplete == RB_INC_IGNORE) {
		c.series_state = "incomplete";
		snprintf(c.detail, sizeof(c.detail),
			 "parts missing; the policy ignores incomplete series");
	} else if (incomplete &&
		   c.scope.pol.incomplete == RB_INC_REVIEW_PREFIX &&
		   present_prefix(&c) > 0) {
		ret = review_prefix(&c, present_prefix(&c));
	} else if (incomplete && sent_elsewhere(&c)) {
		c.series_state = "incomplete";
		snprintf(c.detail, sizeof(c.detail),
			 "%d of %d parts missing; the parts here were sent to "
			 "other recipients than the rest (the author Cc'd "
			 "lists per patch): no notice",
			 c.row.total - present_parts(&c), c.row.total);
	} else if (incomplete) {
		c.series_state = "incomplete";
		ret = render_incomplete(&c);
		p->stats.reviewed++;
	} else {
		ret = review_series(&c);
	}
	if (!ret)
		ret = write_results(&c);
out:
	if (ret && ret != -RB_EAGAIN && ret != -RB_ESTORE) {
		/* This series cannot be reviewed: record why, go on. */
		char why[1024];

		snprintf(why, sizeof(why), "%s", rb_errmsg());
		rb_log(RB_LOG_ERROR, "review.failed", "series", job->key,
		       "reason", why, NULL);
		rb_log_plain("reviewbot: series <%s>: %s\n", job->key, why);
		ret = fail_job(p, job, why);
	}
	release(&c);
	return ret;
}

int rb_review_model_prepare(struct rb_pipeline *p)
{
	return ensure_model(p);
}

int rb_review_quarantine(struct rb_pipeline *p, const struct rb_job *job,
			 bool notice)
{
	struct series_ctx c = { .p = p, .job = job };
	char why[512];
	int ret;

	snprintf(why, sizeof(why),
		 "quarantined: the worker died %d times while it had this "
		 "job (limits.max_job_attempts); not tried again",
		 job->lost);
	rb_log(RB_LOG_ERROR, "job.quarantined", "kind", job->kind, "key",
	       job->key, "notice", notice ? "yes" : "no", NULL);
	fprintf(stderr, "reviewbot: %s <%s>: %s\n", job->kind, job->key, why);
	if (!notice)
		return end_job(p, job, "quarantined", why);
	rb_buf_init(&c.summary, 64 * 1024);
	rb_buf_init(&c.model_line, 4096);
	rb_prereq_init(&c.prereq);
	c.series_state = "quarantined";
	c.job_error = why;
	snprintf(c.detail, sizeof(c.detail), "%s", why);
	/* Only what the notice needs: the parts, the trees, the policy. */
	ret = load_messages(&c);
	if (!ret)
		ret = open_trees(&c);
	if (!ret)
		ret = resolve_scope(&c);
	if (!ret && c.scope.pol.mode != RB_MODE_OFF)
		ret = render_not_reviewed(&c, job->lost);
	if (!ret)
		ret = write_results(&c);
	if (ret && ret != -RB_EAGAIN && ret != -RB_ESTORE) {
		/* No notice then: the quarantine itself still holds. */
		char full[1024];

		snprintf(full, sizeof(full), "%s; no notice: %s", why,
			 rb_errmsg());
		ret = end_job(p, job, "quarantined", full);
	}
	release(&c);
	return ret;
}
