// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_list.c - "/": the series, newest first, 50 a page, searched and
 * filtered (pages.h). The model is the page's JSON; the view adds what
 * templates/web/list.html cannot compute: the filters' choices, the
 * pager's links and each row's day.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "bot/web/pages.h"
#include "bot/store/store.h"
#include "mail/mode.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* The page's own URL with @page, the filters kept. */
static int list_url(struct rb_buf *b, const struct rb_web_list_args *a,
		    long long page)
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

	for (i = 0; i < RB_WEB_ARRAY_SIZE(kv) && !ret; i++) {
		if (!kv[i].v || !*kv[i].v)
			continue;
		ret = rb_buf_printf(b, "&%s=", kv[i].k);
		ret = ret ?: rb_web_url_escape(b, kv[i].v);
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
	json_t *o = rb_web_series_obj(s, c->inbox);

	rb_web_set(o, "findings", json_integer(s->findings));
	json_array_append_new(c->rows, o);
	return 0;
}

static int count_into(const char *key, int64_t n, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "name", rb_web_str(key));
	rb_web_set(o, "series", json_integer(n));
	json_array_append_new(payload, o);
	return 0;
}

int rb_web_list_json(json_t **out, struct rb_store *st,
		     const struct rb_web_list_args *a, const char *inbox)
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
	rb_web_set(filt, "q", rb_web_str(a->q && *a->q ? a->q : NULL));
	rb_web_set(filt, "section",
		   rb_web_str(a->section && *a->section ? a->section : NULL));
	rb_web_set(filt, "state",
		   rb_web_str(a->state && *a->state ? a->state : NULL));
	rb_web_set(filt, "mode",
		   rb_web_str(a->mode && *a->mode ? a->mode : NULL));
	rb_web_set(filt, "has_findings", json_boolean(f.has_findings));
	rb_web_set(j, "filter", filt);
	rb_web_set(j, "page", json_integer(page));
	rb_web_set(j, "pages", json_integer(pages));
	rb_web_set(j, "per_page", json_integer(PER_PAGE));
	rb_web_set(j, "total", json_integer(total));
	rb_web_set(j, "series", c.rows);
	rb_web_set(j, "sections", sections);
	rb_web_set(j, "states", states);
	if (ret) {
		json_decref(j);
		return ret;
	}
	*out = j;
	return 0;
}

/* One <option>: @n < 0 shows no count. */
static json_t *option(const char *value, long long n, const char *cur)
{
	json_t *o = json_object();

	rb_web_set(o, "value", rb_web_str(value));
	rb_web_set(o, "count", json_integer(n));
	rb_web_set(o, "has_count", json_boolean(n >= 0));
	rb_web_set(o, "selected", json_boolean(cur && !strcmp(cur, value)));
	return o;
}

/* A filter's <select>: the store's @choices with their counts, or
 * @fixed. */
static json_t *select_of(const char *name, const json_t *choices,
			 const char *const *fixed, const char *cur)
{
	json_t *o = json_object(), *opts = json_array(), *v;
	size_t i;

	json_array_foreach(choices, i, v)
	{
		const char *k = rb_web_js(v, "name");

		if (k && *k)
			json_array_append_new(
				opts, option(k, rb_web_ji(v, "series"), cur));
	}
	for (i = 0; fixed && fixed[i]; i++)
		json_array_append_new(opts, option(fixed[i], -1, cur));
	rb_web_set(o, "name", json_string(name));
	rb_web_set(o, "title", json_string(name));
	rb_web_set(o, "options", opts);
	return o;
}

/* The pager's link to @page, or null. */
static json_t *pager_link(const struct rb_web_list_args *a, long long page)
{
	struct rb_buf u = RB_BUF_INIT(1 << 16);
	json_t *j = NULL;

	if (!list_url(&u, a, page))
		j = rb_web_str(u.ptr);
	rb_buf_release(&u);
	return j;
}

int rb_web_list_html(struct rb_buf *out, json_t *j,
		     const struct rb_web_list_args *a)
{
	json_t *f = json_object_get(j, "filter"), *sel = json_array(), *s;
	long long page = rb_web_ji(j, "page"), pages = rb_web_ji(j, "pages");
	size_t i;

	json_array_append_new(sel, select_of("section",
					     json_object_get(j, "sections"),
					     NULL, rb_web_js(f, "section")));
	json_array_append_new(sel,
			      select_of("state", json_object_get(j, "states"),
					NULL, rb_web_js(f, "state")));
	json_array_append_new(sel, select_of("mode", NULL, rb_mode_names,
					     rb_web_js(f, "mode")));
	rb_web_set(j, "selects", sel);
	rb_web_set(j, "newer", page > 1 ? pager_link(a, page - 1) : NULL);
	rb_web_set(j, "older", page < pages ? pager_link(a, page + 1) : NULL);
	json_array_foreach(json_object_get(j, "series"), i, s)
	{
		/* The day is enough in the list. */
		rb_web_prefix(s, "date", 10, "day");
		if (!*rb_web_js(s, "day"))
			rb_web_set(s, "day", json_string("-"));
		rb_web_prefix(s, "base_commit", 12, "commit12");
	}
	return rb_web_page(out, "list.html", "series", j);
}
