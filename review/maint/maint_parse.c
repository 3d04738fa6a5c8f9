// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_parse.c - MAINTAINERS into the index, as get_maintainer.pl's
 * read_maintainer_file() and get_maintainers() read it: the @typevalue
 * lines, the sections, their F:/X:/N: patterns, the roles
 * add_categories() gives their M:/R:/L: lines, and the K: keywords.
 * Function names in comments name the Perl sub the code reproduces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "review/maint/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define SUBSYS_MAXLEN 50 /* $output_section_maxlen */

/* F:/X: value -> regex, as read_maintainer_file(): "." -> "\\.",
 * "*" -> ".*", "?" -> "."
 */
static char *convert_glob(struct arena *ar, const char *v, size_t len,
			  size_t *outlen)
{
	size_t i, n = 0;
	char *o = rb_maint__arena_alloc(ar, len * 2 + 1);

	if (!o)
		return NULL;
	for (i = 0; i < len; i++) {
		if (v[i] == '.') {
			o[n++] = '\\';
			o[n++] = '.';
		} else if (v[i] == '*') {
			o[n++] = '.';
			o[n++] = '*';
		} else if (v[i] == '?') {
			o[n++] = '.';
		} else {
			o[n++] = v[i];
		}
	}
	o[n] = '\0';
	*outlen = n;
	return o;
}

static int add_warning(struct index *ix, const char *what, const char *val,
		       size_t vlen)
{
	return rb_buf_printf(&ix->warnings, "%s %.*s: %s\n", what, (int)vlen,
			     val, rb_errmsg());
}

/* A pattern while the sections are read, with its value's address. */
struct pat_tv {
	struct pat p;
	const char *val;
};

/* The regexes of pattern @p, new in @rxs. */
static struct pat_rx *new_rx(struct vec *rxs, struct pat *p)
{
	struct pat_rx *rx = rb_maint__vec_push(rxs);

	if (rx)
		p->rx = (uint32_t)rxs->n;
	return rx;
}

/* Pattern @p of value @val: its numbers, and its regexes into @rxs. */
static int setup_pat(struct index *ix, struct pat *p, const char *val,
		     struct vec *rxs)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct pat_rx *rx;
	char *ere = NULL;
	int err = 0;

	if (p->type == 'N') {
		rx = new_rx(rxs, p);
		if (!rx)
			return rb_err(RB_ENOMEM, "maintainers: no memory");
		rx->perl[0] = strndup(val, p->vlen);
		if (!rx->perl[0])
			return rb_err(RB_ENOMEM, "maintainers: no memory");
		/* The literals now; the regex when first needed. */
		if (rb_perl_re_translate(&ere, &rx->re[0], val, p->vlen,
					 true)) {
			rx->state[0] = -1;
			return add_warning(ix, "N:", val, p->vlen);
		}
		free(ere);
		return 0;
	}
	p->slashes = (uint32_t)rb_maint__count_char(val, p->vlen, '/');
	p->trailing = p->vlen && val[p->vlen - 1] == '/';
	p->may_dir = !p->trailing && p->vlen;
	p->depth = (int32_t)p->slashes + (p->trailing ? 0 : 1);
	if (p->vlen >= 2 && val[0] == '.' && val[1] == '*')
		p->depth = -1;
	p->first = -1;
	if (rb_maint__glob_check(p, val)) {
		p->glob = 1;
		return 0;
	}
	p->first = -1;
	/* Beyond the glob subset: m@^$pattern@ as a Perl regex. */
	rx = new_rx(rxs, p);
	if (!rx)
		return rb_err(RB_ENOMEM, "maintainers: no memory");
	err = rb_buf_printf(&b, "^%.*s", (int)p->vlen, val);
	if (!err) {
		rx->perl[0] = strdup(b.ptr);
		err = rb_buf_putc(&b, '/');
	}
	if (!err)
		rx->perl[1] = strdup(b.ptr);
	rb_buf_release(&b);
	if (!err && (!rx->perl[0] || !rx->perl[1]))
		err = rb_err(RB_ENOMEM, "maintainers: no memory");
	return err;
}

