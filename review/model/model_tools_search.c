// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_tools_search.c - the model's searches of a tree: grep,
 * find_definition and find_callers, and the definitions the prompt looks
 * up (rb_model_tools_find_defs()).
 *
 * Search (grep, find_definition, find_callers) runs in this process over
 * the blobs of the tree, with libgit2, a word index and a small C line
 * recogniser, rather than with universal-ctags (/usr/bin/ctags 5.9) or
 * "git grep":
 *  - ctags reads files, so the patched tree (whoever sent the patch owns
 *    it) would be written out to disk for every patch, which the design
 *    forbids, and its tags answer definitions only, not callers or text,
 *    so a second engine would be needed anyway.
 *  - "git grep" on a tree cannot see the tip (it lives in memory) and
 *    inflates every blob of the kernel on each call (5 s of one core on
 *    linux 6.1 here): ten searches of a review would be a minute.
 * Instead, the searches go through the word index of the base tree
 * (review/code/code_index.h): each run of [A-Za-z0-9_] of every text blob,
 * with the blobs holding it (numbers left out), in a file per tree that
 * every process shares, built once (from the previous base's by reading
 * the blobs that differ). A search reads only the blobs that can match:
 * a fixed-string pattern's inner words must be words of the blob, its
 * edge words a suffix or prefix of one, and a symbol's definitions and
 * callers are in the blobs that hold the word. Blobs of the tip that the
 * series changed are not in the index and are always read. Patterns
 * without a usable word, and regular expressions, read every blob under
 * the deadline. On linux 6.1 a symbol's definition or callers take
 * 10-100 ms and a word search well under a second (docs/ARCHITECTURE.md).
 *
 * The recogniser of definitions (macros, functions, struct/union/enum,
 * typedefs, globals) is review/code/code_c.h, which the prompt shares; call
 * sites are lines in kernel style (a definition starts in column 0, a
 * call is in an indented line). It is a heuristic: a miss is "no
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "review/code/code_c.h"
#include "review/code/code_index.h"
#include "review/code/code_regex.h"
#include "review/code/code_tree.h"
#include "review/model/model_tools_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define MAX_SYMBOL 128
#define DEADLINE_LINES 64 /* lines between two looks at the clock */
#define GREP_ROWS 100
#define CALLER_ROWS 60
#define DEFS_MAX 6
#define DEFS_KEEP 64 /* definitions ranked before DEFS_MAX are shown */
#define DEF_LINES 60

enum smode { S_GREP, S_DEF, S_CALLERS };

struct search {
	struct rb_model_tools *t;
	enum smode mode;
	int side;
	const char *pat; /* fixed string or symbol */
	size_t plen;
	struct rb_code_regex *re;
	const char *prefix;
	size_t prefix_len;
	double deadline;
	bool timed_out;
	bool too_costly; /* the regex hit its limits on too many lines */
	size_t rows, more, files;
	size_t max_rows;
	struct rb_buf *out;
	struct drow {
		int rank;
		size_t off, len;
	} * drows; /* find_definition's rows, in the order found */
	size_t ndcap;
	struct rb_code_index *wi; /* borrowed from t */
	uint8_t *cand; /* blobs of wi that can match, or NULL: any */
	bool collect; /* rb_model_tools_find_defs(): rows into coll */
	struct rb_model_tools_def *coll;
	size_t ccoll;
};

static struct rb_code_index *widx_get(struct rb_model_tools *t);

static int emit_row(struct search *sr, const char *path, size_t line,
		    const char *text, size_t tlen, const char *fn, size_t fnlen)
{
	struct rb_buf *o = sr->out;
	int ret;

	if (sr->rows >= sr->max_rows) {
		sr->more++;
		return 0;
	}
	sr->rows++;
	ret = mt_put_line(o, path, strlen(path));
	if (!ret)
		ret = rb_buf_printf(o, ":%zu:", line);
	if (!ret && fn) {
		ret = rb_buf_puts(o, " [");
		if (!ret)
			ret = mt_put_line(o, fn, fnlen);
		if (!ret)
			ret = rb_buf_puts(o, "()] ");
	}
	if (!ret)
		ret = mt_put_line(o, text, tlen);
	return ret ? ret : rb_buf_putc(o, '\n');
}

