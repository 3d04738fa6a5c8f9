// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_collect.c - a query run: the sections its files and keywords
 * match, their lists and people (add_categories(), push_email_address()),
 * the people of .yaml files and of the commits "Fixes:" names, with
 * deduplicate_email() and .mailmap, into the result get_maintainer.pl
 * prints.
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* The lists, people and sections being collected. */
struct entry {
	char *addr;
	const char *role; /* borrowed, or in roles_owned */
	char *role_owned;
	enum rb_maint_kind kind;
};

struct collect {
	struct rb_maint *m;
	struct vec email_to; /* struct entry */
	struct vec list_to;
	struct strv hash_list; /* lc() list addresses */
	struct strv hash_name, hash_addr; /* %email_hash_name/address */
	struct vec sections; /* const struct rb_maint_section * */
	bool *sect_seen;
};

static char *lc_dup(const char *s)
{
	char *o = strdup(s);
	size_t i;

	for (i = 0; o && o[i]; i++)
		o[i] = lc_ascii(o[i]);
	return o;
}

/* push_email_address(): false when there is no address. */
static int push_email_address(struct collect *c, const char *line,
			      const char *role, bool *pushed)
{
	struct email e = { 0 };
	char *ln = NULL, *la = NULL;
	int err;

	*pushed = false;
	err = rb_maint__parse_email_str(&e, line);
	if (err)
		return err;
	if (!*e.addr)
		goto out;
	*pushed = true;
	ln = lc_dup(e.name);
	la = lc_dup(e.addr);
	if (!ln || !la) {
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
		goto out;
	}
	/* email_inuse() */
	if ((*e.name && rb_maint__strv_has(&c->hash_name, ln)) ||
	    rb_maint__strv_has(&c->hash_addr, la))
		goto out;
	{
		struct entry *en = rb_maint__vec_push(&c->email_to);

		if (!en) {
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
			goto out;
		}
		en->addr = rb_maint__format_email(e.name, e.addr);
		en->role = role;
		en->kind = RB_MAINT_PERSON;
		if (!en->addr) {
			c->email_to.n--;
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
			goto out;
		}
	}
	if (*e.name) {
		err = rb_maint__strv_push(&c->hash_name, ln);
		ln = NULL;
	}
	if (!err) {
		err = rb_maint__strv_push(&c->hash_addr, la);
		la = NULL;
	}
out:
	free(ln);
	free(la);
	rb_maint__email_release(&e);
	return err;
}

/*
 * push_email_addresses(): a value that is one RFC 822 address, or not an
 * address list at all, is pushed whole; a valid list of addresses is
 * pushed address by address. Only a "," can make the two differ.
 */
