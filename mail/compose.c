// SPDX-License-Identifier: GPL-2.0-only
/*
 * compose.c - a reply as RFC 5322 bytes.
 *
 * RFC 5322 (2.1.1 line length, 2.2.3 folding, 3.3 date, 3.6.4 Message-ID,
 * In-Reply-To, References), RFC 2045 (MIME headers, 6.7 quoted-printable,
 * 2.8 8bit data), RFC 2047 (encoded words), RFC 3834 (Auto-Submitted).
 * DESIGN.md fact 7 gives the rules: content-derived Message-ID, CRLF,
 * subject encoded again, no Reviewed-by/Acked-by/Tested-by.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/trailer.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/banned.h"

#define LINE_SOFT 78 /* RFC 5322 2.1.1: SHOULD */
#define LINE_HARD 998 /* RFC 5322 2.1.1: MUST */
#define MSGID_MAX 250
#define SERIES_MAX 200
#define REFS_MAX 128 /* keep the first and the last 127 of a longer chain */

/* A header being written, folded at spaces (RFC 5322 2.2.3). */
struct hdr {
	struct rb_buf *out;
	size_t col;
	size_t name_col;
};

static int hdr_start(struct hdr *h, const char *name)
{
	h->col = strlen(name) + 2;
	h->name_col = h->col;
	return rb_buf_printf(h->out, "%s: ", name);
}

/* Writes one unbreakable word, preceded by a space or a fold if @space. */
static int hdr_word(struct hdr *h, const char *w, size_t len, bool space)
{
	int ret = 0;

	if (space) {
		if (h->col + 1 + len > LINE_SOFT && h->col > h->name_col) {
			ret = rb_buf_puts(h->out, "\r\n ");
			h->col = 1;
		} else {
			ret = rb_buf_putc(h->out, ' ');
			h->col++;
		}
	}
	if (!ret)
		ret = rb_buf_add(h->out, w, len);
	h->col += len;
	if (!ret && h->col > LINE_HARD)
		ret = rb_err(RB_EINVAL, "a header word is longer than %d bytes",
			     LINE_HARD);
	return ret;
}

/* Writes @s as words split at spaces outside quoted strings. */
static int hdr_text(struct hdr *h, const char *s, bool space)
{
	size_t i = 0, start;
	int ret = 0;

	while (s[i] && !ret) {
		bool quoted = false;

		while (s[i] == ' ')
			i++;
		if (!s[i])
			break;
		start = i;
		while (s[i] && (quoted || s[i] != ' ')) {
			if (quoted && s[i] == '\\' && s[i + 1])
				i++;
			else if (s[i] == '"')
				quoted = !quoted;
			i++;
		}
		ret = hdr_word(h, s + start, i - start, space);
		space = true;
	}
	return ret;
}

static int hdr_end(struct hdr *h)
{
	return rb_buf_puts(h->out, "\r\n");
}

/* To: / Cc: with each mailbox formatted safely. */
static int put_addr_header(struct rb_buf *out, const char *name,
			   const char *const *v, size_t n)
{
	struct rb_buf tmp = RB_BUF_INIT(4096);
	struct hdr h = { out, 0, 0 };
	size_t i;
	int ret;

	ret = hdr_start(&h, name);
	for (i = 0; i < n && !ret; i++) {
		struct rb_addr a = { 0 };

		ret = rb_addr_parse(&a, v[i]);
		if (ret)
			break;
		rb_buf_reset(&tmp);
		ret = rb_addr_format(&tmp, &a);
		rb_addr_release(&a);
		if (!ret && i + 1 < n)
			ret = rb_buf_putc(&tmp, ',');
		if (!ret)
			ret = hdr_text(&h, tmp.ptr, i > 0);
	}
	if (!ret)
		ret = hdr_end(&h);
	rb_buf_release(&tmp);
	return ret;
}

/*
 * The subject as one line: runs of CR, LF, tab and space become one space
 * (RFC 5322 2.2.3 unfolding; a decoded subject may hold CR/LF), trimmed.
 */
static int subject_clean(struct rb_buf *out, const char *s)
{
	size_t i;
	bool sp = false;
	int ret = 0;

	for (i = 0; s[i] && !ret; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			sp = out->len > 0;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			return rb_err(RB_EINVAL,
				      "control character 0x%02x in the subject",
				      c);
		if (sp)
			ret = rb_buf_putc(out, ' ');
		sp = false;
		if (!ret)
			ret = rb_buf_putc(out, (char)c);
	}
	if (!ret && !rb_utf8_valid(out->ptr, out->len))
		ret = rb_err(RB_EINVAL, "the subject is not valid UTF-8");
	return ret;
}

