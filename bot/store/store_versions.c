// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_versions.c - the versions of a series in the store. See
 * store_versions.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "bot/store/store_versions.h"
#include "util/err.h"
#include "util/banned.h"

struct id_version {
	char *id;
	int version;
};

static int id_version_row(const struct rb_dbrow *row, void *payload)
{
	struct id_version *r = payload;

	r->id = rb_dbv_strdup(&row->v[0]);
	r->version = (int)rb_dbv_int(&row->v[1]);
	return 1;
}

/*
 * The end of a query for one id_version: on success the row's id (the
 * caller's to free) and version, -RB_ENOTFOUND when there was no row, or
 * the query's error @ret.
 */
static int id_version_out(struct id_version *r, int ret, char **id,
			  int *version)
{
	if (ret) {
		free(r->id);
		return ret;
	}
	if (!r->id)
		return -RB_ENOTFOUND;
	*id = r->id;
	*version = r->version;
	return 0;
}

/* One candidate query; 0 with r->id set, or 0 with none. */
static int try_one(struct rb_store *st, struct id_version *r, const char *sql,
		   const struct rb_dbv *p, size_t n)
{
	return st->db->ops->query(st->db, sql, p, n, id_version_row, r);
}

/* What a previous-version query takes from struct rb_prev_query. */
enum prev_param {
	PP_SERIES,
	PP_VERSION,
	PP_ASSEMBLED,
	PP_B4,
	PP_AUTHOR,
	PP_TITLE
};

/*
 * The ways to find the previous version, in the order they are tried.
 * A way is tried only when each text it takes is known (not NULL, not
 * empty): a query on an unknown value finds nothing anyway.
 */
static const struct prev_way {
	const char *how;
	const char *sql;
	enum prev_param params[4];
	size_t n;
} prev_ways[] = {
	{ "assembly",
	  "SELECT id, version FROM series WHERE id = ? AND id <> ?",
	  { PP_ASSEMBLED, PP_SERIES },
	  2 },
	{ "b4-link",
	  "SELECT s.id, s.version FROM patches p JOIN"
	  " series s ON s.id = p.series_id WHERE"
	  " p.message_id = ? AND s.id <> ? AND"
	  " s.version < ? AND s.author = ?"
	  " ORDER BY s.first_seen DESC LIMIT 1",
	  { PP_B4, PP_SERIES, PP_VERSION, PP_AUTHOR },
	  4 },
	{ "change-id",
	  "SELECT o.id, o.version FROM series s JOIN"
	  " series o ON o.change_id = s.change_id WHERE"
	  " s.id = ? AND s.change_id IS NOT NULL AND"
	  " o.id <> s.id AND o.version < s.version AND"
	  " o.author = s.author"
	  " ORDER BY o.version DESC, o.first_seen DESC LIMIT 1",
	  { PP_SERIES },
	  1 },
	{ "author-title",
	  "SELECT id, version FROM series WHERE"
	  " author = ? AND lower(title) = lower(?) AND"
	  " id <> ? AND version < ?"
	  " ORDER BY version DESC, first_seen DESC LIMIT 1",
	  { PP_AUTHOR, PP_TITLE, PP_SERIES, PP_VERSION },
	  4 },
};

/* @w's parameters from @q into @p; false when one of them is unknown. */
static bool prev_params(struct rb_dbv *p, const struct prev_way *w,
			const struct rb_prev_query *q)
{
	const char *text[] = { [PP_SERIES] = q->series_id,
			       [PP_ASSEMBLED] = q->assembled,
			       [PP_B4] = q->b4_link,
			       [PP_AUTHOR] = q->author,
			       [PP_TITLE] = q->title };
	size_t i;

	for (i = 0; i < w->n; i++) {
		enum prev_param k = w->params[i];

		if (k == PP_VERSION) {
			p[i] = RB_DB_INT(q->version);
			continue;
		}
		if (!text[k] || !*text[k])
			return false;
		p[i] = RB_DB_TEXT(text[k]);
	}
	return true;
}

int rb_store_previous_version(struct rb_store *st,
			      const struct rb_prev_query *q, char **id,
			      int *version, const char **how)
{
	struct id_version r = { 0 };
	struct rb_dbv p[4];
	size_t i;
	int ret = 0;

	for (i = 0;
	     i < sizeof(prev_ways) / sizeof(prev_ways[0]) && !ret && !r.id;
	     i++) {
		if (!prev_params(p, &prev_ways[i], q))
			continue;
		ret = try_one(st, &r, prev_ways[i].sql, p, prev_ways[i].n);
		*how = prev_ways[i].how;
	}
	return id_version_out(&r, ret, id, version);
}

