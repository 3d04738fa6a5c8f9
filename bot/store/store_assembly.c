// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_assembly.c - what series assembly reads and keeps. See
 * store_assembly.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store_priv.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/banned.h"

/* Past this many bytes a referenced id is indexed by its hash. */
#define RB_LINK_MAX 512

#define ASM_COLS                                                             \
	"m.message_id, m.kind, m.subject, m.from_addr, m.from_name, m.date," \
	" m.list_id, m.in_reply_to, m.refs, m.version, m.idx, m.total,"      \
	" m.change_id, m.body_facts, m.arrival, m.join_key, m.state"

/* What assembly reads: parsed patches, covers and replies it has seen. */
#define ASM_READS                                              \
	" m.state = 'parsed' AND m.kind IN ('patch', 'cover'," \
	" 'reply') AND m.arrival IS NOT NULL"

struct asm_cb {
	rb_asm_row_fn fn;
	void *payload;
};

static int asm_row(const struct rb_dbrow *row, void *payload)
{
	struct asm_cb *cb = payload;
	const struct rb_dbv *v = row->v;
	struct rb_msgmeta m = {
		.msg = {
			.message_id = rb_dbv_str(&v[0]),
			.subject = rb_dbv_str(&v[2]),
			.from_addr = rb_dbv_str(&v[3]),
			.from_name = rb_dbv_str(&v[4]),
			.date = v[5].i,
			.in_reply_to = rb_dbv_str(&v[7]),
			.change_id = rb_dbv_str(&v[12]),
			.body = v[13].t == RB_DBT_INT ? (uint32_t)v[13].i : 0,
		},
		.body_unknown = v[13].t != RB_DBT_INT,
		.kind = rb_dbv_str(&v[1]),
		.list_id = rb_dbv_str(&v[6]),
		.references = rb_dbv_str(&v[8]),
		.version = (int)v[9].i,
		.idx = (int)v[10].i,
		.total = (int)v[11].i,
	};
	struct rb_asm_row r = {
		.meta = &m,
		.arrival = v[14].t == RB_DBT_INT ? v[14].i : 0,
		.join_key = rb_dbv_str(&v[15]),
		.state = rb_dbv_str(&v[16]),
	};

	if (!m.msg.message_id)
		return 0;
	return cb->fn(&r, cb->payload);
}

/* The pending messages that a parse has seen (parsed or refused). */
#define ASM_PENDING                                       \
	" FROM asm_pending q CROSS JOIN messages m WHERE" \
	" m.message_id = q.message_id AND m.state <> 'new'"

int rb_store_asm_pending_count(struct rb_store *st, int64_t *n)
{
	return rb_db_query_int(st->db, n, "SELECT COUNT(*)" ASM_PENDING, NULL,
			       0);
}

int rb_store_asm_pend(struct rb_store *st, const char *message_id)
{
	return EXEC(st,
		    "INSERT INTO asm_pending VALUES (?) ON CONFLICT DO NOTHING",
		    RB_DB_TEXT(message_id));
}

static bool reads_kind(const char *k)
{
	return k && (!strcmp(k, "patch") || !strcmp(k, "cover") ||
		     !strcmp(k, "reply"));
}

int rb_store_asm_join_key(char hex[RB_SHA256_HEX], bool *has,
			  const char *message_id, const struct rb_msgmeta *m)
{
	struct rb_series_msg sm = m->msg;
	const char **refv = NULL;
	char *refs = NULL, *key = NULL, *save = NULL, *t, *c;
	size_t n = 0, max = 1;
	int ret = 0;

	*has = false;
	if (!reads_kind(m->kind))
		return 0;
	if (m->references && *m->references) {
		refs = strdup(m->references);
		if (!refs)
			return rb_err(RB_ENOMEM, "out of memory");
		for (c = refs; *c; c++)
			max += *c == ' ';
		refv = calloc(max, sizeof(*refv));
		if (!refv) {
			free(refs);
			return rb_err(RB_ENOMEM, "out of memory");
		}
		for (t = strtok_r(refs, " ", &save); t && n < max;
		     t = strtok_r(NULL, " ", &save))
			refv[n++] = t;
	}
	sm.message_id = message_id;
	sm.references = refv;
	sm.n_references = n;
	ret = rb_series_join_key(&key, &sm);
	if (!ret && key) {
		rb_sha256_hex(hex, key, strlen(key));
		*has = true;
	}
	free(key);
	free(refv);
	free(refs);
	return ret;
}