/* The patterns' values, from @vals, into one buffer: pat_val(). */
static int pat_strings(struct index *ix, struct pat *pv, const char **vals)
{
	size_t k, total = 1, o = 0;

	for (k = 0; k < ix->npat; k++)
		total += pv[k].vlen + 1;
	if (total > UINT32_MAX)
		return rb_err(RB_ETOOBIG, "maintainers: too many patterns");
	ix->pstr_buf = malloc(total);
	if (!ix->pstr_buf)
		return rb_err(RB_ENOMEM, "maintainers: memory");
	for (k = 0; k < ix->npat; k++) {
		memcpy(ix->pstr_buf + o, vals[k], pv[k].vlen);
		ix->pstr_buf[o + pv[k].vlen] = '\0';
		pv[k].val = (uint32_t)o;
		o += pv[k].vlen + 1;
	}
	ix->pstr = ix->pstr_buf;
	return 0;
}

static bool tv_is_type(const struct tv *t)
{
	return t->type != 0;
}

/* find_starting_index() */
static size_t start_of(const struct index *ix, size_t i)
{
	while (i > 0) {
		if (!tv_is_type(&ix->tv[i]))
			break;
		i--;
	}
	return i;
}

/* find_ending_index() */
static size_t end_of(const struct index *ix, size_t i)
{
	while (i < ix->ntv) {
		if (!tv_is_type(&ix->tv[i]))
			break;
		i++;
	}
	return i;
}

/* The @typevalue element: the line, or "X:value" for a type line (only
 * ever asked for a section that starts at index 0).
 */
static const char *tv_str(struct index *ix, size_t i)
{
	const struct tv *t = &ix->tv[i];
	char ty[3] = { t->type, ':', '\0' };

	if (!t->type)
		return t->str;
	return rb_maint__arena_cat(&ix->ar, ty, t->val, t->vlen, "");
}

/* get_subsystem_name(): the header, cut to 50 bytes with "...". */
static char *subsystem_name(struct index *ix, size_t start)
{
	const char *h = tv_str(ix, start);
	size_t len;
	char *o;

	if (!h)
		return NULL;
	len = strlen(h);
	if (len <= SUBSYS_MAXLEN)
		return (char *)h;
	len = SUBSYS_MAXLEN - 3;
	while (len && is_ws((unsigned char)h[len - 1]))
		len--;
	o = rb_maint__arena_alloc(&ix->ar, len + 4);
	if (o) {
		memcpy(o, h, len);
		memcpy(o + len, "...", 4);
	}
	return o;
}

/* get_maintainer_role(): the last S: of the section, lc(), renamed. */
static const char *role_word(struct index *ix, const struct sect *s)
{
	static const char *const map[][2] = {
		{ "supported", "supporter" },
		{ "maintained", "maintainer" },
		{ "odd fixes", "odd fixer" },
		{ "orphan", "orphan minder" },
		{ "obsolete", "obsolete minder" },
		{ "buried alive in reporters", "chief penguin" },
	};
	const char *st = NULL;
	char *lc;
	size_t i, n;

	for (i = s->start + 1; i < s->end; i++)
		if (ix->tv[i].type == 'S')
			st = ix->tv[i].val;
	if (!st)
		return "unknown";
	n = strlen(st);
	lc = rb_maint__arena_alloc(&ix->ar, n + 1);
	if (!lc)
		return NULL;
	for (i = 0; i < n; i++)
		lc[i] = lc_ascii(st[i]);
	lc[n] = '\0';
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(lc, map[i][0]))
			return map[i][1];
	return lc;
}

