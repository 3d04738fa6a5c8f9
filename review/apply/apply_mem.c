// SPDX-License-Identifier: GPL-2.0-only
/*
 * apply_mem.c - the private object store of an apply (apply_priv.h), and
 * the repositories opened over it (rb_apply_repo_open()).
 *
 * Every object an apply writes goes to a store in memory, shared by the
 * repositories opened over it (one per thread: libgit2 objects are not
 * shared across threads) and freed with the last of them. The tree's own
 * object directories are added as read-only alternates with their write
 * and freshen callbacks removed, so nothing on disk is written or even
 * touched (freshen would update the mtime of a pack or loose object).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "review/apply/apply.h"
#include "review/apply/apply_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

int rb_apply__git_fail(const char *what)
{
	const git_error *e = git_error_last();

	return rb_err(RB_EIO, "libgit2: %s: %s", what,
		      e && e->message ? e->message : "unknown error");
}

struct memobj {
	struct memobj *next; /* hash chain */
	git_oid oid;
	git_object_t type;
	size_t len;
	unsigned char data[];
};

struct rb_apply_mem {
	pthread_mutex_t lock;
	unsigned int refs;
	struct memobj **bucket;
	size_t n_bucket, n;
	char *gitdir; /* the tree's git directory, opened read-only */
	char *objects; /* its object directory */
};

struct mem_backend {
	git_odb_backend parent;
	struct rb_apply_mem *mem;
};

static size_t mem_hash(const struct rb_apply_mem *m, const git_oid *oid)
{
	uint32_t h;

	memcpy(&h, oid->id, sizeof(h));
	return h & (m->n_bucket - 1);
}

static struct memobj *mem_find(const struct rb_apply_mem *m, const git_oid *oid)
{
	struct memobj *o;

	for (o = m->bucket[mem_hash(m, oid)]; o; o = o->next)
		if (git_oid_equal(&o->oid, oid))
			return o;
	return NULL;
}

/* The one object whose id starts with @len hex digits of @prefix. */
static int mem_find_prefix(struct memobj **out, const struct rb_apply_mem *m,
			   const git_oid *prefix, size_t len)
{
	struct memobj *o, *hit = NULL;
	size_t i;

	for (i = 0; i < m->n_bucket; i++)
		for (o = m->bucket[i]; o; o = o->next) {
			if (git_oid_ncmp(&o->oid, prefix, len))
				continue;
			if (hit)
				return GIT_EAMBIGUOUS;
			hit = o;
		}
	if (!hit)
		return GIT_ENOTFOUND;
	*out = hit;
	return 0;
}

