// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_evidence.c - what proves a verifier's confirmation. See
 * model_evidence.h.
 *
 * A verifier that quotes the finding's own line proves nothing: the
 * finder quoted it already, and the check that it is in the tree only
 * says the finder did not invent it. So a quote counts only when it is
 * code the verifier was shown in its own conversation, at the place it
 * names, and the quotes together reach past the finding's lines to what
 * the claim rests on: the lock or the caller for a locking claim, the
 * free and the use for a use-after-free, the allocation for a leak.
 *
 * What was shown is kept as (path, side, line, text) rows, parsed from
 * the two places the verifier reads code: its prompt (model_prompt.c's
 * numbered diff and functions, inside the markers of its own nonce) and
 * the results of the tools that return tree lines (the formats of
 * model_tools.c's read_file and model_tools_search.c's grep,
 * find_definition and find_callers). Text in any
 * other block of the prompt (the commit message, the cover letter, the
 * findings under review) or from any other tool (a patch, a history) is
 * never a row: it is the author's or a model's, not the tree's.
 *
 * The words that mark a lock, a free or an allocation are a heuristic
 * over identifiers; they make a rule necessary, never sufficient: the
 * model still has to be right, and the place check still has to hold.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_evidence.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define SEEN_MAX_LINES (64 * 1024)
#define SEEN_MAX_BYTES (16u << 20)
#define MAX_QUOTE_LINES 100 /* a quote longer than this proves nothing */
#define MIN_QUOTE 4 /* significant characters a quote needs */
#define MIN_FRAGMENT 12 /* a quote shorter than its line must be this long */
#define MAX_PATH 1024

enum { SRC_PROMPT, SRC_TOOL, SRC_CALLERS };

struct seen_line {
	char *path;
	char *text; /* blanks collapsed, trimmed */
	int line;
	unsigned char side; /* 0: base, 1: tip */
	unsigned char src;
};

struct rb_model_seen {
	struct seen_line *v;
	size_t n, cap, bytes;
};

int rb_model_seen_new(struct rb_model_seen **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

void rb_model_seen_free(struct rb_model_seen *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].text);
	}
	free(s->v);
	free(s);
}

size_t rb_model_seen_count(const struct rb_model_seen *s)
{
	return s ? s->n : 0;
}

/* @s (@n bytes) with blanks collapsed and trimmed, malloc'd. */
static char *norm_dup(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	size_t i, k = 0;
	bool sp = false;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			sp = k > 0;
			continue;
		}
		if (sp)
			o[k++] = ' ';
		sp = false;
		o[k++] = s[i];
	}
	o[k] = '\0';
	return o;
}

static int seen_cmp(const void *a, const void *b)
{
	const struct seen_line *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->side != y->side)
		return (int)x->side - (int)y->side;
	return (x->line > y->line) - (x->line < y->line);
}

