// SPDX-License-Identifier: GPL-2.0-only
/*
 * http.c - the dashboard and /metrics (libmicrohttpd). See http.h.
 *
 * Pages are built in one struct rb_buf from store queries; nothing is
 * cached. Every value that is text in the store goes through
 * rb_html_escape() (or rb_prom_label() for /metrics): subjects, names,
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
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

static int series_row(const struct rb_report_series *s, void *payload)
{
	struct rb_buf *b = payload;
	const char *base = s->base_name, *commit = s->base_commit;
	char when[64];
	int ret;

	fmt_time(when, sizeof(when), s->updated_at);
	ret = rb_buf_puts(b, "<tr><td><a href=\"/series?id=");
	ret = ret ?: url_escape(b, s->id);
	ret = ret ?: rb_buf_puts(b, "\">");
	ret = ret ?: rb_html_escape(b, s->title ? s->title : "(no title)");
	ret = ret   ?:
		      rb_buf_printf(b, "</a></td><td>v%lld</td><td>",
				    (long long)s->version);
	ret = ret ?: rb_html_escape(b, s->author);
	ret = ret ?: rb_buf_puts(b, "</td><td class=\"status\">");
	ret = ret ?: rb_html_escape(b, status_of(s->state, s->sent));
	if (!ret && base) {
		ret = rb_buf_puts(b, "<br>applied on ");
		ret = ret ?: rb_html_escape(b, base);
		if (!ret && commit) {
			ret = rb_buf_puts(b, " at ");
			ret = ret ?: rb_buf_printf(b, "%.12s", commit);
		}
	}
	ret = ret ?: rb_buf_puts(b, "</td><td>");
	ret = ret ?: rb_html_escape(b, s->subsystem);
	ret = ret   ?:
		      rb_buf_printf(b, "</td><td>%lld</td><td>%s</td></tr>\n",
				    (long long)s->findings, when);
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
	ret = ret ?: rb_store_report_series_list(st, series_row, b);
	ret = ret ?: rb_buf_puts(b, "</table>\n");
	return ret ?: tail(b);
}

/* --- /series?id= --- */

struct series_page {
	struct rb_buf *b;
	bool found;
};

static int series_head_row(const struct rb_report_series *s, void *payload)
{
	struct series_page *sp = payload;
	struct rb_buf *b = sp->b;
	int ret;

	sp->found = true;
	ret = rb_buf_puts(b, "<h1 id=\"title\">");
	ret = ret ?: rb_html_escape(b, s->title ? s->title : "(no title)");
	ret = ret   ?:
		      rb_buf_printf(b,
				    "</h1><table><tr><th>version</th>"
				    "<td>v%lld</td></tr><tr><th>author</th>"
				    "<td>",
				    (long long)s->version);
	ret = ret ?: rb_html_escape(b, s->author);
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>status</th><td>");
	ret = ret ?: rb_html_escape(b, status_of(s->state, s->sent));
	ret = ret ?: rb_buf_puts(b, " ");
	ret = ret ?: rb_html_escape(b, s->detail);
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>base</th><td>");
	ret = ret ?: rb_html_escape(b, s->base_name ? s->base_name : "-");
	ret = ret ?: rb_buf_puts(b, " ");
	ret = ret ?: rb_html_escape(b, s->base_commit);
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>subsystem</th><td>");
	ret = ret ?: rb_html_escape(b, s->subsystem);
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>id</th><td>");
	ret = ret ?: rb_html_escape(b, s->id);
	ret = ret ?: rb_buf_puts(b, "</td></tr></table>\n");
	return ret ? ret : 1;
}

