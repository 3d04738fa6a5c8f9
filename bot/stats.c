// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - the figures of `reviewbot stats`, computed in SQL from the
 * store. A finding's verdict is the latest authorised one given for it
 * (by its review's Message-ID and its Fn); "valid" and "fixed" both count
 * as valid, "false_positive" as not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/stats.h"
#include "bot/store.h"
#include "util/err.h"
#include "util/banned.h"

/* Each finding with its verdict (NULL when nobody judged it). */
#define JUDGED                                                                \
	"(SELECT f.*, r.subsystem AS rsub, (SELECT v.verdict FROM verdicts v" \
	" WHERE v.review_msgid = f.review_msgid AND v.fid = f.fid AND"        \
	" v.authorised = 1 ORDER BY v.created_at DESC, v.id DESC LIMIT 1)"    \
	" AS verdict FROM findings f LEFT JOIN reviews r"                     \
	" ON r.message_id = f.review_msgid WHERE f.state = 'raised')"

static const char *col_text(const struct rb_dbv *v)
{
	return v->t == RB_DBT_TEXT ? v->s : v->t == RB_DBT_NULL ? "" : "?";
}

static int64_t col_int(const struct rb_dbv *v)
{
	if (v->t == RB_DBT_INT)
		return v->i;
	if (v->t == RB_DBT_TEXT)
		return strtoll(v->s, NULL, 10);
	return 0;
}

/* Rows of (name, count) into an object. */
static int kv_row(const struct rb_dbrow *row, void *payload)
{
	json_object_set_new(payload, col_text(&row->v[0]),
			    json_integer(col_int(&row->v[1])));
	return 0;
}

static int kv(struct rb_store *st, json_t *obj, const char *sql)
{
	return st->db->ops->query(st->db, sql, NULL, 0, kv_row, obj);
}

static json_t *ratio(int64_t num, int64_t den)
{
	return den ? json_real((double)num / (double)den) : json_null();
}

/* Rows of (group, raised, judged, valid) into an object of objects. */
static int prec_row(const struct rb_dbrow *row, void *payload)
{
	int64_t raised = col_int(&row->v[1]), judged = col_int(&row->v[2]);
	int64_t valid = col_int(&row->v[3]);
	json_t *o = json_object();

	json_object_set_new(o, "raised", json_integer(raised));
	json_object_set_new(o, "judged", json_integer(judged));
	json_object_set_new(o, "valid", json_integer(valid));
	json_object_set_new(o, "precision", ratio(valid, judged));
	json_object_set_new(payload, col_text(&row->v[0]), o);
	return 0;
}

static int precision_by(struct rb_store *st, json_t *into, const char *name,
			const char *group)
{
	char sql[2048];
	json_t *o = json_object();
	int ret;

	snprintf(sql, sizeof(sql),
		 "SELECT COALESCE(%s, ''), COUNT(*),"
		 " SUM(CASE WHEN verdict IS NOT NULL THEN 1 ELSE 0 END),"
		 " SUM(CASE WHEN verdict IN ('valid', 'fixed') THEN 1 ELSE 0"
		 " END) FROM " JUDGED " j GROUP BY COALESCE(%s, '')"
		 " ORDER BY 1",
		 group, group);
	ret = st->db->ops->query(st->db, sql, NULL, 0, prec_row, o);
	json_object_set_new(into, name, o);
	return ret;
}

struct totals {
	int64_t v[8];
};

static int totals_row(const struct rb_dbrow *row, void *payload)
{
	struct totals *t = payload;
	size_t i;

	for (i = 0; i < row->n && i < 8; i++)
		t->v[i] = col_int(&row->v[i]);
	return 1;
}

static int totals(struct rb_store *st, struct totals *t, const char *sql)
{
	memset(t, 0, sizeof(*t));
	return st->db->ops->query(st->db, sql, NULL, 0, totals_row, t);
}

/* Latency histogram buckets, in seconds. */
static int latency_row(const struct rb_dbrow *row, void *payload)
{
	json_array_append_new(payload, json_integer(col_int(&row->v[0])));
	return 0;
}

/* Counts by state or kind: (name in the JSON, query of (key, count)). */
static const struct {
	const char *name;
	const char *sql;
} counts[] = {
	{ "messages",
	  "SELECT state, COUNT(*) FROM messages GROUP BY state ORDER BY 1" },
	{ "series",
	  "SELECT state, COUNT(*) FROM series GROUP BY state ORDER BY 1" },
	{ "mails",
	  "SELECT kind, COUNT(*) FROM reviews GROUP BY kind ORDER BY 1" },
	{ "outbox",
	  "SELECT state, COUNT(*) FROM outbox GROUP BY state ORDER BY 1" },
};

int rb_stats_collect(struct rb_store *st, json_t **out)
{
	json_t *j = json_object(), *o;
	struct totals t;
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		o = json_object();
		ret = ret ? ret : kv(st, o, counts[i].sql);
		json_object_set_new(j, counts[i].name, o);
	}

	/* Precision per finding, overall and by group. */
	ret = ret ? ret :
		    totals(st, &t,
			   "SELECT COUNT(*), SUM(CASE WHEN verdict IS NOT NULL"
			   " THEN 1 ELSE 0 END), SUM(CASE WHEN verdict IN"
			   " ('valid', 'fixed') THEN 1 ELSE 0 END) FROM " JUDGED
			   " j");
	o = json_object();
	json_object_set_new(o, "raised", json_integer(t.v[0]));
	json_object_set_new(o, "judged", json_integer(t.v[1]));
	json_object_set_new(o, "valid", json_integer(t.v[2]));
	json_object_set_new(o, "precision", ratio(t.v[2], t.v[1]));
	json_object_set_new(j, "findings", o);
	ret = ret ? ret : precision_by(st, j, "by_checker", "checker");
	ret = ret ? ret : precision_by(st, j, "by_category", "category");
	ret = ret ? ret : precision_by(st, j, "by_subsystem", "rsub");
	ret = ret ? ret :
		    precision_by(st, j, "by_model",
				 "CASE WHEN checker = 'model' THEN"
				 " checker_version END");

	/* Precision per review: a judged review is precise when none of its
	 * judged findings was a false positive. */
	ret = ret ? ret :
		    totals(st, &t,
			   "SELECT COUNT(*), SUM(CASE WHEN fp = 0 THEN 1 ELSE 0"
			   " END) FROM (SELECT review_msgid, SUM(CASE WHEN"
			   " verdict = 'false_positive' THEN 1 ELSE 0 END) AS fp"
			   " FROM " JUDGED " j WHERE verdict IS NOT NULL"
			   " GROUP BY review_msgid) x");
	o = json_object();
	json_object_set_new(o, "judged", json_integer(t.v[0]));
	json_object_set_new(o, "precise", json_integer(t.v[1]));
	json_object_set_new(o, "precision", ratio(t.v[1], t.v[0]));
	json_object_set_new(j, "reviews", o);

	/* Words, latency, tokens, cost. */
	ret = ret ? ret :
		    totals(st, &t,
			   "SELECT COUNT(*), COALESCE(SUM(words), 0),"
			   " COALESCE(SUM(latency), 0), COALESCE(MAX(latency), 0),"
			   " COALESCE(SUM(tokens_in), 0),"
			   " COALESCE(SUM(tokens_out), 0),"
			   " COALESCE(SUM(cost), 0) FROM reviews"
			   " WHERE kind = 'review'");
	o = json_object();
	json_object_set_new(o, "count", json_integer(t.v[0]));
	json_object_set_new(o, "words_total", json_integer(t.v[1]));
	json_object_set_new(o, "words_per_review",
			    t.v[0] ? json_real((double)t.v[1] / t.v[0]) :
				     json_null());
	json_object_set_new(o, "latency_mean_s",
			    t.v[0] ? json_real((double)t.v[2] / t.v[0]) :
				     json_null());
	json_object_set_new(o, "latency_max_s", json_integer(t.v[3]));
	json_object_set_new(o, "tokens_in", json_integer(t.v[4]));
	json_object_set_new(o, "tokens_out", json_integer(t.v[5]));
	json_object_set_new(o, "cost_usd", json_real((double)t.v[6] / 1e6));
	json_object_set_new(j, "review_mails", o);
	o = json_array();
	ret = ret ? ret :
		    st->db->ops->query(st->db,
				       "SELECT latency FROM reviews WHERE"
				       " kind = 'review' ORDER BY created_at",
				       NULL, 0, latency_row, o);
	json_object_set_new(j, "latencies_s", o);

	/* Recipients the cap trimmed (lists never are: bot/scope.h). */
	ret = ret ? ret :
		    totals(st, &t,
			   "SELECT COALESCE(SUM(CASE WHEN capped > 0 THEN 1"
			   " ELSE 0 END), 0), COALESCE(SUM(capped), 0)"
			   " FROM reviews");
	o = json_object();
	json_object_set_new(o, "mails", json_integer(t.v[0]));
	json_object_set_new(o, "people", json_integer(t.v[1]));
	json_object_set_new(j, "recipients_capped", o);

	/* Apply failures among series that reached a base. */
	ret = ret ? ret :
		    totals(st, &t,
			   "SELECT SUM(CASE WHEN state = 'apply_failed' THEN 1"
			   " ELSE 0 END), SUM(CASE WHEN state IN ('apply_failed',"
			   " 'reviewed', 'sent') THEN 1 ELSE 0 END) FROM series");
	o = json_object();
	json_object_set_new(o, "failed", json_integer(t.v[0]));
	json_object_set_new(o, "attempted", json_integer(t.v[1]));
	json_object_set_new(o, "rate", ratio(t.v[0], t.v[1]));
	json_object_set_new(j, "apply_failures", o);
	o = json_object();
	ret = ret ? ret :
		    kv(st, o,
		       "SELECT state, COUNT(*) FROM findings"
		       " GROUP BY state ORDER BY 1");
	json_object_set_new(j, "finding_states", o);
	if (ret) {
		json_decref(j);
		return ret;
	}
	*out = j;
	return 0;
}