static int push_email_addresses(struct collect *c, const char *val,
				const char *role)
{
	struct index *ix = c->m->ix;
	char *s = NULL;
	bool pushed;
	size_t i, start, n;
	int err = 0, depth = 0;
	bool q = false;

	if (!strchr(val, ','))
		return push_email_address(c, val, role, &pushed);
	s = rb_maint__strip_comments(val);
	if (!s)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	if (rb_maint__rfc822_match(ix, 0, s) ||
	    !rb_maint__rfc822_match(ix, 1, s)) {
		free(s);
		return push_email_address(c, val, role, &pushed);
	}
	/* The list's addresses: split at the commas outside quotes,
	 * brackets and groups.
	 */
	n = strlen(s);
	for (i = 0, start = 0; i <= n && !err; i++) {
		if (i < n && s[i] == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		if (i < n && s[i] == '"')
			q = !q;
		if (q && i < n)
			continue;
		if (i < n && (s[i] == '<' || s[i] == '[' || s[i] == ':'))
			depth++;
		if (i < n && (s[i] == '>' || s[i] == ']' || s[i] == ';') &&
		    depth)
			depth--;
		if (i == n || (s[i] == ',' && !depth)) {
			char *e = strndup(s + start, i - start);
			const char *t = e;

			if (!e) {
				err = rb_err(RB_ENOMEM, "out of memory");
				break;
			}
			while (*t && is_ws((unsigned char)*t))
				t++;
			if (*t)
				err = push_email_address(c, t, role, &pushed);
			free(e);
			start = i + 1;
		}
	}
	free(s);
	return err;
}

static int add_categories(struct collect *c, size_t si)
{
	struct index *ix = c->m->ix;
	const struct sect *s = rb_maint__sect(ix, si);
	size_t i;
	int err = 0;

	if (!c->sect_seen[si]) {
		const struct rb_maint_section **p =
			rb_maint__vec_push(&c->sections);

		if (!p)
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
		*p = &s->pub;
		c->sect_seen[si] = true;
	}
	for (i = 0; i < s->ncat && !err; i++) {
		const struct cat *k = &ix->cat[s->cat0 + i];

		if (k->kind == CAT_LIST) {
			char *la;
			struct entry *en;

			if (k->skip)
				continue;
			la = lc_dup(k->val);
			if (!la)
				return rb_err(RB_ENOMEM, "out of memory");
			if (rb_maint__strv_has(&c->hash_list, la)) {
				free(la);
				continue;
			}
			err = rb_maint__strv_push(&c->hash_list, la);
			en = err ? NULL : rb_maint__vec_push(&c->list_to);
			if (!err && !en)
				err = rb_err(RB_ENOMEM, "out of memory");
			if (err)
				return err;
			en->addr = strdup(k->val);
			en->role = k->role;
			en->kind = RB_MAINT_LIST;
			if (!en->addr) {
				c->list_to.n--;
				return rb_err(RB_ENOMEM, "out of memory");
			}
		} else {
			err = push_email_addresses(c, k->val, k->role);
		}
	}
	return err;
}

struct dedup {
	struct strv names, addrs; /* lc() keys */
	struct vec vals; /* struct email per key pair, in key order */
};

/* deduplicate_email() */
static char *deduplicate_email(struct collect *c, struct dedup *d,
			       const char *in)
{
	struct index *ix = c->m->ix;
	struct email e = { 0 };
	char *f = NULL, *mm = NULL, *out = NULL, *ln = NULL, *la = NULL;
	const struct email *hit = NULL;
	size_t i;

	if (rb_maint__parse_email_str(&e, in))
		return NULL;
	f = rb_maint__format_email(e.name, e.addr);
	mm = f ? rb_maint__mailmap_email(ix, f) : NULL;
	rb_maint__email_release(&e);
	if (!mm || rb_maint__parse_email_str(&e, mm))
		goto out;
	ln = lc_dup(e.name);
	la = lc_dup(e.addr);
	if (!ln || !la)
		goto out;
	if (*e.name)
		for (i = 0; i < d->names.n && !hit; i++)
			if (!strcmp(d->names.v[i], ln))
				hit = &((struct email *)d->vals.v)[2 * i];
	if (!hit)
		for (i = 0; i < d->addrs.n && !hit; i++)
			if (!strcmp(d->addrs.v[i], la))
				hit = &((struct email *)d->vals.v)[2 * i + 1];
	if (hit) {
		free(f);
		f = rb_maint__format_email(hit->name, hit->addr);
	} else {
		struct email *a = rb_maint__vec_push(&d->vals), *b;

		b = a ? rb_maint__vec_push(&d->vals) : NULL;
		if (!a || !b)
			goto out;
		a->name = strdup(e.name);
		a->addr = strdup(e.addr);
		b->name = strdup(e.name);
		b->addr = strdup(e.addr);
		if (rb_maint__strv_push(&d->names, ln) ||
		    rb_maint__strv_push(&d->addrs, la)) {
			ln = la = NULL;
			goto out;
		}
		ln = la = NULL;
		free(f);
		f = rb_maint__format_email(e.name, e.addr);
	}
	if (f)
		out = rb_maint__mailmap_email(ix, f);
out:
	free(f);
	free(mm);
	free(ln);
	free(la);
	rb_maint__email_release(&e);
	return out;
}

static void dedup_release(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->vals.n; i++)
		rb_maint__email_release(&((struct email *)d->vals.v)[i]);
	free(d->vals.v);
	rb_maint__strv_release(&d->names);
	rb_maint__strv_release(&d->addrs);
}