/* Past the caps, rows are dropped: what was not kept was not shown. */
static int seen_add(struct rb_model_seen *s, const char *path, size_t plen,
		    int side, long line, const char *text, size_t tlen, int src)
{
	struct seen_line *v;

	if (!plen || plen > MAX_PATH || line < 1 || line > (1 << 24) ||
	    s->n >= SEEN_MAX_LINES || s->bytes + plen + tlen > SEEN_MAX_BYTES)
		return 0;
	v = rb_grow(s->v, &s->cap, s->n, sizeof(*s->v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	s->v = v;
	v = &s->v[s->n];
	v->path = strndup(path, plen);
	v->text = norm_dup(text, tlen);
	if (!v->path || !v->text) {
		free(v->path);
		free(v->text);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	v->line = (int)line;
	v->side = (unsigned char)side;
	v->src = (unsigned char)src;
	s->n++;
	s->bytes += plen + tlen;
	return 0;
}

/* Lookups bisect; every add keeps the rows sorted. */
static void seen_sort(struct rb_model_seen *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), seen_cmp);
}

/* Digits at @s[*p..): the number, *p past them; false when none. */
static bool digits(const char *s, size_t n, size_t *p, long *v)
{
	size_t k = *p;
	long x = 0;

	while (k < n && isdigit((unsigned char)s[k]) && x < (1L << 30))
		x = x * 10 + (s[k++] - '0');
	if (k == *p || (k < n && isdigit((unsigned char)s[k])))
		return false;
	*p = k;
	*v = x;
	return true;
}

/* One "%5s" number column of the numbered diff: blank or a number. */
static bool num_col(const char *s, size_t n, size_t *p, long *v)
{
	size_t k = *p;

	if (k + 5 <= n && !memcmp(s + k, "     ", 5)) {
		*p = k + 5;
		*v = 0;
		return true;
	}
	while (k < n && s[k] == ' ')
		k++;
	if (k - *p >= 5)
		return false;
	*p = k;
	return digits(s, n, p, v);
}

/* "%5s %5s %c%s": old number, new number, origin, text. */
static int diff_row(struct rb_model_seen *s, const char *path, size_t plen,
		    const char *l, size_t n)
{
	size_t p = 0;
	long o = 0, w = 0;
	int ret = 0;

	if (!num_col(l, n, &p, &o) || p >= n || l[p++] != ' ' ||
	    !num_col(l, n, &p, &w) || p >= n || l[p++] != ' ' || p >= n ||
	    !strchr("+- ", l[p]) || (!o && !w))
		return 0;
	if ((l[p] == '+' && o) || (l[p] == '-' && w) ||
	    (l[p] == ' ' && (!o || !w)))
		return 0;
	if (o)
		ret = seen_add(s, path, plen, 0, o, l + p + 1, n - p - 1,
			       SRC_PROMPT);
	if (!ret && w)
		ret = seen_add(s, path, plen, 1, w, l + p + 1, n - p - 1,
			       SRC_PROMPT);
	return ret;
}

/* "%5zu %s": a line of the functions block, at the tip. */
static int numbered_row(struct rb_model_seen *s, const char *path, size_t plen,
			int side, int src, const char *l, size_t n, char sep)
{
	size_t p = 0;
	long v;

	while (p < n && l[p] == ' ')
		p++;
	if (!digits(l, n, &p, &v) || p >= n || l[p] != sep)
		return 0;
	return seen_add(s, path, plen, side, v, l + p + 1, n - p - 1, src);
}

static bool starts(const char *l, size_t n, const char *pfx)
{
	size_t k = strlen(pfx);

	return n >= k && !memcmp(l, pfx, k);
}

/* The last occurrence of @pat in @l[0..n), or NULL. */
static const char *last_of(const char *l, size_t n, const char *pat)
{
	size_t k = strlen(pat), i;

	for (i = n >= k ? n - k + 1 : 0; i > 0; i--)
		if (!memcmp(l + i - 1, pat, k))
			return l + i - 1;
	return NULL;
}

static bool search_row(const char *l, size_t n, size_t *plen, long *line,
		       size_t *rest);

/*
 * "PATH:LINE: [function()] text", a row of find_callers (a tool result,
 * or the callers shown in the prompt's tree context), at @side.
 */
static int callers_row(struct rb_model_seen *s, const char *l, size_t n,
		       int side, int src)
{
	size_t plen, rest;
	long line;

	if (!search_row(l, n, &plen, &line, &rest))
		return 0;
	if (rest + 2 < n && l[rest] == ' ' && l[rest + 1] == '[') {
		const char *q = memchr(l + rest, ']', n - rest);

		if (q && q > l + rest + 3 && q[-1] == ')' && q[-2] == '(')
			rest = (size_t)(q - l) + 1;
	}
	return seen_add(s, l, plen, side, line, l + rest, n - rest, src);
}

/*
 * A heading of the prompt's tree context (model_prefetch.c): "=== WHAT
 * in PATH, lines A-B of the tree after this patch" (tip) or "... of the
 * base tree" (base), whose numbered lines follow; or "=== callers of
 * NAME() ...", whose find_callers rows (at the series tip) follow.
 * *callers says which; *path, *plen and *side the place of the lines.
 */
static void tree_heading(const char *l, size_t n, bool *callers,
			 const char **path, size_t *plen, int *side)
{
	const char *lines = last_of(l, n, ", lines "), *in = NULL, *x;

	*path = NULL;
	*plen = 0;
	*callers = starts(l, n, "=== callers of ");
	if (*callers || !lines)
		return;
	for (x = l + 4; x + 4 <= lines; x++)
		if (!memcmp(x, " in ", 4))
			in = x;
	if (!in || in + 4 >= lines)
		return;
	if (last_of(l, n, " of the tree after this patch"))
		*side = 1;
	else if (last_of(l, n, " of the base tree"))
		*side = 0;
	else
		return;
	*path = in + 4;
	*plen = (size_t)(lines - *path);
}

int rb_model_seen_add_prompt(struct rb_model_seen *s, const char *text,
			     const char *nonce)
{
	char open[40], close[40];
	const char *l = text, *e, *path = NULL, *at;
	size_t plen = 0, n;
	enum { OUT, DIFF, FUNCS, TREE, OTHER } st = OUT;
	bool callers = false;
	int ret = 0, side = 1;

	if (!text || !nonce || strlen(nonce) > 20)
		return 0;
	snprintf(open, sizeof(open), "<<<DATA-%s ", nonce);
	snprintf(close, sizeof(close), "DATA-%s>>>", nonce);
	for (; !ret && l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		n = e ? (size_t)(e - l) : strlen(l);
		if (st == OUT) {
			if (!starts(l, n, open))
				continue;
			at = l + strlen(open);
			n -= strlen(open);
			st = n == 4 && !memcmp(at, "diff", 4)	   ? DIFF :
			     n == 9 && !memcmp(at, "functions", 9) ? FUNCS :
			     n == 12 && !memcmp(at, "tree-context", 12) ? TREE :
									  OTHER;
			path = NULL;
			callers = false;
			continue;
		}
		if (starts(l, n, close)) {
			st = OUT;
			continue;
		}
		if (st == DIFF && starts(l, n, "File: ")) {
			at = last_of(l, n, " (");
			path = at ? l + 6 : NULL;
			plen = at ? (size_t)(at - path) : 0;
		} else if (st == DIFF && path && !starts(l, n, "@@ ")) {
			ret = diff_row(s, path, plen, l, n);
		} else if (st == FUNCS && starts(l, n, "--- ")) {
			at = last_of(l, n, ": lines ");
			path = at ? l + 4 : NULL;
			plen = at ? (size_t)(at - path) : 0;
		} else if (st == FUNCS && path) {
			ret = numbered_row(s, path, plen, 1, SRC_PROMPT, l, n,
					   ' ');
		} else if (st == TREE && starts(l, n, "=== ")) {
			tree_heading(l, n, &callers, &path, &plen, &side);
		} else if (st == TREE && callers) {
			ret = callers_row(s, l, n, 1, SRC_CALLERS);
		} else if (st == TREE && path) {
			ret = numbered_row(s, path, plen, side, SRC_PROMPT, l,
					   n, ' ');
		}
	}
	seen_sort(s);
	return ret;
}

/* "LINE<TAB>text": a line of read_file or of a definition. */
static bool numbered(const char *l, size_t n)
{
	size_t p = 0;
	long v;

	return digits(l, n, &p, &v) && p < n && l[p] == '\t';
}

/* "PATH:LINE:REST" (grep, find_callers, find_definition's heads). */
static bool search_row(const char *l, size_t n, size_t *plen, long *line,
		       size_t *rest)
{
	size_t i, p;

	for (i = 1; i + 2 < n; i++) {
		if (l[i] != ':' || !isdigit((unsigned char)l[i + 1]))
			continue;
		p = i + 1;
		if (!digits(l, n, &p, line) || p >= n || l[p] != ':')
			continue;
		if (l[0] == '/' || i > MAX_PATH)
			return false;
		*plen = i;
		*rest = p + 1;
		return true;
	}
	return false;
}

int rb_model_seen_add_result(struct rb_model_seen *s, const char *name,
			     const char *args, size_t args_len, const char *res,
			     size_t len, bool have_tip)
{
	bool rf = name && !strcmp(name, "read_file");
	bool grep = name && !strcmp(name, "grep");
	bool def = name && !strcmp(name, "find_definition");
	bool callers = name && !strcmp(name, "find_callers");
	json_t *a = NULL;
	const char *side_s, *path = NULL, *l, *e, *end = res + len;
	size_t plen = 0, n, rest, from = s->n, to, i;
	int side = 1, ret = 0;
	long line;
	bool first = true;

	if (!res || !(rf || grep || def || callers))
		return 0;
	if (args && args_len)
		a = json_loadb(args, args_len, 0, NULL);
	side_s = json_string_value(json_object_get(a, "side"));
	if ((side_s && !strcmp(side_s, "base")) || !have_tip)
		side = 0;
	if (rf) {
		path = json_string_value(json_object_get(a, "path"));
		plen = path ? strlen(path) : 0;
	}
	for (l = res; !ret && l < end; l = e + 1) {
		e = memchr(l, '\n', (size_t)(end - l));
		if (!e)
			e = end;
		n = (size_t)(e - l);
		if (rf && first) {
			/* "PATH at SIDE, lines A-B of N:": a real read. */
			first = false;
			if (!path || n < plen + 4 || memcmp(l, path, plen) ||
			    memcmp(l + plen, " at ", 4))
				break;
		} else if (rf) {
			ret = numbered_row(s, path, plen, side, SRC_TOOL, l, n,
					   '\t');
		} else if (def && path && numbered(l, n)) {
			ret = numbered_row(s, path, plen, side, SRC_TOOL, l, n,
					   '\t');
		} else if (callers) {
			/* find_callers: "PATH:LINE: [function()] text". */
			ret = callers_row(s, l, n, side, SRC_CALLERS);
		} else if (search_row(l, n, &plen, &line, &rest)) {
			path = l;
			if (def)
				continue; /* the head: its lines follow */
			ret = seen_add(s, path, plen, side, line, l + rest,
				       n - rest, SRC_TOOL);
		}
		if (e == end)
			break;
	}
	/*
	 * Without a tip tree the tools read the base for "tip", and so
	 * does the place check: the rows count for either side.
	 */
	for (i = from, to = s->n; !have_tip && !ret && i < to; i++) {
		struct seen_line x = s->v[i];

		if (x.side)
			continue;
		ret = seen_add(s, x.path, strlen(x.path), 1, x.line, x.text,
			       strlen(x.text), x.src);
	}
	json_decref(a);
	seen_sort(s);
	return ret;
}

/* The rows at (@path, @side, @line): [*lo, *hi). */
static void seen_range(const struct rb_model_seen *s, const char *path,
		       int side, int line, size_t *lo, size_t *hi)
{
	struct seen_line key = { .path = (char *)path,
				 .side = (unsigned char)side,
				 .line = line };
	size_t a = 0, b = s ? s->n : 0, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (seen_cmp(&s->v[m], &key) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < (s ? s->n : 0) && !seen_cmp(&s->v[a], &key))
		a++;
	*hi = a;
}

/* ---- the check ---- */

static const char *strip_ab(const char *p)
{
	if ((p[0] == 'a' || p[0] == 'b') && p[1] == '/')
		return p + 2;
	return p;
}

static size_t significant(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += isalnum((unsigned char)*s) || strchr("_()[]*&=<>!+-", *s);
	return n;
}

/* What a line of code does, by the words of its identifiers. */
enum { W_SYNC = 1, W_RELEASE = 2, W_ACQUIRE = 4 };

static bool part_is(const char *p, size_t n, const char *const *set)
{
	size_t i;

	for (i = 0; set[i]; i++)
		if (strlen(set[i]) == n && !strncmp(p, set[i], n))
			return true;
	return false;
}

static bool part_has(const char *p, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; i + k <= n; i++)
		if (!strncmp(p + i, w, k))
			return true;
	return false;
}

