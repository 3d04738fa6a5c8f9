// SPDX-License-Identifier: GPL-2.0-only
/*
 * subject.c - the patch-mail subject grammar, as kernel lists write it and
 * as b4 and patchwork read it:
 *
 *   [RFC PATCH net-next v2 1/3] title      [PATCHv3] title
 *   [RFC][PATCH 1/2] title                 PATCH 1/8 title
 *   Re: AW: 回复: [PATCH 5.10 1/3] title     [GIT PULL] title
 *
 * Reply prefixes (any number, mixed) and bracket groups are stripped from
 * the front; the title is what is left, with whitespace collapsed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/subject.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define NUM_MAX 100000

struct tagstate {
	bool patch, rfc, resend, pull, git;
	int version; /* 0: not stated */
	int index, total;
	bool counted;
	const char *subsys; /* borrowed from the normalised copy */
	size_t subsys_len;
	const char *cand; /* a tree tag from a group that is not a patch tag */
	size_t cand_len;
};

/* Reply prefixes of mailers in many languages; compared ignoring case. */
static const char *const reply_words[] = {
	"re",  "fwd",  "fw",   "aw",   "sv",   "antw", "wg",   "rif",
	"odp", "回复", "答复", "回覆", "转发", "轉寄", "轉發", NULL,
};

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/* Length of the reply prefix at @p ("Re:", "Re[2]:", "回复："), or 0. */
static size_t reply_prefix(const char *p)
{
	size_t i, n;

	for (i = 0; reply_words[i]; i++) {
		n = strlen(reply_words[i]);
		if (strncasecmp(p, reply_words[i], n))
			continue;
		/* "Re[2]:" and "Re(2):" count replies. */
		if (p[n] == '[' || p[n] == '(') {
			char close = p[n] == '[' ? ']' : ')';
			size_t k = n + 1;

			while (isdigit((unsigned char)p[k]))
				k++;
			if (k > n + 1 && p[k] == close)
				n = k + 1;
		}
		while (p[n] == ' ')
			n++;
		if (p[n] == ':')
			return n + 1;
		if (!strncmp(p + n, "\xef\xbc\x9a", 3)) /* U+FF1A */
			return n + 3;
	}
	return 0;
}

/* Parses a decimal number of @len digits, capped at NUM_MAX. */
static bool number(const char *s, size_t len, int *out)
{
	size_t i;
	long v = 0;

	if (!len || len > 6)
		return false;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > NUM_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* "v2", "V10": the version. */
static bool version_tok(const char *s, size_t len, int *out)
{
	if (len < 2 || (s[0] != 'v' && s[0] != 'V'))
		return false;
	return number(s + 1, len - 1, out);
}

/* "1/3", "02/17": the index and the total. */
static bool count_tok(const char *s, size_t len, int *idx, int *tot)
{
	const char *slash = memchr(s, '/', len);

	if (!slash)
		return false;
	return number(s, (size_t)(slash - s), idx) &&
	       number(slash + 1, len - (size_t)(slash - s) - 1, tot);
}

/*
 * Classifies one token; returns false for a token that is none of the
 * known tags (a tree tag such as "net-next" or "5.10", or a word).
 */
/* Words seen in real tags that say nothing about the tree (corpus). */
static const char *const noise_tags[] = {
	"RFT", "POC",	 "AUTOSEL", "NEEDS-REVIEW", "OPTIONAL",
	"for", "REPOST", "v0",	    NULL,
};

static bool tok_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !strncasecmp(s, word, len);
}

static bool known_tok(struct tagstate *t, const char *s, size_t len);

/* "RFC/PATCH", "OPTIONAL/RFC": every part a known tag. */
static bool slashed_tok(struct tagstate *t, const char *s, size_t len)
{
	const char *slash = memchr(s, '/', len);
	size_t k;

	if (!slash || slash == s || slash == s + len - 1 ||
	    isdigit((unsigned char)s[0]))
		return false;
	k = (size_t)(slash - s);
	for (size_t i = 0; i < len; i++)
		if (!isalpha((unsigned char)s[i]) && s[i] != '/')
			return false;
	return known_tok(t, s, k) && known_tok(t, slash + 1, len - k - 1);
}