/*
 * A word of the subject that cannot be written as it is: non-ASCII, an
 * "=?" that readers would take for an encoded word, or too long to fit a
 * line (RFC 5322 2.1.1).
 */
static bool word_needs_encoding(const char *w, size_t len)
{
	size_t i;

	if (len > LINE_HARD - 100)
		return true;
	for (i = 0; i < len; i++) {
		if ((unsigned char)w[i] >= 0x80)
			return true;
		if (w[i] == '=' && i + 1 < len && w[i + 1] == '?')
			return true;
	}
	return false;
}

/*
 * Subject: "Re: " once, then the words as they are, except that each run
 * of words that need it becomes RFC 2047 encoded words (the spaces inside
 * the run are encoded with it, RFC 2047 section 6.2), so an ASCII subject
 * stays readable and searchable.
 */
static int put_subject(struct rb_buf *out, const char *subject)
{
	struct rb_buf s = RB_BUF_INIT(8192), enc = RB_BUF_INIT(65536);
	struct hdr h = { out, 0, 0 };
	const char *rest, *p;
	int ret;

	ret = subject_clean(&s, subject ? subject : "");
	if (ret)
		goto out;
	/* Keep the original's own "Re:" (any case), never add a second. */
	rest = s.ptr;
	if (!strncasecmp(rest, "re:", 3))
		rest += 3;
	while (*rest == ' ')
		rest++;
	ret = hdr_start(&h, "Subject");
	if (!ret)
		ret = hdr_word(&h, "Re:", 3, false);
	p = rest;
	while (*p && !ret) {
		const char *w = p, *run_end;
		size_t len = strcspn(w, " ");

		if (!word_needs_encoding(w, len)) {
			ret = hdr_word(&h, w, len, true);
			p = w + len + (w[len] == ' ');
			continue;
		}
		/* Extend the run over the following words that need it. */
		run_end = w + len;
		while (*run_end == ' ') {
			const char *nw = run_end + 1;
			size_t nl = strcspn(nw, " ");

			if (!word_needs_encoding(nw, nl))
				break;
			run_end = nw + nl;
		}
		rb_buf_reset(&enc);
		ret = rb_rfc2047_encode(&enc, w, (size_t)(run_end - w));
		if (!ret)
			ret = hdr_text(&h, enc.ptr, true);
		p = run_end + (*run_end == ' ');
	}
	if (!ret)
		ret = hdr_end(&h);
out:
	rb_buf_release(&s);
	rb_buf_release(&enc);
	return ret;
}

/* RFC 5322 3.3, always UTC, English names whatever the locale. */
static int put_date(struct rb_buf *out, int64_t date)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed",
					    "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
					      "May", "Jun", "Jul", "Aug",
					      "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)date;
	struct tm tm;

	if (date < 0 || (int64_t)t != date || !gmtime_r(&t, &tm) ||
	    tm.tm_year + 1900 > 9999)
		return rb_err(RB_EINVAL, "date %lld out of range",
			      (long long)date);
	return rb_buf_printf(out,
			     "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n",
			     days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
			     tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
			     tm.tm_sec);
}

/*
 * A msg-id (RFC 5322 3.6.4) for In-Reply-To / References: the id with
 * its angle brackets; printable ASCII, no space, no '<' '>' inside.
 */
static int msgid_norm(struct rb_buf *out, const char *id)
{
	size_t len, i;

	if (!id)
		return rb_err(RB_EINVAL, "no Message-ID");
	len = strnlen(id, MSGID_MAX + 3);
	if (len >= 2 && id[0] == '<' && id[len - 1] == '>') {
		id++;
		len -= 2;
	}
	if (!len || len > MSGID_MAX)
		return rb_err(RB_EINVAL, "empty or too long Message-ID");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)id[i];

		if (c <= 32 || c >= 127 || c == '<' || c == '>')
			return rb_err(RB_EINVAL,
				      "bad character 0x%02x in a Message-ID",
				      c);
	}
	return rb_buf_printf(out, "<%.*s>", (int)len, id);
}

