// SPDX-License-Identifier: GPL-2.0-only
/*
 * http.c - the dashboard and /metrics (libmicrohttpd): the server and the
 * routing. See http.h. Each page is a JSON model and a template
 * (pages.h): ?format=json answers the model, the HTML is the template
 * rendered from it by util/tmpl, which escapes every value. Nothing is
 * cached but the parsed templates.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <jansson.h>
#include <microhttpd.h>

#include "bot/web/http.h"
#include "bot/web/pages.h"
#include "bot/store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/tmpl.h"
#include "util/banned.h"

/*
 * libmicrohttpd's thread pool, each thread with a store of its own
 * (SQLite: one thread a connection): a slow page no longer holds
 * /metrics or another page (issue 33: one thread, 17 s a page of 6,000
 * series).
 */
#define POOL 4

struct rb_http {
	struct MHD_Daemon *d;
	struct rb_store *st[POOL];
	pthread_mutex_t lock[POOL];
	size_t n_locks; /* initialised */
	int port;
	char host[64]; /* http.listen's host, as written */
	char *thread_url; /* http.thread_url, or NULL: no thread links */
};

int rb_html_escape(struct rb_buf *out, const char *s)
{
	return s ? rb_tmpl_html_escape(out, s, strlen(s)) : 0;
}

/* @j as the answer, in JSON (ASCII: \u escapes for the rest). */
static int answer(struct rb_buf *out, json_t *j, const char **ctype)
{
	char *text;
	int ret;

	*ctype = "application/json; charset=utf-8";
	text = json_dumps(j, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	if (!text)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = rb_buf_puts(out, text);
	ret = ret ?: rb_buf_putc(out, '\n');
	free(text);
	return ret;
}

typedef int (*model_fn)(json_t **out, struct rb_store *st,
			const struct rb_http_query *q);
typedef int (*view_fn)(struct rb_buf *out, struct rb_store *st,
		       const struct rb_http_query *q, json_t *j);

static void list_args(struct rb_web_list_args *a, const struct rb_http_query *q)
{
	a->q = q->q;
	a->section = q->section;
	a->state = q->state;
	a->mode = q->mode;
	a->findings = q->findings;
	a->page = q->page;
}

static int list_model(json_t **out, struct rb_store *st,
		      const struct rb_http_query *q)
{
	struct rb_web_list_args a;

	list_args(&a, q);
	return rb_web_list_json(out, st, &a, q->thread_url);
}

static int list_view(struct rb_buf *out, struct rb_store *st,
		     const struct rb_http_query *q, json_t *j)
{
	struct rb_web_list_args a;

	(void)st;
	list_args(&a, q);
	return rb_web_list_html(out, j, &a);
}

static int series_model(json_t **out, struct rb_store *st,
			const struct rb_http_query *q)
{
	return rb_web_series_json(out, st, q->id, q->thread_url);
}

static int series_view(struct rb_buf *out, struct rb_store *st,
		       const struct rb_http_query *q, json_t *j)
{
	(void)st;
	(void)q;
	return rb_web_series_html(out, j);
}

static int stats_model(json_t **out, struct rb_store *st,
		       const struct rb_http_query *q)
{
	(void)q;
	return rb_web_stats_json(out, st);
}

static int stats_view(struct rb_buf *out, struct rb_store *st,
		      const struct rb_http_query *q, json_t *j)
{
	(void)q;
	return rb_web_stats_html(out, st, j);
}

static int notes_model(json_t **out, struct rb_store *st,
		       const struct rb_http_query *q)
{
	(void)q;
	return rb_web_notes_json(out, st);
}

static int notes_view(struct rb_buf *out, struct rb_store *st,
		      const struct rb_http_query *q, json_t *j)
{
	(void)st;
	(void)q;
	return rb_web_page(out, "notes.html", "notes", j);
}

/* The pages: a path, its model and its view. */
static const struct route {
	const char *path;
	model_fn model;
	view_fn view;
	bool needs_id; /* 400 without ?id=, 404 for no such one */
} routes[] = {
	{ "/", list_model, list_view, false },
	{ "/series", series_model, series_view, true },
	{ "/stats", stats_model, stats_view, false },
	{ "/notes", notes_model, notes_view, false },
};

static int plain(struct rb_buf *out, int *status, const char **ctype, int code,
		 const char *text)
{
	*status = code;
	*ctype = "text/plain; charset=utf-8";
	return rb_buf_puts(out, text);
}

/* A page of @r: its model as JSON, or rendered. */
static int page(struct rb_buf *out, struct rb_store *st,
		const struct rb_http_query *q, const struct route *r, bool json,
		int *status, const char **ctype)
{
	json_t *j = NULL;
	int ret;

	if (r->needs_id && !q->id)
		return plain(out, status, ctype, MHD_HTTP_BAD_REQUEST,
			     "missing ?id=\n");
	ret = r->model(&j, st, q);
	if (ret)
		return ret;
	if (!j && json) {
		*status = MHD_HTTP_NOT_FOUND;
		*ctype = "application/json; charset=utf-8";
		return rb_buf_puts(out, "{\"error\": \"no such series\"}\n");
	}
	if (!j) {
		*status = MHD_HTTP_NOT_FOUND;
		return rb_web_page(out, "missing.html", "series", NULL);
	}
	ret = json ? answer(out, j, ctype) : r->view(out, st, q, j);
	json_decref(j);
	return ret;
}

int rb_http_render_query(struct rb_buf *out, struct rb_store *st,
			 const struct rb_http_query *q, int *status,
			 const char **ctype)
{
	const char *path = q->path;
	bool json = q->format && !strcmp(q->format, "json");
	size_t i;

	*status = MHD_HTTP_OK;
	*ctype = "text/html; charset=utf-8";
	/* /api/NAME is /NAME?format=json. */
	if (!strncmp(path, "/api/", 5)) {
		json = true;
		path += 4;
		if (!strcmp(path, "/series") && !q->id)
			path = "/";
	}
	for (i = 0; i < RB_WEB_ARRAY_SIZE(routes); i++)
		if (!strcmp(path, routes[i].path))
			return page(out, st, q, &routes[i], json, status,
				    ctype);
	if (!strcmp(path, "/metrics")) {
		*ctype = "text/plain; version=0.0.4; charset=utf-8";
		return rb_web_metrics(out, st);
	}
	return plain(out, status, ctype, MHD_HTTP_NOT_FOUND, "not found\n");
}

int rb_http_render(struct rb_buf *out, struct rb_store *st, const char *path,
		   const char *id, int *status, const char **ctype)
{
	struct rb_http_query q = RB_HTTP_QUERY_INIT;

	q.path = path;
	q.id = id;
	return rb_http_render_query(out, st, &q, status, ctype);
}

static enum MHD_Result reply(struct MHD_Connection *conn, int status,
			     const char *ctype, struct rb_buf *b)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len = 0;
	char *data = rb_buf_detach(b, &len);

	r = MHD_create_response_from_buffer(len, data ? data : (char *)"",
					    data ? MHD_RESPMEM_MUST_FREE :
						   MHD_RESPMEM_PERSISTENT);
	if (!r) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", ctype);
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'none'; style-src 'unsafe-inline';"
				" img-src 'self'");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	ret = MHD_queue_response(conn, (unsigned int)status, r);
	MHD_destroy_response(r);
	return ret;
}

