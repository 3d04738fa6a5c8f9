// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict.c - verdict lines in replies to our reviews. See verdict.h for
 * the grammar. The body is hostile: every scan is bounded by the line's
 * end, ids are capped at three digits, and the number of verdicts is
 * capped.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/verdict.h"
#include "util/err.h"
#include "util/banned.h"

struct state {
	int kind[RB_VERDICT_MAX_ID + 1]; /* -1: none */
	int line[RB_VERDICT_MAX_ID + 1];
	size_t n;
	bool send[RB_VERDICT_MAX_ID + 1]; /* "F1: send" (issue 36) */
	size_t n_send;
	bool answered[RB_VERDICT_MAX_ID + 1];
	unsigned int cmds;
};

static bool is_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '\'';
}

static const char *skip_blank(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* @w at @p (case-insensitive) as a whole word: its length, else 0. */
static size_t word_at(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(e - p) < n || strncasecmp(p, w, n))
		return 0;
	if (p + n < e && is_word((unsigned char)p[n]))
		return 0;
	return n;
}

/* "false positive" with blanks or one '-' between the words. */
static size_t false_positive_at(const char *p, const char *e)
{
	const char *q;

	if ((size_t)(e - p) < 5 || strncasecmp(p, "false", 5))
		return 0;
	q = p + 5;
	if (q < e && *q == '-')
		q++;
	else if (q < e && (*q == ' ' || *q == '\t'))
		q = skip_blank(q, e);
	else
		return 0;
	if (!word_at(q, e, "positive"))
		return 0;
	return (size_t)(q + 8 - p);
}

/* A verdict word or phrase at @p: its length and kind, else 0. */
static size_t phrase_at(const char *p, const char *e, int *kind)
{
	static const struct {
		const char *w;
		int kind;
	} words[] = {
		{ "fp", RB_VK_FALSE_POSITIVE },
		{ "wrong", RB_VK_FALSE_POSITIVE },
		{ "valid", RB_VK_VALID },
		{ "correct", RB_VK_VALID },
		{ "fixed", RB_VK_FIXED },
	};
	size_t i, n;

	n = false_positive_at(p, e);
	if (n) {
		*kind = RB_VK_FALSE_POSITIVE;
		return n;
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = word_at(p, e, words[i].w);
		if (n) {
			*kind = words[i].kind;
			return n;
		}
	}
	return 0;
}

/* "send" or "forward" at @p as a whole word: its length, else 0. */
static size_t send_at(const char *p, const char *e)
{
	size_t n = word_at(p, e, "send");

	return n ? n : word_at(p, e, "forward");
}

/* "F12" at @p: the id (1..999), and @p moved past it; else 0. */
static int id_at(const char **pp, const char *e)
{
	const char *p = *pp;
	int v = 0, digits = 0;

	if (p >= e || (*p != 'F' && *p != 'f'))
		return 0;
	p++;
	while (p < e && isdigit((unsigned char)*p)) {
		if (++digits > 3)
			return 0;
		v = v * 10 + (*p - '0');
		p++;
	}
	if (!digits || v < 1 || v > RB_VERDICT_MAX_ID)
		return 0;
	if (p < e && is_word((unsigned char)*p))
		return 0;
	*pp = p;
	return v;
}

/* A list of ids: "F1", "F1, F3", "F1 and F2". Returns how many. */
static size_t ids_at(const char **pp, const char *e, int *ids, size_t max)
{
	const char *p = *pp, *q;
	size_t n = 0;
	int id;

	while (n < max && (id = id_at(&p, e))) {
		ids[n++] = id;
		*pp = p;
		q = skip_blank(p, e);
		if (q < e && (*q == ',' || *q == '&'))
			q = skip_blank(q + 1, e);
		else if (word_at(q, e, "and"))
			q = skip_blank(q + 3, e);
		else
			break;
		p = q;
	}
	return n;
}

static int put(struct state *s, int id, int kind, int line)
{
	if (s->kind[id] < 0) {
		if (s->n >= RB_VERDICT_MAX_ITEMS)
			return rb_err(RB_ETOOBIG,
				      "line %d: more than %d verdicts in one "
				      "reply",
				      line, RB_VERDICT_MAX_ITEMS);
		s->n++;
	}
	s->kind[id] = kind;
	s->line[id] = line;
	return 0;
}

