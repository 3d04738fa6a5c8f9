// SPDX-License-Identifier: GPL-2.0-only
/*
 * http.c - the dashboard and /metrics (libmicrohttpd). See http.h.
 *
 * Pages are built in one struct rb_buf from store queries; nothing is
 * cached. Every value that is text in the store goes through
 * rb_html_escape() (or prom_label() for /metrics): subjects, names,
 * findings, verdict reasons and mail bodies all come from hostile mail.
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <jansson.h>
#include <microhttpd.h>

#include "bot/http.h"
#include "bot/metrics.h"
#include "bot/stats.h"
#include "bot/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define PAGE_MAX (16u << 20)

struct rb_http {
	struct MHD_Daemon *d;
	struct rb_store *st;
	int port;
	char host[64]; /* http.listen's host, as written */
};

int rb_html_escape(struct rb_buf *out, const char *s)
{
	int ret = 0;

	for (; s && *s && !ret; s++) {
		switch (*s) {
		case '&':
			ret = rb_buf_puts(out, "&amp;");
			break;
		case '<':
			ret = rb_buf_puts(out, "&lt;");
			break;
		case '>':
			ret = rb_buf_puts(out, "&gt;");
			break;
		case '"':
			ret = rb_buf_puts(out, "&quot;");
			break;
		case '\'':
			ret = rb_buf_puts(out, "&#39;");
			break;
		default:
			ret = rb_buf_putc(out, *s);
		}
	}
	return ret;
}

/* For an href query value: everything but RFC 3986 unreserved is %XX. */
static int url_escape(struct rb_buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	int ret = 0;

	for (; s && *s && !ret; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c))
			ret = rb_buf_putc(out, (char)c);
		else
			ret = rb_buf_printf(out, "%%%c%c", hex[c >> 4],
					    hex[c & 15]);
	}
	return ret;
}

static const char *col(const struct rb_dbv *v)
{
	return v->t == RB_DBT_TEXT || v->t == RB_DBT_BLOB ? v->s : NULL;
}

static int64_t coli(const struct rb_dbv *v)
{
	if (v->t == RB_DBT_INT)
		return v->i;
	if (v->t == RB_DBT_TEXT)
		return strtoll(v->s, NULL, 10);
	return 0;
}

static void fmt_time(char *buf, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm)) {
		snprintf(buf, n, "-");
		return;
	}
	strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm);
}

static int head(struct rb_buf *b, const char *title)
{
	int ret = rb_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
				 "<meta charset=\"utf-8\"><title>reviewbot: ");

	ret = ret ?: rb_html_escape(b, title);
	ret = ret   ?:
		      rb_buf_puts(
			      b,
			      "</title><style>"
			      "body{font-family:sans-serif;margin:1.5em;color:#222}"
			      "table{border-collapse:collapse;margin:.5em 0 1.5em}"
			      "td,th{border:1px solid #ccc;padding:.25em .5em;"
			      "text-align:left;vertical-align:top}"
			      "th{background:#f3f3f3}pre{background:#f8f8f8;padding:.5em;"
			      "white-space:pre-wrap;border:1px solid #ddd}"
			      ".fig{font-size:1.4em;font-weight:bold}"
			      "nav a{margin-right:1em}svg{background:#fcfcfc;"
			      "border:1px solid #ddd;margin:.5em 1em .5em 0}"
			      "</style></head><body><nav><a href=\"/\">series</a>"
			      "<a href=\"/stats\">stats</a><a href=\"/metrics\">metrics</a>"
			      "</nav>\n");
	return ret;
}

static int tail(struct rb_buf *b)
{
	return rb_buf_puts(b, "</body></html>\n");
}

/* --- / : the series --- */

static const char *status_of(const char *state, int64_t sent)
{
	if (!state)
		return "-";
	if (!strcmp(state, "waiting"))
		return "waiting";
	if (!strcmp(state, "incomplete"))
		return "incomplete";
	if (!strcmp(state, "apply_failed"))
		return "failed to apply";
	if (!strcmp(state, "reviewed"))
		return sent ? "sent" : "reviewed";
	return state;
}