/*
 * Whether the call is over: its deadline passed (looked at every
 * DEADLINE_LINES lines, so that it holds inside a blob too), or its
 * regex was too costly. Sets what the footer says.
 */
static bool search_over(struct search *sr, size_t line)
{
	if (sr->re && sr->re->costly >= REGEX_COSTLY) {
		sr->too_costly = true;
		return true;
	}
	if (line % DEADLINE_LINES == 0 && mt_now() > sr->deadline) {
		sr->timed_out = true;
		return true;
	}
	return sr->timed_out;
}

static int search_grep(struct search *sr, const char *path,
		       const struct rb_c_lines *l)
{
	size_t i, n;
	int ret = 0;

	for (i = 0; i < l->n && !ret && !search_over(sr, i); i++) {
		const char *s = rb_c_line(l, i, &n);
		bool hit;

		if (sr->re)
			/* A regex sees the first REGEX_LINE bytes of a line. */
			hit = rb_code_regex_match(
				sr->re, s, n > REGEX_LINE ? REGEX_LINE : n);
		else
			hit = memmem(s, n, sr->pat, sr->plen) != NULL;
		if (hit)
			ret = emit_row(sr, path, i + 1, s, n, NULL, 0);
	}
	return ret;
}
/* A definition row starts here: where, and of which rank. */
static int def_row(struct search *sr, const char *path)
{
	struct drow *v =
		rb_grow(sr->drows, &sr->ndcap, sr->rows, sizeof(*sr->drows));

	if (!v)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	sr->drows = v;
	v[sr->rows].rank = rb_c_path_rank(path);
	v[sr->rows].off = sr->out->len;
	sr->rows++;
	return 0;
}