static void print_counts(FILE *f, const char *title, json_t *o)
{
	const char *k;
	json_t *v;

	fprintf(f, "%-14s", title);
	if (!json_object_size(o))
		fprintf(f, " none");
	json_object_foreach(o, k, v)
		fprintf(f, " %s=%lld", k, (long long)json_integer_value(v));
	fputc('\n', f);
}

static void print_prec(FILE *f, const char *title, json_t *o)
{
	const char *k;
	json_t *v;

	if (!json_object_size(o))
		return;
	fprintf(f, "\nprecision per finding, by %s:\n", title);
	fprintf(f, "  %-28s %7s %7s %7s %9s\n", "", "raised", "judged", "valid",
		"precision");
	json_object_foreach(o, k, v)
	{
		json_t *p = json_object_get(v, "precision");
		char pr[16];

		if (json_is_null(p))
			snprintf(pr, sizeof(pr), "-");
		else
			snprintf(pr, sizeof(pr), "%.2f", json_real_value(p));
		fprintf(f, "  %-28.28s %7lld %7lld %7lld %9s\n",
			*k ? k : "(none)",
			(long long)json_integer_value(
				json_object_get(v, "raised")),
			(long long)json_integer_value(
				json_object_get(v, "judged")),
			(long long)json_integer_value(
				json_object_get(v, "valid")),
			pr);
	}
}

