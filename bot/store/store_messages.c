// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_messages.c - messages, series, patches, apply attempts and the
 * sources' state. See store_messages.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/store/store_priv.h"
#include "mail/series.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fault.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/banned.h"

/* --- messages --- */

/*
 * RFC 5322 section 2.1.1: a line holds at most 998 characters, and a
 * msg-id cannot be folded. A longer one is hostile; PostgreSQL would also
 * refuse it in an index (a btree row holds at most about 2.7 KB), so it
 * is refused on both engines alike. Counted as stored (db.h, UTF-8).
 */
#define RB_MSGID_MAX 998

/* Is @message_id one the store can take as a key? Else *why says why. */
static int msgid_ok(const char *message_id, bool *ok, char *why, size_t n)
{
	char *clean = NULL;
	size_t len;
	int ret;

	ret = rb_db_text_clean(&clean, message_id);
	if (ret)
		return ret;
	len = strlen(clean ? clean : message_id);
	free(clean);
	*ok = len <= RB_MSGID_MAX;
	if (!*ok)
		snprintf(why, n,
			 "a Message-ID of %zu bytes is longer than a header "
			 "line may be (%d, RFC 5322 2.1.1); quarantined",
			 len, RB_MSGID_MAX);
	return 0;
}

int rb_store_add_raw(struct rb_store *st, const char *message_id,
		     const char *raw, size_t len, const char *origin)
{
	return rb_store_add_parsed(st, message_id, raw, len, origin, NULL);
}

/* The columns a parse sets, in this order, as parameters at @v; the
 * last, join_key, is what assembly needs (issue 38: set here, never by
 * an UPDATE of assembly's), from @hex. */
#define META_COLS                                                          \
	"kind, subject, from_addr, from_name, date, list_id, in_reply_to," \
	" refs, version, idx, total, change_id, reason, body_facts,"       \
	" patch_id, join_key"
#define META_N 16

static int meta_params(struct rb_dbv *v, const struct rb_msgmeta *m,
		       const char *message_id, char hex[RB_SHA256_HEX])
{
	bool has = false;
	int ret = rb_store_asm_join_key(hex, &has, message_id, m);

	v[0] = RB_DB_TEXT(m->kind);
	v[1] = RB_DB_TEXT(m->msg.subject);
	v[2] = RB_DB_TEXT(m->msg.from_addr);
	v[3] = RB_DB_TEXT(m->msg.from_name);
	v[4] = RB_DB_INT(m->msg.date);
	v[5] = RB_DB_TEXT(m->list_id);
	v[6] = RB_DB_TEXT(m->msg.in_reply_to);
	v[7] = RB_DB_TEXT(m->references);
	v[8] = RB_DB_INT(m->version);
	v[9] = RB_DB_INT(m->idx);
	v[10] = RB_DB_INT(m->total);
	v[11] = RB_DB_TEXT(m->msg.change_id);
	v[12] = RB_DB_TEXT(m->reason);
	v[13] = m->body_unknown ? RB_DB_NULL : RB_DB_INT(m->msg.body);
	v[14] = RB_DB_TEXT(m->patch_id);
	v[15] = has ? RB_DB_TEXT(hex) : RB_DB_NULL;
	return ret;
}

/*
 * When a message is stored (migration 16): microseconds, strictly
 * increasing within this process (the ingest is one process at a time:
 * the SQLite lock, PostgreSQL's ingest lock), so that messages stored in
 * the same second keep the order they came in.
 */
