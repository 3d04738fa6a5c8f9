// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_ledger.c - forwards, answers, requests, pauses and the blocking
 * ledger (migration 14). See store_ledger.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "util/err.h"
#include "util/banned.h"

/* The versions of a series the ledger follows back, at most. */
#define LEDGER_VERSIONS 16

/* --- reviews and findings --- */

void rb_review_row_release(struct rb_review_row *r)
{
	free(r->series_id);
	free(r->kind);
	free(r->policy);
	free(r->copy_of);
	memset(r, 0, sizeof(*r));
}

static int review_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_review_row *r = payload;

	r->series_id = rb_dbv_strdup(&row->v[0]);
	r->kind = rb_dbv_strdup(&row->v[1]);
	r->patch_idx = (int)rb_dbv_int(&row->v[2]);
	r->policy = rb_dbv_strdup(&row->v[3]);
	r->copy_of = rb_dbv_strdup(&row->v[4]);
	return r->series_id && r->kind ? 1 : rb_err(RB_ENOMEM, "out of memory");
}

int rb_store_review_row(struct rb_store *st, const char *message_id,
			struct rb_review_row *out)
{
	struct rb_review_row r = { 0 };
	int ret;

	ret = QUERY(st,
		    "SELECT series_id, kind, patch_idx, policy, copy_of"
		    " FROM reviews WHERE message_id = ?",
		    review_row, &r, RB_DB_TEXT(message_id));
	if (!ret && !r.series_id)
		ret = -RB_ENOTFOUND;
	if (ret) {
		rb_review_row_release(&r);
		return ret;
	}
	*out = r;
	return 0;
}

void rb_stored_finding_release(struct rb_stored_finding *f)
{
	free(f->series_id);
	free(f->review_msgid);
	free(f->fid);
	free(f->checker);
	free(f->checker_version);
	free(f->category);
	free(f->severity);
	free(f->file);
	free(f->code);
	free(f->message);
	free(f->state);
	memset(f, 0, sizeof(*f));
}

/* The columns FINDING_COLS names, from @row at @at, into @f. */
#define FINDING_COLS                                                         \
	" f.id, f.series_id, f.review_msgid, f.fid, f.patch_idx, f.checker," \
	" f.checker_version, f.category, f.severity, f.file, f.line,"        \
	" f.code, f.message, f.state"
#define FINDING_NCOLS 14

