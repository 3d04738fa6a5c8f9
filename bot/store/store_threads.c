// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_threads.c - threads, proposed verdicts and notes in the store.
 * See store_threads.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "bot/store/store_threads.h"
#include "bot/store/store_verdicts.h"
#include "util/err.h"
#include "util/banned.h"

struct reply_cb {
	int (*fn)(const struct rb_thread_reply *r, void *payload);
	void *payload;
};

static int reply_row(const struct rb_dbrow *row, void *payload)
{
	struct reply_cb *cb = payload;
	struct rb_thread_reply r = {
		.message_id = rb_dbv_str(&row->v[0]),
		.from_addr = rb_dbv_str(&row->v[1]),
		.kind = rb_dbv_str(&row->v[2]),
		.reason = rb_dbv_str(&row->v[3]),
		.date = rb_dbv_int(&row->v[4]),
	};

	if (!r.message_id)
		return 0;
	return cb->fn(&r, cb->payload);
}

int rb_store_each_reply_to(struct rb_store *st, const char *parent, int64_t max,
			   int (*fn)(const struct rb_thread_reply *r,
				     void *payload),
			   void *payload)
{
	struct reply_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT message_id, from_addr, kind, reason,"
		     " COALESCE(date, 0) FROM messages WHERE"
		     " in_reply_to = ? AND state = 'parsed'"
		     " ORDER BY date, message_id LIMIT ?",
		     reply_row, &cb, RB_DB_TEXT(parent), RB_DB_INT(max));
}

int rb_store_thread_quote_add(struct rb_store *st,
			      const struct rb_thread_quote_rec *q)
{
	return EXEC(st,
		    "INSERT INTO thread_quotes (series_id, reply_msgid, n,"
		    " patch_idx, prev_id, prev_version, prev_idx, source,"
		    " file, line, code, state) VALUES"
		    " (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (series_id,"
		    " reply_msgid, n) DO UPDATE SET patch_idx ="
		    " excluded.patch_idx, file = excluded.file, line ="
		    " excluded.line, code = excluded.code, state ="
		    " excluded.state",
		    RB_DB_TEXT(q->series_id), RB_DB_TEXT(q->reply_msgid),
		    RB_DB_INT(q->n),
		    q->patch_idx ? RB_DB_INT(q->patch_idx) : RB_DB_NULL,
		    RB_DB_TEXT(q->prev_id), RB_DB_INT(q->prev_version),
		    RB_DB_INT(q->prev_idx), RB_DB_TEXT(q->source),
		    RB_DB_TEXT(q->file), RB_DB_INT(q->line),
		    RB_DB_TEXT(q->code), RB_DB_TEXT(q->state));
}

int rb_store_finding_quoted(struct rb_store *st, const char *series_id,
			    int patch_idx, const char *fingerprint,
			    const char *quoted)
{
	return EXEC(st,
		    "UPDATE findings SET quoted = ? WHERE series_id = ? AND"
		    " patch_idx = ? AND fingerprint = ?",
		    RB_DB_TEXT(quoted), RB_DB_TEXT(series_id),
		    RB_DB_INT(patch_idx), RB_DB_TEXT(fingerprint));
}

int rb_store_verdict_comment(struct rb_store *st, const char *reply_msgid,
			     const char *fid, const char *comment)
{
	return EXEC(st,
		    "UPDATE verdicts SET comment = ? WHERE reply_msgid = ?"
		    " AND fid = ?",
		    RB_DB_TEXT(comment), RB_DB_TEXT(reply_msgid),
		    RB_DB_TEXT(fid));
}

int rb_store_verdict_propose(struct rb_store *st,
			     const struct rb_verdict_rec *v,
			     const char *comment, const char *guessed_by)
{
	int ret;

	/* Not authorised until an admin confirms it: every report and
	 * every suppression asks for authorised = 1. */
	ret = EXEC(st,
		   "INSERT INTO verdicts (reply_msgid, review_msgid, fid,"
		   " fingerprint, verdict, judge, authorised, reason,"
		   " created_at, role, owner, comment, proposed, guessed_by)"
		   " VALUES (?,?,?,?,?,?,0,?,?,?,?,?,1,?)"
		   " ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(v->reply_msgid), RB_DB_TEXT(v->review_msgid),
		   RB_DB_TEXT(v->fid), RB_DB_TEXT(v->fingerprint),
		   RB_DB_TEXT(v->verdict), RB_DB_TEXT(v->judge),
		   RB_DB_TEXT(v->reason), RB_DB_INT(rb_now()),
		   RB_DB_TEXT(v->authorised ? v->role : NULL),
		   RB_DB_TEXT(v->owner), RB_DB_TEXT(comment),
		   RB_DB_TEXT(guessed_by));
	if (ret)
		return ret;
	return rb_store_changes(st) ? 0 : -RB_EEXISTS;
}

