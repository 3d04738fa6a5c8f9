// SPDX-License-Identifier: GPL-2.0-only
/*
 * quotes.c - the patch lines a reply comments on. See quotes.h. The body
 * is hostile: every scan is bounded by its line's end, the comments read
 * are capped and every string copied is capped.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/quotes.h"
#include "util/err.h"
#include "util/banned.h"

/* One line of the body: [p, e), without its CR and LF. */
struct line {
	const char *p, *e;
};

/* A diff line of the run being quoted. */
struct qline {
	char origin; /* '+', '-', ' ' */
	const char *p;
	size_t n;
};

struct state {
	const char *body;
	struct rb_quotes *out;
	size_t cap;
	struct qline run[RB_QUOTES_CTX + 1]; /* the last diff lines quoted */
	size_t n_run;
	const char *file;
	size_t file_len;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

size_t rb_quotes_squeeze(char *out, size_t size, const char *s, size_t n)
{
	size_t i = 0, k = 0;
	bool gap = false;

	if (!size)
		return 0;
	while (i < n && (blank(s[i]) || s[i] == '\r'))
		i++;
	for (; i < n && k + 1 < size; i++) {
		if (blank(s[i]) || s[i] == '\r') {
			gap = true;
			continue;
		}
		if (gap && k + 2 < size)
			out[k++] = ' ';
		gap = false;
		out[k++] = s[i];
	}
	out[k] = '\0';
	return k;
}

bool rb_quotes_same(const char *a, size_t an, const char *b, size_t bn)
{
	char x[RB_QUOTES_MAX_LINE + 1], y[RB_QUOTES_MAX_LINE + 1];
	size_t xn = rb_quotes_squeeze(x, sizeof(x), a, an);
	size_t yn = rb_quotes_squeeze(y, sizeof(y), b, bn);

	return xn == yn && !memcmp(x, y, xn);
}

bool rb_quotes_same_squeezed(const char *sq, size_t sqn, const char *s,
			     size_t n)
{
	/* rb_quotes_squeeze() with size cap + 1, compared as it goes */
	const size_t cap = RB_QUOTES_MAX_LINE;
	size_t i = 0, k = 0;
	bool gap = false;

	while (i < n && (blank(s[i]) || s[i] == '\r'))
		i++;
	for (; i < n && k < cap; i++) {
		if (blank(s[i]) || s[i] == '\r') {
			gap = true;
			continue;
		}
		if (gap && k + 1 < cap) {
			if (k >= sqn || sq[k] != ' ')
				return false;
			k++;
		}
		gap = false;
		if (k >= sqn || sq[k] != s[i])
			return false;
		k++;
	}
	return k == sqn;
}

/* The quote depth of @l ("> > x": 2) and, in *rest, what follows it. */
static int depth_of(const struct line *l, const char **rest)
{
	const char *p = l->p;
	int d = 0;

	while (p < l->e && *p == '>') {
		d++;
		p++;
		/* "> > +x": one blank between two marks */
		if (p + 1 < l->e && blank(*p) && p[1] == '>')
			p++;
	}
	/* one blank after the last mark belongs to the quote */
	if (d && p < l->e && *p == ' ')
		p++;
	*rest = p;
	return d;
}

static char *copy(const char *p, size_t n)
{
	char *s;

	if (n > RB_QUOTES_MAX_LINE)
		n = RB_QUOTES_MAX_LINE;
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* "+++ b/path\tdate" or "diff --git a/x b/path": the path, else NULL. */
static const char *path_of(const char *p, const char *e, size_t *n)
{
	const char *q;

	if (e - p > 6 && !memcmp(p, "+++ ", 4)) {
		p += 4;
		if (e - p > 2 && (p[0] == 'b' || p[0] == 'a') && p[1] == '/')
			p += 2;
	} else if (e - p > 11 && !memcmp(p, "diff --git ", 11)) {
		p += 11;
		/* the last " b/" of the line */
		for (q = e - 3; q > p; q--)
			if (q[0] == ' ' && q[1] == 'b' && q[2] == '/')
				break;
		if (q <= p)
			return NULL;
		p = q + 3;
	} else {
		return NULL;
	}
	for (q = p; q < e && !blank(*q); q++)
		;
	if (q == p || !strncmp(p, "/dev/null", (size_t)(q - p)))
		return NULL;
	*n = (size_t)(q - p);
	return p;
}

static void run_reset(struct state *s)
{
	s->n_run = 0;
}

static void run_push(struct state *s, char origin, const char *p, size_t n)
{
	if (s->n_run == RB_QUOTES_CTX + 1) {
		memmove(s->run, s->run + 1, RB_QUOTES_CTX * sizeof(s->run[0]));
		s->n_run--;
	}
	s->run[s->n_run].origin = origin;
	s->run[s->n_run].p = p;
	s->run[s->n_run].n = n;
	s->n_run++;
}

/* A quoted line of depth 1: what it says of the diff. */
static void quoted(struct state *s, const char *p, const char *e)
{
	const char *path;
	size_t n;

	if (p == e)
		return; /* a blank line: a blank context line, or a gap */
	path = path_of(p, e, &n);
	if (path) {
		s->file = path;
		s->file_len = n;
		run_reset(s);
		return;
	}
	if (e - p >= 4 && !memcmp(p, "--- ", 4))
		return;
	if (*p == '+' || *p == '-' || *p == ' ' || *p == '\t') {
		char o = *p == '\t' ? ' ' : *p;

		run_push(s, o, p + (*p == '\t' ? 0 : 1),
			 (size_t)(e - p) - (*p == '\t' ? 0 : 1));
		return;
	}
	if (e - p >= 2 && !memcmp(p, "@@", 2)) {
		run_reset(s);
		return;
	}
	/* "index 1234..5678", "new file mode": headers, no line */
	if ((e - p >= 6 && !memcmp(p, "index ", 6)) ||
	    (e - p >= 4 && !memcmp(p, "new ", 4)) ||
	    (e - p >= 8 && !memcmp(p, "deleted ", 8)))
		return;
	run_reset(s); /* prose: the commit message, another comment */
}

/* Words that say nothing of their own under a quote. */
static bool assent(const char *w, size_t n)
{
	static const char *const words[] = {
		"thanks", "thank", "you",  "lgtm",  "ack",   "acked",
		"ok",	  "okay",  "nice", "good",  "great", "cool",
		"agreed", "sure",  "yes",  "looks", "fine",  "me",
		"to",	  "snip",  "cut",  "etc",   NULL,
	};
	size_t i;

	for (i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !strncasecmp(w, words[i], n))
			return true;
	return false;
}

/* "Reviewed-by:", "Acked-by:", "Tested-by:": a trailer line. */
static bool trailer_line(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && (isalnum((unsigned char)*q) || *q == '-'))
		q++;
	return q - p > 3 && q < e && *q == ':' && !strncasecmp(q - 3, "-by", 3);
}

/* Does the unquoted text [p, e) say something of its own? */
static bool says_something(const char *p, const char *e)
{
	const char *l = p, *nl, *le, *w;

	for (; l < e; l = nl < e ? nl + 1 : e) {
		nl = memchr(l, '\n', (size_t)(e - l));
		le = nl ? nl : e;
		if (!nl)
			nl = e;
		while (l < le && blank(*l))
			l++;
		if (trailer_line(l, le))
			continue;
		/* "On Mon, ... Ada wrote:" introduces the next quote */
		if (le - l >= 6 && !memcmp(le - 6, "wrote:", 6))
			continue;
		if (le > l && le[-1] == '\r' && le - l >= 7 &&
		    !memcmp(le - 7, "wrote:", 6))
			continue;
		for (w = l; w < le;) {
			const char *ws;

			while (w < le && !isalpha((unsigned char)*w))
				w++;
			ws = w;
			while (w < le &&
			       (isalpha((unsigned char)*w) || *w == '\''))
				w++;
			if (w > ws && !assent(ws, (size_t)(w - ws)))
				return true;
		}
	}
	return false;
}

static bool empty(const struct qline *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!blank(l->p[i]) && l->p[i] != '\r')
			return false;
	return true;
}

