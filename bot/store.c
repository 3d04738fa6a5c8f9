// SPDX-License-Identifier: GPL-2.0-only
/*
 * store.c - schema, migrations and operations of the store. See store.h
 * and docs/ARCHITECTURE.md for the tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/store.h"
#include "mail/series.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/banned.h"

/*
 * Migrations, in order. {{ID}} and {{BLOB}} stand for the engine's
 * auto-increment key and binary types. Never edit a released migration:
 * add the next one.
 */
static const char *const migrations[] = {
	/* 1: the first schema */
	"CREATE TABLE messages ("
	" message_id TEXT PRIMARY KEY,"
	" raw {{BLOB}} NOT NULL,"
	" origin TEXT NOT NULL,"
	" received_at BIGINT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'new'," /* new parsed malformed */
	" reason TEXT,"
	" kind TEXT," /* patch cover reply other ignored */
	" subject TEXT, from_addr TEXT, from_name TEXT, date BIGINT,"
	" list_id TEXT, in_reply_to TEXT, refs TEXT,"
	" version INTEGER, idx INTEGER, total INTEGER, change_id TEXT);"
	"CREATE INDEX messages_state ON messages(state);"
	"CREATE TABLE series ("
	" id TEXT PRIMARY KEY, version INTEGER, total INTEGER, cover TEXT,"
	" title TEXT, author TEXT, previous TEXT, change_id TEXT,"
	" complete INTEGER NOT NULL DEFAULT 0, last_date BIGINT,"
	" first_seen BIGINT NOT NULL, updated_at BIGINT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'waiting', detail TEXT,"
	" subsystem TEXT, list_id TEXT,"
	" base_name TEXT, base_commit TEXT, applied_commit TEXT);"
	"CREATE TABLE patches ("
	" series_id TEXT NOT NULL, idx INTEGER NOT NULL,"
	" message_id TEXT NOT NULL, PRIMARY KEY (series_id, idx));"
	"CREATE TABLE attempts ("
	" id {{ID}}, series_id TEXT NOT NULL, base_name TEXT,"
	" base_commit TEXT, ok INTEGER NOT NULL, failed_patch INTEGER,"
	" failed_file TEXT, failed_hunk INTEGER, reason TEXT,"
	" created_at BIGINT NOT NULL);"
	"CREATE TABLE reviews ("
	" message_id TEXT PRIMARY KEY," /* the outgoing mail */
	" series_id TEXT NOT NULL, kind TEXT NOT NULL,"
	" patch_idx INTEGER NOT NULL, policy TEXT, words INTEGER,"
	" findings INTEGER, subsystem TEXT, model TEXT,"
	" tokens_in BIGINT, tokens_out BIGINT,"
	" cost BIGINT," /* micro-dollars */
	" latency BIGINT," /* seconds from the last patch to the review */
	" created_at BIGINT NOT NULL,"
	" UNIQUE (series_id, kind, patch_idx));"
	"CREATE TABLE findings ("
	" id {{ID}}, series_id TEXT NOT NULL, review_msgid TEXT, fid TEXT,"
	" patch_idx INTEGER, checker TEXT NOT NULL, checker_version TEXT,"
	" category TEXT NOT NULL, severity TEXT NOT NULL, file TEXT,"
	" line INTEGER, code TEXT, message TEXT NOT NULL,"
	" fingerprint TEXT NOT NULL,"
	" state TEXT NOT NULL," /* raised suppressed dropped */
	" created_at BIGINT NOT NULL);"
	"CREATE INDEX findings_fp ON findings(fingerprint);"
	"CREATE INDEX findings_review ON findings(review_msgid);"
	"CREATE TABLE outbox ("
	" message_id TEXT PRIMARY KEY, series_id TEXT, env_from TEXT NOT NULL,"
	" rcpts TEXT NOT NULL, bytes {{BLOB}} NOT NULL,"
	" state TEXT NOT NULL," /* held queued sending sent failed */
	" attempts INTEGER NOT NULL DEFAULT 0, send_after BIGINT NOT NULL,"
	" last_error TEXT, created_at BIGINT NOT NULL, sent_at BIGINT);"
	"CREATE INDEX outbox_state ON outbox(state, send_after);"
	"CREATE TABLE verdicts ("
	" id {{ID}}, reply_msgid TEXT NOT NULL, review_msgid TEXT,"
	" fid TEXT, fingerprint TEXT, verdict TEXT," /* false_positive ... */
	" judge TEXT, authorised INTEGER NOT NULL, reason TEXT,"
	" created_at BIGINT NOT NULL, UNIQUE (reply_msgid, fid));"
	"CREATE TABLE jobs ("
	" id {{ID}}, kind TEXT NOT NULL, key TEXT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'ready'," /* ready running done failed */
	" attempts INTEGER NOT NULL DEFAULT 0, owner TEXT,"
	" lease_until BIGINT, not_before BIGINT NOT NULL, error TEXT,"
	" created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,"
	" UNIQUE (kind, key));"
	"CREATE INDEX jobs_ready ON jobs(state, not_before);"
	"CREATE TABLE source_state ("
	" source TEXT NOT NULL, mailbox TEXT NOT NULL, validity BIGINT,"
	" last BIGINT, PRIMARY KEY (source, mailbox));",
	/* 2: the feedback stage's bookkeeping (bot/feedback.c): each reply
	 * looked at once, with what became of it */
	"CREATE TABLE feedback ("
	" message_id TEXT PRIMARY KEY," /* the reply */
	" review_msgid TEXT," /* our review it answers, or NULL */
	" state TEXT NOT NULL," /* unrelated no_verdict judged refused */
	" judge TEXT, verdicts INTEGER NOT NULL DEFAULT 0, reason TEXT,"
	" created_at BIGINT NOT NULL);"
	"CREATE INDEX verdicts_fp ON verdicts(fingerprint);"
	"CREATE INDEX verdicts_review ON verdicts(review_msgid, fid);",
	/* 3: scale-out (bot/metrics.c, cmd_run.c --role): the outbox claim
	 * is a lease, so that two senders never both hold a mail and one that
	 * dies gives its mail back; a job remembers the worker whose lease on
	 * it ran out; each worker's counters for /metrics */
	"ALTER TABLE outbox ADD COLUMN lease_until BIGINT;"
	"ALTER TABLE jobs ADD COLUMN lost_by TEXT;"
	"CREATE TABLE workers ("
	" name TEXT PRIMARY KEY, role TEXT NOT NULL, host TEXT,"
	" pid INTEGER, state TEXT NOT NULL," /* idle busy draining stopped */
	" claimed BIGINT NOT NULL DEFAULT 0, done BIGINT NOT NULL DEFAULT 0,"
	" failed BIGINT NOT NULL DEFAULT 0,"
	" lease_expiries BIGINT NOT NULL DEFAULT 0,"
	" started_at BIGINT NOT NULL, seen_at BIGINT NOT NULL);",
	/* 4: trust (issue 17). A verdict keeps its judge's role for the
	 * finding and the author address whose series it speaks for
	 * (bot/feedback.h: what a verdict may suppress); verdicts from
	 * before keep the reach of the judged series' author only. The
	 * outbox keeps which recipients are mailing lists, which have no
	 * per-recipient rate limit (bot/outbox.c). */
	"ALTER TABLE verdicts ADD COLUMN role TEXT;"
	"ALTER TABLE verdicts ADD COLUMN owner TEXT;"
	"UPDATE verdicts SET owner = (SELECT s.author FROM reviews r"
	" JOIN series s ON s.id = r.series_id"
	" WHERE r.message_id = verdicts.review_msgid);"
	"ALTER TABLE outbox ADD COLUMN lists TEXT;",
	/* 5: quiet and right (issue 15). How many people max_recipients
	 * trimmed from each mail (bot/scope.h: lists are never trimmed). */
	"ALTER TABLE reviews ADD COLUMN capped INTEGER NOT NULL DEFAULT 0;",
};