static int64_t stored_now(void)
{
	static int64_t last;
	struct timespec ts;
	int64_t t, prev;

	clock_gettime(CLOCK_REALTIME, &ts);
	t = rb_now() * 1000000 + ts.tv_nsec / 1000;
	prev = __atomic_load_n(&last, __ATOMIC_RELAXED);
	do {
		if (t <= prev)
			t = prev + 1;
	} while (!__atomic_compare_exchange_n(
		&last, &prev, t, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return t;
}

/* The INSERT of a parsed message: its bytes with what mark_parsed sets. */
static int insert_parsed(struct rb_store *st, const char *message_id,
			 const char *raw, size_t len, const char *origin,
			 const struct rb_msgmeta *m)
{
	struct rb_dbv v[5 + META_N] = { RB_DB_TEXT(message_id),
					RB_DB_BLOB(raw, len),
					RB_DB_TEXT(origin), RB_DB_INT(rb_now()),
					RB_DB_INT(stored_now()) };
	char hex[RB_SHA256_HEX];
	int ret = meta_params(v + 5, m, message_id, hex);

	if (ret)
		return ret;
	return st->db->ops->exec(
		st->db,
		"INSERT INTO messages (message_id, raw, origin, received_at,"
		" stored_us, arrival, state, " META_COLS ") VALUES (?, ?, ?,"
		" ?, ?, " RB_ASM_ARRIVAL ", 'parsed', ?, ?, ?, ?, ?, ?, ?, ?,"
		" ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
		v, 5 + META_N);
}

int rb_store_add_parsed(struct rb_store *st, const char *message_id,
			const char *raw, size_t len, const char *origin,
			const struct rb_msgmeta *meta)
{
	char hex[RB_SHA256_HEX], key[96], why[256];
	bool ok = true, own;
	int ret;

	if (message_id) {
		ret = msgid_ok(message_id, &ok, why, sizeof(why));
		if (ret)
			return ret;
	}
	if (!ok) {
		/* Kept under a key of its bytes, never parsed (state). */
		rb_sha256_hex(hex, raw, len);
		snprintf(key, sizeof(key), "rb-raw-%.40s@reviewbot.invalid",
			 hex);
		rb_log(RB_LOG_WARN, "store.quarantined", "origin", origin,
		       "reason", why, NULL);
		ret = EXEC(st,
			   "INSERT INTO messages (message_id, raw, origin,"
			   " received_at, arrival, state, reason) VALUES"
			   " (?, ?, ?, ?, " RB_ASM_ARRIVAL ", 'malformed', ?)"
			   " ON CONFLICT DO NOTHING",
			   RB_DB_TEXT(key), RB_DB_BLOB(raw, len),
			   RB_DB_TEXT(origin), RB_DB_INT(rb_now()),
			   RB_DB_TEXT(why));
		if (ret)
			return ret;
		return rb_store_changes(st) ? 0 : -RB_EEXISTS;
	}
	if (!message_id) {
		rb_sha256_hex(hex, raw, len);
		snprintf(key, sizeof(key), "rb-raw-%.40s@reviewbot.invalid",
			 hex);
		message_id = key;
	}
	/*
	 * The row and its asm_pending row go in one transaction: a source
	 * that commits each message by itself (a Maildir, an mbox) and was
	 * killed between the two left a message that no assembly would
	 * ever see (t_workers_pg: a series that stayed incomplete).
	 */
	own = !st->db->ops->in_txn(st->db);
	if (own) {
		ret = rb_store_begin(st);
		if (ret)
			return ret;
	}
	if (meta)
		ret = insert_parsed(st, message_id, raw, len, origin, meta);
	else
		ret = EXEC(st,
			   "INSERT INTO messages (message_id, raw, origin,"
			   " received_at, stored_us, arrival) VALUES (?, ?, ?,"
			   " ?, ?, " RB_ASM_ARRIVAL ") ON CONFLICT DO NOTHING",
			   RB_DB_TEXT(message_id), RB_DB_BLOB(raw, len),
			   RB_DB_TEXT(origin), RB_DB_INT(rb_now()),
			   RB_DB_INT(stored_now()));
	if (!ret && !rb_store_changes(st))
		ret = -RB_EEXISTS;
	if (!ret) {
		rb_fault_point("store.pend");
		/* Assembly's to see (malformed mail above is never
		 * assembled). */
		ret = rb_store_asm_pend(st, message_id);
	}
	if (!own)
		return ret;
	if (!ret)
		ret = rb_store_commit(st);
	if (ret)
		rb_store_rollback(st);
	return ret;
}

int rb_store_add_bad(struct rb_store *st, const char *origin,
		     const char *reason, const char *raw, size_t len)
{
	struct rb_buf key = RB_BUF_INIT(4096);
	char hex[RB_SHA256_HEX];
	int ret;

	rb_sha256_hex(hex, origin, strlen(origin));
	rb_buf_printf(&key, "rb-bad-%.40s@reviewbot.invalid", hex);
	ret = EXEC(
		st,
		"INSERT INTO messages (message_id, raw, origin, received_at,"
		" arrival, state, reason) VALUES (?, ?, ?, ?, " RB_ASM_ARRIVAL
		", 'malformed', ?) ON CONFLICT DO NOTHING",
		RB_DB_TEXT(key.ptr), RB_DB_BLOB(raw ? raw : "", raw ? len : 0),
		RB_DB_TEXT(origin), RB_DB_INT(rb_now()), RB_DB_TEXT(reason));
	rb_buf_release(&key);
	return ret;
}

void rb_msgrow_release(struct rb_msgrow *m)
{
	free(m->message_id);
	free(m->origin);
	free(m->raw);
	memset(m, 0, sizeof(*m));
}

struct msg_list {
	struct rb_msgrow *v;
	size_t n;
};

static int collect_msg(const struct rb_dbrow *row, void *payload)
{
	struct msg_list *l = payload;
	struct rb_msgrow *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->v = v;
	v = &l->v[l->n++];
	v->message_id = rb_dbv_strdup(&row->v[0]);
	v->origin = rb_dbv_strdup(&row->v[1]);
	v->raw = rb_dbv_blobdup(&row->v[2], &v->len);
	v->received_at = row->n > 3 ? row->v[3].i : 0;
	return 0;
}

int rb_store_each_new(struct rb_store *st,
		      int (*fn)(struct rb_msgrow *m, void *payload),
		      void *payload)
{
	struct rb_msgrow last = { 0 };
	int64_t last_at = -1;
	size_t i;
	int ret = 0;

	/*
	 * Page by page (a corpus must not sit in memory at once), each page
	 * collected before the callback writes to the same table, and keyed
	 * on (received_at, message_id) so that the walk ends whatever the
	 * callback does with the state.
	 */
	for (;;) {
		struct msg_list l = { 0 };
		struct rb_dbv p[] = {
			RB_DB_INT(last_at), RB_DB_INT(last_at),
			RB_DB_TEXT(last.message_id ? last.message_id : "")
		};

		ret = st->db->ops->query(
			st->db,
			"SELECT message_id, origin, raw, received_at"
			" FROM messages WHERE state = 'new' AND"
			" (received_at > ? OR (received_at = ? AND"
			" message_id > ?))"
			" ORDER BY received_at, message_id LIMIT 256",
			p, 3, collect_msg, &l);
		for (i = 0; i < l.n && !ret; i++)
			ret = fn(&l.v[i], payload);
		if (l.n) {
			free(last.message_id);
			last.message_id = strdup(l.v[l.n - 1].message_id);
			last_at = l.v[l.n - 1].received_at;
		}
		for (i = 0; i < l.n; i++)
			rb_msgrow_release(&l.v[i]);
		free(l.v);
		if (ret || !l.n || !last.message_id)
			break;
	}
	free(last.message_id);
	return ret;
}

int rb_store_get_raw(struct rb_store *st, const char *message_id,
		     struct rb_msgrow *m)
{
	struct msg_list l = { 0 };
	struct rb_dbv p = RB_DB_TEXT(message_id);
	int ret;

	ret = st->db->ops->query(st->db,
				 "SELECT message_id, origin, raw, received_at"
				 " FROM messages WHERE message_id = ?",
				 &p, 1, collect_msg, &l);
	if (!ret && !l.n)
		ret = rb_err(RB_ENOTFOUND, "message <%s> is not stored",
			     message_id);
	if (!ret)
		*m = l.v[0];
	else if (l.n)
		rb_msgrow_release(&l.v[0]);
	free(l.v);
	return ret;
}

int rb_store_mark_parsed(struct rb_store *st, const char *message_id,
			 const struct rb_msgmeta *m)
{
	struct rb_dbv v[META_N + 1];
	char hex[RB_SHA256_HEX];
	int ret = meta_params(v, m, message_id, hex);

	if (ret)
		return ret;
	v[META_N] = RB_DB_TEXT(message_id);
	return st->db->ops->exec(
		st->db,
		"UPDATE messages SET state = 'parsed', (" META_COLS ") = (?, ?,"
		" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE message_id ="
		" ?",
		v, META_N + 1);
}

int rb_store_mark_malformed(struct rb_store *st, const char *message_id,
			    const char *reason)
{
	return EXEC(st,
		    "UPDATE messages SET state = 'malformed', reason = ?"
		    " WHERE message_id = ?",
		    RB_DB_TEXT(reason), RB_DB_TEXT(message_id));
}

/* --- series --- */

int rb_store_put_series(struct rb_store *st, const struct rb_series *s)
{
	int64_t now = rb_now();
	int ret, i;

	ret = EXEC(st,
		   "INSERT INTO series (id, version, total, cover, title,"
		   " author, previous, change_id, complete, last_date,"
		   " first_seen, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
		   " ON CONFLICT (id) DO UPDATE SET version = excluded.version,"
		   " total = excluded.total, cover = excluded.cover,"
		   " title = excluded.title, author = excluded.author,"
		   " previous = excluded.previous,"
		   " change_id = excluded.change_id,"
		   " complete = excluded.complete,"
		   " last_date = excluded.last_date,"
		   " updated_at = excluded.updated_at",
		   RB_DB_TEXT(s->id), RB_DB_INT(s->version),
		   RB_DB_INT(s->total), RB_DB_TEXT(s->cover),
		   RB_DB_TEXT(s->title), RB_DB_TEXT(s->author),
		   RB_DB_TEXT(s->previous), RB_DB_TEXT(s->change_id),
		   RB_DB_INT(s->complete), RB_DB_INT(s->last_date),
		   RB_DB_INT(now), RB_DB_INT(now));
	if (ret)
		return ret;
	if (s->cover) {
		ret = EXEC(st,
			   "INSERT INTO patches VALUES (?, 0, ?)"
			   " ON CONFLICT (series_id, idx) DO UPDATE"
			   " SET message_id = excluded.message_id",
			   RB_DB_TEXT(s->id), RB_DB_TEXT(s->cover));
		if (ret)
			return ret;
	}
	for (i = 0; i < s->total; i++) {
		if (!s->patches[i])
			continue;
		ret = EXEC(st,
			   "INSERT INTO patches VALUES (?, ?, ?)"
			   " ON CONFLICT (series_id, idx) DO UPDATE"
			   " SET message_id = excluded.message_id",
			   RB_DB_TEXT(s->id), RB_DB_INT(i + 1),
			   RB_DB_TEXT(s->patches[i]));
		if (ret)
			return ret;
	}
	return 0;
}

int rb_store_series_state(struct rb_store *st, const char *series_id,
			  char **state)
{
	struct rb_dbv p = RB_DB_TEXT(series_id);

	return rb_db_query_text(st->db, state,
				"SELECT state FROM series WHERE id = ?", &p, 1);
}

int rb_store_set_series_state(struct rb_store *st, const char *series_id,
			      const char *state, const char *detail)
{
	return EXEC(st,
		    "UPDATE series SET state = ?, detail = ?, updated_at = ?"
		    " WHERE id = ?",
		    RB_DB_TEXT(state), RB_DB_TEXT(detail), RB_DB_INT(rb_now()),
		    RB_DB_TEXT(series_id));
}

void rb_series_row_release(struct rb_series_row *r)
{
	int i;

	if (r->msgids)
		for (i = 0; i <= r->total; i++)
			free(r->msgids[i]);
	free(r->msgids);
	free(r->id);
	free(r->title);
	free(r->author);
	free(r->state);
	free(r->previous);
	memset(r, 0, sizeof(*r));
}

static int series_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_series_row *r = payload;

	r->id = rb_dbv_strdup(&row->v[0]);
	r->version = (int)row->v[1].i;
	r->total = (int)row->v[2].i;
	r->title = rb_dbv_strdup(&row->v[3]);
	r->author = rb_dbv_strdup(&row->v[4]);
	r->state = rb_dbv_strdup(&row->v[5]);
	r->previous = rb_dbv_strdup(&row->v[6]);
	r->last_date = row->v[7].i;
	return 1;
}

static int patch_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_series_row *r = payload;
	int64_t idx = row->v[0].i;

	if (idx >= 0 && idx <= r->total && !r->msgids[idx])
		r->msgids[idx] = rb_dbv_strdup(&row->v[1]);
	return 0;
}