static bool known_tok(struct tagstate *t, const char *s, size_t len)
{
	int v, a, b;
	size_t i;

	for (i = 0; noise_tags[i]; i++)
		if (tok_is(s, len, noise_tags[i]))
			return true;
	/* "-V6", "-v2" */
	if (len > 2 && s[0] == '-' && version_tok(s + 1, len - 1, &v)) {
		t->version = v;
		return true;
	}
	/* "v0.9.1": a release number of a tool, not a series version */
	if (len > 3 && (s[0] == 'v' || s[0] == 'V') &&
	    isdigit((unsigned char)s[1]) && memchr(s, '.', len) &&
	    strspn(s + 1, "0123456789.") >= len - 1)
		return true;
	if (tok_is(s, len, "RERESEND") || tok_is(s, len, "(resend)")) {
		t->resend = true;
		return true;
	}
	if (tok_is(s, len, "PATCHSET") || tok_is(s, len, "PATCHES")) {
		t->patch = true;
		return true;
	}
	if (slashed_tok(t, s, len))
		return true;
	if (len == 5 && !strncasecmp(s, "PATCH", 5)) {
		t->patch = true;
		return true;
	}
	if (len > 5 && !strncasecmp(s, "PATCH", 5)) {
		/* "PATCHv3", "PATCH-v3" */
		size_t k = s[5] == '-' ? 6 : 5;

		if (version_tok(s + k, len - k, &v)) {
			t->patch = true;
			t->version = v;
			return true;
		}
		return false;
	}
	if (len >= 3 && !strncasecmp(s, "RFC", 3)) {
		if (len == 3) {
			t->rfc = true;
			return true;
		}
		if (version_tok(s + 3, len - 3, &v)) {
			t->rfc = true;
			t->version = v;
			return true;
		}
		return false;
	}
	if (len == 6 && !strncasecmp(s, "RESEND", 6)) {
		t->resend = true;
		return true;
	}
	if (len == 3 && !strncasecmp(s, "GIT", 3)) {
		t->git = true;
		return true;
	}
	if (len == 4 && !strncasecmp(s, "PULL", 4)) {
		t->pull = true;
		return true;
	}
	if (version_tok(s, len, &v)) {
		t->version = v;
		return true;
	}
	if (count_tok(s, len, &a, &b)) {
		t->index = a;
		t->total = b;
		t->counted = true;
		return true;
	}
	/* "123456789/3": a count out of range is still not a tree tag */
	return len && isdigit((unsigned char)s[0]) &&
	       isdigit((unsigned char)s[len - 1]) && memchr(s, '/', len) &&
	       strspn(s, "0123456789/") >= len;
}

/*
 * A lone group such as "[net-next]" names a tree; "[EXT]" or
 * "[External]" (mail gateways) do not: lower case, or a '-', '.' or '/'.
 */
static bool tree_like(const char *s, size_t len)
{
	size_t i;
	bool lower = true;

	for (i = 0; i < len; i++) {
		if (s[i] == '-' || s[i] == '.' || s[i] == '/')
			return true;
		if (isupper((unsigned char)s[i]))
			lower = false;
	}
	return lower;
}

/* One bracket group's content: tokens split on spaces and commas. */
static void parse_group(struct tagstate *t, const char *s, size_t len)
{
	const char *unk = NULL;
	size_t unk_len = 0, i = 0, start;
	bool tagged = false;

	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == ','))
			i++;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != ',')
			i++;
		if (i == start)
			break;
		if (known_tok(t, s + start, i - start))
			tagged = true;
		else if (!unk) {
			unk = s + start;
			unk_len = i - start;
		}
	}
	if (!unk)
		return;
	if (tagged && !t->subsys) {
		t->subsys = unk;
		t->subsys_len = unk_len;
	} else if (!tagged && !t->cand && tree_like(unk, unk_len)) {
		t->cand = unk;
		t->cand_len = unk_len;
	}
}

/*
 * "PATCH 1/8 title" without brackets: takes PATCH and the tag tokens that
 * follow it; returns how many bytes were taken (0 when @p does not start
 * so).
 */
static size_t bare_tags(struct tagstate *t, const char *p)
{
	size_t i = 0, start, len, taken = 0;
	bool first = true;

	if (strncmp(p, "PATCH", 5) && strncmp(p, "RFC PATCH", 9))
		return 0;
	for (;;) {
		while (p[i] == ' ')
			i++;
		start = i;
		while (p[i] && p[i] != ' ')
			i++;
		len = i - start;
		if (!len)
			break;
		if (p[start + len - 1] == ':' || p[start + len - 1] == ']') {
			/* "PATCH 1/8: title", "PATCH v2 0/2] title" */
			if (len > 1 && known_tok(t, p + start, len - 1))
				taken = i;
			break;
		}
		if (!known_tok(t, p + start, len))
			break;
		if (first && !t->patch && !t->rfc)
			break;
		first = false;
		taken = i;
	}
	return taken;
}

