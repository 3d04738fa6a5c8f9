// SPDX-License-Identifier: GPL-2.0-only
/*
 * dkim.c - DKIM verification (RFC 6376) with libopendkim. See dkim.h.
 *
 * The whole message goes through dkim_chunk(), which splits header and
 * body itself; DKIM_LIBFLAGS_FIXCRLF lets it read the LF line endings the
 * store may hold. Every signature is looked at: one that passes, covers
 * the From: field and the whole body, and is aligned with From: is
 * enough (a list may add its own signature, and vger rewrites nothing
 * that the author's domain signed).
 *
 * What the pass vouches for is the one From: field (RFC 7489 3.1.1 and
 * 6.6.1): a message with two From: fields, or one with two mailboxes, or
 * whose From: is not the sender the caller judged, does not pass, however
 * good its signatures. A verifier hashes the last From: instance (RFC
 * 6376 5.4.2) while a reader may show the first; with exactly one there is
 * nothing to choose. The header block is read here as DKIM reads it, up to
 * the first empty line, so a line that ends the header block for the
 * message parser cannot hide a second From: from this check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <opendkim/dkim.h>

#include "mail/dkim.h"
#include "mail/message.h"
#include "mail/msg_internal.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define RB_DKIM_ADDR_MAX 1000 /* an address on one header line */

bool rb_dkim_aligned(const char *d, const char *from_addr)
{
	const char *dom = from_addr ? strrchr(from_addr, '@') : NULL;
	size_t ld, lf;

	if (!d || !*d || !dom || !dom[1])
		return false;
	dom++;
	ld = strlen(d);
	lf = strlen(dom);
	if (ld == lf)
		return !strcasecmp(d, dom);
	/* A parent domain: "example.org" covers "mail.example.org". */
	return lf > ld && dom[lf - ld - 1] == '.' &&
	       !strcasecmp(dom + lf - ld, d);
}

/*
 * The length of the header block as a DKIM verifier reads it: up to and
 * with the first empty line (LF or CRLF), or all of @raw.
 */
static size_t header_len(const char *raw, size_t len)
{
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(raw + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - raw) - off : len - off;

		if (!ll || (ll == 1 && raw[off] == '\r'))
			return nl ? (size_t)(nl - raw) + 1 : len;
		off = nl ? (size_t)(nl - raw) + 1 : len;
	}
	return len;
}

/*
 * The fields named @name of the header block as a DKIM verifier reads it
 * (RFC 6376 5.4.2: every line up to the first empty one, continuation
 * lines with their field). *n gets their number and *val, *vlen the value
 * of the last one (folded, as sent).
 */
static void fields_named(const char *raw, size_t len, const char *name,
			 size_t *n, const char **val, size_t *vlen)
{
	size_t off = 0, nl_len = strlen(name);
	bool in_field = false;

	*n = 0;
	*val = NULL;
	*vlen = 0;
	while (off < len) {
		const char *nl = memchr(raw + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - raw) - off : len - off;
		const char *l = raw + off;

		if (ll && l[ll - 1] == '\r')
			ll--;
		if (!ll)
			break;
		if (l[0] == ' ' || l[0] == '\t') {
			if (in_field)
				*vlen = (size_t)(l + ll - *val);
		} else {
			size_t k = nl_len;

			in_field = ll > nl_len && !strncasecmp(l, name, nl_len);
			while (in_field && k < ll &&
			       (l[k] == ' ' || l[k] == '\t'))
				k++;
			in_field = in_field && k < ll && l[k] == ':';
			if (in_field) {
				(*n)++;
				*val = l + k + 1;
				*vlen = ll - k - 1;
			}
		}
		off = nl ? (size_t)(nl - raw) + 1 : len;
	}
}

/*
 * Checks that @raw has exactly one From: field with exactly one mailbox,
 * and copies that address to @addr. 0 with r->reason set when it has not,
 * -RB_ENOMEM.
 */
