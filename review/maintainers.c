// SPDX-License-Identifier: GPL-2.0-only
/*
 * maintainers.c - MAINTAINERS lookup with get_maintainer.pl's output.
 *
 * The reference is scripts/get_maintainer.pl v0.26 (linux 6.1), run as
 * "--nogit --nogit-fallback [--norolestats]". Function names in comments
 * ("read_maintainer_file", "add_categories", ...) name the Perl sub whose
 * behaviour the code beside them reproduces; where Perl regexes do the
 * work, the regex is quoted and the C code says how it was read. Strings
 * are bytes, as in get_maintainer (no "use utf8"): lc() and \w are ASCII.
 */
#include <ctype.h>
#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "review/maint_priv.h"
#include "review/diff.h"
#include "review/maint_regex.h"
#include "review/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#define MAINT_MAX (64u << 20) /* MAINTAINERS, .mailmap, a patch, a file */
#define SUBSYS_MAXLEN 50 /* $output_section_maxlen */
#define LINK_DEPTH 8

/* ---- small helpers ------------------------------------------------- */

static void *arena_alloc(struct arena *a, size_t len)
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

static char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

static void arena_release(struct arena *a)
{
	size_t i;

	for (i = 0; i < a->nchunks; i++)
		free(a->chunks[i]);
	free(a->chunks);
	memset(a, 0, sizeof(*a));
}

/* Perl's \s (5.18+): space, \t \n \v \f \r. */
static bool is_ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Perl's \w on a byte string. */
static bool is_word(unsigned char c)
{
	return c < 128 && (isalnum(c) || c == '_');
}

static char lc_ascii(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static size_t count_char(const char *s, size_t len, char c)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += s[i] == c;
	return n;
}

/* A malloc'd string list. */
struct strv {
	char **v;
	size_t n, cap;
};

static int strv_push(struct strv *sv, char *s /* taken */)
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

static bool strv_has(const struct strv *sv, const char *s);

static void strv_release(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* ---- the tree: directory tests and file reads ---------------------- */

struct tree_src {
	git_repository *repo; /* a git tree, or */
	git_tree *tree;
	char *dir; /* a plain directory, or neither */
};

enum { NODE_NONE, NODE_DIR, NODE_FILE };

static int git_node(const struct tree_src *s, const char *path, int depth,
		    git_oid *blob);

/* Joins the symlink target @target onto the directory of @path. */
static char *link_join(const char *path, const char *target, size_t tlen)
{
	struct rb_buf b = RB_BUF_INIT(PATH_MAX);
	const char *slash = strrchr(path, '/');
	char *out = NULL, *parts[256], *p, *save = NULL;
	size_t np = 0, i;

	if (tlen && target[0] == '/')
		return NULL; /* outside the tree */
	if (slash && rb_buf_add(&b, path, (size_t)(slash - path + 1)))
		goto out;
	if (rb_buf_add(&b, target, tlen))
		goto out;
	/* Normalise "." and "..". */
	for (p = strtok_r(b.ptr, "/", &save); p;
	     p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "."))
			continue;
		if (!strcmp(p, "..")) {
			if (!np)
				goto out;
			np--;
			continue;
		}
		if (np == 256)
			goto out;
		parts[np++] = p;
	}
	{
		struct rb_buf o = RB_BUF_INIT(PATH_MAX);

		for (i = 0; i < np; i++)
			if ((i && rb_buf_putc(&o, '/')) ||
			    rb_buf_puts(&o, parts[i])) {
				rb_buf_release(&o);
				goto out;
			}
		out = rb_buf_detach(&o, NULL);
	}
out:
	rb_buf_release(&b);
	return out;
}

static int git_node(const struct tree_src *s, const char *path, int depth,
		    git_oid *blob)
{
	git_tree_entry *e = NULL;
	int kind = NODE_NONE;

	if (!*path || path[0] == '/' || depth > LINK_DEPTH)
		return NODE_NONE;
	if (git_tree_entry_bypath(&e, s->tree, path))
		return NODE_NONE;
	switch (git_tree_entry_filemode(e)) {
	case GIT_FILEMODE_TREE:
		kind = NODE_DIR;
		break;
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		kind = NODE_FILE;
		if (blob)
			git_oid_cpy(blob, git_tree_entry_id(e));
		break;
	case GIT_FILEMODE_LINK: {
		git_blob *b = NULL;
		char *to;

		/* -d and -f follow symbolic links. */
		if (git_blob_lookup(&b, s->repo, git_tree_entry_id(e)))
			break;
		to = link_join(path, git_blob_rawcontent(b),
			       (size_t)git_blob_rawsize(b));
		git_blob_free(b);
		if (to)
			kind = git_node(s, to, depth + 1, blob);
		free(to);
		break;
	}
	default:
		break;
	}
	git_tree_entry_free(e);
	return kind;
}

static int src_node(const struct tree_src *s, const char *path)
{
	struct stat st;
	struct rb_buf b = RB_BUF_INIT(PATH_MAX);
	int kind = NODE_NONE;

	if (s->tree)
		return git_node(s, path, 0, NULL);
	if (!s->dir || !*path)
		return NODE_NONE;
	if (!rb_buf_printf(&b, "%s/%s", s->dir, path) && stat(b.ptr, &st) == 0)
		kind = S_ISDIR(st.st_mode) ? NODE_DIR :
		       S_ISREG(st.st_mode) ? NODE_FILE :
					     NODE_NONE;
	rb_buf_release(&b);
	return kind;
}

/* Reads the regular file @path of the tree into @out. */
static int src_read(const struct tree_src *s, const char *path,
		    struct rb_buf *out)
{
	if (s->tree) {
		git_oid id;
		git_blob *b = NULL;
		int err;

		if (git_node(s, path, 0, &id) != NODE_FILE)
			return rb_err(RB_ENOTFOUND, "%s: not a file", path);
		if (git_blob_lookup(&b, s->repo, &id))
			return rb_err(RB_EIO, "%s: %s", path,
				      git_error_last()->message);
		err = rb_buf_add(out, git_blob_rawcontent(b),
				 (size_t)git_blob_rawsize(b));
		git_blob_free(b);
		return err;
	}
	if (s->dir) {
		struct rb_buf p = RB_BUF_INIT(PATH_MAX);
		int err;

		if (src_node(s, path) != NODE_FILE)
			return rb_err(RB_ENOTFOUND, "%s: not a file", path);
		err = rb_buf_printf(&p, "%s/%s", s->dir, path);
		if (!err)
			err = rb_read_file(out, p.ptr);
		rb_buf_release(&p);
		return err;
	}
	return rb_err(RB_ENOTFOUND, "%s: no tree", path);
}

