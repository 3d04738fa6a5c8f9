// SPDX-License-Identifier: GPL-2.0-only
/*
 * code_index_build.c - building the code index's files (code_index.h,
 * the format in code_index.c).
 *
 * The blobs of the tree that the nearest file lacks are read in tree
 * order (the pack's order) into a table of their words and a list of
 * (word, blob) pairs; when these pass batch_bytes, the words are sorted
 * and merged with the file into a new one, so a build's memory is bounded
 * whatever the tree, and a base one commit away from one indexed reads a
 * few blobs and merges once. A file is written through three streams
 * (the postings straight to the file, the words' records and table to
 * unlinked files copied after) and checksummed as it is read back, so
 * that a build maps nothing it writes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "review/code/code_index.h"
#include "review/code/code_index_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/banned.h"

#define MAX_WALK (1u << 23) /* tree entries, repeats included */
/*
 * The words and pairs of the blobs being read, before a merge: linux
 * 6.1 from nothing is about 25M pairs and 4M words, 300 MB in one go;
 * in batches of this size it merges four times and peaks near it.
 */
#define BATCH_BYTES (96u << 20)
#define PICK_FILES 4 /* files looked at for the nearest */
#define OUT_BUF (1u << 20)

/* ---- the words of blobs being read ---------------------------------- */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

/*
 * The words of the blobs read since the last merge (the "delta"), and
 * (word, blob) pairs; delta_sort() turns the pairs into a list of blobs
 * per word and sorts the words.
 */
struct delta {
	uint64_t *slot; /* hash >> 32 << 32 | word + 1 */
	size_t mask;
	uint32_t *woff; /* word -> its text in the arena */
	size_t cw;
	uint32_t nw;
	char *arena;
	size_t alen, acap;
	uint32_t *pw, *pp; /* pairs: word, blob position in the tree */
	size_t np, cp;
	/* delta_sort(): */
	uint32_t *order; /* words in byte order */
	uint32_t *start; /* [nw + 1]: each word's blobs in @list */
	uint32_t *list;
};

static void delta_release(struct delta *d)
{
	free(d->slot);
	free(d->woff);
	free(d->arena);
	free(d->pw);
	free(d->pp);
	free(d->order);
	free(d->start);
	free(d->list);
	memset(d, 0, sizeof(*d));
}

static size_t delta_bytes(const struct delta *d)
{
	return (d->slot ? (d->mask + 1) * 8 : 0) + d->cw * 4 + d->acap +
	       d->cp * 8 + d->np * 4;
}

static int grow_slots(struct delta *d)
{
	size_t cap = d->slot ? (d->mask + 1) * 2 : 1 << 16, i, k;
	uint64_t *v;

	if (d->slot && ((size_t)d->nw + 1) * 2 < d->mask + 1)
		return 0;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	for (i = 0; d->slot && i <= d->mask; i++) {
		uint32_t w;

		if (!d->slot[i])
			continue;
		w = (uint32_t)d->slot[i] - 1;
		k = hash_bytes(d->arena + d->woff[w],
			       strlen(d->arena + d->woff[w]));
		for (k &= cap - 1; v[k]; k = (k + 1) & (cap - 1))
			;
		v[k] = d->slot[i];
	}
	free(d->slot);
	d->slot = v;
	d->mask = cap - 1;
	return 0;
}

/* The number of word @s[0..@n) in @d, added when new. */
static int delta_word(struct delta *d, const char *s, size_t n, uint64_t h,
		      uint32_t *out)
{
	uint64_t tag = h >> 32 << 32;
	size_t i;
	int ret;

	for (i = d->slot ? h & d->mask : 0; d->slot && d->slot[i];
	     i = (i + 1) & d->mask) {
		uint32_t k = (uint32_t)d->slot[i] - 1;
		const char *w = d->arena + d->woff[k];

		if ((d->slot[i] & ~0xffffffffull) == tag && !strncmp(w, s, n) &&
		    !w[n]) {
			*out = k;
			return 0;
		}
	}
	if (d->alen + n + 1 > UINT32_MAX || d->nw >= UINT32_MAX / 2)
		return rb_err(RB_ETOOBIG, "code index: too many words");
	ret = grow_slots(d);
	if (ret)
		return ret;
	if (d->nw == d->cw) {
		uint32_t *v = rb_grow(d->woff, &d->cw, d->nw, sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "code index: out of memory");
		d->woff = v;
	}
	while (d->alen + n + 1 > d->acap) {
		size_t nc = d->acap ? d->acap * 2 : 1 << 20;
		char *v = realloc(d->arena, nc);

		if (!v)
			return rb_err(RB_ENOMEM, "code index: out of memory");
		d->arena = v;
		d->acap = nc;
	}
	memcpy(d->arena + d->alen, s, n);
	d->arena[d->alen + n] = '\0';
	d->woff[d->nw] = (uint32_t)d->alen;
	d->alen += n + 1;
	for (i = h & d->mask; d->slot[i]; i = (i + 1) & d->mask)
		;
	d->slot[i] = tag | ++d->nw;
	*out = d->nw - 1;
	return 0;
}

