// SPDX-License-Identifier: GPL-2.0-only
/*
 * code_c.c - the C recogniser of the model's prompt and tools. See
 * code_c.h.
 *
 * Measured on linux 6.1: 1,913 of the 5,175 function heads ctags finds
 * in the .c files of mm/ are wrapped (the first line ends in ','), and so
 * are 195 of the 251 SYSCALL_DEFINE3..6 of mm/, kernel/ and fs/, and
 * zap_huge_pmd(); a recogniser that looks for the head on one line
 * misses them all. Here a function is found from its body instead: the
 * '{' in column 0 that opens it, then the head is the run of lines above
 * it back to a blank line, a comment, a preprocessor line or the end of
 * what came before.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/code/code_c.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define HEAD_LINES 16 /* lines of one function head at most */
#define KNR_LINES 12 /* K&R parameter declarations at most */
#define FUNC_LINES 8000 /* a body longer than this is not looked for */
#define BLOCK_LINES 2000 /* lines of a struct or a macro at most */
#define BODY_LOOK 30 /* lines has_body() reads past a head */

int rb_c_lines_split(struct rb_c_lines *l, const char *p, size_t len)
{
	size_t i, cap = 0;

	memset(l, 0, sizeof(*l));
	l->p = p;
	l->len = len;
	for (i = 0; i < len;) {
		const char *nl = memchr(p + i, '\n', len - i);
		size_t *v = rb_grow(l->off, &cap, l->n, sizeof(*l->off));

		if (!v) {
			rb_c_lines_release(l);
			return rb_err(RB_ENOMEM, "out of memory");
		}
		l->off = v;
		l->off[l->n++] = i;
		i = nl ? (size_t)(nl - p) + 1 : len;
	}
	return 0;
}

void rb_c_lines_release(struct rb_c_lines *l)
{
	free(l->off);
	memset(l, 0, sizeof(*l));
}

const char *rb_c_line(const struct rb_c_lines *l, size_t i, size_t *len)
{
	size_t b = l->off[i];
	size_t e = i + 1 < l->n ? l->off[i + 1] : l->len;

	if (e > b && l->p[e - 1] == '\n')
		e--;
	*len = e - b;
	return l->p + b;
}

long rb_c_find_word(const char *s, size_t n, const char *w, size_t wl)
{
	const char *p = s, *e = s + n;

	if (!wl)
		return -1;
	while (p < e) {
		const char *m = memmem(p, (size_t)(e - p), w, wl);

		if (!m)
			return -1;
		if ((m == s || !rb_c_is_word((unsigned char)m[-1])) &&
		    (m + wl == e || !rb_c_is_word((unsigned char)m[wl])))
			return m - s;
		p = m + 1;
	}
	return -1;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool starts_word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	return n >= wl && !memcmp(s, w, wl) &&
	       (n == wl || !rb_c_is_word((unsigned char)s[wl]));
}

/* The last character of a line that is not a blank, or 0. */
static char last_char(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n ? s[n - 1] : 0;
}

static bool blank_line(const char *s, size_t n)
{
	return skip_ws(s, s + n) == s + n;
}

bool rb_c_comment_line(const char *s, size_t n)
{
	const char *p = skip_ws(s, s + n);
	size_t r = (size_t)(s + n - p);

	return r && (*p == '*' ||
		     (r > 1 && p[0] == '/' && (p[1] == '*' || p[1] == '/')));
}

/* Does the line end a comment ("... *" "/")? */
static bool ends_comment(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n >= 2 && s[n - 2] == '*' && s[n - 1] == '/';
}

/*
 * After the parameter list of a function-like line at @l line @i, offset
 * @o (just past the symbol): a body ('{') or a declaration? Skips
 * annotations such as __acquires(x) and attributes; bounded.
 */