int rb_store_series_load(struct rb_store *st, const char *series_id,
			 struct rb_series_row *out)
{
	struct rb_series_row r = { 0 };
	struct rb_dbv p = RB_DB_TEXT(series_id);
	int ret;

	ret = st->db->ops->query(st->db,
				 "SELECT id, version, total, title, author,"
				 " state, previous, last_date FROM series"
				 " WHERE id = ?",
				 &p, 1, series_row, &r);
	if (!ret && !r.id)
		ret = rb_err(RB_ENOTFOUND, "series <%s> is not stored",
			     series_id);
	if (ret)
		goto fail;
	if (r.total < 0 || r.total > 10000) {
		ret = rb_err(RB_EINVAL, "series <%s>: bad total %d", series_id,
			     r.total);
		goto fail;
	}
	r.msgids = calloc((size_t)r.total + 1, sizeof(*r.msgids));
	if (!r.msgids) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	ret = st->db->ops->query(st->db,
				 "SELECT idx, message_id FROM patches"
				 " WHERE series_id = ? ORDER BY idx",
				 &p, 1, patch_row, &r);
	if (ret)
		goto fail;
	*out = r;
	return 0;
fail:
	rb_series_row_release(&r);
	return ret;
}

int rb_store_series_subsystem(struct rb_store *st, const char *series_id,
			      const char *subsystem, const char *list_id)
{
	return EXEC(st,
		    "UPDATE series SET subsystem = ?, list_id = ? WHERE id = ?",
		    RB_DB_TEXT(subsystem), RB_DB_TEXT(list_id),
		    RB_DB_TEXT(series_id));
}

