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
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <jansson.h>
#include <microhttpd.h>

#include "bot/web/http.h"
#include "bot/web/metrics.h"
#include "bot/web/stats.h"
#include "bot/store/store.h"
#include "mail/mode.h"
#include "review/checks/rules.h"
#include "util/buf.h"
#include "util/dur.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define PAGE_MAX (16u << 20)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

static void fmt_day(char *buf, size_t n, int64_t day)
{
	time_t tt = (time_t)(day * 86400);
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		snprintf(buf, n, "-");
	else
		strftime(buf, n, "%Y-%m-%d", &tm);
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
			      "body{font-family:sans-serif;margin:1em;color:#222;"
			      "max-width:1240px}"
			      "td,th,pre{overflow-wrap:anywhere}"
			      "table.list{table-layout:fixed;width:100%;font-size:.9em}"
			      "table.list td,table.list th{padding:.2em .3em}"
			      "form label{margin-right:.6em;white-space:nowrap}"
			      "form select{max-width:16em}"
			      ".reading{margin-top:0;color:#444}"
			      "pre.quote{margin:0 0 .3em}"
			      "p.why{margin:.3em 0 0;color:#555;font-size:.9em}"
			      "table{border-collapse:collapse;margin:.5em 0 1.5em}"
			      "td,th{border:1px solid #ccc;padding:.25em .5em;"
			      "text-align:left;vertical-align:top}"
			      "th{background:#f3f3f3}pre{background:#f8f8f8;padding:.5em;"
			      "white-space:pre-wrap;border:1px solid #ddd}"
			      ".fig{font-size:1.4em;font-weight:bold}"
			      "nav a{margin-right:1em}svg{background:#fcfcfc;"
			      "border:1px solid #ddd;margin:.5em 1em .5em 0}"
			      "</style></head><body><nav><a href=\"/\">series</a>"
			      "<a href=\"/stats\">stats</a><a href=\"/notes\">notes</a>"
			      "<a href=\"/metrics\">metrics</a>"
			      "</nav>\n");
	return ret;
}

static int tail(struct rb_buf *b)
{
	return rb_buf_puts(b, "</body></html>\n");
}

/* --- values as the pages and their JSON show them --- */

/*
 * A JSON string of mail-derived text: jansson takes only UTF-8, and mail
 * is not always that, so a byte that does not decode becomes '?'. NULL
 * becomes null.
 */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *copy;
	size_t i, n;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	n = strlen(s);
	copy = malloc(n + 1);
	if (!copy)
		return json_null();
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80		? 1 :
			     (c & 0xe0) == 0xc0 ? 2 :
			     (c & 0xf0) == 0xe0 ? 3 :
			     (c & 0xf8) == 0xf0 ? 4 :
						  0;
		size_t k;

		for (k = 1; len && k < len; k++)
			if (i + k >= n ||
			    ((unsigned char)s[i + k] & 0xc0) != 0x80)
				len = 0;
		if (!len) {
			copy[i] = '?';
			continue;
		}
		memcpy(copy + i, s + i, len);
		i += len - 1;
	}
	copy[n] = '\0';
	j = json_string(copy);
	/* Well-formed but not valid (a surrogate, an overlong form): only
	 * ASCII is left. */
	for (i = 0; !j && i < n; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	j = j ? j : json_string(copy);
	free(copy);
	return j ? j : json_null();
}

