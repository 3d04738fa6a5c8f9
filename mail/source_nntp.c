// SPDX-License-Identifier: GPL-2.0-only
/*
 * source_nntp.c - newsgroups as a mail source (RFC 3977 NNTP; RFC 4643
 * AUTHINFO USER/PASS; RFC 4642 nntps), with libetpan's newsnntp. Made for
 * public-inbox servers such as lore.kernel.org, where each list is one
 * group and article numbers never change.
 *
 * For each group the store keeps the highest article number delivered (as
 * "last"; validity is always 1, NNTP has no UIDVALIDITY). A pass sends
 * GROUP, then ARTICLE n for every n from last+1 to the group's high-water
 * mark, NNTP_WINDOW commands ahead of the response being read (pipelined:
 * one round trip per window, not per article); a number the server does
 * not have (423, a gap) is skipped. Articles are stored NNTP_BATCH to a
 * transaction (source.h begin/commit), the mark in the same transaction
 * as the articles it covers: a crash loses the batch in hand and its
 * mark together, and the next pass fetches it again. Without begin/commit
 * each deliver is durable and the mark is written every RB_STATE_EVERY
 * articles (what a crash makes us fetch again is dropped by the store as
 * a duplicate). On first contact a group is read from what arrives from
 * then on, or from its first article with "start: all".
 *
 * Size: NNTP announces no size before ARTICLE, so the bytes received are
 * counted (the stream logger) and the stream is cancelled past the cap;
 * the article is then recorded as too big and skipped, and the connection
 * (with the commands still in flight) is dropped.
 *
 * Waiting: NNTP has no push; the daemon polls every poll_seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libetpan/libetpan.h>

#include "mail/message.h"
#include "mail/source.h"
#include "mail/source_nntp.h"
#include "mail/source_net.h"
#include "mail/tls_verify.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

/* What a server may send beyond the cap in one ARTICLE response. */
#define ARTICLE_SLACK (64 * 1024)
/* What any other response may take: the greeting, AUTHINFO, GROUP. */
#define REPLY_CAP ((size_t)1 << 20)

struct nntp_source {
	struct rb_net_source net; /* first; net.user NULL: no AUTHINFO */
	char **groups;
	size_t n_groups;
	bool start_all; /* first contact: read the group from its start */
	newsnntp *nntp;
};

static void disconnect(struct nntp_source *s)
{
	if (s->nntp) {
		newsnntp_free(s->nntp);
		s->nntp = NULL;
	}
}

/* A refusal: drop the connection and wait before the next try. */
static void drop(struct nntp_source *s)
{
	disconnect(s);
	rb_backoff_fail(&s->net.backoff);
}

static int net_fail(struct nntp_source *s, const char *what, int r)
{
	int ret = rb_net_source_fail(&s->net, "nntp", what, r,
				     s->nntp ? s->nntp->nntp_response : NULL);

	disconnect(s);
	return ret;
}

static void stream_logger(newsnntp *nntp, int type, const char *str,
			  size_t size, void *ctx)
{
	struct nntp_source *s = ctx;

	(void)str;
	rb_recv_guard_count(&s->net.guard, type, size, nntp->nntp_stream);
}

/*
 * newsnntp_socket_connect() and newsnntp_ssl_connect_with_callback() in
 * their two steps (rb_net_open_stream()), so that the stream reads
 * through the end-of-stream driver before the greeting is read, and so
 * that the stream is closed when newsnntp_connect() lets go of it
 * without closing it (a greeting other than 200 or 201: 16 kB lost on
 * each attempt against a server that closes at once or greets with
 * anything else).
 */
static int open_session(struct nntp_source *s)
{
	mailstream *st;
	bool tls_failed;
	int r;

	st = rb_net_open_stream(&s->net, &tls_failed);
	if (!st)
		return !tls_failed    ? NEWSNNTP_ERROR_CONNECTION_REFUSED :
		       s->net.url.tls ? NEWSNNTP_ERROR_SSL :
					NEWSNNTP_ERROR_MEMORY;
	r = newsnntp_connect(s->nntp, st);
	if (r != NEWSNNTP_NO_ERROR && s->nntp->nntp_stream != st)
		mailstream_close(st);
	return r;
}

