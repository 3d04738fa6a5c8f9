/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db.h - the SQL driver under the store: one table of operations, two
 * backends (SQLite, the embedded default, and PostgreSQL through libpq for
 * workers on several machines). The store writes its SQL once, with '?'
 * placeholders and the subset of SQL both engines share (ON CONFLICT,
 * RETURNING); the drivers translate placeholders and map errors to
 * -RB_ESTORE with the engine's message, or to -RB_EINVAL when the engine
 * refused a value (bad input: record the item and skip it).
 */
#ifndef RB_BOT_DB_H
#define RB_BOT_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rb_dbt { RB_DBT_NULL, RB_DBT_INT, RB_DBT_TEXT, RB_DBT_BLOB };

/* A parameter or a column value. Strings are borrowed. */
struct rb_dbv {
	enum rb_dbt t;
	int64_t i;
	const char *s; /* TEXT (NUL-terminated) or BLOB (len bytes) */
	size_t len;
};

#define RB_DB_INT(v) ((struct rb_dbv){ .t = RB_DBT_INT, .i = (v) })
/* NULL becomes SQL NULL. A function, so that an array argument is fine. */
static inline struct rb_dbv rb_db_text(const char *s)
{
	return (struct rb_dbv){ .t = s ? RB_DBT_TEXT : RB_DBT_NULL, .s = s };
}

#define RB_DB_TEXT(v) rb_db_text(v)
#define RB_DB_BLOB(p, n) \
	((struct rb_dbv){ .t = RB_DBT_BLOB, .s = (p), .len = (n) })
#define RB_DB_NULL ((struct rb_dbv){ .t = RB_DBT_NULL })

struct rb_db;

/* A result row; values are valid only during the callback. */
struct rb_dbrow {
	size_t n;
	const struct rb_dbv *v;
};

/* Return 0 to go on, 1 to stop early (not an error), <0 to fail. */
typedef int (*rb_dbrow_fn)(const struct rb_dbrow *row, void *payload);

struct rb_db_ops {
	const char *name; /* "sqlite", "postgresql" */
	void (*close)(struct rb_db *db);
	/* Runs @sql (several statements allowed only when n == 0). */
	int (*exec)(struct rb_db *db, const char *sql,
		    const struct rb_dbv *params, size_t n);
	/* Runs one statement and calls @fn for each row. */
	int (*query)(struct rb_db *db, const char *sql,
		     const struct rb_dbv *params, size_t n, rb_dbrow_fn fn,
		     void *payload);
	/*
	 * The BEGIN that takes the write lock at once where the engine has
	 * one ("BEGIN IMMEDIATE" for SQLite). COMMIT and ROLLBACK are the
	 * same SQL on both engines: the store runs them through exec().
	 */
	const char *begin;
	/* Rows changed by the last exec. */
	int64_t (*changes)(struct rb_db *db);
	/* Whether a transaction is open on this connection (else each
	 * statement commits by itself). */
	bool (*in_txn)(struct rb_db *db);
	/* SQL text for "claim one row": "" for SQLite, " FOR UPDATE SKIP
	 * LOCKED" for PostgreSQL, appended to the claim subquery. */
	const char *skip_locked;
	/* The column type of an auto-increment key in CREATE TABLE. */
	const char *autoid;
	const char *blob;
	/*
	 * Several processes may work on one store at once (PostgreSQL, the
	 * roles of reviewbot run); a SQLite store has one owner, its lock
	 * file (bot/store/store.c).
	 */
	bool shared;
	/*
	 * A value the engine will not take fails its statement with
	 * -RB_EINVAL and aborts the whole transaction (PostgreSQL: a NUL
	 * byte, an invalid sequence). SQLite takes every value.
	 */
	bool refuses_values;
	/*
	 * Takes the session-level lock @key without waiting: *got is true
	 * when this connection holds it now. It goes with the connection,
	 * so a process that dies gives it up. SQLite: always held, since one
	 * process owns a SQLite store.
	 */
	int (*try_lock)(struct rb_db *db, int64_t key, bool *got);
	/*
	 * Whether this connection still holds the lock it took with
	 * try_lock() (a dropped and re-made connection loses it). PostgreSQL
	 * asks whether the session holds any advisory lock: the store takes
	 * only the one.
	 */
	int (*lock_held)(struct rb_db *db, int64_t key, bool *held);
};

struct rb_db {
	const struct rb_db_ops *ops;
};

/* Opens "postgresql://..." / "postgres://..." with libpq, else a SQLite
 * file path (WAL, synchronous=FULL, busy timeout). */
int rb_db_open(struct rb_db **out, const char *path_or_url);
int rb_db_sqlite_open(struct rb_db **out, const char *path);
int rb_db_pg_open(struct rb_db **out, const char *url);

static inline void rb_db_close(struct rb_db *db)
{
	if (db)
		db->ops->close(db);
}

/*
 * TEXT as both engines take it. A UTF8 PostgreSQL database refuses a
 * string that is not well-formed UTF-8 (RFC 3629 section 4: no overlong
 * form, no surrogate, nothing past U+10FFFF) and a NUL, where SQLite
 * stores any bytes; mail carries all of these (a raw 8-bit Message-ID or
 * Subject:). So that one hostile header cannot stop intake on
 * PostgreSQL, and so that a value is stored and looked up the same way on
 * both engines, the drivers bind every TEXT parameter through
 * rb_db_text_clean(): each byte that does not start a well-formed
 * sequence becomes U+FFFD. The rule is deterministic, so a lookup by a
 * Message-ID taken from another mail (In-Reply-To, References) finds the
 * row stored under the same bytes. *out is NULL when @s is clean already
 * (the usual case: nothing is copied), else a malloc'd copy the caller
 * frees. Returns 0 or -RB_ENOMEM.
 */
int rb_db_text_clean(char **out, const char *s);

/*
 * Column values. rb_dbv_strdup(): a malloc'd copy, an integer in decimal,
 * NULL for SQL NULL (or when out of memory). rb_dbv_blobdup(): the bytes
 * with a NUL after them, their count in *len. rb_dbv_str(): TEXT or BLOB
 * bytes, borrowed, or NULL. rb_dbv_int(): an integer, TEXT parsed
 * (PostgreSQL returns SUM() as numeric, which comes back as text), 0 for
 * anything else.
 */
char *rb_dbv_strdup(const struct rb_dbv *v);
char *rb_dbv_blobdup(const struct rb_dbv *v, size_t *len);
const char *rb_dbv_str(const struct rb_dbv *v);
int64_t rb_dbv_int(const struct rb_dbv *v);

/* Convenience: the first column of the first row as an integer. */
int rb_db_query_int(struct rb_db *db, int64_t *out, const char *sql,
		    const struct rb_dbv *params, size_t n);
/* The first column of the first row as a malloc'd string (NULL if none). */
int rb_db_query_text(struct rb_db *db, char **out, const char *sql,
		     const struct rb_dbv *params, size_t n);

#endif
