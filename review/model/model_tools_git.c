// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_tools_git.c - the model's tools over the history of the tree:
 * path_history, blame, show_commit and log. They walk the repository
 * the tools were given (read only), each under its own walk limits and
 * the call's deadline.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "review/code/code_c.h"
#include "review/model/model_prompt.h"
#include "review/model/model_tools_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define HIST_DEFAULT 20
#define HIST_MAX 100
#define HIST_WALK 20000 /* commits walked by path_history */
#define BLAME_DEFAULT 40 /* lines blame gives without an end */
#define BLAME_MAX 100
#define BLAME_DEPTH 5000 /* first parents blame walks at most */
#define BLAME_COMMITS 40 /* commits listed under a blame */
#define SHOW_WALK 1000000 /* commits walked to find one in the history */
#define SHOW_SKEW (7 * 24 * 3600) /* committer clocks run this far off */
#define SHOW_CHAIN 1024 /* first parents looked at for the base above */
#define SHOW_FILES 100 /* paths a show_commit lists */
#define SHOW_STAT_FILES 200 /* more files: no diffstat, no diff */
#define SHOW_DIFF (12 * 1024) /* bytes of a show_commit's diff */
#define LOG_DEFAULT 10
#define LOG_MAX 50
#define LOG_WALK 20000 /* commits walked by log */
#define LOG_BLOBS 4000 /* changed files looked into by log */

/* ---- path_history ---- */

/* The entry id of @path in @c's tree; false when there is none. */
static bool path_id(git_commit *c, const char *path, git_oid *out)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	bool ok = false;

	if (git_commit_tree(&tree, c) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0) {
		git_oid_cpy(out, git_tree_entry_id(e));
		ok = true;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return ok;
}

/* "2024-05-01" of a commit's time, into @b (11 bytes). */
static void commit_date(const git_commit *c, char b[11])
{
	time_t tt = (time_t)git_commit_time(c);
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(b, 11, "%Y-%m-%d", &tm))
		snprintf(b, 11, "%s", "unknown");
}

/* "0123456789ab 2024-05-01 subject\n" (no date when !@date) */
static int commit_row(struct rb_buf *out, const git_commit *c, bool date)
{
	const char *sum = git_commit_summary((git_commit *)c);
	char hex[13], day[11];
	int ret;

	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	if (date) {
		commit_date(c, day);
		ret = rb_buf_printf(out, "%s %s ", hex, day);
	} else {
		ret = rb_buf_printf(out, "%s ", hex);
	}
	if (!ret && sum)
		ret = mt_put_line(out, sum, strlen(sum));
	return ret ? ret : rb_buf_putc(out, '\n');
}

int mt_tool_path_history(struct rb_model_tools *t, struct mt_args *a,
			 struct rb_buf *out)
{
	git_revwalk *w = NULL;
	const char *path;
	size_t plen, walked = 0, listed = 0;
	long long max;
	git_oid id;
	double deadline = mt_call_deadline(t);
	int ret;