#define N_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

int64_t rb_now(void)
{
	const char *env = getenv("RB_NOW");

	if (env && *env)
		return strtoll(env, NULL, 10);
	return (int64_t)time(NULL);
}

int rb_store_begin(struct rb_store *st)
{
	return st->db->ops->begin(st->db);
}

int rb_store_commit(struct rb_store *st)
{
	return st->db->ops->commit(st->db);
}

void rb_store_rollback(struct rb_store *st)
{
	st->db->ops->rollback(st->db);
}

static int expand(struct rb_buf *out, const struct rb_db_ops *ops,
		  const char *sql)
{
	const char *p;
	int ret = 0;

	for (p = sql; *p && !ret;) {
		if (!strncmp(p, "{{ID}}", 6)) {
			ret = rb_buf_puts(out, ops->autoid);
			p += 6;
		} else if (!strncmp(p, "{{BLOB}}", 8)) {
			ret = rb_buf_puts(out, ops->blob);
			p += 8;
		} else {
			ret = rb_buf_putc(out, *p++);
		}
	}
	return ret;
}

int rb_store_migrate(struct rb_store *st, int *from, int *to)
{
	struct rb_db *db = st->db;
	struct rb_buf sql = RB_BUF_INIT(1 << 20);
	int64_t v = 0;
	size_t i;
	int ret;

	ret = db->ops->exec(db,
			    "CREATE TABLE IF NOT EXISTS schema_version ("
			    " version INTEGER NOT NULL)",
			    NULL, 0);
	if (ret)
		return ret;
	ret = rb_store_begin(st);
	if (ret)
		return ret;
	if (rb_db_query_int(db, &v, "SELECT MAX(version) FROM schema_version",
			    NULL, 0) < 0)
		v = 0;
	if (from)
		*from = (int)v;
	if (v > (int64_t)N_MIGRATIONS) {
		rb_store_rollback(st);
		return rb_err(RB_ESTORE,
			      "%s: schema version %lld is newer than this "
			      "reviewbot (%zu); upgrade reviewbot",
			      st->where, (long long)v, N_MIGRATIONS);
	}
	for (i = (size_t)v; i < N_MIGRATIONS; i++) {
		struct rb_dbv p = RB_DB_INT((int64_t)i + 1);

		rb_buf_reset(&sql);
		ret = expand(&sql, db->ops, migrations[i]);
		if (!ret)
			ret = db->ops->exec(db, sql.ptr, NULL, 0);
		if (!ret)
			ret = db->ops->exec(
				db, "INSERT INTO schema_version VALUES (?)", &p,
				1);
		if (ret) {
			rb_store_rollback(st);
			rb_buf_release(&sql);
			return rb_err(RB_ESTORE, "migration %zu: %s", i + 1,
				      rb_errmsg());
		}
	}
	rb_buf_release(&sql);
	if (to)
		*to = (int)N_MIGRATIONS;
	return rb_store_commit(st);
}