/* add_role($line, $role) over @email_to. */
static int add_role(struct collect *c, const char *line, const char *role)
{
	struct email e = { 0 };
	size_t i;
	int err = rb_maint__parse_email_str(&e, line);

	for (i = 0; !err && i < c->email_to.n; i++) {
		struct entry *en = &((struct entry *)c->email_to.v)[i];
		struct email x = { 0 };

		err = rb_maint__parse_email_str(&x, en->addr);
		if (err)
			break;
		if ((!strcmp(e.name, x.name) || !strcmp(e.addr, x.addr)) &&
		    !strstr(en->role, role)) {
			struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

			err = *en->role ? rb_buf_printf(&b, "%s,%s", en->role,
							role) :
					  rb_buf_puts(&b, role);
			if (!err) {
				free(en->role_owned);
				en->role_owned = rb_buf_detach(&b, NULL);
				en->role = en->role_owned;
				if (!en->role)
					err = rb_err(RB_ENOMEM, "no memory");
			}
			rb_buf_release(&b);
		}
		rb_maint__email_release(&x);
	}
	rb_maint__email_release(&e);
	return err;
}

/* @email_to = grep($_->[0] !~ /Linus Torvalds <torvalds@linux-foundation.org>/) */
static bool is_chief_penguin(const char *s)
{
	static const char pat[] =
		"Linus Torvalds <torvalds@linux-foundation.org>";
	size_t n = sizeof(pat) - 1, len = strlen(s), i, j;

	for (i = 0; i + n <= len; i++) {
		for (j = 0; j < n; j++)
			if (pat[j] != '.' && pat[j] != s[i + j])
				break;
			else if (pat[j] == '.' && s[i + j] == '\n')
				break;
		if (j == n)
			return true;
	}
	return false;
}

/*
 * extract_formatted_signatures(): s/\s*.*:\s*(.+)\s*\/$1/, the text after
 * the last ":" that has something after it.
 */
static char *sig_value(const char *l)
{
	size_t n = strlen(l), c, st;

	for (c = n; c-- > 0;) {
		if (l[c] != ':' || c + 1 >= n)
			continue;
		st = c + 1;
		while (st + 1 < n && is_ws((unsigned char)l[st]))
			st++;
		return strdup(l + st);
	}
	return strdup(l);
}

/*
 * vcs_find_signers() on "git log -1 $commit": the Signed-off-by:,
 * Reviewed-by: and Acked-by: lines (with an "@") of the commit's body,
 * without Linus Torvalds. Nothing when @hex names no commit.
 */
static int commit_signers(struct rb_maint *m, const char *hex, struct strv *out)
{
	static const char *const tags[] = { "Signed-off-by:", "Reviewed-by:",
					    "Acked-by:" };
	struct rb_buf text = RB_BUF_INIT(MAINT_MAX);
	const char *body, *p;
	int err = 0;

	if (rb_maint__src_commit_body(&m->src, hex, &text))
		goto out;
	body = text.ptr;
	for (p = body; p && *p && !err;) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p), k;
		const char *l = p;

		p = nl ? nl + 1 : p + ll;
		/* git_execute_cmd() strips each line's leading space. */
		while (ll && is_ws((unsigned char)*l)) {
			l++;
			ll--;
		}
		for (k = 0; k < 3; k++) {
			size_t tl = strlen(tags[k]);
			char *line, *lc;

			if (ll < tl || memcmp(l, tags[k], tl) ||
			    !memchr(l + tl, '@', ll - tl))
				continue;
			line = strndup(l, ll);
			lc = line ? lc_dup(line) : NULL;
			if (!lc) {
				free(line);
				err = rb_err(RB_ENOMEM, "out of memory");
				break;
			}
			/* grep(!/(Linus Torvalds)/i) */
			if (!strstr(lc, "linus torvalds"))
				err = rb_maint__strv_push(out, sig_value(line));
			free(line);
			free(lc);
			break;
		}
	}