static int sect_public(struct index *ix, struct sect *s)
{
	size_t i, counts[5] = { 0 };
	const char **arr[5];
	static const char letters[5] = { 'M', 'R', 'L', 'T', 'W' };
	int k;

	s->pub.name = tv_str(ix, s->start);
	if (!s->pub.name)
		return rb_err(RB_ENOMEM, "maintainers: no memory");
	s->pub.status = "";
	for (i = s->start + 1; i < s->end; i++)
		for (k = 0; k < 5; k++)
			counts[k] += ix->tv[i].type == letters[k];
	for (k = 0; k < 5; k++) {
		if (counts[k] > ix->nptrs - ix->ptrs_used)
			return rb_err(RB_EINVAL, "maintainers: ptrs overrun");
		arr[k] = ix->ptrs + ix->ptrs_used;
		ix->ptrs_used += counts[k];
		counts[k] = 0;
	}
	for (i = s->start + 1; i < s->end; i++) {
		if (ix->tv[i].type == 'S')
			s->pub.status = ix->tv[i].val;
		for (k = 0; k < 5; k++)
			if (ix->tv[i].type == letters[k])
				arr[k][counts[k]++] = ix->tv[i].val;
	}
	s->pub.maintainers = arr[0];
	s->pub.nmaintainers = counts[0];
	s->pub.reviewers = arr[1];
	s->pub.nreviewers = counts[1];
	s->pub.lists = arr[2];
	s->pub.nlists = counts[2];
	s->pub.trees = arr[3];
	s->pub.ntrees = counts[3];
	s->pub.webs = arr[4];
	s->pub.nwebs = counts[4];
	return 0;
}

/* add_categories()'s per-line work, done once at load time. */
static int sect_cats(struct index *ix, struct sect *s, struct vec *cats)
{
	const char *name = subsystem_name(ix, s->start);
	const char *rw = role_word(ix, s);
	const char *rm = NULL, *rr = NULL, *ro = NULL, *rmod = NULL;
	size_t i;

	if (!name || !rw)
		return rb_err(RB_ENOMEM, "maintainers: no memory");
	s->cat0 = cats->n;
	for (i = s->start + 1; i < s->end; i++) {
		const struct tv *t = &ix->tv[i];
		struct cat *c;

		if (t->type != 'L' && t->type != 'M' && t->type != 'R')
			continue;
		c = rb_maint__vec_push(cats);
		if (!c)
			return rb_err(RB_ENOMEM, "maintainers: no memory");
		if (t->type == 'M') {
			c->kind = CAT_M;
			c->val = t->val;
			if (!rm)
				rm = rb_maint__arena_cat(&ix->ar, rw, ":", 1,
							 name);
			c->role = rm;
		} else if (t->type == 'R') {
			c->kind = CAT_R;
			c->val = t->val;
			if (!rr)
				rr = rb_maint__arena_cat(
					&ix->ar, "reviewer:", "", 0, name);
			c->role = rr;
		} else {
			/* m/([^\s]+)\s+(.*)$/: the address ends at the first
			 * white space, the rest is what follows it.
			 */
			const char *v = t->val, *add = "";
			size_t al = 0, vl = t->vlen;
			bool sub, mod;

			while (al < vl && !is_ws((unsigned char)v[al]))
				al++;
			if (al < vl && al > 0) {
				size_t j = al;

				while (j < vl && is_ws((unsigned char)v[j]))
					j++;
				add = v + j;
			} else {
				al = vl;
			}
			sub = strstr(add, "subscribers-only") != NULL;
			mod = strstr(add, "moderated") != NULL;
			c->kind = CAT_LIST;
			c->skip = sub;
			c->val = rb_maint__arena_strndup(&ix->ar, v, al);
			/* get_list_role(): no name for THE REST. */
			if (!strcmp(name, "THE REST"))
				c->role = mod ? "moderated list" : "open list";
			else if (mod)
				c->role = rmod =
					rmod ? rmod :
					       rb_maint__arena_cat(
						       &ix->ar,
						       "moderated list:", "", 0,
						       name);
			else
				c->role = ro = ro ? ro :
						    rb_maint__arena_cat(
							    &ix->ar,
							    "open list:", "", 0,
							    name);
		}
		if (!c->val || !c->role)
			return rb_err(RB_ENOMEM, "maintainers: no memory");
	}
	s->ncat = cats->n - s->cat0;
	return 0;
}

/*
 * read_maintainer_file(): @typevalue, into @tvs. The lines are cut in
 * place in the index's copy of the text.
 */