static int finding_from(struct rb_stored_finding *f, const struct rb_dbv *v)
{
	f->id = rb_dbv_int(&v[0]);
	f->series_id = rb_dbv_strdup(&v[1]);
	f->review_msgid = rb_dbv_strdup(&v[2]);
	f->fid = rb_dbv_strdup(&v[3]);
	f->patch_idx = (int)rb_dbv_int(&v[4]);
	f->checker = rb_dbv_strdup(&v[5]);
	f->checker_version = rb_dbv_strdup(&v[6]);
	f->category = rb_dbv_strdup(&v[7]);
	f->severity = rb_dbv_strdup(&v[8]);
	f->file = rb_dbv_strdup(&v[9]);
	f->line = (int)rb_dbv_int(&v[10]);
	f->code = rb_dbv_strdup(&v[11]);
	f->message = rb_dbv_strdup(&v[12]);
	f->state = rb_dbv_strdup(&v[13]);
	if (!f->series_id || !f->checker || !f->category || !f->severity ||
	    !f->message || !f->state)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

static int finding_row(const struct rb_dbrow *row, void *payload)
{
	int ret = finding_from(payload, row->v);

	return ret ? ret : 1;
}

int rb_store_finding_get(struct rb_store *st, const char *review_msgid,
			 const char *fid, struct rb_stored_finding *out)
{
	struct rb_stored_finding f = { 0 };
	int ret;

	ret = QUERY(st,
		    "SELECT" FINDING_COLS " FROM findings f"
		    " WHERE f.review_msgid = ? AND f.fid = ? LIMIT 1",
		    finding_row, &f, RB_DB_TEXT(review_msgid), RB_DB_TEXT(fid));
	if (!ret && !f.id)
		ret = -RB_ENOTFOUND;
	if (ret) {
		rb_stored_finding_release(&f);
		return ret;
	}
	*out = f;
	return 0;
}

/* --- forwards --- */

int rb_store_forwarded(struct rb_store *st, int64_t finding_id, char **by,
		       char **message_id)
{
	return TWO_TEXT(st, by, message_id,
			"SELECT by_addr, message_id FROM forwards"
			" WHERE finding_id = ?",
			RB_DB_INT(finding_id));
}

int rb_store_forward_add(struct rb_store *st, const struct rb_forward_rec *r)
{
	int ret;

	ret = EXEC(st,
		   "INSERT INTO forwards (finding_id, series_id, review_msgid,"
		   " fid, message_id, by_addr, reply_msgid, created_at)"
		   " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
		   RB_DB_INT(r->finding_id), RB_DB_TEXT(r->series_id),
		   RB_DB_TEXT(r->review_msgid), RB_DB_TEXT(r->fid),
		   RB_DB_TEXT(r->message_id), RB_DB_TEXT(r->by),
		   RB_DB_TEXT(r->reply_msgid), RB_DB_INT(rb_now()));
	if (!ret && !rb_store_changes(st))
		ret = -RB_EEXISTS;
	return ret;
}

/* --- answers and requests --- */

int rb_store_answer_add(struct rb_store *st, const char *review_msgid,
			const char *fid, const char *reply_msgid,
			const char *by, bool *added)
{
	int ret;

	ret = EXEC(st,
		   "INSERT INTO answers (review_msgid, fid, reply_msgid,"
		   " by_addr, created_at) VALUES (?,?,?,?,?)"
		   " ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(review_msgid), RB_DB_TEXT(fid),
		   RB_DB_TEXT(reply_msgid), RB_DB_TEXT(by),
		   RB_DB_INT(rb_now()));
	if (!ret && added)
		*added = rb_store_changes(st) > 0;
	return ret;
}

int rb_store_request_add(struct rb_store *st, const struct rb_request_rec *r)
{
	return EXEC(st,
		    "INSERT INTO requests (reply_msgid, verb, series_id, actor,"
		    " role, authorised, detail, created_at)"
		    " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
		    RB_DB_TEXT(r->reply_msgid), RB_DB_TEXT(r->verb),
		    RB_DB_TEXT(r->series_id), RB_DB_TEXT(r->actor),
		    RB_DB_TEXT(r->role), RB_DB_INT(r->authorised ? 1 : 0),
		    RB_DB_TEXT(r->detail), RB_DB_INT(rb_now()));
}

/* --- pause, resume, retry --- */

int rb_store_series_pause(struct rb_store *st, const char *series_id,
			  const char *by, bool *changed)
{
	int ret;

	ret = EXEC(st,
		   "INSERT INTO series_pause (series_id, by_addr, created_at)"
		   " VALUES (?,?,?) ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(series_id), RB_DB_TEXT(by), RB_DB_INT(rb_now()));
	if (ret)
		return ret;
	*changed = rb_store_changes(st) > 0;
	/* What is not out yet waits; a ledger notice to the maintainers
	 * does not (rb_store_add_outmail() says the same). */
	return EXEC(st,
		    "UPDATE outbox SET state = 'paused' WHERE series_id = ?"
		    " AND state IN ('queued', 'held') AND message_id NOT IN"
		    " (SELECT message_id FROM reviews WHERE series_id = ?"
		    " AND kind = 'ledger')",
		    RB_DB_TEXT(series_id), RB_DB_TEXT(series_id));
}

int rb_store_series_resume(struct rb_store *st, const char *series_id,
			   bool *changed)
{
	int ret;

	ret = EXEC(st, "DELETE FROM series_pause WHERE series_id = ?",
		   RB_DB_TEXT(series_id));
	if (ret)
		return ret;
	*changed = rb_store_changes(st) > 0;
	/* Its embargo, if any, still holds: held until send_after. */
	return EXEC(st,
		    "UPDATE outbox SET state = CASE WHEN send_after > ?"
		    " THEN 'held' ELSE 'queued' END"
		    " WHERE series_id = ? AND state = 'paused'",
		    RB_DB_INT(rb_now()), RB_DB_TEXT(series_id));
}

int rb_store_series_paused(struct rb_store *st, const char *series_id,
			   bool *out)
{
	struct rb_dbv p = RB_DB_TEXT(series_id);

	return rb_store_exists(st, out,
			       "SELECT COUNT(*) FROM series_pause"
			       " WHERE series_id = ?",
			       &p, 1);
}

int rb_store_series_requeue(struct rb_store *st, const char *series_id,
			    int64_t now, bool *out)
{
	int ret;

	ret = EXEC(st,
		   "UPDATE jobs SET state = 'ready', not_before = ?,"
		   " attempts = 0, owner = NULL, lease_until = NULL,"
		   " error = NULL, updated_at = ?"
		   " WHERE key = ? AND kind IN ('review', 'incomplete')"
		   " AND state <> 'running'",
		   RB_DB_INT(now), RB_DB_INT(now), RB_DB_TEXT(series_id));
	if (!ret)
		*out = rb_store_changes(st) > 0;
	return ret;
}

int rb_store_series_has_review(struct rb_store *st, const char *series_id,
			       bool *out)
{
	struct rb_dbv p = RB_DB_TEXT(series_id);

	return rb_store_exists(
		st, out,
		"SELECT COUNT(*) FROM reviews WHERE series_id = ?"
		" AND kind IN ('review', 'summary')",
		&p, 1);
}

/* --- the blocking ledger --- */

struct ids {
	char **v;
	size_t n, max;
};

static int id_row(const struct rb_dbrow *row, void *payload)
{
	struct ids *l = payload;
	char **v;

	if (l->n >= l->max)
		return 0;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->v = v;
	l->v[l->n] = rb_dbv_strdup(&row->v[0]);
	if (!l->v[l->n])
		return rb_err(RB_ENOMEM, "out of memory");
	l->n++;
	return 0;
}

void rb_store_series_ids_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int rb_store_series_by_patch_id(struct rb_store *st, const char *pid,
				size_t max, char ***out, size_t *n)
{
	struct ids l = { .max = max };
	int ret;

	*out = NULL;
	*n = 0;
	ret = QUERY(st,
		    "SELECT DISTINCT p.series_id, s.first_seen FROM messages m"
		    " JOIN patches p ON p.message_id = m.message_id"
		    " JOIN series s ON s.id = p.series_id"
		    " WHERE m.patch_id = ? AND p.idx > 0"
		    " ORDER BY s.first_seen, p.series_id LIMIT ?",
		    id_row, &l, RB_DB_TEXT(pid), RB_DB_INT((int64_t)max));
	if (ret) {
		rb_store_series_ids_free(l.v, l.n);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

int rb_store_tree_head(struct rb_store *st, const char *tree, char **head)
{
	struct rb_dbv p = RB_DB_TEXT(tree);
	char *h = NULL;
	int ret;

	ret = rb_db_query_text(st->db, &h,
			       "SELECT head FROM tree_heads WHERE tree = ?", &p,
			       1);
	if (!ret && !h)
		ret = -RB_ENOTFOUND;
	if (!ret)
		*head = h;
	return ret;
}

int rb_store_tree_head_set(struct rb_store *st, const char *tree,
			   const char *head)
{
	return EXEC(
		st,
		"INSERT INTO tree_heads (tree, head, scanned_at)"
		" VALUES (?,?,?) ON CONFLICT (tree) DO UPDATE"
		" SET head = excluded.head, scanned_at = excluded.scanned_at",
		RB_DB_TEXT(tree), RB_DB_TEXT(head), RB_DB_INT(rb_now()));
}

int rb_store_sighting_add(struct rb_store *st, const char *series_id,
			  const char *tree, const char *commit, int parts)
{
	int ret;

	ret = EXEC(st,
		   "INSERT INTO sightings (series_id, tree, commit_id, parts,"
		   " created_at) VALUES (?,?,?,?,?) ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(series_id), RB_DB_TEXT(tree), RB_DB_TEXT(commit),
		   RB_DB_INT(parts), RB_DB_INT(rb_now()));
	if (!ret && !rb_store_changes(st))
		ret = -RB_EEXISTS;
	return ret;
}

void rb_sightings_free(struct rb_sighting *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].series_id);
		free(v[i].tree);
		free(v[i].commit);
		free(v[i].state);
		free(v[i].message_id);
	}
	free(v);
}

struct sighting_list {
	struct rb_sighting *v;
	size_t n;
};

static int sighting_row(const struct rb_dbrow *row, void *payload)
{
	struct sighting_list *l = payload;
	struct rb_sighting *v = realloc(l->v, (l->n + 1) * sizeof(*v)), *s;

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->v = v;
	s = &v[l->n++];
	memset(s, 0, sizeof(*s));
	s->series_id = rb_dbv_strdup(&row->v[0]);
	s->tree = rb_dbv_strdup(&row->v[1]);
	s->commit = rb_dbv_strdup(&row->v[2]);
	s->parts = (int)rb_dbv_int(&row->v[3]);
	s->state = rb_dbv_strdup(&row->v[4]);
	s->message_id = rb_dbv_strdup(&row->v[5]);
	s->open = (int)rb_dbv_int(&row->v[6]);
	s->created_at = rb_dbv_int(&row->v[7]);
	s->decided_at = rb_dbv_int(&row->v[8]);
	if (!s->series_id || !s->tree || !s->commit || !s->state)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

#define SIGHTING_COLS                                                        \
	" g.series_id, g.tree, g.commit_id, g.parts, g.state, g.message_id," \
	" g.open_findings, g.created_at, g.decided_at"

static int sightings(struct rb_store *st, const char *sql, struct rb_dbv *p,
		     size_t np, struct rb_sighting **out, size_t *n)
{
	struct sighting_list l = { 0 };
	int ret = st->db->ops->query(st->db, sql, p, np, sighting_row, &l);

	if (ret) {
		rb_sightings_free(l.v, l.n);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

int rb_store_sightings_pending(struct rb_store *st, size_t max,
			       struct rb_sighting **out, size_t *n)
{
	struct rb_dbv p = RB_DB_INT((int64_t)max);

	/* A series still waiting for its parts or its trees has not said
	 * what it raises yet: decided when its review is over. */
	return sightings(st,
			 "SELECT" SIGHTING_COLS " FROM sightings g"
			 " JOIN series s ON s.id = g.series_id"
			 " WHERE g.state = 'pending' AND s.state NOT IN"
			 " ('waiting', 'apply_waiting')"
			 " ORDER BY g.created_at, g.series_id, g.tree LIMIT ?",
			 &p, 1, out, n);
}

int rb_store_sightings_of(struct rb_store *st, const char *series_id,
			  struct rb_sighting **out, size_t *n)
{
	struct rb_dbv p = RB_DB_TEXT(series_id);

	return sightings(st,
			 "SELECT" SIGHTING_COLS " FROM sightings g"
			 " WHERE g.series_id = ? ORDER BY g.created_at, g.tree",
			 &p, 1, out, n);
}

int rb_store_sighting_decide(struct rb_store *st, const char *series_id,
			     const char *tree, const char *state,
			     const char *message_id, int open)
{
	return EXEC(st,
		    "UPDATE sightings SET state = ?, message_id = ?,"
		    " open_findings = ?, decided_at = ?"
		    " WHERE series_id = ? AND tree = ?",
		    RB_DB_TEXT(state), RB_DB_TEXT(message_id), RB_DB_INT(open),
		    RB_DB_INT(rb_now()), RB_DB_TEXT(series_id),
		    RB_DB_TEXT(tree));
}

void rb_ledger_free(struct rb_ledger_item *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		rb_stored_finding_release(&v[i].f);
	free(v);
}

struct ledger_list {
	struct rb_ledger_item *v;
	size_t n;
};

static const char *ledger_state(int64_t k)
{
	static const char *const names[] = { "open", "answered", "fixed",
					     "judged" };

	return k >= 0 && k < 4 ? names[k] : "open";
}

static int ledger_row(const struct rb_dbrow *row, void *payload)
{
	struct ledger_list *l = payload;
	struct rb_ledger_item *v = realloc(l->v, (l->n + 1) * sizeof(*v)), *it;

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->v = v;
	it = &v[l->n++];
	memset(it, 0, sizeof(*it));
	it->state = ledger_state(rb_dbv_int(&row->v[FINDING_NCOLS]));
	it->version = (int)rb_dbv_int(&row->v[FINDING_NCOLS + 1]);
	return finding_from(&it->f, row->v);
}

int rb_store_ledger(struct rb_store *st, const char *series_id,
		    struct rb_ledger_item **out, size_t *n)
{
	struct ledger_list l = { 0 };
	char *chain[LEDGER_VERSIONS] = { NULL };
	size_t k, depth = 0;
	int ret = 0;

	chain[depth] = strdup(series_id);
	if (!chain[depth++])
		return rb_err(RB_ENOMEM, "out of memory");
	/* The versions before, oldest last; a loop in the links ends at
	 * the cap. */
	while (!ret && depth < LEDGER_VERSIONS) {
		struct rb_dbv p = RB_DB_TEXT(chain[depth - 1]);
		char *prev = NULL;

		ret = rb_db_query_text(st->db, &prev,
				       "SELECT previous_id FROM series_versions"
				       " WHERE series_id = ?",
				       &p, 1);
		if (ret == -RB_ENOTFOUND)
			ret = 0;
		if (ret || !prev)
			break;
		for (k = 0; k < depth && strcmp(chain[k], prev); k++)
			;
		if (k < depth) {
			free(prev);
			break;
		}
		chain[depth++] = prev;
	}
	/*
	 * A state per finding, the strongest first: an authorised verdict
	 * (judged), the line fixed in a later version, the author's answer
	 * quoting it; else open. A finding raised again in a later version
	 * is that one's business.
	 */
	for (k = depth; !ret && k > 0; k--)
		ret = QUERY(
			st,
			"SELECT" FINDING_COLS ", CASE WHEN EXISTS (SELECT 1"
			" FROM verdicts v WHERE v.review_msgid ="
			" f.review_msgid AND v.fid = f.fid AND"
			" v.authorised = 1) THEN 3 WHEN f.outcome = 'fixed'"
			" THEN 2 WHEN EXISTS (SELECT 1 FROM answers a WHERE"
			" a.review_msgid = f.review_msgid AND a.fid = f.fid)"
			" THEN 1 ELSE 0 END, s.version"
			" FROM findings f JOIN reviews r ON r.message_id ="
			" f.review_msgid JOIN series s ON s.id = f.series_id"
			" WHERE f.series_id = ? AND f.state = 'raised' AND"
			" r.policy = 'blocking' AND r.copy_of IS NULL AND"
			" NOT EXISTS (SELECT 1 FROM findings g WHERE"
			" g.prior_id = f.id AND g.series_id <> f.series_id)"
			" ORDER BY f.id",
			ledger_row, &l, RB_DB_TEXT(chain[k - 1]));
	for (k = 0; k < depth; k++)
		free(chain[k]);
	if (ret) {
		rb_ledger_free(l.v, l.n);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void rb_request_rows_free(struct rb_request_row *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].reply_msgid);
		free(v[i].verb);
		free(v[i].actor);
		free(v[i].role);
		free(v[i].detail);
	}
	free(v);
}

struct request_list {
	struct rb_request_row *v;
	size_t n;
};

static int request_row(const struct rb_dbrow *row, void *payload)
{
	struct request_list *l = payload;
	struct rb_request_row *v = realloc(l->v, (l->n + 1) * sizeof(*v)), *r;

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->v = v;
	r = &v[l->n++];
	memset(r, 0, sizeof(*r));
	r->reply_msgid = rb_dbv_strdup(&row->v[0]);
	r->verb = rb_dbv_strdup(&row->v[1]);
	r->actor = rb_dbv_strdup(&row->v[2]);
	r->role = rb_dbv_strdup(&row->v[3]);
	r->authorised = rb_dbv_int(&row->v[4]) != 0;
	r->detail = rb_dbv_strdup(&row->v[5]);
	r->created_at = rb_dbv_int(&row->v[6]);
	return r->reply_msgid && r->verb ? 0 :
					   rb_err(RB_ENOMEM, "out of memory");
}

int rb_store_requests_of(struct rb_store *st, const char *series_id,
			 struct rb_request_row **out, size_t *n)
{
	struct request_list l = { 0 };
	int ret;

	/* Who asked what is the maintainers' business: not in the public
	 * view (store_reports.h). */
	ret = QUERY(st,
		    "SELECT reply_msgid, verb, actor, role, authorised, detail,"
		    " created_at FROM requests WHERE series_id = ? AND ? = 0"
		    " ORDER BY created_at, reply_msgid, verb",
		    request_row, &l, RB_DB_TEXT(series_id),
		    RB_DB_INT(st->public_view));
	if (ret) {
		rb_request_rows_free(l.v, l.n);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}
