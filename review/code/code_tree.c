// SPDX-License-Identifier: GPL-2.0-only
/*
 * code_tree.c - the blobs of a git tree (code_tree.h).
 */
#include <stdlib.h>
#include <string.h>

#include "review/code/code_tree.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

struct walk {
	struct rb_code_tree *s;
	int ret;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *arg)
{
	struct walk *w = arg;
	struct rb_code_tree *s = w->s;
	const char *name = git_tree_entry_name(e);
	struct rb_code_tree_file *v;
	size_t rl = strlen(root), nl = strlen(name);

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(e) == GIT_FILEMODE_LINK)
		return 0;
	v = rb_grow(s->f, &s->cap, s->n, sizeof(*s->f));
	if (!v)
		goto nomem;
	s->f = v;
	v = &s->f[s->n];
	v->path = malloc(rl + nl + 1);
	if (!v->path)
		goto nomem;
	memcpy(v->path, root, rl);
	memcpy(v->path + rl, name, nl + 1);
	git_oid_cpy(&v->oid, git_tree_entry_id(e));
	s->n++;
	return 0;
nomem:
	w->ret = rb_err(RB_ENOMEM, "code tree: out of memory");
	return -1;
}

int rb_code_tree_load(struct rb_code_tree *s, git_repository *repo,
		      const git_oid *oid, const char *what)
{
	struct walk w = { s, 0 };
	git_tree *tree = NULL;

	if (s->loaded)
		return 0;
	if (git_tree_lookup(&tree, repo, oid) < 0)
		return rb_err(RB_EIO, "code: the %s tree cannot be read", what);
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w) < 0 && !w.ret)
		w.ret = rb_err(RB_EIO,
			       "code: the %s tree cannot be "
			       "walked",
			       what);
	git_tree_free(tree);
	if (w.ret) {
		rb_code_tree_release(s);
		return w.ret;
	}
	s->loaded = true;
	return 0;
}

void rb_code_tree_release(struct rb_code_tree *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->f[i].path);
	free(s->f);
	memset(s, 0, sizeof(*s));
}
