// SPDX-License-Identifier: GPL-2.0-only
/*
 * series_msg.c - what b4 reads of one message (series_priv.h): whether
 * its body holds a diff or a diffstat (b4 DIFF_RE, DIFFSTAT_RE), its
 * follow-up trailers, whether its subject is a reply, the numbers of a
 * patch subject (b4's LoreSubject), and whether a bot sent it. Each
 * function reads one message's text and nothing of the set.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/message.h"
#include "mail/series.h"
#include "mail/series_priv.h"
#include "mail/subject.h"
#include "util/banned.h"

static bool ci_prefix(const char *s, const char *end, const char *p)
{
	size_t n = strlen(p);

	return (size_t)(end - s) >= n && !strncasecmp(s, p, n);
}

static bool is_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* "\w/\S+" at @s; returns the end, or NULL. */
static const char *diff_path(const char *s, const char *end)
{
	if (s + 2 >= end || !is_word((unsigned char)s[0]) || s[1] != '/' ||
	    is_space((unsigned char)s[2]) || s[2] == '\n')
		return NULL;
	s += 2;
	while (s < end && !is_space((unsigned char)*s) && *s != '\n')
		s++;
	return s;
}

/* b4 DIFF_RE: ^(---.*\n\+\+\+|GIT binary patch|diff --git \w/\S+ \w/\S+),
 * for the line [@l, @end) ended by @e (NULL: the text's last line). */
static bool line_diff(const char *l, const char *end, const char *e)
{
	if (end - l >= 3 && !memcmp(l, "---", 3) && e &&
	    !strncmp(e + 1, "+++", 3))
		return true;
	if (ci_prefix(l, end, "GIT binary patch"))
		return true;
	if (ci_prefix(l, end, "diff --git ")) {
		const char *p = diff_path(l + 11, end);

		if (p && p < end && *p == ' ' && diff_path(p + 1, end))
			return true;
	}
	return false;
}

/* b4 DIFFSTAT_RE: ^\s*\d+ file.*\d+ (insertion|deletion), case-blind. */
static bool line_diffstat(const char *l, const char *end)
{
	const char *p = l;

	while (p < end && is_space((unsigned char)*p))
		p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (!ci_prefix(p, end, " file"))
		return false;
	for (p += 5; p < end; p++) {
		const char *q = p;

		if (!isdigit((unsigned char)*q) ||
		    (p > l && isdigit((unsigned char)p[-1])))
			continue;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (ci_prefix(q, end, " insertion") ||
		    ci_prefix(q, end, " deletion"))
			return true;
	}
	return false;
}

/*
 * Does @t hold a diff (*@diff) and a diffstat (*@stat)? One walk over
 * its lines for both, which stops once both are known; a fact already
 * true is not looked for.
 */
static void diff_facts(const char *t, bool *diff, bool *stat)
{
	const char *l = t;

	while (l && *l && !(*diff && *stat)) {
		const char *e = strchr(l, '\n');
		const char *end = e ? e : l + strlen(l);

		if (!*diff && line_diff(l, end, e))
			*diff = true;
		if (!*stat && line_diffstat(l, end))
			*stat = true;
		l = e ? e + 1 : NULL;
	}
}

/* b4's \S+@\S+\.\S+ inside [s, end). */
static bool has_person(const char *s, const char *end)
{
	const char *p;

	for (p = s + 1; p < end; p++) {
		const char *q;

		if (*p != '@' || is_space((unsigned char)p[-1]))
			continue;
		for (q = p + 2; q + 1 < end && !is_space((unsigned char)*q);
		     q++)
			if (*q == '.' && !is_space((unsigned char)q[1]) &&
			    !is_space((unsigned char)p[1]))
				return true;
	}
	return false;
}

static bool name_in(const char *name, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncasecmp(name, *list, n))
			return true;
	return false;
}

static bool line_is_bracketed_addr(const char *s, const char *end)
{
	const char *p;

	if (end - s < 3 || *s != '<' || end[-1] != '>')
		return false;
	for (p = s + 1; p < end - 1; p++)
		if (*p == '>')
			return false;
	return true;
}

