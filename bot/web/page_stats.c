// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_stats.c - /stats: precision per finding and per review, by rule,
 * section, checker and model; the time from receipt to sending; three
 * charts (precision over time, mails by the day their series arrived,
 * the latency histogram). See pages.h. The model is rb_stats_collect()'s
 * JSON with what this page adds; the view computes the figures' text and
 * the charts' geometry, which templates/web/stats.html draws as SVG
 * (560 x 220, the plot from x 40 to 550 and y 10 to 190).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "bot/web/pages.h"
#include "bot/web/stats.h"
#include "bot/store/store.h"
#include "review/checks/rules.h"
#include "util/buf.h"
#include "util/dur.h"
#include "util/err.h"
#include "util/banned.h"

/* The chart's size and its plot's margins (stats.html has them too). */
#define W 560
#define H 220
#define PADL 40
#define PADB 30

const int64_t rb_web_lat_edges[5] = { 60, 600, 3600, 6 * 3600, 86400 };

/* A duration in a table cell: short unit names, tenths from hours on. */
static const struct rb_dur_unit cell_units[] = {
	{ 90, 1, 0, "s" },
	{ 90 * 60, 60, 0, "min" },
	{ 48 * 3600, 3600, 1, "h" },
	{ 2 * 365 * 86400.0, 86400, 1, "days" },
	{ 0, 365.25 * 86400, 1, "years" },
};