void rb_apply__mem_unref(struct rb_apply_mem *m)
{
	struct memobj *o, *next;
	unsigned int left;
	size_t i;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	left = --m->refs;
	pthread_mutex_unlock(&m->lock);
	if (left)
		return;
	for (i = 0; i < m->n_bucket; i++)
		for (o = m->bucket[i]; o; o = next) {
			next = o->next;
			free(o);
		}
	free(m->bucket);
	free(m->gitdir);
	free(m->objects);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int rb_apply__mem_new(struct rb_apply_mem **out, git_repository *repo)
{
	const char *gitdir = git_repository_path(repo);
	const char *common = git_repository_commondir(repo);
	struct rb_buf b = RB_BUF_INIT(8192);
	struct rb_apply_mem *m;

	if (!gitdir || !common)
		return rb_err(RB_EINVAL,
			      "apply: the repository has no directory on disk");
	m = calloc(1, sizeof(*m));
	if (!m)
		return -RB_ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	m->refs = 1;
	m->n_bucket = 256;
	m->bucket = calloc(m->n_bucket, sizeof(*m->bucket));
	m->gitdir = strdup(gitdir);
	if (!rb_buf_printf(&b, "%s%sobjects", common,
			   common[strlen(common) - 1] == '/' ? "" : "/"))
		m->objects = rb_buf_detach(&b, NULL);
	rb_buf_release(&b);
	if (!m->bucket || !m->gitdir || !m->objects) {
		rb_apply__mem_unref(m);
		return -RB_ENOMEM;
	}
	*out = m;
	return 0;
}

static int mem_grow(struct rb_apply_mem *m)
{
	size_t n = m->n_bucket * 2, i;
	struct memobj **nb = calloc(n, sizeof(*nb)), *o, *next;

	if (!nb)
		return -1;
	for (i = 0; i < m->n_bucket; i++)
		for (o = m->bucket[i]; o; o = next) {
			uint32_t h;

			next = o->next;
			memcpy(&h, o->oid.id, sizeof(h));
			o->next = nb[h & (n - 1)];
			nb[h & (n - 1)] = o;
		}
	free(m->bucket);
	m->bucket = nb;
	m->n_bucket = n;
	return 0;
}

#define MEM(b) (((struct mem_backend *)(b))->mem)

/*
 * Where libgit2 wants an object's type and size, and for a read its bytes
 * (@buf NULL: the header only). libgit2 frees the bytes.
 */
struct memout {
	void **buf;
	size_t *len;
	git_object_t *type;
};

/*
 * Fills @w from @o (the caller holds the lock); 0, or -1 out of memory.
 * The bytes end with a NUL past the object's size, as libgit2's own
 * backends give them: readers of a blob's text (the model's tools) may
 * rely on it.
 */
static int mem_out(const struct memout *w, git_odb_backend *b,
		   const struct memobj *o)
{
	if (w->buf) {
		*w->buf = git_odb_backend_data_alloc(b, o->len + 1);
		if (!*w->buf)
			return -1;
		memcpy(*w->buf, o->data, o->len);
		((char *)*w->buf)[o->len] = '\0';
	}
	*w->len = o->len;
	*w->type = o->type;
	return 0;
}

/* The object @oid into @w; GIT_ENOTFOUND when the store lacks it. */
static int mem_read(const struct memout *w, git_odb_backend *b,
		    const git_oid *oid)
{
	struct rb_apply_mem *m = MEM(b);
	struct memobj *o;
	int ret = GIT_ENOTFOUND;

	pthread_mutex_lock(&m->lock);
	o = mem_find(m, oid);
	if (o)
		ret = mem_out(w, b, o);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/*
 * The one object whose id starts with @prefix: its full id in @out and,
 * with @w, the object into @w. The errors of mem_find_prefix().
 */
static int mem_read_prefix(git_oid *out, const struct memout *w,
			   git_odb_backend *b, const git_oid *prefix,
			   size_t plen)
{
	struct rb_apply_mem *m = MEM(b);
	struct memobj *o = NULL;
	int ret;

	pthread_mutex_lock(&m->lock);
	ret = mem_find_prefix(&o, m, prefix, plen);
	if (!ret && w)
		ret = mem_out(w, b, o);
	if (!ret)
		git_oid_cpy(out, &o->oid);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static int mb_read(void **buf, size_t *len, git_object_t *type,
		   git_odb_backend *b, const git_oid *oid)
{
	const struct memout w = { buf, len, type };

	return mem_read(&w, b, oid);
}

static int mb_read_prefix(git_oid *out, void **buf, size_t *len,
			  git_object_t *type, git_odb_backend *b,
			  const git_oid *prefix, size_t plen)
{
	const struct memout w = { buf, len, type };

	return mem_read_prefix(out, &w, b, prefix, plen);
}

static int mb_read_header(size_t *len, git_object_t *type, git_odb_backend *b,
			  const git_oid *oid)
{
	const struct memout w = { NULL, len, type };

	return mem_read(&w, b, oid);
}

static int mb_exists(git_odb_backend *b, const git_oid *oid)
{
	struct rb_apply_mem *m = MEM(b);
	bool hit;

	pthread_mutex_lock(&m->lock);
	hit = mem_find(m, oid) != NULL;
	pthread_mutex_unlock(&m->lock);
	return hit;
}

static int mb_exists_prefix(git_oid *out, git_odb_backend *b,
			    const git_oid *prefix, size_t plen)
{
	return mem_read_prefix(out, NULL, b, prefix, plen);
}

static int mb_freshen(git_odb_backend *b, const git_oid *oid)
{
	return mb_exists(b, oid) ? 0 : GIT_ENOTFOUND;
}

static int mb_write(git_odb_backend *b, const git_oid *oid, const void *data,
		    size_t len, git_object_t type)
{
	struct rb_apply_mem *m = MEM(b);
	struct memobj *o;
	size_t h;
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	if (mem_find(m, oid))
		goto out;
	if (m->n >= m->n_bucket * 2 && mem_grow(m)) {
		ret = -1;
		goto out;
	}
	o = malloc(sizeof(*o) + len);
	if (!o) {
		git_error_set_oom();
		ret = -1;
		goto out;
	}
	git_oid_cpy(&o->oid, oid);
	o->type = type;
	o->len = len;
	memcpy(o->data, data, len);
	h = mem_hash(m, oid);
	o->next = m->bucket[h];
	m->bucket[h] = o;
	m->n++;
out:
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static void mb_free(git_odb_backend *b)
{
	rb_apply__mem_unref(MEM(b));
	free(b);
}

static int mem_backend_new(git_odb_backend **out, struct rb_apply_mem *m)
{
	struct mem_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return -1;
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = mb_read;
	b->parent.read_prefix = mb_read_prefix;
	b->parent.read_header = mb_read_header;
	b->parent.write = mb_write;
	b->parent.exists = mb_exists;
	b->parent.exists_prefix = mb_exists_prefix;
	b->parent.freshen = mb_freshen;
	b->parent.free = mb_free;
	pthread_mutex_lock(&m->lock);
	m->refs++;
	pthread_mutex_unlock(&m->lock);
	b->mem = m;
	*out = &b->parent;
	return 0;
}

/* A backend of the tree's objects that can only read. */
static void read_only(git_odb_backend *b)
{
	b->write = NULL;
	b->writestream = NULL;
	b->writepack = NULL;
	b->writemidx = NULL;
	b->freshen = NULL;
}

/*
 * Adds @dir (an object directory) and what its info/alternates names,
 * @depth levels deep as git does, as read-only alternates of @odb.
 */
static int add_objects_dir(git_odb *odb, const char *dir, int depth)
{
	git_odb_backend *pack = NULL, *loose = NULL;
	struct rb_buf path = RB_BUF_INIT(8192), alt = RB_BUF_INIT(1u << 20);
	const char *p;
	int ret = 0;

	if (git_odb_backend_pack(&pack, dir) < 0 ||
	    git_odb_backend_loose(&loose, dir, -1, 0, 0, 0) < 0) {
		if (pack)
			pack->free(pack);
		return rb_apply__git_fail("object directory");
	}
	read_only(pack);
	read_only(loose);
	if (git_odb_add_alternate(odb, pack, 2) < 0) {
		pack->free(pack);
		loose->free(loose);
		return rb_apply__git_fail("object directory");
	}
	if (git_odb_add_alternate(odb, loose, 1) < 0) {
		loose->free(loose);
		return rb_apply__git_fail("object directory");
	}
	if (depth > 5 || rb_buf_printf(&path, "%s/info/alternates", dir) ||
	    rb_read_file(&alt, path.ptr)) {
		rb_err_clear();
		goto out;
	}
	for (p = alt.ptr; *p && !ret;) {
		size_t n = strcspn(p, "\n");

		if (n && *p != '#') {
			rb_buf_reset(&path);
			if (*p == '/')
				ret = rb_buf_printf(&path, "%.*s", (int)n, p);
			else
				ret = rb_buf_printf(&path, "%s/%.*s", dir,
						    (int)n, p);
			if (!ret)
				ret = add_objects_dir(odb, path.ptr, depth + 1);
		}
		p += n;
		if (*p == '\n')
			p++;
	}
out:
	rb_buf_release(&path);
	rb_buf_release(&alt);
	return ret;
}

/* The tree opened again over @m: writes go to @m, reads fall through. */
int rb_apply__mem_repo_open(git_repository **out, struct rb_apply_mem *m)
{
	git_repository *repo = NULL;
	git_odb_backend *b = NULL;
	git_odb *odb = NULL;
	int ret = 0;

	if (git_repository_open_bare(&repo, m->gitdir) < 0 ||
	    git_odb_new(&odb) < 0) {
		ret = rb_apply__git_fail("open");
		goto out;
	}
	if (mem_backend_new(&b, m) < 0) {
		ret = -RB_ENOMEM;
		goto out;
	}
	if (git_odb_add_backend(odb, b, 999) < 0) {
		b->free(b);
		ret = rb_apply__git_fail("object store");
		goto out;
	}
	ret = add_objects_dir(odb, m->objects, 0);
	if (!ret && git_repository_set_odb(repo, odb) < 0)
		ret = rb_apply__git_fail("object store");
	if (!ret) {
		*out = repo;
		repo = NULL;
	}
out:
	git_odb_free(odb);
	git_repository_free(repo);
	return ret;
}

int rb_apply_repo_open(git_repository **out, const struct rb_apply_result *r)
{
	if (!r || !r->mem)
		return rb_err(RB_EINVAL, "apply: no applied objects");
	return rb_apply__mem_repo_open(out, r->mem);
}

int rb_apply_result_write(const struct rb_apply_result *r, git_repository *repo)
{
	struct rb_apply_mem *m = r ? r->mem : NULL;
	git_odb *odb = NULL;
	struct memobj *o;
	size_t i;
	int ret = 0;

	if (!m)
		return 0;
	if (git_repository_odb(&odb, repo) < 0)
		return rb_apply__git_fail("object store");
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->n_bucket && !ret; i++)
		for (o = m->bucket[i]; o && !ret; o = o->next) {
			git_oid id;

			if (git_odb_write(&id, odb, o->data, o->len, o->type) <
			    0)
				ret = rb_apply__git_fail("object write");
		}
	pthread_mutex_unlock(&m->lock);
	git_odb_free(odb);
	return ret;
}
