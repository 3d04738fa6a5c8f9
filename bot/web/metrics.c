// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics.c - the workers' counters (kept in the store's workers table,
 * bot/store/store_jobs.h) and the dashboard's figures (stats.c) as
 * /metrics shows them. See metrics.h and pages.h. The text follows the Prometheus exposition format 0.0.4:
 * one # HELP and # TYPE line per family, then its samples; label values
 * escape backslash, double quote and newline.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bot/web/metrics.h"
#include "bot/web/pages.h"
#include "bot/web/stats.h"
#include "bot/store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

int rb_metrics_register(struct rb_store *st, const char *name, const char *role)
{
	char host[256] = "";
	struct rb_worker w = { .name = name,
			       .role = role,
			       .host = host,
			       .pid = (int64_t)getpid() };

	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "unknown");
	return rb_store_worker_register(st, &w);
}

int rb_metrics_state(struct rb_store *st, const char *name, const char *state)
{
	return rb_store_worker_state(st, name, state);
}

int rb_metrics_count(struct rb_store *st, const char *name, enum rb_metric m)
{
	return rb_store_worker_count(st, name, m);
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

static char *dup_text(const char *s)
{
	return strdup(s ? s : "");
}

static int worker_row(const struct rb_report_worker *rw, void *payload)
{
	struct wlist *l = payload;
	struct wrow *w;

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
	w->name = dup_text(rw->name);
	w->role = dup_text(rw->role);
	w->host = dup_text(rw->host);
	w->state = dup_text(rw->state);
	w->n[RB_METRIC_CLAIMED] = rw->claimed;
	w->n[RB_METRIC_DONE] = rw->done;
	w->n[RB_METRIC_FAILED] = rw->failed;
	w->n[RB_METRIC_LEASE_EXPIRED] = rw->lease_expiries;
	w->seen_at = rw->seen_at;
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

int rb_prom_label(struct rb_buf *b, const char *s)
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

	ret = ret ?: rb_prom_label(b, w->name);
	ret = ret ?: rb_buf_puts(b, "\",role=\"");
	ret = ret ?: rb_prom_label(b, w->role);
	ret = ret ?: rb_buf_puts(b, "\",host=\"");
	ret = ret ?: rb_prom_label(b, w->host);
	return ret ?: rb_buf_puts(b, "\"}");
}

/* One sample of family @name for worker @w. */
static int sample(struct rb_buf *b, const char *name, const struct wrow *w,
		  int64_t v)
{
	int ret = rb_buf_puts(b, name);

	ret = ret ?: labels(b, w);
	return ret ?: rb_buf_printf(b, " %lld\n", (long long)v);
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

static int job_count_row(const char *kind, const char *state, int64_t n,
			 void *payload)
{
	struct rb_buf *b = payload;
	int ret = rb_buf_puts(b, "reviewbot_jobs{kind=\"");

	ret = ret ?: rb_prom_label(b, kind);
	ret = ret ?: rb_buf_puts(b, "\",state=\"");
	ret = ret ?: rb_prom_label(b, state);
	ret = ret ?: rb_buf_printf(b, "\"} %lld\n", (long long)n);
	return ret;
}

int rb_metrics_render(struct rb_buf *out, struct rb_store *st)
{
	struct wlist l = { 0 };
	int64_t now = rb_now();
	size_t f, i;
	int ret;

	ret = rb_store_report_workers(st, worker_row, &l);
	if (ret)
		goto out;
	for (f = 0; f < 4 && !ret; f++) {
		ret = rb_buf_printf(out, "# HELP %s %s\n# TYPE %s counter\n",
				    families[f].name, families[f].help,
				    families[f].name);
		for (i = 0; i < l.n && !ret; i++)
			ret = sample(out, families[f].name, &l.v[i],
				     l.v[i].n[f]);
	}
	ret = ret   ?:
		      rb_buf_puts(out,
				  "# HELP reviewbot_worker_up 1 when the worker"
				  " runs and was seen in the last 120 s.\n"
				  "# TYPE reviewbot_worker_up gauge\n");
	for (i = 0; i < l.n && !ret; i++) {
		bool up = strcmp(l.v[i].state, "stopped") &&
			  now - l.v[i].seen_at <= RB_METRICS_STALE_SECONDS;

		ret = sample(out, "reviewbot_worker_up", &l.v[i], up ? 1 : 0);
	}
	ret = ret   ?:
		      rb_buf_puts(out,
				  "# HELP reviewbot_worker_busy 1 while the"
				  " worker runs a job.\n"
				  "# TYPE reviewbot_worker_busy gauge\n");
	for (i = 0; i < l.n && !ret; i++)
		ret = sample(out, "reviewbot_worker_busy", &l.v[i],
			     !strcmp(l.v[i].state, "busy"));
	ret = ret   ?:
		      rb_buf_puts(out,
				  "# HELP reviewbot_jobs Jobs in the queue by"
				  " kind and state.\n"
				  "# TYPE reviewbot_jobs gauge\n");
	if (!ret)
		ret = rb_store_report_jobs(st, job_count_row, out);
out:
	wlist_release(&l);
	return ret;
}

/* --- /metrics: the figures of /stats, and the workers' --- */

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

/* The precision by group /metrics shows. */
static const struct {
	const char *title, *key;
} groups[] = {
	{ "subsystem", "by_subsystem" },
	{ "checker", "by_checker" },
	{ "category", "by_category" },
};

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

int rb_web_metrics(struct rb_buf *b, struct rb_store *st)
{
	json_t *j = NULL, *v;
	int64_t buckets[5] = { 0 }, sum = 0, n = 0;
	size_t i, k;
	int ret;

	ret = rb_stats_collect(st, &j);
	if (ret)
		return ret;
	for (i = 0; i < RB_WEB_ARRAY_SIZE(prom_counts_of) && !ret; i++)
		ret = prom_counts(b, prom_counts_of[i].name,
				  prom_counts_of[i].text, prom_counts_of[i].obj,
				  json_object_get(j, prom_counts_of[i].key));
	for (i = 0; i < RB_WEB_ARRAY_SIZE(prom_figures) && !ret; i++)
		ret = prom_num(b, j, &prom_figures[i]);
	/* Each worker's claimed, done, failed and lease expiries. */
	ret = ret ?: rb_metrics_render(b, st);
	ret = ret   ?:
		      rb_buf_puts(b, "# HELP reviewbot_precision Valid / judged"
				     " findings by group.\n"
				     "# TYPE reviewbot_precision gauge\n");
	for (i = 0; i < RB_WEB_ARRAY_SIZE(groups) && !ret; i++)
		ret = prom_prec(b, groups[i].title,
				json_object_get(j, groups[i].key));
	json_array_foreach(json_object_get(j, "latencies_s"), i, v)
	{
		int64_t s = json_integer_value(v);

		for (k = 0; k < 5; k++)
			if (s <= rb_web_lat_edges[k])
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
				    (long long)rb_web_lat_edges[k],
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
