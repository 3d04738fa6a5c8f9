// SPDX-License-Identifier: GPL-2.0-only
/*
 * sender_smtp.c - SMTP submission through libcurl.
 *
 * RFC 5321 (the transaction: MAIL, RCPT, DATA; 4.2.1 reply codes: 4yz
 * transient, 5yz permanent), RFC 3207 (STARTTLS, required by default),
 * RFC 8314 (smtps://, implicit TLS), RFC 4954 (AUTH). libcurl 7.88 checks
 * neither envelope address (DESIGN.md fact 7): rb_sender_send() does.
 *
 * Every send uses a fresh connection (no reuse): a reply bot sends a few
 * mails a minute, and a connection left in an unknown state by a failed
 * transaction must never carry the next message.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/addr.h"
#include "mail/sender.h"
#include "mail/sender_smtp.h"
#include "mail/tls_verify.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define DEFAULT_TIMEOUT_MS 60000L
#define REPLY_MAX 512

struct smtp_sender {
	struct rb_sender base;
	char *url; /* scheme://host:port, no path */
	char *user;
	char *password;
	char *ca_file;
	char *helo;
	long timeout_ms;
	bool tls; /* smtps://, or STARTTLS required */
};

/* What the server said last, and which command of ours it answered. */
struct transcript {
	char cmd[RB_ADDR_MAX + 16];
	char reply[REPLY_MAX];
	size_t reply_len;
	bool reply_done; /* the last line had "xyz " (not "xyz-") */
	bool frozen; /* an error reply was seen: keep it (not QUIT's 221) */
};