static int read_typevalue(struct index *ix, struct vec *tvs, char *text,
			  size_t len)
{
	size_t i = 0;

	while (i < len) {
		char *l = text + i, *nl = memchr(l, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - l) : len - i, j;
		struct tv *t;

		i += ll + (nl ? 1 : 0);
		l[ll] = '\0';
		if (ll >= 2 && l[0] >= 'A' && l[0] <= 'Z' && l[1] == ':') {
			/* m/^([A-Z]):\s*(.*)/ */
			const char *v = l + 2;
			size_t vl = ll - 2;

			while (vl && is_ws((unsigned char)*v)) {
				v++;
				vl--;
			}
			t = rb_maint__vec_push(tvs);
			if (!t)
				return rb_err(RB_ENOMEM, "maintainers: memory");
			t->type = l[0];
			if (l[0] == 'F' || l[0] == 'X') {
				size_t cl;
				char *cv = convert_glob(&ix->ar, v, vl, &cl);

				if (!cv)
					return rb_err(RB_ENOMEM, "no memory");
				v = cv;
				vl = cl;
			}
			t->val = v;
			t->vlen = vl;
			continue;
		}
		/* !(/^\s*$/ || /^\s*\#/) on the line with its "\n". */
		for (j = 0; j < ll && is_ws((unsigned char)l[j]); j++)
			;
		if (j == ll || l[j] == '#')
			continue;
		t = rb_maint__vec_push(tvs);
		if (!t)
			return rb_err(RB_ENOMEM, "maintainers: memory");
		t->str = l;
	}
	return 0;
}

/* get_maintainers()' walk: find_first_section(), then end + 1. */
static int find_sections(struct index *ix, struct vec *sects)
{
	size_t tvi;

	for (tvi = 0; tvi < ix->ntv && !tv_is_type(&ix->tv[tvi]); tvi++)
		;
	while (tvi < ix->ntv) {
		struct sect *s = rb_maint__vec_push(sects);

		if (!s)
			return rb_err(RB_ENOMEM, "maintainers: memory");
		s->tvi = tvi;
		s->start = start_of(ix, tvi);
		s->end = end_of(ix, tvi);
		tvi = s->end + 1;
	}
	return 0;
}

/* The section's patterns of the types in @types, in line order. */
static int sect_push_pats(struct index *ix, const struct sect *s,
			  struct vec *pats, const char *types)
{
	size_t j;

	for (j = s->start; j < s->end; j++) {
		struct pat_tv *p;

		if (!ix->tv[j].type || !strchr(types, ix->tv[j].type))
			continue;
		p = rb_maint__vec_push(pats);
		if (!p)
			return rb_err(RB_ENOMEM, "maintainers: memory");
		p->p.type = ix->tv[j].type;
		p->p.vlen = (uint32_t)ix->tv[j].vlen;
		p->val = ix->tv[j].val;
	}
	return 0;
}

/* Each section's lines, patterns, public arrays and categories. */
static int fill_sections(struct index *ix, struct vec *pats, struct vec *cats)
{
	size_t k, j;
	int err;

	for (k = 0; k < ix->nsect; k++) {
		struct sect *s = &ix->sect[k];

		for (j = s->start; j < s->end; j++)
			if (tv_is_type(&ix->tv[j]))
				ix->tv_sect[j] = k;
		/* X: first (all of them), then F: and N: in line order. */
		s->x0 = pats->n;
		err = sect_push_pats(ix, s, pats, "X");
		if (err)
			return err;
		s->nx = pats->n - s->x0;
		s->pat0 = pats->n;
		err = sect_push_pats(ix, s, pats, "FN");
		if (err)
			return err;
		s->npat = pats->n - s->pat0;
		err = sect_public(ix, s);
		if (!err)
			err = sect_cats(ix, s, cats);
		if (err)
			return err;
	}
	return 0;
}

/* One K: line at typevalue @k: its two regexes, translated now and
 * compiled when first needed. */
