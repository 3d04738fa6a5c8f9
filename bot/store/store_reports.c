// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_reports.c - the read-only queries behind `reviewbot stats`,
 * /metrics and the dashboard. See store_reports.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* A key as the reports name it: "" for NULL, "?" for one not text. */
static const char *key_of(const struct rb_dbv *v)
{
	return v->t == RB_DBT_TEXT ? v->s : v->t == RB_DBT_NULL ? "" : "?";
}

/* The first row's columns as integers into v[0..n-1], 0 for none. */
struct totals {
	int64_t *v;
	size_t n;
};

static int totals_row(const struct rb_dbrow *row, void *payload)
{
	struct totals *t = payload;
	size_t i;

	for (i = 0; i < row->n && i < t->n; i++)
		t->v[i] = rb_dbv_int(&row->v[i]);
	return 1;
}

static int totals(struct rb_store *st, int64_t *v, size_t n, const char *sql)
{
	struct totals t = { v, n };

	memset(v, 0, n * sizeof(*v));
	return st->db->ops->query(st->db, sql, NULL, 0, totals_row, &t);
}

/* --- reviewbot stats --- */

/* Each raised finding with its verdict (NULL when nobody judged it). */
#define JUDGED                                                                \
	"(SELECT f.*, r.subsystem AS rsub, (SELECT v.verdict FROM verdicts v" \
	" WHERE v.review_msgid = f.review_msgid AND v.fid = f.fid AND"        \
	" v.authorised = 1 ORDER BY v.created_at DESC, v.id DESC LIMIT 1)"    \
	" AS verdict FROM findings f LEFT JOIN reviews r"                     \
	" ON r.message_id = f.review_msgid WHERE f.state = 'raised')"

static const char *const count_sql[] = {
	[RB_COUNT_MESSAGES] = "SELECT state, COUNT(*) FROM messages"
			      " GROUP BY state ORDER BY 1",
	[RB_COUNT_SERIES] = "SELECT state, COUNT(*) FROM series"
			    " GROUP BY state ORDER BY 1",
	[RB_COUNT_MAILS] = "SELECT kind, COUNT(*) FROM reviews"
			   " GROUP BY kind ORDER BY 1",
	[RB_COUNT_OUTBOX] = "SELECT state, COUNT(*) FROM outbox"
			    " GROUP BY state ORDER BY 1",
	[RB_COUNT_FINDINGS] = "SELECT state, COUNT(*) FROM findings"
			      " GROUP BY state ORDER BY 1",
};

struct count_cb {
	rb_report_count_fn fn;
	void *payload;
};

static int count_row(const struct rb_dbrow *row, void *payload)
{
	struct count_cb *cb = payload;

	return cb->fn(key_of(&row->v[0]), rb_dbv_int(&row->v[1]), cb->payload);
}

int rb_store_report_counts(struct rb_store *st, enum rb_report_count what,
			   rb_report_count_fn fn, void *payload)
{
	struct count_cb cb = { fn, payload };

	if ((unsigned int)what >= sizeof(count_sql) / sizeof(count_sql[0]))
		return rb_err(RB_EINVAL, "stats: unknown count %d", what);
	return st->db->ops->query(st->db, count_sql[what], NULL, 0, count_row,
				  &cb);
}

/* Fixed strings, never input; ? is the store's clock where used. */
static const char *const summary_sql[] = {
	[RB_SUM_SERIES] =
		"SELECT state, CASE WHEN state <> 'skipped' THEN ''"
		" WHEN detail LIKE 'not for these trees%' THEN"
		" 'not for these trees'"
		" WHEN detail LIKE 'policy: off%' THEN 'policy off'"
		" WHEN detail LIKE 'a stable review%' THEN 'stable review'"
		" WHEN detail LIKE 'policy: author%' THEN 'skip_authors'"
		" ELSE 'other' END AS why, COUNT(*), 0 FROM series"
		" GROUP BY state, why ORDER BY 3 DESC, 1, 2",
	[RB_SUM_WAITING] =
		"SELECT s.state, COALESCE(j.kind, ''), COUNT(*),"
		" COALESCE(MIN(j.not_before), 0) FROM series s LEFT JOIN jobs j"
		" ON j.key = s.id AND j.state IN ('ready', 'running')"
		" WHERE s.state IN ('waiting', 'apply_waiting')"
		" GROUP BY s.state, j.kind ORDER BY 1, 2",
	[RB_SUM_UNSENT] =
		"SELECT state, COALESCE(last_error, CASE WHEN send_after > ?"
		" THEN 'embargo' ELSE '' END) AS why, COUNT(*),"
		" MAX(send_after) FROM outbox"
		" WHERE state IN ('held', 'queued', 'sending', 'failed')"
		" GROUP BY state, why ORDER BY 1, 2",
	[RB_SUM_MAILS] = "SELECT r.kind, o.state, COUNT(*), 0 FROM reviews r"
			 " JOIN outbox o ON o.message_id = r.message_id"
			 " GROUP BY r.kind, o.state ORDER BY 1, 2",
};