static int series_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_buf *b = payload;
	const struct rb_dbv *v = row->v;
	const char *base = col(&v[5]), *commit = col(&v[6]);
	char when[64];
	int ret;

	fmt_time(when, sizeof(when), coli(&v[8]));
	ret = rb_buf_puts(b, "<tr><td><a href=\"/series?id=");
	ret = ret ?: url_escape(b, col(&v[0]));
	ret = ret ?: rb_buf_puts(b, "\">");
	ret = ret ?: rb_html_escape(b, col(&v[2]) ? col(&v[2]) : "(no title)");
	ret = ret   ?:
		      rb_buf_printf(b, "</a></td><td>v%lld</td><td>",
				    (long long)coli(&v[1]));
	ret = ret ?: rb_html_escape(b, col(&v[3]));
	ret = ret ?: rb_buf_puts(b, "</td><td class=\"status\">");
	ret = ret ?: rb_html_escape(b, status_of(col(&v[4]), coli(&v[9])));
	if (!ret && base) {
		ret = rb_buf_puts(b, "<br>applied on ");
		ret = ret ?: rb_html_escape(b, base);
		if (!ret && commit) {
			ret = rb_buf_puts(b, " at ");
			ret = ret ?: rb_buf_printf(b, "%.12s", commit);
		}
	}
	ret = ret ?: rb_buf_puts(b, "</td><td>");
	ret = ret ?: rb_html_escape(b, col(&v[7]));
	ret = ret   ?:
		      rb_buf_printf(b, "</td><td>%lld</td><td>%s</td></tr>\n",
				    (long long)coli(&v[10]), when);
	return ret;
}

static int page_index(struct rb_buf *b, struct rb_store *st)
{
	int ret = head(b, "series");

	ret = ret   ?:
		      rb_buf_puts(b, "<h1>Series</h1><table id=\"series\">"
				     "<tr><th>title</th><th>version</th>"
				     "<th>author</th><th>status</th>"
				     "<th>subsystem</th><th>findings</th>"
				     "<th>updated</th></tr>\n");
	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT s.id, s.version, s.title, s.author,"
			      " s.state, s.base_name, s.base_commit,"
			      " s.subsystem, s.updated_at, (SELECT COUNT(*)"
			      " FROM outbox o WHERE o.series_id = s.id AND"
			      " o.state = 'sent'), (SELECT COUNT(*) FROM"
			      " findings f WHERE f.series_id = s.id AND"
			      " f.state = 'raised' AND f.fid IS NOT NULL)"
			      " FROM series s ORDER BY s.updated_at DESC,"
			      " s.id LIMIT 1000",
			      NULL, 0, series_row, b);
	ret = ret ?: rb_buf_puts(b, "</table>\n");
	return ret ?: tail(b);
}

/* --- /series?id= --- */

struct series_page {
	struct rb_buf *b;
	bool found;
};

static int series_head_row(const struct rb_dbrow *row, void *payload)
{
	struct series_page *sp = payload;
	struct rb_buf *b = sp->b;
	const struct rb_dbv *v = row->v;
	int ret;

	sp->found = true;
	ret = rb_buf_puts(b, "<h1 id=\"title\">");
	ret = ret ?: rb_html_escape(b, col(&v[1]) ? col(&v[1]) : "(no title)");
	ret = ret   ?:
		      rb_buf_printf(b,
				    "</h1><table><tr><th>version</th>"
				    "<td>v%lld</td></tr><tr><th>author</th>"
				    "<td>",
				    (long long)coli(&v[2]));
	ret = ret ?: rb_html_escape(b, col(&v[3]));
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>status</th><td>");
	ret = ret ?: rb_html_escape(b, status_of(col(&v[4]), coli(&v[9])));
	ret = ret ?: rb_buf_puts(b, " ");
	ret = ret ?: rb_html_escape(b, col(&v[5]));
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>base</th><td>");
	ret = ret ?: rb_html_escape(b, col(&v[6]) ? col(&v[6]) : "-");
	ret = ret ?: rb_buf_puts(b, " ");
	ret = ret ?: rb_html_escape(b, col(&v[7]));
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>subsystem</th><td>");
	ret = ret ?: rb_html_escape(b, col(&v[8]));
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>id</th><td>");
	ret = ret ?: rb_html_escape(b, col(&v[0]));
	ret = ret ?: rb_buf_puts(b, "</td></tr></table>\n");
	return ret ? ret : 1;
}

static int attempt_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_buf *b = payload;
	const struct rb_dbv *v = row->v;
	int ret = rb_buf_puts(b, "<tr><td>");

	ret = ret ?: rb_html_escape(b, col(&v[0]));
	ret = ret   ?:
		      rb_buf_printf(b, "</td><td>%.12s</td><td>%s</td><td>",
				    col(&v[1]) ? col(&v[1]) : "",
				    coli(&v[2]) ? "applied" : "failed");
	if (!ret && !coli(&v[2])) {
		ret = rb_buf_printf(b, "patch %lld, ", (long long)coli(&v[3]));
		ret = ret ?: rb_html_escape(b, col(&v[4]));
		ret = ret   ?:
			      rb_buf_printf(b, " hunk %lld: ",
					    (long long)coli(&v[5]));
		ret = ret ?: rb_html_escape(b, col(&v[6]));
	}
	return ret ?: rb_buf_puts(b, "</td></tr>\n");
}