static bool has_body(const struct rb_c_lines *l, size_t i, size_t o)
{
	int depth = 0, nlines = 0;
	bool seen = false;

	for (; i < l->n && nlines < BODY_LOOK; i++, nlines++, o = 0) {
		size_t n, k;
		const char *s = rb_c_line(l, i, &n);

		for (k = o; k < n; k++) {
			char c = s[k];

			if (c == '(') {
				depth++;
				seen = true;
			} else if (c == ')') {
				if (--depth < 0)
					return false;
			} else if (depth == 0 && seen) {
				if (c == '{')
					return true;
				if (c == ';' || c == ',' || c == '=' ||
				    c == '}')
					return false;
			} else if (depth == 0 && !seen && c != ' ' &&
				   c != '\t') {
				return false;
			}
		}
		/* A comment or a preprocessor line ends the search. */
		if (depth == 0 && seen && i + 1 < l->n) {
			const char *nx = rb_c_line(l, i + 1, &n);

			if (n && nx[0] == '#')
				return false;
		}
	}
	return false;
}

/* Are the parentheses in @s[0..@n) all closed (annotations, not a call)? */
static bool closed_parens(const char *s, size_t n)
{
	int depth = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth < 0)
			return false;
	}
	return depth == 0;
}

bool rb_c_is_capitals(const char *s, size_t n)
{
	bool letter = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] >= 'A' && s[i] <= 'Z')
			letter = true;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	}
	return letter;
}

bool rb_c_in_list(const char *s, size_t n, const char *const *v, size_t nv)
{
	size_t i;

	for (i = 0; i < nv; i++)
		if (strlen(v[i]) == n && !memcmp(s, v[i], n))
			return true;
	return false;
}

size_t rb_c_word_end(const char *s, size_t n, size_t i, size_t *k)
{
	while (i < n && rb_c_is_word((unsigned char)s[i]))
		i++;
	*k = i;
	while (*k < n && (s[*k] == ' ' || s[*k] == '\t'))
		(*k)++;
	return i;
}

/* Annotations that take arguments and come before or after a name. */
static bool annotation(const char *s, size_t n)
{
	static const char *const names[] = {
		"__attribute__",
		"__attribute",
		"__printf",
		"__scanf",
		"__acquires",
		"__releases",
		"__must_hold",
		"__aligned",
		"__section",
		"__alloc_size",
		"__assume_aligned",
		"__cond_acquires",
		"__cond_releases",
		"__diagnose_as",
		"__format_arg",
		"__no_sanitize",
		"__counted_by",
		"__malloc",
		"__nonstring",
		"__symver",
		"asm",
		"__asm__",
		"__asm",
		"__cond_lock",
	};
	return rb_c_in_list(s, n, names, sizeof(names) / sizeof(*names));
}

/* The words of C types, which a macro's first argument never is. */
static bool type_word(const char *s, size_t n)
{
	static const char *const names[] = {
		"void",	    "int",    "char",  "short", "long",
		"unsigned", "signed", "const", "bool",	"float",
		"double",   "struct", "union", "enum",	"volatile",
	};
	return rb_c_in_list(s, n, names, sizeof(names) / sizeof(*names));
}

/* After a macro's first argument: ',' or ')' (or the line's end). */
static bool arg_ends(const char *p, const char *e)
{
	p = skip_ws(p, e);
	return p == e || *p == ',' || *p == ')';
}

/*
 * The name a head gives, from the text at @p (the head's first line
 * onwards, @e its end): the word before the first parameter list that is
 * not an annotation; for a macro of capitals whose first argument is a
 * word (SYSCALL_DEFINE4(name, ...)), that argument. Only
 * parentheses at depth 0 count.
 */
struct head_scan {
	const char *name;
	size_t name_len;
	bool macro;
	bool is_static;
	bool assign; /* '=' at depth 0: an initialiser, not a head */
	bool params; /* a parameter list was seen */
};