/* Rows copied, so that the callback may write to the table. */
struct row_copy {
	char **s; /* 17 strings per row */
	int64_t *i; /* 6 numbers per row */
	bool *unknown;
	size_t n, cap;
};

#define COPY_S 17
#define COPY_I 6

static int copy_row(const struct rb_dbrow *row, void *payload)
{
	struct row_copy *c = payload;
	static const int ints[COPY_I] = { 5, 9, 10, 11, 13, 14 };
	size_t k;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		char **s = realloc(c->s, cap * COPY_S * sizeof(*s));
		int64_t *i;
		bool *u;

		if (!s)
			return rb_err(RB_ENOMEM, "out of memory");
		c->s = s;
		i = realloc(c->i, cap * COPY_I * sizeof(*i));
		if (!i)
			return rb_err(RB_ENOMEM, "out of memory");
		c->i = i;
		u = realloc(c->unknown, cap * sizeof(*u));
		if (!u)
			return rb_err(RB_ENOMEM, "out of memory");
		c->unknown = u;
		c->cap = cap;
	}
	for (k = 0; k < COPY_S; k++) {
		const struct rb_dbv *v = &row->v[k];

		c->s[c->n * COPY_S + k] = NULL;
		if (v->t == RB_DBT_NULL || v->t == RB_DBT_INT)
			continue;
		c->s[c->n * COPY_S + k] = rb_dbv_strdup(v);
		if (!c->s[c->n * COPY_S + k]) {
			while (k-- > 0)
				free(c->s[c->n * COPY_S + k]);
			return rb_err(RB_ENOMEM, "out of memory");
		}
	}
	for (k = 0; k < COPY_I; k++)
		c->i[c->n * COPY_I + k] =
			row->v[ints[k]].t == RB_DBT_INT ? row->v[ints[k]].i : 0;
	c->unknown[c->n] = row->v[13].t != RB_DBT_INT;
	c->n++;
	return 0;
}

/* Calls @fn with each row that @sql selects (ASM_COLS), copied first. */
static int each_copied(struct rb_store *st, const char *sql, rb_asm_row_fn fn,
		       void *payload)
{
	struct row_copy c = { 0 };
	size_t r, k;
	int ret;

	ret = st->db->ops->query(st->db, sql, NULL, 0, copy_row, &c);
	for (r = 0; !ret && r < c.n; r++) {
		char **s = &c.s[r * COPY_S];
		int64_t *i = &c.i[r * COPY_I];
		struct rb_msgmeta m = {
			.msg = {
				.message_id = s[0],
				.subject = s[2],
				.from_addr = s[3],
				.from_name = s[4],
				.date = i[0],
				.in_reply_to = s[7],
				.change_id = s[12],
				.body = (uint32_t)i[4],
			},
			.body_unknown = c.unknown[r],
			.kind = s[1],
			.list_id = s[6],
			.references = s[8],
			.version = (int)i[1],
			.idx = (int)i[2],
			.total = (int)i[3],
		};
		struct rb_asm_row row = {
			.meta = &m,
			.arrival = i[5],
			.join_key = s[15],
			.state = s[16],
		};

		if (s[0])
			ret = fn(&row, payload);
	}
	for (r = 0; r < c.n; r++)
		for (k = 0; k < COPY_S; k++)
			free(c.s[r * COPY_S + k]);
	free(c.s);
	free(c.i);
	free(c.unknown);
	return ret;
}

int rb_store_asm_each_pending(struct rb_store *st, rb_asm_row_fn fn,
			      void *payload)
{
	return each_copied(st,
			   "SELECT " ASM_COLS ASM_PENDING " ORDER BY m.arrival",
			   fn, payload);
}

/* Migration 18: a row no assembly has seen gets its arrival (after
 * those that one has, in the order they were stored) and, when it has
 * one, its join key. */
static int migrate_row(const struct rb_asm_row *r, void *payload)
{
	struct rb_store *st = payload;
	const char *id = r->meta->msg.message_id;
	char hex[RB_SHA256_HEX];
	bool has = false;
	int ret = 0;

	if (r->state && !strcmp(r->state, "parsed"))
		ret = rb_store_asm_join_key(hex, &has, id, r->meta);
	if (!ret)
		ret = EXEC(st,
			   "UPDATE messages SET arrival = " RB_ASM_ARRIVAL
			   ", join_key = ? WHERE message_id = ?",
			   has ? RB_DB_TEXT(hex) : RB_DB_NULL, RB_DB_TEXT(id));
	return ret;
}

