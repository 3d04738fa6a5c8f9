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
 * Format, in the writer's byte order (0x01020304 refuses another), every
 * number a u32 but in the patterns' records:
 *   header  "RBMAINT\0", u32 format, u32 0x01020304, char src[48],
 *           maintainers id[20], .mailmap id[20], u32 body length,
 *           u32 string table length, u64 checksum of body and table
 *   body    the counts, then sections, the M:/R:/L:/T:/W: pointer pool,
 *           patterns (struct pat), their keys (struct pat_key), both
 *           read in place, the patterns' regexes,
 *           categories, keywords, the two .mailmap maps and the warnings;
 *           a string is its offset + 1 in the table (0: NULL), a
 *           pattern's value its offset
 *   table   NUL-terminated strings, each distinct one stored once
 * The decoder checks every offset, count and length against the file, so
 * a damaged file is refused rather than read out of bounds. A lookup
 * decodes the sections it falls in only (see "decoding").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "review/maint/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/banned.h"

#ifndef RB_MAINT_SRC
#define RB_MAINT_SRC "unversioned"
#endif

#define CACHE_MAGIC "RBMAINT"
/* 2: the checksum in four lanes; 3: patterns as struct pat, their
 * regexes after them; 4: the patterns' keys (struct pat_key) between;
 * 5: the keys' order after them (struct index's kblock and korder), and
 * the checksum idx_sum().
 */
#define CACHE_FORMAT 5u
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

/* ---- encoding ------------------------------------------------------ */

/*
 * Strings by content: string -> offset + 1 in the table. Each distinct
 * string is stored once (a third of the table repeated others when they
 * were kept by address: the categories' roles, the sections' lists), so
 * the file that every one-shot lookup checksums is a fifth smaller.
 * Nothing compares the index's strings by address.
 */