struct summary_cb {
	rb_report_summary_fn fn;
	void *payload;
};

static int summary_row(const struct rb_dbrow *row, void *payload)
{
	struct summary_cb *cb = payload;

	return cb->fn(key_of(&row->v[0]), key_of(&row->v[1]),
		      rb_dbv_int(&row->v[2]), rb_dbv_int(&row->v[3]),
		      cb->payload);
}

int rb_store_report_summary(struct rb_store *st, enum rb_report_summary what,
			    rb_report_summary_fn fn, void *payload)
{
	struct summary_cb cb = { fn, payload };
	struct rb_dbv now = RB_DB_INT(rb_now());

	if ((unsigned int)what >= sizeof(summary_sql) / sizeof(summary_sql[0]))
		return rb_err(RB_EINVAL, "summary: unknown report %d", what);
	return st->db->ops->query(st->db, summary_sql[what], &now,
				  what == RB_SUM_UNSENT ? 1 : 0, summary_row,
				  &cb);
}

int rb_store_report_precision(struct rb_store *st,
			      struct rb_report_precision *out)
{
	int64_t v[3];
	int ret;

	ret = totals(st, v, 3,
		     "SELECT COUNT(*), SUM(CASE WHEN verdict IS NOT NULL"
		     " THEN 1 ELSE 0 END), SUM(CASE WHEN verdict IN"
		     " ('valid', 'fixed') THEN 1 ELSE 0 END) FROM " JUDGED
		     " j");
	out->raised = v[0];
	out->judged = v[1];
	out->valid = v[2];
	return ret;
}

/* Expressions over JUDGED: fixed strings, never input. */
static const char *const group_expr[] = {
	[RB_GROUP_CHECKER] = "checker",
	[RB_GROUP_CATEGORY] = "category",
	[RB_GROUP_SUBSYSTEM] = "rsub",
	[RB_GROUP_MODEL] = ("CASE WHEN checker = 'model' THEN"
			    " checker_version END"),
	[RB_GROUP_RULE] = "checker || '/' || category",
	[RB_GROUP_PROMPT] = "prompt",
};

struct prec_cb {
	int (*fn)(const char *group, const struct rb_report_precision *p,
		  void *payload);
	void *payload;
};

static int prec_row(const struct rb_dbrow *row, void *payload)
{
	struct prec_cb *cb = payload;
	struct rb_report_precision p = {
		.raised = rb_dbv_int(&row->v[1]),
		.judged = rb_dbv_int(&row->v[2]),
		.valid = rb_dbv_int(&row->v[3]),
	};

	return cb->fn(key_of(&row->v[0]), &p, cb->payload);
}

int rb_store_report_precision_by(struct rb_store *st,
				 enum rb_report_group group,
				 int (*fn)(const char *group,
					   const struct rb_report_precision *p,
					   void *payload),
				 void *payload)
{
	struct prec_cb cb = { fn, payload };
	const char *g;
	char sql[2048];

	if ((unsigned int)group >= sizeof(group_expr) / sizeof(group_expr[0]))
		return rb_err(RB_EINVAL, "stats: unknown group %d", group);
	g = group_expr[group];
	snprintf(sql, sizeof(sql),
		 "SELECT COALESCE(%s, ''), COUNT(*),"
		 " SUM(CASE WHEN verdict IS NOT NULL THEN 1 ELSE 0 END),"
		 " SUM(CASE WHEN verdict IN ('valid', 'fixed') THEN 1 ELSE 0"
		 " END) FROM " JUDGED " j GROUP BY COALESCE(%s, '')"
		 " ORDER BY 1",
		 g, g);
	return st->db->ops->query(st->db, sql, NULL, 0, prec_row, &cb);
}

int rb_store_report_review_precision(struct rb_store *st, int64_t *judged,
				     int64_t *precise)
{
	int64_t v[2];
	int ret;

	/* A judged review is precise when none of its judged findings was
	 * a false positive. */
	ret = totals(st, v, 2,
		     "SELECT COUNT(*), SUM(CASE WHEN fp = 0 THEN 1 ELSE 0"
		     " END) FROM (SELECT review_msgid, SUM(CASE WHEN"
		     " verdict = 'false_positive' THEN 1 ELSE 0 END) AS fp"
		     " FROM " JUDGED " j WHERE verdict IS NOT NULL"
		     " GROUP BY review_msgid) x");
	*judged = v[0];
	*precise = v[1];
	return ret;
}

