// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_outbox.c - our mails: the reviews table (what each says) and the
 * outbox (its bytes and their state). See store_outbox.h.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/store/store_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* --- the rate limits' rows (outbox_rcpts, migration 9) --- */

/* The same line of "a\nb" (NULL: none), without regard to case. */
static bool in_lines(const char *lines, const char *addr)
{
	size_t len = strlen(addr);
	const char *l = lines, *nl;

	while (l && *l) {
		nl = strchr(l, '\n');
		if ((size_t)(nl ? nl - l : (ptrdiff_t)strlen(l)) == len &&
		    !strncasecmp(l, addr, len))
			return true;
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

int rb_store_rate_key(struct rb_buf *out, const char *addr)
{
	const char *at = strrchr(addr, '@'), *p = addr, *end;
	size_t start = out->len;
	int ret = 0;

	if (!at)
		return rb_err(RB_EINVAL, "not an address");
	end = at;
	if (*p == '"' && at > p + 1 && at[-1] == '"') {
		/* "a\"b"@x: the quotes and escapes are not the mailbox */
		p++;
		end = at - 1;
	}
	for (; !ret && p < end; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		/* a+tag@x is a@x to its server: one limit for both */
		if (*p == '+' && out->len > start)
			break;
		ret = rb_buf_putc(out, (char)tolower((unsigned char)*p));
	}
	for (p = at; !ret && *p; p++)
		ret = rb_buf_putc(out, (char)tolower((unsigned char)*p));
	return ret;
}

/*
 * One row per address of @rcpts that a rate limit counts: 'list' for a
 * line of @lists, nothing for a line of @trusted, 'person' for every
 * other one; keyed by rb_store_rate_key(), once per key and kind.
 */
static int add_rate_rows(struct rb_store *st, const char *message_id,
			 const char *rcpts, const char *lists,
			 const char *trusted, struct rb_dbv sent_at)
{
	struct rb_buf one = RB_BUF_INIT(1024), key = RB_BUF_INIT(1024);
	const char *l = rcpts, *nl, *kind;
	int ret = 0;

	while (!ret && l && *l) {
		nl = strchr(l, '\n');
		rb_buf_reset(&one);
		rb_buf_reset(&key);
		ret = rb_buf_add(&one, l, nl ? (size_t)(nl - l) : strlen(l));
		l = nl ? nl + 1 : NULL;
		if (ret || !one.len)
			continue;
		if (in_lines(lists, one.ptr))
			kind = "list";
		else if (in_lines(trusted, one.ptr))
			continue;
		else
			kind = "person";
		if (rb_store_rate_key(&key, one.ptr))
			continue; /* not an address: nobody to count */
		ret = EXEC(st,
			   "INSERT INTO outbox_rcpts (message_id, kind, addr,"
			   " sent_at) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
			   RB_DB_TEXT(message_id), RB_DB_TEXT(kind),
			   RB_DB_TEXT(key.ptr), sent_at);
	}
	rb_buf_release(&one);
	rb_buf_release(&key);
	return ret;
}

struct backfill {
	char *message_id, *rcpts, *lists;
	struct rb_dbv sent_at;
};

struct backfill_list {
	struct backfill *v;
	size_t n;
};

static int backfill_row(const struct rb_dbrow *row, void *payload)
{
	struct backfill_list *bl = payload;
	struct backfill *v, *b;

	v = realloc(bl->v, (bl->n + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	bl->v = v;
	b = &v[bl->n++];
	b->message_id = rb_dbv_strdup(&row->v[0]);
	b->rcpts = rb_dbv_strdup(&row->v[1]);
	b->lists = rb_dbv_strdup(&row->v[2]);
	b->sent_at = row->v[3].t == RB_DBT_INT ? RB_DB_INT(row->v[3].i) :
						 RB_DB_NULL;
	return b->message_id ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

int rb_store_outbox_backfill_rates(struct rb_store *st)
{
	struct backfill_list bl = { 0 };
	size_t i;
	int ret;

	/*
	 * What a rate limit still needs of the mail from before migration
	 * 9: what is not sent yet, and what was sent in the last hour. Who
	 * was a maintainer was not kept then, so every person counts, as
	 * every person did.
	 */
	ret = QUERY(st,
		    "SELECT message_id, rcpts, lists, sent_at FROM outbox"
		    " WHERE state IN ('held', 'queued', 'sending')"
		    " OR (state = 'sent' AND sent_at >= ?)",
		    backfill_row, &bl, RB_DB_INT(rb_now() - 3600));
	for (i = 0; !ret && i < bl.n; i++)
		ret = add_rate_rows(st, bl.v[i].message_id, bl.v[i].rcpts,
				    bl.v[i].lists, NULL, bl.v[i].sent_at);
	for (i = 0; i < bl.n; i++) {
		free(bl.v[i].message_id);
		free(bl.v[i].rcpts);
		free(bl.v[i].lists);
	}
	free(bl.v);
	return ret;
}

/* --- reviews --- */

int rb_store_add_outmail(struct rb_store *st, const struct rb_outmail *m)
{
	int64_t now = rb_now();
	int ret;

	ret = EXEC(
		st,
		"INSERT INTO reviews (message_id, series_id, kind,"
		" patch_idx, policy, words, findings, subsystem, model,"
		" tokens_in, tokens_out, cost, latency, created_at, capped,"
		" prompt, copy_of) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
		" ON CONFLICT DO NOTHING",
		RB_DB_TEXT(m->message_id), RB_DB_TEXT(m->series_id),
		RB_DB_TEXT(m->kind), RB_DB_INT(m->patch_idx),
		RB_DB_TEXT(m->policy), RB_DB_INT(m->words),
		RB_DB_INT(m->findings), RB_DB_TEXT(m->subsystem),
		RB_DB_TEXT(m->model), RB_DB_INT(m->tokens_in),
		RB_DB_INT(m->tokens_out), RB_DB_INT((int64_t)(m->cost * 1e6)),
		RB_DB_INT(m->latency), RB_DB_INT(now), RB_DB_INT(m->capped),
		RB_DB_TEXT(m->prompt), RB_DB_TEXT(m->copy_of));
	if (ret)
		return ret;
	if (!rb_store_changes(st))
		return -RB_EEXISTS;
	/* A paused series' mail waits for "resume" (issue 36), but the
	 * ledger's notice to its maintainers. */
	ret = EXEC(st,
		   "INSERT INTO outbox (message_id, series_id, env_from,"
		   " rcpts, bytes, state, send_after, created_at, lists)"
		   " VALUES (?,?,?,?,?,CASE WHEN ? <> 'ledger' AND EXISTS"
		   " (SELECT 1 FROM series_pause WHERE series_id = ?)"
		   " THEN 'paused' ELSE ? END,?,?,?)",
		   RB_DB_TEXT(m->message_id), RB_DB_TEXT(m->series_id),
		   RB_DB_TEXT(m->env_from), RB_DB_TEXT(m->rcpts),
		   RB_DB_BLOB(m->bytes, m->len), RB_DB_TEXT(m->kind),
		   RB_DB_TEXT(m->series_id),
		   RB_DB_TEXT(m->send_after > now ? "held" : "queued"),
		   RB_DB_INT(m->send_after), RB_DB_INT(now),
		   RB_DB_TEXT(m->lists && *m->lists ? m->lists : NULL));
	if (!ret)
		ret = add_rate_rows(st, m->message_id, m->rcpts, m->lists,
				    m->trusted, RB_DB_NULL);
	return ret;
}

int rb_store_review_find(struct rb_store *st, const char *id, char **message_id,
			 char **series_id)
{
	struct rb_buf br = RB_BUF_INIT(4096);
	int ret;

	ret = rb_buf_printf(&br, "<%s>", id);
	if (!ret)
		ret = TWO_TEXT(st, message_id, series_id,
			       "SELECT COALESCE(copy_of, message_id), series_id"
			       " FROM reviews WHERE message_id IN (?, ?)"
			       " LIMIT 1",
			       RB_DB_TEXT(br.ptr), RB_DB_TEXT(id));
	rb_buf_release(&br);
	return ret;
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
	int64_t now = rb_now();
	int ret;

	ret = EXEC(st,
		   "UPDATE outbox SET state = 'sent', sent_at = ?,"
		   " last_error = NULL WHERE message_id = ?",
		   RB_DB_INT(now), RB_DB_TEXT(message_id));
	if (!ret)
		ret = EXEC(st,
			   "UPDATE outbox_rcpts SET sent_at = ?"
			   " WHERE message_id = ?",
			   RB_DB_INT(now), RB_DB_TEXT(message_id));
	return ret;
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

static const char *rate_kind_name(enum rb_rate_kind kind)
{
	return kind == RB_RATE_LIST ? "list" : "person";
}

int rb_store_outbox_sent_since(struct rb_store *st, enum rb_rate_kind kind,
			       const char *addr, int64_t since, int64_t *out)
{
	struct rb_buf key = RB_BUF_INIT(1024);
	int ret;

	if (kind == RB_RATE_ALL) {
		struct rb_dbv p = RB_DB_INT(since);

		/* index outbox_sent (state, sent_at): the last hour only */
		return rb_db_query_int(st->db, out,
				       "SELECT COUNT(*) FROM outbox WHERE"
				       " state = 'sent' AND sent_at >= ?",
				       &p, 1);
	}
	ret = rb_store_rate_key(&key, addr);
	if (!ret) {
		struct rb_dbv p[] = { RB_DB_TEXT(rate_kind_name(kind)),
				      RB_DB_TEXT(key.ptr), RB_DB_INT(since) };

		/* index outbox_rcpts_rate (kind, addr, sent_at) */
		ret = rb_db_query_int(st->db, out,
				      "SELECT COUNT(*) FROM outbox_rcpts"
				      " WHERE kind = ? AND addr = ? AND"
				      " sent_at >= ?",
				      p, 3);
	}
	rb_buf_release(&key);
	return ret;
}

void rb_outrates_free(struct rb_outrate *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].addr);
	free(v);
}

struct rates {
	struct rb_outrate *v;
	size_t n;
};

static int rate_row(const struct rb_dbrow *row, void *payload)
{
	struct rates *r = payload;
	struct rb_outrate *v;
	const char *kind = row->v[0].s;

	v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	r->v = v;
	v[r->n].kind = kind && !strcmp(kind, "list") ? RB_RATE_LIST :
						       RB_RATE_PERSON;
	v[r->n].sent = row->v[2].i;
	v[r->n].addr = rb_dbv_strdup(&row->v[1]);
	if (!v[r->n++].addr)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

int rb_store_outbox_rates(struct rb_store *st, const char *message_id,
			  int64_t since, struct rb_outrate **out, size_t *n)
{
	struct rates r = { 0 };
	int ret;

	/*
	 * Each counted address of the mail with the mails sent to it as
	 * that kind since @since: one range of index outbox_rcpts_rate
	 * each, as long as the limit (not the store) is large.
	 */
	ret = QUERY(st,
		    "SELECT r.kind, r.addr, (SELECT COUNT(*) FROM"
		    " outbox_rcpts s WHERE s.kind = r.kind AND"
		    " s.addr = r.addr AND s.sent_at >= ?)"
		    " FROM outbox_rcpts r WHERE r.message_id = ?"
		    " ORDER BY r.kind, r.addr",
		    rate_row, &r, RB_DB_INT(since), RB_DB_TEXT(message_id));
	if (ret) {
		rb_outrates_free(r.v, r.n);
		return ret;
	}
	*out = r.v;
	*n = r.n;
	return 0;
}
