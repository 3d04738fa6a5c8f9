// SPDX-License-Identifier: GPL-2.0-only
/*
 * ledger.c - the blocking ledger: sightings of series in the trees, and
 * the notice about their open blocking findings. See ledger.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "bot/config.h"
#include "bot/stages/ledger.h"
#include "bot/stages/policy.h"
#include "bot/stages/reply.h"
#include "bot/stages/scope.h"
#include "bot/stages/series_view.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "bot/store/store_versions.h"
#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/message.h"
#include "review/findings.h"
#include "review/maint/maintainers.h"
#include "review/apply/patchid.h"
#include "review/render.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#ifndef RB_TEMPLATES_DIR
#define RB_TEMPLATES_DIR "templates"
#endif

/* A commit's diff bigger than this is no patch anybody mailed. */
#define DIFF_MAX (16u << 20)
/* Sightings decided per step, at most. */
#define DECIDE_MAX 64

/* Could any series be blocking: a policy's mode, or one of its
 * prefixes'? */
static bool any_blocking(const struct rb_config *cfg)
{
	const struct rb_policy *p;
	size_t i, k;

	for (i = 0; i <= cfg->n_policies; i++) {
		p = i < cfg->n_policies ? &cfg->policies[i] :
					  &cfg->policy_default;
		if (p->mode == RB_MODE_BLOCKING)
			return true;
		for (k = 0; k < p->n_prefixes; k++)
			if (p->prefix_modes[k] == RB_MODE_BLOCKING)
				return true;
	}
	return false;
}

/* --- scanning a tree --- */

/* The series seen in one scan, with how many of their parts. */
struct seen {
	char **series;
	int *parts;
	size_t n;
};

static void seen_release(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->series[i]);
	free(s->series);
	free(s->parts);
}

static int seen_add(struct seen *s, char *series)
{
	char **v;
	int *pv;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->series[i], series)) {
			s->parts[i]++;
			free(series);
			return 0;
		}
	v = realloc(s->series, (s->n + 1) * sizeof(*v));
	if (v)
		s->series = v;
	pv = v ? realloc(s->parts, (s->n + 1) * sizeof(*pv)) : NULL;
	if (!v || !pv) {
		free(series);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	s->parts = pv;
	s->series[s->n] = series;
	s->parts[s->n++] = 1;
	return 0;
}

/*
 * The patch-id of @commit's diff against its one parent into @pid; false
 * for a merge, a root commit, or a diff too big or empty.
 */
static bool commit_patch_id(git_repository *repo, const git_oid *id,
			    char pid[RB_PATCH_ID_HEX])
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	git_buf buf = { 0 };
	bool ok = false;

	if (git_commit_lookup(&c, repo, id) || git_commit_parentcount(c) != 1 ||
	    git_commit_parent(&parent, c, 0) || git_commit_tree(&t, c) ||
	    git_commit_tree(&pt, parent) ||
	    git_diff_tree_to_tree(&diff, repo, pt, t, NULL) ||
	    git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH))
		goto out;
	ok = buf.size && buf.size <= DIFF_MAX &&
	     !rb_patch_id(pid, buf.ptr, buf.size);
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(pt);
	git_tree_free(t);
	git_commit_free(parent);
	git_commit_free(c);
	git_error_clear();
	rb_err_clear();
	return ok;
}

/* Is @a an earlier version of @b (@b's links back, at most
 * RB_LEDGER_MAX_MATCHES of them)? */
static int earlier_version(struct rb_pipeline *p, const char *a, const char *b,
			   bool *out)
{
	char *cur = strdup(b), *prev = NULL;
	int k, v, ret = 0;

	*out = false;
	if (!cur)
		return rb_err(RB_ENOMEM, "out of memory");
	for (k = 0; k < RB_LEDGER_MAX_MATCHES && !*out; k++) {
		ret = rb_store_linked_version(p->st, cur, &prev, &v);
		free(cur);
		cur = prev;
		prev = NULL;
		if (ret == -RB_ENOTFOUND || (!ret && !cur)) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		*out = !strcmp(cur, a);
	}
	free(cur);
	return ret;
}

/*
 * The series a new commit of patch-id @pid is a sighting of: each
 * series that holds a patch of that patch-id (the first seen first, at
 * most RB_LEDGER_MAX_MATCHES), less those that are an earlier version
 * of another of them (v2 stands for v1, as its ledger holds v1's
 * findings). A patch-id is anyone's to post: a copy of a patch under
 * another name is a series of its own, never one that hides the
 * original's.
 */