int rb_store_report_mails(struct rb_store *st, struct rb_report_mails *out)
{
	int64_t v[7];
	int ret;

	ret = totals(st, v, 7,
		     "SELECT COUNT(*), COALESCE(SUM(words), 0),"
		     " COALESCE(SUM(latency), 0), COALESCE(MAX(latency), 0),"
		     " COALESCE(SUM(tokens_in), 0),"
		     " COALESCE(SUM(tokens_out), 0),"
		     " COALESCE(SUM(cost), 0) FROM reviews"
		     " WHERE kind = 'review'");
	out->count = v[0];
	out->words = v[1];
	out->latency_sum = v[2];
	out->latency_max = v[3];
	out->tokens_in = v[4];
	out->tokens_out = v[5];
	out->cost_micro = v[6];
	return ret;
}

int rb_store_report_latencies(struct rb_store *st,
			      int (*fn)(int64_t seconds, void *payload),
			      void *payload)
{
	struct rb_each_int cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT latency FROM reviews WHERE"
				  " kind = 'review' ORDER BY created_at",
				  NULL, 0, rb_store_each_int_row, &cb);
}

int rb_store_report_capped(struct rb_store *st, int64_t *mails, int64_t *people)
{
	int64_t v[2];
	int ret;

	/* Lists are never trimmed (bot/stages/scope.h). */
	ret = totals(st, v, 2,
		     "SELECT COALESCE(SUM(CASE WHEN capped > 0 THEN 1"
		     " ELSE 0 END), 0), COALESCE(SUM(capped), 0)"
		     " FROM reviews");
	*mails = v[0];
	*people = v[1];
	return ret;
}

int rb_store_report_apply_failures(struct rb_store *st, int64_t *failed,
				   int64_t *attempted)
{
	int64_t v[2];
	int ret;

	ret = totals(st, v, 2,
		     "SELECT SUM(CASE WHEN state = 'apply_failed' THEN 1"
		     " ELSE 0 END), SUM(CASE WHEN state IN ('apply_failed',"
		     " 'reviewed', 'sent') THEN 1 ELSE 0 END) FROM series");
	*failed = v[0];
	*attempted = v[1];
	return ret;
}

/* --- /metrics --- */

struct worker_cb {
	int (*fn)(const struct rb_report_worker *w, void *payload);
	void *payload;
};

static int worker_row(const struct rb_dbrow *row, void *payload)
{
	struct worker_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_worker w = {
		.name = rb_dbv_str(&v[0]),
		.role = rb_dbv_str(&v[1]),
		.host = rb_dbv_str(&v[2]),
		.state = rb_dbv_str(&v[3]),
		.claimed = rb_dbv_int(&v[4]),
		.done = rb_dbv_int(&v[5]),
		.failed = rb_dbv_int(&v[6]),
		.lease_expiries = rb_dbv_int(&v[7]),
		.seen_at = rb_dbv_int(&v[8]),
	};

	return cb->fn(&w, cb->payload);
}

int rb_store_report_workers(struct rb_store *st,
			    int (*fn)(const struct rb_report_worker *w,
				      void *payload),
			    void *payload)
{
	struct worker_cb cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT name, role, host, state, claimed,"
				  " done, failed, lease_expiries, seen_at"
				  " FROM workers ORDER BY name",
				  NULL, 0, worker_row, &cb);
}

struct jobs_cb {
	int (*fn)(const char *kind, const char *state, int64_t n,
		  void *payload);
	void *payload;
};

static int jobs_row(const struct rb_dbrow *row, void *payload)
{
	struct jobs_cb *cb = payload;

	return cb->fn(rb_dbv_str(&row->v[0]), rb_dbv_str(&row->v[1]),
		      rb_dbv_int(&row->v[2]), cb->payload);
}

int rb_store_report_jobs(struct rb_store *st,
			 int (*fn)(const char *kind, const char *state,
				   int64_t n, void *payload),
			 void *payload)
{
	struct jobs_cb cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT kind, state, COUNT(*) FROM jobs"
				  " GROUP BY kind, state"
				  " ORDER BY kind, state",
				  NULL, 0, jobs_row, &cb);
}

/* --- the dashboard --- */

/* When series s arrived (store_reports.h: rb_report_series.date). */
#define SERIES_DATE                                                      \
	"(CASE WHEN s.last_date > 0 AND s.last_date < s.first_seen THEN" \
	" s.last_date ELSE s.first_seen END)"
