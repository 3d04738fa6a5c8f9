// SPDX-License-Identifier: GPL-2.0-only
/*
 * base.c - base selection (DESIGN.md fact 9), the guess from index blob
 * ids (after b4's --guess-base), fetching and staleness of trees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/apply/base.h"
#include "review/apply/netstream.h"
#include "review/apply/diff.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define RB_GUESS_DEPTH 1000

static int git_fail(const char *what)
{
	const git_error *e = git_error_last();

	return rb_err(RB_EIO, "libgit2: %s: %s", what,
		      e && e->message ? e->message : "unknown error");
}

static int resolve(git_oid *out, git_repository *repo, const char *ref)
{
	git_object *obj = NULL, *c = NULL;
	int ret = 0;

	if (git_revparse_single(&obj, repo, ref) < 0 ||
	    git_object_peel(&c, obj, GIT_OBJECT_COMMIT) < 0) {
		ret = rb_err(RB_ENOTFOUND, "no commit '%s' in %s", ref,
			     git_repository_path(repo));
		goto out;
	}
	git_oid_cpy(out, git_object_id(c));
out:
	git_object_free(c);
	git_object_free(obj);
	return ret;
}

/* ---- the guess from preimage blob ids ---- */

struct want {
	char *path;
	git_oid oid; /* the prefix, zero-padded */
	size_t hexlen;
};

struct wants {
	struct want *v;
	size_t n;
};

static void wants_release(struct wants *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i].path);
	free(w->v);
}

static bool in_list(char **list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/*
 * The (path, preimage id) pairs of a series: only files that exist before
 * the series, so a path the series wrote earlier is skipped.
 */
static int collect_wants(struct wants *out,
			 const struct rb_apply_patch *patches, size_t n)
{
	char **seen = NULL;
	size_t n_seen = 0, i, j;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct rb_diff *d = NULL;

		if (rb_diff_parse(&d, patches[i].patch, patches[i].len)) {
			rb_err_clear();
			continue; /* apply reports it */
		}
		for (j = 0; j < d->n_files; j++) {
			const struct rb_diff_file *f = &d->files[j];
			size_t len = strlen(f->old_id);
			struct want *nv;
			char **ns;

			if (f->old_path && len >= 7 &&
			    strspn(f->old_id, "0") != len &&
			    !in_list(seen, n_seen, f->old_path)) {
				nv = realloc(out->v,
					     (out->n + 1) * sizeof(*nv));
				if (!nv) {
					ret = -RB_ENOMEM;
					break;
				}
				out->v = nv;
				nv = &out->v[out->n];
				if (git_oid_fromstrn(&nv->oid, f->old_id, len) <
				    0)
					continue;
				nv->hexlen = len;
				nv->path = strdup(f->old_path);
				if (!nv->path) {
					ret = -RB_ENOMEM;
					break;
				}
				out->n++;
			}
			if (f->new_path &&
			    !in_list(seen, n_seen, f->new_path)) {
				ns = realloc(seen, (n_seen + 1) * sizeof(*ns));
				if (!ns) {
					ret = -RB_ENOMEM;
					break;
				}
				seen = ns;
				seen[n_seen] = strdup(f->new_path);
				if (!seen[n_seen]) {
					ret = -RB_ENOMEM;
					break;
				}
				n_seen++;
			}
		}
		rb_diff_free(d);
		if (ret)
			break;
	}
	for (i = 0; i < n_seen; i++)
		free(seen[i]);
	free(seen);
	return ret;
}

static bool tree_has_all(git_tree *tree, const struct wants *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		git_tree_entry *e = NULL;
		bool ok;

		if (git_tree_entry_bypath(&e, tree, w->v[i].path) < 0) {
			git_error_clear();
			return false;
		}
		ok = !git_oid_ncmp(git_tree_entry_id(e), &w->v[i].oid,
				   w->v[i].hexlen);
		git_tree_entry_free(e);
		if (!ok)
			return false;
	}
	return true;
}

