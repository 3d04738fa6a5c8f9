// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_jobs.c - the job queue and its leases, the workers table and the
 * ingest lock. See store_jobs.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* --- jobs --- */

void rb_job_release(struct rb_job *j)
{
	free(j->kind);
	free(j->key);
	memset(j, 0, sizeof(*j));
}

int rb_store_job_add(struct rb_store *st, const char *kind, const char *key,
		     int64_t not_before)
{
	int64_t now = rb_now();
	int ret;

	ret = EXEC(st,
		   "INSERT INTO jobs (kind, key, not_before, created_at,"
		   " updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(kind), RB_DB_TEXT(key), RB_DB_INT(not_before),
		   RB_DB_INT(now), RB_DB_INT(now));
	if (ret)
		return ret;
	return rb_store_changes(st) ? 0 : -RB_EEXISTS;
}

int rb_store_job_cancel(struct rb_store *st, const char *kind, const char *key)
{
	return EXEC(st,
		    "UPDATE jobs SET state = 'done', updated_at = ?"
		    " WHERE kind = ? AND key = ? AND state = 'ready'",
		    RB_DB_INT(rb_now()), RB_DB_TEXT(kind), RB_DB_TEXT(key));
}

static int job_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_job *j = payload;

	j->id = row->v[0].i;
	j->kind = rb_dbv_strdup(&row->v[1]);
	j->key = rb_dbv_strdup(&row->v[2]);
	j->attempts = (int)row->v[3].i;
	j->lost = (int)row->v[4].i;
	return j->kind && j->key ? 1 : rb_err(RB_ENOMEM, "out of memory");
}

int rb_store_job_claim(struct rb_store *st, const char *owner,
		       int lease_seconds, struct rb_job *out)
{
	int64_t now = rb_now();
	struct rb_dbv p[] = { RB_DB_TEXT(owner), RB_DB_INT(now + lease_seconds),
			      RB_DB_INT(now), RB_DB_INT(now), RB_DB_INT(now) };
	struct rb_job j = { 0 };
	int ret;

	/*
	 * Ready jobs, and running ones whose worker's lease ran out. A job
	 * still in hand was left by a claim that never ended: that one is
	 * counted as lost now, in the claim's own transaction, before any
	 * work (the SET expressions read the row as it was).
	 */
	ret = rb_store_claim_query(
		st,
		"UPDATE jobs SET state = 'running',"
		" owner = ?, lost_by = CASE WHEN"
		" state = 'running' THEN owner ELSE NULL"
		" END, lease_until = ?,"
		" attempts = attempts + 1, lost = lost + in_hand,"
		" in_hand = 1, updated_at = ?"
		" WHERE id = (SELECT id FROM jobs"
		" WHERE (state = 'ready' AND not_before <= ?)"
		" OR (state = 'running' AND lease_until < ?)"
		" ORDER BY lost + in_hand, id LIMIT 1{{SKIP_LOCKED}})"
		" RETURNING id, kind, key, attempts, lost",
		p, 5, job_row, &j);
	if (!ret)
		*out = j;
	else
		rb_job_release(&j);
	return ret;
}

int rb_store_job_done(struct rb_store *st, int64_t id, const char *error)
{
	return EXEC(st,
		    "UPDATE jobs SET state = ?, error = ?, owner = NULL,"
		    " lease_until = NULL, in_hand = 0, updated_at = ?"
		    " WHERE id = ?",
		    RB_DB_TEXT(error ? "failed" : "done"), RB_DB_TEXT(error),
		    RB_DB_INT(rb_now()), RB_DB_INT(id));
}

int rb_store_job_done_by(struct rb_store *st, int64_t id, const char *owner,
			 const char *error)
{
	int ret;

	ret = EXEC(st,
		   "UPDATE jobs SET state = ?, error = ?, owner = NULL,"
		   " lease_until = NULL, in_hand = 0, updated_at = ?"
		   " WHERE id = ? AND state = 'running' AND owner = ?",
		   RB_DB_TEXT(error ? "failed" : "done"), RB_DB_TEXT(error),
		   RB_DB_INT(rb_now()), RB_DB_INT(id), RB_DB_TEXT(owner));
	if (ret)
		return ret;
	if (!rb_store_changes(st))
		return rb_err(RB_ELOCKED,
			      "job %lld: the lease of %s ran out and another "
			      "worker took it over",
			      (long long)id, owner);
	return 0;
}

int rb_store_job_retry(struct rb_store *st, int64_t id, int64_t not_before,
		       const char *error)
{
	return EXEC(st,
		    "UPDATE jobs SET state = 'ready', error = ?, owner = NULL,"
		    " lease_until = NULL, in_hand = 0, not_before = ?,"
		    " updated_at = ? WHERE id = ?",
		    RB_DB_TEXT(error), RB_DB_INT(not_before),
		    RB_DB_INT(rb_now()), RB_DB_INT(id));
}