/* (SERIES_DATE is migration 15's index series_date: keep them equal.) */
/* The policy mode of series s's mails. */
#define SERIES_MODE \
	"(SELECT MIN(r.policy) FROM reviews r WHERE r.series_id = s.id)"

struct series_cb {
	int (*fn)(const struct rb_report_series *s, void *payload);
	void *payload;
};

static int series_one_row(const struct rb_dbrow *row, void *payload)
{
	struct series_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_series s = {
		.id = rb_dbv_str(&v[0]),
		.title = rb_dbv_str(&v[1]),
		.version = rb_dbv_int(&v[2]),
		.author = rb_dbv_str(&v[3]),
		.state = rb_dbv_str(&v[4]),
		.detail = rb_dbv_str(&v[5]),
		.base_name = rb_dbv_str(&v[6]),
		.base_commit = rb_dbv_str(&v[7]),
		.subsystem = rb_dbv_str(&v[8]),
		.sent = rb_dbv_int(&v[9]),
		.date = rb_dbv_int(&v[10]),
		.mode = rb_dbv_str(&v[11]),
		.previous = rb_dbv_str(&v[12]),
		.applied_commit = rb_dbv_str(&v[13]),
		.updated_at = rb_dbv_int(&v[14]),
	};

	return cb->fn(&s, cb->payload);
}

void rb_store_report_public(struct rb_store *st, bool on)
{
	st->public_view = on;
}

/* What public_view hides of a series (rb_store_report_public()). */
#define PUBLIC_SERIES                                                  \
	" AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.series_id =" \
	" s.id AND r.policy = 'shadow')"
/* ... of its mails (r: reviews, o: outbox). */
#define PUBLIC_MAIL \
	" AND o.state = 'sent' AND COALESCE(r.policy, '') <> 'shadow'"

int rb_store_report_series(struct rb_store *st, const char *id,
			   int (*fn)(const struct rb_report_series *s,
				     void *payload),
			   void *payload)
{
	struct series_cb cb = { fn, payload };

	return QUERY(
		st,
		"SELECT s.id, s.title, s.version, s.author,"
		" s.state, s.detail, s.base_name, s.base_commit,"
		" s.subsystem, (SELECT COUNT(*) FROM outbox o"
		" WHERE o.series_id = s.id AND o.state = 'sent'),"
		" " SERIES_DATE ", " SERIES_MODE ", s.previous,"
		" s.applied_commit, s.updated_at"
		" FROM series s WHERE s.id = ? AND (? = 0 OR (1 = 1" PUBLIC_SERIES
		"))",
		series_one_row, &cb, RB_DB_TEXT(id),
		RB_DB_INT(st->public_view));
}

struct attempt_cb {
	int (*fn)(const struct rb_report_attempt *a, void *payload);
	void *payload;
};

static int attempt_row(const struct rb_dbrow *row, void *payload)
{
	struct attempt_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_attempt a = {
		.base_name = rb_dbv_str(&v[0]),
		.base_commit = rb_dbv_str(&v[1]),
		.ok = rb_dbv_int(&v[2]),
		.failed_patch = rb_dbv_int(&v[3]),
		.failed_file = rb_dbv_str(&v[4]),
		.failed_hunk = rb_dbv_int(&v[5]),
		.reason = rb_dbv_str(&v[6]),
	};

	return cb->fn(&a, cb->payload);
}

int rb_store_report_attempts(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_attempt *a,
				       void *payload),
			     void *payload)
{
	struct attempt_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT base_name, base_commit, ok, failed_patch,"
		     " failed_file, failed_hunk, reason FROM attempts"
		     " WHERE series_id = ? ORDER BY id",
		     attempt_row, &cb, RB_DB_TEXT(id));
}

struct finding_cb {
	int (*fn)(const struct rb_report_finding *f, void *payload);
	void *payload;
};

static int finding_row(const struct rb_dbrow *row, void *payload)
{
	struct finding_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_finding f = {
		.fid = rb_dbv_str(&v[0]),
		.checker = rb_dbv_str(&v[1]),
		.category = rb_dbv_str(&v[2]),
		.severity = rb_dbv_str(&v[3]),
		.file = rb_dbv_str(&v[4]),
		.line = rb_dbv_int(&v[5]),
		.state = rb_dbv_str(&v[6]),
		.message = rb_dbv_str(&v[7]),
		.code = rb_dbv_str(&v[8]),
		.patch_idx = rb_dbv_int(&v[9]),
		.outcome = rb_dbv_str(&v[10]),
		.fixed_version = rb_dbv_int(&v[11]),
		.severity_reason = rb_dbv_str(&v[12]),
		.verifier_reason = rb_dbv_str(&v[13]),
		.quoted = rb_dbv_str(&v[14]),
	};

	return cb->fn(&f, cb->payload);
}