static int one_from(struct rb_dkim_result *r, char *addr, size_t addr_len,
		    const char *raw, size_t len)
{
	struct rb_buf b = RB_BUF_INIT(1u << 20);
	struct rb_addr_list l = { 0 };
	const char *v;
	size_t n, vlen, i;
	int ret = 0;

	addr[0] = '\0';
	fields_named(raw, len, "from", &n, &v, &vlen);
	if (n != 1) {
		snprintf(r->reason, sizeof(r->reason),
			 "%zu From: header fields (a DKIM pass needs exactly "
			 "one)",
			 n);
		return 0;
	}
	/* Unfolded, as the message parser reads it. */
	for (i = 0; i < vlen && !ret; i++)
		if (v[i] != '\r' && v[i] != '\n')
			ret = rb_buf_putc(&b, v[i]);
	if (!ret)
		ret = rb_msg_parse_addrs(&l, b.ptr ? b.ptr : "", b.len, false);
	if (ret)
		goto out;
	if (l.n != 1 || !l.v[0].addr || !*l.v[0].addr)
		snprintf(r->reason, sizeof(r->reason),
			 "From: holds %zu mailboxes (a DKIM pass needs exactly "
			 "one)",
			 l.n);
	else
		snprintf(addr, addr_len, "%s", l.v[0].addr);
out:
	for (i = 0; i < l.n; i++) {
		free(l.v[i].name);
		free(l.v[i].addr);
	}
	free(l.v);
	rb_buf_release(&b);
	return ret;
}

/* True when the h= tag of @sig names the field @name. */
static bool signs(DKIM_SIGINFO *sig, const char *name)
{
	const char *h =
		(const char *)dkim_sig_gettagvalue(sig, false, (u_char *)"h");
	const char *p = h;
	size_t want = strlen(name);

	while (p && *p) {
		size_t k, e;

		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		k = strcspn(p, ":");
		/* the name without the folding white space after it */
		for (e = k; e && (p[e - 1] == ' ' || p[e - 1] == '\t' ||
				  p[e - 1] == '\r' || p[e - 1] == '\n');)
			e--;
		if (e == want && !strncasecmp(p, name, want))
			return true;
		p += k;
		if (*p == ':')
			p++;
	}
	return false;
}

/*
 * True when @sig covers every In-Reply-To: and References: field of @raw
 * (h= names a field once per instance it signs, RFC 6376 5.4.2).
 */
static bool signs_thread(DKIM_SIGINFO *sig, const char *raw, size_t len)
{
	static const char *const names[] = { "in-reply-to", "references" };
	const char *v;
	size_t i, n, vlen;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fields_named(raw, len, names[i], &n, &v, &vlen);
		if (n && !signs(sig, names[i]))
			return false;
	}
	return true;
}

/*
 * A verifier library that reads LF line endings, and keys from @key_file
 * (tests) when given, else from DNS. *out owned by the caller.
 */
static int lib_open(DKIM_LIB **out, const char *key_file)
{
	unsigned int flags = DKIM_LIBFLAGS_FIXCRLF;
	DKIM_LIB *lib = dkim_init(NULL, NULL);
	int ret = 0;

	if (!lib)
		return rb_err(RB_ENOMEM, "dkim: cannot initialise libopendkim");
	if (dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS, &flags,
			 sizeof(flags)) != DKIM_STAT_OK) {
		ret = rb_err(RB_EINVAL, "dkim: cannot set the library flags");
		goto out;
	}
	if (key_file) {
		dkim_query_t q = DKIM_QUERY_FILE;

		if (dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYMETHOD, &q,
				 sizeof(q)) != DKIM_STAT_OK ||
		    dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYINFO,
				 (void *)key_file,
				 strlen(key_file)) != DKIM_STAT_OK) {
			ret = rb_err(RB_EINVAL, "dkim: cannot use key file %s",
				     key_file);
			goto out;
		}
	}
out:
	if (ret)
		dkim_close(lib);
	else
		*out = lib;
	return ret;
}

/*
 * True when @sig vouches for the message: it passes over the whole body,
 * covers From: and is aligned with @from_addr. Else false, with why in
 * r->reason; r->domain is @sig's d= either way.
 */
