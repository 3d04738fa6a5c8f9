// SPDX-License-Identifier: GPL-2.0-only
/*
 * page.c - the dashboard's templates (templates/web/, parsed once per
 * process) and the values its page models share. See pages.h.
 *
 * The models hold the store's text as it is (subjects, names, findings,
 * verdict reasons and mail bodies all come from hostile mail); the
 * templates are ".html", so util/tmpl escapes every value they print and
 * refuses a tag that would not.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "bot/web/pages.h"
#include "bot/store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/tmpl.h"
#include "util/banned.h"

#ifndef RB_TEMPLATES_DIR
#define RB_TEMPLATES_DIR "templates"
#endif

/* Every page's template, parsed at the first page. */
static const char *const page_files[] = {
	"head.html",  "tail.html",  "list.html",    "series.html",
	"notes.html", "stats.html", "missing.html",
};

static struct {
	pthread_once_t once;
	struct rb_tmpl *t[RB_WEB_ARRAY_SIZE(page_files)];
	int ret;
	char err[512];
} pages = { .once = PTHREAD_ONCE_INIT };

static int load_one(size_t i)
{
	struct rb_buf path = RB_BUF_INIT(4096);
	struct rb_buf text = RB_BUF_INIT(1u << 20);
	int ret;

	ret = rb_buf_printf(&path, "%s/web/%s", RB_TEMPLATES_DIR,
			    page_files[i]);
	ret = ret ?: rb_read_file(&text, path.ptr);
	ret = ret   ?:
		      rb_tmpl_parse(&pages.t[i], path.ptr,
				    text.ptr ? text.ptr : "", text.len);
	rb_buf_release(&path);
	rb_buf_release(&text);
	return ret;
}

static void load_pages(void)
{
	size_t i;

	for (i = 0; i < RB_WEB_ARRAY_SIZE(page_files) && !pages.ret; i++)
		pages.ret = load_one(i);
	if (pages.ret)
		snprintf(pages.err, sizeof(pages.err), "%s", rb_errmsg());
}

static const struct rb_tmpl *page_tmpl(const char *file)
{
	size_t i;

	for (i = 0; i < RB_WEB_ARRAY_SIZE(page_files); i++)
		if (!strcmp(page_files[i], file))
			return pages.t[i];
	return NULL;
}

int rb_web_page(struct rb_buf *out, const char *file, const char *title,
		const json_t *model)
{
	const struct rb_tmpl *body;
	json_t *h;
	int ret;

	pthread_once(&pages.once, load_pages);
	if (pages.ret)
		return rb_err(-pages.ret, "dashboard templates: %s", pages.err);
	body = page_tmpl(file);
	if (!body)
		return rb_err(RB_EINVAL, "no page template '%s'", file);
	h = json_pack("{ss}", "title", title);
	if (!h)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = rb_tmpl_render(out, page_tmpl("head.html"), h);
	ret = ret ?: rb_tmpl_render(out, body, model);
	ret = ret ?: rb_tmpl_render(out, page_tmpl("tail.html"), h);
	json_decref(h);
	return ret;
}

void rb_web_prefix(json_t *o, const char *key, size_t n, const char *as)
{
	const char *s = rb_web_js(o, key);
	char buf[64];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	snprintf(buf, n + 1, "%s", s ? s : "");
	rb_web_set(o, as, rb_web_str(buf));
}

/* For an href query value: everything but RFC 3986 unreserved is %XX. */
int rb_web_url_escape(struct rb_buf *out, const char *s)
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

void rb_web_day(char *buf, size_t n, int64_t day)
{
	time_t tt = (time_t)(day * 86400);
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		snprintf(buf, n, "-");
	else
		strftime(buf, n, "%Y-%m-%d", &tm);
}

/* --- values as the pages and their JSON show them --- */

/*
 * A JSON string of mail-derived text: jansson takes only UTF-8, and mail
 * is not always that, so a byte that does not decode becomes '?'. NULL
 * becomes null.
 */
json_t *rb_web_str(const char *s)
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

void rb_web_set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

const char *rb_web_js(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

long long rb_web_ji(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

json_t *rb_web_time(int64_t t)
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
json_t *rb_web_thread_link(const char *base, const char *msgid)
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
	ret = ret ?: rb_web_url_escape(&u, id.ptr ? id.ptr : "");
	if (!ret && u.ptr) {
		json_decref(j);
		j = rb_web_str(u.ptr);
	}
	rb_buf_release(&id);
	rb_buf_release(&u);
	return j;
}

/* The dashboard's own link to series @id. */
json_t *rb_web_series_link(const char *id)
{
	struct rb_buf u = RB_BUF_INIT(1 << 17);
	json_t *j = json_null();

	if (id && !rb_buf_puts(&u, "/series?id=") &&
	    !rb_web_url_escape(&u, id)) {
		json_decref(j);
		j = rb_web_str(u.ptr);
	}
	rb_buf_release(&u);
	return j;
}

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
json_t *rb_web_series_obj(const struct rb_report_series *s, const char *inbox)
{
	json_t *o = json_object();

	rb_web_set(o, "id", rb_web_str(s->id));
	rb_web_set(o, "title", rb_web_str(s->title));
	rb_web_set(o, "version", json_integer(s->version));
	rb_web_set(o, "author", rb_web_str(s->author));
	rb_web_set(o, "state", rb_web_str(s->state));
	rb_web_set(o, "status", rb_web_str(status_of(s->state, s->sent)));
	rb_web_set(o, "base", rb_web_str(s->base_name));
	rb_web_set(o, "base_commit", rb_web_str(s->base_commit));
	rb_web_set(o, "section", rb_web_str(s->subsystem));
	rb_web_set(o, "mode", rb_web_str(s->mode));
	rb_web_set(o, "mails_sent", json_integer(s->sent));
	rb_web_set(o, "date", rb_web_time(s->date));
	rb_web_set(o, "date_unix", json_integer(s->date));
	rb_web_set(o, "url", rb_web_series_link(s->id));
	rb_web_set(o, "thread", rb_web_thread_link(inbox, s->id));
	return o;
}
