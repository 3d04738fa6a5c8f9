// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_verdicts.c - findings, the verdicts given on them and the
 * feedback stage's record of each reply. See store_verdicts.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* --- findings --- */

int rb_store_add_finding(struct rb_store *st, const char *series_id,
			 const char *review_msgid, const char *fid,
			 const struct rb_finding *f, const char *state)
{
	return EXEC(st,
		    "INSERT INTO findings (series_id, review_msgid, fid,"
		    " patch_idx, checker, checker_version, category, severity,"
		    " file, line, code, message, fingerprint, state,"
		    " created_at, prompt, severity_reason, verifier_reason)"
		    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		    RB_DB_TEXT(series_id), RB_DB_TEXT(review_msgid),
		    RB_DB_TEXT(fid), RB_DB_INT(f->patch_index),
		    RB_DB_TEXT(f->checker), RB_DB_TEXT(f->checker_version),
		    RB_DB_TEXT(f->category),
		    RB_DB_TEXT(rb_fsev_name(f->severity)), RB_DB_TEXT(f->file),
		    RB_DB_INT(f->line), RB_DB_TEXT(f->code),
		    RB_DB_TEXT(f->message), RB_DB_TEXT(f->fingerprint),
		    RB_DB_TEXT(state), RB_DB_INT(rb_now()),
		    RB_DB_TEXT(f->prompt[0] ? f->prompt : NULL),
		    RB_DB_TEXT(f->severity_reason),
		    RB_DB_TEXT(f->verifier_reason));
}

int rb_store_finding_of(struct rb_store *st, const char *review_msgid,
			const char *fid, char **fingerprint, char **file)
{
	int ret;

	*fingerprint = NULL;
	*file = NULL;
	ret = TWO_TEXT(st, fingerprint, file,
		       "SELECT fingerprint, file FROM findings"
		       " WHERE review_msgid = ? AND fid = ? LIMIT 1",
		       RB_DB_TEXT(review_msgid), RB_DB_TEXT(fid));
	return ret == -RB_ENOTFOUND ? 0 : ret;
}

/* --- verdicts --- */

int rb_store_verdict_add(struct rb_store *st, const struct rb_verdict_rec *v)
{
	int ret;

	ret = EXEC(st,
		   "INSERT INTO verdicts (reply_msgid, review_msgid, fid,"
		   " fingerprint, verdict, judge, authorised, reason,"
		   " created_at, role, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
		   " ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(v->reply_msgid), RB_DB_TEXT(v->review_msgid),
		   RB_DB_TEXT(v->fid), RB_DB_TEXT(v->fingerprint),
		   RB_DB_TEXT(v->verdict), RB_DB_TEXT(v->judge),
		   RB_DB_INT(v->authorised), RB_DB_TEXT(v->reason),
		   RB_DB_INT(rb_now()), RB_DB_TEXT(v->role),
		   RB_DB_TEXT(v->owner));
	if (ret)
		return ret;
	return rb_store_changes(st) ? 0 : -RB_EEXISTS;
}

int rb_store_fingerprint_rejected(struct rb_store *st, const char *fp,
				  bool *out)
{
	struct rb_dbv p = RB_DB_TEXT(fp);

	return rb_store_exists(st, out,
			       "SELECT COUNT(*) FROM verdicts WHERE"
			       " fingerprint = ? AND authorised = 1 AND"
			       " verdict = 'false_positive'",
			       &p, 1);
}

static int fp_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_fp_verdicts *l = payload;
	struct rb_fp_verdict *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->v = v;
	v = &l->v[l->n++];
	v->fp = rb_dbv_strdup(&row->v[0]);
	v->judge = rb_dbv_strdup(&row->v[1]);
	v->role = rb_dbv_strdup(&row->v[2]);
	v->owner = rb_dbv_strdup(&row->v[3]);
	return 0;
}

void rb_fp_verdicts_release(struct rb_fp_verdicts *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].fp);
		free(l->v[i].judge);
		free(l->v[i].role);
		free(l->v[i].owner);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The verdicts @sql selects as (fingerprint, judge, role, owner). */
