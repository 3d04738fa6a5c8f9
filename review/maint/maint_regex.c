// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_regex.c - Perl regexes of MAINTAINERS as POSIX extended regexes.
 * The syntax follows perlre(1) as get_maintainer.pl (Perl 5.36, byte
 * strings, no locale) applies it; see maint_regex.h for what is kept.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_regex.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define LIT_MAX 32 /* literals in one set */
#define LIT_LEN 64 /* bytes in one literal */
#define DEPTH_MAX 64 /* nested groups */

/* A set of literals one of which a match must contain; any: no set. */
struct litset {
	bool any;
	size_t n;
	char v[LIT_MAX][LIT_LEN + 1];
	size_t l[LIT_MAX];
};

struct tr {
	const unsigned char *p;
	size_t i, n;
	bool x;
	int depth;
	struct rb_buf out;
};

enum atom_kind { A_LIT, A_GROUP, A_OTHER, A_ZERO };

static int parse_alt(struct tr *t, bool icase, struct litset *ls);

static void ls_any(struct litset *ls)
{
	ls->any = true;
	ls->n = 0;
}

static size_t ls_score(const struct litset *ls)
{
	size_t i, min = SIZE_MAX;

	if (ls->any || !ls->n)
		return 0;
	for (i = 0; i < ls->n; i++)
		if (ls->l[i] < min)
			min = ls->l[i];
	return min;
}

/* Adds @b's literals to @a (an alternation). */
static void ls_union(struct litset *a, const struct litset *b)
{
	size_t i;

	if (a->any)
		return;
	if (b->any || a->n + b->n > LIT_MAX) {
		ls_any(a);
		return;
	}
	for (i = 0; i < b->n; i++) {
		memcpy(a->v[a->n], b->v[i], b->l[i] + 1);
		a->l[a->n++] = b->l[i];
	}
}

static void ls_set_run(struct litset *ls, const char *run, size_t len)
{
	ls->any = false;
	ls->n = 1;
	memcpy(ls->v[0], run, len);
	ls->v[0][len] = '\0';
	ls->l[0] = len;
}

/* Keeps the better of @best and @cand (longer shortest literal). */
static void ls_pick(struct litset *best, const struct litset *cand)
{
	if (ls_score(cand) > ls_score(best))
		*best = *cand;
}

static bool tr_eof(const struct tr *t)
{
	return t->i >= t->n;
}

/* /x: white space and # comments between tokens are ignored. */
static void skip_x(struct tr *t)
{
	while (t->x && !tr_eof(t)) {
		unsigned char c = t->p[t->i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    c == '\f' || c == '\v') {
			t->i++;
		} else if (c == '#') {
			while (!tr_eof(t) && t->p[t->i] != '\n')
				t->i++;
		} else {
			break;
		}
	}
}

static int emit_lit(struct tr *t, unsigned char c, bool icase)
{
	char tmp[8];

	if (c == '\0')
		return rb_err(RB_EINVAL, "regex: NUL byte");
	if (icase && isalpha(c)) {
		tmp[0] = '[';
		tmp[1] = (char)tolower(c);
		tmp[2] = (char)toupper(c);
		tmp[3] = ']';
		return rb_buf_add(&t->out, tmp, 4);
	}
	if (strchr(".[]()*+?{}|^$\\", c)) {
		tmp[0] = '\\';
		tmp[1] = (char)c;
		return rb_buf_add(&t->out, tmp, 2);
	}
	return rb_buf_putc(&t->out, (char)c);
}

/* Emits a bracket expression for the byte set @set (NUL dropped). */
static int emit_set(struct tr *t, const bool set[256])
{
	int c, n = 0, last = -1, err;

	for (c = 1; c < 256; c++)
		if (set[c]) {
			n++;
			last = c;
		}
	if (n == 0)
		/* Perl's empty class never matches: neither does this. */
		return rb_buf_puts(&t->out, "[^\x01-\xff]");
	if (n == 1)
		return emit_lit(t, (unsigned char)last, false);
	if (n == 2 && set['^'] && set['-'])
		return rb_buf_puts(&t->out, "[-^]");
	err = rb_buf_putc(&t->out, '[');
	if (!err && set[']'])
		err = rb_buf_putc(&t->out, ']');
	for (c = 1; c < 256 && !err; c++)
		if (set[c] && c != ']' && c != '[' && c != '^' && c != '-')
			err = rb_buf_putc(&t->out, (char)c);
	if (!err && set['['])
		err = rb_buf_putc(&t->out, '[');
	if (!err && set['^'])
		err = rb_buf_putc(&t->out, '^');
	if (!err && set['-'])
		err = rb_buf_putc(&t->out, '-');
	if (!err)
		err = rb_buf_putc(&t->out, ']');
	return err;
}