static unsigned int part_words(const char *p, size_t n)
{
	static const char *const sync[] = {
		"mutex",       "spin",	     "rcu",	"sem",	   "rwsem",
		"seqcount",    "atomic",     "barrier", "once",	   "smp",
		"irqsave",     "irqrestore", "preempt", "lockdep", "guard",
		"synchronize", "down",	     "held",	"wmb",	   "rmb",
		NULL
	};
	static const char *const release[] = {
		"put",	 "release",  "destroy",	   "drop",   "unref", "unmap",
		"close", "del",	     "delete",	   "remove", "unpin", "dec",
		"kill",	 "uncharge", "unregister", NULL
	};
	static const char *const acquire[] = {
		"get",	   "new",    "create", "open",	 "grab",   "hold",
		"map",	   "pin",    "inc",    "charge", "tryget", "register",
		"acquire", "lookup", "clone",  NULL
	};
	unsigned int w = 0;

	if (part_has(p, n, "lock") || part_is(p, n, sync))
		w |= W_SYNC;
	if (part_has(p, n, "free") || part_is(p, n, release))
		w |= W_RELEASE;
	if (part_has(p, n, "alloc") || part_has(p, n, "dup") ||
	    part_is(p, n, acquire))
		w |= W_ACQUIRE;
	return w;
}

