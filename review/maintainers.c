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

#include "review/maint_priv.h"
#include "review/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

struct rb_maint_cache {
	struct index *ix;
	unsigned int loads;
	pthread_mutex_t lock;
};

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

		if (!rb_maint__src_read(&m->src, ".get_maintainer.ignore",
					&b)) {
			while (i < b.len) {
				const char *l = b.ptr + i;
				const char *nl = memchr(l, '\n', b.len - i);
				size_t ll = nl ? (size_t)(nl - l) : b.len - i;
				const char *h = memchr(l, '#', ll);

				i += ll + 1;
				if (h)
					ll = (size_t)(h - l);
				rb_maint__trim(&l, &ll);
				if (ll && rb_maint__strv_push(&m->ignore,
							      strndup(l, ll)))
					break;
			}
		}
		rb_buf_release(&b);
	}
	*out = m;
	return 0;
}

/* The handle on @ix over @src, both taken; on @err, or when the handle
 * cannot be made, both are freed and the error returned. */
static int wrap_or_drop(struct rb_maint **out, struct index *ix,
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
	err = wrap_or_drop(out, ix, &src, err);
	rb_buf_release(&t);
	rb_buf_release(&mm);
	return err;
}

static int index_from_git(struct index **out, struct tree_src *src,
			  const git_oid *mid, const git_oid *mmid)
{
	struct rb_buf t = RB_BUF_INIT(MAINT_MAX), mm = RB_BUF_INIT(MAINT_MAX);
	bool has_mm = !git_oid_is_zero(mmid);
	int err;

	err = rb_maint__read_blob(&t, src->repo, mid);
	if (!err && has_mm)
		err = rb_maint__read_blob(&mm, src->repo, mmid);
	if (!err)
		err = rb_maint__index_new(out, t.ptr, t.len,
					  has_mm ? mm.ptr : NULL, mm.len);
	if (!err) {
		git_oid_cpy(&(*out)->maint_id, mid);
		git_oid_cpy(&(*out)->mailmap_id, mmid);
	}
	rb_buf_release(&t);
	rb_buf_release(&mm);
	return err;
}

/* A load from a git tree: the tree, the index, the blob ids it is of. */
struct git_load {
	struct tree_src src;
	struct index *ix;
	git_oid mid, mmid;
};

int rb_maint_load_git(struct rb_maint **out, const char *repo_path,
		      const char *rev)
{
	return rb_maint_load_git_cached(out, repo_path, rev, NULL);
}

int rb_maint_load_git_cached(struct rb_maint **out, const char *repo_path,
			     const char *rev, const char *cache_dir)
{
	struct git_load l = { 0 };
	int err;

	err = rb_maint__open_git(&l.src, repo_path, rev, &l.mid, &l.mmid);
	if (err)
		return err;
	if (!cache_dir ||
	    rb_maint__cache_load(&l.ix, cache_dir, &l.mid, &l.mmid)) {
		err = index_from_git(&l.ix, &l.src, &l.mid, &l.mmid);
		/* A cache that can't be written costs the next run a
		 * parse, nothing else.
		 */
		if (!err && cache_dir)
			(void)rb_maint__cache_save(l.ix, cache_dir);
	}
	return wrap_or_drop(out, l.ix, &l.src, err);
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
	struct git_load l = { 0 };
	int err;

	err = rb_maint__open_git(&l.src, repo_path, rev, &l.mid, &l.mmid);
	if (err)
		return err;
	pthread_mutex_lock(&c->lock);
	if (c->ix && git_oid_equal(&c->ix->maint_id, &l.mid) &&
	    git_oid_equal(&c->ix->mailmap_id, &l.mmid)) {
		l.ix = c->ix;
		__atomic_add_fetch(&l.ix->refs, 1, __ATOMIC_ACQ_REL);
	} else {
		err = index_from_git(&l.ix, &l.src, &l.mid, &l.mmid);
		if (!err) {
			rb_maint__index_unref(c->ix);
			c->ix = l.ix;
			c->loads++;
			__atomic_add_fetch(&l.ix->refs, 1, __ATOMIC_ACQ_REL);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return wrap_or_drop(out, l.ix, &l.src, err);
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
