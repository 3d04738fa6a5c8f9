// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_outbox.c - our mails: the reviews table (what each says) and the
 * outbox (its bytes and their state). See store_outbox.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* --- reviews --- */

int rb_store_add_outmail(struct rb_store *st, const struct rb_outmail *m)
{
	int64_t now = rb_now();
	int ret;

	ret = EXEC(st,
		   "INSERT INTO reviews (message_id, series_id, kind,"
		   " patch_idx, policy, words, findings, subsystem, model,"
		   " tokens_in, tokens_out, cost, latency, created_at, capped,"
		   " prompt) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
		   " ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(m->message_id), RB_DB_TEXT(m->series_id),
		   RB_DB_TEXT(m->kind), RB_DB_INT(m->patch_idx),
		   RB_DB_TEXT(m->policy), RB_DB_INT(m->words),
		   RB_DB_INT(m->findings), RB_DB_TEXT(m->subsystem),
		   RB_DB_TEXT(m->model), RB_DB_INT(m->tokens_in),
		   RB_DB_INT(m->tokens_out),
		   RB_DB_INT((int64_t)(m->cost * 1e6)), RB_DB_INT(m->latency),
		   RB_DB_INT(now), RB_DB_INT(m->capped), RB_DB_TEXT(m->prompt));
	if (ret)
		return ret;
	if (!rb_store_changes(st))
		return -RB_EEXISTS;
	return EXEC(st,
		    "INSERT INTO outbox (message_id, series_id, env_from,"
		    " rcpts, bytes, state, send_after, created_at, lists)"
		    " VALUES (?,?,?,?,?,?,?,?,?)",
		    RB_DB_TEXT(m->message_id), RB_DB_TEXT(m->series_id),
		    RB_DB_TEXT(m->env_from), RB_DB_TEXT(m->rcpts),
		    RB_DB_BLOB(m->bytes, m->len),
		    RB_DB_TEXT(m->send_after > now ? "held" : "queued"),
		    RB_DB_INT(m->send_after), RB_DB_INT(now),
		    RB_DB_TEXT(m->lists && *m->lists ? m->lists : NULL));
}

int rb_store_review_find(struct rb_store *st, const char *id, char **message_id,
			 char **series_id)
{
	struct rb_buf br = RB_BUF_INIT(4096);
	struct rb_two_text t = { 0 };
	int ret;

	ret = rb_buf_printf(&br, "<%s>", id);
	if (!ret)
		ret = QUERY(st,
			    "SELECT message_id, series_id FROM reviews"
			    " WHERE message_id IN (?, ?) LIMIT 1",
			    rb_store_two_text_row, &t, RB_DB_TEXT(br.ptr),
			    RB_DB_TEXT(id));
	rb_buf_release(&br);
	if (!ret && !t.a)
		ret = -RB_ENOTFOUND;
	if (ret) {
		free(t.a);
		free(t.b);
		return ret;
	}
	*message_id = t.a;
	*series_id = t.b;
	return 0;
}

int rb_store_review_next_idx(struct rb_store *st, const char *series_id,
			     const char *kind, int64_t *out)
{
	struct rb_dbv p[] = { RB_DB_TEXT(series_id), RB_DB_TEXT(kind) };

	return rb_db_query_int(st->db, out,
			       "SELECT COALESCE(MAX(patch_idx), 0) + 1"
			       " FROM reviews WHERE series_id = ? AND"
			       " kind = ?",
			       p, 2);
}

/* --- outbox --- */

/* Seconds a sender holds a mail it claimed; a send takes far less. */
#define RB_OUTBOX_LEASE 300

void rb_outrow_release(struct rb_outrow *o)
{
	free(o->message_id);
	free(o->env_from);
	free(o->rcpts);
	free(o->bytes);
	free(o->lists);
	memset(o, 0, sizeof(*o));
}

static int out_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_outrow *o = payload;

	o->message_id = rb_dbv_strdup(&row->v[0]);
	o->env_from = rb_dbv_strdup(&row->v[1]);
	o->rcpts = rb_dbv_strdup(&row->v[2]);
	o->bytes = rb_dbv_blobdup(&row->v[3], &o->len);
	o->attempts = (int)row->v[4].i;
	o->lists = row->n > 5 ? rb_dbv_strdup(&row->v[5]) : NULL;
	return o->message_id ? 1 : rb_err(RB_ENOMEM, "out of memory");
}

