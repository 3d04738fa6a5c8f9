// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - the figures of `reviewbot stats`, from the store's reports
 * (bot/store/store_reports.h, which says what counts as a verdict), as JSON
 * and as text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/stats.h"
#include "bot/store/store.h"
#include "bot/store/store_versions.h"
#include "util/err.h"
#include "util/banned.h"

/* Rows of (name, count) into an object. */
static int kv_row(const char *key, int64_t n, void *payload)
{
	json_object_set_new(payload, key, json_integer(n));
	return 0;
}

/* The outcome beside the verdicts in every precision object. */
#define FIXED_KEY "fixed_in_later_version"

static json_t *ratio(int64_t num, int64_t den)
{
	return den ? json_real((double)num / (double)den) : json_null();
}

/* An object of two counts. */
static json_t *two(const char *ka, int64_t a, const char *kb, int64_t b)
{
	json_t *o = json_object();

	json_object_set_new(o, ka, json_integer(a));
	json_object_set_new(o, kb, json_integer(b));
	return o;
}

static json_t *precision(const struct rb_report_precision *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "raised", json_integer(p->raised));
	json_object_set_new(o, "judged", json_integer(p->judged));
	json_object_set_new(o, "valid", json_integer(p->valid));
	json_object_set_new(o, "precision", ratio(p->valid, p->judged));
	return o;
}

/* Rows of (group, raised, judged, valid) into an object of objects. */
static int prec_row(const char *group, const struct rb_report_precision *p,
		    void *payload)
{
	json_object_set_new(payload, group, precision(p));
	return 0;
}

static int precision_by(struct rb_store *st, json_t *into, const char *name,
			enum rb_report_group group)
{
	json_t *o = json_object();
	int ret;

	ret = rb_store_report_precision_by(st, group, prec_row, o);
	json_object_set_new(into, name, o);
	return ret;
}

/* One group's count of findings fixed in a later version, set into its
 * precision object (made when the group has none). */
static int fixed_row(const char *group, int64_t n, void *payload)
{
	json_t *by = payload, *o = json_object_get(by, group);

	if (!o) {
		o = json_object();
		json_object_set_new(by, group, o);
	}
	json_object_set_new(o, FIXED_KEY, json_integer(n));
	return 0;
}

/*
 * Issue 37: the threads as a reviewer reads them. Lines a reply on v(n)
 * commented on that v(n+1) kept or changed; findings on a line a reply
 * had quoted already, dropped or marked; verdicts given explicitly, with
 * the reply's words, and those guessed from prose, counted apart until
 * an admin decides; the notes approved for the prompt.
 */
static int threads(struct rb_store *st, json_t *j)
{
	struct rb_report_threads r;
	json_t *o = json_object(), *q = json_object(), *d = json_object();
	json_t *v = json_object(), *pr = json_object();
	int ret = rb_store_report_threads(st, &r);

	json_object_set_new(q, "unchanged", json_integer(r.quoted_unchanged));
	json_object_set_new(q, "changed", json_integer(r.quoted_changed));
	json_object_set_new(q, "unchanged_by_bots", json_integer(r.quoted_bot));
	json_object_set_new(o, "earlier_replies", q);
	json_object_set_new(d, "dropped", json_integer(r.findings_dropped));
	json_object_set_new(d, "marked", json_integer(r.findings_marked));
	json_object_set_new(o, "already_quoted", d);
	json_object_set_new(v, "explicit", json_integer(r.verdicts_explicit));
	json_object_set_new(v, "with_reason",
			    json_integer(r.verdicts_with_reason));
	json_object_set_new(pr, "pending", json_integer(r.proposed_pending));
	json_object_set_new(pr, "confirmed",
			    json_integer(r.proposed_confirmed));
	json_object_set_new(pr, "rejected", json_integer(r.proposed_rejected));
	json_object_set_new(v, "proposed", pr);
	json_object_set_new(o, "verdicts", v);
	json_object_set_new(o, "notes", json_integer(r.notes));
	json_object_set_new(j, "threads", o);
	return ret;
}

