// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_sqlite.c - the SQLite backend: WAL with synchronous=FULL for the
 * state (STYLE.md, durability), and BEGIN IMMEDIATE so that a stage takes
 * the write lock before it reads what it will change.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/store/db.h"
#include "util/err.h"
#include "util/banned.h"

/*
 * Prepared statements, kept by their text: the store runs a few dozen
 * statements over and over (five or so for each ingested message), and
 * preparing one costs more than running it: sqlite3_prepare_v2() was 19%
 * of the CPU of an IMAP pass over the linux-api corpus. A statement in
 * use (a query run from another query's row callback) is not shared: the
 * inner one prepares its own.
 */
#define STMT_CACHE 64

struct stmt_slot {
	char *sql;
	uint32_t hash;
	bool busy;
	sqlite3_stmt *st;
	uint64_t used;
};

struct sqlite_db {
	struct rb_db base;
	sqlite3 *h;
	struct stmt_slot cache[STMT_CACHE];
	uint64_t tick;
};

static struct sqlite_db *S(struct rb_db *db)
{
	return (struct sqlite_db *)db;
}

static int fail(struct sqlite_db *d, const char *what)
{
	return rb_err(RB_ESTORE, "sqlite: %s: %s", what, sqlite3_errmsg(d->h));
}

static int bind_all(struct sqlite_db *d, sqlite3_stmt *st,
		    const struct rb_dbv *p, size_t n)
{
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		int k = (int)i + 1;

		switch (p[i].t) {
		case RB_DBT_NULL:
			rc = sqlite3_bind_null(st, k);
			break;
		case RB_DBT_INT:
			rc = sqlite3_bind_int64(st, k, p[i].i);
			break;
		case RB_DBT_TEXT: {
			char *clean = NULL;

			/* As PostgreSQL would take it (db.h). */
			if (rb_db_text_clean(&clean, p[i].s))
				return -RB_ENOMEM;
			if (clean)
				rc = sqlite3_bind_text(st, k, clean, -1,
						       SQLITE_TRANSIENT);
			else
				rc = sqlite3_bind_text(st, k, p[i].s, -1,
						       SQLITE_STATIC);
			free(clean);
			break;
		}
		case RB_DBT_BLOB:
			rc = sqlite3_bind_blob64(st, k, p[i].s ? p[i].s : "",
						 p[i].len, SQLITE_STATIC);
			break;
		}
	}
	return rc == SQLITE_OK ? 0 : fail(d, "bind");
}

static uint32_t sql_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * The statement for @sql, from the cache or prepared (and cached when a
 * slot is free or can be taken from the least recently used idle one);
 * *@slot is its slot, or NULL when the caller finalizes it.
 */
static int stmt_get(struct sqlite_db *d, const char *sql, sqlite3_stmt **out,
		    struct stmt_slot **slot)
{
	uint32_t h = sql_hash(sql);
	struct stmt_slot *c, *victim = NULL;
	sqlite3_stmt *st;
	char *copy;
	size_t i;

	*slot = NULL;
	for (i = 0; i < STMT_CACHE; i++) {
		c = &d->cache[i];
		if (c->sql && c->hash == h && !c->busy &&
		    !strcmp(c->sql, sql)) {
			c->busy = true;
			c->used = ++d->tick;
			*out = c->st;
			*slot = c;
			return 0;
		}
		if (!c->busy && (!victim || !c->sql ||
				 (victim->sql && c->used < victim->used)))
			victim = c;
	}
	if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(d, sql);
	*out = st;
	copy = victim ? strdup(sql) : NULL;
	if (!copy)
		return 0;
	if (victim->sql) {
		sqlite3_finalize(victim->st);
		free(victim->sql);
	}
	victim->sql = copy;
	victim->hash = h;
	victim->st = st;
	victim->busy = true;
	victim->used = ++d->tick;
	*slot = victim;
	return 0;
}

/* Done with @st: back to the cache, reset and unbound, or finalized. */
static void stmt_put(sqlite3_stmt *st, struct stmt_slot *slot)
{
	if (!slot) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	slot->busy = false;
}

static void stmt_cache_clear(struct sqlite_db *d)
{
	size_t i;

	for (i = 0; i < STMT_CACHE; i++) {
		sqlite3_finalize(d->cache[i].st);
		free(d->cache[i].sql);
		memset(&d->cache[i], 0, sizeof(d->cache[i]));
	}
}

static int sq_query(struct rb_db *db, const char *sql,
		    const struct rb_dbv *params, size_t n, rb_dbrow_fn fn,
		    void *payload)
{
	struct sqlite_db *d = S(db);
	struct rb_dbv vals[32];
	struct rb_dbrow row = { 0, vals };
	struct stmt_slot *slot;
	sqlite3_stmt *st = NULL;
	int rc, ret = 0, i, ncol;

	ret = stmt_get(d, sql, &st, &slot);
	if (ret)
		return ret;
	ret = bind_all(d, st, params, n);
	if (ret)
		goto out;
	ncol = sqlite3_column_count(st);
	if (ncol > 32)
		ncol = 32;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++) {
			struct rb_dbv *v = &vals[i];

			memset(v, 0, sizeof(*v));
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				v->t = RB_DBT_NULL;
				break;
			case SQLITE_INTEGER:
				v->t = RB_DBT_INT;
				v->i = sqlite3_column_int64(st, i);
				break;
			case SQLITE_BLOB:
				v->t = RB_DBT_BLOB;
				v->s = sqlite3_column_blob(st, i);
				v->len = (size_t)sqlite3_column_bytes(st, i);
				break;
			default:
				v->t = RB_DBT_TEXT;
				v->s = (const char *)sqlite3_column_text(st, i);
				v->len = (size_t)sqlite3_column_bytes(st, i);
				break;
			}
		}
		row.n = (size_t)ncol;
		if (!fn)
			continue;
		ret = fn(&row, payload);
		if (ret) {
			ret = ret > 0 ? 0 : ret;
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		ret = fail(d, sql);
out:
	stmt_put(st, slot);
	return ret;
}