static int drow_cmp(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The definitions found, best ranked first, DEFS_MAX of them, from the
 * text in @tmp (each row from its offset to the next one's).
 */
static int def_output(struct search *sr, struct rb_buf *tmp, struct rb_buf *out)
{
	size_t i, n = sr->rows;
	int ret = 0;

	for (i = 0; i < n; i++)
		sr->drows[i].len =
			(i + 1 < n ? sr->drows[i + 1].off : tmp->len) -
			sr->drows[i].off;
	if (n)
		qsort(sr->drows, n, sizeof(*sr->drows), drow_cmp);
	for (i = 0; i < n && i < DEFS_MAX && !ret; i++) {
		if (i)
			ret = rb_buf_putc(out, '\n');
		if (!ret)
			ret = rb_buf_add(out, tmp->ptr + sr->drows[i].off,
					 sr->drows[i].len);
	}
	if (n > DEFS_MAX)
		sr->more += n - DEFS_MAX;
	sr->rows = n < DEFS_MAX ? n : DEFS_MAX;
	return ret;
}

/* A definition found for rb_model_tools_find_defs(): kept, not written. */
static int def_collect(struct search *sr, const char *path, size_t i,
		       const char *kind)
{
	struct rb_model_tools_def *v =
		rb_grow(sr->coll, &sr->ccoll, sr->rows, sizeof(*sr->coll));

	if (!v)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	sr->coll = v;
	v += sr->rows;
	memset(v, 0, sizeof(*v));
	v->path = strdup(path);
	if (!v->path)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	v->line = i + 1;
	v->kind = kind;
	v->rank = rb_c_path_rank(path);
	sr->rows++;
	return 0;
}

static int search_def(struct search *sr, const char *path,
		      const struct rb_c_lines *l)
{
	size_t i, k, n, span;
	int ret = 0;

	for (i = 0; i < l->n && !ret && !search_over(sr, i); i++) {
		const char *kind = rb_c_def_kind(l, i, sr->pat, sr->plen);

		if (!kind)
			continue;
		if (sr->rows >= sr->max_rows) {
			sr->more++;
			continue;
		}
		if (sr->collect) {
			ret = def_collect(sr, path, i, kind);
			continue;
		}
		ret = def_row(sr, path);
		if (ret)
			break;
		span = rb_c_def_span(l, i, kind, DEF_LINES);
		ret = mt_put_line(sr->out, path, strlen(path));
		if (!ret)
			ret = rb_buf_printf(sr->out, ":%zu: %s\n", i + 1, kind);
		for (k = i; !ret && k < i + span; k++) {
			const char *s = rb_c_line(l, k, &n);

			ret = rb_buf_printf(sr->out, "%zu\t", k + 1);
			if (!ret)
				ret = mt_put_line(sr->out, s, n);
			if (!ret)
				ret = rb_buf_putc(sr->out, '\n');
		}
		if (!ret && span == DEF_LINES)
			ret = rb_buf_puts(sr->out, "[... read_file for the "
						   "rest]\n");
	}
	return ret;
}

static int search_callers(struct search *sr, const char *path,
			  const struct rb_c_lines *l)
{
	const char *fn = NULL;
	size_t i, n, fnlen = 0;
	int ret = 0;

	for (i = 0; i < l->n && !ret && !search_over(sr, i); i++) {
		const char *s = rb_c_line(l, i, &n), *nm;
		size_t nml;
		long at;

		if (n && s[0] == '}') {
			fn = NULL;
			continue;
		}
		if (n && rb_c_fn_header(s, n, &nm, &nml)) {
			fn = nm;
			fnlen = nml;
		}
		at = rb_c_find_word(s, n, sr->pat, sr->plen);
		if (at < 0 || rb_c_comment_line(s, n))
			continue;
		/* Definitions and prototypes start in column 0. */
		if (s[0] != ' ' && s[0] != '\t' && s[0] != '#')
			continue;
		if (s[0] == '#' && rb_c_def_kind(l, i, sr->pat, sr->plen))
			continue;
		ret = emit_row(sr, path, i + 1, s, n, s[0] == '#' ? NULL : fn,
			       fnlen);
	}
	return ret;
}

/* Could blob @f hold a match? (The word index; true without it.) */
static bool may_match(struct search *sr, const struct rb_code_tree_file *f);

/* Before the lines are split: is the text there at all? */
static bool blob_may_match(const struct search *sr, const char *p, size_t n)
{
	if (sr->re)
		return true;
	if (sr->mode == S_GREP)
		return memmem(p, n, sr->pat, sr->plen) != NULL;
	return rb_c_find_word(p, n, sr->pat, sr->plen) >= 0;
}

static int search_run(struct search *sr)
{
	struct rb_model_tools *t = sr->t;
	struct rb_code_tree *s;
	size_t i;
	int ret = mt_side_load(t, sr->side);

	if (ret)
		return ret;
	/* Regular expressions read every blob (no literal is taken out). */
	if (!sr->re && t->ctx.base_tree) {
		sr->wi = widx_get(t);
		if (sr->wi)
			ret = rb_code_index_cand(&sr->cand, sr->wi, sr->pat,
						 sr->plen, sr->mode != S_GREP);
		if (ret)
			return ret;
		/* Building the index is not this call's time. */
		sr->deadline = mt_call_deadline(t);
	}
	s = &t->sides[sr->side];
	for (i = 0; i < s->n && !ret; i++) {
		const struct rb_code_tree_file *f = &s->f[i];
		git_blob *blob = NULL;
		struct rb_c_lines l;

		if (sr->prefix_len &&
		    strncmp(f->path, sr->prefix, sr->prefix_len))
			continue;
		if (sr->mode != S_GREP && !rb_c_is_c_path(f->path))
			continue;
		if (!may_match(sr, f))
			continue;
		if (search_over(sr, 0))
			break;
		/* Full: counting the rest would read every candidate. */
		if (sr->more)
			break;
		if (git_blob_lookup(&blob, t->ctx.repo, &f->oid) < 0)
			continue;
		if (git_blob_rawsize(blob) > BLOB_MAX ||
		    git_blob_is_binary(blob)) {
			git_blob_free(blob);
			continue;
		}
		sr->files++;
		if (!blob_may_match(sr, git_blob_rawcontent(blob),
				    (size_t)git_blob_rawsize(blob))) {
			git_blob_free(blob);
			continue;
		}
		ret = rb_c_lines_split(&l, git_blob_rawcontent(blob),
				       (size_t)git_blob_rawsize(blob));
		if (!ret) {
			if (sr->mode == S_GREP)
				ret = search_grep(sr, f->path, &l);
			else if (sr->mode == S_DEF)
				ret = search_def(sr, f->path, &l);
			else
				ret = search_callers(sr, f->path, &l);
			rb_c_lines_release(&l);
		}
		git_blob_free(blob);
	}
	free(sr->cand);
	sr->cand = NULL;
	return ret;
}

/* ---- the word index (review/code/code_index.h) ---- */

/* The index of @t's base tree: shared, loaded or built on first use. */
static struct rb_code_index *widx_get(struct rb_model_tools *t)
{
	if (t->wi || t->wi_failed)
		return t->wi;
	if (rb_code_index_get(&t->wi, t->ctx.repo, &t->base_tree)) {
		rb_log(RB_LOG_WARN, "model.tools_index", "error", rb_errmsg(),
		       NULL);
		rb_err_clear();
		t->wi = NULL;
	}
	t->wi_failed = !t->wi;
	return t->wi;
}

static bool may_match(struct search *sr, const struct rb_code_tree_file *f)
{
	uint32_t k;

	if (!sr->cand)
		return true;
	k = rb_code_index_blob(sr->wi, &f->oid);
	/* Not in the base tree's index (the series changed it): read it. */
	if (k == RB_CODE_INDEX_NONE)
		return true;
	return sr->cand[k >> 3] & (1u << (k & 7));
}

/* ---- grep, find_definition, find_callers ---- */

static int search_footer(struct search *sr, const char *none)
{
	int ret = 0;

	if (!sr->rows)
		ret = rb_buf_printf(sr->out, "%s\n", none);
	if (!ret && sr->more)
		ret = rb_buf_puts(sr->out,
				  "[more not shown: narrow the search, "
				  "e.g. with path_prefix]\n");
	if (!ret && sr->timed_out)
		ret = rb_buf_puts(sr->out, "[the search stopped at its time "
					   "limit: results are partial]\n");
	if (!ret && sr->too_costly)
		ret = rb_buf_printf(
			sr->out,
			"[the regex is too costly: it hit its "
			"step or memory limit on %d lines, and the "
			"search stopped there: results are partial; "
			"simplify it]\n",
			REGEX_COSTLY);
	return ret;
}

static int arg_prefix(struct mt_args *a, struct search *sr)
{
	int ret = mt_arg_str(a, "path_prefix", false, &sr->prefix,
			     &sr->prefix_len, MAX_PATH);

	if (!ret && sr->prefix_len &&
	    !mt_path_ok(sr->prefix, sr->prefix_len, true))
		return rb_buf_puts(a->err, "error: path_prefix must be a "
					   "relative path in the tree\n") ?:
		       -RB_EINVAL;
	return ret;
}

int mt_tool_grep(struct rb_model_tools *t, struct mt_args *a,
		 struct rb_buf *out)
{
	struct search sr = {
		.t = t, .mode = S_GREP, .out = out, .max_rows = GREP_ROWS
	};
	struct rb_code_regex re;
	bool regex;
	int ret;

	ret = mt_arg_str(a, "pattern", true, &sr.pat, &sr.plen, MAX_PATTERN);
	if (!ret)
		ret = mt_arg_bool(a, "regex", &regex);
	if (!ret)
		ret = mt_arg_side(t, a, &sr.side);
	if (!ret)
		ret = arg_prefix(a, &sr);
	if (ret)
		return ret;
	if (!sr.plen || memchr(sr.pat, '\n', sr.plen))
		return rb_buf_puts(a->err, "error: the pattern must be one "
					   "line, not empty\n") ?:
		       -RB_EINVAL;
	if (regex) {
		ret = rb_code_regex_compile(&re, sr.pat, sr.plen, a->err);
		if (ret)
			return ret;
		sr.re = &re;
	}
	sr.deadline = mt_call_deadline(t);
	ret = search_run(&sr);
	if (!ret)
		ret = search_footer(&sr, "no match");
	if (regex)
		rb_code_regex_free(&re);
	return ret;
}

static int arg_symbol(struct rb_model_tools *t, struct mt_args *a,
		      struct search *sr)
{
	size_t i;
	int ret;

	ret = mt_arg_str(a, "symbol", true, &sr->pat, &sr->plen, MAX_SYMBOL);
	if (!ret)
		ret = mt_arg_side(t, a, &sr->side);
	if (ret)
		return ret;
	for (i = 0; i < sr->plen; i++)
		if (!rb_c_is_word((unsigned char)sr->pat[i]))
			break;
	if (!sr->plen || i < sr->plen || isdigit((unsigned char)sr->pat[0]))
		return rb_buf_puts(a->err, "error: symbol must be a C "
					   "identifier\n") ?:
		       -RB_EINVAL;
	sr->deadline = mt_call_deadline(t);
	return 0;
}

int mt_tool_find_definition(struct rb_model_tools *t, struct mt_args *a,
			    struct rb_buf *out)
{
	struct rb_buf tmp = RB_BUF_INIT(WORK_MAX);
	struct search sr = {
		.t = t, .mode = S_DEF, .out = &tmp, .max_rows = DEFS_KEEP
	};
	int ret = arg_symbol(t, a, &sr);

	if (!ret)
		ret = search_run(&sr);
	/* Full: the rows kept are whole, the rest were not written. */
	if (ret == -RB_ETOOBIG && sr.rows)
		ret = 0;
	if (!ret)
		ret = def_output(&sr, &tmp, out);
	sr.out = out;
	if (!ret)
		ret = search_footer(&sr, "no definition found");
	free(sr.drows);
	rb_buf_release(&tmp);
	return ret;
}

int mt_tool_find_callers(struct rb_model_tools *t, struct mt_args *a,
			 struct rb_buf *out)
{
	struct search sr = {
		.t = t, .mode = S_CALLERS, .out = out, .max_rows = CALLER_ROWS
	};
	int ret = arg_symbol(t, a, &sr);

	if (!ret)
		ret = arg_prefix(a, &sr);
	if (!ret)
		ret = search_run(&sr);
	if (!ret)
		ret = search_footer(&sr, "no callers found");
	return ret;
}

static int def_cmp(const void *a, const void *b)
{
	const struct rb_model_tools_def *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->order < y->order ? -1 : x->order > y->order;
}

void rb_model_tools_defs_free(struct rb_model_tools_def *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].path);
	free(v);
}

