// SPDX-License-Identifier: GPL-2.0-only
/*
 * source_net.c - what the IMAP and NNTP sources share: their URLs (RFC
 * 3986, with no userinfo: a password only ever comes from a file), the
 * reconnect backoff, TLS SNI, and waiting on a socket while watching the
 * daemon's stop flag.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/libetpan.h>

#include "mail/message.h"
#include "mail/source_net.h"
#include "mail/tls_verify.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/err.h"
#include "util/banned.h"

static time_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

void rb_net_url_release(struct rb_net_url *u)
{
	if (!u)
		return;
	free(u->host);
	u->host = NULL;
}

int rb_net_url_parse(struct rb_net_url *out, const char *url, const char *plain,
		     uint16_t plain_port, const char *tls, uint16_t tls_port)
{
	const char *p, *host, *end, *port = NULL;
	size_t hlen, n, nt;
	bool is_tls;
	long v;
	char *e;

	if (!url || !*url)
		return rb_err(RB_ECONFIG, "no url");
	n = strlen(plain);
	nt = strlen(tls);
	if (!strncasecmp(url, plain, n) && !strncmp(url + n, "://", 3)) {
		is_tls = false;
		p = url + n + 3;
	} else if (!strncasecmp(url, tls, nt) && !strncmp(url + nt, "://", 3)) {
		is_tls = true;
		p = url + nt + 3;
	} else {
		return rb_err(RB_ECONFIG,
			      "url %s: the scheme is not %s:// or "
			      "%s://",
			      url, plain, tls);
	}
	if (strchr(p, '@'))
		return rb_err(RB_ECONFIG,
			      "url %s: no user or password in "
			      "the url; use user and password_file",
			      url);
	if (*p == '[') {
		host = p + 1;
		end = strchr(host, ']');
		if (!end)
			return rb_err(RB_ECONFIG, "url %s: unclosed [", url);
		hlen = (size_t)(end - host);
		p = end + 1;
	} else {
		host = p;
		hlen = strcspn(p, ":/?#");
		p += hlen;
	}
	if (*p == ':') {
		port = ++p;
		p += strspn(p, "0123456789");
	}
	if (*p == '/')
		p++;
	if (*p)
		return rb_err(RB_ECONFIG,
			      "url %s: unexpected '%s' (a path or "
			      "query is not supported)",
			      url, p);
	if (!hlen || hlen > 255)
		return rb_err(RB_ECONFIG, "url %s: no host", url);
	if (memchr(host, '%', hlen) || memchr(host, ' ', hlen))
		return rb_err(RB_ECONFIG, "url %s: bad host", url);
	out->port = is_tls ? tls_port : plain_port;
	if (port) {
		errno = 0;
		v = strtol(port, &e, 10);
		if (e == port || v < 1 || v > 65535)
			return rb_err(RB_ECONFIG, "url %s: bad port", url);
		out->port = (uint16_t)v;
	}
	out->host = strndup(host, hlen);
	if (!out->host)
		return rb_err(RB_ENOMEM, "out of memory");
	out->tls = is_tls;
	return 0;
}

bool rb_net_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (!strcasecmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return false;
}

void rb_net_sni_cb(struct mailstream_ssl_context *ctx, void *data)
{
	const char *host = data;
	unsigned char buf[16];

	if (inet_pton(AF_INET, host, buf) == 1 ||
	    inet_pton(AF_INET6, host, buf) == 1)
		return;
	mailstream_ssl_set_server_name(ctx, (char *)host);
}

void rb_backoff_fail(struct rb_backoff *b)
{
	b->delay = b->delay ? b->delay * 2 : 1;
	if (b->delay > RB_NET_BACKOFF_MAX)
		b->delay = RB_NET_BACKOFF_MAX;
	b->next = mono_now() + b->delay;
}

void rb_backoff_ok(struct rb_backoff *b)
{
	b->delay = 0;
	b->next = 0;
}

int rb_backoff_remaining_ms(const struct rb_backoff *b)
{
	time_t now = mono_now();

	return b->next > now ? (int)(b->next - now) * 1000 : 0;
}

int rb_net_wait_readable(int fd, int timeout_ms, volatile const int *stop)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int waited = 0, slice, r;

	while (waited < timeout_ms && !(stop && *stop)) {
		slice = timeout_ms - waited < 100 ? timeout_ms - waited : 100;
		pfd.revents = 0;
		r = poll(&pfd, 1, slice);
		if (r > 0)
			return 1;
		if (r < 0)
			return errno == EINTR ? 2 : -1;
		waited += slice;
	}
	return stop && *stop ? 2 : 0;
}

void rb_net_nap(int timeout_ms, volatile const int *stop)
{
	struct timespec ts;
	int waited = 0, slice;

	while (waited < timeout_ms && !(stop && *stop)) {
		slice = timeout_ms - waited < 100 ? timeout_ms - waited : 100;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)slice * 1000000L;
		if (nanosleep(&ts, NULL) && errno == EINTR)
			return;
		waited += slice;
	}
}

void rb_recv_guard_count(struct rb_recv_guard *g, int log_type, size_t size,
			 mailstream *stream)
{
	if (log_type != MAILSTREAM_LOG_TYPE_DATA_RECEIVED)
		return;
	g->received += size;
	if (g->cap && g->received > g->cap && !g->over) {
		g->over = true;
		mailstream_cancel(stream);
	}
}

static ssize_t eof_read(mailstream_low *low, void *buf, size_t n)
{
	const struct rb_eof_driver *d =
		(const struct rb_eof_driver *)low->driver;
	ssize_t r = d->orig->mailstream_read(low, buf, n);

	return r == 0 && n ? -1 : r;
}

void rb_net_guard_eof(struct rb_eof_driver *d, mailstream *stream)
{
	mailstream_low *low = stream ? mailstream_get_low(stream) : NULL;

	if (!low || low->driver == &d->drv)
		return;
	d->orig = low->driver;
	d->drv = *low->driver;
	d->drv.mailstream_read = eof_read;
	low->driver = &d->drv;
}

/* In libetpan's connect.h, which Debian's libetpan-dev does not install;
 * the function is in the library's ABI (libetpan20.symbols, since 1.4). */