int rb_store_job_renew(struct rb_store *st, int64_t id, const char *owner,
		       int64_t until)
{
	return EXEC(st,
		    "UPDATE jobs SET lease_until = ?"
		    " WHERE id = ? AND owner = ?"
		    " AND state = 'running'",
		    RB_DB_INT(until), RB_DB_INT(id), RB_DB_TEXT(owner));
}

int rb_store_job_reset_running(struct rb_store *st)
{
	return EXEC(
		st,
		"UPDATE jobs SET state = 'ready', owner = NULL,"
		" lease_until = NULL, updated_at = ? WHERE state = 'running'",
		RB_DB_INT(rb_now()));
}

int rb_store_job_state(struct rb_store *st, int64_t id, char **state,
		       char **lost_by)
{
	struct rb_dbv p = RB_DB_INT(id);
	int ret;

	*state = NULL;
	if (lost_by)
		*lost_by = NULL;
	ret = rb_db_query_text(st->db, state,
			       "SELECT state FROM jobs WHERE id = ?", &p, 1);
	if (!ret && lost_by)
		ret = rb_db_query_text(st->db, lost_by,
				       "SELECT lost_by FROM jobs WHERE id = ?",
				       &p, 1);
	return ret;
}

int rb_store_next_due(struct rb_store *st, int64_t *out)
{
	int64_t jobs = 0, mail = 0;
	int ret;

	ret = rb_db_query_int(st->db, &jobs,
			      "SELECT COALESCE(MIN(not_before), 0) FROM jobs"
			      " WHERE state = 'ready'",
			      NULL, 0);
	if (!ret)
		ret = rb_db_query_int(st->db, &mail,
				      "SELECT COALESCE(MIN(send_after), 0)"
				      " FROM outbox WHERE state IN"
				      " ('queued', 'held')",
				      NULL, 0);
	if (ret)
		return ret;
	*out = !jobs ? mail : !mail ? jobs : jobs < mail ? jobs : mail;
	return 0;
}

/* --- workers (migration 3) --- */

/* Column names: fixed strings, never input. */
static const char *const counters[] = {
	[RB_METRIC_CLAIMED] = "claimed",
	[RB_METRIC_DONE] = "done",
	[RB_METRIC_FAILED] = "failed",
	[RB_METRIC_LEASE_EXPIRED] = "lease_expiries",
};

int rb_store_worker_register(struct rb_store *st, const struct rb_worker *w)
{
	int64_t now = rb_now();

	return EXEC(st,
		    "INSERT INTO workers (name, role, host, pid, state,"
		    " started_at, seen_at) VALUES (?, ?, ?, ?, 'idle', ?, ?)"
		    " ON CONFLICT (name) DO UPDATE SET role = excluded.role,"
		    " host = excluded.host, pid = excluded.pid, state = 'idle',"
		    " started_at = excluded.started_at,"
		    " seen_at = excluded.seen_at",
		    RB_DB_TEXT(w->name), RB_DB_TEXT(w->role),
		    RB_DB_TEXT(w->host), RB_DB_INT(w->pid), RB_DB_INT(now),
		    RB_DB_INT(now));
}

int rb_store_worker_state(struct rb_store *st, const char *name,
			  const char *state)
{
	return EXEC(st,
		    "UPDATE workers SET state = ?, seen_at = ?"
		    " WHERE name = ?",
		    RB_DB_TEXT(state), RB_DB_INT(rb_now()), RB_DB_TEXT(name));
}

int rb_store_worker_count(struct rb_store *st, const char *name,
			  enum rb_metric m)
{
	struct rb_buf sql = RB_BUF_INIT(512);
	int ret;

	if ((unsigned int)m >= sizeof(counters) / sizeof(counters[0]))
		return rb_err(RB_EINVAL, "metrics: unknown counter %d", m);
	ret = rb_buf_printf(&sql,
			    "UPDATE workers SET %s = %s + 1, seen_at = ?"
			    " WHERE name = ?",
			    counters[m], counters[m]);
	if (!ret)
		ret = EXEC(st, sql.ptr, RB_DB_INT(rb_now()), RB_DB_TEXT(name));
	rb_buf_release(&sql);
	return ret;
}

int rb_store_worker_seen(struct rb_store *st, const char *name, int64_t now)
{
	return EXEC(st, "UPDATE workers SET seen_at = ? WHERE name = ?",
		    RB_DB_INT(now), RB_DB_TEXT(name));
}

/* --- the ingest lock --- */

/* The key of the ingest role's advisory lock: "rb_inges" in ASCII. */
#define INGEST_LOCK_KEY 0x72625f696e676573LL

int rb_store_ingest_lock(struct rb_store *st, bool *got)
{
	return st->db->ops->try_lock(st->db, INGEST_LOCK_KEY, got);
}

int rb_store_ingest_lock_held(struct rb_store *st, bool *held)
{
	return st->db->ops->lock_held(st->db, INGEST_LOCK_KEY, held);
}