/* The words of @s[0..n): each identifier, in parts split at '_'. */
static unsigned int line_words(const char *s, size_t n)
{
	char part[64];
	size_t i = 0, k;
	unsigned int w = 0;

	while (i < n) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
			i++;
			continue;
		}
		for (k = 0;
		     i < n && (isalnum((unsigned char)s[i]) || s[i] == '_');
		     i++) {
			if (s[i] == '_') {
				if (k && k <= sizeof(part))
					w |= part_words(part, k);
				k = 0;
				continue;
			}
			if (k < sizeof(part))
				part[k] = (char)tolower((unsigned char)s[i]);
			k++;
		}
		if (k && k <= sizeof(part))
			w |= part_words(part, k);
	}
	return w;
}

/* The rule of each category: what its confirmation must quote. */
enum {
	R_SYNC = 1, /* a lock or barrier (own lines count), or a caller */
	R_FREE_USE = 2, /* a free, and another line: the use */
	R_TWO_FREES = 4,
	R_ACQUIRE = 8, /* the allocation or get */
	R_REF = 16, /* a get or a put */
};

static const struct rule {
	const char *category;
	unsigned int need;
	const char *what;
} rules[] = {
	{ "locking", R_SYNC,
	  "the lock site (a line that takes, drops or asserts the lock; "
	  "the finding's own line may be it) or a caller from find_callers, "
	  "and a line beyond the finding's own" },
	{ "deadlock", R_SYNC,
	  "the lock site (a line that takes, drops or asserts the lock; "
	  "the finding's own line may be it) or a caller from find_callers, "
	  "and a line beyond the finding's own" },
	{ "race", R_SYNC,
	  "the lock, atomic or barrier at stake (the finding's own line may "
	  "be it) or a caller from find_callers, and a line beyond the "
	  "finding's own: the other side of the race" },
	{ "use-after-free", R_FREE_USE,
	  "both the free and the use: the line that frees (or puts) the "
	  "object and the line that uses it, one of them beyond the "
	  "finding's own" },
	{ "double-free", R_TWO_FREES,
	  "both frees: two lines that free (or put) the object, one of them "
	  "beyond the finding's own" },
	{ "leak", R_ACQUIRE,
	  "the allocation (or get) whose release is missing, and a line "
	  "beyond the finding's own" },
	{ "resource-leak", R_ACQUIRE,
	  "the allocation (or get) whose release is missing, and a line "
	  "beyond the finding's own" },
	{ "refcount", R_REF,
	  "the get or the put that is unbalanced, and a line beyond the "
	  "finding's own" },
};

