// SPDX-License-Identifier: GPL-2.0-only
/*
 * eval_inject.c - a known bug put back into a real tree, and its control.
 * See eval_inject.h and docs/EVAL.md.
 *
 * The fix comes from list mail and is hostile text: it is parsed by
 * review/apply/diff.h, reversed from the parsed form (never by editing the
 * text), and applied by review/apply/apply.h, which refuses unsafe paths and
 * never writes the tree. Only what libgit2 diffs between the resulting
 * trees is kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/apply/apply.h"
#include "review/apply/diff.h"
#include "review/eval/eval_inject.h"
#include "review/eval/evalset.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define FUNC_MAX 128
#define MAX_BLOB (8u << 20) /* a source file bigger than this is skipped */

const char *rb_eval_case_kind_name(enum rb_eval_case_kind k)
{
	return k == RB_EVAL_INJECTED ? "injected" : "forward";
}

/* ---- the reverse of a diff ---- */

static int reverse_hunk(struct rb_buf *out, const struct rb_diff_hunk *h)
{
	size_t i, sl;
	int ret;

	/* The section is a label: up to a control byte mail put there. */
	for (sl = 0; sl < h->section_len; sl++)
		if ((unsigned char)h->section[sl] < 0x20 &&
		    h->section[sl] != '\t')
			break;

	for (i = 0; i < h->n_lines; i++)
		if (memchr(h->lines[i].text, '\0', h->lines[i].len))
			return rb_err(RB_EINVAL, "a NUL byte in line %u",
				      h->lines[i].patch_lineno);
	ret = rb_buf_printf(out, "@@ -%u,%u +%u,%u @@%s%.*s\n", h->new_start,
			    h->new_count, h->old_start, h->old_count,
			    sl ? " " : "", (int)sl, h->section);
	/* Each run of changes as git writes it: removals, then additions. */
	for (i = 0; !ret && i < h->n_lines;) {
		size_t k, e = i + 1;
		int pass;

		if (h->lines[i].origin != ' ') {
			while (e < h->n_lines && h->lines[e].origin != ' ')
				e++;
		}
		for (pass = 0; !ret && pass < 2; pass++) {
			for (k = i; !ret && k < e; k++) {
				const struct rb_diff_line *l = &h->lines[k];
				char o = l->origin == '+' ? '-' :
					 l->origin == '-' ? '+' :
							    ' ';

				/* Pass 0: context and the new removals. */
				if ((o == '+') != (pass == 1))
					continue;
				ret = rb_buf_printf(out, "%c%.*s\n", o,
						    (int)l->len, l->text);
				if (!ret && l->no_newline)
					ret = rb_buf_puts(
						out,
						"\\ No newline at end of file\n");
			}
		}
		i = e;
	}
	return ret;
}

/* A path written as it is, unquoted, that reads back the same. */
static bool plain_path(const char *p)
{
	if (!p || !*p)
		return false;
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f ||
		    *p == '"' || *p == '\\')
			return false;
	return true;
}