static int attempt_row(const struct rb_report_attempt *a, void *payload)
{
	struct rb_buf *b = payload;
	int ret = rb_buf_puts(b, "<tr><td>");

	ret = ret ?: rb_html_escape(b, a->base_name);
	ret = ret   ?:
		      rb_buf_printf(b, "</td><td>%.12s</td><td>%s</td><td>",
				    a->base_commit ? a->base_commit : "",
				    a->ok ? "applied" : "failed");
	if (!ret && !a->ok) {
		ret = rb_buf_printf(b, "patch %lld, ",
				    (long long)a->failed_patch);
		ret = ret ?: rb_html_escape(b, a->failed_file);
		ret = ret   ?:
			      rb_buf_printf(b, " hunk %lld: ",
					    (long long)a->failed_hunk);
		ret = ret ?: rb_html_escape(b, a->reason);
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

static int review_row(const struct rb_report_mail *m, void *payload)
{
	struct rb_buf *b = payload;
	struct rb_buf body = RB_BUF_INIT(PAGE_MAX);
	struct rb_buf mail = RB_BUF_INIT(PAGE_MAX);
	char when[64];
	const char *p;
	int ret;

	/* The stored bytes end where their length says, not at a NUL. */
	ret = m->bytes ? rb_buf_add(&mail, m->bytes, m->len) : 0;
	fmt_time(when, sizeof(when), m->created_at);
	ret = ret ?: rb_buf_puts(b, "<h3>");
	ret = ret ?: rb_html_escape(b, m->kind);
	ret = ret   ?:
		      rb_buf_printf(b,
				    " (patch %lld): %lld words, %lld "
				    "findings, ",
				    (long long)m->patch_idx,
				    (long long)m->words,
				    (long long)m->findings);
	ret = ret ?: rb_html_escape(b, m->state ? m->state : "no mail");
	ret = ret ?: rb_buf_printf(b, ", %s</h3>\n<pre class=\"mail\">", when);
	/* Without the CRs of the wire format. */
	for (p = mail_body(mail.ptr); !ret && p && *p; p++)
		if (*p != '\r')
			ret = rb_buf_putc(&body, *p);
	ret = ret ?: rb_html_escape(b, body.ptr ? body.ptr : "");
	rb_buf_release(&body);
	rb_buf_release(&mail);
	return ret ?: rb_buf_puts(b, "</pre>\n");
}

static int finding_row(const struct rb_report_finding *f, void *payload)
{
	struct rb_buf *b = payload;
	/* NULL: where, file:line or the commit message */
	const char *const cells[] = { f->fid,	   f->checker, f->category,
				      f->severity, NULL,       f->state,
				      f->message };
	size_t i;
	int ret = rb_buf_puts(b, "<tr>");

	for (i = 0; i < sizeof(cells) / sizeof(cells[0]) && !ret; i++) {
		ret = rb_buf_puts(b, "<td>");
		if (i != 4) {
			ret = ret ?: rb_html_escape(b, cells[i]);
		} else {
			ret = ret   ?:
				      rb_html_escape(
					      b, f->file ? f->file :
							   "(commit message)");
			if (!ret && f->line)
				ret = rb_buf_printf(b, ":%lld",
						    (long long)f->line);
		}
		ret = ret ?: rb_buf_puts(b, "</td>");
	}
	return ret ?: rb_buf_puts(b, "</tr>\n");
}

static int verdict_row(const struct rb_report_verdict *v, void *payload)
{
	struct rb_buf *b = payload;
	char when[64];
	int ret;

	fmt_time(when, sizeof(when), v->created_at);
	ret = rb_buf_puts(b, "<tr><td>");
	ret = ret ?: rb_html_escape(b, v->fid ? v->fid : "-");
	ret = ret ?: rb_buf_puts(b, "</td><td>");
	ret = ret ?: rb_html_escape(b, v->verdict ? v->verdict : "-");
	ret = ret ?: rb_buf_puts(b, "</td><td>");
	ret = ret ?: rb_html_escape(b, v->judge);
	ret = ret   ?:
		      rb_buf_printf(b, "</td><td>%s</td><td>",
				    v->authorised ? "yes" : "no");
	ret = ret ?: rb_html_escape(b, v->reason);
	return ret ?: rb_buf_printf(b, "</td><td>%s</td></tr>\n", when);
}

static int page_series(struct rb_buf *b, struct rb_store *st, const char *id,
		       int *status)
{
	struct series_page sp = { .b = b };
	int ret = head(b, "series");

	ret = ret ?: rb_store_report_series(st, id, series_head_row, &sp);
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
	ret = ret ?: rb_store_report_attempts(st, id, attempt_row, b);
	ret = ret   ?:
		      rb_buf_puts(b, "</table><h2>Findings</h2>"
				     "<table id=\"findings\"><tr><th>id</th>"
				     "<th>checker</th><th>category</th>"
				     "<th>severity</th><th>where</th>"
				     "<th>state</th><th>message</th></tr>\n");
	ret = ret ?: rb_store_report_findings(st, id, finding_row, b);
	ret = ret   ?:
		      rb_buf_puts(b,
				  "</table><h2>Verdicts</h2>"
				  "<table id=\"verdicts\"><tr><th>finding</th>"
				  "<th>verdict</th><th>judge</th>"
				  "<th>authorised</th><th>reason</th>"
				  "<th>when</th></tr>\n");
	ret = ret ?: rb_store_report_verdicts(st, id, verdict_row, b);
	ret = ret ?: rb_buf_puts(b, "</table><h2>Mails</h2>\n");
	ret = ret ?: rb_store_report_mails_of(st, id, review_row, b);
	return ret ?: tail(b);
}

/* --- /stats --- */

/* A figure of rb_stats_collect()'s JSON: @key of object @obj in it. */
struct figure {
	const char *name; /* the element id, or the metric's name */
	const char *text; /* the label, or the metric's help */
	const char *obj, *key;
};

static json_t *fig_value(json_t *j, const struct figure *f)
{
	return json_object_get(json_object_get(j, f->obj), f->key);
}

/* The figures of /stats, in order; the first is followed by the counts. */
static const struct figure stat_figures[] = {
	{ "precision-finding", "precision per finding (valid / judged)",
	  "findings", "precision" },
	{ "precision-review", "precision per review", "reviews", "precision" },
	{ "words-per-review", "words per review", "review_mails",
	  "words_per_review" },
	{ "latency-mean", "mean seconds from the last patch to the review",
	  "review_mails", "latency_mean_s" },
	{ "apply-failure-rate", "apply-failure rate", "apply_failures",
	  "rate" },
};

/* The precision tables, by group; /metrics shows the first three. */
static const struct {
	const char *title, *key;
} groups[] = {
	{ "subsystem", "by_subsystem" },
	{ "checker", "by_checker" },
	{ "category", "by_category" },
	{ "model", "by_model" },
};

static int fig(struct rb_buf *b, json_t *j, const struct figure *f)
{
	json_t *v = fig_value(j, f);
	int ret = rb_buf_printf(b, "<p>%s: <span class=\"fig\" id=\"%s\">",
				f->text, f->name);

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

static int ptime_row(const char *subsystem, int64_t day, int64_t judged,
		     int64_t valid, void *payload)
{
	struct ptime *t = payload;
	const char *sub = subsystem ? subsystem : "";
	double x, y, span;

	if (strncmp(sub, t->sub, sizeof(t->sub) - 1)) {
		ptime_flush(t);
		snprintf(t->sub, sizeof(t->sub), "%s", sub);
		t->valid = t->judged = 0;
	}
	t->judged += judged;
	t->valid += valid;
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
	int ret;

	rb_buf_init(&t.pts, 1 << 20);
	rb_buf_init(&t.svg, 4 << 20);
	ret = rb_store_report_verdict_days(st, &t.day0, &t.day1);
	ret = ret ?: rb_store_report_precision_days(st, ptime_row, &t);
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

static int bar_row(int64_t day, int64_t n, void *payload)
{
	struct bars *br = payload;

	if (br->n >= 64)
		return 1;
	br->x[br->n] = day;
	br->y[br->n] = n;
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
	json_t *j = NULL, *fi, *lats, *v;
	size_t i, k;
	int ret;

	ret = rb_stats_collect(st, &j);
	if (ret)
		return ret;
	fi = json_object_get(j, "findings");
	ret = head(b, "stats");
	ret = ret ?: rb_buf_puts(b, "<h1>Stats</h1>\n");
	for (i = 0; i < ARRAY_SIZE(stat_figures) && !ret; i++) {
		ret = fig(b, j, &stat_figures[i]);
		if (!ret && !i)
			ret = rb_buf_printf(
				b,
				"<p>findings raised %lld, judged %lld, valid "
				"%lld</p>\n",
				(long long)json_integer_value(
					json_object_get(fi, "raised")),
				(long long)json_integer_value(
					json_object_get(fi, "judged")),
				(long long)json_integer_value(
					json_object_get(fi, "valid")));
	}
	for (i = 0; i < ARRAY_SIZE(groups) && !ret; i++)
		ret = prec_table(b, groups[i].title,
				 json_object_get(j, groups[i].key));
	ret = ret ?: chart_precision(b, st);
	ret = ret ?: rb_store_report_reviews_per_day(st, bar_row, &days);
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
		ret = ret ?: rb_prom_label(b, k);
		ret = ret   ?:
			      rb_buf_printf(b, "\"} %lld\n",
					    (long long)json_integer_value(v));
	}
	return ret;
}

static int prom_num(struct rb_buf *b, json_t *j, const struct figure *f)
{
	json_t *v = fig_value(j, f);
	int ret = rb_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", f->name,
				f->text, f->name);

	if (json_is_number(v))
		ret = ret   ?:
			      rb_buf_printf(b, "%s %.17g\n", f->name,
					    json_number_value(v));
	else
		ret = ret ?: rb_buf_printf(b, "%s NaN\n", f->name);
	return ret;
}

/* The counts of /metrics: metric, help, label, object of the JSON. */
static const struct figure prom_counts_of[] = {
	{ "reviewbot_messages", "Stored messages by state.", "state",
	  "messages" },
	{ "reviewbot_series", "Series by state.", "state", "series" },
	{ "reviewbot_mails", "Mails by kind.", "kind", "mails" },
	{ "reviewbot_outbox", "Outbox by state.", "state", "outbox" },
	{ "reviewbot_findings", "Findings by state.", "state",
	  "finding_states" },
};

/* The single figures of /metrics. */
static const struct figure prom_figures[] = {
	{ "reviewbot_findings_judged",
	  "Raised findings with an authorised verdict.", "findings", "judged" },
	{ "reviewbot_findings_valid", "Judged findings found valid or fixed.",
	  "findings", "valid" },
	{ "reviewbot_precision_per_finding", "Valid / judged findings.",
	  "findings", "precision" },
	{ "reviewbot_precision_per_review",
	  "Judged reviews without a false positive.", "reviews", "precision" },
	{ "reviewbot_words_per_review",
	  "Mean words of commentary per review mail.", "review_mails",
	  "words_per_review" },
	{ "reviewbot_apply_failure_rate",
	  "Series that applied on no base / attempted.", "apply_failures",
	  "rate" },
	{ "reviewbot_model_tokens_in", "Model input tokens.", "review_mails",
	  "tokens_in" },
	{ "reviewbot_model_tokens_out", "Model output tokens.", "review_mails",
	  "tokens_out" },
	{ "reviewbot_model_cost_usd", "Model cost in US dollars.",
	  "review_mails", "cost_usd" },
};

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
		ret = ret ?: rb_prom_label(b, k);
		ret = ret   ?:
			      rb_buf_printf(b, "\"} %.17g\n",
					    json_number_value(p));
	}
	return ret;
}

static int page_metrics(struct rb_buf *b, struct rb_store *st)
{
	json_t *j = NULL, *v;
	int64_t buckets[5] = { 0 }, sum = 0, n = 0;
	size_t i, k;
	int ret;

	ret = rb_stats_collect(st, &j);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(prom_counts_of) && !ret; i++)
		ret = prom_counts(b, prom_counts_of[i].name,
				  prom_counts_of[i].text, prom_counts_of[i].obj,
				  json_object_get(j, prom_counts_of[i].key));
	for (i = 0; i < ARRAY_SIZE(prom_figures) && !ret; i++)
		ret = prom_num(b, j, &prom_figures[i]);
	/* Each worker's claimed, done, failed and lease expiries. */
	ret = ret ?: rb_metrics_render(b, st);
	ret = ret   ?:
		      rb_buf_puts(b, "# HELP reviewbot_precision Valid / judged"
				     " findings by group.\n"
				     "# TYPE reviewbot_precision gauge\n");
	for (i = 0; i < 3 && !ret; i++)
		ret = prom_prec(b, groups[i].title,
				json_object_get(j, groups[i].key));
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
