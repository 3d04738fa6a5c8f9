// SPDX-License-Identifier: GPL-2.0-only
/*
 * message.c - one list mail, parsed: RFC 5322 (header fields, addresses
 * and dates through libetpan's mailimf), RFC 2045-2049 MIME (libetpan's
 * mailmime, for multipart mail only), RFC 2047 encoded words and
 * RFC 3676 format=flowed (detected, not undone).
 *
 * The header block is split here (one pass, no allocation per field);
 * libetpan parses the fields we use. A single-part message is decoded
 * directly; only multipart mail goes through mailmime_parse(), after the
 * boundary guard below (DESIGN.md fact 2: libetpan 1.9.4 writes out of
 * bounds on boundary="\""). This keeps the whole corpus above 20,000
 * messages a second (bench/parse.sh).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libetpan/libetpan.h>

#include "mail/message.h"
#include "mail/msg_internal.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/banned.h"

#define MAX_HEADERS 4096
#define MAX_REFS 4096
#define MAX_ID_LEN 998 /* RFC 5322 2.1.1 line limit */
#define MAX_MIME_DEPTH 32
#define MAX_MULTIPARTS 256
#define MAX_MAILIMF_FIELD 65536

struct hdr {
	const char *name;
	size_t nlen;
	const char *val; /* folded, as sent */
	size_t vlen;
};

struct ctx {
	struct rb_message *m;
	const char *buf; /* the message, LF line endings */
	size_t len;
	struct hdr *h;
	size_t nh;
	size_t body_off;
	struct rb_buf body;
	bool flowed;
	bool charset_bad;
	bool name_ctrl; /* a display name held control characters */
	bool no_recipients; /* rb_parse_opts */
};

int rb_msg_problem(struct rb_message *m, unsigned int bit, const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	va_list ap;
	int ret = 0;

	m->problems |= bit;
	if (m->problem_text) {
		ret = rb_buf_puts(&b, m->problem_text);
		if (!ret)
			ret = rb_buf_putc(&b, '\n');
	}
	if (!ret) {
		va_start(ap, fmt);
		ret = rb_buf_vprintf(&b, fmt, ap);
		va_end(ap);
	}
	if (ret) {
		rb_buf_release(&b);
		return ret;
	}
	free(m->problem_text);
	m->problem_text = rb_buf_detach(&b, NULL);
	return m->problem_text ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

/* Header block: "Name: value" lines, folded lines, up to a blank line. */
static int split_headers(struct ctx *c)
{
	size_t off = 0, cap = 0, line = 1;
	const char *s = c->buf, *nl, *colon;
	size_t n = c->len, ll;

	/* An mbox "From " line or git format-patch's "From <sha> ..." */
	if (n >= 5 && !memcmp(s, "From ", 5)) {
		nl = memchr(s, '\n', n);
		off = nl ? (size_t)(nl - s) + 1 : n;
		line++;
	}
	c->body_off = n;
	while (off < n) {
		nl = memchr(s + off, '\n', n - off);
		ll = nl ? (size_t)(nl - s) - off : n - off;
		if (ll && s[off + ll - 1] == '\r')
			ll--;
		if (!ll) {
			c->body_off = nl ? (size_t)(nl - s) + 1 : n;
			break;
		}
		if (s[off] == ' ' || s[off] == '\t') {
			if (c->nh) {
				struct hdr *h = &c->h[c->nh - 1];

				h->vlen = (size_t)(s + off + ll - h->val);
			}
			goto next;
		}
		colon = memchr(s + off, ':', ll);
		if (colon) {
			/* "Name :" is obsolete syntax (RFC 5322 4.5.8) */
			const char *e = colon, *p;

			while (e > s + off && e[-1] == ' ')
				e--;
			if (e == s + off)
				colon = NULL;
			for (p = s + off; colon && p < e; p++)
				if ((unsigned char)*p <= 32 ||
				    (unsigned char)*p >= 127)
					colon = NULL;
		}
		if (!colon) {
			if (!c->nh)
				return rb_err(RB_EPARSE,
					      "not a mail: line %zu is not a "
					      "header field",
					      line);
			/* A broken header block: the body starts here. */
			c->body_off = off;
			break;
		}
		if (c->nh == cap) {
			struct hdr *nh;

			if (cap >= MAX_HEADERS)
				return rb_err(RB_EPARSE,
					      "more than %d header fields",
					      MAX_HEADERS);
			cap = cap ? cap * 2 : 32;
			nh = realloc(c->h, cap * sizeof(*nh));
			if (!nh)
				return rb_err(RB_ENOMEM, "out of memory");
			c->h = nh;
		}
		{
			struct hdr *h = &c->h[c->nh++];
			const char *v = colon + 1, *e = s + off + ll;

			h->name = s + off;
			h->nlen = (size_t)(colon - (s + off));
			while (h->nlen && h->name[h->nlen - 1] == ' ')
				h->nlen--;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			h->val = v;
			h->vlen = (size_t)(e - v);
		}
next:
		off = nl ? (size_t)(nl - s) + 1 : n;
		line++;
	}
	if (!c->nh)
		return rb_err(RB_EPARSE, "not a mail: no header fields");
	return 0;
}

/*
 * RFC 5322 section 3.6, the table at its end: these fields occur at most
 * once. Two From: fields (or Message-ID:, In-Reply-To: ...) with different
 * values would let two readers of the same mail see two different
 * senders: DKIM verifies the last instance (RFC 6376 5.4.2), a
 * first-match reader uses the first. On the 30,571 mails of linux-api, 52
 * repeat one of them: 50 patches of one tool (three versions of one
 * series) that wrote In-Reply-To and References twice with the same
 * value, and 2 replies with two different Cc:. A repeat with the same
 * value (whitespace folded) leaves nothing to choose between, so it is
 * taken as one field; a repeat with another value makes the mail
 * malformed. (DKIM still counts the From: fields itself: two identical
 * From: lines never vouch for a verdict, mail/dkim.c.)
 */
static const char *const once_fields[] = {
	"From",	   "Sender",	 "Reply-To",	"To",	      "Cc",   "Bcc",
	"Subject", "Message-ID", "In-Reply-To", "References", "Date",
};

static bool fold_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* The same value, runs of folding white space counting as one space. */
static bool same_value(const struct hdr *a, const struct hdr *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a->vlen && fold_ws(a->val[i]) &&
		       (i + 1 == a->vlen || fold_ws(a->val[i + 1])))
			i++;
		while (j < b->vlen && fold_ws(b->val[j]) &&
		       (j + 1 == b->vlen || fold_ws(b->val[j + 1])))
			j++;
		if (i == a->vlen || j == b->vlen)
			return i == a->vlen && j == b->vlen;
		if (fold_ws(a->val[i]) ? !fold_ws(b->val[j]) :
					 a->val[i] != b->val[j])
			return false;
		i++;
		j++;
	}
}