static int put_threading(struct rb_buf *out, const struct rb_reply *r)
{
	struct rb_buf irt = RB_BUF_INIT(MSGID_MAX + 3);
	struct rb_buf one = RB_BUF_INIT(MSGID_MAX + 3);
	struct hdr h = { out, 0, 0 };
	size_t i, n = r->n_references;
	bool have_irt = false;
	int ret = 0;

	if (r->in_reply_to) {
		ret = msgid_norm(&irt, r->in_reply_to);
		if (!ret)
			ret = rb_buf_printf(out, "In-Reply-To: %s\r\n",
					    irt.ptr);
		if (ret)
			goto out;
	}
	if (!n && !irt.len)
		goto out;
	ret = hdr_start(&h, "References");
	for (i = 0; i < n && !ret; i++) {
		/*
		 * RFC 5322 3.6.4 lets a long chain be trimmed; keep the
		 * root and the newest REFS_MAX - 1.
		 */
		if (n > REFS_MAX && i > 0 && i < n - (REFS_MAX - 1))
			continue;
		rb_buf_reset(&one);
		/* Another poster's id in the chain is dropped, not fatal:
		 * it must not stop the reply to the part itself. */
		if (msgid_norm(&one, r->references[i]))
			continue;
		if (irt.len && !strcmp(one.ptr, irt.ptr))
			have_irt = true;
		ret = hdr_word(&h, one.ptr, one.len, h.col > h.name_col);
	}
	if (!ret && irt.len && !have_irt)
		ret = hdr_word(&h, irt.ptr, irt.len, h.col > h.name_col);
	if (!ret)
		ret = hdr_end(&h);
out:
	rb_buf_release(&irt);
	rb_buf_release(&one);
	return ret;
}

static bool printable_ascii(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i >= max || (unsigned char)s[i] < 32 ||
		    (unsigned char)s[i] > 126)
			return false;
	return i > 0;
}

/* A trailer reviewbot must never write (DESIGN.md fact 7). */
static bool is_banned_trailer(const char *line, size_t len)
{
	return rb_trailer_colon(line, len, RB_TRAILER_REVIEW) != 0;
}

/*
 * Checks the body line by line: UTF-8, no control character but tab and
 * form feed, CR only as part of CRLF, no banned trailer. Sets *qp when a
 * line is longer than LINE_HARD bytes.
 */
static int body_check(const char *body, bool *qp)
{
	size_t len = strlen(body), pos = 0, lineno = 1;

	if (!rb_utf8_valid(body, len))
		return rb_err(RB_EINVAL, "the body is not valid UTF-8");
	*qp = false;
	while (pos < len) {
		const char *nl = memchr(body + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - body) : len, l, i;

		l = end - pos;
		if (l && body[end - 1] == '\r' && nl)
			l--;
		for (i = 0; i < l; i++) {
			unsigned char c = (unsigned char)body[pos + i];

			if ((c < 0x20 && c != '\t' && c != '\f') || c == 0x7f)
				return rb_err(
					RB_EINVAL,
					"control character 0x%02x in body line %zu",
					c, lineno);
		}
		if (is_banned_trailer(body + pos, l))
			return rb_err(
				RB_EINVAL,
				"body line %zu is a Reviewed-by/Acked-by/Tested-by trailer; reviewbot never gives one",
				lineno);
		if (l > LINE_HARD)
			*qp = true;
		pos = end + 1;
		lineno++;
	}
	return 0;
}

/* RFC 2045 6.7: quoted-printable, lines of at most 76 characters. */
static int put_qp_line(struct rb_buf *out, const char *s, size_t len)
{
	size_t i, col = 0;
	int ret = 0;

	for (i = 0; i < len && !ret; i++) {
		unsigned char c = (unsigned char)s[i];
		char tok[4];
		size_t tl;

		if ((c >= 33 && c <= 126 && c != '=') ||
		    ((c == ' ' || c == '\t') && i + 1 < len)) {
			tok[0] = (char)c;
			tl = 1;
		} else {
			snprintf(tok, sizeof(tok), "=%02X", c);
			tl = 3;
		}
		if (col + tl > 75) {
			ret = rb_buf_puts(out, "=\r\n");
			col = 0;
		}
		if (!ret)
			ret = rb_buf_add(out, tok, tl);
		col += tl;
	}
	if (!ret)
		ret = rb_buf_puts(out, "\r\n");
	return ret;
}