static int connect_server(struct nntp_source *s)
{
	int r, ret;

	ret = rb_net_source_ready(&s->net, "nntp");
	if (ret)
		return ret;
	s->nntp = newsnntp_new(0, NULL);
	if (!s->nntp)
		return rb_err(RB_ENOMEM, "out of memory");
	/* libetpan 1.9's newsnntp_new() leaves it unset until a response is
	 * parsed, and a connect that fails before the greeting is read
	 * leaves it so: net_fail() read freshly malloc'ed garbage. */
	s->nntp->nntp_response = NULL;
	/* The greeting and the login are capped too: a server that sent an
	 * endless first line grew the daemon by 180 MB a second. */
	newsnntp_set_logger(s->nntp, stream_logger, s);
	rb_recv_guard_reset(&s->net.guard, REPLY_CAP);
	r = open_session(s);
	if (r != NEWSNNTP_NO_ERROR)
		return net_fail(s, "connect", r);
	if (s->net.url.tls) {
		ret = rb_net_source_verify(&s->net, s->nntp->nntp_stream,
					   "nntp.tls_refused");
		if (ret) {
			disconnect(s);
			return ret;
		}
	}
	if (s->net.user) {
		r = newsnntp_authinfo_username(s->nntp, s->net.user);
		if (r == NEWSNNTP_WARNING_REQUEST_AUTHORIZATION_PASSWORD)
			r = newsnntp_authinfo_password(s->nntp,
						       s->net.password);
		if (r != NEWSNNTP_NO_ERROR) {
			if (r == NEWSNNTP_ERROR_STREAM)
				return net_fail(s, "AUTHINFO", r);
			rb_err(RB_ECONFIG,
			       "nntp %s: AUTHINFO as %s refused: %s",
			       s->net.url.host, s->net.user,
			       s->nntp->nntp_response ? s->nntp->nntp_response :
							"(no text)");
			drop(s);
			return -RB_ECONFIG;
		}
	}
	/* RFC 3977 5.3: a reader server may ignore it; errors do not matter
	 * unless the stream broke. */
	r = newsnntp_mode_reader(s->nntp);
	if (r == NEWSNNTP_ERROR_STREAM)
		return net_fail(s, "MODE READER", r);
	rb_backoff_ok(&s->net.backoff);
	return 0;
}

/* ARTICLE commands in flight: one round trip per window, not per article
 * (RFC 3977 3.5 allows pipelining; public-inbox-nntpd answers in order). */
#define NNTP_WINDOW 64
/* Articles per store transaction (source.h begin/commit): one fsync per
 * batch. A crash loses at most the batch in hand, fetched again next
 * time (the mark moves in the same transaction). */
#define NNTP_BATCH 256

/* Queues "ARTICLE n" for @from..@to and sends them in one write. */
static int send_articles(struct nntp_source *s, int64_t from, int64_t to)
{
	char cmd[40];
	int64_t n;
	int k;

	for (n = from; n <= to; n++) {
		k = snprintf(cmd, sizeof(cmd), "ARTICLE %lld\r\n",
			     (long long)n);
		if (mailstream_write(s->nntp->nntp_stream, cmd, (size_t)k) !=
		    (ssize_t)k)
			return -1;
	}
	return mailstream_flush(s->nntp->nntp_stream) ? -1 : 0;
}

/*
 * Reads the response to one pipelined ARTICLE: 1 and *@art, *@len (the
 * article, dot-unstuffed, in the session's buffer: valid until the next
 * read) for 220; 0 for a gap (RFC 3977 6.2.1: 423, 420, 412); -1 when the
 * stream broke or the server said something else (its line is kept in
 * nntp_response for the error).
 */
static int read_article(struct nntp_source *s, char **art, size_t *len)
{
	newsnntp *f = s->nntp;
	char *line, *end;
	long code;

	line = mailstream_read_line_remove_eol(f->nntp_stream,
					       f->nntp_stream_buffer);
	if (!line)
		return -1;
	code = strtol(line, &end, 10);
	if (!mmap_string_assign(f->nntp_response_buffer, line))
		return -1;
	f->nntp_response = f->nntp_response_buffer->str;
	if (code == 423 || code == 420 || code == 412)
		return 0;
	if (code != 220)
		return -1;
	*art = mailstream_read_multiline(f->nntp_stream, 0,
					 f->nntp_stream_buffer,
					 f->nntp_response_buffer, 0, NULL, NULL,
					 NULL);
	f->nntp_response = NULL;
	if (!*art)
		return -1;
	*len = f->nntp_response_buffer->len;
	return 1;
}