/* The body of a stored mail: what follows the header section. */
static const char *mail_body(const char *bytes)
{
	const char *p = bytes ? strstr(bytes, "\r\n\r\n") : NULL;

	if (p)
		return p + 4;
	p = bytes ? strstr(bytes, "\n\n") : NULL;
	return p ? p + 2 : bytes;
}

static int review_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_buf *b = payload;
	const struct rb_dbv *v = row->v;
	struct rb_buf body = RB_BUF_INIT(PAGE_MAX);
	char when[64];
	const char *p;
	int ret;

	fmt_time(when, sizeof(when), coli(&v[5]));
	ret = rb_buf_puts(b, "<h3>");
	ret = ret ?: rb_html_escape(b, col(&v[1]));
	ret = ret   ?:
		      rb_buf_printf(b,
				    " (patch %lld): %lld words, %lld "
				    "findings, ",
				    (long long)coli(&v[2]),
				    (long long)coli(&v[3]),
				    (long long)coli(&v[4]));
	ret = ret ?: rb_html_escape(b, col(&v[6]) ? col(&v[6]) : "no mail");
	ret = ret ?: rb_buf_printf(b, ", %s</h3>\n<pre class=\"mail\">", when);
	/* Without the CRs of the wire format. */
	for (p = mail_body(col(&v[7])); !ret && p && *p; p++)
		if (*p != '\r')
			ret = rb_buf_putc(&body, *p);
	ret = ret ?: rb_html_escape(b, body.ptr ? body.ptr : "");
	rb_buf_release(&body);
	return ret ?: rb_buf_puts(b, "</pre>\n");
}

static int finding_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_buf *b = payload;
	const struct rb_dbv *v = row->v;
	static const int order[] = { 0, 1, 2, 3, -1, 6, 7 };
	size_t i;
	int ret = rb_buf_puts(b, "<tr>");

	for (i = 0; i < sizeof(order) / sizeof(order[0]) && !ret; i++) {
		ret = rb_buf_puts(b, "<td>");
		if (order[i] >= 0) {
			ret = ret ?: rb_html_escape(b, col(&v[order[i]]));
		} else {
			/* where: file:line, or the commit message */
			ret = ret   ?:
				      rb_html_escape(
					      b, col(&v[4]) ?
							 col(&v[4]) :
							 "(commit message)");
			if (!ret && coli(&v[5]))
				ret = rb_buf_printf(b, ":%lld",
						    (long long)coli(&v[5]));
		}
		ret = ret ?: rb_buf_puts(b, "</td>");
	}
	return ret ?: rb_buf_puts(b, "</tr>\n");
}

static int verdict_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_buf *b = payload;
	const struct rb_dbv *v = row->v;
	char when[64];
	int ret;

	fmt_time(when, sizeof(when), coli(&v[5]));
	ret = rb_buf_puts(b, "<tr><td>");
	ret = ret ?: rb_html_escape(b, col(&v[0]) ? col(&v[0]) : "-");
	ret = ret ?: rb_buf_puts(b, "</td><td>");
	ret = ret ?: rb_html_escape(b, col(&v[1]) ? col(&v[1]) : "-");
	ret = ret ?: rb_buf_puts(b, "</td><td>");
	ret = ret ?: rb_html_escape(b, col(&v[2]));
	ret = ret   ?:
		      rb_buf_printf(b, "</td><td>%s</td><td>",
				    coli(&v[3]) ? "yes" : "no");
	ret = ret ?: rb_html_escape(b, col(&v[4]));
	return ret ?: rb_buf_printf(b, "</td><td>%s</td></tr>\n", when);
}