int rb_store_series_applied(struct rb_store *st, const char *series_id,
			    const char *base_name, const char *base_commit,
			    const char *applied_commit)
{
	return EXEC(st,
		    "UPDATE series SET base_name = ?, base_commit = ?,"
		    " applied_commit = ? WHERE id = ?",
		    RB_DB_TEXT(base_name), RB_DB_TEXT(base_commit),
		    RB_DB_TEXT(applied_commit), RB_DB_TEXT(series_id));
}

/* --- apply attempts --- */

int rb_store_add_attempt(struct rb_store *st, const char *series_id,
			 const char *base_name, const char *base_commit,
			 bool ok, int failed_patch, const char *failed_file,
			 int failed_hunk, const char *reason)
{
	return EXEC(st,
		    "INSERT INTO attempts (series_id, base_name, base_commit,"
		    " ok, failed_patch, failed_file, failed_hunk, reason,"
		    " created_at) VALUES (?,?,?,?,?,?,?,?,?)",
		    RB_DB_TEXT(series_id), RB_DB_TEXT(base_name),
		    RB_DB_TEXT(base_commit), RB_DB_INT(ok),
		    RB_DB_INT(failed_patch), RB_DB_TEXT(failed_file),
		    RB_DB_INT(failed_hunk), RB_DB_TEXT(reason),
		    RB_DB_INT(rb_now()));
}

