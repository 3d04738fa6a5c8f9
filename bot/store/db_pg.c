// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_pg.c - the PostgreSQL backend (libpq), for a queue that workers on
 * several machines share. Placeholders '?' become $1..$n; parameters go
 * as text (well-formed UTF-8, rb_db_text_clean()), except blobs, which go
 * binary. Results come back as text;
 * bytea columns are unescaped, integer columns parsed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>

#include "bot/store/db.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23

struct pg_db {
	struct rb_db base;
	PGconn *c;
	int64_t changes;
};

static struct pg_db *P(struct rb_db *db)
{
	return (struct pg_db *)db;
}

/* '?' outside quotes becomes $N. */
static int translate(struct rb_buf *out, const char *sql)
{
	int n = 0, ret = 0;
	char q = 0;

	for (; *sql && !ret; sql++) {
		if (q) {
			if (*sql == q)
				q = 0;
			ret = rb_buf_putc(out, *sql);
		} else if (*sql == '\'' || *sql == '"') {
			q = *sql;
			ret = rb_buf_putc(out, *sql);
		} else if (*sql == '?') {
			ret = rb_buf_printf(out, "$%d", ++n);
		} else {
			ret = rb_buf_putc(out, *sql);
		}
	}
	return ret;
}

/*
 * True when the server refused a value rather than failed: SQLSTATE class
 * 22 (data exception: a bad byte sequence, a value too long) or 54 (a
 * program limit: an index row too big). The item is bad, the store is
 * fine: the caller records the item and goes on (util/err.h, RB_EINVAL).
 */
static bool refused_value(const PGresult *r)
{
	const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);

	return s && (!strncmp(s, "22", 2) || !strncmp(s, "54", 2));
}

/* A statement's parameters in libpq's text (or binary, for blobs) form. */
struct pg_params {
	const char *vals[64];
	char *clean[64]; /* owned: text made valid UTF-8 */
	int lens[64], fmts[64];
	char nums[64][24];
};

static int pg_bind(struct pg_params *b, const struct rb_dbv *p, size_t n)
{
	size_t k;
	int ret;

	for (k = 0; k < n; k++) {
		b->fmts[k] = 0;
		b->lens[k] = 0;
		switch (p[k].t) {
		case RB_DBT_NULL:
			b->vals[k] = NULL;
			break;
		case RB_DBT_INT:
			snprintf(b->nums[k], sizeof(b->nums[k]), "%lld",
				 (long long)p[k].i);
			b->vals[k] = b->nums[k];
			break;
		case RB_DBT_TEXT:
			/* A UTF8 database refuses anything else (db.h). */
			ret = rb_db_text_clean(&b->clean[k], p[k].s);
			if (ret)
				return ret;
			b->vals[k] = b->clean[k] ? b->clean[k] : p[k].s;
			break;
		case RB_DBT_BLOB:
			b->vals[k] = p[k].s ? p[k].s : "";
			b->lens[k] = (int)p[k].len;
			b->fmts[k] = 1;
			break;
		}
	}
	return 0;
}

/*
 * Cell (@i, @j) of @r as a value; a bytea's unescaped bytes go to *@un
 * (freed with PQfreemem), which @v then borrows.
 */
static void pg_cell(struct rb_dbv *v, unsigned char **un, PGresult *r, int i,
		    int j)
{
	Oid t = PQftype(r, j);

	memset(v, 0, sizeof(*v));
	PQfreemem(*un);
	*un = NULL;
	if (PQgetisnull(r, i, j)) {
		v->t = RB_DBT_NULL;
	} else if (t == OID_INT8 || t == OID_INT4 || t == OID_INT2) {
		v->t = RB_DBT_INT;
		v->i = strtoll(PQgetvalue(r, i, j), NULL, 10);
	} else if (t == OID_BYTEA) {
		size_t len = 0;

		*un = PQunescapeBytea(
			(const unsigned char *)PQgetvalue(r, i, j), &len);
		v->t = RB_DBT_BLOB;
		v->s = (const char *)*un;
		v->len = len;
	} else {
		v->t = RB_DBT_TEXT;
		v->s = PQgetvalue(r, i, j);
		v->len = (size_t)PQgetlength(r, i, j);
	}
}