static int page_series(struct rb_buf *b, struct rb_store *st, const char *id,
		       int *status)
{
	struct series_page sp = { .b = b };
	struct rb_dbv p = RB_DB_TEXT(id);
	int ret = head(b, "series");

	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT s.id, s.title, s.version, s.author,"
			      " s.state, s.detail, s.base_name, s.base_commit,"
			      " s.subsystem, (SELECT COUNT(*) FROM outbox o"
			      " WHERE o.series_id = s.id AND o.state = 'sent')"
			      " FROM series s WHERE s.id = ?",
			      &p, 1, series_head_row, &sp);
	if (ret)
		return ret;
	if (!sp.found) {
		*status = MHD_HTTP_NOT_FOUND;
		ret = rb_buf_puts(b, "<h1>No such series</h1>");
		return ret ?: tail(b);
	}
	ret = rb_buf_puts(b, "<h2>Apply attempts</h2><table><tr><th>base</th>"
			     "<th>commit</th><th>result</th><th>detail</th>"
			     "</tr>\n");
	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT base_name, base_commit, ok, failed_patch,"
			      " failed_file, failed_hunk, reason FROM attempts"
			      " WHERE series_id = ? ORDER BY id",
			      &p, 1, attempt_row, b);
	ret = ret   ?:
		      rb_buf_puts(b, "</table><h2>Findings</h2>"
				     "<table id=\"findings\"><tr><th>id</th>"
				     "<th>checker</th><th>category</th>"
				     "<th>severity</th><th>where</th>"
				     "<th>state</th><th>message</th></tr>\n");
	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT COALESCE(fid, '-'), checker, category,"
			      " severity, file, line, state, message FROM"
			      " findings WHERE series_id = ? ORDER BY"
			      " review_msgid IS NULL, review_msgid, id",
			      &p, 1, finding_row, b);
	ret = ret   ?:
		      rb_buf_puts(b,
				  "</table><h2>Verdicts</h2>"
				  "<table id=\"verdicts\"><tr><th>finding</th>"
				  "<th>verdict</th><th>judge</th>"
				  "<th>authorised</th><th>reason</th>"
				  "<th>when</th></tr>\n");
	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT v.fid, v.verdict, v.judge, v.authorised,"
			      " v.reason, v.created_at FROM verdicts v WHERE"
			      " v.review_msgid IN (SELECT message_id FROM"
			      " reviews WHERE series_id = ?) ORDER BY"
			      " v.created_at, v.id",
			      &p, 1, verdict_row, b);
	ret = ret ?: rb_buf_puts(b, "</table><h2>Mails</h2>\n");
	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT r.message_id, r.kind, r.patch_idx,"
			      " r.words, r.findings, r.created_at, o.state,"
			      " o.bytes FROM reviews r LEFT JOIN outbox o ON"
			      " o.message_id = r.message_id WHERE"
			      " r.series_id = ? ORDER BY r.created_at,"
			      " r.patch_idx",
			      &p, 1, review_row, b);
	return ret ?: tail(b);
}

/* --- /stats --- */

static int fig(struct rb_buf *b, const char *label, json_t *v, const char *id)
{
	int ret = rb_buf_printf(b, "<p>%s: <span class=\"fig\" id=\"%s\">",
				label, id);

	if (!ret && json_is_number(v))
		ret = rb_buf_printf(b, "%.2f", json_number_value(v));
	else if (!ret)
		ret = rb_buf_puts(b, "-");
	return ret ?: rb_buf_puts(b, "</span></p>\n");
}

static int prec_table(struct rb_buf *b, const char *title, json_t *o)
{
	const char *k;
	json_t *v;
	int ret;

	if (!json_object_size(o))
		return 0;
	ret = rb_buf_puts(b, "<h3>by ");
	ret = ret ?: rb_html_escape(b, title);
	ret = ret   ?:
		      rb_buf_puts(b, "</h3><table><tr><th></th><th>raised</th>"
				     "<th>judged</th><th>valid</th>"
				     "<th>precision</th></tr>\n");
	json_object_foreach(o, k, v)
	{
		json_t *p = json_object_get(v, "precision");

		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, *k ? k : "(none)");
		ret = ret   ?:
			      rb_buf_printf(
				      b,
				      "</td><td>%lld</td><td>%lld</td>"
				      "<td>%lld</td><td>",
				      (long long)json_integer_value(
					      json_object_get(v, "raised")),
				      (long long)json_integer_value(
					      json_object_get(v, "judged")),
				      (long long)json_integer_value(
					      json_object_get(v, "valid")));
		if (!ret && json_is_number(p))
			ret = rb_buf_printf(b, "%.2f", json_number_value(p));
		else if (!ret)
			ret = rb_buf_puts(b, "-");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	return ret ?: rb_buf_puts(b, "</table>\n");
}

#define W 560
#define H 220
#define PADL 40
#define PADB 30

/*
 * Precision over time per subsystem: cumulative valid / judged at each
 * day a verdict was given.
 */
struct ptime {
	char sub[128];
	int64_t day0, day1;
	int64_t valid, judged;
	struct rb_buf pts; /* "x,y " for the current subsystem */
	struct rb_buf *b;
	struct rb_buf svg;
	int n_sub;
	int ret;
};

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c",
				      "#9467bd", "#ff7f0e", "#8c564b" };