/* @subject with every run of whitespace one space, trimmed. */
static int collapse_ws(struct rb_buf *norm, const char *subject)
{
	const char *p;
	int ret = 0;

	for (p = subject; *p && !ret; p++) {
		if (is_ws(*p)) {
			if (norm->len && norm->ptr[norm->len - 1] != ' ')
				ret = rb_buf_putc(norm, ' ');
		} else {
			ret = rb_buf_putc(norm, *p);
		}
	}
	if (ret)
		return ret;
	if (norm->len && norm->ptr[norm->len - 1] == ' ')
		rb_buf_truncate(norm, norm->len - 1);
	return 0;
}

/* Appends @n bytes of a tag group to @tags, space-separated. */
static int add_tags(struct rb_buf *tags, const char *p, size_t n)
{
	int ret = 0;

	if (tags->len)
		ret = rb_buf_putc(tags, ' ');
	return ret ? ret : rb_buf_add(tags, p, n);
}

/*
 * Strips reply prefixes and tag groups ("[...]" or bare "PATCH v2 1/3")
 * from the front of *@p, noting them in @s, @t and @tags; *@p is left at
 * the title.
 */
static int strip_front(const char **p, struct rb_subject *s, struct tagstate *t,
		       struct rb_buf *tags)
{
	const char *q;
	size_t n;
	int ret;

	for (;;) {
		while (**p == ' ')
			(*p)++;
		n = reply_prefix(*p);
		if (n) {
			s->is_reply = true;
			*p += n;
			continue;
		}
		if (**p == '[') {
			q = strchr(*p + 1, ']');
			if (!q)
				return 0;
			ret = add_tags(tags, *p + 1, (size_t)(q - *p - 1));
			if (ret)
				return ret;
			parse_group(t, *p + 1, (size_t)(q - *p - 1));
			*p = q + 1;
			continue;
		}
		n = bare_tags(t, *p);
		if (!n)
			return 0;
		ret = add_tags(tags, *p, n);
		if (ret)
			return ret;
		*p += n;
	}
}

/* What the tags say about the mail. */
static void subject_flags(struct rb_subject *s, struct tagstate *t)
{
	s->is_pull = t->pull;
	s->is_patch = t->patch || (t->rfc && !t->pull) ||
		      (!t->pull && (t->resend || t->counted) &&
		       (t->version || t->counted));
	s->is_rfc = t->rfc;
	s->is_resend = t->resend;
	s->version = t->version > 0 ? t->version : 1;
	if (t->counted && t->total > 0 && t->index <= t->total) {
		s->index = t->index;
		s->total = t->total;
	}
	if (!t->subsys && t->cand && s->is_patch) {
		t->subsys = t->cand;
		t->subsys_len = t->cand_len;
	}
}

int rb_subject_parse(struct rb_subject *out, const char *subject)
{
	struct rb_buf norm = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf tags = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct tagstate t = { 0 };
	struct rb_subject s = { 0 };
	const char *p;
	int ret;

	ret = collapse_ws(&norm, subject ? subject : "");
	if (ret)
		goto out;
	p = norm.ptr;
	ret = strip_front(&p, &s, &t, &tags);
	if (ret)
		goto out;
	subject_flags(&s, &t);
	if (t.subsys) {
		s.subsystem = strndup(t.subsys, t.subsys_len);
		if (!s.subsystem)
			goto nomem;
	}
	if (tags.len) {
		s.tags = rb_buf_detach(&tags, NULL);
		if (!s.tags)
			goto nomem;
	}
	s.title = strdup(p);
	if (!s.title)
		goto nomem;
	*out = s;
	goto out;
nomem:
	rb_subject_release(&s);
	ret = rb_err(RB_ENOMEM, "out of memory parsing a subject");
out:
	rb_buf_release(&norm);
	rb_buf_release(&tags);
	return ret;
}

void rb_subject_release(struct rb_subject *s)
{
	if (!s)
		return;
	free(s->title);
	free(s->tags);
	free(s->subsystem);
	memset(s, 0, sizeof(*s));
}

/*
 * A stable review or backport: "[PATCH 5.10 000/122]" (a release as the
 * tree tag, as Greg's stable review series are posted), "[PATCH 6.1.y]",
 * "[PATCH stable 5.15]" or "[PATCH -stable]".
 */
bool rb_subject_is_stable(const struct rb_subject *s)
{
	const char *t = s->subsystem, *p;
	size_t n;

	if (t && isdigit((unsigned char)t[0])) {
		n = strspn(t, "0123456789.");
		if (memchr(t, '.', n) && (!t[n] || !strcmp(t + n, "y") ||
					  !strcasecmp(t + n, "-stable")))
			return true;
	}
	for (p = s->tags; p && *p; p += n) {
		p += strspn(p, " ,");
		n = strcspn(p, " ,");
		if ((n == 6 && !strncasecmp(p, "stable", 6)) ||
		    (n == 7 && !strncasecmp(p, "-stable", 7)))
			return true;
	}
	return false;
}