static int fixed_later(struct rb_store *st, json_t *j)
{
	static const struct {
		const char *key;
		enum rb_fixed_group by;
	} groups[] = {
		{ "by_checker", RB_FIXED_CHECKER },
		{ "by_subsystem", RB_FIXED_SUBSYSTEM },
	};
	int64_t linked = 0, parts = 0, unchanged = 0;
	json_t *all = json_object(), *o;
	size_t i;
	int ret;

	/* Every group says 0 unless a row says more. */
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		const char *k;

		json_object_foreach(json_object_get(j, groups[i].key), k, o)
			json_object_set_new(o, FIXED_KEY, json_integer(0));
	}
	json_object_set_new(json_object_get(j, "findings"), FIXED_KEY,
			    json_integer(0));
	ret = rb_store_report_fixed_later(st, RB_FIXED_ALL, fixed_row, all);
	o = json_object_get(all, "");
	if (!ret && o)
		json_object_set(json_object_get(j, "findings"), FIXED_KEY,
				json_object_get(o, FIXED_KEY));
	json_decref(all);
	for (i = 0; !ret && i < sizeof(groups) / sizeof(groups[0]); i++)
		ret = rb_store_report_fixed_later(
			st, groups[i].by, fixed_row,
			json_object_get(j, groups[i].key));
	ret = ret ? ret :
		    rb_store_report_versions(st, &linked, &parts, &unchanged);
	o = json_object();
	json_object_set_new(o, "linked_series", json_integer(linked));
	json_object_set_new(o, "parts", json_integer(parts));
	json_object_set_new(o, "unchanged_not_reviewed",
			    json_integer(unchanged));
	json_object_set_new(j, "versions", o);
	return ret;
}

/* Latency histogram buckets, in seconds. */
static int latency_row(int64_t seconds, void *payload)
{
	json_array_append_new(payload, json_integer(seconds));
	return 0;
}

/* Counts by state or kind: (name in the JSON, what to count). */
static const struct {
	const char *name;
	enum rb_report_count what;
} counts[] = {
	{ "messages", RB_COUNT_MESSAGES },
	{ "series", RB_COUNT_SERIES },
	{ "mails", RB_COUNT_MAILS },
	{ "outbox", RB_COUNT_OUTBOX },
};