static void ptime_flush(struct ptime *t)
{
	const char *c = colors[t->n_sub % 6];

	if (!t->pts.len)
		return;
	t->ret = t->ret ?:
			  rb_buf_printf(&t->svg,
					"<polyline fill=\"none\" stroke=\"%s\""
					 " stroke-width=\"2\" points=\"%s\"/>",
					c, t->pts.ptr);
	t->ret = t->ret ?:
			  rb_buf_printf(&t->svg,
					"<text x=\"%d\" y=\"%d\" fill=\"%s\""
					 " font-size=\"11\">",
					PADL + 8, 14 + 13 * t->n_sub, c);
	t->ret = t->ret ?: rb_html_escape(&t->svg, *t->sub ? t->sub : "(none)");
	t->ret = t->ret ?: rb_buf_puts(&t->svg, "</text>");
	t->n_sub++;
	rb_buf_reset(&t->pts);
}

static int ptime_row(const struct rb_dbrow *row, void *payload)
{
	struct ptime *t = payload;
	const char *sub = col(&row->v[0]) ? col(&row->v[0]) : "";
	int64_t day = coli(&row->v[1]);
	double x, y, span;

	if (strncmp(sub, t->sub, sizeof(t->sub) - 1)) {
		ptime_flush(t);
		snprintf(t->sub, sizeof(t->sub), "%s", sub);
		t->valid = t->judged = 0;
	}
	t->judged += coli(&row->v[2]);
	t->valid += coli(&row->v[3]);
	span = t->day1 > t->day0 ? (double)(t->day1 - t->day0) : 1;
	x = PADL + (double)(day - t->day0) / span * (W - PADL - 10);
	if (t->day1 == t->day0)
		x = PADL + (W - PADL - 10) / 2.0;
	y = (H - PADB) - (double)t->valid / (double)t->judged * (H - PADB - 10);
	t->ret = t->ret ?: rb_buf_printf(&t->pts, "%.1f,%.1f ", x, y);
	t->ret = t->ret ?:
			  rb_buf_printf(&t->svg,
					"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\""
					 " fill=\"%s\"><title>%.2f</title>"
					 "</circle>",
					x, y, colors[t->n_sub % 6],
					(double)t->valid / (double)t->judged);
	return t->ret;
}

static int minmax_row(const struct rb_dbrow *row, void *payload)
{
	int64_t *mm = payload;

	mm[0] = coli(&row->v[0]);
	mm[1] = coli(&row->v[1]);
	return 1;
}

/* The verdict that counts per finding is any authorised one, by day. */
#define VERDICTS_BY_DAY                                                       \
	" FROM verdicts v JOIN findings f ON f.review_msgid = v.review_msgid" \
	" AND f.fid = v.fid LEFT JOIN reviews r ON"                           \
	" r.message_id = v.review_msgid WHERE v.authorised = 1 AND"           \
	" v.verdict IS NOT NULL"

static int axes(struct rb_buf *b, const char *id, const char *title,
		const char *ylabel)
{
	int ret = rb_buf_printf(b,
				"<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/"
				"svg\" width=\"%d\" height=\"%d\" role=\"img\">"
				"<title>%s</title>"
				"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
				" stroke=\"#888\"/><line x1=\"%d\" y1=\"10\""
				" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
				"<text x=\"2\" y=\"14\" font-size=\"10\">%s"
				"</text>",
				id, W, H, title, PADL, H - PADB, W - 10,
				H - PADB, PADL, PADL, H - PADB, ylabel);

	return ret;
}

static int chart_precision(struct rb_buf *b, struct rb_store *st)
{
	struct ptime t = { .b = b };
	int64_t mm[2] = { 0, 0 };
	int ret;

	rb_buf_init(&t.pts, 1 << 20);
	rb_buf_init(&t.svg, 4 << 20);
	ret = st->db->ops->query(st->db,
				 "SELECT MIN(v.created_at / 86400),"
				 " MAX(v.created_at / 86400)" VERDICTS_BY_DAY,
				 NULL, 0, minmax_row, mm);
	t.day0 = mm[0];
	t.day1 = mm[1];
	ret = ret   ?:
		      st->db->ops->query(
			      st->db,
			      "SELECT COALESCE(r.subsystem, ''),"
			      " v.created_at / 86400, COUNT(*),"
			      " SUM(CASE WHEN v.verdict IN ('valid', 'fixed')"
			      " THEN 1 ELSE 0 END)" VERDICTS_BY_DAY
			      " GROUP BY 1, 2 ORDER BY 1, 2",
			      NULL, 0, ptime_row, &t);
	ptime_flush(&t);
	ret = ret ?: t.ret;
	ret = ret   ?:
		      rb_buf_puts(b, "<h3>Precision over time, per subsystem"
				     "</h3>");
	ret = ret ?: axes(b, "chart-precision", "precision over time", "1.0");
	ret = ret   ?:
		      rb_buf_printf(b,
				    "<text x=\"2\" y=\"%d\" font-size=\"10\">0"
				    "</text>",
				    H - PADB);
	if (!ret && !t.svg.len)
		ret = rb_buf_printf(b,
				    "<text x=\"%d\" y=\"%d\" font-size=\"12\">"
				    "no verdicts yet</text>",
				    W / 2 - 40, H / 2);
	else if (!ret)
		ret = rb_buf_add(b, t.svg.ptr, t.svg.len);
	ret = ret ?: rb_buf_puts(b, "</svg>\n");
	rb_buf_release(&t.pts);
	rb_buf_release(&t.svg);
	return ret;
}