out:
	rb_buf_release(&text);
	return err;
}

struct count {
	char *line;
	int n;
};

static int cmp_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	/* sort {$hash{$b} <=> $hash{$a}} keys %hash: ties in Perl's hash
	 * order, here in string order.
	 */
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->line, y->line);
}

static bool ignored(struct rb_maint *m, const char *line)
{
	size_t i;

	for (i = 0; i < m->ignore.n; i++)
		if (!strcmp(m->ignore.v[i], line) &&
		    rb_maint__rfc822_match(m->ix, 0, line))
			return true;
	return false;
}

/* vcs_add_commit_signers() and vcs_assign() for one "Fixes:" commit. */
static int blamed_fixes(struct collect *c, struct dedup *d, const char *hex)
{
	struct strv sig = { 0 };
	struct count *cnt = NULL;
	size_t i, n = 0, shown = 0;
	int err;

	err = commit_signers(c->m, hex, &sig);
	/* deduplicate_email() in extract_formatted_signatures() and again
	 * in vcs_add_commit_signers(), then mailmap().
	 */
	for (i = 0; i < sig.n && !err; i++) {
		int k;

		for (k = 0; k < 3 && !err; k++) {
			char *x = k < 2 ? deduplicate_email(c, d, sig.v[i]) :
					  rb_maint__mailmap_email(c->m->ix,
								  sig.v[i]);

			if (!x)
				err = rb_err(RB_ENOMEM, "out of memory");
			free(sig.v[i]);
			sig.v[i] = x;
		}
	}
	if (err || !sig.n)
		goto out;
	cnt = calloc(sig.n, sizeof(*cnt));
	if (!cnt) {
		err = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < sig.n; i++) {
		size_t j;

		for (j = 0; j < n && strcmp(cnt[j].line, sig.v[i]); j++)
			;
		if (j == n)
			cnt[n++].line = sig.v[i];
		cnt[j].n++;
	}
	qsort(cnt, n, sizeof(*cnt), cmp_count);
	for (i = 0; i < n && !err; i++) {
		char role[64];
		bool pushed;

		if (ignored(c->m, cnt[i].line))
			continue;
		/* --git-max-maintainers 5; min signatures 1 and min percent
		 * 5 always hold with a divisor of 1.
		 */
		if (++shown > 5)
			break;
		err = push_email_address(c, cnt[i].line, "", &pushed);
		snprintf(role, sizeof(role), "blamed_fixes:%d/1=100%%",
			 cnt[i].n);
		if (!err)
			err = add_role(c, cnt[i].line, role);
	}
out:
	free(cnt);
	rb_maint__strv_release(&sig);
	return err;
}

/* maintainers_in_file(): addresses in a .yaml file of the tree. */
static int file_emails(struct collect *c, const char *file, struct strv *emails)
{
	struct rb_buf text = RB_BUF_INIT(MAINT_MAX);
	struct strv raw = { 0 };
	size_t len = strlen(file), i;
	int err;

	if (len < 5 || strcmp(file + len - 5, ".yaml"))
		return 0;
	if (rb_maint__src_read(&c->m->src, file, &text)) {
		rb_buf_release(&text);
		return 0; /* not a file: -f is false */
	}
	err = rb_maint__file_addresses(&raw, text.ptr, text.len);
	for (i = 0; i < raw.n && !err; i++) {
		char *e = rb_maint__clean_file_email(raw.v[i]);

		if (e)
			err = rb_maint__strv_push(emails, e);
	}
	rb_maint__strv_release(&raw);
	rb_buf_release(&text);
	return err;
}

