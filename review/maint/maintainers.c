// SPDX-License-Identifier: GPL-2.0-only
/*
 * maintainers.c - MAINTAINERS lookup with get_maintainer.pl's output:
 * the handle on a parsed index and its tree, loaded from memory, files
 * or a git revision (with the on-disk index, maint_cache.c), the section
 * accessors, and the daemon's in-memory cache.
 *
 * The reference is scripts/get_maintainer.pl v0.26 (linux 6.1), run as
 * "--nogit --nogit-fallback [--norolestats]". Function names in comments
 * ("read_maintainer_file", "add_categories", ...) name the Perl sub whose
 * behaviour the code beside them reproduces; where Perl regexes do the
 * work, the regex is quoted and the C code says how it was read. Strings
 * are bytes, as in get_maintainer (no "use utf8"): lc() and \w are ASCII.
 * maint_priv.h lists the files of the lookup and their jobs.
 */
#include <git2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

/* .get_maintainer.ignore, one entry a line, "#" to the end a comment. */
static void parse_ignore(struct rb_maint *m, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *l = text + i;
		const char *nl = memchr(l, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - l) : len - i;
		const char *h = memchr(l, '#', ll);

		i += ll + 1;
		if (h)
			ll = (size_t)(h - l);
		rb_maint__trim(&l, &ll);
		if (ll && rb_maint__strv_push(&m->ignore, strndup(l, ll)))
			break;
	}
}

/* The handle on @ix over @src (both taken on success), with @ignore the
 * text of .get_maintainer.ignore, or NULL to read it from the tree.
 */
int rb_maint__wrap_src(struct rb_maint **out, struct index *ix,
		       struct tree_src *src, const struct rb_buf *ignore)
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
	if (ignore) {
		parse_ignore(m, ignore->ptr, ignore->len);
	} else {
		struct rb_buf b = RB_BUF_INIT(1 << 20);

		if (!rb_maint__src_read(&m->src, ".get_maintainer.ignore", &b))
			parse_ignore(m, b.ptr, b.len);
		rb_buf_release(&b);
	}
	*out = m;
	return 0;
}

static int maint_wrap(struct rb_maint **out, struct index *ix,
		      struct tree_src *src)
{
	return rb_maint__wrap_src(out, ix, src, NULL);
}

/* The handle on @ix over @src, both taken; on @err, or when the handle
 * cannot be made, both are freed and the error returned. */
int rb_maint__wrap_or_drop(struct rb_maint **out, struct index *ix,
			   struct tree_src *src, int err)
{
	if (!err)
		err = maint_wrap(out, ix, src);
	if (err) {
		rb_maint__index_unref(ix);
		rb_maint__src_release(src);
	}
	return err;
}

int rb_maint__wrap(struct rb_maint **out, struct index *ix,
		   const char *tree_dir)
{
	struct tree_src src = { 0 };
	int err;

	if (tree_dir) {
		src.dir = strdup(tree_dir);
		if (!src.dir)
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	err = maint_wrap(out, ix, &src);
	if (err)
		rb_maint__src_release(&src);
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

	err = rb_maint__index_new(&ix, text, len, mailmap, mailmap_len);
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
		err = rb_maint__index_new(&ix, t.ptr, t.len,
					  mailmap_path ? mm.ptr : NULL, mm.len);
	if (!err && tree_dir) {
		src.dir = strdup(tree_dir);
		if (!src.dir)
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	err = rb_maint__wrap_or_drop(out, ix, &src, err);
	rb_buf_release(&t);
	rb_buf_release(&mm);
	return err;
}

int rb_maint_load_cache_only(struct rb_maint **out, const char *repo_path,
			     const char *cache_dir)
{
	struct tree_facts f = { .ignore = RB_BUF_INIT(1 << 20) };
	struct tree_src src = { 0 };
	struct index *ix = NULL;
	int err;

	err = rb_maint__head_commit(f.commit, repo_path);
	if (!err)
		err = rb_maint__facts_load(&f, cache_dir);
	if (!err)
		err = rb_maint__cache_load(&ix, cache_dir, &f.mid, &f.mmid);
	if (!err && f.npat != ix->npat)
		err = rb_err(RB_ENOTFOUND, "maintainers cache: stale");
	if (!err) {
		src.missed = calloc(1, sizeof(*src.missed));
		if (!src.missed)
			err = rb_err(RB_ENOMEM, "maintainers: out of memory");
	}
	if (!err)
		err = rb_maint__wrap_src(out, ix, &src, &f.ignore);
	if (!err)
		memcpy((*out)->dirmemo, f.memo, f.npat);
	else
		rb_maint__index_unref(ix);
	rb_maint__src_release(&src);
	free(f.memo);
	rb_buf_release(&f.ignore);
	return err;
}

bool rb_maint_incomplete(const struct rb_maint *m)
{
	return m->src.missed &&
	       __atomic_load_n(m->src.missed, __ATOMIC_RELAXED);
}

void rb_maint_free(struct rb_maint *m)
{
	if (!m)
		return;
	rb_maint__index_unref(m->ix);
	rb_maint__src_release(&m->src);
	free(m->dirmemo);
	rb_maint__strv_release(&m->ignore);
	free(m);
}

size_t rb_maint_nsections(const struct rb_maint *m)
{
	return m->ix->nsect;
}

const struct rb_maint_section *rb_maint_section_at(const struct rb_maint *m,
						   size_t i)
{
	return i < m->ix->nsect ? &rb_maint__sect(m->ix, i)->pub : NULL;
}

const struct rb_maint_section *rb_maint_find_section(const struct rb_maint *m,
						     const char *name)
{
	size_t i;

	for (i = 0; i < m->ix->nsect; i++) {
		const struct sect *s = rb_maint__sect(m->ix, i);

		if (!strcmp(s->pub.name, name))
			return &s->pub;
	}
	return NULL;
}

const char *rb_maint_warnings(const struct rb_maint *m)
{
	return m->ix->warnings.ptr;
}
