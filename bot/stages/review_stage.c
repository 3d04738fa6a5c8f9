// SPDX-License-Identifier: GPL-2.0-only
/*
 * review_stage.c - the review of one series. See review_stage.h.
 *
 * Order (DESIGN.md, the pipeline): subsystem and policy from MAINTAINERS
 * of the trusted tree; base selection and in-memory apply (fact 9);
 * checkers; the model stage; suppression of findings judged false before;
 * the policy's severity floor and cap; render; compose. Everything it
 * decides is written in one transaction with the job's end. The model
 * step is review_model.c, the mails review_mail.c; what they share is
 * review_ctx.h.
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

static void release(struct series_ctx *c)
{
	size_t i, k;

	free(c->foreign);
	for (i = 0; i < c->n_trees; i++)
		git_repository_free(c->trees[i].repo);
	free(c->trees);
	free(c->rule_sw);
	rb_base_report_free(c->base);
	rb_prereq_release(&c->prereq);
	for (i = 0; i < c->findings.n; i++)
		free(c->states ? c->states[i] : NULL);
	free(c->states);
	rb_findings_release(&c->findings);
	rb_buf_release(&c->summary.buf);
	rb_buf_release(&c->model.line);
	rb_buf_release(&c->model.notes);
	free(c->model.usage);
	for (i = 0; i < c->mail.n_out; i++) {
		rb_reply_mail_release(&c->mail.out[i].mail);
		free(c->mail.out[i].finding_idx);
		free(c->mail.out[i].ids);
		for (k = 0; k < c->mail.out[i].n_private; k++)
			free(c->mail.out[i].private_to[k]);
		free(c->mail.out[i].private_to);
		free(c->mail.out[i].body);
		free(c->mail.out[i].copy_of);
	}
	free(c->mail.out);
	rb_versions_release(&c->versions);
	rb_series_view_release(&c->view);
}

static int load_messages(struct series_ctx *c)
{
	int ret;

	ret = rb_series_view_load(&c->view, c->p->st, c->job->key,
				  rb_series_max_size(c->p->cfg),
				  RB_VIEW_KEEP_RAW);
	if (ret)
		return ret;
	c->foreign = calloc((size_t)c->view.row.total + 1, sizeof(*c->foreign));
	if (!c->foreign)
		return rb_err(RB_ENOMEM, "out of memory");
	c->first = c->view.first_patch;
	c->first_idx = c->view.first_patch_idx;
	if (c->view.msgs[0])
		c->first_idx = 0;
	if (!c->first)
		c->first = c->view.msgs[0];
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
	return rb_series_view_scope(&c->view, c->p, c->first->list_id);
}

static int add_summary(struct series_ctx *c, const char *line)
{
	if (c->summary.n >= sizeof(c->summary.v) / sizeof(c->summary.v[0]))
		return 0;
	/* Pointers are fixed up after the buffer stops growing. */
	c->summary.v[c->summary.n++] =
		(const char *)(uintptr_t)c->summary.buf.len;
	return rb_buf_add(&c->summary.buf, line, strlen(line) + 1);
}

void rb_review_fix_summary(struct series_ctx *c)
{
	size_t i;

	if (c->summary.fixed)
		return;
	c->summary.fixed = true;
	for (i = 0; i < c->summary.n; i++)
		c->summary.v[i] =
			c->summary.buf.ptr + (uintptr_t)c->summary.v[i];
}

/*
 * Trees in the order to try: the policy's bases first, then every other
 * configured tree in config order (linux-next and mainline last, as the
 * config lists them).
 */