struct bars {
	int64_t x[64];
	int64_t y[64];
	size_t n;
};

static int bar_row(const struct rb_dbrow *row, void *payload)
{
	struct bars *br = payload;

	if (br->n >= 64)
		return 1;
	br->x[br->n] = coli(&row->v[0]);
	br->y[br->n] = coli(&row->v[1]);
	br->n++;
	return 0;
}

static int bar_chart(struct rb_buf *b, const char *id, const char *title,
		     const struct bars *br, const char *const *labels)
{
	int64_t max = 1;
	double bw;
	size_t i;
	int ret;

	for (i = 0; i < br->n; i++)
		if (br->y[i] > max)
			max = br->y[i];
	ret = rb_buf_printf(b, "<h3>%s</h3>", title);
	ret = ret ?: axes(b, id, title, "");
	ret = ret   ?:
		      rb_buf_printf(b,
				    "<text x=\"2\" y=\"14\" font-size=\"10\">"
				    "%lld</text>",
				    (long long)max);
	bw = br->n ? (double)(W - PADL - 10) / (double)br->n : 0;
	for (i = 0; i < br->n && !ret; i++) {
		double h = (double)br->y[i] / (double)max * (H - PADB - 20);
		double x = PADL + bw * (double)i + 2;
		char lab[32];

		if (labels) {
			snprintf(lab, sizeof(lab), "%s", labels[i]);
		} else {
			time_t tt = (time_t)(br->x[i] * 86400);
			struct tm tm;

			gmtime_r(&tt, &tm);
			strftime(lab, sizeof(lab), "%m-%d", &tm);
		}
		ret = rb_buf_printf(
			b,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
			" height=\"%.1f\" fill=\"#1f77b4\"><title>%s: %lld"
			"</title></rect><text x=\"%.1f\" y=\"%d\""
			" font-size=\"9\">%s</text>",
			x, (H - PADB) - h, bw > 4 ? bw - 4 : 1, h, lab,
			(long long)br->y[i], x, H - PADB + 12, lab);
	}
	return ret ?: rb_buf_puts(b, "</svg>\n");
}

static const int64_t lat_edges[] = { 60, 600, 3600, 6 * 3600, 86400 };
static const char *const lat_labels[] = { "<1m", "<10m", "<1h",
					  "<6h", "<1d",	 ">=1d" };

static int page_stats(struct rb_buf *b, struct rb_store *st)
{
	struct bars days = { 0 }, lat = { 0 };
	json_t *j = NULL, *lats, *v;
	size_t i, k;
	int ret;

	ret = rb_stats_collect(st, &j);
	if (ret)
		return ret;
	ret = head(b, "stats");
	ret = ret ?: rb_buf_puts(b, "<h1>Stats</h1>\n");
	ret = ret   ?:
		      fig(b, "precision per finding (valid / judged)",
			  json_object_get(json_object_get(j, "findings"),
					  "precision"),
			  "precision-finding");
	ret = ret   ?:
		      rb_buf_printf(
			      b,
			      "<p>findings raised %lld, judged %lld, valid "
			      "%lld</p>\n",
			      (long long)json_integer_value(json_object_get(
				      json_object_get(j, "findings"),
				      "raised")),
			      (long long)json_integer_value(json_object_get(
				      json_object_get(j, "findings"),
				      "judged")),
			      (long long)json_integer_value(json_object_get(
				      json_object_get(j, "findings"),
				      "valid")));
	ret = ret   ?:
		      fig(b, "precision per review",
			  json_object_get(json_object_get(j, "reviews"),
					  "precision"),
			  "precision-review");
	ret = ret   ?:
		      fig(b, "words per review",
			  json_object_get(json_object_get(j, "review_mails"),
					  "words_per_review"),
			  "words-per-review");
	ret = ret   ?:
		      fig(b, "mean seconds from the last patch to the review",
			  json_object_get(json_object_get(j, "review_mails"),
					  "latency_mean_s"),
			  "latency-mean");
	ret = ret   ?:
		      fig(b, "apply-failure rate",
			  json_object_get(json_object_get(j, "apply_failures"),
					  "rate"),
			  "apply-failure-rate");
	ret = ret   ?:
		      prec_table(b, "subsystem",
				 json_object_get(j, "by_subsystem"));
	ret = ret ?: prec_table(b, "checker", json_object_get(j, "by_checker"));
	ret = ret   ?:
		      prec_table(b, "category",
				 json_object_get(j, "by_category"));
	ret = ret ?: prec_table(b, "model", json_object_get(j, "by_model"));
	ret = ret ?: chart_precision(b, st);
	ret = ret   ?:
		      st->db->ops->query(st->db,
					 "SELECT created_at / 86400, COUNT(*)"
					 " FROM reviews WHERE kind = 'review'"
					 " GROUP BY 1 ORDER BY 1 DESC LIMIT 60",
					 NULL, 0, bar_row, &days);
	/* Oldest first. */
	for (i = 0; i < days.n / 2; i++) {
		int64_t tx = days.x[i], ty = days.y[i];

		days.x[i] = days.x[days.n - 1 - i];
		days.y[i] = days.y[days.n - 1 - i];
		days.x[days.n - 1 - i] = tx;
		days.y[days.n - 1 - i] = ty;
	}
	ret = ret   ?:
		      bar_chart(b, "chart-reviews-per-day", "Reviews per day",
				&days, NULL);
	lat.n = 6;
	lats = json_object_get(j, "latencies_s");
	json_array_foreach(lats, i, v)
	{
		int64_t s = json_integer_value(v);

		for (k = 0; k < 5 && s >= lat_edges[k]; k++)
			;
		lat.y[k]++;
	}
	ret = ret   ?:
		      bar_chart(b, "chart-latency",
				"Time from the last patch to the review", &lat,
				lat_labels);
	json_decref(j);
	return ret ?: tail(b);
}