static int put_send(struct state *s, int id, int line)
{
	if (s->send[id])
		return 0;
	if (s->n_send >= RB_VERDICT_MAX_ITEMS)
		return rb_err(RB_ETOOBIG,
			      "line %d: more than %d findings to send in one "
			      "reply",
			      line, RB_VERDICT_MAX_ITEMS);
	s->send[id] = true;
	s->n_send++;
	return 0;
}

/* The kind that stands for "send" in explicit_line(). */
#define KIND_SEND (-2)

/* "F2: fp", "F1, F3 - valid", "fp F2", "F1, F3: send", "send F2".
 * Returns 1 when the line was one. */
static int explicit_line(struct state *s, const char *p, const char *e,
			 int line)
{
	int ids[16], kind, ret;
	size_t n, i, len;

	n = ids_at(&p, e, ids, sizeof(ids) / sizeof(ids[0]));
	if (n) {
		p = skip_blank(p, e);
		if (p < e && (*p == ':' || *p == '-' || *p == '='))
			p = skip_blank(p + 1, e);
		if (send_at(p, e))
			kind = KIND_SEND;
		else if (!phrase_at(p, e, &kind))
			return 0;
	} else {
		len = send_at(p, e);
		if (len)
			kind = KIND_SEND;
		else
			len = phrase_at(p, e, &kind);
		if (!len)
			return 0;
		p = skip_blank(p + len, e);
		if (p < e && *p == ':')
			p = skip_blank(p + 1, e);
		n = ids_at(&p, e, ids, sizeof(ids) / sizeof(ids[0]));
		if (!n)
			return 0;
	}
	for (i = 0; i < n; i++) {
		ret = kind == KIND_SEND ? put_send(s, ids[i], line) :
					  put(s, ids[i], kind, line);
		if (ret)
			return ret;
	}
	return 1;
}

/*
 * A command alone on its line: "retry", "pause", "resume", blanks and a
 * final '.' or '!' allowed. Returns its bit, else 0.
 */
static unsigned int command_line(const char *p, const char *e)
{
	static const struct {
		const char *w;
		unsigned int bit;
	} cmds[] = {
		{ "retry", RB_VCMD_RETRY },
		{ "pause", RB_VCMD_PAUSE },
		{ "resume", RB_VCMD_RESUME },
	};
	size_t i, n;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *q;

		n = word_at(p, e, cmds[i].w);
		if (!n)
			continue;
		q = skip_blank(p + n, e);
		if (q < e && (*q == '.' || *q == '!'))
			q = skip_blank(q + 1, e);
		return q == e ? cmds[i].bit : 0;
	}
	return 0;
}

/* Is the quoted line @p..@e ("> ..." with any depth) a signature
 * separator, "-- "? */