int rb_store_outbox_next(struct rb_store *st, struct rb_outrow *out)
{
	int64_t now = rb_now();
	struct rb_dbv p[] = { RB_DB_INT(now + RB_OUTBOX_LEASE), RB_DB_INT(now),
			      RB_DB_INT(now) };
	struct rb_outrow o = { 0 };
	int ret;

	/*
	 * The claim is a lease (migration 3): a mail whose sender died in
	 * 'sending' goes out again, byte for byte, once the lease ran out,
	 * and two senders never hold the same mail at once.
	 */
	ret = rb_store_claim_query(
		st,
		"UPDATE outbox SET state = 'sending', lease_until = ?,"
		" attempts = attempts + 1 WHERE message_id = ("
		"SELECT message_id FROM outbox WHERE (state IN"
		" ('queued', 'held') AND send_after <= ?)"
		" OR (state = 'sending' AND lease_until < ?)"
		" ORDER BY send_after, created_at, message_id"
		" LIMIT 1{{SKIP_LOCKED}}) RETURNING message_id, env_from,"
		" rcpts, bytes, attempts, lists",
		p, 3, out_row, &o);
	if (!ret)
		*out = o;
	else
		rb_outrow_release(&o);
	return ret;
}

int rb_store_outbox_sent(struct rb_store *st, const char *message_id)
{
	return EXEC(st,
		    "UPDATE outbox SET state = 'sent', sent_at = ?,"
		    " last_error = NULL WHERE message_id = ?",
		    RB_DB_INT(rb_now()), RB_DB_TEXT(message_id));
}

int rb_store_outbox_failed(struct rb_store *st, const char *message_id,
			   bool permanent, int64_t next, const char *error)
{
	return EXEC(st,
		    "UPDATE outbox SET state = ?, send_after = ?,"
		    " last_error = ? WHERE message_id = ?",
		    RB_DB_TEXT(permanent ? "failed" : "queued"),
		    RB_DB_INT(next), RB_DB_TEXT(error), RB_DB_TEXT(message_id));
}

int rb_store_outbox_recover(struct rb_store *st)
{
	return st->db->ops->exec(st->db,
				 "UPDATE outbox SET state = 'queued'"
				 " WHERE state = 'sending'",
				 NULL, 0);
}

int rb_store_outbox_postpone(struct rb_store *st, const char *message_id,
			     int64_t next, const char *why)
{
	/* Not an attempt: the claim's count is given back. */
	return EXEC(st,
		    "UPDATE outbox SET state = 'queued', send_after = ?,"
		    " lease_until = NULL, last_error = ?,"
		    " attempts = CASE WHEN attempts > 0 THEN attempts - 1"
		    " ELSE 0 END WHERE message_id = ?",
		    RB_DB_INT(next), RB_DB_TEXT(why), RB_DB_TEXT(message_id));
}

int rb_store_outbox_sent_since(struct rb_store *st, const char *rcpt,
			       int64_t since, int64_t *out)
{
	struct rb_buf like = RB_BUF_INIT(1024);
	const char *c;
	int ret = 0;

	if (!rcpt) {
		struct rb_dbv p = RB_DB_INT(since);

		return rb_db_query_int(st->db, out,
				       "SELECT COUNT(*) FROM outbox WHERE"
				       " state = 'sent' AND sent_at >= ?",
				       &p, 1);
	}
	/*
	 * One whole line of rcpts, without regard to case (addresses are
	 * ASCII, rb_addr_valid()): "a_b@x" must not count mail to "axb@x"
	 * nor "xa_b@x", so LIKE's wildcards are escaped.
	 */
	ret = rb_buf_puts(&like, "%\n");
	for (c = rcpt; !ret && *c; c++) {
		char lc = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;

		if (lc == '%' || lc == '_' || lc == '\\')
			ret = rb_buf_putc(&like, '\\');
		if (!ret)
			ret = rb_buf_putc(&like, lc);
	}
	if (!ret)
		ret = rb_buf_puts(&like, "\n%");
	if (!ret) {
		struct rb_dbv p[] = { RB_DB_INT(since), RB_DB_TEXT("\n"),
				      RB_DB_TEXT("\n"), RB_DB_TEXT(like.ptr) };

		ret = rb_db_query_int(st->db, out,
				      "SELECT COUNT(*) FROM outbox WHERE"
				      " state = 'sent' AND sent_at >= ?"
				      " AND (? || lower(rcpts) || ?) LIKE ?"
				      " ESCAPE '\\'",
				      p, 4);
	}
	rb_buf_release(&like);
	return ret;
}