static int pg_run(struct rb_db *db, const char *sql, const struct rb_dbv *p,
		  size_t n, rb_dbrow_fn fn, void *payload)
{
	struct pg_db *d = P(db);
	struct rb_buf q = RB_BUF_INIT(1 << 20);
	struct pg_params b = { 0 };
	struct rb_dbv row_v[32];
	struct rb_dbrow row = { 0, row_v };
	unsigned char *un[32] = { 0 };
	PGresult *r = NULL;
	ExecStatusType st;
	int ret = 0, i, j, nrows, ncols;
	size_t k;

	if (n > 64)
		return rb_err(RB_EINVAL, "too many SQL parameters");
	ret = translate(&q, sql);
	if (!ret)
		ret = pg_bind(&b, p, n);
	if (ret)
		goto out;
	if (n == 0 && !fn)
		r = PQexec(d->c, q.ptr);
	else
		r = PQexecParams(d->c, q.ptr, (int)n, NULL, b.vals, b.lens,
				 b.fmts, 0);
	st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = rb_err(refused_value(r) ? RB_EINVAL : RB_ESTORE,
			     "postgresql: %s", PQresultErrorMessage(r));
		goto out;
	}
	d->changes = strtoll(PQcmdTuples(r), NULL, 10);
	if (!fn || st != PGRES_TUPLES_OK)
		goto out;
	nrows = PQntuples(r);
	ncols = PQnfields(r);
	if (ncols > 32)
		ncols = 32;
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < ncols; j++)
			pg_cell(&row_v[j], &un[j], r, i, j);
		row.n = (size_t)ncols;
		ret = fn(&row, payload);
		if (ret) {
			ret = ret > 0 ? 0 : ret;
			break;
		}
	}
out:
	for (k = 0; k < n && k < 64; k++)
		free(b.clean[k]);
	for (j = 0; j < 32; j++)
		PQfreemem(un[j]);
	PQclear(r);
	rb_buf_release(&q);
	return ret;
}

static int pg_exec(struct rb_db *db, const char *sql, const struct rb_dbv *p,
		   size_t n)
{
	return pg_run(db, sql, p, n, NULL, NULL);
}

static int64_t pg_changes(struct rb_db *db)
{
	return P(db)->changes;
}

static bool pg_in_txn(struct rb_db *db)
{
	return PQtransactionStatus(P(db)->c) != PQTRANS_IDLE;
}

static void pg_close(struct rb_db *db)
{
	PQfinish(P(db)->c);
	free(db);
}

/*
 * A session-level advisory lock: pg_try_advisory_lock() never waits, and
 * the lock goes when the connection closes.
 */
static int pg_try_lock(struct rb_db *db, int64_t key, bool *got)
{
	struct rb_dbv k = RB_DB_INT(key);
	int64_t v = 0;
	int ret;

	ret = rb_db_query_int(db, &v,
			      "SELECT CASE WHEN pg_try_advisory_lock(?::bigint)"
			      " THEN 1 ELSE 0 END",
			      &k, 1);
	if (ret)
		return ret;
	*got = v != 0;
	return 0;
}

static int pg_lock_held(struct rb_db *db, int64_t key, bool *held)
{
	int64_t v = 0;
	int ret;

	(void)key;
	ret = rb_db_query_int(db, &v,
			      "SELECT COUNT(*) FROM pg_locks WHERE"
			      " locktype = 'advisory' AND granted AND"
			      " pid = pg_backend_pid()",
			      NULL, 0);
	if (ret)
		return ret;
	*held = v > 0;
	return 0;
}

static const struct rb_db_ops pg_ops = {
	.name = "postgresql",
	.close = pg_close,
	.exec = pg_exec,
	.query = pg_run,
	.begin = "BEGIN",
	.changes = pg_changes,
	.in_txn = pg_in_txn,
	.skip_locked = " FOR UPDATE SKIP LOCKED",
	.autoid = "BIGSERIAL PRIMARY KEY",
	.blob = "BYTEA",
	.shared = true,
	.refuses_values = true,
	.try_lock = pg_try_lock,
	.lock_held = pg_lock_held,
};

int rb_db_pg_open(struct rb_db **out, const char *url)
{
	struct pg_db *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	d->base.ops = &pg_ops;
	d->c = PQconnectdb(url);
	if (PQstatus(d->c) != CONNECTION_OK) {
		/* The URL may hold a password: do not echo it. */
		ret = rb_err(RB_EAGAIN, "postgresql: cannot connect: %s",
			     PQerrorMessage(d->c));
		PQfinish(d->c);
		free(d);
		return ret;
	}
	pg_exec(&d->base, "SET client_min_messages = warning", NULL, 0);
	/* What the drivers bind is UTF-8 (db.h), whatever the locale says. */
	ret = pg_exec(&d->base, "SET client_encoding = 'UTF8'", NULL, 0);
	if (ret) {
		pg_close(&d->base);
		return ret;
	}
	*out = &d->base;
	return 0;
}
