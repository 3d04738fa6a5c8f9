// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_match.c - the index's patterns against file names and patches:
 * F:/X: globs matched here or as regexes, N: and K: regexes compiled
 * when first needed, and the sections a file falls in, deepest first
 * (file_match_pattern() and get_maintainers()' match loop).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "util/err.h"
#include "util/banned.h"

/*
 * A [class] of a converted F:/X: value at @i (after the "["): whether @c
 * is in it, and where it ends (after the "]"); 0 when it is not a simple
 * class (escapes, [:name:], a bad range or no "]").
 */
static size_t glob_class(const char *v, size_t vlen, size_t i, int c, bool *in)
{
	bool neg = false, first = true, hit = false;
	int prev = -1;

	if (i < vlen && v[i] == '^') {
		neg = true;
		i++;
	}
	for (;;) {
		int x;

		if (i >= vlen)
			return 0;
		x = (unsigned char)v[i];
		if (x == ']' && !first)
			break;
		if (x == '\\' || (x == '[' && i + 1 < vlen && v[i + 1] == ':'))
			return 0;
		first = false;
		i++;
		if (x == '-' && prev >= 0 && i < vlen && v[i] != ']') {
			int hi = (unsigned char)v[i++];

			if (hi == '\\' || hi < prev)
				return 0;
			hit |= c >= prev && c <= hi;
			prev = -1;
			continue;
		}
		hit |= c == x;
		prev = x;
	}
	/* Perl's [^...] matches "\n"; file names hold none. */
	*in = hit != neg;
	return i + 1;
}

/*
 * Whether a converted F:/X: value is in the subset matched here without
 * regcomp(): literals, ".", ".*", "\." and simple [classes]; sets the
 * literal prefix length and first byte for the quick reject.
 */
bool rb_maint__glob_check(struct pat *p, const char *val)
{
	const char *v = val;
	size_t i = 0;
	bool lit_prefix = true, in;

	p->litlen = 0;
	while (i < p->vlen) {
		unsigned char c = (unsigned char)v[i];

		if (c == '.') {
			i += i + 1 < p->vlen && v[i + 1] == '*' ? 2 : 1;
		} else if (c == '\\') {
			if (i + 1 >= p->vlen ||
			    isalnum((unsigned char)v[i + 1]))
				return false;
			if (lit_prefix && !p->litlen++)
				p->first = (unsigned char)v[i + 1];
			i += 2;
			continue;
		} else if (c == '[') {
			i = glob_class(v, p->vlen, i + 1, 0, &in);
			if (!i)
				return false;
		} else if (strchr("()|+?{}^$*", c)) {
			return false;
		} else {
			if (lit_prefix && !p->litlen++)
				p->first = c;
			i++;
			continue;
		}
		lit_prefix = false;
	}
	return true;
}

void rb_maint__pat_key(struct pat_key *k, const struct pat *p, const char *val)
{
	size_t i = 0, n = 0;

	memset(k, 0, sizeof(*k));
	/* glob_check()'s literal prefix: plain bytes and "\x" escapes up
	 * to the first "." or "[".
	 */
	while (i < p->vlen && n < 15) {
		unsigned char c = (unsigned char)val[i];

		if (c == '.' || c == '[')
			break;
		if (c == '\\') {
			if (i + 1 >= p->vlen)
				break;
			c = (unsigned char)val[++i];
		}
		k->b[n++] = c;
		i++;
	}
	k->b[15] = (uint8_t)n;
}

/* m@^$pattern@ on @s for a value glob_check() accepted, with a "/" after
 * the match when @slash (the pattern of a directory). */
static bool glob_match(const char *v, size_t vlen, const char *s, size_t len,
		       bool slash)
{
	size_t i = 0, j = 0;

	while (i < vlen) {
		unsigned char c = (unsigned char)v[i];
		bool in;

		if (c == '.' && i + 1 < vlen && v[i + 1] == '*') {
			/* Longest first, as Perl; any success will do. */
			size_t k, end = j;

			while (end < len && s[end] != '\n')
				end++;
			for (k = end + 1; k-- > j;)
				if (glob_match(v + i + 2, vlen - i - 2, s + k,
					       len - k, slash))
					return true;
			return false;
		}
		if (j >= len)
			return false;
		if (c == '.') {
			if (s[j] == '\n')
				return false;
			i++;
		} else if (c == '\\') {
			if ((unsigned char)s[j] != (unsigned char)v[i + 1])
				return false;
			i += 2;
		} else if (c == '[') {
			i = glob_class(v, vlen, i + 1, (unsigned char)s[j],
				       &in);
			if (!i || !in)
				return false;
		} else {
			if ((unsigned char)s[j] != c)
				return false;
			i++;
		}
		j++;
	}
	return !slash || (j < len && s[j] == '/');
}

/*
 * Compiles @perl into @dst's regex, keeping the literals @dst got from
 * the translation at load time; @state goes to 1, or -1 on failure.
 */
bool rb_maint__lazy_re(struct index *ix, struct rb_perl_re *dst, int *state,
		       const char *perl, bool xflag)
{
	int st = __atomic_load_n(state, __ATOMIC_ACQUIRE);

	if (st)
		return st > 0;
	pthread_mutex_lock(&ix->lock);
	if (!*state) {
		struct rb_perl_re tmp = { 0 };
		int err = rb_perl_re_compile(&tmp, perl, strlen(perl), xflag);

		if (!err) {
			dst->re = tmp.re;
			dst->compiled = true;
			tmp.compiled = false;
		}
		rb_perl_re_release(&tmp);
		__atomic_store_n(state, err ? -1 : 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ix->lock);
	return *state > 0;
}

static bool pat_re(struct index *ix, const struct pat *p, int k)
{
	struct pat_rx *rx = pat_rx(ix, p);

	return rb_maint__lazy_re(ix, &rx->re[k], &rx->state[k], rx->perl[k],
				 p->type == 'N');
}

bool rb_maint__kw_re(struct index *ix, struct kw *k, int which)
{
	return rb_maint__lazy_re(ix, &k->re[which], &k->state[which],
				 k->perl[which], true);
}

static bool same_lits(const struct rb_perl_re *a, const struct rb_perl_re *b)
{
	size_t i;

	if (a->nlits != b->nlits)
		return false;
	for (i = 0; i < a->nlits; i++)
		if (a->litlens[i] != b->litlens[i] ||
		    memcmp(a->lits[i], b->lits[i], a->litlens[i]))
			return false;
	return true;
}

/* One K: keyword against the lines of a patch: any line matches? */
bool rb_maint__kw_patch(struct index *ix, struct kw *k, const char *text,
			const char *lower, size_t len,
			const struct rb_grams *grams, const size_t *lstart,
			const unsigned char *lflag, size_t nlines)
{
	size_t li;

	/* The literal prefilter on the whole text first. re[1] is re[0]
	 * behind "^[+-].*", so their literals are mostly the same set, and
	 * then one pass over the patch answers for both (these passes were
	 * the most of a one-shot lookup's memmem()).
	 */
	if (!rb_perl_re_maybe_in(&k->re[0], lower, len, grams) &&
	    (same_lits(&k->re[0], &k->re[1]) ||
	     !rb_perl_re_maybe_in(&k->re[1], lower, len, grams)))
		return false;
	for (li = 0; li < nlines; li++) {
		size_t b = lstart[li], e = lstart[li + 1];
		int which;

		if (lflag[li] & 1) /* an earlier elsif case */
			continue;
		which = (lflag[li] & 2) ? 1 : 0;
		if (__atomic_load_n(&k->state[which], __ATOMIC_ACQUIRE) < 0)
			continue;
		if (!rb_perl_re_maybe(&k->re[which], lower + b, e - b))
			continue;
		if (rb_maint__kw_re(ix, k, which) &&
		    rb_perl_re_match(&k->re[which], text + b, e - b))
			return true;
	}
	return false;
}

/* file_match_pattern() with the -d test done lazily. */
static bool file_match(struct rb_maint *m, size_t pi, const char *file,
		       size_t flen, size_t fslashes)
{
	struct index *ix = m->ix;
	const struct pat *p = &ix->pat[pi];
	const char *val = pat_val(ix, p);
	bool dir;

	if (p->glob) {
		if (p->litlen &&
		    (flen < p->litlen || (unsigned char)file[0] != p->first))
			return false;
		if (!glob_match(val, p->vlen, file, flen, false))
			return false;
	} else {
		if (!pat_re(ix, p, 0) ||
		    !rb_perl_re_match(&pat_rx(ix, p)->re[0], file, flen))
			return false;
	}
	if (p->trailing)
		return true;
	/* -d $value: a directory gets its "/", and then matches as one. */
	dir = false;
	if (p->may_dir) {
		unsigned char st =
			__atomic_load_n(&m->dirmemo[pi], __ATOMIC_RELAXED);

		if (!st) {
			char *v = strndup(val, p->vlen);

			st = v && rb_maint__src_node(&m->src, v) == NODE_DIR ?
				     1 :
				     2;
			free(v);
			__atomic_store_n(&m->dirmemo[pi], st, __ATOMIC_RELAXED);
		}
		dir = st == 1;
	}
	if (dir) {
		if (p->glob)
			return glob_match(val, p->vlen, file, flen, true);
		return pat_re(ix, p, 1) &&
		       rb_perl_re_match(&pat_rx(ix, p)->re[1], file, flen);
	}
	return fslashes == p->slashes;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	/* sort {$hash{$b} <=> $hash{$a}}: deeper first; equal depths in
	 * MAINTAINERS order (Perl: hash order, i.e. random).
	 */
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->sect < y->sect ? -1 : x->sect > y->sect;
}

/* A pattern's key and number, sorted by key length, bytes, number. */
struct keyed {
	struct pat_key k;
	uint32_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c;

	if (x->k.b[15] != y->k.b[15])
		return x->k.b[15] < y->k.b[15] ? -1 : 1;
	c = memcmp(x->k.b, y->k.b, 15);
	if (c)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

int rb_maint__key_order(struct index *ix)
{
	struct keyed *t = malloc((ix->npat + 1) * sizeof(*t));
	size_t i, l;

	ix->korder_buf = malloc((ix->npat + 1) * sizeof(*ix->korder_buf));
	if (!t || !ix->korder_buf) {
		free(t);
		return rb_err(RB_ENOMEM, "maintainers: memory");
	}
	for (i = 0; i < ix->npat; i++)
		t[i] = (struct keyed){ ix->pkey[i], (uint32_t)i };
	qsort(t, ix->npat, sizeof(*t), cmp_keyed);
	for (i = 0; i < ix->npat; i++)
		ix->korder_buf[i] = t[i].i;
	ix->korder = ix->korder_buf;
	for (l = 0, i = 0; l < KEY_BLOCKS - 1; l++) {
		while (i < ix->npat && t[i].k.b[15] < l)
			i++;
		ix->kblock[l] = (uint32_t)i;
	}
	ix->kblock[KEY_BLOCKS - 1] = (uint32_t)ix->npat;
	free(t);
	return 0;
}

/* The range of korder[] whose keys are the @len bytes at @head, in the
 * block of keys that long (sorted by their bytes): its start, and its
 * end in *@end.
 */
static size_t key_range(const struct index *ix, size_t len,
			const unsigned char *head, size_t *end)
{
	size_t lo = ix->kblock[len], hi = ix->kblock[len + 1], e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(ix->pkey[ix->korder[mid]].b, head, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < ix->kblock[len + 1] &&
		     !memcmp(ix->pkey[ix->korder[e]].b, head, len);
	     e++)
		;
	*end = e;
	return lo;
}

/* The section whose patterns (X: first, then F:/N:) hold pattern @pi. */
static size_t sect_of(const struct index *ix, size_t pi)
{
	size_t lo = 0, hi = ix->nsect;

	/* The last section starting at or before @pi. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->sm[mid].x0 <= pi)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The patterns @file may match, in their order: those without a key,
 * and those whose key starts the file, found by one bisection for each
 * length of key (a linear pass tried all 7,000 keys of linux 6.1 for
 * each file: a sixth of a one-shot lookup). Each range is in pattern
 * order (equal keys sort by number): the ranges are merged.
 */
static size_t candidates(const struct index *ix, const char *file, size_t flen,
			 uint32_t *cand)
{
	unsigned char head[16] = { 0 };
	size_t at[KEY_BLOCKS], end[KEY_BLOCKS];
	size_t l, n = 0, nr = 0;

	memcpy(head, file, flen < 15 ? flen : 15);
	at[0] = ix->kblock[0];
	end[0] = ix->kblock[1];
	if (at[0] < end[0])
		nr++;
	for (l = 1; l <= 15 && l <= flen; l++) {
		at[nr] = key_range(ix, l, head, &end[nr]);
		if (at[nr] < end[nr])
			nr++;
	}
	while (nr) {
		size_t r, best = 0;

		for (r = 1; r < nr; r++)
			if (ix->korder[at[r]] < ix->korder[at[best]])
				best = r;
		cand[n++] = ix->korder[at[best]++];
		if (at[best] == end[best]) {
			nr--;
			at[best] = at[nr];
			end[best] = end[nr];
		}
	}
	return n;
}

size_t rb_maint__match_file(struct rb_maint *m, const char *file,
			    struct match_buf *b)
{
	struct hit *hits = b->hits;
	int *slot = b->slot;
	char *lower = b->lower;
	uint32_t *cand = b->cand;
	struct index *ix = m->ix;
	size_t flen = strlen(file), fsl = rb_maint__count_char(file, flen, '/');
	size_t i, nh = 0, nc, ci;

	for (i = 0; i < flen; i++)
		lower[i] = lc_ascii(file[i]);
	lower[flen] = '\0';
	nc = candidates(ix, file, flen, cand);
	for (ci = 0; ci < nc;) {
		size_t si = sect_of(ix, cand[ci]);
		const struct sect_m *s = &ix->sm[si];
		size_t end = (size_t)s->pat0 + s->npat, c0 = ci;
		bool excl = false;

		while (ci < nc && cand[ci] < end)
			ci++;
		if (ci == c0) { /* not in a section: a damaged file */
			ci++;
			continue;
		}
		for (i = c0; i < ci && !excl; i++) {
			size_t pi = cand[i];

			if (pi < s->x0 || pi >= (size_t)s->x0 + s->nx)
				continue;
			excl = (ix->pat[pi].first < 0 ||
				ix->pat[pi].first == (unsigned char)file[0]) &&
			       file_match(m, pi, file, flen, fsl);
		}
		if (excl)
			continue;
		for (i = c0; i < ci; i++) {
			size_t pi = cand[i];
			const struct pat *p;
			int depth;

			if (pi < s->pat0)
				continue;
			p = &ix->pat[pi];
			if (p->type == 'N') {
				struct pat_rx *rx = pat_rx(ix, p);

				/* $file =~ m/$value/x */
				if (__atomic_load_n(&rx->state[0],
						    __ATOMIC_ACQUIRE) < 0 ||
				    !rb_perl_re_maybe(&rx->re[0], lower,
						      flen) ||
				    !pat_re(ix, p, 0) ||
				    !rb_perl_re_match(&rx->re[0], file, flen))
					continue;
				depth = 0;
			} else {
				if ((p->first >= 0 &&
				     p->first != (unsigned char)file[0]) ||
				    !file_match(m, pi, file, flen, fsl))
					continue;
				depth = p->depth;
			}
			if (slot[si] < 0) {
				slot[si] = (int)nh;
				hits[nh].sect = si;
				nh++;
			}
			hits[slot[si]].depth = depth;
		}
	}
	qsort(hits, nh, sizeof(*hits), cmp_hit);
	for (i = 0; i < nh; i++)
		slot[hits[i].sect] = -1;
	return nh;
}