static int delta_pair(struct delta *d, uint32_t w, uint32_t pos)
{
	if (d->np == d->cp) {
		size_t nc = d->cp ? d->cp * 2 : 1 << 16;
		uint32_t *a = realloc(d->pw, nc * sizeof(*a)), *b;

		if (!a)
			return rb_err(RB_ENOMEM, "code index: out of memory");
		d->pw = a;
		b = realloc(d->pp, nc * sizeof(*b));
		if (!b)
			return rb_err(RB_ENOMEM, "code index: out of memory");
		d->pp = b;
		d->cp = nc;
	}
	d->pw[d->np] = w;
	d->pp[d->np++] = pos;
	return 0;
}

/*
 * What of a word goes in the index: words of at least WORD_MIN bytes,
 * numbers left out (most of the distinct words of a kernel are hex
 * constants), and of another word that starts with digits ("3dnow"),
 * the rest after them. Then every piece of a pattern that starts with a
 * letter or '_', is WORD_MIN bytes or more and could not be part of a
 * number is found through the index (rb_code_index_cand()).
 */
static bool indexed(const char **s, size_t *n)
{
	if (*n >= WORD_MIN && !is_digit(**s))
		return true;
	if (number_chars(*s, *n))
		return false;
	while (*n && is_digit(**s)) {
		(*s)++;
		(*n)--;
	}
	return *n >= WORD_MIN;
}

/*
 * The distinct words of one blob: the delta's table is large and every
 * probe of it a cache miss, so each word goes there once per blob, not
 * once per occurrence. Entries of another blob are told apart by @gen.
 */
struct lent {
	uint64_t h;
	const char *s;
	uint32_t n, gen;
};

struct lset {
	struct lent *v;
	size_t mask, used;
	uint32_t gen;
};

/* true when @s[0..@n) is new in this blob; -1: out of memory. */
static int lset_add(struct lset *l, const char *s, size_t n, uint64_t h)
{
	size_t i;

	if (!l->v || (l->used + 1) * 2 > l->mask + 1) {
		size_t cap = l->v ? (l->mask + 1) * 2 : 4096, k;
		struct lent *v = calloc(cap, sizeof(*v));

		if (!v)
			return -1;
		for (i = 0; l->v && i <= l->mask; i++) {
			if (l->v[i].gen != l->gen || !l->v[i].s)
				continue;
			for (k = l->v[i].h & (cap - 1); v[k].s;
			     k = (k + 1) & (cap - 1))
				;
			v[k] = l->v[i];
		}
		free(l->v);
		l->v = v;
		l->mask = cap - 1;
	}
	for (i = h & l->mask; l->v[i].s && l->v[i].gen == l->gen;
	     i = (i + 1) & l->mask)
		if (l->v[i].h == h && l->v[i].n == n &&
		    !memcmp(l->v[i].s, s, n))
			return 0;
	l->v[i] = (struct lent){ h, s, (uint32_t)n, l->gen };
	l->used++;
	return 1;
}

