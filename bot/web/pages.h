/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pages.h - the dashboard's pages, inside bot/web/: each page is a JSON
 * model built from store queries (what ?format=json answers) and a
 * template of templates/web/ rendered from it by util/tmpl, whose pages
 * HTML-escape every value (tmpl.h). http.c only routes to them.
 *
 *   page.c         the templates, loaded and parsed once; the values the
 *                  models share (mail text as JSON, times, links)
 *   page_list.c    "/": the series, 50 a page, with the filters
 *   page_series.c  /series?id= and /notes
 *   page_stats.c   /stats: the figures, the precision tables, the charts
 *   metrics.c      /metrics from the same figures (rb_web_metrics())
 */
#ifndef RB_BOT_WEB_PAGES_H
#define RB_BOT_WEB_PAGES_H

#include <stdint.h>
#include <stddef.h>
#include <jansson.h>

struct rb_buf;
struct rb_store;
struct rb_report_series;

/* A page's whole answer, and a stored mail's bytes, at most this. */
#define RB_WEB_PAGE_MAX (16u << 20)
#define RB_WEB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Appends the page @file of templates/web/ rendered against @model under
 * the head (titled @title) and the tail every page shares.
 */
int rb_web_page(struct rb_buf *out, const char *file, const char *title,
		const json_t *model);

/* Mail-derived text as a JSON string: bytes that are not UTF-8 become
 * '?'; NULL becomes null. */
json_t *rb_web_str(const char *s);
/* json_object_set_new(), NULL as null. */
void rb_web_set(json_t *o, const char *k, json_t *v);
const char *rb_web_js(const json_t *o, const char *k);
long long rb_web_ji(const json_t *o, const char *k);
/* "YYYY-MM-DD HH:MM UTC", or null for 0. */
json_t *rb_web_time(int64_t t);
/* "YYYY-MM-DD" of a day since the epoch into @buf. */
void rb_web_day(char *buf, size_t n, int64_t day);
/* A copy of @key's string cut to @n bytes as @as ("" when none). */
void rb_web_prefix(json_t *o, const char *key, size_t n, const char *as);
/* For an href query value: all but RFC 3986 unreserved is %XX. */
int rb_web_url_escape(struct rb_buf *out, const char *s);
/* The thread of @msgid on the public-inbox @base (null without one). */
json_t *rb_web_thread_link(const char *base, const char *msgid);
/* The dashboard's own link to series @id. */
json_t *rb_web_series_link(const char *id);
/* The fields the list and the series page share. */
json_t *rb_web_series_obj(const struct rb_report_series *s, const char *inbox);

/* Query values of the list, as given (NULL: absent). */
struct rb_web_list_args {
	const char *q, *section, *state, *mode, *findings, *page;
};
int rb_web_list_json(json_t **out, struct rb_store *st,
		     const struct rb_web_list_args *a, const char *inbox);
/* Adds the view's fields to @j (rb_web_list_json()'s) and renders it. */
int rb_web_list_html(struct rb_buf *out, json_t *j,
		     const struct rb_web_list_args *a);

/* Series @id as JSON; *out NULL when there is no such series. */
int rb_web_series_json(json_t **out, struct rb_store *st, const char *id,
		       const char *inbox);
int rb_web_series_html(struct rb_buf *out, json_t *j);
int rb_web_notes_json(json_t **out, struct rb_store *st);

int rb_web_stats_json(json_t **out, struct rb_store *st);
int rb_web_stats_html(struct rb_buf *out, struct rb_store *st, json_t *j);

/* /metrics: the Prometheus text format 0.0.4 (metrics.c). */
int rb_web_metrics(struct rb_buf *out, struct rb_store *st);

/* The latency buckets of /stats' chart and /metrics' histogram. */
extern const int64_t rb_web_lat_edges[5];

#endif