static int guess_in_tree(git_oid *out, const struct rb_base_tree *t,
			 const struct wants *w, size_t depth)
{
	git_revwalk *walk = NULL;
	git_oid head, oid, last_tree;
	bool have_last = false;
	size_t k = 0;
	int ret;

	ret = resolve(&head, t->repo, t->ref);
	if (ret)
		return ret;
	if (git_revwalk_new(&walk, t->repo) < 0 ||
	    git_revwalk_push(walk, &head) < 0) {
		ret = git_fail("revwalk");
		goto out;
	}
	git_revwalk_simplify_first_parent(walk);
	ret = -RB_ENOTFOUND;
	while (k++ < depth && !git_revwalk_next(&oid, walk)) {
		git_commit *c = NULL;
		git_tree *tree = NULL;
		bool hit;

		if (git_commit_lookup(&c, t->repo, &oid) < 0) {
			ret = git_fail("commit lookup");
			goto out;
		}
		if (have_last &&
		    git_oid_equal(&last_tree, git_commit_tree_id(c))) {
			git_commit_free(c);
			continue;
		}
		git_oid_cpy(&last_tree, git_commit_tree_id(c));
		have_last = true;
		if (git_commit_tree(&tree, c) < 0) {
			git_commit_free(c);
			ret = git_fail("commit tree");
			goto out;
		}
		hit = tree_has_all(tree, w);
		git_tree_free(tree);
		git_commit_free(c);
		if (hit) {
			git_oid_cpy(out, &oid);
			ret = 0;
			break;
		}
	}
out:
	git_error_clear();
	git_revwalk_free(walk);
	return ret;
}

int rb_base_guess(git_oid *out, size_t *tree_index,
		  const struct rb_base_tree *trees, size_t n_trees,
		  const struct rb_apply_patch *patches, size_t n_patches,
		  size_t depth)
{
	struct wants w = { 0 };
	size_t i;
	int ret;

	ret = collect_wants(&w, patches, n_patches);
	if (ret)
		goto out;
	if (!w.n) {
		ret = rb_err(RB_ENOTFOUND,
			     "the patches name no preimage blob to guess from");
		goto out;
	}
	for (i = 0; i < n_trees; i++) {
		ret = guess_in_tree(out, &trees[i], &w,
				    depth ? depth : RB_GUESS_DEPTH);
		if (!ret) {
			*tree_index = i;
			goto out;
		}
		if (ret != -RB_ENOTFOUND)
			goto out;
	}
	ret = rb_err(RB_ENOTFOUND,
		     "no recent commit of the configured trees holds every "
		     "preimage blob");
out:
	wants_release(&w);
	return ret;
}

/* ---- selection ---- */