static size_t order_trees(struct series_ctx *c, struct rb_base_tree *out)
{
	const struct rb_policy *pol = c->view.scope.pol.governing;
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
	ap = calloc((size_t)c->view.row.total, sizeof(*ap));
	bt = calloc(c->n_trees, sizeof(*bt));
	if (!ap || !bt) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; i <= (size_t)c->view.row.total; i++) {
		const struct rb_message *m = c->view.msgs[i];

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
	if (c->view.msgs[0] && !req.base_commit)
		req.base_commit =
			rb_message_trailer(c->view.msgs[0], "base-commit");
	req.patches = ap;
	req.n_patches = n;
	apply_opts(&opts, c);
	/* b4's prerequisites, from the store, go first on every base. */
	if (!c->prereq_done) {
		c->prereq_done = true;
		ret = rb_prereq_resolve(&c->prereq, c->p, c->view.row.id,
					c->view.msgs,
					(size_t)c->view.row.total + 1);
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
	const struct rb_policy *pol = c->view.scope.pol.governing;
	const struct rb_config *cfg = c->p->cfg;
	bool have_checkpatch = false;
	git_oid *commits = NULL;
	unsigned int set;
	char cache[4096];
	int i, ret;

	cp = calloc((size_t)c->view.row.total, sizeof(*cp));
	if (!cp)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 1; i <= c->view.row.total; i++) {
		/* A part left out (another project's) is not checked. */
		if (c->foreign[i])
			continue;
		cp[i - 1].msg = c->view.msgs[i];
		cp[i - 1].raw = c->view.raws[i].raw;
		cp[i - 1].raw_len = c->view.raws[i].len;
		cp[i - 1].origin = c->view.raws[i].origin;
	}
	ctx.cover = c->view.msgs[0];
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
	set = checker_set(c->view.scope.pol.checkers, c->applied,
			  have_checkpatch, cfg->check.external_cmd != NULL,
			  &opts);
	/* kernel-doc said once: by its checker, not by W=1 in the build. */
	opts.build_no_kdoc = set & RB_CHECKER_BIT(RB_CHECKER_KDOC);
	ret = rb_checks_run_set(&c->findings, &ctx, set);
	free(cp);
	free(commits);
	if (ret)
		return ret;
	return add_checks_summary(c, set, &opts);
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
	const struct rb_policy *gov = c->view.scope.pol.governing;
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
			.maint = c->view.scope.maint,
			.touched = c->view.scope.touched,
			.series_author = c->view.row.author,
			.parts = (const struct rb_message *const *)c->view.msgs,
			.n_parts = (size_t)c->view.row.total + 1,
			.suppress_similar = c->view.scope.pol.suppress_similar,
		};

		ret = rb_feedback_suppressed(c->p->st, &scope,
					     &c->findings.v[i], &rejected[i]);
		/* A file of a section that is off is not ours to judge, and
		 * a rule that is off does not speak. */
		off[i] = rb_scope_file_off(&c->view.scope,
					   c->findings.v[i].file) ||
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
	rb_policy_filter_findings(&c->view.scope.pol, v, m, keep);
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

