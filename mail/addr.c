// SPDX-License-Identifier: GPL-2.0-only
/*
 * addr.c - addresses for outgoing mail.
 *
 * RFC 5321 section 4.1.2 (Mailbox, Local-part, Domain, address-literal),
 * section 4.1.3 (IPv4 and IPv6 literals) and 4.5.3.1 (size limits);
 * RFC 5322 section 3.4 (mailbox, display name) and 3.2.4 (quoted strings);
 * RFC 2047 (encoded words) with RFC 3629 UTF-8.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libetpan/libetpan.h>

#include "mail/addr.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* RFC 5322 3.2.3 atext */
static bool is_atext(unsigned char c)
{
	return is_alnum(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

static bool is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* rb_utf8_valid() lives in msg_decode.c, shared by the mail module. */

/* RFC 5321 Dot-string: Atom *("." Atom). Returns its length, 0 if none. */
static size_t dot_string_len(const char *s)
{
	size_t i = 0;

	for (;;) {
		size_t start = i;

		while (is_atext((unsigned char)s[i]))
			i++;
		if (i == start)
			return 0; /* empty atom: leading, trailing or ".." */
		if (s[i] != '.')
			return i;
		i++;
	}
}

/* RFC 5321 Quoted-string with qtextSMTP / quoted-pairSMTP; 0 if bad. */
static size_t quoted_string_len(const char *s)
{
	size_t i = 1;

	if (s[0] != '"')
		return 0;
	for (;;) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"')
			return i + 1;
		if (c == '\\') {
			c = (unsigned char)s[i + 1];
			if (c < 32 || c > 126)
				return 0;
			i += 2;
			continue;
		}
		if (c < 32 || c > 126)
			return 0; /* also the NUL at the end */
		i++;
	}
}

/* RFC 5321 4.1.3 IPv4-address-literal: Snum 3("." Snum). */
static bool ipv4_literal_valid(const char *s, size_t len)
{
	size_t i = 0;
	int part;

	for (part = 0; part < 4; part++) {
		unsigned int v = 0, nd = 0;

		while (i < len && s[i] >= '0' && s[i] <= '9' && nd < 3) {
			v = v * 10 + (unsigned int)(s[i] - '0');
			i++;
			nd++;
		}
		if (!nd || v > 255)
			return false;
		if (part < 3) {
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
	}
	return i == len;
}

static bool domain_valid(const char *d)
{
	size_t len = strlen(d), i = 0;

	if (!len)
		return false;
	if (d[0] == '[') {
		char tmp[64];
		struct in6_addr a6;

		if (d[len - 1] != ']')
			return false;
		d++;
		len -= 2;
		if (len > 5 && !strncasecmp(d, "IPv6:", 5)) {
			if (len - 5 >= sizeof(tmp))
				return false;
			memcpy(tmp, d + 5, len - 5);
			tmp[len - 5] = '\0';
			return inet_pton(AF_INET6, tmp, &a6) == 1;
		}
		/* General-address-literal: no other tag is standardized. */
		return ipv4_literal_valid(d, len);
	}
	while (i < len) {
		size_t start = i;

		while (i < len &&
		       (is_alnum((unsigned char)d[i]) || d[i] == '-'))
			i++;
		/*
		 * Let-dig [Ldh-str]: no leading or trailing hyphen; RFC 1035
		 * 2.3.4: a label is at most 63 octets.
		 */
		if (i == start || i - start > 63 || d[start] == '-' ||
		    d[i - 1] == '-')
			return false;
		if (i == len)
			return true;
		if (d[i] != '.' || i + 1 == len)
			return false;
		i++;
	}
	return false;
}

bool rb_addr_valid(const char *addr)
{
	size_t len, local;

	if (!addr)
		return false;
	len = strnlen(addr, RB_ADDR_MAX + 1);
	if (len > RB_ADDR_MAX)
		return false;
	if (addr[0] == '"')
		local = quoted_string_len(addr);
	else
		local = dot_string_len(addr);
	if (!local || local > RB_ADDR_LOCAL_MAX || addr[local] != '@')
		return false;
	return domain_valid(addr + local + 1);
}

/* @d ends with the label @label ("invalid" for "x.invalid"). */
static bool ends_with_label(const char *d, const char *label)
{
	size_t n = strlen(d), l = strlen(label);

	return n > l && d[n - l - 1] == '.' && !strcasecmp(d + n - l, label);
}

bool rb_addr_deliverable(const char *addr)
{
	const char *at = addr ? strrchr(addr, '@') : NULL;
	const char *d = at ? at + 1 : NULL;

	if (!d || !*d || d[0] == '[' || !strchr(d, '.'))
		return false;
	if (!strcasecmp(d, "localhost") || ends_with_label(d, "localhost") ||
	    ends_with_label(d, "invalid") || ends_with_label(d, "local"))
		return false;
	return true;
}

static bool is_wsp(char c)
{
	return c == ' ' || c == '\t';
}

static char *dup_range(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void trim(const char **s, size_t *len)
{
	while (*len && is_wsp(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_wsp((*s)[*len - 1]))
		(*len)--;
}

/* Checks a display name (UTF-8, no control characters, capped). */
static int name_check(const char *name, size_t len)
{
	size_t i;

	if (len > RB_ADDR_NAME_MAX)
		return rb_err(RB_EINVAL, "display name longer than %d bytes",
			      RB_ADDR_NAME_MAX);
	for (i = 0; i < len; i++)
		if (is_ctl((unsigned char)name[i]))
			return rb_err(
				RB_EINVAL,
				"control character 0x%02x in a display name",
				(unsigned char)name[i]);
	if (!rb_utf8_valid(name, len))
		return rb_err(RB_EINVAL, "display name is not valid UTF-8");
	return 0;
}

/*
 * Decodes RFC 2047 encoded words in an unquoted display name (libetpan,
 * any charset it knows, to UTF-8), so that what rb_addr_format() writes
 * parses back to the same name and is never encoded twice. Text that is
 * not a valid encoded word stays as it is.
 */
static int name_decode(struct rb_buf *b, const char *s, size_t len)
{
	char *dec = NULL;
	size_t idx = 0;
	int r;

	r = mailmime_encoded_phrase_parse("utf-8", s, len, &idx, "utf-8", &dec);
	if (r != MAILIMF_NO_ERROR || !dec || idx != len) {
		free(dec);
		return rb_buf_add(b, s, len);
	}
	r = rb_buf_puts(b, dec);
	free(dec);
	return r;
}

/* Copies a display name, removing the quotes of a quoted string. */
static int name_unquote(char **out, const char *s, size_t len)
{
	struct rb_buf b = RB_BUF_INIT(RB_ADDR_NAME_MAX * 2);
	size_t i;
	int ret;

	if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		s++;
		len -= 2;
		for (i = 0; i < len; i++) {
			if (s[i] == '\\' && i + 1 < len)
				i++;
			else if (s[i] == '"') {
				ret = rb_err(RB_EINVAL,
					     "stray quote in a display name");
				goto out;
			}
			ret = rb_buf_putc(&b, s[i]);
			if (ret)
				goto out;
		}
	} else if (memmem(s, len, "=?", 2)) {
		ret = name_decode(&b, s, len);
		if (ret)
			goto out;
	} else {
		ret = rb_buf_add(&b, s, len);
		if (ret)
			goto out;
	}
	ret = name_check(b.ptr, b.len);
	if (ret)
		goto out;
	*out = b.len ? rb_buf_detach(&b, NULL) : NULL;
out:
	rb_buf_release(&b);
	return ret;
}

int rb_addr_parse(struct rb_addr *out, const char *mailbox)
{
	const char *s = mailbox, *lt = NULL, *gt = NULL, *paren = NULL;
	const char *a, *n = NULL;
	size_t len, alen, nlen = 0, i;
	bool quoted = false;
	char *name = NULL, *addr = NULL;
	int ret;

	if (!mailbox)
		return rb_err(RB_EINVAL, "no address");
	len = strnlen(mailbox, 4 * RB_ADDR_NAME_MAX + RB_ADDR_MAX + 1);
	if (len > 4 * RB_ADDR_NAME_MAX + RB_ADDR_MAX)
		return rb_err(RB_EINVAL, "mailbox longer than %d bytes",
			      4 * RB_ADDR_NAME_MAX + RB_ADDR_MAX);
	for (i = 0; i < len; i++)
		if (is_ctl((unsigned char)s[i]) && s[i] != '\t')
			return rb_err(RB_EINVAL,
				      "control character 0x%02x in an address",
				      (unsigned char)s[i]);
	trim(&s, &len);
	/* Find '<' (or a trailing comment) outside any quoted string. */
	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && quoted) {
			i++;
		} else if (s[i] == '"') {
			quoted = !quoted;
		} else if (!quoted && s[i] == '<') {
			lt = s + i;
			break;
		} else if (!quoted && s[i] == '(' && !paren) {
			paren = s + i;
		}
	}
	if (lt) {
		gt = memrchr(lt, '>', len - (size_t)(lt - s));
		if (!gt || gt != s + len - 1)
			return rb_err(RB_EINVAL,
				      "no closing '>' at the end of a mailbox");
		a = lt + 1;
		alen = (size_t)(gt - a);
		n = s;
		nlen = (size_t)(lt - s);
		trim(&n, &nlen);
	} else if (paren && s[len - 1] == ')') {
		a = s;
		alen = (size_t)(paren - s);
		trim(&a, &alen);
		n = paren + 1;
		nlen = len - (size_t)(paren - s) - 2;
		trim(&n, &nlen);
	} else {
		a = s;
		alen = len;
	}
	if (alen > RB_ADDR_MAX)
		return rb_err(RB_EINVAL, "address longer than %d bytes",
			      RB_ADDR_MAX);
	addr = dup_range(a, alen);
	if (!addr)
		return rb_err(RB_ENOMEM, "out of memory");
	if (!rb_addr_valid(addr)) {
		ret = rb_err(RB_EINVAL, "not an RFC 5321 address: \"%s\"",
			     addr);
		goto out;
	}
	if (nlen) {
		ret = name_unquote(&name, n, nlen);
		if (ret)
			goto out;
	}
	out->name = name;
	out->addr = addr;
	return 0;
out:
	free(addr);
	return ret;
}

void rb_addr_release(struct rb_addr *a)
{
	if (!a)
		return;
	free(a->name);
	free(a->addr);
	a->name = NULL;
	a->addr = NULL;
}

/* Q literal characters: RFC 2047 5 (3), the strictest context (a phrase). */
static bool q_literal(unsigned char c)
{
	return is_alnum(c) || (c && strchr("!*+-/", c));
}

static size_t utf8_seq_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	return 4;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int put_b64(struct rb_buf *out, const unsigned char *p, size_t n)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		char q[4];

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		q[0] = b64[(v >> 18) & 63];
		q[1] = b64[(v >> 12) & 63];
		q[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? b64[v & 63] : '=';
		ret = rb_buf_add(out, q, 4);
	}
	return ret;
}