static void set_class(bool set[256], char cls, bool neg)
{
	int c;

	for (c = 0; c < 256; c++) {
		bool in;

		switch (cls) {
		case 'w':
			in = c < 128 && (isalnum(c) || c == '_');
			break;
		case 's':
			in = c == ' ' || (c >= '\t' && c <= '\r');
			break;
		default: /* 'd' */
			in = c >= '0' && c <= '9';
			break;
		}
		if (in != neg)
			set[c] = true;
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Reads a character escape after the backslash: returns 0 and the byte in
 * *c, 1 when it is a class (\w \s \d and negations, in *cls and *neg), or a
 * negative error for escapes Perl reads differently (\1, \G, \p, ...).
 */
static int read_escape(struct tr *t, int *c, char *cls, bool *neg)
{
	unsigned char e;
	int v, k;

	if (tr_eof(t))
		return rb_err(RB_EINVAL, "regex: trailing backslash");
	e = t->p[t->i++];
	switch (e) {
	case 'w':
	case 's':
	case 'd':
	case 'W':
	case 'S':
	case 'D':
		*cls = (char)tolower(e);
		*neg = isupper(e);
		return 1;
	case 'n':
		*c = '\n';
		return 0;
	case 't':
		*c = '\t';
		return 0;
	case 'r':
		*c = '\r';
		return 0;
	case 'f':
		*c = '\f';
		return 0;
	case 'e':
		*c = 0x1b;
		return 0;
	case 'a':
		*c = 7;
		return 0;
	case 'c':
		if (tr_eof(t))
			return rb_err(RB_EINVAL, "regex: bad \\c");
		*c = toupper(t->p[t->i++]) ^ 64;
		return 0;
	case 'x':
		v = 0;
		if (!tr_eof(t) && t->p[t->i] == '{') {
			t->i++;
			while (!tr_eof(t) && t->p[t->i] != '}') {
				if (hexval(t->p[t->i]) < 0)
					return rb_err(RB_EINVAL,
						      "regex: bad \\x");
				v = v * 16 + hexval(t->p[t->i++]);
				if (v > 255)
					return rb_err(RB_EINVAL,
						      "regex: wide \\x");
			}
			if (tr_eof(t))
				return rb_err(RB_EINVAL, "regex: bad \\x{");
			t->i++;
		} else {
			for (k = 0;
			     k < 2 && !tr_eof(t) && hexval(t->p[t->i]) >= 0;
			     k++)
				v = v * 16 + hexval(t->p[t->i++]);
		}
		*c = v;
		return 0;
	case '0':
		v = 0;
		for (k = 0; k < 2 && !tr_eof(t) && t->p[t->i] >= '0' &&
			    t->p[t->i] <= '7';
		     k++)
			v = v * 8 + (t->p[t->i++] - '0');
		*c = v;
		return 0;
	default:
		if (isalnum(e))
			return rb_err(RB_EINVAL,
				      "regex: unsupported escape \\%c", e);
		*c = e;
		return 0;
	}
}

/* A "[:name:]" in a class, at t->i after its "[": its ASCII bytes into
 * @set. */
static int posix_class(struct tr *t, bool *set)
{
	const char *end = memchr(t->p + t->i, ']', t->n - t->i);
	char name[16];
	size_t nl;
	int k;

	if (!end || end[-1] != ':' ||
	    (size_t)(end - 1 - (const char *)t->p) <= t->i)
		return rb_err(RB_EINVAL, "regex: bad [:");
	nl = (size_t)(end - 1 - (const char *)(t->p + t->i + 1));
	if (nl >= sizeof(name))
		return rb_err(RB_EINVAL, "regex: bad [:");
	memcpy(name, t->p + t->i + 1, nl);
	name[nl] = '\0';
	for (k = 0; k < 128; k++) {
		bool in = false;

		if (!strcmp(name, "alpha"))
			in = isalpha(k);
		else if (!strcmp(name, "digit"))
			in = isdigit(k);
		else if (!strcmp(name, "alnum"))
			in = isalnum(k);
		else if (!strcmp(name, "space"))
			in = isspace(k);
		else if (!strcmp(name, "upper"))
			in = isupper(k);
		else if (!strcmp(name, "lower"))
			in = islower(k);
		else if (!strcmp(name, "punct"))
			in = ispunct(k);
		else if (!strcmp(name, "xdigit"))
			in = isxdigit(k);
		else if (!strcmp(name, "word"))
			in = isalnum(k) || k == '_';
		else
			return rb_err(RB_EINVAL, "regex: class [:%s:]", name);
		if (in)
			set[k] = true;
	}
	t->i = (size_t)(end + 1 - (const char *)t->p);
	return 0;
}

/* The range "@lo-HI" in a class, at t->i after its "-": into @set. */
static int class_range(struct tr *t, bool *set, int lo)
{
	int hi = t->p[t->i++], err;
	char cls;
	bool cneg;

	if (hi == '\\') {
		err = read_escape(t, &hi, &cls, &cneg);
		if (err < 0)
			return err;
		if (err == 1)
			return rb_err(RB_EINVAL, "regex: class in range");
	}
	if (hi < lo)
		return rb_err(RB_EINVAL, "regex: bad range");
	for (; lo <= hi; lo++)
		set[lo] = true;
	return 0;
}

static int parse_class(struct tr *t, bool icase)
{
	bool set[256] = { false };
	bool neg = false, first = true;
	int c, prev = -1, err;

	if (!tr_eof(t) && t->p[t->i] == '^') {
		neg = true;
		t->i++;
	}
	for (;;) {
		char cls;
		bool cneg;

		if (tr_eof(t))
			return rb_err(RB_EINVAL, "regex: unterminated [");
		c = t->p[t->i];
		if (c == ']' && !first)
			break;
		first = false;
		t->i++;
		if (c == '[' && !tr_eof(t) && t->p[t->i] == ':') {
			/* [:alpha:] and friends, ASCII. */
			err = posix_class(t, set);
			if (err)
				return err;
			prev = -1;
			continue;
		}
		if (c == '\\' && !tr_eof(t) && t->p[t->i] == 'b') {
			t->i++;
			c = 8; /* \b in a class is a backspace */
		} else if (c == '\\') {
			err = read_escape(t, &c, &cls, &cneg);
			if (err < 0)
				return err;
			if (err == 1) {
				set_class(set, cls, cneg);
				prev = -1;
				continue;
			}
		}
		if (c == '-' && prev >= 0 && !tr_eof(t) && t->p[t->i] != ']') {
			err = class_range(t, set, prev);
			if (err)
				return err;
			prev = -1;
			continue;
		}
		set[c] = true;
		prev = c;
	}
	t->i++; /* ']' */
	if (icase) {
		for (c = 0; c < 128; c++)
			if (set[c] && ((c >= 'a' && c <= 'z') ||
				       (c >= 'A' && c <= 'Z'))) {
				set[c | 0x20] = true; /* ASCII lower case */
				set[c & ~0x20] = true; /* and upper */
			}
	}
	if (neg)
		for (c = 0; c < 256; c++)
			set[c] = !set[c];
	return emit_set(t, set);
}

/* Reads a {n}, {n,} or {n,m} quantifier at t->i; false if it is not one
 * (then Perl reads "{" as a literal).
 */
static bool read_braces(struct tr *t, int *min, int *max)
{
	size_t i = t->i + 1;
	long a = 0, b = -1;

	if (i >= t->n || !isdigit(t->p[i]))
		return false;
	while (i < t->n && isdigit(t->p[i]) && a < 100000)
		a = a * 10 + (t->p[i++] - '0');
	if (i < t->n && t->p[i] == ',') {
		i++;
		if (i < t->n && isdigit(t->p[i])) {
			b = 0;
			while (i < t->n && isdigit(t->p[i]) && b < 100000)
				b = b * 10 + (t->p[i++] - '0');
		}
	} else {
		b = a;
	}
	if (i >= t->n || t->p[i] != '}')
		return false;
	*min = (int)a;
	*max = (int)b;
	t->i = i + 1;
	return true;
}

/* Reads flags after "(?": i, x, s, m, and "-"; returns the end char. */
static int read_flags(struct tr *t, bool *icase, bool *xflag)
{
	bool on = true;

	while (!tr_eof(t)) {
		unsigned char c = t->p[t->i++];

		switch (c) {
		case 'i':
			*icase = on;
			break;
		case 'x':
			*xflag = on;
			break;
		case 's':
		case 'm':
			/* Neither changes a pattern without ". $ ^" in a
			 * single-line subject, but refuse to be sure.
			 */
			return rb_err(RB_EINVAL, "regex: flag (?%c)", c);
		case '-':
			on = false;
			break;
		case ':':
		case ')':
			return c;
		default:
			return rb_err(RB_EINVAL, "regex: unsupported (?%c", c);
		}
	}
	return rb_err(RB_EINVAL, "regex: unterminated (?");
}

static int parse_group_body(struct tr *t, bool icase, bool x, struct litset *ls)
{
	bool saved_x = t->x;
	int err;

	if (++t->depth > DEPTH_MAX)
		return rb_err(RB_EINVAL, "regex: groups nested too deep");
	t->x = x;
	err = rb_buf_putc(&t->out, '(');
	if (!err)
		err = parse_alt(t, icase, ls);
	if (!err && (tr_eof(t) || t->p[t->i] != ')'))
		err = rb_err(RB_EINVAL, "regex: unmatched (");
	if (!err) {
		t->i++;
		err = rb_buf_putc(&t->out, ')');
	}
	t->x = saved_x;
	t->depth--;
	return err;
}

/*
 * One atom; sets *kind, *lit (for A_LIT) and @gls (for A_GROUP). May
 * change *icase (an inline "(?i)").
 */
static int parse_atom(struct tr *t, bool *icase, enum atom_kind *kind, int *lit,
		      struct litset *gls)
{
	unsigned char c = t->p[t->i++];
	int err, min, max;
	char cls;
	bool neg;

	*kind = A_OTHER;
	switch (c) {
	case '(':
		if (!tr_eof(t) && t->p[t->i] == '?') {
			bool gi = *icase, gx = t->x;
			int end;

			t->i++;
			end = read_flags(t, &gi, &gx);
			if (end < 0)
				return end;
			if (end == ')') {
				/* (?i) lasts to the end of the group. */
				*icase = gi;
				t->x = gx;
				*kind = A_ZERO;
				return 0;
			}
			*kind = A_GROUP;
			return parse_group_body(t, gi, gx, gls);
		}
		*kind = A_GROUP;
		return parse_group_body(t, *icase, t->x, gls);
	case '[':
		return parse_class(t, *icase);
	case '.':
		return rb_buf_puts(&t->out, "[^\n]");
	case '^':
		*kind = A_ZERO;
		return rb_buf_putc(&t->out, '^');
	case '$':
		*kind = A_ZERO;
		return rb_buf_puts(&t->out, "(\n?$)");
	case '*':
	case '+':
	case '?':
		return rb_err(RB_EINVAL, "regex: quantifier follows nothing");
	case '{':
		t->i--;
		if (read_braces(t, &min, &max))
			return rb_err(RB_EINVAL,
				      "regex: quantifier follows nothing");
		t->i++;
		*kind = A_LIT;
		*lit = '{';
		return emit_lit(t, '{', *icase);
	case '\\':
		if (!tr_eof(t)) {
			unsigned char e = t->p[t->i];

			if (e == 'b' || e == 'B') {
				t->i++;
				*kind = A_ZERO;
				return rb_buf_puts(&t->out,
						   e == 'b' ? "\\b" : "\\B");
			}
			if (e == 'A') {
				t->i++;
				*kind = A_ZERO;
				return rb_buf_putc(&t->out, '^');
			}
			if (e == 'z') {
				t->i++;
				*kind = A_ZERO;
				return rb_buf_putc(&t->out, '$');
			}
			if (e == 'Z') {
				t->i++;
				*kind = A_ZERO;
				return rb_buf_puts(&t->out, "(\n?$)");
			}
		}
		err = read_escape(t, lit, &cls, &neg);
		if (err < 0)
			return err;
		if (err == 1) {
			bool set[256] = { false };

			set_class(set, cls, neg);
			return emit_set(t, set);
		}
		*kind = A_LIT;
		return emit_lit(t, (unsigned char)*lit, *icase);
	default:
		*kind = A_LIT;
		*lit = c;
		return emit_lit(t, c, *icase);
	}
}

static int parse_seq(struct tr *t, bool *icase, struct litset *best)
{
	char run[LIT_LEN + 1];
	size_t rl = 0;
	struct litset *cand = NULL, *gls = NULL;
	int err = 0;

	cand = calloc(1, sizeof(*cand));
	gls = calloc(1, sizeof(*gls));
	if (!cand || !gls) {
		err = rb_err(RB_ENOMEM, "regex: out of memory");
		goto out;
	}
	ls_any(best);
	for (;;) {
		enum atom_kind kind;
		int lit = 0, min = 1, max = 1;
		bool quant = false;

		skip_x(t);
		if (tr_eof(t) || t->p[t->i] == '|' || t->p[t->i] == ')')
			break;
		ls_any(gls);
		err = parse_atom(t, icase, &kind, &lit, gls);
		if (err)
			goto out;
		skip_x(t);
		if (!tr_eof(t)) {
			unsigned char q = t->p[t->i];

			if (q == '*' || q == '+' || q == '?') {
				t->i++;
				quant = true;
				min = q == '+' ? 1 : 0;
				max = q == '?' ? 1 : -1;
				err = rb_buf_putc(&t->out, (char)q);
			} else if (q == '{' && read_braces(t, &min, &max)) {
				quant = true;
				if (min > 255 || max > 255 ||
				    (max >= 0 && max < min)) {
					err = rb_err(RB_EINVAL,
						     "regex: bad {n,m}");
					goto out;
				}
				if (max < 0)
					err = rb_buf_printf(&t->out, "{%d,}",
							    min);
				else
					err = rb_buf_printf(&t->out, "{%d,%d}",
							    min, max);
			}
			if (err)
				goto out;
			if (quant && !tr_eof(t) && t->p[t->i] == '?')
				t->i++; /* lazy: same match/no-match */
			else if (quant && !tr_eof(t) && t->p[t->i] == '+') {
				err = rb_err(RB_EINVAL,
					     "regex: possessive quantifier");
				goto out;
			}
			if (quant && kind == A_ZERO) {
				err = rb_err(RB_EINVAL,
					     "regex: quantified assertion");
				goto out;
			}
		}
		if (kind == A_LIT && (!quant || min >= 1) && rl < LIT_LEN) {
			run[rl++] = (char)tolower(lit);
			if (!quant)
				continue;
		}
		/* The run ends here: it is one candidate. */
		if (rl) {
			ls_set_run(cand, run, rl);
			ls_pick(best, cand);
			rl = 0;
		}
		if (kind == A_GROUP && min >= 1)
			ls_pick(best, gls);
	}
	if (rl) {
		ls_set_run(cand, run, rl);
		ls_pick(best, cand);
	}
out:
	free(cand);
	free(gls);
	return err;
}

static int parse_alt(struct tr *t, bool icase, struct litset *ls)
{
	struct litset *branch = calloc(1, sizeof(*branch));
	bool first = true;
	int err = 0;

	if (!branch)
		return rb_err(RB_ENOMEM, "regex: out of memory");
	for (;;) {
		err = parse_seq(t, &icase, branch);
		if (err)
			break;
		if (first) {
			*ls = *branch;
			first = false;
		} else {
			ls_union(ls, branch);
		}
		if (!tr_eof(t) && t->p[t->i] == '|') {
			t->i++;
			err = rb_buf_putc(&t->out, '|');
			if (err)
				break;
			continue;
		}
		break;
	}
	free(branch);
	return err;
}

int rb_perl_re_translate(char **ere, struct rb_perl_re *r, const char *pat,
			 size_t len, bool xflag)
{
	struct tr t = { (const unsigned char *)pat, 0, len, xflag, 0,
			RB_BUF_INIT(1 << 16) };
	struct litset *ls = calloc(1, sizeof(*ls));
	size_t i;
	int err;

	if (!ls)
		return rb_err(RB_ENOMEM, "regex: out of memory");
	err = parse_alt(&t, false, ls);
	if (!err && !tr_eof(&t))
		err = rb_err(RB_EINVAL, "regex: unmatched )");
	if (err)
		goto out;
	if (!ls->any && ls->n) {
		r->lits = calloc(ls->n, sizeof(*r->lits));
		r->litlens = calloc(ls->n, sizeof(*r->litlens));
		if (!r->lits || !r->litlens) {
			err = rb_err(RB_ENOMEM, "regex: out of memory");
			goto out;
		}
		r->nlits = ls->n;
		for (i = 0; i < ls->n; i++) {
			r->lits[i] = strdup(ls->v[i]);
			if (!r->lits[i]) {
				err = rb_err(RB_ENOMEM, "regex: out of memory");
				goto out;
			}
			r->litlens[i] = ls->l[i];
		}
	}
	*ere = rb_buf_detach(&t.out, NULL);
	if (!*ere)
		err = rb_err(RB_ENOMEM, "regex: out of memory");
out:
	if (err) {
		for (i = 0; r->lits && i < r->nlits; i++)
			free(r->lits[i]);
		free(r->lits);
		free(r->litlens);
		r->lits = NULL;
		r->litlens = NULL;
		r->nlits = 0;
	}
	rb_buf_release(&t.out);
	free(ls);
	return err;
}

int rb_perl_re_compile(struct rb_perl_re *r, const char *pat, size_t len,
		       bool xflag)
{
	char *ere = NULL;
	int err, rc;

	err = rb_perl_re_translate(&ere, r, pat, len, xflag);
	if (err)
		return err;
	rc = regcomp(&r->re, ere, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];

		regerror(rc, &r->re, msg, sizeof(msg));
		err = rb_err(RB_EINVAL, "regex: %s", msg);
		rb_perl_re_release(r);
	} else {
		r->compiled = true;
	}
	free(ere);
	return err;
}

bool rb_perl_re_maybe(const struct rb_perl_re *r, const char *lower, size_t len)
{
	size_t i;

	if (!r->nlits)
		return true;
	for (i = 0; i < r->nlits; i++)
		if (memmem(lower, len, r->lits[i], r->litlens[i]))
			return true;
	return false;
}

static inline unsigned gram(const unsigned char *p)
{
	uint32_t x = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];

	return (x * 2654435761u) >> 16;
}

