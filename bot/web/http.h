/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http.h - the read-only dashboard and /metrics, served with libmicrohttpd
 * on 127.0.0.1 by default:
 *
 *   /              the series, newest first, 50 a page (plain links),
 *                  searched by title, author or Message-ID and filtered
 *                  by section, state, mode and "has findings", each with
 *                  its status and a link to its thread (http.thread_url)
 *   /series?id=ID  one series: its parts, its apply attempts, its
 *                  findings with their quote and outcome, the verdicts,
 *                  the mails as sent, the previous and next versions
 *   /stats         precision per finding and per review, by rule,
 *                  section, checker and model; the median and 95th
 *                  percentile time from receipt to sending; SVG charts:
 *                  precision over time, mails by the day their series
 *                  arrived, the latency histogram
 *   ?format=json   beside each of these (or /api/series, /api/stats):
 *                  the same figures as JSON; the HTML is a template of
 *                  templates/web/ rendered from it (bot/web/pages.h)
 *   /metrics       the same figures in the Prometheus text format (0.0.4)
 *
 * Only GET and HEAD are served (405 otherwise), and only for the Host
 * names the server is reached by: 127.0.0.1, localhost, [::1] and
 * http.listen's host, with any port (421 otherwise, against DNS
 * rebinding). Every string that comes
 * from mail or from the store is HTML-escaped; pages carry a
 * Content-Security-Policy that allows no script at all. The dashboard
 * opens its own connections to the store (shared: no lock, SQLite WAL
 * readers do not block the pipeline) and answers from a pool of threads,
 * one connection each; a page is at most 200 series. With http.public
 * it shows what the lists saw: no series that had a shadow review, and
 * of a series only the mails sent (not held: an embargo, a rate limit)
 * and their findings.
 */
#ifndef RB_BOT_HTTP_H
#define RB_BOT_HTTP_H

#include <stdbool.h>

struct rb_http;
struct rb_buf;
struct rb_store;

/*
 * Starts serving @store_where (a SQLite path or a postgresql:// URL) on
 * @listen, "HOST:PORT" with HOST an IPv4 address or "localhost"
 * (NULL: 127.0.0.1:8080; port 0 picks a free port, see rb_http_port()).
 * @thread_url (http.thread_url, or NULL for none) is where each series
 * links its thread, the Message-ID appended URL-escaped; the server never
 * fetches it. *out is owned by the caller (rb_http_stop()). Errors:
 * -RB_ECONFIG for a bad address, -RB_EIO when the port cannot be bound,
 * store errors.
 */
int rb_http_start(struct rb_http **out, const char *listen,
		  const char *store_where, const char *thread_url);

struct rb_http_opts {
	const char *listen, *store_where, *thread_url; /* as above */
	/* http.public: the store's public view (store_reports.h
	 * rb_store_report_public()): no shadow review, no held mail. */
	bool public_mode;
};
/* rb_http_start() with @o; the server answers on a pool of threads,
 * each with its own store connection. */
int rb_http_start_opts(struct rb_http **out, const struct rb_http_opts *o);
/* The TCP port it listens on. */
int rb_http_port(const struct rb_http *h);
/* Stops serving and frees @h; NULL does nothing. */
void rb_http_stop(struct rb_http *h);

/* What a request asks for; every string is borrowed and may be NULL. */
struct rb_http_query {
	const char *path; /* "/", "/series", "/stats", "/metrics", "/api/..." */
	const char *id; /* /series: the series' id (its first Message-ID) */
	/* The list's filters (http.c list_args), as the query gives them. */
	const char *q, *section, *state, *mode, *findings, *page;
	const char *format; /* "json": the page's JSON instead of HTML */
	const char *thread_url; /* http.thread_url, or NULL: no links */
};
#define RB_HTTP_QUERY_INIT                                              \
	{                                                               \
		.path = "/", .thread_url = "https://lore.kernel.org/r/" \
	}

/*
 * The answer to @q rendered into @out without a server, for tests and
 * fuzzing. *status gets the HTTP status, *ctype the content type.
 */
int rb_http_render_query(struct rb_buf *out, struct rb_store *st,
			 const struct rb_http_query *q, int *status,
			 const char **ctype);
/* The same for @path with the query argument @id (or NULL) alone. */
int rb_http_render(struct rb_buf *out, struct rb_store *st, const char *path,
		   const char *id, int *status, const char **ctype);

/* Appends @s to @out HTML-escaped (& < > " '). */
int rb_html_escape(struct rb_buf *out, const char *s);

#endif