/* Every indexed word of the text @p[0..@n), for the blob at @pos. */
static int delta_text(struct delta *d, struct lset *l, const char *p, size_t n,
		      uint32_t pos)
{
	size_t i = 0, b;
	int ret = 0;

	/* A new generation empties the set; at wrap, really empty it. */
	if (++l->gen == 0 && l->v) {
		memset(l->v, 0, (l->mask + 1) * sizeof(*l->v));
		l->gen = 1;
	}
	l->used = 0;
	while (i < n && !ret) {
		const char *x;
		size_t xn;
		uint64_t h;
		uint32_t w = 0; /* gcc -O2 cannot see delta_word() set it */
		int fresh;

		b = next_word(p, n, &i);
		x = p + b;
		xn = i - b;
		if (!xn || !indexed(&x, &xn))
			continue;
		h = hash_bytes(x, xn);
		fresh = lset_add(l, x, xn, h);
		if (fresh < 0)
			ret = rb_err(RB_ENOMEM, "code index: out of memory");
		else if (fresh)
			ret = delta_word(d, x, xn, h, &w) ?:
							    delta_pair(d, w, pos);
	}
	return ret;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int word_cmp(const void *a, const void *b, void *arg)
{
	const struct delta *d = arg;

	return strcmp(d->arena + d->woff[*(const uint32_t *)a],
		      d->arena + d->woff[*(const uint32_t *)b]);
}

/* The pairs into one ascending list of blobs per word; words sorted. */
static int delta_sort(struct delta *d)
{
	size_t i;

	d->start = calloc((size_t)d->nw + 1, sizeof(*d->start));
	d->list = malloc((d->np ? d->np : 1) * sizeof(*d->list));
	d->order = malloc((d->nw ? d->nw : 1) * sizeof(*d->order));
	if (!d->start || !d->list || !d->order)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	for (i = 0; i < d->np; i++)
		d->start[d->pw[i] + 1]++;
	for (i = 0; i < d->nw; i++)
		d->start[i + 1] += d->start[i];
	/* Each word's start moves to its end as its blobs go in ... */
	for (i = 0; i < d->np; i++)
		d->list[d->start[d->pw[i]]++] = d->pp[i];
	/* ... so one step back makes them starts again. */
	memmove(d->start + 1, d->start, (size_t)d->nw * sizeof(*d->start));
	d->start[0] = 0;
	free(d->pw);
	free(d->pp);
	d->pw = d->pp = NULL;
	d->cp = 0;
	for (i = 0; i < d->nw; i++) {
		size_t n = d->start[i + 1] - d->start[i];

		if (n > 1)
			qsort(d->list + d->start[i], n, sizeof(*d->list),
			      u32_cmp);
		d->order[i] = (uint32_t)i;
	}
	free(d->slot);
	d->slot = NULL;
	if (d->nw)
		qsort_r(d->order, d->nw, sizeof(*d->order), word_cmp, d);
	return 0;
}

/* ---- writing a file -------------------------------------------------- */

/* A buffered stream to a file descriptor; the first error sticks. */
struct ost {
	int fd;
	unsigned char *buf;
	size_t n;
	int err;
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return rb_err(RB_EIO, "code index: write: %s",
				      k ? strerror(errno) : "short write");
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static void ost_flush(struct ost *o)
{
	if (!o->err && o->n)
		o->err = write_all(o->fd, o->buf, o->n);
	o->n = 0;
}

static void ost_put(struct ost *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (o->n + n > OUT_BUF)
		ost_flush(o);
	if (n >= OUT_BUF) {
		if (!o->err)
			o->err = write_all(o->fd, p, n);
		return;
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}

static void ost_u32(struct ost *o, uint32_t v)
{
	ost_put(o, &v, 4);
}

/* An unlinked file for this process in @dir (or $TMPDIR). */
static int tmp_fd(const char *dir)
{
	static unsigned long seq;
	const char *t = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir)
		dir = t && *t == '/' ? t : "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* No O_TMPFILE there: a name of our own, gone at once. */
	if (snprintf(path, sizeof(path), "%s/.cidx.tmp.%ld.%lu", dir,
		     (long)getpid(),
		     __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)) >=
	    (int)sizeof(path))
		return rb_err(RB_EINVAL, "code index: %s: path too long", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return rb_err(RB_EIO, "code index: %s: %s", path,
			      strerror(errno));
	unlink(path);
	return fd;
}

/* Appends the @len bytes of @src (from its start) to @o. */
static void ost_copy(struct ost *o, int src, uint64_t len)
{
	uint64_t off = 0;

	ost_flush(o);
	while (!o->err && off < len) {
		size_t want = len - off < OUT_BUF ? (size_t)(len - off) :
						    OUT_BUF;
		ssize_t k = pread(src, o->buf, want, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			o->err = rb_err(RB_EIO, "code index: read back: %s",
					k ? strerror(errno) : "short");
			break;
		}
		o->err = write_all(o->fd, o->buf, (size_t)k);
		off += (uint64_t)k;
	}
}

/* The blobs of a tree: in tree order with repeats, and sorted unique. */
struct tblobs {
	git_oid *walk;
	size_t nwalk, cwalk;
	git_oid *ids;
	size_t n;
};

static void tblobs_release(struct tblobs *t)
{
	free(t->walk);
	free(t->ids);
	memset(t, 0, sizeof(*t));
}

/* Position of @id in t->ids, or SIZE_MAX. */
static size_t tblobs_pos(const struct tblobs *t, const git_oid *id)
{
	if (!t->n)
		return SIZE_MAX;
	return oid_find(t->ids[0].id, sizeof(*t->ids), 0, t->n, id->id);
}

/*
 * What one merge writes: the file @c (or none) and the words of @d into
 * a file of the blobs of @t whose state is IN_C or NEW, numbered in
 * order of id.
 */
enum bstate { B_NONE, B_IN_C, B_NEW, B_UNREADABLE };

struct merge {
	const struct rb_code_index *c;
	const struct delta *d;
	const struct tblobs *t;
	const uint8_t *state; /* [t->n] */
	const git_oid *tree;
	const char *tmpdir;
	uint32_t *fin; /* [t->n]: final number + 1, 0 when left out */
	uint32_t *cfin; /* [c->nblob]: the same for the blobs of @c */
	uint32_t nblob, nword;
	uint64_t plen, tlen;
	struct ost post, rec, tab;
	uint32_t *a, *b; /* one word's lists */
	size_t ca, cb;
};

/* The numbering: the blobs kept, in order of id. */
static int merge_numbers(struct merge *m)
{
	const struct rb_code_index *c = m->c;
	size_t i, j;

	m->fin = calloc(m->t->n ? m->t->n : 1, sizeof(*m->fin));
	m->cfin = calloc(c && c->nblob ? c->nblob : 1, sizeof(*m->cfin));
	if (!m->fin || !m->cfin)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	for (i = 0; i < m->t->n; i++)
		if (m->state[i] == B_IN_C || m->state[i] == B_NEW)
			m->fin[i] = ++m->nblob;
	/* @c's blobs that the tree keeps: both lists are sorted. */
	for (i = j = 0; c && i < c->nblob && j < m->t->n;) {
		int k = memcmp(c->blobs + i * OID_LEN, m->t->ids[j].id,
			       OID_LEN);

		if (!k && m->state[j] == B_IN_C)
			m->cfin[i] = m->fin[j];
		if (k <= 0)
			i++;
		if (k >= 0)
			j++;
	}
	return 0;
}

static int grow_u32(uint32_t **v, size_t *cap, size_t n)
{
	uint32_t *x;

	if (n <= *cap)
		return 0;
	x = realloc(*v, n * sizeof(*x));
	if (!x)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	*v = x;
	*cap = n;
	return 0;
}

/* @c's word @x's blobs, renumbered, into m->a; how many. */
static size_t old_list(struct merge *m, uint32_t x)
{
	const struct rb_code_index *c = m->c;
	size_t i = post_of(c, x), end = post_of(c, x + 1), n = 0;
	uint32_t b = 0, gap;

	while (i < end && rb_code_index__varint(c->post, end, &i, &gap)) {
		b += gap;
		if (b && b <= c->nblob && m->cfin[b - 1])
			m->a[n++] = m->cfin[b - 1];
	}
	return n;
}

/* One word and its blobs (numbers + 1, ascending) into the file. */
static int emit(struct merge *m, const char *w, const uint32_t *l, size_t n)
{
	size_t len = strlen(w), i;
	uint32_t last = 0;

	if (!n)
		return 0;
	if (m->tlen + len + 1 >= UINT32_MAX || m->plen + 5 * n >= UINT32_MAX ||
	    m->nword >= UINT32_MAX / 2 - 1)
		return rb_err(RB_ETOOBIG, "code index: over the format's "
					  "limits");
	ost_u32(&m->rec, (uint32_t)m->tlen);
	ost_u32(&m->rec, (uint32_t)m->plen);
	ost_put(&m->tab, w, len + 1);
	m->tlen += len + 1;
	for (i = 0; i < n; i++) {
		uint32_t gap = l[i] - last;
		unsigned char v[5];
		size_t k = 0;

		while (gap >= 0x80) {
			v[k++] = (unsigned char)(gap | 0x80);
			gap >>= 7;
		}
		v[k++] = (unsigned char)gap;
		ost_put(&m->post, v, k);
		m->plen += k;
		last = l[i];
	}
	m->nword++;
	return 0;
}

/* The words of @c and of @d, in byte order, each with its blobs. */
static int merge_words(struct merge *m)
{
	const struct rb_code_index *c = m->c;
	const struct delta *d = m->d;
	uint32_t i = 0, j = 0, nc = c ? c->nword : 0, nd = d ? d->nw : 0;
	size_t need = (c ? c->nblob : 0) + 1;
	int ret = grow_u32(&m->a, &m->ca, need) ?:
			  grow_u32(&m->b, &m->cb, need + (d ? d->np : 0));

	while (!ret && (i < nc || j < nd)) {
		const char *cw = i < nc ? word_of(c, i) : NULL;
		uint32_t dw = j < nd ? d->order[j] : 0;
		const char *w = j < nd ? d->arena + d->woff[dw] : NULL;
		int k = !cw ? 1 : !w ? -1 : strcmp(cw, w);
		size_t na = 0, nb = 0, x, y, n;

		if (k <= 0)
			na = old_list(m, i++);
		if (k <= 0 && !(i % LET_GO_WORDS))
			rb_code_index__let_go_words(c, i);
		if (k >= 0) {
			for (x = d->start[dw]; x < d->start[dw + 1]; x++)
				m->b[nb++] = m->fin[d->list[x]];
			j++;
		}
		/* Disjoint and ascending: merged into a's tail room. */
		ret = grow_u32(&m->a, &m->ca, na + nb + need);
		if (ret)
			break;
		memmove(m->a + nb, m->a, na * sizeof(*m->a));
		for (x = nb, y = 0, n = 0; x < na + nb || y < nb; n++)
			m->a[n] =
				y >= nb || (x < na + nb && m->a[x] < m->b[y]) ?
					m->a[x++] :
					m->b[y++];
		ret = emit(m, k <= 0 ? cw : w, m->a, n);
		if (!ret)
			ret = m->post.err ?: m->rec.err ?: m->tab.err;
	}
	return ret;
}

/* The header of the file written to @fd, with its checksum. */
static int write_header(const struct merge *m, int fd, uint64_t len)
{
	unsigned char h[HDR_LEN] = { 0 }, *buf = malloc(OUT_BUF);
	struct rb_checksum c;
	uint64_t sum, off;
	uint32_t u;

	/* Read back, not mapped: the page cache has it, our RSS need not. */
	if (!buf)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	rb_checksum_init(&c, (size_t)len - HDR_LEN);
	for (off = HDR_LEN; off < len;) {
		size_t want = len - off < OUT_BUF ? (size_t)(len - off) :
						    OUT_BUF;
		ssize_t k = pread(fd, buf, want, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			free(buf);
			return rb_err(RB_EIO, "code index: read back: %s",
				      k ? strerror(errno) : "short");
		}
		rb_checksum_add(&c, buf, (size_t)k);
		off += (uint64_t)k;
	}
	free(buf);
	sum = rb_checksum_end(&c);
	memcpy(h, MAGIC, 8);
	u = FORMAT;
	memcpy(h + 8, &u, 4);
	u = ENDIAN;
	memcpy(h + 12, &u, 4);
	memcpy(h + 16, rb_code_index__src, SRC_LEN);
	memcpy(h + 64, m->tree->id, OID_LEN);
	memcpy(h + 84, &m->nblob, 4);
	memcpy(h + 88, &m->nword, 4);
	memcpy(h + 96, &m->plen, 8);
	memcpy(h + 104, &m->tlen, 8);
	memcpy(h + 112, &sum, 8);
	if (pwrite(fd, h, HDR_LEN, 0) != HDR_LEN)
		return rb_err(RB_EIO, "code index: header: %s",
			      strerror(errno));
	return 0;
}

/* The fan and the blobs of the file. */
static int merge_blobs(struct merge *m)
{
	uint32_t *fan = calloc(FAN_N, sizeof(*fan));
	size_t i;

	if (!fan)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	for (i = 0; i < m->t->n; i++)
		if (m->fin[i])
			fan[fan_key(m->t->ids[i].id)]++;
	for (i = 1; i < FAN_N; i++)
		fan[i] += fan[i - 1];
	ost_put(&m->post, fan, FAN_LEN);
	free(fan);
	for (i = 0; i < m->t->n; i++)
		if (m->fin[i])
			ost_put(&m->post, m->t->ids[i].id, OID_LEN);
	return m->post.err;
}

/*
 * Writes the merge to @fd (empty): the header's room, the fan, the
 * blobs and the postings go straight there, the words' records and the
 * table to files of their own, copied after.
 */
static int merge_write(struct merge *m, int fd)
{
	static const unsigned char zero[HDR_LEN];
	unsigned char *bufs = malloc(3 * (size_t)OUT_BUF);
	uint64_t len;
	int ret;

	m->post = (struct ost){ .fd = fd, .buf = bufs };
	m->rec = (struct ost){ .fd = -1, .buf = bufs + OUT_BUF };
	m->tab = (struct ost){ .fd = -1, .buf = bufs + 2 * (size_t)OUT_BUF };
	if (!bufs)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	ret = merge_numbers(m);
	if (!ret)
		ret = (m->rec.fd = tmp_fd(m->tmpdir)) < 0 ? m->rec.fd : 0;
	if (!ret)
		ret = (m->tab.fd = tmp_fd(m->tmpdir)) < 0 ? m->tab.fd : 0;
	if (ret)
		goto out;
	ost_put(&m->post, zero, HDR_LEN);
	ost_put(&m->tab, "", 1);
	m->tlen = 1;
	ret = merge_blobs(m);
	if (!ret)
		ret = merge_words(m);
	if (ret)
		goto out;
	ost_put(&m->post, zero, (4 - m->plen % 4) % 4);
	ost_u32(&m->rec, (uint32_t)m->tlen);
	ost_u32(&m->rec, (uint32_t)m->plen);
	ost_flush(&m->rec);
	ost_flush(&m->tab);
	ost_copy(&m->post, m->rec.fd, 8 * ((uint64_t)m->nword + 1));
	ost_copy(&m->post, m->tab.fd, m->tlen);
	ost_flush(&m->post);
	ret = m->post.err ?: m->rec.err ?: m->tab.err;
	len = HDR_LEN + FAN_LEN + (uint64_t)m->nblob * OID_LEN + m->plen +
	      (4 - m->plen % 4) % 4 + 8 * ((uint64_t)m->nword + 1) + m->tlen;
	if (!ret)
		ret = write_header(m, fd, len);
out:
	if (m->rec.fd >= 0)
		close(m->rec.fd);
	if (m->tab.fd >= 0)
		close(m->tab.fd);
	free(bufs);
	free(m->fin);
	free(m->cfin);
	free(m->a);
	free(m->b);
	m->fin = m->cfin = m->a = m->b = NULL;
	return ret;
}

/* ---- building -------------------------------------------------------- */

struct walk {
	struct tblobs *t;
	int ret;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *arg)
{
	struct walk *w = arg;
	struct tblobs *t = w->t;
	git_oid *v;

	(void)root;
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(e) == GIT_FILEMODE_LINK)
		return 0;
	if (t->nwalk >= MAX_WALK) {
		w->ret = rb_err(RB_ETOOBIG, "code index: too many files");
		return -1;
	}
	v = rb_grow(t->walk, &t->cwalk, t->nwalk, sizeof(*v));
	if (!v) {
		w->ret = rb_err(RB_ENOMEM, "code index: out of memory");
		return -1;
	}
	t->walk = v;
	git_oid_cpy(&v[t->nwalk++], git_tree_entry_id(e));
	return 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* The blobs of @tree (not its symlinks or submodules). */
static int tree_blobs(struct tblobs *t, git_repository *repo,
		      const git_oid *tree)
{
	struct walk w = { t, 0 };
	git_tree *tr = NULL;
	size_t i, n = 0;

	memset(t, 0, sizeof(*t));
	if (git_tree_lookup(&tr, repo, tree) < 0)
		return rb_err(RB_EIO, "code index: the tree cannot be read");
	if (git_tree_walk(tr, GIT_TREEWALK_PRE, walk_cb, &w) < 0 && !w.ret)
		w.ret = rb_err(RB_EIO, "code index: the tree cannot be walked");
	git_tree_free(tr);
	if (!w.ret) {
		t->ids = malloc((t->nwalk ? t->nwalk : 1) * sizeof(*t->ids));
		if (!t->ids)
			w.ret = rb_err(RB_ENOMEM, "code index: out of memory");
	}
	if (w.ret) {
		tblobs_release(t);
		return w.ret;
	}
	memcpy(t->ids, t->walk, t->nwalk * sizeof(*t->ids));
	if (t->nwalk)
		qsort(t->ids, t->nwalk, sizeof(*t->ids), oid_cmp);
	for (i = 0; i < t->nwalk; i++)
		if (!n || !git_oid_equal(&t->ids[n - 1], &t->ids[i]))
			t->ids[n++] = t->ids[i];
	t->n = n;
	if (n > MAX_BLOBS) {
		tblobs_release(t);
		return rb_err(RB_ETOOBIG, "code index: too many blobs");
	}
	return 0;
}

/* How many blobs of @t the index @ix has. */
static size_t overlap(const struct rb_code_index *ix, const struct tblobs *t)
{
	size_t i = 0, j = 0, n = 0;

	while (i < ix->nblob && j < t->n) {
		int k = memcmp(ix->blobs + i * OID_LEN, t->ids[j].id, OID_LEN);

		n += !k;
		i += k <= 0;
		j += k >= 0;
	}
	return n;
}

/*
 * The nearest index to build from: of the PICK_FILES files of @dir used
 * last, the one that has the most blobs of @t, if it has a quarter of
 * them. Reading blobs is most of a build and a merge streams the old
 * file once whatever it shares: 41% of linux 6.12's blobs are 6.1's, and
 * it is built from 6.1's file in 62% of the CPU of a build from nothing
 * (bench/RESULTS-code-index.md).
 */
static struct rb_code_index *pick(const char *dir, const git_oid *tree,
				  const struct tblobs *t)
{
	struct rb_code_index *best = NULL;
	struct rb_code_index_file *v;
	size_t n = rb_code_index__list(dir, &v), i, tried = 0, most = t->n / 4;
	char self[2 * OID_LEN + 1];

	hex_of(self, tree);
	for (i = 0; i < n && tried < PICK_FILES; i++) {
		char path[4096];
		struct rb_code_index *ix;
		size_t k;
		int fd;

		if (!strncmp(v[i].name, self, 2 * OID_LEN) ||
		    snprintf(path, sizeof(path), "%s/%s", dir, v[i].name) >=
			    (int)sizeof(path))
			continue;
		tried++;
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || rb_code_index__map(&ix, fd, path)) {
			rb_err_clear();
			continue;
		}
		if (rb_code_index__check(ix, ix->base, ix->len, false, LIGHT) ||
		    memcmp(ix->base + 16, rb_code_index__src, SRC_LEN) ||
		    (k = overlap(ix, t)) <= most) {
			rb_code_index__free(ix);
			continue;
		}
		most = k;
		rb_code_index__free(best);
		best = ix;
	}
	free(v);
	if (best) {
		const char *why = rb_code_index__check(best, best->base,
						       best->len, true, FULL);

		if (why) {
			rb_log(RB_LOG_WARN, "code_index.refused", "why", why,
			       NULL);
			rb_code_index__free(best);
			best = NULL;
		} else {
			rb_code_index__let_go(best, best->base,
					      best->base + best->len);
		}
	}
	return best;
}

static size_t batch_bytes = BATCH_BYTES;

void rb_code_index__set_batch_bytes(size_t bytes)
{
	__atomic_store_n(&batch_bytes, bytes ? bytes : BATCH_BYTES,
			 __ATOMIC_RELAXED);
}

/* What one build keeps track of. */
struct build {
	git_repository *repo;
	const git_oid *tree;
	const char *dir; /* NULL: no directory, a file of this process */
	struct tblobs t;
	uint8_t *state; /* [t.n]: enum bstate */
	struct rb_code_index *c; /* what the blobs read are merged into */
	struct delta d;
	struct rb_code_index_stats st;
};

/*
 * Merges b->c and the blobs read into the file @fd, and makes that the
 * new b->c unless @fd is the final file (@last).
 */
static int flush(struct build *b, int fd, bool last)
{
	struct merge m = { .c = b->c,
			   .d = &b->d,
			   .t = &b->t,
			   .state = b->state,
			   .tree = b->tree,
			   .tmpdir = b->dir };
	struct rb_code_index *ix = NULL;
	size_t i;
	int ret = delta_sort(&b->d);

	if (!ret)
		ret = merge_write(&m, fd);
	delta_release(&b->d);
	if (ret || last)
		return ret;
	ret = rb_code_index__map(&ix, dup(fd), "code index: a batch");
	if (!ret && rb_code_index__check(ix, ix->base, ix->len, true, FULL))
		ret = rb_err(RB_EIO, "code index: a batch reads back wrong");
	if (!ret)
		rb_code_index__let_go(ix, ix->base, ix->base + ix->len);
	if (ret) {
		rb_code_index__free(ix);
		return ret;
	}
	rb_code_index__free(b->c);
	b->c = ix;
	for (i = 0; i < b->t.n; i++)
		if (b->state[i] == B_NEW)
			b->state[i] = B_IN_C;
	return 0;
}

/* Reads the blob at @pos of the tree into the delta. */
static int read_blob(struct build *b, struct lset *ls, size_t pos)
{
	git_blob *blob = NULL;
	int ret = 0;

	/* Unreadable here: not in the file, so a search reads it. */
	if (git_blob_lookup(&blob, b->repo, &b->t.ids[pos]) < 0) {
		b->state[pos] = B_UNREADABLE;
		return 0;
	}
	b->state[pos] = B_NEW;
	b->st.read_blobs++;
	/* Never searched: in the file without words, never a candidate. */
	if (git_blob_rawsize(blob) <= RB_CODE_INDEX_BLOB_MAX &&
	    !git_blob_is_binary(blob)) {
		b->st.read_bytes += (uint64_t)git_blob_rawsize(blob);
		ret = delta_text(&b->d, ls, git_blob_rawcontent(blob),
				 (size_t)git_blob_rawsize(blob), (uint32_t)pos);
	}
	git_blob_free(blob);
	return ret;
}

/*
 * Builds the index of b->tree into @fd (empty; the caller names it),
 * from the nearest file of b->dir when there is one.
 */
static int build_into(struct build *b, int fd)
{
	struct lset ls = { 0 };
	size_t i, j, todo = 0, done = 0;
	int ret = tree_blobs(&b->t, b->repo, b->tree);

	if (ret)
		return ret;
	b->state = calloc(b->t.n ? b->t.n : 1, 1);
	if (!b->state)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	b->c = b->dir ? pick(b->dir, b->tree, &b->t) : NULL;
	b->st.how = b->c ? "updated" : "built";
	if (b->c)
		git_oid_cpy(&b->st.from, &b->c->tree);
	/* What the file started from has: marked, never read. */
	for (i = j = 0; b->c && i < b->c->nblob && j < b->t.n;) {
		int k = memcmp(b->c->blobs + i * OID_LEN, b->t.ids[j].id,
			       OID_LEN);

		if (!k)
			b->state[j] = B_IN_C;
		i += k <= 0;
		j += k >= 0;
	}
	for (j = 0; j < b->t.n; j++)
		todo += b->state[j] == B_NONE;
	for (i = 0; i < b->t.nwalk && !ret; i++) {
		size_t pos = tblobs_pos(&b->t, &b->t.walk[i]);

		if (pos == SIZE_MAX || b->state[pos] != B_NONE)
			continue;
		ret = read_blob(b, &ls, pos);
		done++;
		if (!ret && done < todo &&
		    delta_bytes(&b->d) >
			    __atomic_load_n(&batch_bytes, __ATOMIC_RELAXED)) {
			int t = tmp_fd(b->dir);

			ret = t < 0 ? t : flush(b, t, false);
			if (t >= 0)
				close(t);
		}
	}
	free(ls.v);
	if (!ret)
		ret = flush(b, fd, true);
	return ret;
}

static void build_release(struct build *b)
{
	tblobs_release(&b->t);
	free(b->state);
	rb_code_index__free(b->c);
	delta_release(&b->d);
	/* The build's heap goes back to the system, not to a free list. */
	malloc_trim(0);
}

void rb_code_index__log_build(const struct rb_code_index_stats *st,
			      const git_oid *tree)
{
	char t[2 * OID_LEN + 1], from[2 * OID_LEN + 1] = "", blobs[16],
						    words[16], read[16],
						    mib[24], secs[24];

	hex_of(t, tree);
	if (!strcmp(st->how, "updated"))
		hex_of(from, &st->from);
	snprintf(blobs, sizeof(blobs), "%u", st->blobs);
	snprintf(words, sizeof(words), "%u", st->words);
	snprintf(read, sizeof(read), "%u", st->read_blobs);
	snprintf(mib, sizeof(mib), "%.1f", (double)st->file_bytes / 1048576);
	snprintf(secs, sizeof(secs), "%.2f", st->seconds);
	rb_log(RB_LOG_INFO, "code_index.built", "tree", t, "how", st->how,
	       "from", from, "blobs", blobs, "words", words, "read", read,
	       "mib", mib, "seconds", secs, NULL);
}

/* Builds the index of @tree in a file of this process only. */
int rb_code_index__build_private(struct rb_code_index **out,
				 git_repository *repo, const git_oid *tree)
{
	struct build b = { .repo = repo, .tree = tree };
	int fd = tmp_fd(NULL);
	int ret = fd < 0 ? fd : build_into(&b, fd);

	*out = NULL;
	if (!ret)
		ret = rb_code_index__map(out, fd, "code index");
	else if (fd >= 0)
		close(fd);
	if (!ret &&
	    rb_code_index__check(*out, (*out)->base, (*out)->len, true, FULL)) {
		rb_code_index__free(*out);
		*out = NULL;
		ret = rb_err(RB_EIO, "code index: reads back wrong");
	}
	if (!ret)
		rb_code_index__let_go(*out, (*out)->base,
				      (*out)->base + (*out)->len);
	if (!ret)
		(*out)->st = b.st;
	build_release(&b);
	return ret;
}

/* Builds the index of @tree as @path (under the tree's build lock). */
int rb_code_index__build_file(git_repository *repo, const git_oid *tree,
			      const char *dir, const char *path,
			      struct rb_code_index_stats *st)
{
	struct build b = { .repo = repo, .tree = tree, .dir = dir };
	struct rb_afile f;
	int ret = rb_afile_open(&f, path, 0600);

	if (!ret)
		ret = build_into(&b, f.fd);
	if (!ret)
		ret = rb_afile_commit(&f);
	else
		rb_afile_abort(&f);
	*st = b.st;
	build_release(&b);
	if (!ret)
		rb_code_index__prune(dir);
	return ret;
}