static const char default_rule[] =
	"at least one line beyond the finding's own that the claim rests "
	"on: the caller, the definition, the check or the path";

static const struct rule *rule_of(const char *category)
{
	size_t i;

	for (i = 0; category && i < ARRAY_SIZE(rules); i++)
		if (!strcmp(category, rules[i].category))
			return &rules[i];
	return NULL;
}

const char *rb_model_evidence_rule(const char *category)
{
	const struct rule *r = rule_of(category);

	return r ? r->what : default_rule;
}

/* One line of the quotes, resolved to its place. */
struct ev_line {
	const char *path; /* borrowed from the evidence */
	int side, line;
	unsigned int words;
	bool own, callers, blank;
};

struct qline {
	const char *p;
	size_t n;
};

/* @quote cut into lines; blank lines at either end left out. */
static int quote_lines(struct qline **out, size_t *nout, const char *quote)
{
	struct qline *v = NULL;
	size_t n = 0, cap = 0, a, b, k;
	const char *s = quote, *e;

	for (; s; s = e ? e + 1 : NULL) {
		struct qline *g;

		e = strchr(s, '\n');
		if (n > MAX_QUOTE_LINES + 2) {
			free(v);
			return rb_err(RB_EINVAL,
				      "model: evidence of more than "
				      "%d lines proves nothing",
				      MAX_QUOTE_LINES);
		}
		g = rb_grow(v, &cap, n, sizeof(*v));
		if (!g) {
			free(v);
			return rb_err(RB_ENOMEM, "out of memory");
		}
		v = g;
		v[n].p = s;
		v[n++].n = e ? (size_t)(e - s) : strlen(s);
	}
	for (a = 0; a < n; a++) {
		for (k = 0; k < v[a].n && isspace((unsigned char)v[a].p[k]);
		     k++)
			;
		if (k < v[a].n)
			break;
	}
	for (b = n; b > a; b--) {
		for (k = 0;
		     k < v[b - 1].n && isspace((unsigned char)v[b - 1].p[k]);
		     k++)
			;
		if (k < v[b - 1].n)
			break;
	}
	if (b - a > MAX_QUOTE_LINES) {
		free(v);
		return rb_err(RB_EINVAL,
			      "model: evidence of more than %d lines proves "
			      "nothing",
			      MAX_QUOTE_LINES);
	}
	memmove(v, v + a, (b - a) * sizeof(*v));
	*out = v;
	*nout = b - a;
	return 0;
}