struct upload {
	const char *p;
	size_t len;
	size_t pos;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t read_cb(char *buf, size_t size, size_t nitems, void *arg)
{
	struct upload *u = arg;
	size_t n = size * nitems, left = u->len - u->pos;

	if (n > left)
		n = left;
	memcpy(buf, u->p + u->pos, n);
	u->pos += n;
	return n;
}

/* Copies a protocol line without its CRLF, control characters as '?'. */
static size_t copy_line(char *dst, size_t cap, const char *src, size_t len)
{
	size_t i, n = 0;

	while (len && (src[len - 1] == '\n' || src[len - 1] == '\r'))
		len--;
	for (i = 0; i < len && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[n++] = (c < 32 || c > 126) ? '?' : (char)c;
	}
	dst[n] = '\0';
	return n;
}

/*
 * Keeps the server's last reply and our last command. Only MAIL and RCPT
 * are kept whole (addresses); of anything else only the verb, so AUTH
 * credentials never reach an error message or a log.
 */
static int debug_cb(CURL *c, curl_infotype type, char *data, size_t size,
		    void *arg)
{
	struct transcript *t = arg;

	if (t->frozen)
		return 0;
	if (type == CURLINFO_HEADER_OUT) {
		size_t verb = 0;

		while (verb < size && data[verb] != ' ' && data[verb] != '\r')
			verb++;
		if ((size >= 5 && !strncasecmp(data, "MAIL ", 5)) ||
		    (size >= 5 && !strncasecmp(data, "RCPT ", 5)))
			verb = size;
		copy_line(t->cmd, sizeof(t->cmd), data, verb);
	} else if (type == CURLINFO_HEADER_IN) {
		if (t->reply_done) {
			t->reply_len = 0;
			t->reply[0] = '\0';
		}
		if (t->reply_len && t->reply_len + 2 < sizeof(t->reply)) {
			t->reply[t->reply_len++] = ' ';
			t->reply[t->reply_len] = '\0';
		}
		t->reply_len += copy_line(t->reply + t->reply_len,
					  sizeof(t->reply) - t->reply_len, data,
					  size);
		t->reply_done = !(size > 3 && data[3] == '-');
		if (t->reply_done && (data[0] == '4' || data[0] == '5'))
			t->frozen = true;
	}
	return 0;
}

static bool host_is_loopback(const char *host)
{
	struct in_addr a4;

	if (!strcasecmp(host, "localhost") || !strcmp(host, "[::1]") ||
	    !strcmp(host, "::1"))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return false;
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void smtp_free(struct rb_sender *base)
{
	struct smtp_sender *s = (struct smtp_sender *)base;

	if (!s)
		return;
	free(s->url);
	free(s->user);
	rb_free_secret(s->password);
	free(s->ca_file);
	free(s->helo);
	free(s);
}

/* Turns the outcome into our codes (STYLE.md: at the module boundary). */
static int smtp_result(const struct smtp_sender *s, CURLcode rc, long code,
		       const struct transcript *t, const char *errbuf)
{
	const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
	const char *cmd = t->cmd[0] ? t->cmd : "connect";
	const char *reply = t->reply[0] ? t->reply : "(no reply)";

	switch (rc) {
	case CURLE_OK:
		return 0;
	case CURLE_LOGIN_DENIED:
		return rb_err(RB_ECONFIG, "%s: authentication refused: %s",
			      s->url, reply);
	case CURLE_USE_SSL_FAILED:
		return rb_err(
			RB_ECONFIG,
			"%s: STARTTLS is required but the server does not offer it: %s",
			s->url, why);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		return rb_err(RB_ECONFIG, "%s: %s", s->url, why);
	default:
		break;
	}
	/* RFC 5321 4.2.1: 4yz is transient, 5yz permanent. */
	if (code >= 400 && code <= 499)
		return rb_err(RB_EAGAIN, "%s: %s: %s", s->url, cmd, reply);
	if (code >= 500 && code <= 599)
		return rb_err(RB_EFAIL, "%s: %s: %s", s->url, cmd, reply);
	/* No error reply: the connection failed, timed out or broke. */
	return rb_err(RB_EAGAIN, "%s: %s: %s (last reply: %s)", s->url, cmd,
		      why, reply);
}

/* One message on its way: what libcurl reads and writes during it. */
struct smtp_job {
	const char *env_from; /* borrowed */
	struct curl_slist *rcpts;
	struct rb_buf url; /* s->url with the EHLO name as its path */
	struct upload up;
	struct transcript t;
	char errbuf[CURL_ERROR_SIZE];
};

/*
 * The URL of one send. The EHLO name is the URL's path for libcurl;
 * default to the envelope sender's domain (rb_sender_check_envelope()
 * saw its @) when it is a host name.
 */
static int job_url(struct smtp_job *j, const struct smtp_sender *s)
{
	const char *helo = s->helo;

	if (!helo) {
		helo = strrchr(j->env_from, '@') + 1;
		if (*helo == '[')
			helo = NULL;
	}
	return rb_buf_printf(&j->url, "%s/%s", s->url, helo ? helo : "");
}

static int job_rcpts(struct smtp_job *j, const char *const *rcpts, size_t n)
{
	struct curl_slist *tmp;
	size_t i;

	for (i = 0; i < n; i++) {
		tmp = curl_slist_append(j->rcpts, rcpts[i]);
		if (!tmp)
			return rb_err(RB_ENOMEM, "out of memory");
		j->rcpts = tmp;
	}
	return 0;
}

/*
 * One connection for one message (no reuse: a failure stays with its
 * message), TLS as configured, and every command and reply through
 * debug_cb() into the transcript.
 */
static CURLcode set_options(CURL *c, const struct smtp_sender *s,
			    struct smtp_job *j)
{
	CURLcode rc;

	rc = curl_easy_setopt(c, CURLOPT_URL, j->url.ptr);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_MAIL_FROM, j->env_from);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_MAIL_RCPT, j->rcpts);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_READDATA, &j->up);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE,
				      (curl_off_t)j->up.len);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_USE_SSL,
				      (long)(s->tls ? CURLUSESSL_ALL :
						      CURLUSESSL_NONE));
	if (!rc)
		rc = rb_tls_verify_curl(c, s->ca_file);
	if (!rc && s->user)
		rc = curl_easy_setopt(c, CURLOPT_USERNAME, s->user);
	if (!rc && s->password)
		rc = curl_easy_setopt(c, CURLOPT_PASSWORD, s->password);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
				      s->timeout_ms);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, s->timeout_ms);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_ERRORBUFFER, j->errbuf);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_cb);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_DEBUGDATA, &j->t);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	return rc;
}