static bool sig_vouches(struct rb_dkim_result *r, DKIM *dkim, DKIM_SIGINFO *sig,
			const char *from_addr)
{
	const char *d = (const char *)dkim_sig_getdomain(sig);
	unsigned int f = dkim_sig_getflags(sig);
	int bh = dkim_sig_getbh(sig);
	ssize_t signlen;

	snprintf(r->domain, sizeof(r->domain), "%s", d ? d : "");
	if (!(f & DKIM_SIGFLAG_PASSED) || bh != DKIM_SIGBH_MATCH) {
		int e = dkim_sig_geterror(sig);

		if (bh == DKIM_SIGBH_MISMATCH)
			snprintf(r->reason, sizeof(r->reason),
				 "DKIM body hash mismatch (d=%.100s)",
				 r->domain);
		else if (e != DKIM_SIGERROR_OK)
			snprintf(r->reason, sizeof(r->reason),
				 "DKIM signature d=%.100s: %.100s", r->domain,
				 dkim_sig_geterrorstr(e));
		else
			snprintf(r->reason, sizeof(r->reason),
				 "DKIM signature d=%.100s fails", r->domain);
		return false;
	}
	if (!signs(sig, "from")) {
		snprintf(r->reason, sizeof(r->reason),
			 "DKIM signature d=%.100s does not cover From:",
			 r->domain);
		return false;
	}
	/*
	 * RFC 6376 8.2: with l=, text appended to the signed length
	 * is unsigned, and a verdict is a line of the body. 3 of
	 * the 22,224 signed linux-api mails carry l=.
	 */
	if (dkim_sig_getcanonlen(dkim, sig, NULL, NULL, &signlen) !=
		    DKIM_STAT_OK ||
	    signlen >= 0) {
		snprintf(r->reason, sizeof(r->reason),
			 "DKIM signature d=%.100s has a body length (l=): "
			 "what follows it is unsigned",
			 r->domain);
		return false;
	}
	if (!rb_dkim_aligned(d, from_addr)) {
		snprintf(r->reason, sizeof(r->reason),
			 "DKIM signature d=%.100s is not the From: domain",
			 r->domain);
		return false;
	}
	return true;
}

int rb_dkim_verify(struct rb_dkim_result *out, const char *raw, size_t len,
		   const char *from_addr, const char *key_file)
{
	struct rb_dkim_result r = { 0 };
	DKIM_LIB *lib = NULL;
	DKIM *dkim = NULL;
	DKIM_SIGINFO **sigs = NULL;
	DKIM_STAT st;
	char from[RB_DKIM_ADDR_MAX];
	int nsigs = 0, i, ret = 0;

	/*
	 * libopendkim 2.11 reads past its copy of a header field that holds
	 * a NUL byte (ASan, found by fuzz_dkim), and RFC 5322 2.2 allows
	 * none: such mail is refused before it gets there.
	 */
	if (memchr(raw, '\0', header_len(raw, len))) {
		snprintf(r.reason, sizeof(r.reason),
			 "a NUL byte in the header block");
		*out = r;
		return 0;
	}
	ret = one_from(&r, from, sizeof(from), raw, len);
	if (ret)
		return ret;
	if (!from[0]) {
		*out = r;
		return 0;
	}
	ret = lib_open(&lib, key_file);
	if (ret)
		return ret;
	dkim = dkim_verify(lib, (const unsigned char *)"reviewbot", NULL, &st);
	if (!dkim) {
		ret = rb_err(RB_ENOMEM, "dkim: %s", dkim_getresultstr(st));
		goto out;
	}
	st = dkim_chunk(dkim, (unsigned char *)raw, len);
	if (st == DKIM_STAT_OK)
		st = dkim_chunk(dkim, NULL, 0);
	if (st == DKIM_STAT_OK || st == DKIM_STAT_NOSIG)
		st = dkim_eom(dkim, NULL);
	if (dkim_getsiglist(dkim, &sigs, &nsigs) != DKIM_STAT_OK || !nsigs) {
		snprintf(r.reason, sizeof(r.reason), "no DKIM signature");
		goto done;
	}
	for (i = 0; i < nsigs; i++) {
		if (!sig_vouches(&r, dkim, sigs[i], from_addr))
			continue;
		r.pass = true;
		r.thread_signed = signs_thread(sigs[i], raw, len);
		r.reason[0] = '\0';
		break;
	}
	/*
	 * The caller judged the sender it parsed; with one From: field that
	 * is the one signed, unless the two readers disagree.
	 */
	r.from_ok = from_addr && !strcasecmp(from, from_addr);
	if (r.pass && !r.from_ok) {
		r.pass = false;
		r.thread_signed = false;
		snprintf(r.reason, sizeof(r.reason),
			 "the signed From: is %.100s, not the sender %.100s",
			 from, from_addr ? from_addr : "(none)");
	}
done:
	*out = r;
out:
	if (dkim)
		dkim_free(dkim);
	dkim_close(lib);
	return ret;
}