/* --- the model --- */

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

	rb_web_set(o, "raised", json_integer(p->raised));
	rb_web_set(o, "judged", json_integer(p->judged));
	rb_web_set(o, "valid", json_integer(p->valid));
	rb_web_set(o, "precision",
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
			rb_web_set(o, "labelled_precision",
				   json_real(d[i].precision / 100.0));
			rb_web_set(o, "labelled", json_integer(d[i].labelled));
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
int rb_web_stats_json(json_t **out, struct rb_store *st)
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
	rb_web_set(j, "by_rule", o);
	ret = ret ?: rb_store_report_send_latencies(st, i64_push, &lat);
	if (!ret)
		qsort(lat.v, lat.n, sizeof(*lat.v), i64_cmp);
	o = json_object();
	rb_web_set(o, "from", json_string("receipt"));
	rb_web_set(o, "to", json_string("sent"));
	rb_web_set(o, "count", json_integer((json_int_t)lat.n));
	rb_web_set(o, "median_s",
		   lat.n ? json_integer(percentile(lat.v, lat.n, 50)) :
			   json_null());
	rb_web_set(o, "p95_s",
		   lat.n ? json_integer(percentile(lat.v, lat.n, 95)) :
			   json_null());
	rb_web_set(o, "max_s",
		   lat.n ? json_integer(lat.v[lat.n - 1]) : json_null());
	arr = json_array();
	for (i = 0; i < lat.n; i++)
		json_array_append_new(arr, json_integer(lat.v[i]));
	rb_web_set(o, "seconds", arr);
	rb_web_set(j, "send_latency", o);
	ret = ret ?: rb_store_report_mails_by_series_day(st, day_push, &d);
	arr = json_array();
	for (i = 0; i < d.len; i++) {
		char day[32];

		o = json_object();
		rb_web_day(day, sizeof(day), d.day[i]);
		rb_web_set(o, "day", json_string(day));
		rb_web_set(o, "epoch_day", json_integer(d.day[i]));
		rb_web_set(o, "mails", json_integer(d.n[i]));
		json_array_append_new(arr, o);
	}
	rb_web_set(j, "mails_by_series_day", arr);
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

/* --- the view --- */

/* @v with @prec decimals. */
static json_t *strf(int prec, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	return json_string(buf);
}

/* A figure: a number with two decimals, or a duration. */
static json_t *fig(const char *id, const char *text, const json_t *v,
		   bool duration)
{
	json_t *o = json_object();
	char d[32] = "-";

	if (json_is_number(v) && duration)
		rb_dur_format(d, sizeof(d), json_number_value(v), cell_units);
	else if (json_is_number(v))
		snprintf(d, sizeof(d), "%.2f", json_number_value(v));
	rb_web_set(o, "id", json_string(id));
	rb_web_set(o, "text", json_string(text));
	rb_web_set(o, "value", json_string(d));
	return o;
}

static json_t *figs(json_t *j)
{
	json_t *sl = json_object_get(j, "send_latency"), *b = json_array();

#define GET2(a, k) json_object_get(json_object_get(j, a), k)
	json_array_append_new(b, fig("precision-review", "precision per review",
				     GET2("reviews", "precision"), false));
	json_array_append_new(b, fig("words-per-review", "words per review",
				     GET2("review_mails", "words_per_review"),
				     false));
	json_array_append_new(b, fig("latency-median",
				     "median time from receipt to sending",
				     json_object_get(sl, "median_s"), true));
	json_array_append_new(b, fig("latency-p95",
				     "95th percentile from receipt to sending",
				     json_object_get(sl, "p95_s"), true));
	json_array_append_new(b, fig("apply-failure-rate", "apply-failure rate",
				     GET2("apply_failures", "rate"), false));
#undef GET2
	return b;
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
 * The table of one group. Rules also show the precision the benchmark
 * measured on labelled real findings ("labelled", review/checks/rules.c),
 * beside what the verdicts here say.
 */
static json_t *prec_table(const char *title, json_t *o, bool labelled)
{
	json_t *t = json_object(), *rows = json_array(), *v;
	const char *k;

	json_object_foreach(o, k, v)
	{
		json_t *r = json_object(), *p = json_object_get(v, "precision");
		json_t *lp = json_object_get(v, "labelled_precision");
		char buf[64] = "-";

		rb_web_set(r, "name", rb_web_str(*k ? k : "(none)"));
		rb_web_set(r, "raised", json_integer(rb_web_ji(v, "raised")));
		rb_web_set(r, "judged", json_integer(rb_web_ji(v, "judged")));
		rb_web_set(r, "valid", json_integer(rb_web_ji(v, "valid")));
		rb_web_set(r, "precision",
			   json_is_number(p) ? strf(2, json_number_value(p)) :
					       json_string("-"));
		if (json_is_number(lp))
			snprintf(buf, sizeof(buf), "%.2f (%lld)",
				 json_number_value(lp),
				 rb_web_ji(v, "labelled"));
		rb_web_set(r, "labelled_text", json_string(buf));
		json_array_append_new(rows, r);
	}
	rb_web_set(t, "title", json_string(title));
	rb_web_set(t, "with_labelled", json_boolean(labelled));
	rb_web_set(t, "rows", rows);
	return t;
}

/*
 * Precision over time per section: cumulative valid / judged at each day
 * a verdict was given, a line each.
 */
struct ptime {
	char sub[128];
	int64_t day0, day1;
	int64_t valid, judged;
	json_t *lines, *line; /* the current section's */
	struct rb_buf pts; /* its polyline, "x,y " a point */
	int ret;
};

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c",
				      "#9467bd", "#ff7f0e", "#8c564b" };

static void ptime_flush(struct ptime *t)
{
	size_t n = json_array_size(t->lines);

	if (!t->line)
		return;
	rb_web_set(t->line, "name", rb_web_str(*t->sub ? t->sub : "(none)"));
	rb_web_set(t->line, "ly", json_integer(14 + 13 * (json_int_t)n));
	rb_web_set(t->line, "pts", json_string(t->pts.ptr ? t->pts.ptr : ""));
	json_array_append_new(t->lines, t->line);
	t->line = NULL;
	rb_buf_reset(&t->pts);
}

static int ptime_row(const char *subsystem, int64_t day, int64_t judged,
		     int64_t valid, void *payload)
{
	struct ptime *t = payload;
	const char *sub = subsystem ? subsystem : "";
	json_t *pt = json_object();
	double x, y, span;

	if (!t->line || strncmp(sub, t->sub, sizeof(t->sub) - 1)) {
		ptime_flush(t);
		snprintf(t->sub, sizeof(t->sub), "%s", sub);
		t->valid = t->judged = 0;
		t->line = json_pack("{ss,s[]}", "color",
				    colors[json_array_size(t->lines) % 6],
				    "points");
	}
	t->judged += judged;
	t->valid += valid;
	span = t->day1 > t->day0 ? (double)(t->day1 - t->day0) : 1;
	x = PADL + (double)(day - t->day0) / span * (W - PADL - 10);
	if (t->day1 == t->day0)
		x = PADL + (W - PADL - 10) / 2.0;
	y = (H - PADB) - (double)t->valid / (double)t->judged * (H - PADB - 10);
	t->ret = t->ret ?: rb_buf_printf(&t->pts, "%.1f,%.1f ", x, y);
	rb_web_set(pt, "x", strf(1, x));
	rb_web_set(pt, "y", strf(1, y));
	rb_web_set(pt, "p", strf(2, (double)t->valid / (double)t->judged));
	json_array_append_new(json_object_get(t->line, "points"), pt);
	return t->ret;
}

static int chart_precision(json_t **out, struct rb_store *st)
{
	struct ptime t = { .lines = json_array() };
	json_t *c = json_object();
	char d0[24], d1[24], reading[256];
	int ret;

	rb_buf_init(&t.pts, 1 << 20);
	ret = rb_store_report_verdict_days(st, &t.day0, &t.day1);
	ret = ret ?: rb_store_report_precision_days(st, ptime_row, &t);
	ptime_flush(&t);
	rb_buf_release(&t.pts);
	rb_web_day(d0, sizeof(d0), t.day0);
	rb_web_day(d1, sizeof(d1), t.day1);
	if (json_array_size(t.lines))
		snprintf(reading, sizeof(reading),
			 "Each line is a section's precision (valid / judged"
			 " findings, 0 to 1), counted up to each day a verdict"
			 " was given, from %s to %s.",
			 d0, d1);
	else
		snprintf(reading, sizeof(reading),
			 "No verdicts yet: precision shows once people judge"
			 " findings.");
	rb_web_set(c, "lines", t.lines);
	rb_web_set(c, "reading", json_string(reading));
	*out = c;
	return ret;
}

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

static json_t *bar_chart(const struct chart *c)
{
	json_t *o = json_object(), *bars = json_array();
	int64_t max = 1;
	double bw;
	size_t i, every;

	for (i = 0; i < c->n; i++)
		if (c->y[i] > max)
			max = c->y[i];
	bw = c->n ? (double)(W - PADL - 10) / (double)c->n : 0;
	/* Labels at least 60 px apart. */
	every = bw > 0 ? (size_t)(60 / bw) + 1 : 1;
	for (i = 0; i < c->n; i++) {
		double h = (double)c->y[i] / (double)max * (H - PADB - 20);
		double x = PADL + bw * (double)i + 1;
		json_t *b = json_object();

		rb_web_set(b, "x", strf(1, x));
		rb_web_set(b, "y", strf(1, (H - PADB) - h));
		rb_web_set(b, "w", strf(1, bw > 3 ? bw - 2 : 1));
		rb_web_set(b, "h", strf(1, h));
		rb_web_set(b, "label", rb_web_str(c->labels[i]));
		rb_web_set(b, "n", json_integer(c->y[i]));
		rb_web_set(b, "show", json_boolean(i % every == 0));
		json_array_append_new(bars, b);
	}
	rb_web_set(o, "id", json_string(c->id));
	rb_web_set(o, "title", rb_web_str(c->title));
	rb_web_set(o, "yunit", json_string(c->yunit));
	rb_web_set(o, "xunit", json_string(c->xunit));
	rb_web_set(o, "max", json_integer(max));
	rb_web_set(o, "half", json_integer(max / 2));
	rb_web_set(o, "reading", rb_web_str(c->reading));
	rb_web_set(o, "bars", bars);
	return o;
}

/* Bucket widths in days for the mails chart: at most 60 bars. */
static const struct {
	int64_t days;
	const char *unit;
} widths[] = {
	{ 1, "day" },	   { 7, "week" },   { 30, "30 days" },
	{ 91, "quarter" }, { 365, "year" }, { 3650, "decade" },
};

static json_t *chart_mails(json_t *days)
{
	int64_t first, last, span, w = 1, y[64] = { 0 }, total = 0;
	char labels[64][24], reading[2048], d0[24], d1[24], title[96];
	const char *unit = "day";
	size_t i, k, n = json_array_size(days), best = 0;
	json_t *v;
	struct chart c = { .id = "chart-reviews-per-day",
			   .y = y,
			   .labels = labels,
			   .yunit = "mails",
			   .reading = reading };

	if (!n) {
		c.title = "Mails by the day their series arrived";
		c.xunit = "day";
		snprintf(reading, sizeof(reading), "No mails written yet.");
		return bar_chart(&c);
	}
	first = rb_web_ji(json_array_get(days, 0), "epoch_day");
	last = rb_web_ji(json_array_get(days, n - 1), "epoch_day");
	span = last - first + 1;
	for (k = 0; k < RB_WEB_ARRAY_SIZE(widths); k++) {
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
		size_t at = (size_t)((rb_web_ji(v, "epoch_day") - first) / w);

		if (at >= c.n)
			at = c.n - 1;
		y[at] += rb_web_ji(v, "mails");
		total += rb_web_ji(v, "mails");
	}
	for (i = 0; i < c.n; i++) {
		rb_web_day(labels[i], sizeof(labels[i]),
			   first + (int64_t)i * w);
		if (y[i] > y[best])
			best = i;
	}
	rb_web_day(d0, sizeof(d0), first);
	rb_web_day(d1, sizeof(d1), last);
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
	return bar_chart(&c);
}

static const char *const lat_labels[] = { "<1 min", "<10 min", "<1 h",
					  "<6 h",   "<1 day",  ">=1 day" };

static json_t *chart_latency(json_t *sl)
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

		for (k = 0; k < 5 && s >= rb_web_lat_edges[k]; k++)
			;
		y[k]++;
	}
	if (!rb_web_ji(sl, "count")) {
		snprintf(reading, sizeof(reading), "No mail sent yet.");
	} else {
		rb_dur_format(med, sizeof(med),
			      (double)rb_web_ji(sl, "median_s"), cell_units);
		rb_dur_format(p95, sizeof(p95), (double)rb_web_ji(sl, "p95_s"),
			      cell_units);
		snprintf(reading, sizeof(reading),
			 "Half of the %lld mails sent left within %s of "
			 "receiving the series' last part, 95%% within %s.",
			 rb_web_ji(sl, "count"), med, p95);
	}
	return bar_chart(&c);
}

