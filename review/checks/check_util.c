// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_util.c - helpers of the tree checkers (check_util.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "mail/message.h"
#include "review/checks/check_util.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#define MAX_TOOL_FILES 2000 /* files of one tools directory */
#define MAX_FILE (8u << 20)

static int mkdirs(char *path, size_t from)
{
	char *slash;

	for (slash = strchr(path + from, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int e = errno;

			*slash = '/';
			return rb_err(RB_EIO, "mkdir %s: %s", path,
				      strerror(e));
		}
		*slash = '/';
	}
	return 0;
}

static int write_blob(git_repository *repo, const git_oid *id, const char *path,
		      size_t from, mode_t mode)
{
	git_blob *blob = NULL;
	char buf[8192];
	int ret;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return rb_err(RB_EINVAL, "path too long");
	ret = mkdirs(buf, from);
	if (ret)
		return ret;
	if (git_blob_lookup(&blob, repo, id))
		return rb_err(RB_EIO, "blob of %s: %s", path, rb_git_msg());
	if ((size_t)git_blob_rawsize(blob) > 4 * MAX_FILE)
		ret = rb_err(RB_ETOOBIG, "%s is too big", path);
	else
		ret = rb_write_file_atomic(path, git_blob_rawcontent(blob),
					   (size_t)git_blob_rawsize(blob),
					   mode);
	git_blob_free(blob);
	return ret;
}

struct walk {
	git_repository *repo;
	const char *dir, *rel;
	size_t n;
	int ret;
};

static int walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct walk *w = payload;
	char path[8192];

	if (git_tree_entry_type(te) != GIT_OBJECT_BLOB)
		return 0;
	if (++w->n > MAX_TOOL_FILES) {
		w->ret = rb_err(RB_ETOOBIG, "%s has too many files", w->rel);
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/%s/%s%s", w->dir, w->rel, root,
		     git_tree_entry_name(te)) >= (int)sizeof(path)) {
		w->ret = rb_err(RB_EINVAL, "path too long");
		return -1;
	}
	w->ret = write_blob(w->repo, git_tree_entry_id(te), path,
			    strlen(w->dir), 0755);
	return w->ret ? -1 : 0;
}

int rb_check_tool_extract(git_repository *repo, const git_oid *tools,
			  const char *rel, const char *dir)
{
	git_commit *c = NULL;
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *te = NULL;
	char path[8192];
	int ret = 0;

	if (git_commit_lookup(&c, repo, tools) || git_commit_tree(&tree, c)) {
		ret = rb_err(RB_ENOTFOUND, "configured branch tip %s: %s",
			     git_oid_tostr_s(tools), rb_git_msg());
		goto out;
	}
	if (git_tree_entry_bypath(&te, tree, rel)) {
		ret = rb_err(RB_ENOTFOUND,
			     "%s is not in the configured branch tip %s", rel,
			     git_oid_tostr_s(tools));
		goto out;
	}
	if (git_tree_entry_type(te) == GIT_OBJECT_BLOB) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		ret = write_blob(repo, git_tree_entry_id(te), path, strlen(dir),
				 0755);
	} else if (git_tree_entry_type(te) == GIT_OBJECT_TREE) {
		struct walk w = { repo, dir, rel, 0, 0 };

		if (git_tree_lookup(&sub, repo, git_tree_entry_id(te))) {
			ret = rb_err(RB_EIO, "tree %s: %s", rel, rb_git_msg());
			goto out;
		}
		if (git_tree_walk(sub, GIT_TREEWALK_PRE, walk_cb, &w) && !w.ret)
			w.ret = rb_err(RB_EIO, "walk %s: %s", rel,
				       rb_git_msg());
		ret = w.ret;
	} else {
		ret = rb_err(RB_ENOTFOUND, "%s is not a file or directory",
			     rel);
	}
out:
	git_tree_free(sub);
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(c);
	git_error_clear();
	return ret;
}

bool rb_check_plain_path(const char *p)
{
	if (!*p || *p == '/' || *p == '-' || strstr(p, ".."))
		return false;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/._-+,", *p))
			return false;
	return true;
}

static bool has_ext(const char *p, const char *const *exts)
{
	size_t n = strlen(p), i;

	for (i = 0; exts[i]; i++) {
		size_t e = strlen(exts[i]);

		if (n > e && !strcmp(p + n - e, exts[i]))
			return true;
	}
	return false;
}