static int check_once(const struct ctx *c)
{
	const struct hdr *first;
	size_t i, j, k, n;
	bool differ;

	for (i = 0; i < sizeof(once_fields) / sizeof(once_fields[0]); i++) {
		k = strlen(once_fields[i]);
		first = NULL;
		differ = false;
		for (j = 0, n = 0; j < c->nh; j++) {
			if (c->h[j].nlen != k ||
			    strncasecmp(c->h[j].name, once_fields[i], k))
				continue;
			n++;
			if (!first)
				first = &c->h[j];
			else if (!same_value(first, &c->h[j]))
				differ = true;
		}
		if (differ)
			return rb_err(RB_EPARSE,
				      "duplicate %s: header (%zu of them, "
				      "with different values; RFC 5322 3.6 "
				      "allows one)",
				      once_fields[i], n);
	}
	return 0;
}

static const struct hdr *find_hdr(const struct ctx *c, const char *name)
{
	size_t i, k = strlen(name);

	for (i = 0; i < c->nh; i++)
		if (c->h[i].nlen == k && !strncasecmp(c->h[i].name, name, k))
			return &c->h[i];
	return NULL;
}

/*
 * The value with line breaks removed (RFC 5322 2.2.3) and edges trimmed.
 * With @tab_fws, a tab that starts a continuation line becomes a space:
 * in an address list it is folding white space either way (a quoted
 * string's FWS is one space to mailimf too), and the fast address parser
 * takes spaces only. A tenth of linux-api's To and Cc fields are folded
 * with tabs, and went to mailimf for that alone.
 */
static int unfold_ws(struct rb_buf *b, const char *v, size_t n, bool tab_fws)
{
	size_t i, start;
	int ret;

	rb_buf_reset(b);
	ret = rb_buf_grow(b, n);
	if (ret)
		return ret;
	for (i = 0, start = 0; i < n; i++) {
		if (v[i] == '\n' || v[i] == '\r') {
			ret = rb_buf_add(b, v + start, i - start);
			if (ret)
				return ret;
			start = i + 1;
			if (tab_fws && v[i] == '\n' && i + 1 < n &&
			    v[i + 1] == '\t') {
				ret = rb_buf_add(b, " ", 1);
				if (ret)
					return ret;
				start = i + 2;
				i++;
			}
		}
	}
	ret = rb_buf_add(b, v + start, n - start);
	while (!ret && b->len && isspace((unsigned char)b->ptr[b->len - 1]))
		rb_buf_truncate(b, b->len - 1);
	return ret;
}

static int unfold(struct rb_buf *b, const char *v, size_t n)
{
	return unfold_ws(b, v, n, false);
}

/* Decoded (RFC 2047), trimmed copy of an unstructured field, or NULL. */
static int decoded_field(struct ctx *c, char **out, const char *name)
{
	const struct hdr *h = find_hdr(c, name);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int ret;

	*out = NULL;
	if (!h)
		return 0;
	ret = rb_msg_decode_words(&b, h->val, h->vlen, &c->charset_bad);
	while (!ret && b.len && isspace((unsigned char)b.ptr[b.len - 1]))
		rb_buf_truncate(&b, b.len - 1);
	if (!ret) {
		*out = rb_buf_detach(&b, NULL);
		if (!*out)
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
	rb_buf_release(&b);
	return ret;
}

/*
 * Message ids: every "<...>" in order (what public-inbox and b4 do; real
 * References fields hold comments and broken ids that a strict RFC 5322
 * parser rejects). Without brackets, the first word if it has an '@'.
 */
static int msgids(char ***out, size_t *n_out, const char *v, size_t n,
		  size_t max)
{
	char **ids = NULL, *id;
	size_t nids = 0, i = 0, j, k, len;
	int ret = 0;

	while (i < n && nids < max) {
		const char *lt = memchr(v + i, '<', n - i), *gt;

		if (!lt)
			break;
		gt = memchr(lt, '>', n - (size_t)(lt - v));
		if (!gt)
			break;
		i = (size_t)(gt - v) + 1;
		len = (size_t)(gt - lt - 1);
		if (!len || len > MAX_ID_LEN)
			continue;
		id = malloc(len + 1);
		if (!id)
			goto nomem;
		/* Ids folded across lines keep no whitespace. */
		for (j = 0, k = 0; j < len; j++)
			if (!isspace((unsigned char)lt[1 + j]))
				id[k++] = lt[1 + j];
		id[k] = '\0';
		if (!k || (nids && !strcmp(ids[nids - 1], id))) {
			free(id);
			continue;
		}
		{
			char **nv = realloc(ids, (nids + 1) * sizeof(*nv));

			if (!nv) {
				free(id);
				goto nomem;
			}
			ids = nv;
		}
		ids[nids++] = id;
	}
	if (!nids) {
		/* "Message-ID: foo@bar" without brackets */
		for (i = 0; i < n && isspace((unsigned char)v[i]); i++)
			;
		for (j = i; j < n && !isspace((unsigned char)v[j]); j++)
			;
		if (j > i && j - i <= MAX_ID_LEN && memchr(v + i, '@', j - i) &&
		    !memchr(v + i, '<', j - i)) {
			ids = malloc(sizeof(*ids));
			if (!ids)
				goto nomem;
			ids[0] = strndup(v + i, j - i);
			if (!ids[0])
				goto nomem;
			nids = 1;
		}
	}
	*out = ids;
	*n_out = nids;
	return 0;
nomem:
	ret = rb_err(RB_ENOMEM, "out of memory for message ids");
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	return ret;
}

static void free_ids(char **ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

static int first_msgid(char **out, const struct hdr *h)
{
	char **ids = NULL;
	size_t n = 0;
	int ret;

	*out = NULL;
	if (!h)
		return 0;
	ret = msgids(&ids, &n, h->val, h->vlen, 1);
	if (ret)
		return ret;
	if (n) {
		*out = ids[0];
		ids[0] = NULL;
	}
	free_ids(ids, n);
	return 0;
}

/*
 * Control characters in a decoded display name become spaces, in place:
 * C0 (CR and LF above all: an RFC 2047 word can encode them), DEL, C1
 * (U+0080-U+009F) and the Unicode line and paragraph separators. A name
 * goes into our replies' headers, review text and commit signatures; none
 * of them may take a line break from mail. True when one was replaced.
 */
static bool scrub_ctrl(struct rb_buf *b)
{
	unsigned char *p = (unsigned char *)b->ptr;
	size_t r = 0, w = 0, n = b->len;
	bool any = false;

	while (r < n) {
		size_t skip = 0;

		if (p[r] < 0x20 || p[r] == 0x7f)
			skip = 1;
		else if (p[r] == 0xc2 && r + 1 < n && p[r + 1] >= 0x80 &&
			 p[r + 1] <= 0x9f)
			skip = 2;
		else if (p[r] == 0xe2 && r + 2 < n && p[r + 1] == 0x80 &&
			 (p[r + 2] == 0xa8 || p[r + 2] == 0xa9))
			skip = 3;
		if (skip) {
			p[w++] = ' ';
			r += skip;
			any = true;
		} else {
			p[w++] = p[r++];
		}
	}
	rb_buf_truncate(b, w);
	return any;
}

/*
 * Is @name (@n bytes) already what set_addr() would make of it: printable
 * ASCII, no encoded word, no quote, single spaces and none at the edges?
 * Most names on the lists are, and need no copy through a buffer.
 */
static bool plain_name(const char *name, size_t n)
{
	size_t i;

	if (!n || name[0] == ' ' || name[n - 1] == ' ')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' ||
		    (ch == ' ' && name[i - 1] == ' ') ||
		    (ch == '=' && i + 1 < n && name[i + 1] == '?'))
			return false;
	}
	return true;
}