/*
 * GROUP, and where this pass starts: *@last is the highest article
 * already delivered (the stored mark; on first contact, per "start:",
 * stored at once), *@high the group's high-water mark.
 */
static int open_group(struct nntp_source *s, const struct rb_source_env *env,
		      const char *group, int64_t *last, int64_t *high)
{
	struct newsnntp_group_info *info = NULL;
	int64_t validity = 0, first;
	int r, ret;

	rb_recv_guard_reset(&s->net.guard, REPLY_CAP);
	r = newsnntp_group(s->nntp, group, &info);
	if (r == NEWSNNTP_ERROR_NO_SUCH_NEWS_GROUP)
		return rb_err(RB_ENOTFOUND, "nntp %s: no group %s",
			      s->net.url.host, group);
	if (r != NEWSNNTP_NO_ERROR)
		return net_fail(s, "GROUP", r);
	*high = info->grp_last;
	first = info->grp_first;
	newsnntp_group_free(info);
	ret = env->get_state(s->net.base.name, group, &validity, last,
			     env->payload);
	if (ret != -RB_ENOTFOUND)
		return ret;
	/*
	 * "start: new" (the default) begins after the group's current
	 * high-water mark: subscribing to a lore group must not review
	 * years of archive. The mark is stored at once, so articles that
	 * arrive before the next pass are not skipped.
	 */
	*last = s->start_all ? (first > 0 ? first - 1 : 0) : *high;
	rb_log(RB_LOG_INFO, "nntp.first_contact", "source", s->net.base.name,
	       "group", group, "start", s->start_all ? "all" : "new", NULL);
	return env->set_state(s->net.base.name, group, 0, *last, env->payload);
}

/*
 * Reads the response to ARTICLE @n and delivers it (a gap delivers
 * nothing, an article past the cap is recorded as too big). An article
 * that overran the cap drops the connection, with the commands still in
 * flight, and commits the batch: -RB_EAGAIN then.
 */
static int take_article(struct nntp_source *s, struct rb_src_batch *b,
			const char *group, int64_t n)
{
	const struct rb_source_env *env = b->env;
	char origin[512], *art = NULL;
	size_t len = 0;
	int r, ret;

	snprintf(origin, sizeof(origin), "nntp://%s:%u/%s/%lld",
		 s->net.url.host, s->net.url.port, group, (long long)n);
	rb_recv_guard_reset(&s->net.guard, s->net.max_size + ARTICLE_SLACK);
	r = read_article(s, &art, &len);
	if (s->net.guard.over) {
		/* Too big: recorded, and the stream (cancelled, with the
		 * rest of the window) is dropped. */
		size_t got = s->net.guard.received;

		disconnect(s);
		ret = env->deliver(NULL, got, origin, env->payload);
		if (!ret) {
			b->mark = n;
			ret = rb_src_batch_commit(b);
		}
		return ret ? ret :
			     rb_err(RB_EAGAIN,
				    "nntp %s: reconnecting after an oversized "
				    "article",
				    s->net.url.host);
	}
	if (r < 0)
		return net_fail(s, "ARTICLE", NEWSNNTP_ERROR_STREAM);
	if (r == 0)
		return 0; /* a gap */
	if (len > s->net.max_size)
		return env->deliver(NULL, len, origin, env->payload);
	return env->deliver(art, len, origin, env->payload);
}