#define EW_MAX 75 /* RFC 2047 2: an encoded word is at most 75 bytes */
#define EW_OVERHEAD 12 /* "=?utf-8?q?" + "?=" */

int rb_rfc2047_encode(struct rb_buf *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i, qlen = 0, blen, start, wlen = 0;
	bool use_b;
	int ret = 0;

	for (i = 0; i < len; i++) {
		if (is_ctl(s[i]))
			return rb_err(RB_EINVAL,
				      "control character 0x%02x in header text",
				      s[i]);
		qlen += q_literal(s[i]) || s[i] == ' ' ? 1 : 3;
	}
	if (!rb_utf8_valid(text, len))
		return rb_err(RB_EINVAL, "header text is not valid UTF-8");
	blen = (len + 2) / 3 * 4;
	/*
	 * Q stays readable; B only when it is much shorter (mostly
	 * non-Latin text).
	 */
	use_b = blen * 3 < qlen * 2;

	start = 0;
	while (start < len && !ret) {
		/* Take whole characters while the word stays <= 75 bytes. */
		size_t end = start, cost = 0, raw = 0;

		while (end < len) {
			size_t n = utf8_seq_len(s[end]), c = 0, k;

			if (end + n > len)
				n = len - end;
			if (use_b) {
				c = ((raw + n + 2) / 3 * 4);
				if (c > EW_MAX - EW_OVERHEAD && end > start)
					break;
				raw += n;
			} else {
				for (k = 0; k < n; k++)
					c += q_literal(s[end + k]) ||
							     s[end + k] == ' ' ?
						     1 :
						     3;
				if (cost + c > EW_MAX - EW_OVERHEAD &&
				    end > start)
					break;
				cost += c;
			}
			end += n;
		}
		if (wlen++)
			ret = rb_buf_putc(out, ' ');
		if (!ret)
			ret = rb_buf_puts(out,
					  use_b ? "=?utf-8?b?" : "=?utf-8?q?");
		if (!ret && use_b)
			ret = put_b64(out, s + start, end - start);
		for (i = start; !use_b && i < end && !ret; i++) {
			if (s[i] == ' ')
				ret = rb_buf_putc(out, '_');
			else if (q_literal(s[i]))
				ret = rb_buf_putc(out, (char)s[i]);
			else
				ret = rb_buf_printf(out, "=%02X", s[i]);
		}
		if (!ret)
			ret = rb_buf_puts(out, "?=");
		start = end;
	}
	return ret;
}