static int set_addr(struct ctx *c, struct rb_addr *a, const char *name,
		    size_t nlen, const char *addr, size_t alen)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int ret = 0;

	a->name = NULL;
	a->addr = addr ? strndup(addr, alen) : strdup("");
	if (!a->addr)
		return rb_err(RB_ENOMEM, "out of memory");
	if (name && nlen && plain_name(name, nlen)) {
		a->name = strndup(name, nlen);
		return a->name ? 0 : rb_err(RB_ENOMEM, "out of memory");
	}
	if (name && nlen) {
		size_t i, w;

		ret = rb_msg_decode_words(&b, name, nlen, &c->charset_bad);
		if (!ret && scrub_ctrl(&b))
			c->name_ctrl = true;
		/*
		 * One space for each run, no edge quotes: mailimf keeps the
		 * quotes of a quoted string that holds encoded words.
		 */
		for (i = 0, w = 0; !ret && i < b.len; i++) {
			if (b.ptr[i] == '"' && (i == 0 || i + 1 == b.len))
				continue;
			if (b.ptr[i] == ' ' && (w == 0 || b.ptr[w - 1] == ' '))
				continue;
			b.ptr[w++] = b.ptr[i];
		}
		if (!ret) {
			while (w && b.ptr[w - 1] == ' ')
				w--;
			rb_buf_truncate(&b, w);
		}
		if (!ret && b.len) {
			a->name = rb_buf_detach(&b, NULL);
			if (!a->name)
				ret = rb_err(RB_ENOMEM, "out of memory");
		}
	}
	rb_buf_release(&b);
	return ret;
}

/*
 * Appends (@name, @nlen bytes; @addr, @alen bytes) to @l. The array
 * doubles from 4 (its size is the power of two at or above l->n: every
 * list here starts empty): Cc lists of dozens were one realloc() each.
 */
static int push_addr_n(struct ctx *c, struct rb_addr_list *l, const char *name,
		       size_t nlen, const char *addr, size_t alen)
{
	struct rb_addr *v;

	if (l->n >= MAX_HEADERS)
		return 0;
	if (!l->n || (l->n >= 4 && !(l->n & (l->n - 1)))) {
		v = realloc(l->v, (l->n ? l->n * 2 : 4) * sizeof(*v));
		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		l->v = v;
	}
	if (set_addr(c, &l->v[l->n], name, nlen, addr, alen)) {
		free(l->v[l->n].addr);
		return -RB_ENOMEM;
	}
	l->n++;
	return 0;
}

static int push_addr(struct ctx *c, struct rb_addr_list *l, const char *name,
		     const char *addr)
{
	return push_addr_n(c, l, name, name ? strlen(name) : 0, addr,
			   addr ? strlen(addr) : 0);
}

/*
 * Fallback for fields mailimf refuses: "Name <addr>" pieces split on
 * commas, or a bare word with an '@'.
 */
static int loose_addrs(struct ctx *c, struct rb_addr_list *l, const char *v)
{
	struct rb_buf name = RB_BUF_INIT(RB_BUF_NOLIMIT);
	const char *p = v;
	int ret = 0;

	while (*p && !ret) {
		const char *e = strchr(p, ','), *lt, *gt;
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *piece = strndup(p, len), *addr = NULL;

		if (!piece)
			return rb_err(RB_ENOMEM, "out of memory");
		lt = strchr(piece, '<');
		gt = lt ? strchr(lt, '>') : NULL;
		rb_buf_reset(&name);
		if (lt && gt) {
			const char *ns = piece, *ne = lt;

			while (ns < ne &&
			       (isspace((unsigned char)*ns) || *ns == '"'))
				ns++;
			while (ne > ns && (isspace((unsigned char)ne[-1]) ||
					   ne[-1] == '"'))
				ne--;
			ret = rb_buf_add(&name, ns, (size_t)(ne - ns));
			addr = strndup(lt + 1, (size_t)(gt - lt - 1));
		} else if (strchr(piece, '@')) {
			const char *s = piece, *t;

			while (isspace((unsigned char)*s))
				s++;
			for (t = s; *t && !isspace((unsigned char)*t); t++)
				;
			addr = strndup(s, (size_t)(t - s));
		}
		if (!ret && addr && *addr)
			ret = push_addr(c, l, name.len ? name.ptr : NULL, addr);
		free(addr);
		free(piece);
		p += len;
		if (*p == ',')
			p++;
	}
	rb_buf_release(&name);
	return ret;
}

/*
 * The common case of an address list, without mailimf: "Name <a@b>",
 * "\"Last, First\" <a@b>" and bare "a@b", split on commas. Anything else
 * (comments, quoted pairs, groups, routes, stray text) returns false and
 * goes to mailimf. Linux lists carry Cc lists of dozens of addresses, and
 * mailimf's parser, one call per character, took 60% of the parse time
 * of the corpus (bench/parse.sh); test_message checks on the corpus that
 * both give the same result.
 */
static bool fast_addr_ok(const char *v, size_t n)
{
	size_t i;
	bool inq = false, inangle = false;

	for (i = 0; i < n; i++) {
		char ch = v[i];

		if (ch == '"') {
			if (inangle)
				return false;
			inq = !inq;
		} else if (inq) {
			if (ch == '\\')
				return false;
		} else if (ch == '<') {
			if (inangle)
				return false;
			inangle = true;
		} else if (ch == '>') {
			if (!inangle)
				return false;
			inangle = false;
		} else if (ch == '(' || ch == ')' || ch == '\\' || ch == ';' ||
			   ch == ':' || ch == '[' || ch == ']' ||
			   (unsigned char)ch < 32 || (unsigned char)ch >= 127) {
			return false;
		} else if (inangle && (ch == ' ' || ch == ',')) {
			return false;
		}
	}
	return !inq && !inangle;
}

