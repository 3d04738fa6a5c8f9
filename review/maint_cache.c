// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_cache.c - the parsed MAINTAINERS index on disk, so that a one-shot
 * "reviewbot maintainers" (git send-email --cc-cmd runs one per patch)
 * does not inflate and parse 700 kB of MAINTAINERS every time.
 *
 * A file is named after the MAINTAINERS and .mailmap blob ids, and its
 * header carries RB_MAINT_SRC, a hash of this parser's sources taken at
 * build time: a new MAINTAINERS or a new reviewbot never reads an old
 * file. The file is written under a temporary name and renamed, and only
 * read when it is a regular file owned by the user. Writing a file
 * removes those not rewritten for a month.
 *
 * Format, little-endian, every number a u32:
 *   header  "RBMAINT\0", u32 format, u32 0x01020304, char src[48],
 *           maintainers id[20], .mailmap id[20], u32 body length,
 *           u32 string table length, u64 checksum of body and table
 *   body    the counts, then sections, the M:/R:/L:/T:/W: pointer pool,
 *           patterns, categories, keywords, the two .mailmap maps and the
 *           warnings; a string is its offset + 1 in the table (0: NULL)
 *   table   NUL-terminated strings, each stored once per address, so
 *           strings the index shares stay shared
 * The decoder checks every offset, count and length against the file, so
 * a damaged file is refused rather than read out of bounds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "review/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#ifndef RB_MAINT_SRC
#define RB_MAINT_SRC "unversioned"
#endif

#define CACHE_MAGIC "RBMAINT"
#define CACHE_FORMAT 1u
#define CACHE_ENDIAN 0x01020304u
#define SRC_LEN 48
#define OID_LEN 20
#define HDR_LEN (8 + 4 + 4 + SRC_LEN + 2 * OID_LEN + 4 + 4 + 8)
#define CACHE_MAX (256u << 20)
/* Files not rewritten for this long go when another is written: a tree
 * still in use pays one parse a month, old MAINTAINERS don't pile up.
 */
#define CACHE_KEEP_SECONDS (30 * 86400)
#define TMP_KEEP_SECONDS 86400

/* The header's build tag: RB_MAINT_SRC, zero-padded. */
static const char src_tag[SRC_LEN] = RB_MAINT_SRC;

/* ---- checksum ------------------------------------------------------ */

static uint64_t checksum(const unsigned char *p, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/* ---- encoding ------------------------------------------------------ */

/* Strings by address: address -> offset + 1 in the table. */
struct strtab {
	struct rb_buf tab;
	const char **keys;
	uint32_t *vals;
	size_t cap, n;
};

static int st_grow(struct strtab *st)
{
	size_t cap = st->cap ? st->cap * 2 : 1 << 14, i;
	const char **keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return rb_err(RB_ENOMEM, "maintainers cache: no memory");
	}
	for (i = 0; i < st->cap; i++) {
		size_t h;

		if (!st->keys[i])
			continue;
		h = ((uintptr_t)st->keys[i] >> 3) * 0x9e3779b97f4a7c15ull;
		for (h &= cap - 1; keys[h]; h = (h + 1) & (cap - 1))
			;
		keys[h] = st->keys[i];
		vals[h] = st->vals[i];
	}
	free(st->keys);
	free(st->vals);
	st->keys = keys;
	st->vals = vals;
	st->cap = cap;
	return 0;
}