	ret = mt_arg_str(a, "path", true, &path, &plen, MAX_PATH);
	if (!ret)
		ret = mt_arg_int(a, "max", HIST_DEFAULT, 1, HIST_MAX, &max);
	if (ret)
		return ret;
	if (!mt_path_ok(path, plen, true))
		return rb_buf_puts(a->err, "error: path must be a relative "
					   "path in the tree, without \".\" "
					   "or \"..\"\n") ?:
		       -RB_EINVAL;
	if (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (!t->ctx.base_commit)
		return rb_buf_puts(out, "no history: the base is not a commit "
					"of a tree with history\n");
	if (git_revwalk_new(&w, t->ctx.repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, &t->base_commit) < 0) {
		ret = rb_buf_puts(out, "no history: the base commit cannot be "
				       "read\n");
		goto out;
	}
	{
		char *p = strndup(path, plen);

		if (!p) {
			ret = rb_err(RB_ENOMEM, "model tools: out of memory");
			goto out;
		}
		while (!ret && listed < (size_t)max && walked < HIST_WALK &&
		       git_revwalk_next(&id, w) == 0) {
			git_commit *c = NULL;
			git_oid mine, theirs;
			bool have, touched = true;
			unsigned int k, np;

			if (++walked % 64 == 0 && mt_now() > deadline)
				break;
			if (git_commit_lookup(&c, t->ctx.repo, &id) < 0)
				continue;
			have = path_id(c, p, &mine);
			np = git_commit_parentcount(c);
			/* Like git log's default: same as some parent, skip. */
			for (k = 0; k < np && touched; k++) {
				git_commit *par = NULL;

				if (git_commit_parent(&par, c, k) < 0)
					continue;
				if (path_id(par, p, &theirs) ?
					    have && git_oid_equal(&mine,
								  &theirs) :
					    !have)
					touched = false;
				git_commit_free(par);
			}
			if (touched && (have || np)) {
				ret = commit_row(out, c, false);
				listed++;
			}
			git_commit_free(c);
		}
		free(p);
	}
	if (!ret && !listed)
		ret = rb_buf_printf(out,
				    "no commit changes this path in the "
				    "%zu commits walked\n",
				    walked);
	else if (!ret && listed < (size_t)max && walked >= HIST_WALK)
		ret = rb_buf_printf(out, "[stopped after %zu commits]\n",
				    walked);
out:
	git_revwalk_free(w);
	return ret;
}

/* ---- history: blame, show_commit, log ---- */

/* The relative path argument "path" of a history tool, checked. */
static int arg_path(struct mt_args *a, bool dir, const char **path,
		    size_t *plen)
{
	int ret = mt_arg_str(a, "path", true, path, plen, MAX_PATH);

	if (ret)
		return ret;
	if (!mt_path_ok(*path, *plen, dir))
		return rb_buf_puts(a->err, "error: path must be a relative "
					   "path in the tree, without \".\" "
					   "or \"..\"\n") ?:
		       -RB_EINVAL;
	return 0;
}

/*
 * The commit BLAME_DEPTH first parents below the base, where blame
 * stops (libgit2's blame cannot be interrupted; this bounds its walk
 * along the first parents). false when the history is shorter.
 */
static bool blame_bound(git_repository *repo, const git_oid *base, git_oid *out)
{
	git_commit *c = NULL, *p = NULL;
	int k;

	if (git_commit_lookup(&c, repo, base) < 0)
		return false;
	for (k = 0; k < BLAME_DEPTH; k++) {
		if (git_commit_parentcount(c) == 0 ||
		    git_commit_parent(&p, c, 0) < 0) {
			git_commit_free(c);
			return false;
		}
		git_commit_free(c);
		c = p;
		p = NULL;
	}
	git_oid_cpy(out, git_commit_id(c));
	git_commit_free(c);
	return true;
}

int mt_tool_blame(struct rb_model_tools *t, struct mt_args *a,
		  struct rb_buf *out)
{
	git_blame_options bo = GIT_BLAME_OPTIONS_INIT;
	git_blame *bl = NULL;
	git_blob *blob = NULL;
	struct rb_c_lines l = { 0 };
	git_oid seen[BLAME_COMMITS];
	size_t nseen = 0, i, n, plen;
	const char *path;
	long long start, end;
	char *p = NULL;
	int ret;