/* --- source state --- */

struct two {
	int64_t a, b;
	int found;
};

static int two_row(const struct rb_dbrow *row, void *payload)
{
	struct two *t = payload;

	t->a = row->v[0].i;
	t->b = row->v[1].i;
	t->found = 1;
	return 1;
}

int rb_store_source_get(struct rb_store *st, const char *source,
			const char *mailbox, int64_t *validity, int64_t *last)
{
	struct rb_dbv p[] = { RB_DB_TEXT(source), RB_DB_TEXT(mailbox) };
	struct two t = { 0 };
	int ret;

	ret = st->db->ops->query(st->db,
				 "SELECT validity, last FROM source_state"
				 " WHERE source = ? AND mailbox = ?",
				 p, 2, two_row, &t);
	if (ret)
		return ret;
	if (!t.found)
		return -RB_ENOTFOUND;
	*validity = t.a;
	*last = t.b;
	return 0;
}

int rb_store_source_set(struct rb_store *st, const char *source,
			const char *mailbox, int64_t validity, int64_t last)
{
	return EXEC(st,
		    "INSERT INTO source_state VALUES (?, ?, ?, ?)"
		    " ON CONFLICT (source, mailbox) DO UPDATE"
		    " SET validity = excluded.validity, last = excluded.last",
		    RB_DB_TEXT(source), RB_DB_TEXT(mailbox),
		    RB_DB_INT(validity), RB_DB_INT(last));
}