static bool quoted_sig(const char *p, const char *e)
{
	while (p < e && (*p == '>' || *p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e - p == 2 && p[0] == '-' && p[1] == '-';
}

/*
 * One of the (up to six) words before @at, in the same sentence, negates
 * it: "not a false positive", "I don't think this is a false positive".
 */
static bool negated(const char *start, const char *at)
{
	const char *p = at, *we;
	int words = 0;

	while (p > start && words < 6) {
		size_t n;

		while (p > start && !is_word((unsigned char)p[-1])) {
			if (strchr(".!?;", p[-1]))
				return false;
			p--;
		}
		we = p;
		while (p > start && is_word((unsigned char)p[-1]))
			p--;
		n = (size_t)(we - p);
		if (!n)
			break;
		words++;
		if ((n == 3 && !strncasecmp(p, "not", 3)) ||
		    (n == 2 && !strncasecmp(p, "no", 2)) ||
		    (n == 5 && !strncasecmp(p, "never", 5)) ||
		    (n == 4 && !strncasecmp(p, "isnt", 4)) ||
		    (n >= 3 && !strncasecmp(we - 3, "n't", 3)))
			return true;
	}
	return false;
}

/*
 * Under a quoted finding: a line starting with a verdict word, or saying
 * "false positive" (not negated) anywhere.
 */
static int under_quote(struct state *s, int id, const char *p, const char *e,
		       int line)
{
	const char *q;
	int kind;

	if (phrase_at(p, e, &kind))
		return put(s, id, kind, line);
	for (q = p; q < e; q++) {
		if ((*q != 'f' && *q != 'F') ||
		    (q > p && is_word((unsigned char)q[-1])))
			continue;
		if (false_positive_at(q, e) && !negated(p, q))
			return put(s, id, RB_VK_FALSE_POSITIVE, line);
	}
	return 0;
}

/* The last "[FN]" on a quoted line, or 0. */
static int quoted_id(const char *p, const char *e)
{
	const char *q;
	int id = 0, v;

	for (; p < e; p++) {
		if (*p != '[')
			continue;
		q = p + 1;
		v = id_at(&q, e);
		if (v && q < e && *q == ']')
			id = v;
	}
	return id;
}

int rb_verdicts_parse(struct rb_verdicts *out, const char *body, size_t len)
{
	struct state *s = malloc(sizeof(*s));
	const char *p = body, *end = body + len, *e, *nl;
	int line = 0, cur = 0, ret = 0, id;
	unsigned int cmd;
	size_t i, k, n_ans = 0;

	if (!s)
		return rb_err(RB_ENOMEM, "out of memory");
	memset(s, 0, sizeof(*s));
	for (i = 0; i <= RB_VERDICT_MAX_ID; i++)
		s->kind[i] = -1;
	for (; p < end && !ret; p = nl < end ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		e = nl ? nl : end;
		if (!nl)
			nl = end;
		line++;
		if (e > p && e[-1] == '\r')
			e--;
		if (e - p == 3 && !memcmp(p, "-- ", 3))
			break;
		p = skip_blank(p, e);
		if (p == e)
			continue;
		if (*p == '>') {
			id = quoted_id(p, e);
			if (id)
				cur = id;
			else if (quoted_sig(p, e))
				cur = 0;
			continue;
		}
		/* Something said under a quoted finding answers it. */
		if (cur)
			s->answered[cur] = true;
		cmd = command_line(p, e);
		if (cmd) {
			if (cmd & (RB_VCMD_PAUSE | RB_VCMD_RESUME))
				s->cmds &= ~(RB_VCMD_PAUSE | RB_VCMD_RESUME);
			s->cmds |= cmd;
			continue;
		}
		ret = explicit_line(s, p, e, line);
		if (ret > 0) {
			ret = 0;
			continue;
		}
		if (!ret && cur)
			ret = under_quote(s, cur, p, e, line);
	}
	if (ret)
		goto out;
	memset(out, 0, sizeof(*out));
	for (i = 1; i <= RB_VERDICT_MAX_ID; i++)
		n_ans += s->answered[i];
	out->v = calloc(s->n ? s->n : 1, sizeof(*out->v));
	out->send = calloc(s->n_send ? s->n_send : 1, sizeof(*out->send));
	out->answered = calloc(n_ans ? n_ans : 1, sizeof(*out->answered));
	if (!out->v || !out->send || !out->answered) {
		rb_verdicts_release(out);
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; i <= RB_VERDICT_MAX_ID; i++) {
		if (s->send[i])
			out->send[out->n_send++] = (int)i;
		if (s->answered[i])
			out->answered[out->n_answered++] = (int)i;
	}
	out->cmds = s->cmds;
	for (i = 1, k = 0; i <= RB_VERDICT_MAX_ID; i++) {
		if (s->kind[i] < 0)
			continue;
		out->v[k].id = (int)i;
		out->v[k].kind = (enum rb_verdict_kind)s->kind[i];
		out->v[k].line = s->line[i];
		k++;
	}
	out->n = k;
out:
	free(s);
	return ret;
}

void rb_verdicts_release(struct rb_verdicts *v)
{
	if (!v)
		return;
	free(v->v);
	free(v->send);
	free(v->answered);
	memset(v, 0, sizeof(*v));
}

bool rb_verdicts_has_requests(const struct rb_verdicts *v)
{
	return v->n_send || v->cmds;
}

const char *rb_verdict_kind_name(enum rb_verdict_kind k)
{
	switch (k) {
	case RB_VK_FALSE_POSITIVE:
		return "false_positive";
	case RB_VK_VALID:
		return "valid";
	case RB_VK_FIXED:
		return "fixed";
	}
	return "unknown";
}