int rb_store_link_version(struct rb_store *st, const char *series_id,
			  const char *previous_id, int previous_version,
			  const char *how)
{
	return EXEC(st,
		    "INSERT INTO series_versions (series_id, previous_id,"
		    " previous_version, how) VALUES (?,?,?,?)"
		    " ON CONFLICT (series_id) DO UPDATE SET"
		    " previous_id = excluded.previous_id,"
		    " previous_version = excluded.previous_version,"
		    " how = excluded.how",
		    RB_DB_TEXT(series_id), RB_DB_TEXT(previous_id),
		    RB_DB_INT(previous_version), RB_DB_TEXT(how));
}

int rb_store_linked_version(struct rb_store *st, const char *series_id,
			    char **previous_id, int *previous_version)
{
	struct id_version r = { 0 };
	struct rb_dbv p = RB_DB_TEXT(series_id);
	int ret;

	ret = try_one(st, &r,
		      "SELECT previous_id, previous_version FROM"
		      " series_versions WHERE series_id = ?",
		      &p, 1);
	return id_version_out(&r, ret, previous_id, previous_version);
}

int rb_store_put_patch_id(struct rb_store *st, const char *series_id, int idx,
			  const char *patch_id, int unchanged_since)
{
	return EXEC(st,
		    "INSERT INTO patch_ids (series_id, idx, patch_id,"
		    " unchanged_since) VALUES (?,?,?,?)"
		    " ON CONFLICT (series_id, idx) DO UPDATE SET"
		    " patch_id = excluded.patch_id,"
		    " unchanged_since = excluded.unchanged_since",
		    RB_DB_TEXT(series_id), RB_DB_INT(idx), RB_DB_TEXT(patch_id),
		    unchanged_since ? RB_DB_INT(unchanged_since) : RB_DB_NULL);
}

struct pid_cb {
	int (*fn)(int idx, const char *patch_id, int unchanged_since,
		  void *payload);
	void *payload;
};

static int pid_row(const struct rb_dbrow *row, void *payload)
{
	struct pid_cb *cb = payload;
	const char *id = rb_dbv_str(&row->v[1]);

	return cb->fn((int)rb_dbv_int(&row->v[0]), id ? id : "",
		      (int)rb_dbv_int(&row->v[2]), cb->payload);
}

int rb_store_each_patch_id(struct rb_store *st, const char *series_id,
			   int (*fn)(int idx, const char *patch_id,
				     int unchanged_since, void *payload),
			   void *payload)
{
	struct pid_cb cb = { fn, payload };
	struct rb_dbv p = RB_DB_TEXT(series_id);

	return st->db->ops->query(st->db,
				  "SELECT idx, patch_id,"
				  " COALESCE(unchanged_since, 0) FROM patch_ids"
				  " WHERE series_id = ? ORDER BY idx",
				  &p, 1, pid_row, &cb);
}

struct prior_cb {
	struct rb_prior_finding *v;
	size_t n, cap;
	int version;
	int err;
};

static int prior_row(const struct rb_dbrow *row, void *payload)
{
	struct prior_cb *cb = payload;
	struct rb_prior_finding *f;

	if (cb->n == cb->cap) {
		size_t cap = cb->cap ? 2 * cb->cap : 16;
		struct rb_prior_finding *v = realloc(cb->v, cap * sizeof(*v));

		if (!v) {
			cb->err = rb_err(RB_ENOMEM, "out of memory");
			return 1;
		}
		cb->v = v;
		cb->cap = cap;
	}
	f = &cb->v[cb->n++];
	memset(f, 0, sizeof(*f));
	f->id = rb_dbv_int(&row->v[0]);
	f->fid = rb_dbv_strdup(&row->v[1]);
	f->patch_idx = (int)rb_dbv_int(&row->v[2]);
	f->checker = rb_dbv_strdup(&row->v[3]);
	f->category = rb_dbv_strdup(&row->v[4]);
	f->file = rb_dbv_strdup(&row->v[5]);
	f->line = (int)rb_dbv_int(&row->v[6]);
	f->code = rb_dbv_strdup(&row->v[7]);
	f->fingerprint = rb_dbv_strdup(&row->v[8]);
	f->judged = rb_dbv_int(&row->v[9]) > 0;
	f->version = cb->version;
	return 0;
}

