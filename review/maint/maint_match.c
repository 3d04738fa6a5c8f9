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

/* Whether the file whose first 16 bytes (zero-padded) are @f may match
 * the pattern of key @k.
 */
static bool key_ok(const struct pat_key *k, const uint64_t f[2])
{
	static const uint64_t ones = ~(uint64_t)0;
	unsigned n = k->b[15];
	uint64_t k0, k1, m0, m1;

	if (!n)
		return true;
	memcpy(&k0, k->b, 8);
	memcpy(&k1, k->b + 8, 8);
	m0 = n >= 8 ? ones : ones >> (64 - 8 * n);
	m1 = n > 8 ? ones >> (64 - 8 * (n - 8)) : 0;
	return !((k0 ^ f[0]) & m0) && !((k1 ^ f[1]) & m1);
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
			const char *lower, size_t len, const size_t *lstart,
			const unsigned char *lflag, size_t nlines)
{
	size_t li;

	/* The literal prefilter on the whole text first. re[1] is re[0]
	 * behind "^[+-].*", so their literals are mostly the same set, and
	 * then one pass over the patch answers for both (these passes were
	 * the most of a one-shot lookup's memmem()).
	 */
	if (!rb_perl_re_maybe(&k->re[0], lower, len) &&
	    (same_lits(&k->re[0], &k->re[1]) ||
	     !rb_perl_re_maybe(&k->re[1], lower, len)))
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

size_t rb_maint__match_file(struct rb_maint *m, const char *file,
			    struct match_buf *b)
{
	struct hit *hits = b->hits;
	int *slot = b->slot;
	char *lower = b->lower;
	struct index *ix = m->ix;
	size_t flen = strlen(file), fsl = rb_maint__count_char(file, flen, '/');
	size_t si, i, nh = 0;
	unsigned char head[16] = { 0 };
	uint64_t f[2];

	for (i = 0; i < flen; i++)
		lower[i] = lc_ascii(file[i]);
	lower[flen] = '\0';
	memcpy(head, file, flen < 16 ? flen : 16);
	memcpy(f, head, 16);
	for (si = 0; si < ix->nsect; si++) {
		const struct sect_m *s = &ix->sm[si];
		bool excl = false;

		for (i = 0; i < s->nx && !excl; i++)
			excl = key_ok(&ix->pkey[s->x0 + i], f) &&
			       (ix->pat[s->x0 + i].first < 0 ||
				ix->pat[s->x0 + i].first ==
					(unsigned char)file[0]) &&
			       file_match(m, s->x0 + i, file, flen, fsl);
		if (excl)
			continue;
		for (i = 0; i < s->npat; i++) {
			size_t pi = s->pat0 + i;
			const struct pat *p;
			int depth;

			if (!key_ok(&ix->pkey[pi], f))
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