	ret = arg_path(a, false, &path, &plen);
	if (!ret)
		ret = mt_arg_int(a, "start", 1, 1, 100000000, &start);
	if (!ret)
		ret = mt_arg_int(a, "end", start + BLAME_DEFAULT - 1, 1,
				 100000000, &end);
	if (ret)
		return ret;
	if (end < start)
		return rb_buf_puts(a->err, "error: end is before start\n") ?:
			       -RB_EINVAL;
	if (!t->ctx.base_commit || !t->ctx.base_tree)
		return rb_buf_puts(out, "no history: the base is not a commit "
					"of a tree with history\n");
	ret = mt_text_at(&blob, &l, t, 0, path, a->err);
	if (ret)
		goto out;
	if ((size_t)start > l.n) {
		ret = rb_buf_printf(out, "%s at base has %zu lines\n", path,
				    l.n);
		goto out;
	}
	if (end - start + 1 > BLAME_MAX)
		end = start + BLAME_MAX - 1;
	if ((size_t)end > l.n)
		end = (long long)l.n;
	p = strndup(path, plen);
	if (!p) {
		ret = rb_err(RB_ENOMEM, "model tools: out of memory");
		goto out;
	}
	git_oid_cpy(&bo.newest_commit, &t->base_commit);
	blame_bound(t->ctx.repo, &t->base_commit, &bo.oldest_commit);
	bo.min_line = (size_t)start;
	bo.max_line = (size_t)end;
	if (git_blame_file(&bl, t->ctx.repo, p, &bo) < 0) {
		const git_error *e = git_error_last();

		ret = rb_buf_printf(a->err, "error: blame failed: %s\n", e && e->message ? e->message : "libgit2") ?:
			      -RB_EINVAL;
		goto out;
	}
	ret = rb_buf_printf(out,
			    "%s at base, lines %lld-%lld of %zu: commit "
			    "(\"^\": the oldest looked at, the line may be "
			    "older), date, text\n",
			    path, start, end, l.n);
	for (i = (size_t)start; !ret && i <= (size_t)end; i++) {
		const git_blame_hunk *h = git_blame_get_hunk_byline(bl, i);
		git_commit *c = NULL;
		char hex[13] = "?", date[11] = "?";
		const char *s = rb_c_line(&l, i - 1, &n);
		size_t k;

		if (h &&
		    !git_commit_lookup(&c, t->ctx.repo, &h->final_commit_id)) {
			git_oid_tostr(hex, sizeof(hex), &h->final_commit_id);
			commit_date(c, date);
			for (k = 0; k < nseen; k++)
				if (git_oid_equal(&seen[k],
						  &h->final_commit_id))
					break;
			if (k == nseen && nseen < BLAME_COMMITS)
				git_oid_cpy(&seen[nseen++],
					    &h->final_commit_id);
		}
		git_commit_free(c);
		ret = rb_buf_printf(out, "%zu\t%s%s %s\t", i,
				    h && h->boundary ? "^" : "", hex, date);
		if (!ret)
			ret = mt_put_line(out, s, n);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
	if (!ret && nseen)
		ret = rb_buf_puts(out, "commits:\n");
	for (i = 0; !ret && i < nseen; i++) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, t->ctx.repo, &seen[i]) < 0)
			continue;
		ret = commit_row(out, c, true);
		git_commit_free(c);
	}
out:
	free(p);
	git_blame_free(bl);
	rb_c_lines_release(&l);
	git_blob_free(blob);
	return ret;
}

/* Does the base come within SHOW_CHAIN first parents below @c? */
static bool on_base(const struct rb_model_tools *t, const git_commit *c)
{
	git_commit *cur = NULL, *p = NULL;
	bool hit = false;
	int k;

	if (git_commit_dup(&cur, (git_commit *)c) < 0)
		return false;
	for (k = 0; k < SHOW_CHAIN && !hit; k++) {
		if (!git_commit_parentcount(cur) ||
		    git_commit_parent(&p, cur, 0) < 0)
			break;
		hit = git_oid_equal(git_commit_id(p), &t->base_commit);
		git_commit_free(cur);
		cur = p;
		p = NULL;
	}
	git_commit_free(cur);
	return hit;
}

/*
 * Is @id the base commit or one of its ancestors? A walk from the base,
 * newest first, that stops at commits older than @id by more than the
 * clock skew git tolerates, at SHOW_WALK commits and at the deadline.
 * 1 yes, 0 no, -1 the walk stopped before it could tell.
 */