int rb_store_prior_findings(struct rb_store *st, const char *series_id,
			    int version, struct rb_prior_finding **out,
			    size_t *n)
{
	struct prior_cb cb = { .version = version };
	struct rb_dbv p = RB_DB_TEXT(series_id);
	int ret;

	ret = st->db->ops->query(
		st->db,
		"SELECT f.id, f.fid, f.patch_idx, f.checker, f.category,"
		" f.file, f.line, f.code, f.fingerprint, (SELECT COUNT(*)"
		" FROM verdicts v WHERE v.review_msgid = f.review_msgid AND"
		" v.fid = f.fid AND v.authorised = 1) FROM findings f"
		" WHERE f.series_id = ? AND f.state = 'raised' AND"
		" f.outcome IS NULL ORDER BY f.id",
		&p, 1, prior_row, &cb);
	if (!ret)
		ret = cb.err;
	if (ret) {
		rb_prior_findings_free(cb.v, cb.n);
		return ret;
	}
	*out = cb.v;
	*n = cb.n;
	return 0;
}

void rb_prior_findings_free(struct rb_prior_finding *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].fid);
		free(v[i].checker);
		free(v[i].category);
		free(v[i].file);
		free(v[i].code);
		free(v[i].fingerprint);
	}
	free(v);
}

int rb_store_finding_fixed(struct rb_store *st, int64_t id, int version)
{
	return EXEC(st,
		    "UPDATE findings SET outcome = 'fixed', outcome_version = ?"
		    " WHERE id = ? AND outcome IS NULL",
		    RB_DB_INT(version), RB_DB_INT(id));
}

int rb_store_finding_versions(struct rb_store *st, const char *series_id,
			      int patch_idx, const char *fingerprint,
			      int64_t prior_id, int later_patch)
{
	return EXEC(st,
		    "UPDATE findings SET prior_id = ?, later_patch = ?"
		    " WHERE series_id = ? AND patch_idx = ? AND"
		    " fingerprint = ?",
		    prior_id ? RB_DB_INT(prior_id) : RB_DB_NULL,
		    later_patch ? RB_DB_INT(later_patch) : RB_DB_NULL,
		    RB_DB_TEXT(series_id), RB_DB_INT(patch_idx),
		    RB_DB_TEXT(fingerprint));
}

struct fixed_cb {
	int (*fn)(const char *group, int64_t n, void *payload);
	void *payload;
};

static int fixed_row(const struct rb_dbrow *row, void *payload)
{
	struct fixed_cb *cb = payload;
	const char *g = rb_dbv_str(&row->v[0]);

	return cb->fn(g ? g : "", rb_dbv_int(&row->v[1]), cb->payload);
}

int rb_store_report_fixed_later(struct rb_store *st, enum rb_fixed_group by,
				int (*fn)(const char *group, int64_t n,
					  void *payload),
				void *payload)
{
	/* Fixed strings, never input; the subsystem is the review's
	 * policy, as the precision reports group it. */
	static const char *const sql[] = {
		[RB_FIXED_ALL] = "SELECT '', COUNT(*) FROM findings f"
				 " WHERE f.state = 'raised' AND"
				 " f.outcome = 'fixed'",
		[RB_FIXED_CHECKER] = "SELECT f.checker, COUNT(*) FROM"
				     " findings f WHERE f.state = 'raised'"
				     " AND f.outcome = 'fixed' GROUP BY"
				     " f.checker ORDER BY 1",
		[RB_FIXED_SUBSYSTEM] = "SELECT COALESCE(r.subsystem, ''),"
				       " COUNT(*) FROM findings f LEFT JOIN"
				       " reviews r ON r.message_id ="
				       " f.review_msgid WHERE f.state ="
				       " 'raised' AND f.outcome = 'fixed'"
				       " GROUP BY COALESCE(r.subsystem, '')"
				       " ORDER BY 1",
	};
	struct fixed_cb cb = { fn, payload };

	if ((unsigned int)by >= sizeof(sql) / sizeof(sql[0]))
		return rb_err(RB_EINVAL, "stats: unknown group %d", by);
	return st->db->ops->query(st->db, sql[by], NULL, 0, fixed_row, &cb);
}

struct skip_totals {
	int64_t *v;
};

static int skip_row(const struct rb_dbrow *row, void *payload)
{
	struct skip_totals *t = payload;

	t->v[0] = rb_dbv_int(&row->v[0]);
	t->v[1] = rb_dbv_int(&row->v[1]);
	t->v[2] = rb_dbv_int(&row->v[2]);
	return 1;
}

int rb_store_report_versions(struct rb_store *st, int64_t *linked,
			     int64_t *parts, int64_t *unchanged)
{
	int64_t v[3] = { 0 };
	struct skip_totals t = { v };
	int ret;

	ret = st->db->ops->query(
		st->db,
		"SELECT (SELECT COUNT(*) FROM series_versions),"
		" (SELECT COUNT(*) FROM patch_ids),"
		" (SELECT COUNT(*) FROM patch_ids WHERE unchanged_since"
		" IS NOT NULL)",
		NULL, 0, skip_row, &t);
	*linked = v[0];
	*parts = v[1];
	*unchanged = v[2];
	return ret;
}
