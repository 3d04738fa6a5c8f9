// SPDX-License-Identifier: GPL-2.0-only
/*
 * inbox.c - a thread from a public-inbox server. See inbox.h.
 *
 * public-inbox's WWW interface (Documentation/public-inbox-httpd.pod and
 * lib/PublicInbox/WwwStream.pm in its sources): MSGID/t.mbox.gz is the
 * thread as a gzipped mboxrd; message ids are escaped in paths as
 * mid_escape() does, every byte outside [A-Za-z0-9-._~!$&'()*+,;=:@] as
 * %XX. The body is application/gzip, not a Content-Encoding, so it is
 * inflated here with zlib (which libcurl and libgit2 already link).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <zlib.h>

#include "mail/inbox.h"
#include "mail/tls_verify.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

char *rb_inbox_thread_url(const char *base, const char *msgid)
{
	static const char keep[] = "-._~!$&'()*+,;=:@";
	struct rb_buf b = RB_BUF_INIT(64 * 1024);
	const unsigned char *s;
	bool dots;
	size_t len;

	if (!base || !msgid || !*msgid)
		return NULL;
	/*
	 * "<..>" would be the path segment "..", which libcurl and every
	 * server resolve: the thread of "<..>" would be BASE/../t.mbox.gz,
	 * outside the inbox (issue 33). An id of dots only has them all
	 * escaped; '/' is escaped always (it is not in @keep).
	 */
	dots = strspn(msgid, ".") == strlen(msgid);
	len = strlen(base);
	if (rb_buf_puts(&b, base) ||
	    (len && base[len - 1] != '/' && rb_buf_putc(&b, '/')))
		goto bad;
	for (s = (const unsigned char *)msgid; *s; s++) {
		if (*s < 0x21 || *s == 0x7f)
			goto bad;
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') ||
		    (*s < 0x80 && strchr(keep, *s) && !(dots && *s == '.'))) {
			if (rb_buf_putc(&b, (char)*s))
				goto bad;
		} else if (rb_buf_printf(&b, "%%%02X", *s)) {
			goto bad;
		}
	}
	if (rb_buf_puts(&b, "/t.mbox.gz"))
		goto bad;
	return rb_buf_detach(&b, NULL);
bad:
	rb_buf_release(&b);
	return NULL;
}

/* The download, inflated as it arrives. */
struct sink {
	z_stream z;
	bool z_open, z_done;
	struct rb_buf out; /* the mbox, capped at max_bytes */
	size_t in_bytes, max_in;
	int err; /* why the write callback refused */
	char errbuf[CURL_ERROR_SIZE]; /* libcurl's reason, or "" */
};

static size_t write_cb(char *data, size_t size, size_t n, void *payload)
{
	struct sink *s = payload;
	size_t len = size * n;
	unsigned char buf[65536];
	int zr;

	s->in_bytes += len;
	if (s->in_bytes > s->max_in) {
		s->err = RB_ETOOBIG;
		return 0;
	}
	if (s->z_done)
		return len; /* trailing bytes after the gzip member */
	s->z.next_in = (unsigned char *)data;
	s->z.avail_in = (uInt)len;
	do {
		s->z.next_out = buf;
		s->z.avail_out = sizeof(buf);
		zr = inflate(&s->z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			s->err = RB_EPARSE;
			return 0;
		}
		if (rb_buf_add(&s->out, buf, sizeof(buf) - s->z.avail_out)) {
			s->err = RB_ETOOBIG;
			return 0;
		}
		if (zr == Z_STREAM_END) {
			s->z_done = true;
			break;
		}
	} while (s->z.avail_in || !s->z.avail_out);
	return len;
}