static int in_history(struct rb_model_tools *t, const git_commit *c)
{
	git_revwalk *w = NULL;
	const git_oid *id = git_commit_id(c);
	git_time_t when = git_commit_time(c);
	double deadline = mt_call_deadline(t);
	size_t walked = 0;
	git_oid x;
	int ret = -1;

	if (git_oid_equal(id, &t->base_commit))
		return 1;
	/*
	 * The apply's commits (whose dates come from the mail) sit on the
	 * base: said at once, not after a walk down to their date.
	 */
	if (on_base(t, c))
		return 0;
	if (git_revwalk_new(&w, t->ctx.repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, &t->base_commit) < 0)
		goto out;
	while (git_revwalk_next(&x, w) == 0) {
		git_commit *o = NULL;
		bool old;

		if (git_oid_equal(&x, id)) {
			ret = 1;
			goto out;
		}
		if (++walked > SHOW_WALK ||
		    (walked % 256 == 0 && mt_now() > deadline))
			goto out;
		if (git_commit_lookup(&o, t->ctx.repo, &x) < 0)
			continue;
		old = git_commit_time(o) < when - SHOW_SKEW;
		git_commit_free(o);
		if (old)
			break;
	}
	ret = 0;
out:
	git_revwalk_free(w);
	return ret;
}

/* A commit id (hex, at least 7 digits) into *out, looked up. */
static int arg_commit(struct rb_model_tools *t, struct mt_args *a,
		      git_commit **out)
{
	const char *s;
	size_t n, i;
	git_oid id;
	int ret = mt_arg_str(a, "commit", true, &s, &n, GIT_OID_HEXSZ), r;

	*out = NULL;
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			break;
	if (n < 7 || i < n)
		return rb_buf_puts(a->err, "error: commit must be 7 to 40 hex "
					   "digits\n") ?:
		       -RB_EINVAL;
	r = git_oid_fromstrn(&id, s, n);
	if (!r)
		r = git_commit_lookup_prefix(out, t->ctx.repo, &id, n);
	if (r < 0) {
		*out = NULL;
		ret = rb_buf_printf(a->err, "error: %s %.40s in the tree\n",
				    r == GIT_EAMBIGUOUS ?
					    "more than one commit starts with" :
					    "no commit",
				    s);
		return ret ? ret : -RB_EINVAL;
	}
	r = in_history(t, *out);
	if (r != 1) {
		git_commit_free(*out);
		*out = NULL;
		ret = rb_buf_printf(a->err,
				    r ? "error: could not tell within the "
					"limits whether %.40s is in the "
					"history of the base commit\n" :
					"error: %.40s is not in the history of "
					"the base commit\n",
				    s);
		return ret ? ret : -RB_EINVAL;
	}
	return 0;
}

/* Stops git_patch_print() once @out holds @max bytes. */
struct print_cap {
	struct rb_buf *out;
	size_t max;
	bool cut;
	int ret;
};

static int print_line(const git_diff_delta *d, const git_diff_hunk *h,
		      const git_diff_line *l, void *arg)
{
	struct print_cap *pc = arg;
	int ret = 0;

	(void)d;
	(void)h;
	if (pc->out->len > pc->max) {
		pc->cut = true;
		return 1;
	}
	if (l->origin == '+' || l->origin == '-' || l->origin == ' ')
		ret = rb_buf_putc(pc->out, l->origin);
	if (!ret)
		ret = mt_put_text(pc->out, l->content, l->content_len);
	pc->ret = ret;
	return ret ? 1 : 0;
}

int mt_tool_show_commit(struct rb_model_tools *t, struct mt_args *a,
			struct rb_buf *out)
{
	git_diff_options dopt = GIT_DIFF_OPTIONS_INIT;
	struct rb_buf msg = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct print_cap pc = { .out = out };
	git_commit *c = NULL, *par = NULL;
	git_tree *ct = NULL, *pt = NULL;
	git_diff *diff = NULL;
	const char *path = NULL, *m, *e;
	size_t plen = 0, nd, i, adds = 0, dels = 0;
	char hex[GIT_OID_HEXSZ + 1], date[11], *ps = NULL;
	unsigned int k;
	int ret;