static struct rb_base_attempt *
add_attempt(struct rb_base_report *r, enum rb_base_kind kind, const char *name)
{
	struct rb_base_attempt *nv, *a;

	nv = realloc(r->attempts, (r->n_attempts + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	r->attempts = nv;
	a = &r->attempts[r->n_attempts];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	if (name) {
		a->name = strdup(name);
		if (!a->name)
			return NULL;
	}
	r->n_attempts++;
	return a;
}

static bool already_tried(const struct rb_base_report *r, const git_oid *oid)
{
	size_t i;

	for (i = 0; i < r->n_attempts; i++)
		if (r->attempts[i].tried &&
		    git_oid_equal(&r->attempts[i].commit, oid))
			return true;
	return false;
}

/*
 * With prerequisites applied first, @res covers them and the series:
 * keep the series' own patches, make the prerequisites' tip the base,
 * and name a prerequisite that failed as one.
 */
static int strip_prereqs(struct rb_apply_result *res, size_t k)
{
	struct rb_buf why = RB_BUF_INIT(8192);
	size_t i, j;

	for (i = 0; i < k && i < res->n_patches; i++) {
		for (j = 0; j < res->patches[i].n_files; j++) {
			free(res->patches[i].files[j].path);
			free(res->patches[i].files[j].hunks);
		}
		free(res->patches[i].files);
	}
	if (k && k <= res->n_applied)
		git_oid_cpy(&res->base, &res->patches[k - 1].commit);
	memmove(res->patches, res->patches + k,
		(res->n_patches - k) * sizeof(*res->patches));
	res->n_patches -= k;
	res->n_applied = res->n_applied > k ? res->n_applied - k : 0;
	if (!res->failed_patch)
		return 0;
	if (res->failed_patch > k) {
		res->failed_patch -= k;
		return 0;
	}
	if (rb_buf_printf(&why,
			  "prerequisite patch %zu of %zu does not apply: %s",
			  res->failed_patch, k,
			  res->reason ? res->reason : "it did not apply"))
		return -RB_ENOMEM;
	free(res->reason);
	res->reason = rb_buf_detach(&why, NULL);
	res->failed_patch = 0;
	return res->reason ? 0 : -RB_ENOMEM;
}

static int try_base(struct rb_base_report *r, struct rb_base_attempt *a,
		    const struct rb_base_tree *t,
		    const struct rb_base_request *req,
		    const struct rb_apply_opts *opts)
{
	struct rb_apply_result *res = NULL;
	struct rb_apply_patch *all = NULL;
	const struct rb_apply_patch *v = req->patches;
	size_t n = req->n_patches;
	char hex[GIT_OID_HEXSZ + 1];
	int ret;

	if (req->n_prereqs) {
		n = req->n_prereqs + req->n_patches;
		all = calloc(n, sizeof(*all));
		if (!all)
			return -RB_ENOMEM;
		memcpy(all, req->prereqs, req->n_prereqs * sizeof(*all));
		memcpy(all + req->n_prereqs, req->patches,
		       req->n_patches * sizeof(*all));
		v = all;
	}
	ret = rb_apply_series(&res, t->repo, &a->commit, v, n, opts);
	free(all);
	if (!ret && req->n_prereqs)
		ret = strip_prereqs(res, req->n_prereqs);
	if (ret) {
		rb_apply_result_free(res);
		return ret;
	}
	a->tried = true;
	a->result = res;
	a->applied = res->ok;
	git_oid_tostr(hex, 13, &a->commit);
	if (res->ok) {
		r->ok = true;
		r->chosen = (size_t)(a - r->attempts);
		rb_log(RB_LOG_INFO, "base.applied", "tree", t->name, "commit",
		       hex, NULL);
		return 0;
	}
	/*
	 * Only the chosen attempt's objects are read later: a failed one's
	 * go now, so that the memory budget (apply.h max_bytes) holds for
	 * the series, not for each base it is tried on.
	 */
	rb_apply_result_drop_objects(res);
	if (res->fail == RB_APPLY_FAIL_LIMIT)
		r->limit = true;
	a->failed_patch = res->failed_patch;
	a->failed_hunk = res->failed_hunk;
	if (res->failed_file) {
		a->failed_file = strdup(res->failed_file);
		if (!a->failed_file)
			return -RB_ENOMEM;
	}
	a->reason = strdup(res->reason ? res->reason : "did not apply");
	rb_log(RB_LOG_INFO, "base.failed", "tree", t->name, "commit", hex,
	       "reason", a->reason, NULL);
	return a->reason ? 0 : -RB_ENOMEM;
}

static int set_reason(struct rb_base_attempt *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int set_reason(struct rb_base_attempt *a, const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	va_list ap;

	va_start(ap, fmt);
	rb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	a->reason = rb_buf_detach(&b, NULL);
	return a->reason ? 0 : -RB_ENOMEM;
}

/*
 * Sets *out when @oid is the tip of @t's configured ref, reachable from
 * it, or what a tag of the tree points at. Being in the object store is
 * not enough: objects get there that nobody vetted (a fetch of another
 * branch, an old reviewbot that wrote applied series there), and a mail
 * could name them. 0 or a negative code.
 */
static int on_branch(bool *out, const struct rb_base_tree *t,
		     const git_oid *oid)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	git_oid tip;
	int ret;

	*out = false;
	ret = resolve(&tip, t->repo, t->ref);
	if (ret)
		return ret;
	if (git_oid_equal(&tip, oid)) {
		*out = true;
		return 0;
	}
	ret = git_graph_descendant_of(t->repo, &tip, oid);
	if (ret < 0)
		return git_fail("graph");
	if (ret) {
		*out = true;
		return 0;
	}
	ret = 0;
	if (git_reference_iterator_glob_new(&it, t->repo, "refs/tags/*") < 0)
		return git_fail("tags");
	while (!*out && !git_reference_next(&ref, it)) {
		git_object *c = NULL;

		if (!git_reference_peel(&c, ref, GIT_OBJECT_COMMIT) &&
		    git_oid_equal(git_object_id(c), oid))
			*out = true;
		git_object_free(c);
		git_reference_free(ref);
	}
	git_error_clear();
	git_reference_iterator_free(it);
	return ret;
}

/*
 * The configured tree whose branch (or tag) holds the commit that @hex
 * names. -RB_EINVAL when @hex is not a commit id, -RB_ENOTFOUND when no
 * tree has it on its branch.
 */
static int find_base_commit(git_oid *out, size_t *index,
			    const struct rb_base_tree *trees, size_t n,
			    const char *hex)
{
	git_oid prefix;
	size_t len = strlen(hex), i;
	int ret;

	if (len < 7 || len > GIT_OID_HEXSZ ||
	    strspn(hex, "0123456789abcdefABCDEF") != len ||
	    git_oid_fromstrn(&prefix, hex, len) < 0)
		return -RB_EINVAL;
	for (i = 0; i < n; i++) {
		git_commit *c = NULL;
		bool ok = false;

		if (git_commit_lookup_prefix(&c, trees[i].repo, &prefix, len) <
		    0) {
			git_error_clear();
			continue;
		}
		git_oid_cpy(out, git_commit_id(c));
		git_commit_free(c);
		ret = on_branch(&ok, &trees[i], out);
		if (ret)
			return ret;
		if (ok) {
			*index = i;
			return 0;
		}
	}
	return -RB_ENOTFOUND;
}

/* A selection under way: its report, the series and how to apply it. */
struct selection {
	struct rb_base_report *r;
	const struct rb_base_request *req;
	const struct rb_apply_opts *opts;
};

/*
 * Adds an attempt of @kind on @t at @oid and tries it. 0 when it ran
 * (r->ok says whether the series applied), or an error (-RB_ENOMEM).
 */
static int attempt_at(const struct selection *sel, enum rb_base_kind kind,
		      const struct rb_base_tree *t, const git_oid *oid)
{
	struct rb_base_attempt *a = add_attempt(sel->r, kind, t->name);

	if (!a)
		return -RB_ENOMEM;
	git_oid_cpy(&a->commit, oid);
	return try_base(sel->r, a, t, sel->req, sel->opts);
}

int rb_base_select(struct rb_base_report **out,
		   const struct rb_base_tree *trees, size_t n_trees,
		   const struct rb_base_request *req,
		   const struct rb_apply_opts *opts)
{
	struct rb_base_report *r;
	struct selection sel = { .req = req, .opts = opts };
	struct rb_base_attempt *a;
	git_oid oid;
	size_t i, ti;
	int ret = 0;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -RB_ENOMEM;
	sel.r = r;

	/* 1. base-commit: */
	if (req->base_commit && *req->base_commit) {
		ret = find_base_commit(&oid, &ti, trees, n_trees,
				       req->base_commit);
		if (ret == 0) {
			ret = attempt_at(&sel, RB_BASE_COMMIT, &trees[ti],
					 &oid);
			if (ret || r->ok || r->limit)
				goto done;
		} else {
			a = add_attempt(r, RB_BASE_COMMIT, NULL);
			if (!a)
				goto nomem;
			if (ret != -RB_EINVAL && ret != -RB_ENOTFOUND)
				goto done;
			ret = set_reason(a,
					 ret == -RB_EINVAL ?
						 "base-commit '%.64s' is not a "
						 "commit id" :
						 "base-commit %.64s is not on "
						 "any configured branch",
					 req->base_commit);
			rb_log(RB_LOG_INFO, "base.unknown", "reason", a->reason,
			       NULL);
			if (ret)
				goto done;
		}
	}

	/* 3. the guess from index blob ids */
	/*
	 * 2. prerequisites go first on every base (try_base()), so the
	 * guess reads their preimages: the series' own may exist only
	 * after them.
	 */
	ret = rb_base_guess(&oid, &ti, trees, n_trees,
			    req->n_prereqs ? req->prereqs : req->patches,
			    req->n_prereqs ? req->n_prereqs : req->n_patches,
			    req->guess_depth);
	if (ret == 0 && !already_tried(r, &oid)) {
		ret = attempt_at(&sel, RB_BASE_GUESSED, &trees[ti], &oid);
		if (ret || r->ok || r->limit)
			goto done;
	} else if (ret == -RB_ENOTFOUND) {
		a = add_attempt(r, RB_BASE_GUESSED, NULL);
		if (!a)
			goto nomem;
		ret = set_reason(a, "no guessed base: %s", rb_errmsg());
		rb_err_clear();
		if (ret)
			goto done;
	} else if (ret) {
		goto done;
	}

	/* 4-6. the configured trees in order */
	for (i = 0; i < n_trees; i++) {
		ret = resolve(&oid, trees[i].repo, trees[i].ref);
		if (ret)
			goto done;
		if (already_tried(r, &oid))
			continue;
		ret = attempt_at(&sel, RB_BASE_TREE, &trees[i], &oid);
		if (ret || r->ok || r->limit)
			goto done;
	}
	ret = 0;
done:
	if (ret) {
		rb_base_report_free(r);
		return ret;
	}
	*out = r;
	return 0;
nomem:
	rb_base_report_free(r);
	return -RB_ENOMEM;
}

void rb_base_report_free(struct rb_base_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_attempts; i++) {
		free(r->attempts[i].name);
		free(r->attempts[i].reason);
		free(r->attempts[i].failed_file);
		rb_apply_result_free(r->attempts[i].result);
	}
	free(r->attempts);
	free(r);
}

/* ---- trees: fetch and staleness ---- */

int rb_base_fetch(git_oid *out, git_repository *repo, const char *url,
		  const char *branch)
{
	return rb_base_fetch_within(out, repo, url, branch, 0);
}

int rb_base_fetch_within(git_oid *out, git_repository *repo, const char *url,
			 const char *branch, int timeout_seconds)
{
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_remote_create_options co = GIT_REMOTE_CREATE_OPTIONS_INIT;
	git_remote *remote = NULL;
	struct rb_buf spec = RB_BUF_INIT(4096), ref = RB_BUF_INIT(4096);
	char *specs[1];
	git_strarray arr = { specs, 1 };
	int valid = 0, ret = 0;

	if (rb_buf_printf(&ref, "refs/remotes/reviewbot/%s", branch) ||
	    rb_buf_printf(&spec, "+refs/heads/%s:%s", branch, ref.ptr)) {
		ret = -RB_ENOMEM;
		goto out;
	}
	if (git_reference_name_is_valid(&valid, ref.ptr) < 0 || !valid) {
		ret = rb_err(RB_EINVAL, "bad branch name '%s'", branch);
		goto out;
	}
	specs[0] = spec.ptr;
	/*
	 * Anonymous, without url.*.insteadOf: that lookup leaks in
	 * libgit2 1.5 (pcre2 match data), and a tree's URL is taken as
	 * configured.
	 */
	co.repository = repo;
	co.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
		   GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, url, &co) < 0) {
		ret = rb_err(RB_EINVAL, "bad remote '%s': %s", url,
			     git_error_last() ? git_error_last()->message : "");
		goto out;
	}
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (timeout_seconds > 0) {
		ret = rb_netstream_register();
		if (ret)
			goto out;
		rb_netstream_set_deadline(rb_netstream_now_ms() +
					  (int64_t)timeout_seconds * 1000);
	}
	if (git_remote_fetch(remote, &arr, &fo, "reviewbot: fetch") < 0) {
		rb_netstream_set_deadline(0);
		ret = rb_err(RB_EAGAIN, "fetch of %s from %s failed: %s",
			     branch, url,
			     git_error_last() ? git_error_last()->message : "");
		goto out;
	}
	rb_netstream_set_deadline(0);
	if (git_reference_name_to_id(out, repo, ref.ptr) < 0)
		ret = rb_err(RB_ENOTFOUND, "%s has no branch %s", url, branch);
out:
	git_remote_free(remote);
	rb_buf_release(&spec);
	rb_buf_release(&ref);
	return ret;
}

int rb_base_is_stale(bool *out, git_repository *repo, const char *ref,
		     int64_t now, unsigned max_age_days)
{
	git_commit *c = NULL;
	git_oid oid;
	int ret;

	ret = resolve(&oid, repo, ref);
	if (ret)
		return ret;
	if (git_commit_lookup(&c, repo, &oid) < 0)
		return git_fail("commit lookup");
	*out = now - (int64_t)git_commit_time(c) >
	       (int64_t)max_age_days * 86400;
	git_commit_free(c);
	return 0;
}