void rb_check_files_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int rb_check_changed_files(char ***out, size_t *n, git_repository *repo,
			   const struct rb_check_ctx *ctx,
			   const char *const *exts, size_t max)
{
	git_diff *diff = NULL;
	char **v = NULL;
	size_t i, k = 0;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (rb_tree_diff(&diff, repo, &ctx->base, &ctx->applied))
		return rb_err(RB_EIO, "diff base..applied: %s", rb_git_msg());
	v = calloc(max ? max : 1, sizeof(*v));
	if (!v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < git_diff_num_deltas(diff) && k < max; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *p = d->new_file.path;

		if (d->status == GIT_DELTA_DELETED || !has_ext(p, exts) ||
		    !rb_check_plain_path(p) || !strncmp(p, "tools/", 6) ||
		    strstr(p, "selftests/") ||
		    d->new_file.mode != GIT_FILEMODE_BLOB)
			continue;
		v[k] = strdup(p);
		if (!v[k]) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		k++;
	}
	*out = v;
	*n = k;
	v = NULL;
out:
	rb_check_files_free(v, k);
	git_diff_free(diff);
	return ret;
}

int rb_check_write_file(git_repository *repo, const git_oid *commit,
			const char *path, const char *dir)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	char full[8192];
	int ret = 0;

	if (git_commit_lookup(&c, repo, commit) || git_commit_tree(&tree, c)) {
		ret = rb_err(RB_EIO, "commit %s: %s", git_oid_tostr_s(commit),
			     rb_git_msg());
		goto out;
	}
	if (git_tree_entry_bypath(&te, tree, path) ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB)
		goto out;
	if (snprintf(full, sizeof(full), "%s/%s", dir, path) >=
	    (int)sizeof(full)) {
		ret = rb_err(RB_EINVAL, "path too long");
		goto out;
	}
	ret = write_blob(repo, git_tree_entry_id(te), full, strlen(dir), 0644);
	if (!ret)
		ret = 1;
out:
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(c);
	git_error_clear();
	return ret;
}

int rb_check_work_open(struct rb_check_work *w, const struct rb_check_ctx *ctx,
		       const char *name, const char *const *exts, size_t max)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->name = name;
	if (!ctx->repo_path || !ctx->has_base || !ctx->has_applied)
		return rb_err(RB_EINVAL, "%s needs the base and applied trees",
			      name);
	if (!ctx->has_tools)
		return rb_err(RB_EINVAL,
			      "%s needs the configured branch tip: its tools "
			      "are never taken from a base a mail names",
			      name);
	ret = rb_check_repo_open(&w->repo, ctx);
	if (!ret)
		ret = rb_check_changed_files(&w->files, &w->n, w->repo, ctx,
					     exts, max);
	return ret;
}

/* @dir/@sub into @out (of sizeof(w->tools)), made 0755. */
static int work_mkdir(char *out, const char *dir, const char *sub)
{
	snprintf(out, sizeof(((struct rb_check_work *)0)->tools), "%s/%s", dir,
		 sub);
	if (mkdir(out, 0755))
		return rb_err(RB_EIO, "mkdir %s: %s", out, strerror(errno));
	return 0;
}

int rb_check_work_fill(struct rb_check_work *w, const struct rb_check_ctx *ctx,
		       const char *name, const char *const *tools)
{
	size_t i;
	int ret;

	w->in_base = calloc(w->n ? w->n : 1, sizeof(*w->in_base));
	w->in_applied = calloc(w->n ? w->n : 1, sizeof(*w->in_applied));
	if (!w->in_base || !w->in_applied)
		return rb_err(RB_ENOMEM, "out of memory");
	snprintf(w->tmpl, sizeof(w->tmpl), "/tmp/rb-%.20s-XXXXXX", name);
	w->dir = mkdtemp(w->tmpl);
	if (!w->dir)
		return rb_err(RB_EIO, "mkdtemp: %s", strerror(errno));
	/* Read by uid 65534 in the sandbox when we are root. */
	chmod(w->dir, 0755);
	ret = work_mkdir(w->tools, w->dir, "tools");
	if (!ret)
		ret = work_mkdir(w->src, w->dir, "src");
	if (!ret)
		ret = work_mkdir(w->bdir, w->dir, "src/b");
	if (!ret)
		ret = work_mkdir(w->adir, w->dir, "src/a");
	if (!ret)
		ret = rb_check_tool_extract(w->repo, &ctx->tools, tools[0],
					    w->tools);
	for (i = 1; !ret && tools[i]; i++)
		if (rb_check_tool_extract(w->repo, &ctx->tools, tools[i],
					  w->tools))
			rb_err_clear();
	for (i = 0; i < w->n && !ret; i++) {
		int a, b;

		b = rb_check_write_file(w->repo, &ctx->base, w->files[i],
					w->bdir);
		a = b < 0 ? b :
			    rb_check_write_file(w->repo, &ctx->applied,
						w->files[i], w->adir);
		if (a < 0 || b < 0)
			return a < 0 ? a : b;
		w->in_base[i] = b == 1;
		w->in_applied[i] = a == 1;
		w->any_applied |= w->in_applied[i];
	}
	return ret;
}