static int sighted(struct rb_pipeline *p, const char *pid, struct seen *s)
{
	bool drop[RB_LEDGER_MAX_MATCHES] = { false };
	char **v = NULL;
	size_t n = 0, i, j;
	int ret;

	ret = rb_store_series_by_patch_id(p->st, pid, RB_LEDGER_MAX_MATCHES, &v,
					  &n);
	for (i = 0; !ret && n > 1 && i < n; i++)
		for (j = 0; !ret && j < n && !drop[i]; j++)
			if (j != i)
				ret = earlier_version(p, v[i], v[j], &drop[i]);
	for (i = 0; !ret && i < n; i++) {
		if (drop[i])
			continue;
		ret = seen_add(s, v[i]); /* takes it, even on failure */
		v[i] = NULL;
	}
	rb_store_series_ids_free(v, n);
	return ret;
}

/* The commits of @repo from @head back, not reachable from @old (may
 * be NULL), at most RB_LEDGER_MAX_COMMITS: the series they belong to. */
static int walk_new(struct rb_pipeline *p, git_repository *repo,
		    const git_oid *head, const git_oid *old, struct seen *s,
		    size_t *n_commits)
{
	git_revwalk *w = NULL;
	git_oid id;
	int ret = 0;

	*n_commits = 0;
	if (git_revwalk_new(&w, repo) || git_revwalk_push(w, head)) {
		git_revwalk_free(w);
		return rb_err(RB_EIO, "revwalk: %s",
			      git_error_last() ? git_error_last()->message :
						 "failed");
	}
	/* An old head that is gone (a rebased branch, gc) hides nothing:
	 * the cap bounds the walk. */
	if (old && git_revwalk_hide(w, old))
		git_error_clear();
	while (!ret && *n_commits < RB_LEDGER_MAX_COMMITS &&
	       !git_revwalk_next(&id, w)) {
		char pid[RB_PATCH_ID_HEX];

		(*n_commits)++;
		if (commit_patch_id(repo, &id, pid))
			ret = sighted(p, pid, s);
	}
	git_error_clear();
	git_revwalk_free(w);
	return ret;
}

/* Records what the scan of @t found, and its head, in one transaction. */
static int write_scan(struct rb_pipeline *p, const struct rb_tree_config *t,
		      const char *head, const struct seen *s)
{
	size_t i;
	int ret = rb_store_begin(p->st);

	for (i = 0; !ret && i < s->n; i++) {
		ret = rb_store_sighting_add(p->st, s->series[i], t->name, head,
					    s->parts[i]);
		if (!ret)
			rb_log(RB_LOG_INFO, "ledger.sighting", "series",
			       s->series[i], "tree", t->name, "head", head,
			       NULL);
		if (ret == -RB_EEXISTS)
			ret = 0;
	}
	if (!ret)
		ret = rb_store_tree_head_set(p->st, t->name, head);
	if (ret) {
		rb_store_rollback(p->st);
		return ret;
	}
	return rb_store_commit(p->st);
}

static int scan_tree(struct rb_pipeline *p, const struct rb_tree_config *t)
{
	git_repository *repo = NULL;
	git_object *obj = NULL, *commit = NULL;
	struct seen s = { 0 };
	char hex[GIT_OID_HEXSZ + 1], *stored = NULL, n[32], m[32];
	git_oid head, old;
	size_t commits = 0;
	int ret = 0;

	if (git_repository_open(&repo, t->path) ||
	    git_revparse_single(&obj, repo, t->branch ? t->branch : "HEAD") ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT)) {
		rb_log(RB_LOG_WARN, "ledger.tree_unread", "tree", t->name,
		       "reason",
		       git_error_last() ? git_error_last()->message : "?",
		       NULL);
		git_error_clear();
		goto out;
	}
	git_oid_cpy(&head, git_object_id(commit));
	git_oid_tostr(hex, sizeof(hex), &head);
	ret = rb_store_tree_head(p->st, t->name, &stored);
	if (ret == -RB_ENOTFOUND) {
		/* The first look: what the tree holds now is not news. */
		ret = write_scan(p, t, hex, &s);
		goto out;
	}
	if (ret || !strcmp(stored, hex))
		goto out;
	ret = walk_new(p, repo, &head,
		       git_oid_fromstr(&old, stored) ? NULL : &old, &s,
		       &commits);
	if (!ret)
		ret = write_scan(p, t, hex, &s);
	snprintf(n, sizeof(n), "%zu", commits);
	snprintf(m, sizeof(m), "%zu", s.n);
	if (!ret)
		rb_log(RB_LOG_INFO, "ledger.scan", "tree", t->name, "head", hex,
		       "commits", n, "series", m, NULL);