/*
 * Were lines @q[0..nq) shown, one after the other, from line @at of
 * @path on @side? *callers: one of them came from find_callers.
 */
static int shown_at(const struct rb_model_seen *s, const char *path, int side,
		    int at, const struct qline *q, size_t nq, bool *callers)
{
	size_t j, lo, hi, k;
	int ret = 0;

	*callers = false;
	for (j = 0; j < nq && !ret; j++) {
		char *want = norm_dup(q[j].p, q[j].n);
		bool hit = false;

		if (!want)
			return rb_err(RB_ENOMEM, "out of memory");
		seen_range(s, path, side, at + (int)j, &lo, &hi);
		for (k = lo; k < hi; k++) {
			bool h = !strcmp(s->v[k].text, want) ||
				 (nq == 1 && strlen(want) >= MIN_FRAGMENT &&
				  strstr(s->v[k].text, want));

			hit |= h;
			if (h && s->v[k].src == SRC_CALLERS)
				*callers = true;
		}
		free(want);
		if (!hit)
			ret = 1;
	}
	return ret;
}

/* Is @quote at @line (within @near) of @path, in the tree or the patch? */
static bool in_code(const struct rb_model_evidence_ctx *c, const char *path,
		    bool base, int line, const char *quote, int near)
{
	struct rb_model_raw_finding f = {
		.file = (char *)path,
		.old_side = base,
		.line = line,
		.quoted_code = (char *)quote,
		.category = "logic",
		.introduced_by_patch = true,
	};
	const char *p = NULL;

	if (c->tools &&
	    !rb_model_tools_quote_at(c->tools, path, base, line, quote, near))
		return true;
	/* A quote of the patch: its tip side is this patch's new side. */
	return c->d && !rb_model_validate(&p, c->d, NULL, &f, near);
}