/* Everything decided, in one transaction with the end of the job. */
/* The series' subsystem, the bases tried and the one it applied on. */
static int write_bases(struct series_ctx *c)
{
	struct rb_store *st = c->p->st;
	char hex[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];
	size_t i;
	int ret;

	ret = rb_store_series_subsystem(st, c->view.row.id,
					c->view.scope.pol.subsystem,
					c->first->list_id);
	for (i = 0; !ret && c->base && i < c->base->n_attempts; i++) {
		const struct rb_base_attempt *a = &c->base->attempts[i];

		git_oid_tostr(hex, sizeof(hex), &a->commit);
		ret = rb_store_add_attempt(st, c->view.row.id,
					   rb_review_attempt_name(a), hex,
					   a->applied, (int)a->failed_patch,
					   a->failed_file, (int)a->failed_hunk,
					   a->reason);
	}
	if (!ret && c->applied) {
		git_oid_tostr(hex, sizeof(hex), &c->base_oid);
		git_oid_tostr(hex2, sizeof(hex2), &c->applied_oid);
		ret = rb_store_series_applied(
			st, c->view.row.id,
			c->base_tree ? c->base_tree->name : NULL, hex, hex2);
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
	for (i = 0; !ret && i < c->mail.n_out; i++)
		ret = rb_review_write_outmail(c, &c->mail.out[i], now);
	/* Findings not shown in any mail are kept for the stats. */
	for (i = 0; !ret && c->states && i < c->findings.n; i++)
		if (c->states[i])
			ret = rb_store_add_finding(st, c->view.row.id, NULL,
						   NULL, &c->findings.v[i],
						   c->states[i]);
	/* The link to v(n), patch-ids, fixed findings, repeats. */
	if (!ret)
		ret = rb_versions_write(&c->versions, st, c->view.row.id,
					&c->findings);
	if (!ret)
		ret = rb_store_set_series_state(
			st, c->view.row.id, c->series_state,
			c->detail[0] ? c->detail : NULL);
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
			       c->view.row.id, "reason", rb_errmsg(), NULL);
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
	for (i = 1; i <= c->view.row.total && !c->first; i++)
		if (c->view.msgs[i]) {
			c->first = c->view.msgs[i];
			c->first_idx = i;
		}
	if (c->view.msgs[0]) {
		c->first = c->view.msgs[0];
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
	for (i = 1; n && i <= c->view.row.total; i++) {
		struct rb_diff *d = NULL;
		const struct rb_message *m = c->view.msgs[i];
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
	for (i = 1, k = 0; !ret && i <= c->view.row.total; i++) {
		if (!c->foreign[i])
			continue;
		ret = rb_buf_printf(&line, "%s%d/%d",
				    !k			     ? "" :
				    k + 1 == (size_t)dropped ? " and " :
							       ", ",
				    i, c->view.row.total);
		k++;
		rb_message_free(c->view.msgs[i]);
		c->view.msgs[i] = NULL;
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
		.series_id = c->view.row.id,
		.version = c->view.row.version,
		.author = c->view.row.author,
		.title = c->view.row.title,
		.assembled_previous = c->view.row.previous,
		.msgs = c->view.msgs,
		.total = c->view.row.total,
		.n_parts = c->n_parts,
		.cover_raw = c->view.raws && c->view.raws[0].raw ?
				     c->view.raws[0].raw :
				     NULL,
		.cover_len = c->view.raws ? c->view.raws[0].len : 0,
		.max_size = rb_series_max_size(c->p->cfg),
	};
	struct rb_buf line = RB_BUF_INIT(8192);
	int ret;

	const struct rb_message *p1 = c->view.row.total ? c->view.msgs[1] :
							  NULL;
	struct rb_threads_in tin = {
		.st = c->p->st,
		.series_id = c->view.row.id,
		.author = c->view.row.author,
		/* B4 Relay posts as devnull+...@kernel.org; she answers as
		 * herself (bot/stages/feedback.c reads her the same way). */
		.poster = c->view.row.author &&
					  rb_message_relay_addr(
						  c->view.row.author) &&
					  p1 && p1->author.addr ?
				  p1->author.addr :
				  NULL,
		.msgids = c->view.row.msgids,
		.newest = c->view.row.last_date,
		.max_size = rb_series_max_size(c->p->cfg),
		.earlier = c->p->cfg->earlier_replies,
	};

	ret = rb_versions_prepare(&c->versions, &in);
	/* Who replied to which line, on v(n) and on this version. */
	if (!ret)
		ret = rb_threads_collect(&c->versions, &tin);
	c->versions.mark_quoted = c->view.scope.pol.already_quoted ==
				  RB_AQ_MARK;
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
	const struct rb_policy *pol = c->view.scope.pol.governing;
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
		rb_log(RB_LOG_INFO, "review.refetch", "series", c->view.row.id,
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

/*
 * The apply, on every base, once more after a tree moved. *@settled when
 * the review ends here: it applies nowhere (the job waits for a fetch,
 * or the apply-failure notice is made) or it hit a limit.
 */
static int apply_step(struct series_ctx *c, bool *settled)
{
	struct rb_pipeline *p = c->p;
	int ret, wait;

	*settled = true;
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
		return rb_review_render_apply_failure(c);
	}
	wait = ret || c->applied ? 0 : retry_minutes(c);
	if (!ret && c->n_trees && !c->applied && wait > 0 &&
	    !p->force_complete &&
	    (!c->view.row.state ||
	     strcmp(c->view.row.state, "apply_waiting"))) {
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
		       c->view.row.id, "minutes", mins, NULL);
		p->stats.deferred++;
		return 0;
	}
	if (!ret && c->n_trees && !c->applied) {
		c->series_state = "apply_failed";
		p->stats.apply_failed++;
		snprintf(c->detail, sizeof(c->detail),
			 "applies on none of %zu bases",
			 c->base ? c->base->n_attempts : 0);
		return rb_review_render_apply_failure(c);
	}
	*settled = false;
	return ret;
}

/* What the checkers and the model find, and what of it is said. */
static int findings_step(struct series_ctx *c)
{
	int ret;

	ret = compare_versions(c);
	if (!ret)
		ret = run_checkers(c);
	if (!ret)
		ret = rb_review_run_model(c);
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
			.people = c->view.scope.touched_people,
			.n_people = c->view.scope.n_touched_people,
			.admins = (const char *const *)c->p->cfg->admins,
			.n_admins = c->p->cfg->n_admins,
			.require_dkim = c->view.scope.pol.require_dkim,
		};

		ret = rb_threads_trust(&c->versions, &c->findings,
				       (const char *const *)c->states, &tr);
	}
	if (!ret)
		ret = rb_versions_filter(&c->versions, &c->findings, c->states,
					 c->view.msgs);
	if (!ret)
		ret = versions_fixed(c);
	return ret;
}