int rb_eval_diff_reverse(struct rb_buf *out, const struct rb_diff *d)
{
	size_t i, h;
	int ret = 0;

	for (i = 0; !ret && i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];
		/* The reversed diff goes from f's new side to its old side. */
		const char *from = f->new_path ? f->new_path : f->old_path;
		const char *to = f->old_path ? f->old_path : f->new_path;

		if (!plain_path(from) || !plain_path(to))
			return rb_err(RB_EINVAL, "a path that needs quoting");
		if (f->is_binary)
			return rb_err(RB_EINVAL, "%s: a binary patch", from);
		if (f->status == RB_DIFF_RENAMED || f->status == RB_DIFF_COPIED)
			return rb_err(RB_EINVAL, "%s: a rename or copy", from);
		if (!f->n_hunks)
			return rb_err(RB_EINVAL, "%s: no hunk to reverse",
				      from);
		if (f->status == RB_DIFF_MODIFIED && f->old_mode &&
		    f->new_mode && f->old_mode != f->new_mode)
			return rb_err(RB_EINVAL, "%s: a mode change", from);
		ret = rb_buf_printf(out, "diff --git a/%s b/%s\n", from, to);
		if (!ret && f->status == RB_DIFF_ADDED)
			ret = rb_buf_printf(out, "deleted file mode %06o\n",
					    f->new_mode ? f->new_mode :
							  0100644);
		else if (!ret && f->status == RB_DIFF_DELETED)
			ret = rb_buf_printf(out, "new file mode %06o\n",
					    f->old_mode ? f->old_mode :
							  0100644);
		if (!ret && f->old_id[0] && f->new_id[0])
			ret = rb_buf_printf(out, "index %s..%s\n", f->new_id,
					    f->old_id);
		if (!ret)
			ret = rb_buf_printf(
				out, "--- %s%s\n+++ %s%s\n",
				f->status == RB_DIFF_DELETED ? "" : "a/",
				f->status == RB_DIFF_DELETED ? "/dev/null" :
							       from,
				f->status == RB_DIFF_ADDED ? "" : "b/",
				f->status == RB_DIFF_ADDED ? "/dev/null" : to);
		if (ret)
			return -RB_ENOMEM;
		for (h = 0; !ret && h < f->n_hunks; h++)
			ret = reverse_hunk(out, &f->hunks[h]);
	}
	return ret;
}

/* ---- reading the tree ---- */

int rb_eval_tree_blob(git_blob **out, git_repository *repo, git_tree *tree,
		      const char *path)
{
	git_tree_entry *te = NULL;
	int ret = 0;

	*out = NULL;
	if (!git_tree_entry_bypath(&te, tree, path) &&
	    git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
	    git_blob_lookup(out, repo, git_tree_entry_id(te)))
		ret = rb_err(RB_EIO, "%s: cannot read its blob", path);
	git_error_clear();
	git_tree_entry_free(te);
	return ret;
}

/* The blob at @path of tree @tree_id in @repo; *out NULL when none. */
static int blob_at(git_blob **out, git_repository *repo, const git_oid *tree_id,
		   const char *path)
{
	git_tree *tree;
	int ret;

	*out = NULL;
	if (git_tree_lookup(&tree, repo, tree_id)) {
		ret = rb_err(RB_EIO, "tree %.12s: %s", git_oid_tostr_s(tree_id),
			     git_error_last() ? git_error_last()->message :
						"?");
		git_error_clear();
		return ret;
	}
	ret = rb_eval_tree_blob(out, repo, tree, path);
	git_tree_free(tree);
	return ret;
}