static void scan_head_text(struct head_scan *h, const char *s, size_t n,
			   int *depth, const char **word, size_t *wl)
{
	size_t k;

	for (k = 0; k < n; k++) {
		char c = s[k];

		if (*depth == 0 && rb_c_is_word((unsigned char)c) &&
		    (k == 0 || !rb_c_is_word((unsigned char)s[k - 1]))) {
			size_t b = k;

			while (k < n && rb_c_is_word((unsigned char)s[k]))
				k++;
			*word = s + b;
			*wl = k - b;
			if (*wl == 6 && !memcmp(*word, "static", 6))
				h->is_static = true;
			k--;
			continue;
		}
		if (c == '/' && k + 1 < n &&
		    (s[k + 1] == '/' || s[k + 1] == '*'))
			return; /* a comment: the rest of the line */
		if (c == '=' && *depth == 0)
			h->assign = true;
		if (c == '(') {
			if (*depth == 0 && !h->params && *word) {
				const char *w = *word;
				size_t n2 = *wl;
				const char *a = skip_ws(s + k + 1, s + n);
				size_t al = 0;

				while (a + al < s + n &&
				       rb_c_is_word((unsigned char)a[al]))
					al++;
				if (annotation(w, n2)) {
					/* skipped: __printf(1, 2) */
				} else if (!rb_c_is_capitals(w, n2)) {
					h->name = w;
					h->name_len = n2;
					h->params = true;
				} else if (al && !type_word(a, al) &&
					   !(a[0] >= '0' && a[0] <= '9') &&
					   arg_ends(a + al, s + n)) {
					/* SYSCALL_DEFINE2(name, ...) */
					h->name = a;
					h->name_len = al;
					h->macro = true;
					h->params = true;
				} else if (!(a < s + n &&
					     (*a == '"' ||
					      (*a >= '0' && *a <= '9')))) {
					/* FOO(struct x *p): named FOO */
					h->name = w;
					h->name_len = n2;
					h->params = true;
				} /* else SEC("x"): an annotation */
			}
			(*depth)++;
			*word = NULL;
			continue;
		}
		if (c == ')') {
			if (*depth > 0)
				(*depth)--;
			*word = NULL;
			continue;
		}
		if (c != ' ' && c != '\t' && c != '*')
			*word = NULL;
	}
}

bool rb_c_fn_header(const char *s, size_t n, const char **name, size_t *nlen)
{
	struct head_scan h = { 0 };
	const char *word = NULL;
	size_t wl = 0;
	int depth = 0;

	if (!n || !rb_c_is_word((unsigned char)s[0]) ||
	    starts_word(s, n, "extern") || starts_word(s, n, "typedef") ||
	    last_char(s, n) == ';' || !memchr(s, '(', n))
		return false;
	/* struct foo *bar(...): a function; struct foo { ...: not. */
	if ((starts_word(s, n, "struct") || starts_word(s, n, "union") ||
	     starts_word(s, n, "enum")) &&
	    memchr(s, '{', n) &&
	    (char *)memchr(s, '{', n) < (char *)memchr(s, '(', n))
		return false;
	scan_head_text(&h, s, n, &depth, &word, &wl);
	if (!h.name || h.assign)
		return false;
	*name = h.name;
	*nlen = h.name_len;
	return true;
}