struct own_search {
	int side, line, cs; /* the evidence line's side and number; claim's */
	int other; /* out: its number on the claim's side, or 0 */
};

static int own_cb(const struct rb_diff_hunk *h, size_t hunk_no,
		  const struct rb_diff_line *l, void *payload)
{
	struct own_search *o = payload;
	int at = (int)(o->side ? l->new_lineno : l->old_lineno);

	(void)h;
	(void)hunk_no;
	if (l->origin != ' ' || at != o->line)
		return 0;
	o->other = (int)(o->cs ? l->new_lineno : l->old_lineno);
	return 1;
}

/*
 * Is line @line of @path on @side one of the claim's own lines: on its
 * side in its span, or the same context line of the patch seen from the
 * other side?
 */
static bool own_line(const struct rb_model_evidence_ctx *c,
		     const struct rb_model_claim *cl, const char *path,
		     int side, int line)
{
	const struct rb_diff_file *df;
	struct own_search o = { side, line, cl->old_side ? 0 : 1, 0 };

	if (!cl->file || strcmp(strip_ab(cl->file), path))
		return false;
	if (side == o.cs)
		return line >= cl->first && line <= cl->last;
	df = c->d ? rb_diff_find_file(c->d, path) : NULL;
	if (df)
		rb_diff_foreach_line(df, own_cb, &o);
	return o.other && o.other >= cl->first && o.other <= cl->last;
}

/*
 * One quote: where it says in the code, and shown to the verifier
 * there. Its lines go to @out (room for MAX_QUOTE_LINES more).
 */
static int resolve(const struct rb_model_evidence_ctx *c,
		   const struct rb_model_claim *cl,
		   const struct rb_model_evidence *e, struct ev_line *out,
		   size_t *nout)
{
	const char *path = strip_ab(e->file);
	int side = e->base ? 0 : 1, near = c->near < 0 ? 0 : c->near, s;
	struct qline *q = NULL;
	size_t nq = 0, j, k;
	bool callers = false;
	int ret;

	ret = quote_lines(&q, &nq, e->quote);
	if (ret)
		return ret;
	ret = -RB_EINVAL;
	for (s = e->line - near; s <= e->line + near && ret; s++) {
		if (s < 1 || !nq ||
		    shown_at(c->seen, path, side, s, q, nq, &callers))
			continue;
		/* Shown at s: and there in the code, from s exactly? */
		if (in_code(c, path, e->base, s, e->quote, 0))
			ret = 0;
	}
	if (ret) {
		bool there = nq &&
			     in_code(c, path, e->base, e->line, e->quote, near);

		free(q);
		if (!there)
			return rb_err(RB_EINVAL,
				      "model: evidence not in %s at %s "
				      "line %d",
				      e->file, e->base ? "base" : "tip",
				      e->line);
		return rb_err(RB_EINVAL,
			      "model: evidence at %s %s line %d was not shown "
			      "to the verifier there (no tool returned it, "
			      "the prompt did not hold it)",
			      e->file, e->base ? "base" : "tip", e->line);
	}
	s--;
	for (j = 0; j < nq; j++) {
		struct ev_line *x = &out[(*nout)++];

		for (k = 0; k < q[j].n && isspace((unsigned char)q[j].p[k]);
		     k++)
			;
		x->path = path;
		x->side = side;
		x->line = s + (int)j;
		x->words = line_words(q[j].p, q[j].n);
		x->own = own_line(c, cl, path, side, x->line);
		x->callers = callers;
		x->blank = k == q[j].n;
	}
	free(q);
	return 0;
}