int rb_store_asm_migrate(struct rb_store *st)
{
	return each_copied(st,
			   "SELECT " ASM_COLS " FROM messages m WHERE"
			   " m.arrival IS NULL ORDER BY m.received_at,"
			   " COALESCE(m.stored_us, 0), m.message_id",
			   migrate_row, st);
}

/* @id as msg_links keeps it: itself, or its hash when too long. */
static const char *link_key(char buf[RB_SHA256_HEX + 16], const char *id)
{
	size_t n = strlen(id);
	char hex[RB_SHA256_HEX];

	if (n <= RB_LINK_MAX)
		return id;
	rb_sha256_hex(hex, id, n);
	snprintf(buf, RB_SHA256_HEX + 16, "rb-sha256:%s", hex);
	return buf;
}

int rb_store_asm_index(struct rb_store *st, const char *message_id,
		       const char *const *links, size_t n)
{
	char buf[RB_SHA256_HEX + 16];
	size_t i;
	int ret;

	/* Not pending any more: the row itself is not written. */
	ret = EXEC(st, "DELETE FROM asm_pending WHERE message_id = ?",
		   RB_DB_TEXT(message_id));
	for (i = 0; !ret && i < n; i++)
		ret = EXEC(st,
			   "INSERT INTO msg_links (ref, message_id)"
			   " VALUES (?, ?) ON CONFLICT DO NOTHING",
			   RB_DB_TEXT(link_key(buf, links[i])),
			   RB_DB_TEXT(message_id));
	return ret;
}

int rb_store_asm_each(struct rb_store *st, rb_asm_row_fn fn, void *payload)
{
	struct asm_cb cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT " ASM_COLS
				  " FROM messages m WHERE" ASM_READS
				  " ORDER BY m.arrival",
				  NULL, 0, asm_row, &cb);
}

int rb_store_asm_by_id(struct rb_store *st, const char *id, rb_asm_row_fn fn,
		       void *payload)
{
	struct asm_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT " ASM_COLS " FROM messages m WHERE"
		     " m.message_id = ? AND" ASM_READS,
		     asm_row, &cb, RB_DB_TEXT(id));
}

int rb_store_asm_linking(struct rb_store *st, const char *id, int64_t max,
			 rb_asm_row_fn fn, void *payload)
{
	struct asm_cb cb = { fn, payload };
	char buf[RB_SHA256_HEX + 16];

	/* Links and join keys are kept for what assembly reads alone
	 * (rb_store_asm_index()), so these two need no ASM_READS, which
	 * SQLite would answer from the index on state (every parsed
	 * message) rather than from theirs; CROSS JOIN keeps SQLite's
	 * order (msg_links first), and PostgreSQL reads it as a join. */
	return QUERY(st,
		     "SELECT " ASM_COLS " FROM msg_links l CROSS JOIN"
		     " messages m WHERE l.ref = ? AND m.message_id ="
		     " l.message_id LIMIT ?",
		     asm_row, &cb, RB_DB_TEXT(link_key(buf, id)),
		     RB_DB_INT(max));
}

int rb_store_asm_by_join(struct rb_store *st, const char *key, int64_t max,
			 rb_asm_row_fn fn, void *payload)
{
	struct asm_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT " ASM_COLS " FROM messages m WHERE"
		     " m.join_key = ? LIMIT ?",
		     asm_row, &cb, RB_DB_TEXT(key), RB_DB_INT(max));
}

struct series_keys_cb {
	int (*fn)(const char *id, const char *change_key, const char *title_key,
		  void *payload);
	void *payload;
};

static int series_keys_row(const struct rb_dbrow *row, void *payload)
{
	struct series_keys_cb *cb = payload;
	const char *id = rb_dbv_str(&row->v[0]);

	return id ? cb->fn(id, rb_dbv_str(&row->v[1]), rb_dbv_str(&row->v[2]),
			   cb->payload) :
		    0;
}

int rb_store_asm_series_of(struct rb_store *st, const char *message_id,
			   int (*fn)(const char *id, const char *change_key,
				     const char *title_key, void *payload),
			   void *payload)
{
	struct series_keys_cb cb = { fn, payload };

	return QUERY(st,
		     "SELECT s.id, s.change_key, s.title_key FROM patches p"
		     " CROSS JOIN series s WHERE p.message_id = ? AND"
		     " s.id = p.series_id AND s.title_key IS NOT NULL",
		     series_keys_row, &cb, RB_DB_TEXT(message_id));
}