static int fast_addrs(struct ctx *c, struct rb_addr_list *l, const char *v,
		      size_t n, bool *done)
{
	size_t i = 0, s, e, k;
	int ret = 0;

	*done = false;
	if (!fast_addr_ok(v, n))
		return 0;
	/* First pass: check every piece; second pass: add them. */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i <= n && !ret;) {
			bool inq = false;
			const char *lt = NULL, *gt = NULL;

			s = i;
			for (e = s; e < n && (inq || v[e] != ','); e++) {
				if (v[e] == '"')
					inq = !inq;
				else if (!inq && v[e] == '<')
					lt = v + e;
				else if (!inq && v[e] == '>')
					gt = v + e;
			}
			i = e + 1;
			while (s < e && v[s] == ' ')
				s++;
			k = e;
			while (k > s && v[k - 1] == ' ')
				k--;
			if (s == k)
				continue;
			if (lt) {
				const char *ns = v + s, *ne = lt;

				/* nothing may follow the '>' */
				if (!gt || gt != v + k - 1 || gt < lt)
					goto slow;
				while (ne > ns && ne[-1] == ' ')
					ne--;
				if (ne - ns >= 2 && ns[0] == '"' &&
				    ne[-1] == '"') {
					ns++;
					ne--;
					if (memchr(ns, '"', (size_t)(ne - ns)))
						goto slow;
				} else if (memchr(ns, '"', (size_t)(ne - ns)) ||
					   memchr(ns, '@', (size_t)(ne - ns))) {
					goto slow;
				}
				if (gt - lt < 2)
					goto slow;
				if (pass)
					ret = push_addr_n(
						c, l, ns, (size_t)(ne - ns),
						lt + 1, (size_t)(gt - lt - 1));
			} else {
				if (memchr(v + s, ' ', k - s) ||
				    memchr(v + s, '"', k - s) ||
				    !memchr(v + s, '@', k - s))
					goto slow;
				if (pass)
					ret = push_addr_n(c, l, NULL, 0, v + s,
							  k - s);
			}
		}
	}
	*done = true;
slow:
	return ret;
}

/* Adds the addresses of @v (an address-list, RFC 5322 3.4) to @l. */
static int parse_addrs(struct ctx *c, struct rb_addr_list *l, const char *v,
		       size_t n, bool slow_only)
{
	struct mailimf_address_list *al = NULL;
	size_t idx = 0;
	clistiter *it, *jt;
	bool done;
	int ret = 0, r;

	if (!slow_only) {
		ret = fast_addrs(c, l, v, n, &done);
		if (ret || done)
			return ret;
		/* mailimf took 9 s for 27 MB of comments: not for hostile
		 * sizes */
		if (n > MAX_MAILIMF_FIELD)
			return loose_addrs(c, l, v);
	}
	r = mailimf_address_list_parse(v, n, &idx, &al);
	if (r != MAILIMF_NO_ERROR)
		return loose_addrs(c, l, v);
	for (it = clist_begin(al->ad_list); it && !ret; it = clist_next(it)) {
		struct mailimf_address *a = clist_content(it);

		if (a->ad_type == MAILIMF_ADDRESS_MAILBOX) {
			ret = push_addr(c, l,
					a->ad_data.ad_mailbox->mb_display_name,
					a->ad_data.ad_mailbox->mb_addr_spec);
			continue;
		}
		if (!a->ad_data.ad_group->grp_mb_list)
			continue;
		for (jt = clist_begin(
			     a->ad_data.ad_group->grp_mb_list->mb_list);
		     jt && !ret; jt = clist_next(jt)) {
			struct mailimf_mailbox *mb = clist_content(jt);

			ret = push_addr(c, l, mb->mb_display_name,
					mb->mb_addr_spec);
		}
	}
	mailimf_address_list_free(al);
	return ret;
}

int rb_msg_parse_addrs(struct rb_addr_list *out, const char *v, size_t n,
		       bool slow_only)
{
	struct ctx c = { 0 };
	struct rb_message m = { 0 };

	c.m = &m;
	return parse_addrs(&c, out, v, n, slow_only);
}

static int parse_addr_fields(struct ctx *c, struct rb_addr_list *l,
			     const char *name)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	size_t i, k = strlen(name);
	int ret = 0;

	for (i = 0; i < c->nh && !ret; i++) {
		if (c->h[i].nlen != k || strncasecmp(c->h[i].name, name, k))
			continue;
		ret = unfold_ws(&b, c->h[i].val, c->h[i].vlen, true);
		if (!ret && b.len)
			ret = parse_addrs(c, l, b.ptr, b.len, false);
	}
	rb_buf_release(&b);
	return ret;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era;
	unsigned int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned int)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int64_t parse_date(const char *v, size_t n)
{
	struct mailimf_date_time *dt = NULL;
	size_t idx = 0;
	int64_t t = 0, y;
	int zone, zs;

	if (mailimf_date_time_parse(v, n, &idx, &dt) != MAILIMF_NO_ERROR)
		return 0;
	y = dt->dt_year;
	if (y < 50)
		y += 2000; /* RFC 5322 4.3 obsolete two-digit years */
	else if (y < 1000)
		y += 1900;
	if (y > 9999 || dt->dt_month < 1 || dt->dt_month > 12 ||
	    dt->dt_day < 1 || dt->dt_day > 31 || dt->dt_hour < 0 ||
	    dt->dt_hour > 24 || dt->dt_min < 0 || dt->dt_min > 59 ||
	    dt->dt_sec < 0 || dt->dt_sec > 60 || dt->dt_zone > 9959 ||
	    dt->dt_zone < -9959)
		goto out;
	zone = dt->dt_zone < 0 ? -dt->dt_zone : dt->dt_zone;
	zs = (zone / 100) * 3600 + (zone % 100) * 60;
	if (dt->dt_zone < 0)
		zs = -zs;
	t = days_from_civil(y, (unsigned int)dt->dt_month,
			    (unsigned int)dt->dt_day) *
		    86400 +
	    dt->dt_hour * 3600 + dt->dt_min * 60 + dt->dt_sec - zs;
out:
	mailimf_date_time_free(dt);
	return t;
}

static bool ieq(const char *a, const char *b)
{
	return a && b && !strcasecmp(a, b);
}

/* A parameter value without its quotes ("flowed" or flowed). */
static bool param_is(struct mailmime_content *ct, const char *name,
		     const char *want)
{
	char *v = mailmime_content_param_get(ct, (char *)name);
	size_t n, k = strlen(want);

	if (!v)
		return false;
	n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		return n - 2 == k && !strncasecmp(v + 1, want, k);
	return ieq(v, want);
}