/* The lines of @v that are not blank and are at distinct places. */
static size_t distinct(const struct ev_line *v, size_t n, unsigned int words)
{
	size_t i, k, cnt = 0;

	for (i = 0; i < n; i++) {
		if (v[i].blank || (words && !(v[i].words & words)))
			continue;
		for (k = 0; k < i; k++)
			if (!v[k].blank && (!words || (v[k].words & words)) &&
			    v[k].side == v[i].side && v[k].line == v[i].line &&
			    !strcmp(v[k].path, v[i].path))
				break;
		cnt += k == i;
	}
	return cnt;
}

/* Do the quotes' lines meet @cl's rule? */
static int meets_rule(const struct rb_model_claim *cl, const struct ev_line *v,
		      size_t n)
{
	const struct rule *r = rule_of(cl->category);
	bool beyond = false, sync = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].blank)
			continue;
		sync |= (v[i].words & W_SYNC) || (v[i].callers && !v[i].own);
		beyond |= !v[i].own;
	}
	if (!beyond)
		return rb_err(RB_EINVAL, "model: the evidence quotes only the "
					 "finding's own lines");
	if (!r)
		return 0;
	if ((r->need & R_SYNC) && !sync)
		return rb_err(RB_EINVAL,
			      "model: a %s claim needs the lock site or a "
			      "caller",
			      cl->category);
	if ((r->need & R_FREE_USE) &&
	    (!distinct(v, n, W_RELEASE) || distinct(v, n, 0) < 2))
		return rb_err(RB_EINVAL, "model: a use-after-free needs both "
					 "the free and the use");
	if ((r->need & R_TWO_FREES) && distinct(v, n, W_RELEASE) < 2)
		return rb_err(RB_EINVAL, "model: a double free needs both "
					 "frees");
	if ((r->need & R_ACQUIRE) && !distinct(v, n, W_ACQUIRE))
		return rb_err(RB_EINVAL,
			      "model: a %s claim needs the "
			      "allocation",
			      cl->category);
	if ((r->need & R_REF) && !distinct(v, n, W_ACQUIRE | W_RELEASE))
		return rb_err(RB_EINVAL, "model: a refcount claim needs the "
					 "get or the put");
	return 0;
}

int rb_model_check_evidence(const struct rb_model_evidence_ctx *c,
			    const struct rb_model_claim *cl,
			    const struct rb_model_evidence *ev, size_t n)
{
	struct ev_line *lines = NULL;
	size_t i, nl = 0, used = 0;
	int ret = 0;

	if (n)
		lines = calloc(n * MAX_QUOTE_LINES, sizeof(*lines));
	if (n && !lines)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		const struct rb_model_evidence *e = &ev[i];

		/* The author's words vouch for nothing: left out. */
		if (!strcmp(strip_ab(e->file), "COMMIT_MSG"))
			continue;
		used++;
		if (significant(e->quote) < MIN_QUOTE)
			ret = rb_err(RB_EINVAL,
				     "model: evidence too short to mean "
				     "anything at %s line %d",
				     e->file, e->line);
		else
			ret = resolve(c, cl, e, lines, &nl);
	}
	if (!ret && !used)
		ret = rb_err(RB_EINVAL, "model: a confirmation without "
					"evidence from the code");
	if (!ret)
		ret = meets_rule(cl, lines, nl);
	free(lines);
	return ret;
}