int rb_store_report_findings(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_finding *f,
				       void *payload),
			     void *payload)
{
	struct finding_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT COALESCE(fid, '-'), checker, category,"
		     " severity, file, line, state, message, code,"
		     " patch_idx, CASE WHEN state <> 'raised' OR fid IS NULL"
		     " THEN NULL WHEN verdict IS NOT NULL THEN verdict"
		     " WHEN outcome = 'fixed' THEN 'fixed_later' ELSE 'open'"
		     " END, CASE WHEN outcome = 'fixed' THEN outcome_version"
		     " END, severity_reason, verifier_reason, quoted"
		     " FROM (SELECT f.*, (SELECT v.verdict FROM verdicts v"
		     " WHERE v.review_msgid = f.review_msgid AND"
		     " v.fid = f.fid AND v.authorised = 1 ORDER BY"
		     " v.created_at DESC, v.id DESC LIMIT 1) AS verdict"
		     " FROM findings f WHERE f.series_id = ? AND (? = 0 OR"
		     " EXISTS (SELECT 1 FROM reviews r JOIN outbox o ON"
		     " o.message_id = r.message_id WHERE r.message_id ="
		     " f.review_msgid" PUBLIC_MAIL "))) j ORDER BY"
		     " review_msgid IS NULL, review_msgid, id",
		     finding_row, &cb, RB_DB_TEXT(id),
		     RB_DB_INT(st->public_view));
}

struct verdict_cb {
	int (*fn)(const struct rb_report_verdict *v, void *payload);
	void *payload;
};

static int verdict_row(const struct rb_dbrow *row, void *payload)
{
	struct verdict_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_verdict r = {
		.fid = rb_dbv_str(&v[0]),
		.verdict = rb_dbv_str(&v[1]),
		.judge = rb_dbv_str(&v[2]),
		.authorised = rb_dbv_int(&v[3]),
		.reason = rb_dbv_str(&v[4]),
		.created_at = rb_dbv_int(&v[5]),
		.comment = rb_dbv_str(&v[6]),
		.proposed = rb_dbv_int(&v[7]),
		.id = rb_dbv_int(&v[8]),
	};

	return cb->fn(&r, cb->payload);
}

int rb_store_report_verdicts(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_verdict *v,
				       void *payload),
			     void *payload)
{
	struct verdict_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT v.fid, v.verdict, v.judge, v.authorised,"
		     " v.reason, v.created_at, v.comment, v.proposed, v.id"
		     " FROM verdicts v WHERE"
		     " v.review_msgid IN (SELECT message_id FROM"
		     " reviews WHERE series_id = ?) ORDER BY"
		     " v.created_at, v.id",
		     verdict_row, &cb, RB_DB_TEXT(id));
}

struct mail_cb {
	int (*fn)(const struct rb_report_mail *m, void *payload);
	void *payload;
};

static int mail_row(const struct rb_dbrow *row, void *payload)
{
	struct mail_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_mail m = {
		.message_id = rb_dbv_str(&v[0]),
		.kind = rb_dbv_str(&v[1]),
		.patch_idx = rb_dbv_int(&v[2]),
		.words = rb_dbv_int(&v[3]),
		.findings = rb_dbv_int(&v[4]),
		.created_at = rb_dbv_int(&v[5]),
		.state = rb_dbv_str(&v[6]),
		.bytes = rb_dbv_str(&v[7]),
		.len = v[7].len,
	};

	return cb->fn(&m, cb->payload);
}

int rb_store_report_mails_of(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_mail *m,
				       void *payload),
			     void *payload)
{
	struct mail_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT r.message_id, r.kind, r.patch_idx,"
		     " r.words, r.findings, r.created_at, o.state,"
		     " o.bytes FROM reviews r LEFT JOIN outbox o ON"
		     " o.message_id = r.message_id WHERE"
		     " r.series_id = ? AND (? = 0 OR (1 = 1" PUBLIC_MAIL "))"
		     " ORDER BY r.created_at, r.patch_idx",
		     mail_row, &cb, RB_DB_TEXT(id), RB_DB_INT(st->public_view));
}

/* The verdict that counts per finding is any authorised one, by day. */
#define VERDICTS_BY_DAY                                                       \
	" FROM verdicts v JOIN findings f ON f.review_msgid = v.review_msgid" \
	" AND f.fid = v.fid LEFT JOIN reviews r ON"                           \
	" r.message_id = v.review_msgid WHERE v.authorised = 1 AND"           \
	" v.verdict IS NOT NULL"