int mail_tcp_connect_timeout(const char *server, uint16_t port, time_t timeout);

/*
 * libetpan's own connects make an 8 kB stream buffer: a 256-message IMAP
 * FETCH response (2.5 MB) took 300 recv() calls, each after a select(),
 * on the thread the next FETCH waits for. With 256 kB, 64,000 of these
 * calls a pass of the linux-api corpus became 4,900.
 */
mailstream *rb_net_open_stream(struct rb_net_source *n, size_t buffer,
			       bool *tls_failed)
{
	mailstream_low *low;
	mailstream *st;
	int fd;

	*tls_failed = false;
	fd = mail_tcp_connect_timeout(n->url.host, n->url.port, RB_NET_TIMEOUT);
	if (fd < 0)
		return NULL;
	if (n->url.tls)
		low = mailstream_low_ssl_open_with_callback_timeout(
			fd, RB_NET_TIMEOUT, rb_net_sni_cb, n->url.host);
	else
		low = mailstream_low_socket_open(fd);
	if (!low) {
		close(fd);
		*tls_failed = true;
		return NULL;
	}
	mailstream_low_set_timeout(low, RB_NET_TIMEOUT);
	st = mailstream_new(low, buffer);
	if (!st) {
		mailstream_low_close(low);
		mailstream_low_free(low);
		*tls_failed = true;
		return NULL;
	}
	rb_net_guard_eof(&n->eof, st);
	return st;
}

void rb_net_stream_timeout(mailstream *stream, time_t secs)
{
	mailstream_low *low = stream ? mailstream_get_low(stream) : NULL;

	if (low)
		mailstream_low_set_timeout(low, secs);
}