/* --- /metrics --- */

static int prom_label(struct rb_buf *b, const char *s)
{
	int ret = 0;

	for (; s && *s && !ret; s++) {
		if (*s == '\\' || *s == '"')
			ret = rb_buf_putc(b, '\\') ?: rb_buf_putc(b, *s);
		else if (*s == '\n')
			ret = rb_buf_puts(b, "\\n");
		else
			ret = rb_buf_putc(b, *s);
	}
	return ret;
}

static int prom_counts(struct rb_buf *b, const char *name, const char *help,
		       const char *label, json_t *o)
{
	const char *k;
	json_t *v;
	int ret = rb_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name,
				help, name);

	json_object_foreach(o, k, v)
	{
		ret = ret ?: rb_buf_printf(b, "%s{%s=\"", name, label);
		ret = ret ?: prom_label(b, k);
		ret = ret   ?:
			      rb_buf_printf(b, "\"} %lld\n",
					    (long long)json_integer_value(v));
	}
	return ret;
}

static int prom_num(struct rb_buf *b, const char *name, const char *help,
		    json_t *v)
{
	int ret = rb_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name,
				help, name);

	if (json_is_number(v))
		ret = ret   ?:
			      rb_buf_printf(b, "%s %.17g\n", name,
					    json_number_value(v));
	else
		ret = ret ?: rb_buf_printf(b, "%s NaN\n", name);
	return ret;
}

static int prom_prec(struct rb_buf *b, const char *label, json_t *o)
{
	const char *k;
	json_t *v;
	int ret = 0;

	json_object_foreach(o, k, v)
	{
		json_t *p = json_object_get(v, "precision");

		if (!json_is_number(p))
			continue;
		ret = ret   ?:
			      rb_buf_printf(b, "reviewbot_precision{%s=\"",
					    label);
		ret = ret ?: prom_label(b, k);
		ret = ret   ?:
			      rb_buf_printf(b, "\"} %.17g\n",
					    json_number_value(p));
	}
	return ret;
}

