// SPDX-License-Identifier: GPL-2.0-only
/*
 * tmpl.c - the mustache subset described in tmpl.h. A template is parsed
 * once into a flat array of nodes; a section node knows where its body
 * ends, so rendering is a walk over index ranges with a context stack.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/tmpl.h"
#include "util/banned.h"

/* Template files are small; anything bigger is a mistake. */
#define TMPL_FILE_MAX (256u << 10)
/* Sections entered plus tags expanded, per render. */
#define TMPL_MAX_STEPS (1u << 22)
#define TMPL_MAX_NAME 128

enum node_type { N_TEXT, N_VAR, N_SECTION, N_INVERTED };

struct node {
	enum node_type type;
	const char *s; /* text, or the tag name; points into t->src */
	size_t len;
	size_t end; /* sections: index of the first node after the body */
	int line;
};

struct rb_tmpl {
	char *name;
	bool html; /* a name ending in ".html": every value escaped */
	char *src;
	size_t src_len;
	struct node *v;
	size_t n, cap;
};

/* Line numbers for messages: a binary search over the line starts. */
struct lines {
	size_t *start;
	size_t n;
};

static int lines_init(struct lines *l, const char *src, size_t len)
{
	size_t i, n = 1;

	for (i = 0; i < len; i++)
		n += src[i] == '\n';
	l->start = malloc(n * sizeof(*l->start));
	if (!l->start)
		return rb_err(RB_ENOMEM, "out of memory");
	l->n = 0;
	l->start[l->n++] = 0;
	for (i = 0; i < len; i++)
		if (src[i] == '\n')
			l->start[l->n++] = i + 1;
	return 0;
}

static int line_at(const struct lines *l, size_t off)
{
	size_t lo = 0, hi = l->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1 > (size_t)INT_MAX ? INT_MAX : (int)(lo + 1);
}

static int add_node(struct rb_tmpl *t, enum node_type type, const char *s,
		    size_t len, int line)
{
	struct node *v;

	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;

		v = realloc(t->v, ncap * sizeof(*v));
		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		t->v = v;
		t->cap = ncap;
	}
	t->v[t->n].type = type;
	t->v[t->n].s = s;
	t->v[t->n].len = len;
	t->v[t->n].end = 0;
	t->v[t->n].line = line;
	t->n++;
	return 0;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Trims blanks and checks the name: "." or dotted words, no empty part. */
static int check_name(const struct rb_tmpl *t, int line, const char **s,
		      size_t *len)
{
	const char *p = *s;
	size_t n = *len, i;

	while (n && is_blank(*p)) {
		p++;
		n--;
	}
	while (n && is_blank(p[n - 1]))
		n--;
	if (!n)
		return rb_err(RB_EPARSE, "%s:%d: empty tag name", t->name,
			      line);
	if (n > TMPL_MAX_NAME)
		return rb_err(RB_EPARSE, "%s:%d: tag name too long", t->name,
			      line);
	for (i = 0; i < n; i++)
		if (!name_char(p[i]))
			return rb_err(RB_EPARSE,
				      "%s:%d: bad character in tag name '%.*s'",
				      t->name, line, (int)n, p);
	if (!(n == 1 && p[0] == '.')) {
		if (p[0] == '.' || p[n - 1] == '.')
			return rb_err(RB_EPARSE, "%s:%d: bad tag name '%.*s'",
				      t->name, line, (int)n, p);
		for (i = 1; i < n; i++)
			if (p[i] == '.' && p[i - 1] == '.')
				return rb_err(RB_EPARSE,
					      "%s:%d: bad tag name '%.*s'",
					      t->name, line, (int)n, p);
	}
	*s = p;
	*len = n;
	return 0;
}

/* One "{{...}}" tag of the source: its offsets and kind. */
struct tag {
	size_t start, end; /* the tag, "{{" to "}}" */
	size_t inner, inner_end; /* its name (after the sigil) */
	char sigil; /* # ^ / ! & or 0 */
	int line;
	size_t ls, le; /* standalone: the line it takes, end of line in */
};