int rb_store_report_verdict_days(struct rb_store *st, int64_t *first,
				 int64_t *last)
{
	int64_t v[2];
	int ret;

	ret = totals(st, v, 2,
		     "SELECT MIN(v.created_at / 86400),"
		     " MAX(v.created_at / 86400)" VERDICTS_BY_DAY);
	*first = v[0];
	*last = v[1];
	return ret;
}

struct day_cb {
	int (*fn)(const char *subsystem, int64_t day, int64_t judged,
		  int64_t valid, void *payload);
	void *payload;
};

static int day_row(const struct rb_dbrow *row, void *payload)
{
	struct day_cb *cb = payload;

	return cb->fn(rb_dbv_str(&row->v[0]), rb_dbv_int(&row->v[1]),
		      rb_dbv_int(&row->v[2]), rb_dbv_int(&row->v[3]),
		      cb->payload);
}

int rb_store_report_precision_days(struct rb_store *st,
				   int (*fn)(const char *subsystem, int64_t day,
					     int64_t judged, int64_t valid,
					     void *payload),
				   void *payload)
{
	struct day_cb cb = { fn, payload };

	return st->db->ops->query(
		st->db,
		"SELECT COALESCE(r.subsystem, ''),"
		" v.created_at / 86400, COUNT(*),"
		" SUM(CASE WHEN v.verdict IN ('valid', 'fixed')"
		" THEN 1 ELSE 0 END)" VERDICTS_BY_DAY
		" GROUP BY 1, 2 ORDER BY 1, 2",
		NULL, 0, day_row, &cb);
}

struct pair_cb {
	int (*fn)(int64_t a, int64_t b, void *payload);
	void *payload;
};

static int pair_row(const struct rb_dbrow *row, void *payload)
{
	struct pair_cb *cb = payload;

	return cb->fn(rb_dbv_int(&row->v[0]), rb_dbv_int(&row->v[1]),
		      cb->payload);
}

/* --- the dashboard's list, filtered and paged --- */

/* A LIKE pattern matching @q anywhere, its own % _ and \ taken as is. */
static int like_pattern(struct rb_buf *out, const char *q)
{
	int ret = rb_buf_putc(out, '%');

	for (; *q && !ret; q++) {
		if (*q == '%' || *q == '_' || *q == '\\')
			ret = rb_buf_putc(out, '\\');
		ret = ret ?: rb_buf_putc(out, *q);
	}
	return ret ?: rb_buf_putc(out, '%');
}

#define FILTER_MAX_PARAMS 12

/*
 * The WHERE clause of @f into @sql, its parameters into @p (*n of them);
 * the strings they point at live in @f and @pat/@bare.
 */
static int filter_where(struct rb_buf *sql, struct rb_dbv *p, size_t *n,
			const struct rb_report_filter *f, struct rb_buf *pat,
			struct rb_buf *bare, struct rb_buf *angled)
{
	int ret = rb_buf_puts(sql, " FROM series s WHERE 1 = 1");

	*n = 0;
	if (!ret && f->q && *f->q) {
		const char *q = f->q;
		size_t len;

		/* A Message-ID as mail writes it, or bare. */
		if (*q == '<')
			q++;
		len = strlen(q);
		if (len && q[len - 1] == '>')
			len--;
		ret = rb_buf_add(bare, q, len);
		ret = ret ?: rb_buf_printf(angled, "<%s>", bare->ptr ?: "");
		ret = ret ?: like_pattern(pat, f->q);
		ret = ret   ?:
			      rb_buf_puts(
				      sql,
				      " AND (LOWER(s.title) LIKE LOWER(?)"
				      " ESCAPE '\\' OR LOWER(s.author) LIKE"
				      " LOWER(?) ESCAPE '\\' OR s.id IN (?, ?)"
				      " OR s.id IN (SELECT p.series_id FROM"
				      " patches p WHERE p.message_id IN (?, ?)))");
		if (!ret) {
			p[(*n)++] = RB_DB_TEXT(pat->ptr);
			p[(*n)++] = RB_DB_TEXT(pat->ptr);
			p[(*n)++] = RB_DB_TEXT(bare->ptr ?: "");
			p[(*n)++] = RB_DB_TEXT(angled->ptr);
			p[(*n)++] = RB_DB_TEXT(bare->ptr ?: "");
			p[(*n)++] = RB_DB_TEXT(angled->ptr);
		}
	}
	if (!ret && f->section && *f->section) {
		ret = rb_buf_puts(sql, " AND s.subsystem = ?");
		p[(*n)++] = RB_DB_TEXT(f->section);
	}
	if (!ret && f->state && *f->state) {
		ret = rb_buf_puts(sql, " AND s.state = ?");
		p[(*n)++] = RB_DB_TEXT(f->state);
	}
	if (!ret && f->mode && *f->mode) {
		ret = rb_buf_puts(sql, " AND EXISTS (SELECT 1 FROM reviews r"
				       " WHERE r.series_id = s.id AND"
				       " r.policy = ?)");
		p[(*n)++] = RB_DB_TEXT(f->mode);
	}
	if (!ret && f->has_findings)
		ret = rb_buf_puts(sql, " AND EXISTS (SELECT 1 FROM findings f"
				       " WHERE f.series_id = s.id AND"
				       " f.state = 'raised' AND f.fid IS NOT"
				       " NULL)");
	if (!ret && f->public_only)
		ret = rb_buf_puts(sql, PUBLIC_SERIES);
	return ret;
}