static int sync_group(struct nntp_source *s, const struct rb_source_env *env,
		      const char *group)
{
	struct rb_src_batch b = {
		.env = env,
		.source = s->net.base.name,
		.mailbox = group,
		.validity = 1,
	};
	int64_t last = 0, n, high = 0, sent;
	struct timespec t0;
	int ret;

	ret = open_group(s, env, group, &last, &high);
	if (ret)
		return ret;
	b.mark = b.saved = last;
	sent = last;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = last + 1; n <= high; n++) {
		/* Keep NNTP_WINDOW commands ahead of the one read. */
		if (sent < n || (sent < high && sent - n < NNTP_WINDOW / 2)) {
			int64_t to = n + NNTP_WINDOW - 1;

			if (to > high)
				to = high;
			if (send_articles(s, sent + 1 > n ? sent + 1 : n, to)) {
				ret = net_fail(s, "ARTICLE", -1);
				break;
			}
			sent = to;
		}
		ret = rb_src_batch_begin(&b);
		if (!ret)
			ret = take_article(s, &b, group, n);
		if (!ret)
			ret = rb_src_batch_moved(&b, n, NNTP_BATCH);
		if (ret)
			break;
	}
	if (ret && s->nntp && sent >= n)
		disconnect(s); /* responses still in flight */
	ret = rb_src_batch_end(&b, ret);
	if (b.saved > last)
		rb_net_log_synced(&s->net, "nntp.synced", group, b.saved - last,
				  &t0);
	return ret;
}

static int nntp_poll(struct rb_source *src, const struct rb_source_env *env)
{
	struct nntp_source *s = (struct nntp_source *)src;
	size_t i;
	int ret, first = 0;

	if (!s->nntp) {
		ret = connect_server(s);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->n_groups; i++) {
		ret = sync_group(s, env, s->groups[i]);
		if (!ret)
			continue;
		if (!s->nntp || ret != -RB_ENOTFOUND)
			return ret;
		rb_log(RB_LOG_WARN, "nntp.group", "source", s->net.base.name,
		       "reason", rb_errmsg(), NULL);
		if (!first)
			first = ret;
	}
	return first;
}

static int nntp_wait(struct rb_source *src, int timeout_ms,
		     volatile const int *stop)
{
	struct nntp_source *s = (struct nntp_source *)src;
	int left = rb_backoff_remaining_ms(&s->net.backoff);

	rb_net_nap(!s->nntp && left && left < timeout_ms ? left : timeout_ms,
		   stop);
	return 0;
}

static void nntp_free(struct rb_source *src)
{
	struct nntp_source *s = (struct nntp_source *)src;
	size_t i;

	if (!s)
		return;
	if (s->nntp) {
		rb_net_stream_timeout(s->nntp->nntp_stream,
				      RB_NET_GOODBYE_TIMEOUT);
		newsnntp_quit(s->nntp);
	}
	disconnect(s);
	for (i = 0; i < s->n_groups; i++)
		free(s->groups[i]);
	free(s->groups);
	rb_net_source_release(&s->net);
	free(s);
}

static const struct rb_source_ops nntp_ops = {
	.name = "nntp",
	.poll = nntp_poll,
	.wait = nntp_wait,
	.free = nntp_free,
};

int rb_source_nntp_new(struct rb_source **out, const struct rb_source_opts *o)
{
	struct nntp_source *s;
	const char *name = o->name ? o->name : "nntp";
	size_t i;
	int ret;

	if (!o->n_mailboxes)
		return rb_err(RB_ECONFIG, "source %s: NNTP needs groups", name);
	if (!o->user != !o->password)
		return rb_err(RB_ECONFIG,
			      "source %s: user and password_file "
			      "go together",
			      name);
	s = calloc(1, sizeof(*s));
	if (!s)
		return rb_err(RB_ENOMEM, "out of memory");
	s->net.base.ops = &nntp_ops;
	ret = rb_net_url_parse(&s->net.url, o->url, "nntp", 119, "nntps", 563);
	if (ret)
		goto fail;
	if (o->user && !s->net.url.tls &&
	    !rb_net_is_loopback(s->net.url.host)) {
		ret = rb_err(RB_ECONFIG,
			     "source %s: AUTHINFO over plain nntp:// sends "
			     "the password in clear; use nntps://",
			     name);
		goto fail;
	}
	ret = rb_net_source_init(&s->net, name, o);
	if (ret)
		goto fail;
	s->groups = calloc(o->n_mailboxes, sizeof(*s->groups));
	if (!s->groups) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < o->n_mailboxes; i++) {
		s->groups[i] = strdup(o->mailboxes[i]);
		if (!s->groups[i]) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto fail;
		}
		s->n_groups++;
	}
	s->start_all = o->start_all;
	*out = &s->net.base;
	return 0;
fail:
	nntp_free(&s->net.base);
	return ret;
}