static int smtp_send(struct rb_sender *base, const char *env_from,
		     const char *const *rcpts, size_t n_rcpts, const char *msg,
		     size_t len)
{
	struct smtp_sender *s = (struct smtp_sender *)base;
	struct smtp_job j = { .env_from = env_from,
			      .url = RB_BUF_INIT(4096),
			      .up = { msg, len, 0 } };
	CURLcode rc = CURLE_OK;
	CURL *c = NULL;
	long code = 0;
	int ret;

	ret = rb_sender_check_envelope(env_from, rcpts, n_rcpts, msg, len);
	if (ret)
		return ret;
	ret = job_rcpts(&j, rcpts, n_rcpts);
	ret = ret ?: job_url(&j, s);
	if (ret)
		goto out;
	c = curl_easy_init();
	if (!c) {
		ret = rb_err(RB_ENOMEM, "curl_easy_init failed");
		goto out;
	}
	rc = set_options(c, s, &j);
	if (rc) {
		ret = rb_err(RB_ECONFIG, "libcurl option refused: %s",
			     curl_easy_strerror(rc));
		goto out;
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	ret = smtp_result(s, rc, code, &j.t, j.errbuf);
	if (!ret) {
		char n[32];

		snprintf(n, sizeof(n), "%zu", n_rcpts);
		rb_log(RB_LOG_INFO, "smtp.sent", "url", s->url, "rcpts", n,
		       "reply", j.t.reply, NULL);
	} else {
		rb_log(RB_LOG_WARN, "smtp.failed", "url", s->url, "code",
		       rb_errname(ret), "reason", rb_errmsg(), NULL);
	}
out:
	if (c)
		curl_easy_cleanup(c);
	curl_slist_free_all(j.rcpts);
	rb_buf_release(&j.url);
	return ret;
}

static const struct rb_sender_ops smtp_ops = {
	.name = "smtp",
	.send = smtp_send,
	.free = smtp_free,
};

int rb_sender_smtp_new(struct rb_sender **out, const struct rb_smtp_opts *o)
{
	struct smtp_sender *s = NULL;
	CURLU *u = NULL;
	char *scheme = NULL, *host = NULL, *user = NULL, *path = NULL;
	char *norm = NULL;
	bool smtps;
	int ret = 0;

	pthread_once(&curl_once, curl_init);
	if (curl_init_rc)
		return rb_err(RB_ECONFIG, "curl_global_init: %s",
			      curl_easy_strerror(curl_init_rc));
	if (!o->url)
		return rb_err(RB_ECONFIG, "smtp.url is not set");
	u = curl_url();
	if (!u)
		return rb_err(RB_ENOMEM, "out of memory");
	if (curl_url_set(u, CURLUPART_URL, o->url, 0) ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0)) {
		ret = rb_err(RB_ECONFIG, "smtp.url \"%s\" is not a URL",
			     o->url);
		goto out;
	}
	if (strcmp(scheme, "smtp") && strcmp(scheme, "smtps")) {
		ret = rb_err(RB_ECONFIG,
			     "smtp.url must be smtp:// or smtps://, not %s://",
			     scheme);
		goto out;
	}
	smtps = !strcmp(scheme, "smtps");
	if (!curl_url_get(u, CURLUPART_USER, &user, 0)) {
		ret = rb_err(
			RB_ECONFIG,
			"smtp.url must not hold credentials; use smtp.user and smtp.password_file");
		goto out;
	}
	if (!curl_url_get(u, CURLUPART_PATH, &path, 0) && strcmp(path, "/") &&
	    path[0]) {
		ret = rb_err(RB_ECONFIG, "smtp.url must not have a path");
		goto out;
	}
	if (!smtps && o->starttls == RB_STARTTLS_OFF &&
	    !host_is_loopback(host)) {
		ret = rb_err(
			RB_ECONFIG,
			"smtp.starttls: off is only allowed for a loopback server, not %s",
			host);
		goto out;
	}
	if (curl_url_set(u, CURLUPART_PATH, NULL, 0) ||
	    curl_url_set(u, CURLUPART_QUERY, NULL, 0) ||
	    curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) ||
	    curl_url_get(u, CURLUPART_URL, &norm, 0)) {
		ret = rb_err(RB_ECONFIG, "smtp.url \"%s\" is not a URL",
			     o->url);
		goto out;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	s->base.ops = &smtp_ops;
	/*
	 * curl writes "smtp://host:port/": drop the slash, we add the
	 * EHLO name as the path at each send.
	 */
	if (norm[0] && norm[strlen(norm) - 1] == '/')
		norm[strlen(norm) - 1] = '\0';
	s->url = strdup(norm);
	s->user = xstrdup(o->user);
	s->password = xstrdup(o->password);
	s->ca_file = xstrdup(o->ca_file);
	s->helo = xstrdup(o->helo);
	s->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	s->tls = smtps || o->starttls == RB_STARTTLS_REQUIRED;
	if (!s->url || (o->user && !s->user) || (o->password && !s->password) ||
	    (o->ca_file && !s->ca_file) || (o->helo && !s->helo)) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	*out = &s->base;
	s = NULL;
out:
	smtp_free(s ? &s->base : NULL);
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(path);
	curl_free(norm);
	curl_url_cleanup(u);
	return ret;
}