static int emit(struct state *s, const char *p, const char *e, int line)
{
	struct rb_quote_comment *c;
	const struct qline *t;
	size_t i, k = 0, at = s->n_run - 1;

	/* A blank added line says nothing: the comment is on the code
	 * quoted before it. */
	while (at > 0 && empty(&s->run[at]))
		at--;
	t = &s->run[at];
	if (t->origin != '+' || empty(t))
		return 0;

	if (s->out->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4;
		struct rb_quote_comment *v =
			realloc(s->out->v, cap * sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		s->out->v = v;
		s->cap = cap;
	}
	c = &s->out->v[s->out->n];
	memset(c, 0, sizeof(*c));
	s->out->n++;
	c->line = copy(t->p, t->n);
	if (!c->line)
		return rb_err(RB_ENOMEM, "out of memory");
	if (s->file) {
		c->file = copy(s->file, s->file_len);
		if (!c->file)
			return rb_err(RB_ENOMEM, "out of memory");
	}
	/* The new-side lines before it, oldest first. */
	for (i = 0; i < at; i++) {
		if (s->run[i].origin == '-')
			continue;
		c->before[k] = copy(s->run[i].p, s->run[i].n);
		if (!c->before[k++])
			return rb_err(RB_ENOMEM, "out of memory");
	}
	c->reply_line = line;
	c->comment_off = (size_t)(p - s->body);
	c->comment_len = (size_t)(e - p);
	return 0;
}

int rb_quotes_parse(struct rb_quotes *out, const char *body, size_t len)
{
	struct state s = { .body = body, .out = out };
	const char *p = body, *end = body + len, *nl, *text = NULL;
	const char *text_end = NULL;
	int lineno = 0, text_line = 0, ret = 0;
	bool pending = false; /* the run ended on an added line */

	out->v = NULL;
	out->n = 0;
	for (; p < end && !ret && out->n < RB_QUOTES_MAX;
	     p = nl < end ? nl + 1 : end) {
		struct line l = { p, NULL };
		const char *rest;
		int d;

		nl = memchr(p, '\n', (size_t)(end - p));
		l.e = nl ? nl : end;
		if (!nl)
			nl = end;
		if (l.e > l.p && l.e[-1] == '\r')
			l.e--;
		lineno++;
		if (l.e - l.p == 3 && !memcmp(l.p, "-- ", 3))
			break;
		d = depth_of(&l, &rest);
		if (d) {
			if (text && pending && says_something(text, text_end))
				ret = emit(&s, text, text_end, text_line);
			if (text) {
				run_reset(&s);
				text = NULL;
			}
			if (d == 1)
				quoted(&s, rest, l.e);
			else
				run_reset(&s);
			pending = s.n_run && s.run[s.n_run - 1].origin == '+';
			continue;
		}
		/* unquoted: blank lines inside a comment belong to it */
		if (!text) {
			const char *q = l.p;

			while (q < l.e && blank(*q))
				q++;
			if (q == l.e)
				continue;
			text = l.p;
			text_line = lineno;
		}
		text_end = l.e;
	}
	if (!ret && text && pending && out->n < RB_QUOTES_MAX &&
	    says_something(text, text_end))
		ret = emit(&s, text, text_end, text_line);
	if (ret)
		rb_quotes_release(out);
	return ret;
}

void rb_quotes_release(struct rb_quotes *q)
{
	size_t i, k;

	if (!q)
		return;
	for (i = 0; i < q->n; i++) {
		free(q->v[i].line);
		free(q->v[i].file);
		for (k = 0; k < RB_QUOTES_CTX; k++)
			free(q->v[i].before[k]);
	}
	free(q->v);
	q->v = NULL;
	q->n = 0;
}
