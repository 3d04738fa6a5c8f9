// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_git.c - the MAINTAINERS lookup's use of libgit2, all of it: the
 * tree of a revision (get_maintainer's -d and -f, symbolic links followed
 * inside the tree, never out), its MAINTAINERS and .mailmap blobs, the
 * body of a Fixes: commit, the loads from a git tree (with the on-disk
 * cache, maint_cache.c) and the daemon's in-memory cache.
 *
 * Nothing else of review/maint_* calls libgit2, so that "reviewbot
 * maintainers" answered from the cache (rb_maint_load_cache_only()) is a
 * program without it: loading libgit2 and its libraries, and its set-up
 * (which parses the system's CA bundle), were two thirds of such a run.
 */
#include <git2.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define LINK_DEPTH 8

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

static int git_src_node(const struct tree_src *s, const char *path)
{
	return git_node(s, path, 0, NULL);
}

static int git_src_read(const struct tree_src *s, const char *path,
			struct rb_buf *out)
{
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

/* The body of the commit @hex names: -RB_ENOTFOUND when none. */
static int git_commit_text(const struct tree_src *s, const char *hex,
			   struct rb_buf *out)
{
	git_object *obj = NULL;
	git_commit *cm = NULL;
	const char *body;
	int err = -RB_ENOTFOUND;

	if (git_revparse_single(&obj, s->repo, hex) ||
	    git_object_peel((git_object **)&cm, obj, GIT_OBJECT_COMMIT))
		goto out;
	body = git_commit_body(cm);
	err = rb_buf_add(out, body ? body : "", body ? strlen(body) : 0);
out:
	git_commit_free(cm);
	git_object_free(obj);
	return err;
}

static void git_src_release(struct tree_src *s)
{
	git_tree_free(s->tree);
	git_repository_free(s->repo);
	s->tree = NULL;
	s->repo = NULL;
}

static const struct tree_ops git_ops = {
	.node = git_src_node,
	.read = git_src_read,
	.commit_body = git_commit_text,
	.release = git_src_release,
};

/* Opens @repo_path at @rev into @src; the ids of MAINTAINERS and
 * .mailmap (zero when absent) into @mid/@mmid.
 */
int rb_maint__open_git(struct tree_src *src, const char *repo_path,
		       const char *rev, git_oid *mid, git_oid *mmid)
{
	git_object *obj = NULL;
	git_tree_entry *e = NULL;
	int err = 0;

	src->ops = &git_ops;
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
		rb_maint__src_release(src);
	return err;
}

int rb_maint__read_blob(struct rb_buf *out, git_repository *repo,
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

struct rb_maint_cache {
	struct index *ix;
	unsigned int loads;
	pthread_mutex_t lock;
};

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

/*
 * Writes what rb_maint_load_cache_only() needs of the commit HEAD names,
 * unless a good file is there already: the -d answer of every pattern
 * (the one-shot then asks the tree nothing for most patches, so it need
 * not set up libgit2 at all) and .get_maintainer.ignore.
 */
static int save_facts(const struct git_load *l, const char *cache_dir)
{
	struct tree_facts f = { .ignore = RB_BUF_INIT(1 << 20) };
	git_object *obj = NULL;
	int err = 0;

	if (git_revparse_single(&obj, l->src.repo, "HEAD^{commit}"))
		return rb_err(RB_ENOTFOUND, "HEAD: no commit");
	memcpy(f.commit, git_object_id(obj)->id, sizeof(f.commit));
	git_object_free(obj);
	if (!rb_maint__facts_load(&f, cache_dir) &&
	    !git_oid_cmp(&f.mid, &l->mid) && !git_oid_cmp(&f.mmid, &l->mmid) &&
	    f.npat == l->ix->npat)
		goto out;
	free(f.memo);
	f.npat = l->ix->npat;
	f.memo = malloc(f.npat + 1);
	if (!f.memo) {
		err = rb_err(RB_ENOMEM, "maintainers: out of memory");
		goto out;
	}
	git_oid_cpy(&f.mid, &l->mid);
	git_oid_cpy(&f.mmid, &l->mmid);
	rb_buf_reset(&f.ignore);
	(void)rb_maint__src_read(&l->src, ".get_maintainer.ignore", &f.ignore);
	err = rb_maint__tree_dirs(f.memo, l->ix, &l->src);
	if (!err)
		err = rb_maint__facts_save(&f, cache_dir);
out:
	free(f.memo);
	rb_buf_release(&f.ignore);
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
	if (!err && cache_dir && (!rev || !strcmp(rev, "HEAD")))
		(void)save_facts(&l, cache_dir);
	return rb_maint__wrap_or_drop(out, l.ix, &l.src, err);
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
	return rb_maint__wrap_or_drop(out, l.ix, &l.src, err);
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