static void src_release(struct tree_src *s)
{
	git_tree_free(s->tree);
	git_repository_free(s->repo);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

struct rb_maint {
	struct index *ix;
	struct tree_src src;
	/* -d memo per pattern: 0 unknown, 1 directory, 2 not. */
	unsigned char *dirmemo;
	/* .get_maintainer.ignore of the tree, one entry a line. */
	struct strv ignore;
};

struct rb_maint_cache {
	struct index *ix;
	unsigned int loads;
	pthread_mutex_t lock;
};

/* ---- Perl's e-mail helpers ----------------------------------------- */

/* A name/address pair, malloc'd. */
struct email {
	char *name;
	char *addr;
};

static void email_release(struct email *e)
{
	free(e->name);
	free(e->addr);
	e->name = e->addr = NULL;
}

/* s/^\s+|\s+$//g on [s, s+len). */
static void trim(const char **s, size_t *len)
{
	while (*len && is_ws((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_ws((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

/*
 * The name clean-up parse_email() and format_email() share:
 *   $name =~ s/^\s+|\s+$//g; $name =~ s/^\"|\"$//g;
 *   if ($name =~ /[^\w \-]/i) { s/(?<!\\)"/\\"/g; $name = "\"$name\""; }
 */
static char *fix_name(const char *s, size_t len)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	bool special = false;
	size_t i;
	int err = 0;

	trim(&s, &len);
	if (len && s[0] == '"') {
		s++;
		len--;
	}
	if (len && s[len - 1] == '"')
		len--;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_word(c) && c != ' ' && c != '-')
			special = true;
	}
	if (!special)
		return xstrndup(s, len);
	err = rb_buf_putc(&b, '"');
	for (i = 0; i < len && !err; i++) {
		if (s[i] == '"' && (i == 0 || s[i - 1] != '\\'))
			err = rb_buf_putc(&b, '\\');
		if (!err)
			err = rb_buf_putc(&b, s[i]);
	}
	if (!err)
		err = rb_buf_putc(&b, '"');
	if (err) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

/* True when [s+i, len) is ".*$": no "\n" but a final one. */
static bool rest_ok(const char *s, size_t len, size_t i)
{
	const char *nl = memchr(s + i, '\n', len - i);

	return !nl || (size_t)(nl - s) + 1 == len;
}

/*
 * parse_email():
 *   /^([^<]+)<(.+\@.*)>.*$/   -> name, address
 *   /^\s*<(.+\@\S*)>.*$/      -> address
 *   /^(.+\@\S*).*$/           -> address
 * then the name is cleaned (fix_name) and the address trimmed.
 */
static int parse_email(struct email *out, const char *s, size_t len)
{
	const char *lt = memchr(s, '<', len);
	size_t nb = 0, ne = 0, ab = 0, ae = 0, i, j;
	bool found = false;

	/* 1: the name is everything before the first "<". */
	if (lt && lt > s) {
		size_t o = (size_t)(lt - s) + 1;
		const char *nl = memchr(s + o, '\n', len - o);
		size_t lim = nl ? (size_t)(nl - s) : len;

		/* The group ends at the last ">" (greedy) before any "\n"
		 * with an "@" after its first byte, and ".*$" after it.
		 */
		for (j = lim; j-- > o + 1 && !found;) {
			if (s[j] != '>' || !rest_ok(s, len, j + 1))
				continue;
			for (i = o + 1; i < j; i++)
				if (s[i] == '@') {
					found = true;
					break;
				}
			if (found) {
				nb = 0;
				ne = (size_t)(lt - s);
				ab = o;
				ae = j;
			}
		}
	}
	/* 2: "<address>" with optional leading white space. */
	if (!found) {
		size_t o = 0;

		while (o < len && is_ws((unsigned char)s[o]))
			o++;
		if (o < len && s[o] == '<') {
			const char *nl;
			size_t lim, k;

			o++;
			nl = memchr(s + o, '\n', len - o);
			lim = nl ? (size_t)(nl - s) : len;
			/* ".+" greedy: the last "@" first; then "\S*" greedy
			 * up to the last ">" in its run.
			 */
			for (k = lim; k-- > o + 1 && !found;) {
				size_t e;

				if (s[k] != '@')
					continue;
				e = k + 1;
				while (e < len && !is_ws((unsigned char)s[e]))
					e++;
				for (j = e; j-- > k + 1;) {
					if (s[j] == '>' &&
					    rest_ok(s, len, j + 1)) {
						found = true;
						ab = o;
						ae = j;
						break;
					}
				}
			}
			ne = nb = 0;
		}
	}
	/* 3: "address" with anything after the run that holds it. */
	if (!found && rest_ok(s, len, 0)) {
		size_t lim = len, k;

		if (lim && s[lim - 1] == '\n')
			lim--;
		for (k = lim; k-- > 1;) {
			if (s[k] == '@') {
				size_t e = k + 1;

				while (e < len && !is_ws((unsigned char)s[e]))
					e++;
				found = true;
				ab = 0;
				ae = e;
				break;
			}
		}
		ne = nb = 0;
	}
	out->name = fix_name(s + nb, ne - nb);
	{
		const char *a = s + ab;
		size_t al = ae - ab;

		trim(&a, &al);
		out->addr = xstrndup(a, al);
	}
	if (!out->name || !out->addr) {
		email_release(out);
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	return 0;
}

static int parse_email_str(struct email *out, const char *s)
{
	return parse_email(out, s, strlen(s));
}

/* format_email($name, $address, 1). */
static char *format_email(const char *name, const char *addr)
{
	char *n = fix_name(name, strlen(name));
	const char *a = addr;
	size_t al = strlen(addr);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int err;

	if (!n)
		return NULL;
	trim(&a, &al);
	if (*n)
		err = rb_buf_printf(&b, "%s <%.*s>", n, (int)al, a);
	else
		err = rb_buf_add(&b, a, al);
	free(n);
	if (err) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

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
static char *mailmap_email(const struct index *ix, const char *line)
{
	struct email e = { 0 };
	const char *rn, *ra;
	char *key, *out;

	if (parse_email_str(&e, line))
		return NULL;
	key = format_email(e.name, e.addr);
	if (!key) {
		email_release(&e);
		return NULL;
	}
	rn = mm_find(ix->mm_names, ix->nmm_names, key);
	ra = mm_find(ix->mm_addrs, ix->nmm_addrs, key);
	if (!rn && !ra) {
		rn = mm_find(ix->mm_names, ix->nmm_names, e.addr);
		ra = mm_find(ix->mm_addrs, ix->nmm_addrs, e.addr);
	}
	out = format_email(rn ? rn : e.name, ra ? ra : e.addr);
	free(key);
	email_release(&e);
	return out;
}

/* ---- .mailmap (read_mailmap) --------------------------------------- */

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
	mb->v[mb->n].key = arena_strndup(&ix->ar, key, strlen(key));
	mb->v[mb->n].val = arena_strndup(&ix->ar, val, strlen(val));
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
		err = parse_email(out, b.ptr, b.len);
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

static int mm_line(struct index *ix, struct mm_build *names,
		   struct mm_build *addrs, const char *s, size_t len)
{
	struct email r = { 0 }, w = { 0 };
	const char *hash = memchr(s, '#', len);
	size_t i, g, p;
	int err = 0;

	if (hash) /* s/#.*$// */
		len = (size_t)(hash - s);
	trim(&s, &len);
	if (!len)
		return 0;
	/* name1 <mail1>: /^([^<]+)<([^>]+)>$/ */
	{
		const char *lt = memchr(s, '<', len);

		if (lt && lt > s) {
			i = (size_t)(lt - s);
			g = angle_at(s, len, i);
			if (g == len) {
				err = mm_parse(&r, s, i, s + i + 1,
					       len - i - 2);
				if (!err)
					err = mm_add(ix, names, r.addr, r.name);
				goto out;
			}
		}
	}
	/* <mail1> <mail2>: /^<([^>]+)>\s*<([^>]+)>$/ */
	g = angle_at(s, len, 0);
	if (g) {
		i = g;
		while (i < len && is_ws((unsigned char)s[i]))
			i++;
		if (angle_at(s, len, i) == len) {
			char *ra = xstrndup(s + 1, g - 2);
			char *wa = xstrndup(s + i + 1, len - i - 2);

			if (!ra || !wa)
				err = rb_err(RB_ENOMEM, "mailmap: no memory");
			else
				err = mm_add(ix, addrs, wa, ra);
			free(ra);
			free(wa);
			goto out;
		}
	}
	/* name1 <mail1> <mail2>: /^(.+)<([^>]+)>\s*<([^>]+)>$/, the
	 * greedy (.+) takes the last "<" that leaves a match.
	 */
	for (p = len; p-- > 1;) {
		if (s[p] != '<')
			continue;
		g = angle_at(s, len, p);
		if (!g)
			continue;
		i = g;
		while (i < len && is_ws((unsigned char)s[i]))
			i++;
		if (angle_at(s, len, i) == len) {
			char *wa = xstrndup(s + i + 1, len - i - 2);

			err = wa ? mm_parse(&r, s, p, s + p + 1, g - p - 2) :
				   rb_err(RB_ENOMEM, "mailmap: no memory");
			if (!err)
				err = mm_add(ix, names, wa, r.name);
			if (!err)
				err = mm_add(ix, addrs, wa, r.addr);
			free(wa);
			goto out;
		}
	}
	/* name1 <mail1> name2 <mail2>:
	 * /^(.+)<([^>]+)>\s*(.+)\s*<([^>]+)>$/
	 */
	if (len < 2 || s[len - 1] != '>')
		goto out;
	for (p = len; p-- > 1;) {
		size_t q, ws_end, nend;

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
		nend = q;
		{
			char *key;

			err = mm_parse(&r, s, p, s + p + 1, g - p - 2);
			if (!err)
				err = mm_parse(&w, s + ws_end, nend - ws_end,
					       s + q + 1, len - q - 2);
			if (err)
				goto out;
			key = format_email(w.name, w.addr);
			if (!key) {
				err = rb_err(RB_ENOMEM, "mailmap: no memory");
				goto out;
			}
			err = mm_add(ix, names, key, r.name);
			if (!err)
				err = mm_add(ix, addrs, key, r.addr);
			free(key);
		}
		goto out;
	}
out:
	email_release(&r);
	email_release(&w);
	return err;
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

static int parse_mailmap(struct index *ix, const char *text, size_t len)
{
	struct mm_build names = { 0 }, addrs = { 0 };
	size_t i = 0;
	int err = 0;

	while (i < len && !err) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;

		err = mm_line(ix, &names, &addrs, text + i, e - i);
		i = e + 1;
	}
	if (!err) {
		mm_finish(&names, &ix->mm_names, &ix->nmm_names);
		mm_finish(&addrs, &ix->mm_addrs, &ix->nmm_addrs);
	}
	free(names.v);
	free(addrs.v);
	return err;
}

/* ---- MAINTAINERS (read_maintainer_file) ---------------------------- */

/* F:/X: value -> regex, as read_maintainer_file(): "." -> "\\.",
 * "*" -> ".*", "?" -> "."
 */
static char *convert_glob(struct arena *ar, const char *v, size_t len,
			  size_t *outlen)
{
	size_t i, n = 0;
	char *o = arena_alloc(ar, len * 2 + 1);

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
static bool glob_check(struct pat *p)
{
	const char *v = p->val;
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

static int add_warning(struct index *ix, const char *what, const char *val,
		       size_t vlen)
{
	return rb_buf_printf(&ix->warnings, "%s %.*s: %s\n", what, (int)vlen,
			     val, rb_errmsg());
}

/*
 * Compiles @perl into @dst's regex, keeping the literals @dst got from
 * the translation at load time; @state goes to 1, or -1 on failure.
 */
static bool lazy_re(struct index *ix, struct rb_perl_re *dst, int *state,
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

static bool pat_re(struct index *ix, struct pat *p, int k)
{
	return lazy_re(ix, &p->rx->re[k], &p->rx->state[k], p->rx->perl[k],
		       p->type == 'N');
}

static bool kw_re(struct index *ix, struct kw *k, int which)
{
	return lazy_re(ix, &k->re[which], &k->state[which], k->perl[which],
		       true);
}

static int setup_pat(struct index *ix, struct pat *p)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	char *ere = NULL;
	int err = 0;

	if (p->type == 'N') {
		p->rx = calloc(1, sizeof(*p->rx));
		if (!p->rx)
			return rb_err(RB_ENOMEM, "maintainers: no memory");
		p->rx->perl[0] = xstrndup(p->val, p->vlen);
		if (!p->rx->perl[0])
			return rb_err(RB_ENOMEM, "maintainers: no memory");
		/* The literals now; the regex when first needed. */
		if (rb_perl_re_translate(&ere, &p->rx->re[0], p->val, p->vlen,
					 true)) {
			p->rx->state[0] = -1;
			return add_warning(ix, "N:", p->val, p->vlen);
		}
		free(ere);
		return 0;
	}
	p->slashes = count_char(p->val, p->vlen, '/');
	p->trailing = p->vlen && p->val[p->vlen - 1] == '/';
	p->may_dir = !p->trailing && p->vlen;
	p->depth = (int)p->slashes + (p->trailing ? 0 : 1);
	if (p->vlen >= 2 && p->val[0] == '.' && p->val[1] == '*')
		p->depth = -1;
	p->first = -1;
	if (glob_check(p)) {
		p->glob = true;
		return 0;
	}
	p->first = -1;
	/* Beyond the glob subset: m@^$pattern@ as a Perl regex. */
	p->rx = calloc(1, sizeof(*p->rx));
	if (!p->rx)
		return rb_err(RB_ENOMEM, "maintainers: no memory");
	err = rb_buf_printf(&b, "^%.*s", (int)p->vlen, p->val);
	if (!err) {
		p->rx->perl[0] = xstrdup(b.ptr);
		err = rb_buf_putc(&b, '/');
	}
	if (!err)
		p->rx->perl[1] = xstrdup(b.ptr);
	rb_buf_release(&b);
	if (!err && (!p->rx->perl[0] || !p->rx->perl[1]))
		err = rb_err(RB_ENOMEM, "maintainers: no memory");
	return err;
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

static char *arena_cat(struct arena *ar, const char *a, const char *b,
		       size_t blen, const char *c);

/* The @typevalue element: the line, or "X:value" for a type line (only
 * ever asked for a section that starts at index 0).
 */
static const char *tv_str(struct index *ix, size_t i)
{
	const struct tv *t = &ix->tv[i];
	char ty[3] = { t->type, ':', '\0' };

	if (!t->type)
		return t->str;
	return arena_cat(&ix->ar, ty, t->val, t->vlen, "");
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
	o = arena_alloc(&ix->ar, len + 4);
	if (o) {
		memcpy(o, h, len);
		memcpy(o + len, "...", 4);
	}
	return o;
}

static char *arena_printf(struct arena *ar, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *arena_printf(struct arena *ar, const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	va_list ap;
	char *o = NULL;
	int err;

	va_start(ap, fmt);
	err = rb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!err)
		o = arena_strndup(ar, b.ptr, b.len);
	rb_buf_release(&b);
	return o;
}

/* "a" "b" "c" concatenated in the arena (no printf: this runs for
 * every line of MAINTAINERS).
 */
static char *arena_cat(struct arena *ar, const char *a, const char *b,
		       size_t blen, const char *c)
{
	size_t al = strlen(a), cl = strlen(c);
	char *o = arena_alloc(ar, al + blen + cl + 1);

	if (o) {
		memcpy(o, a, al);
		memcpy(o + al, b, blen);
		memcpy(o + al + blen, c, cl);
		o[al + blen + cl] = '\0';
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
	lc = arena_alloc(&ix->ar, n + 1);
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

struct vec {
	void *v;
	size_t n, cap, size;
};

static void *vec_push(struct vec *v)
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
		c = vec_push(cats);
		if (!c)
			return rb_err(RB_ENOMEM, "maintainers: no memory");
		if (t->type == 'M') {
			c->kind = CAT_M;
			c->val = t->val;
			if (!rm)
				rm = arena_cat(&ix->ar, rw, ":", 1, name);
			c->role = rm;
		} else if (t->type == 'R') {
			c->kind = CAT_R;
			c->val = t->val;
			if (!rr)
				rr = arena_cat(&ix->ar, "reviewer:", "", 0,
					       name);
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
			c->val = arena_strndup(&ix->ar, v, al);
			/* get_list_role(): no name for THE REST. */
			if (!strcmp(name, "THE REST"))
				c->role = mod ? "moderated list" : "open list";
			else if (mod)
				c->role = rmod =
					rmod ? rmod :
					       arena_cat(&ix->ar,
							 "moderated list:", "",
							 0, name);
			else
				c->role = ro = ro ? ro :
						    arena_cat(&ix->ar,
							      "open list:", "",
							      0, name);
		}
		if (!c->val || !c->role)
			return rb_err(RB_ENOMEM, "maintainers: no memory");
	}
	s->ncat = cats->n - s->cat0;
	return 0;
}

static int parse_maintainers(struct index *ix, char *text, size_t len)
{
	struct vec tvs = { .size = sizeof(struct tv) };
	struct vec sects = { .size = sizeof(struct sect) };
	struct vec pats = { .size = sizeof(struct pat) };
	struct vec cats = { .size = sizeof(struct cat) };
	struct vec kws = { .size = sizeof(struct kw) };
	size_t i = 0, tvi, k;
	int err = 0;

	/* read_maintainer_file(): @typevalue. The lines are cut in place
	 * in the index's copy of the text.
	 */
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
			t = vec_push(&tvs);
			if (!t) {
				err = rb_err(RB_ENOMEM, "maintainers: memory");
				goto out;
			}
			t->type = l[0];
			if (l[0] == 'F' || l[0] == 'X') {
				size_t cl;
				char *cv = convert_glob(&ix->ar, v, vl, &cl);

				if (!cv) {
					err = rb_err(RB_ENOMEM, "no memory");
					goto out;
				}
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
		t = vec_push(&tvs);
		if (!t) {
			err = rb_err(RB_ENOMEM, "maintainers: memory");
			goto out;
		}
		t->str = l;
	}
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

	/* get_maintainers()' walk: find_first_section(), then end + 1. */
	for (tvi = 0; tvi < ix->ntv && !tv_is_type(&ix->tv[tvi]); tvi++)
		;
	while (tvi < ix->ntv) {
		struct sect *s = vec_push(&sects);

		if (!s) {
			err = rb_err(RB_ENOMEM, "maintainers: memory");
			goto out;
		}
		s->tvi = tvi;
		s->start = start_of(ix, tvi);
		s->end = end_of(ix, tvi);
		tvi = s->end + 1;
	}
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
	for (k = 0; k < ix->nsect; k++) {
		struct sect *s = &ix->sect[k];
		size_t j;

		for (j = s->start; j < s->end; j++)
			if (tv_is_type(&ix->tv[j]))
				ix->tv_sect[j] = k;
		/* X: first (all of them), then F: and N: in line order. */
		s->x0 = pats.n;
		for (j = s->start; j < s->end; j++) {
			struct pat *p;

			if (ix->tv[j].type != 'X')
				continue;
			p = vec_push(&pats);
			if (!p) {
				err = rb_err(RB_ENOMEM, "maintainers: memory");
				goto out;
			}
			p->type = 'X';
			p->val = ix->tv[j].val;
			p->vlen = ix->tv[j].vlen;
		}
		s->nx = pats.n - s->x0;
		s->pat0 = pats.n;
		for (j = s->start; j < s->end; j++) {
			struct pat *p;

			if (ix->tv[j].type != 'F' && ix->tv[j].type != 'N')
				continue;
			p = vec_push(&pats);
			if (!p) {
				err = rb_err(RB_ENOMEM, "maintainers: memory");
				goto out;
			}
			p->type = ix->tv[j].type;
			p->val = ix->tv[j].val;
			p->vlen = ix->tv[j].vlen;
		}
		s->npat = pats.n - s->pat0;
		err = sect_public(ix, s);
		if (!err)
			err = sect_cats(ix, s, &cats);
		if (err)
			goto out;
	}
	ix->pat = pats.v;
	ix->npat = pats.n;
	pats.v = NULL;
	ix->cat = cats.v;
	ix->ncat = cats.n;
	cats.v = NULL;
	for (k = 0; k < ix->npat; k++) {
		err = setup_pat(ix, &ix->pat[k]);
		if (err)
			goto out;
	}

	/* %keyword_hash: K: lines, keyed by their index. */
	for (k = 0; k < ix->ntv; k++) {
		struct kw *w;
		int m;

		if (ix->tv[k].type != 'K' || ix->tv_sect[k] == (size_t)-1)
			continue;
		w = vec_push(&kws);
		if (!w) {
			err = rb_err(RB_ENOMEM, "maintainers: memory");
			goto out;
		}
		w->tvi = k;
		w->sect = ix->tv_sect[k];
		snprintf(w->key, sizeof(w->key), "%zu", k);
		w->perl[0] = xstrndup(ix->tv[k].val, ix->tv[k].vlen);
		w->perl[1] = arena_printf(&ix->ar, "^[+-].*%.*s",
					  (int)ix->tv[k].vlen, ix->tv[k].val);
		if (!w->perl[0] || !w->perl[1]) {
			err = rb_err(RB_ENOMEM, "maintainers: memory");
			goto out;
		}
		w->perl[1] = xstrdup(w->perl[1]);
		if (!w->perl[1]) {
			err = rb_err(RB_ENOMEM, "maintainers: memory");
			goto out;
		}
		for (m = 0; m < 2; m++) {
			char *ere = NULL;

			if (rb_perl_re_translate(&ere, &w->re[m], w->perl[m],
						 strlen(w->perl[m]), true)) {
				w->state[m] = -1;
				if (m == 0) {
					err = add_warning(ix,
							  "K:", ix->tv[k].val,
							  ix->tv[k].vlen);
					if (err)
						goto out;
				}
			}
			free(ere);
		}
	}
	ix->kw = kws.v;
	ix->nkw = kws.n;
	kws.v = NULL;
	/* Perl sorts the K: indexes as strings (sort_and_uniq). */
	for (k = 1; k < ix->nkw; k++) {
		struct kw tmp = ix->kw[k];
		size_t j = k;

		while (j > 0 && strcmp(ix->kw[j - 1].key, tmp.key) > 0) {
			ix->kw[j] = ix->kw[j - 1];
			j--;
		}
		ix->kw[j] = tmp;
	}
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

static int index_new(struct index **out, const char *text, size_t len,
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
		err = parse_mailmap(ix, mailmap, mlen);
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
	for (i = 0; i < ix->npat; i++) {
		for (k = 0; ix->pat[i].rx && k < 2; k++) {
			rb_perl_re_release(&ix->pat[i].rx->re[k]);
			free(ix->pat[i].rx->perl[k]);
		}
		free(ix->pat[i].rx);
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
	free(ix->tv);
	free(ix->tv_sect);
	free(ix->sect);
	free(ix->pat);
	free(ix->cat);
	free(ix->kw);
	free(ix->mm_names);
	free(ix->mm_addrs);
	free(ix->ptrs);
	rb_buf_release(&ix->warnings);
	pthread_mutex_destroy(&ix->lock);
	arena_release(&ix->ar);
	free(ix);
}

static int maint_wrap(struct rb_maint **out, struct index *ix,
		      struct tree_src *src)
{
	struct rb_maint *m = calloc(1, sizeof(*m));

	if (m)
		m->dirmemo = calloc(ix->npat + 1, 1);
	if (!m || !m->dirmemo) {
		free(m);
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	m->ix = ix;
	m->src = *src;
	memset(src, 0, sizeof(*src));
	/* The file get_maintainer reads from the tree's top (which_conf()
	 * also looks in $HOME: never here).
	 */
	{
		struct rb_buf b = RB_BUF_INIT(1 << 20);
		size_t i = 0;

		if (!src_read(&m->src, ".get_maintainer.ignore", &b)) {
			while (i < b.len) {
				const char *l = b.ptr + i;
				const char *nl = memchr(l, '\n', b.len - i);
				size_t ll = nl ? (size_t)(nl - l) : b.len - i;
				const char *h = memchr(l, '#', ll);

				i += ll + 1;
				if (h)
					ll = (size_t)(h - l);
				trim(&l, &ll);
				if (ll &&
				    strv_push(&m->ignore, xstrndup(l, ll)))
					break;
			}
		}
		rb_buf_release(&b);
	}
	*out = m;
	return 0;
}

int rb_maint__wrap(struct rb_maint **out, struct index *ix,
		   const char *tree_dir)
{
	struct tree_src src = { 0 };
	int err;

	if (tree_dir) {
		src.dir = xstrdup(tree_dir);
		if (!src.dir)
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	err = maint_wrap(out, ix, &src);
	if (err)
		src_release(&src);
	return err;
}

const struct index *rb_maint__index(const struct rb_maint *m)
{
	return m->ix;
}

int rb_maint_load_mem(struct rb_maint **out, const char *text, size_t len,
		      const char *mailmap, size_t mailmap_len)
{
	struct index *ix = NULL;
	struct tree_src src = { 0 };
	int err;

	err = index_new(&ix, text, len, mailmap, mailmap_len);
	if (err)
		return err;
	err = maint_wrap(out, ix, &src);
	if (err)
		rb_maint__index_unref(ix);
	return err;
}

int rb_maint_load_file(struct rb_maint **out, const char *maintainers_path,
		       const char *mailmap_path, const char *tree_dir)
{
	struct rb_buf t = RB_BUF_INIT(MAINT_MAX), mm = RB_BUF_INIT(MAINT_MAX);
	struct index *ix = NULL;
	struct tree_src src = { 0 };
	int err;

	err = rb_read_file(&t, maintainers_path);
	if (!err && mailmap_path)
		err = rb_read_file(&mm, mailmap_path);
	if (!err)
		err = index_new(&ix, t.ptr, t.len, mailmap_path ? mm.ptr : NULL,
				mm.len);
	if (!err && tree_dir) {
		src.dir = xstrdup(tree_dir);
		if (!src.dir)
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	if (!err)
		err = maint_wrap(out, ix, &src);
	if (err) {
		rb_maint__index_unref(ix);
		src_release(&src);
	}
	rb_buf_release(&t);
	rb_buf_release(&mm);
	return err;
}

/* Opens @repo_path at @rev into @src; the ids of MAINTAINERS and
 * .mailmap (zero when absent) into @mid/@mmid.
 */
static int open_git(struct tree_src *src, const char *repo_path,
		    const char *rev, git_oid *mid, git_oid *mmid)
{
	git_object *obj = NULL;
	git_tree_entry *e = NULL;
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&src->repo, repo_path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		err = rb_err(RB_ENOTFOUND, "%s: not a git repository: %s",
			     repo_path, git_error_last()->message);
		goto out;
	}
	if (git_revparse_single(&obj, src->repo, rev ? rev : "HEAD") ||
	    git_object_peel((git_object **)&src->tree, obj, GIT_OBJECT_TREE)) {
		err = rb_err(RB_ENOTFOUND, "%s: no revision %s: %s", repo_path,
			     rev ? rev : "HEAD", git_error_last()->message);
		goto out;
	}
	if (git_tree_entry_bypath(&e, src->tree, "MAINTAINERS") ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		err = rb_err(RB_ENOTFOUND, "%s: no MAINTAINERS at %s",
			     repo_path, rev ? rev : "HEAD");
		goto out;
	}
	git_oid_cpy(mid, git_tree_entry_id(e));
	git_tree_entry_free(e);
	e = NULL;
	memset(mmid, 0, sizeof(*mmid));
	if (!git_tree_entry_bypath(&e, src->tree, ".mailmap") &&
	    git_tree_entry_type(e) == GIT_OBJECT_BLOB)
		git_oid_cpy(mmid, git_tree_entry_id(e));
out:
	git_tree_entry_free(e);
	git_object_free(obj);
	if (err)
		src_release(src);
	return err;
}

static int read_blob(struct rb_buf *out, git_repository *repo,
		     const git_oid *id)
{
	git_blob *b = NULL;
	int err;

	if (git_blob_lookup(&b, repo, id))
		return rb_err(RB_EIO, "blob %s: %s", git_oid_tostr_s(id),
			      git_error_last()->message);
	err = rb_buf_add(out, git_blob_rawcontent(b),
			 (size_t)git_blob_rawsize(b));
	git_blob_free(b);
	return err;
}

static int index_from_git(struct index **out, struct tree_src *src,
			  const git_oid *mid, const git_oid *mmid)
{
	struct rb_buf t = RB_BUF_INIT(MAINT_MAX), mm = RB_BUF_INIT(MAINT_MAX);
	bool has_mm = !git_oid_is_zero(mmid);
	int err;

	err = read_blob(&t, src->repo, mid);
	if (!err && has_mm)
		err = read_blob(&mm, src->repo, mmid);
	if (!err)
		err = index_new(out, t.ptr, t.len, has_mm ? mm.ptr : NULL,
				mm.len);
	if (!err) {
		git_oid_cpy(&(*out)->maint_id, mid);
		git_oid_cpy(&(*out)->mailmap_id, mmid);
	}
	rb_buf_release(&t);
	rb_buf_release(&mm);
	return err;
}

int rb_maint_load_git(struct rb_maint **out, const char *repo_path,
		      const char *rev)
{
	return rb_maint_load_git_cached(out, repo_path, rev, NULL);
}

int rb_maint_load_git_cached(struct rb_maint **out, const char *repo_path,
			     const char *rev, const char *cache_dir)
{
	struct tree_src src = { 0 };
	struct index *ix = NULL;
	git_oid mid, mmid;
	int err;

	err = open_git(&src, repo_path, rev, &mid, &mmid);
	if (err)
		return err;
	if (!cache_dir || rb_maint__cache_load(&ix, cache_dir, &mid, &mmid)) {
		err = index_from_git(&ix, &src, &mid, &mmid);
		/* A cache that can't be written costs the next run a
		 * parse, nothing else.
		 */
		if (!err && cache_dir)
			(void)rb_maint__cache_save(ix, cache_dir);
	}
	if (!err)
		err = maint_wrap(out, ix, &src);
	if (err) {
		rb_maint__index_unref(ix);
		src_release(&src);
	}
	return err;
}

void rb_maint_free(struct rb_maint *m)
{
	if (!m)
		return;
	rb_maint__index_unref(m->ix);
	src_release(&m->src);
	free(m->dirmemo);
	strv_release(&m->ignore);
	free(m);
}

size_t rb_maint_nsections(const struct rb_maint *m)
{
	return m->ix->nsect;
}

const struct rb_maint_section *rb_maint_section_at(const struct rb_maint *m,
						   size_t i)
{
	return i < m->ix->nsect ? &m->ix->sect[i].pub : NULL;
}

const struct rb_maint_section *rb_maint_find_section(const struct rb_maint *m,
						     const char *name)
{
	size_t i;

	for (i = 0; i < m->ix->nsect; i++)
		if (!strcmp(m->ix->sect[i].pub.name, name))
			return &m->ix->sect[i].pub;
	return NULL;
}

const char *rb_maint_warnings(const struct rb_maint *m)
{
	return m->ix->warnings.ptr;
}

/* ---- the cache ----------------------------------------------------- */

int rb_maint_cache_new(struct rb_maint_cache **out)
{
	struct rb_maint_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return 0;
}

int rb_maint_cache_get(struct rb_maint **out, struct rb_maint_cache *c,
		       const char *repo_path, const char *rev)
{
	struct tree_src src = { 0 };
	struct index *ix = NULL;
	git_oid mid, mmid;
	int err;

	err = open_git(&src, repo_path, rev, &mid, &mmid);
	if (err)
		return err;
	pthread_mutex_lock(&c->lock);
	if (c->ix && git_oid_equal(&c->ix->maint_id, &mid) &&
	    git_oid_equal(&c->ix->mailmap_id, &mmid)) {
		ix = c->ix;
		__atomic_add_fetch(&ix->refs, 1, __ATOMIC_ACQ_REL);
	} else {
		err = index_from_git(&ix, &src, &mid, &mmid);
		if (!err) {
			rb_maint__index_unref(c->ix);
			c->ix = ix;
			c->loads++;
			__atomic_add_fetch(&ix->refs, 1, __ATOMIC_ACQ_REL);
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (!err)
		err = maint_wrap(out, ix, &src);
	if (err) {
		rb_maint__index_unref(ix);
		src_release(&src);
	}
	return err;
}

unsigned int rb_maint_cache_loads(const struct rb_maint_cache *c)
{
	return c->loads;
}

void rb_maint_cache_free(struct rb_maint_cache *c)
{
	if (!c)
		return;
	rb_maint__index_unref(c->ix);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* ---- queries ------------------------------------------------------- */

struct rb_maint_query {
	const struct rb_maint *m;
	struct strv files;
	struct strv fixes; /* @fixes: commit ids of "Fixes:" lines */
	bool *kwhit;
};

int rb_maint_query_new(struct rb_maint_query **out, const struct rb_maint *m)
{
	struct rb_maint_query *q = calloc(1, sizeof(*q));

	if (q)
		q->kwhit = calloc(m->ix->nkw + 1, sizeof(*q->kwhit));
	if (!q || !q->kwhit) {
		free(q);
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	q->m = m;
	*out = q;
	return 0;
}

void rb_maint_query_free(struct rb_maint_query *q)
{
	if (!q)
		return;
	strv_release(&q->files);
	strv_release(&q->fixes);
	free(q->kwhit);
	free(q);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sort_and_uniq(@files) */
static void sort_uniq(struct strv *sv)
{
	size_t i, o = 0;

	if (!sv->n)
		return;
	qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
	for (i = 0; i < sv->n; i++) {
		if (o && !strcmp(sv->v[o - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[o++] = sv->v[i];
	}
	sv->n = o;
}

/* "(\S+)\s*$" at @i of the line: the run's end, or 0. */
static size_t run_then_ws(const char *l, size_t len, size_t i)
{
	size_t e = i, k;

	while (e < len && !is_ws((unsigned char)l[e]))
		e++;
	if (e == i)
		return 0;
	for (k = e; k < len; k++)
		if (!is_ws((unsigned char)l[k]))
			return 0;
	return e;
}

static bool starts(const char *l, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(l, p, n);
}

static int push_file(struct strv *files, const char *s, size_t len)
{
	return strv_push(files, xstrndup(s, len));
}

/*
 * A name as get_maintainer.pl's regexes take it, unless git C-quoted it
 * ("b/scripts/checkpatch\056pl"): the perl script would look up the
 * quoted text; the unquoted name comes from the diff parser instead
 * (add_diff_paths()), as apply writes it.
 */
static int push_name(struct strv *files, const char *tok, const char *s,
		     size_t len)
{
	return *tok == '"' ? 0 : push_file(files, s, len);
}

/*
 * The paths apply writes (review/diff.c): both sides of renames and
 * copies, C-quoted names unquoted. A patch the parser refuses adds
 * nothing here: it does not apply either.
 */
static int add_diff_paths(struct strv *files, const char *text, size_t len)
{
	struct rb_diff *d = NULL;
	size_t i;
	int err = 0;

	if (rb_diff_parse(&d, text, len)) {
		rb_err_clear();
		return 0;
	}
	for (i = 0; i < d->n_files && !err; i++) {
		const struct rb_diff_file *f = &d->files[i];

		/* Duplicates go with the sort_uniq() that follows. */
		if (f->old_path)
			err = push_file(files, f->old_path,
					strlen(f->old_path));
		if (!err && f->new_path)
			err = push_file(files, f->new_path,
					strlen(f->new_path));
	}
	rb_diff_free(d);
	return err;
}

/*
 * Classifies one patch line the way the read loop's if/elsif chain does:
 * pushes file names and returns true when the line is one of the chain's
 * earlier cases (then K: keywords are not matched on it). *prefix is set
 * once a ---/+++ line was seen.
 */
static int patch_line(struct strv *files, struct strv *fixes, const char *l,
		      size_t len, bool *prefix, bool *special)
{
	size_t e, i;

	*special = true;
	/* m/^ mode change [0-7]+ => [0-7]+ (\S+)\s*$/ */
	if (starts(l, len, " mode change ")) {
		i = 13;
		e = i;
		while (e < len && l[e] >= '0' && l[e] <= '7')
			e++;
		if (e > i && starts(l + e, len - e, " => ")) {
			i = e + 4;
			e = i;
			while (e < len && l[e] >= '0' && l[e] <= '7')
				e++;
			if (e > i && e < len && l[e] == ' ') {
				size_t r = run_then_ws(l, len, e + 1);

				if (r)
					return push_name(files, l + e + 1,
							 l + e + 1, r - e - 1);
			}
		}
	}
	/* m/^rename (?:from|to) (\S+)\s*$/ */
	if (starts(l, len, "rename from ") || starts(l, len, "rename to ")) {
		i = l[7] == 'f' ? 12 : 10;
		e = run_then_ws(l, len, i);
		if (e)
			return push_name(files, l + i, l + i, e - i);
	}
	/* m/^diff --git a\/(\S+) b\/(\S+)\s*$/ */
	if (starts(l, len, "diff --git a/")) {
		i = 13;
		e = i;
		while (e < len && !is_ws((unsigned char)l[e]))
			e++;
		if (e > i && starts(l + e, len - e, " b/")) {
			size_t r = run_then_ws(l, len, e + 3);

			if (r) {
				int err = push_file(files, l + i, e - i);

				return err ? err :
					     push_file(files, l + e + 3,
						       r - e - 3);
			}
		}
	}
	/* m/^Fixes:\s+([0-9a-fA-F]{6,40})/: @fixes, uniq() */
	if (starts(l, len, "Fixes:")) {
		i = 6;
		e = i;
		while (e < len && is_ws((unsigned char)l[e]))
			e++;
		if (e > i) {
			size_t h = e;

			while (h < len && h - e < 40 &&
			       isxdigit((unsigned char)l[h]))
				h++;
			if (h - e >= 6) {
				char *id = xstrndup(l + e, h - e);

				if (id && strv_has(fixes, id)) {
					free(id);
					return 0;
				}
				return strv_push(fixes, id);
			}
		}
	}
	/* m/^\+\+\+\s+(\S+)/ or m/^---\s+(\S+)/ */
	if (starts(l, len, "+++") || starts(l, len, "---")) {
		i = 3;
		e = i;
		while (e < len && is_ws((unsigned char)l[e]))
			e++;
		if (e > i) {
			size_t r = e, s;

			while (r < len && !is_ws((unsigned char)l[r]))
				r++;
			if (r > e) {
				const char *tok = l + e;

				/* s@^[^/]*\/@@ */
				s = e;
				while (s < r && l[s] != '/')
					s++;
				if (s < r)
					e = s + 1;
				*prefix = true;
				return push_name(files, tok, l + e, r - e);
			}
		}
	}
	/* m/^\@\@ -(\d+),(\d+)/ */
	if (starts(l, len, "@@ -")) {
		e = 4;
		while (e < len && isdigit((unsigned char)l[e]))
			e++;
		if (e > 4 && e < len && l[e] == ',' && e + 1 < len &&
		    isdigit((unsigned char)l[e + 1]))
			return 0;
	}
	*special = false;
	return 0;
}

/* One K: keyword against the lines of a patch: any line matches? */
static bool kw_patch(struct index *ix, struct kw *k, const char *text,
		     const char *lower, size_t len, const size_t *lstart,
		     const unsigned char *lflag, size_t nlines)
{
	size_t li;

	/* The literal prefilter on the whole text first. */
	if (!rb_perl_re_maybe(&k->re[0], lower, len) &&
	    !rb_perl_re_maybe(&k->re[1], lower, len))
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
		if (kw_re(ix, k, which) &&
		    rb_perl_re_match(&k->re[which], text + b, e - b))
			return true;
	}
	return false;
}

int rb_maint_query_add_patch(struct rb_maint_query *q, const char *text,
			     size_t len)
{
	struct index *ix = q->m->ix;
	size_t *lstart = NULL, nlines = 0, i, k;
	unsigned char *lflag = NULL;
	char *lower = NULL;
	bool prefix = false;
	int err = 0;

	for (i = 0; i < len; i++)
		nlines += text[i] == '\n';
	nlines += len && text[len - 1] != '\n';
	lstart = malloc((nlines + 1) * sizeof(*lstart));
	lflag = malloc(nlines + 1);
	lower = malloc(len + 1);
	if (!lstart || !lflag || !lower) {
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
		goto out;
	}
	for (i = 0; i < len; i++)
		lower[i] = lc_ascii(text[i]);
	lower[len] = '\0';
	/* The read loop: lines with their "\n", as <$patch> gives them. */
	for (i = 0, k = 0; k < nlines; k++) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) + 1 : len;
		bool special;

		lstart[k] = i;
		lflag[k] = prefix ? 2 : 0;
		err = patch_line(&q->files, &q->fixes, text + i, e - i, &prefix,
				 &special);
		if (err)
			goto out;
		if (special)
			lflag[k] |= 1;
		i = e;
	}
	lstart[nlines] = len;
	err = add_diff_paths(&q->files, text, len);
	if (err)
		goto out;
	for (k = 0; k < ix->nkw; k++)
		if (!q->kwhit[k])
			q->kwhit[k] = kw_patch(ix, &ix->kw[k], text, lower, len,
					       lstart, lflag, nlines);
	sort_uniq(&q->files);
out:
	free(lstart);
	free(lflag);
	free(lower);
	return err;
}

/* File::Spec canonpath() for a relative path. */
static char *canonpath(const char *p)
{
	struct rb_buf b = RB_BUF_INIT(PATH_MAX * 4);
	const char *s = p;
	int err = 0;

	if (*s == '/')
		err = rb_buf_putc(&b, '/');
	while (*s && !err) {
		const char *e;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		if (!e)
			e = s + strlen(s);
		if (!(e - s == 1 && s[0] == '.')) {
			if (b.len && b.ptr[b.len - 1] != '/')
				err = rb_buf_putc(&b, '/');
			if (!err)
				err = rb_buf_add(&b, s, (size_t)(e - s));
		}
		s = e;
	}
	if (!err && !b.len)
		err = rb_buf_putc(&b, '.');
	if (err) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

int rb_maint_query_add_path(struct rb_maint_query *q, const char *path)
{
	struct index *ix = q->m->ix;
	struct rb_buf text = RB_BUF_INIT(MAINT_MAX);
	char *c = canonpath(path);
	int kind, err = 0;
	size_t k;

	if (!c)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	kind = src_node(&q->m->src, c);
	if (kind == NODE_NONE) {
		err = rb_err(RB_ENOTFOUND, "file '%s' not found", c);
		free(c);
		return err;
	}
	if (kind == NODE_DIR && c[strlen(c) - 1] != '/') {
		struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

		err = rb_buf_printf(&b, "%s/", c);
		free(c);
		c = err ? NULL : rb_buf_detach(&b, NULL);
		rb_buf_release(&b);
		if (!c)
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	/* Keywords on the whole file, m/$kw/x, unless MAINTAINERS. */
	if (kind == NODE_FILE && strcmp(c, "MAINTAINERS")) {
		err = src_read(&q->m->src, c, &text);
		if (err)
			goto out;
		for (k = 0; k < ix->nkw; k++) {
			struct kw *w = &ix->kw[k];
			char *lower;
			size_t i;

			if (q->kwhit[k] ||
			    __atomic_load_n(&w->state[0], __ATOMIC_ACQUIRE) < 0)
				continue;
			lower = malloc(text.len + 1);
			if (!lower) {
				err = rb_err(RB_ENOMEM, "out of memory");
				goto out;
			}
			for (i = 0; i < text.len; i++)
				lower[i] = lc_ascii(text.ptr[i]);
			if (rb_perl_re_maybe(&w->re[0], lower, text.len) &&
			    kw_re(ix, w, 0) &&
			    rb_perl_re_match(&w->re[0], text.ptr, text.len))
				q->kwhit[k] = true;
			free(lower);
		}
	}
	err = strv_push(&q->files, c);
	c = NULL;
out:
	free(c);
	rb_buf_release(&text);
	return err;
}

/* file_match_pattern() with the -d test done lazily. */
static bool file_match(struct rb_maint *m, size_t pi, const char *file,
		       size_t flen, size_t fslashes)
{
	struct index *ix = m->ix;
	struct pat *p = &ix->pat[pi];
	bool dir;

	if (p->glob) {
		if (p->litlen &&
		    (flen < p->litlen || (unsigned char)file[0] != p->first))
			return false;
		if (!glob_match(p->val, p->vlen, file, flen, false))
			return false;
	} else {
		if (!pat_re(ix, p, 0) ||
		    !rb_perl_re_match(&p->rx->re[0], file, flen))
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
			char *v = xstrndup(p->val, p->vlen);

			st = v && src_node(&m->src, v) == NODE_DIR ? 1 : 2;
			free(v);
			__atomic_store_n(&m->dirmemo[pi], st, __ATOMIC_RELAXED);
		}
		dir = st == 1;
	}
	if (dir) {
		if (p->glob)
			return glob_match(p->val, p->vlen, file, flen, true);
		return pat_re(ix, p, 1) &&
		       rb_perl_re_match(&p->rx->re[1], file, flen);
	}
	return fslashes == p->slashes;
}

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

static bool strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

static char *lc_dup(const char *s)
{
	char *o = xstrdup(s);
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
	err = parse_email_str(&e, line);
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
	if ((*e.name && strv_has(&c->hash_name, ln)) ||
	    strv_has(&c->hash_addr, la))
		goto out;
	{
		struct entry *en = vec_push(&c->email_to);

		if (!en) {
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
			goto out;
		}
		en->addr = format_email(e.name, e.addr);
		en->role = role;
		en->kind = RB_MAINT_PERSON;
		if (!en->addr) {
			c->email_to.n--;
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
			goto out;
		}
	}
	if (*e.name) {
		err = strv_push(&c->hash_name, ln);
		ln = NULL;
	}
	if (!err) {
		err = strv_push(&c->hash_addr, la);
		la = NULL;
	}
out:
	free(ln);
	free(la);
	email_release(&e);
	return err;
}

/*
 * make_rfc822re(), as the Perl text of the regex. The one change: an atom
 * ends in "(?:lwsp+|\Z|(?=[\["specials]))", a look-ahead POSIX does not
 * have; "lwsp*" accepts the same strings, since atoms are maximal runs and
 * nothing in the grammar may follow an atom but white space, a special, a
 * quote or the end.
 */
static int rfc822_perl(struct rb_buf *b, bool list)
{
	static const char lwsp[] = "(?:(?:\\r\\n)?[ \\t])";
	static const char specials[] = "()<>@,;:\\\\\".\\[\\]";
	struct rb_buf atom = RB_BUF_INIT(1 << 16), qs = RB_BUF_INIT(1 << 16),
		      dl = RB_BUF_INIT(1 << 16), word = RB_BUF_INIT(1 << 16),
		      dom = RB_BUF_INIT(1 << 18), addr = RB_BUF_INIT(1 << 18),
		      mbox = RB_BUF_INIT(1 << 20), re = RB_BUF_INIT(1 << 21);
	int err;

	err = rb_buf_printf(&atom, "[^%s \\000-\\037\\x7f]+%s*", specials,
			    lwsp);
	err = err   ?:
		      rb_buf_printf(&qs, "\"(?:[^\\\"\\r\\\\]|\\\\.|%s)*\"%s*",
				    lwsp, lwsp);
	err = err   ?:
		      rb_buf_printf(&dl, "\\[(?:[^\\[\\]\\r\\\\]|\\\\.)*\\]%s*",
				    lwsp);
	err = err ?: rb_buf_printf(&word, "(?:%s|%s)", atom.ptr, qs.ptr);
	/* domain = sub_domain(?:\.lwsp*sub_domain)* */
	err = err   ?:
		      rb_buf_printf(&dom, "(?:%s|%s)(?:\\.%s*(?:%s|%s))*",
				    atom.ptr, dl.ptr, lwsp, atom.ptr, dl.ptr);
	/* addr_spec = localpart\@lwsp*domain */
	err = err   ?:
		      rb_buf_printf(&addr, "%s(?:\\.%s*%s)*\\@%s*%s", word.ptr,
				    lwsp, word.ptr, lwsp, dom.ptr);
	/* mailbox = (?:addr_spec|phrase route_addr) */
	err = err   ?:
		      rb_buf_printf(
			      &mbox,
			      "(?:%s|%s*\\<%s*(?:\\@%s(?:,\\@%s*%s)*:%s*)?"
			      "%s\\>%s*)",
			      addr.ptr, word.ptr, lwsp, dom.ptr, lwsp, dom.ptr,
			      lwsp, addr.ptr, lwsp);
	/* address = (?:mailbox|group); re = lwsp*address */
	err = err   ?:
		      rb_buf_printf(&re,
				    "%s*(?:%s|%s*:%s*(?:%s(?:,\\s*%s)*)?;\\s*)",
				    lwsp, mbox.ptr, word.ptr, lwsp, mbox.ptr,
				    mbox.ptr);
	if (!err && list)
		err = rb_buf_printf(b, "^(?:%s)?(?:,(?:%s)?)*$", re.ptr,
				    re.ptr);
	else if (!err)
		err = rb_buf_printf(b, "^%s$", re.ptr);
	rb_buf_release(&atom);
	rb_buf_release(&qs);
	rb_buf_release(&dl);
	rb_buf_release(&word);
	rb_buf_release(&dom);
	rb_buf_release(&addr);
	rb_buf_release(&mbox);
	rb_buf_release(&re);
	return err;
}

static bool rfc822_match(struct index *ix, int list, const char *s)
{
	if (!__atomic_load_n(&ix->rfc_state[list], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&ix->lock);
		if (!ix->rfc_perl[list]) {
			struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

			if (rfc822_perl(&b, list))
				ix->rfc_state[list] = -1;
			else
				ix->rfc_perl[list] = rb_buf_detach(&b, NULL);
			rb_buf_release(&b);
		}
		pthread_mutex_unlock(&ix->lock);
		if (!ix->rfc_perl[list])
			return false;
	}
	return lazy_re(ix, &ix->rfc[list], &ix->rfc_state[list],
		       ix->rfc_perl[list], false) &&
	       rb_perl_re_match(&ix->rfc[list], s, strlen(s));
}

/*
 * rfc822_strip_comments(): while a "(...)" without parentheses inside is
 * found outside quotes, the last one (the regex's greedy prefix) becomes
 * one space.
 */
static char *strip_comments(const char *in)
{
	char *s = xstrdup(in);

	while (s) {
		size_t i, n = strlen(s), cand = n, close = 0;
		bool q = false;

		for (i = 0; i < n; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				i++;
				continue;
			}
			if (s[i] == '"') {
				q = !q;
				continue;
			}
			if (!q && s[i] == '(') {
				size_t j = i + 1;

				while (j < n && s[j] != '(' && s[j] != ')')
					j += s[j] == '\\' && j + 1 < n ? 2 : 1;
				if (j < n && s[j] == ')') {
					cand = i;
					close = j;
				}
			}
		}
		if (q) {
			/* An open quote: the prefix stops before it, so only
			 * comments before that quote count. Recompute.
			 */
			size_t lastq = n;

			for (i = 0, q = false; i < n; i++) {
				if (s[i] == '\\' && i + 1 < n) {
					i++;
					continue;
				}
				if (s[i] == '"') {
					q = !q;
					if (q)
						lastq = i;
				}
			}
			if (cand != n && cand > lastq)
				cand = n;
		}
		if (cand == n)
			break;
		s[cand] = ' ';
		memmove(s + cand + 1, s + close + 1, n - close);
	}
	return s;
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
	s = strip_comments(val);
	if (!s)
		return rb_err(RB_ENOMEM, "maintainers: out of memory");
	if (rfc822_match(ix, 0, s) || !rfc822_match(ix, 1, s)) {
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
			char *e = xstrndup(s + start, i - start);
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
	const struct sect *s = &ix->sect[si];
	size_t i;
	int err = 0;

	if (!c->sect_seen[si]) {
		const struct rb_maint_section **p = vec_push(&c->sections);

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
			if (strv_has(&c->hash_list, la)) {
				free(la);
				continue;
			}
			err = strv_push(&c->hash_list, la);
			en = err ? NULL : vec_push(&c->list_to);
			if (!err && !en)
				err = rb_err(RB_ENOMEM, "out of memory");
			if (err)
				return err;
			en->addr = xstrdup(k->val);
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

	if (parse_email_str(&e, in))
		return NULL;
	f = format_email(e.name, e.addr);
	mm = f ? mailmap_email(ix, f) : NULL;
	email_release(&e);
	if (!mm || parse_email_str(&e, mm))
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
		f = format_email(hit->name, hit->addr);
	} else {
		struct email *a = vec_push(&d->vals), *b;

		b = a ? vec_push(&d->vals) : NULL;
		if (!a || !b)
			goto out;
		a->name = xstrdup(e.name);
		a->addr = xstrdup(e.addr);
		b->name = xstrdup(e.name);
		b->addr = xstrdup(e.addr);
		if (strv_push(&d->names, ln) || strv_push(&d->addrs, la)) {
			ln = la = NULL;
			goto out;
		}
		ln = la = NULL;
		free(f);
		f = format_email(e.name, e.addr);
	}
	if (f)
		out = mailmap_email(ix, f);
out:
	free(f);
	free(mm);
	free(ln);
	free(la);
	email_release(&e);
	return out;
}

static void dedup_release(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->vals.n; i++)
		email_release(&((struct email *)d->vals.v)[i]);
	free(d->vals.v);
	strv_release(&d->names);
	strv_release(&d->addrs);
}

/* The character classes of the file-e-mail regexes, as bytes: "À-ÿ" in
 * a byte string is \xC3 \x80-\xC3 \xBF.
 */
static bool in_hi(unsigned char c)
{
	return (c >= 0x80 && c <= 0xC3) || c == 0xBF;
}

static bool c_lead(unsigned char c) /* [A-Za-zÀ-ÿ\"\' \,\.\+-] */
{
	return (c < 128 && isalpha(c)) || in_hi(c) || c == '"' || c == '\'' ||
	       c == ' ' || c == ',' || c == '.' || c == '+' || c == '-';
}

static bool c_local(unsigned char c) /* [A-Za-z0-9_\.\+-] */
{
	return (c < 128 && isalnum(c)) || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

static bool c_dom(unsigned char c) /* [A-Za-z0-9\.-] */
{
	return (c < 128 && isalnum(c)) || c == '.' || c == '-';
}

/*
 * Can [s, at) be read as [lead]*\s*[\,]*\s*[\(\<\{]{0,1}[local]+ ?
 * (@at is the "@"). A small NFA: the states are the pattern's parts.
 */
static bool prefix_ok(const unsigned char *s, size_t at)
{
	/* states: 0 lead*, 1 \s*, 2 ,*, 3 \s*, 4 bracket taken, 5 local+ */
	unsigned int st = 1u << 0 | 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4;
	size_t i;

	/* st bit k: "may be in part k before the next byte". The parts up
	 * to 3 may be empty, so all are reachable at the start; bit 4
	 * means "before the optional bracket".
	 */
	for (i = 0; i < at; i++) {
		unsigned char c = s[i];
		unsigned int nst = 0;

		if ((st & 1) && c_lead(c))
			nst |= 0x1f; /* stay in lead*, or move on */
		if ((st & 2) && is_ws(c))
			nst |= 0x1e;
		if ((st & 4) && c == ',')
			nst |= 0x1c;
		if ((st & 8) && is_ws(c))
			nst |= 0x18;
		if ((st & 0x10) && (c == '(' || c == '<' || c == '{'))
			nst |= 0x40; /* after the bracket: local+ next */
		if ((st & (0x10 | 0x40 | 0x20)) && c_local(c))
			nst |= 0x20;
		if (!nst)
			return false;
		st = nst;
	}
	return (st & 0x20) != 0;
}

/*
 * The addresses maintainers_in_file() takes from a .yaml file:
 * @poss_addr = $text =~ m$[A-Za-zÀ-ÿ\"\' \,\.\+-]*\s*[\,]*\s*[\(\<\{]{0,1}
 *   [A-Za-z0-9_\.\+-]+\@[A-Za-z0-9\.-]+\.[A-Za-z0-9]+[\)\>\}]{0,1}$g
 * (the leftmost start that matches; the end is the greedy one.)
 */
static int file_addresses(struct strv *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t pos = 0;
	int err = 0;

	while (pos < len && !err) {
		const unsigned char *at = memchr(s + pos, '@', len - pos);
		size_t a, st, e, d, best, k;
		bool found = false;

		if (!at)
			break;
		a = (size_t)(at - s);
		/* The domain part: [dom]+ \. [alnum]+ with the last "."
		 * that has an alnum after it.
		 */
		e = a + 1;
		while (e < len && c_dom(s[e]))
			e++;
		best = 0;
		for (d = e; d-- > a + 2;)
			if (s[d] == '.' && d + 1 < e && isalnum(s[d + 1])) {
				best = d;
				break;
			}
		if (!best) {
			pos = a + 1;
			continue;
		}
		/* The leftmost start, from pos, whose prefix reads. */
		for (st = pos; st < a; st++)
			if (prefix_ok(s + st, a - st)) {
				found = true;
				break;
			}
		if (!found) {
			pos = a + 1;
			continue;
		}
		k = best + 1;
		while (k < len && s[k] < 128 && isalnum(s[k]))
			k++;
		if (k < len && (s[k] == ')' || s[k] == '>' || s[k] == '}'))
			k++;
		err = strv_push(out, xstrndup(text + st, k - st));
		pos = k;
	}
	return err;
}

static bool c_name(unsigned char c) /* [A-Za-zÀ-ÿ\'\,\.\+-] */
{
	return (c < 128 && isalpha(c)) || in_hi(c) || c == '\'' || c == ',' ||
	       c == '.' || c == '+' || c == '-';
}

/* clean_file_emails() for one address. */
static char *clean_file_email(const char *raw)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct email e = { 0 };
	const char *at = strchr(raw, '@');
	char *name = NULL, *out = NULL;
	size_t st, le, de, len = strlen(raw);

	if (!at)
		return NULL;
	/* s/[\(\<\{]{0,1}([local]+\@[dom]+)[\)\>\}]{0,1}/\<$1\>/g */
	le = (size_t)(at - raw);
	st = le;
	while (st && c_local((unsigned char)raw[st - 1]))
		st--;
	de = le + 1;
	while (de < len && c_dom((unsigned char)raw[de]))
		de++;
	if (st < le && de > le + 1) {
		size_t from = st, to = de;

		if (from && strchr("(<{", raw[from - 1]))
			from--;
		if (to < len && strchr(")>}", raw[to]))
			to++;
		if (rb_buf_add(&b, raw, from) || rb_buf_putc(&b, '<') ||
		    rb_buf_add(&b, raw + st, de - st) || rb_buf_putc(&b, '>') ||
		    rb_buf_puts(&b, raw + to))
			goto out;
	} else if (rb_buf_puts(&b, raw)) {
		goto out;
	}
	if (parse_email(&e, b.ptr, b.len))
		goto out;
	name = e.name;
	e.name = NULL;
	if (!strcmp(name, "\"[,\\.]\""))
		name[0] = '\0';
	{
		/* @nw = split(/[^A-Za-zÀ-ÿ\'\,\.\+-]/, $name); */
		size_t nl = strlen(name), i, nw = 0, fs[3] = { 0 },
		       fe[3] = { 0 };
		size_t cs = 0;

		/* Trailing empty fields are dropped by split. */
		size_t endn = nl;

		while (endn && !c_name((unsigned char)name[endn - 1]))
			endn--;
		if (endn) {
			for (i = 0; i <= endn; i++) {
				if (i == endn ||
				    !c_name((unsigned char)name[i])) {
					fs[0] = fs[1];
					fe[0] = fe[1];
					fs[1] = fs[2];
					fe[1] = fe[2];
					fs[2] = cs;
					fe[2] = i;
					nw++;
					cs = i + 1;
				}
			}
		}
		if (nw > 2) {
			size_t l0 = fe[0] - fs[0], l1 = fe[1] - fs[1];
			bool three = (l0 == 1 &&
				      isalpha((unsigned char)name[fs[0]])) ||
				     (l0 == 2 && name[fe[0] - 1] == '.') ||
				     l1 == 1 ||
				     (l1 == 2 && name[fe[1] - 1] == '.');
			struct rb_buf nb = RB_BUF_INIT(RB_BUF_NOLIMIT);

			if (three &&
			    rb_buf_printf(&nb, "%.*s ", (int)l0, name + fs[0]))
				goto out;
			if (rb_buf_printf(&nb, "%.*s %.*s", (int)l1,
					  name + fs[1], (int)(fe[2] - fs[2]),
					  name + fs[2])) {
				rb_buf_release(&nb);
				goto out;
			}
			free(name);
			name = rb_buf_detach(&nb, NULL);
			if (!name)
				goto out;
		}
	}
	{
		size_t nl = strlen(name);

		if (nl && (name[nl - 1] == ',' || name[nl - 1] == '.'))
			name[nl - 1] = '\0';
		else if (nl >= 2 && name[nl - 1] == '"' &&
			 (name[nl - 2] == ',' || name[nl - 2] == '.')) {
			name[nl - 2] = '"';
			name[nl - 1] = '\0';
		}
		nl = strlen(name);
		if (nl && (name[0] == ',' || name[0] == '.'))
			memmove(name, name + 1, nl);
		else if (nl >= 2 && name[0] == '"' &&
			 (name[1] == ',' || name[1] == '.'))
			memmove(name + 1, name + 2, nl - 1);
	}
	out = format_email(name, e.addr);
out:
	free(name);
	email_release(&e);
	rb_buf_release(&b);
	return out;
}

/* add_role($line, $role) over @email_to. */
static int add_role(struct collect *c, const char *line, const char *role)
{
	struct email e = { 0 };
	size_t i;
	int err = parse_email_str(&e, line);

	for (i = 0; !err && i < c->email_to.n; i++) {
		struct entry *en = &((struct entry *)c->email_to.v)[i];
		struct email x = { 0 };

		err = parse_email_str(&x, en->addr);
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
		email_release(&x);
	}
	email_release(&e);
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
		return xstrdup(l + st);
	}
	return xstrdup(l);
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
	git_object *obj = NULL;
	git_commit *cm = NULL;
	const char *body, *p;
	int err = 0;

	if (!m->src.repo)
		return 0; /* vcs_exists() is false */
	if (git_revparse_single(&obj, m->src.repo, hex) ||
	    git_object_peel((git_object **)&cm, obj, GIT_OBJECT_COMMIT))
		goto out;
	body = git_commit_body(cm);
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
			line = xstrndup(l, ll);
			lc = line ? lc_dup(line) : NULL;
			if (!lc) {
				free(line);
				err = rb_err(RB_ENOMEM, "out of memory");
				break;
			}
			/* grep(!/(Linus Torvalds)/i) */
			if (!strstr(lc, "linus torvalds"))
				err = strv_push(out, sig_value(line));
			free(line);
			free(lc);
			break;
		}
	}
out:
	git_commit_free(cm);
	git_object_free(obj);
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
		    rfc822_match(m->ix, 0, line))
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
					  mailmap_email(c->m->ix, sig.v[i]);

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
	strv_release(&sig);
	return err;
}

struct hit {
	size_t sect;
	int depth;
};

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

static int match_file(struct collect *c, const char *file, struct hit *hits,
		      int *slot, char *lower)
{
	struct rb_maint *m = c->m;
	struct index *ix = m->ix;
	size_t flen = strlen(file), fsl = count_char(file, flen, '/');
	size_t si, i, nh = 0;
	int err = 0;

	for (i = 0; i < flen; i++)
		lower[i] = lc_ascii(file[i]);
	lower[flen] = '\0';
	for (si = 0; si < ix->nsect; si++) {
		const struct sect *s = &ix->sect[si];
		bool excl = false;

		for (i = 0; i < s->nx && !excl; i++)
			excl = (ix->pat[s->x0 + i].first < 0 ||
				ix->pat[s->x0 + i].first ==
					(unsigned char)file[0]) &&
			       file_match(m, s->x0 + i, file, flen, fsl);
		if (excl)
			continue;
		for (i = 0; i < s->npat; i++) {
			size_t pi = s->pat0 + i;
			struct pat *p = &ix->pat[pi];
			int depth;

			if (p->type == 'N') {
				/* $file =~ m/$value/x */
				if (__atomic_load_n(&p->rx->state[0],
						    __ATOMIC_ACQUIRE) < 0 ||
				    !rb_perl_re_maybe(&p->rx->re[0], lower,
						      flen) ||
				    !pat_re(ix, p, 0) ||
				    !rb_perl_re_match(&p->rx->re[0], file,
						      flen))
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
	for (i = 0; i < nh && !err; i++) {
		slot[hits[i].sect] = -1;
		err = add_categories(c, hits[i].sect);
	}
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
	if (src_read(&c->m->src, file, &text)) {
		rb_buf_release(&text);
		return 0; /* not a file: -f is false */
	}
	err = file_addresses(&raw, text.ptr, text.len);
	for (i = 0; i < raw.n && !err; i++) {
		char *e = clean_file_email(raw.v[i]);

		if (e)
			err = strv_push(emails, e);
	}
	strv_release(&raw);
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

int rb_maint_query_run(struct rb_maint_result **out, struct rb_maint_query *q)
{
	struct rb_maint *m = (struct rb_maint *)q->m;
	struct index *ix = m->ix;
	struct collect c = { 0 };
	struct dedup d = { 0 };
	struct strv femails = { 0 };
	struct rb_maint_result *r = NULL;
	struct hit *hits = NULL;
	int *slot = NULL;
	char *lower = NULL;
	size_t i, k, maxlen = 0;
	int err = 0;

	c.m = m;
	c.email_to.size = sizeof(struct entry);
	c.list_to.size = sizeof(struct entry);
	c.sections.size = sizeof(const struct rb_maint_section *);
	d.vals.size = sizeof(struct email);
	c.sect_seen = calloc(ix->nsect + 1, sizeof(bool));
	hits = malloc((ix->nsect + 1) * sizeof(*hits));
	slot = malloc((ix->nsect + 1) * sizeof(*slot));
	for (i = 0; i < q->files.n; i++)
		if (strlen(q->files.v[i]) > maxlen)
			maxlen = strlen(q->files.v[i]);
	lower = malloc(maxlen + 1);
	if (!c.sect_seen || !hits || !slot || !lower) {
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
		goto out;
	}
	for (i = 0; i < ix->nsect; i++)
		slot[i] = -1;
	for (i = 0; i < q->files.n && !err; i++) {
		err = match_file(&c, q->files.v[i], hits, slot, lower);
		if (!err)
			err = file_emails(&c, q->files.v[i], &femails);
	}
	for (k = 0; k < ix->nkw && !err; k++)
		if (q->kwhit[k])
			err = add_categories(&c, ix->kw[k].sect);
	if (err)
		goto out;
	/* deduplicate_email() over @email_to, @list_to */
	for (k = 0; k < 2; k++) {
		struct vec *v = k ? &c.list_to : &c.email_to;

		for (i = 0; i < v->n; i++) {
			struct entry *en = &((struct entry *)v->v)[i];
			char *nd = deduplicate_email(&c, &d, en->addr);

			if (!nd) {
				err = rb_err(RB_ENOMEM, "out of memory");
				goto out;
			}
			free(en->addr);
			en->addr = nd;
		}
	}
	/* The chief penguin is removed (--git-chief-penguins is off). */
	for (i = 0, k = 0; i < c.email_to.n; i++) {
		struct entry *en = &((struct entry *)c.email_to.v)[i];

		if (is_chief_penguin(en->addr)) {
			free(en->addr);
			free(en->role_owned);
			continue;
		}
		((struct entry *)c.email_to.v)[k++] = *en;
	}
	c.email_to.n = k;
	/* @file_emails: mailmapped, pushed, role "in file". */
	for (i = 0; i < femails.n && !err; i++) {
		char *mm = mailmap_email(ix, femails.v[i]);
		struct email e = { 0 };
		char *f = NULL;
		bool pushed;

		if (!mm || parse_email_str(&e, mm)) {
			free(mm);
			err = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		f = format_email(e.name, e.addr);
		if (f)
			err = push_email_address(&c, f, "", &pushed);
		if (!err && f)
			err = add_role(&c, f, "in file");
		if (!f)
			err = rb_err(RB_ENOMEM, "out of memory");
		free(f);
		free(mm);
		email_release(&e);
	}
	/* vcs_add_commit_signers($fix, "blamed_fixes") */
	for (i = 0; i < q->fixes.n && !err; i++)
		err = blamed_fixes(&c, &d, q->fixes.v[i]);
	if (err)
		goto out;

	r = calloc(1, sizeof(*r));
	if (!r) {
		err = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	r->to = calloc(c.email_to.n + c.list_to.n + 1, sizeof(*r->to));
	r->files = calloc(q->files.n + 1, sizeof(*r->files));
	if (!r->to || !r->files) {
		err = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	/* merge_email(): the first of equal addresses stays. */
	for (k = 0; k < 2; k++) {
		struct vec *v = k ? &c.list_to : &c.email_to;

		for (i = 0; i < v->n; i++) {
			struct entry *en = &((struct entry *)v->v)[i];
			size_t j;
			bool dup = false;

			for (j = 0; j < r->nto && !dup; j++)
				dup = !strcmp(r->to[j].addr, en->addr);
			if (dup)
				continue;
			r->to[r->nto].addr = xstrdup(en->addr);
			r->to[r->nto].role = xstrdup(en->role);
			r->to[r->nto].kind = en->kind;
			if (!r->to[r->nto].addr || !r->to[r->nto].role) {
				free(r->to[r->nto].addr);
				free(r->to[r->nto].role);
				err = rb_err(RB_ENOMEM, "out of memory");
				goto out;
			}
			r->nto++;
		}
	}
	for (i = 0; i < q->files.n; i++) {
		r->files[i] = xstrdup(q->files.v[i]);
		if (!r->files[i]) {
			err = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		r->nfiles++;
	}
	r->sections = (const struct rb_maint_section **)c.sections.v;
	r->nsections = c.sections.n;
	c.sections.v = NULL;
	*out = r;
	r = NULL;
out:
	rb_maint_result_free(r);
	entries_release(&c.email_to);
	entries_release(&c.list_to);
	strv_release(&c.hash_list);
	strv_release(&c.hash_name);
	strv_release(&c.hash_addr);
	free(c.sections.v);
	free(c.sect_seen);
	dedup_release(&d);
	strv_release(&femails);
	free(hits);
	free(slot);
	free(lower);
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

int rb_maint_lookup_patch(struct rb_maint_result **out,
			  const struct rb_maint *m, const char *text,
			  size_t len)
{
	struct rb_maint_query *q = NULL;
	int err;

	err = rb_maint_query_new(&q, m);
	if (!err)
		err = rb_maint_query_add_patch(q, text, len);
	if (!err)
		err = rb_maint_query_run(out, q);
	rb_maint_query_free(q);
	return err;
}

int rb_maint_lookup_paths(struct rb_maint_result **out,
			  const struct rb_maint *m, const char *const *paths,
			  size_t npaths)
{
	struct rb_maint_query *q = NULL;
	size_t i;
	int err;

	err = rb_maint_query_new(&q, m);
	for (i = 0; !err && i < npaths; i++)
		err = rb_maint_query_add_path(q, paths[i]);
	if (!err)
		err = rb_maint_query_run(out, q);
	rb_maint_query_free(q);
	return err;
}

int rb_maint_format(struct rb_buf *out, const struct rb_maint_result *r,
		    unsigned int flags)
{
	size_t i;
	int err = 0;

	for (i = 0; i < r->nto && !err; i++) {
		if (flags & RB_MAINT_FMT_ROLES)
			err = rb_buf_printf(out, "%s (%s)\n", r->to[i].addr,
					    r->to[i].role);
		else
			err = rb_buf_printf(out, "%s\n", r->to[i].addr);
	}
	return err;
}

int rb_maint_format_sections(struct rb_buf *out,
			     const struct rb_maint_result *r)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < r->nsections && !err; i++) {
		const struct rb_maint_section *s = r->sections[i];

		err = rb_buf_printf(out, "%s\n\tstatus: %s\n", s->name,
				    s->status);
		for (j = 0; j < s->ntrees && !err; j++)
			err = rb_buf_printf(out, "\ttree: %s\n", s->trees[j]);
		for (j = 0; j < s->nlists && !err; j++)
			err = rb_buf_printf(out, "\tlist: %s\n", s->lists[j]);
		for (j = 0; j < s->nmaintainers && !err; j++)
			err = rb_buf_printf(out, "\tmaintainer: %s\n",
					    s->maintainers[j]);
		for (j = 0; j < s->nreviewers && !err; j++)
			err = rb_buf_printf(out, "\treviewer: %s\n",
					    s->reviewers[j]);
	}
	return err;
}
