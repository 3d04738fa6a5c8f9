// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_tree.c - the kernel tree a lookup reads: a git revision
 * (symbolic links followed inside it, never out) or a plain directory;
 * get_maintainer's -d and -f tests and its file reads.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "review/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
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

int rb_maint__src_node(const struct tree_src *s, const char *path)
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
int rb_maint__src_read(const struct tree_src *s, const char *path,
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

		if (rb_maint__src_node(s, path) != NODE_FILE)
			return rb_err(RB_ENOTFOUND, "%s: not a file", path);
		err = rb_buf_printf(&p, "%s/%s", s->dir, path);
		if (!err)
			err = rb_read_file(out, p.ptr);
		rb_buf_release(&p);
		return err;
	}
	return rb_err(RB_ENOTFOUND, "%s: no tree", path);
}

void rb_maint__src_release(struct tree_src *s)
{
	git_tree_free(s->tree);
	git_repository_free(s->repo);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* Opens @repo_path at @rev into @src; the ids of MAINTAINERS and
 * .mailmap (zero when absent) into @mid/@mmid.
 */
int rb_maint__open_git(struct tree_src *src, const char *repo_path,
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