static int sq_exec(struct rb_db *db, const char *sql,
		   const struct rb_dbv *params, size_t n)
{
	struct sqlite_db *d = S(db);
	char *msg = NULL;

	/* One statement is cached (BEGIN, a lease's UPDATE); a script (the
	 * schema, a migration) is run once by sqlite3_exec(). */
	if (n || !strchr(sql, ';'))
		return sq_query(db, sql, params, n, NULL, NULL);
	if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int ret = rb_err(RB_ESTORE, "sqlite: %s", msg ? msg : "?");

		sqlite3_free(msg);
		return ret;
	}
	return 0;
}

static int64_t sq_changes(struct rb_db *db)
{
	return sqlite3_changes64(S(db)->h);
}

static bool sq_in_txn(struct rb_db *db)
{
	return !sqlite3_get_autocommit(S(db)->h);
}

static void sq_close(struct rb_db *db)
{
	struct sqlite_db *d = S(db);

	stmt_cache_clear(d);
	sqlite3_close(d->h);
	free(d);
}

/* One process owns a SQLite store (its lock file): the lock is its own. */
static int sq_lock(struct rb_db *db, int64_t key, bool *got)
{
	(void)db;
	(void)key;
	*got = true;
	return 0;
}

static const struct rb_db_ops sqlite_ops = {
	.name = "sqlite",
	.close = sq_close,
	.exec = sq_exec,
	.query = sq_query,
	.begin = "BEGIN IMMEDIATE",
	.changes = sq_changes,
	.in_txn = sq_in_txn,
	.skip_locked = "",
	.autoid = "INTEGER PRIMARY KEY AUTOINCREMENT",
	.blob = "BLOB",
	.shared = false,
	.refuses_values = false,
	.try_lock = sq_lock,
	.lock_held = sq_lock,
};

/*
 * The store holds every mail and the outbox: only the bot's user may read
 * it. SQLite would create the file 0644 less the umask; created here
 * 0600 first (whatever the umask), its -wal and -shm files follow, since
 * SQLite gives them the mode of the database file (os_unix.c,
 * findCreateFileMode() and the -shm open). An existing file keeps the
 * mode its admin gave it.
 */
static int create_private(const char *path)
{
	int fd;

	if (!strcmp(path, ":memory:") || !strncmp(path, "file:", 5))
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return errno == EEXIST ? 0 :
					 rb_err(RB_ESTORE, "%s: %s", path,
						strerror(errno));
	if (fchmod(fd, 0600)) {
		int ret = rb_err(RB_ESTORE, "%s: %s", path, strerror(errno));

		close(fd);
		return ret;
	}
	close(fd);
	return 0;
}

int rb_db_sqlite_open(struct rb_db **out, const char *path)
{
	struct sqlite_db *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = create_private(path);
	if (ret) {
		free(d);
		return ret;
	}
	d->base.ops = &sqlite_ops;
	/*
	 * NOMUTEX: a connection is used by one thread at a time (the
	 * pipeline's, the heartbeat's and the dashboard's each open their
	 * own), so SQLite's per-call locking bought nothing and cost 7% of
	 * an IMAP pass. The statement cache above relies on it too.
	 */
	if (sqlite3_open_v2(path, &d->h,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				    SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		ret = rb_err(RB_ESTORE, "%s: %s", path,
			     d->h ? sqlite3_errmsg(d->h) : "cannot open");
		sqlite3_close(d->h);
		free(d);
		return ret;
	}
	sqlite3_busy_timeout(d->h, 30000);
	/*
	 * page_size=16384, for a new store only (an existing one keeps
	 * its size): most of what the store holds is raw mail, about
	 * 10 KiB a message, written to the WAL a page at a time (two
	 * pwrite() calls a frame) and again by the checkpoint. 16 KiB
	 * pages cut those calls by about four and the storing thread's CPU
	 * by 15% on the linux-api corpus; 64 KiB did no better and makes
	 * every small update (a job's lease) write a 64 KiB frame.
	 *
	 * temp_store=MEMORY: the statement journals of a transaction (a
	 * savepoint's, or a statement's that may have to be undone alone)
	 * SQLite otherwise spills to a file in /var/tmp once they pass 64
	 * KiB: when each ingested message sat in a savepoint, one file was
	 * created, written and removed per batch, on whatever disk /var/tmp
	 * is.
	 *
	 * cache_size=-16384 (16 MiB, SQLite's default is 2 MiB, 128 of
	 * these pages): with the default, the ingest read back through
	 * pread() the pages it had just written, 9% of the storing
	 * thread's CPU; the IMAP pass went from 9,000 to 10,000 messages
	 * a second. 64 MiB did no better.
	 */
	ret = sq_exec(&d->base,
		      "PRAGMA page_size=16384; "
		      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
		      "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;"
		      "PRAGMA cache_size=-16384;",
		      NULL, 0);
	if (ret) {
		sq_close(&d->base);
		return rb_err(RB_ESTORE, "%s: %s", path, rb_errmsg());
	}
	*out = &d->base;
	return 0;
}