/*
 * b4 LoreMessage.find_trailers(body, followup=True): is there a line
 * "Name: value" above the signature whose value names a person (an
 * address) or a known non-person trailer, and holds no URL? Sets _ACK for
 * review trailers. Returns RB_SERIES_BODY_TRAILERS and _ACK bits.
 */
static uint32_t scan_trailers(const char *body)
{
	static const char *const ignores[] = { "phone", "email", NULL };
	static const char *const headers[] = { "subject", "date", "from",
					       NULL };
	static const char *const nonperson[] = {
		"fixes",	"subject",   "date",	    "link", "buglink",
		"obsoleted-by", "change-id", "base-commit", NULL
	};
	static const char *const acks[] = { "acked-by",	   "reviewed-by",
					    "tested-by",   "nacked-by",
					    "reported-by", NULL };
	const char *sig, *l, *stop;
	bool others = false;
	uint32_t f = 0;

	if (!body)
		return 0;
	sig = strstr(body, "\n-- \n");
	stop = sig ? sig : body + strlen(body);
	for (l = body; l < stop;) {
		const char *e = memchr(l, '\n', (size_t)(stop - l));
		const char *end = e ? e : stop;
		const char *p = l, *name, *colon, *v, *vend = end;
		bool ascii = true, person;
		size_t n;

		while (end > l && end[-1] == '\r')
			end--;
		vend = end;
		while (p < end && is_space((unsigned char)*p))
			p++;
		name = p;
		if (p >= end || !is_word((unsigned char)*p))
			goto other;
		while (p < end && !is_space((unsigned char)*p))
			p++;
		colon = p - 1;
		if (colon - name < 2 || *colon != ':' || p >= end)
			goto other;
		v = p;
		while (v < end && is_space((unsigned char)*v))
			v++;
		if (v >= end)
			goto other;
		n = (size_t)(colon - name);
		if (name_in(name, n, ignores))
			goto next;
		if (others && name_in(name, n, headers))
			goto next;
		for (p = name; p < colon; p++)
			if ((unsigned char)*p >= 0x80)
				ascii = false;
		if (!ascii)
			goto next;
		person = has_person(v, vend);
		/* "Signed-off-by: Long Name\n<addr>" is joined by b4. */
		if (!person && e && e + 1 < stop && !memchr(v, '<', vend - v)) {
			const char *n2 = e + 1;
			const char *n2e = memchr(n2, '\n', (size_t)(stop - n2));

			if (!n2e)
				n2e = stop;
			if (line_is_bracketed_addr(n2, n2e))
				person = has_person(n2, n2e);
		}
		if (!person && !name_in(name, n, nonperson))
			goto next;
		if (memmem(v, (size_t)(vend - v), "http://", 7) ||
		    memmem(v, (size_t)(vend - v), "https://", 8))
			goto next;
		f |= RB_SERIES_BODY_TRAILERS;
		if (name_in(name, n, acks))
			f |= RB_SERIES_BODY_ACK;
		goto next;
other:
		others = true;
next:
		l = e ? e + 1 : stop;
	}
	return f;
}

/* b4 LoreSubject: ^(Re|Aw|Fwd): or ^\w{2,3}:\s*\[ */
bool rb_series__subject_is_reply(const char *s)
{
	const char *p = s;
	size_t n = 0;

	if (!s)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncasecmp(p, "re:", 3) || !strncasecmp(p, "aw:", 3) ||
	    !strncasecmp(p, "fwd:", 4))
		return true;
	/* \w{2,3} counts characters: a UTF-8 sequence is one. */
	while (*p && is_word((unsigned char)*p) && n <= 3) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		n++;
	}
	if (n < 2 || n > 3 || *p != ':')
		return false;
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	return *p == '[';
}

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static void b4_chunk(struct b4_subject *b, const char *c, size_t n)
{
	const char *slash;

	while (n && (*c == ',' || *c == ';'))
		c++, n--;
	while (n && (c[n - 1] == ',' || c[n - 1] == ';'))
		n--;
	if (!n)
		return;
	slash = memchr(c, '/', n);
	if (slash && slash - c >= 1 && slash - c <= 4 &&
	    all_digits(c, (size_t)(slash - c)) &&
	    n - (size_t)(slash - c) - 1 >= 1 &&
	    n - (size_t)(slash - c) - 1 <= 4 &&
	    all_digits(slash + 1, n - (size_t)(slash - c) - 1)) {
		b->counter = atoi(c);
		b->expected = atoi(slash + 1);
		b->cinf = false;
	} else if ((*c == 'v' || *c == 'V') && n >= 2 && n <= 5 &&
		   all_digits(c + 1, n - 1)) {
		b->revision = atoi(c + 1);
		b->rinf = false;
	} else if (n >= 3 && !strncasecmp(c, "rfc", 3)) {
		/* b4 notes it; nothing here depends on it */
	} else if (n >= 6 && !strncasecmp(c, "resend", 6)) {
		b->resend = true;
	} else if (n >= 5 && !strncasecmp(c, "patch", 5)) {
		b->patch = true;
	}
}