int rb_model_tools_find_defs(struct rb_model_tools_def **out, size_t *n,
			     struct rb_model_tools *t, const char *sym,
			     bool base)
{
	struct search sr = {
		.t = t, .mode = S_DEF, .max_rows = DEFS_KEEP, .collect = true
	};
	size_t i, sl = sym ? strlen(sym) : 0;
	int ret;

	*out = NULL;
	*n = 0;
	if (!t || !t->ctx.repo || !sl || sl > MAX_SYMBOL ||
	    isdigit((unsigned char)sym[0]))
		return 0;
	for (i = 0; i < sl; i++)
		if (!rb_c_is_word((unsigned char)sym[i]))
			return 0;
	sr.side = base ? 0 : 1;
	if (sr.side == 1 && !t->ctx.tip_tree)
		sr.side = 0;
	if (sr.side == 0 && !t->ctx.base_tree)
		return 0;
	sr.pat = sym;
	sr.plen = sl;
	if (!t->started) {
		clock_gettime(CLOCK_MONOTONIC, &t->start);
		t->started = true;
	}
	sr.deadline = mt_call_deadline(t);
	ret = search_run(&sr);
	if (ret) {
		rb_model_tools_defs_free(sr.coll, sr.rows);
		return ret;
	}
	for (i = 0; i < sr.rows; i++)
		sr.coll[i].order = i;
	if (sr.rows)
		qsort(sr.coll, sr.rows, sizeof(*sr.coll), def_cmp);
	*out = sr.coll;
	*n = sr.rows;
	return 0;
}

size_t rb_model_tools_word_blobs(struct rb_model_tools *t, const char *word)
{
	struct rb_code_index *w;

	if (!t || !t->ctx.repo || !t->ctx.base_tree || !word)
		return SIZE_MAX;
	w = widx_get(t);
	if (!w)
		return SIZE_MAX;
	return rb_code_index_word_blobs(w, word, strlen(word));
}

void rb_model_tools_drop_index(void)
{
	rb_code_index_drop();
}