/* A URL without its password, for messages and logs. */
static char *redact(const char *url)
{
	const char *at = strchr(url, '@'), *scheme = strstr(url, "://");
	const char *colon;
	struct rb_buf b = RB_BUF_INIT(4096);

	if (!at || !scheme || at < scheme)
		return strdup(url);
	colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
	if (!colon)
		return strdup(url);
	rb_buf_add(&b, url, (size_t)(colon - url));
	rb_buf_puts(&b, ":***");
	rb_buf_puts(&b, at);
	return rb_buf_detach(&b, NULL);
}

int rb_store_open(struct rb_store **out, const char *path_or_url, bool shared)
{
	struct rb_store *st = calloc(1, sizeof(*st));
	bool pg = strstr(path_or_url, "://") != NULL;
	int ret;

	if (!st)
		return rb_err(RB_ENOMEM, "out of memory");
	st->lock_fd = -1;
	st->where = redact(path_or_url);
	if (!pg && !shared) {
		struct rb_buf lk = RB_BUF_INIT(4096);

		rb_buf_printf(&lk, "%s.lock", path_or_url);
		st->lock_fd = open(lk.ptr,
				   O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
				   0600);
		/* 0600 whatever the umask, as the store itself (db_sqlite.c). */
		if (st->lock_fd >= 0 && fchmod(st->lock_fd, 0600) &&
		    errno != EPERM) {
			close(st->lock_fd);
			st->lock_fd = -1;
		}
		if (st->lock_fd < 0) {
			ret = rb_err(RB_ESTORE, "%s: %s", lk.ptr,
				     strerror(errno));
			rb_buf_release(&lk);
			goto fail;
		}
		rb_buf_release(&lk);
		if (flock(st->lock_fd, LOCK_EX | LOCK_NB)) {
			ret = rb_err(RB_ELOCKED,
				     "%s: another reviewbot process owns this "
				     "store",
				     st->where);
			goto fail;
		}
	}
	ret = rb_db_open(&st->db, path_or_url);
	if (ret)
		goto fail;
	ret = rb_store_migrate(st, NULL, NULL);
	if (ret)
		goto fail;
	*out = st;
	return 0;
fail:
	rb_store_close(st);
	return ret;
}