int rb_addr_format(struct rb_buf *out, const struct rb_addr *a)
{
	size_t len, i, start = out->len;
	bool ascii = true, atoms = true;
	int ret;

	if (!rb_addr_valid(a->addr))
		return rb_err(RB_EINVAL, "not an RFC 5321 address");
	if (!a->name || !a->name[0])
		return rb_buf_puts(out, a->addr);
	len = strlen(a->name);
	ret = name_check(a->name, len);
	if (ret)
		return ret;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)a->name[i];

		if (c >= 0x80)
			ascii = false;
		else if (!is_atext(c) && !(c == ' ' && i && i + 1 < len &&
					   a->name[i + 1] != ' '))
			atoms = false;
	}
	/* "=?" in a plain name would be decoded by readers: encode it. */
	if (strstr(a->name, "=?"))
		ascii = false;
	if (!ascii) {
		ret = rb_rfc2047_encode(out, a->name, len);
	} else if (atoms) {
		ret = rb_buf_add(out, a->name, len);
	} else {
		ret = rb_buf_putc(out, '"');
		for (i = 0; i < len && !ret; i++) {
			if (a->name[i] == '"' || a->name[i] == '\\')
				ret = rb_buf_putc(out, '\\');
			if (!ret)
				ret = rb_buf_putc(out, a->name[i]);
		}
		if (!ret)
			ret = rb_buf_putc(out, '"');
	}
	if (!ret)
		ret = rb_buf_printf(out, " <%s>", a->addr);
	if (ret)
		rb_buf_truncate(out, start);
	return ret;
}

