// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_validate.c - the validators of a finding (model.h): does its
 * quote stand in the patch, on the side and near the line it names
 * (else it is a hallucination), and which findings and dismissals speak
 * of the same place or the same cause.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>

#include "mail/verdict.h"
#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define MIN_QUOTE 4 /* significant characters a quote needs */
#define MIN_FRAGMENT 12 /* a quote shorter than its line must be this long */

void rb_model__norm(struct rb_buf *b, const char *s, size_t n)
{
	size_t i;
	bool sp = false;

	rb_buf_reset(b);
	for (i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			sp = b->len > 0;
			continue;
		}
		if (sp)
			rb_buf_putc(b, ' ');
		sp = false;
		rb_buf_putc(b, s[i]);
	}
}

static size_t significant(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += isalnum((unsigned char)*s) || strchr("_()[]*&=<>!+-", *s);
	return n;
}

struct quote_search {
	const struct rb_model_raw_finding *f;
	const char *want; /* one normalised quote line */
	int lo, hi; /* the window of line numbers */
	struct rb_buf tmp;
	bool found;
};

static int match_line(const struct rb_diff_hunk *h, size_t hunk_no,
		      const struct rb_diff_line *l, void *payload)
{
	struct quote_search *q = payload;
	int no = (int)(q->f->old_side ? l->old_lineno : l->new_lineno);

	(void)h;
	(void)hunk_no;
	if (!no || no < q->lo || no > q->hi)
		return 0;
	if (q->f->old_side ? l->origin == '+' : l->origin == '-')
		return 0;
	rb_model__norm(&q->tmp, l->text, l->len);
	/* The whole line, or a fragment of it long enough to mean something. */
	if (q->tmp.len &&
	    (!strcmp(q->tmp.ptr, q->want) || (strlen(q->want) >= MIN_FRAGMENT &&
					      strstr(q->tmp.ptr, q->want)))) {
		q->found = true;
		return 1;
	}
	return 0;
}

/*
 * Is every line of the quote on its side of @file within near lines of
 * the line it names? A leading "+"/"-" marker copied by the model is
 * forgiven.
 */
static bool quote_in_diff(const struct rb_diff_file *file,
			  const struct rb_model_raw_finding *f, int near)
{
	struct quote_search q = { .f = f };
	struct rb_buf want = RB_BUF_INIT(MAX_FIELD * 2);
	const char *s = f->quoted_code, *e;
	int lines = 0;
	bool ok = true;

	rb_buf_init(&q.tmp, 1u << 20);
	while (ok && s && *s) {
		size_t n;

		e = strchr(s, '\n');
		n = e ? (size_t)(e - s) : strlen(s);
		rb_model__norm(&want, s, n);
		if (want.len) {
			q.lo = f->line - near;
			q.hi = f->line + near + lines;
			q.found = false;
			q.want = want.ptr;
			rb_diff_foreach_line(file, match_line, &q);
			if (!q.found &&
			    (want.ptr[0] == '+' || want.ptr[0] == '-')) {
				rb_model__norm(&want, want.ptr + 1,
					       want.len - 1);
				q.want = want.ptr;
				rb_diff_foreach_line(file, match_line, &q);
			}
			ok = q.found;
			lines++;
		}
		s = e ? e + 1 : NULL;
	}
	rb_buf_release(&want);
	rb_buf_release(&q.tmp);
	return ok && lines > 0;
}

static bool quote_in_text(const char *text, const char *quote)
{
	struct rb_buf a = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	bool ok;

	rb_model__norm(&a, text ? text : "", text ? strlen(text) : 0);
	rb_model__norm(&b, quote, strlen(quote));
	ok = b.len && a.len && strstr(a.ptr, b.ptr);
	rb_buf_release(&a);
	rb_buf_release(&b);
	return ok;
}

const char *rb_model__strip_ab(const char *p)
{
	if ((p[0] == 'a' || p[0] == 'b') && p[1] == '/')
		return p + 2;
	return p;
}

int rb_model_validate(const char **out, const struct rb_diff *d,
		      const char *commit_msg,
		      const struct rb_model_raw_finding *f, int near)
{
	const struct rb_diff_file *df = NULL;
	bool msgf = !strcmp(f->category, "commit-message") &&
		    (!*f->file || !strcmp(f->file, "COMMIT_MSG"));

	if (!rb_model_category_allowed(f->category) || !f->introduced_by_patch)
		return rb_err(RB_ENOTFOUND, "model: category %s refused",
			      f->category);
	if (!msgf) {
		df = rb_diff_find_file(d, f->file);
		if (!df)
			df = rb_diff_find_file(d, rb_model__strip_ab(f->file));
		if (!df)
			return rb_err(RB_ENOTFOUND,
				      "model: %s is not in the patch", f->file);
	}
	if (significant(f->quoted_code) < MIN_QUOTE ||
	    (msgf ? !quote_in_text(commit_msg, f->quoted_code) :
		    !quote_in_diff(df, f, near)))
		return rb_err(RB_EINVAL,
			      "model: the quote is not in %s near "
			      "line %d",
			      f->file, f->line);
	*out = df ? rb_diff_file_path(df) : NULL;
	return 0;
}