static int st_ref(struct strtab *st, const char *s, uint32_t *ref)
{
	size_t h;
	int err;

	if (!s) {
		*ref = 0;
		return 0;
	}
	if (2 * (st->n + 1) > st->cap && (err = st_grow(st)))
		return err;
	h = ((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull;
	for (h &= st->cap - 1; st->keys[h]; h = (h + 1) & (st->cap - 1))
		if (st->keys[h] == s) {
			*ref = st->vals[h];
			return 0;
		}
	if (st->tab.len >= UINT32_MAX - strlen(s) - 2)
		return rb_err(RB_ETOOBIG, "maintainers cache: too big");
	*ref = (uint32_t)st->tab.len + 1;
	err = rb_buf_add(&st->tab, s, strlen(s) + 1);
	if (err)
		return err;
	st->keys[h] = s;
	st->vals[h] = *ref;
	st->n++;
	return 0;
}

struct enc {
	struct rb_buf body;
	struct strtab st;
	int err;
};

static void put(struct enc *e, size_t v)
{
	uint32_t x = (uint32_t)v;

	if (e->err)
		return;
	if (v > UINT32_MAX) {
		e->err = rb_err(RB_ETOOBIG, "maintainers cache: value");
		return;
	}
	e->err = rb_buf_add(&e->body, &x, sizeof(x));
}

static void put_str(struct enc *e, const char *s)
{
	uint32_t ref = 0;

	if (!e->err)
		e->err = st_ref(&e->st, s, &ref);
	put(e, ref);
}

static void put_re(struct enc *e, const struct rb_perl_re *r, const char *perl,
		   int state)
{
	size_t i;

	put_str(e, perl);
	put(e, state < 0);
	put(e, r->nlits);
	for (i = 0; i < r->nlits; i++) {
		put_str(e, r->lits[i]);
		put(e, r->litlens[i]);
	}
}

/* A slice of the pointer pool, as its start and length. */
static void put_slice(struct enc *e, const struct index *ix,
		      const char *const *arr, size_t n)
{
	size_t off = n ? (size_t)(arr - ix->ptrs) : 0;

	if (n && (arr < ix->ptrs || off + n > ix->ptrs_used) && !e->err)
		e->err = rb_err(RB_EINVAL, "maintainers cache: slice");
	put(e, off);
	put(e, n);
}

/* The counts, the sections and the pointer pool (dec_sections()). */
static void enc_sections(struct enc *e, const struct index *ix)
{
	size_t i;

	put(e, ix->nsect);
	put(e, ix->npat);
	put(e, ix->ncat);
	put(e, ix->nkw);
	put(e, ix->nmm_names);
	put(e, ix->nmm_addrs);
	put(e, ix->ptrs_used);
	for (i = 0; i < ix->nsect; i++) {
		const struct sect *s = &ix->sect[i];

		put(e, s->tvi);
		put(e, s->start);
		put(e, s->end);
		put(e, s->pat0);
		put(e, s->npat);
		put(e, s->x0);
		put(e, s->nx);
		put(e, s->cat0);
		put(e, s->ncat);
		put_str(e, s->pub.name);
		put_str(e, s->pub.status);
		put_slice(e, ix, s->pub.maintainers, s->pub.nmaintainers);
		put_slice(e, ix, s->pub.reviewers, s->pub.nreviewers);
		put_slice(e, ix, s->pub.lists, s->pub.nlists);
		put_slice(e, ix, s->pub.trees, s->pub.ntrees);
		put_slice(e, ix, s->pub.webs, s->pub.nwebs);
	}
	for (i = 0; i < ix->ptrs_used; i++)
		put_str(e, ix->ptrs[i]);
}

/* The F:/X:/N: patterns (dec_patterns()). */
static void enc_patterns(struct enc *e, const struct index *ix)
{
	size_t i;
	int k;

	for (i = 0; i < ix->npat; i++) {
		const struct pat *p = &ix->pat[i];

		put(e, (unsigned char)p->type);
		put_str(e, p->val);
		put(e, p->vlen);
		put(e, (uint32_t)p->depth);
		put(e, p->slashes);
		put(e, p->trailing);
		put(e, p->may_dir);
		put(e, p->glob);
		put(e, p->litlen);
		put(e, (uint32_t)p->first);
		put(e, p->rx != NULL);
		for (k = 0; p->rx && k < 2; k++)
			put_re(e, &p->rx->re[k], p->rx->perl[k],
			       p->rx->state[k]);
	}
}

/* Categories, keywords, the .mailmap maps and the warnings
 * (dec_rest()). */
static void enc_rest(struct enc *e, const struct index *ix)
{
	size_t i;
	int k;

	for (i = 0; i < ix->ncat; i++) {
		put(e, ix->cat[i].kind);
		put_str(e, ix->cat[i].val);
		put_str(e, ix->cat[i].role);
		put(e, ix->cat[i].skip);
	}
	for (i = 0; i < ix->nkw; i++) {
		const struct kw *w = &ix->kw[i];

		put(e, w->tvi);
		put(e, w->sect);
		put_str(e, w->key);
		for (k = 0; k < 2; k++)
			put_re(e, &w->re[k], w->perl[k], w->state[k]);
	}
	for (i = 0; i < ix->nmm_names; i++) {
		put_str(e, ix->mm_names[i].key);
		put_str(e, ix->mm_names[i].val);
	}
	for (i = 0; i < ix->nmm_addrs; i++) {
		put_str(e, ix->mm_addrs[i].key);
		put_str(e, ix->mm_addrs[i].val);
	}
	put_str(e, ix->warnings.len ? ix->warnings.ptr : "");
}

/* The file's header for a body and string table of these lengths. */
static void enc_header(unsigned char *h, const struct index *ix,
		       const struct enc *e)
{
	uint32_t u;
	uint64_t sum;

	memcpy(h, CACHE_MAGIC, 8);
	h += 8;
	u = CACHE_FORMAT;
	memcpy(h, &u, 4);
	h += 4;
	u = CACHE_ENDIAN;
	memcpy(h, &u, 4);
	h += 4;
	memcpy(h, src_tag, SRC_LEN);
	h += SRC_LEN;
	memcpy(h, ix->maint_id.id, OID_LEN);
	h += OID_LEN;
	memcpy(h, ix->mailmap_id.id, OID_LEN);
	h += OID_LEN;
	u = (uint32_t)e->body.len;
	memcpy(h, &u, 4);
	h += 4;
	u = (uint32_t)e->st.tab.len;
	memcpy(h, &u, 4);
	h += 4;
	sum = checksum((const unsigned char *)e->body.ptr, e->body.len) ^
	      (checksum((const unsigned char *)e->st.tab.ptr, e->st.tab.len) *
	       3);
	memcpy(h, &sum, 8);
}

int rb_maint__cache_encode(struct rb_buf *out, const struct index *ix)
{
	struct enc e = { .body = RB_BUF_INIT(CACHE_MAX) };
	unsigned char hdr[HDR_LEN] = { 0 };

	rb_buf_init(&e.st.tab, CACHE_MAX);
	enc_sections(&e, ix);
	enc_patterns(&e, ix);
	enc_rest(&e, ix);
	if (!e.err && (e.body.len > UINT32_MAX || e.st.tab.len > UINT32_MAX))
		e.err = rb_err(RB_ETOOBIG, "maintainers cache: too big");
	if (e.err)
		goto out;
	enc_header(hdr, ix, &e);
	e.err = rb_buf_add(out, hdr, sizeof(hdr));
	if (!e.err)
		e.err = rb_buf_add(out, e.body.ptr, e.body.len);
	if (!e.err)
		e.err = rb_buf_add(out, e.st.tab.ptr, e.st.tab.len);
out:
	rb_buf_release(&e.body);
	rb_buf_release(&e.st.tab);
	free(e.st.keys);
	free(e.st.vals);
	return e.err;
}

/* ---- decoding ------------------------------------------------------ */

struct dec {
	const unsigned char *p, *end;
	const char *tab;
	size_t tablen;
	bool bad;
};

static size_t get(struct dec *d)
{
	uint32_t x;

	if (d->bad || d->end - d->p < 4) {
		d->bad = true;
		return 0;
	}
	memcpy(&x, d->p, 4);
	d->p += 4;
	return x;
}

/* A count of records of at least @min bytes each that can still follow. */
static size_t get_count(struct dec *d, size_t min)
{
	size_t n = get(d);

	if ((size_t)(d->end - d->p) / min < n)
		d->bad = true;
	return d->bad ? 0 : n;
}

static const char *get_str(struct dec *d)
{
	size_t r = get(d);

	if (!r)
		return NULL;
	if (r - 1 >= d->tablen) {
		d->bad = true;
		return NULL;
	}
	return d->tab + r - 1;
}

static const char *get_nonnull(struct dec *d)
{
	const char *s = get_str(d);

	if (!s)
		d->bad = true;
	return s ? s : "";
}

static char *dup_str(struct dec *d, const char *s)
{
	char *o;

	if (!s)
		return NULL;
	o = strdup(s);
	if (!o)
		d->bad = true;
	return o;
}

/* A regex's Perl text and literal set; *perl is malloc'd. */
static void get_re(struct dec *d, struct rb_perl_re *r, char **perl, int *state)
{
	size_t n, i;

	*perl = dup_str(d, get_str(d));
	*state = get(d) ? -1 : 0;
	if (!*perl)
		*state = -1;
	n = get_count(d, 8);
	if (!n)
		return;
	r->lits = calloc(n, sizeof(*r->lits));
	r->litlens = calloc(n, sizeof(*r->litlens));
	if (!r->lits || !r->litlens) {
		d->bad = true;
		return;
	}
	for (i = 0; i < n && !d->bad; i++) {
		const char *s = get_nonnull(d);
		size_t len = get(d);

		if (len > strlen(s)) {
			d->bad = true;
			break;
		}
		r->lits[i] = strndup(s, len);
		if (!r->lits[i]) {
			d->bad = true;
			break;
		}
		r->litlens[i] = len;
		r->nlits = i + 1;
	}
}

static const char **get_slice(struct dec *d, const struct index *ix, size_t *n)
{
	size_t off = get(d);

	*n = get(d);
	if (off > ix->nptrs || *n > ix->nptrs - off) {
		d->bad = true;
		*n = 0;
	}
	return ix->ptrs + (d->bad ? 0 : off);
}

static void dec_sections(struct dec *d, struct index *ix)
{
	size_t i;

	for (i = 0; i < ix->nsect && !d->bad; i++) {
		struct sect *s = &ix->sect[i];

		s->tvi = get(d);
		s->start = get(d);
		s->end = get(d);
		s->pat0 = get(d);
		s->npat = get(d);
		s->x0 = get(d);
		s->nx = get(d);
		s->cat0 = get(d);
		s->ncat = get(d);
		if (s->pat0 > ix->npat || s->npat > ix->npat - s->pat0 ||
		    s->x0 > ix->npat || s->nx > ix->npat - s->x0 ||
		    s->cat0 > ix->ncat || s->ncat > ix->ncat - s->cat0)
			d->bad = true;
		s->pub.name = get_nonnull(d);
		s->pub.status = get_nonnull(d);
		s->pub.maintainers = get_slice(d, ix, &s->pub.nmaintainers);
		s->pub.reviewers = get_slice(d, ix, &s->pub.nreviewers);
		s->pub.lists = get_slice(d, ix, &s->pub.nlists);
		s->pub.trees = get_slice(d, ix, &s->pub.ntrees);
		s->pub.webs = get_slice(d, ix, &s->pub.nwebs);
	}
	for (i = 0; i < ix->nptrs && !d->bad; i++)
		ix->ptrs[i] = get_nonnull(d);
}

static void dec_patterns(struct dec *d, struct index *ix)
{
	size_t i;
	int k;

	for (i = 0; i < ix->npat && !d->bad; i++) {
		struct pat *p = &ix->pat[i];
		bool has_rx;

		p->type = (char)get(d);
		p->val = get_nonnull(d);
		p->vlen = get(d);
		p->depth = (int32_t)get(d);
		p->slashes = get(d);
		p->trailing = get(d);
		p->may_dir = get(d);
		p->glob = get(d);
		p->litlen = get(d);
		p->first = (int32_t)get(d);
		has_rx = get(d);
		/* What file_match() and the lookups rely on. */
		if (!strchr("FXN", p->type) || !p->type ||
		    p->vlen > strlen(p->val) || p->litlen > p->vlen ||
		    p->first < -1 || p->first > 255 ||
		    has_rx != (p->type == 'N' || !p->glob))
			d->bad = true;
		if (!has_rx || d->bad)
			continue;
		p->rx = calloc(1, sizeof(*p->rx));
		if (!p->rx) {
			d->bad = true;
			break;
		}
		for (k = 0; k < 2; k++)
			get_re(d, &p->rx->re[k], &p->rx->perl[k],
			       &p->rx->state[k]);
	}
}

static void dec_rest(struct dec *d, struct index *ix)
{
	size_t i;
	int k;

	for (i = 0; i < ix->ncat && !d->bad; i++) {
		struct cat *c = &ix->cat[i];
		size_t kind = get(d);

		if (kind > CAT_R)
			d->bad = true;
		c->kind = (enum cat_kind)kind;
		c->val = get_nonnull(d);
		c->role = get_nonnull(d);
		c->skip = get(d);
	}
	for (i = 0; i < ix->nkw && !d->bad; i++) {
		struct kw *w = &ix->kw[i];
		const char *key;

		w->tvi = get(d);
		w->sect = get(d);
		key = get_nonnull(d);
		if (w->sect >= ix->nsect || strlen(key) >= sizeof(w->key))
			d->bad = true;
		else
			memcpy(w->key, key, strlen(key) + 1);
		for (k = 0; k < 2 && !d->bad; k++)
			get_re(d, &w->re[k], &w->perl[k], &w->state[k]);
	}
	for (i = 0; i < ix->nmm_names && !d->bad; i++) {
		ix->mm_names[i].key = get_nonnull(d);
		ix->mm_names[i].val = get_nonnull(d);
	}
	for (i = 0; i < ix->nmm_addrs && !d->bad; i++) {
		ix->mm_addrs[i].key = get_nonnull(d);
		ix->mm_addrs[i].val = get_nonnull(d);
	}
	if (!d->bad) {
		const char *w = get_nonnull(d);

		if (rb_buf_add(&ix->warnings, w, strlen(w)))
			d->bad = true;
	}
	if (d->p != d->end)
		d->bad = true;
}

static void *alloc_n(struct dec *d, size_t n, size_t size)
{
	void *p = calloc(n + 1, size);

	if (!p)
		d->bad = true;
	return p;
}

int rb_maint__cache_decode(struct index **out, char *buf, size_t len,
			   bool verify)
{
	const unsigned char *h = (const unsigned char *)buf;
	struct dec d = { 0 };
	struct index *ix;
	uint32_t u, blen, tlen;
	uint64_t sum;
	size_t nsect, npat, ncat, nkw, nmm_names, nmm_addrs, nptrs;

	ix = rb_maint__index_alloc();
	if (!ix) {
		free(buf);
		return rb_err(RB_ENOMEM, "maintainers cache: no memory");
	}
	ix->text = buf; /* the string table lives in it */
	if (len < HDR_LEN || memcmp(h, CACHE_MAGIC, 8))
		goto bad;
	memcpy(&u, h + 8, 4);
	if (u != CACHE_FORMAT)
		goto bad;
	memcpy(&u, h + 12, 4);
	if (u != CACHE_ENDIAN)
		goto bad;
	if (verify && memcmp(h + 16, src_tag, SRC_LEN))
		goto bad;
	memcpy(ix->maint_id.id, h + 16 + SRC_LEN, OID_LEN);
	memcpy(ix->mailmap_id.id, h + 16 + SRC_LEN + OID_LEN, OID_LEN);
	memcpy(&blen, h + 16 + SRC_LEN + 2 * OID_LEN, 4);
	memcpy(&tlen, h + 20 + SRC_LEN + 2 * OID_LEN, 4);
	memcpy(&sum, h + 24 + SRC_LEN + 2 * OID_LEN, 8);
	if ((uint64_t)blen + tlen != len - HDR_LEN || !tlen ||
	    buf[len - 1] != '\0')
		goto bad;
	d.p = h + HDR_LEN;
	d.end = d.p + blen;
	d.tab = (const char *)d.end;
	d.tablen = tlen;
	if (verify &&
	    sum != (checksum(d.p, blen) ^ (checksum(d.end, tlen) * 3)))
		goto bad;

	/* A count can't exceed what its smallest records would fill. */
	nsect = get_count(&d, 4 * 21);
	npat = get_count(&d, 4 * 11);
	ncat = get_count(&d, 4 * 4);
	nkw = get_count(&d, 4 * 9);
	nmm_names = get_count(&d, 8);
	nmm_addrs = get_count(&d, 8);
	nptrs = get_count(&d, 4);
	if (d.bad)
		goto bad;
#define ALLOC_N(f)                                               \
	do {                                                     \
		if ((ix->f = alloc_n(&d, n##f, sizeof(*ix->f)))) \
			ix->n##f = n##f;                         \
	} while (0)
	/* A count is set only with its array, for rb_maint__index_unref(). */
	ALLOC_N(sect);
	ALLOC_N(pat);
	ALLOC_N(cat);
	ALLOC_N(kw);
	ALLOC_N(mm_names);
	ALLOC_N(mm_addrs);
	ALLOC_N(ptrs);
#undef ALLOC_N
	ix->ptrs_used = ix->nptrs;
	if (d.bad)
		goto nomem;
	dec_sections(&d, ix);
	dec_patterns(&d, ix);
	dec_rest(&d, ix);
	if (d.bad)
		goto bad;
	*out = ix;
	return 0;
nomem:
	rb_maint__index_unref(ix);
	return rb_err(RB_ENOMEM, "maintainers cache: no memory");
bad:
	rb_maint__index_unref(ix);
	return rb_err(RB_EINVAL, "maintainers cache: damaged or stale");
}

/* ---- files --------------------------------------------------------- */

static int cache_path(struct rb_buf *b, const char *dir, const git_oid *mid,
		      const git_oid *mmid)
{
	char a[GIT_OID_HEXSZ + 1], m[GIT_OID_HEXSZ + 1];

	git_oid_tostr(a, sizeof(a), mid);
	git_oid_tostr(m, sizeof(m), mmid);
	return rb_buf_printf(b, "%s/%s-%s.idx", dir, a, m);
}

int rb_maint__cache_load(struct index **out, const char *dir,
			 const git_oid *mid, const git_oid *mmid)
{
	struct rb_buf path = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf data = RB_BUF_INIT(CACHE_MAX);
	struct stat st;
	char *buf;
	size_t got;
	int fd = -1, err;

	err = cache_path(&path, dir, mid, mmid);
	if (err)
		return err;
	fd = open(path.ptr, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size < HDR_LEN || (uint64_t)st.st_size > CACHE_MAX) {
		err = rb_err(RB_ENOTFOUND, "%s: no usable cache", path.ptr);
		goto out;
	}
	err = rb_buf_grow(&data, (size_t)st.st_size);
	if (!err)
		err = rb_read_fd(&data, fd);
	if (err || data.len != (size_t)st.st_size) {
		err = rb_err(RB_ENOTFOUND, "%s: unreadable", path.ptr);
		rb_buf_release(&data);
		goto out;
	}
	buf = rb_buf_detach(&data, &got);
	err = rb_maint__cache_decode(out, buf, got, true);
	if (!err && (git_oid_cmp(&(*out)->maint_id, mid) ||
		     git_oid_cmp(&(*out)->mailmap_id, mmid))) {
		rb_maint__index_unref(*out);
		*out = NULL;
		err = -RB_EINVAL;
	}
	if (err)
		err = rb_err(RB_ENOTFOUND, "%s: damaged or stale", path.ptr);
out:
	if (fd >= 0)
		close(fd);
	rb_buf_release(&path);
	return err;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

/* Removes the cache files of @dir older than a month, and the temporary
 * files of writers that died, older than a day.
 */
static void prune(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t now = time(NULL);
	int dfd;

	if (!d)
		return;
	dfd = dirfd(d);
	while ((e = readdir(d))) {
		struct stat st;
		time_t keep;

		if (ends_with(e->d_name, ".idx"))
			keep = CACHE_KEEP_SECONDS;
		else if (strstr(e->d_name, ".idx.tmp."))
			keep = TMP_KEEP_SECONDS;
		else
			continue;
		if (!fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_mtime + keep < now)
			(void)unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

int rb_maint__cache_save(const struct index *ix, const char *dir)
{
	struct rb_buf path = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf data = RB_BUF_INIT(CACHE_MAX);
	int err;

	err = rb_mkdirs(dir);
	if (!err)
		err = cache_path(&path, dir, &ix->maint_id, &ix->mailmap_id);
	if (!err)
		err = rb_maint__cache_encode(&data, ix);
	if (!err)
		err = rb_write_file_atomic(path.ptr, data.ptr, data.len, 0600);
	if (!err)
		prune(dir);
	rb_buf_release(&path);
	rb_buf_release(&data);
	return err;
}