int rb_net_source_init(struct rb_net_source *n, const char *name,
		       const struct rb_source_opts *o)
{
	n->base.name = strdup(name);
	n->user = o->user ? strdup(o->user) : NULL;
	n->password = o->password ? strdup(o->password) : NULL;
	n->ca_file = o->ca_file ? strdup(o->ca_file) : NULL;
	if (!n->base.name || (o->user && !n->user) ||
	    (o->password && !n->password) || (o->ca_file && !n->ca_file))
		return rb_err(RB_ENOMEM, "out of memory");
	n->tls_verify = o->tls_verify;
	n->max_size = o->max_size ? o->max_size : RB_MSG_DEFAULT_MAX;
	mailstream_network_delay.tv_sec = RB_NET_TIMEOUT;
	mailstream_network_delay.tv_usec = 0;
	return 0;
}

void rb_net_source_release(struct rb_net_source *n)
{
	rb_free_secret(n->password);
	free(n->user);
	free(n->ca_file);
	free(n->base.name);
	rb_net_url_release(&n->url);
}

int rb_net_source_ready(const struct rb_net_source *n, const char *proto)
{
	if (!rb_backoff_remaining_ms(&n->backoff))
		return 0;
	return rb_err(RB_EAGAIN, "%s %s:%u: down; next try in %d ms", proto,
		      n->url.host, n->url.port,
		      rb_backoff_remaining_ms(&n->backoff));
}

int rb_net_source_fail(struct rb_net_source *n, const char *proto,
		       const char *what, int r, const char *resp)
{
	if (!resp)
		resp = "";
	rb_err(RB_EAGAIN,
	       "%s %s:%u: %s failed (libetpan error %d%s%s); "
	       "retrying in %d s",
	       proto, n->url.host, n->url.port, what, r, *resp ? ": " : "",
	       resp, n->backoff.delay ? n->backoff.delay * 2 : 1);
	rb_backoff_fail(&n->backoff);
	return -RB_EAGAIN;
}

int rb_net_source_verify(struct rb_net_source *n, mailstream *stream,
			 const char *event)
{
	int ret;

	if (!n->tls_verify)
		return 0;
	ret = rb_tls_verify_stream(stream, n->url.host, n->ca_file);
	if (ret) {
		rb_log(RB_LOG_ERROR, event, "source", n->base.name, "reason",
		       rb_errmsg(), NULL);
		rb_backoff_fail(&n->backoff);
	}
	return ret;
}

int rb_src_batch_begin(struct rb_src_batch *b)
{
	int ret;

	if (b->open || !b->env->begin)
		return 0;
	ret = b->env->begin(b->env->payload);
	b->open = !ret;
	return ret;
}

int rb_src_batch_commit(struct rb_src_batch *b)
{
	int ret = 0;

	if (b->mark != b->saved)
		ret = b->env->set_state(b->source, b->mailbox, b->validity,
					b->mark, b->env->payload);
	if (b->open) {
		b->open = false;
		if (ret) {
			b->env->rollback(b->env->payload);
			return ret;
		}
		ret = b->env->commit(b->env->payload);
	}
	if (!ret) {
		b->saved = b->mark;
		b->unsaved = 0;
	}
	return ret;
}

int rb_src_batch_moved(struct rb_src_batch *b, int64_t mark, int every)
{
	b->mark = mark;
	if (++b->unsaved < (b->env->begin ? every : RB_STATE_EVERY))
		return 0;
	return rb_src_batch_commit(b);
}

int rb_src_batch_end(struct rb_src_batch *b, int ret)
{
	int r2;

	if (b->open && ret && ret != -RB_EAGAIN) {
		b->open = false;
		b->env->rollback(b->env->payload);
		return ret;
	}
	r2 = rb_src_batch_commit(b);
	return ret ? ret : r2;
}

void rb_net_log_synced(const struct rb_net_source *n, const char *event,
		       const char *mailbox, int64_t count,
		       const struct timespec *t0)
{
	struct timespec t1;
	char num[24], ms[24];

	clock_gettime(CLOCK_MONOTONIC, &t1);
	snprintf(num, sizeof(num), "%lld", (long long)count);
	snprintf(ms, sizeof(ms), "%lld",
		 (long long)((t1.tv_sec - t0->tv_sec) * 1000 +
			     (t1.tv_nsec - t0->tv_nsec) / 1000000));
	rb_log(RB_LOG_INFO, event, "source", n->base.name, "mailbox", mailbox,
	       "messages", num, "ms", ms, NULL);
}
