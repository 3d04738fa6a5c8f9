// SPDX-License-Identifier: GPL-2.0-only
/*
 * prose.c - the answers under quoted findings in a reply. See prose.h.
 * The body is hostile: every scan is bounded by its line's end, the
 * answers are capped in number and size.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/prose.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

struct line {
	const char *p, *e;
};

/* The next line of [*pp, end) into @l; false at the end. */
static bool next_line(const char **pp, const char *end, struct line *l)
{
	const char *p = *pp, *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	l->p = p;
	l->e = nl ? nl : end;
	*pp = nl ? nl + 1 : end;
	if (l->e > l->p && l->e[-1] == '\r')
		l->e--;
	return true;
}

static bool blank_line(const struct line *l)
{
	const char *p;

	for (p = l->p; p < l->e; p++)
		if (*p != ' ' && *p != '\t')
			return false;
	return true;
}

static bool quoted_line(const struct line *l)
{
	const char *p = l->p;

	while (p < l->e && (*p == ' ' || *p == '\t'))
		p++;
	return p < l->e && *p == '>';
}

/* The last "[FN]" of a line, or 0 (mail/verdict.h's ids). */
static int id_of(const char *p, const char *e)
{
	int id = 0;

	for (; p < e; p++) {
		const char *q = p + 1;
		int v = 0, digits = 0;

		if (*p != '[' || q >= e || (*q != 'F' && *q != 'f'))
			continue;
		for (q++; q < e && isdigit((unsigned char)*q) && digits < 4;
		     q++, digits++)
			v = v * 10 + (*q - '0');
		if (digits && digits < 4 && v >= 1 && v <= RB_VERDICT_MAX_ID &&
		    q < e && *q == ']')
			id = v;
	}
	return id;
}

static struct rb_prose_answer *answer_of(struct rb_prose *out, size_t *cap,
					 int id, int line, int *err)
{
	struct rb_prose_answer *a;
	size_t i;

	for (i = 0; i < out->n; i++)
		if (out->v[i].id == id)
			return &out->v[i];
	if (out->n >= RB_PROSE_MAX)
		return NULL;
	if (out->n == *cap) {
		size_t c = *cap ? 2 * *cap : 4;
		struct rb_prose_answer *v = realloc(out->v, c * sizeof(*v));

		if (!v) {
			*err = rb_err(RB_ENOMEM, "out of memory");
			return NULL;
		}
		out->v = v;
		*cap = c;
	}
	a = &out->v[out->n++];
	memset(a, 0, sizeof(*a));
	a->id = id;
	a->line = line;
	a->guess = RB_PROSE_UNCLEAR;
	return a;
}

/* Appends line @l to the answer's text, within the cap. */
static int append(struct rb_prose_answer *a, const struct line *l)
{
	size_t have = a->text ? strlen(a->text) : 0;
	size_t n = (size_t)(l->e - l->p), add;
	char *t;

	if (have >= RB_PROSE_MAX_TEXT)
		return 0;
	add = n + (have ? 1 : 0);
	if (have + add > RB_PROSE_MAX_TEXT)
		add = RB_PROSE_MAX_TEXT - have;
	t = realloc(a->text, have + add + 1);
	if (!t)
		return rb_err(RB_ENOMEM, "out of memory");
	a->text = t;
	if (have && add) {
		t[have++] = '\n';
		add--;
	}
	memcpy(t + have, l->p, add);
	t[have + add] = '\0';
	return 0;
}

static void trim_end(char *t)
{
	size_t n = t ? strlen(t) : 0;

	while (n && (t[n - 1] == '\n' || t[n - 1] == ' ' || t[n - 1] == '\t'))
		t[--n] = '\0';
}

/* At most 2 lines of at most 3 words each: "Thanks,\nAda". */
static bool sign_off(const char *p)
{
	int lines = 1, words = 0;
	bool in = false;

	for (; *p; p++) {
		if (*p == '\n') {
			if (++lines > 2)
				return false;
			words = 0;
			in = false;
		} else if (*p == ' ' || *p == '\t') {
			in = false;
		} else if (!in) {
			in = true;
			if (++words > 3)
				return false;
		}
	}
	return true;
}

/*
 * Drops blank lines at the end of the answer, and a last paragraph that
 * is only a sign-off ("Thanks,\nAda"): the reply's words, not whose.
 */
static void trim(char *t)
{
	char *para;

	trim_end(t);
	para = t ? strstr(t, "\n\n") : NULL;
	while (para) {
		char *next = strstr(para + 2, "\n\n");

		if (!next)
			break;
		para = next;
	}
	if (para && sign_off(para + 2)) {
		*para = '\0';
		trim_end(t);
	}
}