void rb_store_close(struct rb_store *st)
{
	if (!st)
		return;
	rb_db_close(st->db);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	free(st->where);
	free(st);
}

#define EXEC(st, sql, ...)                                       \
	({                                                       \
		struct rb_dbv _p[] = { __VA_ARGS__ };            \
		(st)->db->ops->exec((st)->db, (sql), _p,         \
				    sizeof(_p) / sizeof(_p[0])); \
	})

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
	char hex[RB_SHA256_HEX], key[96], why[256];
	bool ok = true;
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
		ret = EXEC(
			st,
			"INSERT INTO messages (message_id, raw, origin,"
			" received_at, state, reason) VALUES"
			" (?, ?, ?, ?, 'malformed', ?) ON CONFLICT DO NOTHING",
			RB_DB_TEXT(key), RB_DB_BLOB(raw, len),
			RB_DB_TEXT(origin), RB_DB_INT(rb_now()),
			RB_DB_TEXT(why));
		if (ret)
			return ret;
		return st->db->ops->changes(st->db) ? 0 : -RB_EEXISTS;
	}
	if (!message_id) {
		rb_sha256_hex(hex, raw, len);
		snprintf(key, sizeof(key), "rb-raw-%.40s@reviewbot.invalid",
			 hex);
		message_id = key;
	}
	ret = EXEC(st,
		   "INSERT INTO messages (message_id, raw, origin, received_at)"
		   " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(message_id), RB_DB_BLOB(raw, len),
		   RB_DB_TEXT(origin), RB_DB_INT(rb_now()));
	if (ret)
		return ret;
	return st->db->ops->changes(st->db) ? 0 : -RB_EEXISTS;
}

