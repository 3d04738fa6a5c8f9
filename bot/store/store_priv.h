/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_priv.h - what the store files share and nothing else includes:
 * the store's handle on its driver (bot/store/db.h) and the one way they run a
 * statement. Callers see struct rb_store as an opaque handle (store.h);
 * only the files of bot/store/ write SQL.
 */
#ifndef RB_BOT_STORE_PRIV_H
#define RB_BOT_STORE_PRIV_H

#include <stdbool.h>

#include "bot/store/db.h"
#include "bot/store/store.h"

struct rb_store {
	struct rb_db *db;
	char *url; /* the path or URL as opened, for rb_store_open_again() */
	char *where; /* path or URL with any password removed, for messages */
	int lock_fd; /* the single-owner lock of a SQLite store, or -1 */
	bool public_view; /* reports as the public sees them (store_reports.h) */
};

/* The first two columns of the first row, as malloc'd strings (NULL for
 * SQL NULL): a row callback (bot/store/db.h) that stops after one row. */
struct rb_two_text {
	char *a, *b;
};
int rb_store_two_text_row(const struct rb_dbrow *row, void *payload);

/*
 * The first two text columns of the first row of @sql into *a and *b
 * (malloc'd; @b NULL: one column, or the second dropped). -RB_ENOTFOUND,
 * with nothing to free, when there is no row or its first column is NULL.
 */
int rb_store_two_text(struct rb_store *st, char **a, char **b, const char *sql,
		      const struct rb_dbv *p, size_t n);
#define TWO_TEXT(st, a, b, sql, ...)                           \
	({                                                     \
		struct rb_dbv _p[] = { __VA_ARGS__ };          \
		rb_store_two_text((st), (a), (b), (sql), _p,   \
				  sizeof(_p) / sizeof(_p[0])); \
	})

/* Row callbacks that call @fn with the first column of each row: a
 * string (rows where it is NULL are passed over), or an integer. */
struct rb_each_str {
	int (*fn)(const char *s, void *payload);
	void *payload;
};
int rb_store_each_str_row(const struct rb_dbrow *row, void *payload);
struct rb_each_int {
	int (*fn)(int64_t v, void *payload);
	void *payload;
};
int rb_store_each_int_row(const struct rb_dbrow *row, void *payload);

/*
 * Runs a query that claims a row: @sql says {{SKIP_LOCKED}} where the
 * engine locks the row it picks (" FOR UPDATE SKIP LOCKED" on
 * PostgreSQL, nothing on SQLite, whose writer holds the whole store).
 * -RB_ENOTFOUND when there was none to claim.
 */
int rb_store_claim_query(struct rb_store *st, const char *sql,
			 const struct rb_dbv *p, size_t n, rb_dbrow_fn fn,
			 void *payload);

/* Migration 9: the rate rows of the mail that a limit still counts
 * (bot/store/store_outbox.c). */
int rb_store_outbox_backfill_rates(struct rb_store *st);

/* Migration 18: the arrival and join key of the rows no assembly has
 * seen yet (bot/store/store_assembly.c). */
int rb_store_asm_migrate(struct rb_store *st);

struct rb_msgmeta;
/*
 * What assembly needs of a message, set as it is stored or parsed
 * (bot/store/store_assembly.c, issue 38), so that assembly never
 * rewrites its row. rb_store_asm_join_key(): @m's join key as assembly
 * keeps it (hex of SHA-256), *@has false when it has none (assembly
 * reads only parsed patches, covers and replies; the others never
 * join). rb_store_asm_pend(): @message_id, just inserted, is pending
 * for assembly. RB_ASM_ARRIVAL: the arrival of a row being inserted,
 * one more than the store's last (SQL, for the VALUES of an INSERT).
 */
int rb_store_asm_join_key(char hex[65], bool *has, const char *message_id,
			  const struct rb_msgmeta *m);
int rb_store_asm_pend(struct rb_store *st, const char *message_id);
#define RB_ASM_ARRIVAL "(SELECT COALESCE(MAX(arrival), 0) + 1 FROM messages)"

/* *out: whether the COUNT(*) that @sql asks for is above 0. */
int rb_store_exists(struct rb_store *st, bool *out, const char *sql,
		    const struct rb_dbv *p, size_t n);

/* Runs one statement with the parameters that follow the SQL. */
#define EXEC(st, sql, ...)                                       \
	({                                                       \
		struct rb_dbv _p[] = { __VA_ARGS__ };            \
		(st)->db->ops->exec((st)->db, (sql), _p,         \
				    sizeof(_p) / sizeof(_p[0])); \
	})

/* Rows changed by the last statement of @st. */
static inline int64_t rb_store_changes(struct rb_store *st)
{
	return st->db->ops->changes(st->db);
}

/* Runs one query with the parameters that follow @fn and @payload. */
#define QUERY(st, sql, fn, payload, ...)                               \
	({                                                             \
		struct rb_dbv _p[] = { __VA_ARGS__ };                  \
		(st)->db->ops->query((st)->db, (sql), _p,              \
				     sizeof(_p) / sizeof(_p[0]), (fn), \
				     (payload));                       \
	})

#endif