int rb_check_work_run(struct rb_check_work *w, struct rb_sandbox_opts *so,
		      const char *script)
{
	struct rb_sandbox_bind bind = { w->tools, "/tools", false };
	int ret;

	so->src = w->src;
	so->binds = &bind;
	so->n_binds = 1;
	so->chdir = "/src";
	ret = rb_sandbox_run(&w->res, so, script);
	if (ret)
		return ret;
	w->have_res = true;
	if (w->res.timed_out)
		return rb_err(RB_ETIMEOUT, "%s did not finish in time",
			      w->name);
	return 0;
}

void rb_check_work_release(struct rb_check_work *w)
{
	if (w->have_res)
		rb_proc_result_release(&w->res);
	rb_findings_release(&w->base);
	rb_findings_release(&w->now);
	if (w->dir)
		rb_remove_tree(w->dir);
	free(w->in_base);
	free(w->in_applied);
	rb_check_files_free(w->files, w->n);
	git_repository_free(w->repo);
	memset(w, 0, sizeof(*w));
}

int rb_check_patch_of(const struct rb_check_ctx *ctx, const char *file)
{
	char needle[4200];
	size_t i;
	int found = 0;

	if (snprintf(needle, sizeof(needle), "\n+++ b/%s\n", file) >=
	    (int)sizeof(needle))
		return 0;
	for (i = 0; i < ctx->n_patches; i++) {
		const struct rb_message *m = ctx->patches[i].msg;
		const char *p = m && m->patch ? m->patch : ctx->patches[i].raw;

		if (p && (strstr(p, needle) ||
			  !strncmp(p, needle + 1, strlen(needle + 1))))
			found = (int)i + 1;
	}
	return found;
}

char *rb_check_nth_line(const char *text, int line)
{
	const char *p = text;
	int i;

	for (i = 1; p && i < line; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return p && *p ? strndup(p, strcspn(p, "\n")) : NULL;
}

char *rb_check_line_of(const char *dir, const char *file, int line)
{
	struct rb_buf b = RB_BUF_INIT(MAX_FILE);
	char path[8192];
	char *s = NULL;
	struct stat st;
	int fd;

	if (line < 1 || !rb_check_plain_path(file) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, file) >=
		    (int)sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > MAX_FILE || rb_read_fd(&b, fd))
		goto out;
	s = rb_check_nth_line(b.ptr, line);
out:
	rb_err_clear();
	close(fd);
	rb_buf_release(&b);
	return s;
}

bool rb_check_parse_loc(char *s, const char *strip, const char **file,
			int *line, const char **msg)
{
	char *p, *e;
	long ln;

	if (strip && !strncmp(s, strip, strlen(strip)))
		s += strlen(strip);
	while (!strncmp(s, "./", 2))
		s += 2;
	p = strchr(s, ':');
	if (!p || p == s || !isdigit((unsigned char)p[1]))
		return false;
	*p = '\0';
	ln = strtol(p + 1, &e, 10);
	if (ln < 1 || ln > 100000000 || *e != ':')
		return false;
	/* :COL, :COL-COL */
	if (isdigit((unsigned char)e[1])) {
		char *f = e + 1;

		strtol(f, &f, 10);
		if (*f == '-' && isdigit((unsigned char)f[1]))
			strtol(f + 1, &f, 10);
		if (*f == ':')
			e = f;
	}
	e++;
	while (*e == ' ')
		e++;
	if (!*e || !rb_check_plain_path(s))
		return false;
	*file = s;
	*line = (int)ln;
	*msg = e;
	return true;
}

bool rb_check_same_but_digits(const char *a, const char *b)
{
	for (;;) {
		while (isdigit((unsigned char)*a))
			a++;
		while (isdigit((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

bool rb_check_in_base(const struct rb_findings *base, bool *used,
		      const struct rb_finding *f)
{
	size_t i;

	for (i = 0; i < base->n; i++)
		if (!used[i] && base->v[i].file && f->file &&
		    !strcmp(base->v[i].file, f->file) && base->v[i].code &&
		    f->code &&
		    rb_check_same_but_digits(base->v[i].code, f->code)) {
			used[i] = true;
			return true;
		}
	return false;
}
