// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_query.c - a lookup's input: the files, "Fixes:" commits and K:
 * keyword hits of patches (get_maintainer.pl's read loop over a patch)
 * or of paths in the tree (-f), and the one-call lookups.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "review/apply/diff.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

int rb_maint_query_new(struct rb_maint_query **out, const struct rb_maint *m)
{
	struct rb_maint_query *q = calloc(1, sizeof(*q));

	if (q)
		q->kwhit = calloc(m->ix->nkw + 1, sizeof(*q->kwhit));
	if (!q || !q->kwhit) {
		free(q);
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	q->m = m;
	*out = q;
	return 0;
}

void rb_maint_query_free(struct rb_maint_query *q)
{
	if (!q)
		return;
	rb_maint__strv_release(&q->files);
	rb_maint__strv_release(&q->fixes);
	free(q->kwhit);
	free(q);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sort_and_uniq(@files) */
static void sort_uniq(struct strv *sv)
{
	size_t i, o = 0;

	if (!sv->n)
		return;
	qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
	for (i = 0; i < sv->n; i++) {
		if (o && !strcmp(sv->v[o - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[o++] = sv->v[i];
	}
	sv->n = o;
}

/* "(\S+)\s*$" at @i of the line: the run's end, or 0. */
static size_t run_then_ws(const char *l, size_t len, size_t i)
{
	size_t e = i, k;

	while (e < len && !is_ws((unsigned char)l[e]))
		e++;
	if (e == i)
		return 0;
	for (k = e; k < len; k++)
		if (!is_ws((unsigned char)l[k]))
			return 0;
	return e;
}

static bool starts(const char *l, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(l, p, n);
}

static int push_file(struct strv *files, const char *s, size_t len)
{
	return rb_maint__strv_push(files, strndup(s, len));
}

/*
 * A name as get_maintainer.pl's regexes take it, unless git C-quoted it
 * ("b/scripts/checkpatch\056pl"): the perl script would look up the
 * quoted text; the unquoted name comes from the diff parser instead
 * (add_diff_paths()), as apply writes it.
 */
static int push_name(struct strv *files, const char *tok, const char *s,
		     size_t len)
{
	return *tok == '"' ? 0 : push_file(files, s, len);
}

/*
 * The paths apply writes (review/apply/diff.c): both sides of renames and
 * copies, C-quoted names unquoted. A patch the parser refuses adds
 * nothing here: it does not apply either.
 */
static int add_diff_paths(struct strv *files, const char *text, size_t len)
{
	struct rb_diff *d = NULL;
	size_t i;
	int err = 0;

	if (rb_diff_parse(&d, text, len)) {
		rb_err_clear();
		return 0;
	}
	for (i = 0; i < d->n_files && !err; i++) {
		const struct rb_diff_file *f = &d->files[i];

		/* Duplicates go with the sort_uniq() that follows. */
		if (f->old_path)
			err = push_file(files, f->old_path,
					strlen(f->old_path));
		if (!err && f->new_path)
			err = push_file(files, f->new_path,
					strlen(f->new_path));
	}
	rb_diff_free(d);
	return err;
}

/*
 * The cases of the read loop's if/elsif chain, one a function: each
 * returns true when @l is its case, with *ret the result of pushing what
 * it names.
 */

/* m/^ mode change [0-7]+ => [0-7]+ (\S+)\s*$/ */
static bool mode_change_line(struct strv *files, const char *l, size_t len,
			     int *ret)
{
	size_t i = 13, e = 13, r;

	if (!starts(l, len, " mode change "))
		return false;
	while (e < len && l[e] >= '0' && l[e] <= '7')
		e++;
	if (e == i || !starts(l + e, len - e, " => "))
		return false;
	i = e + 4;
	e = i;
	while (e < len && l[e] >= '0' && l[e] <= '7')
		e++;
	if (e == i || e >= len || l[e] != ' ')
		return false;
	r = run_then_ws(l, len, e + 1);
	if (!r)
		return false;
	*ret = push_name(files, l + e + 1, l + e + 1, r - e - 1);
	return true;
}

/* m/^rename (?:from|to) (\S+)\s*$/ */
static bool rename_line(struct strv *files, const char *l, size_t len, int *ret)
{
	size_t i, e;

	if (!starts(l, len, "rename from ") && !starts(l, len, "rename to "))
		return false;
	i = l[7] == 'f' ? 12 : 10;
	e = run_then_ws(l, len, i);
	if (!e)
		return false;
	*ret = push_name(files, l + i, l + i, e - i);
	return true;
}

/* m/^diff --git a\/(\S+) b\/(\S+)\s*$/ */
static bool diff_git_line(struct strv *files, const char *l, size_t len,
			  int *ret)
{
	size_t i = 13, e = 13, r;

	if (!starts(l, len, "diff --git a/"))
		return false;
	while (e < len && !is_ws((unsigned char)l[e]))
		e++;
	if (e == i || !starts(l + e, len - e, " b/"))
		return false;
	r = run_then_ws(l, len, e + 3);
	if (!r)
		return false;
	*ret = push_file(files, l + i, e - i);
	if (!*ret)
		*ret = push_file(files, l + e + 3, r - e - 3);
	return true;
}

/* m/^Fixes:\s+([0-9a-fA-F]{6,40})/: @fixes, uniq() */
static bool fixes_line(struct strv *fixes, const char *l, size_t len, int *ret)
{
	size_t e = 6, h;
	char *id;

	if (!starts(l, len, "Fixes:"))
		return false;
	while (e < len && is_ws((unsigned char)l[e]))
		e++;
	if (e == 6)
		return false;
	h = e;
	while (h < len && h - e < 40 && isxdigit((unsigned char)l[h]))
		h++;
	if (h - e < 6)
		return false;
	id = strndup(l + e, h - e);
	if (id && rb_maint__strv_has(fixes, id)) {
		free(id);
		*ret = 0;
	} else {
		*ret = rb_maint__strv_push(fixes, id);
	}
	return true;
}

/* m/^\+\+\+\s+(\S+)/ or m/^---\s+(\S+)/, then s@^[^/]*\/@@ */
static bool dashes_line(struct strv *files, const char *l, size_t len,
			bool *prefix, int *ret)
{
	size_t e = 3, r, s;
	const char *tok;

	if (!starts(l, len, "+++") && !starts(l, len, "---"))
		return false;
	while (e < len && is_ws((unsigned char)l[e]))
		e++;
	if (e == 3)
		return false;
	r = e;
	while (r < len && !is_ws((unsigned char)l[r]))
		r++;
	if (r == e)
		return false;
	tok = l + e;
	s = e;
	while (s < r && l[s] != '/')
		s++;
	if (s < r)
		e = s + 1;
	*prefix = true;
	*ret = push_name(files, tok, l + e, r - e);
	return true;
}

/* m/^\@\@ -(\d+),(\d+)/ */
static bool hunk_line(const char *l, size_t len)
{
	size_t e = 4;

	if (!starts(l, len, "@@ -"))
		return false;
	while (e < len && isdigit((unsigned char)l[e]))
		e++;
	return e > 4 && e < len && l[e] == ',' && e + 1 < len &&
	       isdigit((unsigned char)l[e + 1]);
}

/*
 * Classifies one patch line the way the read loop's if/elsif chain does:
 * pushes file names and returns true when the line is one of the chain's
 * earlier cases (then K: keywords are not matched on it). *prefix is set
 * once a ---/+++ line was seen.
 */
static int patch_line(struct strv *files, struct strv *fixes, const char *l,
		      size_t len, bool *prefix, bool *special)
{
	int ret = 0;

	*special = mode_change_line(files, l, len, &ret) ||
		   rename_line(files, l, len, &ret) ||
		   diff_git_line(files, l, len, &ret) ||
		   fixes_line(fixes, l, len, &ret) ||
		   dashes_line(files, l, len, prefix, &ret) ||
		   hunk_line(l, len);
	return ret;
}

int rb_maint_query_add_patch(struct rb_maint_query *q, const char *text,
			     size_t len)
{
	struct index *ix = q->m->ix;
	struct rb_grams *grams = NULL;
	size_t *lstart = NULL, nlines = 0, i, k;
	unsigned char *lflag = NULL;
	char *lower = NULL;
	bool prefix = false;
	int err = 0;

	for (i = 0; i < len; i++)
		nlines += text[i] == '\n';
	nlines += len && text[len - 1] != '\n';
	lstart = malloc((nlines + 1) * sizeof(*lstart));
	lflag = malloc(nlines + 1);
	lower = malloc(len + 1);
	if (!lstart || !lflag || !lower) {
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
		goto out;
	}
	for (i = 0; i < len; i++)
		lower[i] = lc_ascii(text[i]);
	lower[len] = '\0';
	/* The read loop: lines with their "\n", as <$patch> gives them. */
	for (i = 0, k = 0; k < nlines; k++) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) + 1 : len;
		bool special;

		lstart[k] = i;
		lflag[k] = prefix ? 2 : 0;
		err = patch_line(&q->files, &q->fixes, text + i, e - i, &prefix,
				 &special);
		if (err)
			goto out;
		if (special)
			lflag[k] |= 1;
		i = e;
	}
	lstart[nlines] = len;
	err = add_diff_paths(&q->files, text, len);
	if (err)
		goto out;
	if (ix->nkw) {
		grams = malloc(sizeof(*grams));
		if (!grams) {
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
			goto out;
		}
		rb_grams_fill(grams, lower, len);
	}
	for (k = 0; k < ix->nkw; k++)
		if (!q->kwhit[k])
			q->kwhit[k] = rb_maint__kw_patch(ix, &ix->kw[k], text,
							 lower, len, grams,
							 lstart, lflag, nlines);
	sort_uniq(&q->files);
out:
	free(grams);
	free(lstart);
	free(lflag);
	free(lower);
	return err;
}

/* File::Spec canonpath() for a relative path. */
static char *canonpath(const char *p)
{
	struct rb_buf b = RB_BUF_INIT(PATH_MAX * 4);
	const char *s = p;
	int err = 0;

	if (*s == '/')
		err = rb_buf_putc(&b, '/');
	while (*s && !err) {
		const char *e;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		if (!e)
			e = s + strlen(s);
		if (!(e - s == 1 && s[0] == '.')) {
			if (b.len && b.ptr[b.len - 1] != '/')
				err = rb_buf_putc(&b, '/');
			if (!err)
				err = rb_buf_add(&b, s, (size_t)(e - s));
		}
		s = e;
	}
	if (!err && !b.len)
		err = rb_buf_putc(&b, '.');
	if (err) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

int rb_maint_query_add_path(struct rb_maint_query *q, const char *path)
{
	struct index *ix = q->m->ix;
	struct rb_buf text = RB_BUF_INIT(MAINT_MAX);
	char *c = canonpath(path);
	int kind, err = 0;
	size_t k;

	if (!c)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	kind = rb_maint__src_node(&q->m->src, c);
	if (kind == NODE_NONE) {
		err = rb_err(RB_ENOTFOUND, "file '%s' not found", c);
		free(c);
		return err;
	}
	if (kind == NODE_DIR && c[strlen(c) - 1] != '/') {
		struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

		err = rb_buf_printf(&b, "%s/", c);
		free(c);
		c = err ? NULL : rb_buf_detach(&b, NULL);
		rb_buf_release(&b);
		if (!c)
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	/* Keywords on the whole file, m/$kw/x, unless MAINTAINERS. */
	if (kind == NODE_FILE && strcmp(c, "MAINTAINERS")) {
		err = rb_maint__src_read(&q->m->src, c, &text);
		if (err)
			goto out;
		for (k = 0; k < ix->nkw; k++) {
			struct kw *w = &ix->kw[k];
			char *lower;
			size_t i;

			if (q->kwhit[k] ||
			    __atomic_load_n(&w->state[0], __ATOMIC_ACQUIRE) < 0)
				continue;
			lower = malloc(text.len + 1);
			if (!lower) {
				err = rb_err(RB_ENOMEM, "out of memory");
				goto out;
			}
			for (i = 0; i < text.len; i++)
				lower[i] = lc_ascii(text.ptr[i]);
			if (rb_perl_re_maybe(&w->re[0], lower, text.len) &&
			    rb_maint__kw_re(ix, w, 0) &&
			    rb_perl_re_match(&w->re[0], text.ptr, text.len))
				q->kwhit[k] = true;
			free(lower);
		}
	}
	err = rb_maint__strv_push(&q->files, c);
	c = NULL;
out:
	free(c);
	rb_buf_release(&text);
	return err;
}

int rb_maint_lookup_patch(struct rb_maint_result **out,
			  const struct rb_maint *m, const char *text,
			  size_t len)
{
	struct rb_maint_query *q = NULL;
	int err;

	err = rb_maint_query_new(&q, m);
	if (!err)
		err = rb_maint_query_add_patch(q, text, len);
	if (!err)
		err = rb_maint_query_run(out, q);
	rb_maint_query_free(q);
	return err;
}

int rb_maint_lookup_paths(struct rb_maint_result **out,
			  const struct rb_maint *m, const char *const *paths,
			  size_t npaths)
{
	struct rb_maint_query *q = NULL;
	size_t i;
	int err;

	err = rb_maint_query_new(&q, m);
	for (i = 0; !err && i < npaths; i++)
		err = rb_maint_query_add_path(q, paths[i]);
	if (!err)
		err = rb_maint_query_run(out, q);
	rb_maint_query_free(q);
	return err;
}