static const char *ct_type_name(struct mailmime_content *ct)
{
	struct mailmime_type *t = ct ? ct->ct_type : NULL;

	if (!t)
		return "text";
	if (t->tp_type == MAILMIME_TYPE_DISCRETE_TYPE) {
		switch (t->tp_data.tp_discrete_type->dt_type) {
		case MAILMIME_DISCRETE_TYPE_TEXT:
			return "text";
		case MAILMIME_DISCRETE_TYPE_IMAGE:
			return "image";
		case MAILMIME_DISCRETE_TYPE_AUDIO:
			return "audio";
		case MAILMIME_DISCRETE_TYPE_VIDEO:
			return "video";
		case MAILMIME_DISCRETE_TYPE_APPLICATION:
			return "application";
		default:
			return t->tp_data.tp_discrete_type->dt_extension ?
				       t->tp_data.tp_discrete_type
					       ->dt_extension :
				       "x";
		}
	}
	if (t->tp_data.tp_composite_type->ct_type ==
	    MAILMIME_COMPOSITE_TYPE_MESSAGE)
		return "message";
	if (t->tp_data.tp_composite_type->ct_type ==
	    MAILMIME_COMPOSITE_TYPE_MULTIPART)
		return "multipart";
	return t->tp_data.tp_composite_type->ct_token ?
		       t->tp_data.tp_composite_type->ct_token :
		       "x";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* Is this part text we read: the message text, or a patch attachment? */
static bool wanted_part(struct mailmime_content *ct, const char *filename)
{
	const char *type = ct_type_name(ct);
	const char *sub = ct && ct->ct_subtype ? ct->ct_subtype : "plain";

	if (!strcasecmp(type, "text"))
		return !strcasecmp(sub, "plain") ||
		       !strcasecmp(sub, "x-patch") ||
		       !strcasecmp(sub, "x-diff") || !strcasecmp(sub, "diff") ||
		       !strcasecmp(sub, "patch") || !strcasecmp(sub, "x-log");
	if (!strcasecmp(type, "application") &&
	    (!strcasecmp(sub, "x-patch") || !strcasecmp(sub, "x-diff") ||
	     !strcasecmp(sub, "patch")))
		return true;
	/* application/octet-stream "0001-foo.patch" */
	return filename &&
	       (ends_with(filename, ".patch") || ends_with(filename, ".diff"));
}

/* Appends decoded text (one part) to the body, parts ending in '\n'. */
static int add_text(struct ctx *c, const char *charset, const char *p, size_t n)
{
	int ret;

	if (c->body.len && c->body.ptr[c->body.len - 1] != '\n') {
		ret = rb_buf_putc(&c->body, '\n');
		if (ret)
			return ret;
	}
	return rb_msg_to_utf8(&c->body, charset, p, n, &c->charset_bad);
}

static int hexdig(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/*
 * RFC 2045 6.7 quoted-printable, decoded as git mailinfo decodes it:
 * "=XX" and soft line breaks only. (libetpan's decoder turns every line
 * end into CRLF, which would hide real CRLF damage.)
 */
static int qp_decode(struct rb_buf *out, const char *s, size_t n)
{
	size_t i, start = 0;
	int ret;

	ret = rb_buf_grow(out, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '=')
			continue;
		ret = rb_buf_add(out, s + start, i - start);
		if (ret)
			return ret;
		if (i + 1 < n && s[i + 1] == '\n') {
			i += 1;
		} else if (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') {
			i += 2;
		} else if (i + 2 < n && hexdig(s[i + 1]) >= 0 &&
			   hexdig(s[i + 2]) >= 0) {
			hi = hexdig(s[i + 1]);
			lo = hexdig(s[i + 2]);
			ret = rb_buf_putc(out, (char)(hi * 16 + lo));
			if (ret)
				return ret;
			i += 2;
		} else if (i + 1 == n) {
			/* a soft break at the very end */
		} else {
			ret = rb_buf_putc(out, '=');
			if (ret)
				return ret;
		}
		start = i + 1;
	}
	return rb_buf_add(out, s + start, n - start);
}

/* Decodes a transfer encoding, then the charset. */
static int add_encoded(struct ctx *c, int encoding, const char *charset,
		       const char *p, size_t n)
{
	struct rb_buf q = RB_BUF_INIT(RB_BUF_NOLIMIT);
	char *dec = NULL;
	size_t idx = 0, dlen = 0;
	int ret;

	if (encoding == MAILMIME_MECHANISM_QUOTED_PRINTABLE) {
		ret = qp_decode(&q, p, n);
		if (!ret)
			ret = add_text(c, charset, q.ptr, q.len);
		rb_buf_release(&q);
		return ret;
	}
	if (encoding != MAILMIME_MECHANISM_BASE64)
		return add_text(c, charset, p, n);
	if (mailmime_part_parse(p, n, &idx, encoding, &dec, &dlen) !=
	    MAILIMF_NO_ERROR)
		return add_text(c, charset, p, n);
	ret = add_text(c, charset, dec, dlen);
	mailmime_decoded_part_free(dec);
	return ret;
}

static const char *part_filename(struct mailmime *mm)
{
	clistiter *it;

	if (!mm->mm_mime_fields)
		return NULL;
	for (it = clist_begin(mm->mm_mime_fields->fld_list); it;
	     it = clist_next(it)) {
		struct mailmime_field *f = clist_content(it);
		clistiter *jt;

		if (f->fld_type != MAILMIME_FIELD_DISPOSITION ||
		    !f->fld_data.fld_disposition)
			continue;
		for (jt = clist_begin(f->fld_data.fld_disposition->dsp_parms);
		     jt; jt = clist_next(jt)) {
			struct mailmime_disposition_parm *dp =
				clist_content(jt);

			if (dp->pa_type == MAILMIME_DISPOSITION_PARM_FILENAME)
				return dp->pa_data.pa_filename;
		}
	}
	if (mm->mm_content_type)
		return mailmime_content_param_get(mm->mm_content_type, "name");
	return NULL;
}

static int walk_single(struct ctx *c, struct mailmime *mm)
{
	struct mailmime_data *d = mm->mm_data.mm_single;
	struct mailmime_content *ct = mm->mm_content_type;
	char *charset = NULL;
	int enc;

	if (!d || d->dt_type != MAILMIME_DATA_TEXT)
		return 0;
	if (!wanted_part(ct, part_filename(mm)))
		return 0;
	if (ct) {
		charset = mailmime_content_param_get(ct, "charset");
		if (param_is(ct, "format", "flowed"))
			c->flowed = true;
	}
	if (charset) {
		size_t n = strlen(charset);

		if (n >= 2 && charset[0] == '"' && charset[n - 1] == '"') {
			charset = strndup(charset + 1, n - 2);
			if (!charset)
				return rb_err(RB_ENOMEM, "out of memory");
			enc = d->dt_encoded ? d->dt_encoding : -1;
			enc = add_encoded(c, enc, charset,
					  d->dt_data.dt_text.dt_data,
					  d->dt_data.dt_text.dt_length);
			free(charset);
			return enc;
		}
	}
	enc = d->dt_encoded ? d->dt_encoding : -1;
	return add_encoded(c, enc, charset, d->dt_data.dt_text.dt_data,
			   d->dt_data.dt_text.dt_length);
}

static int walk_mime(struct ctx *c, struct mailmime *mm, int depth)
{
	clistiter *it;
	const char *sub;
	int ret = 0;

	if (!mm || depth > MAX_MIME_DEPTH)
		return 0;
	switch (mm->mm_type) {
	case MAILMIME_SINGLE:
		return walk_single(c, mm);
	case MAILMIME_MESSAGE:
		/* The top level; a forwarded message/rfc822 is not read. */
		if (depth)
			return 0;
		return walk_mime(c, mm->mm_data.mm_message.mm_msg_mime,
				 depth + 1);
	case MAILMIME_MULTIPLE:
		break;
	default:
		return 0;
	}
	sub = mm->mm_content_type && mm->mm_content_type->ct_subtype ?
		      mm->mm_content_type->ct_subtype :
		      "mixed";
	for (it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it && !ret;
	     it = clist_next(it)) {
		struct mailmime *child = clist_content(it);

		if (!strcasecmp(sub, "alternative")) {
			/*
			 * RFC 2046 5.1.4: the first text/plain, else the
			 * first nested multipart; HTML is never read.
			 */
			if (child->mm_type == MAILMIME_SINGLE &&
			    wanted_part(child->mm_content_type, NULL))
				return walk_single(c, child);
			continue;
		}
		ret = walk_mime(c, child, depth + 1);
		/* multipart/signed: the content, not the signature */
		if (!strcasecmp(sub, "signed"))
			break;
	}
	if (!strcasecmp(sub, "alternative") && !ret) {
		for (it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it;
		     it = clist_next(it)) {
			struct mailmime *child = clist_content(it);

			if (child->mm_type == MAILMIME_MULTIPLE)
				return walk_mime(c, child, depth + 1);
		}
	}
	return ret;
}

/* The scan of check_boundaries(): the message and what was counted. */
struct bscan {
	const char *s;
	size_t n;
	char *why; /* the reason of a refusal */
	size_t whylen;
	size_t multiparts, boundaries;
};

static const char *refuse(struct bscan *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes why the structure is refused into b->why, and returns it. */
static const char *refuse(struct bscan *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, b->whylen, fmt, ap);
	va_end(ap);
	return b->why;
}

/*
 * The boundary value s[vs, ve): 1..70 printable characters, no quote or
 * backslash, and "\n--VALUE" somewhere in the message.
 */
static const char *check_value(struct bscan *b, size_t vs, size_t ve)
{
	const char *s = b->s;
	char delim[80];
	size_t k;

	if (ve == vs || ve - vs > 70)
		return refuse(b, "boundary of %zu characters (1 to 70 allowed)",
			      ve - vs);
	for (k = vs; k < ve; k++) {
		unsigned char ch = (unsigned char)s[k];

		if (ch < 32 || ch > 126 || ch == '"' || ch == '\\')
			return refuse(b, "boundary with character 0x%02x", ch);
	}
	/* The delimiter must occur: "\n--boundary". */
	delim[0] = '\n';
	delim[1] = '-';
	delim[2] = '-';
	memcpy(delim + 3, s + vs, ve - vs);
	if (!memmem(s, b->n, delim, ve - vs + 3))
		return refuse(b, "boundary \"%.*s\" never occurs",
			      (int)(ve - vs), s + vs);
	return NULL;
}

/*
 * The parameter whose name "boundary" starts at *@i of a field that ends
 * at @end. Not followed by '=', it is no parameter and *@i stays; else its
 * value is checked and *@i moves to the value's end.
 */
static const char *check_param(struct bscan *b, size_t *i, size_t end)
{
	const char *s = b->s;
	size_t vs, ve, k = *i + 8;
	bool quoted;

	while (k < end && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k >= end || s[k] != '=')
		return NULL;
	k++;
	while (k < end && isspace((unsigned char)s[k]))
		k++;
	quoted = k < end && s[k] == '"';
	vs = quoted ? k + 1 : k;
	ve = vs;
	if (quoted) {
		while (ve < end && s[ve] != '"' && s[ve] != '\n')
			ve++;
		if (ve >= end || s[ve] != '"')
			return refuse(b, "unterminated quoted boundary");
	} else {
		while (ve < end && s[ve] != ';' &&
		       !isspace((unsigned char)s[ve]))
			ve++;
	}
	*i = ve;
	return check_value(b, vs, ve);
}

/* One Content-Type field, s[off, end) with its folded lines. */
static const char *check_field(struct bscan *b, size_t off, size_t end)
{
	const char *s = b->s, *why;
	size_t i;

	for (i = off + 13; i + 9 <= end; i++) {
		if (!strncasecmp(s + i, "multipart", 9)) {
			b->multiparts++;
			break;
		}
	}
	if (b->multiparts > MAX_MULTIPARTS)
		return refuse(b, "more than %d multipart parts",
			      MAX_MULTIPARTS);
	for (i = off + 13; i + 8 < end; i++) {
		if (strncasecmp(s + i, "boundary", 8))
			continue;
		/* each one costs a search of the whole message */
		if (++b->boundaries > MAX_MULTIPARTS)
			return refuse(b, "more than %d boundary parameters",
				      MAX_MULTIPARTS);
		why = check_param(b, &i, end);
		if (why)
			return why;
	}
	return NULL;
}

/*
 * DESIGN.md fact 2: libetpan 1.9.4's mailmime_extract_boundary() copies
 * len - 2 bytes for a value that starts with a quote, so boundary="\""
 * writes out of bounds (fixed upstream in 3f14913). Before
 * mailmime_parse(), every boundary parameter of every Content-Type field
 * in the message (the message's and any part's) must be 1..70 printable
 * characters (RFC 2046 5.1.1), properly quoted, and must occur as a
 * delimiter line; the number of multipart levels is capped, since
 * libetpan recurses once per level. Returns NULL when all is well, else
 * why the structure was refused.
 */
static const char *check_boundaries(const char *s, size_t n, char *why,
				    size_t whylen)
{
	struct bscan b = { .s = s, .n = n, .why = why, .whylen = whylen };
	const char *bad;
	size_t off = 0;

	while (off < n) {
		const char *nl = memchr(s + off, '\n', n - off);
		size_t ll = nl ? (size_t)(nl - s) - off : n - off, end;

		end = off + ll;
		if (ll < 13 || strncasecmp(s + off, "content-type:", 13)) {
			off = end + 1;
			continue;
		}
		/* the field with its folded lines */
		while (end + 1 < n &&
		       (s[end + 1] == ' ' || s[end + 1] == '\t')) {
			nl = memchr(s + end + 1, '\n', n - end - 1);
			end = nl ? (size_t)(nl - s) : n;
		}
		bad = check_field(&b, off, end);
		if (bad)
			return bad;
		off = end + 1;
	}
	return NULL;
}

static int parse_body(struct ctx *c)
{
	const struct hdr *cth = find_hdr(c, "Content-Type");
	const struct hdr *cte = find_hdr(c, "Content-Transfer-Encoding");
	struct mailmime_content *ct = NULL;
	struct rb_buf v = RB_BUF_INIT(RB_BUF_NOLIMIT);
	const char *body = c->buf + c->body_off;
	size_t blen = c->len - c->body_off, idx = 0;
	char *charset = NULL, why[160];
	int ret = 0, enc = -1;

	if (cth) {
		ret = unfold(&v, cth->val, cth->vlen);
		if (ret)
			goto out;
		if (mailmime_content_parse(v.ptr, v.len, &idx, &ct) !=
		    MAILIMF_NO_ERROR)
			ct = NULL;
	}
	if (ct && !strcmp(ct_type_name(ct), "multipart")) {
		struct mailmime *mm = NULL;
		const char *bad =
			check_boundaries(c->buf, c->len, why, sizeof(why));

		if (bad) {
			ret = rb_msg_problem(c->m, RB_MSG_BAD_BOUNDARY,
					     "MIME structure refused (%s); "
					     "the body is read as plain text",
					     bad);
			if (!ret)
				ret = add_text(c, NULL, body, blen);
			goto out;
		}
		idx = 0;
		if (mailmime_parse(c->buf, c->len, &idx, &mm) !=
		    MAILIMF_NO_ERROR) {
			ret = rb_msg_problem(c->m, RB_MSG_BAD_BOUNDARY,
					     "MIME structure could not be "
					     "parsed; the body is read as "
					     "plain text");
			if (!ret)
				ret = add_text(c, NULL, body, blen);
			goto out;
		}
		ret = walk_mime(c, mm, 0);
		mailmime_free(mm);
		goto out;
	}
	if (ct && !wanted_part(ct, NULL))
		goto out; /* text/html only, or an attachment alone */
	if (ct) {
		charset = mailmime_content_param_get(ct, "charset");
		if (param_is(ct, "format", "flowed"))
			c->flowed = true;
	}
	if (cte) {
		ret = unfold(&v, cte->val, cte->vlen);
		if (ret)
			goto out;
		if (ieq(v.ptr, "base64"))
			enc = MAILMIME_MECHANISM_BASE64;
		else if (ieq(v.ptr, "quoted-printable"))
			enc = MAILMIME_MECHANISM_QUOTED_PRINTABLE;
	}
	if (charset && charset[0] == '"') {
		size_t n = strlen(charset);

		charset = n >= 2 ? strndup(charset + 1, n - 2) : NULL;
		ret = add_encoded(c, enc, charset, body, blen);
		free(charset);
	} else {
		ret = add_encoded(c, enc, charset, body, blen);
	}
out:
	if (ct)
		mailmime_content_free(ct);
	rb_buf_release(&v);
	return ret;
}

/* CRLF inside the decoded text (base64 of a CRLF file, or mixed mail). */
static int strip_cr(struct ctx *c)
{
	char *p = c->body.ptr, *w;
	size_t i, n = c->body.len, crs = 0;

	if (!memchr(p, '\r', n))
		return 0;
	for (i = 0, w = p; i < n; i++) {
		if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') {
			crs++;
			continue;
		}
		*w++ = p[i];
	}
	rb_buf_truncate(&c->body, (size_t)(w - p));
	if (!crs)
		return 0;
	return rb_msg_problem(c->m, RB_MSG_CRLF,
			      "%zu body lines end in CRLF; read as LF", crs);
}