int rb_web_stats_html(struct rb_buf *out, struct rb_store *st, json_t *j)
{
	json_t *fi = json_object_get(j, "findings"), *tables = json_array();
	json_t *charts = json_array(), *prec = NULL, *a = json_array();
	size_t i;
	int ret;

	json_array_append_new(a, fig("precision-finding",
				     "precision per finding (valid / judged)",
				     json_object_get(fi, "precision"), false));
	rb_web_set(j, "figs_a", a);
	rb_web_set(j, "figs_b", figs(j));
	for (i = 0; i < RB_WEB_ARRAY_SIZE(stat_groups); i++) {
		json_t *o = json_object_get(j, stat_groups[i].key);

		if (json_object_size(o))
			json_array_append_new(
				tables, prec_table(stat_groups[i].title, o,
						   !strcmp(stat_groups[i].key,
							   "by_rule")));
	}
	rb_web_set(j, "tables", tables);
	ret = chart_precision(&prec, st);
	rb_web_set(j, "precision_chart", prec);
	json_array_append_new(
		charts, chart_mails(json_object_get(j, "mails_by_series_day")));
	json_array_append_new(
		charts, chart_latency(json_object_get(j, "send_latency")));
	rb_web_set(j, "bar_charts", charts);
	return ret ?: rb_web_page(out, "stats.html", "stats", j);
}