/* Reads the tag whose "{{" is at @start into @g. */
static int read_tag(struct tag *g, const struct rb_tmpl *t,
		    const struct lines *l, size_t start)
{
	const char *src = t->src, *close;
	size_t len = t->src_len;
	bool triple = false;

	g->start = start;
	g->line = line_at(l, start);
	g->inner = start + 2;
	g->sigil = 0;
	if (g->inner < len && src[g->inner] == '{') {
		triple = true;
		g->inner++;
	}
	close = memmem(src + g->inner, len - g->inner, triple ? "}}}" : "}}",
		       triple ? 3 : 2);
	if (!close)
		return rb_err(RB_EPARSE, "%s:%d: '{{' is never closed", t->name,
			      g->line);
	g->inner_end = (size_t)(close - src);
	g->end = g->inner_end + (triple ? 3 : 2);
	if (!triple && g->inner < g->inner_end &&
	    strchr("#^/!&>=", src[g->inner])) {
		g->sigil = src[g->inner];
		g->inner++;
	}
	/* Only a comment may span lines. */
	if (g->sigil != '!' &&
	    memchr(src + g->inner, '\n', g->inner_end - g->inner))
		return rb_err(RB_EPARSE, "%s:%d: a tag must not span lines",
			      t->name, g->line);
	/* In a page, escaping is the engine's: no tag may opt out. */
	if (t->html && (triple || g->sigil == '&'))
		return rb_err(RB_EPARSE,
			      "%s:%d: unescaped output is refused in HTML",
			      t->name, g->line);
	if (g->sigil == '>')
		return rb_err(RB_EPARSE, "%s:%d: partials are not supported",
			      t->name, g->line);
	if (g->sigil == '=')
		return rb_err(RB_EPARSE,
			      "%s:%d: delimiter changes are not supported",
			      t->name, g->line);
	return 0;
}

/*
 * Standalone: a section, closing or comment tag with only blanks around
 * it on its line (after @text_start). Then [g->ls, g->le) is the line,
 * its end of line included, which the output drops.
 */
static bool standalone(struct tag *g, const struct rb_tmpl *t,
		       size_t text_start)
{
	const char *src = t->src;
	size_t len = t->src_len, ls, le;

	if (g->sigil != '#' && g->sigil != '^' && g->sigil != '/' &&
	    g->sigil != '!')
		return false;
	ls = g->start;
	while (ls > text_start && is_blank(src[ls - 1]))
		ls--;
	le = g->end;
	while (le < len && is_blank(src[le]))
		le++;
	if (!((ls == 0 || src[ls - 1] == '\n') &&
	      (le == len || src[le] == '\n' ||
	       (src[le] == '\r' && le + 1 < len && src[le + 1] == '\n'))))
		return false;
	if (le < len && src[le] == '\r')
		le++;
	if (le < len)
		le++;
	g->ls = ls;
	g->le = le;
	return true;
}

/* The text node [from, to) of the source, when not empty. */
static int add_text(struct rb_tmpl *t, const struct lines *l, size_t from,
		    size_t to)
{
	if (to <= from)
		return 0;
	return add_node(t, N_TEXT, t->src + from, to - from, line_at(l, from));
}

/* The node of a tag that is not a comment, with the section @stack. */
static int tag_node(struct rb_tmpl *t, const struct tag *g, size_t *stack,
		    int *depth)
{
	const char *name = t->src + g->inner;
	size_t name_len = g->inner_end - g->inner;
	struct node *o;
	int ret;

	ret = check_name(t, g->line, &name, &name_len);
	if (ret)
		return ret;
	switch (g->sigil) {
	case '#':
	case '^':
		if (*depth == RB_TMPL_MAX_DEPTH)
			return rb_err(RB_EPARSE,
				      "%s:%d: sections nested deeper than %d",
				      t->name, g->line, RB_TMPL_MAX_DEPTH);
		ret = add_node(t, g->sigil == '#' ? N_SECTION : N_INVERTED,
			       name, name_len, g->line);
		if (ret)
			return ret;
		stack[(*depth)++] = t->n - 1;
		return 0;
	case '/':
		if (!*depth)
			return rb_err(RB_EPARSE,
				      "%s:%d: '{{/%.*s}}' closes no section",
				      t->name, g->line, (int)name_len, name);
		o = &t->v[stack[*depth - 1]];
		if (o->len != name_len || memcmp(o->s, name, name_len))
			return rb_err(
				RB_EPARSE,
				"%s:%d: '{{/%.*s}}' closes section '%.*s' opened at line %d",
				t->name, g->line, (int)name_len, name,
				(int)o->len, o->s, o->line);
		o->end = t->n;
		(*depth)--;
		return 0;
	default:
		return add_node(t, N_VAR, name, name_len, g->line);
	}
}