void rb_grams_fill(struct rb_grams *g, const char *lower, size_t len)
{
	const unsigned char *p = (const unsigned char *)lower;
	size_t i;

	memset(g->bits, 0, sizeof(g->bits));
	for (i = 0; i + 3 <= len; i++) {
		unsigned h = gram(p + i);

		g->bits[h >> 6] |= 1ull << (h & 63);
	}
}

static bool grams_have(const struct rb_grams *g, const char *lit, size_t len)
{
	const unsigned char *p = (const unsigned char *)lit;
	size_t i;

	for (i = 0; i + 3 <= len; i++) {
		unsigned h = gram(p + i);

		if (!(g->bits[h >> 6] & (1ull << (h & 63))))
			return false;
	}
	return true;
}

bool rb_perl_re_maybe_in(const struct rb_perl_re *r, const char *lower,
			 size_t len, const struct rb_grams *g)
{
	size_t i;

	if (!r->nlits)
		return true;
	for (i = 0; i < r->nlits; i++)
		if (grams_have(g, r->lits[i], r->litlens[i]) &&
		    memmem(lower, len, r->lits[i], r->litlens[i]))
			return true;
	return false;
}

bool rb_perl_re_match(const struct rb_perl_re *r, const char *s, size_t len)
{
	regmatch_t m[1];
	char stack[512], *copy = stack;
	bool ok;

	if (!r->compiled)
		return false;
	/* A NUL-terminated copy: subjects are slices of a patch, and
	 * regexec() (or a sanitizer's interceptor) may look for the NUL
	 * even with REG_STARTEND, which lets NUL bytes inside match.
	 */
	if (len >= sizeof(stack)) {
		copy = malloc(len + 1);
		if (!copy)
			return false;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	ok = regexec(&r->re, copy, 1, m, REG_STARTEND) == 0;
	if (copy != stack)
		free(copy);
	return ok;
}

void rb_perl_re_release(struct rb_perl_re *r)
{
	size_t i;

	if (r->compiled)
		regfree(&r->re);
	for (i = 0; i < r->nlits; i++)
		free(r->lits[i]);
	free(r->lits);
	free(r->litlens);
	memset(r, 0, sizeof(*r));
}
