// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics.c - the workers table (migration 3) behind /metrics. See
 * metrics.h. The text follows the Prometheus exposition format 0.0.4:
 * one # HELP and # TYPE line per family, then its samples; label values
 * escape backslash, double quote and newline.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/metrics.h"
#include "bot/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* Column names: fixed strings, never input. */
static const char *const columns[] = {
	[RB_METRIC_CLAIMED] = "claimed",
	[RB_METRIC_DONE] = "done",
	[RB_METRIC_FAILED] = "failed",
	[RB_METRIC_LEASE_EXPIRED] = "lease_expiries",
};

int rb_metrics_register(struct rb_store *st, const char *name, const char *role)
{
	char host[256] = "";
	int64_t now = rb_now();
	struct rb_dbv p[] = { RB_DB_TEXT(name), RB_DB_TEXT(role),
			      RB_DB_TEXT(host), RB_DB_INT((int64_t)getpid()),
			      RB_DB_INT(now),	RB_DB_INT(now) };

	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "unknown");
	return st->db->ops->exec(
		st->db,
		"INSERT INTO workers (name, role, host, pid, state,"
		" started_at, seen_at) VALUES (?, ?, ?, ?, 'idle', ?, ?)"
		" ON CONFLICT (name) DO UPDATE SET role = excluded.role,"
		" host = excluded.host, pid = excluded.pid, state = 'idle',"
		" started_at = excluded.started_at,"
		" seen_at = excluded.seen_at",
		p, 6);
}

int rb_metrics_state(struct rb_store *st, const char *name, const char *state)
{
	struct rb_dbv p[] = { RB_DB_TEXT(state), RB_DB_INT(rb_now()),
			      RB_DB_TEXT(name) };

	return st->db->ops->exec(st->db,
				 "UPDATE workers SET state = ?, seen_at = ?"
				 " WHERE name = ?",
				 p, 3);
}

int rb_metrics_count(struct rb_store *st, const char *name, enum rb_metric m)
{
	struct rb_buf sql = RB_BUF_INIT(512);
	struct rb_dbv p[] = { RB_DB_INT(rb_now()), RB_DB_TEXT(name) };
	int ret;

	if ((unsigned int)m >= sizeof(columns) / sizeof(columns[0]))
		return rb_err(RB_EINVAL, "metrics: unknown counter %d", m);
	ret = rb_buf_printf(&sql,
			    "UPDATE workers SET %s = %s + 1, seen_at = ?"
			    " WHERE name = ?",
			    columns[m], columns[m]);
	if (!ret)
		ret = st->db->ops->exec(st->db, sql.ptr, p, 2);
	rb_buf_release(&sql);
	return ret;
}

struct wrow {
	char *name, *role, *host, *state;
	int64_t n[4];
	int64_t seen_at;
};

struct wlist {
	struct wrow *v;
	size_t n, cap;
};

static char *dup_text(const struct rb_dbv *v)
{
	if (v->t == RB_DBT_NULL || !v->s)
		return strdup("");
	return strndup(v->s, v->len ? v->len : strlen(v->s));
}

static int worker_row(const struct rb_dbrow *row, void *payload)
{
	struct wlist *l = payload;
	struct wrow *w;
	size_t i;

	if (row->n < 9)
		return rb_err(RB_ESTORE, "metrics: short row");
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct wrow *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	w = &l->v[l->n];
	memset(w, 0, sizeof(*w));
	w->name = dup_text(&row->v[0]);
	w->role = dup_text(&row->v[1]);
	w->host = dup_text(&row->v[2]);
	w->state = dup_text(&row->v[3]);
	for (i = 0; i < 4; i++)
		w->n[i] = row->v[4 + i].i;
	w->seen_at = row->v[8].i;
	l->n++;
	if (!w->name || !w->role || !w->host || !w->state)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

static void wlist_release(struct wlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].role);
		free(l->v[i].host);
		free(l->v[i].state);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int label(struct rb_buf *b, const char *s)
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