static void jset(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

static const char *js(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static long long ji(json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static json_t *jtime(int64_t t)
{
	char buf[64];

	if (!t)
		return json_null();
	fmt_time(buf, sizeof(buf), t);
	return json_string(buf);
}

/* A Message-ID without its angle brackets, into @out. */
static int bare_msgid(struct rb_buf *out, const char *id)
{
	size_t n;

	if (!id)
		return 0;
	if (*id == '<')
		id++;
	n = strlen(id);
	if (n && id[n - 1] == '>')
		n--;
	return rb_buf_add(out, id, n);
}

/* The thread of @msgid on the configured public-inbox: a link only. */
static json_t *thread_link(const char *base, const char *msgid)
{
	struct rb_buf id = RB_BUF_INIT(1 << 16), u = RB_BUF_INIT(1 << 17);
	json_t *j = json_null();
	int ret;

	if (!msgid || !base || !*base)
		return j;
	ret = bare_msgid(&id, msgid);
	ret = ret ?: rb_buf_puts(&u, base);
	if (!ret && base[strlen(base) - 1] != '/')
		ret = rb_buf_putc(&u, '/');
	ret = ret ?: url_escape(&u, id.ptr ? id.ptr : "");
	if (!ret && u.ptr) {
		json_decref(j);
		j = jstr(u.ptr);
	}
	rb_buf_release(&id);
	rb_buf_release(&u);
	return j;
}

/* The dashboard's own link to series @id. */
static json_t *series_link(const char *id)
{
	struct rb_buf u = RB_BUF_INIT(1 << 17);
	json_t *j = json_null();

	if (id && !rb_buf_puts(&u, "/series?id=") && !url_escape(&u, id)) {
		json_decref(j);
		j = jstr(u.ptr);
	}
	rb_buf_release(&u);
	return j;
}

/* A duration in a table cell: short unit names, tenths from hours on. */
static const struct rb_dur_unit cell_units[] = {
	{ 90, 1, 0, "s" },
	{ 90 * 60, 60, 0, "min" },
	{ 48 * 3600, 3600, 1, "h" },
	{ 2 * 365 * 86400.0, 86400, 1, "days" },
	{ 0, 365.25 * 86400, 1, "years" },
};

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

/* The fields the list and the series page share. */
static json_t *series_obj(const struct rb_report_series *s, const char *inbox)
{
	json_t *o = json_object();

	jset(o, "id", jstr(s->id));
	jset(o, "title", jstr(s->title));
	jset(o, "version", json_integer(s->version));
	jset(o, "author", jstr(s->author));
	jset(o, "state", jstr(s->state));
	jset(o, "status", jstr(status_of(s->state, s->sent)));
	jset(o, "base", jstr(s->base_name));
	jset(o, "base_commit", jstr(s->base_commit));
	jset(o, "section", jstr(s->subsystem));
	jset(o, "mode", jstr(s->mode));
	jset(o, "mails_sent", json_integer(s->sent));
	jset(o, "date", jtime(s->date));
	jset(o, "date_unix", json_integer(s->date));
	jset(o, "url", series_link(s->id));
	jset(o, "thread", thread_link(inbox, s->id));
	return o;
}

/* Query values of the list, as given (NULL: absent). */
struct list_args {
	const char *q, *section, *state, *mode, *findings, *page;
};

/* The page's own URL with @page, the filters kept. */
static int list_url(struct rb_buf *b, const struct list_args *a, long long page)
{
	const struct {
		const char *k, *v;
	} kv[] = {
		{ "q", a->q },
		{ "section", a->section },
		{ "state", a->state },
		{ "mode", a->mode },
		{ "findings", a->findings },
	};
	size_t i;
	int ret = rb_buf_printf(b, "/?page=%lld", page);

	for (i = 0; i < ARRAY_SIZE(kv) && !ret; i++) {
		if (!kv[i].v || !*kv[i].v)
			continue;
		ret = rb_buf_printf(b, "&%s=", kv[i].k);
		ret = ret ?: url_escape(b, kv[i].v);
	}
	return ret;
}

/* --- / : the series, 50 a page --- */

#define PER_PAGE 50

struct list_ctx {
	json_t *rows;
	const char *inbox;
};

static int list_row(const struct rb_report_series *s, void *payload)
{
	struct list_ctx *c = payload;
	json_t *o = series_obj(s, c->inbox);

	jset(o, "findings", json_integer(s->findings));
	json_array_append_new(c->rows, o);
	return 0;
}

static int count_into(const char *key, int64_t n, void *payload)
{
	json_t *o = json_object();

	jset(o, "name", jstr(key));
	jset(o, "series", json_integer(n));
	json_array_append_new(payload, o);
	return 0;
}

static int list_json(json_t **out, struct rb_store *st,
		     const struct list_args *a, const char *inbox)
{
	struct rb_report_filter f = RB_REPORT_FILTER_INIT;
	struct list_ctx c = { json_array(), inbox };
	json_t *j = json_object(), *filt = json_object();
	json_t *sections = json_array(), *states = json_array();
	long long page = a->page ? atoll(a->page) : 1, pages;
	int64_t total = 0;
	int ret;

	if (page < 1 || page > 1000000)
		page = 1;
	f.q = a->q;
	f.section = a->section;
	f.state = a->state;
	f.mode = a->mode;
	f.has_findings = a->findings && *a->findings &&
			 strcmp(a->findings, "0");
	f.limit = PER_PAGE;
	f.offset = (page - 1) * PER_PAGE;
	ret = rb_store_report_series_page(st, &f, &total, list_row, &c);
	ret = ret ?: rb_store_report_sections(st, count_into, sections);
	ret = ret   ?:
		      rb_store_report_counts(st, RB_COUNT_SERIES, count_into,
					     states);
	pages = total ? (total + PER_PAGE - 1) / PER_PAGE : 1;
	jset(filt, "q", jstr(a->q && *a->q ? a->q : NULL));
	jset(filt, "section",
	     jstr(a->section && *a->section ? a->section : NULL));
	jset(filt, "state", jstr(a->state && *a->state ? a->state : NULL));
	jset(filt, "mode", jstr(a->mode && *a->mode ? a->mode : NULL));
	jset(filt, "has_findings", json_boolean(f.has_findings));
	jset(j, "filter", filt);
	jset(j, "page", json_integer(page));
	jset(j, "pages", json_integer(pages));
	jset(j, "per_page", json_integer(PER_PAGE));
	jset(j, "total", json_integer(total));
	jset(j, "series", c.rows);
	jset(j, "sections", sections);
	jset(j, "states", states);
	if (ret) {
		json_decref(j);
		return ret;
	}
	*out = j;
	return 0;
}

/* One <option> of a filter's <select>, selected when it is @cur. */
static int option(struct rb_buf *b, const char *value, const char *label,
		  long long n, const char *cur)
{
	int ret = rb_buf_puts(b, "<option value=\"");

	ret = ret ?: rb_html_escape(b, value);
	ret = ret   ?:
		      rb_buf_puts(b, cur && !strcmp(cur, value) ?
					     "\" selected>" :
					     "\">");
	ret = ret ?: rb_html_escape(b, label);
	if (!ret && n >= 0)
		ret = rb_buf_printf(b, " (%lld)", n);
	return ret ?: rb_buf_puts(b, "</option>");
}

static int select_of(struct rb_buf *b, const char *name, const char *title,
		     json_t *choices, const char *const *fixed, const char *cur)
{
	size_t i;
	json_t *v;
	int ret = rb_buf_printf(b,
				"<label>%s <select name=\"%s\">"
				"<option value=\"\">any</option>",
				title, name);

	json_array_foreach(choices, i, v)
	{
		const char *k = js(v, "name");

		if (!ret && k && *k)
			ret = option(b, k, k, ji(v, "series"), cur);
	}
	for (i = 0; fixed && fixed[i] && !ret; i++)
		ret = option(b, fixed[i], fixed[i], -1, cur);
	return ret ?: rb_buf_puts(b, "</select></label> ");
}

static int list_form(struct rb_buf *b, json_t *j)
{
	json_t *f = json_object_get(j, "filter");
	int ret = rb_buf_puts(b,
			      "<form method=\"get\" action=\"/\" "
			      "id=\"filter\"><label>search <input "
			      "type=\"search\" id=\"q\" name=\"q\" size=\"30\" "
			      "placeholder=\"title, author or "
			      "Message-ID\" value=\"");

	ret = ret ?: rb_html_escape(b, js(f, "q"));
	ret = ret ?: rb_buf_puts(b, "\"></label> ");
	ret = ret   ?:
		      select_of(b, "section", "section",
				json_object_get(j, "sections"), NULL,
				js(f, "section"));
	ret = ret   ?:
		      select_of(b, "state", "state",
				json_object_get(j, "states"), NULL,
				js(f, "state"));
	ret = ret   ?:
		      select_of(b, "mode", "mode", NULL, rb_mode_names,
				js(f, "mode"));
	ret = ret   ?:
		      rb_buf_printf(
			      b,
			      "<label><input type=\"checkbox\" "
			      "name=\"findings\" value=\"1\"%s> has "
			      "findings</label> <button>show</button> "
			      "<a href=\"/\">clear</a></form>\n",
			      json_is_true(json_object_get(f, "has_findings")) ?
				      " checked" :
				      "");
	return ret;
}

static int list_pager(struct rb_buf *b, json_t *j, const struct list_args *a)
{
	struct rb_buf u = RB_BUF_INIT(1 << 16);
	long long page = ji(j, "page"), pages = ji(j, "pages");
	int ret = rb_buf_printf(b,
				"<p class=\"pager\" id=\"pager\">%lld series,"
				" page %lld of %lld. ",
				ji(j, "total"), page, pages);

	if (!ret && page > 1) {
		ret = list_url(&u, a, page - 1);
		ret = ret   ?:
			      rb_buf_puts(b, "<a rel=\"prev\" id=\"newer\" "
					     "href=\"");
		ret = ret ?: rb_html_escape(b, u.ptr);
		ret = ret ?: rb_buf_puts(b, "\">&larr; newer</a> ");
	}
	rb_buf_reset(&u);
	if (!ret && page < pages) {
		ret = list_url(&u, a, page + 1);
		ret = ret   ?:
			      rb_buf_puts(b, "<a rel=\"next\" id=\"older\" "
					     "href=\"");
		ret = ret ?: rb_html_escape(b, u.ptr);
		ret = ret ?: rb_buf_puts(b, "\">older &rarr;</a>");
	}
	rb_buf_release(&u);
	return ret ?: rb_buf_puts(b, "</p>\n");
}

/* An <a> to @href (already a URL of ours, or NULL: just the text). */
static int a_link(struct rb_buf *b, const char *href, const char *text,
		  const char *cls)
{
	int ret = 0;

	if (href) {
		ret = rb_buf_puts(b, "<a ");
		if (cls)
			ret = ret ?: rb_buf_printf(b, "class=\"%s\" ", cls);
		ret = ret ?: rb_buf_puts(b, "href=\"");
		ret = ret ?: rb_html_escape(b, href);
		ret = ret ?: rb_buf_puts(b, "\">");
	}
	ret = ret ?: rb_html_escape(b, text);
	return ret ?: rb_buf_puts(b, href ? "</a>" : "");
}

static int list_html(struct rb_buf *b, json_t *j, const struct list_args *a)
{
	json_t *rows = json_object_get(j, "series"), *s;
	size_t i;
	int ret = head(b, "series");

	ret = ret ?: rb_buf_puts(b, "<h1>Series</h1>\n");
	ret = ret ?: list_form(b, j);
	ret = ret ?: list_pager(b, j, a);
	ret = ret   ?:
		      rb_buf_puts(
			      b,
			      "<table id=\"series\" class=\"list\"><colgroup>"
			      "<col style=\"width:7em\"><col>"
			      "<col style=\"width:3em\">"
			      "<col style=\"width:11.5em\">"
			      "<col style=\"width:11em\">"
			      "<col style=\"width:11em\">"
			      "<col style=\"width:5em\">"
			      "<col style=\"width:5.5em\">"
			      "<col style=\"width:4.5em\"></colgroup>"
			      "<tr><th>date</th><th>title</th><th>v</th>"
			      "<th>author</th><th>status</th>"
			      "<th>section</th><th>mode</th>"
			      "<th>findings</th><th>lore</th></tr>\n");
	json_array_foreach(rows, i, s)
	{
		const char *t = js(s, "title"), *d = js(s, "date");

		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		/* The day is enough in the list. */
		ret = ret ?: rb_buf_printf(b, "%.10s", d ? d : "-");
		ret = ret ?: rb_buf_puts(b, "</td><td class=\"title\">");
		ret = ret   ?:
			      a_link(b, js(s, "url"), t ? t : "(no title)",
				     NULL);
		ret = ret   ?:
			      rb_buf_printf(b, "</td><td>v%lld</td><td>",
					    ji(s, "version"));
		ret = ret ?: rb_html_escape(b, js(s, "author"));
		ret = ret ?: rb_buf_puts(b, "</td><td class=\"status\">");
		ret = ret ?: rb_html_escape(b, js(s, "status"));
		if (!ret && js(s, "base")) {
			ret = rb_buf_puts(b, "<br>applied on ");
			ret = ret ?: rb_html_escape(b, js(s, "base"));
			if (!ret && js(s, "base_commit"))
				ret = rb_buf_printf(b, " at %.12s",
						    js(s, "base_commit"));
		}
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(s, "section"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(s, "mode"));
		ret = ret   ?:
			      rb_buf_printf(b, "</td><td>%lld</td><td>",
					    ji(s, "findings"));
		ret = ret ?: a_link(b, js(s, "thread"), "thread", "thread");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret ?: rb_buf_puts(b, "</table>\n");
	ret = ret ?: list_pager(b, j, a);
	return ret ?: tail(b);
}

/* --- /series?id= --- */

struct series_ctx {
	json_t *j;
	const char *inbox;
};

static int series_head_row(const struct rb_report_series *s, void *payload)
{
	struct series_ctx *c = payload;
	json_t *o = series_obj(s, c->inbox);

	jset(o, "detail", jstr(s->detail));
	jset(o, "applied_commit", jstr(s->applied_commit));
	if (s->previous) {
		json_t *p = json_object();

		jset(p, "id", jstr(s->previous));
		jset(p, "url", series_link(s->previous));
		jset(o, "previous", p);
	} else {
		jset(o, "previous", json_null());
	}
	jset(o, "next", json_array());
	json_object_update(c->j, o);
	json_decref(o);
	return 1;
}

static int next_row(const char *id, int64_t version, void *payload)
{
	json_t *o = json_object();

	jset(o, "id", jstr(id));
	jset(o, "version", json_integer(version));
	jset(o, "url", series_link(id));
	json_array_append_new(payload, o);
	return 0;
}

static int patch_row(const struct rb_report_patch *p, void *payload)
{
	struct series_ctx *c = payload;
	json_t *o = json_object();

	jset(o, "idx", json_integer(p->idx));
	jset(o, "message_id", jstr(p->message_id));
	jset(o, "subject", jstr(p->subject));
	jset(o, "received", jtime(p->received_at));
	jset(o, "thread", thread_link(c->inbox, p->message_id));
	json_array_append_new(json_object_get(c->j, "patches"), o);
	return 0;
}

static int attempt_row(const struct rb_report_attempt *a, void *payload)
{
	json_t *o = json_object();

	jset(o, "base", jstr(a->base_name));
	jset(o, "commit", jstr(a->base_commit));
	jset(o, "applied", json_boolean(a->ok));
	if (!a->ok) {
		jset(o, "failed_patch", json_integer(a->failed_patch));
		jset(o, "failed_file", jstr(a->failed_file));
		jset(o, "failed_hunk", json_integer(a->failed_hunk));
		jset(o, "reason", jstr(a->reason));
	}
	json_array_append_new(payload, o);
	return 0;
}

static const char *outcome_text(const char *o)
{
	if (!o)
		return "-";
	if (!strcmp(o, "false_positive"))
		return "judged false positive";
	if (!strcmp(o, "valid"))
		return "judged valid";
	if (!strcmp(o, "fixed"))
		return "judged fixed";
	if (!strcmp(o, "fixed_later"))
		return "fixed in a later version";
	return o;
}

static int finding_row(const struct rb_report_finding *f, void *payload)
{
	json_t *o = json_object();

	jset(o, "fid", jstr(f->fid));
	jset(o, "checker", jstr(f->checker));
	jset(o, "category", jstr(f->category));
	jset(o, "severity", jstr(f->severity));
	jset(o, "patch", json_integer(f->patch_idx));
	jset(o, "file", jstr(f->file));
	jset(o, "line", json_integer(f->line));
	jset(o, "quote", jstr(f->code));
	jset(o, "message", jstr(f->message));
	jset(o, "state", jstr(f->state));
	jset(o, "outcome", jstr(f->outcome));
	jset(o, "fixed_in_version",
	     f->fixed_version ? json_integer(f->fixed_version) : json_null());
	jset(o, "severity_reason", jstr(f->severity_reason));
	jset(o, "verifier_reason", jstr(f->verifier_reason));
	jset(o, "already_quoted_by", jstr(f->quoted));
	json_array_append_new(payload, o);
	return 0;
}

static int verdict_row(const struct rb_report_verdict *v, void *payload)
{
	json_t *o = json_object();

	jset(o, "fid", jstr(v->fid));
	jset(o, "verdict", jstr(v->verdict));
	jset(o, "judge", jstr(v->judge));
	jset(o, "authorised", json_boolean(v->authorised));
	jset(o, "reason", jstr(v->reason));
	jset(o, "date", jtime(v->created_at));
	/* Issue 37: the reply's words, and a guess from prose apart. */
	jset(o, "id", json_integer(v->id));
	jset(o, "words", jstr(v->comment));
	jset(o, "proposed",
	     jstr(v->proposed == 1 ? "pending" :
		  v->proposed == 2 ? "confirmed" :
		  v->proposed == 3 ? "rejected" :
				     NULL));
	json_array_append_new(payload, o);
	return 0;
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

static int mail_row(const struct rb_report_mail *m, void *payload)
{
	struct rb_buf body = RB_BUF_INIT(PAGE_MAX);
	struct rb_buf mail = RB_BUF_INIT(PAGE_MAX);
	json_t *o = json_object();
	const char *p;
	int ret;

	/* The stored bytes end where their length says, not at a NUL. */
	ret = m->bytes ? rb_buf_add(&mail, m->bytes, m->len) : 0;
	/* Without the CRs of the wire format. */
	for (p = mail_body(mail.ptr); !ret && p && *p; p++)
		if (*p != '\r')
			ret = rb_buf_putc(&body, *p);
	jset(o, "message_id", jstr(m->message_id));
	jset(o, "kind", jstr(m->kind));
	jset(o, "patch", json_integer(m->patch_idx));
	jset(o, "words", json_integer(m->words));
	jset(o, "findings", json_integer(m->findings));
	jset(o, "state", jstr(m->state));
	jset(o, "date", jtime(m->created_at));
	jset(o, "body", jstr(body.ptr ? body.ptr : ""));
	json_array_append_new(payload, o);
	rb_buf_release(&body);
	rb_buf_release(&mail);
	return ret;
}

/*
 * Issue 36: the series' blocking ledger (each finding raised under mode
 * blocking, this version and the ones before, with its answer state),
 * where the series was seen in the trees and what was decided, and what
 * replies asked (not in the public view: store_ledger.h).
 */
static int ledger_json(json_t *j, struct rb_store *st, const char *id)
{
	struct rb_ledger_item *v = NULL;
	struct rb_sighting *g = NULL;
	struct rb_request_row *r = NULL;
	json_t *lv = json_array(), *gv = json_array(), *rv = json_array();
	size_t n = 0, ng = 0, nr = 0, i;
	int ret;

	jset(j, "ledger", lv);
	jset(j, "sightings", gv);
	jset(j, "requests", rv);
	ret = rb_store_ledger(st, id, &v, &n);
	for (i = 0; !ret && i < n; i++) {
		json_t *o = json_object();

		jset(o, "fid", jstr(v[i].f.fid));
		jset(o, "version", json_integer(v[i].version));
		jset(o, "patch", json_integer(v[i].f.patch_idx));
		jset(o, "severity", jstr(v[i].f.severity));
		jset(o, "checker", jstr(v[i].f.checker));
		jset(o, "message", jstr(v[i].f.message));
		jset(o, "state", jstr(v[i].state));
		json_array_append_new(lv, o);
	}
	ret = ret ?: rb_store_sightings_of(st, id, &g, &ng);
	for (i = 0; !ret && i < ng; i++) {
		json_t *o = json_object();

		jset(o, "tree", jstr(g[i].tree));
		jset(o, "state", jstr(g[i].state));
		jset(o, "commit", jstr(g[i].commit));
		jset(o, "parts", json_integer(g[i].parts));
		jset(o, "open", json_integer(g[i].open));
		jset(o, "notice", jstr(g[i].message_id));
		jset(o, "date", jtime(g[i].created_at));
		json_array_append_new(gv, o);
	}
	ret = ret ?: rb_store_requests_of(st, id, &r, &nr);
	for (i = 0; !ret && i < nr; i++) {
		json_t *o = json_object();

		jset(o, "verb", jstr(r[i].verb));
		jset(o, "by", jstr(r[i].actor));
		jset(o, "role", jstr(r[i].role));
		jset(o, "authorised", json_boolean(r[i].authorised));
		jset(o, "detail", jstr(r[i].detail));
		jset(o, "date", jtime(r[i].created_at));
		json_array_append_new(rv, o);
	}
	rb_ledger_free(v, n);
	rb_sightings_free(g, ng);
	rb_request_rows_free(r, nr);
	return ret;
}

/* Series @id as JSON; *out NULL when there is no such series. */
static int series_json(json_t **out, struct rb_store *st, const char *id,
		       const char *inbox)
{
	struct series_ctx c = { json_object(), inbox };
	json_t *a = json_array(), *f = json_array(), *v = json_array();
	json_t *m = json_array();
	int ret;

	*out = NULL;
	jset(c.j, "patches", json_array());
	ret = rb_store_report_series(st, id, series_head_row, &c);
	if (ret || !json_object_get(c.j, "id")) {
		json_decref(c.j);
		json_decref(a);
		json_decref(f);
		json_decref(v);
		json_decref(m);
		return ret;
	}
	jset(c.j, "attempts", a);
	jset(c.j, "findings", f);
	jset(c.j, "verdicts", v);
	jset(c.j, "mails", m);
	ret = rb_store_report_next_versions(st, id, next_row,
					    json_object_get(c.j, "next"));
	ret = ret ?: rb_store_report_patches(st, id, patch_row, &c);
	ret = ret ?: rb_store_report_attempts(st, id, attempt_row, a);
	ret = ret ?: rb_store_report_findings(st, id, finding_row, f);
	ret = ret ?: rb_store_report_verdicts(st, id, verdict_row, v);
	ret = ret ?: rb_store_report_mails_of(st, id, mail_row, m);
	ret = ret ?: ledger_json(c.j, st, id);
	if (ret) {
		json_decref(c.j);
		return ret;
	}
	*out = c.j;
	return 0;
}

/* <tr><th>@k</th><td>@v escaped</td></tr> */
static int kv_row(struct rb_buf *b, const char *k, const char *v)
{
	int ret = rb_buf_printf(b, "<tr><th>%s</th><td>", k);

	ret = ret ?: rb_html_escape(b, v ? v : "-");
	return ret ?: rb_buf_puts(b, "</td></tr>");
}

static int series_head_html(struct rb_buf *b, json_t *j)
{
	json_t *prev = json_object_get(j, "previous"), *n;
	const char *t = js(j, "title");
	size_t i;
	int ret = rb_buf_puts(b, "<h1 id=\"title\">");

	ret = ret ?: rb_html_escape(b, t ? t : "(no title)");
	ret = ret   ?:
		      rb_buf_printf(b,
				    "</h1><table id=\"summary\"><tr><th>"
				    "version</th><td>v%lld</td></tr>",
				    ji(j, "version"));
	ret = ret ?: kv_row(b, "author", js(j, "author"));
	ret = ret ?: kv_row(b, "date", js(j, "date"));
	ret = ret ?: rb_buf_puts(b, "<tr><th>status</th><td>");
	ret = ret ?: rb_html_escape(b, js(j, "status"));
	ret = ret ?: rb_buf_puts(b, " ");
	ret = ret ?: rb_html_escape(b, js(j, "detail"));
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>base</th><td>");
	ret = ret ?: rb_html_escape(b, js(j, "base") ?: "-");
	ret = ret ?: rb_buf_puts(b, " ");
	ret = ret ?: rb_html_escape(b, js(j, "base_commit"));
	ret = ret ?: rb_buf_puts(b, "</td></tr>");
	ret = ret ?: kv_row(b, "applied as", js(j, "applied_commit"));
	ret = ret ?: kv_row(b, "section", js(j, "section"));
	ret = ret ?: kv_row(b, "mode", js(j, "mode"));
	ret = ret ?: kv_row(b, "id", js(j, "id"));
	ret = ret ?: rb_buf_puts(b, "<tr><th>thread</th><td>");
	ret = ret   ?:
		      a_link(b, js(j, "thread"), "on the public inbox",
			     "thread");
	ret = ret ?: rb_buf_puts(b, "</td></tr><tr><th>versions</th><td>");
	if (!ret && !json_is_object(prev) &&
	    !json_array_size(json_object_get(j, "next")))
		ret = rb_buf_puts(b, "no other version stored");
	if (!ret && json_is_object(prev))
		ret = a_link(b, js(prev, "url"), "previous version", "prev");
	json_array_foreach(json_object_get(j, "next"), i, n)
	{
		char text[64];

		snprintf(text, sizeof(text), "next version (v%lld)",
			 ji(n, "version"));
		ret = ret ?: rb_buf_puts(b, " ");
		ret = ret ?: a_link(b, js(n, "url"), text, "next");
	}
	return ret ?: rb_buf_puts(b, "</td></tr></table>\n");
}

static int series_parts_html(struct rb_buf *b, json_t *j)
{
	json_t *p;
	size_t i;
	int ret = rb_buf_puts(b, "<h2>Patches</h2><table id=\"patches\">"
				 "<tr><th>#</th><th>subject</th>"
				 "<th>received</th><th>lore</th></tr>\n");

	json_array_foreach(json_object_get(j, "patches"), i, p)
	{
		ret = ret   ?:
			      rb_buf_printf(b, "<tr><td>%lld</td><td>",
					    ji(p, "idx"));
		ret = ret   ?:
			      rb_html_escape(b, js(p, "subject") ?:
							js(p, "message_id"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(p, "received") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: a_link(b, js(p, "thread"), "mail", "thread");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret   ?:
		      rb_buf_puts(b, "</table><h2>Apply attempts</h2><table "
				     "id=\"attempts\"><tr><th>base</th>"
				     "<th>commit</th><th>result</th>"
				     "<th>detail</th></tr>\n");
	json_array_foreach(json_object_get(j, "attempts"), i, p)
	{
		bool ok = json_is_true(json_object_get(p, "applied"));

		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, js(p, "base"));
		ret = ret   ?:
			      rb_buf_printf(b,
					    "</td><td>%.12s</td><td>%s</td>"
					    "<td>",
					    js(p, "commit") ?: "",
					    ok ? "applied" : "failed");
		if (!ret && !ok) {
			ret = rb_buf_printf(b, "patch %lld, ",
					    ji(p, "failed_patch"));
			ret = ret ?: rb_html_escape(b, js(p, "failed_file"));
			ret = ret   ?:
				      rb_buf_printf(b, " hunk %lld: ",
						    ji(p, "failed_hunk"));
			ret = ret ?: rb_html_escape(b, js(p, "reason"));
		}
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	return ret ?: rb_buf_puts(b, "</table>\n");
}

/*
 * A model finding's reasoning under its message: why that severity (the
 * finder's words) and what the verifier said, both model text, escaped.
 */
static int finding_why_html(struct rb_buf *b, json_t *f)
{
	const char *sev = js(f, "severity_reason"),
		   *ver = js(f, "verifier_reason");
	int ret = 0;

	if ((!sev || !*sev) && (!ver || !*ver))
		return 0;
	ret = rb_buf_puts(b, "<p class=\"why\">");
	if (!ret && sev && *sev) {
		ret = rb_buf_puts(b, "Why this severity: ");
		ret = ret ?: rb_html_escape(b, sev);
	}
	if (!ret && ver && *ver) {
		ret = rb_buf_puts(b, sev && *sev ? "<br>Verifier: " :
						   "Verifier: ");
		ret = ret ?: rb_html_escape(b, ver);
	}
	return ret ?: rb_buf_puts(b, "</p>");
}

static int series_findings_html(struct rb_buf *b, json_t *j)
{
	json_t *f;
	size_t i;
	int ret = rb_buf_puts(b, "<h2>Findings</h2><table id=\"findings\">"
				 "<tr><th>id</th><th>rule</th>"
				 "<th>severity</th><th>where</th>"
				 "<th>finding</th><th>state</th>"
				 "<th>outcome</th></tr>\n");

	json_array_foreach(json_object_get(j, "findings"), i, f)
	{
		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, js(f, "fid"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "checker"));
		ret = ret ?: rb_buf_puts(b, "/");
		ret = ret ?: rb_html_escape(b, js(f, "category"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "severity"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret   ?:
			      rb_html_escape(b, js(f, "file") ?:
							"(commit message)");
		if (!ret && ji(f, "line"))
			ret = rb_buf_printf(b, ":%lld", ji(f, "line"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		if (!ret && js(f, "quote") && *js(f, "quote")) {
			ret = rb_buf_puts(b, "<pre class=\"quote\">");
			ret = ret ?: rb_html_escape(b, js(f, "quote"));
			ret = ret ?: rb_buf_puts(b, "</pre>");
		}
		ret = ret ?: rb_html_escape(b, js(f, "message"));
		if (!ret && js(f, "already_quoted_by")) {
			ret = rb_buf_puts(b, " <em>(its line was quoted in the "
					     "thread already, by a ");
			ret = ret   ?:
				      rb_html_escape(
					      b, js(f, "already_quoted_by"));
			ret = ret ?: rb_buf_puts(b, ")</em>");
		}
		ret = ret ?: finding_why_html(b, f);
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "state"));
		ret = ret ?: rb_buf_puts(b, "</td><td class=\"outcome\">");
		ret = ret ?: rb_html_escape(b, outcome_text(js(f, "outcome")));
		if (!ret && ji(f, "fixed_in_version"))
			ret = rb_buf_printf(b, " (fixed in v%lld)",
					    ji(f, "fixed_in_version"));
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret   ?:
		      rb_buf_puts(b,
				  "</table><h2>Verdicts</h2>"
				  "<table id=\"verdicts\"><tr><th>finding</th>"
				  "<th>verdict</th><th>judge</th>"
				  "<th>authorised</th><th>reason</th>"
				  "<th>their words</th><th>when</th>"
				  "<th>id</th></tr>\n");
	json_array_foreach(json_object_get(j, "verdicts"), i, f)
	{
		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, js(f, "fid") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "verdict") ?: "unclear");
		/* A guess from prose is said to be one. */
		if (!ret && js(f, "proposed")) {
			ret = rb_buf_puts(b, " (proposed from prose, ");
			ret = ret ?: rb_html_escape(b, js(f, "proposed"));
			ret = ret ?: rb_buf_puts(b, ")");
		}
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "judge"));
		ret = ret   ?:
			      rb_buf_printf(b, "</td><td>%s</td><td>",
					    json_is_true(json_object_get(
						    f, "authorised")) ?
						    "yes" :
						    "no");
		ret = ret ?: rb_html_escape(b, js(f, "reason"));
		ret = ret ?: rb_buf_puts(b, "</td><td class=\"words\">");
		ret = ret ?: rb_html_escape(b, js(f, "words"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "date") ?: "-");
		ret = ret   ?:
			      rb_buf_printf(b, "</td><td>%lld</td></tr>\n",
					    ji(f, "id"));
	}
	return ret ?: rb_buf_puts(b, "</table>\n");
}

/* One table of the ledger's part of the page: its head, each row. */
static int ledger_html(struct rb_buf *b, json_t *j)
{
	json_t *f;
	size_t i;
	int ret;

	if (!json_array_size(json_object_get(j, "ledger")) &&
	    !json_array_size(json_object_get(j, "sightings")) &&
	    !json_array_size(json_object_get(j, "requests")))
		return 0;
	ret = rb_buf_puts(b, "<h2>Blocking ledger</h2><table id=\"ledger\">"
			     "<tr><th>id</th><th>version</th><th>patch</th>"
			     "<th>severity</th><th>finding</th>"
			     "<th>state</th></tr>\n");
	json_array_foreach(json_object_get(j, "ledger"), i, f)
	{
		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, js(f, "fid") ?: "-");
		ret = ret   ?:
			      rb_buf_printf(
				      b, "</td><td>v%lld</td><td>%lld</td><td>",
				      ji(f, "version"), ji(f, "patch"));
		ret = ret ?: rb_html_escape(b, js(f, "severity"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "message"));
		ret = ret ?: rb_buf_puts(b, "</td><td class=\"state\">");
		ret = ret ?: rb_html_escape(b, js(f, "state"));
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret   ?:
		      rb_buf_puts(b, "</table><h3>Seen in the trees</h3>"
				     "<table id=\"sightings\"><tr><th>tree</th>"
				     "<th>decided</th><th>at</th><th>parts</th>"
				     "<th>open</th><th>when</th></tr>\n");
	json_array_foreach(json_object_get(j, "sightings"), i, f)
	{
		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, js(f, "tree"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "state"));
		ret = ret   ?:
			      rb_buf_printf(b,
					    "</td><td>%.12s</td><td>%lld</td>"
					    "<td>%lld</td><td>",
					    js(f, "commit") ?: "",
					    ji(f, "parts"), ji(f, "open"));
		ret = ret ?: rb_html_escape(b, js(f, "date") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret   ?:
		      rb_buf_puts(b, "</table><h3>Requests</h3>"
				     "<table id=\"requests\"><tr><th>asked</th>"
				     "<th>by</th><th>allowed</th><th>what came "
				     "of it</th><th>when</th></tr>\n");
	json_array_foreach(json_object_get(j, "requests"), i, f)
	{
		ret = ret ?: rb_buf_puts(b, "<tr><td>");
		ret = ret ?: rb_html_escape(b, js(f, "verb"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "by") ?: "-");
		ret = ret   ?:
			      rb_buf_printf(b, "</td><td>%s</td><td>",
					    json_is_true(json_object_get(
						    f, "authorised")) ?
						    "yes" :
						    "no");
		ret = ret ?: rb_html_escape(b, js(f, "detail"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(f, "date") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	return ret ?: rb_buf_puts(b, "</table>\n");
}

static int series_mails_html(struct rb_buf *b, json_t *j)
{
	json_t *m;
	size_t i;
	int ret = rb_buf_puts(b, "<h2>Mails as sent</h2>\n");

	json_array_foreach(json_object_get(j, "mails"), i, m)
	{
		ret = ret ?: rb_buf_puts(b, "<h3>");
		ret = ret ?: rb_html_escape(b, js(m, "kind"));
		ret = ret   ?:
			      rb_buf_printf(b,
					    " (patch %lld): %lld words, %lld "
					    "findings, ",
					    ji(m, "patch"), ji(m, "words"),
					    ji(m, "findings"));
		ret = ret ?: rb_html_escape(b, js(m, "state") ?: "no mail");
		ret = ret ?: rb_buf_puts(b, ", ");
		ret = ret ?: rb_html_escape(b, js(m, "date") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</h3>\n<pre class=\"mail\">");
		ret = ret ?: rb_html_escape(b, js(m, "body"));
		ret = ret ?: rb_buf_puts(b, "</pre>\n");
	}
	return ret;
}

static int series_html(struct rb_buf *b, json_t *j)
{
	int ret = head(b, "series");

	ret = ret ?: series_head_html(b, j);
	ret = ret ?: series_parts_html(b, j);
	ret = ret ?: series_findings_html(b, j);
	ret = ret ?: ledger_html(b, j);
	ret = ret ?: series_mails_html(b, j);
	return ret ?: tail(b);
}

/* --- /notes (issue 37) --- */

static int note_obj(const struct rb_note *n, void *payload)
{
	json_t *o = json_object();

	jset(o, "id", json_integer(n->id));
	jset(o, "section", jstr(n->section));
	jset(o, "text", jstr(n->text));
	jset(o, "state", jstr(n->state));
	jset(o, "from_verdict",
	     n->verdict_id ? json_integer(n->verdict_id) : json_null());
	jset(o, "added_by", jstr(n->added_by));
	jset(o, "date", jtime(n->created_at));
	json_array_append_new(payload, o);
	return 0;
}

static int proposal_obj(const struct rb_proposal *p, void *payload)
{
	json_t *o = json_object();

	jset(o, "id", json_integer(p->id));
	jset(o, "series", jstr(p->series_id));
	jset(o, "fid", jstr(p->fid));
	jset(o, "guess", jstr(p->verdict));
	jset(o, "guessed_by", jstr(p->guessed_by));
	jset(o, "judge", jstr(p->judge));
	jset(o, "may_judge", json_boolean(p->role != NULL));
	jset(o, "words", jstr(p->comment));
	jset(o, "date", jtime(p->created_at));
	json_array_append_new(payload, o);
	return 0;
}

/*
 * The notes the model's prompt carries per section, and what awaits an
 * admin: verdicts guessed from prose. The page is read-only: an admin
 * acts with "reviewbot verdicts confirm|reject ID" and "reviewbot notes
 * add|remove" on the bot's host (bot/cli/cmd_verdicts.c, cmd_notes.c).
 */
static int notes_json(json_t **out, struct rb_store *st)
{
	json_t *j = json_object(), *n = json_array(), *p = json_array();
	int ret;

	jset(j, "notes", n);
	jset(j, "proposed", p);
	ret = rb_store_each_note(st, NULL, true, note_obj, n);
	ret = ret ?: rb_store_each_proposal(st, true, proposal_obj, p);
	if (ret) {
		json_decref(j);
		return ret;
	}
	*out = j;
	return 0;
}

static int notes_html(struct rb_buf *b, json_t *j)
{
	json_t *o;
	size_t i;
	int ret = head(b, "notes");

	ret = ret   ?:
		      rb_buf_puts(b, "<h1>Notes for the model</h1><p class=\""
				     "reading\">What an admin approved for the "
				     "prompt of the sections a series touches. "
				     "Remove one with <code>reviewbot notes "
				     "remove ID</code>; add one from a "
				     "false-positive verdict's words with "
				     "<code>reviewbot notes add --section NAME "
				     "--verdict ID</code>.</p>"
				     "<table id=\"notes\"><tr><th>id</th>"
				     "<th>section</th><th>note</th><th>added "
				     "by</th><th>when</th></tr>\n");
	json_array_foreach(json_object_get(j, "notes"), i, o)
	{
		ret = ret   ?:
			      rb_buf_printf(b, "<tr><td>%lld</td><td>",
					    ji(o, "id"));
		ret = ret ?: rb_html_escape(b, js(o, "section"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(o, "text"));
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(o, "added_by") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(o, "date") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret   ?:
		      rb_buf_puts(b,
				  "</table><h2>Verdicts proposed from prose"
				  "</h2><p class=\"reading\">Replies that "
				  "answered a finding in words: they count "
				  "for nothing until an admin runs "
				  "<code>reviewbot verdicts confirm ID</code> "
				  "(or <code>reject</code>).</p>"
				  "<table id=\"proposed\"><tr><th>id</th>"
				  "<th>series</th><th>finding</th><th>guess"
				  "</th><th>judge</th><th>their words</th>"
				  "</tr>\n");
	json_array_foreach(json_object_get(j, "proposed"), i, o)
	{
		ret = ret   ?:
			      rb_buf_printf(b, "<tr><td>%lld</td><td>",
					    ji(o, "id"));
		ret = ret ?: rb_html_escape(b, js(o, "series") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(o, "fid") ?: "-");
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(o, "guess") ?: "unclear");
		ret = ret ?: rb_buf_puts(b, "</td><td>");
		ret = ret ?: rb_html_escape(b, js(o, "judge") ?: "-");
		if (!ret && !json_is_true(json_object_get(o, "may_judge")))
			ret = rb_buf_puts(b, " (may not judge)");
		ret = ret ?: rb_buf_puts(b, "</td><td class=\"words\">");
		ret = ret ?: rb_html_escape(b, js(o, "words") ?: "");
		ret = ret ?: rb_buf_puts(b, "</td></tr>\n");
	}
	ret = ret ?: rb_buf_puts(b, "</table>\n");
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

/* The precision tables, by group; /metrics shows the first three. */
static const struct {
	const char *title, *key;
} groups[] = {
	{ "subsystem", "by_subsystem" },   { "checker", "by_checker" },
	{ "category", "by_category" },	   { "model", "by_model" },
	{ "prompt version", "by_prompt" },
};

/*
 * The table of one group. Rules also show the precision the benchmark
 * measured on labelled real findings ("labelled", review/checks/rules.c), beside
 * what the verdicts here say.
 */
static int prec_table(struct rb_buf *b, const char *title, json_t *o,
		      bool labelled)
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
				     "<th>precision</th>");
	if (!ret && labelled)
		ret = rb_buf_puts(b, "<th>labelled precision (bench, "
				     "findings labelled)</th>");
	ret = ret ?: rb_buf_puts(b, "</tr>\n");
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
		if (!ret && labelled) {
			json_t *lp = json_object_get(v, "labelled_precision");

			ret = json_is_number(lp) ?
				      rb_buf_printf(
					      b, "</td><td>%.2f (%lld)",
					      json_number_value(lp),
					      (long long)json_integer_value(
						      json_object_get(
							      v, "labelled"))) :
				      rb_buf_puts(b, "</td><td>-");
		}
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
		      rb_buf_puts(b, "<h3>Precision over time, per section"
				     "</h3>");
	ret = ret ?: axes(b, "chart-precision", "precision over time", "1.0");
	ret = ret   ?:
		      rb_buf_printf(b,
				    "<text x=\"2\" y=\"%d\" font-size=\"10\">0"
				    "</text><text x=\"%d\" y=\"%d\" "
				    "font-size=\"10\" text-anchor=\"end\">day "
				    "of the verdict (UTC)</text>",
				    H - PADB, W - 10, H - 2);
	if (!ret && !t.svg.len)
		ret = rb_buf_printf(b,
				    "<text x=\"%d\" y=\"%d\" font-size=\"12\">"
				    "no verdicts yet</text>",
				    W / 2 - 40, H / 2);
	else if (!ret)
		ret = rb_buf_add(b, t.svg.ptr, t.svg.len);
	ret = ret ?: rb_buf_puts(b, "</svg>\n<p class=\"reading\">");
	if (!ret && t.svg.len) {
		char d0[24], d1[24];

		fmt_day(d0, sizeof(d0), t.day0);
		fmt_day(d1, sizeof(d1), t.day1);
		ret = rb_buf_printf(b,
				    "Each line is a section's precision (valid"
				    " / judged findings, 0 to 1), counted up to"
				    " each day a verdict was given, from %s to"
				    " %s.",
				    d0, d1);
	} else if (!ret) {
		ret = rb_buf_puts(b, "No verdicts yet: precision shows once "
				     "people judge findings.");
	}
	ret = ret ?: rb_buf_puts(b, "</p>\n");
	rb_buf_release(&t.pts);
	rb_buf_release(&t.svg);
	return ret;
}

struct i64s {
	int64_t *v;
	size_t n, cap;
	int ret;
};

static int i64_push(int64_t v, void *payload)
{
	struct i64s *a = payload;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		int64_t *p = realloc(a->v, cap * sizeof(*p));

		if (!p)
			return rb_err(RB_ENOMEM, "out of memory");
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = v;
	return 0;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The @pct-th percentile of sorted @v[0..n) by nearest rank. */
static int64_t percentile(const int64_t *v, size_t n, int pct)
{
	size_t rank = (n * (size_t)pct + 99) / 100;

	return n ? v[rank ? rank - 1 : 0] : 0;
}

struct day_pairs {
	int64_t *day, *n;
	size_t len, cap;
};

static int day_push(int64_t day, int64_t n, void *payload)
{
	struct day_pairs *d = payload;

	if (d->len == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		int64_t *a = realloc(d->day, cap * sizeof(*a));

		if (!a)
			return rb_err(RB_ENOMEM, "out of memory");
		d->day = a;
		a = realloc(d->n, cap * sizeof(*a));
		if (!a)
			return rb_err(RB_ENOMEM, "out of memory");
		d->n = a;
		d->cap = cap;
	}
	d->day[d->len] = day;
	d->n[d->len++] = n;
	return 0;
}

static int prec_into(const char *group, const struct rb_report_precision *p,
		     void *payload)
{
	json_t *o = json_object();

	jset(o, "raised", json_integer(p->raised));
	jset(o, "judged", json_integer(p->judged));
	jset(o, "valid", json_integer(p->valid));
	jset(o, "precision",
	     p->judged ? json_real((double)p->valid / (double)p->judged) :
			 json_null());
	json_object_set_new(payload, group, o);
	return 0;
}

/*
 * A rule's row ("checker/category") with the precision bench/precision.sh
 * measured for it on labelled real findings, when it was measured.
 */
static int prec_into_rule(const char *rule, const struct rb_report_precision *p,
			  void *payload)
{
	const char *slash = strchr(rule, '/');
	const struct rb_rule_default *d;
	json_t *o;
	size_t n, i;
	int ret = prec_into(rule, p, payload);

	o = json_object_get(payload, rule);
	if (ret || !o || !slash)
		return ret;
	d = rb_rule_defaults(&n);
	for (i = 0; i < n; i++) {
		if (strlen(d[i].checker) != (size_t)(slash - rule) ||
		    strncmp(d[i].checker, rule, (size_t)(slash - rule)) ||
		    strcmp(d[i].category, slash + 1))
			continue;
		if (d[i].precision >= 0 && d[i].labelled > 0) {
			jset(o, "labelled_precision",
			     json_real(d[i].precision / 100.0));
			jset(o, "labelled", json_integer(d[i].labelled));
		}
		break;
	}
	return 0;
}

/*
 * rb_stats_collect()'s figures and what the page adds: precision per
 * rule, the latency from receipt to sending (median, p95), and the mails
 * by the day their series arrived.
 */
static int stats_json(json_t **out, struct rb_store *st)
{
	struct i64s lat = { 0 };
	struct day_pairs d = { 0 };
	json_t *j = NULL, *o, *arr;
	size_t i;
	int ret;

	ret = rb_stats_collect(st, &j);
	if (ret)
		return ret;
	o = json_object();
	ret = rb_store_report_precision_by(st, RB_GROUP_RULE, prec_into_rule,
					   o);
	jset(j, "by_rule", o);
	ret = ret ?: rb_store_report_send_latencies(st, i64_push, &lat);
	if (!ret)
		qsort(lat.v, lat.n, sizeof(*lat.v), i64_cmp);
	o = json_object();
	jset(o, "from", json_string("receipt"));
	jset(o, "to", json_string("sent"));
	jset(o, "count", json_integer((json_int_t)lat.n));
	jset(o, "median_s",
	     lat.n ? json_integer(percentile(lat.v, lat.n, 50)) : json_null());
	jset(o, "p95_s",
	     lat.n ? json_integer(percentile(lat.v, lat.n, 95)) : json_null());
	jset(o, "max_s", lat.n ? json_integer(lat.v[lat.n - 1]) : json_null());
	arr = json_array();
	for (i = 0; i < lat.n; i++)
		json_array_append_new(arr, json_integer(lat.v[i]));
	jset(o, "seconds", arr);
	jset(j, "send_latency", o);
	ret = ret ?: rb_store_report_mails_by_series_day(st, day_push, &d);
	arr = json_array();
	for (i = 0; i < d.len; i++) {
		char day[32];

		o = json_object();
		fmt_day(day, sizeof(day), d.day[i]);
		jset(o, "day", json_string(day));
		jset(o, "epoch_day", json_integer(d.day[i]));
		jset(o, "mails", json_integer(d.n[i]));
		json_array_append_new(arr, o);
	}
	jset(j, "mails_by_series_day", arr);
	free(lat.v);
	free(d.day);
	free(d.n);
	if (ret) {
		json_decref(j);
		return ret;
	}
	*out = j;
	return 0;
}

/* A figure: a number with two decimals, or a duration. */
static int fig_num(struct rb_buf *b, const char *id, const char *text,
		   json_t *v, bool duration)
{
	int ret = rb_buf_printf(b, "<p>%s: <span class=\"fig\" id=\"%s\">",
				text, id);

	if (!ret && json_is_number(v) && duration) {
		char d[32];

		rb_dur_format(d, sizeof(d), json_number_value(v), cell_units);
		ret = rb_buf_puts(b, d);
	} else if (!ret && json_is_number(v)) {
		ret = rb_buf_printf(b, "%.2f", json_number_value(v));
	} else if (!ret) {
		ret = rb_buf_puts(b, "-");
	}
	return ret ?: rb_buf_puts(b, "</span></p>\n");
}

/* The precision tables of /stats. */
static const struct {
	const char *title, *key;
} stat_groups[] = {
	{ "rule (checker/category)", "by_rule" },
	{ "section (the policy that decided)", "by_subsystem" },
	{ "checker", "by_checker" },
	{ "model", "by_model" },
	{ "prompt version", "by_prompt" },
};

/*
 * A bar chart with both axes named: @n bars of heights @y, labelled
 * @labels (shown when they fit), the y axis in @yunit, the x axis
 * @xunit; @reading is the one line under it that says what it shows.
 */
struct chart {
	const char *id, *title, *yunit, *xunit, *reading;
	const int64_t *y;
	char (*labels)[24];
	size_t n;
};

static int bar_svg(struct rb_buf *b, const struct chart *c)
{
	int64_t max = 1;
	double bw;
	size_t i, every;
	int ret;

	for (i = 0; i < c->n; i++)
		if (c->y[i] > max)
			max = c->y[i];
	ret = rb_buf_printf(b, "<h3>%s</h3>", c->title);
	ret = ret ?: axes(b, c->id, c->title, "");
	/* The y axis: 0, half and the top, in its unit. */
	ret = ret   ?:
		      rb_buf_printf(
			      b,
			      "<text x=\"2\" y=\"%d\" font-size=\"10\">%lld"
			      "</text><text x=\"2\" y=\"%d\" font-size=\"10\">"
			      "%lld</text><text x=\"2\" y=\"%d\" "
			      "font-size=\"10\">0</text>"
			      "<text x=\"%d\" y=\"10\" font-size=\"10\">%s"
			      "</text><text x=\"%d\" y=\"%d\" font-size=\"10\""
			      " text-anchor=\"end\">%s</text>",
			      H - PADB - (H - PADB - 20) + 4, (long long)max,
			      H - PADB - (H - PADB - 20) / 2 + 4,
			      (long long)(max / 2), H - PADB, PADL + 4,
			      c->yunit, W - 10, H - 2, c->xunit);
	bw = c->n ? (double)(W - PADL - 10) / (double)c->n : 0;
	/* Labels at least 60 px apart. */
	every = bw > 0 ? (size_t)(60 / bw) + 1 : 1;
	for (i = 0; i < c->n && !ret; i++) {
		double h = (double)c->y[i] / (double)max * (H - PADB - 20);
		double x = PADL + bw * (double)i + 1;

		ret = rb_buf_printf(b,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
				    " height=\"%.1f\" fill=\"#1f77b4\"><title>"
				    "%s: %lld</title></rect>",
				    x, (H - PADB) - h, bw > 3 ? bw - 2 : 1, h,
				    c->labels[i], (long long)c->y[i]);
		if (!ret && i % every == 0)
			ret = rb_buf_printf(b,
					    "<text x=\"%.1f\" y=\"%d\""
					    " font-size=\"9\">%s</text>",
					    x, H - PADB + 12, c->labels[i]);
	}
	ret = ret ?: rb_buf_puts(b, "</svg>\n<p class=\"reading\">");
	ret = ret ?: rb_html_escape(b, c->reading);
	return ret ?: rb_buf_puts(b, "</p>\n");
}

/* Bucket widths in days for the mails chart: at most 60 bars. */
static const struct {
	int64_t days;
	const char *unit;
} widths[] = {
	{ 1, "day" },	   { 7, "week" },   { 30, "30 days" },
	{ 91, "quarter" }, { 365, "year" }, { 3650, "decade" },
};

static int chart_mails(struct rb_buf *b, json_t *days)
{
	int64_t first, last, span, w = 1, y[64] = { 0 }, total = 0;
	char labels[64][24], reading[2048], d0[24], d1[24];
	const char *unit = "day";
	size_t i, k, n, best = 0;
	json_t *v;
	struct chart c = { .id = "chart-reviews-per-day",
			   .y = y,
			   .labels = labels,
			   .yunit = "mails",
			   .reading = reading };
	char title[96];

	n = json_array_size(days);
	if (!n) {
		c.title = "Mails by the day their series arrived";
		c.xunit = "day";
		snprintf(reading, sizeof(reading), "No mails written yet.");
		return bar_svg(b, &c);
	}
	first = ji(json_array_get(days, 0), "epoch_day");
	last = ji(json_array_get(days, n - 1), "epoch_day");
	span = last - first + 1;
	for (k = 0; k < ARRAY_SIZE(widths); k++) {
		w = widths[k].days;
		unit = widths[k].unit;
		if (span / w < 60)
			break;
	}
	c.n = (size_t)(span / w) + 1;
	if (c.n > 64)
		c.n = 64;
	json_array_foreach(days, i, v)
	{
		size_t at = (size_t)((ji(v, "epoch_day") - first) / w);

		if (at >= c.n)
			at = c.n - 1;
		y[at] += ji(v, "mails");
		total += ji(v, "mails");
	}
	for (i = 0; i < c.n; i++) {
		fmt_day(labels[i], sizeof(labels[i]), first + (int64_t)i * w);
		if (y[i] > y[best])
			best = i;
	}
	fmt_day(d0, sizeof(d0), first);
	fmt_day(d1, sizeof(d1), last);
	snprintf(title, sizeof(title),
		 "Mails per %s, by the day their series arrived", unit);
	c.title = title;
	c.xunit = w == 1 ? "day the series arrived (UTC)" :
			   "start of the period the series arrived in";
	snprintf(reading, sizeof(reading),
		 "%lld mails for series that arrived from %s to %s; the "
		 "busiest %s began %s, with %lld.",
		 (long long)total, d0, d1, unit, labels[best],
		 (long long)y[best]);
	return bar_svg(b, &c);
}

static const int64_t lat_edges[] = { 60, 600, 3600, 6 * 3600, 86400 };
static const char *const lat_labels[] = { "<1 min", "<10 min", "<1 h",
					  "<6 h",   "<1 day",  ">=1 day" };

static int chart_latency(struct rb_buf *b, json_t *sl)
{
	int64_t y[6] = { 0 };
	char labels[6][24], reading[256], med[32], p95[32];
	struct chart c = { .id = "chart-latency",
			   .title = "Time from receipt to sending",
			   .yunit = "mails",
			   .xunit = "from the receipt of the last part to "
				    "the mail leaving",
			   .y = y,
			   .labels = labels,
			   .n = 6,
			   .reading = reading };
	json_t *v;
	size_t i, k;

	for (i = 0; i < 6; i++)
		snprintf(labels[i], sizeof(labels[i]), "%s", lat_labels[i]);
	json_array_foreach(json_object_get(sl, "seconds"), i, v)
	{
		int64_t s = json_integer_value(v);

		for (k = 0; k < 5 && s >= lat_edges[k]; k++)
			;
		y[k]++;
	}
	if (!ji(sl, "count")) {
		snprintf(reading, sizeof(reading), "No mail sent yet.");
	} else {
		rb_dur_format(med, sizeof(med), (double)ji(sl, "median_s"),
			      cell_units);
		rb_dur_format(p95, sizeof(p95), (double)ji(sl, "p95_s"),
			      cell_units);
		snprintf(reading, sizeof(reading),
			 "Half of the %lld mails sent left within %s of "
			 "receiving the series' last part, 95%% within %s.",
			 ji(sl, "count"), med, p95);
	}
	return bar_svg(b, &c);
}

static int stats_html(struct rb_buf *b, struct rb_store *st, json_t *j)
{
	json_t *fi = json_object_get(j, "findings");
	json_t *sl = json_object_get(j, "send_latency");
	size_t i;
	int ret = head(b, "stats");

	ret = ret ?: rb_buf_puts(b, "<h1>Stats</h1>\n");
	ret = ret   ?:
		      fig_num(b, "precision-finding",
			      "precision per finding (valid / judged)",
			      json_object_get(fi, "precision"), false);
	ret = ret   ?:
		      rb_buf_printf(b,
				    "<p>findings raised %lld, judged %lld, "
				    "valid %lld</p>\n",
				    ji(fi, "raised"), ji(fi, "judged"),
				    ji(fi, "valid"));
	ret = ret   ?:
		      fig_num(b, "precision-review", "precision per review",
			      json_object_get(json_object_get(j, "reviews"),
					      "precision"),
			      false);
	ret = ret   ?:
		      fig_num(b, "words-per-review", "words per review",
			      json_object_get(json_object_get(j,
							      "review_mails"),
					      "words_per_review"),
			      false);
	ret = ret   ?:
		      fig_num(b, "latency-median",
			      "median time from receipt to sending",
			      json_object_get(sl, "median_s"), true);
	ret = ret   ?:
		      fig_num(b, "latency-p95",
			      "95th percentile from receipt to sending",
			      json_object_get(sl, "p95_s"), true);
	ret = ret   ?:
		      fig_num(b, "apply-failure-rate", "apply-failure rate",
			      json_object_get(json_object_get(j,
							      "apply_failures"),
					      "rate"),
			      false);
	for (i = 0; i < ARRAY_SIZE(stat_groups) && !ret; i++)
		ret = prec_table(b, stat_groups[i].title,
				 json_object_get(j, stat_groups[i].key),
				 !strcmp(stat_groups[i].key, "by_rule"));
	ret = ret ?: chart_precision(b, st);
	ret = ret ?: chart_mails(b, json_object_get(j, "mails_by_series_day"));
	ret = ret ?: chart_latency(b, sl);
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

int rb_http_render_query(struct rb_buf *out, struct rb_store *st,
			 const struct rb_http_query *q, int *status,
			 const char **ctype)
{
	const char *path = q->path;
	bool json = q->format && !strcmp(q->format, "json");
	json_t *j = NULL;
	int ret;

	*status = MHD_HTTP_OK;
	*ctype = "text/html; charset=utf-8";
	/* /api/NAME is /NAME?format=json. */
	if (!strncmp(path, "/api/", 5)) {
		json = true;
		path += 4;
		if (!strcmp(path, "/series") && !q->id)
			path = "/";
	}
	if (!strcmp(path, "/")) {
		struct list_args a = { q->q,	q->section,  q->state,
				       q->mode, q->findings, q->page };

		ret = list_json(&j, st, &a, q->thread_url);
		if (!ret)
			ret = json ? answer(out, j, ctype) :
				     list_html(out, j, &a);
		json_decref(j);
		return ret;
	}
	if (!strcmp(path, "/series")) {
		if (!q->id) {
			*status = MHD_HTTP_BAD_REQUEST;
			*ctype = "text/plain; charset=utf-8";
			return rb_buf_puts(out, "missing ?id=\n");
		}
		ret = series_json(&j, st, q->id, q->thread_url);
		if (ret)
			return ret;
		if (!j) {
			*status = MHD_HTTP_NOT_FOUND;
			if (json) {
				*ctype = "application/json; charset=utf-8";
				return rb_buf_puts(out, "{\"error\": \"no such"
							" series\"}\n");
			}
			ret = head(out, "series");
			ret = ret   ?:
				      rb_buf_puts(out,
						  "<h1>No such series</h1>");
			return ret ?: tail(out);
		}
		ret = json ? answer(out, j, ctype) : series_html(out, j);
		json_decref(j);
		return ret;
	}
	if (!strcmp(path, "/stats")) {
		ret = stats_json(&j, st);
		if (!ret)
			ret = json ? answer(out, j, ctype) :
				     stats_html(out, st, j);
		json_decref(j);
		return ret;
	}
	if (!strcmp(path, "/notes")) {
		ret = notes_json(&j, st);
		if (!ret)
			ret = json ? answer(out, j, ctype) : notes_html(out, j);
		json_decref(j);
		return ret;
	}
	if (!strcmp(path, "/metrics")) {
		*ctype = "text/plain; version=0.0.4; charset=utf-8";
		return page_metrics(out, st);
	}
	*status = MHD_HTTP_NOT_FOUND;
	*ctype = "text/plain; charset=utf-8";
	return rb_buf_puts(out, "not found\n");
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
	struct rb_buf b = RB_BUF_INIT(PAGE_MAX);
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