static int put_body(struct rb_buf *out, const char *body, bool qp)
{
	size_t len = strlen(body), pos = 0;
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(body + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - body) : len, l = end - pos;

		if (l && body[end - 1] == '\r' && nl)
			l--;
		if (qp) {
			ret = put_qp_line(out, body + pos, l);
		} else {
			ret = rb_buf_add(out, body + pos, l);
			if (!ret)
				ret = rb_buf_puts(out, "\r\n");
		}
		pos = end + 1;
	}
	return ret;
}

static const char *const own_headers[] = {
	"from",
	"to",
	"cc",
	"bcc",
	"subject",
	"date",
	"message-id",
	"in-reply-to",
	"references",
	"mime-version",
	"content-type",
	"content-transfer-encoding",
	"auto-submitted",
	"x-reviewbot-policy",
	"x-reviewbot-series",
	"sender",
	"reply-to",
	"return-path",
};

/* Extra headers: "Name: value" lines, printable ASCII, no header of ours. */
static int put_extra(struct rb_buf *out, const char *x)
{
	size_t len = strlen(x), pos = 0, lineno = 1, k;
	bool have = false;
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(x + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - x) : len, l = end - pos, i;
		const char *line = x + pos;

		if (l && line[l - 1] == '\r' && nl)
			l--;
		if (!l)
			return rb_err(RB_EINVAL, "empty extra header line %zu",
				      lineno);
		if (l > LINE_HARD)
			return rb_err(RB_EINVAL,
				      "extra header line %zu is too long",
				      lineno);
		for (i = 0; i < l; i++) {
			unsigned char c = (unsigned char)line[i];

			if ((c < 32 && c != '\t') || c > 126)
				return rb_err(
					RB_EINVAL,
					"bad character 0x%02x in extra header line %zu",
					c, lineno);
		}
		if (line[0] == ' ' || line[0] == '\t') {
			if (!have)
				return rb_err(
					RB_EINVAL,
					"extra headers start with a continuation line");
		} else {
			const char *colon = memchr(line, ':', l);
			size_t nlen = colon ? (size_t)(colon - line) : 0;

			for (i = 0; i < nlen; i++)
				if (line[i] == ' ' || line[i] == '\t')
					nlen = 0;
			if (!nlen)
				return rb_err(
					RB_EINVAL,
					"extra header line %zu is not \"Name: value\"",
					lineno);
			for (k = 0;
			     k < sizeof(own_headers) / sizeof(own_headers[0]);
			     k++)
				if (strlen(own_headers[k]) == nlen &&
				    !strncasecmp(line, own_headers[k], nlen))
					return rb_err(
						RB_EINVAL,
						"extra header %.*s would replace one of ours",
						(int)nlen, line);
			have = true;
		}
		ret = rb_buf_add(out, line, l);
		if (!ret)
			ret = rb_buf_puts(out, "\r\n");
		pos = end + 1;
		lineno++;
	}
	return ret;
}

/* Length-prefixed, so that no two field lists hash alike. */
static void hash_field(struct rb_sha256 *h, const char *tag, const char *s)
{
	char pre[64];
	size_t len = s ? strlen(s) : 0;
	int n = snprintf(pre, sizeof(pre), "%s %zu:", tag, len);

	rb_sha256_update(h, pre, (size_t)n);
	if (len)
		rb_sha256_update(h, s, len);
}

static int make_msgid(struct rb_buf *out, const struct rb_reply *r,
		      const char *domain)
{
	struct rb_sha256 *h = rb_sha256_new();
	char hex[RB_SHA256_HEX];
	size_t i;

	if (!h)
		return rb_err(RB_ENOMEM, "out of memory");
	hash_field(h, "in-reply-to", r->in_reply_to);
	for (i = 0; i < r->n_to; i++)
		hash_field(h, "to", r->to[i]);
	for (i = 0; i < r->n_cc; i++)
		hash_field(h, "cc", r->cc[i]);
	hash_field(h, "subject", r->subject);
	hash_field(h, "body", r->body);
	rb_sha256_final_hex(h, hex);
	return rb_buf_printf(out, "<rb-%s@%s>", hex, domain);
}