static int labels(struct rb_buf *b, const struct wrow *w)
{
	int ret = rb_buf_puts(b, "{worker=\"");

	ret = ret ?: label(b, w->name);
	ret = ret ?: rb_buf_puts(b, "\",role=\"");
	ret = ret ?: label(b, w->role);
	ret = ret ?: rb_buf_puts(b, "\",host=\"");
	ret = ret ?: label(b, w->host);
	return ret ?: rb_buf_puts(b, "\"}");
}

static const struct {
	const char *name, *help;
} families[] = {
	{ "reviewbot_worker_jobs_claimed_total",
	  "Jobs this worker claimed from the queue." },
	{ "reviewbot_worker_jobs_done_total",
	  "Jobs this worker finished with a result." },
	{ "reviewbot_worker_jobs_failed_total",
	  "Jobs this worker ended as failed." },
	{ "reviewbot_worker_lease_expiries_total",
	  "Jobs of this worker that another claimed after its lease ran out." },
};

struct jcount {
	struct rb_buf *b;
	int err;
};

static int job_count_row(const struct rb_dbrow *row, void *payload)
{
	struct jcount *j = payload;
	int ret = rb_buf_puts(j->b, "reviewbot_jobs{kind=\"");

	ret = ret ?: label(j->b, row->v[0].s);
	ret = ret ?: rb_buf_puts(j->b, "\",state=\"");
	ret = ret ?: label(j->b, row->v[1].s);
	ret = ret ?: rb_buf_printf(j->b, "\"} %lld\n", (long long)row->v[2].i);
	return ret;
}

int rb_metrics_render(struct rb_buf *out, struct rb_store *st)
{
	struct wlist l = { 0 };
	struct jcount jc = { .b = out };
	int64_t now = rb_now();
	size_t f, i;
	int ret;

	ret = st->db->ops->query(st->db,
				 "SELECT name, role, host, state, claimed,"
				 " done, failed, lease_expiries, seen_at"
				 " FROM workers ORDER BY name",
				 NULL, 0, worker_row, &l);
	if (ret)
		goto out;
	for (f = 0; f < 4 && !ret; f++) {
		ret = rb_buf_printf(out, "# HELP %s %s\n# TYPE %s counter\n",
				    families[f].name, families[f].help,
				    families[f].name);
		for (i = 0; i < l.n && !ret; i++) {
			ret = rb_buf_puts(out, families[f].name);
			ret = ret ?: labels(out, &l.v[i]);
			ret = ret   ?:
				      rb_buf_printf(out, " %lld\n",
						    (long long)l.v[i].n[f]);
		}
	}
	ret = ret   ?:
		      rb_buf_puts(out,
				  "# HELP reviewbot_worker_up 1 when the worker"
				  " runs and was seen in the last 120 s.\n"
				  "# TYPE reviewbot_worker_up gauge\n");
	for (i = 0; i < l.n && !ret; i++) {
		bool up = strcmp(l.v[i].state, "stopped") &&
			  now - l.v[i].seen_at <= RB_METRICS_STALE_SECONDS;

		ret = rb_buf_puts(out, "reviewbot_worker_up");
		ret = ret ?: labels(out, &l.v[i]);
		ret = ret ?: rb_buf_printf(out, " %d\n", up ? 1 : 0);
	}
	ret = ret   ?:
		      rb_buf_puts(out,
				  "# HELP reviewbot_worker_busy 1 while the"
				  " worker runs a job.\n"
				  "# TYPE reviewbot_worker_busy gauge\n");
	for (i = 0; i < l.n && !ret; i++) {
		ret = rb_buf_puts(out, "reviewbot_worker_busy");
		ret = ret ?: labels(out, &l.v[i]);
		ret = ret   ?:
			      rb_buf_printf(out, " %d\n",
					    !strcmp(l.v[i].state, "busy"));
	}
	ret = ret   ?:
		      rb_buf_puts(out,
				  "# HELP reviewbot_jobs Jobs in the queue by"
				  " kind and state.\n"
				  "# TYPE reviewbot_jobs gauge\n");
	if (!ret)
		ret = st->db->ops->query(
			st->db,
			"SELECT kind, state, COUNT(*) FROM jobs"
			" GROUP BY kind, state"
			" ORDER BY kind, state",
			NULL, 0, job_count_row, &jc);
out:
	wlist_release(&l);
	return ret;
}