out:
	seen_release(&s);
	free(stored);
	git_object_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

/* --- deciding a sighting --- */

/* One series, parsed, with its scope. */
struct series {
	struct rb_series_view view;
};

static void series_release(struct series *s)
{
	rb_series_view_release(&s->view);
}

static int series_load(struct rb_pipeline *p, const char *id, struct series *s)
{
	int ret;

	ret = rb_series_view_load(&s->view, p->st, id,
				  rb_series_max_size(p->cfg),
				  RB_VIEW_SKIP_UNREAD);
	if (ret)
		return ret;
	rb_err_clear();
	return rb_series_view_scope(&s->view, p, NULL);
}

/* Is @tree one of the trees the series' policy names (all: none)? */
static bool section_tree(const struct rb_effective_policy *pol,
			 const char *tree)
{
	const struct rb_policy *g = pol->governing;
	size_t i;

	if (!g || !g->n_bases)
		return true;
	for (i = 0; i < g->n_bases; i++)
		if (!strcmp(g->bases[i], tree))
			return true;
	return false;
}

/* The first part we have: the cover, else the first patch. */
static const struct rb_message *first_part(const struct series *s)
{
	int i;

	for (i = 0; i <= s->view.row.total; i++)
		if (s->view.msgs[i])
			return s->view.msgs[i];
	return NULL;
}

/* The open ones of @v[@n] as the notice lists them, in @items: how many. */
static size_t open_items(struct rb_render_ledger_item *items,
			 const struct rb_ledger_item *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct rb_stored_finding *sf = &v[i].f;
		struct rb_render_ledger_item *it = &items[k];
		int sev = rb_fsev_parse(sf->severity);

		if (strcmp(v[i].state, "open"))
			continue;
		it->finding.checker = sf->checker;
		it->finding.checker_version = sf->checker_version;
		it->finding.category = sf->category;
		it->finding.severity = sev < 0 ? RB_FSEV_MEDIUM :
						 (enum rb_fsev)sev;
		it->finding.file = sf->file;
		it->finding.line = sf->line;
		it->finding.message = sf->message;
		it->id = sf->fid ? atoi(sf->fid + 1) : 0;
		it->version = v[i].version;
		it->index = sf->patch_idx;
		k++;
	}
	return k;
}