bool rb_addr_same(const char *x, const char *y)
{
	struct rb_addr a = { 0 }, b = { 0 };
	bool same = false;

	if (rb_addr_parse(&a, x) == 0 && rb_addr_parse(&b, y) == 0)
		same = !strcasecmp(a.addr, b.addr);
	rb_addr_release(&a);
	rb_addr_release(&b);
	return same;
}

void rb_addr_list_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int rb_addr_list_dedup(char ***out, size_t *n_out, const char *const *in,
		       size_t n_in, size_t max)
{
	char **v = NULL, **keys = NULL;
	size_t n = 0, i, j, over = 0;
	int ret = 0;

	if (!max)
		max = RB_ADDR_LIST_MAX;
	if (n_in) {
		size_t cap = n_in < max ? n_in : max;

		v = calloc(cap, sizeof(*v));
		keys = calloc(cap, sizeof(*keys));
		if (!v || !keys) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < n_in; i++) {
		struct rb_addr a = { 0 };
		bool dup = false;

		if (rb_addr_parse(&a, in[i])) {
			rb_log(RB_LOG_WARN, "addr.dropped", "reason",
			       rb_errmsg(), "entry", in[i] ? in[i] : "(null)",
			       NULL);
			continue;
		}
		for (j = 0; j < n && !dup; j++)
			dup = !strcasecmp(keys[j], a.addr);
		if (dup) {
			rb_addr_release(&a);
			continue;
		}
		if (n == max) {
			over++;
			rb_addr_release(&a);
			continue;
		}
		v[n] = strdup(in[i]);
		if (!v[n]) {
			rb_addr_release(&a);
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		keys[n++] = a.addr;
		a.addr = NULL;
		rb_addr_release(&a);
	}
	if (over) {
		char cnt[32];

		snprintf(cnt, sizeof(cnt), "%zu", over);
		rb_log(RB_LOG_WARN, "addr.capped", "dropped", cnt, NULL);
	}
	*out = v;
	*n_out = n;
	v = NULL;
out:
	rb_addr_list_free(v, n);
	rb_addr_list_free(keys, n);
	return ret;
}