static void print_ratio(FILE *f, const char *label, json_t *v)
{
	if (json_is_null(v) || !v)
		fprintf(f, "%s -\n", label);
	else
		fprintf(f, "%s %.2f\n", label, json_number_value(v));
}

void rb_stats_print(json_t *j, FILE *f)
{
	json_t *fi = json_object_get(j, "findings");
	json_t *rv = json_object_get(j, "reviews");
	json_t *rm = json_object_get(j, "review_mails");
	json_t *af = json_object_get(j, "apply_failures");

	print_counts(f, "messages", json_object_get(j, "messages"));
	print_counts(f, "series", json_object_get(j, "series"));
	print_counts(f, "mails", json_object_get(j, "mails"));
	print_counts(f, "outbox", json_object_get(j, "outbox"));
	print_counts(f, "findings", json_object_get(j, "finding_states"));
	fprintf(f, "\nfindings raised %lld, judged %lld, valid %lld\n",
		(long long)json_integer_value(json_object_get(fi, "raised")),
		(long long)json_integer_value(json_object_get(fi, "judged")),
		(long long)json_integer_value(json_object_get(fi, "valid")));
	print_ratio(f,
		    "precision per finding:", json_object_get(fi, "precision"));
	print_ratio(f,
		    "precision per review: ", json_object_get(rv, "precision"));
	print_ratio(f, "words per review:     ",
		    json_object_get(rm, "words_per_review"));
	print_ratio(f, "seconds to review:    ",
		    json_object_get(rm, "latency_mean_s"));
	print_ratio(f, "apply-failure rate:   ", json_object_get(af, "rate"));
	fprintf(f, "recipients capped:     %lld people in %lld mails\n",
		(long long)json_integer_value(json_object_get(
			json_object_get(j, "recipients_capped"), "people")),
		(long long)json_integer_value(json_object_get(
			json_object_get(j, "recipients_capped"), "mails")));
	fprintf(f, "model tokens in/out:   %lld/%lld, cost $%.4f\n",
		(long long)json_integer_value(json_object_get(rm, "tokens_in")),
		(long long)json_integer_value(
			json_object_get(rm, "tokens_out")),
		json_real_value(json_object_get(rm, "cost_usd")));
	print_prec(f, "subsystem", json_object_get(j, "by_subsystem"));
	print_prec(f, "checker", json_object_get(j, "by_checker"));
	print_prec(f, "model", json_object_get(j, "by_model"));
	print_prec(f, "category", json_object_get(j, "by_category"));
}
