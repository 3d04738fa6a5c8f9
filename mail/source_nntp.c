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
 * not have (423, a gap) is skipped. The articles are read and parsed on a
 * thread of their own while the ones before are stored (the server, the
 * parse and the store at the same time). Articles are stored NNTP_BATCH to a
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
#include <pthread.h>
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
/*
 * The stream's read buffer: libetpan's own 8 kB. An article is read line
 * by line, and each line moves the rest of the buffer (source_net.h):
 * with 256 kB (IMAP's) a pass of the linux-api corpus took 25 s of CPU,
 * 55% of it in memmove; with 8 kB, 11 s (bench/RESULTS-ingest.md).
 */
#define RB_NNTP_STREAM_BUFFER ((size_t)8 << 10)

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

	st = rb_net_open_stream(&s->net, RB_NNTP_STREAM_BUFFER, &tls_failed);
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
 * time (the mark moves in the same transaction). 1,024 as IMAP_COMMIT:
 * random Message-IDs make each commit rewrite most of the Message-ID
 * index's pages into the WAL, so fewer commits write less. */
#define NNTP_BATCH 1024

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
 * The articles of a pass are read, copied and parsed (the env's
 * prepare()) on a thread of their own, and stored on the caller's, so
 * that the server, the parse and the store work at the same time: one
 * thread that read, parsed and stored in turn left the server idle while
 * it stored, and used one core of two. Between them a queue of at most
 * NNTP_QUEUE articles and NNTP_QUEUE_BYTES (at least one article).
 */
#define NNTP_QUEUE 512
/*
 * Articles (and gaps) read from one group in one pass: the group's
 * high-water mark is the server's word, and a hostile server can claim
 * 2^62 and answer 423 to every ARTICLE. The pass ends there with its
 * mark stored, and the next pass goes on from it.
 */
#define NNTP_PASS_MAX 65536
#define NNTP_QUEUE_BYTES ((size_t)16 << 20)

/* An article read: the bytes (owned) and their parse, or a gap (raw
 * NULL, size 0), or one over the cap (raw NULL, size its bytes). */
struct nntp_item {
	int64_t n;
	char *raw;
	size_t len;
	size_t too_big; /* over the cap: what was received */
	bool overran; /* the stream was cancelled: the end of the pass */
	void *prep;
};

struct nntp_reader {
	struct nntp_source *s;
	const struct rb_source_env *env;
	const char *group;
	int64_t n, high; /* the next article to read, the last */
	int64_t sent; /* the last ARTICLE sent */
	/* Shared with the storing thread, under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct nntp_item q[NNTP_QUEUE];
	unsigned head, count;
	size_t bytes;
	bool done; /* the reader has ended, with ret */
	bool stop; /* the store failed: read no more */
	int ret;
	char why[512]; /* rb_errmsg() of the reader, when ret */
};

static void item_free(const struct rb_source_env *env, struct nntp_item *it)
{
	if (it->prep)
		env->release(it->prep, env->payload);
	free(it->raw);
	memset(it, 0, sizeof(*it));
}

/*
 * Reads the response to the next ARTICLE into *@it, keeping NNTP_WINDOW
 * commands ahead of it. 1: an article, a gap or one over the cap; 0: the
 * group is read; <0: the pass ends with that error (the stream is
 * dropped), *@it holding an article that overran the cap, if any.
 */
static int reader_step(struct nntp_reader *r, struct nntp_item *it)
{
	struct nntp_source *s = r->s;
	const struct rb_source_env *env = r->env;
	char *art = NULL;
	size_t len = 0;
	int got;

	memset(it, 0, sizeof(*it));
	if (r->n > r->high)
		return 0;
	it->n = r->n;
	if (r->sent < r->n ||
	    (r->sent < r->high && r->sent - r->n < NNTP_WINDOW / 2)) {
		int64_t to = r->n + NNTP_WINDOW - 1;

		if (to > r->high)
			to = r->high;
		if (send_articles(s, r->sent + 1 > r->n ? r->sent + 1 : r->n,
				  to))
			return net_fail(s, "ARTICLE", -1);
		r->sent = to;
	}
	rb_recv_guard_reset(&s->net.guard, s->net.max_size + ARTICLE_SLACK);
	got = read_article(s, &art, &len);
	if (s->net.guard.over) {
		/* Too big: recorded, and the stream (cancelled, with the
		 * rest of the window) is dropped. */
		it->too_big = s->net.guard.received;
		it->overran = true;
		disconnect(s);
		return rb_err(RB_EAGAIN,
			      "nntp %s: reconnecting after an oversized "
			      "article",
			      s->net.url.host);
	}
	if (got < 0)
		return net_fail(s, "ARTICLE", NEWSNNTP_ERROR_STREAM);
	r->n++;
	if (got == 0)
		return 1; /* a gap */
	if (len > s->net.max_size) {
		it->too_big = len;
		return 1;
	}
	/* The session's buffer is read into again: a copy of its own. */
	it->raw = malloc(len + 1);
	if (!it->raw)
		return rb_err(RB_ENOMEM, "out of memory");
	memcpy(it->raw, art, len);
	it->raw[len] = '\0';
	it->len = len;
	if (env->prepare)
		it->prep = env->prepare(it->raw, len, env->payload);
	return 1;
}