int rb_store_add_bad(struct rb_store *st, const char *origin,
		     const char *reason, const char *raw, size_t len)
{
	struct rb_buf key = RB_BUF_INIT(4096);
	char hex[RB_SHA256_HEX];
	int ret;

	rb_sha256_hex(hex, origin, strlen(origin));
	rb_buf_printf(&key, "rb-bad-%.40s@reviewbot.invalid", hex);
	ret = EXEC(st,
		   "INSERT INTO messages (message_id, raw, origin, received_at,"
		   " state, reason) VALUES (?, ?, ?, ?, 'malformed', ?)"
		   " ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(key.ptr),
		   RB_DB_BLOB(raw ? raw : "", raw ? len : 0),
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

static char *dupv(const struct rb_dbv *v)
{
	if (v->t == RB_DBT_NULL)
		return NULL;
	if (v->t == RB_DBT_INT) {
		char tmp[32];

		snprintf(tmp, sizeof(tmp), "%lld", (long long)v->i);
		return strdup(tmp);
	}
	return strndup(v->s ? v->s : "", v->len);
}

static char *dupblob(const struct rb_dbv *v, size_t *len)
{
	char *p = malloc(v->len + 1);

	if (!p)
		return NULL;
	if (v->len)
		memcpy(p, v->s, v->len);
	p[v->len] = '\0';
	*len = v->len;
	return p;
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
	v->message_id = dupv(&row->v[0]);
	v->origin = dupv(&row->v[1]);
	v->raw = dupblob(&row->v[2], &v->len);
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
	return EXEC(st,
		    "UPDATE messages SET state = 'parsed', kind = ?,"
		    " subject = ?, from_addr = ?, from_name = ?, date = ?,"
		    " list_id = ?, in_reply_to = ?, refs = ?, version = ?,"
		    " idx = ?, total = ?, change_id = ?, reason = ?"
		    " WHERE message_id = ?",
		    RB_DB_TEXT(m->kind), RB_DB_TEXT(m->subject),
		    RB_DB_TEXT(m->from_addr), RB_DB_TEXT(m->from_name),
		    RB_DB_INT(m->date), RB_DB_TEXT(m->list_id),
		    RB_DB_TEXT(m->in_reply_to), RB_DB_TEXT(m->references),
		    RB_DB_INT(m->version), RB_DB_INT(m->idx),
		    RB_DB_INT(m->total), RB_DB_TEXT(m->change_id),
		    RB_DB_TEXT(m->reason), RB_DB_TEXT(message_id));
}

int rb_store_mark_malformed(struct rb_store *st, const char *message_id,
			    const char *reason)
{
	return EXEC(st,
		    "UPDATE messages SET state = 'malformed', reason = ?"
		    " WHERE message_id = ?",
		    RB_DB_TEXT(reason), RB_DB_TEXT(message_id));
}

struct meta_cb {
	int (*fn)(const struct rb_msgmeta *meta, const char *message_id,
		  void *payload);
	void *payload;
};

static const char *txt(const struct rb_dbv *v)
{
	return v->t == RB_DBT_TEXT ? v->s : NULL;
}

static int meta_row(const struct rb_dbrow *row, void *payload)
{
	struct meta_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_msgmeta m = {
		.kind = txt(&v[1]),
		.subject = txt(&v[2]),
		.from_addr = txt(&v[3]),
		.from_name = txt(&v[4]),
		.date = v[5].i,
		.list_id = txt(&v[6]),
		.in_reply_to = txt(&v[7]),
		.references = txt(&v[8]),
		.version = (int)v[9].i,
		.idx = (int)v[10].i,
		.total = (int)v[11].i,
		.change_id = txt(&v[12]),
	};

	return cb->fn(&m, txt(&v[0]), cb->payload);
}

int rb_store_each_meta(struct rb_store *st,
		       int (*fn)(const struct rb_msgmeta *meta,
				 const char *message_id, void *payload),
		       void *payload)
{
	struct meta_cb cb = { fn, payload };

	return st->db->ops->query(
		st->db,
		"SELECT message_id, kind, subject, from_addr, from_name, date,"
		" list_id, in_reply_to, refs, version, idx, total, change_id"
		" FROM messages WHERE state = 'parsed'"
		" AND kind IN ('patch', 'cover', 'reply')"
		" ORDER BY received_at, message_id",
		NULL, 0, meta_row, &cb);
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

	r->id = dupv(&row->v[0]);
	r->version = (int)row->v[1].i;
	r->total = (int)row->v[2].i;
	r->title = dupv(&row->v[3]);
	r->author = dupv(&row->v[4]);
	r->state = dupv(&row->v[5]);
	r->previous = dupv(&row->v[6]);
	r->last_date = row->v[7].i;
	return 1;
}

static int patch_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_series_row *r = payload;
	int64_t idx = row->v[0].i;

	if (idx >= 0 && idx <= r->total && !r->msgids[idx])
		r->msgids[idx] = dupv(&row->v[1]);
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
	return st->db->ops->changes(st->db) ? 0 : -RB_EEXISTS;
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
	j->kind = dupv(&row->v[1]);
	j->key = dupv(&row->v[2]);
	j->attempts = (int)row->v[3].i;
	return 1;
}

int rb_store_job_claim(struct rb_store *st, const char *owner,
		       int lease_seconds, struct rb_job *out)
{
	struct rb_buf sql = RB_BUF_INIT(4096);
	struct rb_job j = { 0 };
	int64_t now = rb_now();
	int ret;

	/* Ready jobs, and running ones whose worker's lease ran out. */
	rb_buf_printf(&sql,
		      "UPDATE jobs SET state = 'running', owner = ?,"
		      " lost_by = CASE WHEN state = 'running' THEN owner"
		      " ELSE NULL END,"
		      " lease_until = ?, attempts = attempts + 1,"
		      " updated_at = ? WHERE id = (SELECT id FROM jobs"
		      " WHERE (state = 'ready' AND not_before <= ?)"
		      " OR (state = 'running' AND lease_until < ?)"
		      " ORDER BY id LIMIT 1%s)"
		      " RETURNING id, kind, key, attempts",
		      st->db->ops->skip_locked);
	{
		struct rb_dbv p[] = { RB_DB_TEXT(owner),
				      RB_DB_INT(now + lease_seconds),
				      RB_DB_INT(now), RB_DB_INT(now),
				      RB_DB_INT(now) };

		ret = st->db->ops->query(st->db, sql.ptr, p, 5, job_row, &j);
	}
	rb_buf_release(&sql);
	if (ret)
		return ret;
	if (!j.kind)
		return -RB_ENOTFOUND;
	*out = j;
	return 0;
}

int rb_store_job_done(struct rb_store *st, int64_t id, const char *error)
{
	return EXEC(st,
		    "UPDATE jobs SET state = ?, error = ?, owner = NULL,"
		    " lease_until = NULL, updated_at = ? WHERE id = ?",
		    RB_DB_TEXT(error ? "failed" : "done"), RB_DB_TEXT(error),
		    RB_DB_INT(rb_now()), RB_DB_INT(id));
}

int rb_store_job_done_by(struct rb_store *st, int64_t id, const char *owner,
			 const char *error)
{
	int ret;

	ret = EXEC(st,
		   "UPDATE jobs SET state = ?, error = ?, owner = NULL,"
		   " lease_until = NULL, updated_at = ? WHERE id = ?"
		   " AND state = 'running' AND owner = ?",
		   RB_DB_TEXT(error ? "failed" : "done"), RB_DB_TEXT(error),
		   RB_DB_INT(rb_now()), RB_DB_INT(id), RB_DB_TEXT(owner));
	if (ret)
		return ret;
	if (!st->db->ops->changes(st->db))
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
		    " lease_until = NULL, not_before = ?, updated_at = ?"
		    " WHERE id = ?",
		    RB_DB_TEXT(error), RB_DB_INT(not_before),
		    RB_DB_INT(rb_now()), RB_DB_INT(id));
}