#define PROPOSAL_COLS                                                     \
	"SELECT v.id, r.series_id, v.review_msgid, v.reply_msgid, v.fid," \
	" v.verdict, v.judge, v.role, v.comment, v.guessed_by,"           \
	" v.confirmed_by, r.subsystem, v.proposed, v.authorised,"         \
	" v.created_at FROM verdicts v LEFT JOIN reviews r ON"            \
	" r.message_id = v.review_msgid"

struct proposal_cb {
	int (*fn)(const struct rb_proposal *p, void *payload);
	void *payload;
	bool found;
};

static int proposal_row(const struct rb_dbrow *row, void *payload)
{
	struct proposal_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_proposal p = {
		.id = rb_dbv_int(&v[0]),
		.series_id = rb_dbv_str(&v[1]),
		.review_msgid = rb_dbv_str(&v[2]),
		.reply_msgid = rb_dbv_str(&v[3]),
		.fid = rb_dbv_str(&v[4]),
		.verdict = rb_dbv_str(&v[5]),
		.judge = rb_dbv_str(&v[6]),
		.role = rb_dbv_str(&v[7]),
		.comment = rb_dbv_str(&v[8]),
		.guessed_by = rb_dbv_str(&v[9]),
		.confirmed_by = rb_dbv_str(&v[10]),
		.subsystem = rb_dbv_str(&v[11]),
		.proposed = (int)rb_dbv_int(&v[12]),
		.authorised = rb_dbv_int(&v[13]) != 0,
		.created_at = rb_dbv_int(&v[14]),
	};

	cb->found = true;
	return cb->fn(&p, cb->payload);
}

int rb_store_each_proposal(struct rb_store *st, bool pending,
			   int (*fn)(const struct rb_proposal *p,
				     void *payload),
			   void *payload)
{
	struct proposal_cb cb = { fn, payload, false };

	return QUERY(st,
		     PROPOSAL_COLS
		     " WHERE v.proposed >= ? AND v.proposed"
		     " <= ? ORDER BY v.created_at DESC, v.id DESC",
		     proposal_row, &cb, RB_DB_INT(1),
		     RB_DB_INT(pending ? 1 : 3));
}

int rb_store_verdict_get(struct rb_store *st, int64_t id,
			 int (*fn)(const struct rb_proposal *p, void *payload),
			 void *payload)
{
	struct proposal_cb cb = { fn, payload, false };
	int ret;

	ret = QUERY(st, PROPOSAL_COLS " WHERE v.id = ?", proposal_row, &cb,
		    RB_DB_INT(id));
	if (!ret && !cb.found)
		return rb_err(RB_ENOTFOUND, "no verdict %lld", (long long)id);
	return ret;
}

struct decide {
	bool found, allowed, guess;
};

static int decide_row(const struct rb_proposal *p, void *payload)
{
	struct decide *d = payload;

	d->found = p->proposed == 1;
	d->allowed = p->role != NULL;
	d->guess = p->verdict != NULL;
	return 1;
}

int rb_store_proposal_decide(struct rb_store *st, int64_t id, bool confirm,
			     const char *verdict, const char *by)
{
	struct decide d = { 0 };
	int ret;

	ret = rb_store_verdict_get(st, id, decide_row, &d);
	if (ret == -RB_ENOTFOUND || (!ret && !d.found))
		return rb_err(RB_ENOTFOUND,
			      "verdict %lld is not a proposal awaiting an "
			      "admin",
			      (long long)id);
	if (ret)
		return ret;
	if (!confirm)
		return EXEC(st,
			    "UPDATE verdicts SET proposed = 3, confirmed_by"
			    " = ?, confirmed_at = ? WHERE id = ?",
			    RB_DB_TEXT(by), RB_DB_INT(rb_now()), RB_DB_INT(id));
	if (!d.allowed)
		return rb_err(RB_EINVAL,
			      "verdict %lld: its sender may not judge that "
			      "series (refused when the reply came); reject "
			      "it instead",
			      (long long)id);
	if (!verdict && !d.guess)
		return rb_err(RB_EINVAL,
			      "verdict %lld: the reply's words are unclear; "
			      "say which verdict (--as)",
			      (long long)id);
	return EXEC(st,
		    "UPDATE verdicts SET proposed = 2, authorised = 1,"
		    " verdict = COALESCE(?, verdict), reason = NULL,"
		    " confirmed_by = ?, confirmed_at = ? WHERE id = ?",
		    RB_DB_TEXT(verdict), RB_DB_TEXT(by), RB_DB_INT(rb_now()),
		    RB_DB_INT(id));
}