static int commit_tree(git_oid *out, const struct rb_eval_tree *t)
{
	git_commit *c = NULL;

	if (git_commit_lookup(&c, t->repo, &t->commit)) {
		git_error_clear();
		return rb_err(RB_EIO, "%s: no commit %.12s", t->name,
			      git_oid_tostr_s(&t->commit));
	}
	git_oid_cpy(out, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

/* Is the line @s (@n bytes) a whole line of @text? */
static bool has_line(const char *text, size_t len, const char *s, size_t n)
{
	const char *p = text, *end = text + len, *q;

	while (p < end) {
		q = memchr(p, '\n', (size_t)(end - p));
		if (!q)
			q = end;
		if ((size_t)(q - p) == n && !memcmp(p, s, n))
			return true;
		p = q + 1;
	}
	return false;
}

int rb_eval_fix_present(bool *present, char *why, size_t why_size,
			const struct rb_eval_tree *t, const struct rb_diff *fix)
{
	git_oid tree;
	size_t i, h, k;
	int ret;

	*present = false;
	ret = commit_tree(&tree, t);
	if (ret)
		return ret;
	for (i = 0; i < fix->n_files; i++) {
		const struct rb_diff_file *f = &fix->files[i];
		const char *path = rb_diff_file_path(f);
		git_blob *b = NULL;
		const char *text;
		size_t len;

		ret = blob_at(&b, t->repo, &tree, path);
		if (ret)
			return ret;
		if (f->status == RB_DIFF_DELETED) {
			git_blob_free(b);
			if (b) {
				snprintf(why, why_size,
					 "%.200s is still in %.60s", path,
					 t->name);
				return 0;
			}
			continue;
		}
		if (!b) {
			snprintf(why, why_size, "%.200s is not in %.60s", path,
				 t->name);
			return 0;
		}
		text = git_blob_rawcontent(b);
		len = (size_t)git_blob_rawsize(b);
		for (h = 0; h < f->n_hunks; h++) {
			for (k = 0; k < f->hunks[h].n_lines; k++) {
				const struct rb_diff_line *l =
					&f->hunks[h].lines[k];

				if (l->origin != '+' ||
				    has_line(text, len, l->text, l->len))
					continue;
				snprintf(why, why_size,
					 "%.200s of %.60s lacks the fix's line "
					 "\"%.*s\"",
					 path, t->name,
					 (int)(l->len > 80 ? 80 : l->len),
					 l->text);
				git_blob_free(b);
				return 0;
			}
		}
		git_blob_free(b);
	}
	*present = true;
	return 0;
}

/* The diff from tree @a to tree @b of @repo, as git diff's text. */
static int diff_text(char **out, git_repository *repo, const git_oid *a,
		     const git_oid *b)
{
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	git_buf buf = { 0 };
	int ret = 0;

	*out = NULL;
	o.context_lines = 3;
	if (git_tree_lookup(&ta, repo, a) || git_tree_lookup(&tb, repo, b) ||
	    git_diff_tree_to_tree(&diff, repo, ta, tb, &o) ||
	    git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH)) {
		ret = rb_err(RB_EIO, "diff: %s",
			     git_error_last() ? git_error_last()->message :
						"?");
		git_error_clear();
		goto out;
	}
	*out = strndup(buf.ptr ? buf.ptr : "", buf.size);
	if (!*out)
		ret = rb_err(RB_ENOMEM, "out of memory");
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	return ret;
}

/* ---- where the fix is in the buggy code ---- */

bool rb_eval_func_span(const char *text, size_t len, int line, char *name,
		       size_t name_size, int *start, int *end)
{
	const char *s;
	size_t n;
	int i;

	if (line < 1 || !rb_eval_line_at(text, len, line, &n))
		return false;
	for (i = line; i >= 1; i--) {
		s = rb_eval_line_at(text, len, i, &n);
		if (i < line && n && s[0] == '}')
			return false;
		if (rb_eval_def_name(s, n, name, name_size))
			break;
	}
	if (i < 1)
		return false;
	*start = i;
	for (i = *start + 1; (s = rb_eval_line_at(text, len, i, &n)); i++) {
		if (n && s[0] == '}') {
			if (i < line)
				return false;
			*end = i;
			return true;
		}
	}
	return false;
}

/* c->lines is kept ascending. */
static int add_int(struct rb_eval_changed *c, int v)
{
	return rb_eval_int_add(&c->lines, &c->n_lines, v, true);
}

/* The lines of the old side of @f that it removes, and those around what
 * it inserts: in the buggy code, the fix's lines. */
static int fix_lines(struct rb_eval_changed *c, const struct rb_diff_file *f)
{
	size_t h, i, k;
	int ret = 0;

	for (h = 0; !ret && h < f->n_hunks; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];

		for (i = 0; !ret && i < hk->n_lines;) {
			bool removes = false;

			if (hk->lines[i].origin == ' ') {
				i++;
				continue;
			}
			/* A run of changes: [i, k). */
			for (k = i;
			     k < hk->n_lines && hk->lines[k].origin != ' ';
			     k++) {
				if (hk->lines[k].origin == '-') {
					removes = true;
					ret = add_int(
						c,
						(int)hk->lines[k].old_lineno);
				}
			}
			if (!ret && !removes && i > 0)
				ret = add_int(c,
					      (int)hk->lines[i - 1].old_lineno);
			if (!ret && !removes && k < hk->n_lines)
				ret = add_int(c, (int)hk->lines[k].old_lineno);
			i = k;
		}
	}
	return ret;
}