const char *rb_c_def_kind(const struct rb_c_lines *l, size_t i, const char *sym,
			  size_t sl)
{
	size_t n;
	const char *s = rb_c_line(l, i, &n), *e = s + n, *p;
	long at;

	if (!n)
		return NULL;
	if (s[0] == '#') {
		p = skip_ws(s + 1, e);
		if (!starts_word(p, (size_t)(e - p), "define"))
			return NULL;
		p = skip_ws(p + 6, e);
		if ((size_t)(e - p) >= sl && !memcmp(p, sym, sl) &&
		    (p + sl == e || !rb_c_is_word((unsigned char)p[sl])))
			return "macro";
		return NULL;
	}
	if (!rb_c_is_word((unsigned char)s[0]) && s[0] != '}')
		return NULL;
	at = rb_c_find_word(s, n, sym, sl);
	if (at < 0)
		return NULL;
	p = skip_ws(s + at + sl, e);
	if (s[0] == '}') {
		/* } name; closing a typedef or a variable of a struct */
		return p < e && *p == ';' && !memchr(s, '(', (size_t)at) ?
			       "typedef or variable" :
			       NULL;
	}
	if (starts_word(s, n, "extern") || starts_word(s, n, "return") ||
	    starts_word(s, n, "EXPORT_SYMBOL") ||
	    starts_word(s, n, "EXPORT_SYMBOL_GPL"))
		return NULL;
	if (starts_word(s, n, "typedef")) {
		if (p < e && (*p == ';' || *p == ')' || *p == '['))
			return "typedef";
		return NULL;
	}
	/* struct/union/enum NAME { */
	if (at > 0) {
		const char *q = s + at - 1;
		const char *kw;
		size_t kl;

		while (q > s && (*q == ' ' || *q == '\t'))
			q--;
		kl = 0;
		while (q - (long)kl >= s &&
		       rb_c_is_word((unsigned char)q[-(long)kl]))
			kl++;
		kw = q - kl + 1;
		if ((kl == 6 && !memcmp(kw, "struct", 6)) ||
		    (kl == 5 && !memcmp(kw, "union", 5)) ||
		    (kl == 4 && !memcmp(kw, "enum", 4))) {
			size_t nn;
			const char *nx;

			if (p < e && *p == '{')
				return kl == 4 ? "enum" :
				       kl == 5 ? "union" :
						 "struct";
			if (p == e && i + 1 < l->n) {
				nx = rb_c_line(l, i + 1, &nn);
				if (nn && nx[0] == '{')
					return kl == 4 ? "enum" :
					       kl == 5 ? "union" :
							 "struct";
			}
			return NULL;
		}
	}
	if (p < e && *p == '(') {
		/*
		 * The first call-like word on the line outside annotations
		 * such as __alloc_size(1) before it: a function.
		 */
		if (!closed_parens(s, (size_t)at) || memchr(s, '=', (size_t)at))
			return NULL;
		return has_body(l, i, (size_t)(p - s)) ? "function" : NULL;
	}
	/* SYSCALL_DEFINE4(name, ...) {: a function a macro defines. */
	if (p < e && (*p == ',' || *p == ')') && at > 0) {
		const char *q = s + at;
		const char *w;

		while (q > s && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q > s && q[-1] == '(') {
			const char *par = q - 1;

			w = par;
			while (w > s && rb_c_is_word((unsigned char)w[-1]))
				w--;
			if (w < par && rb_c_is_capitals(w, (size_t)(par - w)) &&
			    closed_parens(s, (size_t)(w - s)) &&
			    !memchr(s, '=', (size_t)at) &&
			    has_body(l, i, (size_t)(par - s)))
				return "function";
		}
	}
	if (p < e && (*p == '=' || *p == ';' || *p == '[' || *p == ',')) {
		if (memchr(s, '(', (size_t)at) || memchr(s, '=', (size_t)at))
			return NULL;
		return "variable";
	}
	/* DEFINE_MUTEX(name); DEFINE_SPINLOCK(name); ... */
	if (p < e && *p == ')' && at > 0 && s[at - 1] == '(') {
		/* Within the line: it is not NUL-terminated (fuzz_code_c). */
		const char *d = memmem(s, (size_t)at, "DEFINE_", 7);

		if (d && !memchr(s, '=', (size_t)at))
			return "variable";
	}
	return NULL;
}

size_t rb_c_def_span(const struct rb_c_lines *l, size_t i, const char *kind,
		     size_t max)
{
	size_t k, n;

	for (k = i; k < l->n && k - i < max; k++) {
		const char *s = rb_c_line(l, k, &n);

		if (kind[0] == 'm') { /* macro: while lines end in '\' */
			if (!n || s[n - 1] != '\\')
				return k - i + 1;
		} else if (kind[0] == 'v' || kind[0] == 't') {
			if (k > i && n && s[0] == '}' && memchr(s, ';', n))
				return k - i + 1;
			if (memchr(s, ';', n) && (k == i || s[0] != '\t') &&
			    !memchr(s, '{', n))
				return k - i + 1;
		} else if (k > i && n && s[0] == '}') {
			return k - i + 1;
		}
	}
	return k - i;
}

/*
 * Does the braces' count on @s[from..@n) come back to zero (a body that
 * closes on the line it opens)? Strings and character constants skipped.
 */
static bool closes_on_line(const char *s, size_t n, size_t from)
{
	int depth = 0;
	size_t k;
	char q = 0;

	for (k = from; k < n; k++) {
		char c = s[k];

		if (q) {
			if (c == '\\')
				k++;
			else if (c == q)
				q = 0;
			continue;
		}
		if (c == '"' || c == '\'')
			q = c;
		else if (c == '{')
			depth++;
		else if (c == '}' && --depth == 0)
			return true;
	}
	return false;
}

/*
 * Is line @i the opening of a function body: a '{' in column 0, or a
 * column-0 head that ends its parameter list and opens the body on the
 * same line ("static inline void f(void) { }")? *on_line: the head is
 * on this line; *col: where the '{' is.
 */