int rb_compose(struct rb_buf *out, char **message_id, const struct rb_reply *r)
{
	struct rb_addr from = { 0 };
	struct rb_buf mid = RB_BUF_INIT(512);
	size_t start = out->len;
	const char *domain;
	bool qp = false;
	int ret;

	if (!r->n_to)
		return rb_err(RB_EINVAL, "a reply needs a To: recipient");
	if (r->n_to > RB_ADDR_LIST_MAX || r->n_cc > RB_ADDR_LIST_MAX - r->n_to)
		return rb_err(RB_ETOOBIG, "%zu recipients, at most %d",
			      r->n_to + r->n_cc, RB_ADDR_LIST_MAX);
	if (r->policy != RB_MODE_ADVISORY && r->policy != RB_MODE_BLOCKING &&
	    r->policy != RB_MODE_SHADOW)
		return rb_err(RB_EINVAL,
			      "policy must be advisory, blocking or shadow");
	if (!r->series_id || !printable_ascii(r->series_id, SERIES_MAX))
		return rb_err(
			RB_EINVAL,
			"series id must be 1 to %d printable ASCII characters",
			SERIES_MAX);
	if (!r->body)
		return rb_err(RB_EINVAL, "no body");
	ret = body_check(r->body, &qp);
	if (ret)
		return ret;
	ret = rb_addr_parse(&from, r->from);
	if (ret)
		return ret;
	domain = strrchr(from.addr, '@') + 1;
	ret = make_msgid(&mid, r, domain);
	if (ret)
		goto out;

	ret = put_addr_header(out, "From", &r->from, 1);
	if (!ret)
		ret = put_addr_header(out, "To", r->to, r->n_to);
	if (!ret && r->n_cc)
		ret = put_addr_header(out, "Cc", r->cc, r->n_cc);
	if (!ret)
		ret = put_subject(out, r->subject);
	if (!ret)
		ret = put_date(out, r->date);
	if (!ret)
		ret = rb_buf_printf(out, "Message-ID: %s\r\n", mid.ptr);
	if (!ret)
		ret = put_threading(out, r);
	if (!ret)
		ret = rb_buf_printf(
			out,
			"MIME-Version: 1.0\r\n"
			"Content-Type: text/plain; charset=utf-8\r\n"
			"Content-Transfer-Encoding: %s\r\n"
			"Auto-Submitted: auto-replied\r\n"
			"X-Reviewbot-Policy: %s\r\n"
			"X-Reviewbot-Series: %s\r\n",
			qp ? "quoted-printable" : "8bit",
			rb_mode_name(r->policy), r->series_id);
	if (!ret && r->extra_headers)
		ret = put_extra(out, r->extra_headers);
	if (!ret)
		ret = rb_buf_puts(out, "\r\n");
	if (!ret)
		ret = put_body(out, r->body, qp);
	if (ret)
		goto out;
	if (message_id) {
		*message_id = rb_buf_detach(&mid, NULL);
		if (!*message_id)
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
out:
	if (ret)
		rb_buf_truncate(out, start);
	rb_addr_release(&from);
	rb_buf_release(&mid);
	return ret;
}

int rb_compose_envelope(char **env_from, char ***rcpts, size_t *n_rcpts,
			const struct rb_reply *r)
{
	struct rb_addr from = { 0 };
	const char **bare = NULL;
	struct rb_addr *parsed = NULL;
	size_t n = r->n_to + r->n_cc, i, got = 0;
	int ret;

	if (r->n_to > RB_ADDR_LIST_MAX || r->n_cc > RB_ADDR_LIST_MAX - r->n_to)
		return rb_err(RB_ETOOBIG, "%zu recipients, at most %d", n,
			      RB_ADDR_LIST_MAX);
	if (!n)
		return rb_err(RB_EINVAL, "a reply needs a recipient");
	ret = rb_addr_parse(&from, r->from);
	if (ret)
		return ret;
	parsed = calloc(n, sizeof(*parsed));
	bare = calloc(n, sizeof(*bare));
	if (!parsed || !bare) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (got = 0; got < n; got++) {
		const char *mb = got < r->n_to ? r->to[got] :
						 r->cc[got - r->n_to];

		ret = rb_addr_parse(&parsed[got], mb);
		if (ret)
			goto out;
		bare[got] = parsed[got].addr;
	}
	ret = rb_addr_list_dedup(rcpts, n_rcpts, bare, n, RB_ADDR_LIST_MAX);
	if (ret)
		goto out;
	*env_from = from.addr;
	from.addr = NULL;
out:
	for (i = 0; parsed && i < got; i++)
		rb_addr_release(&parsed[i]);
	free(parsed);
	free(bare);
	rb_addr_release(&from);
	return ret;
}
