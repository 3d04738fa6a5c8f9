// SPDX-License-Identifier: GPL-2.0-only
/*
 * guides.c - loading and choosing the subsystem guides. See guides.h.
 *
 * The guides live in the source tree (or a directory the operator
 * configures), never in mail: they are trusted text. Choosing them looks
 * at the patch, which is hostile, but only by substring search.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "review/model/guides.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/banned.h"

static void guide_release(struct rb_guide *g)
{
	size_t i;

	for (i = 0; i < g->n_sections; i++)
		free(g->sections[i]);
	for (i = 0; i < g->n_paths; i++)
		free(g->paths[i]);
	for (i = 0; i < g->n_symbols; i++)
		free(g->symbols[i]);
	free(g->sections);
	free(g->paths);
	free(g->symbols);
	free(g->name);
	free(g->body);
	memset(g, 0, sizeof(*g));
}

void rb_guides_release(struct rb_guides *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		guide_release(&g->v[i]);
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

/* Splits "a | b | c" (up to @end) into trimmed words appended to @v. */
static int split_bar(char ***v, size_t *n, const char *p, const char *end)
{
	while (p < end) {
		const char *q = memchr(p, '|', (size_t)(end - p));
		const char *e = q ? q : end;
		char **nv;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p &&
		       (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > p) {
			nv = realloc(*v, (*n + 1) * sizeof(**v));
			if (!nv)
				return -RB_ENOMEM;
			*v = nv;
			nv[*n] = strndup(p, (size_t)(e - p));
			if (!nv[*n])
				return -RB_ENOMEM;
			(*n)++;
		}
		p = q ? q + 1 : end;
	}
	return 0;
}

static const struct {
	const char *key;
	size_t off_v, off_n;
} header_keys[] = {
	{ "Sections:", offsetof(struct rb_guide, sections),
	  offsetof(struct rb_guide, n_sections) },
	{ "Paths:", offsetof(struct rb_guide, paths),
	  offsetof(struct rb_guide, n_paths) },
	{ "Symbols:", offsetof(struct rb_guide, symbols),
	  offsetof(struct rb_guide, n_symbols) },
};

/* The header lines of @text into @g; *body gets where the guide starts. */
static int parse_header(struct rb_guide *g, const char *text, const char **body)
{
	const char *p = text;
	size_t k;

	for (;;) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		bool known = false;

		for (k = 0; k < sizeof(header_keys) / sizeof(header_keys[0]);
		     k++) {
			size_t kl = strlen(header_keys[k].key);
			char ***v =
				(char ***)((char *)g + header_keys[k].off_v);
			size_t *n =
				(size_t *)((char *)g + header_keys[k].off_n);

			if (strncasecmp(p, header_keys[k].key, kl))
				continue;
			if (split_bar(v, n, p + kl, end))
				return -RB_ENOMEM;
			known = true;
			break;
		}
		if (!known || !nl) {
			*body = known ? end : p;
			return 0;
		}
		p = nl + 1;
	}
}

static int load_one(struct rb_guide *g, const char *dir, const char *file)
{
	struct rb_buf b = RB_BUF_INIT(RB_GUIDE_MAX);
	const char *body = NULL;
	char path[4096];
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path))
		return rb_err(RB_EINVAL, "%s/%s: path too long", dir, file);
	ret = rb_read_file(&b, path);
	if (ret == -RB_ETOOBIG)
		return rb_err(RB_EPARSE, "%s: over %d bytes", path,
			      RB_GUIDE_MAX);
	if (ret)
		return ret;
	g->name = strndup(file, strlen(file) - 3);
	if (!g->name) {
		ret = -RB_ENOMEM;
		goto out;
	}
	ret = parse_header(g, b.ptr ? b.ptr : "", &body);
	if (ret)
		goto out;
	if (!g->n_sections && !g->n_paths && !g->n_symbols) {
		ret = rb_err(RB_EPARSE,
			     "%s:1: a guide starts with Sections:, Paths: or "
			     "Symbols: to say when it applies",
			     path);
		goto out;
	}
	while (*body == '\n')
		body++;
	g->body = strdup(body);
	if (!g->body)
		ret = -RB_ENOMEM;
out:
	rb_buf_release(&b);
	return ret;
}

static int is_guide(const struct dirent *e)
{
	size_t l = strlen(e->d_name);

	return e->d_name[0] != '.' && l > 3 &&
	       !strcmp(e->d_name + l - 3, ".md");
}

int rb_guides_load(struct rb_guides *out, const char *dir)
{
	struct dirent **ents = NULL;
	int n, i, ret = 0;

	memset(out, 0, sizeof(*out));
	if (!dir)
		return 0;
	n = scandir(dir, &ents, is_guide, alphasort);
	if (n < 0)
		return 0;
	out->v = calloc((size_t)n + 1, sizeof(*out->v));
	if (!out->v)
		ret = -RB_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!ret) {
			ret = load_one(&out->v[out->n], dir, ents[i]->d_name);
			if (!ret)
				out->n++;
			else
				guide_release(&out->v[out->n]);
		}
		free(ents[i]);
	}
	free(ents);
	if (ret)
		rb_guides_release(out);
	return ret;
}

