// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_tree.c - the kernel tree a lookup reads: a git revision
 * (symbolic links followed inside it, never out) or a plain directory;
 * get_maintainer's -d and -f tests and its file reads.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "review/maint/maint_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

int rb_maint__src_node(const struct tree_src *s, const char *path)
{
	struct stat st;
	struct rb_buf b = RB_BUF_INIT(PATH_MAX);
	int kind = NODE_NONE;

	if (s->missed) {
		__atomic_store_n(s->missed, 1, __ATOMIC_RELAXED);
		return NODE_NONE;
	}
	if (s->ops)
		return s->ops->node(s, path);
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
	if (s->missed) {
		__atomic_store_n(s->missed, 1, __ATOMIC_RELAXED);
		return rb_err(RB_ENOTFOUND, "%s: not in the cache", path);
	}
	if (s->ops)
		return s->ops->read(s, path, out);
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

int rb_maint__src_commit_body(const struct tree_src *s, const char *hex,
			      struct rb_buf *out)
{
	if (s->missed) { /* the cache knows no commits */
		__atomic_store_n(s->missed, 1, __ATOMIC_RELAXED);
		return -RB_ENOTFOUND;
	}
	if (!s->ops)
		return -RB_ENOTFOUND; /* vcs_exists() is false */
	return s->ops->commit_body(s, hex, out);
}

void rb_maint__src_release(struct tree_src *s)
{
	if (s->ops)
		s->ops->release(s);
	free(s->dir);
	free(s->missed);
	memset(s, 0, sizeof(*s));
}

int rb_maint__tree_dirs(unsigned char *memo, const struct index *ix,
			const struct tree_src *src)
{
	size_t i;

	for (i = 0; i < ix->npat; i++) {
		const struct pat *p = &ix->pat[i];
		char *v;

		memo[i] = 0;
		if (!p->may_dir)
			continue;
		v = strndup(pat_val(ix, p), p->vlen);
		if (!v)
			return rb_err(RB_ENOMEM, "maintainers: out of memory");
		memo[i] = rb_maint__src_node(src, v) == NODE_DIR ? 1 : 2;
		free(v);
	}
	return 0;
}

/* A small file of the .git directory, NUL-terminated, newline cut. */
static int git_file(char *buf, size_t size, const char *gitdir,
		    const char *name)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", gitdir, name) >=
	    sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int hex_id(unsigned char id[GIT_OID_RAWSZ], const char *hex)
{
	size_t i;

	for (i = 0; i < GIT_OID_HEXSZ; i++) {
		const char *d = strchr("0123456789abcdef", hex[i]);

		if (!hex[i] || !d)
			return -1;
		if (i % 2 == 0)
			id[i / 2] = 0;
		id[i / 2] |= (unsigned char)((d - "0123456789abcdef")
					     << (i % 2 ? 0 : 4));
	}
	return hex[i] ? -1 : 0;
}

/* "<hex> <ref>" in packed-refs (git's file, one ref a line). */
static int packed_ref(unsigned char id[GIT_OID_RAWSZ], const char *gitdir,
		      const char *ref)
{
	char path[PATH_MAX], line[1024];
	size_t rl = strlen(ref);
	FILE *f;
	int ret = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s/packed-refs", gitdir) >=
	    sizeof(path))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) == GIT_OID_HEXSZ + 1 + rl &&
		    line[GIT_OID_HEXSZ] == ' ' &&
		    !strcmp(line + GIT_OID_HEXSZ + 1, ref)) {
			line[GIT_OID_HEXSZ] = '\0';
			ret = hex_id(id, line);
		}
	}
	fclose(f);
	return ret;
}

int rb_maint__head_commit(unsigned char id[GIT_OID_RAWSZ],
			  const char *repo_path)
{
	char gitdir[PATH_MAX], head[512], ref[512];
	struct stat st;
	const char *name;

	/* A worktree's .git directory; a bare repository is its own. */
	if ((size_t)snprintf(gitdir, sizeof(gitdir), "%s/.git", repo_path) >=
		    sizeof(gitdir) ||
	    lstat(gitdir, &st) || !S_ISDIR(st.st_mode)) {
		if ((size_t)snprintf(gitdir, sizeof(gitdir), "%s", repo_path) >=
		    sizeof(gitdir))
			return -RB_ENOTFOUND;
	}
	if (git_file(head, sizeof(head), gitdir, "HEAD"))
		return -RB_ENOTFOUND;
	if (strncmp(head, "ref: ", 5))
		return hex_id(id, head) ? -RB_ENOTFOUND : 0;
	name = head + 5;
	/* Only a branch, named without "..": the name picks a file. */
	if (strncmp(name, "refs/heads/", 11) || strstr(name, ".."))
		return -RB_ENOTFOUND;
	if (!git_file(ref, sizeof(ref), gitdir, name))
		return hex_id(id, ref) ? -RB_ENOTFOUND : 0;
	return packed_ref(id, gitdir, name) ? -RB_ENOTFOUND : 0;
}