/* "rb-<24 hex of sha256(from, date, subject, body)>@reviewbot.invalid" */
static int synth_msgid(struct rb_message *m)
{
	struct rb_sha256 *h = rb_sha256_new();
	char hex[RB_SHA256_HEX];
	char id[64];

	if (!h)
		return rb_err(RB_ENOMEM, "out of memory");
	rb_sha256_update(h, m->from.addr ? m->from.addr : "",
			 m->from.addr ? strlen(m->from.addr) : 0);
	rb_sha256_update(h, "\n", 1);
	if (m->date_raw)
		rb_sha256_update(h, m->date_raw, strlen(m->date_raw));
	rb_sha256_update(h, "\n", 1);
	if (m->subject_raw)
		rb_sha256_update(h, m->subject_raw, strlen(m->subject_raw));
	rb_sha256_update(h, "\n", 1);
	if (m->body)
		rb_sha256_update(h, m->body, strlen(m->body));
	rb_sha256_final_hex(h, hex);
	snprintf(id, sizeof(id), "rb-%.24s@reviewbot.invalid", hex);
	m->message_id = strdup(id);
	if (!m->message_id)
		return rb_err(RB_ENOMEM, "out of memory");
	return rb_msg_problem(m, RB_MSG_NO_MSGID,
			      "no Message-ID; using the synthetic <%s>", id);
}