int rb_stats_collect(struct rb_store *st, json_t **out)
{
	json_t *j = json_object(), *o;
	struct rb_report_precision p = { 0 };
	struct rb_report_mails m = { 0 };
	int64_t a = 0, b = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		o = json_object();
		ret = ret ? ret :
			    rb_store_report_counts(st, counts[i].what, kv_row,
						   o);
		json_object_set_new(j, counts[i].name, o);
	}

	/* Precision per finding, overall and by group. */
	ret = ret ? ret : rb_store_report_precision(st, &p);
	json_object_set_new(j, "findings", precision(&p));
	ret = ret ? ret : precision_by(st, j, "by_checker", RB_GROUP_CHECKER);
	ret = ret ? ret : precision_by(st, j, "by_category", RB_GROUP_CATEGORY);
	ret = ret ? ret :
		    precision_by(st, j, "by_subsystem", RB_GROUP_SUBSYSTEM);
	ret = ret ? ret : precision_by(st, j, "by_model", RB_GROUP_MODEL);
	ret = ret ? ret : precision_by(st, j, "by_prompt", RB_GROUP_PROMPT);
	ret = ret ? ret : threads(st, j);
	/* Beside the verdicts: raised findings whose line a later version
	 * of the series fixed (bot/stages/versions.h), per checker and subsystem. */
	ret = ret ? ret : fixed_later(st, j);

	/* Precision per review: a judged review is precise when none of its
	 * judged findings was a false positive. */
	ret = ret ? ret : rb_store_report_review_precision(st, &a, &b);
	o = two("judged", a, "precise", b);
	json_object_set_new(o, "precision", ratio(b, a));
	json_object_set_new(j, "reviews", o);

	/* Words, latency, tokens, cost. */
	ret = ret ? ret : rb_store_report_mails(st, &m);
	o = json_object();
	json_object_set_new(o, "count", json_integer(m.count));
	json_object_set_new(o, "words_total", json_integer(m.words));
	json_object_set_new(o, "words_per_review",
			    m.count ? json_real((double)m.words / m.count) :
				      json_null());
	json_object_set_new(o, "latency_mean_s",
			    m.count ?
				    json_real((double)m.latency_sum / m.count) :
				    json_null());
	json_object_set_new(o, "latency_max_s", json_integer(m.latency_max));
	json_object_set_new(o, "tokens_in", json_integer(m.tokens_in));
	json_object_set_new(o, "tokens_out", json_integer(m.tokens_out));
	json_object_set_new(o, "cost_usd",
			    json_real((double)m.cost_micro / 1e6));
	json_object_set_new(j, "review_mails", o);
	o = json_array();
	ret = ret ? ret : rb_store_report_latencies(st, latency_row, o);
	json_object_set_new(j, "latencies_s", o);

	/* Recipients the cap trimmed (lists never are: bot/stages/scope.h). */
	a = b = 0;
	ret = ret ? ret : rb_store_report_capped(st, &a, &b);
	json_object_set_new(j, "recipients_capped",
			    two("mails", a, "people", b));

	/* Apply failures among series that reached a base. */
	a = b = 0;
	ret = ret ? ret : rb_store_report_apply_failures(st, &a, &b);
	o = two("failed", a, "attempted", b);
	json_object_set_new(o, "rate", ratio(a, b));
	json_object_set_new(j, "apply_failures", o);
	o = json_object();
	ret = ret ? ret :
		    rb_store_report_counts(st, RB_COUNT_FINDINGS, kv_row, o);
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
	/* "fixed later": the line was gone in a later version. */
	fprintf(f, "  %-28s %7s %7s %7s %9s %11s\n", "", "raised", "judged",
		"valid", "precision", "fixed later");
	json_object_foreach(o, k, v)
	{
		json_t *p = json_object_get(v, "precision");
		char pr[16];

		if (json_is_null(p))
			snprintf(pr, sizeof(pr), "-");
		else
			snprintf(pr, sizeof(pr), "%.2f", json_real_value(p));
		fprintf(f, "  %-28.28s %7lld %7lld %7lld %9s %11lld\n",
			*k ? k : "(none)",
			(long long)json_integer_value(
				json_object_get(v, "raised")),
			(long long)json_integer_value(
				json_object_get(v, "judged")),
			(long long)json_integer_value(
				json_object_get(v, "valid")),
			pr,
			(long long)json_integer_value(
				json_object_get(v, FIXED_KEY)));
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
	fprintf(f,
		"later versions:        %lld linked, %lld of %lld parts not "
		"reviewed again, %lld findings fixed\n",
		(long long)json_integer_value(json_object_get(
			json_object_get(j, "versions"), "linked_series")),
		(long long)json_integer_value(
			json_object_get(json_object_get(j, "versions"),
					"unchanged_not_reviewed")),
		(long long)json_integer_value(json_object_get(
			json_object_get(j, "versions"), "parts")),
		(long long)json_integer_value(json_object_get(fi, FIXED_KEY)));
	fprintf(f, "model tokens in/out:   %lld/%lld, cost $%.4f\n",
		(long long)json_integer_value(json_object_get(rm, "tokens_in")),
		(long long)json_integer_value(
			json_object_get(rm, "tokens_out")),
		json_real_value(json_object_get(rm, "cost_usd")));
	{
		json_t *t = json_object_get(j, "threads");
		json_t *q = json_object_get(t, "earlier_replies");
		json_t *a = json_object_get(t, "already_quoted");
		json_t *v = json_object_get(t, "verdicts");
		json_t *p = json_object_get(v, "proposed");
#define I(o, k) ((long long)json_integer_value(json_object_get((o), (k))))

		fprintf(f,
			"earlier replies:       %lld lines kept, %lld changed "
			"in the next version\n"
			"already quoted:        %lld findings dropped, %lld "
			"marked\n"
			"verdicts:              %lld explicit, %lld with a "
			"reason; proposed from prose %lld pending, %lld "
			"confirmed, %lld rejected\n"
			"notes for the prompt:  %lld\n",
			I(q, "unchanged"), I(q, "changed"), I(a, "dropped"),
			I(a, "marked"), I(v, "explicit"), I(v, "with_reason"),
			I(p, "pending"), I(p, "confirmed"), I(p, "rejected"),
			I(t, "notes"));
#undef I
	}
	print_prec(f, "subsystem", json_object_get(j, "by_subsystem"));
	print_prec(f, "checker", json_object_get(j, "by_checker"));
	print_prec(f, "model", json_object_get(j, "by_model"));
	print_prec(f, "prompt version", json_object_get(j, "by_prompt"));
	print_prec(f, "category", json_object_get(j, "by_category"));
}
