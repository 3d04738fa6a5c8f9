// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_mailmap.c - the tree's .mailmap as get_maintainer.pl reads it
 * (read_mailmap) and maps an address through it (mailmap_email).
 */
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

static const char *mm_find(const struct mm_ent *v, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(v[mid].key, key);

		if (!c)
			return v[mid].val;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* mailmap_email(): the .mailmap name and address for @line. */
char *rb_maint__mailmap_email(const struct index *ix, const char *line)
{
	struct email e = { 0 };
	const char *rn, *ra;
	char *key, *out;

	if (rb_maint__parse_email_str(&e, line))
		return NULL;
	key = rb_maint__format_email(e.name, e.addr);
	if (!key) {
		rb_maint__email_release(&e);
		return NULL;
	}
	rn = mm_find(ix->mm_names, ix->nmm_names, key);
	ra = mm_find(ix->mm_addrs, ix->nmm_addrs, key);
	if (!rn && !ra) {
		rn = mm_find(ix->mm_names, ix->nmm_names, e.addr);
		ra = mm_find(ix->mm_addrs, ix->nmm_addrs, e.addr);
	}
	out = rb_maint__format_email(rn ? rn : e.name, ra ? ra : e.addr);
	free(key);
	rb_maint__email_release(&e);
	return out;
}

struct mm_build {
	struct mm_ent *v;
	size_t n, cap;
};

static int mm_add(struct index *ix, struct mm_build *mb, const char *key,
		  const char *val)
{
	if (mb->n == mb->cap) {
		size_t cap = mb->cap ? mb->cap * 2 : 256;
		struct mm_ent *nv = realloc(mb->v, cap * sizeof(*nv));

		if (!nv)
			return rb_err(RB_ENOMEM, "mailmap: out of memory");
		mb->v = nv;
		mb->cap = cap;
	}
	mb->v[mb->n].key = rb_maint__arena_strndup(&ix->ar, key, strlen(key));
	mb->v[mb->n].val = rb_maint__arena_strndup(&ix->ar, val, strlen(val));
	if (!mb->v[mb->n].key || !mb->v[mb->n].val)
		return rb_err(RB_ENOMEM, "mailmap: out of memory");
	mb->n++;
	return 0;
}

/* parse_email("$name <$address>") for the .mailmap forms. */
static int mm_parse(struct email *out, const char *name, size_t nlen,
		    const char *addr, size_t alen)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int err;

	while (nlen && is_ws((unsigned char)name[nlen - 1]))
		nlen--;
	err = rb_buf_printf(&b, "%.*s <%.*s>", (int)nlen, name, (int)alen,
			    addr);
	if (!err)
		err = rb_maint__parse_email(out, b.ptr, b.len);
	rb_buf_release(&b);
	return err;
}

/* Index of the first ">" at or after @i, or len. */
static size_t find_gt(const char *s, size_t len, size_t i)
{
	const char *p = i < len ? memchr(s + i, '>', len - i) : NULL;

	return p ? (size_t)(p - s) : len;
}

/* "<[^>]+>" at @i: returns the index after ">", 0 when it is not one. */
static size_t angle_at(const char *s, size_t len, size_t i)
{
	size_t g;

	if (i >= len || s[i] != '<')
		return 0;
	g = find_gt(s, len, i + 1);
	if (g == len || g == i + 1)
		return 0;
	return g + 1;
}

/* The two maps a .mailmap fills, by name and by address. */
struct mm_maps {
	struct index *ix; /* borrowed: its arena holds the strings */
	struct mm_build names, addrs;
};

/* What a form returns for a line that is not of its form. */
#define MM_OTHER 1

/* @key maps to @r's name and to its address. */
static int mm_add_both(struct mm_maps *m, const char *key,
		       const struct email *r)
{
	int err = mm_add(m->ix, &m->names, key, r->name);

	return err ?: mm_add(m->ix, &m->addrs, key, r->addr);
}

/* name1 <mail1>: /^([^<]+)<([^>]+)>$/ */
static int mm_name(struct mm_maps *m, const char *s, size_t len)
{
	const char *lt = memchr(s, '<', len);
	struct email r = { 0 };
	size_t i;
	int err;

	if (!lt || lt == s)
		return MM_OTHER;
	i = (size_t)(lt - s);
	if (angle_at(s, len, i) != len)
		return MM_OTHER;
	err = mm_parse(&r, s, i, s + i + 1, len - i - 2);
	if (!err)
		err = mm_add(m->ix, &m->names, r.addr, r.name);
	rb_maint__email_release(&r);
	return err;
}

/* <mail1> <mail2>: /^<([^>]+)>\s*<([^>]+)>$/ */
static int mm_addr_addr(struct mm_maps *m, const char *s, size_t len)
{
	size_t g = angle_at(s, len, 0), i = g;
	char *ra, *wa;
	int err;

	if (!g)
		return MM_OTHER;
	while (i < len && is_ws((unsigned char)s[i]))
		i++;
	if (angle_at(s, len, i) != len)
		return MM_OTHER;
	ra = strndup(s + 1, g - 2);
	wa = strndup(s + i + 1, len - i - 2);
	if (!ra || !wa)
		err = rb_err(RB_ENOMEM, "mailmap: no memory");
	else
		err = mm_add(m->ix, &m->addrs, wa, ra);
	free(ra);
	free(wa);
	return err;
}

/* name1 <mail1> <mail2>: /^(.+)<([^>]+)>\s*<([^>]+)>$/, the greedy (.+)
 * takes the last "<" that leaves a match.
 */