static size_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32));
}

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
		h = str_hash(st->keys[i]);
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
	h = str_hash(s);
	for (h &= st->cap - 1; st->keys[h]; h = (h + 1) & (st->cap - 1))
		if (!strcmp(st->keys[h], s)) {
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

/* A section's numbers, in the file's order. */
static const size_t sect_nums[] = {
	offsetof(struct sect, tvi),  offsetof(struct sect, start),
	offsetof(struct sect, end),  offsetof(struct sect, pat0),
	offsetof(struct sect, npat), offsetof(struct sect, x0),
	offsetof(struct sect, nx),   offsetof(struct sect, cat0),
	offsetof(struct sect, ncat),
};
#define NSECT_NUMS (sizeof(sect_nums) / sizeof(sect_nums[0]))

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

/* The counts, the sections and the pointer pool (check_sections(),
 * dec_sect()). An index read from the cache decodes each section here,
 * and with them the pool and the categories enc_rest() writes.
 */
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
	put(e, ix->nrx);
	for (i = 0; i < ix->nsect; i++) {
		const struct sect *s = rb_maint__sect((struct index *)ix, i);
		size_t k;

		for (k = 0; k < NSECT_NUMS; k++)
			put(e,
			    *(const size_t *)((const char *)s + sect_nums[k]));
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

/* The F:/X:/N: patterns as they are in memory, with their values'
 * offsets in the table, then their regexes (dec_patterns()).
 */
static void enc_patterns(struct enc *e, const struct index *ix)
{
	size_t i;
	int k;

	for (i = 0; i < ix->npat && !e->err; i++) {
		struct pat p = ix->pat[i];
		uint32_t ref = 0;

		e->err = st_ref(&e->st, pat_val(ix, &ix->pat[i]), &ref);
		p.val = ref - 1;
		p.pad[0] = p.pad[1] = 0;
		if (!e->err)
			e->err = rb_buf_add(&e->body, &p, sizeof(p));
	}
	if (!e->err && ix->npat)
		e->err = rb_buf_add(&e->body, ix->pkey,
				    ix->npat * sizeof(*ix->pkey));
	if (!e->err)
		e->err = rb_buf_add(&e->body, ix->kblock, sizeof(ix->kblock));
	if (!e->err && ix->npat)
		e->err = rb_buf_add(&e->body, ix->korder,
				    ix->npat * sizeof(*ix->korder));
	for (i = 0; i < ix->nrx; i++)
		for (k = 0; k < 2; k++)
			put_re(e, &ix->rx[i].re[k], ix->rx[i].perl[k],
			       ix->rx[i].state[k]);
}

/* Categories (check_cats(), dec_cat()), keywords, the .mailmap maps and
 * the warnings (dec_rest()). */
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

/*
 * The index file's checksum (format 5): sixteen 32-bit lanes of
 * Fletcher's two sums, which compilers vectorise with plain adds (SSE2),
 * mixed at the end. rb_checksum64()'s dependent 64-bit multiplies were a
 * third of a one-shot lookup's instructions after the other cuts (1.6M
 * for the 1.3 MB file; this takes about a fifth of that). Like it, it
 * catches damage (a flipped bit, a zeroed or moved block), not an
 * adversary. The loop asks for the next page's lines itself: the
 * hardware prefetcher stops at each 4 kB page of a file cold in the
 * CPU's caches.
 */
static uint64_t idx_sum(const unsigned char *p, size_t len)
{
	uint32_t a[16] = { 0 }, b[16] = { 0 }, w[16];
	uint64_t r = 0x9e3779b97f4a7c15ull ^ len;
	size_t i, k;

	for (i = 0; i + 64 <= len; i += 64) {
		if (len - i > 4096)
			__builtin_prefetch(p + i + 4096);
		memcpy(w, p + i, 64);
		for (k = 0; k < 16; k++) {
			a[k] += w[k];
			b[k] += a[k];
		}
	}
	for (k = 0; k < 16; k++)
		r = (r ^ ((uint64_t)b[k] << 32 | a[k])) * 0xff51afd7ed558ccdull;
	for (; i < len; i++)
		r = (r ^ p[i]) * 0xc4ceb9fe1a85ec53ull;
	return r ^ (r >> 29);
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
	sum = idx_sum((const unsigned char *)e->body.ptr, e->body.len) ^
	      (idx_sum((const unsigned char *)e->st.tab.ptr, e->st.tab.len) *
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

/*
 * A one-shot lookup needs of the index what matching reads (every
 * section's patterns, every pattern, the keywords, .mailmap) and only
 * the dozen sections a patch falls in. So the file is checked whole as
 * it loads, with every check below, but the sections, their categories
 * and the pointer pool are decoded when first asked (rb_maint__sect()):
 * decoding every one of them wrote 1.2 MB, two fifths of such a run
 * (perf). Their records have fixed sizes, so section @i is found at
 * raw_sect + i * SECT_REC. A file changed under the mapping after the
 * checks (the cache is replaced by rename, never rewritten in place)
 * decodes to empty sections, never out of bounds: the same checks run
 * again.
 */
#define SECT_REC (4 * (NSECT_NUMS + 2 + 2 * 5)) /* enc_sections() */
#define PAT_REC sizeof(struct pat) /* enc_patterns() */
_Static_assert(sizeof(struct pat) == 32 && _Alignof(struct pat) == 4 &&
		       offsetof(struct pat, pad) == 30,
	       "struct pat is the file's record: no padding, 4-aligned");
#define CAT_REC (4 * 4) /* enc_rest() */

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

/* The string of table reference @r (offset + 1; 0 is NULL). */
static const char *ref_str(struct dec *d, size_t r)
{
	if (!r)
		return NULL;
	if (r - 1 >= d->tablen) {
		d->bad = true;
		return NULL;
	}
	return d->tab + r - 1;
}

static const char *get_str(struct dec *d)
{
	return ref_str(d, get(d));
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

/* A slice of the pointer pool at @r: its start and length. */
static const char **rec_slice(struct dec *d, const struct index *ix,
			      const uint32_t *r, size_t *n)
{
	size_t off = r[0];

	*n = r[1];
	if (off > ix->nptrs || *n > ix->nptrs - off) {
		d->bad = true;
		*n = 0;
		off = 0;
	}
	return ix->ptrs + off;
}

/* One section's record into @s, checked against @ix's counts: one bounds
 * check for the record, as every section is checked at each load.
 */
static void dec_sect(struct dec *d, const struct index *ix, struct sect *s)
{
	uint32_t r[SECT_REC / 4];
	size_t k;

	if (d->bad || d->end - d->p < (ptrdiff_t)SECT_REC) {
		d->bad = true;
		return;
	}
	memcpy(r, d->p, SECT_REC);
	d->p += SECT_REC;
	for (k = 0; k < NSECT_NUMS; k++)
		*(size_t *)((char *)s + sect_nums[k]) = r[k];
	if (s->pat0 > ix->npat || s->npat > ix->npat - s->pat0 ||
	    s->x0 > ix->npat || s->nx > ix->npat - s->x0 ||
	    s->cat0 > ix->ncat || s->ncat > ix->ncat - s->cat0)
		d->bad = true;
	s->pub.name = ref_str(d, r[NSECT_NUMS]);
	s->pub.status = ref_str(d, r[NSECT_NUMS + 1]);
	if (!s->pub.name || !s->pub.status)
		d->bad = true;
	k = NSECT_NUMS + 2;
	s->pub.maintainers = rec_slice(d, ix, r + k, &s->pub.nmaintainers);
	s->pub.reviewers = rec_slice(d, ix, r + k + 2, &s->pub.nreviewers);
	s->pub.lists = rec_slice(d, ix, r + k + 4, &s->pub.nlists);
	s->pub.trees = rec_slice(d, ix, r + k + 6, &s->pub.ntrees);
	s->pub.webs = rec_slice(d, ix, r + k + 8, &s->pub.nwebs);
}

static void dec_cat(struct dec *d, struct cat *c)
{
	size_t kind = get(d);

	if (kind > CAT_R)
		d->bad = true;
	c->kind = (enum cat_kind)kind;
	c->val = get_nonnull(d);
	c->role = get_nonnull(d);
	c->skip = get(d);
}

/*
 * Skips @n records of @size bytes, which must be there: 0, or where they
 * start.
 */
static const unsigned char *skip_recs(struct dec *d, size_t n, size_t size)
{
	const unsigned char *p = d->p;

	if (d->bad || (size_t)(d->end - d->p) / size < n) {
		d->bad = true;
		return NULL;
	}
	d->p += n * size;
	return p;
}

/*
 * The sections' records and the pointer pool: what matching reads of
 * each section (its pattern ranges, checked) into ix->sm. The rest of a
 * record (name, status, its slices of the pool, its categories) is
 * checked when the section is decoded (sect_decode(), which gives an
 * empty section for a record that fails): a one-shot lookup decodes a
 * dozen of 2,600 sections, and checking every record and string as the
 * file loaded was a seventh of its instructions. Every byte is still
 * under the checksum, checked as the file loads.
 */
static void check_sections(struct dec *d, struct index *ix)
{
	const unsigned char *r;
	uint32_t bad = 0;
	size_t i;

	ix->raw_sect = r = skip_recs(d, ix->nsect, SECT_REC);
	if (!r)
		return;
	for (i = 0; i < ix->nsect; i++, r += SECT_REC) {
		uint32_t v[NSECT_NUMS];
		struct sect_m *sm = &ix->sm[i];

		memcpy(v, r, sizeof(v));
		/* tvi, start, end, pat0, npat, x0, nx, cat0, ncat */
		*sm = (struct sect_m){ v[3], v[4], v[5], v[6] };
		bad |= (v[3] > ix->npat) | (v[4] > ix->npat - v[3]) |
		       (v[5] > ix->npat) | (v[6] > ix->npat - v[5]);
	}
	if (bad)
		d->bad = true;
	ix->raw_ptrs = skip_recs(d, ix->nptrs, 4);
}

static void check_cats(struct dec *d, struct index *ix)
{
	ix->raw_cat = skip_recs(d, ix->ncat, CAT_REC);
}

/* The decoder of the @size-byte record @i at @base. */
static struct dec rec_dec(const struct index *ix, const unsigned char *base,
			  size_t i, size_t size)
{
	struct dec d = { .p = base + i * size,
			 .tab = ix->raw_tab,
			 .tablen = ix->raw_tablen };

	d.end = d.p + size;
	return d;
}

/* The pool's strings of a slice of a section decoded now. */
static void fill_slice(struct index *ix, const char *const *arr, size_t n)
{
	size_t j = (size_t)(arr - ix->ptrs), e = j + n;

	for (; j < e; j++) {
		struct dec d;

		if (ix->ptrs[j])
			continue;
		d = rec_dec(ix, ix->raw_ptrs, j, 4);
		ix->ptrs[j] = get_nonnull(&d);
	}
}

/* Section @i, its categories and slices of the pool, from their records
 * (checked when the file loaded; see above for a file that changed).
 */
static void sect_decode(struct index *ix, size_t i)
{
	struct dec d = rec_dec(ix, ix->raw_sect, i, SECT_REC);
	struct sect *s = &ix->sect[i];
	size_t k;

	dec_sect(&d, ix, s);
	if (d.bad) {
		memset(s, 0, sizeof(*s));
		s->pub.name = s->pub.status = "";
		s->pub.maintainers = s->pub.reviewers = s->pub.lists =
			s->pub.trees = s->pub.webs = ix->ptrs;
		return;
	}
	fill_slice(ix, s->pub.maintainers, s->pub.nmaintainers);
	fill_slice(ix, s->pub.reviewers, s->pub.nreviewers);
	fill_slice(ix, s->pub.lists, s->pub.nlists);
	fill_slice(ix, s->pub.trees, s->pub.ntrees);
	fill_slice(ix, s->pub.webs, s->pub.nwebs);
	for (k = s->cat0; k < s->cat0 + s->ncat; k++) {
		struct dec c = rec_dec(ix, ix->raw_cat, k, CAT_REC);

		dec_cat(&c, &ix->cat[k]);
		if (c.bad)
			ix->cat[k] = (struct cat){ CAT_LIST, "", "", true };
	}
}

const struct sect *rb_maint__sect(struct index *ix, size_t i)
{
	if (ix->sect_done &&
	    !__atomic_load_n(&ix->sect_done[i], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&ix->lock);
		if (!ix->sect_done[i]) {
			sect_decode(ix, i);
			__atomic_store_n(&ix->sect_done[i], 1,
					 __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&ix->lock);
	}
	return &ix->sect[i];
}

/*
 * The patterns, read in place: checked here for what file_match() and
 * the lookups rely on (the value inside the table and without a NUL, a
 * type, flags of 0 or 1, a regex index in range where there must be one,
 * none where there must not), then their regexes, decoded.
 */
static void dec_patterns(struct dec *d, struct index *ix)
{
	const struct pat *pv = (const struct pat *)(const void *)d->p;
	bool bad = false;
	size_t i;
	int k;

	if ((size_t)(d->end - d->p) / PAT_REC < ix->npat ||
	    ((uintptr_t)d->p & (_Alignof(struct pat) - 1))) {
		d->bad = true;
		return;
	}
	for (i = 0; i < ix->npat; i++) {
		const struct pat *p = &pv[i];

		/* A NUL inside a value would make a wrong answer, never a
		 * read past the table, which ends with one.
		 */
		bad |= (p->val >= d->tablen) |
		       (p->vlen > d->tablen - 1 - (size_t)p->val) |
		       ((p->type != 'F') & (p->type != 'X') &
			(p->type != 'N')) |
		       (p->litlen > p->vlen) | (p->first < -1) |
		       (p->first > 255) | (p->trailing > 1) | (p->may_dir > 1) |
		       (p->glob > 1) | (p->pad[0] != 0) | (p->pad[1] != 0) |
		       (p->rx > ix->nrx) |
		       ((p->rx != 0) != ((p->type == 'N') | !p->glob));
	}
	if (bad) {
		d->bad = true;
		return;
	}
	ix->pat = pv;
	ix->pstr = d->tab;
	d->p += ix->npat * PAT_REC;
	/* The keys: a prefix no longer than the pattern's literal one. The
	 * bytes themselves are, like the other numbers a pattern's value
	 * gives (first, litlen, depth), the writer's, under the checksum: a
	 * wrong one makes a wrong answer, never a read out of bounds.
	 */
	if ((size_t)(d->end - d->p) / sizeof(*ix->pkey) < ix->npat) {
		d->bad = true;
		return;
	}
	ix->pkey = (const struct pat_key *)(const void *)d->p;
	for (i = 0; i < ix->npat; i++)
		bad |= (ix->pkey[i].b[15] > 15) |
		       (ix->pkey[i].b[15] > pv[i].litlen) |
		       ((ix->pkey[i].b[15] != 0) & !pv[i].glob);
	if (bad) {
		d->bad = true;
		return;
	}
	d->p += ix->npat * sizeof(*ix->pkey);
	/* The keys' order, read in place: blocks in order, within the
	 * patterns, and every number a pattern's. A wrong order would
	 * make a wrong answer (the bisection ends whatever it finds).
	 */
	if ((size_t)(d->end - d->p) <
	    sizeof(ix->kblock) + ix->npat * sizeof(*ix->korder)) {
		d->bad = true;
		return;
	}
	memcpy(ix->kblock, d->p, sizeof(ix->kblock));
	d->p += sizeof(ix->kblock);
	if (ix->kblock[0] || ix->kblock[KEY_BLOCKS - 1] != ix->npat) {
		d->bad = true;
		return;
	}
	for (k = 1; k < KEY_BLOCKS; k++)
		if (ix->kblock[k] < ix->kblock[k - 1]) {
			d->bad = true;
			return;
		}
	ix->korder = (const uint32_t *)(const void *)d->p;
	{
		uint32_t over = 0;

		for (i = 0; i < ix->npat; i++)
			over |= ix->korder[i] >= ix->npat;
		if (over) {
			d->bad = true;
			return;
		}
	}
	d->p += ix->npat * sizeof(*ix->korder);
	for (i = 0; i < ix->nrx && !d->bad; i++)
		for (k = 0; k < 2; k++)
			get_re(d, &ix->rx[i].re[k], &ix->rx[i].perl[k],
			       &ix->rx[i].state[k]);
}

/* Keywords, the .mailmap maps and the warnings, to the body's end. */
static void dec_rest(struct dec *d, struct index *ix)
{
	size_t i;
	int k;

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

/* The bytes of @n + 1 elements of @size, rounded for alignment. */
static size_t arr_size(size_t n, size_t size)
{
	return ((n + 1) * size + 15) & ~(size_t)15;
}

/* Takes @n + 1 zeroed elements of @size from @block. */
static void *alloc_n(void *block, size_t *used, size_t n, size_t size)
{
	void *p = (char *)block + *used;

	*used += arr_size(n, size);
	return p;
}

/* The counts of the body's records (enc_sections()). */
struct counts {
	size_t sect, pat, cat, kw, mm_names, mm_addrs, ptrs, rx;
};

/*
 * The arrays of @ix for @c: those decoded as the file loads in one
 * mapping with its pages (a page fault per page written was a quarter
 * of a one-shot run), those decoded when asked in one without (a
 * lookup writes a few of their pages). The counts fit in the file, so
 * the sums do not overflow.
 */
static int alloc_arrays(struct index *ix, const struct counts *c)
{
	size_t used = 0;

	ix->blocklen = arr_size(c->sect, sizeof(*ix->sm)) +
		       arr_size(c->rx, sizeof(*ix->rx)) +
		       arr_size(c->kw, sizeof(*ix->kw)) +
		       arr_size(c->mm_names, sizeof(*ix->mm_names)) +
		       arr_size(c->mm_addrs, sizeof(*ix->mm_addrs));
	ix->block = mmap(NULL, ix->blocklen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ix->block == MAP_FAILED) {
		ix->block = NULL;
		return -RB_ENOMEM;
	}
	ix->lazylen = arr_size(c->sect, sizeof(*ix->sect)) +
		      arr_size(c->cat, sizeof(*ix->cat)) +
		      arr_size(c->ptrs, sizeof(*ix->ptrs)) +
		      arr_size(c->sect, 1);
	ix->lazy = mmap(NULL, ix->lazylen, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ix->lazy == MAP_FAILED) {
		ix->lazy = NULL;
		return -RB_ENOMEM;
	}
#define ALLOC_N(b, f)                                            \
	do {                                                     \
		ix->f = alloc_n(b, &used, c->f, sizeof(*ix->f)); \
		ix->n##f = c->f;                                 \
	} while (0)
	ix->sm = alloc_n(ix->block, &used, c->sect, sizeof(*ix->sm));
	ALLOC_N(ix->block, rx);
	ALLOC_N(ix->block, kw);
	ALLOC_N(ix->block, mm_names);
	ALLOC_N(ix->block, mm_addrs);
	used = 0;
	ALLOC_N(ix->lazy, sect);
	ALLOC_N(ix->lazy, cat);
	ALLOC_N(ix->lazy, ptrs);
#undef ALLOC_N
	ix->sect_done = alloc_n(ix->lazy, &used, c->sect, 1);
	ix->ptrs_used = ix->nptrs;
	ix->npat = c->pat; /* read in place: dec_patterns() */
	return 0;
}

/* Decodes the file @h into @ix, whose strings will point into it;
 * -RB_EINVAL for a damaged file. @ix is the caller's in all cases.
 */
static int decode(struct index *ix, const unsigned char *h, size_t len,
		  bool verify)
{
	struct dec d = { 0 };
	struct counts c;
	uint32_t u, blen, tlen;
	uint64_t sum;
	int err;

	if (len < HDR_LEN || memcmp(h, CACHE_MAGIC, 8))
		return -RB_EINVAL;
	memcpy(&u, h + 8, 4);
	if (u != CACHE_FORMAT)
		return -RB_EINVAL;
	memcpy(&u, h + 12, 4);
	if (u != CACHE_ENDIAN)
		return -RB_EINVAL;
	if (verify && memcmp(h + 16, src_tag, SRC_LEN))
		return -RB_EINVAL;
	memcpy(ix->maint_id.id, h + 16 + SRC_LEN, OID_LEN);
	memcpy(ix->mailmap_id.id, h + 16 + SRC_LEN + OID_LEN, OID_LEN);
	memcpy(&blen, h + 16 + SRC_LEN + 2 * OID_LEN, 4);
	memcpy(&tlen, h + 20 + SRC_LEN + 2 * OID_LEN, 4);
	memcpy(&sum, h + 24 + SRC_LEN + 2 * OID_LEN, 8);
	if ((uint64_t)blen + tlen != len - HDR_LEN || !tlen ||
	    h[len - 1] != '\0')
		return -RB_EINVAL;
	d.p = h + HDR_LEN;
	d.end = d.p + blen;
	d.tab = (const char *)d.end;
	d.tablen = tlen;
	if (verify && sum != (idx_sum(d.p, blen) ^ (idx_sum(d.end, tlen) * 3)))
		return -RB_EINVAL;

	/* A count can't exceed what its smallest records would fill. */
	c.sect = get_count(&d, SECT_REC);
	c.pat = get_count(&d, PAT_REC);
	c.cat = get_count(&d, CAT_REC);
	c.kw = get_count(&d, 4 * 9);
	c.mm_names = get_count(&d, 8);
	c.mm_addrs = get_count(&d, 8);
	c.ptrs = get_count(&d, 4);
	c.rx = get_count(&d, 2 * 12);
	if (d.bad)
		return -RB_EINVAL;
	err = alloc_arrays(ix, &c);
	if (err)
		return err;
	ix->raw_tab = d.tab;
	ix->raw_tablen = d.tablen;
	check_sections(&d, ix);
	dec_patterns(&d, ix);
	check_cats(&d, ix);
	dec_rest(&d, ix);
	return d.bad ? -RB_EINVAL : 0;
}

static int decoded(struct index **out, struct index *ix, int err)
{
	if (!err) {
		*out = ix;
		return 0;
	}
	rb_maint__index_unref(ix);
	if (err == -RB_ENOMEM)
		return rb_err(RB_ENOMEM, "maintainers cache: no memory");
	return rb_err(RB_EINVAL, "maintainers cache: damaged or stale");
}

int rb_maint__cache_decode(struct index **out, char *buf, size_t len,
			   bool verify)
{
	struct index *ix = rb_maint__index_alloc();

	if (!ix) {
		free(buf);
		return rb_err(RB_ENOMEM, "maintainers cache: no memory");
	}
	ix->text = buf; /* the string table lives in it */
	return decoded(out, ix,
		       decode(ix, (const unsigned char *)buf, len, verify));
}

/* ---- files --------------------------------------------------------- */

/* An object id in hex (not git_oid_tostr(): this file makes no call
 * into libgit2, see maint_git.c).
 */
static void hex(char out[2 * OID_LEN + 1], const unsigned char *id)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < OID_LEN; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * OID_LEN] = '\0';
}

static int cache_path(struct rb_buf *b, const char *dir, const git_oid *mid,
		      const git_oid *mmid)
{
	char a[2 * OID_LEN + 1], m[2 * OID_LEN + 1];

	hex(a, mid->id);
	hex(m, mmid->id);
	return rb_buf_printf(b, "%s/%s-%s.idx", dir, a, m);
}

/*
 * Maps @path read-only when it is a regular file of this user that only
 * the user may write, of @min to CACHE_MAX bytes: the cache is trusted
 * as far as who wrote it, and checked for everything else.
 */
static int map_file(void **map, size_t *len, const char *path, size_t min)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022) ||
	    (uint64_t)st.st_size < min || (uint64_t)st.st_size > CACHE_MAX) {
		if (fd >= 0)
			close(fd);
		return rb_err(RB_ENOTFOUND, "%s: no usable cache", path);
	}
	/* MAP_POPULATE: the decoder reads all of it, and one call that
	 * maps the page cache costs less than a fault per page.
	 */
	p = mmap(NULL, (size_t)st.st_size, PROT_READ,
		 MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return rb_err(RB_ENOTFOUND, "%s: unreadable", path);
	*map = p;
	*len = (size_t)st.st_size;
	return 0;
}

int rb_maint__cache_load(struct index **out, const char *dir,
			 const git_oid *mid, const git_oid *mmid)
{
	struct rb_buf path = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct index *ix = NULL;
	void *map;
	size_t len;
	int err;

	err = cache_path(&path, dir, mid, mmid);
	if (!err)
		err = map_file(&map, &len, path.ptr, HDR_LEN);
	if (err)
		goto out;
	ix = rb_maint__index_alloc();
	if (!ix) {
		munmap(map, len);
		err = rb_err(RB_ENOMEM, "maintainers cache: no memory");
		goto out;
	}
	/* The strings stay in the mapping: nothing is copied. */
	ix->map = map;
	ix->maplen = len;
	err = decoded(out, ix, decode(ix, map, len, true));
	if (!err && (memcmp((*out)->maint_id.id, mid->id, OID_LEN) ||
		     memcmp((*out)->mailmap_id.id, mmid->id, OID_LEN))) {
		rb_maint__index_unref(*out);
		*out = NULL;
		err = -RB_EINVAL;
	}
	if (err)
		err = rb_err(RB_ENOTFOUND, "%s: damaged or stale", path.ptr);
out:
	rb_buf_release(&path);
	return err;
}

/* ---- what the cache keeps of a commit's tree ------------------------ */

#define FACTS_MAGIC "RBMTREE"
#define FACTS_HDR (8 + 4 + 4 + SRC_LEN + 3 * OID_LEN + 4 + 4 + 8)
#define IGNORE_MAX (1u << 20)

static int facts_path(struct rb_buf *b, const char *dir,
		      const unsigned char *commit)
{
	char h[2 * OID_LEN + 1];

	hex(h, commit);
	return rb_buf_printf(b, "%s/%s.tree", dir, h);
}

/* The header and body of a facts file: magic, format, byte order, build
 * tag, commit, MAINTAINERS and .mailmap ids, npat, length of the ignore
 * text, checksum of the body; the body is the -d memo then the text.
 */
int rb_maint__facts_save(const struct tree_facts *f, const char *dir)
{
	struct rb_buf path = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf data = RB_BUF_INIT(CACHE_MAX);
	uint32_t u[4] = { CACHE_FORMAT, CACHE_ENDIAN, (uint32_t)f->npat,
			  (uint32_t)f->ignore.len };
	uint64_t sum;
	int err;

	if (f->npat > CACHE_MAX || f->ignore.len > IGNORE_MAX)
		return rb_err(RB_ETOOBIG, "maintainers cache: too big");
	err = rb_mkdirs(dir);
	if (!err)
		err = facts_path(&path, dir, f->commit);
	if (!err)
		err = rb_buf_add(&data, FACTS_MAGIC, 8);
	if (!err)
		err = rb_buf_add(&data, u, 8);
	if (!err)
		err = rb_buf_add(&data, src_tag, SRC_LEN);
	if (!err)
		err = rb_buf_add(&data, f->commit, OID_LEN);
	if (!err)
		err = rb_buf_add(&data, f->mid.id, OID_LEN);
	if (!err)
		err = rb_buf_add(&data, f->mmid.id, OID_LEN);
	if (!err)
		err = rb_buf_add(&data, u + 2, 8);
	sum = rb_checksum64(f->memo, f->npat) ^
	      (rb_checksum64((const unsigned char *)f->ignore.ptr,
			     f->ignore.len) *
	       3);
	if (!err)
		err = rb_buf_add(&data, &sum, 8);
	if (!err)
		err = rb_buf_add(&data, f->memo, f->npat);
	if (!err)
		err = rb_buf_add(&data, f->ignore.ptr, f->ignore.len);
	if (!err)
		err = rb_write_file_atomic(path.ptr, data.ptr, data.len, 0600);
	rb_buf_release(&path);
	rb_buf_release(&data);
	return err;
}

int rb_maint__facts_decode(struct tree_facts *f, const unsigned char *h,
			   size_t len, bool verify)
{
	const unsigned char *body = h + FACTS_HDR;
	uint32_t u[4];
	uint64_t sum;
	size_t i;

	if (len < FACTS_HDR)
		return -RB_EINVAL;
	memcpy(u, h + 8, 8);
	memcpy(u + 2, h + 16 + SRC_LEN + 3 * OID_LEN, 8);
	memcpy(&sum, h + 24 + SRC_LEN + 3 * OID_LEN, 8);
	if (memcmp(h, FACTS_MAGIC, 8) || u[0] != CACHE_FORMAT ||
	    u[1] != CACHE_ENDIAN || memcmp(h + 16, src_tag, SRC_LEN) ||
	    memcmp(h + 16 + SRC_LEN, f->commit, OID_LEN) ||
	    (uint64_t)u[2] + u[3] != len - FACTS_HDR || u[3] > IGNORE_MAX ||
	    (verify && sum != (rb_checksum64(body, u[2]) ^
			       (rb_checksum64(body + u[2], u[3]) * 3))))
		return -RB_EINVAL;
	for (i = 0; i < u[2]; i++)
		if (body[i] > 2)
			return -RB_EINVAL;
	memcpy(f->mid.id, h + 16 + SRC_LEN + OID_LEN, OID_LEN);
	memcpy(f->mmid.id, h + 16 + SRC_LEN + 2 * OID_LEN, OID_LEN);
	f->memo = malloc(u[2] + 1);
	if (!f->memo)
		return -RB_ENOMEM;
	memcpy(f->memo, body, u[2]);
	f->npat = u[2];
	return rb_buf_add(&f->ignore, body + u[2], u[3]) ? -RB_ENOMEM : 0;
}

int rb_maint__facts_load(struct tree_facts *f, const char *dir)
{
	struct rb_buf path = RB_BUF_INIT(RB_BUF_NOLIMIT);
	void *map = NULL;
	size_t len = 0;
	int err;

	err = facts_path(&path, dir, f->commit);
	if (!err)
		err = map_file(&map, &len, path.ptr, FACTS_HDR);
	if (!err && rb_maint__facts_decode(f, map, len, true)) {
		free(f->memo);
		f->memo = NULL;
		rb_buf_reset(&f->ignore);
		err = rb_err(RB_ENOTFOUND, "%s: damaged or stale", path.ptr);
	}
	if (map)
		munmap(map, len);
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

		if (ends_with(e->d_name, ".idx") ||
		    ends_with(e->d_name, ".tree"))
			keep = CACHE_KEEP_SECONDS;
		else if (strstr(e->d_name, ".idx.tmp.") ||
			 strstr(e->d_name, ".tree.tmp."))
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