/* --- prerequisites (bot/stages/prereq.h) --- */

int rb_store_series_of(struct rb_store *st, const char *message_id,
		       char **series_id)
{
	/* A part of several rerolls counts for the newest one. */
	return TWO_TEXT(st, series_id, NULL,
			"SELECT p.series_id FROM patches p"
			" JOIN series s ON s.id = p.series_id"
			" WHERE p.message_id = ?"
			" ORDER BY s.version DESC, s.first_seen DESC"
			" LIMIT 1",
			RB_DB_TEXT(message_id));
}

int rb_store_each_recent_patch(struct rb_store *st, int64_t max,
			       int (*fn)(const char *message_id, void *payload),
			       void *payload)
{
	struct rb_dbv p = RB_DB_INT(max);
	struct rb_each_str e = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT p.message_id FROM patches p"
				  " JOIN series s ON s.id = p.series_id"
				  " JOIN messages m ON m.message_id ="
				  " p.message_id WHERE p.idx > 0 AND"
				  " m.patch_id IS NULL"
				  " ORDER BY s.first_seen DESC, p.idx LIMIT ?",
				  &p, 1, rb_store_each_str_row, &e);
}

int rb_store_patch_by_id(struct rb_store *st, const char *pid,
			 char **message_id)
{
	return TWO_TEXT(st, message_id, NULL,
			"SELECT m.message_id FROM messages m"
			" JOIN patches p ON p.message_id ="
			" m.message_id WHERE m.patch_id = ? AND"
			" p.idx > 0 ORDER BY m.received_at DESC"
			" LIMIT 1",
			RB_DB_TEXT(pid));
}

int rb_store_prune_raw(struct rb_store *st, int64_t before, int64_t *n)
{
	int ret;

	ret = EXEC(st,
		   "UPDATE messages SET raw = ? WHERE received_at < ? AND"
		   " state <> 'new' AND LENGTH(raw) > 0 AND message_id NOT IN"
		   " (SELECT p.message_id FROM patches p JOIN jobs j ON"
		   " j.key = p.series_id WHERE j.state IN ('ready',"
		   " 'running')) AND message_id NOT IN (SELECT j.key FROM"
		   " jobs j WHERE j.state IN ('ready', 'running'))",
		   RB_DB_BLOB("", 0), RB_DB_INT(before));
	if (!ret && n)
		*n = (int64_t)rb_store_changes(st);
	return ret;
}