static int setup_kw(struct index *ix, struct kw *w, size_t k)
{
	int m, err;

	w->tvi = k;
	w->sect = ix->tv_sect[k];
	snprintf(w->key, sizeof(w->key), "%zu", k);
	w->perl[0] = strndup(ix->tv[k].val, ix->tv[k].vlen);
	w->perl[1] = rb_maint__arena_printf(&ix->ar, "^[+-].*%.*s",
					    (int)ix->tv[k].vlen, ix->tv[k].val);
	if (!w->perl[0] || !w->perl[1])
		return rb_err(RB_ENOMEM, "maintainers: memory");
	w->perl[1] = strdup(w->perl[1]);
	if (!w->perl[1])
		return rb_err(RB_ENOMEM, "maintainers: memory");
	for (m = 0; m < 2; m++) {
		char *ere = NULL;

		if (rb_perl_re_translate(&ere, &w->re[m], w->perl[m],
					 strlen(w->perl[m]), true)) {
			w->state[m] = -1;
			if (m == 0) {
				err = add_warning(ix, "K:", ix->tv[k].val,
						  ix->tv[k].vlen);
				if (err) {
					free(ere);
					return err;
				}
			}
		}
		free(ere);
	}
	return 0;
}

/* %keyword_hash: K: lines, keyed by their index, sorted as Perl sorts
 * the keys: as strings (sort_and_uniq). */
static int read_keywords(struct index *ix, struct vec *kws)
{
	size_t k, j;
	int err;

	for (k = 0; k < ix->ntv; k++) {
		struct kw *w;

		if (ix->tv[k].type != 'K' || ix->tv_sect[k] == (size_t)-1)
			continue;
		w = rb_maint__vec_push(kws);
		if (!w)
			return rb_err(RB_ENOMEM, "maintainers: memory");
		err = setup_kw(ix, w, k);
		if (err)
			return err;
	}
	ix->kw = kws->v;
	ix->nkw = kws->n;
	kws->v = NULL;
	for (k = 1; k < ix->nkw; k++) {
		struct kw tmp = ix->kw[k];

		j = k;
		while (j > 0 && strcmp(ix->kw[j - 1].key, tmp.key) > 0) {
			ix->kw[j] = ix->kw[j - 1];
			j--;
		}
		ix->kw[j] = tmp;
	}
	return 0;
}

/* The patterns of @pats (struct pat_tv): their numbers and regexes, and
 * their values in one buffer.
 */
static int finish_patterns(struct index *ix, const struct vec *pats)
{
	const struct pat_tv *pt = pats->v;
	struct vec rxs = { .size = sizeof(struct pat_rx) };
	struct pat *pv = calloc(pats->n + 1, sizeof(*pv));
	const char **vals = calloc(pats->n + 1, sizeof(*vals));
	size_t k;
	int err = 0;

	if (!pv || !vals)
		err = rb_err(RB_ENOMEM, "maintainers: memory");
	for (k = 0; !err && k < pats->n; k++) {
		pv[k] = pt[k].p;
		vals[k] = pt[k].val;
		err = setup_pat(ix, &pv[k], vals[k], &rxs);
	}
	ix->pat = pv;
	ix->npat = pv ? pats->n : 0;
	ix->rx = rxs.v;
	ix->nrx = rxs.n;
	if (!err)
		err = pat_strings(ix, pv, vals);
	if (!err) {
		ix->pkey_buf = calloc(pats->n + 1, sizeof(*ix->pkey_buf));
		ix->pkey = ix->pkey_buf;
		if (!ix->pkey_buf)
			err = rb_err(RB_ENOMEM, "maintainers: memory");
	}
	for (k = 0; !err && k < pats->n; k++)
		if (pv[k].glob)
			rb_maint__pat_key(&ix->pkey_buf[k], &pv[k], vals[k]);
	if (!err)
		err = rb_maint__key_order(ix);
	free(vals);
	return err;
}