/* Delivers @it (its prepared parse is taken) and moves the mark. */
static int store_item(struct nntp_reader *r, struct rb_src_batch *b,
		      struct nntp_item *it)
{
	const struct rb_source_env *env = r->env;
	char origin[512];
	void *prep = it->prep;
	int ret;

	ret = rb_src_batch_begin(b);
	if (ret)
		return ret;
	snprintf(origin, sizeof(origin), "nntp://%s:%u/%s/%lld",
		 r->s->net.url.host, r->s->net.url.port, r->group,
		 (long long)it->n);
	it->prep = NULL;
	if (it->too_big)
		ret = env->deliver(NULL, it->too_big, origin, env->payload);
	else if (!it->raw)
		ret = 0; /* a gap */
	else if (prep)
		ret = env->deliver_prepared(it->raw, it->len, origin, prep,
					    env->payload);
	else
		ret = env->deliver(it->raw, it->len, origin, env->payload);
	if (prep && it->too_big)
		env->release(prep, env->payload);
	if (ret)
		return ret;
	if (it->overran) {
		/* Committed with its mark before the reconnection. */
		b->mark = it->n;
		return rb_src_batch_commit(b);
	}
	return rb_src_batch_moved(b, it->n, NNTP_BATCH);
}

static void *reader_main(void *arg)
{
	struct nntp_reader *r = arg;
	struct nntp_item it;
	int got;

	do {
		got = reader_step(r, &it);
		if (got < 0)
			snprintf(r->why, sizeof(r->why), "%s", rb_errmsg());
		if (got == 0 || (got < 0 && !it.overran))
			break;
		pthread_mutex_lock(&r->mu);
		while (!r->stop && r->count &&
		       (r->count == NNTP_QUEUE ||
			r->bytes + it.len > NNTP_QUEUE_BYTES))
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop) {
			pthread_mutex_unlock(&r->mu);
			item_free(r->env, &it);
			break;
		}
		r->q[(r->head + r->count) % NNTP_QUEUE] = it;
		r->count++;
		r->bytes += it.len;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
	} while (got > 0);
	pthread_mutex_lock(&r->mu);
	r->ret = got < 0 ? got : 0;
	r->done = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/*
 * Stores what the reader thread queues, until it ends or the store
 * fails (then the reader is stopped and the rest dropped). Returns the
 * store's error, else the reader's.
 */
static int store_queued(struct nntp_reader *r, struct rb_src_batch *b)
{
	struct nntp_item it;
	int ret = 0;

	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (!r->count && !r->done)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->count) {
			pthread_mutex_unlock(&r->mu);
			break;
		}
		it = r->q[r->head];
		r->head = (r->head + 1) % NNTP_QUEUE;
		r->count--;
		r->bytes -= it.len;
		if (ret)
			r->stop = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (!ret) {
			ret = store_item(r, b, &it);
			if (ret) {
				pthread_mutex_lock(&r->mu);
				r->stop = true;
				pthread_cond_broadcast(&r->cv);
				pthread_mutex_unlock(&r->mu);
			}
		}
		item_free(r->env, &it);
	}
	if (ret)
		return ret;
	/* Recorded again: it comes from the reader's thread. */
	return r->ret ? rb_err(-r->ret, "%s", r->why) : 0;
}

/* The same on this thread, one article at a time (no thread could be
 * made). */
static int store_inline(struct nntp_reader *r, struct rb_src_batch *b)
{
	struct nntp_item it;
	int got, ret = 0;

	do {
		got = reader_step(r, &it);
		if (got > 0 || (got < 0 && it.overran))
			ret = store_item(r, b, &it);
		item_free(r->env, &it);
	} while (got > 0 && !ret);
	return ret ? ret : got;
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
	struct nntp_reader *r;
	pthread_t th;
	int64_t last = 0, high = 0;
	struct timespec t0;
	int ret;

	ret = open_group(s, env, group, &last, &high);
	if (ret)
		return ret;
	b.mark = b.saved = last;
	if (high > last && high - last > NNTP_PASS_MAX) {
		rb_log(RB_LOG_INFO, "nntp.pass_capped", "source",
		       s->net.base.name, "group", group, NULL);
		high = last + NNTP_PASS_MAX;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return rb_err(RB_ENOMEM, "out of memory");
	r->s = s;
	r->env = env;
	r->group = group;
	r->n = last + 1;
	r->high = high;
	r->sent = last;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (last < high && !pthread_create(&th, NULL, reader_main, r)) {
		ret = store_queued(r, &b);
		pthread_join(th, NULL);
	} else {
		ret = store_inline(r, &b);
	}
	/* Stopped with responses still in flight. */
	if (s->nntp && r->sent >= r->n)
		disconnect(s);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
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