/* The options with a default for each field left 0. */
static void opts_fill(struct rb_inbox_opts *out, const struct rb_inbox_opts *o)
{
	const struct rb_inbox_opts d = RB_INBOX_OPTS_INIT;

	*out = o ? *o : d;
	if (out->timeout_seconds <= 0)
		out->timeout_seconds = d.timeout_seconds;
	if (!out->max_bytes)
		out->max_bytes = d.max_bytes;
	if (!out->max_message)
		out->max_message = d.max_message;
}

/* One GET of @url into @s: HTTP(S) only, no redirect, the TLS checked. */
static CURLcode set_options(CURL *c, const char *url,
			    const struct rb_inbox_opts *o, struct sink *s)
{
	CURLcode rc;

	rc = curl_easy_setopt(c, CURLOPT_URL, url);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (!rc)
		rc = rb_tls_verify_curl(c, o->ca_file);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_TIMEOUT, o->timeout_seconds);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_USERAGENT,
				      "reviewbot (public-inbox thread fetch)");
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_ERRORBUFFER, s->errbuf);
	return rc;
}

/* What the transfer (libcurl's @rc, HTTP @status) says of the thread. */
static int transfer_result(const struct sink *s, CURLcode rc, long status,
			   const char *url)
{
	if (rc == CURLE_WRITE_ERROR && s->err)
		return rb_err(s->err,
			      s->err == RB_ETOOBIG ?
				      "%s: the thread is over %zu bytes" :
				      "%s: not a gzip body (%zu bytes read)",
			      url, s->max_in);
	if (rc)
		return rb_err(RB_EAGAIN, "%s: %s", url,
			      s->errbuf[0] ? s->errbuf :
					     curl_easy_strerror(rc));
	if (status == 404 || status == 410)
		return rb_err(RB_ENOTFOUND, "%s: HTTP %ld: not in the inbox",
			      url, status);
	if (status != 200)
		return rb_err(status == 429 || status >= 500 ? RB_EAGAIN :
							       RB_EINVAL,
			      "%s: HTTP %ld", url, status);
	if (!s->z_done)
		return rb_err(RB_EPARSE, "%s: the gzip body ends early", url);
	return 0;
}

int rb_inbox_fetch_thread(const struct rb_inbox_opts *opts, const char *msgid,
			  rb_mail_fn fn, void *payload)
{
	struct rb_inbox_opts o;
	struct rb_buf name = RB_BUF_INIT(64 * 1024);
	struct sink s = { 0 };
	CURL *c = NULL;
	CURLcode rc;
	long status = 0;
	char *url;
	int ret;

	opts_fill(&o, opts);
	url = rb_inbox_thread_url(o.base_url, msgid);
	if (!url)
		return rb_err(RB_EINVAL, "no thread URL for <%s> under %s",
			      msgid ? msgid : "", o.base_url ? o.base_url : "");
	rb_buf_init(&s.out, o.max_bytes);
	/* gzip of list mail is about 4:1; a bigger download is not mail. */
	s.max_in = o.max_bytes;
	if (inflateInit2(&s.z, 16 + MAX_WBITS) != Z_OK) {
		ret = rb_err(RB_ENOMEM, "zlib: cannot start");
		goto out;
	}
	s.z_open = true;
	c = curl_easy_init();
	if (!c) {
		ret = rb_err(RB_ENOMEM, "libcurl: cannot start");
		goto out;
	}
	rc = set_options(c, url, &o, &s);
	if (rc) {
		ret = rb_err(RB_EINVAL, "%s: %s", url, curl_easy_strerror(rc));
		goto out;
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	ret = transfer_result(&s, rc, status, url);
	ret = ret ?: rb_buf_printf(&name, "fetch:%s", url);
	ret = ret   ?:
		      rb_mbox_split(s.out.ptr ? s.out.ptr : "", s.out.len,
				    name.ptr, o.max_message, fn, payload);
out:
	if (s.z_open)
		inflateEnd(&s.z);
	rb_buf_release(&s.out);
	rb_buf_release(&name);
	if (c)
		curl_easy_cleanup(c);
	free(url);
	return ret;
}