static bool body_open(const struct rb_c_lines *l, size_t i, bool *on_line,
		      size_t *col, bool *cont)
{
	size_t n, k;
	const char *s = rb_c_line(l, i, &n);
	int depth = 0;
	bool closed = false;

	*on_line = false;
	*cont = false;
	*col = 0;
	if (!n)
		return false;
	if (s[0] == '{')
		return true;
	/*
	 * The last line of a wrapped head that opens its body:
	 * "\t\tint n) { return 0; }" (stubs in #else branches).
	 */
	if (s[0] == ' ' || s[0] == '\t') {
		const char *p = skip_ws(s, s + n);

		/* "\t\t\t{ return 0; }" under a head's ")" (slub's stubs). */
		if (p < s + n && *p == '{' && i > 0) {
			const char *pv = rb_c_line(l, i - 1, &k);

			if (last_char(pv, k) == ')') {
				*cont = true;
				return true;
			}
			return false;
		}
		for (k = 0; k < n; k++) {
			char c = s[k];

			if (c == '(') {
				depth++;
			} else if (c == ')') {
				if (--depth < -1)
					return false;
				closed |= depth == -1;
			} else if (depth == -1 && (c == ';' || c == '=' ||
						   c == ',' || c == '}')) {
				return false;
			} else if (c == '{' && depth == -1 && closed) {
				*on_line = true;
				*cont = true;
				*col = k;
				return true;
			}
		}
		return false;
	}
	if (!rb_c_is_word((unsigned char)s[0]))
		return false;
	for (k = 0; k < n; k++) {
		char c = s[k];

		if (c == '(') {
			depth++;
		} else if (c == ')') {
			if (--depth < 0)
				return false;
			if (!depth)
				closed = true;
		} else if (c == '=' && !depth) {
			return false;
		} else if (c == ';' && !depth) {
			return false;
		} else if (c == '{' && !depth) {
			if (!closed)
				return false;
			*on_line = true;
			*col = k;
			return true;
		}
	}
	return false;
}

/* if (, while (, ...: a statement, never a function's name. */
static bool keyword(const char *s, size_t n)
{
	static const char *const names[] = { "if",     "for",	 "while",
					     "switch", "return", "sizeof",
					     "do",     "else",	 "case" };
	return rb_c_in_list(s, n, names, sizeof(names) / sizeof(*names));
}

/*
 * The first line of the head above the body that opens at line @b (the
 * line itself when @on_line), with what the head says in *h. false when
 * the lines above are not a function head.
 */
static bool head_of(const struct rb_c_lines *l, size_t b, bool on_line,
		    bool cont, size_t *start, struct head_scan *h)
{
	size_t top = b, k = 0, knr = 0, i, n, stop;
	const char *s, *word = NULL;
	size_t wl = 0;
	int depth = 0;

	memset(h, 0, sizeof(*h));
	/* One blank line between a head and its '{' (mm/slub.c has it). */
	if (!on_line && top >= 2) {
		s = rb_c_line(l, top - 1, &n);
		if (blank_line(s, n)) {
			size_t pn;
			const char *pv = rb_c_line(l, top - 2, &pn);

			if (last_char(pv, pn) == ')')
				top--;
		}
	}
	if (!on_line || cont) {
		/* K&R: "\tint a;" lines between the ")" and the "{". */
		while (!on_line && top > 0 && knr < KNR_LINES) {
			s = rb_c_line(l, top - 1, &n);
			if (!n || (s[0] != ' ' && s[0] != '\t') ||
			    last_char(s, n) != ';' || rb_c_comment_line(s, n))
				break;
			top--;
			knr++;
		}
		if (knr) {
			s = top > 0 ? rb_c_line(l, top - 1, &n) : NULL;
			if (!s || last_char(s, n) != ')')
				return false;
		}
		while (top > 0 && k++ < HEAD_LINES) {
			char lc;

			s = rb_c_line(l, top - 1, &n);
			if (blank_line(s, n) || s[0] == '#' || s[0] == '}' ||
			    rb_c_comment_line(s, n) || ends_comment(s, n))
				break;
			lc = last_char(s, n);
			/* "out:" is a label of the body above, not a head. */
			if (lc == '{' || lc == '}' || lc == '\\' || lc == ';' ||
			    lc == ':')
				break;
			top--;
		}
		/* The head starts in column 0 with a word. */
		while (top < b) {
			s = rb_c_line(l, top, &n);
			if (n && rb_c_is_word((unsigned char)s[0]))
				break;
			top++;
		}
		if (top == b)
			return false;
	}
	stop = on_line ? b + 1 : b;
	for (i = top; i < stop; i++) {
		s = rb_c_line(l, i, &n);
		if (on_line && i == b) {
			size_t c = 0;
			bool ol, ct;

			body_open(l, i, &ol, &c, &ct);
			n = c;
		}
		scan_head_text(h, s, n, &depth, &word, &wl);
		if (h->assign)
			return false;
	}
	if (!h->params || keyword(h->name, h->name_len))
		return false;
	s = rb_c_line(l, top, &n);
	if (starts_word(s, n, "typedef") || starts_word(s, n, "extern"))
		return false;
	*start = top;
	return true;
}