static int mm_name_addr_addr(struct mm_maps *m, const char *s, size_t len)
{
	struct email r = { 0 };
	size_t i, g, p;
	char *wa;
	int err;

	for (p = len; p-- > 1;) {
		if (s[p] != '<')
			continue;
		g = angle_at(s, len, p);
		if (!g)
			continue;
		i = g;
		while (i < len && is_ws((unsigned char)s[i]))
			i++;
		if (angle_at(s, len, i) != len)
			continue;
		wa = strndup(s + i + 1, len - i - 2);
		err = wa ? mm_parse(&r, s, p, s + p + 1, g - p - 2) :
			   rb_err(RB_ENOMEM, "mailmap: no memory");
		err = err ?: mm_add_both(m, wa, &r);
		free(wa);
		rb_maint__email_release(&r);
		return err;
	}
	return MM_OTHER;
}

/* Where the parts of "name1 <mail1> name2 <mail2>" are in a line. */
struct mm_two {
	size_t lt1; /* the "<" of mail1; name1 is before it */
	size_t end1; /* after its ">" */
	size_t name2; /* where name2 starts */
	size_t lt2; /* the "<" of mail2, whose ">" ends the line */
};

/* Both maps from name2 <mail2> to name1 and to mail1. */
static int mm_pair(struct mm_maps *m, const char *s, size_t len,
		   const struct mm_two *t)
{
	struct email r = { 0 }, w = { 0 };
	char *key = NULL;
	int err;

	err = mm_parse(&r, s, t->lt1, s + t->lt1 + 1, t->end1 - t->lt1 - 2);
	if (!err)
		err = mm_parse(&w, s + t->name2, t->lt2 - t->name2,
			       s + t->lt2 + 1, len - t->lt2 - 2);
	if (!err) {
		key = rb_maint__format_email(w.name, w.addr);
		if (!key)
			err = rb_err(RB_ENOMEM, "mailmap: no memory");
	}
	err = err ?: mm_add_both(m, key, &r);
	free(key);
	rb_maint__email_release(&r);
	rb_maint__email_release(&w);
	return err;
}

/* name1 <mail1> name2 <mail2>: /^(.+)<([^>]+)>\s*(.+)\s*<([^>]+)>$/ */
static int mm_name_addr_name_addr(struct mm_maps *m, const char *s, size_t len)
{
	size_t g, p, q, ws_end;

	if (len < 2 || s[len - 1] != '>')
		return MM_OTHER;
	for (p = len; p-- > 1;) {
		if (s[p] != '<')
			continue;
		g = angle_at(s, len, p);
		if (!g || g >= len)
			continue;
		/* The last "<" whose "[^>]+>" reaches the end. */
		for (q = len - 1; q-- > g;) {
			if (s[q] == '<' && find_gt(s, len, q + 1) == len - 1 &&
			    q + 1 < len - 1)
				break;
		}
		if (q <= g || q >= len - 1 || s[q] != '<')
			continue;
		/* \s* greedy, but (.+) needs a byte before "<". */
		ws_end = g;
		while (ws_end < q && is_ws((unsigned char)s[ws_end]))
			ws_end++;
		if (ws_end == q) {
			if (q == g)
				continue;
			ws_end = q - 1;
		}
		return mm_pair(m, s, len, &(struct mm_two){ p, g, ws_end, q });
	}
	return MM_OTHER;
}

/* One line of .mailmap in the four forms, tried in read_mailmap()'s order. */
static int mm_line(struct mm_maps *m, const char *s, size_t len)
{
	static int (*const forms[])(struct mm_maps *, const char *, size_t) = {
		mm_name,
		mm_addr_addr,
		mm_name_addr_addr,
		mm_name_addr_name_addr,
	};
	const char *hash = memchr(s, '#', len);
	size_t k;
	int ret;

	if (hash) /* s/#.*$// */
		len = (size_t)(hash - s);
	rb_maint__trim(&s, &len);
	if (!len)
		return 0;
	for (k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
		ret = forms[k](m, s, len);
		if (ret != MM_OTHER)
			return ret;
	}
	return 0;
}

static int mm_cmp(const void *a, const void *b)
{
	const struct mm_ent *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	/* Keep the file order so that the last assignment wins. */
	return x < y ? -1 : x > y;
}

/* Sorts and keeps the last value of each key (a Perl hash). */
static void mm_finish(struct mm_build *mb, struct mm_ent **v, size_t *n)
{
	size_t i, o = 0;

	if (mb->n)
		qsort(mb->v, mb->n, sizeof(*mb->v), mm_cmp);
	for (i = 0; i < mb->n; i++) {
		if (o && !strcmp(mb->v[o - 1].key, mb->v[i].key))
			mb->v[o - 1] = mb->v[i];
		else
			mb->v[o++] = mb->v[i];
	}
	*v = mb->v;
	*n = o;
	mb->v = NULL;
}

int rb_maint__parse_mailmap(struct index *ix, const char *text, size_t len)
{
	struct mm_maps m = { .ix = ix };
	size_t i = 0;
	int err = 0;

	while (i < len && !err) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;

		err = mm_line(&m, text + i, e - i);
		i = e + 1;
	}
	if (!err) {
		mm_finish(&m.names, &ix->mm_names, &ix->nmm_names);
		mm_finish(&m.addrs, &ix->mm_addrs, &ix->nmm_addrs);
	}
	free(m.names.v);
	free(m.addrs.v);
	return err;
}
