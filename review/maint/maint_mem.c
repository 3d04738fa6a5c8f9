// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_mem.c - the memory of the MAINTAINERS index and of a query: an
 * arena for the index's strings, malloc'd string lists and vectors.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

void *rb_maint__arena_alloc(struct arena *a, size_t len)
{
	void *p;

	len = (len + 7) & ~(size_t)7;
	if (!a->chunk || a->size - a->used < len) {
		size_t sz = len > 65536 ? len : 65536;
		char **nc = realloc(a->chunks,
				    (a->nchunks + 1) * sizeof(*a->chunks));

		if (!nc)
			return NULL;
		a->chunks = nc;
		a->chunk = malloc(sz);
		if (!a->chunk)
			return NULL;
		a->chunks[a->nchunks++] = a->chunk;
		a->used = 0;
		a->size = sz;
	}
	p = a->chunk + a->used;
	a->used += len;
	return p;
}

char *rb_maint__arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = rb_maint__arena_alloc(a, len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

void rb_maint__arena_release(struct arena *a)
{
	size_t i;

	for (i = 0; i < a->nchunks; i++)
		free(a->chunks[i]);
	free(a->chunks);
	memset(a, 0, sizeof(*a));
}

size_t rb_maint__count_char(const char *s, size_t len, char c)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += s[i] == c;
	return n;
}

int rb_maint__strv_push(struct strv *sv, char *s /* taken */)
{
	if (!s)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 16;
		char **nv = realloc(sv->v, cap * sizeof(*nv));

		if (!nv) {
			free(s);
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
		}
		sv->v = nv;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	return 0;
}

void rb_maint__strv_release(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

char *rb_maint__arena_printf(struct arena *ar, const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	va_list ap;
	char *o = NULL;
	int err;

	va_start(ap, fmt);
	err = rb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!err)
		o = rb_maint__arena_strndup(ar, b.ptr, b.len);
	rb_buf_release(&b);
	return o;
}

/* "a" "b" "c" concatenated in the arena (no printf: this runs for
 * every line of MAINTAINERS).
 */
char *rb_maint__arena_cat(struct arena *ar, const char *a, const char *b,
			  size_t blen, const char *c)
{
	size_t al = strlen(a), cl = strlen(c);
	char *o = rb_maint__arena_alloc(ar, al + blen + cl + 1);

	if (o) {
		memcpy(o, a, al);
		memcpy(o + al, b, blen);
		memcpy(o + al + blen, c, cl);
		o[al + blen + cl] = '\0';
	}
	return o;
}

void *rb_maint__vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		void *nv = realloc(v->v, cap * v->size);

		if (!nv)
			return NULL;
		v->v = nv;
		v->cap = cap;
	}
	memset((char *)v->v + v->n * v->size, 0, v->size);
	return (char *)v->v + v->n++ * v->size;
}

bool rb_maint__strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}
