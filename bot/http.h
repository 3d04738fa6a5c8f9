/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http.h - the read-only dashboard and /metrics, served with libmicrohttpd
 * on 127.0.0.1 by default:
 *
 *   /              the series, newest first, with their status: waiting,
 *                  incomplete, applied on BASE at COMMIT, failed to
 *                  apply, reviewed, sent
 *   /series?id=ID  one series: its apply attempts, its review mails, their
 *                  findings and the verdicts given on them
 *   /stats         precision per finding and per review, by subsystem,
 *                  checker, category and model, with SVG charts: precision
 *                  over time per subsystem, reviews per day, the latency
 *                  histogram
 *   /metrics       the same figures in the Prometheus text format (0.0.4)
 *
 * Only GET and HEAD are served (405 otherwise), and only for the Host
 * names the server is reached by: 127.0.0.1, localhost, [::1] and
 * http.listen's host, with any port (421 otherwise, against DNS
 * rebinding). Every string that comes
 * from mail or from the store is HTML-escaped; pages carry a
 * Content-Security-Policy that allows no script at all. The dashboard
 * opens its own connection to the store (shared: no lock, SQLite WAL
 * readers do not block the pipeline) and answers from one thread.
 */
#ifndef RB_BOT_HTTP_H
#define RB_BOT_HTTP_H

struct rb_http;
struct rb_buf;
struct rb_store;

/*
 * Starts serving @store_where (a SQLite path or a postgresql:// URL) on
 * @listen, "HOST:PORT" with HOST an IPv4 address or "localhost"
 * (NULL: 127.0.0.1:8080; port 0 picks a free port, see rb_http_port()).
 * *out is owned by the caller (rb_http_stop()). Errors: -RB_ECONFIG for a
 * bad address, -RB_EIO when the port cannot be bound, store errors.
 */
int rb_http_start(struct rb_http **out, const char *listen,
		  const char *store_where);
/* The TCP port it listens on. */
int rb_http_port(const struct rb_http *h);
/* Stops serving and frees @h; NULL does nothing. */
void rb_http_stop(struct rb_http *h);

/*
 * The page for @path ("/", "/series", "/stats", "/metrics") with the query
 * argument @id (or NULL), rendered into @out without a server, for tests
 * and fuzzing. *status gets the HTTP status, *ctype the content type.
 */
int rb_http_render(struct rb_buf *out, struct rb_store *st, const char *path,
		   const char *id, int *status, const char **ctype);

/* Appends @s to @out HTML-escaped (& < > " '). */
int rb_html_escape(struct rb_buf *out, const char *s);

#endif