static int parse_nodes(struct rb_tmpl *t, const struct lines *l)
{
	const char *src = t->src;
	size_t len = t->src_len, pos = 0, text_start = 0;
	size_t stack[RB_TMPL_MAX_DEPTH];
	int depth = 0, ret;

	while (pos < len) {
		const char *open = memmem(src + pos, len - pos, "{{", 2);
		struct tag g = { 0 };

		if (!open)
			break;
		ret = read_tag(&g, t, l, (size_t)(open - src));
		if (ret)
			return ret;
		if (standalone(&g, t, text_start)) {
			/* The blanks before the tag go with it. */
			ret = add_text(t, l, text_start, g.ls);
			text_start = g.le;
		} else {
			ret = add_text(t, l, text_start, g.start);
			text_start = g.end;
		}
		if (ret)
			return ret;
		pos = text_start;
		if (g.sigil == '!')
			continue;
		ret = tag_node(t, &g, stack, &depth);
		if (ret)
			return ret;
	}
	ret = add_text(t, l, text_start, len);
	if (ret)
		return ret;
	if (depth) {
		const struct node *o = &t->v[stack[depth - 1]];

		return rb_err(RB_EPARSE,
			      "%s:%d: section '%.*s' is never closed", t->name,
			      o->line, (int)o->len, o->s);
	}
	return 0;
}

static int parse(struct rb_tmpl *t)
{
	struct lines l;
	int ret;

	ret = lines_init(&l, t->src, t->src_len);
	if (ret)
		return ret;
	ret = parse_nodes(t, &l);
	free(l.start);
	return ret;
}

int rb_tmpl_parse(struct rb_tmpl **out, const char *name, const char *text,
		  size_t len)
{
	struct rb_tmpl *t;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t)
		return rb_err(RB_ENOMEM, "out of memory");
	t->name = strdup(name ? name : "template");
	t->src = malloc(len + 1);
	if (!t->name || !t->src) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	if (len)
		memcpy(t->src, text, len);
	t->src[len] = '\0';
	t->src_len = len;
	t->html = strlen(t->name) >= 5 &&
		  !strcmp(t->name + strlen(t->name) - 5, ".html");
	ret = parse(t);
out:
	if (ret) {
		rb_tmpl_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

void rb_tmpl_free(struct rb_tmpl *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->src);
	free(t->v);
	free(t);
}

struct render {
	const struct rb_tmpl *t;
	struct rb_buf *out;
	const json_t *stack[RB_TMPL_MAX_DEPTH + 1];
	int depth;
	size_t steps;
};

/* Looks @key (not NUL-terminated) up in an object. */
static const json_t *object_get(const json_t *obj, const char *key, size_t len)
{
	char k[TMPL_MAX_NAME + 1];

	if (!json_is_object(obj) || len > TMPL_MAX_NAME)
		return NULL;
	memcpy(k, key, len);
	k[len] = '\0';
	return json_object_get(obj, k);
}

/*
 * Mustache name resolution: the first part of a dotted name is looked up
 * from the innermost context outwards, the rest only inside what it found.
 */
static const json_t *lookup(const struct render *r, const char *name,
			    size_t len)
{
	const json_t *v = NULL;
	const char *dot;
	size_t first;
	int i;

	if (len == 1 && name[0] == '.')
		return r->depth ? r->stack[r->depth - 1] : NULL;
	dot = memchr(name, '.', len);
	first = dot ? (size_t)(dot - name) : len;
	for (i = r->depth - 1; i >= 0 && !v; i--)
		v = object_get(r->stack[i], name, first);
	while (v && dot) {
		const char *part = dot + 1;
		size_t rest = len - (size_t)(part - name);

		dot = memchr(part, '.', rest);
		v = object_get(v, part, dot ? (size_t)(dot - part) : rest);
	}
	return v;
}

static bool truthy(const json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return false;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	if (json_is_real(v))
		return json_real_value(v) != 0.0;
	return true;
}

int rb_tmpl_html_escape(struct rb_buf *out, const char *s, size_t len)
{
	size_t i, from = 0;
	int ret = 0;

	for (i = 0; i < len && !ret; i++) {
		const char *e = s[i] == '&'  ? "&amp;" :
				s[i] == '<'  ? "&lt;" :
				s[i] == '>'  ? "&gt;" :
				s[i] == '"'  ? "&quot;" :
				s[i] == '\'' ? "&#39;" :
					       NULL;

		if (!e)
			continue;
		ret = rb_buf_add(out, s + from, i - from);
		ret = ret ?: rb_buf_puts(out, e);
		from = i + 1;
	}
	return ret ?: rb_buf_add(out, s + from, len - from);
}