/* The notice, composed into the outbox (in the open transaction). */
static int notice(struct rb_pipeline *p, struct series *s,
		  const struct rb_sighting *g, const struct rb_ledger_item *v,
		  size_t n, char **msgid)
{
	const struct rb_config *cfg = p->cfg;
	const struct rb_message *m = first_part(s);
	const struct rb_maint_section *sec = NULL;
	struct rb_render_ledger_item *items = NULL;
	struct rb_render_ledger_ctx lc = { 0 };
	struct rb_recipients r = { 0 };
	struct rb_reply reply = { 0 };
	struct rb_buf body = RB_BUF_INIT(1u << 20);
	struct rb_buf author = RB_BUF_INIT(4096);
	struct rb_reply_mail mail;
	size_t k = 0;
	int64_t idx = 0;
	int ret = 0;

	*msgid = NULL;
	if (!m)
		return 0;
	rb_reply_mail_init(&mail, 4u << 20);
	items = calloc(n + 1, sizeof(*items));
	if (!items) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	k = open_items(items, v, n);
	lc.head.mode = RB_MODE_BLOCKING;
	lc.head.subsystem = s->view.scope.pol.subsystem;
	lc.head.blocking_text = s->view.scope.pol.blocking_text;
	lc.head.version = s->view.row.version;
	lc.head.total = s->view.row.total;
	lc.head.title = s->view.row.title;
	/* The author as the series names her: "Name <addr>". */
	if (rb_addr_format(&author, m->author.addr ? &m->author : &m->from))
		rb_err_clear();
	lc.author = author.len ? author.ptr : s->view.row.author;
	lc.tree = g->tree;
	lc.commit = g->commit;
	lc.parts = g->parts;
	lc.items = items;
	lc.n_items = k;
	lc.dirs.templates_dir = p->templates_dir ? p->templates_dir :
						   RB_TEMPLATES_DIR;
	lc.dirs.override_dir = s->view.scope.pol.templates_dir;
	ret = rb_render_ledger(&body, &lc);
	/* The home section's M: people, from the trusted tree. */
	if (!ret && s->view.scope.home && s->view.scope.maint)
		sec = rb_maint_find_section(s->view.scope.maint,
					    s->view.scope.home);
	if (!ret)
		ret = rb_policy_private_recipients(
			&r, cfg, sec ? sec->maintainers : NULL,
			sec ? sec->nmaintainers : 0, true);
	if (ret || !r.n_to)
		goto out;
	reply.from = cfg->smtp_from;
	reply.policy = RB_MODE_BLOCKING;
	reply.series_id = s->view.row.id;
	reply.body = body.ptr;
	ret = rb_reply_compose(&mail, &reply, m, &r);
	if (!ret)
		ret = rb_store_review_next_idx(p->st, s->view.row.id, "ledger",
					       &idx);
	if (!ret) {
		struct rb_outmail om = {
			.series_id = s->view.row.id,
			.kind = "ledger",
			.patch_idx = (int)idx,
			.trusted = mail.trusted.ptr,
			.findings = (int)k,
			.send_after = rb_now(),
			.policy = "blocking",
			.subsystem = s->view.scope.pol.subsystem,
		};

		ret = rb_reply_queue(p, &mail, &om);
		if (ret == -RB_EEXISTS)
			ret = 0;
	}
	if (!ret) {
		*msgid = mail.message_id;
		mail.message_id = NULL;
	}
out:
	rb_reply_mail_release(&mail);
	free(items);
	rb_recipients_release(&r);
	rb_buf_release(&body);
	rb_buf_release(&author);
	return ret;
}

static int decide(struct rb_pipeline *p, const struct rb_sighting *g)
{
	struct series s = { 0 };
	struct rb_ledger_item *v = NULL;
	char *msgid = NULL, open_s[16];
	size_t n = 0, i;
	int open = 0, ret;
	bool ours;

	ret = series_load(p, g->series_id, &s);
	if (ret == -RB_ESTORE || ret == -RB_ENOMEM)
		goto out;
	if (ret) {
		/* A series that cannot be read now (a tree): next step. */
		rb_log(RB_LOG_WARN, "ledger.unread", "series", g->series_id,
		       "reason", rb_errmsg(), NULL);
		rb_err_clear();
		ret = 0;
		goto out;
	}
	ret = rb_store_ledger(p->st, g->series_id, &v, &n);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		open += !strcmp(v[i].state, "open");
	ours = section_tree(&s.view.scope.pol, g->tree);
	ret = rb_store_begin(p->st);
	if (ret)
		goto out;
	if (open && ours)
		ret = notice(p, &s, g, v, n, &msgid);
	if (!ret)
		ret = rb_store_sighting_decide(p->st, g->series_id, g->tree,
					       msgid ? "mailed" : "clear",
					       msgid, open);
	if (ret) {
		rb_store_rollback(p->st);
		goto out;
	}
	ret = rb_store_commit(p->st);
	snprintf(open_s, sizeof(open_s), "%d", open);
	if (!ret)
		rb_log(RB_LOG_INFO, "ledger.decided", "series", g->series_id,
		       "tree", g->tree, "open", open_s, "notice",
		       msgid ? msgid :
		       ours  ? "none" :
			       "not the section's tree",
		       NULL);
out:
	free(msgid);
	rb_ledger_free(v, n);
	series_release(&s);
	return ret;
}

int rb_ledger_step(struct rb_pipeline *p)
{
	const struct rb_config *cfg = p->cfg;
	struct rb_sighting *g = NULL;
	size_t i, n = 0;
	int ret = 0;

	if (!cfg->n_trees || !any_blocking(cfg))
		return 0;
	for (i = 0; i < cfg->n_trees && !ret && !(p->stop && *p->stop); i++)
		ret = scan_tree(p, &cfg->trees[i]);
	if (!ret)
		ret = rb_store_sightings_pending(p->st, DECIDE_MAX, &g, &n);
	for (i = 0; !ret && i < n && !(p->stop && *p->stop); i++)
		ret = decide(p, &g[i]);
	rb_sightings_free(g, n);
	return ret;
}
