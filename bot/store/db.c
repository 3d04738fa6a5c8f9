// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/db.h"
#include "util/err.h"
#include "util/banned.h"

int rb_db_open(struct rb_db **out, const char *path_or_url)
{
	if (!strncmp(path_or_url, "postgresql://", 13) ||
	    !strncmp(path_or_url, "postgres://", 11))
		return rb_db_pg_open(out, path_or_url);
	return rb_db_sqlite_open(out, path_or_url);
}

/*
 * The length of the well-formed UTF-8 sequence at @p (RFC 3629 section 4,
 * the table of well-formed byte sequences; PostgreSQL's pg_utf8_islegal()
 * takes the same set), or 0. @p is NUL-terminated, so a sequence cut
 * short fails on the NUL before anything past it is read.
 */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return p[0] ? 1 : 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if (p[0] == 0xe0)
			lo = 0xa0; /* no overlong form */
		else if (p[0] == 0xed)
			hi = 0x9f; /* no surrogate */
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 :
									   0;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if (p[0] == 0xf0)
			lo = 0x90; /* no overlong form */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* nothing past U+10FFFF */
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 &&
				       (p[3] & 0xc0) == 0x80 ?
			       4 :
			       0;
	}
	return 0;
}

int rb_db_text_clean(char **out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, n, bad = 0, len;
	char *w, *d;

	*out = NULL;
	for (i = 0; p[i]; i += n ? n : 1)
		if (!(n = utf8_seq(p + i)))
			bad++;
	if (!bad)
		return 0;
	len = i;
	/* Each bad byte becomes the three bytes of U+FFFD. */
	d = malloc(len + 2 * bad + 1);
	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0, w = d; p[i]; i += n ? n : 1) {
		n = utf8_seq(p + i);
		if (n) {
			memcpy(w, p + i, n);
			w += n;
		} else {
			memcpy(w, "\xef\xbf\xbd", 3);
			w += 3;
		}
	}
	*w = '\0';
	*out = d;
	return 0;
}

char *rb_dbv_strdup(const struct rb_dbv *v)
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

char *rb_dbv_blobdup(const struct rb_dbv *v, size_t *len)
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

const char *rb_dbv_str(const struct rb_dbv *v)
{
	return v->t == RB_DBT_TEXT || v->t == RB_DBT_BLOB ? v->s : NULL;
}

int64_t rb_dbv_int(const struct rb_dbv *v)
{
	if (v->t == RB_DBT_INT)
		return v->i;
	if (v->t == RB_DBT_TEXT)
		return strtoll(v->s, NULL, 10);
	return 0;
}

struct first {
	int found;
	int64_t i;
	char *s;
};

static int first_int(const struct rb_dbrow *row, void *payload)
{
	struct first *f = payload;

	if (row->n)
		f->i = rb_dbv_int(&row->v[0]);
	f->found = 1;
	return 1;
}

static int first_text(const struct rb_dbrow *row, void *payload)
{
	struct first *f = payload;

	f->found = 1;
	if (!row->n || row->v[0].t == RB_DBT_NULL)
		return 1;
	f->s = rb_dbv_strdup(&row->v[0]);
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
