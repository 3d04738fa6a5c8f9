// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_check.c - what check-config adds to loading: a look at what a
 * loaded config names on this machine (trees, branches, source paths,
 * MAINTAINERS sections); see rb_config_check_system().
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>
#include <git2.h>
#include <yaml.h>

#include "bot/config.h"
#include "bot/config_priv.h"
#include "mail/addr.h"
#include "review/checks/checks.h"
#include "review/checks/rules.h"
#include "review/maint/maintainers.h"
#include "review/model/model.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* ---- what the config names on this machine (check-config) ------------ */

struct sys {
	const struct rb_config *cfg;
	struct rb_config_errors *errs;
	size_t n0; /* errors before the check */
	bool oom;
};

static void serr(struct sys *s, struct rb_config_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void serr(struct sys *s, struct rb_config_pos pos, const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	(void)rb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	msg = rb_buf_detach(&b, NULL);
	if (!msg || rb_cfg_errs_add(s->errs, pos.line, pos.col, msg))
		s->oom = true;
}

/* The message for a path that cannot be used; NULL when it exists. */
static const char *path_problem(const char *path, struct stat *st)
{
	if (!stat(path, st))
		return NULL;
	return errno == ENOENT ? "does not exist" : strerror(errno);
}

/*
 * Opens trees[@i] the way the daemon does (git_repository_open, then the
 * branch through git_revparse_single, peeled to a commit). Returns the
 * repository, or NULL after recording why not.
 */
static git_repository *sys_tree(struct sys *s, size_t i)
{
	const struct rb_tree_config *t = &s->cfg->trees[i];
	git_object *obj = NULL, *commit = NULL;
	git_repository *repo = NULL;
	const char *why, *ref = t->branch ? t->branch : "HEAD";
	char tmp[1024], tmp2[1024];
	struct stat st;

	if (!t->path)
		return NULL;
	why = path_problem(t->path, &st);
	if (!why && !S_ISDIR(st.st_mode))
		why = "is not a directory";
	if (why) {
		serr(s, t->path_pos, "trees[%zu].path: '%s' %s", i,
		     rb_cfg_shown(tmp, sizeof(tmp), t->path), why);
		return NULL;
	}
	if (git_repository_open(&repo, t->path) < 0) {
		serr(s, t->path_pos,
		     "trees[%zu].path: '%s' is not a git repository (git clone "
		     "--bare URL PATH makes one)",
		     i, rb_cfg_shown(tmp, sizeof(tmp), t->path));
		return NULL;
	}
	if (git_revparse_single(&obj, repo, ref) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		if (!strcmp(ref, "HEAD"))
			serr(s,
			     t->branch_pos.line ? t->branch_pos : t->path_pos,
			     "trees[%zu].%s: HEAD of '%s' is not a commit (an "
			     "empty repository?)",
			     i, t->branch_pos.line ? "branch" : "path",
			     rb_cfg_shown(tmp, sizeof(tmp), t->path));
		else
			serr(s, t->branch_pos,
			     "trees[%zu].branch: no branch '%s' in '%s'%s", i,
			     rb_cfg_shown(tmp, sizeof(tmp), ref),
			     rb_cfg_shown(tmp2, sizeof(tmp2), t->path),
			     t->url ? " (fetch it once: git fetch URL "
				      "BRANCH:BRANCH)" :
				      "");
		git_object_free(obj);
		git_repository_free(repo);
		return NULL;
	}
	git_object_free(commit);
	git_object_free(obj);
	return repo;
}

static void sys_sources(struct sys *s)
{
	const struct rb_config *cfg = s->cfg;
	char tmp[1024];
	size_t i;

	for (i = 0; i < cfg->n_sources; i++) {
		const struct rb_source_config *src = &cfg->sources[i];
		const char *why;
		struct stat st;

		if (!src->path ||
		    (src->type != RB_SRC_MBOX && src->type != RB_SRC_MAILDIR &&
		     src->type != RB_SRC_EML))
			continue;
		why = path_problem(src->path, &st);
		if (!why && src->type == RB_SRC_MAILDIR && !S_ISDIR(st.st_mode))
			why = "is not a directory (a Maildir)";
		if (!why && src->type != RB_SRC_MAILDIR && S_ISDIR(st.st_mode))
			why = "is a directory (type maildir reads a Maildir)";
		if (why)
			serr(s, src->path_pos, "sources[%zu].path: '%s' %s", i,
			     rb_cfg_shown(tmp, sizeof(tmp), src->path), why);
	}
}

/*
 * A list id of list_ids; with none configured (every list accepted), any
 * name shaped like one (a dot, no space), which no MAINTAINERS can refute.
 */
static bool is_list_id(const struct rb_config *cfg, const char *name)
{
	char tmp[256];
	size_t i;

	if (!cfg->n_list_ids)
		return strchr(name, '.') && !strpbrk(name, " \t");

	for (i = 0; i < cfg->n_list_ids; i++)
		if (!strcasecmp(rb_cfg_strip_list_id(cfg->list_ids[i], tmp,
						     sizeof(tmp)),
				name))
			return true;
	return false;
}

/* A close name for a typo: 1 edit, or 2 in a name of 8 or more. */
static void closer(const char *name, const char *cand, const char **best,
		   size_t *bestd)
{
	size_t d = rb_cfg_osa_distance(name, cand);

	if (d < *bestd && (d <= 1 || (d <= 2 && strlen(name) >= 8))) {
		*bestd = d;
		*best = cand;
	}
}

/* Each policy.subsystems key against the sections of @m[0..@n). */
static void sys_sections(struct sys *s, struct rb_maint **m, const char **names,
			 size_t n)
{
	const struct rb_config *cfg = s->cfg;
	struct rb_buf trees = RB_BUF_INIT(4096);
	char tmp[80], tmp2[80];
	size_t i, j, k;

	for (k = 0; k < n; k++)
		(void)rb_buf_printf(&trees, "%s%s", k ? ", " : "", names[k]);
	for (i = 0; i < cfg->n_policies; i++) {
		const char *name = cfg->policies[i].name, *best = NULL;
		size_t bestd = SIZE_MAX;
		bool found = is_list_id(cfg, name);

		for (k = 0; k < n && !found; k++)
			for (j = 0; j < rb_maint_nsections(m[k]); j++)
				if (!strcasecmp(
					    rb_maint_section_at(m[k], j)->name,
					    name)) {
					found = true;
					break;
				}
		if (found)
			continue;
		for (k = 0; k < n; k++)
			for (j = 0; j < rb_maint_nsections(m[k]); j++)
				closer(name, rb_maint_section_at(m[k], j)->name,
				       &best, &bestd);
		for (j = 0; j < cfg->n_list_ids; j++)
			closer(name, cfg->list_ids[j], &best, &bestd);
		if (best)
			serr(s, cfg->policies[i].pos,
			     "policy.subsystems.%s: not a MAINTAINERS section "
			     "of %s %s, nor one of list_ids (did you mean "
			     "'%s'?)",
			     rb_cfg_shown(tmp, sizeof(tmp), name),
			     n > 1 ? "the trees" : "the tree",
			     trees.ptr ? trees.ptr : "",
			     rb_cfg_shown(tmp2, sizeof(tmp2), best));
		else
			serr(s, cfg->policies[i].pos,
			     "policy.subsystems.%s: not a MAINTAINERS section "
			     "of %s %s, nor one of list_ids",
			     rb_cfg_shown(tmp, sizeof(tmp), name),
			     n > 1 ? "the trees" : "the tree",
			     trees.ptr ? trees.ptr : "");
	}
	rb_buf_release(&trees);
}

int rb_config_check_system(const struct rb_config *cfg,
			   struct rb_config_errors *errs)
{
	struct sys s = { .cfg = cfg, .errs = errs, .n0 = errs->n };
	struct rb_maint_cache *cache = NULL;
	struct rb_maint **m = NULL;
	const char **names = NULL;
	size_t i, n = 0;
	int ret;

	sys_sources(&s);
	if (cfg->n_trees) {
		m = calloc(cfg->n_trees, sizeof(*m));
		names = calloc(cfg->n_trees, sizeof(*names));
		if (!m || !names || rb_maint_cache_new(&cache)) {
			s.oom = true;
			goto out;
		}
	}
	for (i = 0; i < cfg->n_trees; i++) {
		git_repository *repo = sys_tree(&s, i);

		if (!repo)
			continue;
		git_repository_free(repo);
		/* A tree without MAINTAINERS (a test tree) names no section. */
		ret = rb_maint_cache_get(
			&m[n], cache, cfg->trees[i].path,
			cfg->trees[i].branch ? cfg->trees[i].branch : "HEAD");
		if (ret == -RB_ENOMEM)
			s.oom = true;
		if (!ret)
			names[n++] = cfg->trees[i].name;
	}
	if (n)
		sys_sections(&s, m, names, n);
out:
	for (i = 0; i < n; i++)
		rb_maint_free(m[i]);
	free(m);
	free(names);
	rb_maint_cache_free(cache);
	if (s.oom)
		return rb_err(RB_ENOMEM, "out of memory");
	if (errs->n == s.n0)
		return 0;
	rb_cfg_errs_sort(errs, s.n0);
	return rb_err(RB_ECONFIG, "%zu problem(s) on this machine",
		      errs->n - s.n0);
}