/* @c's functions: those around its lines in @text. */
static int fix_functions(struct rb_eval_changed *c, const char *text,
			 size_t len)
{
	char name[FUNC_MAX];
	size_t i;
	int s, e, ret = 0;

	for (i = 0; !ret && i < c->n_lines; i++)
		if (rb_eval_func_span(text, len, c->lines[i], name,
				      sizeof(name), &s, &e))
			ret = rb_eval_add_function(c, name);
	return ret;
}

/* The fix's lines and functions in the buggy code (tree @buggy). */
static int locate(struct rb_eval_case *out, git_repository *repo,
		  const git_oid *buggy)
{
	struct rb_diff *d = NULL;
	size_t i;
	int ret;

	ret = rb_diff_parse(&d, out->control, strlen(out->control));
	if (ret)
		return ret;
	out->changed = calloc(d->n_files + 1, sizeof(*out->changed));
	if (!out->changed) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; !ret && i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];
		struct rb_eval_changed *c = &out->changed[out->n_changed];
		git_blob *b = NULL;

		if (!f->old_path)
			continue; /* a file the fix adds: not in the patch */
		out->n_changed++;
		c->file = strdup(f->old_path);
		if (!c->file) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		ret = fix_lines(c, f);
		if (!ret)
			ret = blob_at(&b, repo, buggy, f->old_path);
		if (!ret && b && !git_blob_is_binary(b) &&
		    git_blob_rawsize(b) <= MAX_BLOB)
			ret = fix_functions(c, git_blob_rawcontent(b),
					    (size_t)git_blob_rawsize(b));
		git_blob_free(b);
	}
out:
	rb_diff_free(d);
	return ret;
}

/* ---- the cases ---- */

static int apply(struct rb_apply_result **out, const struct rb_eval_tree *t,
		 const char *const *texts, size_t n, int fuzz)
{
	struct rb_apply_opts o = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch ap[2] = { 0 };
	size_t i;

	o.fuzz = fuzz;
	o.commit = false;
	for (i = 0; i < n && i < 2; i++) {
		ap[i].patch = texts[i];
		ap[i].len = strlen(texts[i]);
	}
	return rb_apply_series(out, t->repo, &t->commit, ap, n, &o);
}

static int why_apply(char *why, size_t size, const char *what,
		     const struct rb_eval_tree *t,
		     const struct rb_apply_result *r)
{
	snprintf(why, size, "%s does not apply on %.60s: %.200s", what, t->name,
		 r && r->reason ? r->reason : "?");
	return -RB_ENOTFOUND;
}

static int make_injected(struct rb_eval_case *out, const struct rb_eval_pair *p,
			 const struct rb_eval_tree *t, const git_oid *base,
			 char *why, size_t why_size)
{
	static const int fuzzes[] = { -1, 2, 1 };
	struct rb_buf rev = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_apply_result *r = NULL;
	struct rb_diff *fix = NULL;
	const char *text;
	bool present;
	size_t i;
	int ret;

	if (!p->fix_patch || !*p->fix_patch) {
		snprintf(why, why_size, "the fix has no diff");
		return -RB_ENOTFOUND;
	}
	if (rb_diff_parse(&fix, p->fix_patch, strlen(p->fix_patch))) {
		snprintf(why, why_size, "the fix's diff: %.200s", rb_errmsg());
		return -RB_ENOTFOUND;
	}
	ret = rb_eval_fix_present(&present, why, why_size, t, fix);
	if (!ret && !present)
		ret = -RB_ENOTFOUND;
	if (!ret) {
		ret = rb_eval_diff_reverse(&rev, fix);
		if (ret == -RB_EINVAL) {
			snprintf(why, why_size,
				 "the fix cannot be reversed: %.200s",
				 rb_errmsg());
			ret = -RB_ENOTFOUND;
		}
	}
	for (i = 0; !ret && i < sizeof(fuzzes) / sizeof(fuzzes[0]); i++) {
		text = rev.ptr;
		rb_apply_result_free(r);
		r = NULL;
		ret = apply(&r, t, &text, 1, fuzzes[i]);
		if (!ret && r->ok)
			break;
	}
	if (!ret && !r->ok)
		ret = why_apply(why, why_size, "the fix reversed", t, r);
	if (ret)
		goto out;
	out->fuzz = r->fuzzed ? fuzzes[i] : -1;
	ret = diff_text(&out->patch, r->repo, base, &r->tree);
	if (!ret)
		ret = diff_text(&out->control, r->repo, &r->tree, base);
	if (!ret && (!*out->patch || !*out->control)) {
		snprintf(why, why_size, "the fix reversed changes nothing");
		ret = -RB_ENOTFOUND;
	}
	if (!ret)
		ret = locate(out, r->repo, &r->tree);
out:
	rb_apply_result_free(r);
	rb_diff_free(fix);
	rb_buf_release(&rev);
	return ret;
}

