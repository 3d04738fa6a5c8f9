// SPDX-License-Identifier: GPL-2.0-only
/*
 * eval_recall.c - does the context hold the bug? See eval_recall.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "review/eval/eval_inject.h"
#include "review/eval/evalset.h"
#include "review/eval/eval_recall.h"
#include "review/model/model_prompt.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define FUNC_MAX 128
#define MAX_FUNCS 8 /* functions of one case the plan looks up */
#define READ_SPAN 400 /* read_file's most lines a call */

static bool holds(const struct rb_buf *b, const char *s, size_t n)
{
	return b->len && memmem(b->ptr, b->len, s, n) != NULL;
}

/* The file @path of the buggy code (ctx->tree); *out NULL when none. */
static int read_blob(git_blob **out, const struct rb_model_patch_ctx *ctx,
		     const char *path)
{
	git_tree *tree;
	int ret;

	*out = NULL;
	if (git_tree_lookup(&tree, ctx->repo, ctx->tree)) {
		git_error_clear();
		return rb_err(RB_EIO, "the case's tree cannot be read");
	}
	ret = rb_eval_tree_blob(out, ctx->repo, tree, path);
	git_tree_free(tree);
	return ret;
}

/* One function the fix changed: its file and span in the buggy code. */
struct func {
	char name[FUNC_MAX];
	const char *file; /* borrowed from the changed entry */
	int start, end;
};

static int add_func(struct func *v, int *n, const char *file, const char *name,
		    int start, int end)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i].name, name) && !strcmp(v[i].file, file))
			return 0;
	if (*n == MAX_FUNCS)
		return 0;
	snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
	v[*n].file = file;
	v[*n].start = start;
	v[*n].end = end;
	(*n)++;
	return 0;
}

/* Is every telling line of lines [a, b] of @text in @b? Counts them. */
static bool span_held(const struct rb_buf *b, const char *text, size_t len,
		      int a, int e, int *of, int *held)
{
	bool all = true;
	const char *s;
	size_t n;
	int i;

	for (i = a; i <= e; i++) {
		s = rb_eval_line_at(text, len, i, &n);
		if (!s || !rb_eval_telling(&s, &n))
			continue;
		(*of)++;
		if (holds(b, s, n))
			(*held)++;
		else
			all = false;
	}
	return all;
}

/* Counts rows "path:line: ..." of a tool's result. */
static int rows_of(const struct rb_buf *b)
{
	const char *p = b->ptr, *end = b->ptr + b->len, *q;
	int rows = 0;

	while (p && p < end) {
		q = p;
		while (q < end && *q != ':' && *q != '\n' && *q != ' ')
			q++;
		if (q < end && *q == ':' && q > p && q + 1 < end &&
		    isdigit((unsigned char)q[1]))
			rows++;
		q = memchr(p, '\n', (size_t)(end - p));
		p = q ? q + 1 : NULL;
	}
	return rows;
}

/* The line where find_definition says @file defines the symbol, or 0. */
static long def_line_in(const struct rb_buf *b, const char *file)
{
	const char *p = b->ptr, *end = b->ptr + b->len, *q;
	size_t fl = strlen(file);

	while (p && p < end) {
		if ((size_t)(end - p) > fl + 1 && !memcmp(p, file, fl) &&
		    p[fl] == ':' && isdigit((unsigned char)p[fl + 1]))
			return strtol(p + fl + 1, NULL, 10);
		q = memchr(p, '\n', (size_t)(end - p));
		p = q ? q + 1 : NULL;
	}
	return 0;
}

/* One tool call of the plan with the arguments @args (taken); its
 * result is kept in @all. */
static int call(struct rb_model_tools *t, struct rb_buf *all,
		struct rb_buf *one, const char *name, json_t *args)
{
	char *text = args ? json_dumps(args, JSON_COMPACT) : NULL;
	int ret;

	json_decref(args);
	if (!text)
		return rb_err(RB_ENOMEM, "out of memory");
	rb_buf_reset(one);
	ret = rb_model_tools_call(t, name, text, strlen(text), one);
	free(text);
	if (ret && ret != -RB_ETOOBIG)
		return ret;
	return rb_buf_add(all, one->ptr ? one->ptr : "", one->len);
}