static int put_value(struct rb_buf *out, const json_t *v, bool html)
{
	if (json_is_string(v) && html)
		return rb_tmpl_html_escape(out, json_string_value(v),
					   json_string_length(v));
	if (json_is_string(v))
		return rb_buf_add(out, json_string_value(v),
				  json_string_length(v));
	if (json_is_integer(v))
		return rb_buf_printf(out, "%lld",
				     (long long)json_integer_value(v));
	if (json_is_real(v))
		return rb_buf_printf(out, "%g", json_real_value(v));
	if (json_is_true(v))
		return rb_buf_puts(out, "true");
	return 0; /* null, false, objects and arrays print nothing */
}

static int render_range(struct render *r, size_t from, size_t to);

static int step(struct render *r, const struct node *n)
{
	if (++r->steps > TMPL_MAX_STEPS)
		return rb_err(RB_ETOOBIG,
			      "%s:%d: rendering takes more than %u steps",
			      r->t->name, n->line, TMPL_MAX_STEPS);
	return 0;
}

static int render_body(struct render *r, size_t i, const json_t *ctx)
{
	const struct node *n = &r->t->v[i];
	int ret;

	ret = step(r, n);
	if (ret)
		return ret;
	r->stack[r->depth++] = ctx;
	ret = render_range(r, i + 1, n->end);
	r->depth--;
	return ret;
}

static int render_range(struct render *r, size_t from, size_t to)
{
	size_t i = from;
	int ret;

	while (i < to) {
		const struct node *n = &r->t->v[i];
		const json_t *v;

		switch (n->type) {
		case N_TEXT:
			ret = rb_buf_add(r->out, n->s, n->len);
			if (ret)
				return ret;
			i++;
			break;
		case N_VAR:
			ret = step(r, n);
			if (ret)
				return ret;
			v = lookup(r, n->s, n->len);
			ret = v ? put_value(r->out, v, r->t->html) : 0;
			if (ret)
				return ret;
			i++;
			break;
		case N_SECTION:
			v = lookup(r, n->s, n->len);
			if (json_is_array(v)) {
				size_t k;

				for (k = 0; k < json_array_size(v); k++) {
					ret = render_body(r, i,
							  json_array_get(v, k));
					if (ret)
						return ret;
				}
			} else if (truthy(v)) {
				ret = render_body(r, i, v);
				if (ret)
					return ret;
			}
			i = n->end;
			break;
		case N_INVERTED:
			v = lookup(r, n->s, n->len);
			if (!truthy(v)) {
				ret = render_body(r, i, v);
				if (ret)
					return ret;
			}
			i = n->end;
			break;
		}
	}
	return 0;
}

int rb_tmpl_render(struct rb_buf *out, const struct rb_tmpl *t,
		   const json_t *data)
{
	struct render r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.out = out;
	r.stack[r.depth++] = data;
	ret = render_range(&r, 0, t->n);
	if (ret == -RB_ETOOBIG && !strstr(rb_errmsg(), t->name))
		return rb_err(RB_ETOOBIG, "%s: output larger than %zu bytes",
			      t->name, out->max);
	return ret;
}

int rb_tmpl_render_str(struct rb_buf *out, const char *name, const char *text,
		       size_t len, const json_t *data)
{
	struct rb_tmpl *t = NULL;
	int ret;

	ret = rb_tmpl_parse(&t, name, text, len);
	if (ret)
		return ret;
	ret = rb_tmpl_render(out, t, data);
	rb_tmpl_free(t);
	return ret;
}

int rb_tmpl_render_file(struct rb_buf *out, const char *const *dirs,
			size_t n_dirs, const char *file, const json_t *data)
{
	struct rb_buf path = RB_BUF_INIT(4096);
	struct rb_buf text = RB_BUF_INIT(TMPL_FILE_MAX);
	size_t i;
	int ret = 0;
	bool found = false;

	if (!file || !*file || strchr(file, '/'))
		return rb_err(RB_EINVAL, "bad template file name '%s'",
			      file ? file : "(null)");
	for (i = 0; i < n_dirs && !found; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		rb_buf_reset(&path);
		ret = rb_buf_printf(&path, "%s/%s", dirs[i], file);
		if (ret)
			goto out;
		if (access(path.ptr, F_OK))
			continue;
		found = true;
		ret = rb_read_file(&text, path.ptr);
		if (ret)
			goto out;
	}
	if (!found) {
		ret = rb_err(RB_ENOTFOUND,
			     "template '%s' not found in %zu directories", file,
			     n_dirs);
		goto out;
	}
	ret = rb_tmpl_render_str(out, path.ptr, text.ptr, text.len, data);
out:
	rb_buf_release(&path);
	rb_buf_release(&text);
	return ret;
}