/* True when @s (length @n) is an IPv4 or a bracketed IPv6 literal. */
static bool ip_literal(const char *s, size_t n)
{
	unsigned char a[sizeof(struct in6_addr)];
	char tmp[64];

	if (n < 2 || n >= sizeof(tmp))
		return false;
	if (s[0] == '[' && s[n - 1] == ']') {
		memcpy(tmp, s + 1, n - 2);
		tmp[n - 2] = '\0';
		return inet_pton(AF_INET6, tmp, a) == 1;
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return inet_pton(AF_INET, tmp, a) == 1;
}

static bool same_name(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(s, name, n);
}

/*
 * DNS rebinding: a page of evil.example whose name the attacker points at
 * 127.0.0.1 may read what the browser fetches from that name, the
 * dashboard included. Such a request names the attacker's host in Host:
 * (RFC 9110 section 7.2), so only the names this server is reached by are
 * answered: 127.0.0.1, localhost, [::1] and http.listen's host, with any
 * port (an ssh tunnel changes it). With a wildcard listen address any IP
 * literal is fine: a rebinding attack needs a DNS name.
 */
static bool host_ok(const struct rb_http *h, const char *host)
{
	size_t n;
	const char *colon;

	if (!host || !*host)
		return false;
	n = strlen(host);
	if (host[0] == '[') {
		colon = strchr(host, ']');
		if (!colon)
			return false;
		colon++;
		if (*colon && *colon != ':')
			return false;
	} else {
		colon = strchr(host, ':');
	}
	if (colon) {
		const char *p = colon + 1;

		for (; *colon == ':' && *p; p++)
			if (*p < '0' || *p > '9')
				return false;
		n = (size_t)(colon - host);
	}
	if (same_name(host, n, "127.0.0.1") ||
	    same_name(host, n, "localhost") || same_name(host, n, "[::1]") ||
	    same_name(host, n, h->host))
		return true;
	return !strcmp(h->host, "0.0.0.0") && ip_literal(host, n);
}

static const char *arg(struct MHD_Connection *conn, const char *name)
{
	return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
}

/* Renders @q with a store of the pool no other thread is using. */
static int render_pooled(struct rb_http *h, struct rb_buf *b,
			 const struct rb_http_query *q, int *status,
			 const char **ctype)
{
	size_t i;
	int ret;

	for (i = 0; i < POOL; i++)
		if (!pthread_mutex_trylock(&h->lock[i]))
			break;
	if (i == POOL) {
		i = (size_t)(uintptr_t)pthread_self() % POOL;
		pthread_mutex_lock(&h->lock[i]);
	}
	ret = rb_http_render_query(b, h->st[i], q, status, ctype);
	pthread_mutex_unlock(&h->lock[i]);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct rb_http *h = cls;
	struct rb_buf b = RB_BUF_INIT(RB_WEB_PAGE_MAX);
	struct rb_http_query q = RB_HTTP_QUERY_INIT;
	const char *ctype = "text/plain; charset=utf-8";
	int status = MHD_HTTP_OK, ret;

	(void)version;
	(void)upload;
	if (!*con_cls) {
		/* The first call only announces the request. */
		*con_cls = h;
		return MHD_YES;
	}
	if (!host_ok(h, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_HOST))) {
		if (*upload_size) {
			*upload_size = 0; /* read and dropped */
			return MHD_YES;
		}
		rb_buf_puts(&b, "this server does not answer for that Host\n");
		return reply(conn, MHD_HTTP_MISDIRECTED_REQUEST, ctype, &b);
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		if (*upload_size) {
			*upload_size = 0; /* read and dropped */
			return MHD_YES;
		}
		rb_buf_puts(&b, "read-only: GET and HEAD only\n");
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, ctype, &b);
	}
	q.path = url;
	q.id = arg(conn, "id");
	q.q = arg(conn, "q");
	q.section = arg(conn, "section");
	q.state = arg(conn, "state");
	q.mode = arg(conn, "mode");
	q.findings = arg(conn, "findings");
	q.page = arg(conn, "page");
	q.format = arg(conn, "format");
	q.thread_url = h->thread_url;
	ret = render_pooled(h, &b, &q, &status, &ctype);
	if (ret) {
		rb_log(RB_LOG_ERROR, "http.error", "url", url, "reason",
		       rb_errmsg(), NULL);
		rb_buf_reset(&b);
		rb_buf_puts(&b, "internal error\n");
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		ctype = "text/plain; charset=utf-8";
	}
	return reply(conn, status, ctype, &b);
}