/*
 * The lines a patch only moves: a removed line whose text, without the
 * white space around it, is also added (or the other way round) is
 * code motion or re-indentation, not a change of what the code does
 * with the symbols in it. Hashes of the removed and the added lines,
 * sorted, so that each line is looked up on the other side.
 */
struct moved {
	uint64_t *minus, *plus;
	size_t n_minus, n_plus;
	bool ready; /* filled: only once a symbol is found at all */
};

static uint64_t line_hash(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	while (len && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	while (len &&
	       (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
		len--;
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A +/- line of the diff, not a "+++ "/"--- " header? */
static bool diff_line(const char *p, size_t ll)
{
	return ll > 0 && (*p == '+' || *p == '-') &&
	       !(ll >= 4 && (!strncmp(p, "+++ ", 4) || !strncmp(p, "--- ", 4)));
}

/* Fills @m from @patch; out of memory, no line counts as moved. */
static void moved_init(struct moved *m, const char *patch, size_t len)
{
	const char *p = patch, *end = patch + len;
	size_t n = 0;

	memset(m, 0, sizeof(*m));
	m->ready = true;
	for (; p < end; p++)
		n += *p == '\n';
	m->minus = malloc((n + 1) * sizeof(*m->minus));
	m->plus = malloc((n + 1) * sizeof(*m->plus));
	if (!m->minus || !m->plus) {
		free(m->minus);
		free(m->plus);
		m->minus = m->plus = NULL;
		return;
	}
	for (p = patch; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t ll = (size_t)(e - p);

		if (diff_line(p, ll)) {
			uint64_t h = line_hash(p + 1, ll - 1);

			if (*p == '-')
				m->minus[m->n_minus++] = h;
			else
				m->plus[m->n_plus++] = h;
		}
		p = e + 1;
	}
	qsort(m->minus, m->n_minus, sizeof(*m->minus), cmp_u64);
	qsort(m->plus, m->n_plus, sizeof(*m->plus), cmp_u64);
}

static bool moved_line(const struct moved *m, const char *p, size_t ll)
{
	uint64_t h = line_hash(p + 1, ll - 1);

	if (*p == '-')
		return m->plus &&
		       bsearch(&h, m->plus, m->n_plus, sizeof(h), cmp_u64);
	return m->minus &&
	       bsearch(&h, m->minus, m->n_minus, sizeof(h), cmp_u64);
}

/* Does a line @patch adds or removes, and does not only move, contain
 * @sym? */
static bool in_changed_lines(const char *patch, size_t len, const char *sym,
			     struct moved *m)
{
	const char *p = patch, *end = patch + len;
	size_t sl = strlen(sym);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t ll = (size_t)(e - p);

		if (ll > sl && diff_line(p, ll) &&
		    memmem(p + 1, ll - 1, sym, sl)) {
			if (!m->ready)
				moved_init(m, patch, len);
			if (!moved_line(m, p, ll))
				return true;
		}
		p = e + 1;
	}
	return false;
}

bool rb_guide_applies(const struct rb_guide *g, const struct rb_guides_query *q,
		      const char **why)
{
	struct moved m = { 0 };
	bool hit = false;
	size_t i, k;

	for (i = 0; i < g->n_sections; i++)
		for (k = 0; k < q->n_sections; k++)
			if (!strncasecmp(q->sections[k], g->sections[i],
					 strlen(g->sections[i]))) {
				if (why)
					*why = g->sections[i];
				return true;
			}
	for (i = 0; i < g->n_paths; i++)
		for (k = 0; k < q->n_paths; k++)
			if (q->paths[k] && !strncmp(q->paths[k], g->paths[i],
						    strlen(g->paths[i]))) {
				if (why)
					*why = g->paths[i];
				return true;
			}
	if (!q->patch || !g->n_symbols)
		return false;
	for (i = 0; !hit && i < g->n_symbols; i++)
		if (in_changed_lines(q->patch, q->patch_len, g->symbols[i],
				     &m)) {
			if (why)
				*why = g->symbols[i];
			hit = true;
		}
	free(m.minus);
	free(m.plus);
	return hit;
}

void rb_guides_hash(const struct rb_guides *g, struct rb_sha256 *h)
{
	size_t i, k;

	for (i = 0; i < g->n; i++) {
		const struct rb_guide *x = &g->v[i];

		rb_sha256_update(h, x->name, strlen(x->name) + 1);
		for (k = 0; k < x->n_sections; k++)
			rb_sha256_update(h, x->sections[k],
					 strlen(x->sections[k]) + 1);
		rb_sha256_update(h, "\1", 1);
		for (k = 0; k < x->n_paths; k++)
			rb_sha256_update(h, x->paths[k],
					 strlen(x->paths[k]) + 1);
		rb_sha256_update(h, "\1", 1);
		for (k = 0; k < x->n_symbols; k++)
			rb_sha256_update(h, x->symbols[k],
					 strlen(x->symbols[k]) + 1);
		rb_sha256_update(h, "\1", 1);
		rb_sha256_update(h, x->body, strlen(x->body) + 1);
	}
}