/* The plan of eval_recall.h for the functions @fn. */
static int plan(struct rb_eval_recall *out, const struct rb_model_opts *o,
		const struct rb_model_patch_ctx *ctx, const struct func *fn,
		int nfn, const struct rb_eval_changed *changed, size_t n)
{
	struct rb_model_tools_ctx tc = rb_model_tools_ctx_of(ctx, ctx->repo);
	struct rb_buf all = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf one = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_model_tools *t = NULL;
	struct rb_model_tools_usage u;
	size_t i, k;
	int f, ret;

	/* The recall asks the tree, not the other parts' applies. */
	tc.applied = NULL;
	ret = rb_model_tools_new(&t, &tc, &o->tool_limits);
	for (f = 0; !ret && f < nfn; f++) {
		long at;
		bool missing = false;
		git_blob *b = NULL;

		ret = call(t, &all, &one, "find_definition",
			   json_pack("{s:s}", "symbol", fn[f].name));
		if (ret)
			break;
		at = def_line_in(&one, fn[f].file);
		ret = read_blob(&b, ctx, fn[f].file);
		for (i = 0; !ret && b && i < n; i++) {
			if (strcmp(changed[i].file, fn[f].file))
				continue;
			for (k = 0; k < changed[i].n_lines; k++) {
				const char *s;
				size_t len;
				int l = changed[i].lines[k];

				if (l < fn[f].start || l > fn[f].end)
					continue;
				s = rb_eval_line_at(git_blob_rawcontent(b),
						    (size_t)git_blob_rawsize(b),
						    l, &len);
				if (s && rb_eval_telling(&s, &len) &&
				    !holds(&all, s, len))
					missing = true;
			}
		}
		git_blob_free(b);
		if (!ret && missing && at > 0 &&
		    strstr(one.ptr ? one.ptr : "", "read_file")) {
			ret = call(t, &all, &one, "read_file",
				   json_pack("{s:s, s:I, s:I}", "path",
					     fn[f].file, "start",
					     (json_int_t)at, "end",
					     (json_int_t)(at + READ_SPAN - 1)));
		}
		if (ret)
			break;
		ret = call(t, &all, &one, "find_callers",
			   json_pack("{s:s}", "symbol", fn[f].name));
		if (!ret)
			out->callers += rows_of(&one);
	}
	/* Which of the fix's lines, in those functions, the results hold. */
	for (i = 0; !ret && i < n; i++) {
		git_blob *b = NULL;

		ret = read_blob(&b, ctx, changed[i].file);
		for (k = 0; !ret && b && k < changed[i].n_lines; k++) {
			const char *s;
			size_t len;
			int l = changed[i].lines[k];

			for (f = 0; f < nfn; f++)
				if (!strcmp(fn[f].file, changed[i].file) &&
				    l >= fn[f].start && l <= fn[f].end)
					break;
			s = rb_eval_line_at(git_blob_rawcontent(b),
					    (size_t)git_blob_rawsize(b), l,
					    &len);
			if (f == nfn || !s || !rb_eval_telling(&s, &len))
				continue;
			out->tool_lines_of++;
			out->tool_lines += holds(&all, s, len);
		}
		git_blob_free(b);
	}
	if (t) {
		rb_model_tools_get_usage(t, &u);
		out->calls = u.calls;
		out->refused = u.refused;
		out->bytes = u.bytes;
	}
	rb_model_tools_free(t);
	rb_buf_release(&all);
	rb_buf_release(&one);
	return ret;
}

int rb_eval_context_recall(struct rb_eval_recall *out,
			   const struct rb_model_opts *o,
			   const struct rb_model_patch_ctx *ctx,
			   const struct rb_eval_changed *changed, size_t n)
{
	struct rb_buf sys = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf user = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf cov = RB_BUF_INIT(64 * 1024);
	struct func fn[MAX_FUNCS];
	char nonce[17], name[FUNC_MAX];
	int nfn = 0, i, s, e, ret;
	size_t c, k;

	memset(out, 0, sizeof(*out));
	if (!ctx->repo || !ctx->tree)
		return rb_err(RB_EINVAL,
			      "context recall needs the case's tree");
	rb_model_nonce(nonce);
	ret = rb_model_prompt_build(&sys, &user, &cov, o, ctx, nonce);
	if (ret)
		goto out;
	out->prompt_bytes = sys.len + user.len;
	out->clipped = cov.len > 0;
	for (c = 0; !ret && c < n; c++) {
		git_blob *b = NULL;
		const char *text;
		size_t len;

		ret = read_blob(&b, ctx, changed[c].file);
		if (ret || !b)
			continue;
		text = git_blob_rawcontent(b);
		len = (size_t)git_blob_rawsize(b);
		for (k = 0; k < changed[c].n_lines; k++) {
			const char *l;
			size_t ln;

			l = rb_eval_line_at(text, len, changed[c].lines[k],
					    &ln);
			if (l && rb_eval_telling(&l, &ln)) {
				out->lines++;
				out->lines_in_prompt += holds(&user, l, ln);
			}
			if (rb_eval_func_span(text, len, changed[c].lines[k],
					      name, sizeof(name), &s, &e))
				add_func(fn, &nfn, changed[c].file, name, s, e);
		}
		for (i = 0; i < nfn; i++) {
			if (fn[i].file != changed[c].file)
				continue;
			out->functions++;
			out->functions_whole += span_held(
				&user, text, len, fn[i].start, fn[i].end,
				&out->func_lines, &out->func_lines_in_prompt);
		}
		git_blob_free(b);
	}
	if (!ret && nfn)
		ret = plan(out, o, ctx, fn, nfn, changed, n);
out:
	rb_buf_release(&sys);
	rb_buf_release(&user);
	rb_buf_release(&cov);
	return ret;
}