int rb_store_note_add(struct rb_store *st, const char *section,
		      const char *text, int64_t verdict_id,
		      const char *added_by, int64_t *id)
{
	char buf[RB_NOTE_MAX + 1];
	int ret;

	snprintf(buf, sizeof(buf), "%s", text);
	ret = EXEC(st,
		   "INSERT INTO notes (section, text, state, verdict_id,"
		   " added_by, created_at) VALUES (?,?,'approved',?,?,?)",
		   RB_DB_TEXT(section), RB_DB_TEXT(buf),
		   verdict_id ? RB_DB_INT(verdict_id) : RB_DB_NULL,
		   RB_DB_TEXT(added_by), RB_DB_INT(rb_now()));
	if (!ret && id)
		ret = rb_db_query_int(st->db, id, "SELECT MAX(id) FROM notes",
				      NULL, 0);
	return ret;
}

int rb_store_note_remove(struct rb_store *st, int64_t id)
{
	int ret = EXEC(st,
		       "UPDATE notes SET state = 'removed', removed_at = ?"
		       " WHERE id = ? AND state = 'approved'",
		       RB_DB_INT(rb_now()), RB_DB_INT(id));

	if (!ret && !rb_store_changes(st))
		return rb_err(RB_ENOTFOUND, "no approved note %lld",
			      (long long)id);
	return ret;
}

struct note_cb {
	int (*fn)(const struct rb_note *n, void *payload);
	void *payload;
};

static int note_row(const struct rb_dbrow *row, void *payload)
{
	struct note_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_note n = {
		.id = rb_dbv_int(&v[0]),
		.section = rb_dbv_str(&v[1]),
		.text = rb_dbv_str(&v[2]),
		.state = rb_dbv_str(&v[3]),
		.verdict_id = rb_dbv_int(&v[4]),
		.added_by = rb_dbv_str(&v[5]),
		.created_at = rb_dbv_int(&v[6]),
	};

	if (!n.section || !n.text)
		return 0;
	return cb->fn(&n, cb->payload);
}

int rb_store_each_note(struct rb_store *st, const char *section, bool approved,
		       int (*fn)(const struct rb_note *n, void *payload),
		       void *payload)
{
	struct note_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT id, section, text, state,"
		     " COALESCE(verdict_id, 0), added_by, created_at FROM"
		     " notes WHERE (? = '' OR section = ?) AND (? = 0 OR"
		     " state = 'approved') ORDER BY id",
		     note_row, &cb, RB_DB_TEXT(section ? section : ""),
		     RB_DB_TEXT(section ? section : ""), RB_DB_INT(approved));
}

static int threads_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_report_threads *r = payload;
	int64_t *f[] = { &r->quoted_unchanged,
			 &r->quoted_changed,
			 &r->quoted_bot,
			 &r->findings_dropped,
			 &r->findings_marked,
			 &r->verdicts_explicit,
			 &r->verdicts_with_reason,
			 &r->proposed_pending,
			 &r->proposed_confirmed,
			 &r->proposed_rejected,
			 &r->notes };
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]) && i < row->n; i++)
		*f[i] = rb_dbv_int(&row->v[i]);
	return 1;
}

int rb_store_report_threads(struct rb_store *st, struct rb_report_threads *r)
{
	memset(r, 0, sizeof(*r));
	return st->db->ops->query(
		st->db,
		"SELECT"
		" (SELECT COUNT(*) FROM thread_quotes WHERE state ="
		" 'unchanged'),"
		" (SELECT COUNT(*) FROM thread_quotes WHERE state ="
		" 'changed'),"
		" (SELECT COUNT(*) FROM thread_quotes WHERE source = 'bot'"
		" AND state = 'unchanged'),"
		" (SELECT COUNT(*) FROM findings WHERE quoted IS NOT NULL"
		" AND state <> 'raised'),"
		" (SELECT COUNT(*) FROM findings WHERE quoted IS NOT NULL"
		" AND state = 'raised'),"
		" (SELECT COUNT(*) FROM verdicts WHERE authorised = 1 AND"
		" proposed = 0 AND verdict IS NOT NULL),"
		" (SELECT COUNT(*) FROM verdicts WHERE comment IS NOT NULL),"
		" (SELECT COUNT(*) FROM verdicts WHERE proposed = 1),"
		" (SELECT COUNT(*) FROM verdicts WHERE proposed = 2),"
		" (SELECT COUNT(*) FROM verdicts WHERE proposed = 3),"
		" (SELECT COUNT(*) FROM notes WHERE state = 'approved')",
		NULL, 0, threads_row, r);
}