static void entries_release(struct vec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free(((struct entry *)v->v)[i].addr);
		free(((struct entry *)v->v)[i].role_owned);
	}
	free(v->v);
}

/*
 * The sections of the query's files, deepest first for each file, with
 * the addresses of .yaml files into @femails, then those of the K:
 * keywords the query hit (get_maintainers()' loops).
 */
static int match_query(struct collect *c, const struct rb_maint_query *q,
		       struct strv *femails)
{
	struct index *ix = c->m->ix;
	struct match_buf b = { 0 };
	size_t i, j, maxlen = 0;
	int err = 0;

	b.hits = malloc((ix->nsect + 1) * sizeof(*b.hits));
	b.slot = malloc((ix->nsect + 1) * sizeof(*b.slot));
	for (i = 0; i < q->files.n; i++)
		if (strlen(q->files.v[i]) > maxlen)
			maxlen = strlen(q->files.v[i]);
	b.lower = malloc(maxlen + 1);
	b.cand = malloc((ix->npat + 1) * sizeof(*b.cand));
	if (!b.hits || !b.slot || !b.lower || !b.cand) {
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
		goto out;
	}
	for (i = 0; i < ix->nsect; i++)
		b.slot[i] = -1;
	for (i = 0; i < q->files.n && !err; i++) {
		size_t nh = rb_maint__match_file(c->m, q->files.v[i], &b);

		for (j = 0; j < nh && !err; j++)
			err = add_categories(c, b.hits[j].sect);
		if (!err)
			err = file_emails(c, q->files.v[i], femails);
	}
	for (i = 0; i < ix->nkw && !err; i++)
		if (q->kwhit[i])
			err = add_categories(c, ix->kw[i].sect);
out:
	free(b.hits);
	free(b.slot);
	free(b.lower);
	free(b.cand);
	return err;
}

/* deduplicate_email() over @email_to, @list_to; then the chief penguin
 * is removed (--git-chief-penguins is off). */
static int dedup_entries(struct collect *c, struct dedup *d)
{
	size_t i, k;

	for (k = 0; k < 2; k++) {
		struct vec *v = k ? &c->list_to : &c->email_to;

		for (i = 0; i < v->n; i++) {
			struct entry *en = &((struct entry *)v->v)[i];
			char *nd = deduplicate_email(c, d, en->addr);

			if (!nd)
				return rb_err(RB_ENOMEM, "out of memory");
			free(en->addr);
			en->addr = nd;
		}
	}
	for (i = 0, k = 0; i < c->email_to.n; i++) {
		struct entry *en = &((struct entry *)c->email_to.v)[i];

		if (is_chief_penguin(en->addr)) {
			free(en->addr);
			free(en->role_owned);
			continue;
		}
		((struct entry *)c->email_to.v)[k++] = *en;
	}
	c->email_to.n = k;
	return 0;
}