/* Apply, then the checkers, the model, the filters and the mails. */
static int review_series(struct series_ctx *c)
{
	bool settled;
	int ret;

	ret = apply_step(c, &settled);
	if (ret || settled)
		return ret;
	c->series_state = "reviewed";
	ret = findings_step(c);
	if (!ret)
		ret = rb_review_render_reviews(c);
	if (!ret)
		ret = rb_review_queue_copies(c);
	c->p->stats.reviewed++;
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

	for (i = 0; i <= c->view.row.total; i++)
		n += c->view.msgs[i] != NULL;
	if (n == 1 && !c->view.msgs[0] && c->view.row.total > 1)
		return true;
	for (i = 0; i <= c->view.row.total && !differ; i++) {
		if (!c->view.msgs[i])
			continue;
		if (!have) {
			have = !recipients_of(c->view.msgs[i], &a);
			continue;
		}
		if (!recipients_of(c->view.msgs[i], &b))
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

	for (i = 1; i <= c->view.row.total; i++)
		n += c->view.msgs[i] != NULL;
	return n;
}

/* How many patches from 1/N on are here without a gap. */
static int present_prefix(const struct series_ctx *c)
{
	int k = 0;

	while (k < c->view.row.total && c->view.msgs[k + 1])
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

	for (i = k + 1; i <= c->view.row.total; i++) {
		if (c->view.msgs[i]) {
			rb_message_free(c->view.msgs[i]);
			c->view.msgs[i] = NULL;
			continue;
		}
		n++;
	}
	/* "Patch 8/9 did not ..." or "Patches 8/9, 9/9 did not ..." */
	ret = rb_buf_puts(&line, n > 1 ? "Patches " : "Patch ");
	for (i = k + 1; i <= c->view.row.total && !ret; i++)
		if (!c->view.row.msgids[i])
			ret = rb_buf_printf(&line, "%s%d/%d",
					    i > k + 1 ? ", " : "", i,
					    c->view.row.total);
	if (!ret)
		ret = rb_buf_printf(&line,
				    " did not reach the list; only patches 1 "
				    "to %d of %d were looked at.",
				    k, c->view.row.total);
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
		 "patches 1 to %d of %d reviewed; %d missing", k,
		 c->view.row.total, n);
	/*
	 * A clean prefix sends no review (send_when_empty), so nobody would
	 * learn that a part is missing: the author gets the notice, which
	 * says the prefix was reviewed, unless the parts evidently went to
	 * other lists.
	 */
	if (!c->mail.n_out && !sent_elsewhere(c))
		ret = rb_review_render_incomplete(c);
	return ret;
}

int rb_review_job(struct rb_pipeline *p, const struct rb_job *job)
{
	struct series_ctx c = { .p = p, .job = job };
	bool incomplete = !strcmp(job->kind, "incomplete"), none_here = false;
	int ret;

	rb_buf_init(&c.summary.buf, 64 * 1024);
	rb_buf_init(&c.model.line, 4096);
	rb_buf_init(&c.model.notes, RB_BUF_NOLIMIT);
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
	c.n_parts = c.view.row.total;
	if (none_here) {
		/* The one place a series of another project stops. */
		c.series_state = "skipped";
		p->stats.foreign++;
		rb_log(RB_LOG_INFO, "review.not_for_these_trees", "series",
		       c.view.row.id, "detail", c.detail, NULL);
	} else if (c.view.scope.pol.mode == RB_MODE_OFF) {
		c.series_state = "skipped";
		snprintf(c.detail, sizeof(c.detail), "policy: off for %s%s%s%s",
			 c.view.scope.pol.prefix ? "a [" : "",
			 c.view.scope.pol.prefix ? c.view.scope.pol.prefix : "",
			 c.view.scope.pol.prefix ? "] series of " : "",
			 c.view.scope.pol.subsystem ?
				 c.view.scope.pol.subsystem :
				 "this series");
	} else if (!p->cfg->review_stable &&
		   rb_subject_is_stable(&c.first->subject)) {
		c.series_state = "skipped";
		snprintf(c.detail, sizeof(c.detail),
			 "a stable review series: not reviewed "
			 "(series.review_stable)");
	} else if (rb_policy_skip_author(&c.view.scope.pol,
					 c.first->author.addr ?
						 c.first->author.addr :
						 c.first->from.addr)) {
		c.series_state = "skipped";
		snprintf(c.detail, sizeof(c.detail),
			 "policy: author is in skip_authors");
	} else if (incomplete && c.view.scope.pol.incomplete == RB_INC_IGNORE) {
		c.series_state = "incomplete";
		snprintf(c.detail, sizeof(c.detail),
			 "parts missing; the policy ignores incomplete series");
	} else if (incomplete &&
		   c.view.scope.pol.incomplete == RB_INC_REVIEW_PREFIX &&
		   present_prefix(&c) > 0) {
		ret = review_prefix(&c, present_prefix(&c));
	} else if (incomplete && sent_elsewhere(&c)) {
		c.series_state = "incomplete";
		snprintf(c.detail, sizeof(c.detail),
			 "%d of %d parts missing; the parts here were sent to "
			 "other recipients than the rest (the author Cc'd "
			 "lists per patch): no notice",
			 c.view.row.total - present_parts(&c),
			 c.view.row.total);
	} else if (incomplete) {
		c.series_state = "incomplete";
		ret = rb_review_render_incomplete(&c);
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
	return rb_review_ensure_model(p);
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
	rb_buf_init(&c.summary.buf, 64 * 1024);
	rb_buf_init(&c.model.line, 4096);
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
	if (!ret && c.view.scope.pol.mode != RB_MODE_OFF)
		ret = rb_review_render_not_reviewed(&c, job->lost);
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