/*
 * b4 LoreSubject: leading [bracketed] groups, each split on white space;
 * "N/M" with up to 4 digits each, "vN", and PATCH, RESEND prefixes;
 * "[PATCHv3]" reads as "[PATCH v3]". Versions past 4 digits are ignored.
 */
void rb_series__b4_subject_parse(struct b4_subject *b, const char *s)
{
	memset(b, 0, sizeof(*b));
	b->revision = b->counter = b->expected = 1;
	b->rinf = b->cinf = true;
	if (!s)
		return;
	while (isspace((unsigned char)*s))
		s++;
	while (*s == '[') {
		const char *end = strchr(s + 1, ']'), *p = s + 1;

		if (!end)
			break;
		while (p < end) {
			const char *q;

			while (p < end && isspace((unsigned char)*p))
				p++;
			q = p;
			while (q < end && !isspace((unsigned char)*q))
				q++;
			/* "PATCHv3": the version is a chunk of its own. */
			if (q - p > 6) {
				const char *v = p;

				for (; v + 6 < q; v++)
					if (!strncasecmp(v, "patchv", 6) &&
					    isdigit((unsigned char)v[6]))
						break;
				if (v + 6 < q) {
					b4_chunk(b, p, (size_t)(v + 5 - p));
					p = v + 5;
				}
			}
			if (q > p)
				b4_chunk(b, p, (size_t)(q - p));
			p = q;
		}
		s = end + 1;
		while (isspace((unsigned char)*s))
			s++;
	}
}

bool rb_series_from_bot(const char *addr, const char *name)
{
	static const char *const bots[] = { "lkp@intel.com", "syzbot",
					    "patchwork-bot", "noreply",
					    "no-reply",	     "bot@kernel.org",
					    "kernelci",	     "ci_notify",
					    "robot",	     NULL };
	const char *a = addr ? addr : "";
	const char *const *b;

	for (b = bots; *b; b++)
		if (strcasestr(a, *b))
			return true;
	return name && strcasestr(name, "test robot");
}

bool rb_series__is_bot(const struct rb_series_msg *m)
{
	if (m->body & RB_SERIES_BODY_OURS)
		return true;
	return rb_series_from_bot(m->from_addr, m->from_name);
}

void rb_series_msg_of(struct rb_series_msg *out, const struct rb_message *m)
{
	uint32_t t = scan_trailers(m->body);
	bool diff = false, stat = false, yes = true;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->message_id = m->message_id;
	out->subject = m->subject_raw;
	out->from_addr = m->from.addr;
	out->from_name = m->from.name;
	out->date = m->date;
	out->in_reply_to = m->in_reply_to;
	out->references = (const char *const *)m->references;
	out->n_references = m->n_references;
	for (i = 0; i < m->n_trailers && !out->change_id; i++)
		if (m->trailers[i].key &&
		    !strcasecmp(m->trailers[i].key, "change-id"))
			out->change_id = m->trailers[i].value;
	diff_facts(m->body, &diff, &stat);
	if (!diff && m->patch)
		diff_facts(m->patch, &diff, &yes);
	if (!stat && m->diffstat)
		diff_facts(m->diffstat, &yes, &stat);
	if (diff)
		out->body |= RB_SERIES_BODY_DIFF;
	if (stat)
		out->body |= RB_SERIES_BODY_DIFFSTAT;
	out->body |= t;
	if (m->x_reviewbot)
		out->body |= RB_SERIES_BODY_OURS;
}