/* --- attempts, findings, reviews --- */

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

int rb_store_add_finding(struct rb_store *st, const char *series_id,
			 const char *review_msgid, const char *fid,
			 const struct rb_finding *f, const char *state)
{
	return EXEC(st,
		    "INSERT INTO findings (series_id, review_msgid, fid,"
		    " patch_idx, checker, checker_version, category, severity,"
		    " file, line, code, message, fingerprint, state,"
		    " created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		    RB_DB_TEXT(series_id), RB_DB_TEXT(review_msgid),
		    RB_DB_TEXT(fid), RB_DB_INT(f->patch_index),
		    RB_DB_TEXT(f->checker), RB_DB_TEXT(f->checker_version),
		    RB_DB_TEXT(f->category),
		    RB_DB_TEXT(rb_fsev_name(f->severity)), RB_DB_TEXT(f->file),
		    RB_DB_INT(f->line), RB_DB_TEXT(f->code),
		    RB_DB_TEXT(f->message), RB_DB_TEXT(f->fingerprint),
		    RB_DB_TEXT(state), RB_DB_INT(rb_now()));
}

int rb_store_fingerprint_rejected(struct rb_store *st, const char *fp,
				  bool *out)
{
	struct rb_dbv p = RB_DB_TEXT(fp);
	int64_t n = 0;
	int ret;

	ret = rb_db_query_int(st->db, &n,
			      "SELECT COUNT(*) FROM verdicts WHERE"
			      " fingerprint = ? AND authorised = 1 AND"
			      " verdict = 'false_positive'",
			      &p, 1);
	if (ret)
		return ret;
	*out = n > 0;
	return 0;
}

int rb_store_add_outmail(struct rb_store *st, const struct rb_outmail *m)
{
	int64_t now = rb_now();
	int ret;

	ret = EXEC(st,
		   "INSERT INTO reviews (message_id, series_id, kind,"
		   " patch_idx, policy, words, findings, subsystem, model,"
		   " tokens_in, tokens_out, cost, latency, created_at, capped)"
		   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
		   " ON CONFLICT DO NOTHING",
		   RB_DB_TEXT(m->message_id), RB_DB_TEXT(m->series_id),
		   RB_DB_TEXT(m->kind), RB_DB_INT(m->patch_idx),
		   RB_DB_TEXT(m->policy), RB_DB_INT(m->words),
		   RB_DB_INT(m->findings), RB_DB_TEXT(m->subsystem),
		   RB_DB_TEXT(m->model), RB_DB_INT(m->tokens_in),
		   RB_DB_INT(m->tokens_out),
		   RB_DB_INT((int64_t)(m->cost * 1e6)), RB_DB_INT(m->latency),
		   RB_DB_INT(now), RB_DB_INT(m->capped));
	if (ret)
		return ret;
	if (!st->db->ops->changes(st->db))
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

	o->message_id = dupv(&row->v[0]);
	o->env_from = dupv(&row->v[1]);
	o->rcpts = dupv(&row->v[2]);
	o->bytes = dupblob(&row->v[3], &o->len);
	o->attempts = (int)row->v[4].i;
	o->lists = row->n > 5 ? dupv(&row->v[5]) : NULL;
	return 1;
}