/*
 * A Message-ID the bot can answer: what mail/compose.c writes into
 * In-Reply-To and References (RFC 5322 3.6.4 msg-id: printable ASCII, no
 * space, no '<' or '>' inside, at most 250 characters). A part whose id
 * compose would refuse could not be replied to, and the whole series of
 * a victim would fail with it (issue 33: a [PATCH 3/3] with a 0x01 byte
 * in its Message-ID, posted into another's series): such a mail is
 * malformed, recorded and skipped alone.
 */
#define MSGID_REPLY_MAX 250

static int check_msgid(const char *id)
{
	size_t i, n;

	if (!id)
		return 0;
	n = strlen(id);
	if (n > MSGID_REPLY_MAX)
		return rb_err(RB_EPARSE,
			      "a Message-ID of %zu characters (at most %d "
			      "can be answered)",
			      n, MSGID_REPLY_MAX);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)id[i];

		if (ch <= 32 || ch >= 127 || ch == '<' || ch == '>')
			return rb_err(RB_EPARSE,
				      "byte 0x%02x in the Message-ID (RFC "
				      "5322 3.6.4 allows printable ASCII)",
				      ch);
	}
	return 0;
}

static int parse_headers(struct ctx *c)
{
	struct rb_message *m = c->m;
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_addr_list from = { 0 };
	const struct hdr *h;
	char **ids = NULL;
	size_t nids = 0, i;
	int ret;

	ret = first_msgid(&m->message_id, find_hdr(c, "Message-ID"));
	if (!ret)
		ret = check_msgid(m->message_id);
	if (!ret)
		ret = first_msgid(&m->in_reply_to, find_hdr(c, "In-Reply-To"));
	if (ret)
		goto out;
	h = find_hdr(c, "References");
	if (h) {
		ret = msgids(&ids, &nids, h->val, h->vlen, MAX_REFS);
		if (ret)
			goto out;
		m->references = ids;
		m->n_references = nids;
	}
	ret = parse_addr_fields(c, &from, "From");
	if (ret)
		goto out;
	if (from.n) {
		m->from = from.v[0];
		for (i = 1; i < from.n; i++) {
			free(from.v[i].name);
			free(from.v[i].addr);
		}
	}
	free(from.v);
	if (!c->no_recipients) {
		ret = parse_addr_fields(c, &m->to, "To");
		if (!ret)
			ret = parse_addr_fields(c, &m->cc, "Cc");
		if (ret)
			goto out;
	}
	h = find_hdr(c, "Date");
	if (h) {
		ret = unfold(&b, h->val, h->vlen);
		if (ret)
			goto out;
		m->date_raw = strdup(b.ptr);
		if (!m->date_raw) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		m->date = parse_date(b.ptr, b.len);
	}
	h = find_hdr(c, "List-Id");
	if (h) {
		ret = first_msgid(&m->list_id, h);
		if (!ret && !m->list_id) {
			ret = unfold(&b, h->val, h->vlen);
			if (!ret && b.len) {
				m->list_id = strdup(b.ptr);
				if (!m->list_id)
					ret = rb_err(RB_ENOMEM,
						     "out of memory");
			}
		}
		if (ret)
			goto out;
	}
	ret = decoded_field(c, &m->subject_raw, "Subject");
	if (!ret)
		ret = decoded_field(c, &m->auto_submitted, "Auto-Submitted");
	if (!ret)
		ret = decoded_field(c, &m->precedence, "Precedence");
	if (!ret)
		ret = decoded_field(c, &m->x_reviewbot, "X-Reviewbot-Series");
	if (!ret)
		ret = rb_subject_parse(&m->subject,
				       m->subject_raw ? m->subject_raw : "");
out:
	rb_buf_release(&b);
	return ret;
}