/* The line of the '}' that closes the body opening at @b. */
static bool body_end(const struct rb_c_lines *l, size_t b, bool on_line,
		     size_t col, size_t *end)
{
	size_t i, n;
	const char *s = rb_c_line(l, b, &n);

	if (closes_on_line(s, n, on_line ? col : 0)) {
		*end = b;
		return true;
	}
	for (i = b + 1; i < l->n && i - b <= FUNC_LINES; i++) {
		s = rb_c_line(l, i, &n);
		if (n && s[0] == '}') {
			*end = i;
			return true;
		}
	}
	return false;
}

/* The function whose body opens at @b, whole, into *out. */
static bool func_from_body(struct rb_c_func *out, const struct rb_c_lines *l,
			   size_t b, bool on_line, bool cont, size_t col)
{
	struct head_scan h;
	size_t start, end;

	if (!head_of(l, b, on_line, cont, &start, &h) ||
	    !body_end(l, b, on_line, col, &end))
		return false;
	out->start = start;
	out->body = b;
	out->end = end;
	out->name = h.name;
	out->name_len = h.name_len;
	out->macro = h.macro;
	out->is_static = h.is_static;
	return true;
}

bool rb_c_func_at(struct rb_c_func *out, const struct rb_c_lines *l,
		  size_t line)
{
	struct rb_c_func f;
	size_t i, n, col;
	bool on_line, cont;

	if (line >= l->n)
		return false;
	/* In a body: up to the '{' that opens it, not past a '}'. */
	for (i = line;; i--) {
		const char *s = rb_c_line(l, i, &n);

		if (i < line && n && s[0] == '}')
			break;
		if (body_open(l, i, &on_line, &col, &cont)) {
			if (func_from_body(&f, l, i, on_line, cont, col) &&
			    f.start <= line && f.end >= line) {
				*out = f;
				return true;
			}
			/* "\tif (a &&\n\t    b) {" in a body: go on up. */
			if (!cont)
				break;
		}
		if (!i || line - i >= FUNC_LINES)
			break;
	}
	/* In a head: down to the body it opens. */
	for (i = line; i < l->n && i - line <= HEAD_LINES + KNR_LINES; i++) {
		const char *s = rb_c_line(l, i, &n);

		if (body_open(l, i, &on_line, &col, &cont)) {
			if (func_from_body(&f, l, i, on_line, cont, col) &&
			    f.start <= line) {
				*out = f;
				return true;
			}
			return false;
		}
		/* One blank line may part a head from its '{'. */
		if (blank_line(s, n) && i > line && i + 1 < l->n) {
			size_t pn, nn;
			const char *pv = rb_c_line(l, i - 1, &pn);
			const char *nx = rb_c_line(l, i + 1, &nn);

			if (last_char(pv, pn) == ')' && nn && nx[0] == '{')
				continue;
		}
		if (blank_line(s, n) || (n && (s[0] == '}' || s[0] == '#')) ||
		    (n && s[0] != ' ' && s[0] != '\t' &&
		     last_char(s, n) == ';'))
			return false;
	}
	return false;
}

/* "#define NAME" at line @i: the name. */
static bool define_line(const char *s, size_t n, const char **name, size_t *nl)
{
	const char *e = s + n, *p;

	if (!n || s[0] != '#')
		return false;
	p = skip_ws(s + 1, e);
	if (!starts_word(p, (size_t)(e - p), "define"))
		return false;
	p = skip_ws(p + 6, e);
	*name = p;
	*nl = 0;
	while (p + *nl < e && rb_c_is_word((unsigned char)p[*nl]))
		(*nl)++;
	return *nl > 0;
}