int rb_store_outbox_next(struct rb_store *st, struct rb_outrow *out)
{
	struct rb_buf sql = RB_BUF_INIT(4096);
	struct rb_outrow o = { 0 };
	int64_t now = rb_now();
	int ret;

	/*
	 * The claim is a lease (migration 3): a mail whose sender died in
	 * 'sending' goes out again, byte for byte, once the lease ran out,
	 * and two senders never hold the same mail at once.
	 */
	rb_buf_printf(&sql,
		      "UPDATE outbox SET state = 'sending', lease_until = ?,"
		      " attempts = attempts + 1 WHERE message_id = ("
		      "SELECT message_id FROM outbox WHERE (state IN"
		      " ('queued', 'held') AND send_after <= ?)"
		      " OR (state = 'sending' AND lease_until < ?)"
		      " ORDER BY send_after, created_at, message_id LIMIT 1%s)"
		      " RETURNING message_id, env_from, rcpts, bytes, attempts,"
		      " lists",
		      st->db->ops->skip_locked);
	{
		struct rb_dbv p[] = { RB_DB_INT(now + RB_OUTBOX_LEASE),
				      RB_DB_INT(now), RB_DB_INT(now) };

		ret = st->db->ops->query(st->db, sql.ptr, p, 3, out_row, &o);
	}
	rb_buf_release(&sql);
	if (ret)
		return ret;
	if (!o.message_id)
		return -RB_ENOTFOUND;
	*out = o;
	return 0;
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

/* --- the pipeline's job bookkeeping (bot/pipeline.c) --- */

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
	l->id[l->n] = dupv(&row->v[0]);
	l->irt[l->n] = dupv(&row->v[1]);
	l->refs[l->n] = dupv(&row->v[2]);
	l->n++;
	return l->id[l->n - 1] ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

/* Is @id (bare, as messages hold it) the Message-ID of one of our mails? */
static int is_review(struct rb_store *st, const char *id, size_t len, bool *out)
{
	struct rb_buf bare = RB_BUF_INIT(4096), br = RB_BUF_INIT(4096);
	int64_t n = 0;
	int ret;

	ret = rb_buf_add(&bare, id, len);
	if (!ret)
		ret = rb_buf_printf(&br, "<%s>", bare.ptr);
	if (!ret) {
		struct rb_dbv p[] = { RB_DB_TEXT(br.ptr),
				      RB_DB_TEXT(bare.ptr) };

		ret = rb_db_query_int(st->db, &n,
				      "SELECT COUNT(*) FROM reviews"
				      " WHERE message_id IN (?, ?)",
				      p, 2);
	}
	*out = n > 0;
	rb_buf_release(&bare);
	rb_buf_release(&br);
	return ret;
}

int rb_store_queue_replies(struct rb_store *st, int64_t now, size_t *queued)
{
	struct reply_list l = { 0 };
	size_t i;
	int ret;

	*queued = 0;
	/*
	 * A verdict sent to the bot directly carries no List-Id, so the parse
	 * stage marks it ignored for that reason; it is still a reply, since
	 * it must name one of our own mails to count. Mail ignored for any
	 * other reason (our own, a bot's, Auto-Submitted) is not.
	 */
	ret = st->db->ops->query(
		st->db,
		"SELECT m.message_id, m.in_reply_to, m.refs FROM messages m"
		" WHERE m.state = 'parsed' AND (m.kind = 'reply' OR"
		" (m.kind = 'ignored' AND m.reason ="
		" 'List-Id not on the allow-list')) AND NOT EXISTS (SELECT 1"
		" FROM feedback f WHERE f.message_id = m.message_id) AND NOT"
		" EXISTS (SELECT 1 FROM jobs j WHERE j.kind = 'feedback' AND"
		" j.key = m.message_id) ORDER BY m.received_at, m.message_id",
		NULL, 0, reply_row, &l);
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