static int make_forward(struct rb_eval_case *out, const struct rb_eval_pair *p,
			const struct rb_eval_tree *t, const git_oid *base,
			char *why, size_t why_size)
{
	struct rb_apply_result *r = NULL;
	const char *texts[2] = { p->patch, p->fix_patch };
	int ret;

	if (!p->patch || !p->fix_patch) {
		snprintf(why, why_size, "the pair lacks a diff");
		return -RB_ENOTFOUND;
	}
	ret = apply(&r, t, texts, 2, -1);
	if (ret)
		goto out;
	if (!r->n_patches || !r->patches[0].applied) {
		ret = why_apply(why, why_size, "the buggy patch", t, r);
		goto out;
	}
	if (!r->ok) {
		ret = why_apply(why, why_size,
				"the fix, after the buggy patch,", t, r);
		goto out;
	}
	out->fuzz = -1;
	ret = diff_text(&out->patch, r->repo, base, &r->patches[0].tree);
	if (!ret)
		ret = diff_text(&out->control, r->repo, &r->patches[0].tree,
				&r->patches[1].tree);
	if (!ret && (!*out->patch || !*out->control)) {
		snprintf(why, why_size,
			 "the buggy patch or the fix changes "
			 "nothing there");
		ret = -RB_ENOTFOUND;
	}
	if (!ret)
		ret = locate(out, r->repo, &r->patches[0].tree);
out:
	rb_apply_result_free(r);
	return ret;
}

int rb_eval_case_make(struct rb_eval_case *out, const struct rb_eval_pair *p,
		      enum rb_eval_case_kind kind, const struct rb_eval_tree *t,
		      char *why, size_t why_size)
{
	git_oid base;
	int ret;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->pair = p;
	why[0] = '\0';
	ret = commit_tree(&base, t);
	if (ret)
		return ret;
	ret = kind == RB_EVAL_INJECTED ?
		      make_injected(out, p, t, &base, why, why_size) :
		      make_forward(out, p, t, &base, why, why_size);
	if (!ret) {
		out->tree = strdup(t->name);
		out->commit_msg = strdup(p->commit_msg ? p->commit_msg : "");
		out->control_msg =
			strdup(p->fix_commit_msg && *p->fix_commit_msg ?
				       p->fix_commit_msg :
			       p->fix_subject ? p->fix_subject :
						"");
		if (!out->tree || !out->commit_msg || !out->control_msg)
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
	if (ret)
		rb_eval_case_release(out);
	return ret;
}

void rb_eval_case_release(struct rb_eval_case *c)
{
	size_t i, k;

	free(c->tree);
	free(c->patch);
	free(c->commit_msg);
	free(c->control);
	free(c->control_msg);
	for (i = 0; i < c->n_changed; i++) {
		free(c->changed[i].file);
		free(c->changed[i].lines);
		for (k = 0; k < c->changed[i].n_functions; k++)
			free(c->changed[i].functions[k]);
		free(c->changed[i].functions);
	}
	free(c->changed);
	memset(c, 0, sizeof(*c));
}