static int parse_listen(struct sockaddr_in *sa, char *host_out, size_t n,
			const char *listen)
{
	const char *colon = strrchr(listen, ':');
	char host[64];
	char *end;
	long port;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (!colon || (size_t)(colon - listen) >= sizeof(host))
		return rb_err(RB_ECONFIG,
			      "http.listen: \"%s\" is not HOST:PORT", listen);
	memcpy(host, listen, (size_t)(colon - listen));
	host[colon - listen] = '\0';
	snprintf(host_out, n, "%s", host);
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535)
		return rb_err(RB_ECONFIG, "http.listen: bad port in \"%s\"",
			      listen);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return rb_err(RB_ECONFIG,
			      "http.listen: \"%s\" is not an IPv4 address",
			      host);
	sa->sin_port = htons((uint16_t)port);
	return 0;
}

int rb_http_start(struct rb_http **out, const char *listen,
		  const char *store_where, const char *thread_url)
{
	const struct rb_http_opts o = { .listen = listen,
					.store_where = store_where,
					.thread_url = thread_url };

	return rb_http_start_opts(out, &o);
}

int rb_http_start_opts(struct rb_http **out, const struct rb_http_opts *o)
{
	struct rb_http *h = calloc(1, sizeof(*h));
	const char *listen = o->listen, *thread_url = o->thread_url;
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;
	size_t i;
	int ret;

	if (!h)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = parse_listen(&sa, h->host, sizeof(h->host),
			   listen ? listen : "127.0.0.1:8080");
	if (ret)
		goto fail;
	for (i = 0; i < POOL; i++) {
		ret = rb_store_open(&h->st[i], o->store_where, true);
		if (ret)
			goto fail;
		rb_store_report_public(h->st[i], o->public_mode);
		if (pthread_mutex_init(&h->lock[i], NULL)) {
			ret = rb_err(RB_ENOMEM, "cannot make a lock");
			goto fail;
		}
		h->n_locks++;
	}
	if (thread_url) {
		h->thread_url = strdup(thread_url);
		if (!h->thread_url) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto fail;
		}
	}
	h->d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL,
		NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)POOL,
		MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT,
		30u, MHD_OPTION_END);
	if (!h->d) {
		ret = rb_err(RB_EIO, "http: cannot listen on %s",
			     listen ? listen : "127.0.0.1:8080");
		goto fail;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : ntohs(sa.sin_port);
	rb_log(RB_LOG_INFO, "http.listen", "addr",
	       listen ? listen : "127.0.0.1:8080", NULL);
	*out = h;
	return 0;
fail:
	rb_http_stop(h);
	return ret;
}

int rb_http_port(const struct rb_http *h)
{
	return h->port;
}

void rb_http_stop(struct rb_http *h)
{
	size_t i;

	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	for (i = 0; i < POOL; i++)
		rb_store_close(h->st[i]);
	for (i = 0; i < h->n_locks; i++)
		pthread_mutex_destroy(&h->lock[i]);
	free(h->thread_url);
	free(h);
}
