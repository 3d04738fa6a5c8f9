// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/db.h"
#include "util/err.h"
#include "util/banned.h"

int rb_db_open(struct rb_db **out, const char *path_or_url)
{
	if (!strncmp(path_or_url, "postgresql://", 13) ||
	    !strncmp(path_or_url, "postgres://", 11))
		return rb_db_pg_open(out, path_or_url);
	return rb_db_sqlite_open(out, path_or_url);
}

struct first {
	int found;
	int64_t i;
	char *s;
};

static int first_int(const struct rb_dbrow *row, void *payload)
{
	struct first *f = payload;

	if (row->n && row->v[0].t == RB_DBT_INT)
		f->i = row->v[0].i;
	else if (row->n && row->v[0].t == RB_DBT_TEXT)
		f->i = strtoll(row->v[0].s, NULL, 10);
	f->found = 1;
	return 1;
}

static int first_text(const struct rb_dbrow *row, void *payload)
{
	struct first *f = payload;

	f->found = 1;
	if (!row->n || row->v[0].t == RB_DBT_NULL)
		return 1;
	if (row->v[0].t == RB_DBT_INT) {
		char tmp[32];

		snprintf(tmp, sizeof(tmp), "%lld", (long long)row->v[0].i);
		f->s = strdup(tmp);
	} else {
		f->s = strndup(row->v[0].s, row->v[0].len);
	}
	return f->s ? 1 : rb_err(RB_ENOMEM, "out of memory");
}

int rb_db_query_int(struct rb_db *db, int64_t *out, const char *sql,
		    const struct rb_dbv *params, size_t n)
{
	struct first f = { 0 };
	int ret = db->ops->query(db, sql, params, n, first_int, &f);

	if (ret < 0)
		return ret;
	if (!f.found)
		return -RB_ENOTFOUND;
	*out = f.i;
	return 0;
}

int rb_db_query_text(struct rb_db *db, char **out, const char *sql,
		     const struct rb_dbv *params, size_t n)
{
	struct first f = { 0 };
	int ret = db->ops->query(db, sql, params, n, first_text, &f);

	if (ret < 0) {
		free(f.s);
		return ret;
	}
	if (!f.found)
		return -RB_ENOTFOUND;
	*out = f.s;
	return 0;
}