static int copy_addr(struct rb_addr *out, const struct rb_addr *a)
{
	out->name = a->name ? strdup(a->name) : NULL;
	out->addr = strdup(a->addr ? a->addr : "");
	if ((a->name && !out->name) || !out->addr) {
		free(out->name);
		free(out->addr);
		out->name = out->addr = NULL;
		return rb_err(RB_ENOMEM, "out of memory");
	}
	return 0;
}

/* LF copy of a CRLF message (IMAP and SMTP deliver CRLF). */
static int to_lf(char **out, size_t *out_len, const char *raw, size_t len)
{
	char *p = malloc(len + 1), *w;
	const char *r = raw, *end = raw + len, *cr;

	if (!p)
		return rb_err(RB_ENOMEM, "out of memory");
	/* Runs between CRs, copied whole: memchr() and memcpy() work a
	 * vector at a time, where a loop over bytes was the parse's
	 * largest cost on IMAP mail. */
	for (w = p; r < end; r = cr + 1) {
		cr = memchr(r, '\r', (size_t)(end - r));
		if (!cr) {
			memcpy(w, r, (size_t)(end - r));
			w += end - r;
			break;
		}
		memcpy(w, r, (size_t)(cr - r));
		w += cr - r;
		if (!(cr + 1 < end && cr[1] == '\n'))
			*w++ = '\r'; /* a CR not before LF stays */
	}
	*w = '\0';
	*out = p;
	*out_len = (size_t)(w - p);
	return 0;
}

static _Atomic unsigned long n_parses;

unsigned long rb_message_parse_count(void)
{
	return n_parses;
}

int rb_message_parse(struct rb_message **out, const char *raw, size_t len,
		     const struct rb_parse_opts *opts)
{
	size_t max = opts && opts->max_size ? opts->max_size :
					      RB_MSG_DEFAULT_MAX;
	struct ctx c = { 0 };
	char *lf = NULL;
	const char *nl;
	int ret;

	n_parses++;
	if (!raw)
		return rb_err(RB_EINVAL, "no message");
	if (len > max)
		return rb_err(RB_ETOOBIG,
			      "message of %zu bytes is over the size cap of "
			      "%zu bytes (limits.max_message_size)",
			      len, max);
	c.m = calloc(1, sizeof(*c.m));
	if (!c.m)
		return rb_err(RB_ENOMEM, "out of memory");
	c.no_recipients = opts && opts->no_recipients;
	rb_buf_init(&c.body, max * 4 + 64);
	c.buf = raw;
	c.len = len;
	/* CRLF transport (the first line ends in CRLF): read as LF. */
	nl = memchr(raw, '\n', len);
	if (nl && nl > raw && nl[-1] == '\r') {
		ret = to_lf(&lf, &c.len, raw, len);
		if (ret)
			goto fail;
		c.buf = lf;
	}
	ret = split_headers(&c);
	if (!ret)
		ret = check_once(&c);
	if (!ret)
		ret = parse_headers(&c);
	if (!ret && c.name_ctrl)
		ret = rb_msg_problem(c.m, RB_MSG_NAME_CTRL,
				     "a display name held control characters "
				     "(shown as spaces)");
	if (!ret && opts && opts->received_at > 0 &&
	    c.m->date > opts->received_at + RB_MSG_DATE_SKEW) {
		ret = rb_msg_problem(
			c.m, RB_MSG_FUTURE_DATE,
			"Date: is %lld s after the message was "
			"received; the time received is used",
			(long long)(c.m->date - opts->received_at));
		c.m->date = opts->received_at;
	}
	if (ret)
		goto fail;
	ret = parse_body(&c);
	if (ret)
		goto fail;
	if (memchr(c.body.ptr, '\0', c.body.len)) {
		/* NUL bytes would cut the C string: make them visible. */
		size_t i;

		for (i = 0; i < c.body.len; i++)
			if (!c.body.ptr[i])
				c.body.ptr[i] = '?';
		c.charset_bad = true;
	}
	ret = strip_cr(&c);
	if (ret)
		goto fail;
	c.m->body = rb_buf_detach(&c.body, NULL);
	if (!c.m->body) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	ret = rb_msg_split_body(c.m);
	if (!ret && !c.m->author.addr)
		ret = copy_addr(&c.m->author, &c.m->from);
	if (ret)
		goto fail;
	if (c.flowed && c.m->patch)
		ret = rb_msg_problem(c.m, RB_MSG_FLOWED,
				     "format=flowed text carries a patch; "
				     "its lines may be rewrapped");
	if (!ret && c.charset_bad)
		ret = rb_msg_problem(c.m, RB_MSG_CHARSET,
				     "some text could not be converted to "
				     "UTF-8 (shown as U+FFFD)");
	if (!ret && !c.m->message_id)
		ret = synth_msgid(c.m);
	if (ret)
		goto fail;
	*out = c.m;
	c.m = NULL;
fail:
	rb_message_free(c.m);
	rb_buf_release(&c.body);
	free(c.h);
	free(lf);
	return ret;
}

static void addr_release(struct rb_addr *a)
{
	free(a->name);
	free(a->addr);
}

static void addr_list_release(struct rb_addr_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		addr_release(&l->v[i]);
	free(l->v);
}

void rb_message_free(struct rb_message *m)
{
	size_t i;

	if (!m)
		return;
	free(m->message_id);
	free(m->in_reply_to);
	free_ids(m->references, m->n_references);
	addr_release(&m->from);
	addr_release(&m->author);
	addr_list_release(&m->to);
	addr_list_release(&m->cc);
	free(m->date_raw);
	free(m->list_id);
	free(m->subject_raw);
	rb_subject_release(&m->subject);
	free(m->auto_submitted);
	free(m->precedence);
	free(m->x_reviewbot);
	free(m->body);
	free(m->commit_msg);
	for (i = 0; i < m->n_trailers; i++) {
		free(m->trailers[i].key);
		free(m->trailers[i].value);
	}
	free(m->trailers);
	free(m->diffstat);
	free(m->notes);
	free(m->patch);
	free(m->problem_text);
	free(m);
}

const char *rb_message_trailer(const struct rb_message *m, const char *key)
{
	size_t i;

	if (!m || !key)
		return NULL;
	for (i = 0; i < m->n_trailers; i++)
		if (!strcasecmp(m->trailers[i].key, key))
			return m->trailers[i].value;
	return NULL;
}

bool rb_message_relay_addr(const char *a)
{
	const char *at = a ? strrchr(a, '@') : NULL;
	size_t local;

	if (!at || strcasecmp(at + 1, "kernel.org"))
		return false;
	local = (size_t)(at - a);
	return (local == 7 && !strncasecmp(a, "devnull", 7)) ||
	       (local > 8 && !strncasecmp(a, "devnull+", 8));
}

bool rb_message_b4_relay(const struct rb_message *m)
{
	const char *a = m ? m->from.addr : NULL;

	if (!a || !m->author.addr || !strcasecmp(a, m->author.addr))
		return false;
	return rb_message_relay_addr(a);
}

const struct rb_addr *rb_message_poster(const struct rb_message *m)
{
	return rb_message_b4_relay(m) ? &m->author : &m->from;
}
