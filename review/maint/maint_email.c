// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_email.c - get_maintainer.pl's e-mail helpers on byte strings:
 * parse_email(), format_email(), the RFC 822 checks and comment
 * stripping, and the addresses maintainers_in_file() finds in .yaml
 * files. Where Perl regexes do the work, the regex is quoted and the C
 * code says how it was read.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

void rb_maint__email_release(struct email *e)
{
	free(e->name);
	free(e->addr);
	e->name = e->addr = NULL;
}

/* s/^\s+|\s+$//g on [s, s+len). */
void rb_maint__trim(const char **s, size_t *len)
{
	while (*len && is_ws((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_ws((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

/*
 * The name clean-up parse_email() and format_email() share:
 *   $name =~ s/^\s+|\s+$//g; $name =~ s/^\"|\"$//g;
 *   if ($name =~ /[^\w \-]/i) { s/(?<!\\)"/\\"/g; $name = "\"$name\""; }
 */
static char *fix_name(const char *s, size_t len)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	bool special = false;
	size_t i;
	int err = 0;

	rb_maint__trim(&s, &len);
	if (len && s[0] == '"') {
		s++;
		len--;
	}
	if (len && s[len - 1] == '"')
		len--;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_word(c) && c != ' ' && c != '-')
			special = true;
	}
	if (!special)
		return strndup(s, len);
	err = rb_buf_putc(&b, '"');
	for (i = 0; i < len && !err; i++) {
		if (s[i] == '"' && (i == 0 || s[i - 1] != '\\'))
			err = rb_buf_putc(&b, '\\');
		if (!err)
			err = rb_buf_putc(&b, s[i]);
	}
	if (!err)
		err = rb_buf_putc(&b, '"');
	if (err) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

/* True when [s+i, len) is ".*$": no "\n" but a final one. */
static bool rest_ok(const char *s, size_t len, size_t i)
{
	const char *nl = memchr(s + i, '\n', len - i);

	return !nl || (size_t)(nl - s) + 1 == len;
}

/* Where parse_email() found the name and the address in its input. */
struct email_span {
	size_t nb, ne, ab, ae;
};

/* /^([^<]+)<(.+\@.*)>.*$/: the name is everything before the first "<". */
static bool email_named(struct email_span *sp, const char *s, size_t len)
{
	const char *lt = memchr(s, '<', len);
	size_t o, lim, i, j;
	const char *nl;

	if (!lt || lt == s)
		return false;
	o = (size_t)(lt - s) + 1;
	nl = memchr(s + o, '\n', len - o);
	lim = nl ? (size_t)(nl - s) : len;
	/* The group ends at the last ">" (greedy) before any "\n" with an
	 * "@" after its first byte, and ".*$" after it.
	 */
	for (j = lim; j-- > o + 1;) {
		if (s[j] != '>' || !rest_ok(s, len, j + 1))
			continue;
		for (i = o + 1; i < j; i++)
			if (s[i] == '@') {
				sp->nb = 0;
				sp->ne = (size_t)(lt - s);
				sp->ab = o;
				sp->ae = j;
				return true;
			}
	}
	return false;
}

/* /^\s*<(.+\@\S*)>.*$/: "<address>" with optional leading white space. */
static bool email_angle(struct email_span *sp, const char *s, size_t len)
{
	size_t o = 0, lim, k, e, j;
	const char *nl;

	while (o < len && is_ws((unsigned char)s[o]))
		o++;
	if (o >= len || s[o] != '<')
		return false;
	o++;
	nl = memchr(s + o, '\n', len - o);
	lim = nl ? (size_t)(nl - s) : len;
	/* ".+" greedy: the last "@" first; then "\S*" greedy up to the last
	 * ">" in its run.
	 */
	for (k = lim; k-- > o + 1;) {
		if (s[k] != '@')
			continue;
		e = k + 1;
		while (e < len && !is_ws((unsigned char)s[e]))
			e++;
		for (j = e; j-- > k + 1;)
			if (s[j] == '>' && rest_ok(s, len, j + 1)) {
				sp->ab = o;
				sp->ae = j;
				return true;
			}
	}
	return false;
}

/* /^(.+\@\S*).*$/: "address" with anything after the run that holds
 * it. */
static bool email_bare(struct email_span *sp, const char *s, size_t len)
{
	size_t lim = len, k, e;

	if (!rest_ok(s, len, 0))
		return false;
	if (lim && s[lim - 1] == '\n')
		lim--;
	for (k = lim; k-- > 1;) {
		if (s[k] != '@')
			continue;
		e = k + 1;
		while (e < len && !is_ws((unsigned char)s[e]))
			e++;
		sp->ab = 0;
		sp->ae = e;
		return true;
	}
	return false;
}

/*
 * parse_email():
 *   /^([^<]+)<(.+\@.*)>.*$/   -> name, address
 *   /^\s*<(.+\@\S*)>.*$/      -> address
 *   /^(.+\@\S*).*$/           -> address
 * then the name is cleaned (fix_name) and the address trimmed.
 */
int rb_maint__parse_email(struct email *out, const char *s, size_t len)
{
	struct email_span sp = { 0 };
	const char *a;
	size_t al;

	if (!email_named(&sp, s, len) && !email_angle(&sp, s, len))
		email_bare(&sp, s, len);
	out->name = fix_name(s + sp.nb, sp.ne - sp.nb);
	a = s + sp.ab;
	al = sp.ae - sp.ab;
	rb_maint__trim(&a, &al);
	out->addr = strndup(a, al);
	if (!out->name || !out->addr) {
		rb_maint__email_release(out);
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	return 0;
}

int rb_maint__parse_email_str(struct email *out, const char *s)
{
	return rb_maint__parse_email(out, s, strlen(s));
}

/* format_email($name, $address, 1). */
char *rb_maint__format_email(const char *name, const char *addr)
{
	char *n = fix_name(name, strlen(name));
	const char *a = addr;
	size_t al = strlen(addr);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int err;

	if (!n)
		return NULL;
	rb_maint__trim(&a, &al);
	if (*n)
		err = rb_buf_printf(&b, "%s <%.*s>", n, (int)al, a);
	else
		err = rb_buf_add(&b, a, al);
	free(n);
	if (err) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

/*
 * make_rfc822re(), as the Perl text of the regex. The one change: an atom
 * ends in "(?:lwsp+|\Z|(?=[\["specials]))", a look-ahead POSIX does not
 * have; "lwsp*" accepts the same strings, since atoms are maximal runs and
 * nothing in the grammar may follow an atom but white space, a special, a
 * quote or the end.
 */
static int rfc822_perl(struct rb_buf *b, bool list)
{
	static const char lwsp[] = "(?:(?:\\r\\n)?[ \\t])";
	static const char specials[] = "()<>@,;:\\\\\".\\[\\]";
	struct rb_buf atom = RB_BUF_INIT(1 << 16), qs = RB_BUF_INIT(1 << 16),
		      dl = RB_BUF_INIT(1 << 16), word = RB_BUF_INIT(1 << 16),
		      dom = RB_BUF_INIT(1 << 18), addr = RB_BUF_INIT(1 << 18),
		      mbox = RB_BUF_INIT(1 << 20), re = RB_BUF_INIT(1 << 21);
	int err;

	err = rb_buf_printf(&atom, "[^%s \\000-\\037\\x7f]+%s*", specials,
			    lwsp);
	err = err   ?:
		      rb_buf_printf(&qs, "\"(?:[^\\\"\\r\\\\]|\\\\.|%s)*\"%s*",
				    lwsp, lwsp);
	err = err   ?:
		      rb_buf_printf(&dl, "\\[(?:[^\\[\\]\\r\\\\]|\\\\.)*\\]%s*",
				    lwsp);
	err = err ?: rb_buf_printf(&word, "(?:%s|%s)", atom.ptr, qs.ptr);
	/* domain = sub_domain(?:\.lwsp*sub_domain)* */
	err = err   ?:
		      rb_buf_printf(&dom, "(?:%s|%s)(?:\\.%s*(?:%s|%s))*",
				    atom.ptr, dl.ptr, lwsp, atom.ptr, dl.ptr);
	/* addr_spec = localpart\@lwsp*domain */
	err = err   ?:
		      rb_buf_printf(&addr, "%s(?:\\.%s*%s)*\\@%s*%s", word.ptr,
				    lwsp, word.ptr, lwsp, dom.ptr);
	/* mailbox = (?:addr_spec|phrase route_addr) */
	err = err   ?:
		      rb_buf_printf(
			      &mbox,
			      "(?:%s|%s*\\<%s*(?:\\@%s(?:,\\@%s*%s)*:%s*)?"
			      "%s\\>%s*)",
			      addr.ptr, word.ptr, lwsp, dom.ptr, lwsp, dom.ptr,
			      lwsp, addr.ptr, lwsp);
	/* address = (?:mailbox|group); re = lwsp*address */
	err = err   ?:
		      rb_buf_printf(&re,
				    "%s*(?:%s|%s*:%s*(?:%s(?:,\\s*%s)*)?;\\s*)",
				    lwsp, mbox.ptr, word.ptr, lwsp, mbox.ptr,
				    mbox.ptr);
	if (!err && list)
		err = rb_buf_printf(b, "^(?:%s)?(?:,(?:%s)?)*$", re.ptr,
				    re.ptr);
	else if (!err)
		err = rb_buf_printf(b, "^%s$", re.ptr);
	rb_buf_release(&atom);
	rb_buf_release(&qs);
	rb_buf_release(&dl);
	rb_buf_release(&word);
	rb_buf_release(&dom);
	rb_buf_release(&addr);
	rb_buf_release(&mbox);
	rb_buf_release(&re);
	return err;
}

bool rb_maint__rfc822_match(struct index *ix, int list, const char *s)
{
	if (!__atomic_load_n(&ix->rfc_state[list], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&ix->lock);
		if (!ix->rfc_perl[list]) {
			struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

			if (rfc822_perl(&b, list))
				ix->rfc_state[list] = -1;
			else
				ix->rfc_perl[list] = rb_buf_detach(&b, NULL);
			rb_buf_release(&b);
		}
		pthread_mutex_unlock(&ix->lock);
		if (!ix->rfc_perl[list])
			return false;
	}
	return rb_maint__lazy_re(ix, &ix->rfc[list], &ix->rfc_state[list],
				 ix->rfc_perl[list], false) &&
	       rb_perl_re_match(&ix->rfc[list], s, strlen(s));
}

/*
 * rfc822_strip_comments(): while a "(...)" without parentheses inside is
 * found outside quotes, the last one (the regex's greedy prefix) becomes
 * one space.
 */
char *rb_maint__strip_comments(const char *in)
{
	char *s = strdup(in);

	while (s) {
		size_t i, n = strlen(s), cand = n, close = 0;
		bool q = false;

		for (i = 0; i < n; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				i++;
				continue;
			}
			if (s[i] == '"') {
				q = !q;
				continue;
			}
			if (!q && s[i] == '(') {
				size_t j = i + 1;

				while (j < n && s[j] != '(' && s[j] != ')')
					j += s[j] == '\\' && j + 1 < n ? 2 : 1;
				if (j < n && s[j] == ')') {
					cand = i;
					close = j;
				}
			}
		}
		if (q) {
			/* An open quote: the prefix stops before it, so only
			 * comments before that quote count. Recompute.
			 */
			size_t lastq = n;

			for (i = 0, q = false; i < n; i++) {
				if (s[i] == '\\' && i + 1 < n) {
					i++;
					continue;
				}
				if (s[i] == '"') {
					q = !q;
					if (q)
						lastq = i;
				}
			}
			if (cand != n && cand > lastq)
				cand = n;
		}
		if (cand == n)
			break;
		s[cand] = ' ';
		memmove(s + cand + 1, s + close + 1, n - close);
	}
	return s;
}

/* The character classes of the file-e-mail regexes, as bytes: "À-ÿ" in
 * a byte string is \xC3 \x80-\xC3 \xBF.
 */
static bool in_hi(unsigned char c)
{
	return (c >= 0x80 && c <= 0xC3) || c == 0xBF;
}

static bool c_lead(unsigned char c) /* [A-Za-zÀ-ÿ\"\' \,\.\+-] */
{
	return (c < 128 && isalpha(c)) || in_hi(c) || c == '"' || c == '\'' ||
	       c == ' ' || c == ',' || c == '.' || c == '+' || c == '-';
}

static bool c_local(unsigned char c) /* [A-Za-z0-9_\.\+-] */
{
	return (c < 128 && isalnum(c)) || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

static bool c_dom(unsigned char c) /* [A-Za-z0-9\.-] */
{
	return (c < 128 && isalnum(c)) || c == '.' || c == '-';
}

/*
 * Can [s, at) be read as [lead]*\s*[\,]*\s*[\(\<\{]{0,1}[local]+ ?
 * (@at is the "@"). A small NFA: the states are the pattern's parts.
 */
static bool prefix_ok(const unsigned char *s, size_t at)
{
	/* states: 0 lead*, 1 \s*, 2 ,*, 3 \s*, 4 bracket taken, 5 local+ */
	unsigned int st = 1u << 0 | 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4;
	size_t i;

	/* st bit k: "may be in part k before the next byte". The parts up
	 * to 3 may be empty, so all are reachable at the start; bit 4
	 * means "before the optional bracket".
	 */
	for (i = 0; i < at; i++) {
		unsigned char c = s[i];
		unsigned int nst = 0;

		if ((st & 1) && c_lead(c))
			nst |= 0x1f; /* stay in lead*, or move on */
		if ((st & 2) && is_ws(c))
			nst |= 0x1e;
		if ((st & 4) && c == ',')
			nst |= 0x1c;
		if ((st & 8) && is_ws(c))
			nst |= 0x18;
		if ((st & 0x10) && (c == '(' || c == '<' || c == '{'))
			nst |= 0x40; /* after the bracket: local+ next */
		if ((st & (0x10 | 0x40 | 0x20)) && c_local(c))
			nst |= 0x20;
		if (!nst)
			return false;
		st = nst;
	}
	return (st & 0x20) != 0;
}

/*
 * The addresses maintainers_in_file() takes from a .yaml file:
 * @poss_addr = $text =~ m$[A-Za-zÀ-ÿ\"\' \,\.\+-]*\s*[\,]*\s*[\(\<\{]{0,1}
 *   [A-Za-z0-9_\.\+-]+\@[A-Za-z0-9\.-]+\.[A-Za-z0-9]+[\)\>\}]{0,1}$g
 * (the leftmost start that matches; the end is the greedy one.)
 */
int rb_maint__file_addresses(struct strv *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t pos = 0;
	int err = 0;

	while (pos < len && !err) {
		const unsigned char *at = memchr(s + pos, '@', len - pos);
		size_t a, st, e, d, best, k;
		bool found = false;

		if (!at)
			break;
		a = (size_t)(at - s);
		/* The domain part: [dom]+ \. [alnum]+ with the last "."
		 * that has an alnum after it.
		 */
		e = a + 1;
		while (e < len && c_dom(s[e]))
			e++;
		best = 0;
		for (d = e; d-- > a + 2;)
			if (s[d] == '.' && d + 1 < e && isalnum(s[d + 1])) {
				best = d;
				break;
			}
		if (!best) {
			pos = a + 1;
			continue;
		}
		/* The leftmost start, from pos, whose prefix reads. */
		for (st = pos; st < a; st++)
			if (prefix_ok(s + st, a - st)) {
				found = true;
				break;
			}
		if (!found) {
			pos = a + 1;
			continue;
		}
		k = best + 1;
		while (k < len && s[k] < 128 && isalnum(s[k]))
			k++;
		if (k < len && (s[k] == ')' || s[k] == '>' || s[k] == '}'))
			k++;
		err = rb_maint__strv_push(out, strndup(text + st, k - st));
		pos = k;
	}
	return err;
}

static bool c_name(unsigned char c) /* [A-Za-zÀ-ÿ\'\,\.\+-] */
{
	return (c < 128 && isalpha(c)) || in_hi(c) || c == '\'' || c == ',' ||
	       c == '.' || c == '+' || c == '-';
}

/* s/[\(\<\{]{0,1}([local]+\@[dom]+)[\)\>\}]{0,1}/\<$1\>/ for the "@" at
 * @at of @raw, into @b. */
static int bracket_address(struct rb_buf *b, const char *raw, const char *at)
{
	size_t st, le, de, len = strlen(raw), from, to;

	le = (size_t)(at - raw);
	st = le;
	while (st && c_local((unsigned char)raw[st - 1]))
		st--;
	de = le + 1;
	while (de < len && c_dom((unsigned char)raw[de]))
		de++;
	if (st >= le || de <= le + 1)
		return rb_buf_puts(b, raw);
	from = st;
	to = de;
	if (from && strchr("(<{", raw[from - 1]))
		from--;
	if (to < len && strchr(")>}", raw[to]))
		to++;
	if (rb_buf_add(b, raw, from) || rb_buf_putc(b, '<') ||
	    rb_buf_add(b, raw + st, de - st) || rb_buf_putc(b, '>') ||
	    rb_buf_puts(b, raw + to))
		return -RB_ENOMEM;
	return 0;
}

/*
 * @nw = split(/[^A-Za-zÀ-ÿ\'\,\.\+-]/, $name); with more than two words
 * the name becomes the last two, or three when the first or second is
 * an initial. Returns the name to use (@name or a new one, @name then
 * freed), NULL when out of memory (@name freed).
 */
static char *name_words(char *name)
{
	size_t nl = strlen(name), i, nw = 0, fs[3] = { 0 }, fe[3] = { 0 };
	size_t cs = 0, endn = nl, l0, l1;
	struct rb_buf nb = RB_BUF_INIT(RB_BUF_NOLIMIT);
	bool three;

	/* Trailing empty fields are dropped by split. */
	while (endn && !c_name((unsigned char)name[endn - 1]))
		endn--;
	for (i = 0; endn && i <= endn; i++) {
		if (i == endn || !c_name((unsigned char)name[i])) {
			fs[0] = fs[1];
			fe[0] = fe[1];
			fs[1] = fs[2];
			fe[1] = fe[2];
			fs[2] = cs;
			fe[2] = i;
			nw++;
			cs = i + 1;
		}
	}
	if (nw <= 2)
		return name;
	l0 = fe[0] - fs[0];
	l1 = fe[1] - fs[1];
	three = (l0 == 1 && isalpha((unsigned char)name[fs[0]])) ||
		(l0 == 2 && name[fe[0] - 1] == '.') || l1 == 1 ||
		(l1 == 2 && name[fe[1] - 1] == '.');
	if ((three && rb_buf_printf(&nb, "%.*s ", (int)l0, name + fs[0])) ||
	    rb_buf_printf(&nb, "%.*s %.*s", (int)l1, name + fs[1],
			  (int)(fe[2] - fs[2]), name + fs[2])) {
		rb_buf_release(&nb);
		free(name);
		return NULL;
	}
	free(name);
	return rb_buf_detach(&nb, NULL);
}

/* s/[,\.]$//; s/(\"[,\.])$/\"/... : a "," or "." at either end goes,
 * inside the quotes too. */
static void strip_name_punct(char *name)
{
	size_t nl = strlen(name);

	if (nl && (name[nl - 1] == ',' || name[nl - 1] == '.'))
		name[nl - 1] = '\0';
	else if (nl >= 2 && name[nl - 1] == '"' &&
		 (name[nl - 2] == ',' || name[nl - 2] == '.')) {
		name[nl - 2] = '"';
		name[nl - 1] = '\0';
	}
	nl = strlen(name);
	if (nl && (name[0] == ',' || name[0] == '.'))
		memmove(name, name + 1, nl);
	else if (nl >= 2 && name[0] == '"' &&
		 (name[1] == ',' || name[1] == '.'))
		memmove(name + 1, name + 2, nl - 1);
}

/* clean_file_emails() for one address. */
char *rb_maint__clean_file_email(const char *raw)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct email e = { 0 };
	const char *at = strchr(raw, '@');
	char *name = NULL, *out = NULL;

	if (!at)
		return NULL;
	if (bracket_address(&b, raw, at) ||
	    rb_maint__parse_email(&e, b.ptr, b.len))
		goto out;
	name = e.name;
	e.name = NULL;
	if (!strcmp(name, "\"[,\\.]\""))
		name[0] = '\0';
	name = name_words(name);
	if (!name)
		goto out;
	strip_name_punct(name);
	out = rb_maint__format_email(name, e.addr);
out:
	free(name);
	rb_maint__email_release(&e);
	rb_buf_release(&b);
	return out;
}