	if (!t->ctx.base_commit)
		return rb_buf_puts(out, "no history: the base is not a commit "
					"of a tree with history\n");
	ret = mt_arg_str(a, "path", false, &path, &plen, MAX_PATH);
	if (!ret && path && !mt_path_ok(path, plen, true))
		ret = rb_buf_puts(a->err, "error: path must be a relative "
					  "path in the tree\n") ?:
			      -RB_EINVAL;
	if (!ret)
		ret = arg_commit(t, a, &c);
	if (ret)
		return ret;
	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	commit_date(c, date);
	ret = rb_buf_printf(out, "commit %s\nDate: %s\n", hex, date);
	for (k = 0; !ret && k < git_commit_parentcount(c); k++) {
		git_oid_tostr(hex, 13, git_commit_parent_id(c, k));
		ret = rb_buf_printf(out, "%s%s", k ? " " : "Parents: ", hex);
	}
	if (!ret && k)
		ret = rb_buf_putc(out, '\n');
	/* The message, without who signed what (model_prompt.h). */
	if (!ret)
		ret = rb_model_strip_trailers(&msg, git_commit_message(c));
	while (!ret && msg.len && isspace((unsigned char)msg.ptr[msg.len - 1]))
		rb_buf_truncate(&msg, msg.len - 1);
	if (!ret)
		ret = rb_buf_putc(out, '\n');
	for (m = msg.ptr; !ret && *m; m = e + 1) {
		e = strchr(m, '\n');
		ret = rb_buf_puts(out, "    ");
		if (!ret)
			ret = mt_put_line(out, m,
					  e ? (size_t)(e - m) : strlen(m));
		if (!ret)
			ret = rb_buf_putc(out, '\n');
		if (!e)
			break;
	}
	if (ret)
		goto out;
	/* The diff against the first parent (a root commit: everything). */
	if (git_commit_tree(&ct, c) < 0 ||
	    (git_commit_parentcount(c) && (git_commit_parent(&par, c, 0) < 0 ||
					   git_commit_tree(&pt, par) < 0))) {
		ret = rb_buf_puts(out, "\n(the trees of the commit cannot be "
				       "read)\n");
		goto out;
	}
	if (path) {
		if (plen > 1 && path[plen - 1] == '/')
			plen--;
		ps = strndup(path, plen);
		if (!ps) {
			ret = rb_err(RB_ENOMEM, "model tools: out of memory");
			goto out;
		}
		dopt.pathspec.strings = &ps;
		dopt.pathspec.count = 1;
		dopt.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	if (git_diff_tree_to_tree(&diff, t->ctx.repo, pt, ct, &dopt) < 0) {
		ret = rb_buf_puts(out, "\n(the diff cannot be made)\n");
		goto out;
	}
	nd = git_diff_num_deltas(diff);
	ret = rb_buf_printf(out, "\n%zu file%s changed%s\n", nd,
			    nd == 1 ? "" : "s",
			    nd > SHOW_FILES ? ": the first paths (too many "
					      "for a diff; ask with path)" :
					      "");
	for (i = 0; !ret && i < nd && i < SHOW_FILES; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *p = NULL;
		size_t pa = 0, pd = 0;
		const char *fp = d->new_file.path ? d->new_file.path :
						    d->old_file.path;

		ret = rb_buf_printf(out, " %c ",
				    git_diff_status_char(d->status));
		if (!ret)
			ret = mt_put_line(out, fp, strlen(fp));
		if (!ret && nd <= SHOW_STAT_FILES &&
		    !git_patch_from_diff(&p, diff, i) && p &&
		    !git_patch_line_stats(NULL, &pa, &pd, p)) {
			ret = rb_buf_printf(out, " | +%zu -%zu", pa, pd);
			adds += pa;
			dels += pd;
		}
		git_patch_free(p);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
	if (!ret && nd > SHOW_FILES)
		ret = rb_buf_printf(out, " [%zu more]\n", nd - SHOW_FILES);
	if (!ret && nd <= SHOW_STAT_FILES)
		ret = rb_buf_printf(out, " +%zu -%zu\n\n", adds, dels);
	pc.max = out->len + SHOW_DIFF;
	for (i = 0; !ret && nd <= SHOW_STAT_FILES && i < nd && !pc.cut; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *p = NULL;

		if (d->flags & GIT_DIFF_FLAG_BINARY ||
		    git_patch_from_diff(&p, diff, i) < 0 || !p)
			continue;
		git_patch_print(p, print_line, &pc);
		ret = pc.ret;
		git_patch_free(p);
	}
	if (!ret && pc.cut)
		ret = rb_buf_puts(out, "[diff cut: ask for one path with "
				       "\"path\"]\n");
out:
	free(ps);
	git_diff_free(diff);
	git_tree_free(ct);
	git_tree_free(pt);
	git_commit_free(par);
	git_commit_free(c);
	rb_buf_release(&msg);
	return ret;
}

/* Occurrences of @s (@n bytes) in @p (@len bytes), not overlapping. */
static size_t count_in(const char *p, size_t len, const char *s, size_t n)
{
	const char *e = p + len, *m;
	size_t k = 0;

	while (p < e && (m = memmem(p, (size_t)(e - p), s, n))) {
		k++;
		p = m + n;
	}
	return k;
}

/* The text of blob @id, or NULL (a zero id, binary or too big). */
static git_blob *text_blob(git_repository *repo, const git_diff_file *f)
{
	git_blob *b = NULL;

	if (git_oid_is_zero(&f->id) || git_blob_lookup(&b, repo, &f->id) < 0)
		return NULL;
	if (git_blob_rawsize(b) > BLOB_MAX || git_blob_is_binary(b)) {
		git_blob_free(b);
		return NULL;
	}
	return b;
}

struct pickaxe {
	const char *s; /* -S: a fixed string */
	size_t n;
	struct rb_code_regex *re; /* -G: a regex over added and removed lines */
	size_t blobs; /* blob pairs looked at, against LOG_BLOBS */
};

/* Does one changed file of a commit match -S or -G? */
static int pickaxe_file(struct pickaxe *pk, git_repository *repo,
			git_diff *diff, size_t i, bool *hit)
{
	const git_diff_delta *d = git_diff_get_delta(diff, i);
	git_patch *p = NULL;
	size_t h, nh, j, nl;
	int ret = 0;

	*hit = false;
	pk->blobs++;
	if (!pk->re) {
		git_blob *a = text_blob(repo, &d->old_file);
		git_blob *b = text_blob(repo, &d->new_file);

		*hit = (a || b) &&
		       count_in(a ? git_blob_rawcontent(a) : "",
				a ? (size_t)git_blob_rawsize(a) : 0, pk->s,
				pk->n) !=
			       count_in(b ? git_blob_rawcontent(b) : "",
					b ? (size_t)git_blob_rawsize(b) : 0,
					pk->s, pk->n);
		git_blob_free(a);
		git_blob_free(b);
		return 0;
	}
	if (d->flags & GIT_DIFF_FLAG_BINARY || d->old_file.size > BLOB_MAX ||
	    d->new_file.size > BLOB_MAX ||
	    git_patch_from_diff(&p, diff, i) < 0 || !p)
		return 0;
	nh = git_patch_num_hunks(p);
	for (h = 0; h < nh && !*hit; h++) {
		nl = (size_t)git_patch_num_lines_in_hunk(p, h);
		for (j = 0; j < nl && !*hit; j++) {
			const git_diff_line *l = NULL;
			size_t n;

			if (git_patch_get_line_in_hunk(&l, p, h, j) < 0 ||
			    (l->origin != '+' && l->origin != '-'))
				continue;
			/* A regex sees the first REGEX_LINE bytes of a line,
			 * under grep's limits (grep_re). */
			n = l->content_len;
			if (n && l->content[n - 1] == '\n')
				n--;
			if (n > REGEX_LINE)
				n = REGEX_LINE;
			*hit = rb_code_regex_match(pk->re, l->content, n);
			if (pk->re->costly >= REGEX_COSTLY)
				break;
		}
	}
	git_patch_free(p);
	return ret;
}

int mt_tool_log(struct rb_model_tools *t, struct mt_args *a, struct rb_buf *out)
{
	git_diff_options dopt = GIT_DIFF_OPTIONS_INIT;
	struct pickaxe pk = { 0 };
	git_revwalk *w = NULL;
	const char *path, *s, *g;
	size_t plen, sn, gn, walked = 0, listed = 0, i;
	long long max;
	double deadline = mt_call_deadline(t);
	const char *why = NULL;
	char *p = NULL;
	struct rb_code_regex re = { 0 };
	bool have_re = false;
	git_oid id;
	int ret;

	ret = arg_path(a, true, &path, &plen);
	if (!ret)
		ret = mt_arg_str(a, "S", false, &s, &sn, MAX_PATTERN);
	if (!ret)
		ret = mt_arg_str(a, "G", false, &g, &gn, MAX_PATTERN);
	if (!ret)
		ret = mt_arg_int(a, "max", LOG_DEFAULT, 1, LOG_MAX, &max);
	if (ret)
		return ret;
	if (!s == !g || (s && !sn) || (g && !gn) ||
	    (s && memchr(s, '\n', sn)) || (g && memchr(g, '\n', gn)))
		return rb_buf_puts(a->err, "error: give one of S (a string) or "
					   "G (a regex), one line, not "
					   "empty\n") ?:
		       -RB_EINVAL;
	if (g) {
		/* The grep tool's regular expressions, under its limits. */
		ret = rb_code_regex_compile(&re, g, gn, a->err);
		if (ret)
			return ret;
		have_re = true;
		pk.re = &re;
	} else {
		pk.s = s;
		pk.n = sn;
	}
	if (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (!t->ctx.base_commit) {
		ret = rb_buf_puts(out, "no history: the base is not a commit "
				       "of a tree with history\n");
		goto out;
	}
	p = strndup(path, plen);
	if (!p) {
		ret = rb_err(RB_ENOMEM, "model tools: out of memory");
		goto out;
	}
	dopt.pathspec.strings = &p;
	dopt.pathspec.count = 1;
	dopt.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_revwalk_new(&w, t->ctx.repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, &t->base_commit) < 0) {
		ret = rb_buf_puts(out, "no history: the base commit cannot be "
				       "read\n");
		goto out;
	}
	while (!ret && listed < (size_t)max && git_revwalk_next(&id, w) == 0) {
		git_commit *c = NULL, *par = NULL;
		git_tree *ct = NULL, *pt = NULL;
		git_diff *diff = NULL;
		git_oid mine, theirs;
		bool have, hit = false;

		if (++walked > LOG_WALK) {
			why = "commits";
			break;
		}
		if (walked % 64 == 0 && mt_now() > deadline) {
			why = "time";
			break;
		}
		if (pk.blobs >= LOG_BLOBS) {
			why = "files";
			break;
		}
		if (pk.re && pk.re->costly >= REGEX_COSTLY) {
			why = "a regex's cost";
			break;
		}
		/* Like git log -S: merges are not looked into. */
		if (git_commit_lookup(&c, t->ctx.repo, &id) < 0 ||
		    git_commit_parentcount(c) > 1)
			goto next;
		have = path_id(c, p, &mine);
		if (git_commit_parentcount(c) == 1) {
			if (git_commit_parent(&par, c, 0) < 0)
				goto next;
			if (path_id(par, p, &theirs) ?
				    have && git_oid_equal(&mine, &theirs) :
				    !have)
				goto next;
			if (git_commit_tree(&pt, par) < 0)
				goto next;
		} else if (!have) {
			goto next;
		}
		if (git_commit_tree(&ct, c) < 0 ||
		    git_diff_tree_to_tree(&diff, t->ctx.repo, pt, ct, &dopt) <
			    0)
			goto next;
		for (i = 0; !ret && !hit && i < git_diff_num_deltas(diff) &&
			    pk.blobs < LOG_BLOBS;
		     i++)
			ret = pickaxe_file(&pk, t->ctx.repo, diff, i, &hit);
		if (!ret && hit) {
			ret = commit_row(out, c, true);
			listed++;
		}
next:
		git_diff_free(diff);
		git_tree_free(ct);
		git_tree_free(pt);
		git_commit_free(par);
		git_commit_free(c);
	}
	if (!ret && !listed)
		ret = rb_buf_printf(out,
				    "no commit in the %zu walked adds or "
				    "removes it there\n",
				    walked > LOG_WALK ? LOG_WALK : walked);
	if (!ret && why)
		ret = rb_buf_printf(out,
				    "[stopped at the limit of %s after %zu "
				    "commits: results are partial]\n",
				    why, walked > LOG_WALK ? LOG_WALK : walked);
out:
	if (have_re)
		rb_code_regex_free(&re);
	free(p);
	git_revwalk_free(w);
	return ret;
}