static int fp_verdicts(struct rb_store *st, struct rb_fp_verdicts *out,
		       const char *sql, const struct rb_dbv *p, size_t n)
{
	struct rb_fp_verdicts l = { 0 };
	int ret = st->db->ops->query(st->db, sql, p, n, fp_row, &l);

	if (ret) {
		rb_fp_verdicts_release(&l);
		return ret;
	}
	*out = l;
	return 0;
}

int rb_store_fp_verdicts(struct rb_store *st, const char *fp,
			 struct rb_fp_verdicts *out)
{
	struct rb_dbv p = RB_DB_TEXT(fp);

	return fp_verdicts(
		st, out,
		"SELECT fingerprint, judge, role, owner FROM verdicts"
		" WHERE fingerprint = ? AND authorised = 1 AND"
		" verdict = 'false_positive' ORDER BY id",
		&p, 1);
}

int rb_store_fp_verdicts_similar(struct rb_store *st, const char *checker,
				 const char *category, const char *file,
				 struct rb_fp_verdicts *out)
{
	struct rb_dbv p[] = { RB_DB_TEXT(checker), RB_DB_TEXT(category),
			      RB_DB_TEXT(file ? file : "") };

	return fp_verdicts(
		st, out,
		"SELECT v.fingerprint, v.judge, v.role, v.owner FROM"
		" verdicts v WHERE v.authorised = 1 AND"
		" v.verdict = 'false_positive' AND v.role IN ('admin',"
		" 'maintainer', 'reviewer') AND EXISTS (SELECT 1 FROM"
		" findings f WHERE f.fingerprint = v.fingerprint AND"
		" f.checker = ? AND f.category = ? AND"
		" COALESCE(f.file, '') = ?) ORDER BY v.id",
		p, 3);
}

/* --- feedback --- */

int rb_store_feedback_add(struct rb_store *st, const struct rb_feedback_rec *f)
{
	return EXEC(st,
		    "INSERT INTO feedback (message_id, review_msgid,"
		    " state, judge, verdicts, reason, created_at)"
		    " VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
		    RB_DB_TEXT(f->message_id), RB_DB_TEXT(f->review_msgid),
		    RB_DB_TEXT(f->state), RB_DB_TEXT(f->judge),
		    RB_DB_INT(f->verdicts), RB_DB_TEXT(f->reason),
		    RB_DB_INT(rb_now()));
}

int rb_store_feedback_seen(struct rb_store *st, const char *message_id,
			   bool *seen)
{
	struct rb_dbv id = RB_DB_TEXT(message_id);

	return rb_store_exists(st, seen,
			       "SELECT COUNT(*) FROM feedback"
			       " WHERE message_id = ?",
			       &id, 1);
}

/*
 * A reply not looked at yet (m: messages). A verdict sent to the bot
 * directly carries no List-Id, so the parse stage marks it ignored for
 * that reason (pipeline.c, loop_reason()); it is still a reply, since
 * it must name one of our own mails to count. Mail ignored for any other
 * reason (our own, a bot's, Auto-Submitted) is not.
 */
#define UNJUDGED_REPLY                                                \
	" m.state = 'parsed' AND (m.kind = 'reply' OR"                \
	" (m.kind = 'ignored' AND m.reason ="                         \
	" 'List-Id not on the allow-list')) AND NOT EXISTS (SELECT 1" \
	" FROM feedback f WHERE f.message_id = m.message_id)"

struct id_list {
	char **ids;
	size_t n;
};