static int parse_maintainers(struct index *ix, char *text, size_t len)
{
	struct vec tvs = { .size = sizeof(struct tv) };
	struct vec sects = { .size = sizeof(struct sect) };
	struct vec pats = { .size = sizeof(struct pat_tv) };
	struct vec cats = { .size = sizeof(struct cat) };
	struct vec kws = { .size = sizeof(struct kw) };
	size_t k;
	int err;

	err = read_typevalue(ix, &tvs, text, len);
	if (err)
		goto out;
	ix->tv = tvs.v;
	ix->ntv = tvs.n;
	tvs.v = NULL;
	ix->tv_sect = malloc((ix->ntv + 1) * sizeof(*ix->tv_sect));
	if (!ix->tv_sect) {
		err = rb_err(RB_ENOMEM, "maintainers: memory");
		goto out;
	}
	for (k = 0; k < ix->ntv; k++)
		ix->tv_sect[k] = (size_t)-1;
	err = find_sections(ix, &sects);
	if (err)
		goto out;
	ix->sect = sects.v;
	ix->nsect = sects.n;
	sects.v = NULL;
	/* Every type line lands in at most one section's arrays. */
	ix->nptrs = ix->ntv;
	ix->ptrs = calloc(ix->nptrs + 1, sizeof(*ix->ptrs));
	if (!ix->ptrs) {
		err = rb_err(RB_ENOMEM, "maintainers: memory");
		goto out;
	}
	err = fill_sections(ix, &pats, &cats);
	if (err)
		goto out;
	ix->cat = cats.v;
	ix->ncat = cats.n;
	cats.v = NULL;
	ix->sm = malloc((ix->nsect + 1) * sizeof(*ix->sm));
	if (!ix->sm) {
		err = rb_err(RB_ENOMEM, "maintainers: memory");
		goto out;
	}
	for (k = 0; k < ix->nsect; k++) {
		const struct sect *s = &ix->sect[k];

		ix->sm[k] = (struct sect_m){ (uint32_t)s->pat0,
					     (uint32_t)s->npat, (uint32_t)s->x0,
					     (uint32_t)s->nx };
	}
	err = finish_patterns(ix, &pats);
	if (!err)
		err = read_keywords(ix, &kws);
out:
	free(tvs.v);
	free(sects.v);
	free(pats.v);
	free(cats.v);
	free(kws.v);
	return err;
}

struct index *rb_maint__index_alloc(void)
{
	struct index *ix = calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->refs = 1;
	rb_buf_init(&ix->warnings, 1 << 20);
	pthread_mutex_init(&ix->lock, NULL);
	return ix;
}

int rb_maint__index_new(struct index **out, const char *text, size_t len,
			const char *mailmap, size_t mlen)
{
	struct index *ix = rb_maint__index_alloc();
	int err;

	if (!ix)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	ix->text = malloc(len + 1);
	if (!ix->text) {
		rb_maint__index_unref(ix);
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	memcpy(ix->text, text, len);
	ix->text[len] = '\0';
	err = parse_maintainers(ix, ix->text, len);
	if (!err && mailmap)
		err = rb_maint__parse_mailmap(ix, mailmap, mlen);
	if (err) {
		rb_maint__index_unref(ix);
		return err;
	}
	*out = ix;
	return 0;
}

void rb_maint__index_unref(struct index *ix)
{
	size_t i;
	int k;

	if (!ix || __atomic_sub_fetch(&ix->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (i = 0; i < ix->nrx; i++)
		for (k = 0; k < 2; k++) {
			rb_perl_re_release(&ix->rx[i].re[k]);
			free(ix->rx[i].perl[k]);
		}
	for (i = 0; i < ix->nkw; i++)
		for (k = 0; k < 2; k++) {
			rb_perl_re_release(&ix->kw[i].re[k]);
			free(ix->kw[i].perl[k]);
		}
	for (k = 0; k < 2; k++) {
		rb_perl_re_release(&ix->rfc[k]);
		free(ix->rfc_perl[k]);
	}
	free(ix->text);
	if (ix->map)
		munmap(ix->map, ix->maplen);
	free(ix->tv);
	free(ix->tv_sect);
	free(ix->pstr_buf);
	free(ix->pkey_buf);
	free(ix->korder_buf);
	if (ix->block) {
		munmap(ix->block, ix->blocklen);
		if (ix->lazy)
			munmap(ix->lazy, ix->lazylen);
	} else {
		free(ix->sect);
		free(ix->sm);
		free((void *)ix->pat);
		free(ix->rx);
		free(ix->cat);
		free(ix->kw);
		free(ix->mm_names);
		free(ix->mm_addrs);
		free(ix->ptrs);
	}
	rb_buf_release(&ix->warnings);
	pthread_mutex_destroy(&ix->lock);
	rb_maint__arena_release(&ix->ar);
	free(ix);
}