int rb_store_asm_parts_by_key(struct rb_store *st, bool change, const char *key,
			      int64_t max,
			      int (*fn)(const char *message_id, void *payload),
			      void *payload)
{
	struct rb_each_str cb = { fn, payload };

	if (change)
		return QUERY(st,
			     "SELECT p.message_id FROM series s CROSS JOIN"
			     " patches p WHERE s.change_key = ? AND"
			     " p.series_id = s.id LIMIT ?",
			     rb_store_each_str_row, &cb, RB_DB_TEXT(key),
			     RB_DB_INT(max));
	return QUERY(st,
		     "SELECT p.message_id FROM series s CROSS JOIN patches p"
		     " WHERE s.title_key = ? AND p.series_id = s.id LIMIT ?",
		     rb_store_each_str_row, &cb, RB_DB_TEXT(key),
		     RB_DB_INT(max));
}

/* What is stored of a series, to tell whether assembly changed it. */
struct stored_series {
	bool found, same;
	int64_t matched; /* parts stored at their place */
	const struct rb_series *s;
	const char *ck, *tk;
};

static bool str_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int stored_row(const struct rb_dbrow *row, void *payload)
{
	struct stored_series *c = payload;
	const struct rb_dbv *v = row->v;
	const struct rb_series *s = c->s;

	c->found = true;
	c->same = v[0].i == s->version && v[1].i == s->total &&
		  str_same(rb_dbv_str(&v[2]), s->cover) &&
		  str_same(rb_dbv_str(&v[3]), s->title) &&
		  str_same(rb_dbv_str(&v[4]), s->author) &&
		  str_same(rb_dbv_str(&v[5]), s->previous) &&
		  str_same(rb_dbv_str(&v[6]), s->change_id) &&
		  v[7].i == (int64_t)s->complete && v[8].i == s->last_date &&
		  str_same(rb_dbv_str(&v[9]), c->ck) &&
		  str_same(rb_dbv_str(&v[10]), c->tk);
	return 1;
}

/* Does every part of @s stand stored at its place? */
static int parts_row(const struct rb_dbrow *row, void *payload)
{
	struct stored_series *c = payload;
	const struct rb_series *s = c->s;
	int64_t idx = row->v[0].i;
	const char *want = NULL;

	if (idx == 0)
		want = s->cover;
	else if (idx > 0 && idx <= s->total)
		want = s->patches[idx - 1];
	if (want && str_same(rb_dbv_str(&row->v[1]), want))
		c->matched++;
	return 0;
}

int rb_store_asm_put_series(struct rb_store *st, const struct rb_series *s,
			    const char *change_key, const char *title_key,
			    bool *changed)
{
	struct stored_series c = { .s = s, .ck = change_key, .tk = title_key };
	int64_t want = s->cover ? 1 : 0;
	int i, ret;

	*changed = false;
	ret = QUERY(st,
		    "SELECT version, total, cover, title, author, previous,"
		    " change_id, complete, last_date, change_key, title_key"
		    " FROM series WHERE id = ?",
		    stored_row, &c, RB_DB_TEXT(s->id));
	if (!ret && c.found && c.same) {
		for (i = 0; i < s->total; i++)
			want += s->patches[i] != NULL;
		ret = QUERY(st,
			    "SELECT idx, message_id FROM patches"
			    " WHERE series_id = ?",
			    parts_row, &c, RB_DB_TEXT(s->id));
		/* Stale rows (a part that assembly no longer places) stay,
		 * as rb_store_put_series() leaves them: only ours count. */
		if (!ret && c.matched != want)
			c.same = false;
	}
	if (ret || (c.found && c.same))
		return ret;
	ret = rb_store_put_series(st, s);
	if (!ret)
		ret = EXEC(st,
			   "UPDATE series SET change_key = ?, title_key = ?"
			   " WHERE id = ?",
			   RB_DB_TEXT(change_key), RB_DB_TEXT(title_key),
			   RB_DB_TEXT(s->id));
	if (!ret)
		*changed = true;
	return ret;
}

int rb_store_asm_drop_series(struct rb_store *st, const char *id)
{
	return EXEC(st,
		    "UPDATE series SET change_key = NULL, title_key = NULL"
		    " WHERE id = ?",
		    RB_DB_TEXT(id));
}

int rb_store_asm_each_series(struct rb_store *st,
			     int (*fn)(const char *id, void *payload),
			     void *payload)
{
	struct rb_each_str cb = { fn, payload };

	return st->db->ops->query(st->db,
				  "SELECT id FROM series WHERE title_key IS"
				  " NOT NULL",
				  NULL, 0, rb_store_each_str_row, &cb);
}