static int total_row(const struct rb_dbrow *row, void *payload)
{
	*(int64_t *)payload = rb_dbv_int(&row->v[0]);
	return 1;
}

static int page_row(const struct rb_dbrow *row, void *payload)
{
	struct series_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_series s = {
		.id = rb_dbv_str(&v[0]),
		.version = rb_dbv_int(&v[1]),
		.title = rb_dbv_str(&v[2]),
		.author = rb_dbv_str(&v[3]),
		.state = rb_dbv_str(&v[4]),
		.base_name = rb_dbv_str(&v[5]),
		.base_commit = rb_dbv_str(&v[6]),
		.subsystem = rb_dbv_str(&v[7]),
		.updated_at = rb_dbv_int(&v[8]),
		.sent = rb_dbv_int(&v[9]),
		.findings = rb_dbv_int(&v[10]),
		.date = rb_dbv_int(&v[11]),
		.mode = rb_dbv_str(&v[12]),
	};

	return cb->fn(&s, cb->payload);
}

/*
 * The rows of page @f of @total series: @lim from @off, newest first,
 * or, for a page in the older half, *from_end: the same rows as @lim
 * from @off counted from the oldest. A page is 1..200 series, whatever
 * asked (bounded work).
 */
static void page_range(const struct rb_report_filter *f, int64_t total,
		       int64_t *lim, int64_t *off, bool *from_end)
{
	int64_t l = f->limit > 0 && f->limit <= 200 ? f->limit :
		    f->limit > 200		    ? 200 :
						      50;
	int64_t o = f->offset > 0 ? f->offset : 0;

	*lim = l;
	*off = o;
	*from_end = o > total / 2 && o < total;
	if (!*from_end)
		return;
	/* Newest-first rows [o, o + l) are oldest-first rows
	 * [total - o - l, total - o). */
	*off = total - o - l > 0 ? total - o - l : 0;
	*lim = total - o - *off;
}

int rb_store_report_series_page(
	struct rb_store *st, const struct rb_report_filter *f, int64_t *total,
	int (*fn)(const struct rb_report_series *s, void *payload),
	void *payload)
{
	struct rb_buf where = RB_BUF_INIT(1 << 16), sql = RB_BUF_INIT(1 << 16);
	struct rb_buf pat = RB_BUF_INIT(1 << 16), bare = RB_BUF_INIT(1 << 16);
	struct rb_buf angled = RB_BUF_INIT(1 << 16);
	struct rb_dbv p[FILTER_MAX_PARAMS];
	struct series_cb cb = { fn, payload };
	struct rb_report_filter g = *f;
	int64_t lim, off;
	bool from_end;
	size_t n = 0;
	int ret;

	*total = 0;
	g.public_only = g.public_only || st->public_view;
	ret = filter_where(&where, p, &n, &g, &pat, &bare, &angled);
	ret = ret ?: rb_buf_printf(&sql, "SELECT COUNT(*)%s", where.ptr);
	ret = ret   ?:
		      st->db->ops->query(st->db, sql.ptr, p, n, total_row,
					 total);
	rb_buf_reset(&sql);
	/*
	 * The page's ids first (the sort reads two columns of each
	 * series), then the counts of those 1..200 alone: computed in the
	 * sorted query they cost every series before the page too (the
	 * last page of 164,000 series took 296 s; issue 38). A page in the
	 * older half is read from the oldest end of the index, so that
	 * the last page skips nothing.
	 */
	page_range(f, *total, &lim, &off, &from_end);
	ret = ret   ?:
		      rb_buf_printf(
			      &sql,
			      "SELECT s.id, s.version, s.title, s.author,"
			      " s.state, s.base_name, s.base_commit,"
			      " s.subsystem, s.updated_at, (SELECT COUNT(*)"
			      " FROM outbox o WHERE o.series_id = s.id AND"
			      " o.state = 'sent'), (SELECT COUNT(*) FROM"
			      " findings f WHERE f.series_id = s.id AND"
			      " f.state = 'raised' AND f.fid IS NOT NULL),"
			      " k.d, " SERIES_MODE " FROM (SELECT s.id AS kid,"
			      " " SERIES_DATE " AS d%s ORDER BY 2 %s, s.id %s"
			      " LIMIT ? OFFSET ?) k JOIN series s ON s.id ="
			      " k.kid ORDER BY k.d DESC, s.id",
			      where.ptr, from_end ? "ASC" : "DESC",
			      from_end ? "DESC" : "ASC");
	if (!ret && lim > 0) {
		p[n++] = RB_DB_INT(lim);
		p[n++] = RB_DB_INT(off);
		ret = st->db->ops->query(st->db, sql.ptr, p, n, page_row, &cb);
	}
	rb_buf_release(&where);
	rb_buf_release(&sql);
	rb_buf_release(&pat);
	rb_buf_release(&bare);
	rb_buf_release(&angled);
	return ret;
}