int rb_prose_parse(struct rb_prose *out, const char *body, size_t len)
{
	const char *p = body, *end = body + len;
	struct rb_prose_answer *cur = NULL;
	struct line l;
	size_t cap = 0, i;
	int id = 0, lineno = 0, ret = 0;
	bool brk = false; /* a paragraph ended since the last quoted text */

	out->v = NULL;
	out->n = 0;
	while (!ret && next_line(&p, end, &l)) {
		lineno++;
		if (l.e - l.p == 3 && !memcmp(l.p, "-- ", 3))
			break;
		if (quoted_line(&l)) {
			const char *t = l.p;
			int q = id_of(l.p, l.e);

			while (t < l.e &&
			       (*t == '>' || *t == ' ' || *t == '\t'))
				t++;
			cur = NULL;
			if (t == l.e) {
				brk = true; /* a quoted blank line */
				continue;
			}
			/*
			 * The finding's paragraph runs on until a break; quoted
			 * text after one (the next finding's code, our footer)
			 * is no longer the finding answered.
			 */
			if (q)
				id = q;
			else if (brk)
				id = 0;
			brk = false;
			continue;
		}
		brk = true;
		if (!id || (blank_line(&l) && !cur))
			continue;
		if (!cur) {
			cur = answer_of(out, &cap, id, lineno, &ret);
			if (!cur)
				continue;
		}
		ret = append(cur, &l);
	}
	for (i = 0; !ret && i < out->n; i++) {
		trim(out->v[i].text);
		out->v[i].guess = rb_prose_guess(out->v[i].text);
	}
	if (ret)
		rb_prose_release(out);
	return ret;
}

void rb_prose_release(struct rb_prose *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->v[i].text);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

/* @text lower-cased, blanks squeezed, apostrophes straightened. */
static char *lowered(const char *text)
{
	size_t n = strlen(text), i, k = 0;
	char *s = malloc(n + 1);
	bool gap = false;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		if (isspace(c)) {
			gap = k > 0;
			continue;
		}
		/* U+2019 RIGHT SINGLE QUOTATION MARK as "'" */
		if (c == 0xe2 && i + 2 < n &&
		    (unsigned char)text[i + 1] == 0x80 &&
		    (unsigned char)text[i + 2] == 0x99) {
			c = '\'';
			i += 2;
		}
		if (gap)
			s[k++] = ' ';
		gap = false;
		s[k++] = (char)tolower(c);
	}
	s[k] = '\0';
	return s;
}

static bool has(const char *s, const char *const *phrases)
{
	size_t i;

	for (i = 0; phrases[i]; i++)
		if (strstr(s, phrases[i]))
			return true;
	return false;
}

/* @s starts with the word @w ("no", "no," "no." but not "not"). */
static bool starts_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && !isalnum((unsigned char)s[n]);
}

enum rb_prose_guess rb_prose_guess(const char *text)
{
	static const char *const fixed[] = { "fixed in v",     "already fixed",
					     "will be fixed",  "fixed it in",
					     "addressed in v", NULL };
	static const char *const valid[] = { "not a false positive",
					     "isn't a false positive",
					     "is not a false positive",
					     "good catch",
					     "nice catch",
					     "you're right",
					     "you are right",
					     "will fix",
					     "i'll fix",
					     "will send a fix",
					     "agreed",
					     "indeed",
					     "thanks for catching",
					     "that's a bug",
					     "this is a bug",
					     "real bug",
					     NULL };
	static const char *const fp[] = {
		"false positive", "not a bug",	   "not an issue",
		"is fine",	  "is ok",	   "is safe",
		"can't happen",	  "cannot happen", "never happens",
		"can never",	  "intended",	   "intentional",
		"on purpose",	  "by design",	   "already handled",
		"is held",	  "not a problem", "not possible",
		"wrong",	  "bogus",	   NULL
	};
	enum rb_prose_guess g = RB_PROSE_UNCLEAR;
	char *s;

	if (!text || !*text)
		return g;
	s = lowered(text);
	if (!s)
		return g;
	if (has(s, fixed))
		g = RB_PROSE_FIXED;
	else if (has(s, valid) || starts_word(s, "yes") ||
		 starts_word(s, "right"))
		g = RB_PROSE_VALID;
	else if (has(s, fp) || starts_word(s, "no") || starts_word(s, "nope"))
		g = RB_PROSE_FALSE_POSITIVE;
	free(s);
	return g;
}

const char *rb_prose_guess_name(enum rb_prose_guess g)
{
	switch (g) {
	case RB_PROSE_FALSE_POSITIVE:
		return "false_positive";
	case RB_PROSE_VALID:
		return "valid";
	case RB_PROSE_FIXED:
		return "fixed";
	default:
		return NULL;
	}
}

int rb_prose_paragraph(char **out, const char *body, size_t len, int line)
{
	struct rb_prose_answer a = { 0 };
	const char *p = body, *end = body + len;
	struct line l;
	int lineno = 0, ret = 0;

	*out = NULL;
	while (!ret && next_line(&p, end, &l)) {
		if (++lineno < line)
			continue;
		if (l.e - l.p == 3 && !memcmp(l.p, "-- ", 3))
			break;
		if (quoted_line(&l) || (lineno > line && blank_line(&l)))
			break;
		ret = append(&a, &l);
	}
	if (ret) {
		free(a.text);
		return ret;
	}
	trim(a.text);
	*out = a.text;
	return 0;
}