static int page_metrics(struct rb_buf *b, struct rb_store *st)
{
	json_t *j = NULL, *fi, *rm, *v;
	int64_t buckets[5] = { 0 }, sum = 0, n = 0;
	size_t i, k;
	int ret;

	ret = rb_stats_collect(st, &j);
	if (ret)
		return ret;
	fi = json_object_get(j, "findings");
	rm = json_object_get(j, "review_mails");
	ret = prom_counts(b, "reviewbot_messages", "Stored messages by state.",
			  "state", json_object_get(j, "messages"));
	ret = ret   ?:
		      prom_counts(b, "reviewbot_series", "Series by state.",
				  "state", json_object_get(j, "series"));
	ret = ret   ?:
		      prom_counts(b, "reviewbot_mails", "Mails by kind.",
				  "kind", json_object_get(j, "mails"));
	ret = ret   ?:
		      prom_counts(b, "reviewbot_outbox", "Outbox by state.",
				  "state", json_object_get(j, "outbox"));
	ret = ret   ?:
		      prom_counts(b, "reviewbot_findings", "Findings by state.",
				  "state",
				  json_object_get(j, "finding_states"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_findings_judged",
			       "Raised findings with an authorised verdict.",
			       json_object_get(fi, "judged"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_findings_valid",
			       "Judged findings found valid or fixed.",
			       json_object_get(fi, "valid"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_precision_per_finding",
			       "Valid / judged findings.",
			       json_object_get(fi, "precision"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_precision_per_review",
			       "Judged reviews without a false positive.",
			       json_object_get(json_object_get(j, "reviews"),
					       "precision"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_words_per_review",
			       "Mean words of commentary per review mail.",
			       json_object_get(rm, "words_per_review"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_apply_failure_rate",
			       "Series that applied on no base / attempted.",
			       json_object_get(
				       json_object_get(j, "apply_failures"),
				       "rate"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_model_tokens_in",
			       "Model input tokens.",
			       json_object_get(rm, "tokens_in"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_model_tokens_out",
			       "Model output tokens.",
			       json_object_get(rm, "tokens_out"));
	ret = ret   ?:
		      prom_num(b, "reviewbot_model_cost_usd",
			       "Model cost in US dollars.",
			       json_object_get(rm, "cost_usd"));
	/* Each worker's claimed, done, failed and lease expiries. */
	ret = ret ?: rb_metrics_render(b, st);
	ret = ret   ?:
		      rb_buf_puts(b, "# HELP reviewbot_precision Valid / judged"
				     " findings by group.\n"
				     "# TYPE reviewbot_precision gauge\n");
	ret = ret   ?:
		      prom_prec(b, "subsystem",
				json_object_get(j, "by_subsystem"));
	ret = ret ?: prom_prec(b, "checker", json_object_get(j, "by_checker"));
	ret = ret   ?:
		      prom_prec(b, "category",
				json_object_get(j, "by_category"));
	json_array_foreach(json_object_get(j, "latencies_s"), i, v)
	{
		int64_t s = json_integer_value(v);

		for (k = 0; k < 5; k++)
			if (s <= lat_edges[k])
				buckets[k]++;
		sum += s;
		n++;
	}
	ret = ret   ?:
		      rb_buf_puts(b, "# HELP reviewbot_review_latency_seconds"
				     " Time from the last patch to the review."
				     "\n# TYPE reviewbot_review_latency_seconds"
				     " histogram\n");
	for (k = 0; k < 5 && !ret; k++)
		ret = rb_buf_printf(b,
				    "reviewbot_review_latency_seconds_bucket"
				    "{le=\"%lld\"} %lld\n",
				    (long long)lat_edges[k],
				    (long long)buckets[k]);
	ret = ret   ?:
		      rb_buf_printf(
			      b,
			      "reviewbot_review_latency_seconds_bucket"
			      "{le=\"+Inf\"} %lld\n"
			      "reviewbot_review_latency_seconds_sum %lld\n"
			      "reviewbot_review_latency_seconds_count "
			      "%lld\n",
			      (long long)n, (long long)sum, (long long)n);
	json_decref(j);
	return ret;
}

int rb_http_render(struct rb_buf *out, struct rb_store *st, const char *path,
		   const char *id, int *status, const char **ctype)
{
	*status = MHD_HTTP_OK;
	*ctype = "text/html; charset=utf-8";
	if (!strcmp(path, "/"))
		return page_index(out, st);
	if (!strcmp(path, "/series")) {
		if (!id) {
			*status = MHD_HTTP_BAD_REQUEST;
			return rb_buf_puts(out, "missing ?id=\n");
		}
		return page_series(out, st, id, status);
	}
	if (!strcmp(path, "/stats"))
		return page_stats(out, st);
	if (!strcmp(path, "/metrics")) {
		*ctype = "text/plain; version=0.0.4; charset=utf-8";
		return page_metrics(out, st);
	}
	*status = MHD_HTTP_NOT_FOUND;
	*ctype = "text/plain; charset=utf-8";
	return rb_buf_puts(out, "not found\n");
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

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct rb_http *h = cls;
	struct rb_buf b = RB_BUF_INIT(PAGE_MAX);
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
	ret = rb_http_render(
		&b, h->st, url,
		MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "id"),
		&status, &ctype);
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
		  const char *store_where)
{
	struct rb_http *h = calloc(1, sizeof(*h));
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;
	int ret;

	if (!h)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = parse_listen(&sa, h->host, sizeof(h->host),
			   listen ? listen : "127.0.0.1:8080");
	if (ret)
		goto fail;
	ret = rb_store_open(&h->st, store_where, true);
	if (ret)
		goto fail;
	h->d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL,
		NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
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
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	rb_store_close(h->st);
	free(h);
}