/* "struct foo {", "typedef union {", "enum x" then "{" on the next line. */
static const char *type_head(const struct rb_c_lines *l, size_t i,
			     const char **name, size_t *nl)
{
	size_t n, k;
	const char *s = rb_c_line(l, i, &n), *e = s + n, *p = s, *kind;

	if (starts_word(p, n, "typedef"))
		p = skip_ws(p + 7, e);
	if (starts_word(p, (size_t)(e - p), "struct"))
		kind = "struct";
	else if (starts_word(p, (size_t)(e - p), "union"))
		kind = "union";
	else if (starts_word(p, (size_t)(e - p), "enum"))
		kind = "enum";
	else
		return NULL;
	p = skip_ws(p + strlen(kind), e);
	/* __packed, __aligned(8) and the like may sit before the name. */
	*name = NULL;
	*nl = 0;
	for (k = 0; p + k < e && rb_c_is_word((unsigned char)p[k]); k++)
		;
	if (k) {
		*name = p;
		*nl = k;
		p = skip_ws(p + k, e);
	}
	if (memchr(s, '(', n) || memchr(s, '=', n) || memchr(s, ';', n))
		return NULL;
	if (p < e && *p == '{')
		return kind;
	if (p == e && i + 1 < l->n) {
		const char *nx = rb_c_line(l, i + 1, &k);

		if (k && nx[0] == '{')
			return kind;
	}
	return NULL;
}

bool rb_c_block_at(const struct rb_c_lines *l, size_t line, size_t *start,
		   size_t *end, const char **kind, const char **name,
		   size_t *name_len)
{
	size_t i, n, top;
	const char *s;

	if (line >= l->n)
		return false;
	/* A macro of several lines: "#define X ... \" down to its end. */
	for (top = line; top > 0 && line - top < BLOCK_LINES; top--) {
		s = rb_c_line(l, top - 1, &n);
		if (!n || s[n - 1] != '\\')
			break;
	}
	s = rb_c_line(l, top, &n);
	if (define_line(s, n, name, name_len)) {
		for (i = top; i < l->n && i - top < BLOCK_LINES; i++) {
			s = rb_c_line(l, i, &n);
			if (!n || s[n - 1] != '\\')
				break;
		}
		if (i > top && i < l->n && i >= line) {
			*start = top;
			*end = i;
			*kind = "macro";
			return true;
		}
	}
	/* A struct, union or enum: up to its head, down to its "}". */
	for (i = line;; i--) {
		const char *k;

		s = rb_c_line(l, i, &n);
		if (i < line && n && s[0] == '}')
			return false;
		k = type_head(l, i, name, name_len);
		if (k) {
			size_t j;

			for (j = i + 1; j < l->n && j - i <= BLOCK_LINES; j++) {
				s = rb_c_line(l, j, &n);
				if (n && s[0] == '}')
					break;
			}
			if (j >= l->n || j - i > BLOCK_LINES || j < line)
				return false;
			if (!*name) {
				/* typedef struct { ... } name; */
				const char *p = skip_ws(s + 1, s + n);
				size_t w = 0;

				while (p + w < s + n &&
				       rb_c_is_word((unsigned char)p[w]))
					w++;
				*name = w ? p : NULL;
				*name_len = w;
			}
			*start = i;
			*end = j;
			*kind = k;
			return true;
		}
		/* Another definition in column 0: not inside a type. */
		if (i < line && n && rb_c_is_word((unsigned char)s[0]))
			return false;
		if (!i || line - i >= BLOCK_LINES)
			return false;
	}
}

bool rb_c_is_c_path(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && path[n - 2] == '.' &&
	       (path[n - 1] == 'c' || path[n - 1] == 'h');
}

int rb_c_path_rank(const char *path)
{
	static const char *const far[] = { "tools/", "scripts/", "samples/",
					   "Documentation/", "usr/" };
	size_t i;

	for (i = 0; i < sizeof(far) / sizeof(*far); i++)
		if (!strncmp(path, far[i], strlen(far[i])))
			return 2;
	return strncmp(path, "arch/", 5) ? 0 : 1;
}