int rb_store_report_sections(struct rb_store *st, rb_report_count_fn fn,
			     void *payload)
{
	struct count_cb cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT subsystem, COUNT(*) FROM series"
				  " WHERE subsystem IS NOT NULL"
				  " GROUP BY subsystem ORDER BY 1",
				  NULL, 0, count_row, &cb);
}

struct next_cb {
	int (*fn)(const char *id, int64_t version, void *payload);
	void *payload;
};

static int next_row(const struct rb_dbrow *row, void *payload)
{
	struct next_cb *cb = payload;

	return cb->fn(rb_dbv_str(&row->v[0]), rb_dbv_int(&row->v[1]),
		      cb->payload);
}

int rb_store_report_next_versions(struct rb_store *st, const char *id,
				  int (*fn)(const char *id, int64_t version,
					    void *payload),
				  void *payload)
{
	struct next_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT id, version FROM series WHERE previous = ?"
		     " ORDER BY version, id",
		     next_row, &cb, RB_DB_TEXT(id));
}

struct patch_cb {
	int (*fn)(const struct rb_report_patch *p, void *payload);
	void *payload;
};

static int patch_row(const struct rb_dbrow *row, void *payload)
{
	struct patch_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_report_patch p = {
		.idx = rb_dbv_int(&v[0]),
		.message_id = rb_dbv_str(&v[1]),
		.subject = rb_dbv_str(&v[2]),
		.date = rb_dbv_int(&v[3]),
		.received_at = rb_dbv_int(&v[4]),
	};

	return cb->fn(&p, cb->payload);
}

int rb_store_report_patches(struct rb_store *st, const char *id,
			    int (*fn)(const struct rb_report_patch *p,
				      void *payload),
			    void *payload)
{
	struct patch_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT p.idx, p.message_id, m.subject, m.date,"
		     " m.received_at FROM patches p LEFT JOIN messages m"
		     " ON m.message_id = p.message_id WHERE"
		     " p.series_id = ? ORDER BY p.idx",
		     patch_row, &cb, RB_DB_TEXT(id));
}

int rb_store_report_send_latencies(struct rb_store *st,
				   int (*fn)(int64_t seconds, void *payload),
				   void *payload)
{
	struct rb_each_int cb = { fn, payload };

	return st->db->ops->query(
		st->db,
		"SELECT o.sent_at - (SELECT MAX(m.received_at) FROM patches p"
		" JOIN messages m ON m.message_id = p.message_id WHERE"
		" p.series_id = r.series_id) FROM reviews r JOIN outbox o ON"
		" o.message_id = r.message_id WHERE o.state = 'sent' AND"
		" o.sent_at IS NOT NULL AND EXISTS (SELECT 1 FROM patches p"
		" WHERE p.series_id = r.series_id) ORDER BY o.sent_at",
		NULL, 0, rb_store_each_int_row, &cb);
}

int rb_store_report_mails_by_series_day(struct rb_store *st,
					int (*fn)(int64_t day, int64_t n,
						  void *payload),
					void *payload)
{
	struct pair_cb cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT " SERIES_DATE " / 86400, COUNT(*)"
				  " FROM reviews r JOIN series s ON"
				  " s.id = r.series_id GROUP BY 1 ORDER BY 1",
				  NULL, 0, pair_row, &cb);
}