/* @file_emails: mailmapped, pushed, role "in file". */
static int add_file_emails(struct collect *c, const struct strv *femails)
{
	size_t i;
	int err = 0;

	for (i = 0; i < femails->n && !err; i++) {
		char *mm = rb_maint__mailmap_email(c->m->ix, femails->v[i]);
		struct email e = { 0 };
		char *f = NULL;
		bool pushed;

		if (!mm || rb_maint__parse_email_str(&e, mm)) {
			free(mm);
			err = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		f = rb_maint__format_email(e.name, e.addr);
		if (f)
			err = push_email_address(c, f, "", &pushed);
		if (!err && f)
			err = add_role(c, f, "in file");
		if (!f)
			err = rb_err(RB_ENOMEM, "out of memory");
		free(f);
		free(mm);
		rb_maint__email_release(&e);
	}
	return err;
}

/* merge_email(): @email_to then @list_to into @r, the first of equal
 * addresses staying. */
static int merge_entries(struct rb_maint_result *r, struct collect *c)
{
	size_t i, j, k;

	for (k = 0; k < 2; k++) {
		struct vec *v = k ? &c->list_to : &c->email_to;

		for (i = 0; i < v->n; i++) {
			struct entry *en = &((struct entry *)v->v)[i];
			bool dup = false;

			for (j = 0; j < r->nto && !dup; j++)
				dup = !strcmp(r->to[j].addr, en->addr);
			if (dup)
				continue;
			r->to[r->nto].addr = strdup(en->addr);
			r->to[r->nto].role = strdup(en->role);
			r->to[r->nto].kind = en->kind;
			if (!r->to[r->nto].addr || !r->to[r->nto].role) {
				free(r->to[r->nto].addr);
				free(r->to[r->nto].role);
				return rb_err(RB_ENOMEM, "out of memory");
			}
			r->nto++;
		}
	}
	return 0;
}

/* The result: the merged recipients, the files, the sections (taken
 * from @c). */
static int make_result(struct rb_maint_result **out, struct collect *c,
		       const struct rb_maint_query *q)
{
	struct rb_maint_result *r = calloc(1, sizeof(*r));
	size_t i;
	int err;

	if (!r)
		return rb_err(RB_ENOMEM, "out of memory");
	r->to = calloc(c->email_to.n + c->list_to.n + 1, sizeof(*r->to));
	r->files = calloc(q->files.n + 1, sizeof(*r->files));
	if (!r->to || !r->files) {
		err = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	err = merge_entries(r, c);
	if (err)
		goto fail;
	for (i = 0; i < q->files.n; i++) {
		r->files[i] = strdup(q->files.v[i]);
		if (!r->files[i]) {
			err = rb_err(RB_ENOMEM, "out of memory");
			goto fail;
		}
		r->nfiles++;
	}
	r->sections = (const struct rb_maint_section **)c->sections.v;
	r->nsections = c->sections.n;
	c->sections.v = NULL;
	*out = r;
	return 0;
fail:
	rb_maint_result_free(r);
	return err;
}

int rb_maint_query_run(struct rb_maint_result **out, struct rb_maint_query *q)
{
	struct rb_maint *m = (struct rb_maint *)q->m;
	struct collect c = { 0 };
	struct dedup d = { 0 };
	struct strv femails = { 0 };
	size_t i;
	int err = 0;

	c.m = m;
	c.email_to.size = sizeof(struct entry);
	c.list_to.size = sizeof(struct entry);
	c.sections.size = sizeof(const struct rb_maint_section *);
	d.vals.size = sizeof(struct email);
	c.sect_seen = calloc(m->ix->nsect + 1, sizeof(bool));
	if (!c.sect_seen)
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
	if (!err)
		err = match_query(&c, q, &femails);
	if (!err)
		err = dedup_entries(&c, &d);
	if (!err)
		err = add_file_emails(&c, &femails);
	/* vcs_add_commit_signers($fix, "blamed_fixes") */
	for (i = 0; i < q->fixes.n && !err; i++)
		err = blamed_fixes(&c, &d, q->fixes.v[i]);
	if (!err)
		err = make_result(out, &c, q);
	entries_release(&c.email_to);
	entries_release(&c.list_to);
	rb_maint__strv_release(&c.hash_list);
	rb_maint__strv_release(&c.hash_name);
	rb_maint__strv_release(&c.hash_addr);
	free(c.sections.v);
	free(c.sect_seen);
	dedup_release(&d);
	rb_maint__strv_release(&femails);
	return err;
}

void rb_maint_result_free(struct rb_maint_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nto; i++) {
		free(r->to[i].addr);
		free(r->to[i].role);
	}
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->to);
	free(r->files);
	free(r->sections);
	free(r);
}