static int id_row(const struct rb_dbrow *row, void *payload)
{
	struct id_list *l = payload;
	char **v = realloc(l->ids, (l->n + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->ids = v;
	l->ids[l->n] = rb_dbv_strdup(&row->v[0]);
	if (!l->ids[l->n])
		return rb_err(RB_ENOMEM, "out of memory");
	l->n++;
	return 0;
}

int rb_store_each_unjudged_reply(struct rb_store *st,
				 int (*fn)(const char *message_id,
					   void *payload),
				 void *payload)
{
	struct id_list l = { 0 };
	size_t i;
	int ret;

	ret = st->db->ops->query(
		st->db,
		"SELECT m.message_id FROM messages m WHERE" UNJUDGED_REPLY
		" ORDER BY m.received_at, m.message_id",
		NULL, 0, id_row, &l);
	for (i = 0; !ret && i < l.n; i++)
		ret = fn(l.ids[i], payload);
	for (i = 0; i < l.n; i++)
		free(l.ids[i]);
	free(l.ids);
	return ret;
}

struct reply_list {
	char **id, **irt, **refs;
	size_t n, cap;
};

static int reply_row(const struct rb_dbrow *row, void *payload)
{
	struct reply_list *l = payload;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **a = realloc(l->id, cap * sizeof(*a));

		if (a)
			l->id = a;
		a = a ? realloc(l->irt, cap * sizeof(*a)) : NULL;
		if (a)
			l->irt = a;
		a = a ? realloc(l->refs, cap * sizeof(*a)) : NULL;
		if (!a)
			return rb_err(RB_ENOMEM, "out of memory");
		l->refs = a;
		l->cap = cap;
	}
	l->id[l->n] = rb_dbv_strdup(&row->v[0]);
	l->irt[l->n] = rb_dbv_strdup(&row->v[1]);
	l->refs[l->n] = rb_dbv_strdup(&row->v[2]);
	l->n++;
	return l->id[l->n - 1] ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

/* Is @id (bare, as messages hold it) the Message-ID of one of our mails? */
static int is_review(struct rb_store *st, const char *id, size_t len, bool *out)
{
	struct rb_buf bare = RB_BUF_INIT(4096);
	char *review = NULL, *series = NULL;
	int ret;

	*out = false;
	ret = rb_buf_add(&bare, id, len);
	if (!ret)
		ret = rb_store_review_find(st, bare.ptr, &review, &series);
	if (ret == -RB_ENOTFOUND)
		ret = 0;
	else if (!ret)
		*out = true;
	free(review);
	free(series);
	rb_buf_release(&bare);
	return ret;
}

int rb_store_queue_replies(struct rb_store *st, int64_t now, int64_t since,
			   size_t *queued)
{
	struct reply_list l = { 0 };
	struct rb_dbv p = RB_DB_INT(since);
	size_t i;
	int ret;

	*queued = 0;
	/* Replies (UNJUDGED_REPLY) without a feedback job yet, among those
	 * this assembly saw first (an index range, however many came
	 * before: each earlier one was looked at by its own pass). */
	/* UNJUDGED_REPLY, its state wrapped: SQLite would answer a plain
	 * "state = 'parsed'" from the index on state (every parsed
	 * message), not from the range of arrival. */
	ret = st->db->ops->query(
		st->db,
		"SELECT m.message_id, m.in_reply_to, m.refs FROM messages m"
		" WHERE m.arrival >= ? AND COALESCE(m.state, '') = 'parsed'"
		" AND (m.kind = 'reply' OR (m.kind = 'ignored' AND m.reason ="
		" 'List-Id not on the allow-list')) AND NOT EXISTS (SELECT 1"
		" FROM feedback f WHERE f.message_id = m.message_id) AND NOT"
		" EXISTS (SELECT 1 FROM jobs j WHERE j.kind = 'feedback' AND"
		" j.key = m.message_id) ORDER BY m.arrival",
		&p, 1, reply_row, &l);
	for (i = 0; !ret && i < l.n; i++) {
		const char *r = l.refs[i] ? l.refs[i] : "";
		bool hit = false;

		if (l.irt[i] && *l.irt[i])
			ret = is_review(st, l.irt[i], strlen(l.irt[i]), &hit);
		while (!ret && !hit && *r) {
			size_t n = strcspn(r, " ");

			if (n)
				ret = is_review(st, r, n, &hit);
			r += n;
			r += strspn(r, " ");
		}
		if (ret)
			break;
		if (hit) {
			ret = rb_store_job_add(st, "feedback", l.id[i], now);
			if (!ret)
				(*queued)++;
			else if (ret == -RB_EEXISTS)
				ret = 0;
		} else {
			ret = EXEC(st,
				   "INSERT INTO feedback (message_id, state,"
				   " created_at) VALUES (?, 'unrelated', ?)"
				   " ON CONFLICT DO NOTHING",
				   RB_DB_TEXT(l.id[i]), RB_DB_INT(now));
		}
	}
	for (i = 0; i < l.n; i++) {
		free(l.id[i]);
		free(l.irt[i]);
		free(l.refs[i]);
	}
	free(l.id);
	free(l.irt);
	free(l.refs);
	return ret;
}
